"""The players: which card to play, which suit a jack names, whom an ace questions, whether a drawn
card is played. Three policies (enums P_*):

- reasoner: sheds efficiently (stays in its longest suit, plays a 7 when it can follow it, keeps
  2s and jokers against draws unless the next player is about to go out), banks a pile of `rich`
  points or more with a jack, never voids such a pile unless forced, plays an ace on a poor pile for
  its questions. As the mole it sabotages: voids with a fitting ace and passes up banks at its
  `sabotage` rate (`mole_style` naive: voids on any pile; smart: voids only a rich pile and only
  when the void looks forced).
- racer: sheds like the reasoner but ignores the points (aces and jacks are ordinary cards, kept
  like any flexible card); as the mole it plays the same.
- random: a uniformly random fitting card, jack suit, question target and suspect.

Seat s's random choices come from its seat stream only (seat_rng[s]).
"""
import numpy as np

from kernels.jit import inline, njit
from kernels.rng_nb import next_word_nb, uniform_nb
from kernels.wieisdeheer.belief_nb import public_chances_nb, void_rate_nb
from kernels.wieisdeheer.enums import (
    ACE, EIGHT, JACK, JOKER, N_SUITS, NO_SUIT, P_RANDOM, P_REASONER, SEVEN, STYLE_NAIVE, TWO,
)
from kernels.wieisdeheer.table_nb import (
    ACE_MASK, JACK_MASK, RANK_OF, STACK_MASK, SUIT_MASK, SUIT_OF, bit_nb, fit_mask_nb, hand_mask_nb,
    has_nb, popcount_nb,
)

FORCED_ONLY = -1000  # a reasoner's score for voiding a rich pile: played only when nothing else fits
BANK = 1000  # a reasoner's score for banking a rich pile


@inline
def coin_nb(seat_rng, s, p):
    """True with chance p from seat s's stream (draws nothing when p is 0 or 1)."""
    if p <= 0.0:
        return False
    if p >= 1.0:
        return True
    seat_rng[s], u = next_word_nb(seat_rng[s])
    return (u >> np.uint64(11)) * (1.0 / 9007199254740992.0) < p


@inline
def pick_nb(seat_rng, s, n):
    """A uniform integer in [0, n) from seat s's stream."""
    seat_rng[s], u = next_word_nb(seat_rng[s])
    return uniform_nb(u, n)


@njit
def suit_counts_nb(cards, counts):
    """counts[k] = the set's cards of suit k (k = NO_SUIT: its jokers)."""
    for k in range(N_SUITS + 1):
        counts[k] = popcount_nb(cards & SUIT_MASK[k])


@njit
def shed_terms_nb(pile, rich, next_n, hn, pile_aware):
    """What a shedder with hn cards adds for playing a 2 or joker, a jack, an ace now (no draw
    pending): the parts of card_score_nb that do not depend on the card, worked out once a turn."""
    two = -40  # kept against draws
    if next_n <= 2:
        two += 60  # the next player is about to go out: make it draw
    if hn <= 2:
        two += 40
    rich_pile = pile >= rich and pile > 0
    if pile_aware and rich_pile:
        jack = BANK
    else:
        jack = -25 if hn > 3 else 0  # kept: it changes the suit
    ace = 0
    if pile_aware:
        if rich_pile:
            ace = FORCED_ONLY
        elif 2 * pile < rich:
            ace = 12  # a cheap void buys three questions
        else:
            ace = -12
    return two, jack, ace


@inline
def card_score_nb(hand_set, c, counts, terms):
    """How much a shedder with the cards `hand_set` (their suits counted in `counts`) wants to play
    card c now (no draw pending); higher is better. `terms`: shed_terms_nb. Written as selects, not
    branches: the card's rank is a coin toss to the branch predictor."""
    two, jack, ace = terms
    r = RANK_OF[c]
    su = SUIT_OF[c]
    # stay in the longest suit: the next top is one it can follow
    score = 3 * (counts[su] - 1) if su != NO_SUIT else 0
    score += two if (r == TWO) | (r == JOKER) else 0
    score += jack if r == JACK else 0
    score += ace if r == ACE else 0
    score += 8 if r == EIGHT else 0
    # a 7 the hand can follow (another card fits on it once it is played)
    follows = hand_set & ~bit_nb(c) & fit_mask_nb(su, np.int64(SEVEN), np.int64(0)) != 0
    score += (25 if follows else -5) if r == SEVEN else 0
    return score


@inline
def best_slot_nb(hand, hn, hand_set, playable, counts, terms):
    """The card of the set `playable` with the best score (ties: the first in the hand); -1 when
    the set is empty. Every card is scored and the best kept by selects: which cards fit is
    unpredictable, so a branch on it mispredicts."""
    best = -1
    best_score = 0
    for i in range(hn):
        c = hand[i]
        sc = card_score_nb(hand_set, c, counts, terms)
        take = has_nb(playable, c) & ((best < 0) | (sc > best_score))
        best = i if take else best
        best_score = sc if take else best_score
    return best


@njit
def first_in_nb(hand, hn, cards):
    """The first slot of the hand whose card is in the set `cards` (-1: none)."""
    for i in range(hn):
        if has_nb(cards, hand[i]):
            return i
    return -1


