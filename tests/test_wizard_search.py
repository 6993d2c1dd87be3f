"""The Wizard search player (kernels/wizard/search_nb.py): legal in every set-up, decisions that use
only what its seat may know, what the play shows about hands, its `samples` parameter, its own
random stream, and that it plays better than the heuristic it plays out with."""
from __future__ import annotations

import random

import numpy as np
import pytest

from kernels import status
from kernels.wizard import enums as E
from kernels.wizard import policies_nb as P
from kernels.wizard import rules_nb as R
from kernels.wizard import search_nb as S
from sim.errors import SpecError
from sim.games import wizard
from sim.spec import ArmSpec

SEED = 8675309
FULL = (1 << 60) - 1


def bits(m) -> list[int]:
    m = int(m)
    return [c for c in range(60) if m >> c & 1]


def workspaces():
    return np.zeros(P.WS_I_SIZE, np.int64), np.zeros(P.WS_H_SIZE, np.uint64)


# ------------------------------------------------------------------------ legal in every set-up
@pytest.mark.parametrize("players", [3, 4, 5, 6])
@pytest.mark.parametrize("rules", [{}, {"hook_rule": True, "strict_void": True},
                                   {"hook_rule": True, "rounds": 6, "final_no_trump": True}])
def test_search_seats_play_only_legal_moves(players, rules):
    """Checked mode: every card, bid and trump choice legal, every card accounted for."""
    seats = ["search:samples=3", "random", "search:samples=8", "heuristic", "sampler",
             "search:samples=1"][:players]
    arm = ArmSpec.make("wizard", players, rules, seats)
    table = wizard.RUNNER.play_batch(arm, SEED, 0, 4, checked=True)
    bids = np.array(table["round_bids"].to_pylist())
    assert len(table) == 4 and (bids >= 0).all()


# ------------------------------------------------------------------------ what the seat may know
class Table:
    """A Wizard round in Python, played with random legal cards (so seats show voids), for
    building the states in which the search player decides."""

    def __init__(self, seed: int, n: int, r: int, strict_void: bool):
        self.n, self.r, self.strict_void = n, r, strict_void
        self.py = random.Random(seed)
        deck = np.empty(60, np.int64)
        self.hands = np.zeros(E.MAX_PLAYERS, np.uint64)
        top = R.deal_nb(np.array([seed * 7919 + 1], np.uint64), deck, n, r, self.hands)
        self.turned = int(top)
        self.trump = max(int(R.trump_of_turned_nb(top)), 0)  # a Wizard turned: hearts
        self.dealer = n - 1
        self.bids = np.zeros(E.MAX_PLAYERS, np.int64)
        self.tricks = np.zeros(E.MAX_PLAYERS, np.int64)
        self.voids = np.zeros(E.MAX_PLAYERS, np.int64)
        self.gone = np.uint64(0 if top < 0 else 1 << int(top))
        self.in_trick = np.uint64(0)  # the current trick's cards (in gone too)
        self.leader = 0

    def bid_all(self):
        total = 0
        for p in range(self.n):
            forbidden = R.forbidden_bid_nb(self.r, total, p == self.dealer, True)
            b = P.heuristic_bid_nb(self.hands[p], self.trump, self.turned, self.n, self.r, p, total,
                                   forbidden)
            self.bids[p] = b
            total += b

    def play(self, cards: int):
        """Play `cards` cards at random from the start of the round; return the current trick's
        (leader, position, lead, best, winner)."""
        lead, best, win, pos = E.LEAD_NONE, -1, self.leader, 0
        for _ in range(cards):
            seat = (self.leader + pos) % self.n
            legal = R.legal_mask_nb(self.hands[seat], lead, self.strict_void)
            c = self.py.choice(bits(legal))
            S.note_play_nb(self.voids, seat, lead, c, self.strict_void)
            self.hands[seat] &= ~np.uint64(1 << c)
            self.gone |= np.uint64(1 << c)
            self.in_trick |= np.uint64(1 << c)
            lead = int(R.lead_after_nb(lead, c))
            v = int(R.trick_value_nb(c, lead, self.trump))
            if v > best:
                best, win = v, seat
            pos += 1
            if pos == self.n:
                self.tricks[win] += 1
                self.leader, lead, best, pos = win, E.LEAD_NONE, -1, 0
                self.in_trick = np.uint64(0)
        return self.leader, pos, lead, best, win

    def exchange_hidden(self, seat: int, swaps: int = 400) -> np.ndarray:
        """Other hands after random swaps of hidden cards among the other seats and the undealt
        stack, each card only where the public voids allow it (the counts stay the same)."""
        hands = self.hands.copy()
        others = [o for o in range(self.n) if o != seat]
        undealt = FULL & ~int(self.gone)
        for o in range(self.n):
            undealt &= ~int(hands[o])
        holders = {o: int(hands[o]) for o in others} | {-1: undealt}
        allowed = {o: int(S.allowed_cards_nb(self.voids[o])) for o in others} | {-1: FULL}
        for _ in range(swaps):
            a, b = self.py.sample(list(holders), 2)
            if not holders[a] or not holders[b]:
                continue
            ca, cb = self.py.choice(bits(holders[a])), self.py.choice(bits(holders[b]))
            if allowed[b] >> ca & 1 and allowed[a] >> cb & 1:
                holders[a] ^= (1 << ca) | (1 << cb)
                holders[b] ^= (1 << ca) | (1 << cb)
        for o in others:
            hands[o] = np.uint64(holders[o])
        return hands


