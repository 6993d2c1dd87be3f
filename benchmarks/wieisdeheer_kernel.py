"""Wie is de Heer? kernel speed: full games and turns per second on one core, per policy.

    python benchmarks/wieisdeheer_kernel.py [--players 4] [--repeats 5] [--policies reasoner,racer,random]

For each policy every seat plays it (default rules and player parameters: the reasoners keep and
update their beliefs about the mole on every act on a rich pile and every answer). The first call
is timed apart (compile time: by default Numba's cache points at a fresh temporary directory, so this
is a real compile; --use-cache loads the project's on-disk cache instead), then the median of
`repeats` timed batches after it is reported. The kernel is called directly (no Arrow table), as the
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

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

BATCH = 20_000  # games per timed batch: roughly 0.2-1 s on one core


def make_runner(players: int, policy: str, count: int):
    from kernels.wieisdeheer import enums as e
    from kernels.wieisdeheer.play_nb import play_games_nb
    from sim.registry import games
    from sim.spec import ArmSpec

    arm = ArmSpec.make("wieisdeheer", players, {}, policy)
    inputs = games()["wieisdeheer"].runner().kernel_inputs(arm)
    out = np.zeros(count, dtype=e.OUT_DTYPE)

    def run(start: int, n: int) -> int:
        status, failed, _ = play_games_nb(np.int64(12345), np.int64(start), np.int64(n), *inputs, out, None,
                                          False)
        if status != 0:
            raise RuntimeError(f"kernel status {status} at game {failed}")
        return int(out["turns"][:n].sum())

    return run


def bench(players: int, policy: str, repeats: int, count: int = BATCH) -> dict:
    run = make_runner(players, policy, count)
    t0 = time.perf_counter()
    run(0, 1)
    first_call = time.perf_counter() - t0
    wall, cpu, turns = [], [], []
    for rep in range(repeats):
        t0, c0 = time.perf_counter(), time.thread_time()
        turns.append(run((rep + 1) * count, count))
        wall.append(time.perf_counter() - t0)
        cpu.append(time.thread_time() - c0)
    median, median_cpu = statistics.median(wall), statistics.median(cpu)
    per_game = sum(turns) / (repeats * count)
    return {"game": "wieisdeheer", "players": players, "policy": policy, "games": count,
            "repeats": repeats, "first_call_s": round(first_call, 3),
            "compiled": "heer-bench-" in os.environ.get("NUMBA_CACHE_DIR", ""),
            "median_s": round(median, 4), "games_per_s": round(count / median),
            "cpu_games_per_s": round(count / median_cpu), "turns_per_game": round(per_game, 1),
            "cpu_turns_per_s": round(count * per_game / median_cpu)}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--policies", default="reasoner,racer,random")
    parser.add_argument("--json", help="write the results to this file")
    parser.add_argument("--use-cache", action="store_true",
                        help="load compiled kernels from Numba's cache (first call = load time)")
    args = parser.parse_args(argv)
    if not args.use_cache:
        os.environ["NUMBA_CACHE_DIR"] = tempfile.mkdtemp(prefix="heer-bench-")  # before numba loads
    results = [bench(args.players, p, args.repeats) for p in args.policies.split(",")]
    for r in results:
        print(f"wieisdeheer {r['players']}p {r['policy']:>9}: {r['games_per_s']:>7} games/s wall, "
              f"{r['cpu_games_per_s']:>7} games/s per CPU second, {r['cpu_turns_per_s']:>9} turns/s per CPU "
              f"second ({r['turns_per_game']} turns a game; median of {r['repeats']} x {r['games']}; first call "
              f"{r['first_call_s']} s)")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
