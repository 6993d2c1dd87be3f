"""Wippen's search player (policy `search`): determinized Monte Carlo over the rest of the deal.

At a turn with more than one legal move, the seat ranks its moves, keeps the builder heuristic's
own choice and the best others up to TOP_K options (ranked by greedy's worth of a capture or
trail, a build by the worth of the cards it gathers; moves that play a card of the same rank and
suit onto the same items are one option), then draws `samples` determinizations of what it
cannot see and plays every option out in each to the end of the deal, every seat playing the builder
heuristic (PLAYOUT_POLICY, the strongest fixed player). It takes the option with the best mean
value (value_nb: its share of the win when the deal ends the game, otherwise 1/players plus its
points lead over the others' mean relative to what a game hands a seat), but keeps the heuristic's
own choice unless another option is better by more than noise (CONFIDENCE). Every option sees the
same determinizations (common random numbers), so the gains over the heuristic's option are
paired.

What the seat knows (as every policy, policies_nb): its own hand, the pot with its builds and their
owners, every card laid open, played and captured this deal (the captured piles and the wips, with
who took them), the cards removed before the deal, the points so far, the hand sizes and how many
cards the stock has left. Hidden: the other hands and the stock's order. The cards it cannot see
(the cards in play less its hand, the pot and the captured piles, listed in card order so that the
list does not depend on where they really are) are shuffled from the seat's own stream and dealt
into the other hands (their sizes are public) and the stock. A simplification: a player who
trailed showed that it held no card that could capture; the determinization ignores that.

The play-outs draw nothing (the builder is deterministic); the seat's stream gives one word per
unseen card per sample, and nothing at a turn with one option. Other seats' streams, the real
hands and the real stock are never touched.
"""
import numpy as np

from kernels.jit import kernel, njit
from kernels.rng_nb import shuffle_from_nb
from kernels.searching_nb import workspace_chooser
from kernels.wippen.enums import (
    HAND, IT_FIELDS, MAX_ITEMS, MAX_PLAYERS, MV_CAPTURE, MV_TRAIL, N_CARDS, N_RANKS, N_SOURCES,
    P_BUILDER, R_BUILD_INSTEAD, R_DEALS, R_PTS_WIP, R_RAISE_DOUBLE, R_TARGET,
)
from kernels.wippen.moves_nb import all_moves_nb, move_arrays_nb, scratch_nb
from kernels.wippen.policies_nb import (
    all_items_nb, builder_move_nb, card_worth_nb, hold_chances_nb, item_worths_nb, mask_worth_nb,
    move_gain_nb,
)
from kernels.wippen.rules_nb import POT_FULL, deal_points_nb, play_move_nb, remove_slot_nb
from kernels.wippen.table_nb import ONE, card_value_nb, deal_hands_nb, pot_take_nb

# Every seat of a play-out plays this heuristic: the strongest fixed player (at 4 players, 800
# games: builder against three greedy wins 0.40 of the games, against three defensive 0.34;
# defensive against three greedy 0.26)
PLAYOUT_POLICY = P_BUILDER
PLAYOUT_MAX_RISK = 0.35  # the builder's default `max_risk` (sim/games/wippen.py)
# Options searched at one turn: the heuristic's choice and the best ranked others. A turn can list
# hundreds of captures and builds; most are plainly worse (they take less or build on less).
TOP_K = 5
# An option other than the heuristic's is taken only if its mean gain is above this many standard
# errors: with few samples, noise would otherwise replace good heuristic moves.
CONFIDENCE = 0.5
NO_SCORE = -1e300


