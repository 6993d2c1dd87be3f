"""Wippen's search player (kernels/wippen/search_nb.py, policy `search`).

It plays only legal moves, in checked games of several player counts and rules; its choice depends
only on what its seat may know (the other hands exchanged among themselves, the choice stays); its
budget `samples` changes its play and is validated.
"""
from __future__ import annotations

import numpy as np
import pytest

from kernels.wippen import enums as E
from kernels.wippen.rules_nb import play_move_nb
from kernels.wippen.search_nb import search_probe_nb
from kernels.wippen.table_nb import VALUE_OF, deck_nb
from sim.errors import SpecError
from sim.registry import games
from sim.spec import ArmSpec

RUNNER = games()["wippen"].runner()
SAMPLES = 3  # enough to exercise the search, small enough for a fast suite


@pytest.mark.parametrize("players,rules", [
    (2, {"deals": 1}),
    (3, {"deals": 1, "raise_double": True}),
    (4, {"deals": 1, "build_instead_of_capture": False}),
    (6, {"deals": 1, "decks": 1}),
])
def test_search_plays_only_legal_moves(players, rules):
    seats = ",".join(f"search:samples={SAMPLES}" if s % 2 == 0 else "builder"
                     for s in range(players))
    arm = ArmSpec.make("wippen", players, rules, seats)
    table = RUNNER.play_batch(arm, 3, 0, 2, checked=True)  # a bad move or lost card fails it
    assert table.num_rows == 2
    assert all(mask != 0 for mask in table["winner_mask"].to_pylist())


def test_samples_changes_play():
    scores = {}
    for samples in (1, 24):
        arm = ArmSpec.make("wippen", 4, {"deals": 1}, f"search:samples={samples},builder,builder,"
                           "builder")
        scores[samples] = RUNNER.play_batch(arm, 5, 0, 6)["score"].to_pylist()
    assert scores[1] != scores[24]


@pytest.mark.parametrize("samples", [0, -3, 1025])
def test_samples_out_of_bounds_is_a_clear_error(samples):
    with pytest.raises(SpecError, match=r"samples=.*1\.\.1024"):
        ArmSpec.make("wippen", 4, {}, f"search:samples={samples},builder,builder,builder")


def test_samples_belongs_to_search_only():
    with pytest.raises(SpecError, match="samples"):
        ArmSpec.make("wippen", 2, {}, "builder:samples=8,builder")


# ------------------------------------------------------------------ hand-played states

