"""Wie Weet Wat constants: card kinds, rule and player parameter indices, policy ids, action kinds,
trace events and the output record. Integers and one numpy record dtype, so the kernels stay
nopython and cacheable. Status codes are the shared ones of kernels/status.py.

A letter card is its kind: 0..25 the letters a..z, 26 (WWW) the Wie Weet Wat card. A hand is a row
of HAND_WIDTH: N_KINDS counts, then (column HAND_MASK) the set of kinds it holds, bit k while count
k > 0, so that the recall model visits only the letters held. A category card is an index into the category deck: cards 0..n_cards-1 carry
four categories each (category 4*card + slot of the categories data input), the cards after them
are action cards whose kind (A_*) the driver reads from a table.
"""
import numpy as np

N_LETTERS = 26
WWW = 26  # the Wie Weet Wat card's kind
N_KINDS = 27
HAND_MASK = N_KINDS  # the hand row's column of the kinds held (a bit set)
HAND_WIDTH = N_KINDS + 1
LETTER_BITS = (1 << N_LETTERS) - 1  # the letters of a hand's kind set (not the Wie Weet Wat card)
LETTER_NAMES = "abcdefghijklmnopqrstuvwxyz"
KIND_NAMES = tuple(LETTER_NAMES) + ("www",)
CATEGORIES_PER_CARD = 4
MIN_PLAYERS = 3
MAX_PLAYERS = 6
NONE = -1

# Action kinds, in the order of the action_* rules and of the per-action list columns
A_GROTE_KANS = 0
A_VICIEUZE_CIRKEL = 1
A_ROTONDE = 2
A_VERKIEZINGSPARTIJ = 3
A_VERLOREN_GELUK = 4
A_TE_VEEL_KEUZE = 5
A_PECHVOGEL = 6
N_ACTIONS = 7
ACTION_ORDER = ("grote_kans", "vicieuze_cirkel", "rotonde", "verkiezingspartij", "verloren_geluk",
                "te_veel_keuze", "pechvogel")
ACTION_TITLES = ("Grote Kans", "Vicieuze cirkel", "Rotonde", "Verkiezingspartij", "Verloren geluk",
                 "Te veel keuze", "Pechvogel")

# the driver's `data` ends with the searching seats or None (sim/contract.py, search_policy)
DATA_SEARCHING = True

# Rule parameters: rule_i in RULE_I_ORDER, rule_f in RULE_F_ORDER
RULE_I_ORDER = ("hand_size", "rounds_to_win", "wie_weet_wat_cards", "grote_kans_cards",
                "reader_after_wrong", "counter_attacks") \
    + tuple(f"action_{a}" for a in ACTION_ORDER) \
    + ("counter_last_card", "rotonde_empty_hand", "grote_kans_same_letter", "action_cards",
       "recall_model")
R_HAND_SIZE = 0
R_ROUNDS_TO_WIN = 1
R_WWW_CARDS = 2
R_GROTE_KANS_CARDS = 3
R_READER_AFTER_WRONG = 4  # READ_* below
R_COUNTER_ATTACKS = 5  # 1 = the Wie Weet Wat card may be used as a counter-attack
R_ACTION_FIRST = 6  # rule_i[R_ACTION_FIRST + a] = action cards of kind a
R_COUNTER_LAST_CARD = 13  # 1 = a counter-attack may hit a winner whose hand its win emptied
R_ROTONDE_EMPTY = 14  # ROTONDE_*: an empty hand (a remise's last card on the table) in a Rotonde
R_GROTE_SAME_LETTER = 15  # 1 = Grote Kans's extra cards may repeat a letter (a new answer each)
R_ACTION_CARDS = 16  # ACTION_CARDS_*: read by the runner only (it scales the action_* counts)
R_RECALL_MODEL = 17  # RECALL_*: the recall model (docs/models/recall.md)
N_RULES_I = 18
READ_WRONG_ANSWERER, READ_WINNER = 0, 1
ROTONDE_PASSED, ROTONDE_SKIPPED = 0, 1
ACTION_CARDS_FIXED, ACTION_CARDS_SCALED = 0, 1
RECALL_UNIFORM, RECALL_PROFILES = 0, 1

RULE_F_ORDER = ("time_limit", "tie_window", "follow_time", "counter_window", "grote_kans_seconds",
                "circle_pool", "knowledge_sigma", "letter_sigma", "reaction_time", "reaction_sigma")
RF_TIME_LIMIT = 0  # seconds: no answer by then = a pass
RF_TIE_WINDOW = 1  # seconds: correct answers this close to the fastest one are a remise
RF_FOLLOW_TIME = 2  # seconds after the first answer in which more cards of that letter may follow
RF_COUNTER_WINDOW = 3  # seconds after an answer in which a counter-attack may come
RF_GROTE_KANS_SECONDS = 4  # Grote Kans: seconds for the extra cards
RF_CIRCLE_POOL = 5  # Vicieuze cirkel: answers the table knows per unit of breadth
# the profiles recall model (read only with recall_model = profiles): sigma of log(knowledge) per
# seat and category kind, sigma of log(letter factor) per seat and letter, the median reaction time
# (seconds) and the sigma of its logarithm over the seats
RF_KNOWLEDGE_SIGMA = 6
RF_LETTER_SIGMA = 7
RF_REACTION_TIME = 8
RF_REACTION_SIGMA = 9
N_RULES_F = 10

