"""Wie is de Heer?'s rules, one by one, on scripted tables: the fit test (suit or rank, the jack's
constraint, jokers, stacking on a pending draw), 2s and jokers adding up, 7, 8 and ace, the pile's
points (a jack banks exactly the points since the last ace or jack, the text's 2 + 10 + 8 + 8 = 28;
an ace voids them), the reshuffle keeping the top card, going out with the joker rule and the
winner."""
from __future__ import annotations

import numpy as np
import pytest

from kernels.wieisdeheer import enums as E
from kernels.wieisdeheer import rules_nb as R
from kernels.wieisdeheer import table_nb as T
from sim.games.wieisdeheer_trace import card_name

SUIT = {"C": 0, "D": 1, "H": 2, "S": 3}
RANK = {"A": 0, "J": 10}


def card(name: str) -> int:
    """'7H', '10D', 'JS', 'AC' -> card number; 'JK' (or 'JK2') -> a joker."""
    if name.startswith("JK"):
        return E.SUITED + (int(name[2:]) - 1 if len(name) > 2 else 0)
    rank, suit = name[:-1], SUIT[name[-1]]
    r = RANK[rank] if rank in RANK else int(rank) - 1
    return suit * E.N_RANKS + r


def fits(name, top, pending=0, suit=None):
    t = card(top)
    return bool(T.fits_nb(card(name), T.SUIT_OF[t] if suit is None else suit, T.RANK_OF[t], pending))


def fresh_table(cards_on_pile=()):
    st = np.zeros(T.N_ST, np.int64)
    st[T.ST_DIR] = 1
    st[T.ST_CARDS] = E.SUITED + 2
    disc = np.zeros(E.N_CARDS, np.int64)
    in_disc = np.zeros(E.N_CARDS, np.int64)
    for name in cards_on_pile:
        T.discard_nb(st, disc, in_disc, card(name))
    return st, disc, in_disc


def test_card_names_round_trip():
    for c in range(E.SUITED + 2):
        assert card(card_name(c)) == c or card_name(c) == "JK"
    assert [T.POINTS_OF[card(n)] for n in ("AC", "2C", "10H", "JS", "JK")] == [0, 2, 10, 0, 0]


@pytest.mark.parametrize("name,top,ok", [
    ("7H", "3H", True), ("7H", "7C", True), ("7H", "8C", False),   # suit or rank
    ("JC", "3C", True), ("JC", "3H", False), ("JC", "JH", True),   # a jack: own suit or a jack
    ("JK", "3H", True), ("5S", "JK", True), ("JC", "JK", True),    # jokers go anywhere, take anything
    ("AC", "AD", True), ("8D", "AD", True), ("8S", "AD", False),
])
def test_a_card_fits_by_suit_or_rank_and_a_jack_only_on_its_suit_or_a_jack(name, top, ok):
    assert fits(name, top) is ok


def test_after_a_jack_the_named_suit_is_followed():
    assert fits("5S", "JH", suit=SUIT["S"]) and not fits("5H", "JH", suit=SUIT["S"])
    assert fits("JD", "JH", suit=SUIT["S"])  # another jack always goes on a jack
    assert not fits("JS", "5H")  # but never on another suit's card


def test_with_a_draw_pending_only_2s_and_jokers_fit():
    assert fits("2C", "2H", pending=2) and fits("JK", "2H", pending=2)
    assert fits("2S", "JK", pending=5)  # "2+5": a 2 on a joker
    assert not fits("7H", "2H", pending=2) and not fits("JH", "2H", pending=2)


def test_stacked_2s_and_jokers_add_up_and_pass_on():
    st, disc, in_disc = fresh_table(["3H"])
    for name, expect in (("2H", 2), ("JK", 7), ("2S", 9), ("JK2", 14)):
        T.discard_nb(st, disc, in_disc, card(name))
        R.turn_effect_nb(st, card(name))
        assert st[T.ST_PENDING] == expect


def test_8_skips_ace_reverses_7_has_no_turn_effect():
    st, _, _ = fresh_table(["3H"])
    assert R.turn_effect_nb(st, card("8H")) is True
    assert R.turn_effect_nb(st, card("7H")) is False and st[T.ST_DIR] == 1
    R.turn_effect_nb(st, card("AH"))
    assert st[T.ST_DIR] == -1
    out = np.zeros(E.MAX_PLAYERS, np.int64)
    assert R.next_seat_nb(0, -1, 4, out) == 3 and R.next_seat_nb(3, 1, 4, out) == 0
    out[1] = 1  # seat 1 went out: play passes over it
    assert R.next_seat_nb(0, 1, 4, out) == 2 and R.next_seat_nb(2, -1, 4, out) == 0


