"""The Wippen driver: play games first .. first+count-1 of an arm into a preallocated record array.

Randomness is split by purpose so that arms pair (kernels/rng_nb.py):
- deal d (0 = the first) of game g is shuffled from deal_stream_nb(seed, g, d) alone: its hands,
  pot and redeals depend on (seed, g, d) and the cards in play only, never on the players, the
  rules of play or how earlier deals went;
- seat s's random choices (a `random` player's moves, a `search` player's determinizations) come
  from seat_stream_nb(seed, g, s). The other players draw nothing;
- an arm that rotates its seats (kernels/rotation_nb.py) plays game g // n at rotation g % n: its
  deal streams, every hand dealt and each seat's stream shifted by the rotation (the pot and the
  dealer stay where they are, so the seat's position is what differs).
"""
import numpy as np

from kernels.args_nb import search_unannounced_nb, shapes_ok_nb, trace_ok_nb
from kernels.jit import borrowing, inline, kernel, njit
from kernels.trace_nb import trace_full_nb, trace_rows_nb
from kernels.trace_nb import trace_row_nb
from kernels.rng_nb import deal_stream_nb, seat_stream_nb
from kernels.rotation_nb import (
    deal_of_nb, held_hand_nb, holder_nb, rotating_nb,
)
from kernels.status import BAD_ARGS, CARDS_LOST, ILLEGAL_MOVE, INVARIANT, OK, TOO_LONG, TRACE_FULL
from kernels.wippen.enums import (
    EV_CARD, EV_DEAL, EV_END, EV_GAME, EV_HAND, EV_PLAY, EV_POT, EV_REMOVED, EV_REST, EV_SCORE,
    EV_SOURCES, EV_WINNER, EV_WIP, HAND, IT_FIELDS, MAX_DEALS, MAX_ITEMS, MAX_MOVES, MAX_PLAYERS,
    MAX_TURNS,
    MIN_PLAYERS, MV_BUILD, MV_CAPTURE, MV_DOUBLE, MV_RAISE, N_CARDS, N_POLICIES, N_RANKS, N_RULES,
    N_SOURCES, P_BUILDER, P_DEFENSIVE, P_GREEDY, P_RANDOM, P_SEARCH, POT_START, R_BUILD_INSTEAD,
    R_DEALS, R_DECKS, R_PTS_WIP, R_RAISE_DOUBLE, R_TARGET, SEAT_F_ORDER, SEAT_I_ORDER, SF_MAX_RISK,
    SF_RISK, SI_SAMPLES,
    SRC_ACES, SRC_CARDS, SRC_DIAMOND_TEN, SRC_SPADE_TWO, SRC_SPADES, SRC_WIPS, TRACE_WIDTH,
)
from kernels.wippen.moves_nb import all_moves_nb, legal_moves_nb
from kernels.wippen.policies_nb import (
    all_items_nb, builder_move_nb, card_worth_nb, defensive_move_nb, greedy_turn_nb,
    hold_chances_nb, item_worths_nb, random_move_nb,
)
from kernels.wippen.rules_nb import (
    POT_FULL, TOOK_BUILD_OF_OTHER, cards_conserved_nb, deal_points_nb, play_move_nb,
    remove_slot_nb,
)
from kernels.wippen.search_nb import search_move_nb, workspace_for_nb
from kernels.wippen.table_nb import (
    SPADE_SET, deal_hands_nb, deck_nb, decks_for_nb, popcount_nb, pot_add_loose_nb, pot_cards_nb,
    pot_take_nb, set_count_nb, shuffle_nb, card_value_nb,
)
from kernels.wippen.workspace_nb import MOVE_FIELDS, plain_views_nb, workspace_nb

LOW31 = np.uint64(0x7FFFFFFF)
S31 = np.uint64(31)

# Numba compiles a helper once for each tuple of argument types it is called with, and types a
# constant argument as that literal (Literal[int](0)), not int64: a helper called with a constant
# in one place and a variable in another is compiled twice, both copies the same machine code in
# effect. A variable that starts from a constant (`pn = 0`) is typed as that literal too while Numba
# has not yet seen the int64 it becomes in the loop, and the helpers it reaches are compiled for
# both. So constants handed to helpers are made int64 here (np.int64(...)), and variables that
# start from a constant start from an int64 one (tests/test_specialisations.py checks it).


