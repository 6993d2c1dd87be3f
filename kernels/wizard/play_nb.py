"""The Wizard driver: play games start .. start+count-1 of an arm into preallocated arrays.

Two random streams per game, both functions of (seed, game index) only: the deal stream
rng = game_stream_nb(seed, g) shuffles the deck (exactly n*r+1 draws per round, whatever the
players do), and the policy stream (derived from it, one random word per decision) serves random
players and seeds the sampler.
So the same game index deals the same cards in every arm: common random numbers across policies
and rule variants.
"""
import numpy as np

from kernels.jit import kernel, njit
from kernels.rng_nb import game_stream_nb, mix64_nb, next_word_nb
from kernels.wizard.enums import (
    ERR_BAD_ARGS, ERR_CARDS_LOST, ERR_ILLEGAL_BID, ERR_ILLEGAL_CARD, ERR_ILLEGAL_TRUMP,
    ERR_TRACE_FULL, ERR_TRICK_SUM, EV_BID, EV_DEAL, EV_END, EV_GAME, EV_PLAY, EV_ROUND, EV_SCORE,
    EV_TRICK, EV_TRUMP, EV_TURN, EV_WINNER, LEAD_NONE, MAX_PLAYERS, MIN_PLAYERS, N_CARDS,
    N_OUT_GAME, N_OUT_SEAT, N_POLICIES, N_RULES, O_ROUNDS, O_TURNS, O_WINNER_MASK, OK, P_RANDOM,
    P_SAMPLER, R_FINAL_NO_TRUMP, R_HOOK_RULE, R_ROUNDS, R_STRICT_VOID, S_BID_SUM, S_EXACT, S_LOST,
    S_SCORE, S_TRICKS, TRACE_WIDTH,
)
from kernels.wizard.policies_nb import (
    choose_bid_nb, choose_card_nb, choose_trump_nb, random_bid_nb, random_card_nb,
)
from kernels.wizard.rules_nb import (
    FULL_MASK, ONE, ZERO, bid_is_legal_nb, cards_conserved_nb, deal_nb, forbidden_bid_nb,
    lead_after_nb, legal_mask_nb, popcount_nb, round_score_nb, trick_value_nb,
    trump_of_turned_nb,
)

POLICY_SALT = np.uint64(0x5EED0F0071CA4D5)


@njit
def ev_nb(trace, tp, code, seat, card, value, extra):
    """Append one trace row (kept only while it fits; the caller checks tp at the end)."""
    if tp < trace.shape[0] - 1:
        trace[tp, 0] = code
        trace[tp, 1] = seat
        trace[tp, 2] = card
        trace[tp, 3] = value
        trace[tp, 4] = extra
    return tp + 1


def policy_workspace(policies):
    """(ws_i, ws_h) for play_games_nb: ws_i int64[128] unless every seat is random, ws_h uint64[16]
    when a seat uses the sampler; None otherwise (see policies_nb: None compiles a leaner kernel)."""
    policies = np.asarray(policies)
    ws_i = None if (policies == P_RANDOM).all() else np.zeros(128, dtype=np.int64)
    ws_h = np.zeros(16, dtype=np.uint64) if (policies == P_SAMPLER).any() else None
    return ws_i, ws_h


@njit
def rounds_of_nb(n, rules):
    """Rounds to play: rules[R_ROUNDS], 0 meaning all 60/n."""
    r = rules[R_ROUNDS]
    return N_CARDS // n if r == 0 else r


