"""sim/stack_room.py: a loop that calls across a chunk boundary of CPython's frame stack maps a
fresh chunk on every call (each one page-faults on first use); called through `with_room`, the
same loop at every depth maps nothing. Counted in page faults (/proc), not timed."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

from sim.stack_room import ROOM, with_room

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="counts page faults in /proc")


def minor_faults() -> int:
    with open("/proc/self/stat") as f:
        return int(f.read().rsplit(")", 1)[1].split()[7])


def leaf(x):
    return x + 1


def loop(calls: int) -> int:
    """Page faults while calling `leaf` `calls` times from here."""
    before = minor_faults()
    for i in range(calls):
        leaf(i)
    return minor_faults() - before


def _padded(extra: int):
    """`loop` with `extra` more value-stack slots: frame sizes one slot apart, so that some depth
    puts `leaf`'s frame just past a chunk's end."""
    def padded(calls):
        return loop(calls)

    padded.__code__ = padded.__code__.replace(co_stacksize=padded.__code__.co_stacksize + extra)
    return padded


def down(depth: int, pad: int, calls: int) -> int:
    return down(depth - 1, pad, calls) if depth else PADS[pad](calls)


# pads one slot apart over more than one frame of `down`, and depths over more than a 16 KiB chunk
# (2,048 slots): together every offset of `leaf`'s frame against a chunk's end
_code = down.__code__
FRAME = len(_code.co_varnames) + len(_code.co_cellvars) + _code.co_stacksize + 16  # >= down's frame, in slots
PADS = [_padded(extra) for extra in range(FRAME)]
DEPTHS = range(2 * 2048 // FRAME + 1)


def most_faults(call, calls: int = 200) -> int:
    return max(call(down, depth, pad, calls) for depth in DEPTHS for pad in range(len(PADS)))


def test_with_room_calls_through_and_reserves_its_room():
    assert with_room(divmod, 17, 5) == (3, 2)
    assert with_room(dict, a=1) == {"a": 1}
    assert with_room.__code__.co_stacksize == ROOM


def test_calls_across_a_chunk_boundary_map_a_chunk_each_but_not_with_room():
    if sys.version_info < (3, 13):  # CPython 3.11 and 3.12 map and unmap; later releases cache a chunk
        assert most_faults(lambda fn, *args: fn(*args)) >= 200
    assert most_faults(with_room) < 10
