"""The Wippen table: card tables, the deck of a deal (face cards removed until it divides), card
sets as two uint64 words, and the pot as a list of items (loose cards and builds).

All helpers are small pure functions of their arguments (arrays are changed in place where the
docstring says so), so tests call them one by one.
"""
import numpy as np

from kernels.jit import inline, ix, njit
from kernels.rng_nb import shuffle_from_nb
from kernels.wippen.enums import (
    ACE, DECK_CARDS, DIAMONDS, HAND, IT_CARD, IT_KIND, IT_OWNER, IT_VALUE, ITEM_LOOSE, JACK, KING,
    MAX_ITEMS, N_CARDS, N_RANKS, POT_START, QUEEN, SPADES, TEN,
)

ZERO = np.uint64(0)
ONE = np.uint64(1)
SIXTY_FOUR = 64

RANK_OF = np.array([c % N_RANKS for c in range(N_CARDS)], dtype=np.int64)
SUIT_OF = np.array([(c % DECK_CARDS) // N_RANKS for c in range(N_CARDS)], dtype=np.int64)
VALUE_OF = RANK_OF + 1  # ace 1 .. 10; jack 11, queen 12, king 13 (taken by rank only)


@inline
def card_value_nb(card):
    """VALUE_OF[card], indexed unsigned: a card is never negative, and a signed index costs
    Python's negative-index code on every lookup (kernels/jit.ix)."""
    return VALUE_OF[ix(card)]


def _mask_of(pred) -> np.ndarray:
    """uint64[2]: the cards 0..103 for which pred(card) holds."""
    words = [0, 0]
    for c in range(N_CARDS):
        if pred(c):
            words[c // SIXTY_FOUR] |= 1 << (c % SIXTY_FOUR)
    return np.array(words, dtype=np.uint64)


SPADE_SET = _mask_of(lambda c: (c % DECK_CARDS) // N_RANKS == SPADES)
ACE_SET = _mask_of(lambda c: c % N_RANKS == ACE)
DIAMOND_TEN_SET = _mask_of(lambda c: (c % DECK_CARDS) // N_RANKS == DIAMONDS and c % N_RANKS == TEN)
SPADE_TWO_SET = _mask_of(lambda c: (c % DECK_CARDS) // N_RANKS == SPADES and c % N_RANKS == 1)
# The order in which face cards leave a deck that does not divide: kings, then queens, then jacks;
# within a rank clubs, diamonds, hearts, spades; within a suit the first deck's copy first
REMOVAL_ORDER = np.array([copy * DECK_CARDS + suit * N_RANKS + rank
                          for rank in (KING, QUEEN, JACK) for suit in range(4) for copy in range(2)],
                         dtype=np.int64)


# ---------------------------------------------------------------- card sets (two words)
@inline
def popcount_nb(x):
    """Number of set bits of a uint64 (LLVM makes this one popcnt)."""
    c = 0
    while x:
        x &= x - ONE
        c += 1
    return c


@njit
def set_add_nb(words, card):
    """Add card to the set held in words (uint64[2]), in place."""
    words[card >> 6] |= ONE << np.uint64(card & 63)


@njit
def set_has_nb(words, card):
    return (words[card >> 6] >> np.uint64(card & 63)) & ONE != ZERO


@njit
def set_count_nb(words, other):
    """Cards in both sets (other: a constant set such as SPADE_SET)."""
    return popcount_nb(words[0] & other[0]) + popcount_nb(words[1] & other[1])


# ---------------------------------------------------------------- the deck
@njit
def decks_for_nb(decks_rule, players):
    """Decks in play: the rule's 1 or 2, or 0 = by players (one for 2-3, two from 4)."""
    if decks_rule == 0:
        return 2 if players >= 4 else 1
    return decks_rule


@njit
def removed_count_nb(decks, players):
    """Face cards to remove so that the cards after the pot deal evenly in hands of four:
    (cards - 4) mod (4 * players)."""
    return (decks * DECK_CARDS - POT_START) % (HAND * players)


@njit
def deck_nb(decks, players, deck, removed):
    """Fill deck with the cards in play (in card order) and removed with the face cards taken out;
    returns (cards in play, cards removed)."""
    r = removed_count_nb(decks, players)
    k = 0
    for i in range(REMOVAL_ORDER.shape[0]):
        c = REMOVAL_ORDER[i]
        if k < r and c < decks * DECK_CARDS:
            removed[k] = c
            k += 1
    n = 0
    for c in range(decks * DECK_CARDS):
        out = False
        for j in range(r):
            if removed[j] == c:
                out = True
        if not out:
            deck[n] = c
            n += 1
    return n, r


@njit
def shuffle_nb(state, stock, cards, n):
    """stock[:n] = a uniformly shuffled copy of cards[:n] (Fisher-Yates from the deal's stream
    state); returns the new state."""
    for i in range(n):
        stock[i] = cards[i]
    return shuffle_from_nb(state, stock, n)


@njit
def deal_hands_nb(stock, top, hands, hand_n, players, dealer):
    """Deal two cards at a time to each player clockwise from the dealer's left, twice, from
    stock[top:]; returns the new top."""
    for _ in range(HAND // 2):
        s = dealer + 1 if dealer + 1 < players else 0
        for _p in range(players):
            for _k in range(2):
                hands[s, hand_n[s]] = stock[top]
                hand_n[s] += 1
                top += 1
            s = s + 1 if s + 1 < players else 0
    return top


# ---------------------------------------------------------------- the pot
@inline
def pot_add_loose_nb(item_i, item_m, pn, card):
    """Lay card open on the pot as its last item; returns the new item count (MAX_ITEMS + 1 when
    the pot is full: the caller stops the game)."""
    if pn >= MAX_ITEMS:
        return MAX_ITEMS + 1
    item_i[pn, IT_VALUE] = card_value_nb(card)
    item_i[pn, IT_KIND] = ITEM_LOOSE
    item_i[pn, IT_OWNER] = -1
    item_i[pn, IT_CARD] = card
    item_m[pn, 0] = ZERO
    item_m[pn, 1] = ZERO
    set_add_nb(item_m[pn], card)
    return pn + 1


@inline
def pot_take_nb(item_i, item_m, pn, mask, into):
    """Remove the items of mask from the pot, keeping the others in order, and add their cards to
    the set into (uint64[2]); returns the new item count."""
    k = 0
    for i in range(pn):
        if (mask >> np.uint64(i)) & ONE:
            into[0] |= item_m[i, 0]
            into[1] |= item_m[i, 1]
        else:
            if k != i:
                for f in range(item_i.shape[1]):
                    item_i[k, f] = item_i[i, f]
                item_m[k, 0] = item_m[i, 0]
                item_m[k, 1] = item_m[i, 1]
            k += 1
    return k


@njit
def pot_cards_nb(item_m, pn):
    """Number of cards on the pot."""
    c = 0
    for i in range(pn):
        c += popcount_nb(item_m[i, 0]) + popcount_nb(item_m[i, 1])
    return c
