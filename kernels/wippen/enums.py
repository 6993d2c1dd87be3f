"""Wippen constants: card encoding, rule and player parameter indices, policy ids, move kinds, trace
events and the output record. Integers and one numpy record dtype, so the kernels stay nopython and
cacheable. Status codes are the shared ones of kernels/status.py.

Cards are 0..103: copy = c // 52 (the second deck is 52..103), suit = (c % 52) // 13 (0 clubs,
1 diamonds, 2 hearts, 3 spades), rank = c % 13 (0 ace, 1..9 the 2..10, 10 jack, 11 queen, 12 king).
A set of cards is two uint64 words (cards 0..63, 64..103).

The pot is a list of items: a loose card or a build (several cards with one value). A move takes a
set of pot items, named by a uint64 mask over the item positions (bit i = item i).
"""
import numpy as np

N_CARDS = 104  # two decks at most
DECK_CARDS = 52
N_RANKS = 13
CLUBS, DIAMONDS, HEARTS, SPADES = 0, 1, 2, 3
ACE = 0
JACK, QUEEN, KING = 10, 11, 12
TEN = 9
MIN_PLAYERS = 2
MAX_PLAYERS = 6
HAND = 4  # cards dealt to each player per hand ("tot iedere speler vier handkaarten ontvangt")
POT_START = 4  # open cards on the pot once per deal

# Value of a card: ace 1, 2..10 their face value; jack 11, queen 12, king 13 are only ever taken by
# the same rank ("Prentkaarten ... kunnen enkel op dezelfde waarde worden genomen").
MAX_NUMBER = 10

# Pot items: item_i[k, field]
IT_VALUE = 0  # a loose card's value (1..13) or a build's value (1..10)
IT_KIND = 1  # ITEM_LOOSE, ITEM_BUILD, ITEM_DOUBLE
IT_OWNER = 2  # a build's owner (its maker or last raiser); -1 for a loose card
IT_CARD = 3  # a loose card's card; -1 for a build
IT_FIELDS = 4
ITEM_LOOSE, ITEM_BUILD, ITEM_DOUBLE = 0, 1, 2
MAX_ITEMS = 64  # a move names pot items by a uint64 mask

# Move kinds; a move is (hand slot, kind, take mask over pot items, value)
MV_CAPTURE = 0  # the card takes the items of the mask (value: the card's value)
MV_BUILD = 1  # card + the items (loose cards) become one build of `value`
MV_DOUBLE = 2  # card + the items (loose cards and builds, two or more groups) become a double build
MV_RAISE = 3  # card is added to the one build of the mask; its value becomes `value`
MV_TRAIL = 4  # card is laid open on the pot (mask 0)
N_KINDS = 5
MAX_MOVES = 8192  # legal moves of one turn (a test checks the generator says so when full)
MAX_GROUPS = 4096  # groups of one value within one pot

# Rule parameters: rule_i in RULE_I_ORDER
R_DECKS = 0  # 0 = by players (one deck for 2-3, two from 4), else 1 or 2
R_TARGET = 1  # points to play to
R_DEALS = 2  # 0 = play to the target, N = play exactly N deals
R_BUILD_INSTEAD = 3  # 1 = a build or raise may be chosen while a capture is possible
R_RAISE_DOUBLE = 4  # 1 = a double build may be raised too
R_PTS_CARDS = 5
R_PTS_SPADES = 6
R_PTS_DIAMOND_TEN = 7
R_PTS_SPADE_TWO = 8
R_PTS_ACE = 9
R_PTS_WIP = 10
N_RULES = 11
RULE_I_ORDER = ("decks", "target", "deals", "build_instead_of_capture", "raise_double",
                "points_most_cards", "points_most_spades", "points_diamond_ten",
                "points_spade_two", "points_ace", "points_wip")
RULE_F_ORDER = ()
SEAT_I_ORDER = ("samples",)
SEAT_F_ORDER = ("risk", "max_risk")
SI_SAMPLES = 0  # search: determinizations (deals of the unseen cards) per decision
SF_RISK = 0  # defensive: weight of what the next player could take
SF_MAX_RISK = 1  # builder: largest chance that the next player holds a build's value

# Policy ids
P_RANDOM = 0
P_GREEDY = 1
P_DEFENSIVE = 2
P_BUILDER = 3
P_SEARCH = 4
N_POLICIES = 5

# Point sources (per seat and game), the order of SRC_* columns
SRC_CARDS, SRC_SPADES, SRC_DIAMOND_TEN, SRC_SPADE_TWO, SRC_ACES, SRC_WIPS = range(6)
N_SOURCES = 6

# A game's length: the kernel refuses (BAD_ARGS) and the runner's check_arm refuses arms that could
# play more deals; a deal plays at most 100 cards (two decks less the pot)
MAX_DEALS = 250
MAX_TURNS = MAX_DEALS * (2 * DECK_CARDS - POT_START)  # 25000

# Trace events: rows of TRACE_WIDTH int32 (code, seat, a, b, c, d, e, f)
TRACE_WIDTH = 8
EV_END = 0
EV_GAME = 1  # a=players, b=decks, c=cards removed, d=cards in play
EV_REMOVED = 2  # a=card removed before the deal
EV_DEAL = 3  # seat=dealer, a=deal number (1-based)
EV_HAND = 4  # a=hand number in the deal (1-based), b=cards left in the stock after it
EV_CARD = 5  # seat is dealt card a
EV_POT = 6  # card a is laid open on the pot
EV_PLAY = 7  # seat plays card a: b=kind, c=value, d=mask low 32 bits, e=mask high 32 bits, f=legal moves
EV_WIP = 8  # seat scores a wip (the pot is empty, b cards left to deal)
EV_REST = 9  # seat (the last capturer) takes the a cards left on the pot; seat -1: nobody captured
EV_SCORE = 10  # seat: a=cards, b=spades, c=points this deal, d=total
EV_SOURCES = 11  # seat's points this deal by source: a cards, b spades, c diamond 10, d spade 2, e aces, f wips
EV_WINNER = 12  # seat wins with a points

# The per-game output record: field names are the Parquet column names
OUT_DTYPE = np.dtype([
    ("winner_mask", np.int32),
    ("turns", np.int32),  # cards played
    ("rounds", np.int32),  # deals played
    ("score", np.int32, (MAX_PLAYERS,)),
    ("decks", np.int8),
    ("removed", np.int8),
    ("points_cards", np.int32, (MAX_PLAYERS,)),
    ("points_spades", np.int32, (MAX_PLAYERS,)),
    ("points_diamond_ten", np.int32, (MAX_PLAYERS,)),
    ("points_spade_two", np.int32, (MAX_PLAYERS,)),
    ("points_aces", np.int32, (MAX_PLAYERS,)),
    ("points_wips", np.int32, (MAX_PLAYERS,)),
    ("cards_taken", np.int16, (MAX_PLAYERS,)),
    ("captures", np.int16, (MAX_PLAYERS,)),
    ("builds", np.int16, (MAX_PLAYERS,)),
    ("raises", np.int16, (MAX_PLAYERS,)),
    ("double_builds", np.int16, (MAX_PLAYERS,)),
    ("takeovers", np.int16, (MAX_PLAYERS,)),
    ("wips", np.int16, (MAX_PLAYERS,)),
    ("position_points", np.int32, (MAX_PLAYERS,)),  # points scored from play position p (n-1 = dealer)
], align=True)

# the driver's `data` ends with the searching seats or None (sim/contract.py, search_policy)
DATA_SEARCHING = True
