"""Wippen's players: each picks one move from the turn's legal list (moves_nb.legal_moves_nb); the
random player lists only the moves of the card it drew.

Every player sees only what its seat may know: its own hand, the pot, the cards laid open or played
this deal (counted per value by the driver in `public`), the cards removed before the deal, how
many cards each player holds and how many are left in the stock.

- random: a uniform card among those with a legal move, then a uniform legal move of that card
  (its seat's own stream). Drawing the card first spares listing every build of the other cards.
- greedy: the capture worth most (point cards, spades, cards, a wip); without one, a trail of the
  card worth least. Never builds.
- defensive: greedy's worth of a move minus `risk` times what the next player could take from the
  pot it leaves, judged from the cards it has not seen.
- builder: sets up builds for values it holds and collects them: a build whose value the next
  player holds with chance at most `max_risk`, when it is worth more than the best capture;
  otherwise greedy, keeping the cards it built for.
"""
import numpy as np

from kernels.jit import borrowing, inline, ix, njit
from kernels.rng_nb import next_word_nb, uniform_nb
from kernels.wippen.enums import (
    IT_KIND, IT_OWNER, IT_VALUE, ITEM_LOOSE, MAX_NUMBER, MV_CAPTURE, MV_TRAIL, N_CARDS,
    N_RANKS, R_PTS_ACE, R_PTS_CARDS, R_PTS_DIAMOND_TEN, R_PTS_SPADE_TWO, R_PTS_SPADES,
)
from kernels.wippen.moves_nb import (
    any_capture_nb, candidates_nb, card_moves_nb, groups_nb, has_moves_nb,
)
from kernels.wippen.rules_nb import play_move_nb
from kernels.wippen.table_nb import (
    ACE_SET, DIAMOND_TEN_SET, ONE, SPADE_SET, SPADE_TWO_SET, ZERO, popcount_nb, set_has_nb,
    card_value_nb,
)
from kernels.wippen.workspace_nb import scratch_of_nb

# A card's worth to greedy players, per point of the rule that scores it: most cards and most
# spades are shared out over many cards, so a card or a spade is worth a small part of a point
CARD_WEIGHT = 0.05  # per point of points_most_cards
SPADE_WEIGHT = 0.15  # per point of points_most_spades
OWN_BUILD_BONUS = 1.0  # builder: collecting its own build comes first
KEEP_PENALTY = 2.0  # builder: trailing a card it built for


@njit
def card_worth_nb(rule_i, worth):
    """worth[c]: what capturing card c is worth (float64[N_CARDS], overwritten)."""
    for c in range(N_CARDS):
        w = CARD_WEIGHT * rule_i[R_PTS_CARDS]
        if set_has_nb(SPADE_SET, c):
            w += SPADE_WEIGHT * rule_i[R_PTS_SPADES]
        if set_has_nb(ACE_SET, c):
            w += rule_i[R_PTS_ACE]
        if set_has_nb(DIAMOND_TEN_SET, c):
            w += rule_i[R_PTS_DIAMOND_TEN]
        if set_has_nb(SPADE_TWO_SET, c):
            w += rule_i[R_PTS_SPADE_TWO]
        worth[c] = w


@njit
def set_worth_nb(lo, hi, worth):
    """Total worth of the cards of a set (two words)."""
    total = 0.0
    x = lo
    while x:
        total += worth[popcount_nb(~x & (x - ONE))]
        x &= x - ONE
    x = hi
    while x:
        total += worth[64 + popcount_nb(~x & (x - ONE))]
        x &= x - ONE
    return total


@inline
def item_worths_nb(item_m, pn, worth, item_w):
    """item_w[i]: the worth of pot item i's cards."""
    for i in range(pn):
        item_w[i] = set_worth_nb(item_m[i, 0], item_m[i, 1], worth)


@njit
def all_items_nb(pn):
    """The mask of every item of a pot of pn items."""
    return ~ZERO if pn >= 64 else (ONE << np.uint64(pn)) - ONE


@inline
def mask_worth_nb(mask, item_w):
    """The worth of the pot items of mask, summed in item order (their set bits, low to high)."""
    total = 0.0
    x = mask
    while x:
        total += item_w[popcount_nb(~x & (x - ONE))]
        x &= x - ONE
    return total


@inline
def move_gain_nb(kind, card, mask, item_w, pn, worth, wip_points, stock_left):
    """Greedy worth of a move: a capture's cards (the card played too) and its wip; a trail loses
    the card's worth to the pot; builds and raises score nothing now."""
    if kind == MV_CAPTURE:
        gain = worth[ix(card)] + mask_worth_nb(mask, item_w)
        if stock_left > 0 and mask == all_items_nb(pn):
            gain += wip_points
        return gain
    if kind == MV_TRAIL:
        return -worth[ix(card)]
    return 0.0


