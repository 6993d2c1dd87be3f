"""Knutten's search player (policy `search`): determinized Monte Carlo over the rest of the round.

At a turn with more than one legal option, the seat draws `samples` determinizations of what it
cannot see and plays every option out in each, with every seat playing the `trap` heuristic
(PLAYOUT_POLICY) to the end of the round; it takes the option with the best mean value
(value_nb: the seat's share of the win when the round ends the game, otherwise a win-share
estimate from the bites), but keeps the heuristic's own choice unless another option is better by
more than noise (CONFIDENCE). Every option sees the same determinizations and the same draws
(common random numbers), so the gains over the heuristic's option are paired and narrow; options
that play the same card design on the same side are played out once.

What the seat knows (as every policy, policies_nb): its own hand, the swarm's cards and total, the
waiting `?` count, bites, where John lies, the discard, the hand sizes, the pile's size, the deck
list, and the cards shown and put under the pile (a public, ordered queue). Hidden: the other
hands, which cards the draw pile's set holds, its order and where John waits in it. A
determinization deals the unseen cards (the deck minus everything seen, listed in card order, so
that the list does not depend on where the hidden cards really are) at random into the other hands
(their sizes are public) and the pile's set (John, if unseen and not in a hand, becomes an
ordinary card of the set: drawing uniformly from it is the same as his random place); a hand with
three alike is redealt, because such a hand would have called WIND. The play-out draws with a
stream taken from the seat's own stream, as every random choice of the seat: other seats' draws
and the real pile are never touched. A simplification: cards drawn back from under the pile are
treated as unseen again (the seat forgets who drew them).

The search plays rounds with play_nb's turn loop (play_turns_nb, without a workspace: the
play-outs do not search), and play_nb calls search_option_nb: the two modules import each other as
modules, which Python allows whichever comes first.
"""
import numpy as np

from kernels.jit import ix, njit
from kernels.knutten import play_nb  # a module: play_nb's turn loop calls back into this one
from kernels.knutten.enums import (
    A_DISCARD, MAX_CARDS, MAX_HAND, MAX_TURNS, NO_SEAT, N_LUCK, O_RESHUFFLES, O_TURNS, P_TRAP, S_CARDS,
    S_DESIGNS, S_DISCARD_N, S_JOHN_AT, S_JOHN_CARD, S_JOHN_SEAT, S_JOHN_WAITS, S_N, S_PILE_N, S_PLAYERS,
    S_SWARM_N, S_UNDER_HEAD, S_UNDER_N,
)
from kernels.knutten.policies_nb import heuristic_option_nb
from kernels.knutten.rules_nb import end_bites_nb, game_over_nb, place_john_nb
from kernels.knutten.table_nb import TABLE_DTYPE, as_records, design_nb, seat_randint_nb
from kernels.rng_nb import next_word_nb

# Every seat of a play-out plays this heuristic (the stronger of cautious and trap; trap against
# three cautious wins 0.36 of the games, cautious against three trap 0.20).
PLAYOUT_POLICY = P_TRAP
# A play-out that has not ended the round after this many turns (only a strange deck) is scored
# as it stands: the turn loop stops it as too long.
PLAYOUT_TURNS = 2000
# Redeals of a determinization whose hands hold three alike before it is taken as it is (a deck
# where nearly every deal has three alike).
REDEALS = 20
# An option other than the heuristic's is taken only if its mean gain is above this many standard
# errors: with a few dozen samples, noise would otherwise replace good heuristic moves (win share
# against three trap players, 4,000 games each at 32 samples: 0.30 at 2, 0.33 at 1, 0.35 at 0.5,
# 0.35 at 0.25, 0.34 at 0).
CONFIDENCE = 0.5


@njit
def new_workspace_nb(cards, designs, rule_i, seat_policy, seat_i):
    """The search players' workspace, made once per call of the driver: (the play-out table as a
    1-element record array, every seat playing PLAYOUT_POLICY; the options' value totals; the
    unseen cards; a per-card mark)."""
    sim = as_records(np.zeros(1, TABLE_DTYPE))
    playout = np.full(seat_policy.shape[0], PLAYOUT_POLICY, np.int64)
    play_nb.build_table_nb(sim, cards, designs, rule_i, playout, seat_i)
    n_opts = 2 * MAX_HAND + 1
    return (sim, np.zeros(n_opts, np.float64), np.zeros(n_opts, np.float64),
            np.zeros(n_opts, np.int64), np.zeros(MAX_CARDS, np.uint16),
            np.zeros(MAX_CARDS, np.uint8))