def test_a_jack_banks_exactly_the_points_since_the_last_ace_or_jack():
    """The text: 'liggen daar een 2 een 10 en 2 achten dan worden er 28 punten verdiend'."""
    st, _, _ = fresh_table()
    for name in ("5C", "AC"):  # points before the ace are voided, not banked later
        R.pile_effect_nb(st, card(name))
    assert st[T.ST_VOIDED] == 5 and st[T.ST_PILE] == 0
    for name in ("2C", "10C", "8C", "8H"):
        R.pile_effect_nb(st, card(name))
    assert st[T.ST_PILE] == 28
    assert R.pile_effect_nb(st, card("JH")) == (28, R.PILE_BANKED)
    assert st[T.ST_POT] == 28 and st[T.ST_PILE] == 0
    R.pile_effect_nb(st, card("9H"))
    R.pile_effect_nb(st, card("JK"))  # a joker scores nothing
    assert R.pile_effect_nb(st, card("JD")) == (9, R.PILE_BANKED) and st[T.ST_POT] == 37


def test_an_ace_voids_the_pile():
    st, _, _ = fresh_table()
    for name in ("4S", "6S", "7S"):
        R.pile_effect_nb(st, card(name))
    assert R.pile_effect_nb(st, card("AS")) == (17, R.PILE_VOIDED)
    assert st[T.ST_PILE] == 0 and st[T.ST_VOIDED] == 17 and st[T.ST_POT] == 0


def test_the_deal_gives_seven_each_and_turns_a_start_card_and_conserves_cards():
    st = np.zeros(T.N_ST, np.int64)
    hands = np.zeros((E.MAX_PLAYERS, E.N_CARDS), np.int64)
    hand_n = np.zeros(E.MAX_PLAYERS, np.int64)
    draw, disc = np.zeros(E.N_CARDS, np.int64), np.zeros(E.N_CARDS, np.int64)
    in_disc, seen = np.zeros(E.N_CARDS, np.int64), np.zeros(E.N_CARDS, np.int64)
    moles = set()
    for g in range(40):
        moles.add(T.setup_nb(9, g, 6, 2, st, hands, hand_n, draw, disc, in_disc))
        assert list(hand_n[:6]) == [7] * 6 and st[T.ST_DISC_N] == 1 and st[T.ST_DRAW_N] == 46 - 43
        assert st[T.ST_PILE] == T.POINTS_OF[disc[0]]
        assert T.cards_conserved_nb(st, hands, hand_n, 6, draw, disc, in_disc, seen)
    assert moles == set(range(6))


def test_a_reshuffle_keeps_the_top_card_and_the_pile_count():
    st, disc, in_disc = fresh_table(["3H", "5H", "9H", "9C"])
    st[T.ST_PILE] = 26
    draw = np.zeros(E.N_CARDS, np.int64)
    hands = np.zeros((E.MAX_PLAYERS, E.N_CARDS), np.int64)
    hand_n = np.zeros(E.MAX_PLAYERS, np.int64)
    got, moved = T.draw_one_nb(1, 0, st, draw, disc, in_disc, hands, hand_n, 0)
    assert moved == 3 and st[T.ST_DISC_N] == 1 and disc[0] == card("9C")
    assert got in {card("3H"), card("5H"), card("9H")} and st[T.ST_DRAW_N] == 2
    assert in_disc.sum() == 1 and in_disc[card("9C")] == 1 and st[T.ST_PILE] == 26
    # nothing under the top: a draw finds no card
    T.draw_one_nb(1, 0, st, draw, disc, in_disc, hands, hand_n, 0)
    T.draw_one_nb(1, 0, st, draw, disc, in_disc, hands, hand_n, 0)
    assert T.draw_one_nb(1, 0, st, draw, disc, in_disc, hands, hand_n, 0) == (-1, 0)


def test_going_out_on_a_joker_moves_one_place_up():
    order = np.zeros(E.MAX_PLAYERS, np.int64)
    R.go_out_nb(order, 0, 2, True, True)  # the first out cannot move up
    R.go_out_nb(order, 1, 0, False, True)
    R.go_out_nb(order, 2, 3, True, True)  # passes seat 0
    R.go_out_nb(order, 3, 1, False, True)
    assert order[:4].tolist() == [2, 3, 0, 1]
    off = np.zeros(E.MAX_PLAYERS, np.int64)
    R.go_out_nb(off, 0, 2, False, False)
    R.go_out_nb(off, 1, 3, True, False)  # the rule off: no move
    assert off[:2].tolist() == [2, 3]


def test_the_first_in_the_order_who_wrote_the_mole_wins_else_the_mole():
    order = np.array([2, 0, 3, 1, 0, 0])
    suspect = np.array([1, 0, 3, 1, -1, -1])  # seat 2 wrote 3 (wrong), seat 0 and seat 3 wrote 1
    assert R.winner_nb(order, 4, suspect, 1, 50, 0) == 0
    assert R.winner_nb(order, 4, np.array([2, 3, 0, 0, -1, -1]), 1, 50, 0) == 1  # nobody: the mole
    assert R.winner_nb(order, 4, suspect, 1, 50, 60) == 1  # the pot rule: below 60, the mole wins
    assert R.winner_nb(order, 4, suspect, 1, 60, 60) == 0
