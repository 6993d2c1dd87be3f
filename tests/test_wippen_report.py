"""Wippen's report plug-in on a small real study: every section renders from the rows, the point
sources add up to the scores, and the deck-count comparison pairs the arms."""
from __future__ import annotations

import json

import polars as pl
import pytest

from pipelines.run import run_study
from reports import build_report
from sim.spec import StudySpec


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    out = tmp_path_factory.mktemp("wippen")
    study = StudySpec.from_dict({
        "name": "wippen-small", "seed": 5, "games": 400, "batch_size": 200,
        "defaults": {"game": "wippen", "players": 4},
        "arm": [{"name": "two-decks", "policy": "greedy,defensive,builder,random"},
                {"name": "one-deck", "policy": "greedy,defensive,builder,random",
                 "rules": {"decks": 1}}],
    })
    run_study(study, out, workers=0, progress=False)
    paths = build_report(out)
    return out, json.loads(paths["json"].read_text()), paths["md"].read_text()


def test_every_wippen_section_renders(report):
    _, summary, markdown = report
    wippen = summary["sections"]["wippen"]
    assert list(wippen["children"]) == ["wippen.positions", "wippen.sources", "wippen.actions"]
    for title in ("Where the points come from", "Seat and dealer effects",
                  "Captures, builds and takeovers by policy"):
        assert title in markdown
    # the deck-count pair is the variant comparison's: named here, its numbers not repeated
    assert wippen["data"]["build_pairs"] == ["one-deck vs two-decks"]
    assert any("variant comparison above" in v for v in wippen["verdicts"])


def test_dealer_verdict_is_a_corrected_claim(report):
    _, summary, _ = report
    claims = summary["sections"]["claims"]["data"]["claims"]
    keys = [k for k in claims if k.startswith("wippen:wippen/") and k.endswith("/dealer-first")]
    assert sorted(keys) == ["wippen:wippen/one-deck/dealer-first", "wippen:wippen/two-decks/dealer-first"]
    positions = summary["sections"]["wippen"]["children"]["wippen.positions"]["data"]["arms"]
    verdicts = " ".join(summary["sections"]["wippen"]["verdicts"])
    for arm, data in positions.items():
        claim = claims[f"wippen:wippen/{arm}/dealer-first"]
        assert data["dealer_minus_first_detected"] == claim["detected"]
        assert claim["p_value"] == pytest.approx(data["dealer_minus_first"]["p_value"])
        # worded from the corrected decision: an arm is named as 'no detectable difference' exactly when
        # its claim is not detected after the correction
        undecided = "no detectable difference at this size in" in verdicts and \
            arm in verdicts.split("no detectable difference at this size in")[1].split("(")[0]
        assert undecided == (not claim["detected"])


def test_point_sources_add_up_to_the_scores(report):
    out, _, _ = report
    rows = pl.read_parquet(out / "*" / "*.parquet")
    sources = [c for c in rows.columns if c.startswith("points_")]
    assert sources, rows.columns
    total = rows.select(pl.sum_horizontal([pl.col(c).list.sum() for c in sources])).to_series()
    assert (total == rows["score"].list.sum()).all()