@njit
def unseen_cards_nb(t, p, seen, unseen):
    """Write the cards seat p cannot see into `unseen`, in card order, and return how many: every
    card not in its hand, the swarm, the discard, under the pile or lying on the table (John)."""
    st = t.st
    n_cards = st[S_CARDS]
    seen[:n_cards] = 0
    for i in range(t.hand_n[p]):
        seen[t.hands[p, i]] = 1
    for i in range(st[S_SWARM_N]):
        seen[t.swarm[i]] = 1
    for i in range(st[S_DISCARD_N]):
        seen[t.discard[i]] = 1
    for i in range(st[S_UNDER_N]):
        seen[t.under[(st[S_UNDER_HEAD] + i) % MAX_CARDS]] = 1
    if st[S_JOHN_SEAT] != NO_SEAT:
        seen[st[S_JOHN_CARD]] = 1
    u = 0
    for c in range(n_cards):
        if seen[c] == 0:
            unseen[u] = c
            u += 1
    return u


@njit
def copy_public_nb(t, sim, p):
    """Copy into the play-out table what seat p sees of table t: the scalars, bites, hand sizes,
    its own hand, the swarm, the discard, the queue under the pile and John's place (with what
    each card counts). The other hands and the pile's set are left for deal_hidden_nb."""
    st = t.st
    ss = sim.st
    john_before = ss[S_JOHN_SEAT]
    for i in range(S_N):
        ss[i] = st[i]
    ss[S_JOHN_SEAT] = john_before
    place_john_nb(sim, st[S_JOHN_SEAT])  # rewrites what the cards count if John came or went
    n_designs = st[S_DESIGNS]
    for q in range(st[S_PLAYERS]):
        sim.bites[q] = t.bites[q]
        sim.hand_n[q] = t.hand_n[q]
    for i in range(t.hand_n[p]):
        sim.hands[p, i] = t.hands[p, i]
    for d in range(n_designs):
        sim.hand_designs[p, d] = t.hand_designs[p, d]
        sim.swarm_designs[d] = t.swarm_designs[d]
    for i in range(st[S_SWARM_N]):
        sim.swarm[i] = t.swarm[i]
    for i in range(st[S_DISCARD_N]):
        sim.discard[i] = t.discard[i]
    for i in range(st[S_UNDER_N]):
        j = (st[S_UNDER_HEAD] + i) % MAX_CARDS
        sim.under[j] = t.under[j]


@njit
def deal_hidden_nb(sim, p, unseen, u):
    """Deal the first unseen cards into the other seats' hands (their sizes as copied) and the
    rest into the pile's set, John (if there) an ordinary card of it. Returns whether no hand
    holds three alike (a real hand would have called WIND)."""
    ss = sim.st
    n_designs = ss[S_DESIGNS]
    k = 0
    sound = True
    for q in range(ss[S_PLAYERS]):
        if q == p:
            continue
        for d in range(n_designs):
            sim.hand_designs[q, d] = 0
        for i in range(sim.hand_n[q]):
            card = unseen[k]
            k += 1
            sim.hands[q, i] = card
            d = design_nb(sim, card)
            sim.hand_designs[q, d] += 1
            if sim.hand_designs[q, d] >= 3:
                sound = False
    for kind in range(N_LUCK + 1):
        sim.pile_luck[kind] = 0
    for j in range(k, u):
        sim.pile[j - k] = unseen[j]
        sim.pile_luck[sim.card_luck[unseen[j]]] += 1.0
    ss[S_PILE_N] = u - k
    ss[S_JOHN_WAITS] = 0
    ss[S_JOHN_AT] = 0
    return sound


@njit
def shuffle_hands_nb(t, p, unseen, u, dealt):
    """Move a uniform random choice of `dealt` unseen cards, in random order, to the front of
    `unseen` (a partial Fisher-Yates shuffle from seat p's own stream; the pile's set is drawn
    at random anyway, so its order does not matter)."""
    for i in range(min(dealt, u - 1)):
        j = i + seat_randint_nb(t, p, u - i)
        card = unseen[i]
        unseen[i] = unseen[j]
        unseen[j] = card


