"""Knutten rules, one hand-built situation each, on the kernel's own @njit helpers.

Every test builds a table record (kernels/knutten/table_nb.py) from the default deck, as the
driver builds its own (play_nb.new_table), puts cards where the situation needs them and calls the
helpers the driver calls. Card ids of the default deck
(sim.games.knutten.DEFAULT_DECK, John last): design d of the eight number designs owns ids
4d..4d+3 -- 1|6, 2|7, 3|8, 4|9, 5|10, 6|11, 1|11, 2|9 -- then five -10 (32..36), four ? (37..40)
and John (41). An action is 2 * hand slot + value side (0: first value, 1: second value).
"""
from __future__ import annotations

import numpy as np
import pytest

from kernels.knutten import enums as E
from kernels.knutten.play_nb import (
    GAME_OVER, cannot_play_nb, discard_john_nb, new_table, play_card_nb, reset_game_nb, wind_nb,
)
from kernels.knutten.policies_nb import (
    choose_action_nb, choose_start_nb, choose_target_nb, forced_probability_nb,
    heuristic_option_nb,
)
from kernels.knutten.rules_nb import (
    counted_nb, end_bites_nb, game_over_nb, is_legal_nb, john_targets_nb, legal_actions_nb,
    option_is_sound_nb, place_john_nb, swarm_after_nb, swarm_bite_count_nb, winner_mask_nb,
)
from kernels.knutten.table_nb import (
    cards_conserved_nb, deal_nb, draw_nb, fill_hand_nb, has_three_alike_nb, hand_under_pile_nb,
    new_pile_nb, seed_game_nb, swarm_to_pile_nb, take_from_hand_nb, to_swarm_nb, wind_caller_nb,
)
from sim.games import knutten as kn
from sim.spec import ArmSpec

# default-deck designs
D16, D27, D38, D49, D510, D611, D111, D29, DM10, DQ, DJOHN = range(11)
JOHN = 41


class Table:
    """A table record with a default deck and helpers to lay out a situation by hand."""

    def __init__(self, players=4, rules=None, policies="cautious", start=None):
        """`start`: every seat's parameter `start` (a START_* id; default most_bites)."""
        self.arm = ArmSpec.make("knutten", players, rules or {}, policies)
        cards, designs = kn.RUNNER.data_arrays(self.arm)  # the plain deck: the table adds John
        seat_i = np.zeros((players, len(E.SEAT_I_ORDER)), np.int64)
        seat_i[:, E.SI_START] = start or E.START_MOST_BITES
        self.ws = new_table(cards, designs, kn.RUNNER.kernel_inputs(self.arm).rule_i,
                            kn.RUNNER.kernel_inputs(self.arm).seat_policy, seat_i)
        self.t = self.ws[0]
        self.cards = self.t["cards"][: self.t["st"][E.S_CARDS]]
        reset_game_nb(self.t)  # John card known, John off the table, record cleared
        self.used = set()
        self.set()

    def card(self, design):
        """A fresh card id of a design."""
        for c in range(len(self.cards)):
            if self.cards[c][E.C_DESIGN] == design and c not in self.used:
                self.used.add(c)
                return c
        raise AssertionError(f"no copy of design {design} left")

    def set(self, hands=None, pile=None, swarm=(), total=0, pending=0, bites=None,
            john_seat=E.NO_SEAT):
        """Lay out a situation. `pile` lists the draw pile from the top down.

        The draw pile and the swarm are built with kernel helpers only (their layout is the
        kernel's business): a new pile is made and drawn empty, then the wanted cards are shown
        and put under it in order; swarm cards are added with to_swarm_nb."""
        t = self.t
        st = t["st"]
        reset_game_nb(t)
        new_pile_nb(t, 0)
        while draw_nb(t, 0, E.E_DRAW):  # draw the pile empty
            take_from_hand_nb(t, 0, 0)
        reset_game_nb(t)  # forget the draws of John
        pile = list(pile or [])
        for i in range(0, len(pile), E.MAX_HAND):
            self.give(0, pile[i: i + E.MAX_HAND])
            hand_under_pile_nb(t, 0)
        for p in range(self.arm.players):
            self.give(p, (hands or {}).get(p, []))
        for c in swarm:
            to_swarm_nb(t, c)
        st[E.S_SWARM] = total
        st[E.S_PENDING] = pending
        place_john_nb(t, john_seat)
        for p, b in (bites or {}).items():
            t["bites"][p] = b

    def give(self, p, cards):
        """Seat p's hand becomes `cards`. The kernel keeps per-hand counts beside the hand
        (hand_designs, when present): they are kept in step here."""
        t = self.t
        t["hand_n"][p] = len(cards)
        t["hands"][p, : len(cards)] = cards
        if "hand_designs" in t.dtype.names:
            t["hand_designs"][p, :] = 0
            for c in cards:
                t["hand_designs"][p, self.cards[c][E.C_DESIGN]] += 1

    def hand(self, p):
        return [int(c) for c in self.t["hands"][p, : self.t["hand_n"][p]]]

    def pile_draw_order(self):
        """The cards of the draw pile in the order they would be drawn (on a copy of the table)."""
        ws = self.ws.copy()
        t = ws[0]
        seat = E.MAX_PLAYERS - 1
        order = []
        while draw_nb(t, seat, E.E_DRAW):
            order.append(int(take_from_hand_nb(t, seat, 0)))
        return order

    def legal(self, p):
        n = legal_actions_nb(self.t, p, True)
        return sorted(int(a) for a in self.t["opts"][:n])

    @property
    def total(self):
        return int(self.t["st"][E.S_SWARM])

    def play(self, p, card, side=0):
        """Seat p plays `card` (which must be in its hand) with value side `side`; checks the
        action is legal first. Returns whether the swarm bites."""
        slot = self.hand(p).index(card)
        action = 2 * slot + side
        assert is_legal_nb(self.t, p, action), (p, card, side)
        n = legal_actions_nb(self.t, p, True)
        options = [int(a) for a in self.t["opts"][:n]]
        assert action in options
        after = self.t["opt_after"][options.index(action)]
        return bool(play_card_nb(self.t, p, action, after))


