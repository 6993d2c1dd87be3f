"""Wie is de Heer?'s search player (policy `search`): determinized Monte Carlo over the rest of
the game, and the choices it makes from its beliefs.

The search player plays as the reasoner (its cards when a draw is pending, whether it plays a drawn
card, the jack's suit), but for three choices:
- where the reasoner chooses a card with no draw pending (a turn's first card, or a card laid on a
  7) and more than one card fits, it draws `samples` determinizations of what it cannot see and
  plays every fitting card out in each, every seat playing its own public policy to the end of the
  game; it takes the card with the best mean value (value_nb: its chance to win), but keeps the
  reasoner's own card unless another is better by more than noise (CONFIDENCE). Every option sees
  the same determinizations and the same draws (common random numbers), so the gains over the
  reasoner's card are paired; jokers play alike, so one joker stands for all;
- it writes its most likely mole among the seats nobody ahead of it wrote (suspect_nb);
- an ace's questions go to the seat whose answers most raise its chance of writing the mole
  (question_target_nb).
As the mole it never sabotages by coin (play_nb); its search may still choose a void.

What the seat knows: its own hand and mole card, the discard pile (every card played), the pile's
points, the pot, the direction, the pending draw, the hand sizes, who has gone out, its own beliefs
(post[p], with the answers it read) and every seat's public policy and parameters. Hidden: the
other hands, the draw pile's order, who the mole is (unless the seat is the mole), the answers the
others read and the suspects they wrote. A determinization
- deals the unseen cards (every card in play not on the discard pile and not in the seat's hand,
  listed in card order, so the list does not depend on where they really are) at random into the
  other hands (their sizes are public) and the draw pile (a simplification: a seat that drew for
  want of a fitting card revealed that it held none then; the deal ignores such constraints);
- draws the mole from the seat's own beliefs post[p] (the seat itself when it holds the king);
- gives every other seat the beliefs the public evidence alone implies (`pub`: acts on rich piles,
  public answers), not its real ones (those include answers only it read), and a seat that has
  gone out the suspect those public beliefs gave it then.
The play-out's reshuffles, answers and every seat's random choices come from streams seeded by one
word of the seat's own stream: the other seats' streams and the real draw pile are never touched.

In a play-out a search seat writes and questions as above (it guesses the suspects of seats that
go out in the play-out from the public beliefs at the decision) but chooses its cards as the
reasoner. The search plays with play_nb's turn loop (play_turns_nb without a workspace: the
play-outs do not search), and play_nb calls search_slot_nb: the two modules import each other
as modules.
"""
import numpy as np

from kernels.jit import njit
from kernels.rng_nb import extra_stream_nb, next_word_nb, seat_stream_nb, shuffle_from_nb
from kernels.searching_nb import workspace_chooser
from kernels.wieisdeheer import play_nb  # a module: play_nb's turn loop calls back into this one
from kernels.wieisdeheer.enums import (
    G_MOLE, JOKER, MAX_PLAYERS, N_CARDS, PS_ORDER, PS_OUT, PS_PUB_SUSPECT, PS_SUSPECT, R_MOLE_POT,
    SF_BLUFF, SI_SAMPLES,
)
from kernels.wieisdeheer.belief_nb import answer_likelihoods_nb, most_likely_nb
from kernels.wieisdeheer.rules_nb import winner_nb
from kernels.wieisdeheer.table_nb import (
    RANK_OF, ST_CARDS, ST_DRAW_N, ST_POT, ST_RANK, ST_SUIT, fits_nb,
)

# An option other than the reasoner's is taken only if its mean gain is above this many standard
# errors (as Knutten's search): with a few dozen 0/1 play-outs, noise would otherwise replace good
# reasoner moves.
CONFIDENCE = 0.5
NO_LIMIT = 1 << 30  # play_turns_nb's `until` in play-outs: never pause


@njit
def new_workspace_nb(seat_policy):
    """The search players' workspace, made once per call of the driver: (a determinization's
    tables, a play-out's tables, every seat's play-out policy, the unseen cards, the options'
    slots, gain totals and squared-gain totals)."""
    return (play_nb.new_tables_nb(), play_nb.new_tables_nb(), seat_policy.copy(),
            np.zeros(N_CARDS, np.int64), np.zeros(N_CARDS, np.int64),
            np.zeros(N_CARDS, np.float64), np.zeros(N_CARDS, np.float64))


# the workspace, or None at a table without a search seat, chosen by type (kernels/searching_nb.py)
workspace_for_nb = workspace_chooser(new_workspace_nb)


