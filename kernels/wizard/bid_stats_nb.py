"""Self-play counts for the heuristic's bid table and the sampler's bid bonus
(tools/wizard_bid_tables.py makes both).

Single rounds of n players with r cards each are dealt at random, every seat bids from a given
table and bid factors (bid_model_nb.best_bid_nb) and the round is played out with heuristic play.
For each card dealt it counts, by the owner's position and the card's class, whether it took a
trick; and for each seat, by the round's turn kind and its position, its bid and its tricks. Rounds of
the heuristic carry nothing over from earlier rounds, so single rounds stand for a game's rounds.
The dealer is seat n-1, so seat s is s places after the leader.
"""
import numpy as np

from kernels.jit import kernel
from kernels.rng_nb import deal_stream_nb, seat_stream_nb
from kernels.wizard.bid_model_nb import best_bid_nb, card_class_nb, bonus_kind_nb, turn_kind_nb
from kernels.wizard.enums import MAX_PLAYERS, N_CARDS
from kernels.wizard.policies_nb import (
    WS_H_SIZE, WS_I_SIZE, heuristic_trick_nb, heuristic_trump_nb, sampler_bid_nb,
)
from kernels.wizard.rules_nb import ONE, ZERO, deal_nb, lowest_card_nb, trump_of_turned_nb


@kernel
def bid_stats_nb(seed, n, r, stream, first, count, table, factors, seen, won, bid_sum, trick_sum):
    """Deals first..first+count-1 of the (n, r) round (deal d from deal_stream_nb(seed, d,
    stream)). Adds to seen[pos, class] each card dealt and to won[pos, class] each card that took a
    trick (int64[MAX_PLAYERS, N_CLASSES]), and to bid_sum[kind, pos] and trick_sum[kind, pos]
    (int64[N_KINDS, MAX_PLAYERS]) each seat's bid and tricks; table and factors: the chances and bid
    factors the seats bid from. Returns the sum over deals and seats of (bid - tricks)."""
    rng = np.zeros(1, dtype=np.uint64)
    deck = np.empty(N_CARDS, dtype=np.int64)
    hands = np.zeros(MAX_PLAYERS, dtype=np.uint64)
    bids = np.zeros(MAX_PLAYERS, dtype=np.int64)
    tricks = np.zeros(MAX_PLAYERS, dtype=np.int64)
    card_class = np.zeros(N_CARDS, dtype=np.int64)
    bias = 0
    for d in range(first, first + count):
        rng[0] = deal_stream_nb(seed, d, stream)
        top = deal_nb(rng, deck, n, r, hands)
        kind = turn_kind_nb(top)
        trump = trump_of_turned_nb(top)
        if trump < 0:
            trump = heuristic_trump_nb(hands[n - 1])
        gone = ZERO if top < 0 else ONE << np.uint64(top)
        for s in range(n):
            bids[s] = best_bid_nb(table, factors, hands[s], trump, kind, n, r, s, -1)
            tricks[s] = 0
            x = hands[s]
            while x:
                c = lowest_card_nb(x)
                x &= x - ONE
                k = card_class_nb(c, hands[s], trump)
                card_class[c] = k
                seen[s, k] += 1
        leader = 0
        for _ in range(r):
            leader, c, gone = heuristic_trick_nb(hands, n, leader, trump, bids, tricks, gone, False)
            won[leader, card_class[c]] += 1
        for s in range(n):
            bias += bids[s] - tricks[s]
            bid_sum[kind, s] += bids[s]
            trick_sum[kind, s] += tricks[s]
    return bias


@kernel
def sampler_stats_nb(seed, n, r, stream, first, count, bonus, bid_sum, trick_sum):
    """Deals first..first+count-1 of the (n, r) round (deal d from deal_stream_nb(seed, d, stream)),
    every seat bidding as the sampler with bid bonus bonus[kind, pos] (int64[N_BONUS_KINDS,
    MAX_PLAYERS], tenths of a point per trick; its deals from seat_stream_nb(seed, d, stream * 8 +
    seat)) and playing heuristically. Adds each seat's bid and tricks to bid_sum[kind, pos] and
    trick_sum[kind, pos] (int64[N_BONUS_KINDS, MAX_PLAYERS], kinds of bid_model_nb.bonus_kind_nb)."""
    rng = np.zeros(1, dtype=np.uint64)
    seat_rng = np.zeros(MAX_PLAYERS, dtype=np.uint64)
    deck = np.empty(N_CARDS, dtype=np.int64)
    hands = np.zeros(MAX_PLAYERS, dtype=np.uint64)
    bids = np.zeros(MAX_PLAYERS, dtype=np.int64)
    tricks = np.zeros(MAX_PLAYERS, dtype=np.int64)
    ws_i = np.zeros(WS_I_SIZE, dtype=np.int64)
    ws_h = np.zeros(WS_H_SIZE, dtype=np.uint64)
    for d in range(first, first + count):
        rng[0] = deal_stream_nb(seed, d, stream)
        top = deal_nb(rng, deck, n, r, hands)
        kind = bonus_kind_nb(top, n, r)
        trump = trump_of_turned_nb(top)
        if trump < 0:
            trump = heuristic_trump_nb(hands[n - 1])
        gone = ZERO if top < 0 else ONE << np.uint64(top)
        for s in range(n):
            seat_rng[s] = seat_stream_nb(seed, d, stream * 8 + s)
        for s in range(n):
            bids[s] = sampler_bid_nb(seat_rng, hands[s], trump, top, n, r, s, n - 1, bids, False,
                                     False, ws_i, ws_h, bonus[kind, s])
            tricks[s] = 0
        leader = 0
        for _ in range(r):
            leader, c, gone = heuristic_trick_nb(hands, n, leader, trump, bids, tricks, gone, False)
        for s in range(n):
            bid_sum[kind, s] += bids[s]
            trick_sum[kind, s] += tricks[s]