# ------------------------------------------------------------------ the seed's swarm example
def test_seed_swarm_example_9_3_2_minus10_q_11_7_is_33_and_bites():
    """'9 + 3 + 2 - 10 + 11 + 11 + 7 = 33', '33 knutten is 3 te veel' (threshold 31)."""
    tb = Table(4)
    plays = [(tb.card(D49), 1, 9, 9), (tb.card(D38), 0, 3, 12), (tb.card(D27), 0, 2, 14),
             (tb.card(DM10), 0, -10, 4), (tb.card(DQ), 0, None, 4), (tb.card(D611), 1, 11, 26),
             (tb.card(D27), 1, 7, 33)]
    tb.set(hands={i % 4: [c] for i, (c, *_) in enumerate(plays[:4])})
    totals = []
    for i, (card, side, value, total) in enumerate(plays):
        p = i % 4
        tb.give(p, [card])
        if value is not None:
            assert swarm_after_nb(tb.t, card, side) == total
        bites = tb.play(p, card, side)
        totals.append(tb.total)
        assert bites == (total >= 31)
    assert totals == [9, 12, 14, 4, 4, 26, 33]
    assert tb.t["st"][E.S_PENDING] == 0
    assert tb.t["st"][E.S_SWARM_N] == 7
    # one bite normally; in heavy weather the knutten over 30: 3 here, 4 for the seed's 34
    assert swarm_bite_count_nb(tb.t, 33) == 1
    heavy = Table(4, {"heavy_weather": True})
    assert swarm_bite_count_nb(heavy.t, 33) == 3
    assert swarm_bite_count_nb(heavy.t, 34) == 4
    assert swarm_bite_count_nb(heavy.t, 31) == 1


def test_value_side_is_the_low_bit_of_the_action():
    tb = Table(2)
    c = tb.card(D611)
    tb.set(hands={0: [tb.card(D16), c]}, total=3)
    assert tb.legal(0) == [0, 1, 2, 3]
    tb.play(0, c, 1)
    assert tb.total == 14
    # single-valued cards have one action only
    m = tb.card(DM10)
    tb.set(hands={0: [m]}, total=12)
    assert tb.legal(0) == [0]
    assert not is_legal_nb(tb.t, 0, 1)
    assert not is_legal_nb(tb.t, 0, 2)  # no such slot


def test_threshold_is_reached_not_exceeded():
    """'een zwerm maakt van 31 of meer knutten': exactly 31 bites, 30 does not."""
    tb = Table(2)
    a, b = tb.card(D49), tb.card(D49)
    tb.set(hands={0: [a], 1: [b]}, total=21)
    assert not tb.play(0, a, 1) and tb.total == 30
    tb.set(hands={1: [b]}, total=22)
    assert tb.play(1, b, 1) and tb.total == 31


# ------------------------------------------------------------------ ? cards
def test_chained_question_marks_all_copy_the_first_real_value():
    tb = Table(3)
    q1, q2, six = tb.card(DQ), tb.card(DQ), tb.card(D611)
    tb.set(hands={0: [q1], 1: [q2], 2: [six]}, total=4)
    assert not tb.play(0, q1) and tb.total == 4 and tb.t["st"][E.S_PENDING] == 1
    assert not tb.play(1, q2) and tb.total == 4 and tb.t["st"][E.S_PENDING] == 2
    assert swarm_after_nb(tb.t, six, 0) == 4 + 3 * 6
    assert swarm_after_nb(tb.t, six, 1) == 4 + 3 * 11  # 37: the resolving player is bitten
    assert not tb.play(2, six, 0)
    assert tb.total == 22 and tb.t["st"][E.S_PENDING] == 0


def test_question_mark_then_minus10_doubles_it_and_is_checked_on_the_resolving_card():
    tb = Table(2)
    q, m = tb.card(DQ), tb.card(DM10)
    tb.set(hands={0: [q], 1: [m, tb.card(D16)]}, total=25)
    tb.play(0, q)
    assert swarm_after_nb(tb.t, m, 0) == 5
    tb.play(1, m)
    assert tb.total == 5
    # below zero: with 15 and a waiting ?, -10 would make -5: not legal; ? itself always is
    q2, m2, one = tb.card(DQ), tb.card(DM10), tb.card(D16)
    tb.set(hands={0: [q2], 1: [m2, one]}, total=15)
    assert tb.legal(0) == [0]
    tb.play(0, q2)
    assert tb.legal(1) == [2, 3]  # only the 1|6, both sides
    assert not is_legal_nb(tb.t, 1, 0)
    # the bite check is on the resolving card too: ? at 20 then 6 makes 32
    q3, six = tb.card(DQ), tb.card(D611)
    tb.set(hands={0: [q3], 1: [six]}, total=20)
    assert not tb.play(0, q3)
    assert tb.play(1, six, 0) and tb.total == 32


