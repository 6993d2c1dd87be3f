"""The table: every array a batch of games works on, as fields of one numpy record made once per
batch. Helpers receive views of its fields: views of a record own no memory, so handing them to a
helper costs no atomic reference count (arrays the kernel allocated itself would cost an atomic
increment and decrement per array per call, which measured at more than half of a game's time).
Numba still calls NRT_incref/NRT_decref on such views (they return at once, but each call spills
the floating-point registers): the round's helpers are compiled by kernels.jit.borrowing, with no
reference counting at all.
"""
import numpy as np

from kernels.jit import njit
from kernels.wieweetwat.enums import (
    HAND_WIDTH,
    MAX_PLAYERS,
    MAX_QUEUE,
    N_ACTION_STATS,
    N_CATEGORY_KINDS,
    N_ACTIONS,
    N_GAME_STATS,
    N_KINDS,
    N_LETTERS,
    N_PILE_N,
    N_RULES_F,
    N_RULES_I,
    N_SEAT_STATS,
    SEAT_F_ORDER,
    SEAT_I_ORDER,
)

MAX_LETTER_CARDS = 216  # the letters data input allows 200, the rule wie_weet_wat_cards 8
MAX_CATEGORIES = 400  # sim/games/wieweetwat.MAX_CATEGORIES
MAX_CAT_CARDS = MAX_CATEGORIES // 4 + 7 * 10 + 6  # category cards + the action rules' maximum

TABLE_DTYPE = np.dtype([
    ("rule_i", np.int64, N_RULES_I),
    ("rule_f", np.float64, N_RULES_F),
    ("policy", np.int64, MAX_PLAYERS),
    ("seat_i", np.int64, (MAX_PLAYERS, len(SEAT_I_ORDER))),
    ("seat_f", np.float64, (MAX_PLAYERS, len(SEAT_F_ORDER))),
    ("rates", np.float64, MAX_PLAYERS),  # vocabulary x speed per seat
    ("share", np.float64, N_LETTERS),
    ("breadth", np.float64, MAX_CATEGORIES),
    ("card_action", np.int64, MAX_CAT_CARDS),  # per category deck card: the action kind or -1
    ("deck", np.int64, MAX_LETTER_CARDS),  # the letter cards, one entry each
    ("deck_counts", np.int64, N_KINDS),
    ("hands", np.int64, (MAX_PLAYERS, HAND_WIDTH)),
    ("hand_n", np.int64, MAX_PLAYERS),
    ("pending", np.int64, MAX_PLAYERS),  # a remise player's card on the table, or -1
    ("restrict", np.int64, MAX_PLAYERS),  # a remise player's letter (or WWW), or -1
    ("lpile", np.int64, MAX_LETTER_CARDS),
    ("ldisc", np.int64, MAX_LETTER_CARDS),
    ("cpile", np.int64, MAX_CAT_CARDS),
    ("cdisc", np.int64, MAX_CAT_CARDS),
    ("cuse", np.int64, MAX_CAT_CARDS),
    ("pile_n", np.int64, N_PILE_N),
    ("rng", np.uint64, MAX_PLAYERS),  # the seats' streams
    ("trace_n", np.int64, 1),  # trace rows asked for
    ("seat_stats", np.int64, (MAX_PLAYERS, N_SEAT_STATS)),
    ("action_stats", np.int64, (N_ACTIONS, N_ACTION_STATS)),
    ("letter_stats", np.int64, (N_KINDS, 2)),
    ("game_stats", np.int64, N_GAME_STATS),
    ("score", np.int64, MAX_PLAYERS),
    ("has_www", np.int64, MAX_PLAYERS),
    ("times", np.float64, MAX_PLAYERS),
    ("kinds", np.int64, MAX_PLAYERS),
    ("letters", np.int64, MAX_PLAYERS),
    ("wrong", np.int64, MAX_PLAYERS),
    ("hand_shares", np.float64, MAX_PLAYERS),  # a seat's summed letter share (of share_masks)
    ("share_masks", np.int64, MAX_PLAYERS),  # the letter set hand_shares was summed for
    ("queue", np.int64, MAX_QUEUE),
    ("tmp", np.int64, HAND_WIDTH),  # a hand row (Rotonde), a card per seat
    ("letter_times", np.float64, N_KINDS),
    ("chosen", np.int64, N_KINDS),
    ("seen", np.int64, MAX_CAT_CARDS),
    # what each seat has seen of the others' hands (known_nb.py), and a scratch copy for the Rotonde
    ("known", np.int64, (MAX_PLAYERS, MAX_PLAYERS, HAND_WIDTH)),
    ("known_rows", np.int64, (MAX_PLAYERS, HAND_WIDTH)),
    # the profiles recall model (docs/models/recall.md): each category's kind, each kind's letter
    # shares, and per game each seat's letter shares per kind (the kind's shares times the seat's
    # letter factors, summed to 1), knowledge per kind and reaction time; crates: vocabulary x
    # speed x knowledge of the kind of the category being answered
    ("cat_kind", np.int64, MAX_CATEGORIES),
    ("kshare", np.float64, (N_CATEGORY_KINDS, N_LETTERS)),
    ("pshare", np.float64, (MAX_PLAYERS, N_CATEGORY_KINDS, N_LETTERS)),
    ("know", np.float64, (MAX_PLAYERS, N_CATEGORY_KINDS)),
    ("lfactor", np.float64, (MAX_PLAYERS, N_LETTERS)),
    ("react", np.float64, MAX_PLAYERS),
    ("crates", np.float64, MAX_PLAYERS),
    # per game, the share of a seat's letters an unseen card of its hand holds on average, per kind
    # (recall_nb.card_shares_nb): what the table can judge of a hand it cannot see
    ("hshare", np.float64, (MAX_PLAYERS, N_CATEGORY_KINDS)),
    # the data input `profiles`: values fixed per seat (0, or -1 for the reaction time: drawn)
    ("fixed_know", np.float64, (MAX_PLAYERS, N_CATEGORY_KINDS)),
    ("fixed_letters", np.float64, (MAX_PLAYERS, N_LETTERS)),
    ("fixed_react", np.float64, MAX_PLAYERS),
], align=True)


@njit
def new_table_nb():
    """A zeroed table; keep the returned one-row array alive while its row is used."""
    return np.zeros(1, TABLE_DTYPE)
