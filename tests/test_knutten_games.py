"""Knutten games: checked-mode conformance over every player count and policy, an independent
referee that replays every trace event against the rules, determinism, statistics with exact
values and a differential run without the JIT.

The referee (class Referee) is a second, plain-Python reading of the rules: it follows the kernel's
trace events of a game (kernels/knutten/enums.py E_*) and checks every move is legal, every total
right, every bite due, every draw from the pile, and that the trace agrees with the game's row.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from fractions import Fraction
from itertools import combinations
from math import comb
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import binomtest

from kernels import status
from kernels.knutten import enums as E
from kernels.knutten.table_nb import table_cards
from sim.errors import KernelError
from sim.games import knutten as kn
from sim.spec import ArmSpec

SEED = 20240603
POLICIES = ("random", "cautious", "trap")
EVENT = {getattr(E, k): k for k in dir(E) if k.startswith("E_")}


# ====================================================================== the rows
def rows(table):
    return table.to_pylist()


def check_rows(arm, table, count):
    """Every invariant visible in one row per game (the checked kernel checks legality and cards)."""
    rules = arm.rule_values
    n = arm.players
    heavy = bool(rules["heavy_weather"])
    end = rules["heavy_bites_to_end"] if heavy else rules["bites_to_end"]
    john = bool(rules["john_knut"])
    assert len(table) == count
    for row in rows(table):
        bites = row["score"]
        assert len(bites) == n and min(bites) >= 0
        fewest = min(bites)
        mask = sum(1 << p for p in range(n) if bites[p] == fewest)
        assert row["winner_mask"] == mask, row
        assert row["n_winners"] == bin(mask).count("1") >= 1
        # the game ended when some seat reached the end; only the last event may overshoot, and
        # only a heavy-weather swarm bite gives more than one bite to one seat
        assert max(bites) >= end, row
        assert all(bites[p] < end for p in range(n) if mask >> p & 1), row  # winners never ended it
        if heavy:
            assert sum(b > end for b in bites) <= 1, row
        else:
            assert max(bites) == end, row
        # every bite has a cause, and the causes add up
        assert sum(bites) == (row["swarm_bites"] + row["wind_calls"] * (n - 1) + row["cannot_play"]
                              + row["john_bites"]), row
        # a round ends by a swarm bite or WIND, the last one perhaps by a game-ending cannot-play
        if heavy:
            assert 0 <= row["rounds"] - row["wind_calls"] <= row["swarm_bites"] + 1, row
        else:
            assert row["rounds"] - row["wind_calls"] - row["swarm_bites"] in (0, 1), row
        assert row["rounds"] >= 1 and row["turns"] >= 0
        assert row["turns"] > 0 or row["wind_calls"] == row["rounds"], row  # only deals ended it
        assert row["turns"] >= row["cannot_play"] + row["john_plays"] + row["john_discards"]
        assert row["reshuffles"] >= 0 and row["cannot_play"] >= 0
        # John
        assert row["john_in_deck"] == john
        if not john:
            for key in ("john_draws", "john_bites", "john_plays", "john_discards"):
                assert row[key] == 0, (key, row)
            for key in ("john_drawn_by", "john_played_by", "john_target", "john_played_turn",
                        "john_discarded_turn"):
                assert row[key] == -1, (key, row)
            continue
        assert (row["john_draws"] >= 1) == (row["john_drawn_by"] >= 0), row
        assert (row["john_plays"] >= 1) == (row["john_played_by"] >= 0), row
        assert (row["john_plays"] >= 1) == (row["john_target"] >= 0), row
        assert (row["john_plays"] >= 1) == (row["john_played_turn"] >= 1), row
        assert (row["john_discards"] >= 1) == (row["john_discarded_turn"] >= 1), row
        assert row["john_plays"] <= row["john_draws"]
        assert row["john_bites"] <= row["john_plays"]
        assert row["john_plays"] - 1 <= row["john_discards"] <= row["john_plays"]
        assert -1 <= row["john_drawn_by"] < n and -1 <= row["john_played_by"] < n
        assert -1 <= row["john_target"] < n
        if row["john_discards"]:
            assert row["john_discarded_turn"] > row["john_played_turn"]
        assert row["john_played_turn"] <= row["turns"]


CONFORMANCE = [(n, policy, john) for n in range(2, 9) for policy in POLICIES for john in (True, False)]


@pytest.mark.parametrize("players,policy,john", CONFORMANCE)
def test_conformance_checked(players, policy, john):
    arm = ArmSpec.make("knutten", players, {"john_knut": john}, policy)
    count = 600
    table = kn.RUNNER.play_batch(arm, SEED, 0, count, checked=True)
    check_rows(arm, table, count)


@pytest.mark.parametrize("rules,policies", [
    ({"heavy_weather": True}, "random"),
    ({"heavy_weather": True}, "cautious"),
    ({"heavy_weather": True}, "trap"),
    ({"heavy_weather": True, "john_knut": False, "heavy_bites_to_end": 20}, "cautious"),
    ({}, "cautious,random,trap,cautious,random"),
    ({"threshold": 21, "hand_limit": 5, "bites_to_end": 5}, "trap,random,cautious"),
    ({"hand_limit": 1}, "cautious,random"),
    ({"bites_to_end": 1}, "random,cautious,trap,random"),
    ({"stuck_empty_pile": "wait"}, "cautious"),
    ({"stuck_empty_pile": "wait", "heavy_weather": True}, "random,trap,cautious,random"),
])
def test_conformance_variants(rules, policies):
    players = len(policies.split(",")) if "," in policies else 3
    arm = ArmSpec.make("knutten", players, rules, policies)
    table = kn.RUNNER.play_batch(arm, SEED, 0, 1500, checked=True)
    check_rows(arm, table, 1500)


def test_heavy_weather_gives_several_bites_and_ends_at_11():
    arm = ArmSpec.make("knutten", 4, {"heavy_weather": True}, "random")
    table = rows(kn.RUNNER.play_batch(arm, SEED, 0, 2000, checked=True))
    assert all(11 <= max(r["score"]) for r in table)
    assert any(max(r["score"]) > 11 for r in table)  # a final swarm bite may overshoot
    assert any(r["swarm_bites"] > r["rounds"] for r in table)  # some bites were several at once


def test_cautious_players_beat_random_ones():
    arm = ArmSpec.make("knutten", 4, {}, "cautious,random,random,random")
    table = rows(kn.RUNNER.play_batch(arm, SEED, 0, 3000))
    share = sum((r["winner_mask"] & 1) / r["n_winners"] for r in table) / len(table)
    assert share > 0.4, share


# ====================================================================== checked mode errors
def test_an_endless_game_is_a_kernel_error():
    """Ten different cards worth 0: no swarm ever bites and no hand holds three alike."""
    deck = kn.parse_deck({"card": [{"values": [0], "name": f"zero{i}"} for i in range(10)]})
    arm = ArmSpec.make("knutten", 2, {"john_knut": False}, "cautious", deck=deck)
    with pytest.raises(KernelError, match="knutten arm 'main', game 4: the game did not end "
                                          "within its turn limit"):
        kn.RUNNER.play_batch(arm, SEED, 4, 3)


_LOSE_A_CARD = r"""
import sys
from kernels.knutten import play_nb
from sim.games import knutten as kn
from sim.spec import ArmSpec