@njit
def new_workspace_nb():
    """The search players' workspace, made once per call of the driver: the play-out's hands,
    hand sizes, pot, captured piles, wips, cards seen by value, stock, its own move list and
    generator scratch, the determinization's other hands, the unseen cards, a per-card mark, the
    options and their value totals, and small scratch arrays."""
    mv_i, mv_m = move_arrays_nb()
    return (np.zeros((MAX_PLAYERS, HAND), np.int64), np.zeros(MAX_PLAYERS, np.int64),
            np.zeros((MAX_ITEMS + 1, IT_FIELDS), np.int64), np.zeros((MAX_ITEMS + 1, 2), np.uint64),
            np.zeros((MAX_PLAYERS, 2), np.uint64), np.zeros(MAX_PLAYERS, np.int64),
            np.zeros(N_RANKS + 1, np.int64), np.zeros(N_CARDS, np.int64),
            mv_i, mv_m, scratch_nb(),
            np.zeros((MAX_PLAYERS, HAND), np.int64), np.zeros(N_CARDS, np.int64),
            np.zeros(N_CARDS, np.uint8),
            np.zeros(TOP_K, np.int64), np.zeros(TOP_K, np.float64), np.zeros(TOP_K, np.float64),
            np.zeros(MAX_ITEMS, np.float64), np.zeros(N_RANKS + 1, np.float64),
            np.zeros(2, np.uint64), np.zeros((MAX_PLAYERS, N_SOURCES), np.int64))


# the workspace, or None at a table without a search seat, chosen by type (kernels/searching_nb.py)
workspace_for_nb = workspace_chooser(new_workspace_nb)


# ---------------------------------------------------------------- what the seat cannot see
@njit
def mark_set_nb(mark, lo, hi):
    """mark[c] = 1 for every card of the two-word set (lo, hi)."""
    for w in range(2):
        x = lo if w == 0 else hi
        c = 0
        while x:
            if x & ONE:
                mark[64 * w + c] = 1
            x >>= ONE
            c += 1


@njit
def unseen_cards_nb(in_play, n_in, hand, hn, item_m, pn, piles, n, mark, unseen):
    """Write the cards in play that the seat holding hand[:hn] cannot see into `unseen`, in card
    order, and return how many: every card not in its hand, on the pot or in a captured pile."""
    for k in range(n_in):
        mark[in_play[k]] = 0
    for j in range(hn):
        mark[hand[j]] = 1
    for i in range(pn):
        mark_set_nb(mark, item_m[i, 0], item_m[i, 1])
    for q in range(n):
        mark_set_nb(mark, piles[q, 0], piles[q, 1])
    u = 0
    for k in range(n_in):
        if mark[in_play[k]] == 0:
            unseen[u] = in_play[k]
            u += 1
    return u


@njit
def determinize_nb(state, p, n, hand_n, unseen, u, other_hands, stock):
    """Shuffle the unseen cards from the seat's stream state and deal them into the other seats'
    hands (other_hands[q][:hand_n[q]], q != p) and the rest, in that order, into stock. Returns
    (the new state, the stock's size)."""
    state = shuffle_from_nb(state, unseen, u)
    k = 0
    for q in range(n):
        if q != p:
            for j in range(hand_n[q]):
                other_hands[q, j] = unseen[k]
                k += 1
    for j in range(k, u):
        stock[j - k] = unseen[j]
    return state, u - k


# ---------------------------------------------------------------- the options
@njit
def option_score_nb(kind, card, mask, item_w, pn, worth, wip_points, stock_left):
    """The rank of a move among the options: greedy's worth of a capture or trail; a build, double
    build or raise by the worth of the card and the items it gathers."""
    if kind == MV_CAPTURE or kind == MV_TRAIL:
        return move_gain_nb(kind, card, mask, item_w, pn, worth, wip_points, stock_left)
    return worth[card] + mask_worth_nb(mask, item_w)


@njit
def same_move_nb(mv_i, mv_m, hand, a, b):
    """Whether moves a and b play the same: a card of the same rank and suit (the two decks' copies
    score alike) as the same kind, value and items."""
    return (hand[mv_i[a, 0]] % 52 == hand[mv_i[b, 0]] % 52 and mv_i[a, 1] == mv_i[b, 1]
            and mv_i[a, 2] == mv_i[b, 2] and mv_m[a] == mv_m[b])


