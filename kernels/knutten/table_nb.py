"""The Knutten table: where every card is, and the moves that carry cards between places.

The table is one numpy record (TABLE_DTYPE) made once per batch and reset per game: helpers take
it as `t`: a single pointer, where passing arrays would cost a reference count per call.
When tracing, the record also keeps the events of the game being played.
Places: hands, the draw pile, the swarm, the discard (only John goes there) and John on the table.

The draw pile is kept as an unordered set (`pile`) above an ordered queue (`under`). Drawing the
top card of a shuffled pile is the same as drawing a uniformly random card of the set, so a new
pile needs no shuffle: each draw picks one card at random. Cards a player shows and puts under the
pile are known and ordered: they are drawn only after the set is used up, first put first drawn.
"""
import numpy as np

from kernels.jit import inline, ix, njit
from kernels.knutten.enums import (
    C_A, C_B, C_DESIGN, C_KIND, E_DEAL, E_DRAW, K_COPY, K_JOHN, K_VALUE, MAX_CARDS,
    MAX_DESIGNS, MAX_HAND, MAX_PLAYERS, N_OPTION_CLASSES, NO_SEAT, O_JOHN_DRAWN_BY, O_JOHN_DRAWS,
    O_N, OC_COPY, OC_JOHN, OC_NEGATIVE, OC_VALUE, R_HAND_LIMIT, S_CARDS, S_DESIGNS, S_DISCARD_N,
    S_JOHN_CARD, S_JOHN_SEAT, S_N, S_PENDING, S_PILE_N, S_PLAYERS, S_SWARM, S_SWARM_N, S_TRACE_N,
    S_UNDER_HEAD, S_UNDER_N, TRACE_CAP, TRACE_WIDTH,
)
from kernels.rng_nb import randint_nb

def _table_dtype(event_rows):
    """The table record with room for `event_rows` trace events. Card ids are stored unsigned:
    loads then index other arrays without Numba's negative-index wraparound code (about 10% of a
    game, measured with both dtypes in one process)."""
    return np.dtype([
        ("cards", np.int64, (MAX_CARDS, 4)),      # per card: kind, a, b, design
        ("designs", np.int64, (MAX_DESIGNS, 4)),  # per design: kind, a, b, copies
        ("card_design", np.uint8, MAX_CARDS),     # cards[:, C_DESIGN], unsigned: see design_nb
        ("card_play", np.int64, (MAX_CARDS, 4)),  # CP_* per card: see rules_nb.place_john_nb
        ("rules", np.int64, 8),
        ("policies", np.int64, MAX_PLAYERS),
        ("st", np.int64, S_N),
        ("hands", np.uint16, (MAX_PLAYERS, MAX_HAND)),
        ("hand_n", np.int64, MAX_PLAYERS),
        ("hand_designs", np.int64, (MAX_PLAYERS, MAX_DESIGNS)),  # copies of each design in hand
        ("bites", np.int64, MAX_PLAYERS),
        ("pile", np.uint16, MAX_CARDS),
        ("under", np.uint16, MAX_CARDS),
        ("swarm", np.uint16, MAX_CARDS),
        ("discard", np.uint16, MAX_CARDS),
        ("swarm_designs", np.int64, MAX_DESIGNS),
        ("opts", np.int64, 2 * MAX_HAND + 1),
        ("opt_after", np.int64, 2 * MAX_HAND + 1),  # the swarm total each option would leave
        ("opt_class", np.int64, 2 * MAX_HAND + 1),  # OC_* of each option
        ("class_rank", np.int64, N_OPTION_CLASSES),  # policies_nb.CLASS_KEYS: see legal_actions_nb
        ("cand", np.int64, MAX_PLAYERS),
        ("rng", np.uint64, 1),
        ("rec", np.int64, O_N),
        ("events", np.int32, (event_rows, TRACE_WIDTH)),
    ], align=True)


# A batch table has one row of events, fixed in its type: log_nb then compiles to nothing (Numba
# compiles the kernels once for each of the two types).
TABLE_DTYPE = _table_dtype(1)
TRACE_TABLE_DTYPE = _table_dtype(TRACE_CAP)


