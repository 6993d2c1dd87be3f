"""Knutten integer constants: card kinds, deck and state layout, rules, seat parameters, policies,
the output record, trace events. Status codes are the shared ones of kernels/status.py."""
import numpy as np

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

# Integer rules, in this order in the driver's `rule_i` array (names as in the registry); no
# float rules.
R_THRESHOLD, R_HAND_LIMIT, R_BITES_TO_END, R_JOHN_KNUT, R_HEAVY, R_HEAVY_END, R_STUCK = range(7)
RULE_I_ORDER = ("threshold", "hand_limit", "bites_to_end", "john_knut", "heavy_weather",
                "heavy_bites_to_end", "stuck_empty_pile")
RULE_F_ORDER = ()
# rule_i's entry after the rules: 1 when the arm rotates its seats (kernels/rotation_nb.py); the
# next, when there: 1 when the arm measures the luck of the draw (the LUCK_* columns)
R_ROTATE = len(RULE_I_ORDER)
R_LUCK = R_ROTATE + 1

# Rule stuck_empty_pile: what a seat that cannot play does while the draw pile is empty.
STUCK_BITE, STUCK_WAIT = 0, 1  # bite: the cannot-play rule; wait: skipped until nobody can play
STUCK_CHOICES = ("bite", "wait")

# Policies (ids are stable: they are stored with studies).
P_RANDOM, P_CAUTIOUS, P_TRAP, P_SEARCH = 0, 1, 2, 3
N_POLICIES = 4

# Seat parameters, in this order in the driver's `seat_i[seat]` rows; no float parameters.
SI_START, SI_SAMPLES = 0, 1
SEAT_I_ORDER = ("start", "samples")
SEAT_F_ORDER = ()
# Seat parameter `start` (cautious and trap; random ignores it): whom the chooser (the bitten
# seat or the WIND caller) names as the next start player.
START_MOST_BITES, START_FEWEST_BITES, START_NEXT, START_SELF, START_RANDOM = range(5)
START_CHOICES = ("most_bites", "fewest_bites", "next", "self", "random")
# Seat parameter `samples` (search): determinizations per decision.
MAX_SAMPLES = 1024

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

# Scalars of the table, in `st`. S_JOHN_WAITS is 1 while John waits in a new pile, to come off
# it when the pile's set holds S_JOHN_AT cards (0 when he does not wait: the set is then drawn
# while it holds more than S_JOHN_AT, one test either way).
(S_SWARM, S_PENDING, S_PILE_N, S_UNDER_HEAD, S_UNDER_N, S_SWARM_N, S_DISCARD_N, S_JOHN_CARD, S_JOHN_SEAT,
 S_TRACE_N, S_PLAYERS, S_CARDS, S_DESIGNS, S_RANKED, S_JOHN_AT, S_JOHN_WAITS, S_SHIFT, S_N) = range(18)

# Capacities of the table record (the deck and rule bounds in sim/games/knutten.py respect them).
MAX_PLAYERS = 8
MAX_HAND = 8
MAX_CARDS = 512
MAX_DESIGNS = 64

# Bite causes (trace and counters).
B_SWARM, B_WIND, B_CANNOT, B_JOHN = 0, 1, 2, 3

# Luck of the draw (the game contract's luck columns, written when the arm measures luck: R_LUCK):
# per seat and kind of card, the cards of the kind it drew at random minus the kind's share of the
# pile at each such draw. Each draw's term has expectation 0 given everything before it, so every
# seat's sums do too, whatever the players do.
LUCK_NEGATIVE, LUCK_COPY, LUCK_JOHN = 0, 1, 2  # a card whose first value is negative, `?`, John
N_LUCK = 3
NO_LUCK = N_LUCK  # any other card: counted in a slot of its own that is never read (no branch)

# Per-game record, kept in the table's `rec` while a game is played and copied into `out[k]`.
(O_WINNER_MASK, O_TURNS, O_ROUNDS, O_SWARM_BITES, O_WIND, O_CANNOT, O_RESHUFFLES, O_JOHN_IN_DECK,
 O_JOHN_DRAWN_BY, O_JOHN_DRAWS, O_JOHN_PLAYED_BY, O_JOHN_PLAYED_TURN, O_JOHN_TARGET, O_JOHN_BITES,
 O_JOHN_PLAYS, O_JOHN_DISCARDS, O_JOHN_DISCARDED_TURN, O_N) = range(18)

# The driver's output record, one per game: field names are the dataset's column names. The
# common fields first (score: bites per seat, seats beyond the players 0), then Knutten's own.
OUT_DTYPE = np.dtype([
    ("winner_mask", np.int32), ("turns", np.int32), ("rounds", np.int32),
    ("score", np.int32, (MAX_PLAYERS,)),
    ("swarm_bites", np.int16), ("wind_calls", np.int16), ("cannot_play", np.int16),
    ("reshuffles", np.int16), ("john_in_deck", np.bool_), ("john_drawn_by", np.int8),
    ("john_draws", np.int16), ("john_played_by", np.int8), ("john_played_turn", np.int32),
    ("john_target", np.int8), ("john_bites", np.int16), ("john_plays", np.int16),
    ("john_discards", np.int16), ("john_discarded_turn", np.int32),
    ("luck_negative", np.float32, (MAX_PLAYERS,)), ("luck_copy", np.float32, (MAX_PLAYERS,)),
    ("luck_john", np.float32, (MAX_PLAYERS,)),
], align=True)

# Trace events: rows of TRACE_WIDTH int32 (code, then up to 5 arguments), at most TRACE_CAP a game.
TRACE_WIDTH = 6
TRACE_CAP = 16384
(E_ROUND, E_DEAL, E_DRAW, E_PLAY, E_COPY, E_BITE, E_WIND, E_CANNOT, E_UNDER, E_JOHN_PLAY,
 E_JOHN_DISCARD, E_RESHUFFLE, E_SKIP, E_START, E_END) = range(15)
# E_SKIP's second argument: why the seat is skipped.
SKIP_EMPTY_HAND, SKIP_STUCK = 0, 1

# The most turns a game may take (turns as counted in the record); a game that has not ended by
# then stops the batch with status TOO_LONG. Only a strange deck (say, every value 0) gets there.
MAX_TURNS = 1_000_000

# the driver's `data` ends with the searching seats or None (sim/contract.py, search_policy)
DATA_SEARCHING = True
