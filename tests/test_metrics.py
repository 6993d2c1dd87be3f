"""reports.metrics' per-arm helpers: `per_arm` evaluates each arm's own expression (arms that share
one share a branch), and `by_arm` aggregates every arm from its own rows, in the arms' order."""
from __future__ import annotations

import polars as pl

from reports import metrics as m

ROWS = pl.DataFrame({"arm": ["a", "a", "b", "c", "c", "c"], "x": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]})


def test_per_arm_gives_each_arm_its_own_expression_and_shares_equal_ones():
    double = pl.col("x") * 2
    expr = m.per_arm({"a": double, "b": -pl.col("x"), "c": pl.col("x") * 2})
    got = ROWS.select(expr.alias("v"))["v"].to_list()
    assert got == [2.0, 4.0, -3.0, 8.0, 10.0, 12.0]
    assert str(expr).count("when") == 2  # a and c share a branch


def test_per_arm_is_null_for_an_arm_it_does_not_name():
    got = ROWS.select(m.per_arm({"b": pl.col("x")}).alias("v"))["v"].to_list()
    assert got == [None, None, 3.0, None, None, None]


def test_by_arm_aggregates_each_arm_from_its_own_rows_in_the_arms_order():
    seen = []

    def frame_of(name):
        seen.append(name)
        return ROWS.lazy().filter(pl.col("arm") == name)

    out = m.by_arm(frame_of, ["c", "a", "b", "a"], [pl.len().alias("n"), pl.col("x").sum().alias("s")]).collect()
    assert out.rows() == [("c", 3, 15.0), ("a", 2, 3.0), ("b", 1, 3.0)]
    assert seen == ["c", "a", "b"]
    assert m.by_arm(frame_of, [], [pl.len()]).collect().columns == ["arm"]
