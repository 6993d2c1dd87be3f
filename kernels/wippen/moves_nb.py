"""Wippen's legal moves: every distinct capture, build, double build, raise and trail of a turn,
each exactly once.

A move is (hand slot, kind, take mask, value): the mask names the pot items the move uses (bit i =
item i, kernels/wippen/enums.py). Two moves are the same move when they play the same hand slot
and leave the same table: so captures are distinct sets of items taken, builds distinct sets of
items built on for one value.

How (docs/rules/wippen.md):
- groups_nb lists the sets of loose number cards (not builds, never face cards) that add up to a
  value, by a depth-first walk over the candidates sorted high to low, pruned where the cards left
  cannot reach the value or the next card overshoots it;
- unions_nb lists every union of pairwise disjoint groups (the empty union included) by a
  depth-first walk over the groups, then drops the repeats (one set of cards can often be split
  into groups in more than one way);
- a capture with a number card takes any subset of the builds of its value plus any such union; a
  face card takes any non-empty set of loose cards of its rank;
- a build for value V plays card w onto loose cards S adding up to V - w, and any union of other
  V-groups (loose cards adding up to V, builds of value V) disjoint from S makes it a double build.

The lists are written into caller-owned arrays; every function returns the new count, or -1 when a
buffer would overflow (the driver then stops the game with INVARIANT: it never truncates a list).
"""
import numpy as np

from kernels.jit import borrowing, inline, ix, njit
from kernels.wippen.enums import (
    IT_KIND, IT_VALUE, ITEM_BUILD, ITEM_DOUBLE, ITEM_LOOSE, MAX_GROUPS, MAX_ITEMS, MAX_MOVES,
    MAX_NUMBER, MV_BUILD, MV_CAPTURE, MV_DOUBLE, MV_RAISE, MV_TRAIL,
)
from kernels.wippen.table_nb import ONE, ZERO, card_value_nb

ALL_SUMS = (1 << (MAX_NUMBER + 1)) - 1


GSPAN_TOP = 2 * (MAX_NUMBER + 1)  # gspan[2v], gspan[2v+1]: value v's groups; gspan[GSPAN_TOP]: fill


@njit
def scratch_nb():
    """The work arrays of the move generator: candidate items and values, a walk stack, the
    turn's groups by value (groups, gspan), a list of groups to combine, unions."""
    return (np.empty(MAX_ITEMS, np.int64), np.empty(MAX_ITEMS, np.int64),
            np.empty(MAX_ITEMS + 1, np.int64), np.empty(MAX_GROUPS, np.uint64),
            np.empty(GSPAN_TOP + 1, np.int64), np.empty(MAX_GROUPS, np.uint64),
            np.empty(MAX_MOVES, np.uint64))


@njit
def move_arrays_nb():
    """A move list: mv_i[k] = (slot, kind, value), mv_m[k] = take mask."""
    return np.empty((MAX_MOVES, 3), np.int64), np.empty(MAX_MOVES, np.uint64)


# ---------------------------------------------------------------- building blocks
@inline
def candidates_nb(item_i, pn, limit, exclude, cand, cval):
    """Loose number cards on the pot with value <= limit, not in the mask exclude, sorted by value
    high to low (item index low to high among equals) into cand (items) and cval (values);
    returns their number."""
    m = 0
    for i in range(pn):
        v = item_i[i, IT_VALUE]
        if item_i[i, IT_KIND] == ITEM_LOOSE and v <= limit and not (exclude >> np.uint64(i)) & ONE:
            k = ix(m)
            while k > ZERO and cval[k - ONE] < v:
                cand[k] = cand[k - ONE]
                cval[k] = cval[k - ONE]
                k -= ONE
            cand[k] = i
            cval[k] = v
            m += 1
    return m


@inline
def sum_reachable_nb(item_i, pn, target):
    """Whether some loose number cards of the pot add up to target (1..10): a bitset of the
    reachable sums."""
    reach = 1
    for i in range(pn):
        v = item_i[i, IT_VALUE]
        if item_i[i, IT_KIND] == ITEM_LOOSE and v <= target:
            reach |= (reach << v) & ALL_SUMS
            if (reach >> target) & 1:
                return True
    return False


