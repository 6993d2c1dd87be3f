"""The Wie is de Heer? driver: play games first .. first+count-1 of an arm into a record array.

Randomness is split by purpose so that arms pair (kernels/rng_nb.py):
- the mole card and the deal of game g come from deal_stream_nb(seed, g, 0), the k-th reshuffle of
  the discard pile from deal_stream_nb(seed, g, k);
- seat s's random choices (a random player's cards, the mole's sabotage coins) come from
  seat_stream_nb(seed, g, s);
- the answers to questions (how each answer reads) come from extra_stream_nb(seed, g, 0);
- an arm that rotates its seats (kernels/rotation_nb.py) plays game g // n at rotation g % n: the
  streams of game g // n, with each seat's hand, its stream and the mole card shifted by the
  rotation (seat 0 still starts, so the seat's position is what differs).
"""
import numpy as np

from kernels.args_nb import search_unannounced_nb, shapes_ok_nb, trace_ok_nb
from kernels.jit import inline, kernel, njit
from kernels.trace_nb import trace_full_nb, traced_nb
from kernels.trace_nb import trace_row_nb
from kernels.rng_nb import extra_stream_nb, next_word_nb, seat_stream_nb
from kernels.rotation_nb import (
    deal_of_nb, held_hand_nb, holder_nb, rotate_seat_rows_nb, rotating_nb,
)
from kernels.status import BAD_ARGS, CARDS_LOST, ILLEGAL_MOVE, INVARIANT, OK, TOO_LONG, TRACE_FULL
from kernels.wieisdeheer.belief_nb import (
    act_likelihoods_nb, answer_likelihoods_nb, bayes_update_nb, brier_nb, init_beliefs_nb,
    is_evidence_nb, most_likely_nb, most_uncertain_nb, note_act_nb, public_chances_nb,
    stated_beliefs_nb, update_one_nb,
)
from kernels.wieisdeheer import search_nb  # a module: search_nb plays out with this module's loop
from kernels.wieisdeheer.enums import (
    ACE, ACT_BANK, ACT_OTHER, ACT_VOID, DRAW_NO_FIT, DRAW_PENALTY, EV_ASK, EV_BANK, EV_BELIEF,
    EV_CARD, EV_DRAW, EV_END, EV_EVIDENCE, EV_GAME, EV_GOT, EV_ORDER, EV_OUT, EV_PASS, EV_PLAY,
    EV_RESHUFFLE, EV_REVERSE, EV_SABOTAGE, EV_SKIP, EV_STALL, EV_START, EV_VOID, EV_WINNER,
    G_ACTIVE, G_DRY, G_FIRST_CARD, G_MOLE, G_OUT, G_PAUSED, G_PLAYS, G_QUESTIONS, G_SABOTAGES,
    G_SEAT, G_SINCE_OUT, G_STALLED, G_TURNS, JACK, JOKER, LONG_ROUNDS, MAX_JOKERS, MAX_PLAYERS,
    MAX_SAMPLES, MAX_TURNS, MIN_PLAYERS, N_CARDS, N_GS, N_PER, N_POLICIES, N_RULES_F, N_RULES_I,
    N_SUITS, P_RANDOM, P_REASONER, P_SEARCH, PS_ASKED, PS_BANKED, PS_BRIER, PS_DRAWN,
    PS_JOKER_FINISH, PS_ORDER, PS_OUT, PS_P_MOLE, PS_P_SUSPECT, PS_PUB_SUSPECT, PS_RICH, PS_SUSPECT,
    PS_VOIDED, R_ANSWERS_PUBLIC, R_JOKER_UP, R_JOKERS, R_LAST_NAMES, R_MOLE_POT, R_MUST_STACK,
    R_PLAY_DRAWN, R_QUESTIONS, RF_ACCURACY, SEAT_F_ORDER, SEAT_I_ORDER, SEVEN, SF_BLUFF, SF_SABOTAGE, SF_SUSPECT,
    SI_MOLE_STYLE, SI_RICH, SI_SAMPLES, STUCK_ROUNDS, TRACE_WIDTH,
)
from kernels.wieisdeheer.policies_nb import (
    choose_slot_nb, jack_suit_nb, pick_nb, play_drawn_nb, stack_slot_nb,
)
from kernels.wieisdeheer.rules_nb import (
    PILE_BANKED, PILE_VOIDED, go_out_nb, next_seat_nb, pile_effect_nb, turn_effect_nb, winner_nb,
)
from kernels.wieisdeheer.table_nb import (
    N_ST, RANK_OF, ST_CARDS, ST_DIR, ST_PENDING, ST_PILE, ST_POT, ST_RANK, ST_RESHUFFLES,
    ST_SUIT, ST_VOIDED,
    cards_conserved_nb, discard_nb, draw_one_nb, fits_nb, remove_at_nb, setup_nb,
)

