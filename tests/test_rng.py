"""The shared random streams' exponential draws (the ziggurat in kernels/rng_nb.py)."""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from kernels.jit import njit
from kernels.rng_nb import ZIG_F, ZIG_K, ZIG_R, ZIG_V, ZIG_W, next_exponential_nb

N = 2_000_000


@njit
def exponentials_nb(seed, n):
    out = np.empty(n)
    state = np.uint64(seed)
    for i in range(n):
        state, out[i] = next_exponential_nb(state)
    return out


def test_the_layers_have_equal_area():
    """Each layer above the base is a rectangle of area ZIG_V: x_i (f_{i-1} - f_i) with x_i the
    layer's width (ZIG_W scaled back) and f its edges' densities."""
    x = ZIG_W[1:] * 2.0 ** 53
    area = x * (ZIG_F[:-1] - ZIG_F[1:])
    assert np.allclose(area, ZIG_V, rtol=1e-9)
    assert ZIG_F[-1] == pytest.approx(math.exp(-ZIG_R))
    assert (ZIG_K[2:] <= 2 ** 53).all() and ZIG_K[1] == 0  # the top layer is all wedge


def test_draws_follow_the_exponential_law():
    x = exponentials_nb(11, N)
    assert stats.kstest(x, "expon").pvalue > 0.001
    assert x.mean() == pytest.approx(1.0, abs=4 / math.sqrt(N))
    assert x.var() == pytest.approx(1.0, abs=0.01)


def test_the_tail_beyond_the_base_layer_is_exponential_too():
    """Draws beyond ZIG_R (about 1 in 2,200) come from the tail path: their count and their excess
    over ZIG_R must match the law (memoryless: the excess is exponential with mean 1)."""
    x = exponentials_nb(12, N)
    tail = x[x > ZIG_R] - ZIG_R
    p = math.exp(-ZIG_R)
    assert len(tail) == pytest.approx(N * p, abs=4 * math.sqrt(N * p))
    assert stats.kstest(tail, "expon").pvalue > 0.001


def test_wedge_draws_land_under_the_curve():
    """Between layer edges (where the wedge test decides) the histogram follows exp(-x): counts
    in bins of width 0.25 over [0, 6] against their expected numbers."""
    x = exponentials_nb(13, N)
    edges = np.arange(0.0, 6.01, 0.25)
    observed, _ = np.histogram(x, edges)
    expected = N * (np.exp(-edges[:-1]) - np.exp(-edges[1:]))
    assert stats.chisquare(observed, expected * observed.sum() / expected.sum()).pvalue > 0.001


def test_shuffle_from_a_state_is_the_shuffle_from_an_array():
    """shuffle_from_nb (the stream state in a variable) permutes as shuffle_nb (the state in an
    array) and leaves the stream where shuffle_nb leaves it."""
    from kernels.rng_nb import deal_stream_nb, shuffle_from_nb, shuffle_nb

    for n in (0, 1, 2, 7, 60):
        state = deal_stream_nb(np.int64(11), np.int64(n), np.int64(3))
        a = np.arange(60, dtype=np.int64)
        b = a.copy()
        rng = np.array([state], dtype=np.uint64)
        shuffle_nb(rng, a, np.int64(n))
        end = shuffle_from_nb(state, b, np.int64(n))
        assert np.array_equal(a, b) and end == rng[0], n
        assert sorted(b[:n]) == list(range(n)) and np.array_equal(b[n:], np.arange(n, 60))