@inline
def groups_nb(cand, cval, m, target, stack, groups, g0):
    """Append to groups[g0:] the item mask of every set of the m candidates whose values add up to
    target (each set once); returns the new count, -1 when groups is full."""
    ng = g0
    total = 0
    for k in range(m):
        total += cval[k]
    if total < target:
        return ng
    # left[k]: the sum of candidates k.. (the walk stops where they cannot reach the target)
    depth = 0
    s = 0
    left = total
    mask = ZERO
    i = 0
    while True:
        if i < m and s + left >= target:
            v = cval[ix(i)]
            left -= v
            if s + v <= target:
                bit = ONE << np.uint64(cand[ix(i)])
                if s + v == target:
                    if ng >= groups.shape[0]:
                        return -1
                    groups[ix(ng)] = mask | bit
                    ng += 1
                else:
                    stack[ix(depth)] = i
                    depth += 1
                    s += v
                    mask |= bit
            i += 1
        else:
            if depth == 0:
                return ng
            depth -= 1
            j = stack[ix(depth)]
            s -= cval[ix(j)]
            mask ^= ONE << np.uint64(cand[ix(j)])
            # candidates j+1.. are again available
            left = 0
            for k in range(j + 1, m):
                left += cval[ix(k)]
            i = j + 1


@inline
def dedupe_nb(buf, lo, hi):
    """Sort buf[lo:hi] in place (insertion sort: the lists are short) and drop repeats; returns
    the new end."""
    if hi - lo < 2:
        return hi
    for i in range(lo + 1, hi):
        x = buf[ix(i)]
        j = i
        while j > lo and buf[ix(j - 1)] > x:
            buf[ix(j)] = buf[ix(j - 1)]
            j -= 1
        buf[ix(j)] = x
    k = lo + 1
    for i in range(lo + 1, hi):
        if buf[ix(i)] != buf[ix(k - 1)]:
            buf[ix(k)] = buf[ix(i)]
            k += 1
    return k


@inline
def unions_nb(groups, g_lo, g_hi, base, stack, unions, u0):
    """Append to unions[u0:] base | U for every union U of pairwise disjoint groups[g_lo:g_hi]
    disjoint from base, the empty union first; repeats dropped (the empty union stays first).
    Returns the new count, -1 when unions is full."""
    if u0 >= unions.shape[0]:
        return -1
    unions[ix(u0)] = base
    nu = u0 + 1
    depth = 0
    cur = base
    i = g_lo
    while True:
        if i < g_hi:
            g = groups[ix(i)]
            if g & cur == ZERO:
                if nu >= unions.shape[0]:
                    return -1
                stack[ix(depth)] = i
                depth += 1
                cur |= g
                unions[ix(nu)] = cur
                nu += 1
            i += 1
        else:
            if depth == 0:
                break
            depth -= 1
            j = stack[ix(depth)]
            cur ^= groups[ix(j)]
            i = j + 1
    return dedupe_nb(unions, u0 + 1, nu)


@inline
def push_nb(mv_i, mv_m, nm, slot, kind, value, mask):
    """Append a move; -1 when the list is full (nm < 0 stays -1)."""
    if nm < 0 or nm >= mv_m.shape[0]:
        return -1
    k = ix(nm)
    mv_i[k, 0] = slot
    mv_i[k, 1] = kind
    mv_i[k, 2] = value
    mv_m[k] = mask
    return nm + 1


# ---------------------------------------------------------------- captures
@inline
def can_capture_nb(item_i, pn, card):
    """Whether card takes anything: a face card a loose card of its rank; a number card a build of
    its value or loose number cards adding up to it."""
    v = card_value_nb(card)
    if v > MAX_NUMBER:
        for i in range(pn):
            if item_i[i, IT_KIND] == ITEM_LOOSE and item_i[i, IT_VALUE] == v:
                return True
        return False
    for i in range(pn):
        if item_i[i, IT_KIND] != ITEM_LOOSE and item_i[i, IT_VALUE] == v:
            return True
    return sum_reachable_nb(item_i, pn, v)


