"""The recall model (docs/models/recall.md): a player recalls valid answers for a (category, letter)
as a Poisson process with rate

    rate = breadth(category) x share(letter) x vocabulary(player) x speed(player)

where share(letter) is the letter's share of Dutch word types (sim/games/wieweetwat_letters.py).
The first answer comes after an exponential time; the k-th distinct answer at the k-th arrival (a
Gamma(k, rate) time). Several letters in a hand race each other: the earliest of independent
exponentials is exponential with the summed rate, and it belongs to letter l with chance
rate_l / summed rate, which is how it is sampled (two draws, not one per letter). The Wie Weet Wat
card as a joker may take any initial letter: its rate is breadth x 1 x vocabulary x speed, the
letter of the answer drawn by the shares.

Every function draws from stream `i` of `rngs` (a uint64 array of stream states, kernels/rng_nb.py:
the seats' streams, indexed by seat). Hands are rows of `hands` named by their seat: no array views
in the hot loop (each would cost a reference count).
"""
import numpy as np
from numba.core.extending import overload
from numba.cpython.unsafe.numbers import trailing_zeros

from kernels.jit import borrowing, inline
from kernels.rng_nb import next_exponential_nb, next_word_nb, seat_stream_nb, uniform_nb
from kernels.rotation_nb import held_hand_nb
from kernels.wieweetwat.enums import (
    HAND_LETTER,
    HAND_MASK,
    LETTER_BITS,
    N_CATEGORY_KINDS,
    N_LETTERS,
    NO_TIME,
    PROFILE_STREAM,
    RF_KNOWLEDGE_SIGMA,
    RF_LETTER_SIGMA,
    RF_REACTION_SIGMA,
    RF_REACTION_TIME,
    WWW,
)

_S11 = np.uint64(11)
_UNIT = 1.0 / 9007199254740992.0


@inline
def uniform01_nb(rngs, i):
    """Uniform float in [0, 1) from stream i of rngs (the same numbers as rng_nb.random_nb)."""
    rngs[i], u = next_word_nb(rngs[i])
    return np.float64(u >> _S11) * _UNIT


@inline
def randint_at_nb(rngs, i, n):
    """Uniform integer in [0, n) from stream i of rngs (the same numbers as rng_nb.randint_nb)."""
    rngs[i], u = next_word_nb(rngs[i])
    return uniform_nb(u, n)


@inline
def exponential_nb(rngs, i, rate):
    """An exponential waiting time with `rate` per second (NO_TIME for a rate of 0)."""
    if rate <= 0.0:
        return NO_TIME
    rngs[i], e = next_exponential_nb(rngs[i])
    return e / rate


@borrowing
def kth_arrival_nb(rngs, i, rate, k):
    """The time of the k-th arrival of a Poisson process with `rate` (k >= 1): Gamma(k, rate)."""
    t = 0.0
    for _ in range(k):
        t += exponential_nb(rngs, i, rate)
    return t


@borrowing
def player_rate_nb(breadth, vocabulary, speed):
    """A player's rate of answers in a category over all initial letters (the shares sum to 1)."""
    return breadth * vocabulary * speed


def lowest_kind_nb(held):
    """The lowest kind of a non-empty kind set (the count of its trailing zero bits). Plain Python
    runs this; compiled code gets the overload below: one tzcnt instruction."""
    held = int(held)
    return (held & -held).bit_length() - 1


@overload(lowest_kind_nb, inline="always")
def _lowest_kind_overload(held):
    return lambda held: trailing_zeros(held)


@inline
def hand_share_nb(hands, s, share):
    """The summed share of the distinct letters in a hand (the Wie Weet Wat card not counted),
    added in letter order over the letters held only (the hand's kind set)."""
    total = 0.0
    held = hands[s, HAND_MASK] & LETTER_BITS
    while held:
        total += share[lowest_kind_nb(held)]
        held &= held - 1
    return total


@inline
def pick_hand_letter_nb(rngs, i, hands, share, total):
    """The letter of the earliest answer: letter l of the hand with chance share[l] / total (the
    letters held in letter order, each taking its share off x until x goes below 0)."""
    x = uniform01_nb(rngs, i) * total
    last = -1
    held = hands[i, HAND_MASK] & LETTER_BITS
    while held:
        last = lowest_kind_nb(held)
        x -= share[last]
        if x < 0.0:
            return last
        held &= held - 1
    return last  # rounding: the last letter present


@inline
def share_total_nb(share):
    """sum(share), added in letter order (a round computes it once for its jokers' letters)."""
    total = 0.0
    for letter in range(N_LETTERS):
        total += share[letter]
    return total


@inline
def pick_any_letter_nb(rngs, i, share):
    """The initial letter of a joker's answer: letter l with chance share[l] / sum(share)."""
    return pick_any_letter_of_nb(rngs, i, share, share_total_nb(share))


