"""The rules that act on the table when a card lands or a player goes out: the pile's points (a
number card adds its face value, a jack banks the pile into the pot, an ace voids it), the pesten
effects (2 and joker add to the pending draw, 8 skips, ace reverses), the turn order over the seats
still playing, the finishing order with the joker rule, and who wins.
"""
from kernels.jit import inline, njit
from kernels.wieisdeheer.enums import ACE, DRAW_JOKER, DRAW_TWO, EIGHT, JACK, JOKER, TWO
from kernels.wieisdeheer.table_nb import (
    POINTS_OF, RANK_OF, ST_DIR, ST_PENDING, ST_PILE, ST_POT, ST_VOIDED,
)

# what a played card did to the pile (pile_effect_nb's second result)
PILE_ADDED, PILE_BANKED, PILE_VOIDED = 0, 1, 2


@inline
def pile_effect_nb(st, card):
    """The points of `card` landing on the discard pile: 2-10 add their face value to the pile; a
    jack moves the pile's points into the pot; an ace voids them. Returns (points moved or added,
    PILE_*)."""
    r = RANK_OF[card]
    if r == JACK:
        p = st[ST_PILE]
        st[ST_POT] += p
        st[ST_PILE] = 0
        return p, PILE_BANKED
    if r == ACE:
        p = st[ST_PILE]
        st[ST_VOIDED] += p
        st[ST_PILE] = 0
        return p, PILE_VOIDED
    st[ST_PILE] += POINTS_OF[card]
    return POINTS_OF[card], PILE_ADDED


@inline
def turn_effect_nb(st, card):
    """The pesten effect of `card`: a 2 or joker adds 2 or 5 to the pending draw, an ace reverses
    the direction. Returns True when the next player is skipped (an 8)."""
    r = RANK_OF[card]
    if r == TWO:
        st[ST_PENDING] += DRAW_TWO
    elif r == JOKER:
        st[ST_PENDING] += DRAW_JOKER
    elif r == ACE:
        st[ST_DIR] = -st[ST_DIR]
    return r == EIGHT


@inline
def next_seat_nb(s, direction, players, out):
    """The next seat in `direction` that is still playing (the caller knows one is)."""
    t = s
    for _ in range(players):
        t = t + direction
        if t >= players:
            t = 0
        elif t < 0:
            t = players - 1
        if out[t] == 0:
            return t
    return s


@njit
def go_out_nb(order, k, s, on_joker, joker_up):
    """Seat s is the k-th (0-based) to empty its hand: it takes place k, or k-1 when it finished on
    a joker and the joker rule is on (the player before it moves down one place)."""
    order[k] = s
    if on_joker and joker_up and k > 0:
        order[k] = order[k - 1]
        order[k - 1] = s


@njit
def winner_nb(order, players, suspect, mole, pot, mole_pot_threshold):
    """The first seat in the finishing order that wrote the mole wins; nobody did: the mole wins.
    With mole_pot_threshold N > 0 the mole also wins when the pot ended below N."""
    if mole_pot_threshold > 0 and pot < mole_pot_threshold:
        return mole
    for k in range(players):
        w = order[k]
        if w != mole and suspect[w] == mole:
            return w
    return mole
