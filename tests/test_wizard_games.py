"""Wizard games: checked-mode conformance for every player count and policy, the golden trace,
deal statistics against exact values, and results independent of batching."""
from __future__ import annotations

import os
from math import comb, sqrt
from pathlib import Path

import numpy as np
import pytest

from sim.errors import SpecError
from sim.games import wizard
from sim.spec import ArmSpec

SEED = 20240601


def arrays(table, name, width):
    return np.array(table[name].to_pylist(), dtype=np.int64).reshape(len(table), width)


def check_table(arm, table, count):
    """Every invariant visible in the rows (the kernel checks cards and legality itself)."""
    n = arm.players
    rounds = wizard.rounds_of(arm)
    assert len(table) == count
    assert table["rounds"].to_pylist() == [rounds] * count
    bids = arrays(table, "round_bids", rounds * n).reshape(count, rounds, n)
    tricks = arrays(table, "round_tricks", rounds * n).reshape(count, rounds, n)
    sizes = np.arange(1, rounds + 1)
    assert (tricks.sum(axis=2) == sizes).all(), "each round's tricks add up to its size"
    assert (bids >= 0).all() and (bids <= sizes[None, :, None]).all()
    if arm.rule_values["hook_rule"]:
        assert (bids.sum(axis=2) != sizes).all()
    exact = bids == tricks
    points = np.where(exact, 20 + 10 * tricks, -10 * np.abs(bids - tricks))
    score = arrays(table, "score", n)
    assert (points.sum(axis=1) == score).all()
    assert (arrays(table, "exact_bids", n) == exact.sum(axis=1)).all()
    assert (arrays(table, "tricks", n) == tricks.sum(axis=1)).all()
    assert (arrays(table, "points_lost", n) == np.where(exact, 0, -points).sum(axis=1)).all()
    assert (arrays(table, "bid_total", n) == bids.sum(axis=1)).all()
    top = score.max(axis=1)
    mask = sum(((score[:, s] == top) << s) for s in range(n))
    assert (np.array(table["winner_mask"].to_pylist()) == mask).all()
    trump = arrays(table, "round_trump", rounds)
    turned = arrays(table, "round_turned", rounds)
    suited = (turned >= 0) & (turned < 52)
    assert (trump[suited] == turned[suited] // 13).all()
    assert (trump[(turned < 0) | (turned >= 56)] == 4).all()
    assert (trump[(turned >= 52) & (turned < 56)] < 4).all()
    if rounds * n == 60:
        assert (turned[:, -1] == -1).all() and (trump[:, -1] == 4).all()
    # actions: a bid per seat and round, one card per trick per seat, a trump choice per Wizard turned
    wiz = ((turned >= 52) & (turned < 56)).sum(axis=1)
    assert (np.array(table["turns"].to_pylist()) == rounds * n + n * sizes.sum() + wiz).all()


@pytest.mark.parametrize("n", [3, 4, 5, 6])
@pytest.mark.parametrize("policy,count", [("random", 1000), ("heuristic", 1000), ("sampler", 250)])
def test_conformance_checked(n, policy, count):
    arm = ArmSpec.make("wizard", n, {}, policy)
    table = wizard.RUNNER.play_batch(arm, SEED, 0, count, checked=True)
    check_table(arm, table, count)


@pytest.mark.parametrize("rules", [{"hook_rule": True}, {"strict_void": True},
                                   {"rounds": 5, "final_no_trump": True}])
def test_conformance_variants(rules):
    arm = ArmSpec.make("wizard", 4, rules, "heuristic,random,sampler,heuristic")
    table = wizard.RUNNER.play_batch(arm, SEED, 0, 150, checked=True)
    check_table(arm, table, 150)
    if rules.get("final_no_trump"):
        assert set(arrays(table, "round_trump", 5)[:, -1]) == {4}
        assert set(arrays(table, "round_turned", 5)[:, -1]) == {-1}


def test_rounds_limit_is_checked():
    with pytest.raises(SpecError, match="rounds=11"):
        ArmSpec.make("wizard", 6, {"rounds": 11})
    assert wizard.rounds_of(ArmSpec.make("wizard", 6, {"rounds": 10})) == 10
    with pytest.raises(SpecError):
        ArmSpec.make("wizard", 7)


def test_batches_and_policies_do_not_change_games():
    arm = ArmSpec.make("wizard", 5, {}, "heuristic,random,heuristic,random,heuristic")
    whole = wizard.RUNNER.play_batch(arm, SEED, 0, 90)
    parts = [wizard.RUNNER.play_batch(arm, SEED, a, b - a) for a, b in ((0, 31), (31, 32), (32, 90))]
    for name in ("score", "round_bids", "round_tricks", "round_turned"):
        assert whole[name].to_pylist() == sum((p[name].to_pylist() for p in parts), [])
    # the deal stream does not depend on the players: the same game index turns the same cards
    other = wizard.RUNNER.play_batch(ArmSpec.make("wizard", 5, {"hook_rule": 1}, "random"), SEED, 0, 90)
    assert whole["round_turned"].to_pylist() == other["round_turned"].to_pylist()


def test_stronger_players_win_more():
    table = wizard.RUNNER.play_batch(ArmSpec.make("wizard", 4, {}, "heuristic,random,random,random"),
                              SEED, 0, 300)
    assert np.mean([m & 1 for m in table["winner_mask"].to_pylist()]) > 0.9
    table = wizard.RUNNER.play_batch(ArmSpec.make("wizard", 4, {}, "sampler,heuristic,heuristic,heuristic"),
                              SEED, 0, 250)
    score = arrays(table, "score", 4)
    assert score[:, 0].mean() > score[:, 1:].mean()


# ------------------------------------------------------------------------ statistics
def band(k, trials, p, z=4.5):
    """k successes in trials agree with probability p within z standard deviations."""
    mean = trials * p
    return abs(k - mean) <= z * sqrt(trials * p * (1 - p)) + 1


@pytest.mark.parametrize("n", [3, 6])
def test_turned_card_statistics(n):
    """Round 1 turns the card below n dealt cards; over random deals every card is equally likely
    there, so P(Jester) = P(Wizard) = 4/60 whatever n; P(Jester | no Jester dealt) = 4/(60-n)."""
    games = 6000
    table = wizard.RUNNER.play_batch(ArmSpec.make("wizard", n, {"rounds": 2}, "random"), SEED, 0, games)
    turned = arrays(table, "round_turned", 2)
    first = turned[:, 0]
    assert band(((first >= 56)).sum(), games, 4 / 60)
    assert band(((first >= 52) & (first < 56)).sum(), games, 4 / 60)
    assert band((first == 0).sum(), games, 1 / 60)
    # round 2 too: every card is equally likely to be the turned card
    assert band((turned[:, 1] >= 56).sum(), games, 4 / 60)


def test_card_in_hand_statistics():
    """A given card is in a given seat's hand with probability r/60, and a seat holds no Wizard
    with probability C(56, r)/C(60, r)."""
    from kernels.rng_nb import deal_stream_nb
    from kernels.wizard.rules_nb import deal_nb

    rng = np.zeros(1, dtype=np.uint64)
    deck = np.empty(60, dtype=np.int64)
    hands = np.zeros(6, dtype=np.uint64)
    trials, n, r = 6000, 4, 7
    has_ace, no_wizard, jester_turned, jester_turned_cond, cond = 0, 0, 0, 0, 0
    for i in range(trials):
        rng[0] = deal_stream_nb(SEED, i, r - 1)
        top = deal_nb(rng, deck, n, r, hands)
        h0 = int(hands[0])
        has_ace += h0 >> 12 & 1  # ace of hearts in seat 0
        no_wizard += (h0 >> 52 & 0xF) == 0
        dealt = 0
        for s in range(n):
            dealt |= int(hands[s])
        if (dealt >> 56) == 0:
            cond += 1
            jester_turned_cond += top >= 56
        jester_turned += top >= 56
    assert band(has_ace, trials, r / 60)
    assert band(no_wizard, trials, comb(56, r) / comb(60, r))
    assert band(jester_turned, trials, 4 / 60)
    assert band(jester_turned_cond, cond, 4 / (60 - n * r))


# ------------------------------------------------------------------------ golden trace
def golden_arm():
    return ArmSpec.make("wizard", 4, {}, "heuristic,random,sampler,heuristic")


# The golden traces (tests/golden/wizard_*.txt) replay in tests/test_conformance.py; this checks
# that what the default game's trace says agrees with its row.


def test_trace_matches_the_row():
    arm = golden_arm()
    text = wizard.RUNNER.trace_game(arm, 7, 3)
    row = wizard.RUNNER.play_batch(arm, 7, 3, 1).to_pylist()[0]
    winners = [s for s in range(4) if row["winner_mask"] >> s & 1]
    for s in winners:
        assert f"Winner: seat {s} with {row['score'][s]} points" in text
    assert text.count("  trick ") == sum(range(1, 16))
    assert sum(line.startswith("  seat ") and " bids " in line for line in text.splitlines()) == 60


# ------------------------------------------------------------------------ checked mode catches bugs
def test_checked_mode_catches_an_illegal_card(monkeypatch):
    from kernels.wizard import enums as E
    from sim.errors import KernelError

    arm = ArmSpec.make("wizard", 4, {}, "heuristic")
    honest = wizard.RUNNER.kernel_inputs
    monkeypatch.setattr(wizard.RUNNER, "kernel_inputs", lambda arm: honest(arm)._replace(
        seat_policy=np.array([E.P_BROKEN, 1, 1, 1], dtype=np.int64)))
    with pytest.raises(KernelError, match=r"wizard arm 'main', game 1\d\d: a policy chose an illegal move"):
        wizard.RUNNER.play_batch(arm, SEED, 100, 50, checked=True)
    wizard.RUNNER.play_batch(arm, SEED, 100, 50, checked=False)  # unchecked, nobody notices


# ------------------------------------------------------------------------ differential: no JIT
_NOJIT_SCRIPT = """
import json, sys
from sim.spec import ArmSpec
from sim.games import wizard
n, rules, policies = json.loads(sys.argv[1])
arm = ArmSpec.make("wizard", n, rules, policies)
print(json.dumps(wizard.RUNNER.play_batch(arm, 99, 10, 3, checked=True).to_pylist()))
"""


@pytest.mark.parametrize("config", [
    (3, {"rounds": 5, "hook_rule": 1}, "heuristic,random,sampler"),
    (6, {"strict_void": 1}, "random,heuristic,random,heuristic,random,heuristic"),
])
def test_kernel_matches_plain_python_execution(config):
    """The same driver run as plain Python (NUMBA_DISABLE_JIT=1, numpy integer semantics) plays
    exactly the games the compiled kernel plays."""
    import json
    import subprocess
    import sys

    n, rules, policies = config
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1"}
    result = subprocess.run([sys.executable, "-W", "ignore", "-c", _NOJIT_SCRIPT, json.dumps(config)],
                            env=env, capture_output=True, text=True, timeout=300,
                            cwd=Path(__file__).resolve().parents[1])
    assert result.returncode == 0, result.stderr[-2000:]
    plain = json.loads(result.stdout)
    compiled = wizard.RUNNER.play_batch(ArmSpec.make("wizard", n, rules, policies), 99, 10, 3,
                                 checked=True).to_pylist()
    assert plain == compiled