@inline
def groups_of_nb(v, cand, cval, m, stack, groups, gspan):
    """(lo, hi): where groups holds the groups of value v of this turn's pot, whose loose number
    cards are cand[:m] (values cval, high to low); listed on first use (gspan[2v] < 0), then
    reused. hi = -1 when groups is full."""
    if gspan[2 * v] >= 0:
        return gspan[2 * v], gspan[2 * v + 1]
    top = gspan[GSPAN_TOP]
    start = 0
    while start < m and cval[start] > v:
        start += 1
    hi = groups_nb(cand[start:], cval[start:], m - start, v, stack, groups, top)
    if hi < 0:
        return 0, -1
    gspan[2 * v] = top
    gspan[2 * v + 1] = hi
    gspan[GSPAN_TOP] = hi
    return top, hi


@inline
def captures_nb(item_i, pn, slot, card, mv_i, mv_m, nm, cand, cval, m, stack, groups, gspan,
                unions):
    """Append every capture of the card in hand slot `slot`; returns the new count (-1: full).
    cand[:m]: the pot's loose number cards, high to low."""
    v = card_value_nb(card)
    same = ZERO  # a face card: the loose cards of its rank; a number card: the builds of its value
    for i in range(pn):
        kind = item_i[i, IT_KIND]
        if item_i[i, IT_VALUE] == v and (kind == ITEM_LOOSE) == (v > MAX_NUMBER):
            same |= ONE << np.uint64(i)
    if v > MAX_NUMBER:  # any non-empty set of the loose cards of its rank
        sub = same
        while sub != ZERO:
            nm = push_nb(mv_i, mv_m, nm, slot, MV_CAPTURE, v, sub)
            sub = (sub - ONE) & same
        return nm
    lo, hi = groups_of_nb(v, cand, cval, m, stack, groups, gspan)
    if hi < 0:
        return -1
    nu = unions_nb(groups, lo, hi, ZERO, stack, unions, 0)
    if nu < 0:
        return -1
    sub = same  # every subset of the builds of its value (the empty one last)
    while True:
        for u in range(nu):
            mask = sub | unions[u]
            if mask != ZERO:
                nm = push_nb(mv_i, mv_m, nm, slot, MV_CAPTURE, v, mask)
        if sub == ZERO:
            break
        sub = (sub - ONE) & same
    return nm


# ---------------------------------------------------------------- builds, double builds, raises
@inline
def held_values_nb(hand, hn, slot):
    """Bit V set for every number value V (1..10) held in hand besides slot (what the player still
    holds after playing slot)."""
    held = 0
    for j in range(hn):
        if j != slot:
            v = card_value_nb(hand[j])
            if v <= MAX_NUMBER:
                held |= 1 << v
    return held


@inline
def mask_sum_nb(item_i, mask, pn):
    s = 0
    for i in range(pn):
        if (mask >> np.uint64(i)) & ONE:
            s += item_i[i, IT_VALUE]
    return s