real = play_nb.to_swarm_nb
def to_swarm_twice(t, card):  # the 5th card onto a swarm is put there twice
    real(t, card)
    if t.st[play_nb.S_SWARM_N] == 5:
        real(t, card)
play_nb.to_swarm_nb = to_swarm_twice
arm = ArmSpec.make("knutten", 3, {}, "cautious")
print(len(kn.RUNNER.play_batch(arm, 1, 0, 2, checked=False)))
kn.RUNNER.play_batch(arm, 1, 0, 2, checked=True)
"""


def test_checked_mode_catches_a_lost_card():
    """A broken helper (a card laid on the swarm twice) in a run without the JIT, where helpers can
    be replaced: checked mode stops the batch with CARDS_LOST; unchecked mode does not notice."""
    proc = subprocess.run([sys.executable, "-W", "ignore", "-c", _LOSE_A_CARD], capture_output=True,
                          text=True, env=dict(os.environ, NUMBA_DISABLE_JIT="1"), timeout=600,
                          cwd=Path(__file__).resolve().parents[1])
    assert proc.returncode != 0 and proc.stdout.split() == ["2"], (proc.stdout, proc.stderr[-2000:])
    assert "knutten arm 'main', game 0: a card was lost or duplicated" in proc.stderr


def kernel_args(players=4, rules=None, policies="cautious", count=3):
    """The driver's arguments for an arm, as a dict that a test can spoil one entry of."""

    arm = ArmSpec.make("knutten", players, rules or {}, policies)
    return dict(seed=np.int64(SEED), first=np.int64(0), count=np.int64(count),
                rule_i=kn.RUNNER.kernel_inputs(arm).rule_i, rule_f=np.zeros(0),
                seat_policy=kn.RUNNER.kernel_inputs(arm).seat_policy,
                seat_i=kn.RUNNER.kernel_inputs(arm).seat_i,
                seat_f=np.zeros((players, 0)), data=kn.RUNNER.kernel_inputs(arm).data,
                out=np.zeros(count, E.OUT_DTYPE), trace=None, checked=True)


def test_bad_driver_arguments_are_refused():
    from kernels.knutten.play_nb import play_games_nb

    assert play_games_nb(**kernel_args())[0] == status.OK
    cards, designs, searching = kernel_args()["data"]
    with_john = (np.vstack([cards, [[E.K_JOHN, 0, 0, len(designs)]]]),
                 np.vstack([designs, [[E.K_JOHN, 0, 0, 1]]]), searching)
    spoiled = {
        "one player": dict(seat_policy=np.array([1]), seat_i=np.zeros((1, 1), np.int64),
                           seat_f=np.zeros((1, 0))),
        "nine players": dict(seat_policy=np.ones(9, np.int64), seat_i=np.zeros((9, 1), np.int64),
                             seat_f=np.zeros((9, 0))),
        "policy id": dict(seat_policy=np.array([1, 1, 7, 1])),
        "start id": dict(seat_i=np.array([[0, 64], [0, 64], [5, 64], [0, 64]])),
        "search samples": dict(seat_policy=np.array([1, 3, 1, 1]),
                               seat_i=np.array([[0, 64], [0, 0], [0, 64], [0, 64]])),
        # searching seats None: the kernel was compiled without the search
        "search seat not passed": dict(seat_policy=np.array([1, 3, 1, 1]),
                                       seat_i=np.array([[0, 64], [0, 64], [0, 64], [0, 64]])),
        "seat_i shape": dict(seat_i=np.zeros((4, 3), np.int64)),
        "rule_i shape": dict(rule_i=np.zeros(3, np.int64)),
        "rule_f shape": dict(rule_f=np.zeros(1)),
        "stuck rule": dict(rule_i=np.array([31, 3, 3, 1, 0, 11, 2])),
        "short out": dict(out=np.zeros(2, E.OUT_DTYPE)),
        "John in the data": dict(data=with_john),
        "trace width": dict(trace=np.zeros((100, 5), np.int32)),
    }
    for name, change in spoiled.items():
        got = play_games_nb(**dict(kernel_args(), **change))
        assert got[0] == status.BAD_ARGS, name


def test_a_small_trace_buffer_is_reported_full():
    from kernels.knutten.play_nb import play_games_nb

    trace = np.zeros((7, E.TRACE_WIDTH), np.int32)
    code, failed, rows = play_games_nb(**dict(kernel_args(count=1), trace=trace))
    assert (code, failed, rows) == (status.TRACE_FULL, 0, 7)
    assert trace[0, 0] == E.E_ROUND and trace[1, 0] == E.E_DEAL


