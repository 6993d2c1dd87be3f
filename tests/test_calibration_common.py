"""The helpers every calibration script shares (benchmarks/calibration_common.py): the measured rate
with its interval, and the stated power of the tests the reports run, each checked against a
Monte Carlo of that very test where the old approximation (a z test for a t test, a chi-square at the
plug-in noncentrality for Hotelling's F) is shown outside the measured rate's interval."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from scipy import stats as sps

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks.calibration_common import hotelling_power, paired_power, power, rate  # noqa: E402
from reports.stats import equal_means_test  # noqa: E402


def test_rate_counts_flags_or_a_count_and_gives_the_wilson_interval():
    a = rate([True, False, False, True, False])
    b = rate(2, 5)
    assert a == b
    assert (a["count"], a["n"], a["rate"]) == (2, 5, 0.4)
    assert a["lo"] == pytest.approx(0.1176, abs=1e-3) and a["hi"] == pytest.approx(0.7693, abs=1e-3)  # Wilson
    assert rate([])["n"] == 0 and np.isnan(rate([])["rate"])


def test_power_is_the_t_tests_at_few_degrees_of_freedom():
    """One-sample t over 10 values, true mean one standard deviation: the t test's power is about
    80%, the z approximation says 89%; 4,000 t tests tell them apart."""
    rng = np.random.default_rng(1)
    n, reps = 10, 4000
    x = rng.normal(1.0, 1.0, (reps, n))
    found = rate(sps.ttest_1samp(x, 0.0, axis=1).pvalue < 0.05)
    t_power, z_power = paired_power(1.0, 1.0, n), power(1.0, 1.0 / np.sqrt(n))
    assert found["lo"] <= t_power <= found["hi"], (found, t_power)
    assert not found["lo"] <= z_power <= found["hi"], (found, z_power)
    assert power(0.0, 0.1, df=50) == pytest.approx(0.05)
    assert power(0.0, 0.1, df=50, tests=10) == pytest.approx(0.005)  # level alpha / tests
    assert power(5.0, 0.1, df=399) == 1.0  # far beyond: no nan from the far tail


def test_hotelling_power_is_equal_means_tests_at_24_entries_and_60_games():
    rng = np.random.default_rng(2)
    k, n, reps = 24, 60, 1000
    root = rng.normal(size=(k, k)) * 0.3 + np.eye(k)
    shift = np.r_[0.186, np.zeros(k - 1)]
    found, stated, old = [], [], []
    c = np.hstack([np.eye(k - 1), -np.ones((k - 1, 1))])
    for _ in range(reps):
        x = rng.normal(size=(n, k)) @ root.T + shift
        mean, cov = x.mean(axis=0), np.cov(x.T)
        found.append(equal_means_test(mean, cov, n).p_value < 0.05)
        stated.append(hotelling_power(shift, cov, n))
        lam = n * (c @ shift) @ np.linalg.pinv(c @ cov @ c.T) @ (c @ shift)
        old.append(sps.ncx2.sf(sps.chi2.ppf(0.95, k - 1), k - 1, lam))
    found = rate(found)
    assert 0.3 < found["rate"] < 0.8  # a planted effect neither always nor never found
    assert found["lo"] <= np.mean(stated) <= found["hi"], (found, np.mean(stated))
    assert np.mean(old) > found["hi"] + 0.2
    assert hotelling_power(np.zeros(k), np.cov(rng.normal(size=(n, k)).T), n) == pytest.approx(0.05)
