"""The Knutten driver: plays games start..start+count-1 of an arm into preallocated arrays."""
import numpy as np

from kernels.jit import inline, ix, kernel, njit
from kernels.knutten.enums import (
    A_DISCARD, B_CANNOT, B_JOHN, B_SWARM, B_WIND, C_KIND, E_BITE, E_CANNOT, E_COPY, E_DRAW, E_END,
    E_JOHN_DISCARD, E_JOHN_PLAY, E_PLAY, E_RESHUFFLE, E_ROUND, E_SKIP, E_START, E_UNDER, E_WIND,
    K_COPY, K_JOHN, MAX_TURNS, NO_SEAT, O_CANNOT, O_JOHN_BITES, O_JOHN_DISCARDED_TURN,
    O_JOHN_DISCARDS, O_JOHN_DRAWN_BY, O_JOHN_IN_DECK, O_JOHN_PLAYED_BY, O_JOHN_PLAYED_TURN,
    O_JOHN_PLAYS, O_JOHN_TARGET, O_RESHUFFLES, O_ROUNDS, O_SWARM_BITES, O_TURNS, O_WIND,
    O_WINNER_MASK, R_THRESHOLD, S_DISCARD_N, S_JOHN_CARD, S_PENDING,
    S_PLAYERS, S_SWARM, S_SWARM_N, S_TRACE_N, ST_CARDS, ST_ILLEGAL, ST_OK, ST_TOO_LONG,
)
from kernels.knutten.policies_nb import (
    choice_is_sound_nb, choose_option_nb, choose_start_nb, choose_target_nb,
    reads_option_classes_nb,
)
from kernels.knutten.rules_nb import (
    game_over_nb, john_targets_nb, legal_actions_nb, option_is_sound_nb, place_john_nb,
    swarm_bite_count_nb, winner_mask_nb,
)
from kernels.knutten.table_nb import (
    cards_conserved_nb, deal_nb, draw_nb, fill_hand_nb, has_three_alike_nb, hand_under_pile_nb,
    log_nb, new_pile_nb, next_seat_nb, pile_size_nb, refill_all_nb, swarm_to_pile_nb,
    take_from_hand_nb, to_swarm_nb, wind_caller_nb,
)
from kernels.rng_nb import game_stream_nb

# play_round_nb's second result is the seat that chooses the next start player, or:
GAME_OVER = -2


@njit
def bite_nb(t, p, count, cause):
    t.bites[p] += count
    log_nb(t, E_BITE, p, count, cause, t.bites[p], 0)


@njit
def wind_nb(t, caller):
    """WIND: the round stops, every other seat takes a bite, the caller chooses the start."""
    t.rec[O_WIND] += 1
    log_nb(t, E_WIND, caller, 0, 0, 0, 0)
    for q in range(t.st[S_PLAYERS]):
        if q != caller:
            bite_nb(t, q, 1, B_WIND)
    return GAME_OVER if game_over_nb(t) else caller


@njit
def nobody_can_play_nb(t):
    """No seat holds a card it may play (seats without cards are skipped, so they do not count).
    Uses t.opts as scratch."""
    for q in range(t.st[S_PLAYERS]):
        if t.hand_n[q] > 0 and legal_actions_nb(t, q, False) > 0:
            return False
    return True


@njit
def swarm_becomes_pile_nb(t, p):
    """The draw pile is empty and nobody can play: the swarm becomes the new pile (its total
    kept) and every seat refills from p on. Returns a WIND caller or NO_SEAT."""
    st = t.st
    t.rec[O_RESHUFFLES] += 1
    log_nb(t, E_RESHUFFLE, st[S_SWARM_N] + st[S_DISCARD_N], st[S_SWARM], 0, 0, 0)
    swarm_to_pile_nb(t)
    refill_all_nb(t, p)
    return wind_caller_nb(t, p)


