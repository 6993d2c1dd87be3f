"""Paired comparison of two arms on common random numbers.

Game i of every arm starts from the same shuffle, so per-game quantities are joined on the
``game`` index and their differences averaged (t-interval). Per pair, one lazy join and one
aggregation compute every measure at once; all pairs are collected together.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import polars as pl

from reports import metrics as m
from reports.context import Context
from reports.dataset import Arm, Pair
from reports.stats import Estimate, mean_interval, welch_difference


@dataclass(frozen=True)
class Measure:
    """A per-game quantity to compare between arms. ``expr(arm)`` builds it for one arm (it may
    depend on arm metadata); ``share`` marks quantities in [0, 1], shown in percentage points."""

    key: str
    label: str
    expr: Callable[[Arm], pl.Expr]
    share: bool = False
    unit: str = ""


@dataclass(frozen=True)
class Comparison:
    measure: Measure
    pair: Pair
    baseline: Estimate  # mean in arm a (t-interval)
    variant: Estimate  # mean in arm b
    paired: Estimate  # mean of per-game differences b - a, t-interval
    unpaired: Estimate  # b - a as if independent (Welch), same games

    @property
    def detected(self) -> bool:
        return self.paired.excludes(0.0)

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
            "detected": self.detected,
        }


def _pair_query(scan: pl.LazyFrame, pair: Pair, measures: list[Measure]) -> pl.LazyFrame:
    def side(arm: Arm) -> pl.LazyFrame:
        return scan.filter(pl.col("arm") == arm.name).select(
            pl.col("game"), *[mm.expr(arm).cast(pl.Float64).alias(mm.key) for mm in measures])

    joined = side(pair.a).join(side(pair.b), on="game", how="inner", suffix=":b")
    aggs = [pl.len().alias("games")]
    for mm in measures:
        a, b = pl.col(mm.key), pl.col(f"{mm.key}:b")
        aggs += m.moments(a, f"{mm.key}:a") + m.moments(b, f"{mm.key}:b") + m.moments(b - a, f"{mm.key}:d")
    return joined.select(aggs)


def compare_pairs(ctx: Context, pairs: list[Pair], measures: list[Measure]) -> dict[str, list[Comparison]]:
    """{pair.key: [Comparison per measure]}; cached per (pair, measures) in the context."""
    todo = [p for p in pairs if ("compare", p.key, tuple(mm.key for mm in measures)) not in ctx._cache]
    if todo:
        frames = pl.collect_all([_pair_query(ctx.scan, p, measures) for p in todo])
        for pair, frame in zip(todo, frames):
            row = frame.row(0, named=True)
            out = []
            for mm in measures:
                g = lambda side, stat: row[f"{mm.key}:{side}:{stat}"]  # noqa: E731
                out.append(Comparison(
                    measure=mm, pair=pair,
                    baseline=mean_interval(g("a", "mean"), g("a", "var"), g("a", "n")),
                    variant=mean_interval(g("b", "mean"), g("b", "var"), g("b", "n")),
                    paired=mean_interval(g("d", "mean"), g("d", "var"), g("d", "n"), method="paired t"),
                    unpaired=welch_difference(g("a", "mean"), g("a", "var"), g("a", "n"),
                                              g("b", "mean"), g("b", "var"), g("b", "n")),
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
