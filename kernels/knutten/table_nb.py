"""The Knutten table: where every card is, and the moves that carry cards between places.

The table is one numpy record (TABLE_DTYPE) that the driver makes once per call and resets per
game: helpers take it as `t`: a single pointer, where passing arrays would cost a reference count
per call. When tracing, the record also keeps the events of the game being played.
Places: hands, the draw pile, the swarm, the discard (only John goes there) and John on the table.

The draw pile is kept as an unordered set (`pile`) above an ordered queue (`under`). Drawing the
top card of a shuffled pile is the same as drawing a uniformly random card of the set, so a new
pile needs no shuffle: each draw picks one card at random. Cards a player shows and puts under the
pile are known and ordered: they are drawn only after the set is used up, first put first drawn.

Randomness is split so that arms pair (kernels/rng_nb.py). The draws from the set of round r's
new pile use the deal stream of (seed, game, r) only, so the i-th card off a new pile is the same
card in every arm with the same deck. John is not in that set: when a new pile holds John, the
extra stream of (seed, game, r) picks the draw at which he comes off it (uniform over the set's
size + 1 places, as in a shuffle), and the other cards come off in the same order as without him.
Each seat's random choices use that seat's own stream (`seat_rng`, policies_nb).
"""
import numpy as np
from numba.extending import overload

from kernels.jit import inline, ix, njit
from kernels.knutten.enums import (
    C_A, C_B, C_DESIGN, C_KIND, E_DEAL, E_DRAW, K_COPY, K_JOHN, K_VALUE, MAX_CARDS, MAX_DESIGNS,
    LUCK_COPY, LUCK_JOHN, LUCK_NEGATIVE, MAX_HAND, MAX_PLAYERS, NO_LUCK, NO_SEAT, N_LUCK,
    N_OPTION_CLASSES, OC_COPY, OC_JOHN, OC_NEGATIVE, OC_VALUE,
    O_JOHN_DRAWN_BY, O_JOHN_DRAWS, O_N, R_HAND_LIMIT, R_LUCK, R_ROTATE, S_CARDS, S_DESIGNS, S_DISCARD_N,
    S_JOHN_AT, S_JOHN_CARD, S_JOHN_SEAT, S_JOHN_WAITS, S_N, S_PENDING, S_PILE_N, S_PLAYERS,
    S_SHIFT, S_SWARM, S_SWARM_N, S_TRACE_N, S_UNDER_HEAD, S_UNDER_N, TRACE_CAP, TRACE_WIDTH,
)
from kernels.rotation_nb import deal_of_nb, held_hand_nb
from kernels.rng_nb import (
    DEAL, EXTRA, SEAT, game_stream_nb, mix64_nb, next_word_nb, randint_nb, uniform_nb,
)


# Rounds whose deal-stream salt the table keeps (later rounds, rare, compute it).
SALTED_ROUNDS = 64


def _table_dtype(event_rows):
    """The table record with room for `event_rows` trace events. Card ids are stored unsigned:
    loads then index other arrays without Numba's negative-index wraparound code (about 10% of a
    game, measured with both dtypes in one process)."""
    return np.dtype([
        ("cards", np.int64, (MAX_CARDS, 4)),      # per card: kind, a, b, design (John last)
        ("designs", np.int64, (MAX_DESIGNS, 4)),  # per design: kind, a, b, copies (John last)
        ("card_design", np.uint8, MAX_CARDS),     # cards[:, C_DESIGN], unsigned: see design_nb
        ("card_play", np.int64, (MAX_CARDS, 4)),  # CP_* per card: see rules_nb.place_john_nb
        ("rules", np.int64, 10),                  # rule_i: the rules, R_ROTATE, R_LUCK
        ("policies", np.int64, MAX_PLAYERS),
        ("start_choice", np.int64, MAX_PLAYERS),  # seat parameter `start` (START_*)
        ("samples", np.int64, MAX_PLAYERS),       # seat parameter `samples` (search)
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
        ("game_rng", np.uint64, 1),            # the game's stream: substreams derive from it
        ("seat_salt", np.uint64, MAX_PLAYERS),       # see salt_nb
        ("deal_salt", np.uint64, SALTED_ROUNDS),
        ("deal_rng", np.uint64, 1),            # the pile's draws (this round's deal stream)
        ("seat_rng", np.uint64, MAX_PLAYERS),  # each seat's random choices
        ("rec", np.int64, O_N),
        ("card_luck", np.uint8, MAX_CARDS),       # LUCK_* kind of each card, or N_LUCK (none)
        # cards of each luck kind in the plain deck, and in the pile's set with a waiting John (as
        # floats: the luck of each draw multiplies them without a conversion)
        ("deck_luck", np.float64, N_LUCK + 1),
        ("pile_luck", np.float64, N_LUCK + 1),
        ("luck", np.float64, (MAX_PLAYERS, N_LUCK + 1)),  # the game's luck so far, per seat and kind
        ("places", np.float64, MAX_CARDS + 2),    # 1 / n: a product is cheaper than a division
        ("events", np.int32, (event_rows, TRACE_WIDTH)),
    ], align=True)


