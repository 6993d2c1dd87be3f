"""Wie Weet Wat's profiles recall model (rule recall_model = profiles, docs/models/recall.md): the
profiles' laws (log-normal knowledge, letter factors and reaction times, letter shares per kind
summing to 1, reproducible from the game's seed), the first answer's letter and time under a
profile, the additive reaction time in whole games, and the default (uniform) model's rows as they
were before the profiles model existed."""
from __future__ import annotations

import hashlib
import json
import math

import numpy as np
import pytest
from scipy import stats

from kernels.jit import njit
from kernels.wieweetwat import enums as E
from kernels.wieweetwat.recall_nb import draw_profiles_nb, first_answer_nb, say_letter_nb
from sim.errors import SpecError
from sim.games.wieweetwat import (
    CATEGORY_KINDS,
    LETTERS,
    default_categories,
    kind_share_table,
    parse_category_kinds,
)
from sim.registry import games
from sim.spec import ArmSpec
from tests.test_wieweetwat_recall import hand, streams

KSHARE = kind_share_table()
NOTHING_KNOWN = np.zeros((E.MAX_PLAYERS, E.HAND_WIDTH), np.int64)  # the reader's row of `known`
N = 40_000


def rule_f(knowledge=0.5, letters=0.3, reaction=0.8, reaction_sigma=0.3):
    out = np.zeros(E.N_RULES_F)
    out[E.RF_TIME_LIMIT] = 30.0
    out[E.RF_KNOWLEDGE_SIGMA] = knowledge
    out[E.RF_LETTER_SIGMA] = letters
    out[E.RF_REACTION_TIME] = reaction
    out[E.RF_REACTION_SIGMA] = reaction_sigma
    return out


def profiles_nb(seed, games_n, n, rule_f, kshare, fixed=None, shift=0):
    """The profiles of games 0..games_n-1 (n seats each), as the driver draws them at rotation
    `shift`; `fixed`: the fixed profile arrays (sim/games/wieweetwat.fixed_profile_arrays), none by
    default."""
    if fixed is None:
        fixed = (np.zeros((n, E.N_CATEGORY_KINDS)), np.zeros((n, E.N_LETTERS)), np.full(n, -1.0))
    return profiles_fixed_nb(seed, games_n, n, np.int64(shift), rule_f, kshare, *fixed)


@njit
def profiles_fixed_nb(seed, games_n, n, shift, rule_f, kshare, fixed_know, fixed_letters,
                      fixed_react):
    know = np.zeros((games_n, n, E.N_CATEGORY_KINDS))
    lfactor = np.zeros((games_n, n, E.N_LETTERS))
    react = np.zeros((games_n, n))
    pshare = np.zeros((games_n, n, E.N_CATEGORY_KINDS, E.N_LETTERS))
    rngs = np.zeros(n, np.uint64)
    for g in range(games_n):
        draw_profiles_nb(seed, np.int64(g), n, shift, rule_f, kshare, pshare[g], know[g],
                         lfactor[g], react[g], rngs, fixed_know, fixed_letters, fixed_react)
    return know, lfactor, react, pshare


def test_a_rotated_seat_draws_the_profile_of_the_seat_whose_cards_it_holds():
    """At rotation k seat s draws what seat (s + k) % n draws unrotated (kernels/rotation_nb.py); a
    fixed profile is the player's and stays with its seat."""
    n = 4
    plain = profiles_nb(np.int64(5), np.int64(3), np.int64(n), rule_f(), KSHARE)
    fixed = (np.zeros((n, E.N_CATEGORY_KINDS)), np.zeros((n, E.N_LETTERS)), np.full(n, -1.0))
    fixed[0][1, :] = 9.0  # seat 1 knows every kind nine times the median
    for k in range(n):
        rotated = profiles_nb(np.int64(5), np.int64(3), np.int64(n), rule_f(), KSHARE, shift=k)
        for a, b in zip(plain, rotated):
            assert np.array_equal(b, np.roll(a, -k, axis=1))  # b[:, s] == a[:, (s + k) % n]
        know, _, react, _ = profiles_nb(np.int64(5), np.int64(3), np.int64(n), rule_f(), KSHARE,
                                        fixed=fixed, shift=k)
        assert np.all(know[:, 1] == 9.0)
        assert np.array_equal(react, np.roll(plain[2], -k, axis=1))


