"""The seven action cards' effects on the hands (the text's "Actiekaarten"), as small helpers the
driver calls in the order the cards were drawn. Seats sit clockwise in turn order: the player "to
the left" of seat s, who plays after s, is seat s+1 (mod n). Cards taken from a hand are taken unseen:
a uniformly random card, drawn from the taker's seat stream.

Grote Kans and Vicieuze cirkel need a category and the recall model: the driver plays them
(play_nb.py) with `circle_nb` below for the Vicieuze cirkel's answers.
"""
import numpy as np

from kernels.jit import borrowing, inline
from kernels.wieweetwat.enums import EV_CIRCLE, EV_MOVE, HAND_WIDTH, SF_ERROR_RATE
from kernels.wieweetwat.piles_nb import add_card_nb, random_card_nb, remove_card_nb
from kernels.wieweetwat.recall_nb import exponential_nb, is_wrong_nb
from kernels.wieweetwat.trace_nb import ev_nb, ms_nb


@inline
def seat_after_nb(seat, k, n):
    """The seat k places clockwise from `seat` (0 <= k < n): a compare, not a division."""
    p = seat + k
    return p - n if p >= n else p


@inline
def leader_nb(reader, hand_n, n):
    """The reader's opponent with the fewest letter cards (ties: the first clockwise)."""
    return leader_in_nb(reader, hand_n, n, opponents_nb(reader, n))


@inline
def opponents_nb(reader, n):
    """The bit set of the reader's opponents: every seat but the reader's."""
    return np.int64(((1 << n) - 1) & ~(1 << reader))


@inline
def leader_in_nb(reader, hand_n, n, seats):
    """Of the seats in the bit set `seats` (never the reader), the one with the fewest letter cards
    (ties: the first clockwise from the reader); -1 for none."""
    best = np.int64(-1)  # not a Literal: callers compile once for an int64 seat
    for k in range(1, n):
        p = seat_after_nb(reader, k, n)
        if (seats >> p) & 1 and (best < 0 or hand_n[p] < hand_n[best]):
            best = p
    return best


@borrowing
def left_of_nb(seat, n):
    return seat_after_nb(seat, 1, n)


@borrowing
def take_card_nb(rngs, hands, hand_n, taker, victim, trace, at):
    """`taker` takes a random letter card from `victim` (Verloren geluk, Te veel keuze); the kind
    taken, or -1 when the victim's hand is empty."""
    if victim < 0 or hand_n[victim] == 0:
        return -1
    kind = random_card_nb(rngs, taker, hands, victim)
    remove_card_nb(hands, hand_n, victim, kind)
    add_card_nb(hands, hand_n, taker, kind)
    ev_nb(trace, at, EV_MOVE, taker, victim, taker, kind, 0, 0, 0)
    return kind


@borrowing
def rotonde_nb(hands, hand_n, n, tmp, skip_empty):
    """Every player passes all letter cards to the next player clockwise (seat s to seat s+1).
    `tmp` holds a hand row (HAND_WIDTH). `skip_empty`: a player with no letter card in hand (a
    remise player whose last card lies on the table) neither gives nor receives: the hands go
    round among the players holding cards."""
    if skip_empty:
        last = -1
        for s in range(n - 1, -1, -1):
            if hand_n[s] > 0:
                last = s
                break
        if last < 0:
            return
        for kind in range(HAND_WIDTH):
            tmp[kind] = hands[last, kind]
        last_n = hand_n[last]
        to = last
        for s in range(last - 1, -1, -1):  # the next holder clockwise gets seat s's hand
            if hand_n[s] > 0:
                for kind in range(HAND_WIDTH):
                    hands[to, kind] = hands[s, kind]
                hand_n[to] = hand_n[s]
                to = s
        for kind in range(HAND_WIDTH):
            hands[to, kind] = tmp[kind]
        hand_n[to] = last_n
        return
    for kind in range(HAND_WIDTH):
        tmp[kind] = hands[n - 1, kind]
    last_n = hand_n[n - 1]
    for s in range(n - 1, 0, -1):
        for kind in range(HAND_WIDTH):
            hands[s, kind] = hands[s - 1, kind]
        hand_n[s] = hand_n[s - 1]
    for kind in range(HAND_WIDTH):
        hands[0, kind] = tmp[kind]
    hand_n[0] = last_n


@borrowing
def verkiezingspartij_nb(seat_rng, hands, hand_n, n, taken, trace, at):
    """All players at once take a letter card from the player to their left: each card is picked
    from the hands as they were before anyone took (a player with an empty hand gives nothing)."""
    for s in range(n):
        giver = left_of_nb(s, n)
        taken[s] = -1
        if hand_n[giver] > 0:
            taken[s] = random_card_nb(seat_rng, s, hands, giver)
    for s in range(n):
        if taken[s] >= 0:
            giver = left_of_nb(s, n)
            remove_card_nb(hands, hand_n, giver, taken[s])
    for s in range(n):
        if taken[s] >= 0:
            add_card_nb(hands, hand_n, s, taken[s])
            ev_nb(trace, at, EV_MOVE, s, left_of_nb(s, n), s, taken[s], 0, 0, 0)


@borrowing
def pechvogel_partner_nb(seat, hand_n, n):
    """The player with the most letter cards, if that is more than the reader holds (ties: the first
    clockwise from the reader); -1 when nobody holds more than the reader."""
    best = -1
    for k in range(1, n):
        p = seat_after_nb(seat, k, n)
        if hand_n[p] > hand_n[seat] and (best < 0 or hand_n[p] > hand_n[best]):
            best = p
    return best


@borrowing
def swap_hands_nb(hands, hand_n, a, b):
    for kind in range(HAND_WIDTH):
        x = hands[a, kind]
        hands[a, kind] = hands[b, kind]
        hands[b, kind] = x
    x = hand_n[a]
    hand_n[a] = hand_n[b]
    hand_n[b] = x


@borrowing
def circle_nb(seat_rng, reader, n, breadth, rates, seat_f, pool, time_limit, trace, at):
    """Vicieuze cirkel: the reader answers first, then every player clockwise names a new answer, any
    initial letter. Player p's rate is breadth x rates[p] (vocabulary x speed) x (1 - answers so far
    / (breadth x pool)): the category's common answers run out. A player with no new answer
    within the time limit, or whose answer is wrong (a repeat), fails. Returns
    (the failing seat, answers given)."""
    words = breadth * pool
    given = 0
    p = reader
    while True:
        room = 1.0 - given / words
        rate = breadth * rates[p] * room if room > 0.0 else 0.0
        t = exponential_nb(seat_rng, p, rate)
        ok = t <= time_limit and not is_wrong_nb(seat_rng, p, seat_f[p, SF_ERROR_RATE])
        ev_nb(trace, at, EV_CIRCLE, p, given + 1, 1 if ok else 0, ms_nb(min(t, time_limit)), 0, 0, 0)
        if not ok:
            return p, given
        given += 1
        p = left_of_nb(p, n)
