"""Variant comparison: arms of the same game, players and policies that differ in rules only."""
from __future__ import annotations

import math

import polars as pl

from reports import metrics as m
from reports import plots, text
from reports.compare import Comparison, Measure, compare_pairs, comparison_frame
from reports.context import Context
from reports.dataset import Pair
from reports.model import Figure, Section, Table
from reports.sections.first_player import seat_stats

KEY = "variants"
NOTES = [
    "Arms share seeds: game i starts from the same shuffle in every arm (common random numbers). "
    "Each difference is therefore paired on the game index: the per-game difference (variant minus "
    "baseline) is averaged over the games both arms played, with a 95% t-interval. For seat 0's win "
    "this is the paired difference of its (1/n-weighted) win indicators, so it is also the change in "
    "seat 0's edge.",
    "The unpaired column is the Welch interval on the same games as if the arms were independent; "
    "'narrower' says how many times narrower pairing makes the interval.",
    "Shares in one arm carry the same interval as in the first-player section (Wilson at the effective "
    "number of games); counts per game are t-intervals kept at or above 0.",
    "Balance = 1 - (largest - smallest seat win share), bias-corrected per arm as in the first-player "
    "section. Its change is the difference of the two bias-corrected values; the interval is a paired "
    "parametric bootstrap of both arms' seat shares with their joint per-game covariance (the unpaired "
    "column drops the pairing).",
    "Every difference is a claim of the report: 'detectable' means its paired test stays significant "
    "after the report's multiple-comparison correction (see 'Claims and multiple comparisons'); the "
    "table gives the adjusted p-value.",
]


def seat_measures(players: int) -> list[Measure]:
    """Every seat's win share: who wins and who loses when a rule changes."""
    return [Measure(f"seat{s}_win", f"seat-{s} win share", lambda arm, s=s: m.win_weight(s), share=True)
            for s in range(players)]


def core_measures(ctx: Context, players: int = 1) -> list[Measure]:
    return [
        *seat_measures(max(players, 1)),
        Measure("balance", "balance", lambda arm: pl.lit(None), share=True, seat_range=True),
        Measure("turns", "turns per game", lambda arm: pl.col("turns"), lower=0.0),
        Measure("rounds", "rounds per game", lambda arm: pl.col("rounds"), lower=0.0),
    ]


def default_outcomes(ctx: Context) -> tuple[Measure, ...]:
    return (Measure("score_mean", f"{ctx.score_word} per seat", lambda arm: m.score_mean()),)


def measures(ctx: Context, players: int = 1) -> list[Measure]:
    """Core measures (every seat's win share for ``players`` seats) then the game's own outcome
    measures (its report plug-in's OUTCOMES)."""
    from reports.registry import outcomes

    own = outcomes(ctx.game)
    return core_measures(ctx, players) + list(default_outcomes(ctx) if own is None else own)


def comparisons(ctx: Context, pairs: list[Pair]) -> dict[str, list[Comparison]]:
    """Every measure for every pair, every seat's win share included (cached, so game sections and
    the answers reuse them)."""
    stats = seat_stats(ctx)
    pairs = [p for p in pairs if p.a.name in stats and p.b.name in stats]
    out: dict[str, list[Comparison]] = {}
    for players in sorted({p.a.players for p in pairs}):
        out.update(compare_pairs(ctx, [p for p in pairs if p.a.players == players], measures(ctx, players)))
    return {p.key: out[p.key] for p in pairs}


# -- formatting shared with game sections ----------------------------------------------------------
def fmt_mean(c: Comparison, est) -> str:
    return text.share_ci(est) if c.measure.share else text.value_ci(est)


def fmt_diff(c: Comparison, est=None) -> str:
    est = est or c.paired
    return text.points(est) if c.measure.share else text.value_ci(est, signed_values=True)


def fmt_interval(c: Comparison, est) -> str:
    full = fmt_diff(c, est)
    return full[full.find("("):] if "(" in full else full


def pair_verdict(pair: Pair, comps: list[Comparison], name: str | None = None) -> str:
    """'john-on vs john-off (john_knut 0->1, paired on N games): turns per game +12.3 (...); no
    detectable change in seat-0 win share, balance.'"""
    n = max((c.paired.n for c in comps), default=0)
    if n == 0:
        return f"{name or pair.key}: the two arms share no game indices, no paired comparison."
    found = [c for c in comps if c.detected]
    flat = [c for c in comps if not c.detected and not c.fixed]
    fixed = [c for c in comps if c.fixed]
    head = f"{name or pair.key} ({pair.describe_changes()}; paired on {text.count(n)} shared game seeds): "
    body = ("detectable change in " + ", ".join(c.measure.label for c in found)) if found else \
        "no detectable change in any measure"
    if found and flat:
        body += "; no detectable change in " + ", ".join(c.measure.label for c in flat)
    if fixed:
        body += "; the same in every game (fixed by the rules or untouched by the change), not tested: " + \
            ", ".join(c.measure.label for c in fixed)
    return head + body + " (numbers in the table)."


def summary_verdicts(by_key: dict[str, Pair], comps: dict[str, list[Comparison]], verdicts: list[str]) -> list[str]:
    """A sentence per pair with a detectable change (or with too few shared games); the pairs where
    nothing changes detectably in one sentence together once there are more than three pairs."""
    quiet = [k for k, cs in comps.items() if cs and max(c.paired.n for c in cs) > 0
             and not any(c.detected for c in cs) and not any(c.fixed for c in cs)]
    if len(comps) <= 3 or len(quiet) < 2:
        return verdicts
    out = [v for k, v in zip(comps, verdicts) if k not in quiet]
    games = sorted({max(c.paired.n for c in comps[k]) for k in quiet})
    n = text.count(games[0]) if len(games) == 1 else f"{text.count(games[0])}-{text.count(games[-1])}"
    out.append(f"No detectable change in any measure in {len(quiet)} of {len(comps)} pairs ("
               + "; ".join(f"{k}: {by_key[k].describe_changes()}" for k in quiet)
               + f"; paired on {n} shared game seeds; numbers in the table).")
    return out


