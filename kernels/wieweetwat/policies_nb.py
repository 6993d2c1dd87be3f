"""The players' decisions, each from what its seat may know: its own hand, every hand's size (public:
cards are counted on the table), the categories on the card it reads and their breadths.

- the reader's category (the policy): `random`, `spoiler` (the narrowest category: the hardest for
  the player with the fewest cards, whose letters the reader cannot see), `widest`, or `targeting`
  (under the profiles model, the category in which the leader is least likely to answer first,
  judged from every player's knowledge of the kinds and reaction time, which the table knows as
  people who play together do; under the uniform model it reads as `spoiler`) (`search`:
  search_nb.py, which falls back on PLAYOUT_POLICY here);
- `target`: whom Te veel keuze takes a card from;
- `counter`: whether to counter-attack an answer with a Wie Weet Wat card;
- `shed`: which letters Grote Kans's extra cards shed first.
The joker decision (`joker_use`, `joker_patience`) is part of the recall model's first answer
(recall_nb.first_answer_nb).
"""
import numpy as np

from kernels.jit import borrowing, inline
from kernels.wieweetwat.actions_nb import leader_in_nb, seat_after_nb
from kernels.wieweetwat.enums import (
    CATEGORIES_PER_CARD,
    COUNTER_ALWAYS,
    COUNTER_LEADER_ONLY,
    EV_KNOWN,
    EV_TARGETING,
    HAND_MASK,
    N_LETTERS,
    NO_TIME,
    P_SEARCH,
    P_SPOILER,
    P_TARGETING,
    P_WIDEST,
    PLAYOUT_POLICY,
    R_RECALL_MODEL,
    RECALL_PROFILES,
    SHED_HARDEST,
    TARGET_FEWEST_CARDS,
    TARGET_MOST_CARDS,
    WWW,
)
from kernels.wieweetwat.recall_nb import lowest_kind_nb, randint_at_nb
from kernels.wieweetwat.trace_nb import ev_nb

TIE = 1e-12  # targeting: scores closer than this are equal
LETTER_KINDS = (1 << N_LETTERS) - 1  # a kind set's letters (its Wie Weet Wat card left out)


@inline
def choose_category_nb(rngs, seat, policy, rules, race, n, card, circle):
    """The slot (0..3) of the category the reader reads from category card `card` (`circle`: for
    its own Vicieuze cirkel). `race`: what the reader sees of the coming race, (every hand's size,
    the bit set of the seats who will answer: the reader's opponents, or a remise's tied players,
    each seat's remise letter or -1: the round's `restrict`, and the cards the reader knows each
    seat holds: its row of known_nb's `known`). A search reader reads as its play-outs do where it
    does not search (remises, the Vicieuze cirkel)."""
    breadth = rules[7]
    first = card * CATEGORIES_PER_CARD
    if policy == P_SEARCH:
        policy = PLAYOUT_POLICY
    if policy == P_TARGETING and rules[0][R_RECALL_MODEL] == RECALL_PROFILES:
        return targeted_slot_nb(seat, n, rules, race, card, circle)
    if policy == P_SPOILER or policy == P_WIDEST or policy == P_TARGETING:
        best = 0
        for slot in range(1, CATEGORIES_PER_CARD):
            b = breadth[first + slot]
            if (b > breadth[first + best]) if policy == P_WIDEST else (b < breadth[first + best]):
                best = slot
        return best
    return randint_at_nb(rngs, seat, np.int64(CATEGORIES_PER_CARD))


@borrowing
def targeted_slot_nb(reader, n, rules, race, card, circle):
    """`targeting`'s slot under the profiles model: the category with the lowest slot_score_nb.
    Ties: the narrowest, then the first."""
    breadth = rules[7]
    leader = leader_in_nb(reader, race[0], n, race[1])
    first = card * CATEGORIES_PER_CARD
    best = -1
    best_score = 0.0
    for slot in range(CATEGORIES_PER_CARD):
        c = first + slot
        score = slot_score_nb(reader, leader, n, rules, race, c, circle)
        # chances equal but for rounding (equal reaction times: breadth cancels) are a tie
        if best < 0 or score < best_score - TIE or (score <= best_score + TIE
                                                    and breadth[c] < breadth[first + best]):
            best = slot
            best_score = score
    return best


@borrowing
def slot_score_nb(reader, leader, n, rules, race, c, circle):
    """How much category c helps the leader (of the seats who will answer, the one with the fewest
    cards), for `targeting`: the leader's chance to answer first; in the reader's own Vicieuze
    cirkel, where the reader answers too and the first to fail draws a card, the leader's knowledge
    of the kind relative to the reader's."""
    know = rules[9][2]
    kind = rules[9][0][c]
    if circle:
        return know[leader, kind] / know[reader, kind]
    return leader_first_chance_nb(reader, leader, n, rules, race, c)


