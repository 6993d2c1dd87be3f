"""A plain-Python reading of Wippen's legal moves (docs/rules/wippen.md), written for clarity, not
speed: it tries every set of pot items that could take part (for a group worth v: builds of value v
and loose number cards up to v) and asks whether the rules allow it. The kernel's generator
(kernels/wippen/moves_nb.py) is compared against it on random pots and hands
(tests/test_wippen_moves.py).

A pot item is (value, kind, owner): kind "loose" (value 1..13, a face card 11..13) or "build" /
"double" (value 1..10). A card in hand is 0..103 (its value: card % 13 + 1). A move is
(slot, kind, items, value) with kind one of "capture", "build", "double", "raise", "trail" and
items a frozenset of pot item indices.
"""
from __future__ import annotations

from functools import cache
from itertools import combinations

NUMBER = 10


def value_of(card: int) -> int:
    return card % 13 + 1


def subsets(items):
    items = list(items)
    for k in range(len(items) + 1):
        yield from (frozenset(c) for c in combinations(items, k))


def legal_moves(pot, hand, build_instead=True, raise_double=False):
    """Every legal move, as a set (a list without repeats is the generator's promise)."""
    pot = tuple(pot)

    def loose_number(i):
        return pot[i][1] == "loose" and pot[i][0] <= NUMBER

    @cache
    def splits(items: frozenset, v: int) -> bool:
        """items can be split into groups each worth v: a build of value v alone, or loose number
        cards adding up to v."""
        if not items:
            return True
        first = min(items)
        value, kind, _ = pot[first]
        if kind != "loose":
            return value == v and splits(items - {first}, v)
        if value > NUMBER:
            return False
        rest = items - {first}
        for other in subsets(i for i in rest if loose_number(i)):
            group = other | {first}
            if sum(pot[i][0] for i in group) == v and splits(items - group, v):
                return True
        return False

    def in_group(i, v) -> bool:
        """Item i can lie in a group worth v: a build (or double) of value v, or a loose number
        card of at most v. A set holding any other item never splits into groups worth v, so the
        searches below leave such items out: the same moves, from far fewer sets."""
        value, kind, _ = pot[i]
        return value == v if kind != "loose" else loose_number(i) and value <= v

    def captures(slot, card):
        """Every non-empty set of items that splits into groups worth the card; a face card takes
        cards of its own rank only."""
        v = value_of(card)
        if v > NUMBER:
            candidates = [i for i in range(len(pot)) if pot[i][1] == "loose" and pot[i][0] == v]
        else:
            candidates = [i for i in range(len(pot)) if in_group(i, v)]
        for items in subsets(candidates):
            if items and (v > NUMBER or splits(items, v)):
                yield (slot, "capture", items, v)

    def builds(slot, card, held):
        """The card with `own` loose number cards adding up to V - card, and `others` (other items)
        that split into groups worth V: every such pair of disjoint sets, `own` first (its sum rules
        most out), not every subset of the pot and then every subset of that (the same pairs)."""
        w = value_of(card)
        if w > NUMBER:
            return
        numbers = [i for i in range(len(pot)) if loose_number(i)]
        for V in sorted(held):
            if V < w:
                continue
            for own in subsets(numbers):
                if sum(pot[i][0] for i in own) != V - w:
                    continue
                rest = [i for i in range(len(pot)) if i not in own and in_group(i, V)]
                for others in subsets(rest):
                    if not own and not others:
                        continue  # the card alone: a trail
                    if splits(others, V):
                        yield (slot, "build" if not others else "double", own | others, V)

    def raises(slot, card, held):
        w = value_of(card)
        if w > NUMBER:
            return
        for i, (value, kind, _) in enumerate(pot):
            if kind == "build" or (kind == "double" and raise_double):
                if value + w <= NUMBER and value + w in held:
                    yield (slot, "raise", frozenset({i}), value + w)

    capture_moves = {m for slot, card in enumerate(hand) for m in captures(slot, card)}
    can_capture = bool(capture_moves)
    moves = set(capture_moves)
    if pot and (build_instead or not can_capture):
        for slot, card in enumerate(hand):
            held = {value_of(c) for j, c in enumerate(hand) if j != slot and value_of(c) <= NUMBER}
            moves |= set(builds(slot, card, held)) | set(raises(slot, card, held))
    if not can_capture:
        moves |= {(slot, "trail", frozenset(), value_of(card)) for slot, card in enumerate(hand)}
    return moves
