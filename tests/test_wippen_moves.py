"""Wippen's move generator (kernels/wippen/moves_nb.py) against the plain-Python reference
(tests/wippen_reference.py) on thousands of random pots and hands: the same moves, each once."""
from __future__ import annotations

import random

import numpy as np
import pytest

from kernels.jit import kernel
from kernels.wippen import enums as E
from kernels.wippen import moves_nb
from kernels.wippen.moves_nb import (
    any_capture_nb, has_moves_nb, move_arrays_nb, scratch_nb, slot_moves_nb,
)
from tests.wippen_reference import legal_moves

# legal_moves_nb is an `inline` helper: called from Python it compiles on its own (about 20 s of
# CPU) in every process. Compiled as a kernel (kernels/jit.py: the same flags, cached on disk and
# keyed on the whole kernels tree), tests/test_wippen_rules.py's copy and this one compile it once
legal_moves_nb = kernel(moves_nb.legal_moves_nb.py_func)

KINDS = {"loose": E.ITEM_LOOSE, "build": E.ITEM_BUILD, "double": E.ITEM_DOUBLE}
MOVE_NAMES = {E.MV_CAPTURE: "capture", E.MV_BUILD: "build", E.MV_DOUBLE: "double",
              E.MV_RAISE: "raise", E.MV_TRAIL: "trail"}
LOW_CARDS = [c for c in range(104) if c % 13 < 6]  # aces to sixes: many sums


@pytest.fixture(scope="module")
def buffers():
    return scratch_nb(), move_arrays_nb()


def kernel_moves(pot, hand, build_instead, raise_double, buffers):
    """The generator's list as reference-style tuples (a list: repeats would show)."""
    scratch, (mv_i, mv_m) = buffers
    item_i = np.zeros((E.MAX_ITEMS, E.IT_FIELDS), np.int64)
    for i, (value, kind, owner) in enumerate(pot):
        item_i[i] = (value, KINDS[kind], owner, -1)
    cards = np.zeros(E.HAND, np.int64)
    cards[:len(hand)] = hand
    n = legal_moves_nb(item_i, len(pot), cards, len(hand), build_instead, raise_double, True,
                       mv_i, mv_m, scratch)
    assert n >= 0, "a buffer overflowed"
    return [(int(mv_i[k, 0]), MOVE_NAMES[int(mv_i[k, 1])],
             frozenset(i for i in range(len(pot)) if int(mv_m[k]) >> i & 1), int(mv_i[k, 2]))
            for k in range(n)]


def random_position(rng: random.Random, lo: int, hi: int, builds: int = 3):
    """A pot of lo..hi items (loose cards, often low ones so that many sums exist, and up to
    `builds` builds) and a hand of 1-4 cards."""
    size = rng.randint(lo, hi)
    cards = rng.sample(range(104), 4)
    pot = []
    n_builds = rng.randint(0, builds)
    for i in range(size):
        if i < n_builds:
            pot.append((rng.randint(1, 10), rng.choice(["build", "build", "double"]), rng.randint(0, 5)))
        else:
            card = rng.choice(LOW_CARDS) if rng.random() < 0.6 else rng.randrange(104)
            pot.append((card % 13 + 1, "loose", -1))
    rng.shuffle(pot)
    hand = cards[:rng.randint(1, 4)]
    return pot, hand


def check(rng, n, lo, hi, buffers, builds=3):
    seen = {"capture": 0, "build": 0, "double": 0, "raise": 0, "trail": 0}
    for _ in range(n):
        pot, hand = random_position(rng, lo, hi, builds)
        build_instead, raise_double = rng.random() < 0.7, rng.random() < 0.3
        got = kernel_moves(pot, hand, build_instead, raise_double, buffers)
        assert len(got) == len(set(got)), f"a move listed twice: pot {pot}, hand {hand}"
        want = legal_moves(pot, hand, build_instead, raise_double)
        assert set(got) == want, (f"pot {pot}, hand {hand}, build_instead {build_instead}, "
                                  f"raise_double {raise_double}: extra {set(got) - want}, "
                                  f"missing {want - set(got)}")
        for move in got:
            seen[move[1]] += 1
    return seen


def test_small_pots_match_the_reference(buffers):
    """3,000 random positions with pots of 0-7 items: every kind of move comes up many times."""
    seen = check(random.Random(2024), 3000, 0, 7, buffers)
    assert min(seen.values()) > 200, seen


def test_pots_of_ten_and_more_cards_with_several_builds_match_the_reference(buffers):
    """200 positions with pots of 10-11 items, 2-4 of them builds."""
    rng = random.Random(7)
    seen = {"capture": 0, "build": 0, "double": 0, "raise": 0, "trail": 0}
    for _ in range(200):
        pot, hand = random_position(rng, 10, 11, builds=0)
        for k in range(rng.randint(2, 4)):
            pot[k] = (rng.randint(2, 10), rng.choice(["build", "double"]), k)
        got = kernel_moves(pot, hand, True, False, buffers)
        assert len(got) == len(set(got))
        assert set(got) == legal_moves(pot, hand, True, False), (pot, hand)
        for move in got:
            seen[move[1]] += 1
    assert seen["capture"] > 100 and seen["double"] > 50, seen