def test_only_the_first_game_of_a_call_is_traced_and_rows_do_not_change():
    from kernels.knutten.play_nb import play_games_nb

    plain = kernel_args(count=4)
    assert play_games_nb(**plain)[0] == status.OK
    traced = kernel_args(count=4)
    trace = np.zeros((E.TRACE_CAP, E.TRACE_WIDTH), np.int32)
    code, _, rows = play_games_nb(**dict(traced, trace=trace))
    assert code == status.OK and trace[rows - 1, 0] == E.E_END and not trace[rows:].any()
    assert plain["out"].tobytes() == traced["out"].tobytes()


def test_games_end_within_max_turns():
    arm = ArmSpec.make("knutten", 2, {"threshold": 200, "stuck_empty_pile": "wait"}, "cautious")
    turns = kn.RUNNER.play_batch(arm, SEED, 0, 200).column("turns").to_numpy()
    assert 0 < turns.max() <= E.MAX_TURNS


def test_checked_mode_catches_a_broken_table():
    """The check the checked driver runs after every turn fails on a duplicated card."""
    from kernels.knutten.play_nb import new_table, reset_game_nb
    from kernels.knutten.table_nb import cards_conserved_nb, deal_nb, new_pile_nb

    arm = ArmSpec.make("knutten", 4)
    cards, designs = kn.RUNNER.data_arrays(arm)
    ws = new_table(cards, designs, kn.RUNNER.kernel_inputs(arm).rule_i, kn.RUNNER.kernel_inputs(arm).seat_policy)
    t = ws[0]
    reset_game_nb(t)
    new_pile_nb(t, 0)
    deal_nb(t, 0)
    assert cards_conserved_nb(t)
    t["hands"][2, 1] = t["hands"][3, 0]
    assert not cards_conserved_nb(t)


# ====================================================================== the referee
def trace_events(arm, seed, index):
    """(events, cards, output record, bites) of one game, played in checked mode with tracing;
    cards are the table's (John last when in play)."""
    row, events = kn.RUNNER.traced(arm, seed, index)
    cards = table_cards(*kn.RUNNER.data_arrays(arm), arm.rule_values["john_knut"])
    return ([tuple(int(x) for x in ev) for ev in events], cards, row,
            [int(b) for b in row["score"][:arm.players]])


class RefereeError(AssertionError):
    pass


