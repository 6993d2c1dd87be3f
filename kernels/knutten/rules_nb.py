"""Knutten rules as small pure helpers over a Table: what a card counts, what is legal, bites."""
import numpy as np

from kernels.jit import inline, ix, njit
from kernels.knutten.enums import (
    A_DISCARD, C_A, C_B, C_KIND, CP_CLASS, CP_FIRST, CP_SECOND, CP_TWO_SIDED, K_VALUE, KEY_SCALE,
    NO_OPTION, NO_SEAT, OC_BITES, OC_DISCARD, OC_TWIN, R_BITES_TO_END, R_HEAVY, R_HEAVY_END,
    R_THRESHOLD, S_CARDS, S_JOHN_SEAT, S_PENDING, S_PLAYERS, S_RANKED, S_SWARM,
)
from kernels.knutten.table_nb import design_nb


@njit
def counted_nb(t, value):
    """What a printed value counts: while John lies on the table every 5 counts 0."""
    if value == 5 and t.st[S_JOHN_SEAT] != NO_SEAT:
        return 0
    return value


@njit
def place_john_nb(t, seat):
    """John comes to lie before `seat`, or leaves the table (NO_SEAT). What each side of a card
    counts then changes (counted_nb): card_play, which legal_actions_nb reads instead of the
    printed values, is rewritten when John comes or goes (rarely)."""
    st = t.st
    was_on = st[S_JOHN_SEAT] != NO_SEAT
    st[S_JOHN_SEAT] = seat
    if (seat != NO_SEAT) == was_on:
        return
    for c in range(st[S_CARDS]):
        if t.cards[c, C_KIND] == K_VALUE:
            t.card_play[c, CP_FIRST] = counted_nb(t, t.cards[c, C_A])
            t.card_play[c, CP_SECOND] = counted_nb(t, t.cards[c, C_B])


@njit
def swarm_after_nb(t, card, side):
    """The swarm total after playing `card` with value `side` (0: first value, 1: second).

    A `?` adds nothing yet; a real card adds its counted value once for itself and once for every
    `?` waiting for it (chained `?`s all copy the first real value after them)."""
    kind = t.cards[card, C_KIND]
    if kind != K_VALUE:
        return t.st[S_SWARM]
    value = t.cards[card, C_A] if side == 0 else t.cards[card, C_B]
    return t.st[S_SWARM] + counted_nb(t, value) * (1 + t.st[S_PENDING])


# Above every option's key: an illegal option's key is raised by it, so it is never ranked first
# (a select, where `legal and key < best` would be a mispredicted branch).
_UNRANKED = 1 << 60


@inline
def legal_actions_nb(t, p, classify):
    """Write seat p's legal actions into t.opts (with the swarm total each would leave in
    t.opt_after and, if `classify`, its OC_* class in t.opt_class: otherwise t.opt_class is left
    as it was, except for a John discard) and return how many there are.

    Each value of each card is one action unless it would take the swarm below 0; a `?` and John
    are always playable; the seat with John in front of it may instead pass to discard John.

    If `classify`, the options are also ranked as they are listed, by KEY_SCALE * the swarm they
    leave + t.class_rank[class] (the heuristic players' keys, policies_nb.CLASS_KEYS): the first
    of lowest rank goes to t.st[S_RANKED], or NO_OPTION when some option's worth depends on more
    than that (John, a John discard). A cautious player then needs no second pass."""
    # The table's scalars are read once: every store to opts could alias them otherwise.
    swarm = t.st[S_SWARM]
    threshold = t.rules[R_THRESHOLD]
    copies = 1 + t.st[S_PENDING]
    opts = t.opts
    after = t.opt_after
    cls = t.opt_class
    rank = t.class_rank
    play = t.card_play
    n = np.int64(0)  # not a literal 0: ix would be compiled for both (see play_nb)
    best = _UNRANKED
    ranked = NO_OPTION
    # One path for every card, without branches (which cards a hand holds is random: a branch on
    # it would be mispredicted): both sides are written at n, and n moves past each side only if
    # it is a legal option. A `?` or John counts 0 on its first side and has no second one; as the
    # swarm is under the threshold when a turn starts, its class never gets OC_BITES.
    for slot in range(t.hand_n[p]):
        card = t.hands[p, slot]
        card_class = play[card, CP_CLASS]
        if classify:
            card_class |= OC_TWIN if t.hand_designs[p, design_nb(t, card)] >= 2 else 0
        for side in range(2):
            total = swarm + play[card, CP_FIRST + side] * copies
            opts[ix(n)] = 2 * slot + side
            after[ix(n)] = total
            legal = (total >= 0) & ((side == 0) | (play[card, CP_TWO_SIDED] != 0))
            if classify:  # only players that read classes pay for them (random does not)
                c = card_class | (OC_BITES if total >= threshold else 0)
                cls[ix(n)] = c
                key = KEY_SCALE * total + rank[ix(c)] + (0 if legal else _UNRANKED)
                if key < best:
                    best, ranked = key, n
            n += legal
    if t.st[S_JOHN_SEAT] == p:
        opts[ix(n)] = A_DISCARD
        after[ix(n)] = swarm
        cls[ix(n)] = OC_DISCARD
        n += 1
        best = -1
    if classify:
        t.st[S_RANKED] = ranked if best >= 0 else NO_OPTION
    return n


