"""The Knutten driver: plays games first..first+count-1 of an arm into `out` records.

The entry point has the one signature every game's driver has (DESIGN, the game contract):
    play_games_nb(seed, first, count, rule_i, rule_f, seat_policy, seat_i, seat_f, data, out,
                  trace, checked) -> (status, failed_game, trace_rows)
It builds its table record from the arguments (build_table_nb), plays, and copies each game's
record into out[k]; new_table gives tests the same table.
"""
import numpy as np

from kernels.args_nb import search_unannounced_nb, shapes_ok_nb
from kernels.jit import inline, ix, kernel, njit
from kernels.knutten.enums import (
    A_DISCARD, B_CANNOT, B_JOHN, B_SWARM, B_WIND, C_DESIGN, C_KIND, D_COPIES, D_KIND, E_BITE,
    E_CANNOT, E_COPY, E_DRAW, E_END, E_JOHN_DISCARD, E_JOHN_PLAY, E_PLAY, E_RESHUFFLE, E_ROUND,
    E_SKIP, E_START, E_UNDER, E_WIND, K_COPY, K_JOHN, LUCK_COPY, LUCK_JOHN, LUCK_NEGATIVE, MAX_CARDS, MAX_DESIGNS, MAX_HAND,
    MAX_PLAYERS, MAX_SAMPLES, MAX_TURNS, N_LUCK, N_POLICIES, NO_OPTION, NO_SEAT, O_CANNOT, O_JOHN_BITES,
    O_JOHN_DISCARDED_TURN, O_JOHN_DISCARDS, O_JOHN_DRAWN_BY, O_JOHN_DRAWS, O_JOHN_IN_DECK,
    O_JOHN_PLAYED_BY, O_JOHN_PLAYED_TURN, O_JOHN_PLAYS, O_JOHN_TARGET, O_RESHUFFLES, O_ROUNDS,
    O_SWARM_BITES, O_TURNS, O_WIND, O_WINNER_MASK, P_SEARCH, R_BITES_TO_END, R_HAND_LIMIT, R_HEAVY,
    R_HEAVY_END, R_JOHN_KNUT, R_LUCK, R_STUCK, R_THRESHOLD, RULE_F_ORDER, RULE_I_ORDER, S_DISCARD_N,
    S_JOHN_CARD, S_PENDING, S_PLAYERS, S_SWARM, S_SWARM_N, S_TRACE_N, SEAT_F_ORDER, SEAT_I_ORDER,
    SI_SAMPLES, SI_START, SKIP_EMPTY_HAND, SKIP_STUCK, START_CHOICES, STUCK_CHOICES, STUCK_WAIT,
    TRACE_WIDTH,
)
from kernels.knutten import search_nb  # a module: search_nb plays rounds with this module's loop
from kernels.knutten.policies_nb import (
    CLASS_KEYS, choice_is_sound_nb, choose_option_nb, choose_start_nb, choose_target_nb,
    reads_option_classes_nb,
)
from kernels.knutten.rules_nb import (
    game_over_nb, john_targets_nb, legal_actions_nb, option_is_sound_nb, place_john_nb,
    swarm_bite_count_nb, winner_mask_nb,
)
from kernels.knutten.table_nb import (
    TABLE_DTYPE, TRACE_TABLE_DTYPE, as_records, cards_conserved_nb, deal_nb, draw_nb, fill_hand_nb,
    has_three_alike_nb, hand_under_pile_nb, log_nb, new_pile_nb, next_seat_nb, pile_size_nb,
    refill_all_nb, salt_streams_nb, seed_game_nb, set_deck_nb, swarm_to_pile_nb,
    take_from_hand_nb, to_swarm_nb, wind_caller_nb,
)
from kernels.status import BAD_ARGS, CARDS_LOST, ILLEGAL_MOVE, OK, TOO_LONG, TRACE_FULL

# play_round_nb's second result is the seat that chooses the next start player, or:
GAME_OVER = -2

# Numba compiles a helper once for each tuple of argument types it is called with, and types a
# constant argument as that literal (Literal[int](0)), not int64: a helper called with a constant
# in one place and a variable in another is compiled twice, both copies the same machine code in
# effect. So constants handed to helpers are made int64 here (np.int64(...), np.bool_(...)), and
# variables that start from a constant start from an int64 one (tests/test_specialisations.py).


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
            bite_nb(t, q, np.int64(1), np.int64(B_WIND))
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
    bite_nb(t, p, np.int64(1), np.int64(B_CANNOT))
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
        bite_nb(t, target, np.int64(1), np.int64(B_JOHN))