@njit
def nth_in_nb(hand, hn, cards, k):
    """The slot of the k-th card (0-based, in hand order) of the hand that is in the set `cards`."""
    for i in range(hn):
        if has_nb(cards, hand[i]):
            if k == 0:
                return i
            k -= 1
    return -1


@inline
def stack_slot_nb(policy, hand, hn, seat_rng, s, must_stack):
    """A draw is pending: the 2 or joker to stack, -1 when the hand has none (or takes the draw).
    Shedders pass a 2 first and keep a joker, and always stack: declining costs at least two cards
    and keeps a card they could shed. Random picks any; with `must_stack` off (rule: stacking is
    allowed, not compulsory) taking the draw is one more of its options."""
    stack = hand_mask_nb(hand, hn) & STACK_MASK
    if stack == 0:
        return -1
    if policy == P_RANDOM:
        k = popcount_nb(stack)
        pick = pick_nb(seat_rng, s, k if must_stack else k + 1)
        return nth_in_nb(hand, hn, stack, pick) if pick < k else -1
    twos = stack & ~SUIT_MASK[NO_SUIT]
    return first_in_nb(hand, hn, twos if twos != 0 else stack)


@inline
def choose_slot_nb(policy, hands, hand_n, s, st_suit, st_rank, pile, rich, next_n, is_mole,
                   sabotage, style, seat_rng, counts, st, in_disc, pot_open):
    """Seat s's card with no draw pending: (slot, sabotage) with slot -1 when nothing fits and
    sabotage 1 when the mole voids on purpose, 2 when it passes up a bank on purpose.

    `pot_open`: the pot rule is on and the pot is still below its threshold, so every point banked
    or voided can decide the game. The mole then spends its free sabotage: on a poorer pile (below
    its `rich`, where the observers read no act) it voids any points with a fitting ace and passes
    up a bank of half its `rich` or more when another card fits; on a rich pile it sabotages at its
    rate as ever. (A loyal reasoner plays as under the text's rules: the guarding variants measured
    in docs/models/mole.md lowered the pot.) The caller passes is_mole False once the pot has
    reached the threshold (sabotage could only give the mole away)."""
    hand = hands[s]
    hn = hand_n[s]
    hand_set = hand_mask_nb(hand, hn)
    playable = hand_set & fit_mask_nb(st_suit, st_rank, np.int64(0))
    if playable == 0:
        return -1, 0
    if policy == P_RANDOM:
        return nth_in_nb(hand, hn, playable, pick_nb(seat_rng, s, popcount_nb(playable))), 0
    if hn == 1:
        return 0, 0
    suit_counts_nb(hand_set, counts)
    reasoner = policy == P_REASONER
    rich_pile = pile >= rich and pile > 0
    if reasoner and is_mole and pile > 0 and pot_open and not rich_pile:
        aces = playable & ACE_MASK
        if aces != 0:
            return first_in_nb(hand, hn, aces), 1
        others = playable & ~(ACE_MASK | JACK_MASK)
        if 2 * pile >= rich and playable & JACK_MASK != 0 and others != 0:
            return best_slot_nb(hand, hn, hand_set, others, counts,
                                shed_terms_nb(pile, rich, next_n, hn, np.bool_(False))), 2
    if reasoner and is_mole and pile > 0:
        aces = playable & ACE_MASK
        if aces != 0 and (rich_pile or style == STYLE_NAIVE):
            _a, _j, o = public_chances_nb(st, in_disc, st_suit, st_rank, hn)
            if coin_nb(seat_rng, s, void_rate_nb(style, sabotage, o)):
                return first_in_nb(hand, hn, aces), 1
        others = playable & ~(ACE_MASK | JACK_MASK)
        if rich_pile and playable & JACK_MASK != 0 and others != 0 and coin_nb(seat_rng, s, sabotage):
            # a pass-up: the best fitting card that is neither an ace nor a jack
            return best_slot_nb(hand, hn, hand_set, others, counts,
                                shed_terms_nb(pile, rich, next_n, hn, np.bool_(False))), 2
    return best_slot_nb(hand, hn, hand_set, playable, counts,
                        shed_terms_nb(pile, rich, next_n, hn, reasoner)), 0


@inline
def play_drawn_nb(policy, hand, hn, slot, counts, pile, rich, next_n):
    """Does the player play the card it just drew (it fits)? Random always; shedders unless it is
    a card they keep (a 2 or joker with nobody to attack, an ace on a rich pile)."""
    if policy == P_RANDOM:
        return True
    hand_set = hand_mask_nb(hand, hn)
    suit_counts_nb(hand_set, counts)
    terms = shed_terms_nb(pile, rich, next_n, hn, policy == P_REASONER)
    return card_score_nb(hand_set, hand[slot], counts, terms) > -30


@inline
def jack_suit_nb(policy, hand, hn, jack_suit, seat_rng, s, counts):
    """The suit a jack names: the suit the hand holds most of (ties: the lowest; an empty hand keeps
    the jack's own suit); random: any suit."""
    if policy == P_RANDOM:
        return pick_nb(seat_rng, s, np.int64(N_SUITS))
    suit_counts_nb(hand_mask_nb(hand, hn) & ~JACK_MASK, counts)
    best = jack_suit
    best_n = 0
    for k in range(N_SUITS):
        if counts[k] > best_n:
            best_n = counts[k]
            best = k
    return best
