"""Trace rows: one event per row of TRACE_WIDTH int32 (enums EV_*). A None trace (a batch) makes
every call compile to nothing; `at` is a one-element int64 array holding the next row."""
import numpy as np

from kernels.jit import njit


@njit
def ev_nb(trace, at, code, seat, a, b, c, d, e, f):
    """Append one row while it fits (the last row is kept free for EV_END); at[0] counts every row
    asked for, so the driver sees an overflow."""
    if trace is None:
        return
    i = at[0]
    if i < trace.shape[0] - 1:
        trace[i, 0] = code
        trace[i, 1] = seat
        trace[i, 2] = a
        trace[i, 3] = b
        trace[i, 4] = c
        trace[i, 5] = d
        trace[i, 6] = e
        trace[i, 7] = f
    at[0] = i + 1


@njit
def tracing_nb(trace):
    return trace is not None


@njit
def ms_nb(seconds):
    """A time in whole milliseconds for the trace (int32-safe)."""
    return np.int64(min(seconds, 2.0e6) * 1000.0 + 0.5)


@njit
def trace_full_nb(trace, at):
    """Whether the rows asked for left no room for EV_END (False for a batch)."""
    if trace is None:
        return False
    return at[0] >= trace.shape[0] - 1
