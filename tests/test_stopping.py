"""Stopping at a target precision (sim/stopping.py, pipelines/stopping.py, docs/stopping.md): the
confidence sequence, plan-order consumption, the [stop] table, and whole studies on the toy game that
stop, are extended by a smaller target, and refuse another study."""
from __future__ import annotations

import hashlib
import json
import math
from pathlib import Path

import numpy as np
import pytest

from benchmarks.calibration_stopping import SCENARIOS, replicate, run
from pipelines.run import run_study
from sim.errors import SpecError
from sim.spec import StudySpec
from sim.stopping import (Monitor, Stop, fixed_games_for, fixed_margin, games_for, tuned_rho2, unit_margin)


# -- the boundary -------------------------------------------------------------------------------------------
def test_sequence_is_wider_than_a_fixed_interval_and_narrowest_where_tuned():
    n = np.array([100, 1_000, 10_000, 100_000, 1_000_000])
    r = tuned_rho2(10_000)
    assert np.all(unit_margin(n, r) * np.sqrt(n) > fixed_margin())
    # tuned for 10,000: no other tuning is narrower there
    at = float(unit_margin(10_000, r))
    for other in (r / 10, r / 2, r * 2, r * 10):
        assert float(unit_margin(10_000, other)) > at
    # the ratio at the tuned time is about 1.55 at 95% (3.03 against 1.96)
    assert 1.45 < at * math.sqrt(10_000) / fixed_margin() < 1.65


def test_games_for_inverts_the_margin():
    sd, h = 0.4, 0.005
    n = games_for(h, sd)
    r = tuned_rho2(n)
    assert sd * float(unit_margin(n, r)) <= h < sd * float(unit_margin(n - 1, tuned_rho2(n - 1)))
    assert 2.0 < n / fixed_games_for(h, sd) < 2.8  # the price of looking as often as one likes


# -- plan order ---------------------------------------------------------------------------------------------
def _feed(order, values, stop):
    m = Monitor(stop, ["x"], 100)
    for i in order:
        m.add(int(i), [values[i]])
    return m


def test_monitor_consumes_only_the_prefix_whatever_the_order():
    rng = np.random.default_rng(3)
    values = [rng.normal(0, 1, 100) for _ in range(40)]
    stop = Stop(("turns",), 0.2, 4000, pilot=300)
    inorder = _feed(range(40), values, stop)
    shuffled = _feed(rng.permutation(40), values, stop)
    assert [(lk.batches, lk.intervals) for lk in inorder.looks] == [(lk.batches, lk.intervals) for lk in shuffled.looks]
    assert inorder.reached is not None and inorder.reached.batches == shuffled.reached.batches
    # batch 0 missing: nothing is consumed, however many later batches have landed
    gap = Monitor(stop, ["x"], 100)
    for i in range(1, 40):
        assert gap.add(i, [values[i]]) == []
    assert gap.consumed == 0 and not gap.looks
    assert len(gap.add(0, [values[0]])) == 38  # looks from the end of the pilot (3 batches) to 40


# -- calibration, quick --------------------------------------------------------------------------------------
def test_sequence_covers_under_continuous_monitoring_and_the_fixed_interval_does_not():
    sc = SCENARIOS["normal mean 0, sd 1"]
    seq = run({**sc, "kind": "sequence"}, 300, 5)
    fixed = run({**sc, "kind": "fixed"}, 300, 5)
    assert seq["always"] >= 0.92 and seq["width"] >= 0.92 and seq["sign"] >= 0.92
    assert fixed["always"] < 0.80 and fixed["sign"] < 0.88


def test_luck_adjusted_sequence_covers_and_is_unbiased_on_a_constructed_null():
    """Values with the luck of the draw regressed out (coefficients from batch 0, cross-fitted there):
    the sequence still covers the truth at every look, the estimate it stops on is centred on the truth,
    and it stops on fewer games than the same stream unadjusted (the luck is about 5% of its variance)."""
    from benchmarks.calibration_stopping import luck_adjusted_wins

    sc = SCENARIOS["seat-0 edge, luck-adjusted"]
    adjusted = run({**sc, "kind": "sequence"}, 300, 11)
    assert adjusted["always"] >= 0.92 and adjusted["width"] >= 0.92
    assert abs(adjusted["error"]) < 0.002
    plain = run({**sc, "kind": "sequence", "draw": lambda rng, shape: luck_adjusted_wins(rng, shape, adjust=False)},
                300, 11)
    assert plain["games"] > 1.02 * adjusted["games"]
    rng = np.random.default_rng(2)
    y = luck_adjusted_wins(rng, (50, 400))
    assert abs(y.mean()) < 4 * y.std() / np.sqrt(y.size)