def test_the_profiles_follow_their_log_normal_laws():
    know, lfactor, react, pshare = profiles_nb(np.int64(3), np.int64(4000), np.int64(3),
                                               rule_f(0.5, 0.3, 0.8, 0.3), KSHARE)
    for x, sigma in ((np.log(know), 0.5), (np.log(lfactor), 0.3)):
        assert abs(x.mean()) < 0.01 and x.std() == pytest.approx(sigma, rel=0.02)
        assert stats.kstest(x.ravel()[:20000] / sigma, "norm").pvalue > 0.001
    assert np.median(react) == pytest.approx(0.8, rel=0.03)
    assert np.log(react).std() == pytest.approx(0.3, rel=0.05)
    # a seat's letter shares for a kind: the kind's shares times its letter factors, summing to 1
    assert np.allclose(pshare.sum(axis=3), 1.0)
    g, s, k = 17, 2, CATEGORY_KINDS.index("naam")
    expected = KSHARE[k] * lfactor[g, s] / (KSHARE[k] * lfactor[g, s]).sum()
    assert np.allclose(pshare[g, s, k], expected)
    # knowledge of kinds and letters are independent of each other across seats
    assert abs(np.corrcoef(np.log(know[:, 0, 0]), np.log(know[:, 1, 0]))[0, 1]) < 0.05


def test_profiles_are_reproducible_and_differ_between_seats_and_games():
    a = profiles_nb(np.int64(9), np.int64(5), np.int64(4), rule_f(), KSHARE)
    b = profiles_nb(np.int64(9), np.int64(5), np.int64(4), rule_f(), KSHARE)
    c = profiles_nb(np.int64(10), np.int64(5), np.int64(4), rule_f(), KSHARE)
    for x, y, z in zip(a, b, c):
        assert np.array_equal(x, y) and not np.array_equal(x, z)
    know = a[0]
    assert not np.array_equal(know[0, 0], know[0, 1]) and not np.array_equal(know[0, 0], know[1, 0])


def test_zero_spreads_give_the_kind_tables_and_one_reaction_time():
    know, lfactor, react, pshare = profiles_nb(np.int64(1), np.int64(3), np.int64(3),
                                               rule_f(0.0, 0.0, 1.5, 0.0), KSHARE)
    assert (know == 1.0).all() and (lfactor == 1.0).all() and (react == 1.5).all()
    assert np.allclose(pshare[1, 2], KSHARE / KSHARE.sum(axis=1, keepdims=True))
    _, _, react, _ = profiles_nb(np.int64(1), np.int64(3), np.int64(3), rule_f(0.5, 0.3, 0.0, 0.3),
                                 KSHARE)
    assert (react == 0.0).all()


@njit
def profile_answers_nb(rngs, hands, rate, share, n):
    times = np.empty(n)
    letters = np.empty(n, np.int64)
    for i in range(n):
        t, kind, letter = first_answer_nb(rngs, 0, hands, -1, rate, share, True, 5.0, 1e9)
        kind, letter = say_letter_nb(rngs, 0, hands, share, kind, letter)
        times[i] = t
        letters[i] = letter
    return times, letters


@pytest.mark.parametrize("kind", ["dier", "naam"])
def test_the_first_answer_under_a_profile_follows_the_players_shares_for_the_kind(kind):
    """The kernel races a seat with breadth x vocabulary x speed x knowledge[kind] and its letter
    shares pshare[seat, kind]: the first answer is exponential with rate b x know x (the hand's
    summed shares) and its letter is l with chance pshare[l] / that sum."""
    know, _, _, pshare = profiles_nb(np.int64(5), np.int64(1), np.int64(3), rule_f(), KSHARE)
    k = CATEGORY_KINDS.index(kind)
    share = pshare[0, 1, k].copy()
    h = hand("a", "j", "m", "s", "z")
    rate = 0.9 * know[0, 1, k]
    times, letters = profile_answers_nb(streams(31), h, rate, share, N)
    held = [LETTERS.index(c) for c in "ajmsz"]
    total = share[held].sum()
    assert stats.kstest(times, "expon", args=(0, 1 / (rate * total))).pvalue > 0.001
    observed = np.array([(letters == i).sum() for i in held])
    assert stats.chisquare(observed, N * share[held] / total).pvalue > 0.001