SCALE = 1e6  # likelihoods in the trace: millionths
UNIT = np.uint64(11)
TO_UNIT = 1.0 / 9007199254740992.0





@inline
def ev_nb(trace, tp, code, seat, a, b, c, d, e, f):
    """trace_row_nb with every value an int64: event codes, zeros and -1 are constants, and each mix
    of them would be a specialisation of its own."""
    return trace_row_nb(trace, np.int64(tp), np.int64(code), np.int64(seat), np.int64(a), np.int64(b),
                        np.int64(c), np.int64(d), np.int64(e), np.int64(f))

@njit
def permille_nb(p):
    return np.int64(p * 1000.0 + 0.5)


@njit
def beliefs_ev_nb(trace, tp, post, players):
    """One EV_BELIEF row per seat: its posterior in per mille."""
    if trace is None:
        return tp
    for o in range(players):
        v = np.zeros(MAX_PLAYERS, np.int64)
        for m in range(players):
            v[m] = permille_nb(post[o, m])
        tp = ev_nb(trace, tp, EV_BELIEF, o, v[0], v[1], v[2], v[3], v[4], v[5])
    return tp


@njit
def beliefs_sound_nb(post, players):
    for o in range(players):
        total = 0.0
        for m in range(players):
            if post[o, m] < 0.0 or post[o, m] > 1.0 + 1e-9:
                return False
            total += post[o, m]
        if post[o, o] != 0.0 or abs(total - 1.0) > 1e-9:
            return False
    return True


@njit
def args_ok_nb(first, count, rule_i, rule_f, seat_policy, seat_i, seat_f, out, trace):
    if first < 0 or not shapes_ok_nb(count, MIN_PLAYERS, MAX_PLAYERS, seat_policy, rule_i,
                                     N_RULES_I, rule_f, N_RULES_F, seat_i, len(SEAT_I_ORDER),
                                     seat_f, len(SEAT_F_ORDER), out):
        return False
    n = seat_policy.shape[0]
    if rule_i[R_JOKERS] < 0 or rule_i[R_JOKERS] > MAX_JOKERS or rule_i[R_QUESTIONS] < 0:
        return False
    if rule_f[RF_ACCURACY] < 0.0 or rule_f[RF_ACCURACY] > 1.0:
        return False
    for s in range(n):
        if seat_policy[s] < 0 or seat_policy[s] >= N_POLICIES or seat_i[s, SI_RICH] < 1:
            return False
        if seat_i[s, SI_MOLE_STYLE] < 0 or seat_i[s, SI_MOLE_STYLE] > 1:
            return False
        if seat_policy[s] == P_SEARCH and not 1 <= seat_i[s, SI_SAMPLES] <= MAX_SAMPLES:
            return False
        for k in range(seat_f.shape[1]):
            if not (0.0 <= seat_f[s, k] <= 1.0):
                return False
    return trace_ok_nb(trace, TRACE_WIDTH)


@kernel
def play_games_nb(seed, first, count, rule_i, rule_f, seat_policy, seat_i, seat_f, data, out,
                  trace, checked):
    """Play games first..first+count-1 into out[0..count). Returns (status, failed game or -1,
    trace rows written).

    rule_i: int64[8] in RULE_I_ORDER; rule_f: float64[1] (answer_accuracy). seat_policy:
    int64[players] (P_*); seat_i: int64[players, 3] (mole_style, rich, samples); seat_f:
    float64[players, 3] (sabotage, bluff, suspect_sabotage); data: (the searching seats or None,)
    (sim/contract.py). out: OUT_DTYPE records.
    trace: None, or int32[T, TRACE_WIDTH]: the first game's events ended by EV_END. checked: after
    every action, verify that the card fitted, every card is in exactly one place and every
    posterior is a distribution.
    """
    if not args_ok_nb(first, count, rule_i, rule_f, seat_policy, seat_i, seat_f, out, trace):
        return BAD_ARGS, -1, 0
    # A traced call (one game, where speed does not matter) always takes the search's loop: one
    # traced loop to compile, not two (the search's steps run for search seats only, so the rows
    # are the same). `trace` is an argument here, so that an untraced call prunes this branch.
    if trace is not None:
        return play_nb(seed, first, count, rule_i, rule_f, seat_policy, seat_i, seat_f, out, trace,
                       checked, search_nb.new_workspace_nb(seat_policy))
    if search_unannounced_nb(data[0], seat_policy, np.int64(P_SEARCH)):
        return BAD_ARGS, -1, 0
    return play_nb(seed, first, count, rule_i, rule_f, seat_policy, seat_i, seat_f, out, trace,
                   checked, search_nb.workspace_for_nb(data[0], (seat_policy,)))


