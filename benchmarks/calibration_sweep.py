"""Calibration of a sweep's target answer (reports/crossing.py): does the 95% set of parameter values
cover the true crossing 95% of the time, on curves whose crossing is known?

Each model gives a per-game 0/1 outcome whose mean at parameter value x is p(x); the measure is
p(x) - base, crossing 0 where p(x*) = base. Games are paired as a sweep pairs them (one uniform per
game shared by every point: game g has the same luck at every value) or independent (one uniform
per game and point). Every replicate draws fresh games at every point, answers the target, and
counts whether x* is in the set (between its ends).

    .venv/bin/python -m benchmarks.calibration_sweep                 # full: 2,000 replicates a model
    .venv/bin/python -m benchmarks.calibration_sweep --replicates 300 --json /tmp/sweep.json

A model passes when the binomial 95% interval of its coverage includes 95%.
"""
from __future__ import annotations

import argparse
import json
import time
from dataclasses import dataclass
from typing import Callable

import numpy as np

from benchmarks.calibration_common import rate
from reports.crossing import crossing


@dataclass(frozen=True)
class Model:
    name: str
    xs: tuple
    p: Callable[[np.ndarray], np.ndarray]
    base: float
    truth: float
    integer: bool
    games: int


MODELS = (
    Model("straight, integer crossing at 32", (25, 28, 31, 34, 37, 40),
          lambda x: 0.25 + 0.004 * (32 - x), 0.25, 32.0, True, 2000),
    Model("straight, crossing at 0.43", (0.0, 0.25, 0.5, 0.75, 1.0),
          lambda x: 0.1 + 0.4 * x, 0.272, 0.43, False, 3000),
    Model("bent (quadratic), crossing at 0.62", (0.0, 0.2, 0.4, 0.6, 0.8, 1.0),
          lambda x: 0.15 + 0.5 * x ** 2, 0.15 + 0.5 * 0.62 ** 2, 0.62, False, 4000),
    Model("logistic, integer crossing at 30", tuple(range(20, 41, 4)),
          lambda x: 1 / (1 + np.exp(-(x - 30) / 4)), 0.5, 30.0, True, 1500),
)


def replicate(model: Model, rng: np.random.Generator, paired: bool) -> tuple[bool, float | None]:
    xs = np.asarray(model.xs, dtype=float)
    u = rng.random((model.games, 1 if paired else len(xs)))
    values = (u < model.p(xs)).astype(float) - model.base
    c = crossing(xs, 0.0, values=values, integer=model.integer)
    covered = c.found and c.low <= model.truth <= c.high
    return covered, (c.high - c.low) if c.found else None


def run(replicates: int, seed: int, only: tuple[int, ...] = ()) -> list[dict]:
    rows = []
    for k, model in enumerate(MODELS):
        if only and k not in only:
            continue
        for paired in (True, False):
            rng = np.random.default_rng([seed, k, int(paired)])
            results = [replicate(model, rng, paired) for _ in range(replicates)]
            widths = [w for _, w in results if w is not None]
            rows.append({"model": model.name, "pairing": "paired" if paired else "independent",
                         "games_per_point": model.games, "points": len(model.xs),
                         "coverage": rate([c for c, _ in results]),
                         "median_width": float(np.median(widths)) if widths else None})
    return rows


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--replicates", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=20261203)
    parser.add_argument("--only", type=int, nargs="*", default=(), help="model numbers (0-based) to run")
    parser.add_argument("--json", help="write the rows here")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    rows = run(args.replicates, args.seed, tuple(args.only))
    print("| model | games | coverage of the 95% set | 95% interval | median width |")
    print("|---|---|---:|---|---:|")
    for r in rows:
        c = r["coverage"]
        ok = "" if c["lo"] <= 0.95 <= c["hi"] else " (outside)"
        print(f"| {r['model']}, {r['pairing']} | {r['points']} x {r['games_per_point']:,} | {c['rate']:.1%}{ok} | "
              f"{c['lo']:.1%}-{c['hi']:.1%} | {r['median_width']:.3g} |")
    print(f"({args.replicates} replicates a row, {time.perf_counter() - start:.0f} s)")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(rows, fh, indent=1)


if __name__ == "__main__":
    main()
