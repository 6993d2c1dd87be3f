"""benchmarks/pairing.py: its pure functions on data with a known answer."""
from __future__ import annotations

import math

import numpy as np
import pytest

from benchmarks.pairing import Z95, interval_widths, markdown, seat0_win_weight


def test_win_weight_shares_ties():
    assert seat0_win_weight([1, 3, 2, 7, 0b1001], [1, 2, 1, 3, 2]).tolist() == [1.0, 0.5, 0.0, 1 / 3, 0.5]


def test_widths_by_hand():
    # var(a) = var(b) = 4/3, the differences [0, -2, 2, 0] have variance 8/3: uncorrelated, ratio 1
    r = interval_widths([0, 0, 2, 2], [0, 2, 0, 2])
    assert r["unpaired"] == pytest.approx(2 * Z95 * math.sqrt((4 / 3 + 4 / 3) / 4))
    assert r["paired"] == pytest.approx(2 * Z95 * math.sqrt((8 / 3) / 4))
    assert r["ratio"] == pytest.approx(1.0) and r["corr"] == pytest.approx(0.0)
    assert (r["n"], r["mean_a"], r["mean_b"], r["diff"]) == (4, 1.0, 1.0, 0.0)
    # b = a + 1: every difference is -1, the paired interval has no width
    r = interval_widths([1, 2, 3, 5], [2, 3, 4, 6])
    assert r["paired"] == 0 and r["ratio"] == math.inf and r["corr"] == pytest.approx(1.0)
    assert r["diff"] == -1.0
    # a constant arm has no correlation
    assert math.isnan(interval_widths([1, 1, 1], [0, 1, 2])["corr"])


def test_widths_of_correlated_samples():
    """Equal variances and correlation rho: unpaired/paired = sqrt(2 / (2 - 2 rho)) = 2 at rho 3/4."""
    rng = np.random.default_rng(5)
    n, rho = 200_000, 0.75
    z1, z2 = rng.standard_normal(n), rng.standard_normal(n)
    a = 3 + z1
    b = 1 + rho * z1 + math.sqrt(1 - rho ** 2) * z2
    r = interval_widths(a, b)
    assert r["ratio"] == pytest.approx(2.0, rel=0.02)
    assert r["corr"] == pytest.approx(rho, abs=0.01)
    assert r["unpaired"] == pytest.approx(2 * Z95 * math.sqrt(2 / n), rel=0.01)
    assert r["diff"] == pytest.approx(2.0, abs=0.01)


def test_bad_input_and_table():
    with pytest.raises(ValueError):
        interval_widths([1, 2, 3], [1, 2])
    w = interval_widths([0, 0, 2, 2], [0, 2, 0, 2])
    text = markdown([{"comparison": "X vs Y", "win": w, "turns": w}])
    assert text.splitlines()[2].startswith("| X vs Y | 1.0000 | 1.0000 |")
    assert len({line.count("|") for line in text.splitlines()}) == 1
