"""Wizard integer constants: card encoding, rule indices, policy ids, trace events, status codes,
output column indices. Integers only, so the kernels stay nopython and cacheable.

Cards are 0..59, and a set of cards (a hand, the cards played) is a uint64 bitmask with bit c for
card c:
    0..51   suited cards: suit = c // 13, rank = c % 13 (rank 0 is the 2, rank 12 the ace)
    52..55  the four Wizards ("Tovenaars", the coloured jokers: always highest)
    56..59  the four Jesters ("Narren", the colourless jokers: always lowest)
"""

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

# Rule parameter indices (order of the int64 `rules` array; same order as sim.games.wizard.RULE_ORDER)
R_ROUNDS = 0  # 0 = all 60/n rounds, else play rounds 1..R
R_HOOK_RULE = 1  # 1 = the dealer may not bid so that the bids add up to the round's tricks
R_FINAL_NO_TRUMP = 2  # 1 = the last round of a shortened game is played without trump
R_STRICT_VOID = 3  # 1 = a player who cannot follow must play a Wizard or Jester if holding one
N_RULES = 4

# Policy ids
P_RANDOM = 0
P_HEURISTIC = 1
P_SAMPLER = 2
P_BROKEN = 3  # test only, not registered: bids like heuristic, plays its lowest card ignoring suit
N_POLICIES = 4

# Sampler settings (fixed: part of the policy's definition)
SAMPLER_DEALS = 16  # random deals of the unseen cards per bid decision
SAMPLER_SPREAD = 1  # candidate bids: heuristic bid -SPREAD .. +SPREAD

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

# Status codes returned by play_games_nb
OK = 0
ERR_CARDS_LOST = 1  # a card is not exactly once in hand/trick/played/undealt
ERR_ILLEGAL_CARD = 2
ERR_ILLEGAL_BID = 3
ERR_TRICK_SUM = 4  # a round's tricks do not add up to its size
ERR_TRACE_FULL = 5
ERR_BAD_ARGS = 6  # player count, rounds, policy id or output shapes out of range
ERR_ILLEGAL_TRUMP = 7

# Per-game output columns (out_game[count, N_OUT_GAME], int32)
O_WINNER_MASK = 0
O_TURNS = 1  # actions: trump choices + bids + cards played
O_ROUNDS = 2
N_OUT_GAME = 3

# Per-seat output columns (out_seat[count, n, N_OUT_SEAT], int32)
S_SCORE = 0  # final points
S_EXACT = 1  # rounds in which the bid was met exactly
S_TRICKS = 2  # tricks taken in the whole game
S_LOST = 3  # points lost (sum of the -10 per trick off, as a positive number)
S_BID_SUM = 4  # sum of the seat's bids
N_OUT_SEAT = 5
