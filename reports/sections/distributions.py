"""Game length and score distributions per arm: summary statistics and histograms."""
from __future__ import annotations

import polars as pl

from reports import metrics as m
from reports import plots, text
from reports.context import Context
from reports.model import Section, Table

KEY = "distributions"
STATS = ("mean", "sd", "min", "p5", "p25", "p50", "p75", "p95", "max")


def _queries(ctx: Context) -> list[pl.LazyFrame]:
    players = ctx.max_players
    aggs = [pl.len().alias("games")] + m.describe(pl.col("turns"), "turns") + m.describe(pl.col("rounds"), "rounds")
    for s in range(players):
        aggs += m.describe(m.seat_score(s), f"score{s}")
    scan = ctx.scan
    scores = (scan.select("arm", "score", pl.int_ranges(pl.col("score").list.len()).alias("seat"))
              .explode(["score", "seat"])
              .group_by("arm", "seat", pl.col("score").alias("value")).len("count"))
    return [
        m.by_arm(ctx.arm_scan, [a.name for a in ctx.arms], aggs),
        scan.group_by("arm", pl.col("turns").alias("value")).len("count"),
        scan.group_by("arm", pl.col("rounds").alias("value")).len("count"),
        scores,
    ]


def compute(ctx: Context) -> dict:
    """{'stats': {arm: {...}}, 'histograms': {'turns'|'rounds'|'score': DataFrame}} in one collect."""
    def run():
        stats, turns, rounds, scores = pl.collect_all(_queries(ctx))
        rows = {r["arm"]: r for r in stats.iter_rows(named=True)}
        order = {a.name: i for i, a in enumerate(ctx.arms)}
        sort = lambda f, *by: f.with_columns(pl.col("arm").replace_strict(order, default=len(order)).alias("_o")).sort("_o", *by).drop("_o")  # noqa: E731
        out = {}
        for arm in ctx.arms:
            r = rows.get(arm.name)
            if r is None:
                continue
            block = {"games": int(r["games"])}
            for var in ("turns", "rounds"):
                block[var] = {st: r[f"{var}:{st}"] for st in STATS}
            block["score"] = [{"seat": s, **{st: r[f"score{s}:{st}"] for st in STATS}} for s in range(arm.players)]
            out[arm.name] = block
        return {"stats": out, "histograms": {"turns": sort(turns, "value"), "rounds": sort(rounds, "value"),
                                             "score": sort(scores, "seat", "value")}}
    return ctx.cached(("distributions",), run)


def _verdict(ctx: Context, stats: dict[str, dict]) -> str:
    """One sentence for every arm: how long games last (the table holds the rest)."""
    means = {arm: b["turns"]["mean"] for arm, b in stats.items()}
    if len(means) == 1:
        (arm, b), = stats.items()
        t, r = b["turns"], b["rounds"]
        dt = text.digits_for(t["mean"])
        return (f"Games last {text.number(t['mean'], dt)} turns on average (median {text.quantity(t['p50'], dt)}, 90% "
                f"between {text.quantity(t['p5'], dt)} and {text.quantity(t['p95'], dt)}) over "
                f"{text.number(r['mean'])} rounds.")
    short, long_ = min(means, key=means.get), max(means, key=means.get)
    if text.number(means[short]) == text.number(means[long_]):
        length = f"Games last {text.number(means[short])} turns on average in every arm"
    else:
        length = (f"Games last {text.number(means[short])} turns on average in {short} to "
                  f"{text.number(means[long_])} in {long_}")
    return (f"{length}; the table gives each arm's length and final {ctx.score_word} per seat "
            f"({ctx.better_score}); whether a rule changes them is tested in the variant comparison.")


def _hist_data(frame: pl.DataFrame, by: tuple[str, ...]) -> dict:
    out: dict = {}
    for key, part in frame.group_by(by, maintain_order=True):
        node = out
        for k in key[:-1]:
            node = node.setdefault(str(k), {})
        node[str(key[-1])] = {"value": part["value"].to_list(), "count": part["count"].to_list()}
    return out


def section(ctx: Context) -> Section | None:
    data = compute(ctx)
    stats = data["stats"]
    if not stats:
        return None
    h = data["histograms"]
    sec = Section(key=ctx.key(KEY), title=ctx.title("Game length and score distributions"))
    sec.verdicts = [_verdict(ctx, stats)]
    sec.notes = [f"turns = actions taken in a game; rounds = deals played; score = {ctx.score_word} per seat "
                 f"at the end ({ctx.better_score}). p5..p95 are linearly interpolated quantiles.",
                 "Histograms show the share of an arm's games per bin, so arms of different sizes compare."]
    sec.data = {"arms": stats,
                "histograms": {"turns": _hist_data(h["turns"], ("arm",)),
                               "rounds": _hist_data(h["rounds"], ("arm",)),
                               "score": _hist_data(h["score"], ("arm", "seat"))}}
    seats = max(len(b["score"]) for b in stats.values())
    head = ["arm", "games", "turns: mean (p5-p95)", "rounds: mean (p5-p95)"] + \
        [f"{ctx.score_word}, seat {s}" for s in range(seats)]

    def spread(x: dict) -> str:
        d = text.digits_for(x["mean"])
        return f"{text.number(x['mean'], d)} ({text.quantity(x['p5'], d)}-{text.quantity(x['p95'], d)})"
    rows = [[arm, text.count(b["games"]), spread(b["turns"]), spread(b["rounds"])]
            + [text.number(b["score"][s]["mean"]) if s < len(b["score"]) else "" for s in range(seats)]
            for arm, b in stats.items()]
    sec.tables.append(Table("Game length and mean final score per seat", head, rows,
                            note="p5-p95: 90% of games lie between these; every quantile of every arm is in "
                                 "summary.json"))
    # turns and rounds side by side in one figure (rounds fixed by the rules, as in Wizard: turns alone)
    length = [h["turns"].with_columns(pl.lit("turns per game").alias("measure"))]
    if any(b["rounds"]["sd"] for b in stats.values()):
        length.append(h["rounds"].with_columns(pl.lit("rounds per game").alias("measure")))
    lengths = plots.histograms(pl.concat(length), "value", "count", hue="arm", panel="measure",
                               title="Game length" + (" (turns)" if len(length) == 1 else ""))
    lengths.fold = len(stats) > plots.MANY_ARMS  # overlaid outlines of many arms are noise; the table holds them
    sec.figures.append(lengths)
    if len(stats) <= 4:  # one panel per arm: beyond four the table says it better
        # the seats' fairness is the first-player section's; their score spread is secondary detail
        scores = plots.histograms(h["score"], "value", "count", hue="seat", panel="arm",
                                  xlabel=f"final {ctx.score_word}", title=f"Final {ctx.score_word} by seat")
        scores.fold = True
        sec.figures.append(scores)
    return sec