@inline
def new_tables_nb():
    """The arrays one game is played on: (st, hands, hand_n, draw, disc, in_disc, seen, counts,
    post, told, pub, rng, per, gs). `told`: rows 0..MAX_PLAYERS-1 the stated beliefs of a writer,
    rows MAX_PLAYERS + o seat o's log likelihood ratios of the acts it read, per actor
    (stated_beliefs_nb); `pub`: the beliefs from public evidence alone (kept only when a seat
    searches); `rng`: the seat streams, then the answers' stream at MAX_PLAYERS."""
    return (np.zeros(N_ST, np.int64), np.zeros((MAX_PLAYERS, N_CARDS), np.int64),
            np.zeros(MAX_PLAYERS, np.int64), np.zeros(N_CARDS, np.int64),
            np.zeros(N_CARDS, np.int64), np.zeros(N_CARDS, np.int64), np.zeros(N_CARDS, np.int64),
            np.zeros(N_SUITS + 1, np.int64), np.zeros((MAX_PLAYERS, MAX_PLAYERS), np.float64),
            np.zeros((2 * MAX_PLAYERS, MAX_PLAYERS), np.float64),
            np.zeros((MAX_PLAYERS, MAX_PLAYERS), np.float64),
            np.zeros(MAX_PLAYERS + 1, np.uint64), np.zeros((N_PER, MAX_PLAYERS), np.int64),
            np.zeros(N_GS, np.int64))


@njit
def start_game_nb(seed, g, shift, n, jokers, seat_i, tb):
    """Deal game g at rotation `shift` (0: unrotated) onto the tables `tb` and reset its beliefs,
    streams and records."""
    st, hands, hand_n, draw, disc, in_disc, seen, counts, post, told, pub, rng, per, gs = tb
    mole = setup_nb(seed, g, n, jokers, st, hands, hand_n, draw, disc, in_disc)
    if shift != 0:
        rotate_seat_rows_nb(hands, hand_n, n, shift)
        mole = holder_nb(mole, shift, n)  # the king moves with the cards
    init_beliefs_nb(post, n)
    init_beliefs_nb(pub, n)
    told[:] = 0.0
    rng[MAX_PLAYERS] = extra_stream_nb(seed, g, np.int64(0))
    for s in range(n):
        rng[s] = seat_stream_nb(seed, g, held_hand_nb(s, shift, n))
        for row in range(N_PER):
            per[row, s] = 0
        per[PS_SUSPECT, s] = -1
        per[PS_P_SUSPECT, s] = -1
        per[PS_P_MOLE, s] = -1
        per[PS_BRIER, s] = -1
        per[PS_PUB_SUSPECT, s] = -1
        per[PS_RICH, s] = seat_i[s, SI_RICH]
    for k in range(N_GS):
        gs[k] = 0
    gs[G_ACTIVE] = n
    gs[G_MOLE] = mole
    gs[G_FIRST_CARD] = 1