@inline
def pick_any_letter_of_nb(rngs, i, share, total):
    """pick_any_letter_nb with sum(share) given (share_total_nb)."""
    x = uniform01_nb(rngs, i) * total
    last = 0
    for letter in range(N_LETTERS):
        if share[letter] > 0.0:
            last = letter
            x -= share[letter]
            if x < 0.0:
                return letter
    return last


@inline
def first_answer_nb(rngs, i, hands, restrict, rate, share, joker_stuck_only, patience, time_limit):
    """first_answer_with_share_nb without the hand's share."""
    t, kind, letter, _ = first_answer_with_share_nb(rngs, i, hands, restrict, rate, share,
                                                    joker_stuck_only, patience, time_limit)
    return t, kind, letter


@inline
def cached_hand_share_nb(hands, s, share, share_masks, hand_shares):
    """hand_share_nb, summed again only when the hand's letters changed since: hand_shares[s] holds
    the share of the letter set share_masks[s] (zeros at first: the empty set's share is 0.0). A
    race's answering seats mostly kept their letters since their last answer."""
    held = hands[s, HAND_MASK] & LETTER_BITS
    if held != share_masks[s]:
        share_masks[s] = held
        hand_shares[s] = hand_share_nb(hands, s, share)
    return hand_shares[s]


@inline
def first_answer_with_share_nb(rngs, i, hands, restrict, rate, share, joker_stuck_only, patience,
                               time_limit):
    """first_answer_of_share_nb with the hand's share summed here; returns it too (0.0 for a
    remise's answer), to be handed on to say_letter_with_share_nb."""
    total = hand_share_nb(hands, i, share) if restrict < 0 else 0.0
    t, kind, letter = first_answer_of_share_nb(rngs, i, hands, restrict, rate, share, total,
                                               joker_stuck_only, patience, time_limit)
    return t, kind, letter, total


@inline
def first_answer_of_share_nb(rngs, i, hands, restrict, rate, share, total, joker_stuck_only,
                             patience, time_limit):
    """A player's first answer to a category: (time, card kind played, initial letter), time NO_TIME
    for a pass (nothing before `time_limit`).

    `rate` is the player's rate over all letters (player_rate_nb). `restrict` is -1 for a free
    answer from the hand, a letter for a remise with that letter card, WWW for a remise with a
    joker. A free answer plays the hand's letter that comes first; the Wie Weet Wat card (if held)
    answers as a joker with any letter, at `patience` seconds plus an exponential time (the player
    turns to any-letter words once its letters failed that long) when `joker_stuck_only`; a player
    who keeps it for counter-attacks uses it only when it is all that is left in the hand.
    `total`: the hand's summed share (hand_share_nb), read for a free answer only.

    Which letter is not drawn here when it is open (kind HAND_LETTER: one of the hand's letters;
    kind WWW: the joker's letter; the letter is then -1): only answers said before the race ends
    need one (say_letter_nb), and most answers come too late."""
    if restrict >= 0:
        if restrict == WWW:
            t = exponential_nb(rngs, i, rate)
            if t > time_limit:
                return NO_TIME, restrict, -1
            return t, WWW, -1
        t = exponential_nb(rngs, i, rate * share[restrict])
        if t > time_limit:
            return NO_TIME, restrict, -1
        return t, restrict, restrict
    t_hand = exponential_nb(rngs, i, rate * total)
    t_joker = NO_TIME
    if hands[i, WWW] > 0 and (joker_stuck_only or total <= 0.0):
        # with letters in hand, the player looks for any-letter words only once its letters have
        # failed for `patience` seconds
        t_joker = exponential_nb(rngs, i, rate) + (patience if total > 0.0 else 0.0)
    if t_hand <= t_joker:
        if t_hand > time_limit:
            return NO_TIME, -1, -1
        return t_hand, HAND_LETTER, -1
    if t_joker > time_limit:
        return NO_TIME, -1, -1
    return t_joker, WWW, -1


@inline
def say_letter_nb(rngs, i, hands, share, kind, letter):
    """(kind, letter) of an answer from first_answer_nb with its open letter drawn: for
    HAND_LETTER the hand's letter that came first (letter l with chance share[l] / the hand's
    share), for a joker any letter by the shares; an answer with its letter is returned as is."""
    return say_letter_with_share_nb(rngs, i, hands, share, kind, letter,
                                    hand_share_nb(hands, i, share), share_total_nb(share))


@inline
def say_letter_with_share_nb(rngs, i, hands, share, kind, letter, hand_share, share_total):
    """say_letter_nb with the hand's share (from first_answer_with_share_nb, the hand unchanged
    since) and sum(share) (share_total_nb) given: the same draws, without summing them again."""
    if kind == HAND_LETTER:
        chosen = pick_hand_letter_nb(rngs, i, hands, share, hand_share)
        return chosen, chosen
    if kind == WWW and letter < 0:
        return WWW, pick_any_letter_of_nb(rngs, i, share, share_total)
    return kind, letter


