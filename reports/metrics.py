"""Per-game metrics as small named Polars expressions (functime style: functions returning pl.Expr).

Every function here describes one row (one game); sections aggregate them per arm with
``group_by("arm").agg(...)`` so each section reads the dataset once. Seat numbers are Python ints
(the seat set-up is arm metadata), columns come from docs/schema.md.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

import polars as pl

QUANTILES = (0.05, 0.25, 0.5, 0.75, 0.95)


# -- winning ------------------------------------------------------------------------------------
def won(seat: int) -> pl.Expr:
    """True when bit ``seat`` of winner_mask is set (seat won, alone or shared)."""
    return ((pl.col("winner_mask") // (1 << seat)) % 2) == 1


def win_weight(seat: int) -> pl.Expr:
    """Seat's share of the game's win: 1/n_winners when it won, else 0 (ties share the win)."""
    return (
        pl.when(won(seat) & (pl.col("n_winners") > 0))
        .then(1.0 / pl.col("n_winners").cast(pl.Float64))
        .otherwise(0.0)
        .alias(f"w{seat}")
    )


def shared_win() -> pl.Expr:
    return (pl.col("n_winners") > 1).alias("shared_win")


def seat_values(columns, players: int) -> list[pl.Expr]:
    """Per-seat list columns as one float column per column and seat ("luck_copy2"), column by column."""
    return [pl.col(c).list.get(s).cast(pl.Float64).alias(f"{c}{s}") for c in columns for s in range(players)]


def win_weight_at(seat_column: str, players: int) -> pl.Expr:
    """Win weight of the seat named by an integer column (e.g. who drew a card); null when -1."""
    expr = pl.when(pl.col(seat_column) == 0).then(win_weight(0))
    for s in range(1, players):
        expr = expr.when(pl.col(seat_column) == s).then(win_weight(s))
    return expr.otherwise(None).alias(f"{seat_column}:won")


def gap(hi: int, lo: int) -> pl.Expr:
    """Per-game difference of two seats' win weights; its mean is the gap between their shares."""
    return (win_weight(hi) - win_weight(lo)).alias(f"gap{hi}-{lo}")


def group_share(seats: Iterable[int]) -> pl.Expr:
    """Average win weight over a set of seats (e.g. the seats one policy holds) in one game."""
    seats = list(seats)
    return pl.sum_horizontal([win_weight(s) for s in seats]) / len(seats)


# -- scores -------------------------------------------------------------------------------------
def seat_score(seat: int) -> pl.Expr:
    return pl.col("score").list.get(seat, null_on_oob=True).alias(f"score{seat}")


def score_total() -> pl.Expr:
    return pl.col("score").list.sum().alias("score_total")


def score_mean() -> pl.Expr:
    return pl.col("score").list.mean().alias("score_mean")


def beats(i: int, j: int, higher_score_wins: bool) -> pl.Expr:
    """Head-to-head of seat i against seat j in one game: 1 if i finished ahead, 0.5 level, 0 behind.

    Winning decides first (both winners: level); between two non-winners the better score decides
    (``higher_score_wins`` from study.json), equal scores are level."""
    wi, wj = won(i), won(j)
    si, sj = seat_score(i), seat_score(j)
    better = (si > sj) if higher_score_wins else (si < sj)
    return (
        pl.when(wi & ~wj).then(1.0)
        .when(wj & ~wi).then(0.0)
        .when(wi & wj).then(0.5)
        .when(better).then(1.0)
        .when(si == sj).then(0.5)
        .otherwise(0.0)
    )


def mean_over(exprs: list[pl.Expr]) -> pl.Expr:
    return pl.sum_horizontal(exprs) / len(exprs)


# -- per-arm switching ----------------------------------------------------------------------------
def per_arm(by_arm: Mapping[str, pl.Expr]) -> pl.Expr:
    """One expression that evaluates ``by_arm[arm]`` on the rows of each arm (null elsewhere).

    Lets one pass compute quantities whose definition depends on arm metadata (seat -> policy).
    Arms with the same expression share one branch: Polars evaluates every branch of a when-chain
    on all rows, so a branch per arm made a study of many like arms (a sweep, a calibration's 120
    replicates) quadratic in its arms (Wippen's calibration, 120 arms of 400 games: 85 s, then 6 s)."""
    groups: list[tuple[pl.Expr, list[str]]] = []
    for name, expr in by_arm.items():
        same = next((g for g in groups if g[0].meta.eq(expr)), None)
        if same is None:
            groups.append((expr, [name]))
        else:
            same[1].append(name)
    if not groups:
        return pl.lit(None, dtype=pl.Float64)
    out = None
    for expr, names in groups:
        condition = pl.col("arm") == names[0] if len(names) == 1 else pl.col("arm").is_in(names)
        out = pl.when(condition).then(expr) if out is None else out.when(condition).then(expr)
    return out.otherwise(None)


# -- aggregations -------------------------------------------------------------------------------

def by_arm(frame_of: Callable[[str], pl.LazyFrame], arms: Iterable[str], aggs: list[pl.Expr]) -> pl.LazyFrame:
    """What ``frame.group_by("arm").agg(aggs)`` gives (a row per arm, ``arm`` first), with the same
    bytes on every run: Polars' parallel group_by adds each group's float values in whatever order
    its threads finish (two reports of one dataset differed in the last bits of 32 numbers), while
    an aggregation over one arm's rows adds its chunks in file order.

    ``frame_of(arm)`` is the arm's own rows (its files only: a filter of a scan over every arm's
    files reads every file's footer once per arm). The arms are aggregated one after the other:
    Polars ran a concat of 100 such queries together 3x slower than in turn (512 blocking threads,
    most of the time in the kernel), 100 Wizard arms 35 s against 2.5 s in all."""
    parts = [frame_of(name).filter(pl.col("arm") == name).select(pl.lit(name, pl.String).alias("arm"), *aggs)
             .collect() for name in dict.fromkeys(arms)]
    return pl.concat(parts, how="vertical").lazy() if parts else pl.LazyFrame(schema={"arm": pl.String})


def moments(expr: pl.Expr, name: str) -> list[pl.Expr]:
    """Count of non-null values, sum, mean and sample variance of a per-game expression."""
    return [
        expr.count().alias(f"{name}:n"),
        expr.sum().cast(pl.Float64).alias(f"{name}:sum"),
        expr.mean().alias(f"{name}:mean"),
        expr.var().alias(f"{name}:var"),
    ]


def describe(expr: pl.Expr, name: str, quantiles: Iterable[float] = QUANTILES) -> list[pl.Expr]:
    """Mean, sd, min, max and quantiles of a per-game expression."""
    out = [
        expr.mean().alias(f"{name}:mean"),
        expr.std().alias(f"{name}:sd"),
        expr.min().cast(pl.Float64).alias(f"{name}:min"),
        expr.max().cast(pl.Float64).alias(f"{name}:max"),
    ]
    out += [expr.quantile(q, interpolation="linear").alias(f"{name}:p{round(q * 100)}") for q in quantiles]
    return out