@njit
def copy_tables_nb(src, dst):
    """dst = src, array by array (the tables of play_nb.new_tables_nb; the scratch arrays seen and
    counts are left; told for the acts' evidence its stated beliefs temper)."""
    dst[0][:] = src[0]
    dst[1][:] = src[1]
    dst[2][:] = src[2]
    dst[3][:] = src[3]
    dst[4][:] = src[4]
    dst[5][:] = src[5]
    dst[8][:] = src[8]
    dst[9][:] = src[9]
    dst[10][:] = src[10]
    dst[11][:] = src[11]
    dst[12][:] = src[12]
    dst[13][:] = src[13]


@njit
def unseen_cards_nb(tb, p, unseen):
    """Write the cards seat p cannot see into `unseen`, in card order, and return how many: every
    card in play that is neither on the discard pile nor in its hand."""
    st, hands, hand_n, draw, disc, in_disc, seen, counts, post, told, pub, rng, per, gs = tb
    for c in range(N_CARDS):
        seen[c] = in_disc[c]
    for i in range(hand_n[p]):
        seen[hands[p, i]] = 1
    u = 0
    for c in range(st[ST_CARDS]):
        if seen[c] == 0:
            unseen[u] = c
            u += 1
    return u


@njit
def options_nb(tb, p, heuristic, opts):
    """The slots of seat p's fitting cards other than the reasoner's choice `heuristic`, one joker
    for all (jokers play alike: the reasoner's own if it chose one); returns how many."""
    st, hands, hand_n, draw, disc, in_disc, seen, counts, post, told, pub, rng, per, gs = tb
    hand = hands[p]
    joker_chosen = RANK_OF[hand[heuristic]] == JOKER
    joker_taken = joker_chosen
    k = 0
    for i in range(hand_n[p]):
        c = hand[i]
        if i == heuristic or not fits_nb(c, st[ST_SUIT], st[ST_RANK], np.int64(0)):
            continue
        if RANK_OF[c] == JOKER:
            if joker_taken:
                continue
            joker_taken = True
        opts[k] = i
        k += 1
    return k


@njit
def determinize_nb(tb, det, p, n, unseen, u):
    """det = what seat p knows of tb, the hidden part drawn from p's stream: the unseen cards
    shuffled into the other hands and the draw pile, the mole from p's beliefs, the other seats'
    beliefs and written suspects from the public evidence, and fresh streams for the play-out.
    Returns the play-out's seed (its reshuffles come from deal_stream_nb(seed, 0, k))."""
    st, hands, hand_n, draw, disc, in_disc, seen, counts, post, told, pub, rng, per, gs = tb
    copy_tables_nb(tb, det)
    d_st, d_hands, d_hand_n, d_draw, d_disc, d_in_disc, d_seen, d_counts, d_post, d_told, d_pub, \
        d_rng, d_per, d_gs = det
    state = shuffle_from_nb(rng[p], unseen, u)
    k = 0
    for q in range(n):
        if q == p:
            continue
        for i in range(hand_n[q]):
            d_hands[q, i] = unseen[k]
            k += 1
        for m in range(n):
            d_post[q, m] = pub[q, m]
        if per[PS_OUT, q] != 0:
            d_per[PS_SUSPECT, q] = per[PS_PUB_SUSPECT, q]
    for i in range(u - k):
        d_draw[i] = unseen[k + i]
    d_st[ST_DRAW_N] = u - k
    if gs[G_MOLE] != p:  # the seat knows only that it holds a queen: the mole from its beliefs
        state, w = next_word_nb(state)
        x = (w >> np.uint64(11)) * (1.0 / 9007199254740992.0)
        mole = -1
        for m in range(n):
            if m != p and post[p, m] > 0.0:
                mole = m  # the last possible seat, should rounding leave x above the total
                x -= post[p, m]
                if x < 0.0:
                    break
        d_gs[G_MOLE] = mole
    state, w = next_word_nb(state)
    rng[p] = state
    seed = np.int64(w >> np.uint64(1))
    for q in range(n):
        d_rng[q] = seat_stream_nb(seed, np.int64(0), q)
    d_rng[MAX_PLAYERS] = extra_stream_nb(seed, np.int64(0), np.int64(0))
    return seed


@njit
def playout_value_nb(rule_i, rule_f, seat_i, seat_f, det, sim, playout, p, n, seed, slot):
    """Seat p's value of playing the card in `slot` now and letting every seat play its play-out
    policy to the end of the game, from the determinization `det` (value_nb)."""
    copy_tables_nb(det, sim)
    play_nb.play_turns_nb(seed, np.int64(0), rule_i, rule_f, playout, seat_i, seat_f, sim, None,
                          0, False, False, None, slot, NO_LIMIT)
    play_nb.rest_of_order_nb(rule_i, playout, sim, n, None, np.int64(0), np.bool_(False))
    return value_nb(sim, p, n, rule_i[R_MOLE_POT])


