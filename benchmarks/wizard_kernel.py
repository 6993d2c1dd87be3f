"""Wizard kernel speed: full games per second on one core, per policy.

    python benchmarks/wizard_kernel.py [--players 4] [--repeats 5] [--json out.json]

For each policy, every seat plays it: the first call is timed apart (compile time: by default
Numba's cache points at a fresh temporary directory, so this is a real compile; --use-cache loads
the project's on-disk cache instead), then the median of `repeats` timed batches is reported. The
kernel is called directly (no Arrow table), with all output arrays, as the pipeline's hot loop.
Reported: games per wall-clock second and per CPU second of the calling thread (the kernel runs
single-threaded); on a shared machine the CPU figure is the steadier one.
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.kernel_timing import fresh_cache, parser, time_batches, write_json  # noqa: E402

# games per timed batch: each batch takes roughly 0.2-0.5 s on one core
BATCH = {"random": 20_000, "heuristic": 10_000, "sampler": 100, "search": 20}
POLICY_IDS = {"random": 0, "heuristic": 1, "sampler": 2, "search": 4}  # kernels/wizard/enums.py P_*


def make_runner(players: int, policy: str, count: int, rounds: int = 0):
    from kernels.wizard import enums as e
    from kernels.wizard.play_nb import play_games_nb

    n = players
    rule_i = np.zeros(len(e.RULE_I_ORDER), dtype=np.int64)
    rule_i[e.R_ROUNDS] = rounds
    from sim.games.wizard import SAMPLES

    policies = np.full(n, POLICY_IDS[policy], dtype=np.int64)
    seat_i = np.full((n, len(e.SEAT_I_ORDER)), SAMPLES.default, dtype=np.int64)  # the default budget
    args = (rule_i, np.zeros(0, np.float64), policies, seat_i,
            np.zeros((n, 0), np.float64), (np.arange(n) if policy == "search" else None,),
            np.zeros(count, dtype=e.OUT_DTYPE), None, False)

    def run(start: int, games: int):
        status, failed, _ = play_games_nb(np.int64(12345), np.int64(start), np.int64(games), *args)
        if status != 0:
            raise RuntimeError(f"kernel status {status} at game {failed}")

    return run


def bench(players: int, policy: str, repeats: int) -> dict:
    count = BATCH[policy]
    return {"players": players, "policy": policy,
            **time_batches("wizard", make_runner(players, policy, count), count, repeats)}


def main(argv=None) -> int:
    args = parser(__doc__, "random,heuristic,sampler,search").parse_args(argv)
    fresh_cache("wizard", args.use_cache)
    results = [bench(args.players, p, args.repeats) for p in args.policies.split(",")]
    for r in results:
        print(f"wizard {r['players']}p {r['policy']:>9}: {r['games_per_s']:>8} games/s wall, "
              f"{r['cpu_games_per_s']:>8} per CPU second (median of {r['repeats']} x {r['games']}; "
              f"best wall {r['best_games_per_s']}; first call {r['first_call_s']} s)")
    write_json(results, args.json)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
