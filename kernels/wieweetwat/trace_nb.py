"""Trace rows (kernels/trace_nb.py) with the next row kept in `at`, a one-element int64 array, so
that the round's helpers can append without returning it. A None trace (a batch) makes every call
compile to nothing."""
import numpy as np

from kernels.jit import borrowing, inline
from kernels import trace_nb


@inline
def ev_nb(trace, at, code, seat, a, b, c, d, e, f):
    """Append one row while it fits (the last row is kept free for EV_END); at[0] counts every row
    asked for, so the driver sees an overflow. Inlined, handing every value on as an int64: event
    codes, zeros and -1 are constants, and each mix of them would be a specialisation of its own."""
    write_row_nb(trace, at, np.int64(code), np.int64(seat), np.int64(a), np.int64(b), np.int64(c),
                 np.int64(d), np.int64(e), np.int64(f))


@borrowing
def write_row_nb(trace, at, code, seat, a, b, c, d, e, f):
    if trace is None:
        return
    at[0] = trace_nb.trace_row_nb(trace, at[0], code, seat, a, b, c, d, e, f)


@borrowing
def tracing_nb(trace):
    return trace_nb.traced_nb(trace)


@borrowing
def ms_nb(seconds):
    """A time in whole milliseconds for the trace (int32-safe)."""
    return np.int64(min(seconds, 2.0e6) * 1000.0 + 0.5)


@borrowing
def trace_full_nb(trace, at):
    """Whether the rows asked for left no room for EV_END (False for a batch)."""
    return trace_nb.trace_full_nb(trace, at[0])