@njit
def play_nb(seed, first, count, rule_i, rule_f, policies, seat_i, seat_f, out, trace, checked,
            search):
    n = policies.shape[0]
    jokers = rule_i[R_JOKERS]
    mole_pot = rule_i[R_MOLE_POT]
    tb = new_tables_nb()
    st, hands, hand_n, draw, disc, in_disc, seen, counts, post, told, pub, rng, per, gs = tb
    tracing = traced_nb(trace)
    rotating = rotating_nb(rule_i, N_RULES_I)
    tp = 0

    for k in range(count):
        g = first + k
        rec = out[k]
        tr = tracing and k == 0
        dg, shift = deal_of_nb(g, n, rotating)
        start_game_nb(seed, dg, shift, n, jokers, seat_i, tb)
        mole = gs[G_MOLE]
        if tr:
            tp = ev_nb(trace, tp, EV_GAME, -1, n, jokers, st[ST_CARDS], mole, 0, 0)
            for s in range(n):
                for i in range(hand_n[s]):
                    tp = ev_nb(trace, tp, EV_CARD, s, hands[s, i], 0, 0, 0, 0, 0)
            tp = ev_nb(trace, tp, EV_START, -1, disc[0], st[ST_PILE], 0, 0, 0, 0)
            tp = beliefs_ev_nb(trace, tp, post, n)
        if checked and not cards_conserved_nb(st, hands, hand_n, n, draw, disc, in_disc, seen):
            return CARDS_LOST, g, tp
        status, tp = play_turns_nb(seed, dg, rule_i, rule_f, policies, seat_i, seat_f, tb, trace,
                                   tp, tr, checked, search, -1, MAX_TURNS + 1)
        if status != OK:
            return status, g, tp
        tp = rest_of_order_nb(rule_i, policies, tb, n, trace, tp, tr)
        order = per[PS_ORDER]
        suspect = per[PS_SUSPECT]
        winner = winner_nb(order, n, suspect, mole, st[ST_POT], mole_pot)
        mole_won = winner == mole
        rec_score = rec["score"]
        for place in range(n):
            t = order[place]
            rec["finish"][t] = place
            if tr:
                tp = ev_nb(trace, tp, EV_ORDER, t, place, suspect[t],
                           1 if suspect[t] == mole and t != mole else 0, 0, 0, 0)
        for t in range(n):
            rec_score[t] = 1 if t == winner else 0
            rec["suspect"][t] = suspect[t]
            if t == mole:
                rec["correct"][t] = -1
                rec["p_suspect"][t] = -1
                rec["p_mole"][t] = -1
                rec["brier"][t] = -1
            else:
                rec["correct"][t] = 1 if suspect[t] == mole else 0
                rec["p_suspect"][t] = per[PS_P_SUSPECT, t]
                rec["p_mole"][t] = per[PS_P_MOLE, t]
                rec["brier"][t] = per[PS_BRIER, t]
            rec["joker_finish"][t] = per[PS_JOKER_FINISH, t]
            rec["questions_asked"][t] = per[PS_ASKED, t]
            rec["banked"][t] = per[PS_BANKED, t]
            rec["voided"][t] = per[PS_VOIDED, t]
            rec["drawn"][t] = per[PS_DRAWN, t]
        if tr:
            tp = ev_nb(trace, tp, EV_WINNER, winner, 1 if mole_won else 0, st[ST_POT],
                       st[ST_VOIDED], st[ST_PILE], 0, 0)
        rec["winner_mask"] = 1 << winner
        rec["turns"] = gs[G_TURNS]
        rec["rounds"] = 1
        rec["mole"] = mole
        rec["mole_won"] = 1 if mole_won else 0
        rec["pot"] = st[ST_POT]
        rec["points_voided"] = st[ST_VOIDED]
        rec["points_left"] = st[ST_PILE]
        rec["questions"] = gs[G_QUESTIONS]
        rec["plays"] = gs[G_PLAYS]
        rec["reshuffles"] = st[ST_RESHUFFLES]
        rec["sabotages"] = gs[G_SABOTAGES]
        rec["stalled"] = gs[G_STALLED]
        if tr:
            if trace_full_nb(trace, tp):
                return TRACE_FULL, g, tp
            tp = ev_nb(trace, tp, EV_END, -1, 0, 0, 0, 0, 0, 0)
    return OK, -1, tp


