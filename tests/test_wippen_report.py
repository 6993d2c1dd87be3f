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
    assert set(wippen["children"]) >= {"wippen.sources", "wippen.positions", "wippen.actions",
                                       "wippen.options"}
    for title in ("Where the points come from", "Seat and dealer effects",
                  "Captures, builds and takeovers by policy", "One deck or two"):
        assert title in markdown


def test_point_sources_add_up_to_the_scores(report):
    out, _, _ = report
    rows = pl.read_parquet(out / "*" / "*.parquet")
    sources = [c for c in rows.columns if c.startswith("points_")]
    assert sources, rows.columns
    total = rows.select(pl.sum_horizontal([pl.col(c).list.sum() for c in sources])).to_series()
    assert (total == rows["score"].list.sum()).all()
