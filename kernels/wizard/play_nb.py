"""The Wizard driver: play games first .. first+count-1 of an arm into a preallocated record array.

Randomness is split by purpose so that arms pair (kernels/rng_nb.py):
- round r (0 = the first round) of game g is dealt from deal_stream_nb(seed, g, r) alone: the
  cards of a round depend on (seed, g, r) only, never on the rules, the players or the play of
  earlier rounds;
- seat s's random choices (a random player's bids, cards and trump choice; the sampler's and the
  search player's deals) come from seat_stream_nb(seed, g, s): what one seat's player does never
  moves another seat's random draws. The heuristic draws nothing;
- an arm that rotates its seats (kernels/rotation_nb.py) plays deal g // n at rotation g % n: the
  streams of game g // n, each round's hands and each seat's stream shifted by the rotation.
"""
import numpy as np

from kernels.args_nb import search_unannounced_nb, shapes_ok_nb, trace_ok_nb
from kernels.jit import inline, ix, kernel, njit
from kernels.trace_nb import trace_full_nb, traced_nb
from kernels.trace_nb import trace_row_nb
from kernels.rng_nb import deal_stream_nb, next_word_nb, seat_stream_nb
from kernels.rotation_nb import deal_of_nb, held_hand_nb, rotating_nb
from kernels.status import BAD_ARGS, CARDS_LOST, ILLEGAL_MOVE, INVARIANT, OK, TOO_LONG, TRACE_FULL
from kernels.wizard.bid_model_nb import bonus_kind_nb
from kernels.wizard.bid_tables import SEARCH_BONUS
from kernels.wizard.enums import (
    EV_BID, EV_BID_VALUE, EV_DEAL, EV_END, EV_GAME, EV_PLAY, EV_ROUND, EV_SCORE, EV_TRICK, EV_TRUMP, EV_TURN,
    EV_WINNER, LEAD_NONE, MAX_PLAYERS, MAX_ROUNDS, MAX_TURNS, MIN_PLAYERS, N_CARDS, N_POLICIES, N_RULES,
    P_RANDOM, P_SAMPLER, P_SEARCH, R_FINAL_NO_TRUMP, R_HOOK_RULE, R_ROUNDS, R_STRICT_VOID,
    SAMPLES_MAX, SAMPLES_MIN, SEAT_I_ORDER, SI_SAMPLES, TRACE_WIDTH,
)
from kernels.wizard.policies_nb import (
    WS_BID_TOTALS, WS_H_SIZE, WS_I_SIZE, choose_bid_nb, choose_card_nb, choose_trump_nb, random_bid_nb,
    random_card_nb,
)
from kernels.wizard.rules_nb import (
    FULL_MASK, ONE, ZERO, bid_is_legal_nb, cards_conserved_nb, deal_nb, forbidden_bid_nb,
    lead_after_nb, legal_mask_nb, popcount_nb, rotate_hands_nb, round_score_nb, trick_value_nb,
    trump_of_turned_nb,
)
from kernels.wizard.search_nb import (
    note_play_nb, search_bid_nb, search_bonus_nb, search_card_nb, search_trump_nb, searches_bid_nb,
)


# Numba compiles a helper once for each tuple of argument types it is called with, and types a
# constant argument as that literal (Literal[int](0)), not int64: a helper called with a constant
# in one place and a variable in another is compiled twice, both copies the same machine code in
# effect. So constants handed to helpers are made int64 here (np.int64(...)), and variables that
# start from a constant start from an int64 one (tests/test_specialisations.py checks it).


@inline
def ev_nb(trace, tp, code, seat, a, b, c):
    """trace_row_nb with every value as an int64 (event codes and -1 are constants: each mix of
    them would be a specialisation of its own)."""
    return trace_row_nb(trace, np.int64(tp), np.int64(code), np.int64(seat), np.int64(a),
                        np.int64(b), np.int64(c))