@njit
def pick_options_nb(mv_i, mv_m, nm, hand, heuristic, item_w, pn, worth, wip_points, stock_left,
                    opts):
    """Write into opts the heuristic's move first, then up to TOP_K - 1 others by option_score_nb
    (the first of equals), none playing the same as one picked before; returns how many."""
    opts[0] = heuristic
    k = 1
    while k < TOP_K:
        best = -1
        best_score = NO_SCORE
        for m in range(nm):
            score = option_score_nb(mv_i[m, 1], hand[mv_i[m, 0]], mv_m[m], item_w, pn, worth,
                                    wip_points, stock_left)
            if score <= best_score:
                continue
            taken = False
            for j in range(k):
                if same_move_nb(mv_i, mv_m, hand, m, opts[j]):
                    taken = True
                    break
            if not taken:
                best, best_score = m, score
        if best < 0:
            break
        opts[k] = best
        k += 1
    return k


# ---------------------------------------------------------------- a play-out
@njit
def play_card_nb(hands, hand_n, item_i, item_m, pn, piles, wips, public, tmp, s, slot, kind,
                 value, mask, stock_left):
    """Seat s plays the move (slot, kind, value, mask) on the play-out's table. Returns (the pot's
    new item count, whether it was a capture, whether the pot overflowed)."""
    card = remove_slot_nb(hands[s], hand_n[s], slot)
    hand_n[s] -= 1
    public[card_value_nb(card)] += 1
    pn, flags = play_move_nb(item_i, item_m, pn, card, kind, value, mask, s, piles[s], tmp)
    if kind == MV_CAPTURE and pn == 0 and stock_left > 0:
        wips[s] += 1
    return pn, kind == MV_CAPTURE, flags & POT_FULL != 0


@njit
def playout_nb(ws, p, m, mv_i, mv_m, n, dealer, hands, hand_n, item_i, item_m, pn, piles, wips,
               public, last_capturer, stock_n, in_value, rule_i, worth, wip_points, build_instead,
               raise_double):
    """Play seat p's move m (of mv_i/mv_m) and then the builder in every seat to the end of the
    deal on the workspace's copy of the table (seat p's hand and the public state from the
    arguments, the other hands and the stock from the determinization); leaves the deal's points
    per seat in the workspace."""
    (s_hands, s_hand_n, s_item_i, s_item_m, s_piles, s_wips, s_public, stock, p_mv_i, p_mv_m,
     scratch, other_hands, _unseen, _mark, _opts, _gain, _spread, item_w, chance, tmp,
     points) = ws
    for q in range(n):
        s_hand_n[q] = hand_n[q]
        src = hands if q == p else other_hands
        for j in range(hand_n[q]):
            s_hands[q, j] = src[q, j]
        s_piles[q, 0] = piles[q, 0]
        s_piles[q, 1] = piles[q, 1]
        s_wips[q] = wips[q]
    for i in range(pn):
        for f in range(IT_FIELDS):
            s_item_i[i, f] = item_i[i, f]
        s_item_m[i, 0] = item_m[i, 0]
        s_item_m[i, 1] = item_m[i, 1]
    for v in range(N_RANKS + 1):
        s_public[v] = public[v]
    top = np.int64(0)  # not a literal 0: deal_hands_nb would be compiled for both (play_nb)
    pn, took, full = play_card_nb(s_hands, s_hand_n, s_item_i, s_item_m, pn, s_piles, s_wips,
                                  s_public, tmp, p, mv_i[m, 0], mv_i[m, 1], mv_i[m, 2], mv_m[m],
                                  stock_n)
    if took:
        last_capturer = p
    s = p + 1 if p + 1 < n else 0
    while not full:
        if s_hand_n[s] == 0:  # the hand is played out (the dealer played last)
            if top >= stock_n:
                break
            top = deal_hands_nb(stock, top, s_hands, s_hand_n, n, dealer)
        hand = s_hands[s]
        hn = s_hand_n[s]
        nm = all_moves_nb(s_item_i, pn, hand, hn, build_instead, raise_double, p_mv_i, p_mv_m,
                          scratch)
        if nm <= 0:  # an overflowing list (never seen): the deal is valued as it stands
            break
        item_worths_nb(s_item_m, pn, worth, item_w)
        nxt = s + 1 if s + 1 < n else 0
        hold_chances_nb(in_value, s_public, hand, hn, s_hand_n[nxt], chance)
        k = builder_move_nb(p_mv_i, p_mv_m, nm, hand, s_item_i, pn, item_w, worth, wip_points,
                            stock_n - top, s, chance, PLAYOUT_MAX_RISK)
        pn, took, full = play_card_nb(s_hands, s_hand_n, s_item_i, s_item_m, pn, s_piles, s_wips,
                                      s_public, tmp, s, p_mv_i[k, 0], p_mv_i[k, 1], p_mv_i[k, 2],
                                      p_mv_m[k], stock_n - top)
        if took:
            last_capturer = s
        s = nxt
    if last_capturer >= 0 and pn > 0:
        pot_take_nb(s_item_i, s_item_m, pn, all_items_nb(pn), s_piles[last_capturer])
    deal_points_nb(s_piles, n, s_wips, rule_i, points)


