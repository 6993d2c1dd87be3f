"""Knutten integer constants: card kinds, deck and state layout, rules, policies, events, status."""

# Card kinds. A VALUE card has one or two values (a `-10` card is a VALUE card with value -10);
# the player picks which value counts.
K_VALUE = 0
K_COPY = 1  # "?": counts the value of the next real card played
K_JOHN = 2  # John Knut (expansion)

# Columns of the design table (one row per distinct card design) and the per-card table.
D_KIND, D_A, D_B, D_COPIES = 0, 1, 2, 3
C_KIND, C_A, C_B, C_DESIGN = 0, 1, 2, 3
# Columns of the per-card play table (table_nb.card_play): what each side counts now (John on
# the table makes a 5 count 0; `?` and John count 0), the card's OC_* class, and whether its second
# side is an option of its own (a card with two different printed values).
CP_FIRST, CP_SECOND, CP_CLASS, CP_TWO_SIDED = 0, 1, 2, 3

# Rule values, in this order in the kernel's `rules` array.
R_THRESHOLD, R_HAND_LIMIT, R_BITES_TO_END, R_JOHN_KNUT, R_HEAVY, R_HEAVY_END = range(6)
RULE_ORDER = ("threshold", "hand_limit", "bites_to_end", "john_knut", "heavy_weather",
              "heavy_bites_to_end")

# Policies (ids are stable: they are stored with studies).
P_RANDOM, P_CAUTIOUS, P_TRAP = 0, 1, 2

# Option classes, written by legal_actions_nb beside each option: what the option plays (the low
# three bits), OC_TWIN when the hand holds another card of the same design (playing it breaks a
# pair) and OC_BITES when a number card takes the swarm to the threshold (its player is bitten).
OC_VALUE, OC_NEGATIVE, OC_COPY, OC_JOHN, OC_DISCARD = range(5)
OC_KIND = 7
OC_TWIN = 8
OC_BITES = 16
N_OPTION_CLASSES = 32

# The heuristic players' option keys are integers in 1/KEY_SCALE knut (policies_nb).
KEY_SCALE = 20

# Actions: a >= 0 plays hand slot a >> 1 with value side a & 1; discarding John is A_DISCARD.
A_DISCARD = -1
NO_SEAT = -1
NO_OPTION = -1

# Scalars of the table, in `st`.
(S_SWARM, S_PENDING, S_PILE_N, S_UNDER_HEAD, S_UNDER_N, S_SWARM_N, S_DISCARD_N, S_JOHN_CARD, S_JOHN_SEAT,
 S_TRACE_N, S_PLAYERS, S_CARDS, S_DESIGNS, S_RANKED, S_N) = range(15)

# Capacities of the table record (the deck and rule bounds in sim/games/knutten.py respect them).
MAX_PLAYERS = 8
MAX_HAND = 8
MAX_CARDS = 512
MAX_DESIGNS = 64

# Bite causes (trace and counters).
B_SWARM, B_WIND, B_CANNOT, B_JOHN = 0, 1, 2, 3

# Per-game record, in `rec` and the kernel's `out` rows.
(O_WINNER_MASK, O_TURNS, O_ROUNDS, O_SWARM_BITES, O_WIND, O_CANNOT, O_RESHUFFLES, O_JOHN_IN_DECK,
 O_JOHN_DRAWN_BY, O_JOHN_DRAWS, O_JOHN_PLAYED_BY, O_JOHN_PLAYED_TURN, O_JOHN_TARGET, O_JOHN_BITES,
 O_JOHN_PLAYS, O_JOHN_DISCARDS, O_JOHN_DISCARDED_TURN, O_N) = range(18)

# Trace events: rows of TRACE_WIDTH int32 (code, then up to 5 arguments), at most TRACE_CAP a game.
TRACE_WIDTH = 6
TRACE_CAP = 16384
(E_ROUND, E_DEAL, E_DRAW, E_PLAY, E_COPY, E_BITE, E_WIND, E_CANNOT, E_UNDER, E_JOHN_PLAY,
 E_JOHN_DISCARD, E_RESHUFFLE, E_SKIP, E_START, E_END) = range(15)

# Kernel status codes (0 = fine).
ST_OK, ST_ILLEGAL, ST_CARDS, ST_TOO_LONG = 0, 1, 2, 3
MAX_TURNS = 1_000_000
