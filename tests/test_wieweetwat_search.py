"""Wie Weet Wat's search player (kernels/wieweetwat/search_nb.py, policy `search`).

It plays checked games (every card in one place after every turn) in every player count, with the
action cards it decides on made common; its decisions depend only on what its seat may know (the
other hands and the letter pile exchanged among themselves, the category pile reordered and the
other seats' streams changed: the same choice and the same estimates); its budget `samples`
changes its play and is validated; its round values are a race's exact chances.
"""
from __future__ import annotations

import functools

import numpy as np
import pytest

from kernels.wieweetwat import enums as E
from kernels.wieweetwat import search_nb
from kernels.wieweetwat.piles_nb import deal_round_nb, kind_set_nb, shuffle_categories_nb
from kernels.wieweetwat.recall_nb import card_shares_nb, draw_profiles_nb
from kernels.wieweetwat.table_nb import TABLE_DTYPE
from sim.errors import SpecError
from sim.games import wieweetwat as ww
from sim.spec import ArmSpec

SAMPLES = 4  # enough to exercise the search, small enough for a fast suite
TE_VEEL_KEUZE = {"action_te_veel_keuze": 10}  # the target decision comes up in most games


@pytest.mark.parametrize("players", range(3, 7))
@pytest.mark.parametrize("rules", [{"rounds_to_win": 1}, {"rounds_to_win": 2, **TE_VEEL_KEUZE}])
def test_search_plays_checked_games(players, rules):
    seats = ",".join(f"search:samples={SAMPLES}" if s % 2 == 0 else "spoiler"
                     for s in range(players))
    arm = ArmSpec.make("wieweetwat", players, rules, seats)
    table = ww.RUNNER.play_batch(arm, 3, 0, 2, checked=True)  # a lost or doubled card fails it
    assert table.num_rows == 2
    for row in table.to_pylist():
        assert row["winner_mask"] != 0
        assert max(row["score"]) == rules["rounds_to_win"]


def test_samples_changes_play():
    rows = {}
    for samples in (1, 32):
        arm = ArmSpec.make("wieweetwat", 4, {"rounds_to_win": 1},
                           f"search:samples={samples},spoiler,spoiler,spoiler")
        rows[samples] = ww.RUNNER.play_batch(arm, 5, 0, 12).to_pylist()
    assert [r["categories"] for r in rows[1]] != [r["categories"] for r in rows[32]]


@pytest.mark.parametrize("samples", [0, -3, 1025])
def test_samples_out_of_bounds_is_a_clear_error(samples):
    with pytest.raises(SpecError, match=r"samples=.*1\.\.1024"):
        ArmSpec.make("wieweetwat", 4, {}, f"search:samples={samples},spoiler,spoiler,spoiler")


def test_samples_belongs_to_search_only():
    with pytest.raises(SpecError, match="samples"):
        ArmSpec.make("wieweetwat", 3, {}, "spoiler:samples=8,spoiler,spoiler")


# ------------------------------------------------------------------ the round values

@functools.cache
def brute_race(need, p, n):
    """The chance that p first reaches its need, by recursion over the next round's winner
    (memoised: without it, six seats needing three rounds each took minutes)."""
    if need[p] == 0:
        return 1.0
    if min(need) == 0:
        return 0.0
    return sum(brute_race(tuple(x - (q == w) for q, x in enumerate(need)), p, n)
               for w in range(n)) / n


@pytest.mark.parametrize("need,p", [((1, 1, 1), 0), ((3, 1, 2, 2), 0), ((2, 3, 1, 2, 3), 3),
                                    ((3, 3, 3, 3, 3, 3), 5), ((1, 2), 1)])
def test_race_is_exact(need, p):
    n = len(need)
    work = np.zeros(2 * E.MAX_PLAYERS, np.int64)
    need_a = np.zeros(E.MAX_PLAYERS, np.int64)
    need_a[:n] = need
    got = search_nb.race_nb(need_a, work[E.MAX_PLAYERS:], p, n)
    assert got == pytest.approx(brute_race(need, p, n), rel=1e-12)


# ------------------------------------------------------------------ hand-made states

