"""The Wie Weet Wat driver: play games first .. first+count-1 of an arm into a record array.

Randomness is split by purpose so that arms pair (kernels/rng_nb.py):
- the letter cards of round r of game g are shuffled from deal_stream_nb(seed, g, r), their j-th
  reshuffle in that round from deal_stream_nb(seed, g, r + j * RESHUFFLE_STRIDE);
- the category deck's k-th shuffle in game g comes from extra_stream_nb(seed, g, k);
- everything a seat does (its answer times and letters, wrong answers, the reader's random
  category, which card it takes unseen) comes from seat_stream_nb(seed, g, s).
An arm that rotates its seats (kernels/rotation_nb.py) plays game g as deal g // n at rotation
k = g % n: every stream above is deal g // n's, and seat s is dealt (each round) the letters, drawn
the profile and given the stream of seat (s + k) % n. Seat 0 still reads first; the category deck
is the deal's; profiles fixed per seat (the data input) stay with their seat, like its policy.

data = (letter cards per kind int64[27] (the Wie Weet Wat cards' entry is ignored: the rule
wie_weet_wat_cards says how many), the letters' shares float64[26], the category breadths
float64[4 * category cards], the category kinds' letter shares float64[N_CATEGORY_KINDS, 26],
each category's kind int64[4 * category cards], and the profiles fixed per seat (the data input
`profiles`: knowledge float64[MAX_PLAYERS, N_CATEGORY_KINDS] and letter factors
float64[MAX_PLAYERS, 26], 0 where drawn, reaction times float64[MAX_PLAYERS], -1 where drawn); all
but the first three are read by the profiles recall model only), and last the searching seats, or
None when no seat searches: the driver is then compiled without the search (sim/contract.py).
"""

import numpy as np

from kernels.args_nb import search_unannounced_nb, shapes_ok_nb, trace_ok_nb
from kernels.jit import kernel, njit
from kernels.rng_nb import seat_stream_nb
from kernels.rotation_nb import deal_of_nb, held_hand_nb, rotate_seat_rows_nb, rotating_nb
from kernels.status import BAD_ARGS, OK, TRACE_FULL
from kernels.wieweetwat.enums import (
    AS_DRAWN,
    AS_LEADER_CHANGE,
    AS_SELF_CHANGE,
    CATEGORIES_PER_CARD,
    EV_CARD,
    EV_END,
    EV_GAME,
    EV_ROUND,
    EV_ROUND_END,
    EV_WINNER,
    GS_ACTIONS,
    GS_CATEGORIES,
    GS_FIRST_READER_WINS,
    GS_PASSES,
    GS_RACE_MS,
    GS_REMISES,
    HAND_MASK,
    MAX_PLAYERS,
    MAX_QUEUE,
    MAX_SAMPLES,
    MIN_PLAYERS,
    N_ACTIONS,
    N_CATEGORY_KINDS,
    N_KINDS,
    N_LETTERS,
    N_POLICIES,
    N_RULES_F,
    N_RULES_I,
    P_SEARCH,
    R_ACTION_FIRST,
    R_HAND_SIZE,
    R_RECALL_MODEL,
    R_ROUNDS_TO_WIN,
    R_WWW_CARDS,
    RECALL_PROFILES,
    RECALL_UNIFORM,
    RF_KNOWLEDGE_SIGMA,
    RF_LETTER_SIGMA,
    RF_REACTION_SIGMA,
    RF_REACTION_TIME,
    RF_TIME_LIMIT,
    SEAT_F_ORDER,
    SEAT_I_ORDER,
    SF_SPEED,
    SF_VOCABULARY,
    SI_SAMPLES,
    SS_CARDS_SHED,
    SS_CATEGORIES_WON,
    SS_COUNTER_ATTACKED,
    SS_COUNTER_ATTACKS,
    SS_JOKERS,
    SS_PENALTY_CARDS,
    SS_WRONG,
    SS_WWW_ROUNDS,
    SS_WWW_ROUNDS_WON,
    TRACE_WIDTH,
    WWW,
)
from kernels.wieweetwat.known_nb import forget_nb, kept_nb
from kernels.wieweetwat.piles_nb import (
    deal_round_nb,
    shuffle_categories_nb,
)
from kernels.wieweetwat import search_nb
from kernels.wieweetwat.recall_nb import card_shares_nb, draw_profiles_nb, lowest_kind_nb
from kernels.wieweetwat.rules_nb import LS_LEFT, LS_SHED, play_round_nb
from kernels.wieweetwat.table_nb import new_table_nb
from kernels.wieweetwat.trace_nb import ev_nb, trace_full_nb, tracing_nb