@njit
def value_nb(sim, p, n, mole_pot):
    """What the ended play-out `sim` is worth to seat p: as the mole, 1 when it wins; otherwise its
    chance to win by its own beliefs at the end, post[p, w] for the suspect w it wrote when no seat
    ahead of it in the order wrote w too, else 0 (a seat ahead that wrote w wins if w is the mole).
    The chance instead of whether w is the play-out's drawn mole: the same expectation under p's
    beliefs, without the draw's noise (the suspects of the seats ahead are taken as they fell, not
    read as evidence)."""
    st, hands, hand_n, draw, disc, in_disc, seen, counts, post, told, pub, rng, per, gs = sim
    mole = gs[G_MOLE]
    winner = winner_nb(per[PS_ORDER], n, per[PS_SUSPECT], mole, st[ST_POT], mole_pot)
    if mole == p:
        return 1.0 if winner == p else 0.0
    w = per[PS_SUSPECT, p]
    if (mole_pot > 0 and st[ST_POT] < mole_pot) or w < 0:
        return 0.0
    for i in range(n):
        o = per[PS_ORDER, i]
        if o == p:
            break
        if per[PS_SUSPECT, o] == w:
            return 0.0
    return post[p, w]


@njit
def suspect_nb(post, per, p, n, placed):
    """The suspect seat p writes at its place among the first `placed` of the order: its most likely
    mole among the seats that no seat ahead of it in the order has (by the public beliefs) written.
    Writing a seat that a player ahead wrote never wins: that player wins if it is the mole. All
    seats taken: the most likely."""
    best = -1
    best_p = -1.0
    for k in range(1, n):
        m = (p + k) % n
        if not taken_nb(per, p, placed, m) and post[p, m] > best_p:
            best_p = post[p, m]
            best = m
    return best if best >= 0 else most_likely_nb(post, p, n)


@njit
def taken_nb(per, p, placed, m):
    """Has a seat ahead of p among the first `placed` of the order written m (by the public
    beliefs)?"""
    for i in range(placed):
        o = per[PS_ORDER, i]
        if o == p:
            return False
        if per[PS_PUB_SUSPECT, o] == m:
            return True
    return False


@njit
def question_target_nb(post, per, p, n, placed, questions, accuracy, seat_f):
    """Whom seat p questions with an ace: the seat whose answers most raise, in expectation, p's
    chance of writing the mole (its largest belief among the seats nobody gone out has written).
    With k of the q answers mole-like, the joint chance of k and "m is the mole" is post[p, m]
    times the chance of k given m, so the expected largest posterior is the sum over k of the
    largest joint chance: exact, no sampling."""
    best = -1
    best_v = -1.0
    for kk in range(1, n):
        t = (p + kk) % n
        ll, lm = answer_likelihoods_nb(True, accuracy, seat_f[t, SF_BLUFF])
        v = 0.0
        ways = 1.0  # C(q, k)
        for k in range(questions + 1):
            top = 0.0
            for m in range(n):
                if m == p or taken_nb(per, p, placed, m):
                    continue
                x = lm if m == t else ll
                top = max(top, post[p, m] * ways * x ** k * (1.0 - x) ** (questions - k))
            v += top
            ways = ways * (questions - k) / (k + 1)
        if v > best_v + 1e-12:
            best_v = v
            best = t
    return best


@njit
def search_slot_nb(rule_i, rule_f, policies, seat_i, seat_f, tb, p, heuristic, search):
    """The hand slot of the card seat p plays (a fitting card exists, no draw is pending): the
    reasoner's `heuristic`, unless another fitting card's mean gain over it across seat_i[p,
    SI_SAMPLES] determinizations is the largest and above CONFIDENCE standard errors. Reads only
    what seat p may know and draws only from its own stream; tb itself is not changed (but for that
    stream)."""
    det, sim, playout, unseen, opts, gain, spread = search
    n = policies.shape[0]
    k = options_nb(tb, p, heuristic, opts)
    if k == 0:
        return heuristic
    samples = seat_i[p, SI_SAMPLES]
    for i in range(k):
        gain[i] = 0.0
        spread[i] = 0.0
    u = unseen_cards_nb(tb, p, unseen)
    for _ in range(samples):
        seed = determinize_nb(tb, det, p, n, unseen, u)
        base = playout_value_nb(rule_i, rule_f, seat_i, seat_f, det, sim, playout, p, n, seed,
                                heuristic)
        for i in range(k):
            d = playout_value_nb(rule_i, rule_f, seat_i, seat_f, det, sim, playout, p, n, seed,
                                 opts[i]) - base
            gain[i] += d
            spread[i] += d * d
    best = heuristic
    best_gain = 0.0
    for i in range(k):
        mean = gain[i] / samples
        variance = max(spread[i] / samples - mean * mean, 0.0)
        if mean > best_gain and mean > CONFIDENCE * np.sqrt(variance / samples):
            best, best_gain = opts[i], mean
    return best
