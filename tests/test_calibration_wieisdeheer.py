"""Null tests for the Wie is de Heer? section's verdicts at quick sizes (issue 26).

benchmarks/calibration_wieisdeheer.py writes synthetic studies with a known answer (the mole wins
1/players, a uniform finishing order, calibrated writers, a pot unrelated to the winner, a sabotage
sweep whose rates do not matter) and reads them with the section's own code. Here every claim kind's
rate of p < 0.05 under its null must have a binomial 95% interval that contains 5%, every planted
effect must be found at a rate whose interval contains the stated 80% power, and the sweep must not
name a rate worse than the best more often than 5% of studies, which the old reading (the best
compared with each rate after picking it, uncorrected) does. The seed is fixed: the test is
deterministic. Full sizes: `python -m benchmarks.calibration_wieisdeheer` (docs/statistics.md).
"""
from __future__ import annotations

import sys
from pathlib import Path

import pytest
from statsmodels.stats.proportion import proportion_confint

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks import calibration_wieisdeheer as cal  # noqa: E402

NOMINAL, POWER = 0.05, 0.8


def band(rate: dict) -> tuple[float, float]:
    """The measured rate's 99.9% binomial (Wilson) interval: about 3.3 standard errors each side, so
    that ten checks at these sizes pass when every verdict holds its level, yet a rate twice the
    nominal one fails."""
    return proportion_confint(rate["count"], rate["n"], alpha=0.001, method="wilson")


@pytest.fixture(scope="module")
def result(tmp_path_factory):
    return cal.run(replicates=16, games=800, seed=3, work=tmp_path_factory.mktemp("heer-cal"))


@pytest.mark.parametrize("kind", cal.KINDS)
def test_each_verdict_claims_at_its_nominal_rate_under_its_null(result, kind):
    size = result["size"][kind]
    lo, hi = band(size)
    assert size["n"] >= 90 and lo <= NOMINAL <= hi, size


@pytest.mark.parametrize("kind", cal.KINDS)
def test_each_verdict_finds_its_planted_effect_at_the_stated_power(result, kind):
    power = result["power"][kind]
    lo, hi = band(power)
    assert power["n"] >= 40 and lo <= POWER <= hi, power


@pytest.fixture(scope="module")
def sweeps(tmp_path_factory):
    return cal.sweep_selection(replicates=80, games=400, seed=3, work=tmp_path_factory.mktemp("heer-sweep"))


def test_the_sweep_names_a_worse_rate_only_after_correction(sweeps):
    named, old = sweeps["sweep_names_a_worse_rate"], sweeps["sweep_names_a_worse_rate_uncorrected"]
    assert band(named)[0] <= NOMINAL, named
    assert band(old)[0] > NOMINAL, old  # the best against each rate, uncorrected: too many false verdicts


def test_the_section_says_nothing_detectable_in_a_null_study(result):
    assert band(result["any_detectable_after_holm"])[0] <= NOMINAL, result["any_detectable_after_holm"]