@inline
def play_turns_nb(seed, g, rule_i, rule_f, policies, seat_i, seat_f, tb, trace, tp, tr, checked,
                  search, forced, until):
    """Play game g on the tables `tb` from the state in gs until one player is left or the game is
    stuck; returns (status, trace rows). Reshuffles come from deal_stream_nb(seed, g, k).

    `search`: the search players' workspace (search_nb.new_workspace_nb), or None in the search's
    own play-outs and at tables without a search seat (Numba then compiles this loop without it).
    `forced` >= 0: resume at gs's seat, at the choice of a card with no draw pending (a turn's first
    card, or one on a 7 as gs[G_FIRST_CARD] says), and play the card in that hand slot: the search
    plays each option out this way. `until`: a search seat's decision at or after this many turns
    stops play there (gs[G_PAUSED] = 1 + the reasoner's slot; tests read the state)."""
    st, hands, hand_n, draw, disc, in_disc, seen, counts, post, told, pub, rng, per, gs = tb
    n = policies.shape[0]
    play_drawn = rule_i[R_PLAY_DRAWN] != 0
    questions = rule_i[R_QUESTIONS]
    answers_public = rule_i[R_ANSWERS_PUBLIC] != 0
    joker_up = rule_i[R_JOKER_UP] != 0
    must_stack = rule_i[R_MUST_STACK] != 0
    mole_pot = rule_i[R_MOLE_POT]
    accuracy = rule_f[RF_ACCURACY]
    seat_rng = rng  # seat s's stream is rng[s]
    out_of = per[PS_OUT]
    drawn = per[PS_DRAWN]
    banked = per[PS_BANKED]
    voided = per[PS_VOIDED]
    asked = per[PS_ASKED]
    rich = per[PS_RICH]
    ans_rng = rng[MAX_PLAYERS]
    mole = gs[G_MOLE]
    s = gs[G_SEAT]
    turns = gs[G_TURNS]
    plays = gs[G_PLAYS]
    n_out = gs[G_OUT]
    active = gs[G_ACTIVE]
    since_out = gs[G_SINCE_OUT]  # turns since somebody went out
    dry = gs[G_DRY]  # dry reshuffles (fewer cards than players still in) and failed draws in a row
    sabotages = gs[G_SABOTAGES]
    n_questions = gs[G_QUESTIONS]
    stalled = gs[G_STALLED]
    gs[G_PAUSED] = 0
    resume = forced >= 0
    status = OK
    while active > 1:
        pol = policies[s]
        acts = P_REASONER if pol == P_SEARCH else pol  # a search seat plays, and is read, as one
        # the pot rule: open while the pot is below the threshold (the pot can still decide the
        # game), settled once it reaches it (the pot only grows: sabotage could only give the mole
        # away, so the mole plays loyal and the observers read no act)
        pot_open = mole_pot > 0 and st[ST_POT] < mole_pot
        pot_settled = mole_pot > 0 and not pot_open
        # the mole's sabotage: a search seat's own choice is its search's, never a coin
        saboteur = s == mole and pol != P_SEARCH and not pot_settled
        skip = False
        gone = False
        last = -1
        nxt = next_seat_nb(s, st[ST_DIR], n, out_of)
        slot = -1
        if resume:
            first_card = gs[G_FIRST_CARD] != 0
            resume = False
        else:
            turns += 1
            if turns > MAX_TURNS:
                status = TOO_LONG
                break
            if st[ST_PENDING] > 0:
                slot = stack_slot_nb(acts, hands[s], hand_n[s], seat_rng, s, must_stack)
                if slot < 0:
                    want = st[ST_PENDING]
                    st[ST_PENDING] = 0
                    got = 0
                    if tr:
                        tp = ev_nb(trace, tp, EV_DRAW, s, want, DRAW_PENALTY, 0, 0, 0, 0)
                    for _ in range(want):
                        card, moved = draw_one_nb(seed, g, st, draw, disc, in_disc, hands,
                                                  hand_n, s)
                        dry = dry_count_nb(dry, card, moved, active)
                        if moved > 0 and tr:
                            tp = ev_nb(trace, tp, EV_RESHUFFLE, -1, moved, 0, 0, 0, 0, 0)
                        if card < 0:
                            break
                        got += 1
                        if tr:
                            tp = ev_nb(trace, tp, EV_GOT, s, card, 0, 0, 0, 0, 0)
                    drawn[s] += got
                    slot = -2
            first_card = True
        # the turn's cards: one, more after a 7, or a draw (and maybe the drawn card)
        while True:
            sab = 0
            from_draw = False
            if slot == -2:
                break
            if slot < 0:
                if forced >= 0:
                    slot = forced
                    forced = -1
                else:
                    slot, sab = choose_slot_nb(acts, hands, hand_n, s, st[ST_SUIT], st[ST_RANK],
                                               st[ST_PILE], rich[s], hand_n[nxt], saboteur,
                                               seat_f[s, SF_SABOTAGE], seat_i[s, SI_MOLE_STYLE],
                                               seat_rng, counts, st, in_disc,
                                               pot_open and saboteur)
                    if search is not None and pol == P_SEARCH and slot >= 0:
                        gs[G_SEAT] = s
                        gs[G_TURNS] = turns
                        gs[G_PLAYS] = plays
                        gs[G_OUT] = n_out
                        gs[G_ACTIVE] = active
                        gs[G_SINCE_OUT] = since_out
                        gs[G_DRY] = dry
                        gs[G_SABOTAGES] = sabotages
                        gs[G_QUESTIONS] = n_questions
                        gs[G_STALLED] = stalled
                        gs[G_FIRST_CARD] = 1 if first_card else 0
                        rng[MAX_PLAYERS] = ans_rng
                        if turns >= until and search_nb.options_nb(tb, s, slot, search[4]) > 0:
                            gs[G_PAUSED] = 1 + slot
                            return OK, tp
                        chosen = search_nb.search_slot_nb(rule_i, rule_f, policies, seat_i, seat_f,
                                                          tb, s, slot, search)
                        if chosen != slot:
                            slot = chosen
                            sab = 0  # the search's own choice, not the mole's coin
            if slot < 0 and not first_card:
                break  # after a 7 a player "mag" lay another card: nothing fits, the turn ends
            if slot < 0:
                card, moved = draw_one_nb(seed, g, st, draw, disc, in_disc, hands, hand_n, s)
                dry = dry_count_nb(dry, card, moved, active)
                if moved > 0 and tr:
                    tp = ev_nb(trace, tp, EV_RESHUFFLE, -1, moved, 0, 0, 0, 0, 0)
                if card < 0:
                    if tr:
                        tp = ev_nb(trace, tp, EV_PASS, s, 0, 0, 0, 0, 0, 0)
                    break
                drawn[s] += 1
                if tr:
                    tp = ev_nb(trace, tp, EV_DRAW, s, 1, DRAW_NO_FIT, 0, 0, 0, 0)
                    tp = ev_nb(trace, tp, EV_GOT, s, card, 0, 0, 0, 0, 0)
                slot = hand_n[s] - 1
                if not (play_drawn and fits_nb(card, st[ST_SUIT], st[ST_RANK], np.int64(0))
                        and play_drawn_nb(acts, hands[s], hand_n[s], slot, counts, st[ST_PILE],
                                          rich[s], hand_n[nxt])):
                    break
                from_draw = True
            card = hands[s, slot]
            if checked and not fits_nb(card, st[ST_SUIT], st[ST_RANK], st[ST_PENDING]):
                return ILLEGAL_MOVE, tp
            pile = st[ST_PILE]
            if not from_draw and st[ST_PENDING] == 0 and not pot_settled \
                    and is_evidence_nb(acts, pile, rich[s]):
                a, j, o = public_chances_nb(st, in_disc, st[ST_SUIT], st[ST_RANK], hand_n[s])
                r = RANK_OF[card]
                act = ACT_VOID if r == ACE else (ACT_BANK if r == JACK else ACT_OTHER)
                tp = read_act_nb(post, told, pub, search is not None, n, s, act, a, j, o,
                                 seat_i[s, SI_MOLE_STYLE], seat_f, trace, tp, tr, pile, sab)
            if sab > 0:
                sabotages += 1
                if sab == 2 and tr:
                    tp = ev_nb(trace, tp, EV_SABOTAGE, s, card, pile, 0, 0, 0, 0)
            remove_at_nb(hands, hand_n, s, slot)
            discard_nb(st, disc, in_disc, card)
            plays += 1
            last = card
            moved_pts, what = pile_effect_nb(st, card)
            if RANK_OF[card] == JACK:
                st[ST_SUIT] = jack_suit_nb(acts, hands[s], hand_n[s], st[ST_SUIT], seat_rng, s,
                                           counts)
            skip = turn_effect_nb(st, card)
            if tr:
                tp = ev_nb(trace, tp, EV_PLAY, s, card, pile, st[ST_PILE], st[ST_PENDING],
                           st[ST_SUIT], hand_n[s])
            if what == PILE_BANKED:
                banked[s] += moved_pts
                if tr:
                    tp = ev_nb(trace, tp, EV_BANK, s, moved_pts, st[ST_POT], 0, 0, 0, 0)
            elif what == PILE_VOIDED:
                voided[s] += moved_pts
                if tr:
                    tp = ev_nb(trace, tp, EV_VOID, s, moved_pts, 0, 0, 0, 0, 0)
                    tp = ev_nb(trace, tp, EV_REVERSE, -1, st[ST_DIR], 0, 0, 0, 0, 0)
                if questions > 0:
                    if acts == P_RANDOM:
                        target = (s + 1 + pick_nb(seat_rng, s, n - 1)) % n
                    elif pol == P_SEARCH:
                        target = search_nb.question_target_nb(post, per, s, n, n_out, questions,
                                                              accuracy, seat_f)
                    else:
                        target = most_uncertain_nb(post, s, n)
                    bluff = seat_f[target, SF_BLUFF]
                    mole_like = 0
                    for _ in range(questions):
                        ans_rng, u = next_word_nb(ans_rng)
                        x = (u >> UNIT) * TO_UNIT
                        ll, lm = answer_likelihoods_nb(True, accuracy, bluff)
                        reads = x < (lm if target == mole else ll)
                        if reads:
                            mole_like += 1
                        ll, lm = answer_likelihoods_nb(reads, accuracy, bluff)
                        if answers_public:
                            bayes_update_nb(post, n, target, ll, lm)
                            if search is not None:
                                bayes_update_nb(pub, n, target, ll, lm)
                        else:
                            update_one_nb(post, s, n, target, ll, lm)
                    asked[s] += questions
                    n_questions += questions
                    if tr:
                        tp = ev_nb(trace, tp, EV_ASK, s, target, questions, mole_like, 0, 0, 0)
                        tp = beliefs_ev_nb(trace, tp, post, n)
            if checked:
                if not cards_conserved_nb(st, hands, hand_n, n, draw, disc, in_disc, seen):
                    return CARDS_LOST, tp
                if not beliefs_sound_nb(post, n):
                    return INVARIANT, tp
            if hand_n[s] == 0 or RANK_OF[card] != SEVEN:
                break
            first_card = False
            slot = -1  # a 7: play another card on it, or draw
        # going out: the player writes down the current best suspect
        if hand_n[s] == 0 and out_of[s] == 0:
            on_joker = last >= 0 and RANK_OF[last] == JOKER
            go_out_nb(per[PS_ORDER], n_out, s, on_joker, joker_up)
            n_out += 1
            active -= 1
            out_of[s] = 1
            gone = True
            per[PS_JOKER_FINISH, s] = 1 if on_joker else 0
            write_suspect_nb(pol, post, told, s, n, mole, seat_rng, per, n_out)
            per[PS_PUB_SUSPECT, s] = most_likely_nb(pub, s, n)  # what a search seat guesses
            if tr:
                tp = ev_nb(trace, tp, EV_OUT, s, n_out - 1, per[PS_SUSPECT, s],
                           per[PS_P_SUSPECT, s], per[PS_JOKER_FINISH, s], 0, 0)
        if active <= 1:
            break
        if gone:
            dry = 0
            since_out = 0
        else:
            since_out += 1
        if dry >= STUCK_ROUNDS or since_out >= LONG_ROUNDS * active:  # stuck
            stalled = 1
            if tr:
                tp = ev_nb(trace, tp, EV_STALL, -1, active, 0, 0, 0, 0, 0)
            break
        s = next_seat_nb(s, st[ST_DIR], n, out_of)
        if skip:
            if tr:
                tp = ev_nb(trace, tp, EV_SKIP, s, 0, 0, 0, 0, 0, 0)
            s = next_seat_nb(s, st[ST_DIR], n, out_of)
    gs[G_SEAT] = s
    gs[G_TURNS] = turns
    gs[G_PLAYS] = plays
    gs[G_OUT] = n_out
    gs[G_ACTIVE] = active
    gs[G_SINCE_OUT] = since_out
    gs[G_DRY] = dry
    gs[G_SABOTAGES] = sabotages
    gs[G_QUESTIONS] = n_questions
    gs[G_STALLED] = stalled
    rng[MAX_PLAYERS] = ans_rng
    return status, tp