def decide_card(t: Table, hands, seat, state, samples=6):
    leader, pos, lead, best, win = state
    legal = R.legal_mask_nb(hands[seat], lead, t.strict_void)
    rng = np.full(E.MAX_PLAYERS, 99, np.uint64)
    ws_i, ws_h = workspaces()
    c = S.search_card_nb(rng, seat, hands, legal, t.trump, t.n, leader, pos, lead, best, win,
                         t.bids, t.tricks, t.gone, t.in_trick, t.voids.copy(), t.strict_void,
                         samples, ws_i, ws_h)
    return int(c), rng.tolist()


def test_card_choice_ignores_the_other_seats_hidden_cards():
    """The seat's card (and its stream's state after it) is the same when the other seats' hidden
    cards are exchanged among them in any way the public play allows."""
    tested = 0
    for k in range(40):
        n = 3 + k % 4
        r = 60 // n if k % 3 == 0 else 3 + k % 7
        t = Table(1000 + k, n, r, strict_void=k % 2 == 1)
        t.bid_all()
        state = t.play(t.py.randrange(n * (r - 1)))
        leader, pos = state[0], state[1]
        seat = (leader + pos) % n
        legal = R.legal_mask_nb(t.hands[seat], state[2], t.strict_void)
        if R.popcount_nb(S.distinct_options_nb(legal, t.gone & ~t.in_trick)) < 2:
            continue  # no choice: nothing is searched
        other = t.exchange_hidden(seat)
        assert any(other[o] != t.hands[o] for o in range(n) if o != seat), "the test moved cards"
        assert decide_card(t, t.hands, seat, state) == decide_card(t, other, seat, state)
        tested += 1
    assert tested >= 20


def test_bid_and_trump_choice_ignore_the_other_seats_hands():
    tested = 0
    for k in range(24):
        n = 3 + k % 4
        r = 2 + k % 9
        t = Table(2000 + k, n, r, strict_void=False)
        seat = k % n
        for p in range(seat):  # the bids before the seat's
            t.bids[p] = t.py.randrange(r + 1)
        other = t.exchange_hidden(seat)
        assert any(other[o] != t.hands[o] for o in range(n) if o != seat)
        results = []
        for hands in (t.hands, other):
            rng = np.full(E.MAX_PLAYERS, 7, np.uint64)
            ws_i, ws_h = workspaces()
            b = S.search_bid_nb(rng, seat, hands, t.trump, t.turned, n, r, t.dealer, t.bids,
                                k % 2 == 1, False, 5, ws_i, ws_h, 40 * (k % 3) - 40)
            suit = S.search_trump_nb(rng, seat, hands, t.turned, n, r, seat, t.bids, k % 2 == 1,
                                     False, 5, ws_i, ws_h)
            results.append((int(b), int(suit), rng.tolist()))
        assert results[0] == results[1]
        tested += 1
    assert tested == 24


def test_the_bid_bonus_moves_the_search_bid_through_every_bid():
    """SEARCH_BONUS at work: no bonus bids as the plain best mean score; a rising bonus never
    lowers the bid, and large ones reach both ends, 0 and the round size. The same deals for
    every bonus (the same stream state)."""
    n, r = 4, 6
    t = Table(3001, n, r, strict_void=False)
    seat = 0
    bids = []
    for bonus in range(-3000, 3001, 100):
        rng = np.full(E.MAX_PLAYERS, 11, np.uint64)
        ws_i, ws_h = workspaces()
        bids.append(int(S.search_bid_nb(rng, seat, t.hands, t.trump, t.turned, n, r, t.dealer,
                                        t.bids, False, False, 8, ws_i, ws_h, bonus)))
    assert bids == sorted(bids), bids
    assert bids[0] == 0 and bids[-1] == r, bids
    assert len(set(bids)) >= 3, bids  # in between, the deals decide
    rng = np.full(E.MAX_PLAYERS, 11, np.uint64)
    ws_i, ws_h = workspaces()
    plain = S.search_bid_nb(rng, seat, t.hands, t.trump, t.turned, n, r, t.dealer, t.bids, False,
                            False, 8, ws_i, ws_h, 0)
    totals = ws_i[P.WS_BID_TOTALS:P.WS_BID_TOTALS + r + 1] // 10  # the scaled totals, unscaled
    assert totals[plain] == totals.max()