@borrowing
def random_move_nb(ws, s, pn, hn, build_instead, raise_double):
    """A random player's move: a uniform card among those with a legal move (a card without one is
    set aside and another drawn), then a uniform legal move of that card, from seat s's stream.
    Returns (moves of the card, listed in the workspace's move list; the chosen index); 0 moves:
    none at all, -1: the list overflowed. Only the drawn card's moves are listed, and a card is
    found to have none without listing (has_moves_nb).

    A call without reference counting (`borrowing`: it only indexes the driver's arrays), not
    inlined: inlined, each helper that takes an array cost an NRT_incref/NRT_decref call pair, and
    the move generator's copy here has many. It takes the driver's workspace (workspace_nb), not
    its arrays: each array argument is several words copied on every call."""
    item_i = ws["item_i"]
    hand = ws["hands"][s]
    mv_i = ws["mv_i"]
    mv_m = ws["mv_m"]
    scratch = scratch_of_nb(ws)
    rng = ws["rng"]
    capture = any_capture_nb(item_i, pn, hand, hn)
    tried = 0
    left = hn
    while left > 0:
        rng[s], u = next_word_nb(rng[s])
        k = uniform_nb(u, left)
        slot = 0
        for x in range(hn):
            if not (tried >> x) & 1:
                if k == 0:
                    slot = x
                    break
                k -= 1
        if has_moves_nb(item_i, pn, hand, hn, slot, capture, build_instead, raise_double):
            nm = card_moves_nb(item_i, pn, hand, hn, slot, slot + 1, capture, build_instead,
                               raise_double, True, mv_i, mv_m, scratch)
            if nm < 0:
                return nm, -1
            if nm > 0:
                rng[s], u = next_word_nb(rng[s])
                return nm, uniform_nb(u, nm)
        tried |= 1 << slot
        left -= 1
    return 0, -1


@inline
def greedy_move_nb(mv_i, mv_m, nm, hand, item_w, pn, worth, wip_points, stock_left):
    """The capture worth most, else the trail worth least (the first of equals)."""
    best = -1
    best_gain = -1e300
    for k in range(nm):
        kind = mv_i[k, 1]
        if kind != MV_CAPTURE and kind != MV_TRAIL:
            continue
        gain = move_gain_nb(kind, hand[ix(mv_i[k, 0])], mv_m[k], item_w, pn, worth, wip_points,
                            stock_left)
        if gain > best_gain:
            best_gain = gain
            best = k
    return best


@borrowing
def greedy_turn_nb(ws, s, pn, hn, build_instead, raise_double, wip_points, stock_left):
    """Seat s's greedy turn: (legal moves without builds, listed in the workspace's move list; the
    chosen index, -1 when there are none). A call without reference counting on the driver's
    workspace, as random_move_nb: inlined into the driver, the listing, the worths and the choice
    cost an NRT_incref/NRT_decref pair per array a helper takes."""
    item_i = ws["item_i"]
    item_m = ws["item_m"]
    hand = ws["hands"][s]
    mv_i = ws["mv_i"]
    mv_m = ws["mv_m"]
    item_w = ws["item_w"]
    worth = ws["worth"]
    capture = any_capture_nb(item_i, pn, hand, hn)  # legal_moves_nb, with the generator inlined
    nm = card_moves_nb(item_i, pn, hand, hn, 0, hn, capture, build_instead, raise_double, False,
                       mv_i, mv_m, scratch_of_nb(ws))
    if nm <= 0:
        return nm, -1
    item_worths_nb(item_m, pn, worth, item_w)
    return nm, greedy_move_nb(mv_i, mv_m, nm, hand, item_w, pn, worth, wip_points, stock_left)


@njit
def hold_chances_nb(in_play, public, hand, hn, next_hand, chance):
    """chance[v] (v = 1..13): the chance that the next player holds a card of value v, from the
    cards this seat has not seen (in play, not public this deal, not in its hand), as if the next
    player's next_hand cards were drawn from them at random."""
    unseen_total = 0
    for v in range(1, N_RANKS + 1):
        u = in_play[v] - public[v]
        for j in range(hn):
            if card_value_nb(hand[j]) == v:
                u -= 1
        chance[v] = u
        unseen_total += u
    for v in range(1, N_RANKS + 1):
        if unseen_total <= 0 or next_hand <= 0:
            chance[v] = 0.0
        else:
            chance[v] = 1.0 - (1.0 - chance[v] / unseen_total) ** next_hand