@inline
def read_act_nb(post, told, pub, keep_pub, n, actor, act, a, j, o, style, seat_f, trace, tp, tr,
                pile, sab):
    """Every other seat reads the act of `actor` (a reasoner on a rich pile) with its own model of
    the mole: the sabotage rate it assumes, seat_f[., SF_SUSPECT], and the actor's `mole_style`
    (public). Seats that assume the same rate share the likelihoods: one trace row per rate, with
    the mask of its readers; a seat that assumes 0 reads nothing (every ratio would be 1). Updates
    post (and pub when a seat searches) and each reader's act evidence in told; returns the trace
    rows."""
    read = False
    for ob in range(n):
        rate = seat_f[ob, SF_SUSPECT]
        if ob == actor or rate <= 0.0:
            continue
        seen_before = False
        for k in range(ob):
            if k != actor and seat_f[k, SF_SUSPECT] == rate:
                seen_before = True
        if seen_before:
            continue  # read with the first seat of its rate
        ll, lm = act_likelihoods_nb(act, a, j, o, rate, style)
        readers = 0
        for k in range(ob, n):
            if k != actor and seat_f[k, SF_SUSPECT] == rate:
                update_one_nb(post, k, n, actor, ll, lm)
                note_act_nb(told, k, actor, ll, lm)
                if keep_pub:
                    update_one_nb(pub, k, n, actor, ll, lm)
                readers |= 1 << k
        read = True
        if tr:
            tp = ev_nb(trace, tp, EV_EVIDENCE, actor, act, np.int64(ll * SCALE + 0.5),
                       np.int64(lm * SCALE + 0.5), pile, 1 if sab > 0 else 0, readers)
    if tr and read:
        tp = beliefs_ev_nb(trace, tp, post, n)
    return tp