def test_round_one_bids_have_no_bonus():
    """Round 1: each seat plays its only card, as in the playouts, so no bonus applies."""
    n = 4
    for k in range(8):
        t = Table(4000 + k, n, 1, strict_void=False)
        got = set()
        for bonus in (-3000, 0, 3000):
            rng = np.full(E.MAX_PLAYERS, 13, np.uint64)
            ws_i, ws_h = workspaces()
            got.add(int(S.search_bid_nb(rng, 0, t.hands, t.trump, t.turned, n, 1, t.dealer, t.bids,
                                        False, False, 8, ws_i, ws_h, bonus)))
        assert len(got) == 1


# ------------------------------------------------------------------------ what the play shows
def test_a_seat_that_does_not_follow_shows_a_void():
    voids = np.zeros(E.MAX_PLAYERS, np.int64)
    S.note_play_nb(voids, 1, 0, 13 + 5, False)  # a diamond on a heart lead: void in hearts
    S.note_play_nb(voids, 2, 0, 52, False)  # a Wizard may always be played: shows nothing
    S.note_play_nb(voids, 2, E.LEAD_NONE, 13, False)  # a lead shows nothing
    S.note_play_nb(voids, 3, 2, 26 + 4, False)  # a club followed
    assert voids.tolist()[:4] == [0, 1, 0, 0]
    S.note_play_nb(voids, 0, 3, 0, True)  # strict_void: it would have had to play a Wizard or Jester
    assert voids[0] == (1 << 3) | (1 << E.VOID_SPECIAL)
    allowed = int(S.allowed_cards_nb(voids[0]))
    assert [c for c in range(60) if allowed >> c & 1] == list(range(39))


def test_hidden_cards_are_dealt_as_the_voids_allow():
    unseen = list(range(60))
    cards = np.array(unseen, np.int64)
    counts = np.array([0, 10, 12, 13], np.int64)
    allowed = np.array([FULL, int(S.allowed_cards_nb(1 | 4)), FULL,
                        int(S.allowed_cards_nb(2 | 8 | 1 << E.VOID_SPECIAL))], np.uint64)
    order = np.array([3, 1, 2], np.int64)
    hands = np.zeros(4, np.uint64)
    state = np.uint64(5)
    seen = 0
    for _ in range(50):
        state = np.uint64(P.deal_unseen_nb(state, cards, 60, order, 3, counts, allowed, hands))
        assert [R.popcount_nb(hands[o]) for o in (1, 2, 3)] == [10, 12, 13]
        assert int(hands[1]) & ~int(allowed[1]) == 0 and int(hands[3]) & ~int(allowed[3]) == 0
        assert int(hands[1]) & int(hands[2]) == int(hands[1]) & int(hands[3]) == 0
        seen |= int(hands[2])
    assert sorted(cards.tolist()) == unseen
    assert bin(seen).count("1") > 50, "the unconstrained seat gets cards of every kind"


def test_equivalent_cards_are_searched_once():
    hand = [1, 2, 4, 9, 52, 53, 56, 57]  # 3H 4H 6H JH, two Wizards, two Jesters
    settled = np.uint64(1 << 3)  # 5H went in an earlier trick: 3H, 4H and 6H stand in one place
    legal = np.uint64(sum(1 << c for c in hand))
    options = S.distinct_options_nb(legal, settled)
    assert bits(options) == [1, 9, 52, 56]
    assert [S.representative_nb(c, options, legal, settled) for c in hand] == [1, 1, 1, 9, 52, 52,
                                                                                56, 56]
    # 5H in the current trick, not settled: 4H loses to it and 6H beats it
    assert bits(S.distinct_options_nb(legal, np.uint64(0))) == [1, 4, 9, 52, 56]


# ------------------------------------------------------------------------ samples and the stream
def seat_rows(policy: str, count: int = 12):
    arm = ArmSpec.make("wizard", 4, {"rounds": 8}, [policy, "heuristic", "heuristic", "heuristic"])
    table = wizard.RUNNER.play_batch(arm, SEED, 0, count)
    return table["round_bids"].to_pylist(), table["round_tricks"].to_pylist()