def test_plan_order_keeps_coverage_when_long_games_finish_late():
    sc = dict(truth=0.0, draw=lambda rng, shape: (rng.random(shape) < 0.25).astype(float) - 0.25, batches=200,
              size=20, pilot=25, target=0.04)
    long_wins = lambda x: 1.0 + 2.0 * (x > 0)  # noqa: E731
    out = {}
    for order in ("plan", "completion"):
        rng = np.random.default_rng(7)
        reps = [replicate(rng, "sequence", order=order, workers=64, length=long_wins, **sc) for _ in range(200)]
        out[order] = (np.mean([r["always"] for r in reps]), np.mean([r["error"] for r in reps]))
    assert out["plan"][0] >= 0.92 and abs(out["plan"][1]) < 0.003
    assert out["completion"][0] < 0.5 and out["completion"][1] < -0.005


# -- the [stop] table ---------------------------------------------------------------------------------------
def _study_dict(**stop):
    return {"name": "toystop", "seed": 3, "batch_size": 1000,
            "defaults": {"game": "toy", "players": 4, "policy": "greedy"},
            "arm": [{"name": "a"}, {"name": "b", "rules": {"lowest_wins": True}}],
            "stop": {"measure": ["seat0_edge", "turns"], "half_width": 0.02, "max_games": 50_000, "pilot": 2000,
                     **stop}}


def test_stop_table_is_checked_and_outside_the_fingerprint():
    s = StudySpec.from_dict(_study_dict())
    assert s.games == 50_000 and s.stop.measures == ("seat0_edge", "turns")
    assert StudySpec.from_dict(_study_dict(half_width=0.001, max_games=90_000)).fingerprint() == s.fingerprint()
    other = _study_dict()
    other["seed"] = 4
    assert StudySpec.from_dict(other).fingerprint() != s.fingerprint()
    for bad, words in (({"measure": "balance"}, "per-game mean"), ({"measure": "nope"}, "not a measure of toy"),
                       ({"half_width": 0}, "positive"), ({"between": ["a", "c"]}, "no arm 'c'"),
                       ({"pilot": 1}, "pilot"), ({"colour": 1}, "unknown key 'colour'")):
        with pytest.raises(SpecError, match=words):
            StudySpec.from_dict(_study_dict(**bad))
    both = _study_dict()
    both["games"] = 10_000
    with pytest.raises(SpecError, match="give one of them"):
        StudySpec.from_dict(both)