@njit
def rest_of_order_nb(rule_i, policies, tb, n, trace, tp, tr):
    """The game is over (one player left, or stuck): the players still in take the remaining
    places, fewest cards first (ties in turn order from the seat to move), and write their
    suspects when the rules say so. Returns the trace rows."""
    st, hands, hand_n, draw, disc, in_disc, seen, counts, post, told, pub, rng, per, gs = tb
    last_names = rule_i[R_LAST_NAMES] != 0
    out_of = per[PS_OUT]
    s = gs[G_SEAT]
    n_out = gs[G_OUT]
    while n_out < n:
        best = np.int64(-1)
        for kk in range(n):
            t = (s + kk) % n
            if out_of[t] == 0 and (best < 0 or hand_n[t] < hand_n[best]):
                best = t
        per[PS_ORDER, n_out] = best
        per[PS_PUB_SUSPECT, best] = most_likely_nb(pub, best, n)  # for a search seat after it
        n_out += 1
        out_of[best] = 1
        if last_names:
            write_suspect_nb(policies[best], post, told, best, n, gs[G_MOLE], rng, per, n_out)
        if tr:
            tp = ev_nb(trace, tp, EV_OUT, best, n_out - 1, per[PS_SUSPECT, best],
                       per[PS_P_SUSPECT, best], 0, 1, 0)
    gs[G_OUT] = n_out
    return tp