@njit
def is_legal_nb(t, p, action):
    if action == A_DISCARD:
        return t.st[S_JOHN_SEAT] == p
    slot = action >> 1
    if action < 0 or slot >= t.hand_n[p]:
        return False
    card = t.hands[p, slot]
    kind = t.cards[card, C_KIND]
    if kind != K_VALUE:
        return action & 1 == 0
    if action & 1 == 1 and t.cards[card, C_B] == t.cards[card, C_A]:
        return False
    return swarm_after_nb(t, card, action & 1) >= 0


@njit
def option_is_sound_nb(t, p, option):
    """Checked mode: option `option` of t.opts is a legal action of seat p and its t.opt_after is
    the swarm total that action really leaves (play uses it instead of recomputing)."""
    action = t.opts[option]
    if not is_legal_nb(t, p, action):
        return False
    if action == A_DISCARD:
        return t.opt_after[option] == t.st[S_SWARM]
    return t.opt_after[option] == swarm_after_nb(t, t.hands[p, action >> 1], action & 1)


@njit
def end_bites_nb(t):
    """Bites at which the game ends (heavy weather has its own, higher end)."""
    return t.rules[R_HEAVY_END] if t.rules[R_HEAVY] else t.rules[R_BITES_TO_END]


@njit
def swarm_bite_count_nb(t, swarm):
    """Bites for making the swarm reach the threshold: 1, or in heavy weather every knut over
    threshold - 1 (over 30 with the default threshold)."""
    if t.rules[R_HEAVY]:
        return swarm - (t.rules[R_THRESHOLD] - 1)
    return 1


@njit
def game_over_nb(t):
    end = end_bites_nb(t)
    for p in range(t.st[S_PLAYERS]):
        if t.bites[p] >= end:
            return True
    return False


@njit
def winner_mask_nb(t):
    """Bit p set for every seat with the fewest bites."""
    fewest = t.bites[0]
    for p in range(1, t.st[S_PLAYERS]):
        fewest = min(fewest, t.bites[p])
    mask = 0
    for p in range(t.st[S_PLAYERS]):
        if t.bites[p] == fewest:
            mask |= 1 << p
    return mask


@njit
def john_targets_nb(t):
    """Seats John may be laid before: the fewest-bites seats for whom one more bite does not end
    the game. When none may take a bite, every fewest-bites seat (John then gives no bite).
    Writes them to t.cand; returns (how many, whether the receiver takes a bite)."""
    cand = t.cand
    n_players = t.st[S_PLAYERS]
    fewest = t.bites[0]
    for p in range(1, n_players):
        fewest = min(fewest, t.bites[p])
    bites = fewest + 1 < end_bites_nb(t)
    n = 0
    for p in range(n_players):
        if t.bites[p] == fewest:
            cand[n] = p
            n += 1
    return n, bites