class Deal:
    """A deal played by hand with the driver's arrays: seats play the builder's move (the probe's
    `heuristic`) until seat `p` is to act after `turns` turns."""

    def __init__(self, players, rules, seed):
        arm = ArmSpec.make("wippen", players, rules, ",".join(["builder"] * players))
        self.rule_i = RUNNER.kernel_inputs(arm).rule_i
        self.n = players
        decks = 2 if players >= 4 else 1
        in_play, removed = np.empty(E.N_CARDS, np.int64), np.empty(E.N_CARDS, np.int64)
        self.n_in, _ = deck_nb(decks, players, in_play, removed)
        self.in_play = in_play
        stock = np.random.default_rng(seed).permutation(in_play[:self.n_in])
        self.hands = np.zeros((E.MAX_PLAYERS, E.HAND), np.int64)
        self.hand_n = np.zeros(E.MAX_PLAYERS, np.int64)
        self.stock = list(stock)
        self.item_i = np.zeros((E.MAX_ITEMS, E.IT_FIELDS), np.int64)
        self.item_m = np.zeros((E.MAX_ITEMS, 2), np.uint64)
        self.pn = 0
        self.piles = np.zeros((E.MAX_PLAYERS, 2), np.uint64)
        self.wips = np.zeros(E.MAX_PLAYERS, np.int64)
        self.public = np.zeros(E.N_RANKS + 1, np.int64)
        self.totals = np.array([7, 3, 12, 0, 5, 9][:players], np.int64)
        self.last_capturer = -1
        self.dealer = players - 1
        self.deal_hands()
        for _ in range(E.POT_START):
            card = self.stock.pop(0)
            self.trail(card)
        self.seat = 0

    def deal_hands(self):
        for s in range(self.n):
            for j in range(E.HAND):
                self.hands[s, j] = self.stock.pop(0)
            self.hand_n[s] = E.HAND

    def trail(self, card):
        i = self.pn
        self.item_i[i] = (VALUE_OF[card], E.ITEM_LOOSE, -1, card)
        self.item_m[i] = 0
        self.item_m[i, card >> 6] = np.uint64(1) << np.uint64(card & 63)
        self.pn += 1
        self.public[VALUE_OF[card]] += 1

    def probe(self, samples=1, state=12345, hands=None):
        return search_probe_nb(
            self.seat, samples, np.uint64(state), self.n, self.dealer,
            self.hands if hands is None else hands, self.hand_n, self.item_i, self.item_m, self.pn,
            self.piles, self.wips, self.public, self.last_capturer, len(self.stock), self.in_play,
            self.n_in, self.totals, 0, self.rule_i)

    def play(self, turns):
        for _ in range(turns):
            if self.hand_n[self.seat] == 0:
                assert self.stock, "the deal is over"
                self.deal_hands()
            mv_i, mv_m, heuristic, _, _ = self.probe()
            slot, kind, value = (int(x) for x in mv_i[heuristic])
            s = self.seat
            hand = list(self.hands[s, :self.hand_n[s]])
            card = hand.pop(slot)
            self.hands[s, :len(hand)] = hand
            self.hand_n[s] -= 1
            self.public[VALUE_OF[card]] += 1
            self.pn, _ = play_move_nb(self.item_i, self.item_m, self.pn, card, kind, value,
                                      mv_m[heuristic], s, self.piles[s], np.zeros(2, np.uint64))
            if kind == E.MV_CAPTURE:
                self.last_capturer = s
                if self.pn == 0 and self.stock:
                    self.wips[s] += 1
            self.seat = (s + 1) % self.n
        return self

    def exchanged_hands(self, rng):
        """The hands with the other seats' cards exchanged among them (sizes kept)."""
        places = [(q, j) for q in range(self.n) if q != self.seat for j in range(self.hand_n[q])]
        cards = [self.hands[pl] for pl in places]
        assert len(set(cards)) > 1, "pick a state where the other hands hold two cards or more"
        while True:
            hands = self.hands.copy()
            for place, k in zip(places, rng.permutation(len(cards))):
                hands[place] = cards[k]
            if not np.array_equal(hands, self.hands):
                return hands


# (players, rules, deal seed, turns before the probed one): states a few turns into a deal, the
# seat to act holding two cards or more
STATES = [(4, {}, 1, 5), (3, {"raise_double": True}, 2, 7),
          (2, {"build_instead_of_capture": False}, 3, 12), (5, {}, 4, 24), (4, {"deals": 3}, 5, 40)]


@pytest.mark.parametrize("players,rules,seed,turns", STATES)
def test_search_uses_only_what_its_seat_may_know(players, rules, seed, turns):
    deal = Deal(players, rules, seed).play(turns)
    mv_i, _, _, choice, after = deal.probe(samples=16)
    assert len(mv_i) > 1, "pick a state with a choice"
    assert 0 <= choice < len(mv_i)
    rng = np.random.default_rng(seed)
    for _ in range(3):
        hands = deal.exchanged_hands(rng)
        assert not np.array_equal(hands, deal.hands)
        _, _, _, other_choice, other_after = deal.probe(samples=16, hands=hands)
        assert other_choice == choice and other_after == after


def test_the_probed_states_hold_every_kind_of_decision():
    """The states above hold a turn that can capture and one that cannot (where builds and
    trails are the choice), so both kinds of decision meet the information-set test."""
    kinds = set()
    for players, rules, seed, turns in STATES:
        mv_i = Deal(players, rules, seed).play(turns).probe()[0]
        kinds.add(E.MV_CAPTURE in set(mv_i[:, 1].tolist()))
    assert kinds == {True, False}