@njit
def discard_john_nb(t, p):
    """The seat with John before it passes its turn to put John on the discard."""
    st = t.st
    rec = t.rec
    t.discard[st[S_DISCARD_N]] = st[S_JOHN_CARD]
    st[S_DISCARD_N] += 1
    place_john_nb(t, np.int64(NO_SEAT))
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
def play_round_nb(t, start, checked, search):
    """One round from a fresh deal. Returns (status, chooser of the next start or GAME_OVER).
    `search`: the search players' workspace (search_nb.new_workspace_nb), or None when no seat
    searches."""
    rec = t.rec
    rec[O_ROUNDS] += 1
    new_pile_nb(t, rec[O_ROUNDS] - 1)
    log_nb(t, E_ROUND, rec[O_ROUNDS], start, 0, 0, 0)
    if deal_nb(t, start):
        return OK, wind_nb(t, wind_caller_nb(t, start))
    return play_turns_nb(t, start, checked, search, np.int64(NO_OPTION))


@njit
def play_turns_nb(t, p, checked, search, first_option):
    """The rest of a round, seat p to act. Returns (status, chooser of the next start or
    GAME_OVER). `first_option`: the option (index into legal_actions_nb's list) seat p takes now,
    or NO_OPTION to let its policy choose: the search plays each option out this way.

    `search` is None in the search's own play-outs and in arms without a search seat: Numba then
    compiles this loop without the search (it prunes `is None` branches), so the play-outs do not
    recurse and other arms run the loop they always ran."""
    n = t.st[S_PLAYERS]
    st = t.st
    rec = t.rec
    while True:
        if t.hand_n[p] == 0:
            if pile_size_nb(t) > 0 or not nobody_can_play_nb(t):
                log_nb(t, E_SKIP, p, SKIP_EMPTY_HAND, 0, 0, 0)
                p = next_seat_nb(p, n)
                continue
            caller = swarm_becomes_pile_nb(t, p)
            if rec[O_RESHUFFLES] > MAX_TURNS:
                return TOO_LONG, GAME_OVER
            if caller != NO_SEAT:
                return OK, wind_nb(t, caller)
            continue
        # Two calls with constant flags: each inlined copy is specialised, so random players skip
        # the option classes they never read.
        if reads_option_classes_nb(t, p):
            n_opts = legal_actions_nb(t, p, True)
        else:
            n_opts = legal_actions_nb(t, p, False)
        if n_opts == 0 and pile_size_nb(t) == 0:  # stuck with an empty pile: rare
            if nobody_can_play_nb(t):
                caller = swarm_becomes_pile_nb(t, p)
                if rec[O_RESHUFFLES] > MAX_TURNS:
                    return TOO_LONG, GAME_OVER
                if caller != NO_SEAT:
                    return OK, wind_nb(t, caller)
                continue
            if t.rules[R_STUCK] == STUCK_WAIT:  # waits until nobody can play
                log_nb(t, E_SKIP, p, SKIP_STUCK, 0, 0, 0)
                p = next_seat_nb(p, n)
                continue
        rec[O_TURNS] += 1
        if rec[O_TURNS] > MAX_TURNS:
            return TOO_LONG, GAME_OVER
        if n_opts == 0:
            if cannot_play_nb(t, p):
                return OK, GAME_OVER
            wind = has_three_alike_nb(t, p)
        else:
            if first_option != NO_OPTION:
                option = first_option
                first_option = NO_OPTION
            elif search is not None and t.policies[p] == P_SEARCH and n_opts > 1:
                option = search_nb.search_option_nb(t, p, n_opts, search)
            else:
                option = choose_option_nb(t, p, n_opts)
            action = t.opts[option]
            if checked and not (option_is_sound_nb(t, p, option)
                                and choice_is_sound_nb(t, p, n_opts, option)):
                return ILLEGAL_MOVE, GAME_OVER
            if action == A_DISCARD:
                discard_john_nb(t, p)
                wind = False
            else:
                if play_card_nb(t, p, action, t.opt_after[option]):
                    count = swarm_bite_count_nb(t, st[S_SWARM])
                    rec[O_SWARM_BITES] += count
                    bite_nb(t, p, count, np.int64(B_SWARM))
                    return OK, GAME_OVER if game_over_nb(t) else p
                wind = draw_nb(t, p, E_DRAW) >= 3  # only the drawn card can make three alike
        if checked and not cards_conserved_nb(t):
            return CARDS_LOST, GAME_OVER
        if wind:
            return OK, wind_nb(t, p)
        p = next_seat_nb(p, n)


