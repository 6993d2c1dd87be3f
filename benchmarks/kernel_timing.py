"""Steady-state timing shared by the per-game kernel benchmarks (benchmarks/<game>_kernel.py).

Each of them builds a `run(start, count)` that plays games start .. start+count-1 with one game's
kernel (no Arrow table, no files: the pipeline's hot loop) and returns how many units it played
(card plays, turns, categories) or None. time_batches times the first call apart (a real compile:
the benchmark points Numba's cache at a fresh temporary directory unless --use-cache, then it is
the cache's load time) and reports the median of `repeats` batches after it, per wall-clock second
and per CPU second of the calling thread (the kernel is single-threaded; on a shared machine the
CPU figure is the steadier one).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path


def parser(doc: str, policies: str) -> argparse.ArgumentParser:
    """The options every kernel benchmark takes; a benchmark may add its own."""
    p = argparse.ArgumentParser(description=doc.splitlines()[0])
    p.add_argument("--players", type=int, default=4)
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--policies", default=policies)
    p.add_argument("--json", help="write the results to this file")
    p.add_argument("--use-cache", action="store_true",
                   help="load compiled kernels from Numba's cache (first call = load time)")
    return p


def fresh_cache(game: str, use_cache: bool) -> None:
    """Point Numba's cache at a new temporary directory (before Numba loads), so the first call is a
    real compile, unless the project's cache is wanted."""
    if not use_cache:
        os.environ["NUMBA_CACHE_DIR"] = tempfile.mkdtemp(prefix=f"{game}-bench-")


def time_batches(game: str, run: Callable[[int, int], int | None], count: int, repeats: int,
                 unit: str | None = None) -> dict:
    """Timings of `repeats` batches of `count` games after a first call of one game; with `unit`,
    also `unit`s per game and per second (run returns how many it played)."""
    t0 = time.perf_counter()
    run(0, 1)
    first_call = time.perf_counter() - t0
    wall, cpu, units = [], [], []
    for rep in range(repeats):
        t0, c0 = time.perf_counter(), time.thread_time()
        units.append(run((rep + 1) * count, count))
        wall.append(time.perf_counter() - t0)
        cpu.append(time.thread_time() - c0)
    median, median_cpu = statistics.median(wall), statistics.median(cpu)
    result = {"game": game, "games": count, "repeats": repeats,
              "first_call_s": round(first_call, 3),
              "compiled": f"{game}-bench-" in os.environ.get("NUMBA_CACHE_DIR", ""),
              "median_s": round(median, 4), "games_per_s": round(count / median),
              "best_games_per_s": round(count / min(wall)),
              "cpu_games_per_s": round(count / median_cpu)}
    if unit:
        per_game = sum(units) / (repeats * count)
        result |= {f"{unit}_per_game": round(per_game, 1),
                   f"{unit}_per_s": round(count * per_game / median),
                   f"cpu_{unit}_per_s": round(count * per_game / median_cpu)}
    return result


def write_json(results: list[dict], path: str | None) -> None:
    if path:
        Path(path).write_text(json.dumps(results, indent=2) + "\n")
