"""Toy game constants: rule and player parameter order, policies, output record, trace events."""
import numpy as np

MAX_PLAYERS = 6
MAX_TRICKS = 10
MAX_TURNS = MAX_PLAYERS * MAX_TRICKS

RULE_I_ORDER = ("tricks", "lowest_wins", "ties")
R_TRICKS, R_LOWEST_WINS, R_TIES = range(3)
RULE_F_ORDER = ("double_chance",)
RF_DOUBLE = 0
TIES_SHARE, TIES_NOBODY = 0, 1

SEAT_I_ORDER = ("order",)
SI_ORDER = 0
ORDER_BEST_FIRST, ORDER_WORST_FIRST = 0, 1
SEAT_F_ORDER = ("bluff",)
SF_BLUFF = 0

P_RANDOM, P_GREEDY = 0, 1

OUT_DTYPE = np.dtype([
    ("winner_mask", np.int32), ("turns", np.int32), ("rounds", np.int32),
    ("score", np.int32, (MAX_PLAYERS,)),
    ("tied_tricks", np.int16), ("doubled_tricks", np.int16),
    ("best_card", np.int8, (MAX_PLAYERS,)),
])

TRACE_WIDTH = 4
EV_DEAL, EV_PLAY, EV_TRICK, EV_END = range(4)