@inline
def ev_nb(trace, tp, code, seat, a, b, c, d, e, f):
    """trace_row_nb with every value as an int64 (event codes, zeros and -1 are constants: each
    mix of them would be a specialisation of its own)."""
    return trace_row_nb(trace, np.int64(tp), np.int64(code), np.int64(seat), np.int64(a),
                        np.int64(b), np.int64(c), np.int64(d), np.int64(e), np.int64(f))


@njit
def mask_words_nb(mask):
    """A take mask as two int32-safe words: items 0..30 and items 31..61 (a pot never holds 62
    items; the kernel stops at MAX_ITEMS)."""
    return np.int64(mask & LOW31), np.int64((mask >> S31) & LOW31)


@njit
def args_ok_nb(first, count, rule_i, rule_f, seat_policy, seat_i, seat_f, out, trace):
    if first < 0 or not shapes_ok_nb(count, MIN_PLAYERS, MAX_PLAYERS, seat_policy, rule_i, N_RULES,
                                     rule_f, 0, seat_i, len(SEAT_I_ORDER), seat_f,
                                     len(SEAT_F_ORDER), out):
        return False
    n = seat_policy.shape[0]
    if rule_i[R_DECKS] < 0 or rule_i[R_DECKS] > 2 or rule_i[R_TARGET] < 1:
        return False
    if rule_i[R_DEALS] < 0 or rule_i[R_DEALS] > MAX_DEALS:
        return False
    for k in range(R_BUILD_INSTEAD, N_RULES):
        if rule_i[k] < 0:
            return False
    for s in range(n):
        if seat_policy[s] < 0 or seat_policy[s] >= N_POLICIES:
            return False
        if seat_policy[s] == P_SEARCH and seat_i[s, SI_SAMPLES] < 1:
            return False
    return trace_ok_nb(trace, TRACE_WIDTH)


@kernel
def play_games_nb(seed, first, count, rule_i, rule_f, seat_policy, seat_i, seat_f, data, out,
                  trace, checked):
    """Play games first..first+count-1 into out[0..count). Returns (status, failed game or -1,
    trace rows written).

    rule_i: int64[N_RULES] in RULE_I_ORDER; rule_f: float64[0]. seat_policy: int64[players], a
    policy id (P_*) per seat; seat_i: int64[players, 1] (samples); seat_f: float64[players, 2]
    (risk, max_risk); data: (the searching seats or None,) (sim/contract.py). out: OUT_DTYPE
    records. trace: None, or int32[T, TRACE_WIDTH]: the first game's events ended by EV_END. checked: after every card,
    verify that the move was legal and every card is in exactly one place.
    """
    if not args_ok_nb(first, count, rule_i, rule_f, seat_policy, seat_i, seat_f, out, trace):
        return BAD_ARGS, -1, 0
    if search_unannounced_nb(data[0], seat_policy, np.int64(P_SEARCH)):
        return BAD_ARGS, -1, 0
    return play_nb(seed, first, count, rule_i, seat_policy, seat_i, seat_f, out,
                   trace_rows_nb(trace, TRACE_WIDTH), checked, workspace_nb(),
                   workspace_for_nb(data[0], ()))


