"""The heuristic's bid model: each card's chance of taking a trick, looked up in a table measured by
self-play (kernels/wizard/bid_tables.py, made by tools/wizard_bid_tables.py), and the bid with the
best expected score given those chances.

A table cell is indexed [players - 3, round bucket, position, card class]:
- round bucket: the cards per hand, grouped (ROUND_BUCKET), with the last round of a full game
  (every card dealt, so no trump and every Wizard in play) a bucket of its own;
- position: the seat's place after the round's leader (0 = bids and leads first);
- card class: Wizard, Jester, or a suited card by its trump situation (trump suit / another suit in
  a trump round / any suit in a no-trump round), its rank and the number of cards of its suit in
  the hand (1, 2, 3, 4+). Suit length gives long trumps, and long suits in no-trump rounds, their
  credit for the tricks their low cards take.

The cell holds the chance, in thousandths, that such a card takes a trick under heuristic play.
The number of tricks is modelled as a sum of independent yes/no per card (a Poisson-binomial).

The bid with the best expected score under that model is not unbiased: the score rewards a high
bid made more than a low one, and the independent-card model misses how a hand's cards share the
tricks. So every card's chance is multiplied by a bid factor, BID_FACTOR[players - 3, round size
- 1, turn kind, position] in thousandths (also measured by self-play, tools/wizard_bid_tables.py),
chosen so that the mean bid equals the mean tricks taken in every (players, round size, turn
kind, position). Turn kinds: a suited card turned (KIND_SUIT), a Wizard turned (the dealer names
trump, one Wizard is out of play: KIND_WIZARD), no trump (a Jester turned, or no card left to
turn: KIND_NO_TRUMP).
"""
import numpy as np

from kernels.jit import ix, njit
from kernels.wizard.enums import (
    FIRST_JESTER, FIRST_WIZARD, MAX_PLAYERS, MAX_ROUNDS, MIN_PLAYERS, N_CARDS, NO_TRUMP,
)
from kernels.wizard.rules_nb import ONE, SUIT_MASK, lowest_card_nb, popcount_nb

# Round buckets by cards per hand (index r = 1..20); the last round of a full game is LAST_BUCKET
ROUND_BUCKET = np.array([0, 0, 1, 2, 3, 3, 4, 4, 4, 5, 5, 5, 5, 6, 6, 6, 6, 6, 6, 6, 6],
                        dtype=np.int64)
LAST_BUCKET = 7
N_BUCKETS = 8
N_LENGTHS = 4  # suit length 1, 2, 3, 4 or more
# Card classes
CLS_WIZARD = 0
CLS_JESTER = 1
CLS_TRUMP = 2  # + rank * N_LENGTHS + (length - 1)
CLS_OFF = CLS_TRUMP + 13 * N_LENGTHS  # a suited card that is not trump, in a round with trump
CLS_NO_TRUMP = CLS_OFF + 13 * N_LENGTHS  # a suited card in a round without trump
N_CLASSES = CLS_NO_TRUMP + 13 * N_LENGTHS  # 158
TABLE_SHAPE = (MAX_PLAYERS - MIN_PLAYERS + 1, N_BUCKETS, MAX_PLAYERS, N_CLASSES)
CHANCE_SCALE = 1000.0  # cells are chances in thousandths
# Turn kinds of a round: what was turned for trump
KIND_SUIT = 0  # a suited card: its suit is trump
KIND_WIZARD = 1  # a Wizard: the dealer names trump
KIND_NO_TRUMP = 2  # a Jester, or no card (the last round of a full game, or final_no_trump)
N_KINDS = 3
FACTOR_SHAPE = (MAX_PLAYERS - MIN_PLAYERS + 1, MAX_ROUNDS, N_KINDS, MAX_PLAYERS)
FACTOR_SCALE = 1000.0  # bid factors in thousandths (1000: the chances as measured)


# The bid bonus cells of the sampler and the search player (SAMPLER_BONUS, SEARCH_BONUS): the turn
# kinds, with the last round of a full game (every card dealt, no card turned) a kind of its own
KIND_LAST = 3
N_BONUS_KINDS = 4
BONUS_SHAPE = (MAX_PLAYERS - MIN_PLAYERS + 1, N_BONUS_KINDS, MAX_PLAYERS)
BONUS_SCALE = 10  # bonuses in tenths of a point per trick bid


