"""Knutten players, chosen by integer id. Each sees only what its seat could know at the table:
its own hand, the swarm (cards and total), bites, John's place, hand sizes and the deck list.

Every random choice of a seat comes from that seat's own stream (table_nb.seat_randint_nb).

random   -- uniform over legal actions (card and value), targets and start players.
cautious -- keeps the swarm as low as it can; spends `?`, negative cards and John-discards only
            when every other card would reach the threshold; plays John as soon as it bites an
            opponent; keeps pairs towards WIND when the choice is otherwise equal.
trap     -- like cautious, but among safe plays picks the swarm total at which the next seat is
            most likely to hold nothing safe (a hypergeometric estimate over unseen cards).
cautious and trap name the next start player by their seat parameter `start` (START_*).
search   -- (search_nb.py) plays out every option; here it is chosen for only when it has one
            option, and it names John's target and the next start player as cautious does.
"""
import numpy as np

from kernels.jit import inline, ix, njit
from kernels.knutten.enums import (
    C_DESIGN, D_A, D_B, D_COPIES, D_KIND, K_JOHN, K_VALUE, KEY_SCALE, N_OPTION_CLASSES, NO_OPTION,
    OC_BITES, OC_DISCARD, OC_JOHN, OC_KIND, OC_TWIN, OC_VALUE, P_CAUTIOUS, P_RANDOM, P_TRAP,
    R_HEAVY, R_THRESHOLD, S_DESIGNS, S_JOHN_SEAT, S_PLAYERS, S_RANKED, S_SWARM, START_FEWEST_BITES,
    START_NEXT, START_RANDOM, START_SELF,
)
from kernels.knutten.rules_nb import counted_nb, john_targets_nb
from kernels.knutten.table_nb import next_seat_nb, seat_randint_nb

# Preference bands of the heuristic players (lower is better), in knutten of the swarm; keys are
# kept in twentieths of a knut (KEY_SCALE) so that the tie-breaks below stay exact integers.
_JOHN_BITES_OPPONENT = 0
_SAFE = 10_000
_EMERGENCY = 20_000
_BUST = 30_000
_JOHN_ON_SELF = 40_000
_PAIR_KEPT = 1       # 1/20 knut: prefer the card that does not break a pair
_FREE_PASS = -5      # discarding John beats an emergency card leaving the same swarm
_HEAVY_JOHN = -10    # in heavy weather a John bite on oneself beats a bust at the threshold
_TRAP_WEIGHT = 1000  # trap: knutten a certain forced next seat is worth
_NO_KEY = 1 << 40
_JOHN_UNRANKED = -(1 << 50)


def _class_key(cls: int) -> int:
    """The key of a number card or `?` option of class `cls`, less KEY_SCALE * the swarm it leaves:
    its band (safe, emergency, or bust when it bites) and the pair tie-break. John's worth depends
    on more than the swarm: his key is below every other, which tells legal_actions_nb that its
    ranking cannot stand (option_key_nb works John's key out in full)."""
    kind = cls & OC_KIND
    if kind >= OC_JOHN:
        return _JOHN_UNRANKED
    band = _EMERGENCY if kind != OC_VALUE else _BUST if cls & OC_BITES else _SAFE
    return KEY_SCALE * band + (_PAIR_KEPT if cls & OC_TWIN else 0)


# Copied into every table (t.class_rank), where legal_actions_nb ranks the options as it lists
# them: a cautious player's choice is then known without a second pass (choose_option_nb).
CLASS_KEYS = np.array([_class_key(c) for c in range(N_OPTION_CLASSES)], np.int64)


@njit
def reads_option_classes_nb(t, p):
    """Whether seat p's policy reads t.opt_class (random does not)."""
    return t.policies[p] != P_RANDOM


@njit
def choose_option_nb(t, p, n_opts):
    """Index (into t.opts) of the legal action seat p's policy takes."""
    if t.policies[p] == P_RANDOM:
        return seat_randint_nb(t, p, n_opts)
    if t.policies[p] == P_CAUTIOUS and t.st[S_RANKED] != NO_OPTION:
        return t.st[S_RANKED]  # legal_actions_nb's ranking is the cautious key
    return heuristic_option_nb(t, p, n_opts, t.policies[p] == P_TRAP)