def test_the_kind_changes_who_answers_first():
    """Under uniform every category scales both hands alike; under profiles seat 0's chance to answer
    first, r0 / (r0 + r1) with r = knowledge[kind] x the hand's shares for the kind, differs by kind:
    the reader's choice matters."""
    know, _, _, pshare = profiles_nb(np.int64(2), np.int64(1), np.int64(2), rule_f(), KSHARE)
    h0 = [LETTERS.index(c) for c in "bjk"]
    h1 = [LETTERS.index(c) for c in "ahpw"]
    chances = []
    for k in range(E.N_CATEGORY_KINDS):
        r0 = know[0, 0, k] * pshare[0, 0, k, h0].sum()
        r1 = know[0, 1, k] * pshare[0, 1, k, h1].sum()
        chances.append(r0 / (r0 + r1))
    assert max(chances) - min(chances) > 0.1


# ------------------------------------------------------------------------------ whole games

def play(players, rules=None, n=6, seed=5, policy="random", data=None, checked=True):
    arm = ArmSpec.make("wieweetwat", players, rules or {}, policy, data=data)
    return games()["wieweetwat"].runner().play_batch(arm, seed, 0, n, checked=checked).to_pylist()


def digest(rows):
    """The rows' hash, without the columns version 4 did not have (race_seconds: version 5)."""
    rows = [{k: v for k, v in row.items() if k != "race_seconds"} for row in rows]
    return hashlib.sha256(json.dumps(rows, sort_keys=True).encode()).hexdigest()


# Rows of the uniform model made by the code before the profiles model (commit 3e5a4ce), seed 11,
# games 0..39: `recall_model = uniform` must still play exactly these (version 4's games)
BEFORE = {
    "3p": (3, "random,spoiler,widest", {},
           "3b11cd54131a3152a42b0572f21b7b73385f0b6245945133039f70a0481cd3cb"),
    "4p_mixed": (4, "random,spoiler:shed=hardest,widest:joker_use=keep_for_counter,random",
                 {"grote_kans_same_letter": True},
                 "add2c5e1bd74ec4463b8f84bb8589474f98a6a0e20b17851474908f7e4f4b61f"),
}


@pytest.mark.parametrize("name", sorted(BEFORE))
def test_the_uniform_model_plays_the_rows_of_before_the_profiles_model(name):
    players, policy, rules, before = BEFORE[name]
    uniform = dict(rules, recall_model="uniform")
    assert digest(play(players, uniform, n=40, seed=11, policy=policy, checked=False)) == before
    # the profiles' own rules change nothing under the uniform model, and targeting reads as spoiler
    uniform = dict(uniform, knowledge_sigma=1.5, reaction_time=3.0)
    policy = policy.replace("spoiler", "targeting")
    assert digest(play(players, uniform, n=40, seed=11, policy=policy, checked=False)) == before
    # the default model is profiles: other games
    assert digest(play(players, rules, n=40, seed=11, policy=policy, checked=False)) != before


@pytest.mark.parametrize("players", [3, 6])
def test_profiles_play_checked_and_reproducibly(players):
    rules = {"recall_model": "profiles"}
    policy = "random,spoiler,widest,random:joker_use=keep_for_counter,spoiler,widest"
    policy = ",".join(policy.split(",")[:players])
    rows = play(players, rules, n=8, policy=policy)
    assert rows == play(players, rules, n=8, policy=policy)
    assert rows == play(players, {}, n=8, policy=policy)  # profiles are the default
    assert rows != play(players, rules, n=8, seed=6, policy=policy)
    assert rows != play(players, {"recall_model": "uniform"}, n=8, policy=policy)
    for row in rows:
        assert max(row["score"]) == 3 and sum(row["score"]) == row["rounds"]