@njit
def args_ok_nb(first, count, rule_i, rule_f, seat_policy, seat_i, seat_f, data, out, trace):
    if first < 0 or not shapes_ok_nb(count, MIN_PLAYERS, MAX_PLAYERS, seat_policy, rule_i,
                                     N_RULES_I, rule_f, N_RULES_F, seat_i, len(SEAT_I_ORDER),
                                     seat_f, len(SEAT_F_ORDER), out):
        return False
    n = seat_policy.shape[0]
    letter_cards, share, breadth, kshare, cat_kind, fixed_know, fixed_letters, fixed_react, _ = data
    if letter_cards.shape[0] != N_KINDS or share.shape[0] != N_LETTERS:
        return False
    if breadth.shape[0] < CATEGORIES_PER_CARD or breadth.shape[0] % CATEGORIES_PER_CARD != 0:
        return False
    for b in breadth:
        if not b > 0.0:
            return False
    if rule_i[R_RECALL_MODEL] != RECALL_UNIFORM and rule_i[R_RECALL_MODEL] != RECALL_PROFILES:
        return False
    if kshare.shape[0] != N_CATEGORY_KINDS or kshare.shape[1] != N_LETTERS \
            or cat_kind.shape[0] != breadth.shape[0]:
        return False
    for k in cat_kind:
        if k < 0 or k >= N_CATEGORY_KINDS:
            return False
    if fixed_know.shape[0] != MAX_PLAYERS or fixed_know.shape[1] != N_CATEGORY_KINDS \
            or fixed_letters.shape[0] != MAX_PLAYERS or fixed_letters.shape[1] != N_LETTERS \
            or fixed_react.shape[0] != MAX_PLAYERS:
        return False
    for s in range(MAX_PLAYERS):
        if not fixed_react[s] >= -1.0:
            return False
        for k in range(N_CATEGORY_KINDS):
            if not fixed_know[s, k] >= 0.0:
                return False
        for letter in range(N_LETTERS):
            if not fixed_letters[s, letter] >= 0.0:
                return False
    for k in range(N_CATEGORY_KINDS):
        for letter in range(N_LETTERS):
            if not kshare[k, letter] > 0.0:
                return False
    if not (rule_f[RF_KNOWLEDGE_SIGMA] >= 0.0 and rule_f[RF_LETTER_SIGMA] >= 0.0
            and rule_f[RF_REACTION_TIME] >= 0.0 and rule_f[RF_REACTION_SIGMA] >= 0.0):
        return False
    deck = rule_i[R_WWW_CARDS]
    for kind in range(N_LETTERS):
        if letter_cards[kind] < 0:
            return False
        deck += letter_cards[kind]
    if rule_i[R_HAND_SIZE] < 1 or n * rule_i[R_HAND_SIZE] > deck or rule_i[R_ROUNDS_TO_WIN] < 1:
        return False
    actions = 0
    for a in range(N_ACTIONS):
        if rule_i[R_ACTION_FIRST + a] < 0:
            return False
        actions += rule_i[R_ACTION_FIRST + a]
    if actions >= MAX_QUEUE or rule_f[RF_TIME_LIMIT] <= 0.0:
        return False
    for s in range(n):
        if seat_policy[s] < 0 or seat_policy[s] >= N_POLICIES:
            return False
        if seat_policy[s] == P_SEARCH and not 1 <= seat_i[s, SI_SAMPLES] <= MAX_SAMPLES:
            return False
        if seat_f[s, SF_VOCABULARY] <= 0.0 or seat_f[s, SF_SPEED] <= 0.0:
            return False
    return trace_ok_nb(trace, TRACE_WIDTH)