def test_a_pot_too_rich_to_list_is_refused_not_truncated(buffers):
    """Twenty aces and a 10 in hand: more groups of ten than the buffers hold: -1, never a
    partial list."""
    scratch, (mv_i, mv_m) = buffers
    item_i = np.zeros((E.MAX_ITEMS, E.IT_FIELDS), np.int64)
    for i in range(20):
        item_i[i] = (1, E.ITEM_LOOSE, -1, -1)
    hand = np.array([9, 0, 0, 0], np.int64)  # the 10 of clubs
    assert legal_moves_nb(item_i, 20, hand, 1, True, False, True, mv_i, mv_m, scratch) == -1


def test_without_builds_the_list_is_the_captures_or_the_trails(buffers):
    """A player who never builds (with_builds=False) gets the captures, or else the trails."""
    scratch, (mv_i, mv_m) = buffers
    rng = random.Random(3)
    for _ in range(300):
        pot, hand = random_position(rng, 0, 6)
        item_i = np.zeros((E.MAX_ITEMS, E.IT_FIELDS), np.int64)
        for i, (value, kind, owner) in enumerate(pot):
            item_i[i] = (value, KINDS[kind], owner, -1)
        cards = np.zeros(E.HAND, np.int64)
        cards[:len(hand)] = hand
        n = legal_moves_nb(item_i, len(pot), cards, len(hand), True, False, False, mv_i, mv_m,
                           scratch)
        kinds = {int(k) for k in mv_i[:n, 1]}
        full = legal_moves(pot, hand, True, False)
        captures = {m for m in full if m[1] == "capture"}
        assert kinds <= {E.MV_CAPTURE, E.MV_TRAIL}
        assert n == (len(captures) if captures else len(hand))


def test_one_slots_moves_are_that_slots_part_of_the_full_list(buffers):
    """The random player lists only the card it drew (slot_moves_nb): for every slot, exactly the
    full list's moves of that slot, in the same order, with compulsory capture decided by the whole
    hand (a card that cannot capture has no move while another can); has_moves_nb says whether
    there are any without listing them."""
    scratch, (mv_i, mv_m) = buffers
    rng = random.Random(11)
    for _ in range(400):
        pot, hand = random_position(rng, 0, 8)
        build_instead, raise_double = rng.random() < 0.5, rng.random() < 0.5
        full = kernel_moves(pot, hand, build_instead, raise_double, buffers)
        item_i = np.zeros((E.MAX_ITEMS, E.IT_FIELDS), np.int64)
        for i, (value, kind, owner) in enumerate(pot):
            item_i[i] = (value, KINDS[kind], owner, -1)
        cards = np.zeros(E.HAND, np.int64)
        cards[:len(hand)] = hand
        for slot in range(len(hand)):
            n = slot_moves_nb(item_i, len(pot), cards, len(hand), slot, slot + 1, build_instead,
                              raise_double, True, mv_i, mv_m, scratch)
            got = [(int(mv_i[k, 0]), MOVE_NAMES[int(mv_i[k, 1])],
                    frozenset(i for i in range(len(pot)) if int(mv_m[k]) >> i & 1), int(mv_i[k, 2]))
                   for k in range(n)]
            assert got == [m for m in full if m[0] == slot], (pot, hand, slot)
            capture = any_capture_nb(item_i, len(pot), cards, len(hand))
            assert has_moves_nb(item_i, len(pot), cards, len(hand), slot, capture, build_instead,
                                raise_double) == (n > 0), (pot, hand, slot)


def test_random_player_draws_a_uniform_card_then_a_uniform_move_of_it(buffers):
    """random_move_nb: every card with a legal move about equally often, and within the drawn card
    each of its moves about equally often (4,000 draws; bands of about 5 standard errors)."""
    from kernels.rng_nb import seat_stream_nb
    from kernels.wippen.policies_nb import random_move_nb
    from kernels.jit import njit
    from kernels.wippen.workspace_nb import workspace_nb

    @njit
    def draw(workspace, pn, hn):  # the driver's call, on the workspace's record
        return random_move_nb(workspace[0], 0, pn, hn, True, False)

    pot = [(2, "loose", -1), (3, "loose", -1), (9, "loose", -1)]
    workspace = workspace_nb()  # the driver's: the pot, seat 0's hand, its stream
    item_i = workspace["item_i"][0]
    for i, (value, kind, owner) in enumerate(pot):
        item_i[i] = (value, KINDS[kind], owner, -1)
    hand = [5, 7, 12]  # a 6, an 8 and a king: nothing captures; the 6 can also build 8 on the 2
    workspace["hands"][0, 0, :3] = hand
    mv_i = workspace["mv_i"][0]
    full = kernel_moves(pot, hand, True, False, buffers)
    by_slot = {j: [mv for mv in full if mv[0] == j] for j in range(3)}
    assert len(by_slot[0]) > 1 and len(by_slot[1]) == 1  # cards with different numbers of moves
    workspace["rng"][0, 0] = seat_stream_nb(1, 2, 0)
    slots, picks = np.zeros(3), {}
    draws = 4000
    for _ in range(draws):
        nm, choice = draw(workspace, len(pot), 3)
        slot = int(mv_i[choice, 0])
        assert nm == len(by_slot[slot])
        slots[slot] += 1
        picks[slot, choice] = picks.get((slot, choice), 0) + 1
    assert np.all(np.abs(slots / draws - 1 / 3) < 5 * np.sqrt(2 / 9 / draws)), slots
    for (slot, choice), k in picks.items():
        share = k / slots[slot]
        assert abs(share - 1 / len(by_slot[slot])) < 0.1, (slot, choice, share)