@njit
def rounds_of_nb(n, rule_i):
    """Rounds to play: rule_i[R_ROUNDS], 0 meaning all 60/n."""
    r = rule_i[R_ROUNDS]
    return N_CARDS // n if r == 0 else r


@njit
def bid_values_nb(trace, tp, s, r, forbidden, bonus, samples, ws_i):
    """EV_BID_VALUE rows: what search_bid_nb left in ws_i, each legal bid's total and the bonus in
    it (searches_bid_nb: none when it did not search; search_bonus_nb: the bonus in the totals)."""
    if not searches_bid_nb(r, forbidden):
        return tp
    extra = search_bonus_nb(r, bonus)
    for b in range(r + 1):
        if b != forbidden:
            part = extra * b * samples
            tp = ev_nb(trace, tp, EV_BID_VALUE, s, b, ws_i[WS_BID_TOTALS + b] - part, part)
    return tp


@njit
def args_ok_nb(first, count, rule_i, rule_f, seat_policy, seat_i, seat_f, out, trace):
    if first < 0 or not shapes_ok_nb(count, MIN_PLAYERS, MAX_PLAYERS, seat_policy, rule_i, N_RULES,
                                     rule_f, 0, seat_i, len(SEAT_I_ORDER), seat_f, 0, out):
        return False
    n = seat_policy.shape[0]
    r = rule_i[R_ROUNDS]
    if r < 0 or r * n > N_CARDS:
        return False
    for k in (R_HOOK_RULE, R_FINAL_NO_TRUMP, R_STRICT_VOID):
        if rule_i[k] != 0 and rule_i[k] != 1:
            return False
    for s in range(n):
        if seat_policy[s] < 0 or seat_policy[s] >= N_POLICIES:
            return False
        if seat_policy[s] == P_SEARCH and not SAMPLES_MIN <= seat_i[s, SI_SAMPLES] <= SAMPLES_MAX:
            return False
    return trace_ok_nb(trace, TRACE_WIDTH)


@kernel
def play_games_nb(seed, first, count, rule_i, rule_f, seat_policy, seat_i, seat_f, data, out,
                  trace, checked):
    """Play games first..first+count-1 into out[0..count). Returns (status, failed game or -1,
    trace rows written).

    seed, first, count: int64. rule_i: int64[N_RULES] in RULE_I_ORDER; rule_f: float64[0].
    seat_policy: int64[players], a policy id (P_*) per seat; seat_i: int64[players, 1] (samples,
    read by search seats); seat_f: float64[players, 0]; data: (the searching seats or None,)
    (sim/contract.py).
    out: OUT_DTYPE records, length >= count; the kernel writes the used part of each list field.
    trace: None, or int32[T, TRACE_WIDTH]: the first game's events, ended by an EV_END row (counted
    in the rows returned). checked: verify cards, legality and each round's tricks after every
    action. Status codes: kernels/status.py.
    """
    if not args_ok_nb(first, count, rule_i, rule_f, seat_policy, seat_i, seat_f, out, trace):
        return BAD_ARGS, -1, 0
    return dispatch_nb(seed, first, count, rule_i, seat_policy, seat_i, out, trace, checked,
                       data[0])