class Referee:
    """Replays one game's events. Raises RefereeError on anything the rules do not allow.

    Where the kernel and a stricter reading of the rules may differ, the referee accepts both and
    records the case in `incidents` (a list of (kind, event number, detail)); see the bug tests."""

    def __init__(self, arm, cards):
        rules = arm.rule_values
        self.n = arm.players
        self.threshold = rules["threshold"]
        self.limit = rules["hand_limit"]
        self.heavy = bool(rules["heavy_weather"])
        self.end = rules["heavy_bites_to_end"] if self.heavy else rules["bites_to_end"]
        self.wait = E.STUCK_CHOICES.index(rules["stuck_empty_pile"]) == E.STUCK_WAIT
        self.cards = [tuple(int(x) for x in c) for c in cards]
        johns = [c for c, row in enumerate(self.cards) if row[0] == E.K_JOHN]
        assert len(johns) == (1 if rules["john_knut"] else 0)
        self.john = johns[0] if johns else None
        self.bites = [0] * self.n
        self.john_seat = None
        self.incidents = []
        self.seen = Counter()
        self.stat = Counter()
        self.john_first = {}

    # ---------------------------------------------------------------- rule helpers
    def fail(self, why):
        raise RefereeError(f"event {self.i} {self.describe(self.i)}: {why}")

    def describe(self, i):
        if i >= len(self.ev):
            return "<end>"
        code, *args = self.ev[i]
        return f"{EVENT.get(code, code)}{tuple(args)}"

    def check(self, cond, why):
        if not cond:
            self.fail(why)

    def counted(self, value):
        return 0 if value == 5 and self.john_seat is not None else value

    def values(self, card):
        kind, a, b, _ = self.cards[card]
        return [a] if a == b else [a, b]

    def can_play(self, q, pending=None):
        """Seat q holds a card it may play (or may discard John instead)."""
        pending = self.pending if pending is None else pending
        if self.john_seat == q and self.hands[q]:
            return True
        for card in self.hands[q]:
            if self.cards[card][0] != E.K_VALUE:
                return True
            for v in self.values(card):
                if self.total + self.counted(v) * (1 + pending) >= 0:
                    return True
        return False

    def three_alike(self, q):
        return max(Counter(self.cards[c][3] for c in self.hands[q]).values(), default=0) >= 3

    def conserved(self):
        places = [c for h in self.hands for c in h] + list(self.pile) + self.swarm + self.discard
        if self.john_seat is not None:
            places.append(self.john)
        return sorted(places) == list(range(len(self.cards)))

    def next(self, code, *args):
        """Consume the next event, which must be `code` with the given leading arguments."""
        self.i += 1
        self.check(self.i < len(self.ev), f"expected {EVENT[code]}, the trace ended")
        ev = self.ev[self.i]
        self.check(ev[0] == code and tuple(ev[1:1 + len(args)]) == args,
                   f"expected {EVENT[code]}{args}")
        self.seen[code] += 1
        return ev

    def bite(self, p, count, cause):
        ev = self.next(E.E_BITE, p, count, cause)
        self.bites[p] += count
        self.check(ev[4] == self.bites[p], "bite total")

    def round_over(self, chooser):
        """After a swarm bite or WIND: the game ends or the chooser names the next start player."""
        over = max(self.bites) >= self.end
        if over:
            self.next(E.E_END)
            return
        ev = self.next(E.E_START, chooser)
        self.check(0 <= ev[2] < self.n, "start seat")
        self.next_start = ev[2]

    # ---------------------------------------------------------------- replay
    def replay(self, ev):
        self.ev = ev
        self.i = 0
        self.round = 0
        self.next_start = 0
        self.turns = 0
        self.in_round = False
        self.expect = []  # seats that must draw next, in order
        self.wind_from = None
        while self.i < len(ev):
            code = ev[self.i][0]
            self.seen[code] += 1
            handler = getattr(self, "on_" + EVENT[code][2:].lower(), None)
            self.check(handler is not None, "unexpected event here")
            done = handler(*ev[self.i][1:])
            if done:
                self.check(self.i == len(ev) - 1, "events after the end")
                return self
            self.i += 1
        self.fail("the game never ended")

    def before_action(self, p):
        """Checks due before any seat acts: draws done, WIND called when due, cards where they are."""
        self.check(self.in_round and not self.expect, f"draws still due: {self.expect}")
        self.check(self.conserved(), "cards lost or duplicated")
        for q in range(self.n):
            self.check(not self.three_alike(q), f"seat {q} holds three alike and nobody called WIND")
        if p is not None:
            self.check(p == self.cur, f"seat {p} acts, seat {self.cur} is to act")
        self.wind_from = None

    def draws_after_turn(self, p):
        if self.pile:
            self.expect = [p]
        self.wind_from = p

    def on_round(self, number, start, *_):
        self.check(not self.expect and max(self.bites) < self.end, "round after the end")
        self.check(number == self.round + 1 and start == self.next_start, "round number / start")
        if self.john_seat is not None:
            self.stat["john_stays_on_table"] += 1
        self.round = number
        self.turns_in_round = 0
        self.start = self.cur = start
        self.hands = [[] for _ in range(self.n)]
        self.pile = set(range(len(self.cards))) - ({self.john} if self.john_seat is not None else set())
        self.swarm, self.discard = [], []
        self.total = 0
        self.pending = 0  # waiting ? cards in the swarm
        self.stale = 0  # waiting ? cards that left the swarm when it became the pile (kernel keeps them)
        self.in_round = True
        self.expect = [(start + k) % self.n for _ in range(self.limit) for k in range(self.n)]
        self.dealing = True

    def take(self, p, card):
        self.check(self.expect and self.expect[0] == p, f"seat {p} draws; due: {self.expect[:3]}")
        self.expect.pop(0)
        self.check(card in self.pile, f"card {card} is not in the draw pile")
        self.pile.remove(card)
        self.hands[p].append(card)
        self.check(len(self.hands[p]) <= self.limit, "hand over the limit")
        if card == self.john:
            self.john_first.setdefault("drawn_by", p)
            self.stat["john_draws"] += 1

    def on_deal(self, p, card, *_):
        self.check(self.dealing, "deal outside the deal")
        self.take(p, card)
        if not self.expect:
            self.dealing = False
            self.wind_from = self.start

    def on_draw(self, p, card, *_):
        self.check(not self.dealing, "draw during the deal")
        self.take(p, card)

    def on_wind(self, caller, *_):
        self.check(self.in_round and not self.expect and self.wind_from is not None,
                   "WIND at a moment it cannot be due")
        holders = [(self.wind_from + k) % self.n for k in range(self.n)
                   if self.three_alike((self.wind_from + k) % self.n)]
        self.check(holders and holders[0] == caller,
                   f"WIND by {caller}; holders in turn order from {self.wind_from}: {holders}")
        self.stat["wind_deal" if self.dealing is False and self.turns_in_round == 0 else "wind"] += 1
        self.stat["wind_several_holders"] += len(holders) > 1
        for q in range(self.n):
            if q != caller:
                self.bite(q, 1, E.B_WIND)
        self.stat["wind_calls"] += 1
        self.in_round = False
        self.round_over(caller)
        return self.ev[self.i][0] == E.E_END

    def on_play(self, p, card, side, added, total):
        self.before_action(p)
        self.turns += 1
        self.turns_in_round += 1
        self.check(card in self.hands[p], "card not in hand")
        kind, a, b, _ = self.cards[card]
        self.check(kind == E.K_VALUE and side in (0, 1) and (side == 0 or a != b), "card side")
        value = (a, b)[side]
        counted = self.counted(value)
        if value == 5 and counted == 0:
            self.stat["five_counts_zero"] += 1
        if added != counted * (1 + self.pending):
            self.check(self.stale and added == counted * (1 + self.pending + self.stale),
                       f"adds {added}, expected {counted} x (1 + {self.pending} waiting ?)")
            self.incidents.append(("stale_question_marks", self.i,
                                   f"{value} counted {1 + self.pending + self.stale} times: "
                                   f"{self.stale} ? left the swarm when it became the pile"))
        if self.pending:
            self.stat["copies_resolved"] += 1
            self.stat["chained_copies"] += self.pending >= 2
            self.stat["copied_negative"] += value < 0
        self.check(total == self.total + added, f"total {total}, expected {self.total} + {added}")
        self.check(total >= 0, "the swarm went below zero")
        self.hands[p].remove(card)
        self.swarm.append(card)
        self.total = total
        self.pending = self.stale = 0
        if total >= self.threshold:
            count = total - (self.threshold - 1) if self.heavy else 1
            self.stat["heavy_multi_bite"] += count > 1
            self.stat["swarm_bites"] += count
            self.bite(p, count, E.B_SWARM)
            self.in_round = False
            self.round_over(p)
            return self.ev[self.i][0] == E.E_END
        self.draws_after_turn(p)
        self.cur = (p + 1) % self.n

    def on_copy(self, p, card, waiting, total, *_):
        self.before_action(p)
        self.turns += 1
        self.turns_in_round += 1
        self.check(card in self.hands[p] and self.cards[card][0] == E.K_COPY, "? not in hand")
        self.check(total == self.total, "a ? changes the total")
        self.pending += 1
        self.check(waiting in (self.pending, self.pending + self.stale), "waiting ? count")
        self.hands[p].remove(card)
        self.swarm.append(card)
        self.draws_after_turn(p)
        self.cur = (p + 1) % self.n

    def on_john_play(self, p, target, gives, *_):
        self.before_action(p)
        self.turns += 1
        self.turns_in_round += 1
        self.check(self.john in self.hands[p] and self.john_seat is None, "John not in hand")
        fewest = min(self.bites)
        self.check(self.bites[target] == fewest, "John before a seat without the fewest bites")
        self.check(gives == (fewest + 1 < self.end), "John's bite (never the game-ending bite)")
        self.hands[p].remove(self.john)
        self.john_seat = target
        self.stat["john_plays"] += 1
        self.stat["john_no_bite" if not gives else "john_bite"] += 1
        self.stat["john_on_self"] += target == p
        if "played_by" not in self.john_first:
            self.john_first.update(played_by=p, played_turn=self.turns, target=target)
        if gives:
            self.bite(target, 1, E.B_JOHN)
            self.stat["john_bites"] += 1
        self.draws_after_turn(p)
        self.cur = (p + 1) % self.n

    def on_john_discard(self, p, *_):
        self.before_action(p)
        self.turns += 1
        self.turns_in_round += 1
        self.check(self.john_seat == p, "only the seat John lies before may discard it")
        self.discard.append(self.john)
        self.john_seat = None
        self.stat["john_discards"] += 1
        self.stat["john_discard_with_cards"] += bool(self.hands[p])
        self.john_first.setdefault("discarded_turn", self.turns)
        self.cur = (p + 1) % self.n

    def on_cannot(self, p, k, *_):
        self.before_action(p)
        self.turns += 1
        self.turns_in_round += 1
        self.check(k == len(self.hands[p]) > 0, "cannot-play hand size")
        self.check(not self.can_play(p, self.pending + self.stale) or not self.can_play(p),
                   "the seat could play")
        self.check(self.pile or not self.wait, "a cannot-play bite with an empty pile (rule: wait)")
        if not self.pile and not any(self.can_play(q, self.pending + self.stale) for q in range(self.n)):
            self.incidents.append(("bite_while_nobody_can_play", self.i,
                                   f"pile empty, seat {p} holds only unplayable cards and no seat "
                                   f"can play (hands {self.hands}, swarm {self.total})"))
        shown = []
        for _ in range(k):
            shown.append(self.next(E.E_UNDER, p)[2])
        self.check(sorted(shown) == sorted(self.hands[p]), "shown cards are the hand")
        self.stat["cannot_empty_pile"] += not self.pile
        self.pile.update(shown)
        self.hands[p] = []
        self.stat["cannot"] += 1
        self.bite(p, 1, E.B_CANNOT)
        if max(self.bites) >= self.end:
            self.next(E.E_END)
            return True
        self.expect = [p] * min(self.limit, len(self.pile))
        self.wind_from = p
        self.cur = (p + 1) % self.n

    def on_skip(self, p, why, *_):
        self.before_action(p)
        self.check(why == (E.SKIP_STUCK if self.hands[p] else E.SKIP_EMPTY_HAND), "skip reason")
        if self.hands[p]:
            self.check(self.wait, "a seat with cards was skipped (rule: bite)")
            self.check(not self.pile and not self.can_play(p), "a seat that could play was skipped")
            self.check(any(self.can_play(q) for q in range(self.n)),
                       "a stuck seat waits although nobody can play")
            self.stat["stuck_waits"] += 1
        self.stat["skips"] += 1
        self.cur = (p + 1) % self.n

    def on_reshuffle(self, k, total, *_):
        self.before_action(None)
        self.check(not self.pile, "reshuffle with cards in the pile")
        everyone_out = not any(self.hands)
        self.check(everyone_out or not any(self.can_play(q) for q in range(self.n)),
                   "reshuffle while a seat can still play")
        self.check(k == len(self.swarm) + len(self.discard), "reshuffle card count")
        self.check(total == self.total, "the swarm total is kept")
        self.stat["reshuffles"] += 1
        self.stat["reshuffle_with_john_discarded"] += bool(self.discard)
        self.stat["reshuffle_with_waiting_copies"] += self.pending > 0
        self.pile = set(self.swarm) | set(self.discard)
        self.swarm, self.discard = [], []
        self.stale += self.pending
        self.pending = 0
        left = len(self.pile)
        self.expect = []
        for j in range(self.n):
            q = (self.cur + j) % self.n
            take = min(self.limit - len(self.hands[q]), left)
            self.expect += [q] * take
            left -= take
        self.wind_from = self.cur

    def on_start(self, *_):
        self.fail("E_START outside the end of a round")

    def on_end(self, mask, *_):
        self.before_action(None)
        self.fail("the game ended without a reason")

    def finish(self, row, bites):
        """Compare what the replay saw with the game's record."""
        self.check(self.ev[-1][0] == E.E_END, "last event")
        fewest = min(self.bites)
        mask = sum(1 << p for p in range(self.n) if self.bites[p] == fewest)
        self.check(self.ev[-1][1] == mask == row["winner_mask"], "winners are the fewest-bites seats")
        self.check(self.bites == bites, f"bites {self.bites} != row {bites}")
        self.check(not row["score"][self.n:].any(), "score beyond the seats")
        s = self.stat
        want = {"turns": self.turns, "rounds": self.round, "wind_calls": s["wind_calls"],
                "cannot_play": s["cannot"], "reshuffles": s["reshuffles"],
                "swarm_bites": s["swarm_bites"], "john_draws": s["john_draws"],
                "john_plays": s["john_plays"], "john_bites": s["john_bites"],
                "john_discards": s["john_discards"],
                "john_in_deck": int(self.john is not None),
                "john_drawn_by": self.john_first.get("drawn_by", -1),
                "john_played_by": self.john_first.get("played_by", -1),
                "john_played_turn": self.john_first.get("played_turn", -1),
                "john_target": self.john_first.get("target", -1),
                "john_discarded_turn": self.john_first.get("discarded_turn", -1)}
        for name, value in want.items():
            self.check(int(row[name]) == value, f"record field {name}: {int(row[name])} != {value}")