def test_question_mark_skips_john_and_copies_the_next_swarm_card():
    """John is 'niet in de zwerm': a waiting ? copies the next card that lands on the swarm."""
    tb = Table(3)
    q, john, three = tb.card(DQ), JOHN, tb.card(D38)
    tb.set(hands={0: [q], 1: [john], 2: [three]}, total=10, bites={0: 1, 1: 1, 2: 0})
    tb.play(0, q)
    tb.play(1, john)
    assert tb.total == 10 and tb.t["st"][E.S_PENDING] == 1
    tb.play(2, three)
    assert tb.total == 16


# ------------------------------------------------------------------ not below zero
def test_not_below_zero():
    """'Spelers mogen geen kaart spelen waardoor het aantal knutten in de zwerm onder de 0 uitkomt.'"""
    tb = Table(2)
    m, one = tb.card(DM10), tb.card(D16)
    tb.set(hands={0: [m, one]}, total=9)
    assert tb.legal(0) == [2, 3]
    assert swarm_after_nb(tb.t, m, 0) == -1
    tb.set(hands={0: [m, one]}, total=10)
    assert tb.legal(0) == [0, 2, 3]  # exactly 0 is allowed
    tb.play(0, m)
    assert tb.total == 0


# ------------------------------------------------------------------ cannot play
def test_cannot_play_shows_hand_under_pile_one_bite_refill_same_swarm():
    tb = Table(3)
    m1, m2 = tb.card(DM10), tb.card(DM10)
    pile = [tb.card(D16), tb.card(D27), tb.card(D38), tb.card(D49)]
    swarm = [tb.card(D611), tb.card(D38)]
    tb.set(hands={0: [m1, m2]}, pile=pile, swarm=swarm, total=9, pending=0)
    assert tb.legal(0) == []
    ended = cannot_play_nb(tb.t, 0)
    assert not ended
    assert tb.t["bites"][0] == 1 and tb.t["bites"][1] == 0
    assert tb.hand(0) == pile[:3]  # drew up to the hand limit from the top
    assert tb.pile_draw_order() == [pile[3], m1, m2]  # the shown hand went under, in hand order
    assert tb.total == 9 and tb.t["st"][E.S_SWARM_N] == 2  # the same swarm goes on
    assert tb.t["rec"][E.O_CANNOT] == 1


def test_cannot_play_bite_can_end_the_game_and_then_nobody_refills():
    tb = Table(2)
    m = tb.card(DM10)
    tb.set(hands={0: [m]}, pile=[tb.card(D16)], total=3, bites={0: 2})
    assert cannot_play_nb(tb.t, 0)
    assert tb.t["bites"][0] == 3 and tb.hand(0) == []
    assert game_over_nb(tb.t)


def test_discarding_john_is_offered_instead_of_a_cannot_play():
    tb = Table(3)
    m = tb.card(DM10)
    tb.set(hands={1: [m]}, total=2, john_seat=1, bites={1: 1})
    assert tb.legal(1) == [E.A_DISCARD]
    assert choose_action_nb(tb.t, 1, legal_actions_nb(tb.t, 1, True)) == E.A_DISCARD
    tb.set(hands={2: [m]}, total=2, john_seat=1)
    assert tb.legal(2) == []  # John lies before another seat: seat 2 cannot play


# ------------------------------------------------------------------ WIND
def test_three_identical_cards():
    tb = Table(3, {"hand_limit": 4})
    a, b, c, d = (tb.card(D27) for _ in range(4))
    m1, m2, m3 = (tb.card(DM10) for _ in range(3))
    q1, q2 = tb.card(DQ), tb.card(DQ)
    tb.set(hands={0: [a, b, tb.card(D16)], 1: [m1, q1, m2, m3], 2: [tb.card(DQ), c, q2]})
    assert not has_three_alike_nb(tb.t, 0)
    assert has_three_alike_nb(tb.t, 1)  # three -10 among four cards
    assert not has_three_alike_nb(tb.t, 2)
    tb.set(hands={0: [a, b]})
    assert not has_three_alike_nb(tb.t, 0)
    # 6|11 and 1|11 share a value but are different cards
    tb.set(hands={0: [tb.card(D611), tb.card(D111), tb.card(D611)]})
    assert not has_three_alike_nb(tb.t, 0)
    tb.set(hands={0: [a, b, c, d]})
    assert has_three_alike_nb(tb.t, 0)


def test_wind_after_a_draw():
    tb = Table(2)
    a, b, c = (tb.card(D38) for _ in range(3))
    tb.set(hands={0: [a, b]}, pile=[c, tb.card(D16)])
    assert not has_three_alike_nb(tb.t, 0)
    assert draw_nb(tb.t, 0, E.E_DRAW)
    assert has_three_alike_nb(tb.t, 0)
    assert wind_caller_nb(tb.t, 1) == 0


def test_wind_several_callers_first_in_turn_order_from_the_start():
    tb = Table(4)
    same = lambda d: [tb.card(d) for _ in range(3)]  # noqa: E731
    tb.set(hands={0: [tb.card(D16), tb.card(D27), tb.card(D38)], 1: same(D49),
                  2: [tb.card(D16), tb.card(D27), tb.card(D38)], 3: same(D510)})
    assert wind_caller_nb(tb.t, 0) == 1
    assert wind_caller_nb(tb.t, 1) == 1
    assert wind_caller_nb(tb.t, 2) == 3
    assert wind_caller_nb(tb.t, 3) == 3
    tb.set(hands={0: [tb.card(D111)]})
    assert wind_caller_nb(tb.t, 0) == E.NO_SEAT


