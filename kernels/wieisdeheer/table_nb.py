"""The Wie is de Heer? table: card tables, the deck, shuffling and dealing, the draw pile with its
reshuffle (the top card stays), the fit test of pesten, and the card-conservation check.

The table's scalars live in one int64 array `st` (slots ST_*), the cards in plain arrays: hands
[MAX_PLAYERS, N_CARDS] with hand_n, the draw pile (its top is the last card) and the discard pile
(its top is the last card) with in_disc marking the cards on it. Every helper is a small function
of its arguments (arrays changed in place where it says so), so tests call them one by one.
"""
import numpy as np

from kernels.jit import inline, njit
from kernels.rng_nb import deal_stream_nb, next_word_nb, shuffle_from_nb, uniform_nb
from kernels.wieisdeheer.enums import (
    ACE, JACK, JOKER, MAX_PLAYERS, N_CARDS, N_RANKS, NO_SUIT, SUITED, TWO,
)

# Slots of the table's scalar array `st`
ST_SUIT = 0  # the suit to follow: the top's suit, a jack's chosen suit, NO_SUIT after a joker
ST_RANK = 1  # the top card's rank (JOKER for a joker)
ST_PENDING = 2  # cards the next player must draw (stacked 2s and jokers), 0 when none
ST_DIR = 3  # 1 = seat order, -1 = reversed (an ace)
ST_PILE = 4  # points played since the last ace or jack
ST_POT = 5  # points banked into the group pot
ST_VOIDED = 6  # points voided by aces
ST_DRAW_N = 7  # cards in the draw pile
ST_DISC_N = 8  # cards in the discard pile
ST_RESHUFFLES = 9  # reshuffles so far (deal stream k = 1 + reshuffles)
ST_CARDS = 10  # cards in play
# Cards not on the discard pile (in hands or the draw pile), counted for the public's chances:
# ST_UNSEEN + 3 * suit + kind (suit NO_SUIT for jokers; KIND_ACE, KIND_JACK, KIND_OTHER), and
# ST_UNSEEN_RANK + rank for every rank (the joker too; the fit counts read the 2..10)
ST_UNSEEN = 11
ST_UNSEEN_RANK = ST_UNSEEN + 3 * 5
N_ST = ST_UNSEEN_RANK + N_RANKS + 1  # ranks 0..10 and the joker
KIND_ACE, KIND_JACK, KIND_OTHER = 0, 1, 2