def referee_game(arm, seed, index):
    ev, cards, row, bites = trace_events(arm, seed, index)
    ref = Referee(arm, cards).replay(ev)
    ref.finish(row, bites)
    return ref


def referee_games(arm, seed, indices):
    total = Counter()
    incidents = []
    for index in indices:
        try:
            ref = referee_game(arm, seed, index)
        except RefereeError as exc:
            raise AssertionError(f"{arm.describe()}, seed {seed}, game {index}: {exc}") from None
        total.update(ref.stat)
        total.update({f"event {EVENT[c]}": k for c, k in ref.seen.items()})
        incidents += [(index, *x) for x in ref.incidents]
    return total, incidents


REFEREE_ARMS = [(n, policy, {}) for n in (2, 3, 4, 5, 6, 8) for policy in POLICIES] + [
    (3, "cautious", {"john_knut": False}),
    (5, "random", {"john_knut": False}),
    (4, "random", {"heavy_weather": True}),
    (3, "cautious", {"heavy_weather": True}),
    (6, "trap", {"heavy_weather": True}),
    (4, "cautious,random,trap,random", {}),
    (3, "trap,cautious,random", {"hand_limit": 4, "threshold": 25}),
    (2, "cautious,random", {"hand_limit": 1}),
    (3, "cautious", {"stuck_empty_pile": "wait"}),
    (4, "random", {"stuck_empty_pile": "wait"}),
    (5, "trap,random,cautious,cautious,random", {"stuck_empty_pile": "wait", "heavy_weather": True}),
]


