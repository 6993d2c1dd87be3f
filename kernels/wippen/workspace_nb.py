"""The Wippen driver's arrays, as the fields of one record: the workspace.

Numba passes an array to a function it does not inline as the array's whole descriptor (7 words
for a 1-D array, 9 for a 2-D one), and an array cut from another at run time carries run-time
shapes and strides. The greedy and random turns, which are calls, took fourteen arrays: about 110
words copied to the stack for every card played. A record is passed as one pointer, and the array
fields of a record type have their shapes in the type, so `ws["item_i"][i, IT_KIND]` is a load at a
constant offset. The driver takes plain C-contiguous views of the same fields (the types every
other caller of the move generator passes: one compiled copy of each helper), once per batch.

Holding all of the driver's arrays, the workspace also lets the driver allocate nothing and so run
without Numba's reference counting (kernels.jit.borrowing): otherwise every view it takes of one
seat's hand or pile on each card played costs an NRT_incref/NRT_decref call pair.
"""
import numpy as np

from kernels.jit import inline, njit
from kernels.wippen.enums import (
    HAND, IT_FIELDS, MAX_GROUPS, MAX_ITEMS, MAX_MOVES, MAX_PLAYERS, N_CARDS, N_RANKS, N_SOURCES,
)
from kernels.wippen.moves_nb import GSPAN_TOP

MOVE_FIELDS = 3  # mv_i[k] = (slot, kind, value)

WORKSPACE = np.dtype([
    ("item_i", np.int64, (MAX_ITEMS, IT_FIELDS)),  # the pot's items
    ("item_m", np.uint64, (MAX_ITEMS, 2)),  # each item's cards
    ("hands", np.int64, (MAX_PLAYERS, HAND)),
    ("mv_i", np.int64, (MAX_MOVES, MOVE_FIELDS)),  # the move list: (slot, kind, value)
    ("mv_m", np.uint64, (MAX_MOVES,)),  # and each move's take mask
    ("rng", np.uint64, (MAX_PLAYERS,)),  # the seats' random stream states
    ("item_w", np.float64, (MAX_ITEMS,)),  # each pot item's worth this turn
    ("worth", np.float64, (N_CARDS,)),  # each card's worth
    # the move generator's work arrays (moves_nb.scratch_nb)
    ("cand", np.int64, (MAX_ITEMS,)),
    ("cval", np.int64, (MAX_ITEMS,)),
    ("stack", np.int64, (MAX_ITEMS + 1,)),
    ("groups", np.uint64, (MAX_GROUPS,)),
    ("gspan", np.int64, (GSPAN_TOP + 1,)),
    ("joint", np.uint64, (MAX_GROUPS,)),
    ("unions", np.uint64, (MAX_MOVES,)),
    # the rest of the driver's arrays
    ("in_play", np.int64, (N_CARDS,)),  # the cards in play, in card order
    ("removed", np.int64, (N_CARDS,)),  # the face cards taken out
    ("in_value", np.int64, (N_RANKS + 1,)),  # cards in play per value
    ("stock", np.int64, (N_CARDS,)),  # the deal's shuffled cards
    ("hand_n", np.int64, (MAX_PLAYERS,)),
    ("piles", np.uint64, (MAX_PLAYERS, 2)),  # each seat's captured cards this deal
    ("public", np.int64, (N_RANKS + 1,)),  # cards laid open or played this deal, per value
    ("chance", np.float64, (N_RANKS + 1,)),
    ("after_i", np.int64, (MAX_ITEMS, IT_FIELDS)),  # defensive: the pot after a move
    ("after_m", np.uint64, (MAX_ITEMS, 2)),
    ("tmp", np.uint64, (2,)),
    ("pile_tmp", np.uint64, (2,)),
    ("chk_i", np.int64, (MAX_MOVES, MOVE_FIELDS)),  # the full legal list, checked or traced
    ("chk_m", np.uint64, (MAX_MOVES,)),
    ("points", np.int64, (MAX_PLAYERS, N_SOURCES)),  # a deal's points by source
    ("totals", np.int64, (MAX_PLAYERS,)),
    ("sources", np.int64, (MAX_PLAYERS, N_SOURCES)),  # a game's points by source
    ("wips", np.int64, (MAX_PLAYERS,)),
    # per seat and game: captures, builds, raises, double builds, takeovers, wips, cards taken
    ("acts", np.int64, (MAX_PLAYERS, 7)),
    ("position_points", np.int64, (MAX_PLAYERS,)),
    ("card_count", np.int64, (N_CARDS,)),  # the checked mode's census
], align=True)


@njit
def workspace_nb():
    """A workspace: a one-record array (the caller keeps it alive while its record is used)."""
    return np.zeros(1, WORKSPACE)


@inline
def scratch_of_nb(ws):
    """The move generator's work arrays in record ws, as moves_nb.scratch_nb makes them."""
    return (ws["cand"], ws["cval"], ws["stack"], ws["groups"], ws["gspan"], ws["joint"],
            ws["unions"])


@inline
def plain_views_nb(ws):
    """The driver's C-contiguous views of the fields of ws: (item_i, item_m, hands, mv_i, mv_m,
    seat_rng, item_w, worth, scratch)."""
    scratch = (ws["cand"].reshape(MAX_ITEMS), ws["cval"].reshape(MAX_ITEMS),
               ws["stack"].reshape(MAX_ITEMS + 1), ws["groups"].reshape(MAX_GROUPS),
               ws["gspan"].reshape(GSPAN_TOP + 1), ws["joint"].reshape(MAX_GROUPS),
               ws["unions"].reshape(MAX_MOVES))
    return (ws["item_i"].reshape((MAX_ITEMS, IT_FIELDS)), ws["item_m"].reshape((MAX_ITEMS, 2)),
            ws["hands"].reshape((MAX_PLAYERS, HAND)), ws["mv_i"].reshape((MAX_MOVES, MOVE_FIELDS)),
            ws["mv_m"].reshape(MAX_MOVES), ws["rng"].reshape(MAX_PLAYERS),
            ws["item_w"].reshape(MAX_ITEMS), ws["worth"].reshape(N_CARDS), scratch)