# Category kinds of the profiles recall model: each has its own initial-letter mix
# (sim/games/wieweetwat_kind_letters.py; `algemeen` is the general table) and each player its own
# knowledge of it
CATEGORY_KINDS = ("algemeen", "dier", "plaats", "naam", "eten")
N_CATEGORY_KINDS = 5
# the profile of seat s in game g comes from seat_stream_nb(seed, g, PROFILE_STREAM + s): drawn
# before play, the same in every arm, and no draw of play moves
PROFILE_STREAM = 1 << 20

# Player parameters: seat_i in SEAT_I_ORDER (choices as their option's index), seat_f in SEAT_F_ORDER
SEAT_I_ORDER = ("joker_use", "counter", "shed", "target", "samples")
SI_JOKER_USE = 0
SI_COUNTER = 1
SI_SHED = 2
SI_TARGET = 3
SI_SAMPLES = 4  # search: determinizations per decision (read by search seats only)
MAX_SAMPLES = 1024
JOKER_WHEN_STUCK, JOKER_KEEP_FOR_COUNTER = 0, 1
COUNTER_ALWAYS, COUNTER_NEVER, COUNTER_LEADER_ONLY = 0, 1, 2
SHED_EARLIEST, SHED_HARDEST = 0, 1
TARGET_FEWEST_CARDS, TARGET_MOST_CARDS, TARGET_RANDOM = 0, 1, 2
SEAT_F_ORDER = ("vocabulary", "speed", "error_rate", "joker_patience")
SF_VOCABULARY = 0
SF_SPEED = 1
SF_ERROR_RATE = 2
SF_JOKER_PATIENCE = 3

# Policy ids: the reader's choice among the four categories of a card
P_RANDOM = 0  # a random category
P_SPOILER = 1  # the narrowest: the hardest for the player with the fewest cards
P_WIDEST = 2  # the widest
P_SEARCH = 3  # determinized Monte Carlo over the categories (search_nb.py)
P_TARGETING = 4  # profiles: the category the leader is least likely to win (else as P_SPOILER)
N_POLICIES = 5
# The search's play-outs give every seat this policy, and the search seat reads by it where it does
# not search (the strongest fixed reader: spoiler against three random wins 0.265 of the games,
# widest 0.242; docs/rules/wieweetwat.md)
PLAYOUT_POLICY = P_TARGETING

# Counters per seat (seat_stats columns)
SS_WRONG = 0
SS_CATEGORIES_WON = 1
SS_CARDS_SHED = 2
SS_JOKERS = 3
SS_COUNTER_ATTACKS = 4
SS_COUNTER_ATTACKED = 5
SS_WWW_ROUNDS = 6
SS_WWW_ROUNDS_WON = 7
SS_PENALTY_CARDS = 8
N_SEAT_STATS = 9

# Counters per game (game_stats entries)
GS_CATEGORIES = 0
GS_REMISES = 1
GS_PASSES = 2
GS_FIRST_READER_WINS = 3
GS_ACTIONS = 4
GS_GROTE_LEADER = 5  # this turn's leader when its first Grote Kans was carried out, or -1 (not a counter)
GS_RACE_MS = 6  # milliseconds the table raced for answers (the column race_seconds)
N_GAME_STATS = 7

# Counters per action kind (action_stats columns)
AS_DRAWN = 0
AS_SELF_CHANGE = 1
AS_LEADER_CHANGE = 2
N_ACTION_STATS = 3

# Pile sizes and shuffle counters (pile_n entries)
PN_LETTER_PILE = 0
PN_LETTER_DISCARDS = 1
PN_CAT_PILE = 2
PN_CAT_DISCARDS = 3
PN_CAT_IN_USE = 4
PN_LETTER_SHUFFLES = 5  # reshuffles of the letter discards this round
PN_CAT_SHUFFLES = 6  # shuffles of the category deck this game (0 = the first)
# A pile is shuffled as it is drawn (piles_nb.py): its shuffle stream's state (uint64 bits) and
# whether the cards under its top still wait for their shuffle steps (1) or lie in place (0)
PN_LETTER_STREAM = 7
PN_LETTER_LAZY = 8
PN_CAT_STREAM = 9
PN_CAT_LAZY = 10
N_PILE_N = 11
RESHUFFLE_STRIDE = 65536  # deal stream of reshuffle j of round r: r + j * RESHUFFLE_STRIDE

NO_TIME = 1e300  # no answer
HAND_LETTER = -2  # an answer with a letter of the hand, which one not drawn yet (recall_nb)