@njit
def reset_game_nb(t):
    """A fresh game on the same table: record and bites cleared, John off the table (the table
    knows the deck's John card since it was built)."""
    st = t.st
    for i in range(t.rec.shape[0]):
        t.rec[i] = 0
    for p in range(st[S_PLAYERS]):
        t.bites[p] = 0
        for k in range(N_LUCK + 1):
            t.luck[p, k] = 0.0
    st[S_TRACE_N] = 0
    place_john_nb(t, np.int64(NO_SEAT))
    t.rec[O_JOHN_IN_DECK] = 1 if st[S_JOHN_CARD] != NO_SEAT else 0
    t.rec[O_JOHN_DRAWN_BY] = NO_SEAT
    t.rec[O_JOHN_PLAYED_BY] = NO_SEAT
    t.rec[O_JOHN_PLAYED_TURN] = -1
    t.rec[O_JOHN_TARGET] = NO_SEAT
    t.rec[O_JOHN_DISCARDED_TURN] = -1


@njit
def play_game_nb(t, seed, game, checked, search):
    """Game `game` of a study with `seed`: rounds until some seat reaches the bites that end it.
    Returns a status."""
    reset_game_nb(t)
    seed_game_nb(t, seed, game)
    start = np.int64(0)  # seat 0 is the first start player
    while True:
        status, chooser = play_round_nb(t, start, checked, search)
        if status != OK:
            return status
        if chooser == GAME_OVER:
            break
        start = choose_start_nb(t, chooser)
        log_nb(t, E_START, chooser, start, 0, 0, 0)
    t.rec[O_WINNER_MASK] = winner_mask_nb(t)
    log_nb(t, E_END, t.rec[O_WINNER_MASK], 0, 0, 0, 0)
    return OK


@njit
def write_out_nb(t, o):
    """Copy the game's record and bites into its output record `o` (OUT_DTYPE)."""
    rec = t.rec
    o.winner_mask = rec[O_WINNER_MASK]
    o.turns = rec[O_TURNS]
    o.rounds = rec[O_ROUNDS]
    for p in range(t.st[S_PLAYERS]):  # seats beyond the players are left as they are (0)
        o.score[p] = t.bites[p]
    if t.rules[R_LUCK]:
        for p in range(t.st[S_PLAYERS]):
            o.luck_negative[p] = t.luck[p, LUCK_NEGATIVE]
            o.luck_copy[p] = t.luck[p, LUCK_COPY]
            o.luck_john[p] = t.luck[p, LUCK_JOHN]
    o.swarm_bites = rec[O_SWARM_BITES]
    o.wind_calls = rec[O_WIND]
    o.cannot_play = rec[O_CANNOT]
    o.reshuffles = rec[O_RESHUFFLES]
    o.john_in_deck = rec[O_JOHN_IN_DECK] != 0
    o.john_drawn_by = rec[O_JOHN_DRAWN_BY]
    o.john_draws = rec[O_JOHN_DRAWS]
    o.john_played_by = rec[O_JOHN_PLAYED_BY]
    o.john_played_turn = rec[O_JOHN_PLAYED_TURN]
    o.john_target = rec[O_JOHN_TARGET]
    o.john_bites = rec[O_JOHN_BITES]
    o.john_plays = rec[O_JOHN_PLAYS]
    o.john_discards = rec[O_JOHN_DISCARDS]
    o.john_discarded_turn = rec[O_JOHN_DISCARDED_TURN]