@njit
def dry_count_nb(dry, card, moved, active):
    """The stuck counter after a draw: a failed draw or a reshuffle of fewer cards than players
    still in adds one, a fuller reshuffle starts it again, a plain draw leaves it."""
    if card < 0 or (0 < moved < active):
        return dry + 1
    if moved > 0:
        return 0
    return dry


@njit
def write_suspect_nb(policy, post, told, s, players, mole, seat_rng, per, placed):
    """Seat s, at a place among the first `placed` of the order, writes its suspect: the most
    likely mole in the beliefs it states (stated_beliefs_nb: the acts' evidence tempered; random:
    any other seat; search: search_nb.suspect_nb on its posterior); of the stated beliefs, the
    probability on its suspect, the probability on the true mole and the Brier score are kept (per
    mille, per mille, millionths)."""
    stated_beliefs_nb(post, s, players, told)
    if policy == P_RANDOM:
        w = (s + 1 + pick_nb(seat_rng, s, players - 1)) % players
    elif policy == P_SEARCH:
        w = search_nb.suspect_nb(post, per, s, players, placed)
    else:
        w = most_likely_nb(told, s, players)
    per[PS_SUSPECT, s] = w
    per[PS_P_SUSPECT, s] = permille_nb(told[s, w])
    per[PS_P_MOLE, s] = permille_nb(told[s, mole]) if s != mole else -1
    per[PS_BRIER, s] = np.int64(brier_nb(told, s, players, mole) * SCALE + 0.5)
