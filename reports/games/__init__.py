"""Game-specific report parts, one module per game (see reports.registry for the mapping)."""

from collections.abc import Callable, Iterable

import polars as pl

from reports.context import Context
from reports.dataset import Arm


def has_columns(ctx: Context, columns: Iterable[str]) -> bool:
    """Whether the study's rows carry every one of `columns` (a game's own outcome columns)."""
    names = set(ctx.scan.collect_schema().names())
    return all(c in names for c in columns)


def stats_by_arm(ctx: Context, key: str, query: Callable[[Context, list[Arm]], pl.LazyFrame],
                 arm_stats: Callable[[Arm, dict], dict]) -> dict[str, dict]:
    """{arm: numbers} for every arm with games, in study order: `query` aggregates the arms in one
    group_by pass (a row per arm), `arm_stats` turns an arm's row into its numbers; cached under
    (key, "stats")."""
    from reports.sections.first_player import seat_stats

    def run():
        arms = [a for a in ctx.arms if a.name in seat_stats(ctx)]
        if not arms:
            return {}
        rows = {r["arm"]: r for r in query(ctx, arms).collect().iter_rows(named=True)}
        return {a.name: arm_stats(a, rows[a.name]) for a in arms if a.name in rows}
    return ctx.cached((key, "stats"), run)