@borrowing
def ev_targeting_nb(trace, at, reader, policy, rules, race, n, card, circle):
    """The trace's row saying why a `targeting` reader chose (EV_TARGETING); nothing in a batch."""
    if trace is None:
        return
    if policy != P_TARGETING or rules[0][R_RECALL_MODEL] != RECALL_PROFILES:
        return
    leader = leader_in_nb(reader, race[0], n, race[1])
    known = race[3]
    for k in range(1, n):  # the hands it has seen, first (EV_KNOWN)
        s = seat_after_nb(reader, k, n)
        if (race[1] >> s) & 1 and race[2][s] < 0:
            once = known[s, HAND_MASK] & LETTER_KINDS
            if once:  # the letters known once, twice, three times or more, as bit sets
                m, twice, more = 0, 0, 0
                for kind in range(N_LETTERS):
                    m += known[s, kind]
                    twice |= np.int64(known[s, kind] >= 2) << kind
                    more |= np.int64(known[s, kind] >= 3) << kind
                ev_nb(trace, at, EV_KNOWN, reader, s, m, race[0][s], once, twice, more)
    c = card * CATEGORIES_PER_CARD  # the card's four categories, one by one (no allocation)
    ev_nb(trace, at, EV_TARGETING, reader, leader,
          score_row_nb(slot_score_nb(reader, leader, n, rules, race, c, circle)),
          score_row_nb(slot_score_nb(reader, leader, n, rules, race, c + 1, circle)),
          score_row_nb(slot_score_nb(reader, leader, n, rules, race, c + 2, circle)),
          score_row_nb(slot_score_nb(reader, leader, n, rules, race, c + 3, circle)),
          1 if circle else 0)


@borrowing
def score_row_nb(x):
    """A score in a trace row: x 10,000, whole."""
    return np.int64(min(x, 1.0e5) * 10000.0 + 0.5)


@borrowing
def race_rate_nb(s, rules, race, c):
    """Seat s's answer rate for category c as the reader judges it: breadth x vocabulary x speed x
    its knowledge of the kind x its letters' share. Of a free hand the reader knows the letters it
    has seen (race[3]: a Rotonde, a Pechvogel, a card taken, a remise's card taken back), each at
    its own share; every other card holds the share an unseen card holds on average (two cards of
    one letter count twice, a slight overestimate; a Wie Weet Wat card counts as an unseen card). A
    remise's tied player answers with the card it laid down, which everyone sees: that letter's
    share, or all letters for a Wie Weet Wat card."""
    kind = rules[9][0][c]
    rate = rules[7][c] * rules[5][s] * rules[9][2][s, kind]
    letter = race[2][s]
    if letter < 0:
        known = race[3]
        pshare = rules[9][1]
        seen = 0.0
        m = 0
        held = known[s, HAND_MASK] & LETTER_KINDS  # the letters it has seen: usually none
        while held:
            k = lowest_kind_nb(held)
            held &= held - 1
            seen += known[s, k] * pshare[s, kind, k]
            m += known[s, k]
        return rate * (seen + rules[9][5][s, kind] * (race[0][s] - m))
    if letter == WWW:
        return rate
    return rate * rules[9][1][s, kind, letter]


@borrowing
def leader_first_chance_nb(reader, leader, n, rules, race, c):
    """The chance that `leader` answers category c first among the seats who will answer (race[1]),
    as the table can judge it: each recalls at race_rate_nb's rate and says its answer its reaction
    time later. The earliest of shifted exponentials, in closed form: between two consecutive
    reaction times the set of players who can answer is fixed, and the leader's density integrates
    to r_leader / R x (the drop of everyone's survival over that stretch)."""
    hand_n, active, restrict, _ = race
    react = rules[9][3]
    started = 0  # bit set of the seats whose reaction time has passed
    total = 0.0  # R: their summed rates
    weighted = 0.0  # their summed rate x reaction time
    r_leader = race_rate_nb(leader, rules, race, c)
    t = 0.0
    chance = 0.0
    while True:
        nxt = np.int64(-1)  # not a Literal: race_rate_nb compiles once
        for k in range(1, n):
            s = seat_after_nb(reader, k, n)
            if (active >> s) & 1 and (hand_n[s] > 0 or restrict[s] >= 0) \
                    and not started & (1 << s) and (nxt < 0 or react[s] < react[nxt]):
                nxt = s
        if started & (1 << leader) and total > 0.0:
            survive_from = np.exp(weighted - total * t)
            survive_to = np.exp(weighted - total * react[nxt]) if nxt >= 0 else 0.0
            chance += r_leader / total * (survive_from - survive_to)
        if nxt < 0:
            return chance
        started |= 1 << nxt
        r = race_rate_nb(nxt, rules, race, c)
        total += r
        weighted += r * react[nxt]
        t = react[nxt]


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
