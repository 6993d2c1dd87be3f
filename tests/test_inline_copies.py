"""kernels/inline_copies.py: Numba inlines `inline` helpers without deep-copying their fresh IR, and
the code it compiles is the same as with the copies."""
from __future__ import annotations

import copy
import sys
from pathlib import Path

import numba
import numpy as np
from numba.core import inline_closurecall

from kernels import inline_copies
from kernels.jit import inline, njit

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks.inline_identity import without_counters  # noqa: E402


@inline
def _clamp(x, lo, hi):
    if x < lo:
        return lo
    return hi if x > hi else x


@inline
def _walk(a, lo, hi):
    total = 0
    for i in range(a.shape[0]):
        v = _clamp(a[i], lo, hi)
        if v % 3 == 0:
            total += v
        else:
            total -= _clamp(v * 2, lo, hi)
    return total


def _driver(a, rounds):
    out = np.zeros(rounds, np.int64)
    for r in range(rounds):
        out[r] = _walk(a, r, 10 + r) + _walk(a[::-1], 0, r) + _clamp(r, 2, 5)
    return out


def _compile(compile_copying: bool) -> tuple[str, int]:
    """A fresh compile of _driver, with Numba's copies or without: its LLVM IR (the names that carry
    a per-compile counter made equal) and how many IR blocks were deep-copied meanwhile."""
    dispatcher = numba.njit(_driver)
    copied = []
    real = copy.deepcopy

    def counting(value, memo=None):
        if type(value).__name__ == "Block":
            copied.append(value)
        return real(value, memo)

    saved = inline_closurecall.copy
    copy.deepcopy = counting
    if compile_copying:
        inline_closurecall.copy = copy
    try:
        dispatcher.compile("(int64[::1], int64)")
    finally:
        copy.deepcopy = real
        inline_closurecall.copy = saved
    text = next(iter(dispatcher.inspect_llvm().values()))
    return without_counters(text), len(copied)


def test_the_inliner_is_patched():
    assert inline_copies.install()
    assert isinstance(inline_closurecall.copy, inline_copies._CopyModule)


def test_the_same_code_is_compiled_without_copying_the_inlined_bodies():
    with_copies, copied_before = _compile(compile_copying=True)
    without, copied_after = _compile(compile_copying=False)
    assert copied_before > 0 and copied_after == 0
    assert with_copies == without


def test_the_kernels_results_are_the_same_as_numbas_own_inlining():
    a = np.array([5, -3, 12, 9, 0, 7, 30, 6], np.int64)
    expected = _driver(a, 6)  # plain Python: the meaning of the code
    assert np.array_equal(numba.njit(_driver)(a, 6), expected)
    assert np.array_equal(njit(_driver)(a, 6), expected)