@njit
def value_nb(points, totals, n, p, deal, rule_i):
    """What a deal ending with `points` (per seat and source) is worth to seat p, whose totals
    before it were `totals` and which is deal number deal + 1: its share of the win (1/k among k
    tied leaders) when the deal ends the game; otherwise 1/players plus its lead over the others'
    mean total, relative to what a seat scores in a game (the target, or with a fixed number of
    deals the deals times this deal's points per seat)."""
    fixed = rule_i[R_DEALS]
    best = -1
    handed = 0
    mine = 0
    others = 0
    for q in range(n):
        pts = 0
        for x in range(N_SOURCES):
            pts += points[q, x]
        handed += pts
        total = totals[q] + pts
        best = max(best, total)
        if q == p:
            mine = total
        else:
            others += total
    ends = deal + 1 >= fixed if fixed > 0 else best >= rule_i[R_TARGET]
    if ends:
        if mine != best:
            return 0.0
        tied = 0
        for q in range(n):
            pts = 0
            for x in range(N_SOURCES):
                pts += points[q, x]
            tied += totals[q] + pts == best
        return 1.0 / tied
    scale = rule_i[R_TARGET] if fixed == 0 else max(1.0, fixed * handed / n)
    return 1.0 / n + (mine - others / (n - 1)) / scale


