"""Wippen's rules as small @njit helpers: playing a move onto the pot, a deal's score, the card
count check. Pure functions of their arguments (arrays changed in place where said), so tests call
them one by one."""
import numpy as np

from kernels.jit import inline, njit
from kernels.wippen.enums import (
    IT_CARD, IT_KIND, IT_OWNER, IT_VALUE, ITEM_BUILD, ITEM_DOUBLE, ITEM_LOOSE, MAX_ITEMS, MV_BUILD,
    MV_CAPTURE, MV_RAISE, MV_TRAIL, N_CARDS, R_PTS_ACE, R_PTS_CARDS, R_PTS_DIAMOND_TEN,
    R_PTS_SPADE_TWO, R_PTS_SPADES, R_PTS_WIP, SRC_ACES, SRC_CARDS, SRC_DIAMOND_TEN, SRC_SPADE_TWO,
    SRC_SPADES, SRC_WIPS,
)
from kernels.wippen.table_nb import (
    ACE_SET, DIAMOND_TEN_SET, ONE, SPADE_SET, SPADE_TWO_SET, ZERO, popcount_nb, pot_add_loose_nb,
    pot_take_nb, set_add_nb, set_count_nb,
)

# play_move_nb's outcome flags
TOOK_BUILD_OF_OTHER = 1  # a capture took a build another player made or raised last: a takeover
POT_FULL = 2  # the pot has no room for another item


@inline
def takes_other_build_nb(item_i, pn, mask, seat):
    """Whether the items of mask hold a build whose owner is not seat."""
    for i in range(pn):
        if (mask >> np.uint64(i)) & ONE and item_i[i, IT_KIND] != ITEM_LOOSE \
                and item_i[i, IT_OWNER] != seat:
            return True
    return False


@inline
def remove_slot_nb(hand, hn, slot):
    """Take hand[slot] out, keeping the order of the others; returns the card."""
    card = hand[slot]
    for j in range(slot, hn - 1):
        hand[j] = hand[j + 1]
    return card


@inline
def play_move_nb(item_i, item_m, pn, card, kind, value, mask, seat, pile, tmp):
    """Play card (already out of the hand) as the move (kind, value, mask) of seat onto the pot;
    a capture puts the taken cards and the card into pile (uint64[2]); tmp is a uint64[2] scratch.
    Returns (new item count, flags): a build or double build becomes the pot's last item, a raise
    keeps its place."""
    flags = 0
    if kind == MV_CAPTURE:
        if takes_other_build_nb(item_i, pn, mask, seat):
            flags |= TOOK_BUILD_OF_OTHER
        pn = pot_take_nb(item_i, item_m, pn, mask, pile)
        set_add_nb(pile, card)
    elif kind == MV_TRAIL:
        pn = pot_add_loose_nb(item_i, item_m, pn, card)
        if pn > MAX_ITEMS:
            return MAX_ITEMS, POT_FULL
    elif kind == MV_RAISE:
        i = 0
        while not (mask >> np.uint64(i)) & ONE:
            i += 1
        item_i[i, IT_VALUE] = value
        item_i[i, IT_KIND] = ITEM_BUILD
        item_i[i, IT_OWNER] = seat
        set_add_nb(item_m[i], card)
    else:  # MV_BUILD, MV_DOUBLE: the card and the items become one build at the end
        tmp[0] = ZERO
        tmp[1] = ZERO
        pn = pot_take_nb(item_i, item_m, pn, mask, tmp)
        item_i[pn, IT_VALUE] = value
        item_i[pn, IT_KIND] = ITEM_BUILD if kind == MV_BUILD else ITEM_DOUBLE
        item_i[pn, IT_OWNER] = seat
        item_i[pn, IT_CARD] = -1
        item_m[pn, 0] = tmp[0]
        item_m[pn, 1] = tmp[1]
        set_add_nb(item_m[pn], card)
        pn += 1
    return pn, flags


@njit
def deal_points_nb(piles, n, wips, rule_i, points):
    """The deal's points of each seat by source into points[s, SRC_*] (overwritten): most cards and
    most spades to the one seat with the most (a tie: nobody), the diamond 10s, the spade 2s, the
    aces and the wips, each copy of a card scoring."""
    best_c = -1
    best_s = -1
    n_best_c = 0
    n_best_s = 0
    for s in range(n):
        c = popcount_nb(piles[s, 0]) + popcount_nb(piles[s, 1])
        sp = set_count_nb(piles[s], SPADE_SET)
        if c > best_c:
            best_c = c
            n_best_c = 1
        elif c == best_c:
            n_best_c += 1
        if sp > best_s:
            best_s = sp
            n_best_s = 1
        elif sp == best_s:
            n_best_s += 1
    for s in range(n):
        c = popcount_nb(piles[s, 0]) + popcount_nb(piles[s, 1])
        sp = set_count_nb(piles[s], SPADE_SET)
        points[s, SRC_CARDS] = rule_i[R_PTS_CARDS] if c == best_c and n_best_c == 1 else 0
        points[s, SRC_SPADES] = rule_i[R_PTS_SPADES] if sp == best_s and n_best_s == 1 else 0
        points[s, SRC_DIAMOND_TEN] = rule_i[R_PTS_DIAMOND_TEN] * set_count_nb(piles[s], DIAMOND_TEN_SET)
        points[s, SRC_SPADE_TWO] = rule_i[R_PTS_SPADE_TWO] * set_count_nb(piles[s], SPADE_TWO_SET)
        points[s, SRC_ACES] = rule_i[R_PTS_ACE] * set_count_nb(piles[s], ACE_SET)
        points[s, SRC_WIPS] = rule_i[R_PTS_WIP] * wips[s]


@njit
def cards_conserved_nb(in_play, n_in_play, hands, hand_n, n, stock, top, n_stock, item_m, pn,
                       piles, count):
    """Whether every card in play is in exactly one place (a hand, the stock, the pot, a captured
    pile) and no other card is anywhere; count is an int64[N_CARDS] scratch."""
    count[:] = 0
    for s in range(n):
        for j in range(hand_n[s]):
            count[hands[s, j]] += 1
    for k in range(top, n_stock):
        count[stock[k]] += 1
    for c in range(N_CARDS):
        w = c >> 6
        b = np.uint64(c & 63)
        for i in range(pn):
            if (item_m[i, w] >> b) & ONE:
                count[c] += 1
        for s in range(n):
            if (piles[s, w] >> b) & ONE:
                count[c] += 1
    for k in range(n_in_play):
        if count[in_play[k]] != 1:
            return False
        count[in_play[k]] = 0
    for c in range(N_CARDS):
        if count[c] != 0:
            return False
    return True
