"""Trace rows, shared by every game's driver: an event per row of int32 (a code, a seat, then as
many values as the game's TRACE_WIDTH holds). A None trace (a batch) makes every call compile to
nothing; a driver whose loop is costly to compile passes a batch no rows instead (trace_rows_nb),
so that one compiled loop serves batches and traces. The last row is kept free for the end event,
and a driver that asked for more rows than fit sees it through trace_full_nb."""
import numpy as np

from kernels.jit import njit


@njit
def trace_row_nb(trace, tp, code, seat, a, b, c, d=0, e=0, f=0):
    """Write row tp (while it fits) and return tp + 1; values beyond the trace's width are
    dropped, so one helper serves every width."""
    if trace is None:
        return tp
    if tp < trace.shape[0] - 1:
        width = trace.shape[1]
        row = trace[tp]
        row[0] = code
        row[1] = seat
        row[2] = a
        row[3] = b
        row[4] = c
        if width > 5:
            row[5] = d
        if width > 6:
            row[6] = e
        if width > 7:
            row[7] = f
    return tp + 1


@njit
def traced_nb(trace):
    """Whether this call traces (its first game): a constant once compiled."""
    return trace is not None


@njit
def trace_full_nb(trace, tp):
    """Whether the rows asked for left no room for the end event (False for a batch)."""
    if trace is None:
        return False
    return tp >= trace.shape[0] - 1


@njit
def trace_rows_nb(trace, width):
    """`trace`, or no rows for a batch (None): a driver that runs one loop for both, tracing while
    it has rows, compiles that loop once instead of twice (for Wippen, minutes)."""
    if trace is None:
        return np.zeros((0, width), np.int32)
    return trace