@njit
def cannot_play_nb(t, p):
    """Show the hand, put it under the pile, take a bite, refill. Returns True if the game ended."""
    t.rec[O_CANNOT] += 1
    log_nb(t, E_CANNOT, p, t.hand_n[p], 0, 0, 0)
    for i in range(t.hand_n[p]):
        log_nb(t, E_UNDER, p, t.hands[p, i], 0, 0, 0)
    hand_under_pile_nb(t, p)
    bite_nb(t, p, 1, B_CANNOT)
    if game_over_nb(t):
        return True
    fill_hand_nb(t, p)
    return False


@njit
def play_john_nb(t, p):
    """John is laid before a fewest-bites seat, who takes a bite unless none may take one."""
    rec = t.rec
    n_cand, gives_bite = john_targets_nb(t)
    target = choose_target_nb(t, p, n_cand)
    place_john_nb(t, target)
    rec[O_JOHN_PLAYS] += 1
    if rec[O_JOHN_PLAYED_BY] == NO_SEAT:
        rec[O_JOHN_PLAYED_BY] = p
        rec[O_JOHN_PLAYED_TURN] = rec[O_TURNS]
        rec[O_JOHN_TARGET] = target
    log_nb(t, E_JOHN_PLAY, p, target, 1 if gives_bite else 0, 0, 0)
    if gives_bite:
        rec[O_JOHN_BITES] += 1
        bite_nb(t, target, 1, B_JOHN)


@njit
def discard_john_nb(t, p):
    """The seat with John before it passes its turn to put John on the discard."""
    st = t.st
    rec = t.rec
    t.discard[st[S_DISCARD_N]] = st[S_JOHN_CARD]
    st[S_DISCARD_N] += 1
    place_john_nb(t, NO_SEAT)
    rec[O_JOHN_DISCARDS] += 1
    if rec[O_JOHN_DISCARDED_TURN] == -1:
        rec[O_JOHN_DISCARDED_TURN] = rec[O_TURNS]
    log_nb(t, E_JOHN_DISCARD, p, 0, 0, 0, 0)


@inline
def play_card_nb(t, p, action, after):
    """Seat p plays the card of `action`, leaving a swarm of `after` (legal_actions_nb's
    t.opt_after). Returns True when it made the swarm bite."""
    st = t.st
    card = take_from_hand_nb(t, p, ix(action >> 1))  # action >= 0: a card
    kind = t.cards[card, C_KIND]
    if kind == K_JOHN:
        play_john_nb(t, p)
        return False
    if kind == K_COPY:
        to_swarm_nb(t, card)
        st[S_PENDING] += 1
        log_nb(t, E_COPY, p, card, st[S_PENDING], st[S_SWARM], 0)
        return False
    before = st[S_SWARM]
    st[S_SWARM] = after
    st[S_PENDING] = 0
    to_swarm_nb(t, card)
    log_nb(t, E_PLAY, p, card, action & 1, st[S_SWARM] - before, st[S_SWARM])
    return st[S_SWARM] >= t.rules[R_THRESHOLD]


