"""The letter pile, the category pile and the hands (rows of counts per card kind).

Piles are stacks: pile[0 .. n) with the top card at n-1. When a pile runs out its discards are
shuffled into a new pile (RULINGS.md: "Where a pile runs out, reshuffle the discards"). The letter
pile of round r is shuffled from deal_stream_nb(seed, game, r), its j-th reshuffle in that round from
deal_stream_nb(seed, game, r + j * RESHUFFLE_STRIDE); the category deck's k-th shuffle in the game
from extra_stream_nb(seed, game, k). Category cards drawn in a reader's turn stay "in use" until the
turn ends (they go to the discards then); only when the pile and the discards are both empty are the
cards in use that are done with (category cards read, action cards carried out) shuffled back too:
never the turn's category card still waiting to be read, nor the action cards still waiting in the
queue (or being carried out), which would then be read or carried out twice.

A pile is shuffled as it is drawn: Fisher-Yates from the top down puts the card at position i in
its place at step i, and no later step touches position i, so drawing position i right after step
i gives the cards of the whole shuffle in the same order, with no steps for the cards nobody draws
(about half of a round's letter deck). pile_n keeps the shuffle stream's state and whether the
pile is shuffled this way (the search's determinized piles are shuffled in full).
"""
import numpy as np

from kernels.jit import borrowing, inline
from kernels.rng_nb import deal_stream_nb, extra_stream_nb, next_word_nb, uniform_nb
from kernels.wieweetwat.enums import (
    HAND_MASK,
    HAND_WIDTH,
    N_KINDS,
    PN_CAT_DISCARDS,
    PN_CAT_IN_USE,
    PN_CAT_LAZY,
    PN_CAT_PILE,
    PN_CAT_SHUFFLES,
    PN_CAT_STREAM,
    PN_LETTER_DISCARDS,
    PN_LETTER_LAZY,
    PN_LETTER_PILE,
    PN_LETTER_SHUFFLES,
    PN_LETTER_STREAM,
    RESHUFFLE_STRIDE,
)
from kernels.wieweetwat.recall_nb import randint_at_nb


@inline
def shuffle_step_nb(state, a, i):
    """Step i (i >= 1) of the Fisher-Yates shuffle of a[:i + 1] from a stream's state (the order
    of rng_nb.shuffle_nb on that stream): a[i] swaps with a uniform a[j], j <= i. Returns the
    stream's new state."""
    state, u = next_word_nb(state)
    j = uniform_nb(u, i + 1)
    x = a[i]
    a[i] = a[j]
    a[j] = x
    return state


@inline
def shuffle_as_drawn_nb(state, pile_n, stream_at, lazy_at):
    """The pile (its cards already in it) is shuffled from `state` as it is drawn (take_top_nb)."""
    pile_n[stream_at] = np.int64(state)
    pile_n[lazy_at] = 1


@inline
def take_top_nb(pile, pile_n, top_at, stream_at, lazy_at):
    """The pile's top card, taken off; its shuffle step first when the pile is shuffled as drawn."""
    i = pile_n[top_at] - 1
    pile_n[top_at] = i
    if pile_n[lazy_at] != 0 and i >= 1:
        pile_n[stream_at] = np.int64(shuffle_step_nb(np.uint64(pile_n[stream_at]), pile, i))
    return pile[i]


# ------------------------------------------------------------------------------ hands

@borrowing
def hand_size_nb(hands, seat):
    total = 0
    for kind in range(N_KINDS):
        total += hands[seat, kind]
    return total


@inline
def add_card_nb(hands, hand_n, seat, kind):
    hands[seat, kind] += 1
    hands[seat, HAND_MASK] |= 1 << kind
    hand_n[seat] += 1


@inline
def remove_card_nb(hands, hand_n, seat, kind):
    left = hands[seat, kind] - 1
    hands[seat, kind] = left
    hands[seat, HAND_MASK] &= ~(np.int64(left == 0) << kind)  # branch-free: the last copy clears
    hand_n[seat] -= 1


@borrowing
def kind_set_nb(hands, seat):
    """The set of kinds a hand holds, from its counts (what column HAND_MASK must be)."""
    held = 0
    for kind in range(N_KINDS):
        held |= np.int64(hands[seat, kind] > 0) << kind
    return held


