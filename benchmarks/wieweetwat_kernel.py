"""Wie Weet Wat kernel speed: full games and categories read per second on one core, per policy.

    python benchmarks/wieweetwat_kernel.py [--players 4] [--repeats 5] [--policies random,spoiler]

For each policy every seat plays it, full games to three rounds with the default rules, letter mix
and category list. The first call is timed apart (compile time: by default Numba's cache points at
a fresh temporary directory, so this is a real compile; --use-cache loads the project's on-disk
cache instead), then the median of `repeats` timed batches after it is reported. The kernel is
called through the runner's `bench_call` (the kernel alone: no Arrow table, no files), as the
pipeline's hot loop. Reported per wall-clock second and per CPU second of the calling thread (the
kernel is single-threaded; on a shared machine the CPU figure is the steadier one).

The same-process A/B against a git revision is `python -m benchmarks.ab_game wieweetwat REF`.
"""
from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.kernel_timing import fresh_cache, parser, time_batches, write_json  # noqa: E402

BATCH = 5_000  # games per timed batch: roughly 0.2-0.5 s on one core


def bench(players: int, policy: str, repeats: int) -> dict:
    from sim.registry import games
    from sim.spec import ArmSpec

    arm = ArmSpec.make("wieweetwat", players, {}, policy)
    runner = games()["wieweetwat"].runner()
    inputs = runner.kernel_inputs(arm)

    def run(start: int, count: int) -> int:
        out, _ = runner.run_kernel(arm, 12345, start, count, inputs=inputs)
        return int(out["categories"].sum())

    return {"players": players, "policy": policy,
            **time_batches("wieweetwat", run, BATCH, repeats, unit="categories")}


def main(argv=None) -> int:
    options = parser(__doc__, "random,spoiler")
    args = options.parse_args(argv)
    fresh_cache("wieweetwat", args.use_cache)
    results = [bench(args.players, p, args.repeats) for p in args.policies.split(",")]
    for r in results:
        print(f"wieweetwat {r['players']}p {r['policy']:>8}: {r['games_per_s']:>7} games/s, "
              f"{r['categories_per_s']:>9} categories/s wall; {r['cpu_games_per_s']:>7} games/s, "
              f"{r['cpu_categories_per_s']:>9} categories/s per CPU second "
              f"({r['categories_per_game']} categories a game; median of {r['repeats']} x "
              f"{r['games']}; first call {r['first_call_s']} s)")
    write_json(results, args.json)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
