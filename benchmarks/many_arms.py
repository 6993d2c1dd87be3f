"""A study of many arms: what each batch file costs in time and bytes when a study has 1,000 arms
(a sweep's or a search's size), and what the old scheme, every file carrying the whole study in its
metadata, would have cost.

    python -m benchmarks.many_arms [--arms 1000] [--games 1] [--game knutten] [--workers 0] [--json PATH]

Arms differ in one rule (Knutten's threshold, 25 to 40 in turn) and are named a0000, a0001, ...;
each plays --games games in one batch file. Measured: the run (wall time, and per batch file), a
resumed run that finds everything done, `kaartlab verify` (integrity check with hashes), and the
bytes of a batch file, of its metadata, of its record and of study.json, beside the bytes the whole
study would add to every file's metadata (the scheme before 2026-12-03: `kaartlab.study`).
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def make_study(arms: int, games: int, game: str):
    from sim.spec import ArmSpec, StudySpec

    rules = {"knutten": lambda i: {"threshold": 25 + i % 16}}.get(game, lambda i: {})
    specs = tuple(ArmSpec.make(game, 4, rules(i), None, name=f"a{i:04d}") for i in range(arms))
    return StudySpec(f"arms-{arms}", 1, games, games, specs)


def measure(arms: int, games: int, game: str, workers: int, out: Path) -> dict:
    import pyarrow.parquet as pq

    from pipelines.run import run_study, warm_up
    from pipelines.storage import StudyDir

    began = time.perf_counter()
    study = make_study(arms, games, game)
    spec_seconds = time.perf_counter() - began
    warm_up(study, study.arms[:1])  # the kernel loads once, outside the clock
    began = time.perf_counter()
    result = run_study(study, out, workers=workers, progress=False)
    run_seconds = time.perf_counter() - began
    began = time.perf_counter()
    again = run_study(study, out, workers=workers, progress=False)
    resume_seconds = time.perf_counter() - began
    assert again.batches_run == 0, "the resumed run found work"
    began = time.perf_counter()
    state = StudyDir(out).integrity()
    verify_seconds = time.perf_counter() - began
    assert state.ok, state.lines()[:5]
    files = sorted(out.glob("*/batch-*.parquet"))
    records = sorted(out.glob("*/batch-*.parquet.json"))
    sizes = [f.stat().st_size for f in files]
    meta = [sum(len(k) + len(v) for k, v in (pq.read_schema(f).metadata or {}).items()) for f in files[:50]]
    whole = len(json.dumps(study.to_dict(), sort_keys=True).encode())
    batches = len(files)
    return {
        "arms": arms, "games_per_arm": games, "game": game, "workers": workers, "batch_files": batches,
        "spec_seconds": round(spec_seconds, 3),
        "run_seconds": round(run_seconds, 3), "play_seconds": round(result.seconds, 3),
        "ms_per_batch": round(1000 * run_seconds / batches, 2),
        "resume_seconds": round(resume_seconds, 3), "verify_seconds": round(verify_seconds, 3),
        "batch_bytes_mean": round(sum(sizes) / batches), "metadata_bytes_mean": round(sum(meta) / len(meta)),
        "record_bytes_mean": round(sum(r.stat().st_size for r in records) / len(records)),
        "study_json_bytes": (out / "study.json").stat().st_size,
        "whole_study_bytes_per_file_before": whole,
        "whole_study_bytes_all_files_before": whole * batches,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.many_arms", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--arms", type=int, default=1000)
    parser.add_argument("--games", type=int, default=1, help="games per arm, in one batch file")
    parser.add_argument("--game", default="knutten")
    parser.add_argument("--workers", type=int, default=0, help="0: in this process (default); N: Ray")
    parser.add_argument("--out", help="study directory (default: a temporary one, removed)")
    parser.add_argument("--json", help="write the figures here")
    args = parser.parse_args(argv)
    out = Path(args.out) if args.out else Path(tempfile.mkdtemp(prefix="many-arms-")) / "d"
    try:
        figures = measure(args.arms, args.games, args.game, args.workers, out)
    finally:
        if not args.out:
            shutil.rmtree(out.parent, ignore_errors=True)
    figures["created"] = time.strftime("%Y-%m-%d %H:%M", time.gmtime())
    figures["cpus"] = os.cpu_count()
    for key, value in figures.items():
        print(f"{key:36} {value:,}" if isinstance(value, (int, float)) else f"{key:36} {value}")
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
