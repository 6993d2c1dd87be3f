"""Calibration of stopping at a target precision (sim/stopping.py, docs/stopping.md).

On constructed streams with a known mean, batches of games are looked at after every batch, the way
pipelines/stopping.py looks at a study:

- **sequence, plan order**: the anytime-valid sequence over the contiguous prefix of batches;
- **fixed-n interval re-checked**: the usual m +- z s / sqrt(n) after every batch;
- **sequence, completion order**: the same sequence over the batches in the order simulated workers
  finish them, when a game's length goes with its outcome (long games finish later).

Each replicate records whether the interval covers the truth at every look (continuous monitoring) and
at the look it stops on: the first look where the half-width reaches the target ("width" rule), or the
first where the interval excludes 0 or reaches the target ("sign" rule: a designer stopping as soon as
the answer looks clear).

    python -m benchmarks.calibration_stopping [--replicates 1000] [--seed 1]
"""
from __future__ import annotations

import argparse
import heapq
import time

import numpy as np

from sim.stopping import ALPHA, fixed_margin, tuned_rho2, unit_margin


def cumulative(x_batches: np.ndarray):
    """(n, mean, sd) after each batch of a (batches, size) array."""
    size = x_batches.shape[1]
    s1 = np.cumsum(x_batches.sum(axis=1))
    s2 = np.cumsum((x_batches ** 2).sum(axis=1))
    n = size * np.arange(1, x_batches.shape[0] + 1)
    mean = s1 / n
    var = np.maximum(s2 / n - mean ** 2, 0.0) * n / np.maximum(n - 1, 1)
    return n, mean, np.sqrt(var)


def half_widths(n, sd, kind: str, rho2: float, alpha: float = ALPHA):
    if kind == "fixed":
        return fixed_margin(alpha) * sd / np.sqrt(n)
    return sd * unit_margin(n, rho2, alpha)


def completion_order(durations: np.ndarray, workers: int) -> np.ndarray:
    """Batch indices in the order `workers` workers finish them, each taking the next batch in plan order."""
    free = [(0.0, w) for w in range(workers)]
    heapq.heapify(free)
    ends = np.empty(len(durations))
    for i, d in enumerate(durations):
        t, w = heapq.heappop(free)
        ends[i] = t + d
        heapq.heappush(free, (ends[i], w))
    return np.argsort(ends, kind="stable")


def replicate(rng, kind: str, truth: float, draw, batches: int, size: int, pilot: int, target: float,
              order: str = "plan", workers: int = 1, length=None, alpha: float = ALPHA, null: float = 0.0) -> dict:
    """One monitored stream. ``draw(rng, shape)`` makes values; ``length(x)`` a game's duration."""
    x = draw(rng, (batches, size))
    if order == "completion":
        durations = length(x).sum(axis=1) * rng.uniform(0.9, 1.1, batches)
        x = x[completion_order(durations, workers)]
    n, mean, sd = cumulative(x)
    p = pilot - 1
    from sim.stopping import games_for

    t_opt = min(max(games_for(target, sd[p], alpha), n[p]), n[-1]) if sd[p] > 0 else n[p]
    hw = half_widths(n, sd, kind, tuned_rho2(t_opt, alpha), alpha)
    lo, hi = mean - hw, mean + hw
    cover = (lo <= truth) & (truth <= hi)
    looks = slice(p, None)
    width_stop = next((k for k in range(p, batches) if hw[k] <= target), batches - 1)
    sign_stop = next((k for k in range(p, batches) if hw[k] <= target or lo[k] > null or hi[k] < null), batches - 1)
    return {"always": bool(cover[looks].all()), "width": bool(cover[width_stop]), "sign": bool(cover[sign_stop]),
            "games": int(n[width_stop]), "error": float(mean[width_stop] - truth)}


def bernoulli(p):
    return lambda rng, shape: (rng.random(shape) < p).astype(float)


def normal(mu, sd):
    return lambda rng, shape: rng.normal(mu, sd, shape)


def shared_wins(rng, shape):
    """Seat 0's win weight minus 1/4 at a fair 4-seat table where games end with 1, 2 or 3 winners
    (55%, 30%, 15%, as in Knutten): truth 0."""
    k = rng.choice([1, 2, 3], size=shape, p=[0.55, 0.30, 0.15])
    won = rng.random(shape) < k / 4
    return np.where(won, 1.0 / k, 0.0) - 0.25


def exponential(mean):
    return lambda rng, shape: rng.exponential(mean, shape)