@inline
def builds_nb(item_i, pn, slot, card, held, mv_i, mv_m, nm, cand, cval, m, stack, groups, gspan,
              joint, unions):
    """Append every build and double build the card in `slot` can make for a value held after the
    play (bits of held); returns the new count (-1: full). cand[:m]: the pot's loose number cards,
    high to low; joint: scratch for the groups that may join."""
    w = card_value_nb(card)
    if w > MAX_NUMBER:
        return nm
    for V in range(w, MAX_NUMBER + 1):
        if not (held >> V) & 1:
            continue
        need = V - w
        o_lo, o_hi = 0, 0
        if need > 0:  # the card's own group: loose cards S adding up to V - w (none: no build)
            o_lo, o_hi = groups_of_nb(need, cand, cval, m, stack, groups, gspan)
            if o_hi < 0:
                return -1
            if o_hi == o_lo:
                continue
        # the V-groups that may join as further groups: loose cards adding up to V, builds of V
        lo, hi = groups_of_nb(V, cand, cval, m, stack, groups, gspan)
        if hi < 0:
            return -1
        nj = 0
        for g in range(lo, hi):
            joint[nj] = groups[g]
            nj += 1
        for i in range(pn):
            if item_i[i, IT_KIND] != ITEM_LOOSE and item_i[i, IT_VALUE] == V:
                if nj >= joint.shape[0]:
                    return -1
                joint[nj] = ONE << np.uint64(i)
                nj += 1
        nu = 0
        u0 = 0
        several = False  # own groups: with one, unions[0] is the plain build, the rest doubles
        if need == 0:  # the card alone is its group: it needs a further group
            if nj == 0:
                continue
            nu = unions_nb(joint, 0, nj, ZERO, stack, unions, 0)
            u0 = 1  # the empty union: the card alone is a trail, not a build
        else:  # each own group, joined by any union of the V-groups
            for k in range(o_lo, o_hi):
                nu = unions_nb(joint, 0, nj, groups[k], stack, unions, nu)
                if nu < 0:
                    return -1
            several = o_hi - o_lo > 1
            if several:  # two own groups can end in the same build
                nu = dedupe_nb(unions, 0, nu)
        if nu < 0:
            return -1
        for u in range(u0, nu):
            mask = unions[u]
            if several:  # sorted: a plain build is one whose cards add up to just V - w
                kind = MV_BUILD if mask_sum_nb(item_i, mask, pn) == need else MV_DOUBLE
            else:
                kind = MV_BUILD if u == 0 else MV_DOUBLE
            nm = push_nb(mv_i, mv_m, nm, slot, kind, V, mask)
    return nm


@inline
def raise_value_nb(item_i, i, w, held, raise_double):
    """The value a card of value w raises pot item i to, when that is a raise: the item is a build
    (a double build only when raise_double) and the new value is one held after the play (bits
    of held); else -1."""
    kind = item_i[i, IT_KIND]
    if kind == ITEM_BUILD or (kind == ITEM_DOUBLE and raise_double):
        V = item_i[i, IT_VALUE] + w
        if V <= MAX_NUMBER and (held >> V) & 1:
            return V
    return -1


@inline
def raises_nb(item_i, pn, slot, card, held, raise_double, mv_i, mv_m, nm):
    """Append every raise: the card in `slot` added to one build (a double build only when
    raise_double) for a higher value held after the play; returns the new count (-1: full)."""
    w = card_value_nb(card)
    if w > MAX_NUMBER:
        return nm
    for i in range(pn):
        V = raise_value_nb(item_i, i, w, held, raise_double)
        if V >= 0:
            nm = push_nb(mv_i, mv_m, nm, slot, MV_RAISE, V, ONE << np.uint64(i))
    return nm


# ---------------------------------------------------------------- the turn
@inline
def any_capture_nb(item_i, pn, hand, hn):
    for j in range(hn):
        if can_capture_nb(item_i, pn, hand[j]):
            return True
    return False


@inline
def legal_moves_nb(item_i, pn, hand, hn, build_instead, raise_double, with_builds, mv_i, mv_m,
                   scratch):
    """Every legal move of a player holding hand[:hn] before the pot (slot_moves_nb of every slot)."""
    return slot_moves_nb(item_i, pn, hand, hn, 0, hn, build_instead, raise_double, with_builds,
                         mv_i, mv_m, scratch)


@njit
def all_moves_nb(item_i, pn, hand, hn, build_instead, raise_double, mv_i, mv_m, scratch):
    """Every legal move, builds included, as a call rather than another inlined copy of the
    generator (each copy lengthens a driver's compile): for the search's play-outs and the
    driver's checks, where one call per turn costs nothing that matters."""
    return legal_moves_nb(item_i, pn, hand, hn, build_instead, raise_double, True, mv_i, mv_m,
                          scratch)