@njit
def value_nb(t, sim, p):
    """What the play-out `sim` is worth to seat p, started from table t: its share of the win
    (1/k among k tied winners) when the round ended the game; otherwise an estimate of it,
    1/players plus its lead in bites (the others' mean minus its own) over the bites that end
    the game."""
    n = t.st[S_PLAYERS]
    if game_over_nb(sim):
        fewest = sim.bites[0]
        for q in range(1, n):
            fewest = min(fewest, sim.bites[q])
        if sim.bites[p] != fewest:
            return 0.0
        tied = 0
        for q in range(n):
            tied += sim.bites[q] == fewest
        return 1.0 / tied
    others = 0
    for q in range(n):
        if q != p:
            others += sim.bites[q]
    lead = others / (n - 1) - sim.bites[p]
    return 1.0 / n + lead / end_bites_nb(t)


@njit
def first_equal_option_nb(t, p, i):
    """The first option of t.opts that plays the same as option i (a card of the same design on
    the same side: its play-outs are the same), i itself if none does."""
    action = t.opts[i]
    if action == A_DISCARD:
        return i
    design = design_nb(t, t.hands[p, action >> 1])
    for j in range(i):
        other = t.opts[j]
        if (other != A_DISCARD and other & 1 == action & 1
                and design_nb(t, t.hands[p, other >> 1]) == design):
            return j
    return i


@njit
def playout_value_nb(t, sim, p, unseen, u, draws, option):
    """Seat p's value (value_nb) of taking `option` now and letting every seat play the heuristic
    to the end of the round, in the determinization `unseen` with the pile drawn by `draws`."""
    copy_public_nb(t, sim, p)
    deal_hidden_nb(sim, p, unseen, u)
    sim.deal_rng[0] = draws
    sim.rec[O_TURNS] = MAX_TURNS - PLAYOUT_TURNS
    sim.rec[O_RESHUFFLES] = MAX_TURNS - PLAYOUT_TURNS
    play_nb.play_turns_nb(sim, p, np.bool_(False), None, option)  # not literals: see play_nb
    return value_nb(t, sim, p)


@njit
def search_option_nb(t, p, n_opts, search):
    """The option (index into t.opts, as legal_actions_nb wrote them for seat p) seat p takes:
    the trap heuristic's own choice, unless another option's mean gain over it, across t.samples[p]
    determinizations, is the largest and above CONFIDENCE standard errors (each determinization
    plays every option, so the gains are paired). Reads only what seat p may know and draws only
    from its own stream; t itself is not changed (but for that stream)."""
    ws, gain, spread, same, unseen, seen = search
    sim = ws[0]
    samples = t.samples[p]
    heuristic = heuristic_option_nb(t, p, n_opts, np.bool_(True))
    for i in range(n_opts):
        gain[i] = 0.0
        spread[i] = 0.0
        same[i] = first_equal_option_nb(t, p, i)
    u = unseen_cards_nb(t, p, seen, unseen)
    dealt = np.int64(0)
    for q in range(t.st[S_PLAYERS]):
        if q != p:
            dealt += t.hand_n[q]
    for _ in range(samples):
        copy_public_nb(t, sim, p)
        for _ in range(REDEALS):  # every option below is played from this deal of `unseen`
            shuffle_hands_nb(t, p, unseen, u, dealt)
            if deal_hidden_nb(sim, p, unseen, u):
                break
        t.seat_rng[ix(p)], draws = next_word_nb(t.seat_rng[ix(p)])
        base = playout_value_nb(t, sim, p, unseen, u, draws, heuristic)
        for i in range(n_opts):
            if same[i] == i and i != heuristic:
                d = playout_value_nb(t, sim, p, unseen, u, draws, i) - base
                gain[i] += d
                spread[i] += d * d
    best = heuristic
    best_gain = 0.0
    for i in range(n_opts):
        if same[i] != i or i == heuristic:
            continue
        mean = gain[i] / samples
        variance = max(spread[i] / samples - mean * mean, 0.0)
        if mean > best_gain and mean > CONFIDENCE * np.sqrt(variance / samples):
            best, best_gain = i, mean
    return best