@njit
def play_round_nb(t, start, checked):
    """One round from a fresh deal. Returns (status, chooser of the next start or GAME_OVER)."""
    n = t.st[S_PLAYERS]
    st = t.st
    rec = t.rec
    rec[O_ROUNDS] += 1
    new_pile_nb(t)
    log_nb(t, E_ROUND, rec[O_ROUNDS], start, 0, 0, 0)
    if deal_nb(t, start):
        return ST_OK, wind_nb(t, wind_caller_nb(t, start))
    p = start
    while True:
        if t.hand_n[p] == 0:
            if pile_size_nb(t) > 0 or not nobody_can_play_nb(t):
                log_nb(t, E_SKIP, p, 0, 0, 0, 0)
                p = next_seat_nb(p, n)
                continue
            caller = swarm_becomes_pile_nb(t, p)
            if caller != NO_SEAT:
                return ST_OK, wind_nb(t, caller)
            continue
        # Two calls with constant flags: each inlined copy is specialised, so random players skip
        # the option classes they never read.
        if reads_option_classes_nb(t, p):
            n_opts = legal_actions_nb(t, p, True)
        else:
            n_opts = legal_actions_nb(t, p, False)
        if n_opts == 0 and pile_size_nb(t) == 0 and nobody_can_play_nb(t):
            caller = swarm_becomes_pile_nb(t, p)
            if caller != NO_SEAT:
                return ST_OK, wind_nb(t, caller)
            continue
        rec[O_TURNS] += 1
        if rec[O_TURNS] > MAX_TURNS:
            return ST_TOO_LONG, GAME_OVER
        if n_opts == 0:
            if cannot_play_nb(t, p):
                return ST_OK, GAME_OVER
            wind = has_three_alike_nb(t, p)
        else:
            option = choose_option_nb(t, p, n_opts)
            action = t.opts[option]
            if checked and not (option_is_sound_nb(t, p, option)
                                and choice_is_sound_nb(t, p, n_opts, option)):
                return ST_ILLEGAL, GAME_OVER
            if action == A_DISCARD:
                discard_john_nb(t, p)
                wind = False
            else:
                if play_card_nb(t, p, action, t.opt_after[option]):
                    count = swarm_bite_count_nb(t, st[S_SWARM])
                    rec[O_SWARM_BITES] += count
                    bite_nb(t, p, count, B_SWARM)
                    return ST_OK, GAME_OVER if game_over_nb(t) else p
                wind = draw_nb(t, p, E_DRAW) >= 3  # only the drawn card can make three alike
        if checked and not cards_conserved_nb(t):
            return ST_CARDS, GAME_OVER
        if wind:
            return ST_OK, wind_nb(t, p)
        p = next_seat_nb(p, n)


@njit
def reset_game_nb(t):
    """A fresh game on the same table: record and bites cleared, John off the table (new_table
    found the deck's John card once)."""
    st = t.st
    for i in range(t.rec.shape[0]):
        t.rec[i] = 0
    for p in range(st[S_PLAYERS]):
        t.bites[p] = 0
    st[S_TRACE_N] = 0
    place_john_nb(t, NO_SEAT)
    t.rec[O_JOHN_IN_DECK] = 1 if st[S_JOHN_CARD] != NO_SEAT else 0
    t.rec[O_JOHN_DRAWN_BY] = NO_SEAT
    t.rec[O_JOHN_PLAYED_BY] = NO_SEAT
    t.rec[O_JOHN_PLAYED_TURN] = -1
    t.rec[O_JOHN_TARGET] = NO_SEAT
    t.rec[O_JOHN_DISCARDED_TURN] = -1


@njit
def play_game_nb(t, checked):
    """A whole game: rounds until some seat reaches the bites that end it. Returns a status."""
    reset_game_nb(t)
    start = 0  # seat 0 is the first start player
    while True:
        status, chooser = play_round_nb(t, start, checked)
        if status != ST_OK:
            return status
        if chooser == GAME_OVER:
            break
        start = choose_start_nb(t, chooser)
        log_nb(t, E_START, chooser, start, 0, 0, 0)
    t.rec[O_WINNER_MASK] = winner_mask_nb(t)
    log_nb(t, E_END, t.rec[O_WINNER_MASK], 0, 0, 0, 0)
    return ST_OK


@kernel
def play_games_nb(seed, start, count, ws, checked, out, score):
    """Play games start..start+count-1 on the table record ws[0] into out[O_*, k] (one row per
    record field, so that each becomes a column without a strided copy) and score[k, seat]
    (bites). A tracing table keeps the last game's events in ws[0].events.

    Returns (status, index of the failed game or -1, number of trace events)."""
    t = ws[0]
    n = t.st[S_PLAYERS]
    for k in range(count):
        t.rng[0] = game_stream_nb(seed, start + k)
        status = play_game_nb(t, checked)
        if status != ST_OK:
            return status, start + k, t.st[S_TRACE_N]
        for i in range(out.shape[0]):
            out[i, k] = t.rec[i]
        for p in range(n):
            score[k, p] = t.bites[p]
    return ST_OK, np.int64(-1), t.st[S_TRACE_N]
