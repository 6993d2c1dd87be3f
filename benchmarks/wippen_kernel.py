"""Wippen kernel speed: full games and card plays per second on one core, per policy.

    python benchmarks/wippen_kernel.py [--players 4] [--repeats 5] [--policies greedy,random]

For each policy every seat plays it, full games to the default target (52). The first call is timed
apart (compile time: by default Numba's cache points at a fresh temporary directory, so this is a
real compile; --use-cache loads the project's on-disk cache instead), then the median of `repeats`
timed batches after it is reported. The kernel is called directly (no Arrow table), as the
pipeline's hot loop. Card plays are the `turns` of the games played. Reported per wall-clock
second and per CPU second of the calling thread (the kernel is single-threaded; on a shared machine
the CPU figure is the steadier one).
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.kernel_timing import fresh_cache, parser, time_batches, write_json  # noqa: E402

# games per timed batch: roughly 0.3-1 s on one core
BATCH = {"random": 1_000, "greedy": 1_000, "defensive": 500, "builder": 1_000}


def make_runner(players: int, policy: str, count: int):
    """Every seat plays `policy` with its default parameters; the kernel's inputs come from the
    game's own runner (so that a new rule or player parameter cannot leave this benchmark behind)."""
    from kernels.wippen import enums as e
    from kernels.wippen.play_nb import play_games_nb
    from sim.registry import games
    from sim.spec import ArmSpec

    inputs = games()["wippen"].runner().kernel_inputs(ArmSpec.make("wippen", players, {}, policy))
    out = np.zeros(count, dtype=e.OUT_DTYPE)

    def run(start: int, n: int) -> int:
        status, failed, _ = play_games_nb(np.int64(12345), np.int64(start), np.int64(n), *inputs,
                                          out, None, False)
        if status != 0:
            raise RuntimeError(f"kernel status {status} at game {failed}")
        return int(out["turns"][:n].sum())

    return run


def bench(players: int, policy: str, repeats: int) -> dict:
    count = BATCH[policy]
    return {"players": players, "policy": policy,
            **time_batches("wippen", make_runner(players, policy, count), count, repeats,
                           unit="card_plays")}


def main(argv=None) -> int:
    args = parser(__doc__, "greedy,random").parse_args(argv)
    fresh_cache("wippen", args.use_cache)
    results = [bench(args.players, p, args.repeats) for p in args.policies.split(",")]
    for r in results:
        print(f"wippen {r['players']}p {r['policy']:>9}: {r['games_per_s']:>7} games/s, "
              f"{r['card_plays_per_s']:>9} card plays/s wall; {r['cpu_games_per_s']:>7} games/s, "
              f"{r['cpu_card_plays_per_s']:>9} card plays/s per CPU second "
              f"({r['card_plays_per_game']} plays a game; median of {r['repeats']} x {r['games']}; "
              f"first call {r['first_call_s']} s)")
    write_json(results, args.json)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