SUIT_OF = np.array([c // N_RANKS if c < SUITED else NO_SUIT for c in range(N_CARDS)], np.int64)
RANK_OF = np.array([c % N_RANKS if c < SUITED else JOKER for c in range(N_CARDS)], np.int64)
# "Het doel is om zoveel mogelijk punten (dus 2, 3, 4… 10) binnen te halen": 2-10 face value
POINTS_OF = np.array([(c % N_RANKS) + 1 if c < SUITED and 1 <= c % N_RANKS <= 9 else 0
                      for c in range(N_CARDS)], np.int64)


KIND_OF = np.array([KIND_ACE if c < SUITED and c % N_RANKS == ACE else
                    KIND_JACK if c < SUITED and c % N_RANKS == JACK else KIND_OTHER
                    for c in range(N_CARDS)], np.int64)


@njit
def count_unseen_nb(st, card, delta):
    """`card` leaves (delta -1) or returns to (delta +1) the cards not on the discard pile."""
    st[ST_UNSEEN + 3 * SUIT_OF[card] + KIND_OF[card]] += delta
    st[ST_UNSEEN_RANK + RANK_OF[card]] += delta


@njit
def cards_in_play_nb(jokers):
    """A, 2-10, J in four suits plus the jokers: 44 + jokers."""
    return SUITED + jokers


@njit
def setup_nb(seed, g, players, jokers, st, hands, hand_n, draw, disc, in_disc):
    """The deal of game g: the mole cards (returns the mole's seat: the king's holder), the deck
    shuffled, 7 cards each from the top dealt one at a time from seat 0, the start card turned.
    Everything comes from deal_stream_nb(seed, g, 0). Fills the arrays and st."""
    n_cards = cards_in_play_nb(jokers)
    state = deal_stream_nb(seed, g, np.int64(0))
    state, u = next_word_nb(state)
    mole = uniform_nb(u, players)  # the king among n-1 queens, one card each
    for k in range(ST_UNSEEN, N_ST):
        st[k] = 0
    for c in range(n_cards):
        draw[c] = c
        in_disc[c] = 0
        count_unseen_nb(st, c, np.int64(1))
    state = shuffle_from_nb(state, draw, n_cards)
    top = n_cards
    for s in range(MAX_PLAYERS):
        hand_n[s] = 0
    for _ in range(7):
        for s in range(players):
            top -= 1
            hands[s, hand_n[s]] = draw[top]
            hand_n[s] += 1
    top -= 1
    start = draw[top]
    disc[0] = start
    in_disc[start] = 1
    count_unseen_nb(st, start, np.int64(-1))
    st[ST_DRAW_N] = top
    st[ST_DISC_N] = 1
    st[ST_SUIT] = SUIT_OF[start]
    st[ST_RANK] = RANK_OF[start]
    st[ST_PENDING] = 0
    st[ST_DIR] = 1
    st[ST_PILE] = POINTS_OF[start]  # the points "die eronder liggen" include the start card's
    st[ST_POT] = 0
    st[ST_VOIDED] = 0
    st[ST_RESHUFFLES] = 0
    st[ST_CARDS] = n_cards
    return mole


def fits_rule(card, suit, rank):
    """May `card` go on a top of (suit, rank) with no draw pending? Match suit or rank; a joker goes
    on anything and anything on a joker; a jack only on its own suit or on a jack. Plain Python:
    FIT_MASK tabulates it for the kernels."""
    r = int(RANK_OF[card])
    if r == JOKER or rank == JOKER:
        return True
    if r == JACK:
        return int(SUIT_OF[card]) == suit or rank == JACK
    return int(SUIT_OF[card]) == suit or r == rank


TOPS = N_RANKS + 1  # ranks a top card can have: A, 2..10, J and the joker
# Card sets are uint64 bitmasks (bit c = card c). FIT_MASK[suit * TOPS + rank]: the cards that fit
# on a top of (suit, rank), suit NO_SUIT included: one table lookup instead of the rule's branches,
# which mispredict on nearly every card
FIT_MASK = np.array([sum(1 << c for c in range(N_CARDS) if fits_rule(c, suit, rank))
                     for suit in range(NO_SUIT + 1) for rank in range(TOPS)], np.uint64)
# with a draw pending only a 2 or a joker fits (they stack)
STACK_MASK = np.uint64(sum(1 << c for c in range(N_CARDS) if RANK_OF[c] in (TWO, JOKER)))
SUIT_MASK = np.array([sum(1 << c for c in range(N_CARDS) if SUIT_OF[c] == k)
                      for k in range(NO_SUIT + 1)], np.uint64)  # SUIT_MASK[NO_SUIT]: the jokers
ACE_MASK = np.uint64(sum(1 << c for c in range(N_CARDS) if RANK_OF[c] == ACE))
JACK_MASK = np.uint64(sum(1 << c for c in range(N_CARDS) if RANK_OF[c] == JACK))
ONE = np.uint64(1)


@njit
def fit_mask_nb(suit, rank, pending):
    """The cards that may go on a top of (suit, rank) with `pending` cards to draw (fits_rule)."""
    if pending > 0:
        return STACK_MASK
    return FIT_MASK[suit * TOPS + rank]


@njit
def fits_nb(card, suit, rank, pending):
    """May `card` go on a top of (suit, rank) with `pending` cards to draw? (fits_rule; with a draw
    pending only a 2 or a joker.)"""
    return (fit_mask_nb(suit, rank, pending) >> np.uint64(card)) & ONE != 0


@njit
def bit_nb(card):
    """The one-card set {card}."""
    return ONE << np.uint64(card)


@njit
def has_nb(cards, card):
    """Is `card` in the set `cards`?"""
    return (cards >> np.uint64(card)) & ONE != 0


@njit
def hand_mask_nb(hand, hn):
    """The set of the hand's cards."""
    m = np.uint64(0)
    for i in range(hn):
        m |= ONE << np.uint64(hand[i])
    return m


@njit
def popcount_nb(x):
    """Cards in the set x (LLVM turns this loop into one popcnt)."""
    c = 0
    while x:
        x &= x - ONE
        c += 1
    return c


@inline
def remove_at_nb(hands, hand_n, s, i):
    """Take card i from seat s's hand (the last card fills its place); returns it."""
    card = hands[s, i]
    hand_n[s] -= 1
    hands[s, i] = hands[s, hand_n[s]]
    return card


@inline
def discard_nb(st, disc, in_disc, card):
    """Lay card on the discard pile (the caller sets the suit to follow after a jack)."""
    disc[st[ST_DISC_N]] = card
    st[ST_DISC_N] += 1
    in_disc[card] = 1
    count_unseen_nb(st, card, np.int64(-1))
    st[ST_SUIT] = SUIT_OF[card]
    st[ST_RANK] = RANK_OF[card]


@njit
def reshuffle_nb(seed, g, st, draw, disc, in_disc):
    """The draw pile is empty: every discard but the top card is shuffled (deal stream 1 +
    reshuffles so far) into a new draw pile. Returns the cards moved (0: nothing to reshuffle)."""
    k = st[ST_DISC_N] - 1
    if k <= 0:
        return 0
    for i in range(k):
        draw[i] = disc[i]
        in_disc[disc[i]] = 0
        count_unseen_nb(st, disc[i], np.int64(1))
    top = disc[k]
    disc[0] = top
    st[ST_DISC_N] = 1
    st[ST_RESHUFFLES] += 1
    shuffle_from_nb(deal_stream_nb(seed, g, st[ST_RESHUFFLES]), draw, k)
    st[ST_DRAW_N] = k
    return k


@inline
def draw_one_nb(seed, g, st, draw, disc, in_disc, hands, hand_n, s):
    """Seat s takes the top of the draw pile, reshuffling first when it is empty. Returns
    (card or -1 when no card is left anywhere, cards reshuffled or 0)."""
    moved = 0
    if st[ST_DRAW_N] == 0:
        moved = reshuffle_nb(seed, g, st, draw, disc, in_disc)
        if moved == 0:
            return -1, 0
    st[ST_DRAW_N] -= 1
    card = draw[st[ST_DRAW_N]]
    hands[s, hand_n[s]] = card
    hand_n[s] += 1
    return card, moved


@njit
def cards_conserved_nb(st, hands, hand_n, players, draw, disc, in_disc, seen):
    """Every card in play in exactly one place (a hand, the draw pile, the discard pile), and
    in_disc marks exactly the discard pile."""
    n_cards = st[ST_CARDS]
    for c in range(N_CARDS):
        seen[c] = 0
    for s in range(players):
        for i in range(hand_n[s]):
            seen[hands[s, i]] += 1
    for i in range(st[ST_DRAW_N]):
        seen[draw[i]] += 1
    for i in range(st[ST_DISC_N]):
        seen[disc[i]] += 1
        if in_disc[disc[i]] != 1:
            return False
    total = 0
    for c in range(N_CARDS):
        if c < n_cards:
            if seen[c] != 1:
                return False
        elif seen[c] != 0:
            return False
        total += in_disc[c]
    unseen = 0
    for k in range(ST_UNSEEN, ST_UNSEEN_RANK):
        unseen += st[k]
    return total == st[ST_DISC_N] and unseen == n_cards - total

