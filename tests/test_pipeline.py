"""Pipeline: run_batch, determinism across batch sizes and workers, resume, refusal to mix.

On the toy game (tests/toy/): it plays in microseconds, and Knutten's kernel is being replaced on
another branch. tests/test_reliability*.py hold the integrity, lock, Ray-failure and fault tests."""
from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import polars as pl
import pytest

from pipelines.batch import run_batch
from pipelines.plan import Batch, plan
from pipelines.run import run_study
from sim.errors import SpecError
from sim.spec import ArmSpec, StudySpec

ROOT = Path(__file__).resolve().parents[1]


def study(games=6_000, batch_size=1_000, seed=11, **arm_rules) -> StudySpec:
    arms = (ArmSpec.make("toy", 4, arm_rules, "greedy,greedy:bluff=0.3,random,greedy", name="mixed"),
            ArmSpec.make("toy", 3, {"lowest_wins": True}, "random", name="plain"))
    return StudySpec("pipe", seed, games, batch_size, arms)


def rows(directory) -> pl.DataFrame:
    return pl.scan_parquet(f"{directory}/*/batch-*.parquet").sort("arm", "game").collect()


def test_plan_covers_every_game_once():
    s = study(games=2_500, batch_size=1_000)
    batches = plan(s)
    assert [(b.arm, b.start, b.count) for b in batches if b.arm == "mixed"] == [
        ("mixed", 0, 1000), ("mixed", 1000, 1000), ("mixed", 2000, 500)]
    assert batches[0].relpath == "mixed/batch-000000.parquet"
    assert len(batches) == 6 and batches[-1] == Batch("plain", 2, 2000, 500) == batches[5]


def test_plan_is_lazy_for_a_huge_study():
    """A trillion games in batches of a million: planning stores nothing (a list of a million
    batches would take hundreds of MB); the last batch is computed, not searched for."""
    import tracemalloc

    tracemalloc.start()
    batches = plan(study(games=10**12, batch_size=10**6))
    last = batches[-1]
    size, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert len(batches) == 2 * 10**6 and last == Batch("plain", 10**6 - 1, 10**12 - 10**6, 10**6)
    assert peak < 1 << 20


def test_run_batch_is_a_plain_function_with_provenance():
    s = study()
    table = run_batch(s, Batch("mixed", 3, 3_000, 250))
    assert table.num_rows == 250
    assert table.column("game").to_pylist() == list(range(3_000, 3_250))
    assert set(table.column("arm").to_pylist()) == {"mixed"}
    meta = table.schema.metadata
    assert meta[b"kaartlab.fingerprint"].decode() == s.fingerprint()
    assert json.loads(meta[b"kaartlab.study_head"])["seed"] == 11
    assert json.loads(meta[b"kaartlab.arm_spec"])["name"] == "mixed" and b"kaartlab.study" not in meta
    assert meta[b"kaartlab.arm_index"] == str([a.name for a in s.arms].index("mixed")).encode()


def test_a_batch_file_carries_its_arm_not_the_whole_study():
    """With 300 arms a batch's metadata stays the size of one arm's description (the whole study
    in every file grew with the square of the arms: 262 KB a file at 200 arms)."""
    from pipelines.batch import batch_metadata

    def metadata_bytes(thresholds) -> int:
        spec = StudySpec.from_dict({"name": "s", "games": 10, "sweep": [
            {"name": "t", "game": "knutten", "players": 4, "vary": {"threshold": thresholds, "hand_limit": [3, 4]}}]})
        return len(spec.arms), sum(len(v) for v in batch_metadata(spec, "t-30-3").values())

    (few, small), (many, big) = metadata_bytes([30, 31]), metadata_bytes({"from": 5, "to": 200})
    assert (few, many) == (4, 392) and big < 1.1 * small and big < 3000


def test_batch_files_are_written_as_storage_says(tmp_path):
    """Every column required (no definition levels), integer list items and wide integers
    delta-packed, narrow ones plain, lz4 everywhere, statistics only for `game`."""
    import pyarrow.parquet as pq

    run_study(study(games=500, batch_size=500), tmp_path / "s", workers=0, progress=False)
    meta = pq.ParquetFile(tmp_path / "s" / "mixed" / "batch-000000.parquet").metadata
    assert meta.schema.to_arrow_schema().field("score").nullable is False
    columns = {meta.row_group(0).column(i).path_in_schema: meta.row_group(0).column(i)
               for i in range(meta.num_columns)}
    assert all(c.compression == "LZ4" for c in columns.values())
    for path in ("game", "turns", "winner_mask", "score.list.element"):
        assert "DELTA_BINARY_PACKED" in columns[path].encodings, path
    for path in ("players", "tied_tricks", "doubled_tricks"):
        assert "PLAIN" in columns[path].encodings and "DELTA_BINARY_PACKED" not in columns[path].encodings
    assert [p for p, c in columns.items() if c.is_stats_set] == ["game"]
    for i in range(len(meta.schema)):  # levels only for list structure (1 for `score`), not nulls
        column = meta.schema.column(i)
        assert column.max_definition_level == column.max_repetition_level, column.path


def test_same_rows_whatever_the_batch_size(tmp_path):
    a = run_study(study(batch_size=1_000), tmp_path / "a", workers=0, progress=False)
    b = run_study(study(batch_size=7_777), tmp_path / "b", workers=0, progress=False)
    assert a.games_run == b.games_run == 12_000
    assert rows(tmp_path / "a").equals(rows(tmp_path / "b"))