@kernel
def play_games_nb(seed, first, count, rule_i, rule_f, seat_policy, seat_i, seat_f, data, out,
                  trace, checked):
    """Play games first..first+count-1 into out[0..count). Returns (status, failed game or -1,
    trace rows written).

    rule_i: int64[N_RULES_I] in RULE_I_ORDER (action_cards is read by the runner only), then a 1
    for an arm that rotates its seats (kernels/rotation_nb.py); rule_f: float64[N_RULES_F] in
    RULE_F_ORDER. seat_policy: int64[n], a policy id (P_*) per seat; seat_i: int64[n, 4]
    (joker_use, counter, shed, target as option indices); seat_f: float64[n, 4] (vocabulary,
    speed, error_rate, joker_patience). data: see the module. out: OUT_DTYPE records. trace: None,
    or int32[T, TRACE_WIDTH]: the first game's events ended by EV_END. checked: after every
    reader's turn, verify that every letter card and every category card is in exactly one place.
    """
    if not args_ok_nb(first, count, rule_i, rule_f, seat_policy, seat_i, seat_f, data, out, trace):
        return BAD_ARGS, -1, 0
    if search_unannounced_nb(data[8], seat_policy, np.int64(P_SEARCH)):
        return BAD_ARGS, -1, 0
    return play_nb(seed, first, count, rule_i, rule_f, seat_policy, seat_i, seat_f, data, out,
                   trace, checked, search_nb.workspace_for_nb(data[8], ()))


