"""Knutten's random streams pair arms (DESIGN, invariants): arms that differ in one rule or one
seat's player see the same cards come off each round's new pile, and a seat's random choices do
not move when another seat changes.

Both are read from traces of whole games: the cards each round draws from its new pile (until the
pile is used up or the swarm becomes the pile: after that the order depends on the play), and each
random seat's decisions together with what the seat saw when it made them.
"""
from __future__ import annotations

import pytest

from kernels.knutten import enums as E
from kernels.knutten.table_nb import table_cards
from sim.games import knutten as kn
from sim.spec import ArmSpec

SEED = 424242
GAMES = range(60)
BASE = (4, {}, "random,cautious,trap,random")


def traced(players, rules, policies, index):
    arm = ArmSpec.make("knutten", players, rules, policies)
    _, events = kn.RUNNER.traced(arm, SEED, index)
    return arm, [tuple(int(x) for x in ev) for ev in events]


def new_pile_draws(arm, events):
    """{round (0-based): the cards drawn from that round's new pile, in order, John left out}."""
    plain = sum(copies for *_, copies in arm.data_value("deck"))  # the new pile's cards besides John
    john = plain if arm.rule_values["john_knut"] else None
    rounds, r, fresh = {}, None, False
    for code, a, b, *_ in events:
        if code == E.E_ROUND:
            r, fresh = a - 1, True
            rounds[r] = []
        elif code == E.E_RESHUFFLE:
            fresh = False
        elif code in (E.E_DEAL, E.E_DRAW) and fresh and b != john and len(rounds[r]) < plain:
            rounds[r].append(b)  # past `plain` draws the pile is the cards put under it
    return rounds


@pytest.mark.parametrize("players,rules,policies", [
    (4, {"threshold": 25}, BASE[2]),
    (4, {"john_knut": False}, BASE[2]),
    (4, {"heavy_weather": True}, BASE[2]),
    (4, {"stuck_empty_pile": "wait", "bites_to_end": 4}, BASE[2]),
    (4, {}, "random,random,trap,random"),
    (4, {}, "random,cautious,trap,cautious"),
])
def test_each_round_draws_the_same_cards_in_arms_that_differ_in_one_thing(players, rules, policies):
    compared = later_rounds = 0
    for index in GAMES:
        a = new_pile_draws(*traced(*BASE, index))
        b = new_pile_draws(*traced(players, rules, policies, index))
        for r in a.keys() & b.keys():
            k = min(len(a[r]), len(b[r]))
            assert a[r][:k] == b[r][:k], (index, r, k)
            compared += k
            later_rounds += k if r > 0 else 0
    # teeth: far more than the first deals are compared, in later rounds too
    assert compared > 60 * 25 and later_rounds > 60 * 10, (compared, later_rounds)


def decisions(arm, events, seat):
    """Seat `seat`'s random decisions in order: (what it saw, what it chose, event number).
    An option choice sees its legal options (and John's targets); a start choice sees nothing
    that changes. The choice is the option (slot, side), or John's target, or the start seat."""
    n = arm.players
    cards = table_cards(*kn.RUNNER.data_arrays(arm), arm.rule_values["john_knut"])
    hands = [[] for _ in range(n)]
    bites = [0] * n
    total = pending = 0
    john_seat = None
    out = []

    def take(p, card):
        hand = hands[p]
        i = hand.index(card)
        hand[i] = hand[-1]
        hand.pop()

    def seen():
        """The seat's options in the kernel's order (slot, then side; a John discard last) and,
        with John in hand, his possible targets: what a random player's choice depends on."""
        options = []
        for slot, card in enumerate(hands[seat]):
            kind, x, y, _ = (int(v) for v in cards[card])
            sides = (x, y) if kind == E.K_VALUE and x != y else (x,)
            for side, value in enumerate(sides):
                counted = 0 if kind != E.K_VALUE or (value == 5 and john_seat is not None) else value
                if total + counted * (1 + pending) >= 0:
                    options.append((slot, side))
        if john_seat == seat:
            options.append("discard")
        holds_john = any(cards[card][0] == E.K_JOHN for card in hands[seat])
        targets = tuple(q for q in range(n) if bites[q] == min(bites)) if holds_john else ()
        return tuple(options), targets

    for i, (code, a, b, c, d, f) in enumerate(events):
        if code == E.E_ROUND:
            hands = [[] for _ in range(n)]
            total = pending = 0
        elif code in (E.E_DEAL, E.E_DRAW):
            hands[a].append(b)
        elif code == E.E_PLAY:
            if a == seat:
                out.append((("play",) + seen(), (hands[a].index(b), c), i))
            take(a, b)
            total, pending = f, 0
        elif code == E.E_COPY:
            if a == seat:
                out.append((("play",) + seen(), (hands[a].index(b), 0), i))
            take(a, b)
            pending = c
        elif code == E.E_JOHN_PLAY:
            john = next(k for k, row in enumerate(cards) if row[0] == E.K_JOHN)
            if a == seat:
                out.append((("play",) + seen(), ("john", hands[a].index(john), b), i))
            take(a, john)
            john_seat = b
        elif code == E.E_JOHN_DISCARD:
            if a == seat:
                out.append((("play",) + seen(), "discard", i))
            john_seat = None
        elif code == E.E_UNDER:
            hands[a].remove(b)
        elif code == E.E_BITE:
            bites[a] = d
        elif code == E.E_RESHUFFLE:
            pending = 0
        elif code == E.E_START and a == seat:
            out.append((("start",), b, i))
    return out


@pytest.mark.parametrize("other", ["random,random,random,cautious", "random,trap,random,random"])
def test_a_random_seats_choices_do_not_move_when_another_seat_changes(other):
    """Arms "random" x 4 and `other` (one seat changed). A random seat's k-th choice draws the
    k-th number of its own stream: as long as it saw the same things at each earlier choice, the
    same situation gets the same choice, also long after the games went different ways."""
    base = "random,random,random,random"
    changed = next(s for s, (x, y) in enumerate(zip(base.split(","), other.split(","))) if x != y)
    after_divergence = 0
    for index in GAMES:
        arm_a, ev_a = traced(4, {}, base, index)
        arm_b, ev_b = traced(4, {}, other, index)
        split = next((i for i, (x, y) in enumerate(zip(ev_a, ev_b)) if x != y), len(ev_a))
        for seat in range(4):
            if seat == changed:
                continue
            for (saw_a, chose_a, i), (saw_b, chose_b, _) in zip(decisions(arm_a, ev_a, seat),
                                                                 decisions(arm_b, ev_b, seat)):
                if saw_a != saw_b:
                    break  # from here on the seat may have drawn a different number of words
                assert chose_a == chose_b, (index, seat, i)
                after_divergence += i > split
    assert after_divergence > 150, after_divergence