def table_in_play(players, game, rules=None, shed=10, samples=24):
    """A table in the middle of a round: dealt from game `game`'s streams, `shed` random letter
    cards discarded from random hands, a few category cards read; seat 0 plays search. Returns
    (the one-row table, its arrays as the round's tuples, the search workspace)."""
    arm = ArmSpec.make("wieweetwat", players, rules or {},
                       ",".join([f"search:samples={samples}"] + ["spoiler"] * (players - 1)))
    inputs = ww.RUNNER.kernel_inputs(arm)
    letters, share, breadth = inputs.data[:3]  # then the profiles model's kind tables
    rows = np.zeros(1, TABLE_DTYPE)
    t = rows[0]
    t["rule_i"][:] = inputs.rule_i
    t["rule_f"][:] = inputs.rule_f
    t["policy"][:players] = inputs.seat_policy
    t["seat_i"][:players] = inputs.seat_i
    t["seat_f"][:players] = inputs.seat_f
    t["rates"][:players] = inputs.seat_f[:, E.SF_VOCABULARY] * inputs.seat_f[:, E.SF_SPEED]
    t["share"][:] = share
    t["breadth"][: len(breadth)] = breadth
    n_cat = len(breadth) // 4
    kinds = [a for a in range(E.N_ACTIONS) for _ in range(inputs.rule_i[E.R_ACTION_FIRST + a])]
    t["card_action"][:n_cat] = -1
    t["card_action"][n_cat:n_cat + len(kinds)] = kinds
    n_cards = n_cat + len(kinds)
    t["deck_counts"][:26] = letters[:26]
    t["deck_counts"][E.WWW] = inputs.rule_i[E.R_WWW_CARDS]
    deck = np.repeat(np.arange(E.N_KINDS), t["deck_counts"])
    t["deck"][: len(deck)] = deck
    deal_round_nb(7, game, 0, t["deck"], len(deck), t["lpile"], t["pile_n"], t["hands"],
                  t["hand_n"], players, inputs.rule_i[E.R_HAND_SIZE])
    shuffle_categories_nb(7, game, t["cpile"], t["pile_n"], n_cards)
    t["pending"][:] = -1
    t["restrict"][:] = -1
    rng = np.random.default_rng(game)
    for _ in range(shed):  # cards won and shown: the letter discards
        q = int(rng.integers(players))
        if t["hand_n"][q] > 1:
            held = np.repeat(np.arange(E.N_KINDS), t["hands"][q, : E.N_KINDS])
            kind = int(rng.choice(held))
            t["hands"][q, kind] -= 1
            t["hand_n"][q] -= 1
            t["hands"][q, E.HAND_MASK] = kind_set_nb(t["hands"], q)
            t["ldisc"][t["pile_n"][E.PN_LETTER_DISCARDS]] = kind
            t["pile_n"][E.PN_LETTER_DISCARDS] += 1
    for _ in range(5):  # categories read
        move_card(t, int(t["cpile"][t["pile_n"][E.PN_CAT_PILE] - 1]), "cdisc", E.PN_CAT_DISCARDS)
    kshare, cat_kind, fixed_know, fixed_letters, fixed_react = inputs.data[3:8]
    t["cat_kind"][: len(cat_kind)] = cat_kind
    t["kshare"][:, :] = kshare
    if inputs.rule_i[E.R_RECALL_MODEL] == E.RECALL_PROFILES:  # the players' profiles, as a game's
        draw_profiles_nb(7, game, players, np.int64(0), t["rule_f"], t["kshare"], t["pshare"],
                         t["know"], t["lfactor"], t["react"], t["rng"], fixed_know, fixed_letters,
                         fixed_react)
        card_shares_nb(t["pshare"], t["deck_counts"], players, t["hshare"])
    for s in range(players):
        t["rng"][s] = np.uint64(1000 + 17 * s + game)
    search = search_nb.new_workspace_nb()
    parts = (rules_of(t), state_of(t), piles_of(t))
    search_nb.set_up_nb(search, parts[0], t["deck_counts"], n_cards)
    score = np.zeros(E.MAX_PLAYERS, np.int64)
    score[1] = 1
    search_nb.note_score_nb(search, score)
    return rows, search, n_cards


def rules_of(t):
    return (t["rule_i"], t["rule_f"], t["policy"], t["seat_i"], t["seat_f"], t["rates"], t["share"],
            t["breadth"], t["card_action"],
            (t["cat_kind"], t["pshare"], t["know"], t["react"], t["crates"], t["hshare"]))


