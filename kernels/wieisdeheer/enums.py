"""Wie is de Heer? constants: card encoding, rule and player parameter indices, policy ids, public
acts, trace events and the output record. Integers and one numpy record dtype, so the kernels stay
nopython and cacheable. Status codes are the shared ones of kernels/status.py.

Cards in play are 0..43 suited and 44..47 jokers: suit = c // 11 (0 clubs, 1 diamonds, 2 hearts,
3 spades), rank = c % 11 (0 ace, 1..9 the 2..10, 10 jack). Jokers have suit NO_SUIT and rank
JOKER. Queens and kings are not in play: they are the mole cards (n-1 queens and one king, dealt
face down; only the king's seat matters, so the kernel draws that seat).
"""
import numpy as np

N_SUITS = 4
N_RANKS = 11  # A, 2..10, J per suit (queens and kings are the mole cards)
SUITED = N_SUITS * N_RANKS  # 44
MAX_JOKERS = 4
N_CARDS = SUITED + MAX_JOKERS  # 48 card ids at most
NO_SUIT = 4  # a joker's suit; also "any suit" when a joker lies on top
ACE, TWO, SEVEN, EIGHT, JACK = 0, 1, 6, 7, 10
JOKER = 11  # a joker's rank
MIN_PLAYERS = 3
MAX_PLAYERS = 6
HAND = 7  # "iedereen begint met 7 kaarten"
DRAW_TWO = 2  # "De volgende moet 2 kaarten pakken"
DRAW_JOKER = 5  # "De volgende speler moet 5 kaarten pakken"

# Rule parameters: rule_i in RULE_I_ORDER, rule_f in RULE_F_ORDER
R_JOKERS = 0  # jokers in the deck (0..4)
R_PLAY_DRAWN = 1  # 1 = a drawn card that fits may be played at once
R_QUESTIONS = 2  # questions per ace
R_ANSWERS_PUBLIC = 3  # 1 = every seat reads the answers, 0 = only the asker
R_MOLE_POT = 4  # 0 = off; N = the mole also wins when the pot ends below N
R_LAST_NAMES = 5  # 1 = the last player writes a suspect too
R_JOKER_UP = 6  # 1 = going out on a joker moves the player one place earlier
R_MUST_STACK = 7  # 1 = a player holding a 2 or joker must stack it on a pending draw
N_RULES_I = 8
RULE_I_ORDER = ("jokers", "play_drawn", "questions_per_ace", "answers_public",
                "mole_pot_threshold", "last_player_names", "joker_moves_up", "must_stack")
RF_ACCURACY = 0  # the chance that one answer reads true
N_RULES_F = 1
RULE_F_ORDER = ("answer_accuracy",)

# Player parameters: seat_i in SEAT_I_ORDER, seat_f in SEAT_F_ORDER (the registry's declaration order)
SF_SABOTAGE = 0  # the mole's sabotage rate
SF_BLUFF = 1  # the mole's skill at lying in answers (1 = answers read like a loyal player's)
SF_SUSPECT = 2  # the sabotage rate this seat assumes the mole uses when it reads an act
SEAT_F_ORDER = ("sabotage", "bluff", "suspect_sabotage")
SI_MOLE_STYLE = 0  # STYLE_*
SI_RICH = 1  # pile points from which a reasoner banks and avoids voiding
SI_SAMPLES = 2  # the search player's determinizations per decision
SEAT_I_ORDER = ("mole_style", "rich", "samples")
STYLE_NAIVE, STYLE_SMART = 0, 1

# Policy ids
P_RANDOM = 0
P_REASONER = 1
P_RACER = 2
P_SEARCH = 3  # plays as the reasoner but searches its card choices (search_nb)
N_POLICIES = 4
MAX_SAMPLES = 1024

# The game's scalars between turns, in one int64 array `gs` (play_nb.play_turns_nb loads them into
# locals and stores them back; the search copies them into its play-outs)
G_SEAT = 0  # the seat to act
G_TURNS = 1
G_PLAYS = 2
G_OUT = 3  # players gone out
G_ACTIVE = 4  # players still in
G_SINCE_OUT = 5  # turns since somebody went out
G_DRY = 6  # dry reshuffles and failed draws in a row
G_SABOTAGES = 7
G_QUESTIONS = 8
G_STALLED = 9
G_MOLE = 10
G_FIRST_CARD = 11  # 1 at a turn's first card, 0 at a card laid on a 7 (a search resumes there)
G_PAUSED = 12  # 1 + the reasoner's slot when play paused at a search decision (tests)
N_GS = 13

# Per-seat records, rows of one int64 array `per` [N_PER, MAX_PLAYERS]
PS_OUT = 0  # 1 once the seat's order place is fixed
PS_ORDER = 1  # the finishing order: seats by place
PS_SUSPECT = 2
PS_P_SUSPECT = 3
PS_P_MOLE = 4
PS_BRIER = 5
PS_JOKER_FINISH = 6
PS_ASKED = 7
PS_BANKED = 8
PS_VOIDED = 9
PS_DRAWN = 10
PS_RICH = 11  # the seat's `rich` parameter
PS_PUB_SUSPECT = 12  # the suspect the public posterior gives a seat that went out (the search's guess)
N_PER = 13