@njit
def choice_is_sound_nb(t, p, n_opts, option):
    """Checked mode: the option seat p took is the one its policy's full evaluation of every
    option gives (for cautious, legal_actions_nb's ranking is checked against it)."""
    if t.policies[p] != P_CAUTIOUS:
        return True
    return option == heuristic_option_nb(t, p, n_opts, np.bool_(False))  # not a literal: play_nb


@njit
def choose_action_nb(t, p, n_opts):
    """The legal action seat p's policy takes."""
    return t.opts[choose_option_nb(t, p, n_opts)]


@njit
def choose_target_nb(t, p, n_cand):
    """Who gets John among the tied candidates: random picks any; the others avoid themselves and
    pick the first opponent after them in turn order."""
    if t.policies[p] == P_RANDOM:
        return t.cand[seat_randint_nb(t, p, n_cand)]
    n = t.st[S_PLAYERS]
    best = t.cand[0]
    best_dist = n + 1
    for i in range(n_cand):
        q = t.cand[i]
        dist = q - p if q > p else q - p + n  # yourself (0) counts as n: the last choice
        if dist < best_dist:
            best, best_dist = q, dist
    return best


@njit
def choose_start_nb(t, chooser):
    """Next start player, chosen by the bitten seat or the WIND caller. Random: any seat. Cautious
    and trap follow their seat parameter `start`: the other seat with the most bites (ties: the
    first after the chooser in turn order), the other seat with the fewest (same ties), the next
    seat, the chooser itself, or any seat at random."""
    n = t.st[S_PLAYERS]
    how = t.start_choice[chooser]
    if t.policies[chooser] == P_RANDOM or how == START_RANDOM:
        return seat_randint_nb(t, chooser, n)
    if how == START_SELF:
        return chooser
    best = next_seat_nb(chooser, n)
    if how == START_NEXT:
        return best
    sign = -1 if how == START_FEWEST_BITES else 1  # START_MOST_BITES
    q = best
    for _ in range(2, n):
        q = next_seat_nb(q, n)
        if sign * t.bites[q] > sign * t.bites[best]:
            best = q
    return best


@njit
def heuristic_option_nb(t, p, n_opts, trap):
    """The best of the legal actions in t.opts by the bands above, as an index (the first of
    equal keys). Cautious compares integer keys; trap lowers safe plays by its estimate."""
    swarm = t.st[S_SWARM]
    best_i = 0
    best = _NO_KEY
    best_f = float(_NO_KEY)
    for i in range(n_opts):
        key, safe = option_key_nb(t, p, i, swarm)
        if trap:
            key_f = float(key)
            if safe:
                key_f -= KEY_SCALE * _TRAP_WEIGHT * forced_probability_nb(t, p, t.opt_after[i])
            if key_f < best_f:
                best_f, best_i = key_f, i
        elif key < best:
            best, best_i = key, i
    return best_i


@inline
def option_key_nb(t, p, i, swarm):
    """(key, is a safe play) of option i of t.opts; keys in 1/KEY_SCALE knut, lower is better."""
    cls = t.opt_class[i]
    kind = cls & OC_KIND
    if kind >= OC_JOHN:  # John or a John discard: rare
        if kind == OC_DISCARD:
            return KEY_SCALE * (_EMERGENCY + swarm) + _FREE_PASS, False
        return _john_key(t, p), False
    # Number cards and `?`s, most of every turn: one table look-up, no branches (which band
    # applies changes from option to option and would be mispredicted).
    return KEY_SCALE * t.opt_after[i] + t.class_rank[ix(cls)], (cls & ~OC_TWIN) == OC_VALUE


@njit
def _john_key(t, p):
    n_cand, bites = john_targets_nb(t)
    if bites:
        for i in range(n_cand):
            if t.cand[i] != p:
                return KEY_SCALE * _JOHN_BITES_OPPONENT
    if t.rules[R_HEAVY]:
        return KEY_SCALE * (_BUST + t.rules[R_THRESHOLD]) + _HEAVY_JOHN  # one bite beats a heavy bust
    return KEY_SCALE * _JOHN_ON_SELF


@njit
def forced_probability_nb(t, p, after):
    """Chance that the next seat holds no card it can play safely on a swarm of `after`,
    estimated from the cards seat p cannot see (deck list minus own hand and the swarm)."""
    n = t.st[S_PLAYERS]
    nxt = next_seat_nb(p, n)
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