@pytest.mark.parametrize("players,policies,rules", REFEREE_ARMS)
def test_referee_replays_every_move(players, policies, rules):
    arm = ArmSpec.make("knutten", players, rules, policies)
    stat, _ = referee_games(arm, SEED, range(120))
    assert stat["event E_END"] == 120


def test_referee_catches_tampered_traces():
    """The referee is only worth something if it rejects wrong games: alter one event at a time."""
    arm = ArmSpec.make("knutten", 4, {}, "cautious")
    index = next(i for i in range(50)
                 if referee_game(arm, SEED, i).stat["john_bite"] and not referee_game(arm, SEED, i).incidents)
    ev, cards, row, bites = trace_events(arm, SEED, index)

    def first(code, cond=lambda e: True):
        return next(k for k, e in enumerate(ev) if e[0] == code and cond(e))

    two_sided = lambda e: cards[e[2]][1] != cards[e[2]][2]  # noqa: E731
    tampers = {
        "total off by one": (first(E.E_PLAY), lambda e: e[:5] + (e[5] + 1,)),
        "other value side": (first(E.E_PLAY, two_sided), lambda e: e[:3] + (1 - e[3],) + e[4:]),
        "a card dealt twice": (first(E.E_DEAL) + 1, lambda e: e[:2] + (ev[first(E.E_DEAL)][2],) + e[3:]),
        "John bites nobody": (first(E.E_JOHN_PLAY), lambda e: e[:3] + (0,) + e[4:]),
        "two bites for a swarm": (first(E.E_BITE, lambda e: e[3] == E.B_SWARM),
                                  lambda e: e[:2] + (2,) + e[3:4] + (e[4] + 1,) + e[5:]),
        "wrong winners": (len(ev) - 1, lambda e: (e[0], e[1] ^ 1) + e[2:]),
        "played out of turn": (first(E.E_PLAY), lambda e: (e[0], (e[1] + 1) % 4) + e[2:]),
    }
    for name, (k, change) in tampers.items():
        bad = list(ev)
        bad[k] = change(ev[k])
        with pytest.raises(RefereeError):
            Referee(arm, cards).replay(bad).finish(row, bites)
            pytest.fail(f"the referee accepted: {name}")
    skipped = ev[:first(E.E_DRAW)] + ev[first(E.E_DRAW) + 1:]
    with pytest.raises(RefereeError):
        Referee(arm, cards).replay(skipped).finish(row, bites)
    Referee(arm, cards).replay(ev).finish(row, bites)  # and the real game passes


def test_referee_saw_every_rule_in_action():
    """The replays above are only worth something if the situations happen: count them."""
    stat = Counter()
    for players, policies, rules in [(4, "cautious", {}), (6, "random", {}), (3, "trap", {}),
                                     (4, "random", {"heavy_weather": True}), (8, "cautious", {}),
                                     (4, "random", {"bites_to_end": 1}),
                                     (3, "cautious", {"stuck_empty_pile": "wait"})]:
        got, _ = referee_games(ArmSpec.make("knutten", players, rules, policies), SEED, range(150))
        stat.update(got)
    for key in ("wind_deal", "wind", "cannot", "cannot_empty_pile", "stuck_waits", "reshuffles",
                "reshuffle_with_john_discarded", "john_bite", "john_no_bite", "john_discards",
                "john_stays_on_table", "five_counts_zero", "copies_resolved", "chained_copies",
                "copied_negative", "heavy_multi_bite", "skips", "event E_START"):
        assert stat[key] > 0, f"no game showed {key}: {sorted(stat.items())}"


def test_wind_callers_in_turn_order_and_the_caller_chooses_the_start():
    """A deck of one design: every first hand is three identical cards, so every round ends in
    WIND at the deal, called by the start player (the first holder in turn order from it). The
    caller names the next start player: a cautious caller names the seat with the most bites
    other than itself (ties: the first after it). So: round 1 seat 0 calls, bites [0, 1, 1], it
    names seat 1; round 2 seat 1 calls, [1, 1, 2], names seat 2; round 3 seat 2 calls, [2, 2, 2],
    names seat 0; round 4 seat 0 calls, [2, 3, 3]: game over, seat 0 wins without a turn."""
    deck = kn.parse_deck({"card": [{"values": [2, 7], "copies": 12}]})
    arm = ArmSpec.make("knutten", 3, {"john_knut": False}, "cautious", deck=deck)
    row = rows(kn.RUNNER.play_batch(arm, SEED, 0, 1, checked=True))[0]
    assert row["score"] == [2, 3, 3] and row["winner_mask"] == 1
    assert row["rounds"] == 4 and row["wind_calls"] == 4 and row["turns"] == 0
    text = kn.RUNNER.trace_game(arm, SEED, 0)
    starts = [line.split("seat ")[1][0] for line in text.splitlines() if line.startswith("Round ")]
    callers = [line.split("seat ")[1][0] for line in text.splitlines() if "WIND!" in line]
    assert starts == callers == ["0", "1", "2", "0"]
    ref = referee_game(arm, SEED, 0)
    assert ref.stat["wind_several_holders"] == 4