def test_wind_after_the_initial_deal_and_deal_order():
    """The deal: one card at a time, in turn order from the start player; WIND is checked after."""
    tb = Table(3)
    # seat 1 starts: it receives the 1st, 4th and 7th card from the top
    order = [tb.card(D510), tb.card(D16), tb.card(D27), tb.card(D510), tb.card(D38),
             tb.card(D49), tb.card(D510), tb.card(D611), tb.card(D111), tb.card(D29)]
    tb.set(pile=order)
    deal_nb(tb.t, 1)
    assert tb.hand(1) == [order[0], order[3], order[6]]
    assert tb.hand(2) == [order[1], order[4], order[7]]
    assert tb.hand(0) == [order[2], order[5], order[8]]
    assert tb.pile_draw_order() == [order[9]]
    assert wind_caller_nb(tb.t, 1) == 1


def test_wind_every_other_seat_is_bitten_and_the_caller_chooses():
    tb = Table(4)
    tb.set(bites={0: 1, 2: 1})
    assert wind_nb(tb.t, 2) == 2  # the caller chooses the next start player
    assert list(tb.t["bites"][:4]) == [2, 1, 1, 1]
    assert tb.t["rec"][E.O_WIND] == 1
    tb.set(bites={0: 2, 1: 0, 2: 2, 3: 2})
    assert wind_nb(tb.t, 3) == GAME_OVER


def test_chosen_start_player():
    """After a bite the bitten player, after WIND the caller, chooses who starts. Heuristic players
    name the seat with the most bites other than themselves (ties: the first after them)."""
    tb = Table(4)
    tb.set(bites={0: 1, 1: 2, 2: 0, 3: 2})
    assert choose_start_nb(tb.t, 1) == 3  # chooser 1 skips itself; 3 has 2 bites
    assert choose_start_nb(tb.t, 3) == 1
    assert choose_start_nb(tb.t, 0) == 1  # 1 and 3 tie: the first after the chooser
    tb.set(bites={})
    assert choose_start_nb(tb.t, 2) == 3


def test_start_parameter_of_the_heuristic_players():
    """Seat parameter `start` (cautious and trap): whom the chooser names as next start player."""
    bites = {0: 1, 1: 2, 2: 0, 3: 2}

    def starts(how, policies="cautious", bites=bites):
        tb = Table(4, policies=policies, start=how)
        tb.set(bites=bites)
        return [int(choose_start_nb(tb.t, chooser)) for chooser in range(4)]

    assert starts(E.START_MOST_BITES) == [1, 3, 3, 1]  # ties: the first after the chooser
    assert starts(E.START_MOST_BITES, "trap") == [1, 3, 3, 1]
    assert starts(E.START_FEWEST_BITES) == [2, 2, 0, 2]
    assert starts(E.START_FEWEST_BITES, bites={}) == [1, 2, 3, 0]
    assert starts(E.START_NEXT) == [1, 2, 3, 0]
    assert starts(E.START_SELF, "trap") == [0, 1, 2, 3]
    assert E.START_CHOICES[E.START_MOST_BITES] == "most_bites" and len(E.START_CHOICES) == 5


def test_random_start_comes_from_the_choosers_own_stream():
    """start = random: uniform over all seats (the chooser too), drawn from the chooser's seat
    stream: the same as a random player's choice from the same stream, whatever the others'
    streams hold. A random player ignores its `start` parameter."""
    seen = set()
    for i in range(200):
        picks = []
        for policies, how in (("cautious", E.START_RANDOM), ("random", E.START_RANDOM),
                              ("random", E.START_SELF), ("trap,random,cautious,cautious", E.START_RANDOM)):
            tb = Table(4, policies=policies, start=how)
            tb.t["seat_rng"][:] = np.arange(E.MAX_PLAYERS) * 1000 + len(picks)  # the other seats' streams differ
            tb.t["seat_rng"][2] = i
            picks.append(int(choose_start_nb(tb.t, 2)))
        assert len(set(picks)) == 1, picks
        seen.add(picks[0])
    assert seen == {0, 1, 2, 3}


# ------------------------------------------------------------------ game end
def test_game_ends_at_bites_to_end_with_shared_winners():
    """'Heeft een speler drie knutten beten, dan stopt het spel ... Er kunnen meerdere winnaars zijn.'"""
    tb = Table(4)
    tb.set(bites={0: 2, 1: 1, 2: 1, 3: 2})
    assert not game_over_nb(tb.t)
    tb.set(bites={0: 3, 1: 1, 2: 1, 3: 2})
    assert game_over_nb(tb.t)
    assert winner_mask_nb(tb.t) == 0b0110
    tb.set(bites={0: 3, 1: 0, 2: 2, 3: 1})
    assert winner_mask_nb(tb.t) == 0b0010
    assert end_bites_nb(tb.t) == 3
    five = Table(3, {"bites_to_end": 5})
    five.set(bites={0: 4, 1: 4, 2: 4})
    assert not game_over_nb(five.t)