def test_profiles_play_with_a_search_seat():
    rows = play(4, {"recall_model": "profiles", "rounds_to_win": 1}, n=2,
                policy="search:samples=2,spoiler,random,widest")
    assert all(max(row["score"]) == 1 for row in rows)


def test_profiles_with_no_spread_and_general_categories_play_the_uniform_model():
    """With every spread 0, no reaction time and every category `algemeen`, a player's rate and
    letter shares are the uniform model's (the shares scaled to sum to exactly 1): the profile draws
    use streams of their own, so the play draws the same numbers and the rows are the same."""
    kinds = {"category_kinds": ()}
    rules = {"knowledge_sigma": 0.0, "letter_sigma": 0.0, "reaction_time": 0.0}
    uniform = play(4, rules, n=12, policy="random,spoiler,widest,random", data=kinds)
    profiles = play(4, dict(rules, recall_model="profiles"), n=12,
                    policy="random,spoiler,widest,random", data=kinds)
    assert profiles == uniform


def traced_answers(rules, seed=3):
    arm = ArmSpec.make("wieweetwat", 3, dict(rules, rounds_to_win=1), "random")
    record, rows = games()["wieweetwat"].runner().traced(arm, seed, 0)
    out = {}
    for row in rows:
        if row[0] == E.EV_READ and out:
            break
        if row[0] == E.EV_ANSWER:
            out[int(row[1])] = int(row[4])
    return out


def test_the_reaction_time_is_added_to_every_answer():
    """With no spreads, seat s answers at its recall time plus reaction_time: the first category's
    answers of a game come exactly that much later than with no reaction time (the same draws)."""
    base = {"recall_model": "profiles", "knowledge_sigma": 0.4, "letter_sigma": 0.2,
            "reaction_sigma": 0.0}
    for seed in (3, 4, 5):
        without = traced_answers(dict(base, reaction_time=0.0), seed)
        with_rt = traced_answers(dict(base, reaction_time=1.25), seed)
        assert without and without.keys() == with_rt.keys()
        for s in without:
            assert abs(with_rt[s] - without[s] - 1250) <= 1


@pytest.mark.parametrize("rule,value,message", [
    ("recall_model", "profile", "recall_model"),
    ("knowledge_sigma", -0.1, "knowledge_sigma"),
    ("reaction_time", 11.5, "reaction_time"),
    ("letter_sigma", "wide", "letter_sigma"),
])
def test_a_bad_profile_value_is_named(rule, value, message):
    with pytest.raises(SpecError, match=message) as info:
        ArmSpec.make("wieweetwat", 3, {rule: value}, "random")
    assert str(value) in str(info.value)


@pytest.mark.parametrize("text,message", [
    ("[kinds]\ndier = 'vogel'\n", "'vogel' is not one of algemeen, dier, plaats, naam, eten"),
    ("[kinds]\ndier = 3\n", "3 is not one of"),
    ("kinds = 1\n", r"\[kinds\] table"),
    ("[soorten]\n", "unknown key"),
])
def test_a_bad_category_kind_is_named(text, message):
    with pytest.raises(SpecError, match=message):
        parse_category_kinds(text)


def test_the_default_kinds_cover_the_default_list_reproducibly():
    from sim.games.wieweetwat import category_kind_indices, default_category_kinds

    kinds = default_category_kinds()
    assert kinds == default_category_kinds()
    index = category_kind_indices(default_categories(), kinds)
    counts = np.bincount(index, minlength=len(CATEGORY_KINDS))
    assert len(index) == 200 and (counts >= 15).all()
    assert np.allclose(KSHARE.sum(axis=1), 1.0, atol=1e-5) and (KSHARE > 0).all()
    # the kinds' letter mixes differ where they should: names start with J far more often than
    # words do, places with H, food with K
    j, h, k = (LETTERS.index(c) for c in "jhk")
    general, naam, plaats, eten = (CATEGORY_KINDS.index(x) for x in ("algemeen", "naam", "plaats", "eten"))
    assert KSHARE[naam, j] > 4 * KSHARE[general, j]
    assert KSHARE[plaats, h] > 1.5 * KSHARE[general, h]
    assert KSHARE[eten, k] > 1.5 * KSHARE[general, k]
    assert math.isclose(sum(KSHARE[general]), 1.0, abs_tol=1e-5)