@inline
def is_wrong_nb(rngs, i, error_rate):
    """Whether an answer is wrong (always caught): chance `error_rate`."""
    return uniform01_nb(rngs, i) < error_rate


@borrowing
def follow_up_count_nb(rngs, i, letter_rate, copies, window):
    """How many more cards of the letter follow the first one: the k-th further distinct answer
    arrives at the k-th arrival of the letter's process after the first answer, and counts while it
    comes within `window` seconds of it; at most `copies` (the cards of that letter left in hand)."""
    t = 0.0
    k = 0
    while k < copies:
        t += exponential_nb(rngs, i, letter_rate)
        if t > window:
            break
        k += 1
    return k


# ------------------------------------------------------------------------------ profiles

@inline
def normal_nb(rngs, i):
    """A standard normal draw from stream i of rngs (Box-Muller, the cosine branch: two uniforms)."""
    u1 = 1.0 - uniform01_nb(rngs, i)  # in (0, 1]
    u2 = uniform01_nb(rngs, i)
    return np.sqrt(-2.0 * np.log(u1)) * np.cos(2.0 * np.pi * u2)


@borrowing
def draw_profiles_nb(seed, game, n, shift, rule_f, kshare, pshare, know, lfactor, react, rngs,
                     fixed_know, fixed_letters, fixed_react):
    """The profiles recall model's players for one game (docs/models/recall.md). Seat s draws from
    its own profile stream, seat_stream_nb(seed, game, PROFILE_STREAM + s), held in rngs[s] (the
    seats' play streams are set after this): first its knowledge of each category kind, log-normal
    with median 1 and sigma RF_KNOWLEDGE_SIGMA of the logarithm; then a factor per letter,
    log-normal with median 1 and sigma RF_LETTER_SIGMA; then its reaction time, log-normal with
    median RF_REACTION_TIME seconds and sigma RF_REACTION_SIGMA (0 when the median is 0). Its
    letter shares for kind k are kshare[k, l] x factor[l], scaled to sum to 1: the letter factors
    say which initials come easily to this player relative to its others (its overall level is
    vocabulary x speed x knowledge).

    fixed_know[s, k] > 0, fixed_letters[s, l] > 0 and fixed_react[s] >= 0 (the data input
    `profiles`) replace the value drawn; it is still drawn, so a fixed value moves no other
    draw. At rotation `shift` (kernels/rotation_nb.py) seat s draws from seat (s + shift) % n's
    profile stream; a fixed value stays with its seat."""
    ks = rule_f[RF_KNOWLEDGE_SIGMA]
    ls = rule_f[RF_LETTER_SIGMA]
    rt = rule_f[RF_REACTION_TIME]
    rs = rule_f[RF_REACTION_SIGMA]
    for s in range(n):
        rngs[s] = seat_stream_nb(seed, game, PROFILE_STREAM + held_hand_nb(s, shift, n))
        for k in range(N_CATEGORY_KINDS):
            know[s, k] = np.exp(ks * normal_nb(rngs, s))
            if fixed_know[s, k] > 0.0:
                know[s, k] = fixed_know[s, k]
        for letter in range(N_LETTERS):
            lfactor[s, letter] = np.exp(ls * normal_nb(rngs, s))
            if fixed_letters[s, letter] > 0.0:
                lfactor[s, letter] = fixed_letters[s, letter]
        z = normal_nb(rngs, s)
        react[s] = rt * np.exp(rs * z) if rt > 0.0 else 0.0
        if fixed_react[s] >= 0.0:
            react[s] = fixed_react[s]
        for k in range(N_CATEGORY_KINDS):
            total = 0.0
            for letter in range(N_LETTERS):
                total += kshare[k, letter] * lfactor[s, letter]
            for letter in range(N_LETTERS):
                pshare[s, k, letter] = kshare[k, letter] * lfactor[s, letter] / total


@borrowing
def card_shares_nb(pshare, deck_counts, n, hshare):
    """hshare[s, k]: the letter share (pshare[s, k, l]) an unseen letter card of seat s holds on
    average, the letters weighted by their cards in the deck: the table's estimate of a hidden
    hand's rate per card (the targeting reader)."""
    cards = 0
    for letter in range(N_LETTERS):
        cards += deck_counts[letter]
    for s in range(n):
        for k in range(N_CATEGORY_KINDS):
            total = 0.0
            for letter in range(N_LETTERS):
                total += deck_counts[letter] * pshare[s, k, letter]
            hshare[s, k] = total / cards if cards > 0 else 0.0
