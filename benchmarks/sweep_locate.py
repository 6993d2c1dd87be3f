"""How many games a sweep needs to locate a Knutten threshold to +-1: the paired sweep (every
threshold plays the same deals) against independent arms (every threshold its own deals).

One Knutten sweep (4 cautious players, default rules, threshold 25..40) is played once, ``--games``
games per threshold. Two targets: "a game lasts 120 turns" (``turns``; the threshold moves game
length by about 2.5 turns a step, so the crossing exists) and "seat 0 is fair" (``seat0_edge`` = 0;
seat 0's edge stays near +0.3 to +0.5 percentage points at every threshold, so the honest answer is
that no threshold from 25 to 40 reaches it, and a chunk "locates" nothing). For each size n, the
games are cut into chunks of n; each chunk answers the target (reports/crossing.py) twice: as played (paired: row g is deal g at every
threshold) and with every threshold's rows shuffled on their own (independent: row g is a different
deal at every threshold; the games are the same, only their pairing is gone). A chunk *locates* the
threshold to +-1 when its 95% set is at most 2 thresholds wide (so at most three whole thresholds
bracket it) and does not reach an end of the sweep. Printed per size and pairing: the share of
chunks that locate it and the median width of the set (in thresholds; 0 when the games exclude the
target everywhere).

    .venv/bin/python -m benchmarks.sweep_locate                    # 400,000 games a threshold
    .venv/bin/python -m benchmarks.sweep_locate --games 100000 --json /tmp/locate.json
"""
from __future__ import annotations

import argparse
import json
import time

import numpy as np

from benchmarks.calibration_common import rate
from benchmarks.pairing import seat0_win_weight
from reports.crossing import crossing

THRESHOLDS = tuple(range(25, 41))
BATCH = 50_000


TARGETS = {"turns": 120.0, "seat0_edge": 0.0}


def play(games: int, seed: int) -> dict[str, np.ndarray]:
    """Per target measure, games x thresholds: seat 0's win weight less the fair share, and the
    game's turns; game g in row g."""
    from sim.spec import ArmSpec

    edge, turns = [], []
    for t in THRESHOLDS:
        arm = ArmSpec.make("knutten", 4, {"threshold": t}, "cautious", name=f"t{t}")
        runner = arm.info.runner()
        wins, length = [], []
        for start in range(0, games, BATCH):
            table = runner.play_batch(arm, seed, start, min(BATCH, games - start))
            wins.append(seat0_win_weight(table["winner_mask"].to_numpy(), table["n_winners"].to_numpy()))
            length.append(table["turns"].to_numpy().astype(np.float64))
        edge.append(np.concatenate(wins) - 0.25)
        turns.append(np.concatenate(length))
    return {"turns": np.column_stack(turns), "seat0_edge": np.column_stack(edge)}


def located(values: np.ndarray, target: float) -> tuple[bool, float]:
    c = crossing(THRESHOLDS, target, values=values, integer=True)
    width = c.high - c.low if c.found else 0.0
    return bool(c.found and width <= 2 and not c.open_low and not c.open_high), width


def run(values: np.ndarray, target: float, sizes, seed: int) -> list[dict]:
    rng = np.random.default_rng(seed)
    rows = []
    for n in sizes:
        chunks = values.shape[0] // n
        for pairing in ("paired", "independent"):
            hits, widths = [], []
            for k in range(chunks):
                chunk = values[k * n:(k + 1) * n]
                if pairing == "independent":
                    chunk = np.column_stack([rng.permutation(chunk[:, j]) for j in range(chunk.shape[1])])
                ok, width = located(chunk, target)
                hits.append(ok)
                widths.append(width)
            rows.append({"games_per_threshold": n, "games_in_sweep": n * len(THRESHOLDS), "pairing": pairing,
                         "chunks": chunks, "located": rate(hits), "median_width": float(np.median(widths))})
    return rows


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=400_000, help="games per threshold (default 400,000)")
    parser.add_argument("--seed", type=int, default=20261203)
    parser.add_argument("--json", help="write the rows here")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    played_values = play(args.games, args.seed)
    played = time.perf_counter() - start
    sizes = [n for n in (1_000, 2_000, 5_000, 10_000, 20_000, 50_000, 100_000) if n * 4 <= args.games]
    out = {}
    for measure, target in TARGETS.items():
        values = played_values[measure]
        rows = run(values, target, sizes, args.seed)
        means = values.mean(axis=0)
        scale = 100 if measure == "seat0_edge" else 1
        print(f"\n{measure} by threshold (all games): "
              + ", ".join(f"{t}: {m * scale:+.2f}" if scale == 100 else f"{t}: {m:.1f}" for t, m in zip(THRESHOLDS, means)))
        print(f"target {measure} = {target:g}")
        print("| games a threshold | games in the sweep | pairing | chunks | located to +-1 | median width of the set |")
        print("|---:|---:|---|---:|---:|---:|")
        for r in rows:
            loc = r["located"]
            print(f"| {r['games_per_threshold']:,} | {r['games_in_sweep']:,} | {r['pairing']} | {r['chunks']} | "
                  f"{loc['rate']:.0%} ({loc['lo']:.0%}-{loc['hi']:.0%}) | {r['median_width']:.2g} |")
        out[measure] = {"target": target, "by_threshold": dict(zip(THRESHOLDS, means.tolist())), "rows": rows}
    print(f"(played in {played:.0f} s; {args.games:,} games a threshold, seed {args.seed})")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(out, fh, indent=1)


if __name__ == "__main__":
    main()