def new_table(cards, designs, rules, policies, trace=False):
    """A table record (as a 1-element record array, so that fields read as attributes with
    NUMBA_DISABLE_JIT=1 too) holding the deck, rules and seat policies."""
    ws = np.zeros(1, TRACE_TABLE_DTYPE if trace else TABLE_DTYPE).view(np.recarray)
    t = ws[0]
    t["cards"][: len(cards)] = cards
    t["designs"][: len(designs)] = designs
    t["card_design"][: len(cards)] = [row[C_DESIGN] for row in cards]
    t["rules"][: len(rules)] = rules
    from kernels.knutten.policies_nb import CLASS_KEYS  # here: policies_nb imports this module

    t["class_rank"][:] = CLASS_KEYS
    t["policies"][: len(policies)] = policies
    t["st"][S_PLAYERS] = len(policies)
    t["st"][S_CARDS] = len(cards)
    t["st"][S_DESIGNS] = len(designs)
    johns = [c for c in range(len(cards)) if cards[c][C_KIND] == K_JOHN]
    t["st"][S_JOHN_CARD] = johns[-1] if johns else NO_SEAT  # the deck's John (a deck holds one)
    t["st"][S_JOHN_SEAT] = NO_SEAT
    t["card_play"][: len(cards)] = [card_play_row(card) for card in cards]
    return ws


def card_play_row(card):
    """The card_play row (CP_*) of a `cards` row while John is off the table."""
    kind, a, b = card[C_KIND], card[C_A], card[C_B]
    if kind != K_VALUE:
        return (0, 0, OC_COPY if kind == K_COPY else OC_JOHN, 0)
    return (a, b, OC_NEGATIVE if a < 0 else OC_VALUE, int(b != a))


@njit
def design_nb(t, card):
    """The design of `card`, unsigned: indexing by it then needs no negative-index wraparound."""
    return t.card_design[card]


@njit
def log_nb(t, code, a, b, c, d, e):
    """Append a trace event when the table keeps events (a game rendered for people)."""
    tr = t.events
    if tr.shape[0] == 1:  # a batch table: known when compiling
        return
    n = t.st[S_TRACE_N]
    if n < tr.shape[0]:
        tr[n, 0] = code
        tr[n, 1] = a
        tr[n, 2] = b
        tr[n, 3] = c
        tr[n, 4] = d
        tr[n, 5] = e
        t.st[S_TRACE_N] = n + 1


@njit
def new_pile_nb(t):
    """Gather every card except a John lying on the table into a new draw pile, in card order."""
    st = t.st
    kept_out = st[S_JOHN_CARD] if st[S_JOHN_SEAT] != NO_SEAT else NO_SEAT
    n_cards = st[S_CARDS]
    pile = t.pile
    for c in range(n_cards):
        pile[c] = c
    if kept_out != NO_SEAT:
        for c in range(kept_out, n_cards - 1):
            pile[c] = c + 1
        n_cards -= 1
    st[S_PILE_N] = n_cards
    st[S_UNDER_N] = 0
    st[S_SWARM_N] = 0
    st[S_DISCARD_N] = 0
    st[S_SWARM] = 0
    st[S_PENDING] = 0
    n_designs = st[S_DESIGNS]
    t.swarm_designs[:n_designs] = 0
    for p in range(st[S_PLAYERS]):
        t.hand_n[p] = 0
        t.hand_designs[p, :n_designs] = 0


@njit
def swarm_to_pile_nb(t):
    """The draw pile is used up and nobody holds a card: the swarm (and a discarded John) become
    the new pile. The swarm total is kept."""
    st = t.st
    n = 0
    for i in range(st[S_SWARM_N]):
        t.pile[n] = t.swarm[i]
        n += 1
    for i in range(st[S_DISCARD_N]):
        t.pile[n] = t.discard[i]
        n += 1
    st[S_PILE_N] = n
    st[S_SWARM_N] = 0
    st[S_DISCARD_N] = 0
    st[S_PENDING] = 0  # waiting ? cards left with the swarm: nothing is waiting any more
    for d in range(st[S_DESIGNS]):
        t.swarm_designs[d] = 0


@inline
def draw_nb(t, p, event):
    """Seat p takes the top card of the pile, if any. Returns how many cards of its design the hand
    then holds (3: three alike), or 0 when the pile is empty."""
    st = t.st
    n = st[S_PILE_N]
    if n > 0:
        i = randint_nb(t.rng, n)
        card = t.pile[i]
        t.pile[i] = t.pile[n - 1]
        st[S_PILE_N] = n - 1
    elif st[S_UNDER_N] > 0:
        head = st[S_UNDER_HEAD]
        card = t.under[head]
        st[S_UNDER_HEAD] = head + 1 if head + 1 < MAX_CARDS else 0
        st[S_UNDER_N] -= 1
    else:
        return 0
    t.hands[p, ix(t.hand_n[p])] = card
    t.hand_n[p] += 1
    design = design_nb(t, card)
    copies = t.hand_designs[p, design] + 1
    t.hand_designs[p, design] = copies
    if card == st[S_JOHN_CARD]:
        t.rec[O_JOHN_DRAWS] += 1
        if t.rec[O_JOHN_DRAWN_BY] == NO_SEAT:
            t.rec[O_JOHN_DRAWN_BY] = p
    log_nb(t, event, p, card, 0, 0, 0)
    return copies


