"""A ``[[search]]``'s part of the report: its answer (the best setting and its value on fresh games),
its section (every candidate evaluated, in the order the optimiser proposed them, with intervals and
constraint violators marked; the front when there are two objectives) and its figures.

``levels`` measures a candidate: the search's driver (pipelines/search.py) decides with it while the
search runs, and this report shows the same numbers, so what the report says is what the search saw.
Like every report module it reads rows only, never the kernels.
"""
from __future__ import annotations

import math

import numpy as np
import polars as pl

from reports import metrics as m
from reports.stats import mean_interval, pairwise_gaps, share_interval

SEARCH_KEY = "search"


# -- a candidate's measures ---------------------------------------------------------------------------------
def _moments(x: np.ndarray) -> tuple[float, float, int]:
    n = int(x.size)
    if n == 0:
        return math.nan, math.nan, 0
    mean = float(np.mean(x))
    var = float(np.var(x, ddof=1)) if n > 1 else math.nan
    return mean, var, n


def _outcome(game: str, name: str):
    """The game's own measure ``name`` (its report plug-in's OUTCOMES), or the mean score per seat."""
    from reports.registry import outcomes

    for mm in outcomes(game) or ():
        if mm.key == name:
            return mm
    if name in ("score", "score_mean"):
        from reports.compare import Measure

        return Measure("score_mean", "score per seat", lambda arm: m.score_mean())
    raise KeyError(f"{game} has no measure {name!r}")


def levels(frame: pl.DataFrame, arm, measures) -> dict:
    """Each measure's estimate on ``frame`` (one arm's rows) with its 95% interval, the intervals of
    the report's first-player section and answers: seat 0's edge (Wilson at the effective number of
    games), balance (bias-corrected range with its simultaneous interval), means (t intervals).
    ``arm`` is a reports.dataset.Arm. Sums are taken in game order, so the same rows give the same
    numbers bit for bit (a resumed search decides as the first run did)."""
    from sim.search import Level

    frame = frame.sort("game")
    out = {}
    k = arm.players
    weights = None
    if {"seat0_edge", "balance"} & set(measures):
        weights = frame.select([m.win_weight(s) for s in range(k)]).to_numpy().astype(float)
    for name in measures:
        if name == "seat0_edge":
            mean, var, n = _moments(weights[:, 0])
            est = share_interval(mean, var, n).shift(-1.0 / k)
        elif name == "balance":
            n = weights.shape[0]
            if n < 2:
                est = None
            else:
                cov = np.atleast_2d(np.cov(weights.T, ddof=1))
                est = pairwise_gaps(weights.mean(axis=0), cov, n, bounds=(0.0, 1.0)).range.complement()
        elif name in ("turns", "rounds"):
            mean, var, n = _moments(frame[name].to_numpy().astype(float))
            est = mean_interval(mean, var, n, lower=0.0)
        else:
            mm = _outcome(arm.game, name)
            x = frame.select(mm.expr(arm).cast(pl.Float64).alias("x"))["x"].to_numpy()
            x = x[np.isfinite(x)]
            mean, var, n = _moments(x)
            est = share_interval(mean, var, n) if mm.share else mean_interval(mean, var, n, lower=mm.lower)
        if est is None or not all(math.isfinite(v) for v in (est.value, est.lo, est.hi)):
            out[name] = Level(math.nan, -math.inf, math.inf)
        else:
            out[name] = Level(float(est.value), float(est.lo), float(est.hi))
    return out
