"""The players' decisions, each from what its seat may know: its own hand, every hand's size (public:
cards are counted on the table), the categories on the card it reads and their breadths.

- the reader's category (the policy): `random`, `spoiler` (the narrowest category: the hardest for
  the player with the fewest cards, whose letters the reader cannot see) or `widest` (`search`:
  search_nb.py, which falls back on PLAYOUT_POLICY here);
- `target`: whom Te veel keuze takes a card from;
- `counter`: whether to counter-attack an answer with a Wie Weet Wat card;
- `shed`: which letters Grote Kans's extra cards shed first.
The joker decision (`joker_use`, `joker_patience`) is part of the recall model's first answer
(recall_nb.first_answer_nb).
"""
import numpy as np

from kernels.jit import borrowing, inline
from kernels.wieweetwat.actions_nb import seat_after_nb
from kernels.wieweetwat.enums import (
    CATEGORIES_PER_CARD,
    COUNTER_ALWAYS,
    COUNTER_LEADER_ONLY,
    N_LETTERS,
    NO_TIME,
    P_SEARCH,
    P_SPOILER,
    P_WIDEST,
    PLAYOUT_POLICY,
    SHED_HARDEST,
    TARGET_FEWEST_CARDS,
    TARGET_MOST_CARDS,
)
from kernels.wieweetwat.recall_nb import randint_at_nb


@inline
def choose_category_nb(rngs, seat, policy, breadth, card):
    """The slot (0..3) of the category the reader reads from category card `card`. A search
    reader reads as its play-outs do where it does not search (remises, the Vicieuze cirkel)."""
    first = card * CATEGORIES_PER_CARD
    if policy == P_SEARCH:
        policy = PLAYOUT_POLICY
    if policy == P_SPOILER or policy == P_WIDEST:
        best = 0
        for slot in range(1, CATEGORIES_PER_CARD):
            b = breadth[first + slot]
            if (b < breadth[first + best]) if policy == P_SPOILER else (b > breadth[first + best]):
                best = slot
        return best
    return randint_at_nb(rngs, seat, np.int64(CATEGORIES_PER_CARD))


@borrowing
def choose_target_nb(rngs, target, seat, hand_n, n):
    """The opponent Te veel keuze takes a card from: the one with the fewest cards, the most, or a
    random one; never a player with one card while another has more (taking a last card would hand
    that player the round), nobody (-1) when every opponent's hand is empty. Ties: the first
    clockwise from the reader."""
    floor = 2
    count = np.int64(0)
    for k in range(1, n):
        if hand_n[seat_after_nb(seat, k, n)] >= 2:
            count += 1
    if count == 0:
        floor = 1
        for k in range(1, n):
            if hand_n[seat_after_nb(seat, k, n)] >= 1:
                count += 1
        if count == 0:
            return -1
    if target == TARGET_FEWEST_CARDS or target == TARGET_MOST_CARDS:
        best = -1
        for k in range(1, n):
            p = seat_after_nb(seat, k, n)
            if hand_n[p] < floor:
                continue
            if best < 0 or ((hand_n[p] < hand_n[best]) if target == TARGET_FEWEST_CARDS
                            else (hand_n[p] > hand_n[best])):
                best = p
        return best
    pick = randint_at_nb(rngs, seat, count)
    for k in range(1, n):
        p = seat_after_nb(seat, k, n)
        if hand_n[p] >= floor:
            if pick == 0:
                return p
            pick -= 1
    return -1


@inline
def wants_counter_nb(counter, attacker, attacked, hand_n):
    """Whether the attacker spends a Wie Weet Wat card on a counter-attack: `always`, `never`, or
    `leader_only` (only against a player holding fewer cards than the attacker)."""
    if counter == COUNTER_ALWAYS:
        return True
    if counter == COUNTER_LEADER_ONLY:
        return hand_n[attacked] < hand_n[attacker]
    return False


@borrowing
def choose_extras_nb(shed, times, share, limit, most, chosen):
    """Grote Kans's extra cards: among the letters whose answer came within `limit` seconds
    (times[l], NO_TIME for letters not held), at most `most`, the earliest first (`earliest`) or the
    rarest initial letters first (`hardest`: the lowest share, ties the earliest). Writes the
    letters, in order, to `chosen`; returns how many."""
    k = 0
    while k < most:
        best = -1
        for letter in range(N_LETTERS):
            t = times[letter]
            if t > limit or t >= NO_TIME:
                continue
            taken = False
            for j in range(k):
                if chosen[j] == letter:
                    taken = True
            if taken:
                continue
            if best < 0:
                best = letter
            elif shed == SHED_HARDEST:
                if share[letter] < share[best] or (share[letter] == share[best] and t < times[best]):
                    best = letter
            elif t < times[best]:
                best = letter
        if best < 0:
            break
        chosen[k] = best
        k += 1
    return k