@njit
def next_seat_nb(p, n):
    """The seat after p in turn order (no modulo: a division costs more than the branch)."""
    return p + 1 if p + 1 < n else 0


@njit
def fill_hand_nb(t, p):
    """Seat p draws until the hand limit or until the pile is empty."""
    while t.hand_n[p] < t.rules[R_HAND_LIMIT]:
        if not draw_nb(t, p, E_DRAW):
            return


@njit
def deal_nb(t, first):
    """Every seat draws up to the hand limit, one card at a time, starting with `first`.
    Returns whether some hand now holds three alike."""
    n = t.st[S_PLAYERS]
    most = 0
    for _ in range(t.rules[R_HAND_LIMIT]):
        p = first
        for _ in range(n):
            most = max(most, draw_nb(t, p, E_DEAL))
            p = next_seat_nb(p, n)
    return most >= 3


@njit
def refill_all_nb(t, first):
    """After the swarm became the new pile, every seat refills, in turn order from `first`."""
    n = t.st[S_PLAYERS]
    p = first
    for _ in range(n):
        fill_hand_nb(t, p)
        p = next_seat_nb(p, n)


@njit
def take_from_hand_nb(t, p, slot):
    """Remove the card in `slot` of seat p's hand (the last card fills the gap) and return it."""
    card = t.hands[p, slot]
    last = t.hand_n[p] - 1
    t.hands[p, slot] = t.hands[p, ix(last)]
    t.hand_n[p] = last
    t.hand_designs[p, design_nb(t, card)] -= 1
    return card


@njit
def to_swarm_nb(t, card):
    st = t.st
    t.swarm[st[S_SWARM_N]] = card
    st[S_SWARM_N] += 1
    t.swarm_designs[design_nb(t, card)] += 1


@njit
def hand_under_pile_nb(t, p):
    """Seat p's shown hand goes under the draw pile, in hand order."""
    st = t.st
    for i in range(t.hand_n[p]):
        card = t.hands[p, i]
        t.under[(st[S_UNDER_HEAD] + st[S_UNDER_N]) % MAX_CARDS] = card
        st[S_UNDER_N] += 1
        t.hand_designs[p, design_nb(t, card)] -= 1
    t.hand_n[p] = 0


@njit
def pile_size_nb(t):
    return t.st[S_PILE_N] + t.st[S_UNDER_N]


@njit
def has_three_alike_nb(t, p):
    for i in range(t.hand_n[p]):
        if t.hand_designs[p, design_nb(t, t.hands[p, i])] >= 3:
            return True
    return False


@njit
def wind_caller_nb(t, first):
    """First seat, in turn order from `first`, holding three identical cards (NO_SEAT if none)."""
    n = t.st[S_PLAYERS]
    p = first
    for _ in range(n):
        if has_three_alike_nb(t, p):
            return p
        p = next_seat_nb(p, n)
    return NO_SEAT


@njit
def cards_conserved_nb(t):
    """Checked mode: every card is in exactly one place, and John is where John is said to be."""
    st = t.st
    seen = np.zeros(st[S_CARDS], np.int64)
    for p in range(st[S_PLAYERS]):
        counted = np.zeros(st[S_DESIGNS], np.int64)
        for i in range(t.hand_n[p]):
            seen[t.hands[p, i]] += 1
            counted[design_nb(t, t.hands[p, i])] += 1
        for d in range(st[S_DESIGNS]):
            if counted[d] != t.hand_designs[p, d]:
                return False
    for i in range(st[S_PILE_N]):
        seen[t.pile[i]] += 1
    for i in range(st[S_UNDER_N]):
        seen[t.under[(st[S_UNDER_HEAD] + i) % MAX_CARDS]] += 1
    for i in range(st[S_SWARM_N]):
        seen[t.swarm[i]] += 1
    for i in range(st[S_DISCARD_N]):
        seen[t.discard[i]] += 1
    if st[S_JOHN_SEAT] != NO_SEAT:
        seen[st[S_JOHN_CARD]] += 1
    for c in range(seen.shape[0]):
        if seen[c] != 1:
            return False
    john = st[S_JOHN_CARD]
    return john == NO_SEAT or t.cards[john, C_KIND] == K_JOHN