def state_of(t):
    return (t["hands"], t["hand_n"], t["pending"], t["restrict"], t["pile_n"], t["rng"], t["known"])


def piles_of(t):
    return (t["lpile"], t["ldisc"], t["cpile"], t["cdisc"], t["cuse"])


def move_card(t, card, to, count):
    """Take category card `card` out of the pile and put it on `to` (cdisc or cuse)."""
    n = t["pile_n"][E.PN_CAT_PILE]
    pile = list(t["cpile"][:n])
    pile.remove(card)
    t["cpile"][: n - 1] = pile
    t["pile_n"][E.PN_CAT_PILE] = n - 1
    t[to][t["pile_n"][count]] = card
    t["pile_n"][count] += 1


def draw_turn(t, n_cards, action=None):
    """The reader's turn so far: `action`'s first card (if any) and the pile's next regular card
    taken into use; returns the regular card."""
    if action is not None:
        card = next(c for c in range(n_cards) if t["card_action"][c] == action)
        move_card(t, card, "cuse", E.PN_CAT_IN_USE)
    pile = t["cpile"][: t["pile_n"][E.PN_CAT_PILE]]
    card = next(int(c) for c in pile[::-1] if t["card_action"][c] < 0)
    move_card(t, card, "cuse", E.PN_CAT_IN_USE)
    return card


def exchange_hidden(rows, p, players, rng):
    """A copy of the table with the other hands' and the letter pile's cards exchanged among them
    (sizes kept), the category pile reordered and the other seats' streams changed."""
    other = rows.copy()
    t = other[0]
    others = [q for q in range(players) if q != p]
    cards = [k for q in others for k in np.repeat(np.arange(E.N_KINDS), t["hands"][q, : E.N_KINDS])]
    n_pile = int(t["pile_n"][E.PN_LETTER_PILE])
    cards += list(t["lpile"][:n_pile])
    cards = list(rng.permutation(cards))
    for q in others:
        size = int(t["hand_n"][q])
        t["hands"][q, :] = 0
        for k in cards[:size]:
            t["hands"][q, k] += 1
        t["hands"][q, E.HAND_MASK] = kind_set_nb(t["hands"], q)
        cards = cards[size:]
        t["rng"][q] ^= np.uint64(0x5DEECE66D)
    t["lpile"][:n_pile] = cards
    m = int(t["pile_n"][E.PN_CAT_PILE])
    t["cpile"][:m] = rng.permutation(t["cpile"][:m])
    return other


def hidden(t, p, players):
    return [list(t["hands"][q]) for q in range(players) if q != p] + \
        [list(t["lpile"][: t["pile_n"][E.PN_LETTER_PILE]])]


@pytest.mark.parametrize("players,game,action", [
    (4, 1, None),
    (3, 2, E.A_GROTE_KANS),
    (5, 4, None),
    (6, 6, E.A_TE_VEEL_KEUZE),
    (4, 3, E.A_TE_VEEL_KEUZE),
])
def test_search_uses_only_what_its_seat_may_know(players, game, action):
    rows, search, n_cards = table_in_play(players, game, TE_VEEL_KEUZE)
    t = rows[0]
    card = draw_turn(t, n_cards, action)
    target = action == E.A_TE_VEEL_KEUZE
    grote = action == E.A_GROTE_KANS
    rng = np.random.default_rng(game)
    choices, gains = set(), []
    for variant in range(4):
        table = rows.copy() if variant == 0 else exchange_hidden(rows, 0, players, rng)
        if variant:
            assert hidden(table[0], 0, players) != hidden(t, 0, players)
        u = table[0]
        others_before = list(u["rng"][1:players])
        choice = search_nb.decide_nb(target, search, 0, 0, players, card, 1, grote, rules_of(u),
                                     state_of(u), piles_of(u))
        choices.add(int(choice))
        gains.append(np.array(search[1]))
        assert u["rng"][0] != t["rng"][0]  # it drew from its own stream
        assert list(u["rng"][1:players]) == others_before  # and never from another seat's
    assert len(choices) == 1
    for g in gains[1:]:
        np.testing.assert_array_equal(g, gains[0])  # not only the choice: every estimate
    if target:
        assert next(iter(choices)) in range(1, players)
    else:
        assert next(iter(choices)) in range(4)
    assert any(g != 0.0 for g in gains[0]), "the state should leave the options apart"