@njit
def dispatch_nb(seed, first, count, rule_i, seat_policy, seat_i, out, trace, checked, searching):
    """play_nb with the workspaces the table's seats need. `searching` (data's item: the searching
    seats, or None) is an argument so that Numba prunes the search's call when it is None: a table
    without a search seat compiles no search code (a search seat it was not told of is BAD_ARGS)."""
    need_i = False
    need_h = False
    need_s = False
    for s in range(seat_policy.shape[0]):
        need_i |= seat_policy[s] != P_RANDOM
        need_h |= seat_policy[s] == P_SAMPLER or seat_policy[s] == P_SEARCH
        need_s |= seat_policy[s] == P_SEARCH
    # The workspaces double as compile-time switches (policies_nb): a table of random players runs
    # a kernel without the heuristic's and the Monte Carlo players' code, a heuristic table one
    # without the sampler's and the search's, a sampler table one without the search's (`voids`,
    # what the play has shown, is kept only for search seats). Each call below is its own
    # specialisation of play_nb.
    if search_unannounced_nb(searching, seat_policy, np.int64(P_SEARCH)):
        return BAD_ARGS, -1, 0
    if searching is not None:  # Numba prunes the branch when searching is None
        if need_s:
            return play_nb(seed, first, count, rule_i, seat_policy, seat_i, out, trace, checked,
                           np.zeros(WS_I_SIZE, dtype=np.int64),
                           np.zeros(WS_H_SIZE, dtype=np.uint64),
                           np.zeros(MAX_PLAYERS, dtype=np.int64))
    if need_h:
        return play_nb(seed, first, count, rule_i, seat_policy, None, out, trace, checked,
                       np.zeros(WS_I_SIZE, dtype=np.int64), np.zeros(WS_H_SIZE, dtype=np.uint64),
                       None)
    if need_i:
        return play_nb(seed, first, count, rule_i, seat_policy, None, out, trace, checked,
                       np.zeros(WS_I_SIZE, dtype=np.int64), None, None)
    return play_nb(seed, first, count, rule_i, seat_policy, None, out, trace, checked, None, None,
                   None)