@njit
def threat_nb(item_i, item_m, pn, worth, chance, wip_points, stock_left, cand, cval, stack,
              groups):
    """What the next player could take from this pot, weighted by the chance it holds the value:
    for each value v, the worth of every item some capture with v can reach (and a wip when that
    is the whole pot)."""
    if pn == 0:
        return 0.0
    full = all_items_nb(pn)
    threat = 0.0
    for v in range(1, N_RANKS + 1):
        if chance[v] <= 0.0:
            continue
        covered = ZERO
        for i in range(pn):
            kind = item_i[i, IT_KIND]
            if item_i[i, IT_VALUE] == v and (kind == ITEM_LOOSE or v <= MAX_NUMBER):
                covered |= ONE << np.uint64(i)
        if v <= MAX_NUMBER:
            m = candidates_nb(item_i, pn, v, ZERO, cand, cval)
            ng = groups_nb(cand, cval, m, v, stack, groups, 0)
            for g in range(ng):
                covered |= groups[g]
        if covered == ZERO:
            continue
        take = 0.0
        for i in range(pn):
            if (covered >> np.uint64(i)) & ONE:
                take += set_worth_nb(item_m[i, 0], item_m[i, 1], worth)
        if covered == full and stock_left > 0:
            take += wip_points
        threat += chance[v] * take
    return threat


@njit
def builder_move_nb(mv_i, mv_m, nm, hand, item_i, pn, item_w, worth, wip_points, stock_left,
                    seat, chance, max_risk):
    """Collect its own builds first; else the build worth most (the card and what it builds on)
    among those whose value the next player holds with chance <= max_risk, when it is worth more
    than the best capture; else greedy, not trailing a card it built for."""
    own = ZERO  # its builds on the pot
    own_values = 0
    for i in range(pn):
        if item_i[i, IT_KIND] != ITEM_LOOSE and item_i[i, IT_OWNER] == seat:
            own |= ONE << np.uint64(i)
            own_values |= 1 << item_i[i, IT_VALUE]
    best = -1
    best_gain = -1e300
    best_build = -1
    best_build_gain = -1e300
    for k in range(nm):
        kind = mv_i[k, 1]
        card = hand[mv_i[k, 0]]
        mask = mv_m[k]
        if kind == MV_CAPTURE or kind == MV_TRAIL:
            gain = move_gain_nb(kind, card, mask, item_w, pn, worth, wip_points, stock_left)
            if kind == MV_CAPTURE and mask & own != ZERO:
                gain += OWN_BUILD_BONUS
            if kind == MV_TRAIL and (own_values >> card_value_nb(card)) & 1:
                gain -= KEEP_PENALTY
            if gain > best_gain:
                best_gain = gain
                best = k
        elif chance[mv_i[k, 2]] <= max_risk:
            gain = worth[card] + mask_worth_nb(mask, item_w)
            if gain > best_build_gain:
                best_build_gain = gain
                best_build = k
    if best_build >= 0 and (best < 0 or mv_i[best, 1] == MV_TRAIL or best_build_gain > best_gain):
        return best_build
    if best < 0:
        return 0
    return best


@njit
def defensive_move_nb(mv_i, mv_m, nm, hand, item_i, item_m, pn, item_w, worth, wip_points,
                      stock_left, seat, chance, risk, after_i, after_m, tmp, pile, cand, cval,
                      stack, groups):
    """Greedy's worth of each capture or trail minus risk times the threat of the pot it leaves
    (the first best)."""
    best = -1
    best_score = -1e300
    for k in range(nm):
        kind = mv_i[k, 1]
        if kind != MV_CAPTURE and kind != MV_TRAIL:
            continue
        card = hand[mv_i[k, 0]]
        gain = move_gain_nb(kind, card, mv_m[k], item_w, pn, worth, wip_points, stock_left)
        for i in range(pn):
            for f in range(item_i.shape[1]):
                after_i[i, f] = item_i[i, f]
            after_m[i, 0] = item_m[i, 0]
            after_m[i, 1] = item_m[i, 1]
        pile[0] = ZERO
        pile[1] = ZERO
        left, _ = play_move_nb(after_i, after_m, pn, card, kind, mv_i[k, 2], mv_m[k], seat, pile, tmp)
        score = gain - risk * threat_nb(after_i, after_m, left, worth, chance, wip_points,
                                        stock_left, cand, cval, stack, groups)
        if score > best_score:
            best_score = score
            best = k
    return best