# ---------------------------------------------------------------------- departures fixed (pinned)
def _first_incident(kind, arms, games, marker):
    """None, or a report of the first game where the referee recorded `kind`, with the part of
    its trace from the first line containing `marker`."""
    for players, policy in arms:
        arm = ArmSpec.make("knutten", players, {}, policy)
        _, incidents = referee_games(arm, SEED, range(games))
        hits = [x for x in incidents if x[1] == kind]
        if hits:
            index, _, event, detail = hits[0]
            text = kn.RUNNER.trace_game(arm, SEED, index).splitlines()
            at = next((k for k, line in enumerate(text) if marker in line), len(text) - 10)
            return (f"{len(hits)} in {games} games of {arm.describe()}; e.g. game {index} "
                    f"(seed {SEED}): {detail}\n" + "\n".join(text[max(0, at - 4): at + 10]))
    return None


def test_nobody_can_play_with_an_empty_pile_makes_the_swarm_the_new_pile():
    """Seed: 'Als het moeras leeg is wordt er doorgespeeld totdat alle spelers geen kaarten meer
    hebben of geen kaarten meer kunnen spelen. ... dan wordt van alle kaarten in de zwerm weer een
    nieuw moeras gemaakt.' RULINGS: 'when nobody can play, the swarm (its total kept) becomes the
    new draw pile'.

    The kernel only turns the swarm into the pile when no seat holds a card. When the pile is
    empty and the only cards left are unplayable (a -10 on a low swarm), the stuck seat takes a
    cannot-play bite, puts its cards under the empty pile, draws the same cards back, and does so
    again every turn until the game ends: the round never reaches the 'nieuw moeras'.

    Proposed fix (play_nb.play_round_nb): call "nobody can play" the state where the draw pile is
    empty and every seat has either no card or no legal action (hand_n[q] == 0 or
    legal_actions_nb(t, q) == 0; a John discard counts only for a seat holding cards, as such a seat
    is skipped). Use it instead of all_hands_empty_nb in the empty-hand branch, and check it before
    cannot_play_nb when legal_actions_nb(t, p) == 0: if it holds, run the reshuffle branch
    (swarm_to_pile_nb, refill_all_nb(t, p), WIND check, continue) instead of biting."""
    found = _first_incident("bite_while_nobody_can_play", [(3, "cautious"), (4, "cautious")], 200,
                            "cannot play: shows")
    assert found is None, found


def test_waiting_question_marks_leave_with_the_swarm():
    """When the swarm becomes the new draw pile, its ? cards go into the pile; a ? still waiting
    for a value can no longer copy anything ('De spelers gaan door met het totaal aantal knutten
    dat al in de zwerm zit'). The kernel keeps its waiting-? counter (st[S_PENDING]) across
    swarm_to_pile_nb, so the next card counts double or more although those ? cards are now in the
    pile or in a hand (and may be played again).

    Proposed fix (table_nb.swarm_to_pile_nb): st[S_PENDING] = 0 with the swarm emptied."""
    found = _first_incident("stale_question_marks", [(3, "cautious"), (4, "cautious")], 200,
                            "become the new draw pile")
    assert found is None, found


# ====================================================================== determinism
def test_batches_do_not_change_games():
    arm = ArmSpec.make("knutten", 5, {}, "cautious,random,trap,random,cautious")
    whole = rows(kn.RUNNER.play_batch(arm, SEED, 0, 300))
    parts = sum((rows(kn.RUNNER.play_batch(arm, SEED, a, b - a)) for a, b in ((0, 1), (1, 140), (140, 300))), [])
    assert whole == parts
    assert rows(kn.RUNNER.play_batch(arm, SEED, 0, 300, checked=True)) == whole
    assert rows(kn.RUNNER.play_batch(arm, SEED + 1, 0, 300)) != whole


def test_the_same_game_index_deals_the_same_cards_in_every_arm():
    """Common random numbers: the first deal depends only on (seed, game index)."""
    deals = set()
    for policy in POLICIES:
        arm = ArmSpec.make("knutten", 4, {"bites_to_end": 5}, policy)
        text = kn.RUNNER.trace_game(arm, SEED, 11)
        deals.add(next(line for line in text.splitlines() if line.startswith("  dealt:")))
    assert len(deals) == 1


def test_trace_agrees_with_the_row():
    arm = ArmSpec.make("knutten", 4, {}, "cautious,random,trap,random")
    for index in range(5):
        row = rows(kn.RUNNER.play_batch(arm, SEED, index, 1))[0]
        text = kn.RUNNER.trace_game(arm, SEED, index)
        assert ("Game over. Bites: " + ", ".join(f"seat {p} {b}" for p, b in enumerate(row["score"]))
                in text)
        assert text.count("\nRound ") == row["rounds"]
        assert text.count("WIND!") == row["wind_calls"]
        assert text.count(" cannot play: shows ") == row["cannot_play"]


# ====================================================================== statistics
def wind_at_deal_probability(players, copies, hand=3):
    """Exact P(some seat's first hand is three identical cards); every hand is a uniform random
    3-subset of the deck and hands are disjoint. Inclusion-exclusion over sets of holders; no
    design has the 6 copies two holders of the same design would need."""
    assert hand == 3 and max(copies) < 6
    total = sum(copies)
    weights = [comb(c, 3) for c in copies]
    prob = Fraction(0)
    for k in range(1, players + 1):
        elementary = sum(np.prod([weights[d] for d in subset], dtype=object)
                         for subset in combinations(range(len(weights)), k))
        if elementary == 0:
            break
        ways = Fraction(int(elementary) * int(np.prod(range(1, k + 1), dtype=object)))
        for i in range(k):
            ways /= comb(total - 3 * i, 3)
        prob += (-1) ** (k + 1) * comb(players, k) * ways
    return prob