# -- whole studies ------------------------------------------------------------------------------------------
def _hashes(out: Path) -> dict:
    return {str(p.relative_to(out)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(out.glob("*/batch-*.parquet"))}


def test_a_study_stops_and_a_smaller_target_extends_it(tmp_path):
    out = tmp_path / "run"
    lines = []
    run_study(StudySpec.from_dict(_study_dict()), str(out), workers=0, progress=False, say=lines.append)
    first = json.loads((out / "study.json").read_text())
    stopped = first["stopped"]
    assert stopped["reason"] == "half_width" and stopped["half_width"] <= 0.02
    assert first["study"]["games"] == stopped["games"] == stopped["reached_at"] < 50_000
    assert first["study"]["stop"]["half_width"] == 0.02
    assert len(_hashes(out)) == 2 * stopped["games"] // 1000  # exactly the games the decision used
    assert any(line.startswith("pilot: 2,000 games") for line in lines)
    before = _hashes(out)

    run_study(StudySpec.from_dict(_study_dict(half_width=0.01)), str(out), workers=0, progress=False)
    second = json.loads((out / "study.json").read_text())
    assert second["stopped"]["half_width"] <= 0.01 < stopped["half_width"]
    assert second["study"]["games"] > first["study"]["games"] and second["fingerprint"] == first["fingerprint"]
    after = _hashes(out)
    assert {k: after[k] for k in before} == before  # the first batches are byte-identical
    from pipelines.storage import StudyDir

    assert StudyDir(out).integrity().ok

    # a smaller cap than what is stored: nothing is played or removed, the stored games are kept
    run_study(StudySpec.from_dict(_study_dict(half_width=0.01, max_games=3000)), str(out), workers=0, progress=False)
    third = json.loads((out / "study.json").read_text())
    assert third["study"]["games"] == second["study"]["games"] and _hashes(out) == after

    other = _study_dict(half_width=0.01)
    other["seed"] = 99
    with pytest.raises(SpecError, match="holds another study"):
        run_study(StudySpec.from_dict(other), str(out), workers=0, progress=False)


def test_the_cap_stops_a_study_that_cannot_reach_the_target(tmp_path):
    out = tmp_path / "capped"
    run_study(StudySpec.from_dict(_study_dict(half_width=0.001, max_games=5_500)), str(out), workers=0,
              progress=False)
    stopped = json.loads((out / "study.json").read_text())["stopped"]
    assert stopped["reason"] == "max_games" and stopped["games"] == 5_000 and stopped["reached_at"] is None
    assert stopped["half_width"] > 0.001
    # the report says why it stopped, with the intervals it stopped on
    from reports.build import build_report

    summary = json.loads(build_report(out)["json"].read_text())
    section = summary["sections"]["stopping"]
    assert section["data"]["reason"] == "max_games" and section["data"]["intervals"] == stopped["intervals"]
    assert "hit its cap of 5,000 games per arm" in section["verdicts"][0]


def test_paired_difference_between_arms(tmp_path):
    out = tmp_path / "between"
    run_study(StudySpec.from_dict(_study_dict(measure="seat0_edge", between=["a", "b"], half_width=0.03)), str(out),
              workers=0, progress=False)
    stopped = json.loads((out / "study.json").read_text())["stopped"]
    assert [i["name"] for i in stopped["intervals"]] == ["b - a seat0_edge"]
    assert stopped["reason"] == "half_width" and stopped["half_width"] <= 0.03
    both = StudySpec.from_dict(_study_dict(measure="seat0_edge", between=["a", "b"], arms=["b"]))
    assert [s[0] for s in both.stop.streams(["a", "b"])] == ["b seat0_edge", "b - a seat0_edge"]
    assert both.stop.to_dict()["arms"] == ["b"]
    with pytest.raises(SpecError, match="names no interval"):
        StudySpec.from_dict(_study_dict(arms=[]))
    with pytest.raises(SpecError, match="no arm 'z'"):
        StudySpec.from_dict(_study_dict(arms=["z"]))


def test_ray_workers_stop_where_one_process_does(tmp_path):
    """On Ray batches land in any order and some are in flight when the target is reached: the stop is
    decided on the prefix in plan order and the batches past it are removed, so the dataset is the one a
    single process makes, file for file."""
    spec = StudySpec.from_dict(_study_dict(half_width=0.015, pilot=1000))
    lines = []
    run_study(spec, str(tmp_path / "one"), workers=0, progress=False)
    run_study(spec, str(tmp_path / "ray"), workers=2, progress=False, say=lines.append)
    one, ray = (json.loads((tmp_path / d / "study.json").read_text()) for d in ("one", "ray"))
    assert one["stopped"]["games"] == ray["stopped"]["games"] == ray["study"]["games"]
    assert one["stopped"]["intervals"] == ray["stopped"]["intervals"]
    assert _hashes(tmp_path / "one") == _hashes(tmp_path / "ray")


def test_a_batch_file_does_not_depend_on_the_round_that_played_it(tmp_path):
    """One run grows 2,000 -> ~4,000 games in two rounds; another starts with a pilot as long as the whole
    first run: the files they share are byte-identical (the head in a file's metadata names the cap)."""
    run_study(StudySpec.from_dict(_study_dict()), str(tmp_path / "rounds"), workers=0, progress=False)
    games = json.loads((tmp_path / "rounds" / "study.json").read_text())["study"]["games"]
    run_study(StudySpec.from_dict(_study_dict(pilot=games)), str(tmp_path / "once"), workers=0, progress=False)
    rounds, once = _hashes(tmp_path / "rounds"), _hashes(tmp_path / "once")
    assert rounds and rounds == {k: once[k] for k in rounds}


def test_a_run_cut_off_before_it_stopped_resumes_to_the_same_dataset(tmp_path, monkeypatch):
    from pipelines import stopping

    spec = StudySpec.from_dict(_study_dict(half_width=0.015, pilot=1000))
    run_study(spec, str(tmp_path / "whole"), workers=0, progress=False)
    whole = json.loads((tmp_path / "whole" / "study.json").read_text())
    original = stopping.Stopper.landed_batch
    seen = []

    def cut(self, batch):
        seen.append(batch)
        if len(seen) == 2 * whole["stopped"]["games"] // 1000 + 4:  # two batches per arm past the stopping look
            raise KeyboardInterrupt
        return False  # and it does not stop by itself: its rounds ask for three times the estimate

    monkeypatch.setattr(stopping.Stopper, "landed_batch", cut)
    monkeypatch.setattr(stopping, "GROWTH", 3.0)
    with pytest.raises(KeyboardInterrupt):
        run_study(spec, str(tmp_path / "cut"), workers=0, progress=False)
    assert "stopped" not in json.loads((tmp_path / "cut" / "study.json").read_text())
    assert len(list((tmp_path / "cut").glob("*/batch-*.parquet"))) == len(seen)
    monkeypatch.setattr(stopping.Stopper, "landed_batch", original)
    monkeypatch.setattr(stopping, "GROWTH", 1.05)
    lines = []
    run_study(spec, str(tmp_path / "cut"), workers=0, progress=False, say=lines.append)
    assert "removed 4 batch file(s) played past the stopping look" in lines
    cut_manifest = json.loads((tmp_path / "cut" / "study.json").read_text())
    assert cut_manifest["stopped"]["games"] == whole["stopped"]["games"] == cut_manifest["study"]["games"]
    assert _hashes(tmp_path / "cut") == _hashes(tmp_path / "whole")
    from pipelines.storage import StudyDir

    assert StudyDir(tmp_path / "cut").integrity().ok and not StudyDir(tmp_path / "cut").integrity().extra


def test_the_values_looked_at_are_the_reports_measures(tmp_path):
    """The stop's per-arm seat-0 edge and turns are the numbers the report's own function gives on the same
    games; the paired difference is the difference of the two arms' means."""
    import polars as pl

    from pipelines.stopping import _meta
    from reports.search import levels

    spec = StudySpec.from_dict(_study_dict(half_width=0.03))
    out = tmp_path / "same"
    run_study(spec, str(out), workers=0, progress=False)
    stopped = {i["name"]: i for i in json.loads((out / "study.json").read_text())["stopped"]["intervals"]}
    for arm in ("a", "b"):
        frame = pl.read_parquet(out / arm / "*.parquet")
        lv = levels(frame, _meta(spec, spec.arm(arm)), ["seat0_edge", "turns"])
        assert stopped[f"{arm} seat0_edge"]["value"] == pytest.approx(lv["seat0_edge"].value, abs=1e-12)
        assert stopped[f"{arm} turns"]["value"] == pytest.approx(lv["turns"].value, abs=1e-12)
        assert stopped[f"{arm} seat0_edge"]["games"] == frame.height
    paired = tmp_path / "paired"
    run_study(StudySpec.from_dict(_study_dict(half_width=0.03, measure="seat0_edge", between=["a", "b"])),
              str(paired), workers=0, progress=False)
    diff = json.loads((paired / "study.json").read_text())["stopped"]["intervals"][0]
    games = diff["games"]
    means = [pl.read_parquet(paired / arm / "*.parquet").filter(pl.col("game") < games) for arm in ("a", "b")]
    w0 = [((f["winner_mask"] & 1) > 0).cast(float) / f["n_winners"] for f in means]
    assert diff["value"] == pytest.approx(float(w0[1].mean() - w0[0].mean()), abs=1e-12)