# Public acts on a pile (what observers update on), and their likelihood slots
ACT_VOID = 0  # an ace on the pile: its points are voided
ACT_BANK = 1  # a jack on the pile: its points go to the pot
ACT_OTHER = 2  # another card played from the hand (the pile stays)
ACT_DRAW = 3  # no card played: the player drew
N_ACTS = 4
LOOKS_FORCED = 0.5  # a smart mole voids only when the public chance of another fitting card is below
MIN_LIKELIHOOD = 1e-9  # likelihoods are clamped here: no act proves anything outright
# A writer states its beliefs with the evidence of the acts it read tempered: their likelihood
# ratios to the power ACT_POWER, the answers' at full weight (an answer's likelihoods are exact, the
# acts' model treats dependent acts as independent and is overconfident). Fitted to the evidence by
# benchmarks/heer_temper.py; docs/models/mole.md. The told matrix keeps, in rows MAX_PLAYERS + o,
# seat o's sum of log likelihood ratios of the acts it read, per actor.
ACT_POWER = 0.5

# A stuck game: pesten can go on for ever. When nearly every card is in a hand, the few others can
# go round between hands and one-card reshuffles: a reshuffle that brings back fewer cards than
# players still in is "dry", and so is a draw with no card left anywhere; after STUCK_ROUNDS dry
# ones in a row with nobody going out the game is stuck. And players who hoard 2s and jokers can
# pass ever larger draws to and fro: after LONG_ROUNDS rounds (LONG_ROUNDS x players still in turns)
# with nobody going out the game is stuck too. A stuck game's remaining places go by cards left
# (docs/rules/wieisdeheer.md).
STUCK_ROUNDS = 20
LONG_ROUNDS = 100
# A game's length in turns (one player's go, a 7's extra cards included): the stuck rule bounds it
# by LONG_ROUNDS x (6 + 5 + 4 + 3 + 2) = 2000 turns; more is a bug.
MAX_TURNS = 4000

# Draw reasons (trace)
DRAW_NO_FIT = 1
DRAW_PENALTY = 2

# Trace events: rows of TRACE_WIDTH int32 (code, seat, a, b, c, d, e, f)
TRACE_WIDTH = 8
EV_END = 0
EV_GAME = 1  # a=players, b=jokers, c=cards in play, d=mole seat
EV_CARD = 2  # seat is dealt card a
EV_START = 3  # card a is turned as the start card; b=pile points
EV_PLAY = 4  # seat plays card a: b=pile before, c=pile after, d=pending draw after, e=suit now (NO_SUIT any), f=cards left
EV_DRAW = 5  # seat draws a cards (b=reason DRAW_*); EV_GOT rows follow
EV_GOT = 6  # seat gets card a
EV_BANK = 7  # seat banks a points: b=pot now
EV_VOID = 8  # seat voids a points
EV_ASK = 9  # seat asks b questions to seat a: c=answers that read mole-like
EV_RESHUFFLE = 10  # a=cards reshuffled into the draw pile (the top card stays)
EV_SKIP = 11  # seat is skipped (an 8)
EV_REVERSE = 12  # a=direction now (1 = seat order, -1 = against)
EV_EVIDENCE = 13  # actor seat: a=act ACT_*, b=likelihood if loyal (x 1e6), c=if mole (x 1e6), d=pile, e=sabotage (1 = a deliberate mole act), f=bit mask of the seats that read it with these likelihoods (one row per reading model)
EV_BELIEF = 14  # observer seat: a..f = its probability (per mille) that seat 0..5 is the mole
EV_OUT = 15  # seat goes out: a=place in going out (0-based), b=suspect written, c=per mille on it, d=1 on a joker
EV_ORDER = 16  # the final order: seat is at place a; b=suspect, c=1 when right
EV_WINNER = 17  # seat wins: a=1 when the mole wins, b=pot
EV_STALL = 18  # nobody can play or draw: the order is settled by cards left
EV_SABOTAGE = 19  # the mole (seat) passes up a bank: a=card played instead, b=pile
EV_PASS = 20  # nothing fits and nothing can be drawn (draw and discard piles empty): the turn passes

# The per-game output record: field names are the Parquet column names
OUT_DTYPE = np.dtype([
    ("winner_mask", np.int32),
    ("turns", np.int32),
    ("rounds", np.int32),  # 1: one hand of pesten per game
    ("score", np.int32, (MAX_PLAYERS,)),
    ("mole", np.int8),
    ("mole_won", np.int8),
    ("pot", np.int16),
    ("points_voided", np.int16),
    ("points_left", np.int16),
    ("questions", np.int16),
    ("plays", np.int16),
    ("reshuffles", np.int16),
    ("sabotages", np.int16),
    ("stalled", np.int8),
    ("finish", np.int8, (MAX_PLAYERS,)),
    ("suspect", np.int8, (MAX_PLAYERS,)),
    ("correct", np.int8, (MAX_PLAYERS,)),
    ("p_suspect", np.int16, (MAX_PLAYERS,)),
    ("p_mole", np.int16, (MAX_PLAYERS,)),
    ("brier", np.int32, (MAX_PLAYERS,)),
    ("joker_finish", np.int8, (MAX_PLAYERS,)),
    ("questions_asked", np.int16, (MAX_PLAYERS,)),
    ("banked", np.int16, (MAX_PLAYERS,)),
    ("voided", np.int16, (MAX_PLAYERS,)),
    ("drawn", np.int16, (MAX_PLAYERS,)),
], align=True)

# the driver's `data` ends with the searching seats or None (sim/contract.py, search_policy)
DATA_SEARCHING = True