# A batch table has one row of events, fixed in its type: log_nb then compiles to nothing (Numba
# compiles the kernels once for each of the two types).
TABLE_DTYPE = _table_dtype(1)
TRACE_TABLE_DTYPE = _table_dtype(TRACE_CAP)


def as_records(a):
    """A record array whose elements read their fields as attributes (t.st), as Numba's do: with
    NUMBA_DISABLE_JIT=1 a plain structured array's element is a numpy.void without them. In
    jitted code this is the array itself."""
    return a.view(np.recarray)


@overload(as_records)
def _as_records_jit(a):
    return lambda a: a


@njit
def card_play_row_nb(t, c):
    """Write card c's card_play row (CP_*) as it is while John is off the table."""
    kind = t.cards[c, C_KIND]
    a = t.cards[c, C_A]
    b = t.cards[c, C_B]
    if kind != K_VALUE:
        t.card_play[c, 0] = 0
        t.card_play[c, 1] = 0
        t.card_play[c, 2] = OC_COPY if kind == K_COPY else OC_JOHN
        t.card_play[c, 3] = 0
    else:
        t.card_play[c, 0] = a
        t.card_play[c, 1] = b
        t.card_play[c, 2] = OC_NEGATIVE if a < 0 else OC_VALUE
        t.card_play[c, 3] = 1 if b != a else 0


@njit
def luck_kind_nb(kind, a):
    """The LUCK_* kind of a card of `kind` (K_*) whose first value is `a`, or NO_LUCK."""
    if kind == K_JOHN:
        return LUCK_JOHN
    if kind == K_COPY:
        return LUCK_COPY
    return LUCK_NEGATIVE if a < 0 else NO_LUCK


@njit
def set_deck_nb(t, cards, designs, john):
    """Copy the plain deck (cards rows kind, a, b, design; designs rows kind, a, b, copies) into
    the table and, if `john`, add John Knut as the last design and the last card."""
    st = t.st
    n_cards = cards.shape[0]
    n_designs = designs.shape[0]
    for c in range(n_cards):
        for j in range(4):
            t.cards[c, j] = cards[c, j]
    for d in range(n_designs):
        for j in range(4):
            t.designs[d, j] = designs[d, j]
    st[S_JOHN_CARD] = NO_SEAT
    if john:
        t.designs[n_designs, 0] = K_JOHN
        t.designs[n_designs, 1] = 0
        t.designs[n_designs, 2] = 0
        t.designs[n_designs, 3] = 1
        t.cards[n_cards, 0] = K_JOHN
        t.cards[n_cards, 1] = 0
        t.cards[n_cards, 2] = 0
        t.cards[n_cards, 3] = n_designs
        st[S_JOHN_CARD] = n_cards
        n_cards += 1
        n_designs += 1
    t.deck_luck[:] = 0
    for n in range(1, MAX_CARDS + 2):
        t.places[n] = 1.0 / n
    for c in range(n_cards):
        t.card_design[c] = t.cards[c, C_DESIGN]
        card_play_row_nb(t, c)
        kind = luck_kind_nb(t.cards[c, C_KIND], t.cards[c, C_A])
        t.card_luck[c] = kind
        if kind != LUCK_JOHN:  # John never lies in a new pile's set: he waits for his place
            t.deck_luck[kind] += 1.0
    st[S_CARDS] = n_cards
    st[S_DESIGNS] = n_designs
    st[S_JOHN_SEAT] = NO_SEAT


def table_cards(cards, designs, john):
    """The table's cards rows (John added last if `john`) for Python code: trace rendering and
    tests that name cards by id."""
    ws = as_records(np.zeros(1, TABLE_DTYPE))
    t = ws[0]
    set_deck_nb(t, np.asarray(cards, np.int64), np.asarray(designs, np.int64), bool(john))
    return np.array(t["cards"][: t["st"][S_CARDS]])