# A game's length: categories read and actions executed. Far above any real game; a game that
# takes more is a bug (or parameters so extreme that nobody ever answers: check_arm's bounds
# keep them out)
MAX_TURNS = 1_000_000
MAX_QUEUE = 256  # action cards drawn in a row (at most the action cards in the deck)

# Trace events: rows of TRACE_WIDTH int32 (code, seat, a, b, c, d, e, f); times in milliseconds
TRACE_WIDTH = 8
EV_END = 0
EV_GAME = 1  # a=players, b=letter cards, c=category cards, d=action cards
EV_ROUND = 2  # seat=first reader, a=round (1-based)
EV_CARD = 3  # seat holds a card of kind a (b=0 dealt, b=1 left at the round's end)
EV_RESHUFFLE = 4  # a=0 letter discards, a=1 category discards; b=cards shuffled into the pile
EV_DRAW_ACTION = 5  # seat (the reader) draws action card a (kind)
EV_ACTION = 6  # seat carries out action a: b=target (-1), c/d=own hand before/after, e=leader,
#               f=the leader's change
EV_MOVE = 7  # card of kind c moves from seat a to seat b (an action)
EV_CIRCLE = 8  # seat answers in the Vicieuze cirkel: a=answer number, b=1 ok / 0 fails, c=ms
EV_READ = 9  # seat reads category c (card a, slot b); d=breadth*100; e=1 remise; f=1 Grote Kans
EV_ANSWER = 10  # seat's answer: card a, letter b, at c ms; d=1 correct; e=1 said (not after the
#                fastest correct answer's tie window); an answer not said has a = HAND_LETTER or
#                b = -1 when its letter was left open (recall_nb.say_letter_nb)
EV_PASS = 11  # seat has no answer within the time limit
EV_WRONG = 12  # seat's answer was wrong: card a back on hand (the penalty card follows)
EV_REMISE = 13  # a=mask of the tied seats
EV_WIN = 14  # seat wins the category with card a (letter b) at c ms
EV_FOLLOW = 15  # seat discards one more card of kind a (follow-up answer) at c ms after the first
EV_EXTRA = 16  # Grote Kans: seat discards extra card a at c ms
EV_COUNTER = 17  # seat counter-attacks seat a with letter b at c ms: d=1 correct (a penalty
#                  follows); e = seat a's letter cards in hand when attacked (0: its win had
#                  emptied its hand)
EV_PENALTY = 18  # seat draws penalty card a (-1: the piles are empty)
EV_NOBODY = 19  # nobody answered correctly; a=next reader
EV_ROUND_END = 20  # seat wins round a; b=rounds won
EV_WINNER = 21  # seat wins the game
EV_TARGETING = 22  # why a `targeting` reader (seat) chose (profiles model): a=the leader; b..e=the
#                   card's four categories' scores x 10,000 (the leader's chance to answer first;
#                   in the reader's own Vicieuze cirkel, f=1: the leader's knowledge of the kind
#                   over the reader's); the lowest score is read
EV_KNOWN = 23  # before a `targeting` read: the reader (seat) knows b of seat a's c cards (known_nb.py):
#               the letters in bit set d, those in e twice, those in f three times or more
EV_SEARCH = 24  # what a `search` reader (seat) weighed before reading: a=PLAYOUT_POLICY's slot; b..e=
#                each slot's mean gain over it in the seat's chance to win the game, x 10,000
#                (PLAYS_ALIKE: plays as another slot, not played out); f=samples
PLAYS_ALIKE = -(1 << 30)

# The per-game output record: field names are the Parquet column names
OUT_DTYPE = np.dtype([
    ("winner_mask", np.int32),
    ("turns", np.int32),  # categories read + action cards executed
    ("rounds", np.int32),
    ("score", np.int32, (MAX_PLAYERS,)),  # rounds won
    ("categories", np.int32),
    ("race_seconds", np.float32),
    ("remises", np.int32),
    ("passes", np.int32),
    ("first_reader_rounds_won", np.int32),
    ("wrong_answers", np.int32, (MAX_PLAYERS,)),
    ("categories_won", np.int32, (MAX_PLAYERS,)),
    ("cards_shed", np.int32, (MAX_PLAYERS,)),
    ("penalty_cards", np.int32, (MAX_PLAYERS,)),
    ("jokers", np.int32, (MAX_PLAYERS,)),
    ("counter_attacks", np.int32, (MAX_PLAYERS,)),
    ("counter_attacked", np.int32, (MAX_PLAYERS,)),
    ("www_rounds", np.int32, (MAX_PLAYERS,)),
    ("www_rounds_won", np.int32, (MAX_PLAYERS,)),
    ("actions_drawn", np.int32, (N_ACTIONS,)),
    ("action_self_change", np.int32, (N_ACTIONS,)),
    ("action_leader_change", np.int32, (N_ACTIONS,)),
    ("letters_left", np.int32, (N_KINDS,)),
    ("letters_shed", np.int32, (N_KINDS,)),
], align=True)
