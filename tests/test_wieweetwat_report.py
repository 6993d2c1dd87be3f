"""Wie Weet Wat's report on a small real study: every section renders, the action cards' swings
carry intervals that are the ratio of the rows' sums with the games as clusters, and the
observational game-length analysis (length by cards drawn, the regression with robust intervals)
agrees with the same numbers computed directly from the rows."""
from __future__ import annotations

import json
import math

import numpy as np
import polars as pl
import pytest

from pipelines.run import run_study
from reports import build_report
from reports.games.wieweetwat import ACTIONS, ratio_interval
from sim.spec import StudySpec

GAMES = 400


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    out = tmp_path_factory.mktemp("wieweetwat")
    study = StudySpec.from_dict({
        "name": "wieweetwat-small", "seed": 3, "games": GAMES, "batch_size": 200,
        "defaults": {"game": "wieweetwat", "players": 4, "policy": "random"},
        "arm": [{"name": "default"},
                {"name": "heavy", "rules": {"action_pechvogel": 4, "action_rotonde": 3}}],
    })
    run_study(study, out, workers=0, progress=False)
    paths = build_report(out)
    rows = pl.read_parquet(out / "*" / "*.parquet")
    return json.loads(paths["json"].read_text()), paths["md"].read_text(), rows


def test_the_action_section_renders_with_intervals_and_the_length_tables(report):
    summary, markdown, _ = report
    assert "wieweetwat.actions" in summary["sections"]["wieweetwat"]["children"]
    for title in ("Per action card", "Categories per game by the cards of each action",
                  "regression (observational)"):
        assert title in markdown
    assert "observational" in markdown


def arm_rows(rows, arm):
    return rows.filter(pl.col("arm") == arm)


def test_swings_are_ratios_of_sums_with_cluster_intervals(report):
    summary, _, rows = report
    data = summary["sections"]["wieweetwat"]["children"]["wieweetwat.actions"]["data"]
    r = arm_rows(rows, "heavy")
    a = ACTIONS.index("Pechvogel")
    x = np.array([v[a] for v in r["actions_drawn"].to_list()], float)
    y = np.array([v[a] for v in r["action_self_change"].to_list()], float)
    swing = data["heavy"]["actions"]["Pechvogel"]["self"]
    ratio = y.sum() / x.sum()
    assert swing["estimate"] == pytest.approx(ratio)
    se = math.sqrt(((y - ratio * x) ** 2).sum() / (len(x) * (len(x) - 1))) / x.mean()
    assert swing["lo"] < ratio < swing["hi"]
    assert (swing["hi"] - swing["lo"]) / 2 == pytest.approx(1.966 * se, rel=0.01)  # t(399)


def test_ratio_interval_is_exact_when_y_is_a_multiple_of_x():
    e = ratio_interval(sum_y=-20.0, sum_x=10.0, sum_yy=40.0, sum_xy=-20.0, sum_xx=10.0, n=10)
    assert e.value == pytest.approx(-2.0) and e.hi - e.lo == pytest.approx(0.0, abs=1e-9)


def test_the_length_regression_matches_least_squares_with_hc1(report):
    summary, _, rows = report
    fit = summary["sections"]["wieweetwat"]["children"]["wieweetwat.actions"]["data"]["default"]["length_fit"]
    r = arm_rows(rows, "default")
    counts = np.array(r["actions_drawn"].to_list(), float)
    used = [a for a, title in enumerate(ACTIONS) if title in fit["coef"]]
    assert len(used) == 7  # every action is in the default deck and its count varies
    X = np.column_stack([np.ones(len(r))] + [counts[:, a] for a in used])
    y = r["categories"].to_numpy().astype(float)
    beta, *_ = np.linalg.lstsq(X, y, rcond=None)
    e = y - X @ beta
    inv = np.linalg.inv(X.T @ X)
    cov = inv @ (X.T * e**2) @ X @ inv * len(y) / (len(y) - X.shape[1])
    for pos, a in enumerate(used, start=1):
        coef = fit["coef"][ACTIONS[a]]
        assert coef["estimate"] == pytest.approx(beta[pos], rel=1e-6, abs=1e-6)
        half = (coef["hi"] - coef["lo"]) / 2
        assert half == pytest.approx(1.966 * math.sqrt(cov[pos, pos]), rel=0.01)


def test_length_by_count_is_the_mean_of_those_games(report):
    summary, _, rows = report
    data = summary["sections"]["wieweetwat"]["children"]["wieweetwat.actions"]["data"]
    r = arm_rows(rows, "default")
    a = ACTIONS.index("Grote Kans")
    drawn = np.array([v[a] for v in r["actions_drawn"].to_list()])
    length = r["categories"].to_numpy().astype(float)
    by_count = data["default"]["actions"]["Grote Kans"]["length_by_count"]
    mean = drawn.mean()
    picks = {"fewer": drawn < 0.75 * mean, "about as many": (drawn >= 0.75 * mean) & (drawn <= 1.25 * mean),
             "more": drawn > 1.25 * mean}
    assert set(by_count) == {b for b, pick in picks.items() if pick.any()}
    for b, est in by_count.items():
        assert est["estimate"] == pytest.approx(length[picks[b]].mean())
        assert est["n"] == picks[b].sum()