@njit
def design_nb(t, card):
    """The design of `card`, unsigned: indexing by it then needs no negative-index wraparound."""
    return t.card_design[card]


@inline
def log_nb(t, code, a, b, c, d, e):
    """Append a trace event when the table keeps events (a game rendered for people). Events past
    the table's room are counted, not kept: a count above it tells the driver the trace is full.

    Inlined, so that the values reach write_event_nb as int64: its callers pass event codes and
    zeros as constants, which Numba types as literals, and log_nb itself was compiled once for
    each mix of them (66 specialisations)."""
    if t.events.shape[0] > 1:  # a batch table's one row is no room for events: known when compiling
        write_event_nb(t, np.int64(code), np.int64(a), np.int64(b), np.int64(c), np.int64(d),
                       np.int64(e))


@njit
def write_event_nb(t, code, a, b, c, d, e):
    """log_nb's work, for a table that keeps events."""
    tr = t.events
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
def salt_nb(purpose, k):
    """What rng_nb.substream_nb mixes into the game's stream for substream k of `purpose`: it
    depends on neither seed nor game, so the table keeps the seats' and early rounds' salts."""
    return purpose ^ mix64_nb(np.uint64(k) + purpose)


@njit
def salt_streams_nb(t):
    """Fill the table's salts (once, when it is built)."""
    for p in range(MAX_PLAYERS):
        t.seat_salt[p] = salt_nb(SEAT, p)
    for r in range(SALTED_ROUNDS):
        t.deal_salt[r] = salt_nb(DEAL, r)


@njit
def substream_nb(t, salt):
    """rng_nb's substream with salt `salt` (salt_nb) of the table's game, from the game's stream
    computed once per game: rng_nb.substream_nb recomputes that and the salt on every call, a
    few percent of a random game's time over its seats and rounds. Tested equal to rng_nb's
    seat_stream_nb, deal_stream_nb and extra_stream_nb."""
    return mix64_nb(t.game_rng[0] ^ salt)


@njit
def seed_game_nb(t, seed, game):
    """Game `game` of a study with `seed`: its stream (new_pile_nb derives each round's deal from
    it) and every seat's stream of choices (rng_nb.seat_stream_nb). At a table that rotates its
    seats, the streams of deal game // n, each seat's shifted by the rotation (kernels/rotation_nb.py)."""
    n = t.st[S_PLAYERS]
    deal, shift = deal_of_nb(game, n, t.rules[R_ROTATE] != 0)
    t.st[S_SHIFT] = shift
    t.game_rng[0] = game_stream_nb(seed, deal)
    for p in range(n):
        t.seat_rng[p] = substream_nb(t, t.seat_salt[held_hand_nb(p, shift, n)])


@njit
def seat_randint_nb(t, p, n):
    """Uniform integer in [0, n) from seat p's own stream."""
    t.seat_rng[ix(p)], u = next_word_nb(t.seat_rng[ix(p)])
    return uniform_nb(u, n)


@njit
def new_pile_nb(t, rnd):
    """Gather every card except a John lying on the table into a new draw pile for round `rnd`
    (0-based within the game): the plain cards in card order, drawn with the round's deal stream,
    and John (unless on the table) waiting for the draw the round's extra stream picks."""
    st = t.st
    john = st[S_JOHN_CARD]
    n_plain = st[S_CARDS] - 1 if john != NO_SEAT else st[S_CARDS]  # John is the last card
    pile = t.pile
    for c in range(n_plain):
        pile[c] = c
    st[S_PILE_N] = n_plain
    t.pile_luck[:] = t.deck_luck
    salt = t.deal_salt[rnd] if rnd < SALTED_ROUNDS else salt_nb(DEAL, rnd)
    t.deal_rng[0] = substream_nb(t, salt)  # rng_nb.deal_stream_nb(seed, game, rnd)
    st[S_JOHN_AT] = 0
    st[S_JOHN_WAITS] = 0
    if john != NO_SEAT and st[S_JOHN_SEAT] == NO_SEAT:
        # rng_nb.extra_stream_nb(seed, game, rnd) picks the draw j (0..n_plain) that is John's:
        # he comes off when the set still holds n_plain - j cards
        _, u = next_word_nb(substream_nb(t, salt_nb(EXTRA, rnd)))
        st[S_JOHN_AT] = n_plain - uniform_nb(u, n_plain + 1)
        st[S_JOHN_WAITS] = 1
        t.pile_luck[LUCK_JOHN] = 1.0  # unseen, his place is any of the places left
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
    """The draw pile is used up and nobody can play: the swarm (and a discarded John) become the
    new pile, drawn on with the round's deal stream (where it stands now depends on the play). The
    swarm total is kept."""
    st = t.st
    n = 0
    for i in range(st[S_SWARM_N]):
        t.pile[n] = t.swarm[i]
        n += 1
    for i in range(st[S_DISCARD_N]):
        t.pile[n] = t.discard[i]
        n += 1
    st[S_PILE_N] = n
    t.pile_luck[:] = 0
    for i in range(n):
        t.pile_luck[t.card_luck[t.pile[i]]] += 1.0
    st[S_SWARM_N] = 0
    st[S_DISCARD_N] = 0
    st[S_PENDING] = 0  # waiting ? cards left with the swarm: nothing is waiting any more
    for d in range(st[S_DESIGNS]):
        t.swarm_designs[d] = 0


