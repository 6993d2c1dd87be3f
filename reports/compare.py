"""Paired comparison of two arms on common random numbers.

Game i of every arm starts from the same shuffle, so per-game quantities are joined on the
``game`` index and their differences averaged (t-interval and its p-value). Per pair, one lazy join
and one aggregation compute every measure at once; all pairs are collected together. Each
difference is a claim of the report (reports.claims): ``detected`` is the corrected decision.

A share's mean in one arm uses the same interval as everywhere else (stats.share_interval). Balance
(``seat_range`` measures) is not a per-game quantity: its per-arm values are the first-player
section's, and its change is a paired parametric bootstrap of the two arms' max - min seat shares
from the joint per-game covariance of both arms' seat win weights (stats.range_difference).
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import polars as pl

from reports import metrics as m
from reports.context import Context
from reports.dataset import Arm, Pair
from reports.claims import Claim
from reports.stats import Estimate, mean_interval, moment_matrices, range_difference, share_interval, welch_difference


@dataclass(frozen=True)
class Measure:
    """A per-game quantity to compare between arms. ``expr(arm)`` builds it for one arm (it may
    depend on arm metadata); ``share`` marks quantities in [0, 1], shown in percentage points."""

    key: str
    label: str
    expr: Callable[[Arm], pl.Expr]
    share: bool = False
    unit: str = ""
    lower: float | None = None  # a bound the quantity cannot cross (counts: 0)
    seat_range: bool = False  # balance: 1 - (max - min) of the seat win shares, not a per-game mean


@dataclass(frozen=True)
class Comparison:
    measure: Measure
    pair: Pair
    baseline: Estimate  # mean in arm a (t-interval)
    variant: Estimate  # mean in arm b
    paired: Estimate  # mean of per-game differences b - a, t-interval
    unpaired: Estimate  # b - a as if independent (Welch), same games
    claim: Claim | None = None
    fixed: bool = False  # the measure does not vary from game to game in either arm: no test, no claim

    @property
    def detected(self) -> bool:
        """The report's corrected decision (reports.claims) on 'the arms differ in this measure'."""
        return self.claim.detected if self.claim is not None else False

    @property
    def narrowing(self) -> float:
        """How many times narrower the paired interval is than the unpaired one."""
        wp = self.paired.hi - self.paired.lo
        wu = self.unpaired.hi - self.unpaired.lo
        return wu / wp if wp > 0 else float("inf") if wu > 0 else float("nan")

    def to_dict(self) -> dict:
        return {
            "label": self.measure.label,
            "share": self.measure.share,
            "baseline": self.baseline.to_dict(),
            "variant": self.variant.to_dict(),
            "difference": self.paired.to_dict(),
            "unpaired_difference": self.unpaired.to_dict(),
            "narrowing": self.narrowing,
            "fixed_by_design": self.fixed,
            **({k: v for k, v in self.claim.to_dict().items() if k not in ("section", "label")} if self.claim else
               {"detected": False}),
        }