def test_heavy_weather_ends_at_11_and_ignores_bites_to_end():
    """'Als een speler 11 of meer beten heeft stopt het spel.'"""
    tb = Table(3, {"heavy_weather": True})
    assert end_bites_nb(tb.t) == 11
    tb.set(bites={0: 10, 1: 3, 2: 7})
    assert not game_over_nb(tb.t)
    tb.set(bites={0: 14, 1: 3, 2: 7})
    assert game_over_nb(tb.t)
    assert winner_mask_nb(tb.t) == 0b010
    custom = Table(3, {"heavy_weather": True, "heavy_bites_to_end": 20, "threshold": 41})
    assert end_bites_nb(custom.t) == 20
    assert swarm_bite_count_nb(custom.t, 44) == 4  # knutten over threshold - 1


# ------------------------------------------------------------------ John Knut
def test_john_goes_to_a_fewest_bites_seat_who_takes_a_bite():
    tb = Table(4)
    tb.set(hands={0: [JOHN, tb.card(D16)]}, total=12, bites={0: 0, 1: 1, 2: 0, 3: 1})
    n, bites = john_targets_nb(tb.t)
    assert sorted(tb.t["cand"][:n]) == [0, 2] and bites
    assert not tb.play(0, JOHN)
    assert tb.t["st"][E.S_JOHN_SEAT] == 2  # a heuristic player avoids itself
    assert list(tb.t["bites"][:4]) == [0, 1, 1, 1]
    assert tb.total == 12 and tb.t["st"][E.S_SWARM_N] == 0  # John is not in the swarm
    assert tb.t["rec"][E.O_JOHN_BITES] == 1 and tb.t["rec"][E.O_JOHN_TARGET] == 2


def test_john_never_gives_the_game_ending_bite():
    """'Het kan en mag niet de laatste beet zijn van de speler.'"""
    tb = Table(3)
    tb.set(bites={0: 2, 1: 1, 2: 2})
    n, bites = john_targets_nb(tb.t)
    assert list(tb.t["cand"][:n]) == [1] and bites
    tb.set(bites={0: 2, 1: 2, 2: 2})
    n, bites = john_targets_nb(tb.t)
    assert list(tb.t["cand"][:n]) == [0, 1, 2] and not bites
    heavy = Table(2, {"heavy_weather": True})
    heavy.set(bites={0: 9, 1: 10})
    n, bites = john_targets_nb(heavy.t)
    assert list(heavy.t["cand"][:n]) == [0] and bites
    heavy.set(bites={0: 10, 1: 10})
    assert not john_targets_nb(heavy.t)[1]


def test_john_without_an_eligible_seat_gives_no_bite_but_the_effect_is_active():
    """'Als alle spelers geen beet meer mogen krijgen, dan kan de kaart toch gespeeld worden, maar
    niemand krijgt een beet en het effect wordt wel actief.'"""
    tb = Table(3)
    five = tb.card(D510)
    tb.set(hands={1: [JOHN], 2: [five]}, total=20, bites={0: 2, 1: 2, 2: 2})
    assert 0 in tb.legal(1)
    tb.play(1, JOHN)
    assert list(tb.t["bites"][:3]) == [2, 2, 2]
    assert tb.t["st"][E.S_JOHN_SEAT] == 2  # laid before the first opponent after the player
    assert tb.t["rec"][E.O_JOHN_BITES] == 0 and tb.t["rec"][E.O_JOHN_PLAYS] == 1
    tb.play(2, five, 0)
    assert tb.total == 20


def test_random_player_may_lay_john_before_any_tied_seat():
    tb = Table(3, policies="random")
    tb.set(bites={0: 0, 1: 0, 2: 0})
    seen = set()
    for i in range(200):
        tb.t["seat_rng"][:] = i
        n, _ = john_targets_nb(tb.t)
        seen.add(int(choose_target_nb(tb.t, 0, n)))
    assert seen == {0, 1, 2}


def test_five_counts_zero_while_john_lies_on_the_table():
    """'Als de kaart op tafel ligt worden alle kaarten met een waarde van 5 knutten 0 knutten.'"""
    tb = Table(3)
    five, q = tb.card(D510), tb.card(DQ)
    tb.set(hands={0: [five]}, total=20, john_seat=1)
    assert counted_nb(tb.t, 5) == 0 and counted_nb(tb.t, 10) == 10 and counted_nb(tb.t, -10) == -10
    assert swarm_after_nb(tb.t, five, 0) == 20
    assert swarm_after_nb(tb.t, five, 1) == 30  # the other side of a 5|10 is not a 5
    tb.play(0, five, 0)
    assert tb.total == 20
    # a ? copying a 5 copies 0 as well
    five2 = tb.card(D510)
    tb.set(hands={0: [q], 1: [five2]}, total=20, john_seat=2)
    tb.play(0, q)
    tb.play(1, five2, 0)
    assert tb.total == 20
    # without John the same plays count 5 and 2 x 5
    tb.set(hands={0: [q], 1: [five2]}, total=20)
    assert counted_nb(tb.t, 5) == 5
    tb.play(0, q)
    tb.play(1, five2, 0)
    assert tb.total == 30


