"""The Wizard kernel on the one-shape game contract (one driver signature, the output record, the
shared status codes, the declared turn limit) and streams that pair: a round's cards depend on
(seed, game, round) only, and each seat's random choices on its own stream."""
from __future__ import annotations

import numpy as np
import pytest

from kernels import status
from kernels.wizard import enums as E
from sim.games import wizard
from sim.registry import COMMON_COLUMNS
from sim.spec import ArmSpec

SEED = 424242


def call(players=4, rules=None, policies=None, count=5, first=0, trace=None, checked=True, **bad):
    """play_games_nb with well-formed arguments, any of them replaced through `bad`."""
    from kernels.wizard.play_nb import play_games_nb

    rule_i = np.zeros(len(E.RULE_I_ORDER), dtype=np.int64)
    for name, value in (rules or {}).items():
        rule_i[E.RULE_I_ORDER.index(name)] = value
    args = dict(
        seed=np.int64(SEED), first=np.int64(first), count=np.int64(count), rule_i=rule_i,
        rule_f=np.zeros(0, dtype=np.float64),
        seat_policy=np.array(policies or [E.P_HEURISTIC] * players, dtype=np.int64),
        seat_i=np.full((players, 1), 32, dtype=np.int64),
        seat_f=np.zeros((players, 0), dtype=np.float64), data=(np.arange(players),), out=np.zeros(count, dtype=E.OUT_DTYPE), trace=trace, checked=checked)
    args.update(bad)
    result = play_games_nb(*args.values())
    return result, args["out"]


# ------------------------------------------------------------------------ the contract
def test_enums_name_the_kernel_arrays():
    assert E.RULE_I_ORDER == tuple(p.name for p in wizard.GAME.rules) == (
        "rounds", "hook_rule", "final_no_trump", "strict_void")
    assert [E.RULE_I_ORDER.index(k) for k in ("rounds", "hook_rule", "final_no_trump", "strict_void")] == \
        [E.R_ROUNDS, E.R_HOOK_RULE, E.R_FINAL_NO_TRUMP, E.R_STRICT_VOID]
    assert E.RULE_F_ORDER == E.SEAT_F_ORDER == ()
    assert E.SEAT_I_ORDER == tuple(p.name for p in wizard.GAME.player_params) == ("samples",)
    assert E.SEAT_I_ORDER.index("samples") == E.SI_SAMPLES
    assert not any(name.startswith("ERR_") for name in dir(E)), "status codes are kernels/status.py's"


def test_out_dtype_fields_are_the_column_names():
    common = [c.name for c in COMMON_COLUMNS if c.name in E.OUT_DTYPE.names]
    assert common == ["winner_mask", "turns", "rounds", "score"]
    assert list(E.OUT_DTYPE.names) == common + [c.name for c in wizard.GAME.columns]
    declared = {c.name: c.dtype for c in COMMON_COLUMNS + wizard.GAME.columns}
    for name in E.OUT_DTYPE.names:
        base = E.OUT_DTYPE[name].base
        assert declared[name] in (str(base), f"list<{base}>"), name
    shapes = {name: E.OUT_DTYPE[name].shape for name in E.OUT_DTYPE.names}
    assert shapes["score"] == shapes["tricks"] == (E.MAX_PLAYERS,)
    assert shapes["round_bids"] == shapes["round_tricks"] == (60,)
    assert shapes["round_turned"] == shapes["round_trump"] == (E.MAX_ROUNDS,)


def test_one_signature_and_unused_tails_stay_zero():
    (st, failed, rows), out = call(players=3, rules={"rounds": 4}, count=6)
    assert (st, failed, rows) == (status.OK, -1, 0)
    assert (out["rounds"] == 4).all()
    assert (out["round_bids"][:, 12:] == 0).all() and (out["round_tricks"][:, 12:] == 0).all()
    assert (out["round_turned"][:, 4:] == 0).all() and (out["round_trump"][:, 4:] == 0).all()
    for name in ("score", "exact_bids", "tricks", "points_lost", "bid_total"):
        assert (out[name][:, 3:] == 0).all(), name
    assert (out["round_tricks"][:, :12].reshape(6, 4, 3).sum(axis=2) == [1, 2, 3, 4]).all()