def test_exact_wind_probability_formula():
    """Check the formula against brute force on a tiny deck: two designs of 3 and 4 copies."""
    copies = [3, 4]
    deck = [0] * 3 + [1] * 4
    hits = total = 0
    for first in combinations(range(7), 3):
        rest = [c for c in range(7) if c not in first]
        for second in combinations(rest, 3):
            total += 1
            hits += any(len({deck[c] for c in hand}) == 1 for hand in (first, second))
    assert wind_at_deal_probability(2, copies) == Fraction(hits, total)


@pytest.mark.parametrize("players,john", [(2, True), (4, True), (8, True), (5, False)])
def test_wind_at_the_first_deal_has_its_exact_probability(players, john):
    """With bites_to_end=1 a WIND at the first deal ends the game before any turn, so
    P(turns == 0) is exactly P(some first hand holds three identical cards)."""
    games = 15000
    arm = ArmSpec.make("knutten", players, {"bites_to_end": 1, "john_knut": john}, "random")
    table = rows(kn.RUNNER.play_batch(arm, SEED, 0, games))
    zero = [r for r in table if r["turns"] == 0]
    assert all(r["rounds"] == 1 and r["wind_calls"] == 1 for r in zero)
    copies = [4] * 8 + [5, 4] + ([1] if john else [])
    p = float(wind_at_deal_probability(players, copies))
    assert 0.005 < p < 0.2
    test = binomtest(len(zero), games, p)
    assert test.pvalue > 1e-5, (len(zero), games * p, test.pvalue)


def test_john_is_in_the_first_hand_of_each_seat_with_probability_3_in_42():
    """Every seat draws three cards of a 42-card pile: P(John in seat s's first hand) = 3/42, and
    the first round's deal is the same in every game of the pipeline (reset, new pile, deal)."""
    from kernels.knutten.play_nb import new_table, reset_game_nb
    from kernels.knutten.table_nb import deal_nb, new_pile_nb, seed_game_nb

    arm = ArmSpec.make("knutten", 4)
    cards, designs = kn.RUNNER.data_arrays(arm)
    ws = new_table(cards, designs, kn.RUNNER.kernel_inputs(arm).rule_i, kn.RUNNER.kernel_inputs(arm).seat_policy)
    t = ws[0]
    games = 12000
    holder = Counter()
    for i in range(games):
        reset_game_nb(t)
        seed_game_nb(t, SEED, i)
        new_pile_nb(t, 0)
        deal_nb(t, 0)
        for p in range(4):
            if 41 in t["hands"][p, :3]:
                holder[p] += 1
    for p in range(4):
        assert binomtest(holder[p], games, 3 / 42).pvalue > 1e-5, holder
    assert sum(holder.values()) > 0


# ====================================================================== differential
_DIFF_SCRIPT = r"""
import json, sys
from sim.spec import ArmSpec
from sim.games import knutten as kn

result = []
for players, policies, rules, index in json.loads(sys.argv[1]):
    arm = ArmSpec.make("knutten", players, rules, policies)
    row, events = kn.RUNNER.traced(arm, %d, index)
    result.append({"out": row.tobytes().hex(), "events": events.tolist()})
print(json.dumps(result))
""" % SEED

DIFF_GAMES = [(4, "cautious,random,trap,cautious", {}, 3), (3, "random", {"heavy_weather": True}, 8),
              (3, "random,cautious,random", {"stuck_empty_pile": "wait"}, 5)]


def _run_diff(jit: bool):
    env = dict(os.environ)
    if jit:
        env.pop("NUMBA_DISABLE_JIT", None)
    else:
        env["NUMBA_DISABLE_JIT"] = "1"
    proc = subprocess.run([sys.executable, "-W", "ignore", "-c", _DIFF_SCRIPT, json.dumps(DIFF_GAMES)],
                          capture_output=True, text=True, env=env, timeout=600,
                          cwd=Path(__file__).resolve().parents[1])
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout)


def test_pure_python_run_matches_the_jitted_kernel():
    """The same games, record and trace, with and without the JIT."""
    plain = _run_diff(jit=False)
    jitted = _run_diff(jit=True)
    assert len(plain) == len(jitted) == len(DIFF_GAMES)
    for (players, policies, rules, index), a, b in zip(DIFF_GAMES, plain, jitted):
        assert a["out"] == b["out"], (policies, index)
        assert a["events"] == b["events"], (policies, index)
        arm = ArmSpec.make("knutten", players, rules, policies)
        row = kn.RUNNER.play_batch(arm, SEED, index, 1).to_pylist()[0]
        out = np.frombuffer(bytes.fromhex(b["out"]), E.OUT_DTYPE)
        assert row["score"] == out["score"][0, :players].tolist()
        assert row["turns"] == out["turns"][0]


def test_play_batch_and_trace_run_without_the_jit():
    """DESIGN: differential tests run the kernel with NUMBA_DISABLE_JIT=1. That needs attribute
    access on the table and output records in plain Python (table_nb.as_records gives a recarray
    view there and is the identity when jitted), and no table field named like an ndarray
    method (the events field is not called `trace`)."""
    code = ("from sim.spec import ArmSpec\nfrom sim.games import knutten as kn\n"
            "arm = ArmSpec.make('knutten', 3, {}, 'random')\n"
            "print(len(kn.RUNNER.play_batch(arm, 1, 0, 1)))\n"
            "print(kn.RUNNER.trace_game(arm, 1, 0).splitlines()[-1])")
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    proc = subprocess.run([sys.executable, "-W", "ignore", "-c", code], capture_output=True,
                          text=True, env=env, timeout=300, cwd=Path(__file__).resolve().parents[1])
    assert proc.returncode == 0, proc.stderr[-1500:]