@njit
def play_range_nb(ws, seed, first, begin, end, out, checked, search):
    """Play games first+begin..first+end-1 on the table ws[0] into out[begin:end] (`search`: see
    play_round_nb). Returns (status, failed game). Tables are passed as their 1-element array, never as the record
    alone: a record does not keep its array alive, and Numba frees an array after its last use."""
    t = ws[0]
    recs = as_records(out)
    for k in range(begin, end):
        status = play_game_nb(t, seed, first + k, checked, search)
        if status != OK:
            return status, first + k
        write_out_nb(t, recs[k])
    return OK, np.int64(-1)


@njit
def copy_trace_nb(ws, trace):
    """Copy the traced game's events from the table ws[0] into `trace`. Returns (rows written,
    whether every event fitted)."""
    t = ws[0]
    events = t.st[S_TRACE_N]
    rows = min(events, trace.shape[0], t.events.shape[0])
    for i in range(rows):
        for j in range(TRACE_WIDTH):
            trace[i, j] = t.events[i, j]
    return np.int64(rows), rows == events


@njit
def build_table_nb(ws, cards, designs, rule_i, seat_policy, seat_i):
    """Fill the zeroed table record ws[0]: the deck (John added when rule_i[R_JOHN_KNUT] is 1),
    the rules, each seat's policy and parameters, and the heuristic players' class keys."""
    t = ws[0]
    set_deck_nb(t, cards, designs, rule_i[R_JOHN_KNUT] != 0)
    for i in range(rule_i.shape[0]):
        t.rules[i] = rule_i[i]
    n = seat_policy.shape[0]
    for p in range(n):
        t.policies[p] = seat_policy[p]
        t.start_choice[p] = seat_i[p, SI_START]
        t.samples[p] = seat_i[p, SI_SAMPLES]
    t.st[S_PLAYERS] = n
    for c in range(CLASS_KEYS.shape[0]):
        t.class_rank[c] = CLASS_KEYS[c]
    salt_streams_nb(t)


@njit
def args_are_sound_nb(count, rule_i, rule_f, seat_policy, seat_i, seat_f, cards, designs, out):
    """Cheap checks of the driver's arguments (BAD_ARGS otherwise): shapes, player count, policy
    ids, seat parameters, the rules the kernel's capacities depend on, and the deck's rows."""
    flags = rule_i.shape[0] - len(RULE_I_ORDER)  # rotation, then luck (kernels/knutten/enums.py)
    if flags > 2 or (flags == 2 and not 0 <= rule_i[R_LUCK] <= 1):
        return False
    if not shapes_ok_nb(count, 2, MAX_PLAYERS, seat_policy, rule_i[:min(rule_i.shape[0], R_LUCK)],
                        len(RULE_I_ORDER), rule_f, len(RULE_F_ORDER), seat_i, len(SEAT_I_ORDER),
                        seat_f, len(SEAT_F_ORDER), out):
        return False
    n = seat_policy.shape[0]
    for p in range(n):
        if not 0 <= seat_policy[p] < N_POLICIES:
            return False
        if not 0 <= seat_i[p, SI_START] < len(START_CHOICES):
            return False
        if seat_policy[p] == P_SEARCH and not 1 <= seat_i[p, SI_SAMPLES] <= MAX_SAMPLES:
            return False
    if not (1 <= rule_i[R_HAND_LIMIT] <= MAX_HAND and rule_i[R_BITES_TO_END] >= 1
            and rule_i[R_HEAVY_END] >= 1 and 0 <= rule_i[R_JOHN_KNUT] <= 1
            and 0 <= rule_i[R_HEAVY] <= 1 and 0 <= rule_i[R_STUCK] < len(STUCK_CHOICES)):
        return False
    n_designs = designs.shape[0]
    n_cards = cards.shape[0]
    if cards.shape[1] != 4 or designs.shape[1] != 4:
        return False
    if not (1 <= n_designs < MAX_DESIGNS and n_cards < MAX_CARDS):  # room for John
        return False
    total = 0
    for d in range(n_designs):
        if designs[d, D_KIND] == K_JOHN or designs[d, D_COPIES] < 1:
            return False
        total += designs[d, D_COPIES]
    if total != n_cards or n_cards < n * rule_i[R_HAND_LIMIT] + 1:
        return False
    for c in range(n_cards):
        if not 0 <= cards[c, C_DESIGN] < n_designs or cards[c, C_KIND] == K_JOHN:
            return False
    return True


