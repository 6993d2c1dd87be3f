"""Knutten players, chosen by integer id. Each sees only what its seat could know at the table:
its own hand, the swarm (cards and total), bites, John's place, hand sizes and the deck list.

random   -- uniform over legal actions (card and value), targets and start players.
cautious -- keeps the swarm as low as it can; spends `?`, negative cards and John-discards only
            when every other card would reach the threshold; plays John as soon as it bites an
            opponent; keeps pairs towards WIND when the choice is otherwise equal.
trap     -- like cautious, but among safe plays picks the swarm total at which the next seat is
            most likely to hold nothing safe (a hypergeometric estimate over unseen cards).
"""
from kernels.jit import njit
from kernels.knutten.enums import (
    A_DISCARD, C_A, C_DESIGN, C_KIND, D_A, D_B, D_COPIES, D_KIND, K_COPY, K_JOHN, K_VALUE,
    P_RANDOM, P_TRAP, R_HEAVY, R_THRESHOLD, S_DESIGNS, S_JOHN_SEAT, S_PLAYERS, S_SWARM,
)
from kernels.knutten.rules_nb import counted_nb, john_targets_nb
from kernels.rng_nb import randint_nb

# Preference bands of the heuristic players (lower is better).
_JOHN_BITES_OPPONENT = 0.0
_SAFE = 10_000.0
_EMERGENCY = 20_000.0
_BUST = 30_000.0
_JOHN_ON_SELF = 40_000.0


@njit
def choose_action_nb(t, p, n_opts):
    if t.policies[p] == P_RANDOM:
        return t.opts[randint_nb(t.rng, n_opts)]
    return heuristic_action_nb(t, p, n_opts, t.policies[p] == P_TRAP)


@njit
def choose_target_nb(t, p, n_cand):
    """Who gets John among the tied candidates: random picks any; the others avoid themselves and
    pick the first opponent after them in turn order."""
    if t.policies[p] == P_RANDOM:
        return t.cand[randint_nb(t.rng, n_cand)]
    n = t.st[S_PLAYERS]
    best = t.cand[0]
    best_dist = n + 1
    for i in range(n_cand):
        q = t.cand[i]
        dist = (q - p + n) % n
        if dist == 0:
            dist = n  # yourself only as the last choice
        if dist < best_dist:
            best, best_dist = q, dist
    return best


@njit
def choose_start_nb(t, chooser):
    """Next start player, chosen by the bitten seat or the WIND caller. Heuristic: the seat with
    the most bites that is not the chooser (ties: first after the chooser in turn order)."""
    n = t.st[S_PLAYERS]
    if t.policies[chooser] == P_RANDOM:
        return randint_nb(t.rng, n)
    best = (chooser + 1) % n
    for k in range(2, n):
        q = (chooser + k) % n
        if t.bites[q] > t.bites[best]:
            best = q
    return best


@njit
def _keeps_pair_penalty(t, p, card):
    """0.5 when the card has a twin in hand (playing it breaks a pair towards WIND), else 0."""
    return 0.5 if t.hand_designs[p, t.cards[card, C_DESIGN]] >= 2 else 0.0


@njit
def heuristic_action_nb(t, p, n_opts, trap):
    """The best of the legal actions in t.opts (with t.opt_after) by the bands above."""
    threshold = t.rules[R_THRESHOLD]
    swarm = t.st[S_SWARM]
    best_action = t.opts[0]
    best_key = 1e18
    for i in range(n_opts):
        action = t.opts[i]
        if action == A_DISCARD:
            key = _EMERGENCY + swarm - 0.25  # a free pass: the best emergency at equal swarm
        else:
            card = t.hands[p, action >> 1]
            kind = t.cards[card, C_KIND]
            if kind == K_JOHN:
                key = _john_key(t, p)
            else:
                after = t.opt_after[i]
                if kind == K_COPY or t.cards[card, C_A] < 0:
                    key = _EMERGENCY + after
                elif after >= threshold:
                    key = _BUST + after
                elif trap:
                    key = _SAFE - 1000.0 * forced_probability_nb(t, p, after) + after
                else:
                    key = _SAFE + after
                key += _keeps_pair_penalty(t, p, card) * 0.1
        if key < best_key:
            best_key = key
            best_action = action
    return best_action


@njit
def _john_key(t, p):
    n_cand, bites = john_targets_nb(t)
    if bites:
        for i in range(n_cand):
            if t.cand[i] != p:
                return _JOHN_BITES_OPPONENT
    if t.rules[R_HEAVY]:
        return _BUST + t.rules[R_THRESHOLD] - 0.5  # one bite beats a heavy bust
    return _JOHN_ON_SELF


@njit
def forced_probability_nb(t, p, after):
    """Chance that the next seat holds no card it can play safely on a swarm of `after`,
    estimated from the cards seat p cannot see (deck list minus own hand and the swarm)."""
    n = t.st[S_PLAYERS]
    nxt = (p + 1) % n
    if t.st[S_JOHN_SEAT] == nxt:
        return 0.0  # it can pass by discarding John
    h = t.hand_n[nxt]
    if h == 0:
        return 0.0
    threshold = t.rules[R_THRESHOLD]
    unseen = 0
    forcing = 0
    for d in range(t.st[S_DESIGNS]):
        left = t.designs[d, D_COPIES] - t.swarm_designs[d]
        for i in range(t.hand_n[p]):
            if t.cards[t.hands[p, i], C_DESIGN] == d:
                left -= 1
        if t.designs[d, D_KIND] == K_JOHN and t.st[S_JOHN_SEAT] >= 0:
            left = 0
        if left <= 0:
            continue
        unseen += left
        if t.designs[d, D_KIND] == K_VALUE:
            a = after + counted_nb(t, t.designs[d, D_A])
            b = after + counted_nb(t, t.designs[d, D_B])
            if not (0 <= a < threshold or 0 <= b < threshold):
                forcing += left
    prob = 1.0
    for j in range(h):
        if unseen - j <= 0 or forcing - j <= 0:
            return 0.0
        prob *= (forcing - j) / (unseen - j)
    return prob
