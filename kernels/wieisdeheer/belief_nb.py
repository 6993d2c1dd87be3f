"""What the players believe about who the mole is: public option chances, the likelihood of a public
act on the pile under "the actor is loyal" and "the actor is the mole", the Bayes update of every
seat's posterior, and the answers to an ace's questions. docs/models/mole.md derives every formula.

A posterior is a row of `post` (float64[MAX_PLAYERS, MAX_PLAYERS]): post[o, m] is seat o's
probability that seat m is the mole. A seat knows its own mole card, so post[o, o] = 0 (the mole's
own row is its decoy: what a loyal player in its seat would believe).
"""
import numpy as np

from kernels.jit import inline, njit
from kernels.wieisdeheer.enums import (
    ACE, ACT_BANK, ACT_OTHER, ACT_POWER, ACT_VOID, JACK, JOKER, LOOKS_FORCED, MAX_PLAYERS,
    MIN_LIKELIHOOD, N_CARDS, N_RANKS, N_SUITS, NO_SUIT, P_REASONER, STYLE_NAIVE,
)
from kernels.wieisdeheer.table_nb import (
    KIND_ACE, KIND_JACK, KIND_OTHER, RANK_OF, ST_CARDS, ST_DISC_N, ST_UNSEEN, ST_UNSEEN_RANK,
)


@njit
def init_beliefs_nb(post, players):
    """Uniform over the other seats: the n-1 queens and the king are dealt blind."""
    for o in range(post.shape[0]):
        for m in range(post.shape[1]):
            post[o, m] = 0.0
    p = 1.0 / (players - 1)
    for o in range(players):
        for m in range(players):
            if m != o:
                post[o, m] = p


@njit
def chance_holds_nb(k, unseen, h):
    """Chance that h cards drawn blind from `unseen` cards include at least one of k given ones
    (hypergeometric: 1 - C(unseen-k, h) / C(unseen, h))."""
    if k <= 0 or h <= 0:
        return 0.0
    miss = 1.0
    for i in range(h):
        if unseen - k - i <= 0:
            return 1.0
        miss *= (unseen - k - i) / (unseen - i)
    return 1.0 - miss


@inline
def fitting_unseen_nb(st, in_disc, suit, rank):
    """(aces, jacks, other cards) not on the discard pile that fit on a top of (suit, rank), from
    the table's running counts: what the public knows is still in hands or the draw pile. Sums of
    selects, not branches (the top changes every card)."""
    aces = 0
    jacks = 0
    others = st[ST_UNSEEN + 3 * NO_SUIT + KIND_OTHER]  # jokers fit anywhere
    any_suit = rank == JOKER
    for s in range(N_SUITS):
        base = ST_UNSEEN + 3 * s
        whole = any_suit | (s == suit)  # the whole suit fits
        aces += st[base + KIND_ACE] if whole | (rank == ACE) else 0
        jacks += st[base + KIND_JACK] if whole | (rank == JACK) else 0
        others += st[base + KIND_OTHER] if whole else 0
    if rank != JOKER and rank != ACE and rank != JACK:
        # the number cards of the top's rank in the other suits
        same = st[ST_UNSEEN_RANK + rank]
        if suit < N_SUITS and in_disc[suit * N_RANKS + rank] == 0:
            same -= 1
        others += same
    return aces, jacks, others


def _falling_products(top):
    """FALLING[x, h] = x (x-1) ... (x-h+1), each factor at least 0, multiplied in that order from 1.0
    in float64: bit for bit the products public_chances_nb used to form in a loop."""
    table = np.zeros((top + 1, top + 1))
    for x in range(top + 1):
        p = 1.0
        for h in range(top + 1):
            table[x, h] = p
            p *= max(x - h, 0)
    return table


FALLING = _falling_products(N_CARDS)


@inline
def public_chances_nb(st, in_disc, suit, rank, h):
    """The public's chances that a player with h cards holds a fitting ace, a fitting jack, and
    another fitting card, counting every card not on the discard pile as unseen (the public view:
    no seat's own hand enters, so every observer shares the likelihoods). Returns (a, j, o):
    chance_holds_nb three times over, as 1 - (unseen-k)_h / (unseen)_h with the falling products
    read from a table and one shared division."""
    k_a, k_j, k_o = fitting_unseen_nb(st, in_disc, suit, rank)
    unseen = st[ST_CARDS] - st[ST_DISC_N]
    ways = FALLING[unseen, h]
    if h <= 0 or ways <= 0.0:
        return 0.0, 0.0, 0.0
    inv = 1.0 / ways
    return (1.0 - FALLING[unseen - k_a, h] * inv, 1.0 - FALLING[unseen - k_j, h] * inv,
            1.0 - FALLING[unseen - k_o, h] * inv)


@njit
def void_rate_nb(style, sabotage, o):
    """The mole's chance to void a rich pile when it holds a fitting ace: the naive mole at its
    sabotage rate, the smart one only when another fitting card looks unlikely (the void looks
    forced)."""
    if style == STYLE_NAIVE or o < LOOKS_FORCED:
        return sabotage
    return 0.0