@kernel
def play_games_nb(seed, start, count, n, rules, policies, checked, trace,
                  out_game, out_seat, out_bids, out_tricks, out_turned, out_trump, ws_i, ws_h):
    """Play games start..start+count-1. Returns (status, failed game index or -1).

    rules: int64[N_RULES] (R_* order); policies: int64[n] policy id per seat; checked: verify card
    conservation and legality after every action; trace: int32[T, TRACE_WIDTH], rows appended for
    the first game when T > 0 (ended by an EV_END row). Outputs, row k = game start+k:
    out_game int32[count, N_OUT_GAME]; out_seat int32[count, n, N_OUT_SEAT];
    out_bids, out_tricks int8[count, rounds*n] (round-major, seat order);
    out_turned int8[count, rounds] (turned card, -1 none); out_trump int8[count, rounds] (suit, 4 none).
    ws_i int64[128], ws_h uint64[16]: policy workspaces from policy_workspace(policies): ws_i is
    needed unless every seat is random, ws_h when a seat uses the sampler; None compiles a kernel
    without the code of the policies that are absent.
    """
    if n < MIN_PLAYERS or n > MAX_PLAYERS or rules.shape[0] != N_RULES or policies.shape[0] != n:
        return ERR_BAD_ARGS, -1
    n_rounds = rounds_of_nb(n, rules)
    if n_rounds < 1 or n_rounds * n > N_CARDS:
        return ERR_BAD_ARGS, -1
    for s in range(n):
        if policies[s] < 0 or policies[s] >= N_POLICIES:
            return ERR_BAD_ARGS, -1
        if policies[s] != P_RANDOM and ws_i is None:
            return ERR_BAD_ARGS, -1
        if policies[s] == P_SAMPLER and ws_h is None:
            return ERR_BAD_ARGS, -1
    if ws_i is not None and ws_i.shape[0] < 128:
        return ERR_BAD_ARGS, -1
    if ws_h is not None and ws_h.shape[0] < 16:
        return ERR_BAD_ARGS, -1
    if (out_game.shape[0] < count or out_game.shape[1] != N_OUT_GAME
            or out_seat.shape[0] < count or out_seat.shape[1] != n or out_seat.shape[2] != N_OUT_SEAT
            or out_bids.shape[0] < count or out_bids.shape[1] != n_rounds * n
            or out_tricks.shape[0] < count or out_tricks.shape[1] != n_rounds * n
            or out_turned.shape[0] < count or out_turned.shape[1] != n_rounds
            or out_trump.shape[0] < count or out_trump.shape[1] != n_rounds
            or (trace.shape[0] > 0 and trace.shape[1] != TRACE_WIDTH)):
        return ERR_BAD_ARGS, -1
    hook = rules[R_HOOK_RULE] != 0
    final_no_trump = rules[R_FINAL_NO_TRUMP] != 0
    strict_void = rules[R_STRICT_VOID] != 0

    rng = np.zeros(1, dtype=np.uint64)
    prng = np.zeros(1, dtype=np.uint64)
    deck = np.empty(N_CARDS, dtype=np.int64)
    hands = np.zeros(MAX_PLAYERS, dtype=np.uint64)
    bids = np.zeros(MAX_PLAYERS, dtype=np.int64)
    tricks = np.zeros(MAX_PLAYERS, dtype=np.int64)
    score = np.zeros(MAX_PLAYERS, dtype=np.int64)
    exact = np.zeros(MAX_PLAYERS, dtype=np.int64)
    taken = np.zeros(MAX_PLAYERS, dtype=np.int64)
    lost = np.zeros(MAX_PLAYERS, dtype=np.int64)
    bid_sum = np.zeros(MAX_PLAYERS, dtype=np.int64)
    tracing = trace.shape[0] > 0
    tp = 0

    for k in range(count):
        g = start + k
        rng[0] = game_stream_nb(seed, g)
        pst = mix64_nb(rng[0] ^ POLICY_SALT)  # policy stream state
        tr = tracing and k == 0
        for s in range(n):
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
            top = deal_nb(rng, deck, n, r, hands)
            undealt = FULL_MASK
            for s in range(n):
                undealt &= ~hands[s]
            if checked:
                if not cards_conserved_nb(hands, n, ZERO, ZERO, undealt):
                    return ERR_CARDS_LOST, g
                for s in range(n):
                    if popcount_nb(hands[s]) != r:
                        return ERR_CARDS_LOST, g
                if top >= 0 and not (undealt >> np.uint64(top)) & ONE:
                    return ERR_CARDS_LOST, g
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
                pst, u = next_word_nb(pst)
                trump = choose_trump_nb(policies[dealer], u, hands[dealer], ws_i)
                chooser = dealer
                turns += 1
                if checked and (trump < 0 or trump >= 4):
                    return ERR_ILLEGAL_TRUMP, g
            if tr:
                tp = ev_nb(trace, tp, EV_TRUMP, chooser, turned, trump, -1)
            out_turned[k, rd] = turned
            out_trump[k, rd] = trump

            # bidding: from the dealer's left, ending with the dealer
            bsum = 0
            s = leader
            for p in range(n):
                pst, u = next_word_nb(pst)
                pol = policies[s]
                if pol == P_RANDOM or ws_i is None:
                    b = random_bid_nb(u, r, forbidden_bid_nb(r, bsum, s == dealer, hook))
                else:
                    b = choose_bid_nb(pol, u, prng, hands[s], trump, turned, n, r, s, dealer, p,
                                      bsum, bids, hook, strict_void, ws_i, ws_h)
                if checked and not bid_is_legal_nb(b, r, bsum, s == dealer, hook):
                    return ERR_ILLEGAL_BID, g
                bids[s] = b
                bsum += b
                turns += 1
                if tr:
                    tp = ev_nb(trace, tp, EV_BID, s, -1, b, 1 if (hook and s == dealer) else 0)
                s = s + 1 if s + 1 < n else 0

            # the tricks
            for s in range(n):
                tricks[s] = 0
            played = ZERO
            gone0 = ZERO if turned < 0 else ONE << np.uint64(turned)
            for t in range(r):
                lead = LEAD_NONE
                best = -1
                win = leader
                in_trick = ZERO
                s = leader
                for p in range(n):
                    h = hands[s]
                    legal = legal_mask_nb(h, lead, strict_void)
                    pst, u = next_word_nb(pst)
                    pol = policies[s]
                    if pol == P_RANDOM or ws_i is None:  # the hot path, kept to a two-argument call
                        c = random_card_nb(u, legal)
                    else:
                        c = choose_card_nb(pol, u, h, legal, trump, lead, best, p, n,
                                           bids[s] - tricks[s], played | in_trick | gone0, ws_i)
                    if checked and (c < 0 or c >= N_CARDS or not (legal >> np.uint64(c)) & ONE):
                        return ERR_ILLEGAL_CARD, g
                    cb = ONE << np.uint64(c)
                    hands[s] = h & ~cb
                    in_trick |= cb
                    lead = lead_after_nb(lead, c)
                    v = trick_value_nb(c, lead, trump)
                    if v > best:
                        best = v
                        win = s
                    turns += 1
                    if checked and not cards_conserved_nb(hands, n, in_trick, played, undealt):
                        return ERR_CARDS_LOST, g
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
                out_bids[k, rd * n + s] = bids[s]
                out_tricks[k, rd * n + s] = tricks[s]
                if tr:
                    tp = ev_nb(trace, tp, EV_SCORE, s, tricks[s], pts, score[s])
            if checked and (total != r or played | undealt != FULL_MASK):
                return ERR_TRICK_SUM, g
            dealer = dealer + 1 if dealer + 1 < n else 0

        top_score = score[0]
        for s in range(1, n):
            if score[s] > top_score:
                top_score = score[s]
        mask = 0
        for s in range(n):
            if score[s] == top_score:
                mask |= 1 << s
                if tr:
                    tp = ev_nb(trace, tp, EV_WINNER, s, -1, score[s], -1)
            out_seat[k, s, S_SCORE] = score[s]
            out_seat[k, s, S_EXACT] = exact[s]
            out_seat[k, s, S_TRICKS] = taken[s]
            out_seat[k, s, S_LOST] = lost[s]
            out_seat[k, s, S_BID_SUM] = bid_sum[s]
        out_game[k, O_WINNER_MASK] = mask
        out_game[k, O_TURNS] = turns
        out_game[k, O_ROUNDS] = n_rounds
        if tr:
            if tp >= trace.shape[0] - 1:
                return ERR_TRACE_FULL, g
            ev_nb(trace, tp, EV_END, -1, -1, -1, -1)
    return OK, -1