def _side(frame_of: Callable[[str], pl.LazyFrame], arm: Arm, measures: list[Measure]) -> pl.LazyFrame:
    """One arm's per-game values of the measures (per deal for an arm that rotates its seats), from
    `frame_of(arm)`, the arm's own rows (metrics.by_arm)."""
    cols = [mm.expr(arm).cast(pl.Float64).alias(mm.key) for mm in measures if not mm.seat_range]
    if any(mm.seat_range for mm in measures):
        cols += [m.win_weight(s).alias(f"_w{s}") for s in range(arm.players)]
    rows = frame_of(arm.name).select(pl.col("game"), *cols)
    if not arm.rotate:
        return rows
    # an arm that rotates its seats: a deal's n rotations (consecutive games, whole deals by the
    # spec) averaged into one unit, in game order; pairs join arms of one design, so both sides
    # rotate or neither does
    n, names = arm.players, rows.collect_schema().names()[1:]
    return rows.sort("game").select((pl.col("game") // n).reshape((-1, n)).arr.first().alias("game"),
                                    *[pl.col(c).reshape((-1, n)).arr.mean().alias(c) for c in names])


def _pair_query(side_a: pl.LazyFrame, side_b: pl.LazyFrame, pair: Pair, measures: list[Measure]) -> pl.LazyFrame:
    """The pair's sums over shared games, from each arm's `_side`."""
    # rows in arm a's order: a hash join's own order varies from run to run, and with it the sums' last bits
    joined = side_a.join(side_b, on="game", how="inner", suffix=":b", maintain_order="left")
    aggs = [pl.len().alias("games")]
    for mm in measures:
        if mm.seat_range:
            continue
        a, b = pl.col(mm.key), pl.col(f"{mm.key}:b")
        aggs += m.moments(a, f"{mm.key}:a") + m.moments(b, f"{mm.key}:b") + m.moments(b - a, f"{mm.key}:d")
    if any(mm.seat_range for mm in measures):
        names = _weight_names(pair)
        aggs += [pl.col(c).sum().alias(f"S|{c}") for c in names]
        aggs += [(pl.col(c) * pl.col(d)).sum().alias(f"SS|{c}|{d}") for i, c in enumerate(names) for d in names[i:]]
    return joined.select(aggs)


def _weight_names(pair: Pair) -> list[str]:
    k = pair.a.players
    return [f"_w{s}" for s in range(k)] + [f"_w{s}:b" for s in range(k)]


def _balance(ctx: Context, pair: Pair, mm: Measure, row: dict, key: str) -> Comparison:
    from reports.sections.first_player import seat_stats

    stats = seat_stats(ctx)
    names, n = _weight_names(pair), int(row["games"])
    sums = np.array([row[f"S|{c}"] for c in names], float)
    cross = np.array([[row[f"SS|{names[min(i, j)]}|{names[max(i, j)]}"] for j in range(len(names))]
                      for i in range(len(names))], float)
    mean, cov = moment_matrices(sums, cross, n)
    k = pair.a.players
    change = range_difference(mean[:k], mean[k:], cov, n).negate()  # balance = 1 - range
    base, var = stats[pair.a.name].balance, stats[pair.b.name].balance
    unpaired = range_difference(mean[:k], mean[k:], _block_diag(cov, k), n).negate()
    claim = ctx.claim(key, "variants", f"{pair.key}: {mm.label}", change.p_value)
    return Comparison(measure=mm, pair=pair, baseline=base, variant=var,
                      paired=Estimate(change.value, change.lo, change.hi, n, "paired parametric bootstrap", change.p_value),
                      unpaired=Estimate(unpaired.value, unpaired.lo, unpaired.hi, n, "unpaired parametric bootstrap",
                                        unpaired.p_value), claim=claim)


def _block_diag(cov: np.ndarray, k: int) -> np.ndarray:
    out = cov.copy()
    out[:k, k:] = 0.0
    out[k:, :k] = 0.0
    return out


def compare_pairs(ctx: Context, pairs: list[Pair], measures: list[Measure]) -> dict[str, list[Comparison]]:
    """{pair.key: [Comparison per measure]}; cached per (pair, measures) in the context."""
    todo = [p for p in pairs if ("compare", p.key, tuple(mm.key for mm in measures)) not in ctx._cache]
    if todo:
        # each arm's values read once from its own files and kept (a study of many arms has many more
        # pairs than arms), then one pair at a time: see metrics.by_arm
        sides: dict[str, pl.DataFrame] = {}

        def side(arm: Arm) -> pl.LazyFrame:
            if arm.name not in sides:
                sides[arm.name] = _side(ctx.arm_games, arm, measures).collect()
            return sides[arm.name].lazy()
        frames = [_pair_query(side(p.a), side(p.b), p, measures).collect() for p in todo]
        for pair, frame in zip(todo, frames):
            row = frame.row(0, named=True)
            out = []
            for mm in measures:
                key = f"variants/{pair.key}/{mm.key}"
                if mm.seat_range:
                    out.append(_balance(ctx, pair, mm, row, key))
                    continue
                g = lambda side, stat: row[f"{mm.key}:{side}:{stat}"]  # noqa: E731
                if mm.share:
                    level = lambda side: share_interval(g(side, "mean"), g(side, "var"), g(side, "n"))  # noqa: E731
                else:
                    level = lambda side: mean_interval(g(side, "mean"), g(side, "var"), g(side, "n"),  # noqa: E731
                                                       lower=mm.lower)
                paired = mean_interval(g("d", "mean"), g("d", "var"), g("d", "n"), method="paired t")
                # fixed by design in both arms, or the same in every game (a rule that acts on no game
                # played): nothing to test
                fixed = (not (g("a", "var") or 0.0) > 0 and not (g("b", "var") or 0.0) > 0) or \
                    (not (g("d", "var") or 0.0) > 0 and (g("d", "mean") or 0.0) == 0.0)
                out.append(Comparison(
                    measure=mm, pair=pair, baseline=level("a"), variant=level("b"), paired=paired,
                    unpaired=welch_difference(g("a", "mean"), g("a", "var"), g("a", "n"),
                                              g("b", "mean"), g("b", "var"), g("b", "n")),
                    claim=None if fixed else ctx.claim(key, "variants", f"{pair.key}: {mm.label}", paired.p_value),
                    fixed=fixed,
                ))
            ctx._cache[("compare", pair.key, tuple(mm.key for mm in measures))] = out
    return {p.key: ctx._cache[("compare", p.key, tuple(mm.key for mm in measures))] for p in pairs}


def comparison_frame(comparisons: dict[str, list[Comparison]]) -> pl.DataFrame:
    """One row per (pair, measure), for plots."""
    rows = []
    for key, comps in comparisons.items():
        for c in comps:
            rows.append({"pair": key, "measure": c.measure.label, "share": c.measure.share,
                         "diff": c.paired.value, "lo": c.paired.lo, "hi": c.paired.hi,
                         "lo_unpaired": c.unpaired.lo, "hi_unpaired": c.unpaired.hi})
    return pl.DataFrame(rows, schema={"pair": pl.String, "measure": pl.String, "share": pl.Boolean,
                                      "diff": pl.Float64, "lo": pl.Float64, "hi": pl.Float64,
                                      "lo_unpaired": pl.Float64, "hi_unpaired": pl.Float64})