def test_trace_rows_end_with_the_end_row():
    trace = np.zeros((4000, E.TRACE_WIDTH), dtype=np.int32)
    (st, failed, rows), out = call(count=3, trace=trace)
    assert st == status.OK and failed == -1
    assert trace[rows - 1, 0] == E.EV_END and E.EV_END not in trace[:rows - 1, 0]
    assert (trace[rows:] == 0).all()
    plays = (trace[:rows, 0] == E.EV_PLAY).sum() + (trace[:rows, 0] == E.EV_BID).sum()
    trumps = ((trace[:rows, 0] == E.EV_TRUMP) & (trace[:rows, 1] >= 0)).sum()
    assert plays + trumps == out["turns"][0], "only the first game is traced"
    small = np.zeros((50, E.TRACE_WIDTH), dtype=np.int32)
    (st, failed, _), _ = call(count=3, trace=small)
    assert (st, failed) == (status.TRACE_FULL, 0)


@pytest.mark.parametrize("bad", [
    {"players": 2}, {"players": 7},
    {"rule_i": np.zeros(3, dtype=np.int64)},
    {"rule_i": np.array([16, 0, 0, 0], dtype=np.int64)},  # 16 rounds x 4 players > 60 cards
    {"rule_i": np.array([0, 2, 0, 0], dtype=np.int64)},
    {"rule_f": np.zeros(1, dtype=np.float64)},
    {"seat_i": np.zeros((3, 1), dtype=np.int64)},
    {"seat_i": np.zeros((4, 0), dtype=np.int64)},
    {"seat_f": np.zeros((4, 1), dtype=np.float64)},
    {"seat_policy": np.array([1, 1, 1, 9], dtype=np.int64)},
    {"out": np.zeros(4, dtype=E.OUT_DTYPE)},
    {"trace": np.zeros((100, E.TRACE_WIDTH + 1), dtype=np.int32)},
])
def test_bad_arguments(bad):
    players = bad.pop("players", 4)
    if players not in (2, 7):
        (st, failed, rows), _ = call(**bad)
    else:
        (st, failed, rows), _ = call(players=players, seat_policy=np.ones(players, dtype=np.int64),
                                     seat_i=np.zeros((players, 1), dtype=np.int64),
                                     seat_f=np.zeros((players, 0), dtype=np.float64))
    assert (st, failed, rows) == (status.BAD_ARGS, -1, 0)


@pytest.mark.parametrize("players", [3, 6])
@pytest.mark.parametrize("policy", ["random", "heuristic"])
def test_games_end_within_the_declared_turn_limit(players, policy):
    table = wizard.RUNNER.play_batch(ArmSpec.make("wizard", players, {}, policy), SEED, 0, 300, checked=True)
    turns = np.array(table["turns"].to_pylist())
    assert turns.max() <= E.MAX_TURNS
    rounds = 60 // players
    assert turns.min() >= rounds * players + players * rounds * (rounds + 1) // 2
    if players == 3:  # the longest game there is: only the trump choices vary
        assert E.MAX_TURNS - turns.max() <= 20


# ------------------------------------------------------------------------ streams that pair
def deals(arm, index):
    """[(hands per seat, turned card)] per round of game `index`, from its trace."""
    buffer = np.zeros((wizard.RUNNER.trace_rows, E.TRACE_WIDTH), dtype=np.int32)
    _, rows = wizard.RUNNER.run_kernel(arm, SEED, index, 1, checked=True, trace=buffer)
    trace = buffer[:rows]
    rounds = []
    for code, seat, card, _value, _extra in trace.tolist():
        if code == E.EV_ROUND:
            rounds.append(([0] * arm.players, None))
        elif code == E.EV_DEAL:
            rounds[-1][0][seat] |= 1 << card
        elif code == E.EV_TURN:
            rounds[-1] = (rounds[-1][0], card)
    return rounds