@borrowing
def random_card_nb(rngs, taker, hands, seat):
    """The kind of a uniformly random card of seat's hand (at least one card; a card taken unseen),
    drawn from the taker's stream."""
    i = randint_at_nb(rngs, taker, hand_size_nb(hands, seat))
    for kind in range(N_KINDS):
        i -= hands[seat, kind]
        if i < 0:
            return kind
    return -1


# ------------------------------------------------------------------------------ the letter pile

@borrowing
def deal_round_nb(seed, game, rnd, deck, n_deck, pile, pile_n, hands, hand_n, n, hand_size):
    """Shuffle every letter card into the pile (round `rnd`'s deal stream, shuffled as drawn) and
    deal `hand_size` cards to each seat, seat 0 first. The discards start empty."""
    for i in range(n_deck):
        pile[i] = deck[i]
    state = deal_stream_nb(seed, game, rnd)
    top = n_deck
    for s in range(n):
        hand_n[s] = 0
        for kind in range(HAND_WIDTH):
            hands[s, kind] = 0
        for _ in range(hand_size):
            top -= 1
            if top >= 1:
                state = shuffle_step_nb(state, pile, top)
            add_card_nb(hands, hand_n, s, pile[top])
    shuffle_as_drawn_nb(state, pile_n, PN_LETTER_STREAM, PN_LETTER_LAZY)
    pile_n[PN_LETTER_PILE] = top
    pile_n[PN_LETTER_DISCARDS] = 0
    pile_n[PN_LETTER_SHUFFLES] = 0


@inline
def draw_letter_nb(seed, game, rnd, pile, discards, pile_n):
    """The top letter card (its kind), after reshuffling the discards when the pile is empty; -1
    when both are empty (the card is not drawn). Returns (kind, cards reshuffled or 0)."""
    shuffled = 0
    if pile_n[PN_LETTER_PILE] == 0:
        m = pile_n[PN_LETTER_DISCARDS]
        if m == 0:
            return -1, 0
        for i in range(m):
            pile[i] = discards[i]
        pile_n[PN_LETTER_SHUFFLES] += 1
        stream = deal_stream_nb(seed, game, rnd + pile_n[PN_LETTER_SHUFFLES] * RESHUFFLE_STRIDE)
        shuffle_as_drawn_nb(stream, pile_n, PN_LETTER_STREAM, PN_LETTER_LAZY)
        pile_n[PN_LETTER_PILE] = m
        pile_n[PN_LETTER_DISCARDS] = 0
        shuffled = m
    return take_top_nb(pile, pile_n, PN_LETTER_PILE, PN_LETTER_STREAM, PN_LETTER_LAZY), shuffled


@inline
def discard_letter_nb(discards, pile_n, kind):
    discards[pile_n[PN_LETTER_DISCARDS]] = kind
    pile_n[PN_LETTER_DISCARDS] += 1


# ------------------------------------------------------------------------------ the category pile

@borrowing
def shuffle_categories_nb(seed, game, pile, pile_n, n_cards):
    """The game's first category pile: every category and action card, shuffled as drawn."""
    for i in range(n_cards):
        pile[i] = i
    shuffle_as_drawn_nb(extra_stream_nb(seed, game, np.int64(0)), pile_n, PN_CAT_STREAM, PN_CAT_LAZY)
    pile_n[PN_CAT_PILE] = n_cards
    pile_n[PN_CAT_DISCARDS] = 0
    pile_n[PN_CAT_IN_USE] = 0
    pile_n[PN_CAT_SHUFFLES] = 0


@borrowing
def is_held_nb(card, held, lo, hi, waiting):
    """Whether `card` still waits in the turn: the category card `waiting` (-1: none) or one of the
    queued action cards held[lo:hi]."""
    if card == waiting:
        return True
    for i in range(lo, hi):
        if held[i] == card:
            return True
    return False


@borrowing
def release_done_nb(discards, in_use, pile_n, held, lo, hi, waiting):
    """The cards in use that are done with go to the discards; those still waiting (is_held_nb)
    stay in use, in the order drawn."""
    k = 0
    for i in range(pile_n[PN_CAT_IN_USE]):
        c = in_use[i]
        if is_held_nb(c, held, lo, hi, waiting):
            in_use[k] = c
            k += 1
        else:
            discards[pile_n[PN_CAT_DISCARDS]] = c
            pile_n[PN_CAT_DISCARDS] += 1
    pile_n[PN_CAT_IN_USE] = k


