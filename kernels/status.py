"""Status codes every kernel driver returns (0 = fine); sim.contract turns them into messages.

A non-zero status is a bug found while playing (checked mode finds most of them): the batch fails
loudly and nothing of it is scored.
"""

OK = 0
ILLEGAL_MOVE = 1   # a policy chose an action the rules do not allow (a card, bid, trump, target)
CARDS_LOST = 2     # a card is not in exactly one place
TOO_LONG = 3       # the game did not end within the game's declared turn limit
BAD_ARGS = 4       # player count, policy id, parameter or array shape out of range
TRACE_FULL = 5     # the trace buffer overflowed
INVARIANT = 6      # another invariant of the game's state broke (e.g. a round's tricks)

MESSAGES = {
    ILLEGAL_MOVE: "a policy chose an illegal move",
    CARDS_LOST: "a card was lost or duplicated",
    TOO_LONG: "the game did not end within its turn limit",
    BAD_ARGS: "bad kernel arguments (players, policies, parameters or array shapes)",
    TRACE_FULL: "the trace buffer overflowed",
    INVARIANT: "a game invariant broke",
}