def test_a_profiles_trace_names_each_categorys_kind():
    arm = ArmSpec.make("wieweetwat", 3, {"recall_model": "profiles", "rounds_to_win": 1}, "random")
    text = games()["wieweetwat"].runner().trace_game(arm, 3, 0)
    reads = [line for line in text.splitlines() if line.startswith("  seat") and " reads " in line]
    assert reads and all(any(f", {k})" in line for k in CATEGORY_KINDS) for line in reads)
    plain = games()["wieweetwat"].runner().trace_game(
        ArmSpec.make("wieweetwat", 3, {"recall_model": "uniform", "rounds_to_win": 1}, "random"), 3, 0)
    assert not any(f", {k})" in plain for k in CATEGORY_KINDS)


def test_fixed_profile_values_replace_the_drawn_ones_and_move_no_other_draw():
    from sim.games.wieweetwat import fixed_profile_arrays, parse_profiles

    fixed = fixed_profile_arrays(parse_profiles(
        "[[seat]]\nknowledge = { dier = 2.5 }\n[[seat]]\nletters = { q = 4.0 }\nreaction_time = 0.1\n"))
    free = profiles_nb(np.int64(4), np.int64(3), np.int64(3), rule_f(), KSHARE)
    some = profiles_nb(np.int64(4), np.int64(3), np.int64(3), rule_f(), KSHARE,
                       tuple(a[:3].copy() for a in fixed))
    know, lfactor, react, _ = some
    dier, q = CATEGORY_KINDS.index("dier"), LETTERS.index("q")
    assert (know[:, 0, dier] == 2.5).all() and (lfactor[:, 1, q] == 4.0).all()
    assert (react[:, 1] == 0.1).all()
    mask = np.ones_like(know, bool)
    mask[:, 0, dier] = False
    assert np.array_equal(know[mask], free[0][mask])  # every other value as drawn without them
    assert np.array_equal(react[:, [0, 2]], free[2][:, [0, 2]])


def test_a_fixed_profile_file_plays_and_bad_ones_are_named(tmp_path):
    from pathlib import Path

    example = str(Path(__file__).resolve().parents[1] / "examples/wieweetwat-profiles.toml")
    rows = play(3, {"recall_model": "profiles"}, n=4, data={"profiles": example})
    assert rows != play(3, {"recall_model": "profiles"}, n=4)
    bad = tmp_path / "bad.toml"
    bad.write_text("[[seat]]\nknowledge = { dier = 0.01 }\n")
    with pytest.raises(SpecError, match="knowledge dier must be a number in 0.05..20.0, not 0.01"):
        ArmSpec.make("wieweetwat", 3, {}, "random", data={"profiles": str(bad)})
    many = tmp_path / "many.toml"
    many.write_text("[[seat]]\n" * 4)
    with pytest.raises(SpecError, match="4 \\[\\[seat\\]\\] tables for 3 players"):
        play(3, {"recall_model": "profiles"}, n=1, data={"profiles": str(many)})


# ------------------------------------------------------------------------------ the targeting reader

def race_table(n, rates, know, react, hshare, kind, b):
    """The `rules` of a reader who judges one card of four categories of breadth b and kind `kind`."""
    from tests.test_wieweetwat_rules import reader_rules

    rules = reader_rules([b] * 4, E.RECALL_PROFILES, [kind] * 4, know, react)
    rules[5][:] = rates
    rules[9][5][:] = hshare
    return rules


