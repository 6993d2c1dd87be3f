"""Wie Weet Wat kernel speed: full games and categories read per second on one core, per policy.

    python benchmarks/wieweetwat_kernel.py [--players 4] [--repeats 5] [--policies random,spoiler]

For each policy every seat plays it, full games to three rounds with the default rules, letter mix
and category list. The first call is timed apart (compile time: by default Numba's cache points at
a fresh temporary directory, so this is a real compile; --use-cache loads the project's on-disk
cache instead), then the median of `repeats` timed batches after it is reported. The kernel is
called through the runner's `bench_call` (the kernel alone: no Arrow table, no files), as the
pipeline's hot loop. Reported per wall-clock second and per CPU second of the calling thread (the
kernel is single-threaded; on a shared machine the CPU figure is the steadier one).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

BATCH = 5_000  # games per timed batch: roughly 0.2-0.5 s on one core


def bench(players: int, policy: str, repeats: int) -> dict:
    from sim.registry import games
    from sim.spec import ArmSpec

    arm = ArmSpec.make("wieweetwat", players, {}, policy)
    runner = games()["wieweetwat"].runner()
    inputs = runner.kernel_inputs(arm)
    t0 = time.perf_counter()
    runner.run_kernel(arm, 12345, 0, 1, inputs=inputs)
    first_call = time.perf_counter() - t0
    wall, cpu, categories = [], [], []
    for rep in range(repeats):
        t0, c0 = time.perf_counter(), time.thread_time()
        out, _ = runner.run_kernel(arm, 12345, (rep + 1) * BATCH, BATCH, inputs=inputs)
        wall.append(time.perf_counter() - t0)
        cpu.append(time.thread_time() - c0)
        categories.append(int(out["categories"].sum()))
    median, median_cpu = statistics.median(wall), statistics.median(cpu)
    per_game = sum(categories) / (repeats * BATCH)
    return {"game": "wieweetwat", "players": players, "policy": policy, "games": BATCH,
            "repeats": repeats, "first_call_s": round(first_call, 3),
            "compiled": "wieweetwat-bench-" in os.environ.get("NUMBA_CACHE_DIR", ""),
            "median_s": round(median, 4), "games_per_s": round(BATCH / median),
            "cpu_games_per_s": round(BATCH / median_cpu),
            "categories_per_game": round(per_game, 1),
            "categories_per_s": round(BATCH * per_game / median),
            "cpu_categories_per_s": round(BATCH * per_game / median_cpu)}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--policies", default="random,spoiler")
    parser.add_argument("--json", help="write the results to this file")
    parser.add_argument("--use-cache", action="store_true",
                        help="load compiled kernels from Numba's cache (first call = load time)")
    args = parser.parse_args(argv)
    if not args.use_cache:
        os.environ["NUMBA_CACHE_DIR"] = tempfile.mkdtemp(prefix="wieweetwat-bench-")  # before numba loads
    results = [bench(args.players, p, args.repeats) for p in args.policies.split(",")]
    for r in results:
        print(f"wieweetwat {r['players']}p {r['policy']:>8}: {r['games_per_s']:>7} games/s, "
              f"{r['categories_per_s']:>9} categories/s wall; {r['cpu_games_per_s']:>7} games/s, "
              f"{r['cpu_categories_per_s']:>9} categories/s per CPU second "
              f"({r['categories_per_game']} categories a game; median of {r['repeats']} x "
              f"{r['games']}; first call {r['first_call_s']} s)")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
