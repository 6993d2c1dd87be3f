"""Wie Weet Wat's verdicts under constructed nulls and planted effects, at small sizes
(benchmarks/calibration_wieweetwat.py has the full sizes and the figures for docs/statistics.md).

Each null rate must fall in the binomial 95% interval around the nominal 5% at this number of
replications, and each planted effect must be found about as often as the estimator's own standard
errors say (within the binomial interval of the measured rate, widened by 8 points for the spread
of the stated power itself). Seeds are fixed, so the test is deterministic; where the report used
another estimator before, the same replications show that one outside the band, so the band can fail.
The stated powers themselves are checked at sizes that tell them apart in
tests/test_calibration_common.py.
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from statsmodels.stats.proportion import proportion_confint

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks import calibration_wieweetwat as cal  # noqa: E402

ALPHA = 0.05


def null_band(reps: int) -> tuple[float, float]:
    """Where the count of a 5% event over `reps` replications falls 95% of the time, as rates."""
    lo, hi = proportion_confint(ALPHA * reps, reps, alpha=0.05, method="beta")
    return lo, hi


def rejections(rows, key="p"):
    return float(np.mean([r[key] < ALPHA for r in rows]))


def trials(trial, reps, seed, *args):
    rng = np.random.default_rng(seed)
    return [trial(rng, *args) for _ in range(reps)]


def assert_power(rows):
    measured, stated = rejections(rows), float(np.mean([r["power"] for r in rows]))
    lo, hi = proportion_confint(measured * len(rows), len(rows), alpha=0.05, method="beta")
    assert lo - 0.08 <= stated <= hi + 0.08, (measured, stated)


def test_first_reader_holds_its_level_under_first_to_three_and_finds_a_planted_edge():
    rows = trials(cal.first_reader_trial, 300, 1, 400, 4, 0.25)
    lo, hi = null_band(300)
    assert lo <= rejections(rows) <= hi
    # the old estimator, the mean of per-game ratios, is biased upward under first-to-3
    assert rejections(rows, "old_p") > 0.5
    assert np.mean([r["old_estimate"] for r in rows]) > 0.26 > 0.255 > np.mean([r["estimate"] for r in rows]) > 0.245
    assert_power(trials(cal.first_reader_trial, 150, 2, 400, 4, 0.29))


def test_skill_slope_holds_its_level_with_seat_position_effects_and_finds_a_planted_slope():
    rows = trials(cal.skill_trial, 300, 3, 1000, 0.0)
    lo, hi = null_band(300)
    assert lo <= rejections(rows) <= hi
    # the old fit takes seat 1's position for skill
    assert rejections(rows, "old_p") > 0.3
    assert_power(trials(cal.skill_trial, 150, 4, 1000, 0.05))


def test_card_kinds_test_holds_its_level_and_intervals_cover_with_clustered_games():
    rows = trials(cal.kinds_trial, 200, 5, 200, 0.0)
    lo, hi = null_band(200)
    assert lo <= rejections(rows) <= hi
    assert 0.93 <= np.mean([r["coverage"] for r in rows]) <= 0.97
    # the old per-card Wilson interval ignores that a game's cards share its luck
    assert np.mean([r["old_coverage"] for r in rows]) < 0.93
    planted = trials(cal.kinds_trial, 100, 6, 200, 0.08)
    assert_power(planted)
    # the old stated power (a chi-square at the plug-in noncentrality) is above the new at every replication
    assert all(r["old_power"] > r["power"] for r in planted)


def test_www_value_holds_its_level_with_unequal_players():
    rows = trials(cal.www_trial, 300, 7, 400, 0.0)
    lo, hi = null_band(300)
    assert lo <= rejections(rows) <= hi


def test_www_planted_difference_is_exact_and_found_at_its_stated_power():
    """The planted difference is computed over the 16 deals, not measured on one large run: a run of
    400,000 games lands within 3 of its standard errors, and the stated power at it (noncentral t)
    is the measured rate's within the band."""
    truth = cal.www_truth()
    assert 0.0135 < truth < 0.0147  # the old one-run figure, 1.51 points, was 0.10 points too high
    big = cal.www_trial(np.random.default_rng(70), 400_000, cal.TILT)
    assert abs(big["estimate"] - truth) < 3 * big["se"]
    assert cal.www_truth(tilt=0.0) == pytest.approx(0.0, abs=1e-15)  # no tilt: no difference, skills unequal
    assert_power(trials(cal.www_trial, 300, 71, 1000, cal.TILT))


def test_printed_first_reader_detectable_edge_is_found_at_80_percent_after_correction():
    """A first reader whose edge is the 'detectable at 80%' the report prints with 30 claims is found
    at the report's level (5%/30) in about 80% of replications; the figure printed before (one test
    at 5%) is found in well under half."""
    d = cal.detectable_trials(np.random.default_rng(72), 300, 400, 4, 30, pilot=20)
    new, old = d["new"], d["old"]
    assert new["lo"] <= 0.80 <= new["hi"], new
    assert old["hi"] < 0.6, old
    assert new["edge"] > 1.3 * old["edge"]


def test_action_gain_holds_its_level_and_finds_a_planted_gain():
    rows = trials(cal.swing_trial, 300, 8, 400, 0.3)
    lo, hi = null_band(300)
    assert lo <= rejections(rows) <= hi
    assert_power(trials(cal.swing_trial, 150, 9, 400, 0.4))


@pytest.mark.parametrize("seed", [10])
def test_action_length_equality_holds_its_level(seed):
    rows = trials(cal.length_trial, 120, seed, 600, 0.0)
    lo, hi = null_band(120)
    assert lo <= rejections(rows) <= hi