@inline
def act_likelihoods_nb(act, a, j, o, sabotage, style):
    """(P(act | the actor is loyal), P(act | the actor is the mole)) for an act on a rich pile by a
    reasoner, with a, j, o the public chances of a fitting ace, jack, other card. The loyal player
    banks with a jack, else sheds another card, else voids (forced), else draws. The mole first
    voids with a fitting ace at its void rate v, then passes up a bank at its sabotage rate s when
    it has another card to play, and otherwise plays as a loyal player."""
    v = void_rate_nb(style, sabotage, o)
    s = sabotage
    if act == ACT_VOID:
        loyal = (1.0 - j) * (1.0 - o) * a
        mole = a * v + (1.0 - j) * (1.0 - o) * a * (1.0 - v)
    elif act == ACT_BANK:
        loyal = j
        mole = (1.0 - a * v) * j * (1.0 - s * o)
    elif act == ACT_OTHER:
        loyal = (1.0 - j) * o
        mole = (1.0 - a * v) * (j * s * o + (1.0 - j) * o)
    else:  # ACT_DRAW: nobody chooses to draw
        loyal = (1.0 - j) * (1.0 - o) * (1.0 - a)
        mole = loyal
    return max(loyal, MIN_LIKELIHOOD), max(mole, MIN_LIKELIHOOD)


@inline
def is_evidence_nb(policy, pile, rich):
    """Only a reasoner's acts on a pile of at least its `rich` points are evidence: a random
    player and a racer act alike whether loyal or not, and on poorer piles a reasoner plays for
    shedding and questions (the observers' model ignores those acts). Each observer reads such an
    act with the sabotage rate it assumes (its `suspect_sabotage`, not the actor's own rate, which
    it cannot see): read_act_nb in play_nb."""
    return policy == P_REASONER and pile >= rich and pile > 0


@inline
def bayes_update_nb(post, players, actor, loyal, mole):
    """Every seat's posterior after an act of `actor` with likelihoods (loyal, mole): hypothesis
    "m is the mole" gives the act likelihood `mole` if m == actor, else `loyal`."""
    ratio = mole / loyal
    for o in range(players):
        x = post[o, actor]
        if x <= 0.0:
            continue
        post[o, actor] = x * ratio
        total = 0.0  # the row's own sum, not 1 - x: exact when x is near 1 and the ratio tiny
        for m in range(players):
            total += post[o, m]
        inv = 1.0 / total
        for m in range(players):
            post[o, m] *= inv


@inline
def answer_likelihoods_nb(mole_like, accuracy, bluff):
    """(P(answer | the target is loyal), P(answer | the target is the mole)) for one answer that
    reads mole-like (True) or loyal (False): a loyal target's answer reads loyal with `accuracy`;
    the mole's reads mole-like with (1-bluff)*accuracy + bluff*(1-accuracy) (a perfect liar,
    bluff 1, reads like a loyal player)."""
    p_loyal = 1.0 - accuracy
    p_mole = (1.0 - bluff) * accuracy + bluff * (1.0 - accuracy)
    if mole_like:
        return max(p_loyal, MIN_LIKELIHOOD), max(p_mole, MIN_LIKELIHOOD)
    return max(1.0 - p_loyal, MIN_LIKELIHOOD), max(1.0 - p_mole, MIN_LIKELIHOOD)


@inline
def update_one_nb(post, o, players, target, loyal, mole):
    """Seat o's posterior alone after evidence about `target` (an answer it read)."""
    x = post[o, target]
    if x <= 0.0:
        return
    post[o, target] = x * (mole / loyal)
    total = 0.0
    for m in range(players):
        total += post[o, m]
    inv = 1.0 / total
    for m in range(players):
        post[o, m] *= inv


@njit
def most_likely_nb(post, o, players):
    """Seat o's most likely mole among the others (ties: the first after o in seat order)."""
    best = -1
    best_p = -1.0
    for k in range(1, players):
        m = (o + k) % players
        if post[o, m] > best_p:
            best_p = post[o, m]
            best = m
    return best


@njit
def most_uncertain_nb(post, o, players):
    """The other seat whose status seat o is least sure of: largest p(1-p) (ties: first after o)."""
    best = -1
    best_u = -1.0
    for k in range(1, players):
        m = (o + k) % players
        u = post[o, m] * (1.0 - post[o, m])
        if u > best_u:
            best_u = u
            best = m
    return best


@njit
def stated_beliefs_nb(post, o, players, told):
    """told[o] = seat o's posterior as it states it when it writes its suspect: the evidence of the
    acts it read tempered to the power ACT_POWER, the answers' kept whole. The posterior is the
    prior times exp(acts + answers); told[MAX_PLAYERS + o, m] holds the acts' part for seat m
    (read_act_nb adds to it), so the stated row is post[o, m] exp(-(1 - ACT_POWER) told[.., m]),
    renormalised."""
    total = 0.0
    for m in range(players):
        told[o, m] = post[o, m] * np.exp((ACT_POWER - 1.0) * told[MAX_PLAYERS + o, m])
        total += told[o, m]
    inv = 1.0 / total
    for m in range(players):
        told[o, m] *= inv


@njit
def note_act_nb(told, o, actor, loyal, mole):
    """Seat o read an act of `actor` with likelihoods (loyal, mole): keep its log ratio apart, so
    the stated beliefs can temper the acts alone (stated_beliefs_nb)."""
    told[MAX_PLAYERS + o, actor] += np.log(mole / loyal)


@njit
def brier_nb(post, o, players, mole):
    """Brier score of seat o's posterior over the other seats: sum of (p_m - [m is the mole])^2."""
    b = 0.0
    for m in range(players):
        if m != o:
            y = 1.0 if m == mole else 0.0
            b += (post[o, m] - y) ** 2
    return b


@njit
def act_of_nb(card):
    """The public act of playing `card` on the pile (-1: a card that neither banks nor voids; the
    caller decides whether an ordinary play is ACT_OTHER)."""
    r = RANK_OF[card]
    if r == ACE:
        return ACT_VOID
    if r == JACK:
        return ACT_BANK
    return ACT_OTHER