@njit
def play_nb(seed, first, count, rule_i, rule_f, seat_policy, seat_i, seat_f, data, out, trace,
            checked, search):
    """The games after the checks. `search`: the search players' workspace, made once per call, or
    None at a table without a search seat, chosen by the type of data's searching seats
    (kernels/searching_nb.py): the loop is compiled without the search for None and with it for a
    workspace, and a table compiles only its own."""
    letter_cards, share, breadth, kshare, cat_kind, fixed_know, fixed_letters, fixed_react, _ = data
    n = seat_policy.shape[0]
    hand_size = rule_i[R_HAND_SIZE]
    rounds_to_win = rule_i[R_ROUNDS_TO_WIN]
    rows = new_table_nb()  # every array below is a view of this one record (table_nb.py)
    t = rows[0]
    rotating = rotating_nb(rule_i, N_RULES_I)
    t["rule_i"][:] = rule_i[:N_RULES_I]
    t["rule_f"][:] = rule_f
    rule_i = t["rule_i"]
    rule_f = t["rule_f"]
    for s in range(n):
        t["policy"][s] = seat_policy[s]
        for j in range(seat_i.shape[1]):
            t["seat_i"][s, j] = seat_i[s, j]
        for j in range(seat_f.shape[1]):
            t["seat_f"][s, j] = seat_f[s, j]
        # vocabulary x speed: the breadth multiplies it per category
        t["rates"][s] = seat_f[s, SF_VOCABULARY] * seat_f[s, SF_SPEED]
    seat_policy = t["policy"]
    seat_i = t["seat_i"]
    seat_f = t["seat_f"]
    rates = t["rates"]
    t["share"][:] = share
    share = t["share"]
    n_cat = breadth.shape[0] // CATEGORIES_PER_CARD
    t["breadth"][:breadth.shape[0]] = breadth
    breadth = t["breadth"]
    t["cat_kind"][:cat_kind.shape[0]] = cat_kind
    t["kshare"][:, :] = kshare
    t["fixed_know"][:, :] = fixed_know
    t["fixed_letters"][:, :] = fixed_letters
    t["fixed_react"][:] = fixed_react
    profiles = rule_i[R_RECALL_MODEL] == RECALL_PROFILES
    prof = (t["cat_kind"], t["pshare"], t["know"], t["react"], t["crates"], t["hshare"])
    # the letter deck, one entry per card
    deck_counts = t["deck_counts"]
    for kind in range(N_LETTERS):
        deck_counts[kind] = letter_cards[kind]
    deck_counts[WWW] = rule_i[R_WWW_CARDS]
    deck = t["deck"]
    n_deck = np.int64(0)
    for kind in range(N_KINDS):
        for _ in range(deck_counts[kind]):
            deck[n_deck] = kind
            n_deck += 1
    # the category deck: the category cards, then the action cards
    card_action = t["card_action"]
    n_cards = n_cat
    for c in range(n_cat):
        card_action[c] = -1
    for a in range(N_ACTIONS):
        for _ in range(rule_i[R_ACTION_FIRST + a]):
            card_action[n_cards] = a
            n_cards += 1
    n_actions = n_cards - n_cat

    hands = t["hands"]
    hand_n = t["hand_n"]
    pending = t["pending"]
    restrict = t["restrict"]
    lpile = t["lpile"]
    ldisc = t["ldisc"]
    cpile = t["cpile"]
    cdisc = t["cdisc"]
    cuse = t["cuse"]
    pile_n = t["pile_n"]
    seat_rng = t["rng"]
    seat_stats = t["seat_stats"]
    action_stats = t["action_stats"]
    letter_stats = t["letter_stats"]
    game_stats = t["game_stats"]
    score = t["score"]
    has_www = t["has_www"]
    at = t["trace_n"]
    tracing = tracing_nb(trace)
    rules = (rule_i, rule_f, seat_policy, seat_i, seat_f, rates, share, breadth, card_action, prof)
    known = t["known"]
    keeps_known = kept_nb(rule_i, seat_policy, n)
    state = (hands, hand_n, pending, restrict, pile_n, seat_rng, known)
    piles = (lpile, ldisc, cpile, cdisc, cuse)
    stats = (seat_stats, action_stats, letter_stats, game_stats)
    scratch = (t["times"], t["kinds"], t["letters"], t["wrong"], t["hand_shares"], t["queue"],
               t["tmp"], t["letter_times"], t["chosen"], t["share_masks"], t["known_rows"])
    checks = (deck_counts, t["seen"], n_cards, 1 if checked else 0)
    if search is not None:
        # The play-outs' round (no trace, no search) must be compiled before the round that
        # searches: a call to a function still being compiled is left as a symbol that the
        # on-disk cache cannot resolve (a cached kernel would jump to address 0). Numba compiles
        # the callees in the order of these lines; the call under `count < 0` never runs
        # (args_ok_nb refused it).
        if count < 0:
            play_round_nb(seed, np.int64(0), np.int64(0), np.int64(0), n, rules, state, piles,
                          stats, scratch, checks, None, at, None, np.int64(-1))
        search_nb.set_up_nb(search, rules, deck_counts, n_cards)

    for k in range(count):
        g, shift = deal_of_nb(first + k, n, rotating)  # g: the deal, and every stream's game
        rec = out[k]
        if profiles:
            draw_profiles_nb(seed, g, n, shift, rule_f, t["kshare"], t["pshare"], t["know"],
                             t["lfactor"], t["react"], seat_rng, t["fixed_know"],
                             t["fixed_letters"], t["fixed_react"])
            card_shares_nb(t["pshare"], deck_counts, n, t["hshare"])
        for s in range(n):
            seat_rng[s] = seat_stream_nb(seed, g, held_hand_nb(s, shift, n))
            score[s] = 0
        seat_stats[:] = 0
        action_stats[:] = 0
        letter_stats[:] = 0
        game_stats[:] = 0
        ev_nb(trace, at, EV_GAME, -1, n, n_deck, n_cat, n_actions, 0, 0)
        shuffle_categories_nb(seed, g, cpile, pile_n, n_cards)
        reader = np.int64(0)
        rnd = np.int64(0)
        while True:
            deal_round_nb(seed, g, rnd, deck, n_deck, lpile, pile_n, hands, hand_n, n, hand_size)
            if shift != 0:
                rotate_seat_rows_nb(hands, hand_n, n, shift)
            if keeps_known:
                forget_nb(known, n)
            ev_nb(trace, at, EV_ROUND, reader, rnd + 1, 0, 0, 0, 0, 0)
            if tracing:
                for s in range(n):
                    for kind in range(N_KINDS):
                        for _ in range(hands[s, kind]):
                            ev_nb(trace, at, EV_CARD, s, kind, 0, 0, 0, 0, 0)
            for s in range(n):
                pending[s] = -1
                has_www[s] = 1 if hands[s, WWW] > 0 else 0
                seat_stats[s, SS_WWW_ROUNDS] += has_www[s]
            first_reader = reader
            if search is not None:
                search_nb.note_score_nb(search, score)
            won, status = play_round_nb(seed, g, rnd, reader, n, rules, state, piles, stats,
                                        scratch, checks, trace, at, search, np.int64(-1))
            if status != OK:
                return status, first + k, at[0]
            score[won] += 1
            if won == first_reader:
                game_stats[GS_FIRST_READER_WINS] += 1
            if has_www[won]:
                seat_stats[won, SS_WWW_ROUNDS_WON] += 1
            for s in range(n):
                held = hands[s, HAND_MASK]  # the kinds held, lowest first: the others add 0
                while held:
                    kind = lowest_kind_nb(held)
                    held &= held - 1
                    letter_stats[kind, LS_LEFT] += hands[s, kind]
                    if tracing:
                        for _ in range(hands[s, kind]):
                            ev_nb(trace, at, EV_CARD, s, kind, 1, 0, 0, 0, 0)
            ev_nb(trace, at, EV_ROUND_END, won, rnd + 1, score[won], 0, 0, 0, 0)
            rnd += 1
            if score[won] >= rounds_to_win:
                break
            reader = won  # the round's winner reads first in the next round
        mask = 0
        for s in range(n):
            if score[s] >= rounds_to_win:
                mask |= 1 << s
                ev_nb(trace, at, EV_WINNER, s, score[s], 0, 0, 0, 0, 0)
        rec.winner_mask = mask
        rec.turns = game_stats[GS_CATEGORIES] + game_stats[GS_ACTIONS]
        rec.rounds = rnd
        rec.categories = game_stats[GS_CATEGORIES]
        rec.race_seconds = game_stats[GS_RACE_MS] / 1000.0
        rec.remises = game_stats[GS_REMISES]
        rec.passes = game_stats[GS_PASSES]
        rec.first_reader_rounds_won = game_stats[GS_FIRST_READER_WINS]
        for s in range(n):
            rec.score[s] = score[s]
            rec.wrong_answers[s] = seat_stats[s, SS_WRONG]
            rec.categories_won[s] = seat_stats[s, SS_CATEGORIES_WON]
            rec.cards_shed[s] = seat_stats[s, SS_CARDS_SHED]
            rec.penalty_cards[s] = seat_stats[s, SS_PENALTY_CARDS]
            rec.jokers[s] = seat_stats[s, SS_JOKERS]
            rec.counter_attacks[s] = seat_stats[s, SS_COUNTER_ATTACKS]
            rec.counter_attacked[s] = seat_stats[s, SS_COUNTER_ATTACKED]
            rec.www_rounds[s] = seat_stats[s, SS_WWW_ROUNDS]
            rec.www_rounds_won[s] = seat_stats[s, SS_WWW_ROUNDS_WON]
        for a in range(N_ACTIONS):
            rec.actions_drawn[a] = action_stats[a, AS_DRAWN]
            rec.action_self_change[a] = action_stats[a, AS_SELF_CHANGE]
            rec.action_leader_change[a] = action_stats[a, AS_LEADER_CHANGE]
        for kind in range(N_KINDS):
            rec.letters_left[kind] = letter_stats[kind, LS_LEFT]
            rec.letters_shed[kind] = letter_stats[kind, LS_SHED]
        if tracing:
            if trace_full_nb(trace, at):
                return TRACE_FULL, g, at[0]
            ev_nb(trace, at, EV_END, -1, 0, 0, 0, 0, 0, 0)
    return OK, -1, at[0]