def luck_adjusted_wins(rng, shape, measures: int = 6, adjust: bool = True):
    """A constructed null for the luck adjustment: seat 0's win (0 or 1) minus 1/4, where each game's
    chance to win is 1/4 moved by the luck of the draw (six zero-mean measures, uniform on -1..1, two of
    which matter: 0.25 + 0.15 x0 - 0.08 x1, always within 0.02-0.48; the luck is 5% of the variance),
    so the truth is 0. With `adjust`, the luck is regressed out as pipelines/stopping.stream_values
    does: coefficients cross-fitted on batch 0 and applied unchanged to every later batch."""
    from reports.stats import cross_fitted

    x = rng.uniform(-1.0, 1.0, (*shape, measures))
    won = rng.random(shape) < 0.25 + 0.15 * x[..., 0] - 0.08 * x[..., 1]
    y = won.astype(float) - 0.25
    if not adjust:
        return y
    first, beta = cross_fitted(y[0], x[0])
    return np.vstack([first[None, :], y[1:] - x[1:] @ beta])


def run(scenario: dict, replicates: int, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    out = [replicate(rng, **scenario) for _ in range(replicates)]
    return {k: float(np.mean([o[k] for o in out])) for k in out[0]}


def wilson(k: float, n: int) -> str:
    from statsmodels.stats.proportion import proportion_confint

    lo, hi = proportion_confint(round(k * n), n, method="wilson")
    return f"{100 * k:.1f}% ({100 * lo:.1f}-{100 * hi:.1f})"


SCENARIOS = {
    # a share near Knutten's seat-0 win weight, batches of 200 games, 100 looks
    "bernoulli p=0.25": dict(truth=0.25, draw=bernoulli(0.25), batches=100, size=200, pilot=5, target=0.012,
                             null=0.25),
    # a fair coin's edge: truth 0, so the sign rule can stop on a chance excursion
    "normal mean 0, sd 1": dict(truth=0.0, draw=normal(0.0, 1.0), batches=100, size=200, pilot=5, target=0.03),
    # seat 0's edge with shared wins (a win weight of 1, 1/2 or 1/3), a fair table
    "seat-0 edge, shared wins": dict(truth=0.0, draw=shared_wins, batches=100, size=200, pilot=5, target=0.01),
    # a skewed count, like game length: exponential with mean 100
    "exponential mean 100": dict(truth=100.0, draw=exponential(100.0), batches=100, size=200, pilot=5, target=3.0,
                                 null=100.0),
    # seat 0's edge with the luck of the draw regressed out (a `luck = true` stop): truth 0
    "seat-0 edge, luck-adjusted": dict(truth=0.0, draw=luck_adjusted_wins, batches=100, size=200, pilot=5,
                                       target=0.01),
}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--replicates", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    began = time.perf_counter()
    n = args.replicates
    print(f"{n} replicates each, seed {args.seed}, nominal 95%\n")
    print("| stream | intervals | covered at every look | at the width stop | at the sign stop | mean games at the width stop |")
    print("|---|---|---:|---:|---:|---:|")
    for name, sc in SCENARIOS.items():
        for kind, label in (("sequence", "sequence, plan order"), ("fixed", "fixed-n interval re-checked")):
            r = run({**sc, "kind": kind}, n, args.seed)
            print(f"| {name} | {label} | {wilson(r['always'], n)} | {wilson(r['width'], n)} | "
                  f"{wilson(r['sign'], n)} | {r['games']:,.0f} |")
    # completion order: a game seat 0 wins takes 3x as long; 64 workers, batches of 20 games
    sc = dict(truth=0.0, draw=lambda rng, shape: (rng.random(shape) < 0.25).astype(float) - 0.25, batches=400,
              size=20, pilot=25, target=0.03)
    long_wins = lambda x: 1.0 + 2.0 * (x > 0)  # noqa: E731
    print("\nOut of order: seat 0's edge (win share 0.25 minus 0.25), a game seat 0 wins takes 3x as long, "
          "64 workers, batches of 20 games, 400 batches")
    print("| consumed | covered at every look | at the width stop | mean error at the width stop (points) |")
    print("|---|---:|---:|---:|")
    for order, label in (("plan", "plan order (prefix)"), ("completion", "completion order")):
        rng = np.random.default_rng(args.seed)
        out = [replicate(rng, "sequence", order=order, workers=64, length=long_wins, **sc) for _ in range(n)]
        always = float(np.mean([o["always"] for o in out]))
        width = float(np.mean([o["width"] for o in out]))
        err = float(np.mean([o["error"] for o in out]))
        print(f"| {label} | {wilson(always, n)} | {wilson(width, n)} | {100 * err:+.2f} |")
    print(f"\n{time.perf_counter() - began:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