@inline
def slot_moves_nb(item_i, pn, hand, hn, first_slot, end_slot, build_instead, raise_double,
                  with_builds, mv_i, mv_m, scratch):
    """The legal moves with the cards in slots first_slot..end_slot-1 of hand[:hn] (the whole hand
    decides whether capturing is compulsory), by slot, captures first (card_moves_nb)."""
    capture = any_capture_nb(item_i, pn, hand, hn)
    return card_moves_call_nb(item_i, pn, hand, hn, np.int64(first_slot), np.int64(end_slot),
                              capture, build_instead, raise_double, np.bool_(with_builds), mv_i,
                              mv_m, scratch)


@inline
def card_moves_nb(item_i, pn, hand, hn, first_slot, end_slot, capture, build_instead,
                  raise_double, with_builds, mv_i, mv_m, scratch):
    """slot_moves_nb with `capture` (some card of the hand can capture: any_capture_nb) given.

    Capturing is compulsory: while some card can capture, the moves are the captures, and (when
    build_instead) the builds, double builds and raises. Otherwise: the builds, double builds,
    raises and a trail of each card (an empty pot leaves only the trails). with_builds=False leaves
    out the builds, double builds and raises (a player who never builds). Returns the count, -1 when
    a list overflowed."""
    cand, cval, stack, groups, gspan, joint, unions = scratch
    builds = with_builds and (build_instead or not capture) and pn > 0
    m = -1  # the pot's candidates, listed when a card first needs them
    nm = 0
    for j in range(first_slot, end_slot):
        card = hand[j]
        held = 0
        if builds and card_value_nb(card) <= MAX_NUMBER:
            held = held_values_nb(hand, hn, j)
        if m < 0 and (capture or held):
            m = candidates_nb(item_i, pn, MAX_NUMBER, ZERO, cand, cval)
            gspan[:] = -1
            gspan[GSPAN_TOP] = 0
        if capture:
            nm = captures_nb(item_i, pn, j, card, mv_i, mv_m, nm, cand, cval, m, stack, groups,
                             gspan, unions)
        if held and nm >= 0:
            nm = builds_nb(item_i, pn, j, card, held, mv_i, mv_m, nm, cand, cval, m, stack,
                           groups, gspan, joint, unions)
            nm = raises_nb(item_i, pn, j, card, held, raise_double, mv_i, mv_m, nm)
        if not capture:
            nm = push_nb(mv_i, mv_m, nm, j, MV_TRAIL, card_value_nb(card), ZERO)
        if nm < 0:
            return -1
    return nm


# The builder's, defensive's, the checks' and the search's turns call this copy, without
# reference counting, rather than inline another: Numba typed each inlined copy anew inside its
# large caller, most of Wippen's compile. Random's and greedy's turns keep theirs inlined (calling
# this one cost them 4-7 % of speed). Callers pass int64 slots and a bool with_builds (one
# specialisation, not one per literal).
card_moves_call_nb = borrowing(getattr(card_moves_nb, "py_func", card_moves_nb))  # (jit disabled)


@inline
def builds_or_raises_nb(item_i, pn, card, held, raise_double):
    """Whether a card that captures nothing has a build or a raise for a value held after the
    play (bits of held), without listing them: a build for V > w on loose cards adding up to
    V - w, or a raise of a build to a value held. (A build for V = w would need a V-group on the
    pot, which the card could capture.)"""
    w = card_value_nb(card)
    if w > MAX_NUMBER:
        return False
    for V in range(w + 1, MAX_NUMBER + 1):
        if (held >> V) & 1 and sum_reachable_nb(item_i, pn, V - w):
            return True
    for i in range(pn):
        if raise_value_nb(item_i, i, w, held, raise_double) >= 0:
            return True
    return False


@inline
def has_moves_nb(item_i, pn, hand, hn, slot, capture, build_instead, raise_double):
    """Whether the card in `slot` has a legal move (card_moves_nb would list one), without listing
    them: with nothing to capture, its trail; else a capture, or (when build_instead) a build or
    a raise."""
    if not capture:
        return True
    card = hand[slot]
    if can_capture_nb(item_i, pn, card):
        return True
    return build_instead and builds_or_raises_nb(item_i, pn, card, held_values_nb(hand, hn, slot),
                                                 raise_double)
