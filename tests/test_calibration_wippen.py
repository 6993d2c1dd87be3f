"""Wippen's position verdict under a constructed null and on real games, at CI sizes
(benchmarks/calibration_wippen.py has the full sizes and the table in docs/statistics.md).

Null: each game's play positions relabelled at random, so no position differs; the verdict's rejection
rate must have a binomial 95% interval that contains the nominal 5%. The same games as played carry a
real dealer edge that the verdict must find about as often as its stated power says.
"""
from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from statsmodels.stats.proportion import proportion_confint

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks import calibration_wippen as cal  # noqa: E402


def interval(r: dict) -> tuple[float, float]:
    return proportion_confint(r["count"], r["n"], method="wilson")


def test_position_verdict_holds_its_size_and_finds_the_dealer_edge():
    with tempfile.TemporaryDirectory(prefix="kaartlab-cal-wippen-") as d:
        # 400 games a replicate: at 100 the paired t over-claimed (11 of 120, 9.2%; Wippen's per-game
        # dealer-minus-first difference is heavy-tailed, so its t needs more games)
        res = cal.position(Path(d), replicates=120, games=400, seed=808)
    null = res["null: positions relabelled"]["dealer_minus_first"]
    lo, hi = interval(null)
    assert null["n"] == 120 and lo <= 0.05 <= hi, null
    played = res["as played"]["dealer_minus_first"]
    stated = res["stated power"]["dealer_minus_first"]
    lo, hi = interval(played)
    assert lo - 0.05 <= stated <= hi + 0.05, (played, stated)  # found about as often as stated