def test_options_count_five_as_zero_from_john_laid_to_john_discarded():
    """legal_actions_nb reads what each side counts from the table's card_play, which John's
    coming and going rewrite: the totals it offers follow him, and checked mode agrees."""
    tb = Table(3)
    five = tb.card(D510)

    def totals(p):
        n = legal_actions_nb(tb.t, p, True)
        assert all(option_is_sound_nb(tb.t, p, i) for i in range(n))
        return sorted(int(x) for x in tb.t["opt_after"][:n])

    tb.set(hands={0: [JOHN], 1: [five]}, total=10, bites={0: 0, 1: 0, 2: 0})
    assert totals(1) == [15, 20]
    tb.play(0, JOHN)  # laid before seat 1 (fewest bites, the first opponent after seat 0)
    assert tb.t["st"][E.S_JOHN_SEAT] == 1
    assert totals(1)[-3:] == [10, 10, 20]  # the discard, the 5 as 0, the 10
    discard_john_nb(tb.t, 1)
    assert totals(1) == [15, 20]


def test_john_does_not_recount_cards_already_in_the_swarm():
    """A card's value is fixed when it is counted: a 5 already in the swarm stays 5."""
    tb = Table(3)
    five = tb.card(D510)
    tb.set(hands={0: [five], 1: [JOHN]}, total=10, bites={0: 1, 1: 1, 2: 0})
    tb.play(0, five, 0)
    assert tb.total == 15
    tb.play(1, JOHN)
    assert tb.total == 15
    discard_john_nb(tb.t, 2)
    assert tb.total == 15


def test_only_the_seat_john_lies_before_may_discard_it():
    """'De speler die John voor zich heeft liggen, mag een beurt overslaan om de kaart af te leggen.'"""
    tb = Table(3)
    one, two = tb.card(D16), tb.card(D27)
    tb.set(hands={0: [one], 1: [two]}, total=5, john_seat=1)
    assert E.A_DISCARD not in tb.legal(0)
    assert not is_legal_nb(tb.t, 0, E.A_DISCARD)
    assert tb.legal(1) == [E.A_DISCARD, 0, 1]
    assert is_legal_nb(tb.t, 1, E.A_DISCARD)
    discard_john_nb(tb.t, 1)
    assert tb.t["st"][E.S_JOHN_SEAT] == E.NO_SEAT
    assert tb.hand(1) == [two]  # a pass: nothing played, nothing drawn
    assert tb.t["st"][E.S_DISCARD_N] == 1 and tb.t["discard"][0] == JOHN
    assert E.A_DISCARD not in tb.legal(1)
    assert counted_nb(tb.t, 5) == 5  # the effect ends


def test_john_stays_on_the_table_across_new_piles_and_a_discarded_john_returns():
    """'De kaart gaat eventueel weer in een nieuw te maken trekstapel.'"""
    tb = Table(4)
    tb.set(john_seat=3)
    new_pile_nb(tb.t, 0)
    pile = tb.pile_draw_order()
    assert len(pile) == 41 and JOHN not in pile
    assert tb.t["st"][E.S_JOHN_SEAT] == 3
    assert cards_conserved_nb(tb.t)
    # discarded: it goes into the next new pile
    discard_john_nb(tb.t, 3)
    assert cards_conserved_nb(tb.t)
    new_pile_nb(tb.t, 0)
    pile = tb.pile_draw_order()
    assert len(pile) == 42 and JOHN in pile and tb.t["st"][E.S_DISCARD_N] == 0
    assert cards_conserved_nb(tb.t)


def test_john_is_drawn_and_held_like_any_card():
    tb = Table(2)
    one, two = tb.card(D16), tb.card(D27)
    tb.set(hands={0: [one, two]}, pile=[JOHN, tb.card(D38)])
    fill_hand_nb(tb.t, 0)
    assert tb.hand(0) == [one, two, JOHN]
    assert tb.t["rec"][E.O_JOHN_DRAWN_BY] == 0 and tb.t["rec"][E.O_JOHN_DRAWS] == 1
    assert tb.legal(0) == [0, 1, 2, 3, 4]  # John is one action, whatever the swarm


# ------------------------------------------------------------------ empty draw pile
def test_swarm_becomes_the_new_pile_with_its_total_kept():
    """'Is het spel dan nog niet afgelopen, dan wordt van alle kaarten in de zwerm weer een nieuw
    moeras gemaakt. De spelers gaan door met het totaal aantal knutten dat al in de zwerm zit.'"""
    tb = Table(3)
    swarm = [tb.card(D16), tb.card(D611), tb.card(D38), tb.card(DM10)]
    tb.set(swarm=swarm, total=17, john_seat=0)
    discard_john_nb(tb.t, 0)
    swarm_to_pile_nb(tb.t)
    assert sorted(tb.pile_draw_order()) == sorted(swarm + [JOHN])
    assert tb.total == 17
    assert tb.t["st"][E.S_SWARM_N] == 0 and tb.t["st"][E.S_DISCARD_N] == 0
    assert not tb.t["swarm_designs"].any()


def test_new_pile_order_depends_on_seed_game_and_round_only_and_john_does_not_disturb_it():
    """Round r's new pile comes off in an order fixed by (seed, game, r) and the deck: the same
    with or without John (John is left out of the comparison), and different in another round."""
    def order(john, rnd, game=5, policies="cautious", rules=None):
        tb = Table(4, {"john_knut": john, **(rules or {})}, policies)
        seed_game_nb(tb.t, 77, game)
        new_pile_nb(tb.t, rnd)
        assert cards_conserved_nb(tb.t)
        return tb.pile_draw_order()

    plain = order(False, 0)
    with_john = order(True, 0)
    assert len(plain) == 41 and len(with_john) == 42 and JOHN in with_john
    assert [c for c in with_john if c != JOHN] == plain
    assert order(False, 0, policies="random", rules={"threshold": 25, "heavy_weather": True}) == plain
    assert order(False, 1) != plain and order(False, 0, game=6) != plain
    assert [c for c in order(True, 1) if c != JOHN] == order(False, 1)