@borrowing
def refill_categories_nb(seed, game, pile, discards, in_use, pile_n, held, lo, hi, waiting):
    """The empty pile gets the discards, shuffled as drawn (when they are empty too, the cards in
    use that are done with are shuffled back: release_done_nb). Returns how many (0: every card
    waits in the turn, nothing can be drawn). A call, not inlined: twice a game or so, and its
    stream's hashing would crowd the turn's registers."""
    if pile_n[PN_CAT_DISCARDS] == 0:  # everything is in use: shuffle back what is done with
        release_done_nb(discards, in_use, pile_n, held, lo, hi, waiting)
    m = pile_n[PN_CAT_DISCARDS]
    if m == 0:
        return 0
    for i in range(m):
        pile[i] = discards[i]
    pile_n[PN_CAT_SHUFFLES] += 1
    shuffle_as_drawn_nb(extra_stream_nb(seed, game, pile_n[PN_CAT_SHUFFLES]), pile_n,
                        PN_CAT_STREAM, PN_CAT_LAZY)
    pile_n[PN_CAT_PILE] = m
    pile_n[PN_CAT_DISCARDS] = 0
    return m


@inline
def draw_category_card_nb(seed, game, pile, discards, in_use, pile_n, held, lo, hi, waiting):
    """The top category card (an index into the category deck), kept in use until the turn ends.
    held[lo:hi] and `waiting` (-1: none): the turn's cards in use still waiting (is_held_nb), kept
    out of a reshuffle. Returns (card, cards reshuffled or 0); card -1 when nothing can be drawn
    (every card of the deck waits in the turn)."""
    shuffled = 0
    if pile_n[PN_CAT_PILE] == 0:
        shuffled = refill_categories_nb(seed, game, pile, discards, in_use, pile_n, held, lo, hi,
                                        waiting)
        if shuffled == 0:
            return np.int64(-1), 0
    card = take_top_nb(pile, pile_n, PN_CAT_PILE, PN_CAT_STREAM, PN_CAT_LAZY)
    in_use[pile_n[PN_CAT_IN_USE]] = card
    pile_n[PN_CAT_IN_USE] += 1
    return card, shuffled


@inline
def end_turn_nb(discards, in_use, pile_n):
    """The category and action cards used in a reader's turn go to the discards (inlined: once a
    turn, a call would spill the round's floating-point values)."""
    for i in range(pile_n[PN_CAT_IN_USE]):
        discards[pile_n[PN_CAT_DISCARDS]] = in_use[i]
        pile_n[PN_CAT_DISCARDS] += 1
    pile_n[PN_CAT_IN_USE] = 0


# ------------------------------------------------------------------------------ invariants

@borrowing
def letters_conserved_nb(deck_counts, hands, hand_n, n, pending, pile, discards, pile_n, seen):
    """Every letter card is in exactly one place: the pile, the discards, a hand, or on the table
    (a remise's card); hand sizes and kind sets match the hands."""
    seen[:] = 0
    for i in range(pile_n[PN_LETTER_PILE]):
        seen[pile[i]] += 1
    for i in range(pile_n[PN_LETTER_DISCARDS]):
        seen[discards[i]] += 1
    for s in range(n):
        total = 0
        for kind in range(N_KINDS):
            if hands[s, kind] < 0:
                return False
            seen[kind] += hands[s, kind]
            total += hands[s, kind]
        if total != hand_n[s] or hands[s, HAND_MASK] != kind_set_nb(hands, s):
            return False
        if pending[s] >= 0:
            seen[pending[s]] += 1
    for kind in range(N_KINDS):
        if seen[kind] != deck_counts[kind]:
            return False
    return True


@borrowing
def categories_conserved_nb(n_cards, pile, discards, in_use, pile_n, seen):
    seen[:] = 0
    for i in range(pile_n[PN_CAT_PILE]):
        seen[pile[i]] += 1
    for i in range(pile_n[PN_CAT_DISCARDS]):
        seen[discards[i]] += 1
    for i in range(pile_n[PN_CAT_IN_USE]):
        seen[in_use[i]] += 1
    for c in range(n_cards):
        if seen[c] != 1:
            return False
    return True