@njit
def play_nb(seed, first, count, rule_i, policies, seat_i, out, trace, checked, ws_i, ws_h, voids):
    """play_games_nb after its checks, with the workspaces its seats need (None: not needed).

    Search seats are dispatched here rather than in policies_nb's choose_* (search_nb builds on
    policies_nb, and the search reads more of the table: every hand's size, the trick's winner,
    the voids shown, its `samples` from seat_i, which is None at tables without a search seat)."""
    n = policies.shape[0]
    n_rounds = rounds_of_nb(n, rule_i)
    hook = rule_i[R_HOOK_RULE] != 0
    final_no_trump = rule_i[R_FINAL_NO_TRUMP] != 0
    strict_void = rule_i[R_STRICT_VOID] != 0
    rotating = rotating_nb(rule_i, N_RULES)

    rng = np.zeros(1, dtype=np.uint64)  # the round's deal stream
    deal_rng = np.zeros(MAX_ROUNDS, dtype=np.uint64)  # each round's deal stream, from its start
    seat_rng = np.zeros(MAX_PLAYERS, dtype=np.uint64)  # each seat's own stream
    deck = np.empty(N_CARDS, dtype=np.int64)
    hands = np.zeros(MAX_PLAYERS, dtype=np.uint64)
    bids = np.zeros(MAX_PLAYERS, dtype=np.int64)
    tricks = np.zeros(MAX_PLAYERS, dtype=np.int64)
    score = np.zeros(MAX_PLAYERS, dtype=np.int64)
    exact = np.zeros(MAX_PLAYERS, dtype=np.int64)
    taken = np.zeros(MAX_PLAYERS, dtype=np.int64)
    lost = np.zeros(MAX_PLAYERS, dtype=np.int64)
    bid_sum = np.zeros(MAX_PLAYERS, dtype=np.int64)
    tracing = traced_nb(trace)
    tp = np.int64(0)

    for k in range(count):
        g = first + k
        rec = out[k]
        round_bids = rec["round_bids"]
        round_tricks = rec["round_tricks"]
        round_turned = rec["round_turned"]
        round_trump = rec["round_trump"]
        tr = tracing and k == 0
        # Every stream of the game is started here, in one go: they are independent of each other, so
        # the CPU overlaps their hashing; started one by one where each round begins, each would
        # hold up its deal (that cost the random kernel ~10 %).
        deal, shift = deal_of_nb(g, n, rotating)
        for rd in range(n_rounds):
            deal_rng[rd] = deal_stream_nb(seed, deal, rd)
        for s in range(n):
            seat_rng[s] = seat_stream_nb(seed, deal, held_hand_nb(s, shift, n))
            score[s] = 0
            exact[s] = 0
            taken[s] = 0
            lost[s] = 0
            bid_sum[s] = 0
        turns = 0
        if tr:
            tp = ev_nb(trace, tp, EV_GAME, -1, -1, n, n_rounds)
        dealer = n - 1
        for rd in range(n_rounds):
            r = rd + 1
            leader = dealer + 1 if dealer + 1 < n else 0
            rng[0] = deal_rng[rd]
            top = deal_nb(rng, deck, n, r, hands)
            if shift != 0:
                rotate_hands_nb(hands, n, shift)
            undealt = FULL_MASK
            for s in range(n):
                undealt &= ~hands[s]
            if checked:
                if not cards_conserved_nb(hands, n, ZERO, ZERO, undealt):
                    return CARDS_LOST, g, tp
                for s in range(n):
                    if popcount_nb(hands[s]) != r:
                        return CARDS_LOST, g, tp
                if top >= 0 and not (undealt >> np.uint64(top)) & ONE:
                    return CARDS_LOST, g, tp
            turned = top
            if final_no_trump and rd == n_rounds - 1:
                turned = -1
            if tr:
                tp = ev_nb(trace, tp, EV_ROUND, dealer, -1, r, r)
                for s in range(n):
                    x = hands[s]
                    for c in range(N_CARDS):
                        if (x >> np.uint64(c)) & ONE:
                            tp = ev_nb(trace, tp, EV_DEAL, s, c, -1, -1)
                tp = ev_nb(trace, tp, EV_TURN, dealer, turned, 1 if turned != top else 0, -1)
            trump = trump_of_turned_nb(turned)
            chooser = -1
            if trump < 0:
                if voids is not None and policies[dealer] == P_SEARCH:
                    trump = search_trump_nb(seat_rng, dealer, hands, turned, n, r, dealer, bids,
                                            hook, strict_void, seat_i[dealer, SI_SAMPLES], ws_i,
                                            ws_h)
                else:
                    trump = choose_trump_nb(policies[dealer], seat_rng, dealer, hands[dealer], ws_i)
                chooser = dealer
                turns += 1
                if checked and (trump < 0 or trump >= 4):
                    return ILLEGAL_MOVE, g, tp
            if tr:
                tp = ev_nb(trace, tp, EV_TRUMP, chooser, turned, trump, -1)
            round_turned[rd] = turned
            round_trump[rd] = trump

            # bidding: from the dealer's left, ending with the dealer
            bsum = np.int64(0)
            s = leader
            for p in range(n):
                pol = policies[s]
                if pol == P_RANDOM or ws_i is None:
                    seat_rng[s], u = next_word_nb(seat_rng[s])
                    b = random_bid_nb(u, r, forbidden_bid_nb(r, bsum, s == dealer, hook))
                elif voids is not None and pol == P_SEARCH:
                    bonus = SEARCH_BONUS[n - MIN_PLAYERS, bonus_kind_nb(turned, n, r), p]
                    b = search_bid_nb(seat_rng, s, hands, trump, turned, n, r, dealer, bids, hook,
                                      strict_void, seat_i[s, SI_SAMPLES], ws_i, ws_h, bonus)
                    if tr:
                        tp = bid_values_nb(trace, tp, s, r, forbidden_bid_nb(r, bsum, s == dealer, hook),
                                           bonus, seat_i[s, SI_SAMPLES], ws_i)
                else:
                    b = choose_bid_nb(pol, seat_rng, hands[s], trump, turned, n, r, s, dealer, p,
                                      bsum, bids, hook, strict_void, ws_i, ws_h)
                if checked and not bid_is_legal_nb(b, r, bsum, s == dealer, hook):
                    return ILLEGAL_MOVE, g, tp
                bids[s] = b
                bsum += b
                turns += 1
                if tr:
                    tp = ev_nb(trace, tp, EV_BID, s, -1, b, 1 if (hook and s == dealer) else 0)
                s = s + 1 if s + 1 < n else 0

            # the tricks
            for s in range(n):
                tricks[s] = 0
                if voids is not None:
                    voids[s] = 0
            played = ZERO
            gone0 = ZERO if turned < 0 else ONE << np.uint64(turned)
            for t in range(r):
                lead = np.int64(LEAD_NONE)
                best = np.int64(-1)
                win = leader
                in_trick = ZERO
                s = leader
                for p in range(n):
                    si = ix(s)  # unsigned: no negative-index code on the hot path (~4 % of random)
                    h = hands[si]
                    legal = legal_mask_nb(h, lead, strict_void)
                    pol = policies[si]
                    if pol == P_RANDOM or ws_i is None:  # the hot path, kept to a two-argument call
                        seat_rng[si], u = next_word_nb(seat_rng[si])
                        c = random_card_nb(u, legal)
                    elif voids is not None and pol == P_SEARCH:
                        c = search_card_nb(seat_rng, s, hands, legal, trump, n, leader, p, lead,
                                           best, win, bids, tricks, played | in_trick | gone0,
                                           in_trick, voids, strict_void, seat_i[si, SI_SAMPLES],
                                           ws_i, ws_h)
                    else:
                        c = choose_card_nb(pol, h, legal, trump, lead, best, p, n,
                                           bids[si] - tricks[si], played | in_trick | gone0)
                    if checked and (c < 0 or c >= N_CARDS or not (legal >> np.uint64(c)) & ONE):
                        return ILLEGAL_MOVE, g, tp
                    cb = ONE << np.uint64(c)
                    hands[si] = h & ~cb
                    in_trick |= cb
                    if voids is not None:
                        note_play_nb(voids, si, lead, c, strict_void)
                    lead = lead_after_nb(lead, c)
                    v = trick_value_nb(c, lead, trump)
                    if v > best:
                        best = v
                        win = s
                    turns += 1
                    if checked and not cards_conserved_nb(hands, n, in_trick, played, undealt):
                        return CARDS_LOST, g, tp
                    if tr:
                        tp = ev_nb(trace, tp, EV_PLAY, s, c, t + 1, p)
                    s = s + 1 if s + 1 < n else 0
                tricks[win] += 1
                played |= in_trick
                leader = win
                if tr:
                    tp = ev_nb(trace, tp, EV_TRICK, win, -1, t + 1, tricks[win])

            # scoring
            total = 0
            for s in range(n):
                total += tricks[s]
                pts = round_score_nb(bids[s], tricks[s])
                score[s] += pts
                taken[s] += tricks[s]
                bid_sum[s] += bids[s]
                if pts > 0:
                    exact[s] += 1
                else:
                    lost[s] -= pts
                round_bids[rd * n + s] = bids[s]
                round_tricks[rd * n + s] = tricks[s]
                if tr:
                    tp = ev_nb(trace, tp, EV_SCORE, s, tricks[s], pts, score[s])
            if checked and (total != r or played | undealt != FULL_MASK):
                return INVARIANT, g, tp
            dealer = dealer + 1 if dealer + 1 < n else 0

        if turns > MAX_TURNS:
            return TOO_LONG, g, tp
        top_score = score[0]
        for s in range(1, n):
            if score[s] > top_score:
                top_score = score[s]
        mask = 0
        rec_score = rec["score"]
        rec_exact = rec["exact_bids"]
        rec_tricks = rec["tricks"]
        rec_lost = rec["points_lost"]
        rec_bid_total = rec["bid_total"]
        for s in range(n):
            if score[s] == top_score:
                mask |= 1 << s
                if tr:
                    tp = ev_nb(trace, tp, EV_WINNER, s, -1, score[s], -1)
            rec_score[s] = score[s]
            rec_exact[s] = exact[s]
            rec_tricks[s] = taken[s]
            rec_lost[s] = lost[s]
            rec_bid_total[s] = bid_sum[s]
        rec["winner_mask"] = mask
        rec["turns"] = turns
        rec["rounds"] = n_rounds
        if tr:
            if trace_full_nb(trace, tp):
                return TRACE_FULL, g, tp
            tp = ev_nb(trace, tp, EV_END, -1, -1, -1, -1)
    return OK, -1, tp