@njit
def bonus_kind_nb(turned, n, r):
    """A round's bid bonus cell: its turn kind, or KIND_LAST for a full game's last."""
    if r * n == N_CARDS:
        return KIND_LAST
    return turn_kind_nb(turned)


@njit
def add_bid_bonus_nb(totals, lo, hi, bonus, deals):
    """Bids lo..hi valued on `deals` deals (totals[b - lo]: their summed scores) as scores in tenths
    of a point plus `bonus` tenths per trick bid on every deal, the value the bidders maximise."""
    for b in range(lo, hi + 1):
        totals[b - lo] = BONUS_SCALE * totals[b - lo] + bonus * b * deals


@njit
def turn_kind_nb(turned):
    """Turn kind (KIND_*) of a round from its turned card (-1: none turned)."""
    if turned < 0 or turned >= FIRST_JESTER:
        return KIND_NO_TRUMP
    if turned >= FIRST_WIZARD:
        return KIND_WIZARD
    return KIND_SUIT


@njit
def round_bucket_nb(n, r):
    """Table bucket of a round with r cards per hand among n players."""
    if r * n == N_CARDS:
        return LAST_BUCKET
    return ROUND_BUCKET[r]


@njit
def card_class_nb(card, hand, trump):
    """Table class of `card` in `hand` (the hand as dealt) with trump suit `trump` (or NO_TRUMP)."""
    if card >= FIRST_JESTER:
        return CLS_JESTER
    if card >= FIRST_WIZARD:
        return CLS_WIZARD
    s = card // 13
    length = popcount_nb(hand & SUIT_MASK[s])
    length = min(length, N_LENGTHS)
    if s == trump:
        base = CLS_TRUMP
    elif trump == NO_TRUMP:
        base = CLS_NO_TRUMP
    else:
        base = CLS_OFF
    return base + (card - 13 * s) * N_LENGTHS + length - 1


@njit
def card_chance_nb(table, card, hand, trump, n, bucket, pos):
    """Chance (0..1) that `card` of the dealt `hand` takes a trick."""
    return table[n - MIN_PLAYERS, bucket, pos, card_class_nb(card, hand, trump)] / CHANCE_SCALE


@njit
def expected_tricks_nb(table, hand, trump, n, pos):
    """The sum of the hand's per-card chances (the hand as dealt: its size is the round's)."""
    bucket = round_bucket_nb(n, popcount_nb(hand))
    est = 0.0
    x = hand
    while x:
        c = lowest_card_nb(x)
        x &= x - ONE
        est += card_chance_nb(table, c, hand, trump, n, bucket, pos)
    return est


@njit
def best_bid_nb(table, factors, hand, trump, kind, n, r, pos, forbidden):
    """The legal bid (not `forbidden`, -1 for none) with the best expected score when the tricks
    taken are the sum of independent per-card chances, each multiplied by the bid factor of
    (n, r, kind, pos) and capped at 1. Ties go to the lower bid."""
    bucket = round_bucket_nb(n, r)
    factor = factors[n - MIN_PLAYERS, r - 1, kind, pos] / FACTOR_SCALE
    dist = np.zeros(r + 1)
    dist[0] = 1.0
    m = 0  # cards folded in so far
    x = hand
    while x:
        c = lowest_card_nb(x)
        x &= x - ONE
        p = min(1.0, card_chance_nb(table, c, hand, trump, n, bucket, pos) * factor)
        m += 1
        for t in range(m, 0, -1):
            u = ix(t)  # unsigned: no negative-index code in the innermost loop
            dist[u] = dist[u] * (1.0 - p) + dist[u - ONE] * p
        dist[0] *= 1.0 - p
    # expected score of bid b: (20 + 10 b) P(T = b) - 10 E|T - b| (the -10 |T - b| term is 0 when
    # T = b), with E|T - b| stepped from b to b + 1 by P(T <= b) - P(T > b): one pass, not r^2
    spread = 0.0  # E|T - b|, first for b = 0
    for t in range(1, m + 1):
        spread += t * dist[t]
    below = 0.0  # P(T < b)
    best_b = -1
    best_v = -1e300
    for b in range(r + 1):
        if b > 0:
            spread += 2.0 * below - 1.0
        v = (20.0 + 10.0 * b) * dist[b] - 10.0 * spread
        below += dist[b]
        if b != forbidden and v > best_v + 1e-12:
            best_v = v
            best_b = b
    return best_b
