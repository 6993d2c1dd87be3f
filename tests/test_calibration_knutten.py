"""The John Knut section's role verdicts under a constructed null and a planted effect, at CI sizes
(benchmarks/calibration_knutten.py has the full sizes and the table in docs/statistics.md).

Null: John's drawer, player and target unrelated to winning, with a seat-0 edge and a drawer who is seat
0 more often; the pooled rejection rate of the three role verdicts must have a binomial 95% interval that
contains the nominal 5% (the variance taken over all games, not given who held the role, rejected
2.7% of 600 and failed here). Planted: the drawer is made a winner in 15% of the drawn games; the drawer
verdict must find it about as often as its stated power says.
"""
from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from statsmodels.stats.proportion import proportion_confint

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks import calibration_knutten as cal  # noqa: E402


def test_role_verdicts_hold_their_size_and_find_a_planted_drawer():
    with tempfile.TemporaryDirectory(prefix="kaartlab-cal-knutten-") as d:
        null = cal.roles(Path(d), replicates=200, games=300, seed=909)
        planted = cal.roles(Path(d), replicates=100, games=300, seed=910, plant=0.15)
    x = sum(r["count"] for r in null["rejections"].values())
    n = sum(r["n"] for r in null["rejections"].values())
    lo, hi = proportion_confint(x, n, method="wilson")
    assert n == 600 and lo <= 0.05 <= hi, null["rejections"]
    drawer, stated = planted["rejections"]["drawer"], planted["stated power"]["drawer"]
    lo, hi = proportion_confint(drawer["count"], drawer["n"], method="wilson")
    assert 0.5 < stated and lo - 0.05 <= stated <= hi + 0.05, (drawer, stated)
