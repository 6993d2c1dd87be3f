"""`kaartlab skill`: the study it plays (a strong player rotated over the seats among random ones,
plus an all-random baseline, on the same deals), its report section and the figure across games."""
from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path[:0] = [str(Path(__file__).resolve().parents[1]), str(Path(__file__).resolve().parent)]
from reports_fixtures import FakeArm, weighted_wins, write_study  # noqa: E402

from reports.context import Context, Options  # noqa: E402
from reports.dataset import Dataset  # noqa: E402
from reports.sections import skill  # noqa: E402
from sim.cli import main, skill_study  # noqa: E402
from sim.registry import get_game  # noqa: E402


def test_study_rotates_the_strong_player_over_the_seats():
    study = skill_study("toy", 3, 100, 4)
    assert [a.name for a in study.arms] == ["random", "greedy-seat0", "greedy-seat1", "greedy-seat2"]
    assert study.arms[0].policies == ("random",) * 3
    assert [a.policies.index("greedy") for a in study.arms[1:]] == [0, 1, 2]
    assert all(a.policies.count("random") == 2 for a in study.arms[1:])
    named = skill_study("toy", 2, 100, 4, strongest="greedy:bluff=0.5")
    assert named.arms[1].labels == ("greedy(bluff=0.5)", "random")


def test_a_declared_strongest_must_be_a_policy():
    with pytest.raises(ValueError, match="strongest"):
        dataclasses.replace(get_game("toy"), strongest="nobody")


def test_command_writes_the_report_figure_and_table(tmp_path):
    out, figure = tmp_path / "toy", tmp_path / "img" / "skill.png"
    code = main(["skill", "toy", "--players", "3", "--games", "400", "--workers", "0", "--out", str(out),
                 "--figure", str(figure), "--seed", "2"])
    assert code == 0
    summary = json.loads((out / "summary.json").read_text())
    design = summary["sections"]["skill"]["data"]["designs"][0]
    best = design["candidates"][0]
    assert design["strongest"] == best["player"] == "greedy" and best["all_seats"]
    share = best["share"]
    assert 0 <= share["lo"] < share["estimate"] < share["hi"] <= 1 and share["n"] == 400
    assert figure.read_bytes()[:4] == b"\x89PNG"
    table = figure.with_suffix(".md").read_text()
    assert "| toy | greedy | 3 |" in table and "%" in table.splitlines()[2]


def test_section_detects_a_player_that_wins_more_than_its_share(tmp_path):
    arms = [FakeArm("random", games=1500, policies=("random",) * 4)]
    for seat in range(4):
        seats = ["random"] * 4
        seats[seat] = "strong"
        probs = [0.5 if s == seat else 0.5 / 3 for s in range(4)]
        arms.append(FakeArm(f"strong-seat{seat}", games=1500, policies=tuple(seats), win_probs=tuple(probs)))
    written = write_study(tmp_path, arms, seed=8)["columns"]
    ds = Dataset(tmp_path)
    ctx = Context(ds, "knutten", Options.resolve(ds.study))
    (result,), = skill.skill_results(ctx)
    ctx.family.correct()
    assert result.player == "strong" and result.complete
    by_numpy = np.mean([weighted_wins(written[f"strong-seat{s}"], 4)[s] / 1500 for s in range(4)])
    assert result.share.value == pytest.approx(by_numpy)
    assert abs(result.share.value - arms[1].expected_shares()[0]) < 0.03
    assert result.share.lo > 0.45
    assert result.gain.lo > 0.2
    sec = skill.section(ctx)
    assert "detectably more than fair" in sec.verdicts[0]
