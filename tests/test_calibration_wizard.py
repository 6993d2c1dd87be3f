"""Wizard's verdicts under constructed nulls and planted effects, at CI sizes (benchmarks/calibration_wizard.py
has the full sizes and the table in docs/statistics.md).

Real games (4 heuristic players) cut into replicate arms of 200 games. Nulls: seats relabelled at random
in every game (no seat or bidding position can differ) and an inert rule with independent games; each
verdict's rejection rate, pooled over the verdicts of a family, must have a binomial 95% interval that
contains the nominal 5%. Planted: under the hook rule the dealer's exact bids really differ, and hook-on
against hook-off changes the dealer's numbers; those must be found at their stated power.
"""
from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import pytest
from statsmodels.stats.proportion import proportion_confint

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks import calibration_wizard as cal  # noqa: E402

NOMINAL = 0.05


def pooled(rates: dict) -> tuple[int, int]:
    return sum(r["count"] for r in rates.values()), sum(r["n"] for r in rates.values())


def holds_nominal(rates: dict) -> bool:
    """The binomial 95% interval of the pooled rejection rate contains the nominal rate."""
    x, n = pooled(rates)
    lo, hi = proportion_confint(x, n, method="wilson")
    return lo <= NOMINAL <= hi


@pytest.fixture(scope="module")
def work():
    with tempfile.TemporaryDirectory(prefix="kaartlab-cal-wizard-") as d:
        yield Path(d)


def test_seat_and_position_verdicts_hold_their_size_and_find_the_dealer(work):
    res = cal.positions(work, replicates=80, games=200, seed=606, rules={"hook_rule": 1})
    null = res["null: seats relabelled"]
    assert set(null) == set(cal.GAP_VERDICTS) | {f"dealer_{k}" for k in cal.DEALER_VERDICTS}
    assert holds_nominal(null), null
    # the check can fail: the same games as played are not a null (the hook rule binds the dealer)
    assert not holds_nominal(res["as played"]), res["as played"]
    for k in ("position_exact_gap", "dealer_exact"):
        assert res["stated power"][k] > 0.99
        assert res["as played"][k]["rate"] >= 0.95, (k, res["as played"][k])


def test_hook_verdicts_hold_their_size_on_an_inert_rule_and_find_the_hook(work):
    res = cal.hook(work, replicates=30, games=200, seed=607)
    null = res["null: inert rule (final_no_trump in a full game)"]
    assert len(null) == len(cal.HOOK_MEASURES) and all(r["n"] == 30 for r in null.values())
    assert holds_nominal(null), null
    planted = res["hook-on vs hook-off"]
    for k in ("dealer_exact", "dealer_points", "exact_rate"):
        assert res["stated power"][k] > 0.99
        assert planted[k]["rate"] >= 0.95, (k, planted[k])
