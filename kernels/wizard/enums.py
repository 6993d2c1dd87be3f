"""Wizard constants: card encoding, rule indices, policy ids, trace events, the output record.
Integers (and one numpy record dtype), so the kernels stay nopython and cacheable. Status codes are
the shared ones of kernels/status.py.

Cards are 0..59, and a set of cards (a hand, the cards played) is a uint64 bitmask with bit c for
card c:
    0..51   suited cards: suit = c // 13, rank = c % 13 (rank 0 is the 2, rank 12 the ace)
    52..55  the four Wizards ("Tovenaars", the coloured jokers: always highest)
    56..59  the four Jesters ("Narren", the colourless jokers: always lowest)
"""

import numpy as np

N_CARDS = 60
N_SUITS = 4
N_RANKS = 13
FIRST_WIZARD = 52
FIRST_JESTER = 56
MIN_PLAYERS = 3
MAX_PLAYERS = 6
MAX_ROUNDS = 20  # 60 / 3

# Suits 0..3 are hearts, diamonds, clubs, spades (names live in sim/games/wizard.py)

# Trump state of a round
NO_TRUMP = 4  # suits are 0..3

# Lead state of a trick (which suit must be followed)
LEAD_NONE = -1  # no card yet, or only Jesters so far: anything may be played
LEAD_FREE = 4  # a Wizard set the trick (led, or first non-Jester after Jester leads): anything goes

# Trick values used to find a trick's winner (higher wins, the earlier card wins a tie)
TV_WIZARD = 300
TV_TRUMP = 200  # + rank
TV_LED = 100  # + rank
TV_OTHER = 0
TV_JESTER = 0

# Rule parameter indices: the order of the driver's int64 `rule_i` array, named by RULE_I_ORDER
R_ROUNDS = 0  # 0 = all 60/n rounds, else play rounds 1..R
R_HOOK_RULE = 1  # 1 = the dealer may not bid so that the bids add up to the round's tricks
R_FINAL_NO_TRUMP = 2  # 1 = the last round of a shortened game is played without trump
R_STRICT_VOID = 3  # 1 = a player who cannot follow must play a Wizard or Jester if holding one
N_RULES = 4
RULE_I_ORDER = ("rounds", "hook_rule", "final_no_trump", "strict_void")  # names of rule_i[R_*]
RULE_F_ORDER = ()  # no float rule parameters
# Player parameters: seat_i in SEAT_I_ORDER (the registry's declaration order); every seat holds
# them, a seat whose policy lacks one holds its default
SI_SAMPLES = 0  # the search player's deals per decision
SEAT_I_ORDER = ("samples",)
SAMPLES_MIN = 1  # the bounds of `samples` (sim/games/wizard.py declares the same)
SAMPLES_MAX = 1024
SEAT_F_ORDER = ()  # no float player parameters (seat_f is float64[players, 0])

# Policy ids
P_RANDOM = 0
P_HEURISTIC = 1
P_SAMPLER = 2
P_BROKEN = 3  # test only, not registered: bids like heuristic, plays its lowest card ignoring suit
P_SEARCH = 4
N_POLICIES = 5

# Sampler settings (fixed: part of the policy's definition)
SAMPLER_DEALS = 16  # random deals of the unseen cards per bid decision
SAMPLER_SPREAD = 1  # candidate bids: heuristic bid -SPREAD .. +SPREAD

# What the play has shown about a seat's hand (search player): bit s (0..3) void in suit s, bit
# VOID_SPECIAL no Wizard or Jester (under strict_void, a seat that threw another suit holds neither)
VOID_SPECIAL = 4

# Trace events: rows of TRACE_WIDTH int32 (code, seat, card, value, extra)
TRACE_WIDTH = 5
EV_END = 0  # end of the trace
EV_GAME = 1  # seat=-1, card=-1, value=n players, extra=rounds
EV_ROUND = 2  # seat=dealer, value=round number (1-based), extra=cards per player
EV_DEAL = 3  # seat gets card
EV_TURN = 4  # turned card (card=-1: none); value=1 when final_no_trump skipped the turn
EV_TRUMP = 5  # value=trump suit 0..3 or NO_TRUMP; seat=dealer when the dealer chose (a Wizard turned), else -1
EV_BID = 6  # seat bids value; extra=1 when the hook rule forbade a bid for this dealer
EV_PLAY = 7  # seat plays card; value=trick number (1-based), extra=position in the trick
EV_TRICK = 8  # seat wins the trick with card; value=trick number; extra=seat's tricks so far
EV_SCORE = 9  # seat: value=points this round, extra=total; card=tricks taken
EV_WINNER = 10  # seat is a winner; value=final score
EV_BID_VALUE = 11  # before a search seat bids: card=a legal bid, value=its total over the deals in tenths
# of a point (BONUS_SCALE x score), extra=the bid bonus added to it (SEARCH_BONUS x bid x deals)

# The most actions a game can take (a test checks it): a bid per seat and round (60 in all), a
# card per seat and trick (3 seats x 210 tricks at most), a trump choice per round (20 at most)
MAX_TURNS = 60 + 3 * (MAX_ROUNDS * (MAX_ROUNDS + 1) // 2) + MAX_ROUNDS  # 710

# The per-game output record: field names are the Parquet column names. Common fields first, then
# Wizard's; list columns are fixed-size subarrays whose used part the runner keeps (players,
# rounds, or rounds*players entries, round-major); the kernel never writes the unused tails, so an
# `out` made by np.zeros keeps them 0.
OUT_DTYPE = np.dtype([
    ("winner_mask", np.int32),  # bit s: seat s is a winner (ties share the win)
    ("turns", np.int32),  # actions: trump choices + bids + cards played
    ("rounds", np.int32),
    ("score", np.int32, (MAX_PLAYERS,)),  # final points per seat
    ("round_bids", np.int8, (N_CARDS,)),  # bid of seat s in round rd at rd*players + s
    ("round_tricks", np.int8, (N_CARDS,)),  # tricks taken, same layout
    ("round_turned", np.int8, (MAX_ROUNDS,)),  # card turned for trump per round, -1 none
    ("round_trump", np.int8, (MAX_ROUNDS,)),  # trump suit per round 0..3, NO_TRUMP (4) none
    ("exact_bids", np.int8, (MAX_PLAYERS,)),  # rounds in which the seat's bid was met exactly
    ("tricks", np.int16, (MAX_PLAYERS,)),  # tricks taken in the whole game
    ("points_lost", np.int32, (MAX_PLAYERS,)),  # points lost to missed bids (positive)
    ("bid_total", np.int16, (MAX_PLAYERS,)),  # sum of the seat's bids
], align=True)

# the driver's `data` ends with the searching seats or None (sim/contract.py, search_policy)
DATA_SEARCHING = True