def test_the_tables_streams_are_rng_nbs_streams():
    """The table derives its streams from the game's stream once per game: they are rng_nb's
    seat_stream_nb, deal_stream_nb and extra_stream_nb (John's place) all the same."""
    from kernels.rng_nb import deal_stream_nb, extra_stream_nb, next_word_nb, seat_stream_nb, uniform_nb

    tb = Table(4)
    for seed, game, rnd in ((77, 5, 3), (0, 0, 0), (2**40 + 3, 123456, 17)):
        seed_game_nb(tb.t, seed, game)
        assert list(tb.t["seat_rng"][:4]) == [seat_stream_nb(seed, game, p) for p in range(4)]
        new_pile_nb(tb.t, rnd)
        assert tb.t["deal_rng"][0] == deal_stream_nb(seed, game, rnd)
        place = uniform_nb(next_word_nb(np.uint64(extra_stream_nb(seed, game, rnd)))[1], 42)
        assert tb.pile_draw_order().index(JOHN) == place


def test_john_takes_a_uniform_place_in_a_new_pile():
    """John's place among the draws of a new pile: uniform over the 42 places (a binomial check of
    'among the first 12', and every place is seen)."""
    from scipy.stats import binomtest

    tb = Table(4)
    places = []
    for game in range(3000):
        seed_game_nb(tb.t, 11, game)
        new_pile_nb(tb.t, game % 3)
        places.append(tb.pile_draw_order().index(JOHN))
    assert set(places) == set(range(42))
    assert binomtest(sum(x < 12 for x in places), len(places), 12 / 42).pvalue > 1e-4


def test_drawing_from_an_empty_pile_does_nothing():
    tb = Table(2)
    tb.set(hands={0: [tb.card(D16)]})
    assert not draw_nb(tb.t, 0, E.E_DRAW)
    fill_hand_nb(tb.t, 0)
    assert len(tb.hand(0)) == 1


# ------------------------------------------------------------------ card bookkeeping
def test_cards_conserved_catches_a_duplicated_or_lost_card():
    tb = Table(3)
    new_pile_nb(tb.t, 0)
    deal_nb(tb.t, 0)
    assert cards_conserved_nb(tb.t)
    tb.t["hands"][1, 0] = tb.t["hands"][0, 0]  # a duplicate, and one card lost
    assert not cards_conserved_nb(tb.t)
    tb2 = Table(3)
    new_pile_nb(tb2.t, 0)
    tb2.t["st"][E.S_PILE_N] -= 1  # a card vanished
    assert not cards_conserved_nb(tb2.t)