@kernel
def play_games_nb(seed, first, count, rule_i, rule_f, seat_policy, seat_i, seat_f, data, out,
                  trace, checked):
    """Play games first..first+count-1 of an arm: game first+k into out[k] (OUT_DTYPE).

    rule_i: the RULE_I_ORDER values; rule_f: empty. seat_policy: a P_* id per seat; seat_i: a
    SEAT_I_ORDER row per seat; seat_f: (seats, 0). data: (cards, designs, searching): the plain
    deck without John (the kernel adds him when john_knut is 1), and the searching seats or None
    (sim/contract.py). trace: None, or an int32 (rows, TRACE_WIDTH)
    array that receives the first game's events. checked: verify every move and every card.

    Returns (status (kernels/status.py), the failed game or -1, trace rows written)."""
    cards, designs, searching = data
    if not args_are_sound_nb(count, rule_i, rule_f, seat_policy, seat_i, seat_f, cards, designs,
                             out):
        return BAD_ARGS, first, np.int64(0)
    return start_arm_nb(seed, first, count, rule_i, seat_policy, seat_i, cards, designs, out,
                        trace, checked, searching)


@njit
def start_arm_nb(seed, first, count, rule_i, seat_policy, seat_i, cards, designs, out, trace,
                 checked, searching):
    """play_arm_nb with the search's workspace, or None when `searching` (data's last item: the
    searching seats) is None. Numba prunes branches on a None argument, so an arm without a search
    seat compiles no search code; a search seat it was not told of is BAD_ARGS."""
    if search_unannounced_nb(searching, seat_policy, np.int64(P_SEARCH)):
        return BAD_ARGS, first, np.int64(0)
    if searching is None:
        return play_arm_nb(seed, first, count, rule_i, seat_policy, seat_i, cards, designs, out,
                           trace, checked, None)
    search = search_nb.new_workspace_nb(cards, designs, rule_i, seat_policy, seat_i)
    return play_arm_nb(seed, first, count, rule_i, seat_policy, seat_i, cards, designs, out,
                       trace, checked, search)


@njit
def play_arm_nb(seed, first, count, rule_i, seat_policy, seat_i, cards, designs, out, trace,
                checked, search):
    """play_games_nb after its checks (`search`: see play_round_nb)."""
    if trace is None:  # batches: a table without room for events (log_nb compiles to nothing)
        ws = as_records(np.zeros(1, TABLE_DTYPE))
        build_table_nb(ws, cards, designs, rule_i, seat_policy, seat_i)
        status, failed = play_range_nb(ws, seed, first, np.int64(0), count, out, checked, search)
        return status, failed, np.int64(0)
    if trace.shape[1] != TRACE_WIDTH:
        return BAD_ARGS, first, np.int64(0)
    traced = as_records(np.zeros(1, TRACE_TABLE_DTYPE))
    build_table_nb(traced, cards, designs, rule_i, seat_policy, seat_i)
    status, failed = play_range_nb(traced, seed, first, np.int64(0), min(count, 1), out, checked,
                                   search)
    rows, complete = copy_trace_nb(traced, trace)
    if status == OK and not complete:
        return TRACE_FULL, first, rows
    if status != OK or count <= 1:
        return status, failed, rows
    ws = as_records(np.zeros(1, TABLE_DTYPE))
    build_table_nb(ws, cards, designs, rule_i, seat_policy, seat_i)
    status, failed = play_range_nb(ws, seed, first, np.int64(1), count, out, checked, search)
    return status, failed, rows


def new_table(cards, designs, rule_i, seat_policy, seat_i=None, trace=False):
    """A table record for tests (as a 1-element record array: fields read as attributes with
    NUMBA_DISABLE_JIT=1 too), built as the driver builds its own: `cards` and `designs` are the
    plain deck, John is added when rule_i[R_JOHN_KNUT] is 1. seat_i defaults to zeros."""
    seat_policy = np.asarray(seat_policy, np.int64)
    if seat_i is None:
        seat_i = np.zeros((len(seat_policy), len(SEAT_I_ORDER)), np.int64)
    ws = as_records(np.zeros(1, TRACE_TABLE_DTYPE if trace else TABLE_DTYPE))
    build_table_nb(ws, np.asarray(cards, np.int64), np.asarray(designs, np.int64),
                   np.asarray(rule_i, np.int64), seat_policy, np.asarray(seat_i, np.int64))
    return ws