PAIRED_ARMS = [
    ({}, "heuristic"),
    ({"hook_rule": True}, "heuristic"),
    ({"strict_void": True}, "heuristic"),
    ({}, "random"),
    ({}, "heuristic,random,sampler,heuristic"),
    ({"hook_rule": True, "strict_void": True}, "random,sampler,heuristic,random"),
]


@pytest.mark.parametrize("index", [0, 5, 77])
def test_a_rounds_cards_do_not_depend_on_rules_or_players(index):
    """Every arm deals the same hands and turns the same card in round r of game i; so does a
    shortened game, and final_no_trump changes only its last round's turned card."""
    from kernels.rng_nb import deal_stream_nb
    from kernels.wizard.rules_nb import deal_nb

    base = deals(ArmSpec.make("wizard", 4, *PAIRED_ARMS[0]), index)
    assert len(base) == 15
    for rules, policies in PAIRED_ARMS[1:]:
        assert deals(ArmSpec.make("wizard", 4, rules, policies), index) == base, (rules, policies)
    short = deals(ArmSpec.make("wizard", 4, {"rounds": 6}, "random"), index)
    assert short == base[:6]
    final = deals(ArmSpec.make("wizard", 4, {"rounds": 6, "final_no_trump": True}, "heuristic"), index)
    assert final[:5] == base[:5] and final[5][0] == base[5][0] and final[5][1] == -1
    # round r's cards are deal_nb from deal_stream_nb(seed, i, r) (r = 0 for the first round)
    rng, deck, hands = np.zeros(1, np.uint64), np.empty(60, np.int64), np.zeros(6, np.uint64)
    for rd, (dealt, turned) in enumerate(base):
        rng[0] = deal_stream_nb(SEED, index, rd)
        top = deal_nb(rng, deck, 4, rd + 1, hands)
        assert [int(h) for h in hands[:4]] == dealt and top == turned


def test_turned_cards_pair_over_many_games():
    arms = [({}, "heuristic"), ({"hook_rule": True}, "random"),
            ({"strict_void": True}, "heuristic,random,sampler,heuristic,random")]
    turned = [wizard.RUNNER.play_batch(ArmSpec.make("wizard", 5, rules, policies), SEED, 1000, 200)
              ["round_turned"].to_pylist() for rules, policies in arms]
    assert turned[1] == turned[0] and turned[2] == turned[0]


def seat_bids(table, players, rounds):
    return np.array(table["round_bids"].to_pylist()).reshape(len(table), rounds, players)


@pytest.mark.parametrize("rules", [{}, {"strict_void": True}])
def test_a_random_seats_draws_do_not_depend_on_the_other_seats(rules):
    """A random seat takes one word of its own stream per bid and per card, and one per trump it
    names (a Wizard turned while it deals, which pairs too): the same number in every arm,
    whatever the others do. So without the hook rule its bid in every round comes from the same
    word in every arm and must be the same, though the games differ."""
    arms = ["random,random,random,random", "random,heuristic,random,sampler",
            "heuristic,random,random,heuristic", "sampler,random,random,random"]
    count = 120
    tables = [wizard.RUNNER.play_batch(ArmSpec.make("wizard", 4, rules, p), SEED, 0, count) for p in arms]
    bids = [seat_bids(t, 4, 15) for t in tables]
    random_seats = [{s for s, name in enumerate(p.split(",")) if name == "random"} for p in arms]
    compared = 0
    for a in range(len(arms)):
        for b in range(a + 1, len(arms)):
            for s in random_seats[a] & random_seats[b]:
                assert (bids[a][:, :, s] == bids[b][:, :, s]).all(), (arms[a], arms[b], s)
                compared += 1
    assert compared >= 6
    # the games themselves differ: the other seats' play changes the tricks
    assert tables[0]["round_tricks"].to_pylist() != tables[1]["round_tricks"].to_pylist()
    # and a random dealer names the same trump suit after a turned Wizard
    trump = [np.array(t["round_trump"].to_pylist()) for t in tables]
    dealer_2 = (3 + np.arange(15)) % 4 == 2  # the rounds seat 2 deals
    assert (trump[0][:, dealer_2] == trump[1][:, dealer_2]).all()
