"""The toy game's driver, in the one shape every kernel has (sim/contract.py)."""
import numpy as np

from kernels.jit import kernel, njit
from kernels.rng_nb import deal_stream_nb, extra_stream_nb, next_word_nb, seat_stream_nb, uniform_nb
from kernels.status import BAD_ARGS, CARDS_LOST, ILLEGAL_MOVE, OK, TRACE_FULL
from tests.toy.enums import (
    EV_DEAL, EV_END, EV_PLAY, EV_TRICK, MAX_PLAYERS, MAX_TRICKS, ORDER_WORST_FIRST, P_GREEDY,
    P_RANDOM, R_LOWEST_WINS, R_TIES, R_TRICKS, RF_DOUBLE, SF_BLUFF, SI_ORDER, TIES_NOBODY,
)


@njit
def log_nb(trace, n, code, a, b, c):
    if trace is None:
        return n
    if n < trace.shape[0]:
        trace[n, 0] = code
        trace[n, 1] = a
        trace[n, 2] = b
        trace[n, 3] = c
    return n + 1


@njit
def strength_nb(value, lowest_wins):
    return -value if lowest_wins else value


@njit
def choose_nb(policy, hand, n_hand, values, lowest_wins, order, bluff, u1, u2):
    """Slot of the card a seat plays: random picks any; greedy its strongest card (its weakest
    when it saves the best for last, or with probability `bluff`)."""
    if policy == P_RANDOM:
        return uniform_nb(u1, n_hand)
    worst = (order == ORDER_WORST_FIRST) != ((u2 >> np.uint64(11)) * (1.0 / 9007199254740992.0) < bluff)
    best = 0
    for i in range(1, n_hand):
        s = strength_nb(values[hand[i]], lowest_wins)
        b = strength_nb(values[hand[best]], lowest_wins)
        if (s < b) if worst else (s > b):
            best = i
    return best


@kernel
def play_games_nb(seed, first, count, rule_i, rule_f, seat_policy, seat_i, seat_f, data, out,
                  trace, checked):
    values = data[0]
    n = seat_policy.shape[0]
    tricks = rule_i[R_TRICKS]
    if n < 2 or n > MAX_PLAYERS or tricks < 1 or tricks > MAX_TRICKS or n * tricks > values.shape[0]:
        return BAD_ARGS, np.int64(-1), np.int64(0)
    for p in range(n):
        if seat_policy[p] != P_RANDOM and seat_policy[p] != P_GREEDY:
            return BAD_ARGS, np.int64(-1), np.int64(0)
    lowest = rule_i[R_LOWEST_WINS] != 0
    deck = np.empty(values.shape[0], np.int64)
    hands = np.empty((n, MAX_TRICKS), np.int64)
    hand_n = np.empty(n, np.int64)
    seen = np.empty(values.shape[0], np.int64)
    played = np.empty(n, np.int64)
    seat_rng = np.empty(n, np.uint64)
    rows = 0
    for k in range(count):
        g = first + k
        rec = out[k]
        for p in range(n):
            seat_rng[p] = seat_stream_nb(seed, g, p)
            rec.score[p] = 0
        rec.tied_tricks = 0
        rec.doubled_tricks = 0
        # the deal: a partial Fisher-Yates shuffle from the round's own stream
        state = deal_stream_nb(seed, g, 0)
        for c in range(values.shape[0]):
            deck[c] = c
        for i in range(n * tricks):
            state, u = next_word_nb(state)
            j = i + uniform_nb(u, values.shape[0] - i)
            deck[i], deck[j] = deck[j], deck[i]
        for p in range(n):
            hand_n[p] = tricks
            rec.best_card[p] = -128
            for i in range(tricks):
                card = deck[p * tricks + i]
                hands[p, i] = card
                rec.best_card[p] = max(rec.best_card[p], values[card])
                if k == 0:
                    rows = log_nb(trace, rows, EV_DEAL, p, card, values[card])
        doubles = extra_stream_nb(seed, g, 0)
        turns = 0
        for t in range(tricks):
            best = np.int64(-1 << 40)
            for p in range(n):
                seat_rng[p], u1 = next_word_nb(seat_rng[p])
                seat_rng[p], u2 = next_word_nb(seat_rng[p])
                slot = choose_nb(seat_policy[p], hands[p], hand_n[p], values, lowest,
                                 seat_i[p, SI_ORDER], seat_f[p, SF_BLUFF], u1, u2)
                if checked and not 0 <= slot < hand_n[p]:
                    return ILLEGAL_MOVE, g, rows
                card = hands[p, slot]
                hands[p, slot] = hands[p, hand_n[p] - 1]
                hand_n[p] -= 1
                played[p] = card
                best = max(best, strength_nb(values[card], lowest))
                turns += 1
                if k == 0:
                    rows = log_nb(trace, rows, EV_PLAY, p, card, t)
            doubles, u = next_word_nb(doubles)
            points = 2 if (u >> np.uint64(11)) * (1.0 / 9007199254740992.0) < rule_f[RF_DOUBLE] else 1
            mask = 0
            for p in range(n):
                if strength_nb(values[played[p]], lowest) == best:
                    mask |= 1 << p
            tied = mask & (mask - 1) != 0
            if tied:
                rec.tied_tricks += 1
            if points == 2:
                rec.doubled_tricks += 1
            if not (tied and rule_i[R_TIES] == TIES_NOBODY):
                for p in range(n):
                    if mask >> p & 1:
                        rec.score[p] += points
            else:
                mask = 0
            if k == 0:
                rows = log_nb(trace, rows, EV_TRICK, t, mask, points)
        if checked:  # every card dealt once, and every hand played out
            seen[:] = 0
            for i in range(n * tricks):
                seen[deck[i]] += 1
            for c in range(values.shape[0]):
                if seen[c] > 1:
                    return CARDS_LOST, g, rows
            for p in range(n):
                if hand_n[p] != 0:
                    return CARDS_LOST, g, rows
        top = rec.score[0]
        for p in range(1, n):
            top = max(top, rec.score[p])
        mask = 0
        for p in range(n):
            if rec.score[p] == top:
                mask |= 1 << p
        rec.winner_mask = mask
        rec.turns = turns
        rec.rounds = tricks
        if k == 0:
            rows = log_nb(trace, rows, EV_END, mask, 0, 0)
            if trace is not None and rows > trace.shape[0]:
                return TRACE_FULL, g, rows
    return OK, np.int64(-1), rows