def test_samples_changes_the_play():
    assert seat_rows("search:samples=2") != seat_rows("search:samples=40")
    assert seat_rows("search:samples=2") == seat_rows("search:samples=2")


@pytest.mark.parametrize("bad", ["0", "1025", "-3", "many"])
def test_samples_out_of_bounds_is_refused(bad):
    with pytest.raises(SpecError, match="samples="):
        ArmSpec.make("wizard", 4, {}, f"search:samples={bad}")


def test_the_kernel_refuses_samples_out_of_bounds_at_a_search_seat():
    from kernels.wizard.play_nb import play_games_nb

    assert (wizard.SAMPLES.lo, wizard.SAMPLES.hi) == (E.SAMPLES_MIN, E.SAMPLES_MAX)

    def run(policy, samples):
        seat_i = np.full((4, 1), samples, np.int64)
        return play_games_nb(np.int64(1), np.int64(0), np.int64(1), np.zeros(4, np.int64),
                             np.zeros(0), np.full(4, policy, np.int64), seat_i,
                             np.zeros((4, 0)), (np.arange(4),), np.zeros(1, E.OUT_DTYPE), None, True)

    assert run(E.P_SEARCH, 0)[0] == run(E.P_SEARCH, 1025)[0] == status.BAD_ARGS
    assert run(E.P_SEARCH, 1)[0] == run(E.P_HEURISTIC, 0)[0] == status.OK  # only search reads it


def test_the_search_draws_only_from_its_own_stream():
    """The random seats bid the same in every round (one word per bid, no hook rule) whether the
    last seat searches or plays the heuristic."""
    bids = []
    for last in ("heuristic", "search:samples=4"):
        arm = ArmSpec.make("wizard", 4, {"rounds": 10}, ["random", "random", "random", last])
        rows = wizard.RUNNER.play_batch(arm, SEED, 0, 10)["round_bids"].to_pylist()
        bids.append([[b for i, b in enumerate(row) if i % 4 != 3] for row in rows])
    assert bids[0] == bids[1]


# ------------------------------------------------------------------------ strength
def test_search_scores_more_than_the_heuristic():
    edge = []
    for seat in range(4):
        seats = ["heuristic"] * 4
        seats[seat] = "search:samples=12"
        arm = ArmSpec.make("wizard", 4, {"rounds": 8}, seats)
        score = np.array(wizard.RUNNER.play_batch(arm, SEED, 0, 25)["score"].to_pylist())
        edge.append(score[:, seat].mean() - np.delete(score, seat, axis=1).mean())
    assert np.mean(edge) > 20, edge


@pytest.mark.parametrize("players,rules", [(3, {"rounds": 5}), (4, {"rounds": 4, "hook_rule": True})])
def test_the_trace_shows_what_each_searched_bid_was_worth(players, rules):
    """Before each search bid the trace lists every legal bid's total and bonus (EV_BID_VALUE);
    the bid made is the best sum, ties going to the bid nearest the heuristic's (so: one of the
    best), the dealer's forbidden bid under the hook rule is not listed, round 1 has no bonus, and
    each mean score is one a round can give (|mean| <= 20 + 10 x round)."""
    arm = ArmSpec.make("wizard", players, rules, ["search:samples=6"] + ["heuristic"] * (players - 1))
    checked = 0
    for index in range(3):
        _, rows = wizard.RUNNER.traced(arm, SEED, index)
        values, rnd = [], 0
        for code, seat, card, value, extra in rows.tolist():
            if code == E.EV_ROUND:
                rnd = value
            elif code == E.EV_BID_VALUE:
                assert seat == 0
                values.append((card, value, extra))
            elif code == E.EV_BID and seat == 0:
                if values:
                    listed = [b for b, _, _ in values]
                    assert listed == sorted(listed) and set(listed) <= set(range(rnd + 1))
                    assert len(listed) >= rnd  # every legal bid: all r + 1, or r beside a forbidden one
                    sums = {b: t + x for b, t, x in values}
                    assert value in sums and sums[value] == max(sums.values())
                    assert all(abs(t) <= 6 * 10 * (20 + 10 * rnd) for _, t, _ in values)
                    assert rnd > 1 or all(x == 0 for _, _, x in values)  # no bonus in round 1
                    checked += 1
                values = []
    assert checked >= 6
    text = wizard.RUNNER.trace_game(arm, SEED, 0)
    assert "seat 0 (search) plays each bid out on 6 deals" in text