@inline
def expect_luck_nb(t, p, places):
    """Before seat p draws at random from the pile (its set and John's place, if he waits), one of
    `places` being 1 / the places left: take each luck kind's chance of coming off from the seat's
    luck."""
    t.luck[ix(p), LUCK_NEGATIVE] -= t.pile_luck[LUCK_NEGATIVE] * places
    t.luck[ix(p), LUCK_COPY] -= t.pile_luck[LUCK_COPY] * places
    t.luck[ix(p), LUCK_JOHN] -= t.pile_luck[LUCK_JOHN] * places


@inline
def draw_nb(t, p, event):
    """Seat p takes the top card of the pile, if any. Returns how many cards of its design the hand
    then holds (3: three alike), or 0 when the pile is empty."""
    st = t.st
    n = st[S_PILE_N]
    if n > st[S_JOHN_AT]:  # the set, before John's place if he waits in it (S_JOHN_AT 0 if not)
        luck = t.rules[R_LUCK] != 0
        if luck:
            expect_luck_nb(t, p, t.places[ix(n + st[S_JOHN_WAITS])])
        i = randint_nb(t.deal_rng, n)
        card = t.pile[i]
        t.pile[i] = t.pile[n - 1]
        st[S_PILE_N] = n - 1
        if luck:
            kind = t.card_luck[card]  # no branch: a card of no luck kind counts in slot NO_LUCK
            t.pile_luck[kind] -= 1.0
            t.luck[ix(p), kind] += 1.0
    elif st[S_JOHN_WAITS]:  # John's place in a new pile
        if t.rules[R_LUCK]:
            expect_luck_nb(t, p, t.places[ix(n + 1)])
            t.luck[ix(p), LUCK_JOHN] += 1.0
            t.pile_luck[LUCK_JOHN] -= 1.0
        card = np.uint16(st[S_JOHN_CARD])
        st[S_JOHN_WAITS] = 0
        st[S_JOHN_AT] = 0
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
    Returns whether some hand now holds three alike. At rotation k the same cards are drawn in the
    same order, starting k seats before `first`: seat s gets what seat s + k gets unrotated."""
    n = t.st[S_PLAYERS]
    start = first - t.st[S_SHIFT]
    start = start + n if start < 0 else start
    most = 0
    for _ in range(t.rules[R_HAND_LIMIT]):
        p = start
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
    """Cards left to draw: the set, the queue under it and John waiting in a new pile."""
    st = t.st
    return st[S_PILE_N] + st[S_UNDER_N] + st[S_JOHN_WAITS]


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
    """Checked mode: every card is in exactly one place, John is where John is said to be, and (when
    the arm measures luck) the pile's luck counts are its own."""
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
    luck = np.zeros(N_LUCK + 1, np.float64)
    luck[LUCK_JOHN] = st[S_JOHN_WAITS]
    for i in range(st[S_PILE_N]):
        seen[t.pile[i]] += 1
        luck[t.card_luck[t.pile[i]]] += 1
    for k in range(N_LUCK + 1):  # the luck of a draw is taken against these counts
        if t.rules[R_LUCK] and luck[k] != t.pile_luck[k]:
            return False
    if st[S_JOHN_WAITS]:
        seen[st[S_JOHN_CARD]] += 1
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