def test_hand_under_pile_and_wraparound_keep_every_card():
    tb = Table(2)
    new_pile_nb(tb.t, 0)
    for _ in range(3 * E.MAX_CARDS // 3):  # cycle cards under the pile well past its capacity
        fill_hand_nb(tb.t, 0)
        hand_under_pile_nb(tb.t, 0)
        assert cards_conserved_nb(tb.t)


def test_checked_mode_verifies_each_option_and_the_total_it_claims():
    """Play takes the swarm total from legal_actions_nb's opt_after: checked mode recomputes it."""
    tb = Table(3)
    m, q, six = tb.card(DM10), tb.card(DQ), tb.card(D611)
    tb.set(hands={0: [m, q, six]}, total=12)
    n = legal_actions_nb(tb.t, 0, True)
    assert n == 4  # -10 (12 - 10 = 2), ?, 6 and 11
    assert all(option_is_sound_nb(tb.t, 0, i) for i in range(n))
    tb.t["opt_after"][n - 1] += 1  # a wrong total for the last option
    assert not option_is_sound_nb(tb.t, 0, n - 1)
    tb.t["opt_after"][n - 1] -= 1
    tb.t["opts"][0] = 2 * 3  # slot 3: no such card in a three-card hand
    assert not option_is_sound_nb(tb.t, 0, 0)


# ------------------------------------------------------------------ policies
def test_cautious_keeps_the_swarm_low_and_saves_emergency_cards():
    tb = Table(3)
    m, q, two, six = tb.card(DM10), tb.card(DQ), tb.card(D27), tb.card(D611)
    tb.set(hands={0: [m, q, six]}, total=12)
    assert choose_action_nb(tb.t, 0, legal_actions_nb(tb.t, 0, True)) == 4  # 6, not -10 or ?
    tb.set(hands={0: [m, q, six]}, total=25)  # 6 and 11 both bite: the -10 is the lowest rescue
    assert choose_action_nb(tb.t, 0, legal_actions_nb(tb.t, 0, True)) == 0
    tb.set(hands={0: [q, six]}, total=25)  # only the ? saves
    assert choose_action_nb(tb.t, 0, legal_actions_nb(tb.t, 0, True)) == 0
    tb.set(hands={0: [two, six]}, total=20)
    assert choose_action_nb(tb.t, 0, legal_actions_nb(tb.t, 0, True)) == 0


def test_cautious_keeps_a_pair_when_another_card_leaves_the_same_total():
    """Both 2s leave the same swarm; the pair of 2|7s is kept towards WIND and the 2|9 goes."""
    tb = Table(3)
    a, b, c = tb.card(D27), tb.card(D27), tb.card(D29)
    tb.set(hands={0: [a, b, c]}, total=10)
    n = legal_actions_nb(tb.t, 0, True)
    classes = [int(x) for x in tb.t["opt_class"][:n]]
    assert classes == [E.OC_VALUE | E.OC_TWIN] * 4 + [E.OC_VALUE] * 2
    assert choose_action_nb(tb.t, 0, n) == 4  # slot 2, first value: the 2 of the 2|9
    tb.set(hands={0: [a, b, tb.card(DM10)]}, total=10)  # the -10 is an emergency card, even at 0
    n = legal_actions_nb(tb.t, 0, True)
    assert int(tb.t["opt_class"][n - 1]) == E.OC_NEGATIVE
    assert choose_action_nb(tb.t, 0, n) == 0  # a 2 of the pair: the only safe plays


def test_option_classes_mark_the_values_that_bite():
    """At 22 the 2 of a 2|9 stays under 31 and the 9 reaches it: only the 9 is marked OC_BITES;
    a `?` never bites (it adds nothing yet), and cautious plays the 2."""
    tb = Table(3)
    tb.set(hands={0: [tb.card(D29), tb.card(DQ)]}, total=22)
    n = legal_actions_nb(tb.t, 0, True)
    assert [int(x) for x in tb.t["opts"][:n]] == [0, 1, 2]
    assert [int(x) for x in tb.t["opt_after"][:n]] == [24, 31, 22]
    assert [int(x) for x in tb.t["opt_class"][:n]] == [E.OC_VALUE, E.OC_VALUE | E.OC_BITES, E.OC_COPY]
    assert choose_action_nb(tb.t, 0, n) == 0


def test_cautious_plays_john_when_it_bites_an_opponent():
    tb = Table(3)
    tb.set(hands={0: [tb.card(D16), JOHN]}, total=3, bites={0: 1, 1: 0, 2: 1})
    assert choose_action_nb(tb.t, 0, legal_actions_nb(tb.t, 0, True)) == 2
    tb.set(hands={0: [tb.card(D16), JOHN]}, total=3, bites={0: 0, 1: 1, 2: 1})
    assert choose_action_nb(tb.t, 0, legal_actions_nb(tb.t, 0, True)) == 0  # John would bite itself


def test_legal_actions_ranks_the_cautious_choice_and_leaves_john_to_the_policy():
    """Listing a hand's options also ranks them by the cautious keys: the ranked option is the one
    the full evaluation picks (first of equal keys included); with John in hand (or a John discard
    possible) nothing is ranked, and the policy evaluates every option itself."""
    tb = Table(3)
    a, b, c = tb.card(D27), tb.card(D27), tb.card(D29)
    for total in (0, 10, 25, 29):
        tb.set(hands={0: [a, b, c]}, total=total)
        n = legal_actions_nb(tb.t, 0, True)
        assert int(tb.t["st"][E.S_RANKED]) == heuristic_option_nb(tb.t, 0, n, False), total
    # At 29 every card bites: the lowest swarm, and of the 2s the one that breaks no pair (2|9).
    assert int(tb.t["st"][E.S_RANKED]) == 4
    tb.set(hands={0: [tb.card(D16), JOHN]}, total=3, bites={0: 1, 1: 0, 2: 1})
    legal_actions_nb(tb.t, 0, True)
    assert int(tb.t["st"][E.S_RANKED]) == E.NO_OPTION
    assert choose_action_nb(tb.t, 0, legal_actions_nb(tb.t, 0, True)) == 2  # John, by the policy
    tb.set(hands={0: [tb.card(D16)]}, total=3, john_seat=0)
    n = legal_actions_nb(tb.t, 0, True)
    assert int(tb.t["opts"][n - 1]) == E.A_DISCARD and int(tb.t["st"][E.S_RANKED]) == E.NO_OPTION


def test_trap_estimates_only_from_unseen_cards():
    """The next seat holds 3 unseen cards; with every unseen card forcing, the probability is 1;
    the estimate must not change when the next seat's real hand changes."""
    tb = Table(2, policies="trap")
    a = tb.card(D16)
    tb.set(hands={0: [a], 1: [tb.card(D16), tb.card(D27), tb.card(D38)]}, total=10)
    p1 = forced_probability_nb(tb.t, 0, 29)
    tb.set(hands={0: [a], 1: [tb.card(DM10), tb.card(DQ), tb.card(D49)]}, total=10)
    p2 = forced_probability_nb(tb.t, 0, 29)
    assert p1 == p2
    assert 0.0 < p1 < 1.0
    tb.set(hands={0: [a], 1: [tb.card(D16)]}, total=10, john_seat=1)
    assert forced_probability_nb(tb.t, 0, 29) == 0.0  # it may pass by discarding John


@pytest.mark.parametrize("policy", ["random", "cautious", "trap"])
def test_policies_only_choose_legal_actions(policy):
    tb = Table(3, policies=policy)
    rng = np.random.default_rng(5)
    for i in range(300):
        new_pile_nb(tb.t, 0)
        deal_nb(tb.t, 0)
        tb.t["st"][E.S_SWARM] = int(rng.integers(0, 31))
        tb.t["st"][E.S_PENDING] = int(rng.integers(0, 3))
        place_john_nb(tb.t, int(rng.integers(-1, 3)))
        tb.t["seat_rng"][:] = i
        p = int(rng.integers(0, 3))
        n = legal_actions_nb(tb.t, p, True)
        if n:
            assert is_legal_nb(tb.t, p, choose_action_nb(tb.t, p, n))
