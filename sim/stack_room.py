"""Room on CPython's frame stack for Numba's compiler: `with_room(fn, *args)`.

CPython 3.11 and 3.12 keep a thread's Python frames in 16 KiB chunks, each mapped with mmap when
a call does not fit the chunk in use and unmapped when that call returns. A loop that keeps
calling across a chunk boundary therefore maps and unmaps a chunk on every call (CPython issue
gh-142183, fixed by a cached chunk in later 3.13 and 3.14 releases). Numba's type inference and
lowering are deep recursions full of such loops, and where the boundaries fall in them depends
on how deep the stack already is when a kernel is first called: the same Wie is de Heer? compile
took 104 s at one depth (65 s of it in the system, three million mmap calls) and 35 s at another
(docs/benchmarks.md, "Compile time: room on the frame stack").

`with_room` calls `fn` from a frame that reserves ROOM value-stack slots. CPython gives such a
frame a chunk of its own, sized by doubling to twice what the frame needs (4 MiB), so the frames
of everything `fn` calls, Numba's deepest recursion included, fit in the other half of that one
chunk: there is no boundary to cross. The price is one 4 MiB mapping per call, whose pages are
touched only where frames are pushed: microseconds against a batch of games.
"""
from __future__ import annotations

ROOM = 1 << 18  # slots (8 bytes each): the frame takes 2 MiB and leaves 2 MiB of its 4 MiB chunk


def with_room(fn, /, *args, **kwargs):
    """fn(*args, **kwargs), called where the frame stack has about 2 MiB of room."""
    return fn(*args, **kwargs)


with_room.__code__ = with_room.__code__.replace(co_stacksize=ROOM)