def test_the_leaders_chance_to_answer_first_is_the_race_of_shifted_exponentials():
    """leader_first_chance_nb in closed form against the two-player formula of
    docs/models/recall.md and against a sampled race of three."""
    from kernels.wieweetwat.policies_nb import leader_first_chance_nb

    n = 4
    rates = np.array([1.0, 1.3, 0.7, 1.1, 1.0, 1.0])
    know = np.ones((E.MAX_PLAYERS, E.N_CATEGORY_KINDS))
    know[2, 1] = 2.5
    react = np.array([0.0, 0.9, 0.4, 1.6, 0.0, 0.0])
    hand_n = np.array([5, 4, 3, 6, 0, 0], np.int64)
    hshare = np.full((E.MAX_PLAYERS, E.N_CATEGORY_KINDS), 0.04)
    hshare[3, 1] = 0.06
    b, kind = 0.8, 1
    rules = race_table(n, rates, know, react, hshare, kind, b)
    free = np.full(E.MAX_PLAYERS, -1, np.int64)
    everyone = np.int64(0b1110)  # the reader's (seat 0's) opponents
    r = b * rates * know[:, kind] * hshare[:, kind] * hand_n
    # seats 1 and 2 alone (seat 3's hand empty for the moment): the documented formula
    two = hand_n.copy()
    two[3] = 0
    d0, d1 = react[2], react[1]  # seat 2 says its answers earlier
    expect = 1 - math.exp(-r[2] * (d1 - d0)) * r[1] / (r[2] + r[1])
    assert math.isclose(leader_first_chance_nb(0, 2, n, rules, (two, everyone, free, NOTHING_KNOWN), 0), expect,
                        rel_tol=1e-12)
    # the same two as a remise's tied players (seat 3 not among them): the same chance
    assert math.isclose(leader_first_chance_nb(0, 2, n, rules, (hand_n, np.int64(0b0110), free, NOTHING_KNOWN), 0),
                        expect, rel_tol=1e-12)
    # three opponents: sampled
    rng = np.random.default_rng(1)
    times = react[1:4] + rng.exponential(1.0 / r[1:4], size=(400_000, 3))
    sampled = np.mean(np.argmin(times, axis=1) == 1)
    chance = leader_first_chance_nb(0, 2, n, rules, (hand_n, everyone, free, NOTHING_KNOWN), 0)
    assert abs(chance - sampled) < 4 * math.sqrt(sampled * (1 - sampled) / 400_000)
    # every opponent's chances sum to 1
    total = sum(leader_first_chance_nb(0, s, n, rules, (hand_n, everyone, free, NOTHING_KNOWN), 0) for s in (1, 2, 3))
    assert math.isclose(total, 1.0, rel_tol=1e-12)


def test_a_remise_player_races_with_the_letter_it_laid_down():
    """In a remise the tied players answer with the card on the table, seen by all: seat s's rate is
    breadth x vocabulary x speed x knowledge x its share of that letter for the kind (all letters
    for a Wie Weet Wat card), whatever else its hand holds."""
    from kernels.wieweetwat.policies_nb import leader_first_chance_nb, race_rate_nb

    n, b, kind = 4, 1.5, 2
    rates = np.array([1.0, 1.2, 0.9, 1.0, 1.0, 1.0])
    know = np.ones((E.MAX_PLAYERS, E.N_CATEGORY_KINDS))
    know[1, kind] = 0.5
    react = np.array([0.0, 0.5, 0.7, 0.6, 0.0, 0.0])
    rules = race_table(n, rates, know, react, np.full((E.MAX_PLAYERS, E.N_CATEGORY_KINDS), 0.04),
                       kind, b)
    pshare = rules[9][1]
    pshare[1, kind, 4] = 0.10  # seat 1 laid down an E, seat 3 a Q
    pshare[3, kind, 16] = 0.002
    hand_n = np.array([6, 3, 7, 2, 0, 0], np.int64)
    restrict = np.array([-1, 4, -1, 16, -1, -1], np.int64)
    race = (hand_n, np.int64(0b1010), restrict, NOTHING_KNOWN)
    assert math.isclose(race_rate_nb(1, rules, race, 0), b * 1.2 * 0.5 * 0.10)
    assert math.isclose(race_rate_nb(3, rules, race, 0), b * 1.0 * 1.0 * 0.002)
    restrict[3] = E.WWW
    assert math.isclose(race_rate_nb(3, rules, race, 0), b * 1.0 * 1.0)  # the joker: any letter
    restrict[3] = 16
    r1, r3 = b * 1.2 * 0.5 * 0.10, b * 0.002
    expect = 1 - math.exp(-r1 * (0.6 - 0.5)) * r3 / (r1 + r3)  # seat 1 says its answers earlier
    assert math.isclose(leader_first_chance_nb(0, 1, n, rules, race, 0), expect, rel_tol=1e-12)
    assert math.isclose(leader_first_chance_nb(0, 1, n, rules, race, 0)
                        + leader_first_chance_nb(0, 3, n, rules, race, 0), 1.0, rel_tol=1e-12)


