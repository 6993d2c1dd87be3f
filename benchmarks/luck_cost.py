"""What measuring the luck of the draw costs the kernel: `luck = true` against the same arm without it.

    python -m benchmarks.luck_cost [--game knutten] [--policies random,cautious] [--pairs 21]

Both arms play the same games (4 seats, default rules) in one process, in alternating batches of about
20 ms, after a warm-up that compiles both; each pair gives a ratio (time without / time with luck: 0.93
means measuring luck costs 7%) and the median of the ratios is the figure, printed with each arm's games
per CPU-second of the thread (medians). docs/stopping.md, "Luck of the draw", has the result.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time


def timed(call, count: int) -> float:
    began = time.thread_time()
    call(count)
    return time.thread_time() - began


def measure(game: str, policy: str, pairs: int) -> dict:
    from sim.spec import ArmSpec

    arms = {luck: ArmSpec.make(game, 4, {}, policy, luck=luck) for luck in (False, True)}
    calls = {luck: arm.info.runner().bench_call(arm) for luck, arm in arms.items()}
    for call in calls.values():  # compile, and size a batch to about 20 ms
        call(100)
    count = max(100, int(100 * 0.02 / max(timed(calls[False], 100), 1e-6)))
    ratios, rates = [], {False: [], True: []}
    for i in range(pairs):
        order = (False, True) if i % 2 == 0 else (True, False)
        seconds = {luck: timed(calls[luck], count) for luck in order}
        ratios.append(seconds[False] / seconds[True])
        for luck in (False, True):
            rates[luck].append(count / seconds[luck])
    return {"policy": policy, "games_a_batch": count, "ratio": statistics.median(ratios),
            "without": statistics.median(rates[False]), "with": statistics.median(rates[True])}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.luck_cost", description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="knutten")
    parser.add_argument("--policies", default="random,cautious")
    parser.add_argument("--pairs", type=int, default=21)
    args = parser.parse_args(argv)
    for policy in args.policies.split(","):
        r = measure(args.game, policy, args.pairs)
        print(f"{args.game} {policy:9s} without luck {r['without']:>11,.0f} games/s   with {r['with']:>11,.0f} "
              f"games/s   with/without {r['ratio']:.3f}  ({r['games_a_batch']} games a batch)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
