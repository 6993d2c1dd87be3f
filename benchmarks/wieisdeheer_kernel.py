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

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.kernel_timing import fresh_cache, parser, time_batches, write_json  # noqa: E402

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
    return {"players": players, "policy": policy,
            **time_batches("wieisdeheer", make_runner(players, policy, count), count, repeats,
                           unit="turns")}


def main(argv=None) -> int:
    args = parser(__doc__, "reasoner,racer,random").parse_args(argv)
    fresh_cache("wieisdeheer", args.use_cache)
    results = [bench(args.players, p, args.repeats) for p in args.policies.split(",")]
    for r in results:
        print(f"wieisdeheer {r['players']}p {r['policy']:>9}: {r['games_per_s']:>7} games/s wall, "
              f"{r['cpu_games_per_s']:>7} games/s per CPU second, {r['cpu_turns_per_s']:>9} turns/s per CPU "
              f"second ({r['turns_per_game']} turns a game; median of {r['repeats']} x {r['games']}; first call "
              f"{r['first_call_s']} s)")
    write_json(results, args.json)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