# ---------------------------------------------------------------- the decision
@njit
def search_move_nb(ws, p, samples, seat_rng, n, dealer, hands, hand_n, item_i, item_m, pn, piles,
                   wips, public, last_capturer, stock_left, in_play, n_in, in_value, totals, deal,
                   rule_i, worth, wip_points, build_instead, raise_double, mv_i, mv_m, nm):
    """The move (index into mv_i/mv_m, seat p's full legal list of nm moves) seat p takes: the
    builder's own choice, unless another option's mean gain over it across `samples`
    determinizations is the largest and above CONFIDENCE standard errors. Reads hands[p] but no
    other hand (only the sizes hand_n), draws only from seat_rng[p], changes nothing else."""
    (_s_hands, _s_hand_n, _s_item_i, _s_item_m, _s_piles, _s_wips, _s_public, stock, _p_mv_i,
     _p_mv_m, _scratch, other_hands, unseen, mark, opts, gain, spread, item_w, chance, _tmp,
     points) = ws
    hand = hands[p]
    hn = hand_n[p]
    item_worths_nb(item_m, pn, worth, item_w)
    nxt = p + 1 if p + 1 < n else 0
    hold_chances_nb(in_value, public, hand, hn, hand_n[nxt], chance)
    heuristic = builder_move_nb(mv_i, mv_m, nm, hand, item_i, pn, item_w, worth, wip_points,
                                stock_left, p, chance, PLAYOUT_MAX_RISK)
    n_opts = pick_options_nb(mv_i, mv_m, nm, hand, heuristic, item_w, pn, worth, wip_points,
                             stock_left, opts)
    if n_opts <= 1:
        return heuristic
    for i in range(n_opts):
        gain[i] = 0.0
        spread[i] = 0.0
    u = unseen_cards_nb(in_play, n_in, hand, hn, item_m, pn, piles, n, mark, unseen)
    for _ in range(samples):
        seat_rng[p], stock_n = determinize_nb(seat_rng[p], p, n, hand_n, unseen, u, other_hands,
                                              stock)
        base = 0.0
        for i in range(n_opts):
            playout_nb(ws, p, opts[i], mv_i, mv_m, n, dealer, hands, hand_n, item_i, item_m, pn,
                       piles, wips, public, last_capturer, stock_n, in_value, rule_i, worth,
                       wip_points, build_instead, raise_double)
            v = value_nb(points, totals, n, p, deal, rule_i)
            if i == 0:
                base = v
            else:
                d = v - base
                gain[i] += d
                spread[i] += d * d
    best = heuristic
    best_gain = 0.0
    for i in range(1, n_opts):
        mean = gain[i] / samples
        variance = max(spread[i] / samples - mean * mean, 0.0)
        if mean > best_gain and mean > CONFIDENCE * np.sqrt(variance / samples):
            best, best_gain = opts[i], mean
    return best


@kernel
def search_probe_nb(p, samples, state, n, dealer, hands, hand_n, item_i, item_m, pn, piles, wips,
                    public, last_capturer, stock_left, in_play, n_in, totals, deal, rule_i):
    """Test probe: seat p's turn on the table given (the driver's arrays). Returns (its legal
    moves' (slot, kind, value) rows and masks, the builder's choice, the search's choice with
    samples and its stream at `state`, the stream after it)."""
    worth = np.empty(N_CARDS, np.float64)
    card_worth_nb(rule_i, worth)
    in_value = np.zeros(N_RANKS + 1, np.int64)
    for k in range(n_in):
        in_value[card_value_nb(in_play[k])] += 1
    build_instead = rule_i[R_BUILD_INSTEAD] != 0
    raise_double = rule_i[R_RAISE_DOUBLE] != 0
    wip_points = np.float64(rule_i[R_PTS_WIP])
    mv_i, mv_m = move_arrays_nb()
    ws = new_workspace_nb()
    nm = all_moves_nb(item_i, pn, hands[p], hand_n[p], build_instead, raise_double, mv_i, mv_m,
                      scratch_nb())
    item_w = np.zeros(MAX_ITEMS, np.float64)
    chance = np.zeros(N_RANKS + 1, np.float64)
    item_worths_nb(item_m, pn, worth, item_w)
    hold_chances_nb(in_value, public, hands[p], hand_n[p], hand_n[p + 1 if p + 1 < n else 0],
                    chance)
    heuristic = builder_move_nb(mv_i, mv_m, nm, hands[p], item_i, pn, item_w, worth, wip_points,
                                stock_left, p, chance, PLAYOUT_MAX_RISK)
    seat_rng = np.zeros(MAX_PLAYERS, np.uint64)
    seat_rng[p] = state
    choice = search_move_nb(ws, p, samples, seat_rng, n, dealer, hands, hand_n, item_i, item_m,
                            pn, piles, wips, public, last_capturer, stock_left, in_play, n_in,
                            in_value, totals, deal, rule_i, worth, wip_points, build_instead,
                            raise_double, mv_i, mv_m, nm)
    return mv_i[:nm].copy(), mv_m[:nm].copy(), heuristic, choice, seat_rng[p]