def test_same_rows_for_one_and_two_ray_workers(tmp_path):
    ray = pytest.importorskip("ray")
    try:
        run_study(study(), tmp_path / "one", workers=1, progress=False)
        ray.shutdown()
        run_study(study(), tmp_path / "two", workers=2, progress=False)
    finally:
        ray.shutdown()
    local = run_study(study(), tmp_path / "local", workers=0, progress=False)
    assert local.games_run == 12_000
    one, two = rows(tmp_path / "one"), rows(tmp_path / "two")
    assert one.height == 12_000
    assert one.equals(two)
    assert one.equals(rows(tmp_path / "local"))


def test_different_seed_gives_different_games(tmp_path):
    run_study(study(seed=1), tmp_path / "a", workers=0, progress=False)
    run_study(study(seed=2), tmp_path / "b", workers=0, progress=False)
    assert not rows(tmp_path / "a")["score"].equals(rows(tmp_path / "b")["score"])


def test_manifest_records_provenance(tmp_path):
    run_study(study(games=1_000), tmp_path / "d", workers=0, progress=False)
    manifest = json.loads((tmp_path / "d" / "study.json").read_text())
    assert manifest["fingerprint"] == study(games=1_000).fingerprint()
    assert manifest["study"]["arms"][0]["policies"] == ["greedy", "greedy(bluff=0.3)", "random", "greedy"]
    assert manifest["games"]["toy"] == {"version": 1, "score": "tricks won", "higher_score_wins": True}
    prov = manifest["provenance"]
    assert prov["packages"]["numba"] and prov["packages"]["pyarrow"] and prov["python"]
    assert manifest["integrity"] == "sha256-sidecar-1"
    # which code wrote which batch: every batch's record names the run, the commit and the process
    record = json.loads((tmp_path / "d" / "mixed" / "batch-000000.parquet.json").read_text())
    assert record["rows"] == record["count"] == 1_000 and len(record["sha256"]) == 64
    assert set(record["writer"]) >= {"kaartlab", "git", "host", "pid"} and record["run"]


def test_rerun_resumes_and_refuses_another_study(tmp_path):
    out = tmp_path / "d"
    first = run_study(study(), out, workers=0, progress=False)
    assert (first.batches_run, first.resumed) == (12, False)
    (out / "mixed" / "batch-000002.parquet").unlink()
    again = run_study(study(), out, workers=0, progress=False)
    assert (again.batches_run, again.batches_skipped, again.resumed) == (1, 11, True)
    before = {p: p.stat().st_mtime_ns for p in out.rglob("*")}
    with pytest.raises(SpecError, match="holds another study"):
        run_study(study(seed=99), out, workers=0, progress=False)
    assert {p: p.stat().st_mtime_ns for p in out.rglob("*")} == before


def test_refuses_non_study_directory_and_file(tmp_path):
    (tmp_path / "junk").mkdir()
    (tmp_path / "junk" / "notes.txt").write_text("mine")
    with pytest.raises(SpecError, match="not empty"):
        run_study(study(), tmp_path / "junk", workers=0, progress=False)
    (tmp_path / "file").write_text("x")
    with pytest.raises(SpecError, match="is a file"):
        run_study(study(), tmp_path / "file", workers=0, progress=False)
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["file", "junk", "notes.txt"]


def test_resume_after_the_run_is_killed(tmp_path):
    out = tmp_path / "killed"
    cmd = [sys.executable, "-m", "sim.cli", "run", "toy", "--games", "2000000", "--players", "4",
           "--policy", "greedy", "--batch-size", "10000", "--workers", "0", "--seed", "5",
           "--out", str(out), "--no-progress"]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.time() + 240
    while time.time() < deadline and len(list(out.glob("main/batch-*.parquet.json"))) < 3:
        if proc.poll() is not None:
            pytest.fail("run ended before it could be killed: " + proc.stderr.read().decode())
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    partial = len(list(out.glob("main/batch-*.parquet.json")))
    assert 3 <= partial < 200, "the kill should land part-way"
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert f"{partial} batches were already done" in done.stdout
    games = pl.scan_parquet(f"{out}/main/*.parquet").select("game").collect()["game"]
    assert games.len() == 2_000_000 and games.n_unique() == 2_000_000
    assert not list(out.rglob("*.tmp-*"))


def test_a_search_arm_has_its_own_plan_and_ordinary_arms_keep_theirs():
    """A search's arms carry their own games, first game and batch size (sim/search.Extent); indexing
    the plan and iterating it agree, and the ordinary arms' batches are those of the study."""
    from dataclasses import replace

    from sim.search import Extent

    s = study(games=2_500, batch_size=1_000)
    extra = ArmSpec.make("toy", 4, {}, "random", name="found-best")
    grown = replace(s, arms=s.arms + (extra,), extents=(Extent("found-best", 1_200, 8_000, 500, "found", "final"),))
    batches = plan(grown)
    assert [(b.start, b.count) for b in batches if b.arm == "found-best"] == [(8_000, 500), (8_500, 500), (9_000, 200)]
    assert [b for b in batches if b.arm != "found-best"] == list(plan(s))
    assert [batches[i] for i in range(len(batches))] == list(batches) and len(batches) == 9
    assert batches[-1] == Batch("found-best", 2, 9_000, 200) and batches.batch("found-best", 1).start == 8_500
    assert grown.fingerprint() == s.fingerprint() and grown.to_dict()["arms"][2]["first"] == 8_000