@borrowing
def play_nb(seed, first, count, rule_i, policies, seat_i, seat_f, out, trace, checked, workspace,
            search):
    """The driver after its checks, one loop for batches and traces: `trace` has no rows in a
    batch (the trace's branches are then never taken). `search`: the search players' workspace
    (search_nb.new_workspace_nb), or None at a table without a search seat, chosen by the type of
    data's searching seats (kernels/searching_nb.py): the loop is compiled without the search for
    None and with it for a workspace, and a table compiles only its own.
    `workspace`: the one-record array of workspace_nb, whose fields are all the driver's arrays:
    it allocates nothing, so it runs without reference counting (`borrowing`)."""
    n = policies.shape[0]
    # every array is a field of the workspace record (allocating nothing, the driver runs without
    # reference counting); the turns of greedy and random take the record itself
    ws = workspace[0]
    item_i, item_m, hands, mv_i, mv_m, seat_rng, item_w, worth, scratch = plain_views_nb(ws)
    in_play = ws["in_play"].reshape(N_CARDS)
    removed = ws["removed"].reshape(N_CARDS)
    in_value = ws["in_value"].reshape(N_RANKS + 1)
    stock = ws["stock"].reshape(N_CARDS)
    hand_n = ws["hand_n"].reshape(MAX_PLAYERS)
    piles = ws["piles"].reshape((MAX_PLAYERS, 2))
    public = ws["public"].reshape(N_RANKS + 1)
    chance = ws["chance"].reshape(N_RANKS + 1)
    after_i = ws["after_i"].reshape((MAX_ITEMS, IT_FIELDS))
    after_m = ws["after_m"].reshape((MAX_ITEMS, 2))
    tmp = ws["tmp"].reshape(2)
    pile_tmp = ws["pile_tmp"].reshape(2)
    chk_i = ws["chk_i"].reshape((MAX_MOVES, MOVE_FIELDS))
    chk_m = ws["chk_m"].reshape(MAX_MOVES)
    points = ws["points"].reshape((MAX_PLAYERS, N_SOURCES))
    totals = ws["totals"].reshape(MAX_PLAYERS)
    sources = ws["sources"].reshape((MAX_PLAYERS, N_SOURCES))
    wips = ws["wips"].reshape(MAX_PLAYERS)
    acts = ws["acts"].reshape((MAX_PLAYERS, 7))
    position_points = ws["position_points"].reshape(MAX_PLAYERS)
    card_count = ws["card_count"].reshape(N_CARDS)

    decks = decks_for_nb(rule_i[R_DECKS], n)
    n_in, n_removed = deck_nb(decks, n, in_play, removed)
    for j in range(n_in):
        in_value[card_value_nb(in_play[j])] += 1
    card_worth_nb(rule_i, worth)
    wip_points = np.float64(rule_i[R_PTS_WIP])
    build_instead = rule_i[R_BUILD_INSTEAD] != 0
    raise_double = rule_i[R_RAISE_DOUBLE] != 0
    target = rule_i[R_TARGET]
    fixed_deals = rule_i[R_DEALS]
    rotating = rotating_nb(rule_i, N_RULES)

    cand, cval, stack, groups, gspan, joint, unions = scratch
    tracing = trace.shape[0] > 0
    tp = np.int64(0)

    for k in range(count):
        g = first + k
        rec = out[k]
        tr = tracing and k == 0
        dg, shift = deal_of_nb(g, n, rotating)
        for s in range(n):
            seat_rng[s] = seat_stream_nb(seed, dg, held_hand_nb(s, shift, n))
            totals[s] = 0
            position_points[s] = 0
            for x in range(N_SOURCES):
                sources[s, x] = 0
            for x in range(7):
                acts[s, x] = 0
        if tr:
            tp = ev_nb(trace, tp, EV_GAME, -1, n, decks, n_removed, n_in, 0, 0)
            for j in range(n_removed):
                tp = ev_nb(trace, tp, EV_REMOVED, -1, removed[j], 0, 0, 0, 0, 0)
        dealer = n - 1
        deal = np.int64(0)
        turns = 0
        while True:
            shuffle_nb(deal_stream_nb(seed, dg, deal), stock, in_play, n_in)
            pn = np.int64(0)
            last_capturer = np.int64(-1)
            for s in range(n):
                piles[s, 0] = 0
                piles[s, 1] = 0
                wips[s] = 0
                hand_n[s] = 0
            public[:] = 0
            if tr:
                tp = ev_nb(trace, tp, EV_DEAL, dealer, deal + 1, 0, 0, 0, 0, 0)
            # dealt from `shift` seats earlier, seat u's cards of the unrotated deal go to seat
            # u - shift: seat s holds what seat s + shift holds unrotated
            deal_from = holder_nb(dealer, shift, n)
            top = deal_hands_nb(stock, np.int64(0), hands, hand_n, n, deal_from)
            for j in range(POT_START):
                c = stock[top]
                top += 1
                pn = pot_add_loose_nb(item_i, item_m, pn, c)
                public[card_value_nb(c)] += 1
            hand_no = 1
            while True:
                if tr:
                    tp = ev_nb(trace, tp, EV_HAND, -1, hand_no, n_in - top, 0, 0, 0, 0)
                    for s in range(n):
                        for j in range(hand_n[s]):
                            tp = ev_nb(trace, tp, EV_CARD, s, hands[s, j], 0, 0, 0, 0, 0)
                    if hand_no == 1:
                        for i in range(pn):
                            tp = ev_nb(trace, tp, EV_POT, -1, item_i[i, 3], 0, 0, 0, 0, 0)
                s = dealer + 1 if dealer + 1 < n else 0
                for t in range(HAND * n):
                    hand = hands[s]
                    hn = hand_n[s]
                    pol = policies[s]
                    stock_left = n_in - top
                    if pol == P_RANDOM:
                        nm, choice = random_move_nb(ws, s, pn, hn, build_instead, raise_double)
                        if nm <= 0:
                            return INVARIANT, g, tp
                    elif pol == P_GREEDY:
                        nm, choice = greedy_turn_nb(ws, s, pn, hn, build_instead, raise_double,
                                                    wip_points, stock_left)
                        if nm <= 0:
                            return INVARIANT, g, tp
                    else:
                        nm = legal_moves_nb(item_i, pn, hand, hn, build_instead, raise_double,
                                            pol == P_BUILDER or pol == P_SEARCH, mv_i, mv_m,
                                            scratch)
                        if nm <= 0:
                            return INVARIANT, g, tp
                        item_worths_nb(item_m, pn, worth, item_w)
                        if pol == P_SEARCH:
                            choice = np.int64(0)
                            if search is not None and nm > 1:
                                choice = search_move_nb(
                                    search, s, seat_i[s, SI_SAMPLES], seat_rng, n, dealer, hands,
                                    hand_n, item_i, item_m, pn, piles, wips, public, last_capturer,
                                    stock_left, in_play, n_in, in_value, totals, deal, rule_i,
                                    worth, wip_points, build_instead, raise_double, mv_i, mv_m, nm)
                        else:
                            nxt = s + 1 if s + 1 < n else 0
                            hold_chances_nb(in_value, public, hand, hn, hand_n[nxt], chance)
                            if pol == P_DEFENSIVE:
                                choice = defensive_move_nb(
                                    mv_i, mv_m, nm, hand, item_i, item_m, pn, item_w, worth,
                                    wip_points, stock_left, s, chance, seat_f[s, SF_RISK], after_i,
                                    after_m, tmp, pile_tmp, cand, cval, stack, groups)
                            else:
                                choice = builder_move_nb(
                                    mv_i, mv_m, nm, hand, item_i, pn, item_w, worth, wip_points,
                                    stock_left, s, chance, seat_f[s, SF_MAX_RISK])
                    if checked and (choice < 0 or choice >= nm):
                        return ILLEGAL_MOVE, g, tp
                    slot = mv_i[choice, 0]
                    kind = mv_i[choice, 1]
                    value = mv_i[choice, 2]
                    mask = mv_m[choice]
                    nf = nm
                    if checked or tr:  # the full legal list (a player's own list may be shorter)
                        nf = all_moves_nb(item_i, pn, hand, hn, build_instead, raise_double, chk_i,
                                          chk_m, scratch)
                    if checked:  # the move is in the full legal list
                        found = False
                        for x in range(nf):
                            if chk_i[x, 0] == slot and chk_i[x, 1] == kind \
                                    and chk_i[x, 2] == value and chk_m[x] == mask:
                                found = True
                        if not found:
                            return ILLEGAL_MOVE, g, tp
                    card = remove_slot_nb(hand, hn, slot)
                    hand_n[s] = hn - 1
                    public[card_value_nb(card)] += 1
                    pn, flags = play_move_nb(item_i, item_m, pn, card, kind, value, mask, s,
                                             piles[s], tmp)
                    if flags & POT_FULL:
                        return INVARIANT, g, tp
                    turns += 1
                    if tr:
                        lo, hi = mask_words_nb(mask)
                        tp = ev_nb(trace, tp, EV_PLAY, s, card, kind, value, lo, hi, nf)
                    if kind == MV_CAPTURE:
                        acts[s, 0] += 1
                        last_capturer = s
                        if flags & TOOK_BUILD_OF_OTHER:
                            acts[s, 4] += 1
                        if pn == 0 and top < n_in:
                            wips[s] += 1
                            acts[s, 5] += 1
                            if tr:
                                tp = ev_nb(trace, tp, EV_WIP, s, 0, n_in - top, 0, 0, 0, 0)
                    elif kind == MV_BUILD:
                        acts[s, 1] += 1
                    elif kind == MV_RAISE:
                        acts[s, 2] += 1
                    elif kind == MV_DOUBLE:
                        acts[s, 3] += 1
                    if checked and not cards_conserved_nb(in_play, n_in, hands, hand_n, n, stock,
                                                          top, n_in, item_m, pn, piles,
                                                          card_count):
                        return CARDS_LOST, g, tp
                    s = s + 1 if s + 1 < n else 0
                if top >= n_in:
                    break
                top = deal_hands_nb(stock, top, hands, hand_n, n, deal_from)
                hand_no += 1
            # the end of the deal: the last capturer takes what is left (no wip)
            rest = pot_cards_nb(item_m, pn)
            if last_capturer >= 0:
                pn = pot_take_nb(item_i, item_m, pn, all_items_nb(pn), piles[last_capturer])
            if tr:
                tp = ev_nb(trace, tp, EV_REST, last_capturer, rest, 0, 0, 0, 0, 0)
            if checked and not cards_conserved_nb(in_play, n_in, hands, hand_n, n, stock, top,
                                                  n_in, item_m, pn, piles, card_count):
                return CARDS_LOST, g, tp
            pn = np.int64(0)
            deal_points_nb(piles, n, wips, rule_i, points)
            for s in range(n):
                pts = 0
                for x in range(N_SOURCES):
                    pts += points[s, x]
                    sources[s, x] += points[s, x]
                totals[s] += pts
                taken = popcount_nb(piles[s, 0]) + popcount_nb(piles[s, 1])
                acts[s, 6] += taken
                position = s - dealer - 1
                if position < 0:
                    position += n
                position_points[position] += pts
                if tr:
                    tp = ev_nb(trace, tp, EV_SCORE, s, taken,
                               set_count_nb(piles[s], SPADE_SET), pts, totals[s], 0, 0)
                    tp = ev_nb(trace, tp, EV_SOURCES, s, points[s, SRC_CARDS],
                               points[s, SRC_SPADES], points[s, SRC_DIAMOND_TEN],
                               points[s, SRC_SPADE_TWO], points[s, SRC_ACES], points[s, SRC_WIPS])
            deal += 1
            if fixed_deals > 0:
                if deal >= fixed_deals:
                    break
            else:
                best = totals[0]
                for s in range(1, n):
                    best = max(best, totals[s])
                if best >= target:
                    break
            if deal >= MAX_DEALS:
                return TOO_LONG, g, tp
            dealer = dealer + 1 if dealer + 1 < n else 0
        if turns > MAX_TURNS:
            return TOO_LONG, g, tp
        best = totals[0]
        for s in range(1, n):
            best = max(best, totals[s])
        mask_w = 0
        rec_score = rec["score"]
        for s in range(n):
            if totals[s] == best:
                mask_w |= 1 << s
                if tr:
                    tp = ev_nb(trace, tp, EV_WINNER, s, totals[s], 0, 0, 0, 0, 0)
            rec_score[s] = totals[s]
            rec["points_cards"][s] = sources[s, SRC_CARDS]
            rec["points_spades"][s] = sources[s, SRC_SPADES]
            rec["points_diamond_ten"][s] = sources[s, SRC_DIAMOND_TEN]
            rec["points_spade_two"][s] = sources[s, SRC_SPADE_TWO]
            rec["points_aces"][s] = sources[s, SRC_ACES]
            rec["points_wips"][s] = sources[s, SRC_WIPS]
            rec["captures"][s] = acts[s, 0]
            rec["builds"][s] = acts[s, 1]
            rec["raises"][s] = acts[s, 2]
            rec["double_builds"][s] = acts[s, 3]
            rec["takeovers"][s] = acts[s, 4]
            rec["wips"][s] = acts[s, 5]
            rec["cards_taken"][s] = acts[s, 6]
            rec["position_points"][s] = position_points[s]
        rec["winner_mask"] = mask_w
        rec["turns"] = turns
        rec["rounds"] = deal
        rec["decks"] = decks
        rec["removed"] = n_removed
        if tr:
            if trace_full_nb(trace, tp):
                return TRACE_FULL, g, tp
            tp = ev_nb(trace, tp, EV_END, -1, 0, 0, 0, 0, 0, 0)
    return OK, -1, tp
