"""Calibration of the report statistics against known truth, small enough for CI (about half a minute).

benchmarks/stats_calibration.py writes synthetic Knutten datasets with a known answer (fair seats with
45% shared wins, identical arms with independent games, equal players relabelled over the seats, John
roles unrelated to winning) and reads them with the report code. Here each coverage and false-positive
rate must fall in a band around its nominal level; the seed is fixed, so the test is deterministic,
and the bands are about three binomial standard errors wide at these sizes. Each band is also shown
to reject the method the reports used before, so the check can fail. Larger runs:
`python -m benchmarks.stats_calibration` (figures in docs/statistics.md).
"""
from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks import stats_calibration as cal  # noqa: E402

COVERAGE_BAND = (0.925, 0.975)  # per interval: nominal 95%
SIZE_BAND = (0.02, 0.08)  # per test: nominal 5%
REPORT_MAX = 0.125  # per report after correction: at most 5%, plus sampling room for 16 reports (2 of 16)


def pooled(rates) -> float:
    rates = list(rates)
    return sum(r["count"] for r in rates) / sum(r["n"] for r in rates)


def in_band(x: float, band: tuple[float, float]) -> bool:
    return band[0] <= x <= band[1]


@pytest.fixture(scope="module")
def work():
    with tempfile.TemporaryDirectory(prefix="kaartlab-cal-") as d:
        yield Path(d)


@pytest.fixture(scope="module")
def seats(work):
    return cal.seats(work, replicates=100, games=300, seed=101)


def test_share_intervals_cover_at_the_nominal_level(seats):
    cov = pooled(c["share_coverage"] for c in seats.values())
    before = pooled(c["share_coverage_before"] for c in seats.values())
    assert in_band(cov, COVERAGE_BAND), cov
    assert not in_band(before, COVERAGE_BAND), before  # the binomial Wilson interval ignored shared wins
    edge = pooled(c["edge_coverage"] for c in seats.values())
    assert in_band(edge, COVERAGE_BAND), edge


def test_equal_seats_test_has_its_nominal_size(seats):
    fair = [c for c in seats.values() if c["edge"] == 0]
    size = pooled(c["equal_seats_rejections"] for c in fair)
    before = pooled(c["chi_square_rejections_before"] for c in fair)
    assert in_band(size, SIZE_BAND), size
    assert not in_band(before, SIZE_BAND), before  # the chi-square on weighted counts rejected too rarely


def test_equal_seats_test_alone_per_player_count():
    """Many replicates of the test alone: each player count separately within the size band (3 players
    once looked high at 300 replicates)."""
    res = cal.equal_seats_size(replicates=600, games=300, seed=7)["rejections"]
    for label, r in res.items():
        assert in_band(r["rate"], SIZE_BAND), (label, r)


def test_balance_interval_covers_and_is_less_biased(seats):
    fair = [c for c in seats.values() if c["edge"] == 0]
    cov = pooled(c["balance_coverage"] for c in fair)
    assert in_band(cov, COVERAGE_BAND), cov
    assert pooled(c["balance_coverage_before"] for c in fair) < COVERAGE_BAND[0]
    edged = seats["4p, 2-point edge"]["balance_coverage"]
    assert edged["rate"] >= COVERAGE_BAND[0]  # simultaneous: at least nominal when seats differ
    for c in fair:
        assert c["balance_mean"] <= 1.0
        assert (1 - c["balance_mean"]) < 0.6 * (1 - c["balance_mean_before"]), c  # at most 60% of the old bias


def test_paired_differences_of_identical_arms_cover_zero(work):
    res = cal.pairs(work, replicates=30, games=300, seed=202)
    cov = res["coverage_all"]["rate"]
    assert in_band(cov, COVERAGE_BAND), res["coverage_by_measure"]
    for key, r in res["coverage_by_measure"].items():
        assert r["rate"] >= 0.75, (key, r)  # no single measure far off: at most 7 of 30 misses (p < 0.001 each at 95%)


def test_seat_adjusted_players_do_not_inherit_the_seat_edge(work):
    res = cal.players(work, replicates=25, games=300, seed=303)
    assert res["separable"]
    assert res["adjusted_coverage"]["rate"] >= COVERAGE_BAND[0] - 0.02, res  # 75 intervals
    assert res["raw_coverage_before"]["rate"] < res["adjusted_coverage"]["rate"]


def test_john_roles_against_the_expected_share_cover_zero(work):
    res = cal.roles(work, replicates=120, games=300, seed=404)
    cov = pooled(res["coverage"].values())
    assert in_band(cov, COVERAGE_BAND), res["coverage"]


def test_reports_on_null_studies_rarely_claim_anything(work):
    res = cal.reports(work, replicates=16, games=300, seed=505)
    assert res["claims_per_report"] >= 25
    assert res["any_detectable_holm"]["rate"] <= REPORT_MAX, res
    assert res["any_detectable_bh"]["rate"] <= REPORT_MAX, res
    # without the correction most of these reports would claim something: the check can fail
    assert res["any_p_below_5pct_uncorrected"]["rate"] >= 0.3, res