def test_a_hidden_card_is_judged_by_the_deck_s_letters_and_the_seat_s_shares():
    """card_shares_nb: an unseen card's letter share for a seat and kind is the seat's shares
    weighted by the letter cards in the deck; a hand of such cards then races at about the rate a
    real hand has (breadth x its letters' shares, docs/models/recall.md), not breadth x hand size."""
    from kernels.wieweetwat.recall_nb import card_shares_nb
    from sim.games.wieweetwat import DEFAULT_LETTERS

    _, _, _, pshare = profiles_nb(np.int64(3), np.int64(1), np.int64(3), rule_f(), KSHARE)
    deck = np.zeros(E.N_KINDS, np.int64)
    deck[: E.N_LETTERS] = DEFAULT_LETTERS
    deck[E.WWW] = 4  # Wie Weet Wat cards are no letter: they do not count
    hshare = np.zeros((E.MAX_PLAYERS, E.N_CATEGORY_KINDS))
    card_shares_nb(pshare[0], deck, 3, hshare)
    freq = deck[: E.N_LETTERS] / deck[: E.N_LETTERS].sum()
    for s in range(3):
        assert np.allclose(hshare[s, : E.N_CATEGORY_KINDS], pshare[0, s] @ freq)
    # shares sum to 1 over 26 letters: a card holds a few per cent, as a real hand's letters do
    assert 0.02 < hshare[:3].min() and hshare[:3].max() < 0.10
    hshare[:] = 0.0
    card_shares_nb(pshare[0], np.zeros(E.N_KINDS, np.int64), 3, hshare)  # no letter cards
    assert not hshare.any()


def test_the_targeting_reader_reads_the_kind_the_leader_knows_least():
    from tests.test_wieweetwat_rules import reader_rules, rngs

    from kernels.wieweetwat.policies_nb import choose_category_nb

    know = np.ones((E.MAX_PLAYERS, E.N_CATEGORY_KINDS))
    kinds = [E.CATEGORY_KINDS.index(k) for k in ("dier", "plaats", "naam", "eten")]
    know[2, kinds[2]] = 0.3  # seat 2, the leader, knows few names
    know[0, kinds[3]] = 3.0  # the reader knows food best
    react = np.full(E.MAX_PLAYERS, 0.8)
    rules = reader_rules([1.0] * 4, E.RECALL_PROFILES, kinds, know, react)
    hand_n = np.array([6, 5, 2, 7, 0, 0], np.int64)  # seat 2 leads

    def choose(policy, circle=False, hands=hand_n):
        race = (hands, np.int64(0b1110), np.full(E.MAX_PLAYERS, -1, np.int64), NOTHING_KNOWN)
        return choose_category_nb(rngs(), 0, policy, rules, race, 4, 0, circle)
    assert choose(E.P_TARGETING) == 2
    assert choose(E.P_TARGETING, circle=True) == 2  # 0.3 / 1 beats 1 / 3
    know[2, kinds[2]] = 1.0
    assert choose(E.P_TARGETING, circle=True) == 3  # now: the reader's own best kind
    hands = hand_n.copy()
    hands[1], hands[2] = 1, 5  # seat 1 leads: every kind alike for it; ties read the narrowest
    rules[7][:] = [1.0, 0.6, 0.8, 0.6]
    assert choose(E.P_TARGETING, hands=hands) == 1
    assert choose(E.P_SPOILER, hands=hands) == 1


def test_targeting_plays_checked_and_the_search_tells_kinds_of_equal_breadth_apart():
    rows = play(4, {"rounds_to_win": 2}, n=6, policy="targeting,random,spoiler,targeting")
    assert all(max(row["score"]) == 2 for row in rows)
    rows = play(4, {"rounds_to_win": 1}, n=2, policy="search:samples=2,targeting,random,widest")
    assert all(max(row["score"]) == 1 for row in rows)