def comparison_table(pair: Pair, comps: list[Comparison], title: str | None = None) -> Table:
    rows = [[c.measure.label, fmt_mean(c, c.baseline), fmt_mean(c, c.variant), fmt_diff(c),
             fmt_interval(c, c.unpaired), text.ratio(c.narrowing),
             text.p_value(c.claim.adjusted, bare=True) if c.claim else "n/a",
             "not tested: the same in every game" if c.fixed else "yes" if c.detected else "no"] for c in comps]
    name = comps[0].claim.family.name if comps and comps[0].claim else "Holm"
    return Table(title or f"{pair.b.name} vs {pair.a.name} ({pair.describe_changes()})",
                 ["measure", pair.a.name, pair.b.name, "difference (paired 95%)", "unpaired 95%", "narrower",
                  "adjusted p", "detectable"], rows,
                 note=f"shares in percent, their differences in percentage points; 'narrower': unpaired / paired "
                      f"interval width; adjusted p: {name} over the report's claims; detectable: adjusted p below 0.05")


FIGURE_MEASURES = ("seat0_win", "balance", "turns", "rounds")  # the rest are in the tables


def wide_table(by_key: dict[str, Pair], comps: dict[str, list[Comparison]]) -> Table:
    """Many pairs: one row per pair, one column per measure (the paired difference), so the table
    grows with the pairs, not with pairs x measures."""
    labels = list(dict.fromkeys(c.measure.label for cs in comps.values() for c in cs))
    rows = []
    for key, cs in comps.items():
        cell = {c.measure.label: ("fixed" if c.fixed else fmt_diff(c).replace(" percentage points", "")
                                  + (" *" if c.detected else "")) for c in cs}
        rows.append([key, by_key[key].describe_changes()] + [cell.get(label, "") for label in labels])
    return Table("Variant minus baseline, paired on the game index (95% intervals)", ["pair", "change"] + labels, rows,
                 note="shares' differences in percentage points; * detectable after the report's correction; fixed: "
                      "the same in every game (fixed by the rules or untouched by the change), not tested; every level, unpaired interval and adjusted p is in "
                      "summary.json")


FIGURE_PAIRS = 40  # beyond this many pairs the figure shows the clearest changes (a forest of thousands is unreadable)


def _clearness(cs: list[Comparison]) -> float:
    """How clearly a pair changes anything: its largest |paired change| / half-width over the measures."""
    ratios = [abs(c.paired.value) / ((c.paired.hi - c.paired.lo) / 2) for c in cs
              if math.isfinite(c.paired.value) and c.paired.hi > c.paired.lo]
    return max(ratios, default=0.0)


def comparison_figure(comps: dict[str, list[Comparison]], title: str, keys=FIGURE_MEASURES) -> Figure:
    """The core measures of every pair, one panel each (a measure the rules fix is left out); of more
    than FIGURE_PAIRS pairs, the FIGURE_PAIRS with the clearest changes, in study order."""
    comps = {k: [c for c in cs if (keys is None or c.measure.key in keys) and not c.fixed] for k, cs in comps.items()}
    if len(comps) > FIGURE_PAIRS:
        keep = set(sorted(comps, key=lambda k: -_clearness(comps[k]))[:FIGURE_PAIRS])
        title += (f" (the {FIGURE_PAIRS} of {len(comps):,} pairs with the clearest changes; every pair is in the "
                  "table and summary.json)")
        comps = {k: cs for k, cs in comps.items() if k in keep}
    frame = comparison_frame(comps)
    return plots.forest(frame, "pair", "diff", "lo", "hi", panel="measure", lo2="lo_unpaired", hi2="hi_unpaired",
                        ref=0.0, percent="share", title=title)


def pair_data(pair: Pair, comps: list[Comparison], verdict: str) -> dict:
    return {"baseline": pair.a.name, "variant": pair.b.name,
            "changes": {k: list(v) for k, v in pair.changes.items()},
            "games_paired": max((c.paired.n for c in comps), default=0),
            "measures": {c.measure.key: c.to_dict() for c in comps}, "verdict": verdict}


def section(ctx: Context) -> Section | None:
    if len(ctx.arms) < 2:
        return None
    sec = Section(key=ctx.key(KEY), title=ctx.title("Variant comparison"), notes=list(NOTES))
    pairs = ctx.dataset.variant_pairs(ctx.game)
    comps = comparisons(ctx, pairs)
    if not comps:
        sec.verdicts = ["No two arms have the same players, policies and deck with different rules: "
                        "nothing to compare as variants."]
        sec.data = {"pairs": {}}
        return sec
    by_key = {p.key: p for p in pairs}
    verdicts = [pair_verdict(by_key[k], c) for k, c in comps.items()]
    sec.verdicts = summary_verdicts(by_key, comps, verdicts)
    sec.data = {"pairs": {k: pair_data(by_key[k], c, v) for (k, c), v in zip(comps.items(), verdicts)}}
    sec.tables = ([comparison_table(by_key[k], c) for k, c in comps.items()] if len(comps) <= 3
                  else [wide_table(by_key, comps)])
    sec.figures.append(comparison_figure(comps, "Variant minus baseline: seat 0, balance and length, paired (blue) and "
                                                "unpaired (grey) 95% intervals"))
    return sec