def test_wizard_gap_tests_hold_their_size_on_relabelled_seats(work):
    """Real Wizard games with seats relabelled at random: no seat or position differs, so each gap test
    rejects about 5% of arms; on the games as played under the hook rule the dealer, who bids last,
    may not make the bids add up, and the position test finds that real difference."""
    res = cal.wizard_seats(work, replicates=100, games=200, seed=606, rules={"hook_rule": True})["rejections"]
    null = pooled(res["relabelled"].values())
    assert in_band(null, SIZE_BAND), res["relabelled"]
    assert res["as played"]["position_exact_gap"]["rate"] > 0.5, res["as played"]


def test_balanced_head_to_head_covers_a_half_and_unbalanced_pairs_are_not_claimed(work):
    res = cal.head_to_head(work, replicates=60, games=300, seed=707)
    assert res["balanced_coverage"]["n"] == 60
    assert res["balanced_coverage"]["rate"] >= 0.88, res  # 60 intervals: too narrow ones would fail
    assert res["unbalanced_pairs_claimed"]["count"] == 0, res


def test_paired_intervals_on_shared_deals_cover_and_claim_at_their_nominal_rates(work):
    """Variant pairs on shared deals (80% of the variant's games are the baseline's, strongly and
    positively correlated, as arms that share seeds are) with nothing different: every paired
    interval covers 0 at about 95% (an interval that ignored the correlation would be the unpaired
    one, more than 2x wider here, and cover nearly all; one that overstated it would cover far less)."""
    res = cal.paired_shared_deals(work, replicates=30, games=300, seed=808)
    assert res["seat0_narrower_median"] > 1.8, res  # the pairing is strong: this is not the independent case
    # 390 intervals, but only 30 independent pairs (the four seat changes sum to 0, the rest share
    # games): the band's upper end is wider than the independent-arms one; it still rejects the
    # interval that ignores the pairing, which covers all but a handful
    assert in_band(res["coverage_all"]["rate"], (COVERAGE_BAND[0], 0.99)), res["coverage_by_measure"]
    assert res["unpaired_coverage_all"]["rate"] > 0.99, res
    for key, r in res["coverage_by_measure"].items():
        assert r["rate"] >= 0.75, (key, r)  # no measure far off (at most 7 of 30 misses)
    assert res["pairs_with_any_claim_holm"]["count"] <= 4, res  # at most 5% per pair; 4 of 30 is p < 0.06


def test_planted_change_on_shared_deals_is_found_at_the_stated_power(work):
    """A variant whose seat 0 wins alone in a few more games: the paired seat-0 test finds it about as
    often as the power it states (NormalIndPower at the per-game SD of the paired differences), and
    the paired intervals cover the true changes."""
    res = cal.paired_shared_deals(work, replicates=30, games=300, seed=909, change=cal.planted_change(300))
    stated, found = res["seat0_stated_power"], res["seat0_found"]
    assert 0.5 < stated < 0.95, res
    assert found["lo"] <= stated <= found["hi"], res  # the stated power lies in the found rate's 95% interval
    assert res["coverage_all"]["rate"] >= COVERAGE_BAND[0] - 0.03, res["coverage_by_measure"]  # 150 intervals


def test_ratings_of_identical_players_rarely_exclude_zero(work):
    """Identical players relabelled (truth: every rating 0). On shared deals two players that swap
    seats have the same record in every game index: before, the gap between them was a rounding
    error with a zero-width interval that 'excluded 0'; now it is exactly 0 and never excluded."""
    res = cal.ratings_identical(work, replicates=20, games=300, seed=1010)
    swap = res["swap, shared deals"]
    assert swap["top_two_level_by_design"]["count"] >= 1, swap
    assert swap["top_gap_excludes_0"]["count"] == 0, swap
    assert swap["top_gap_excludes_0_before"]["count"] >= 1, swap  # the old intervals fail this check
    per = pooled(r["rating_excludes_0"] for r in res.values())
    assert per <= 0.10, res  # per rating at most 5%; 180 intervals (sum-to-zero ties them in groups)
    assert pooled(r["top_gap_excludes_0"] for r in res.values()) <= 0.10, res


def test_reports_find_an_edge_equal_to_their_printed_detectable_edge(work):
    """A seat-0 edge equal to the detectable edge a full report prints (80% power at the level its
    correction tests at) is called detectable in at least 80% of such reports; the figure the
    reports printed before (one test at 5%, not the report's correction) was found in about 40%."""
    res = cal.report_power(work, replicates=16, games=300, seed=1111, small=True)
    assert res["claims_per_report"] >= 10, res
    assert res["detected_holm"]["count"] >= 11, res  # 80% expected; 11 of 16 fails at 40% (p < 0.01)
