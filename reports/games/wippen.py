"""Wippen's own report parts: where the points come from (by source, per policy), seat and dealer
effects by play position, building and taking over per policy, and the deck-count and build-option
pairs (named: their effects are the generic variant comparison's, not repeated here).

Columns (besides the common ones, docs/schema.md): per seat the points by source (points_cards,
points_spades, points_diamond_ten, points_spade_two, points_aces, points_wips: they add up to
``score``), cards_taken, captures, builds, raises, double_builds, takeovers, wips; per play position
position_points (position 0 plays first, position n-1 is the dealer, who plays last in every hand
of its deal). ``rounds`` counts deals.

The sections stay thin: per-game values are small Polars expressions, one group_by pass computes
their moments per arm (``wippen_stats``, cached), intervals come from reports.stats
(``mean_interval``); the variant pairs are compared by the generic variant section from ``OUTCOMES``.
The dealer-minus-first difference is a claim of the report (``ctx.claim``). Win shares by seat and head-to-head results
of the player styles are the generic sections' (first player, policies).
"""
from __future__ import annotations

import polars as pl

from reports import metrics as m
from reports import plots, text
from reports.compare import Measure
from reports.context import Context
from reports.dataset import Arm
from reports.games import has_columns as game_has_columns, stats_by_arm
from reports.model import Figure, Section, Table
from reports.sections.first_player import adjusted
from reports.stats import Estimate, mean_interval

SOURCES = (("points_cards", "most cards"), ("points_spades", "most spades"),
           ("points_diamond_ten", "diamond 10s"), ("points_spade_two", "spade 2s"),
           ("points_aces", "aces"), ("points_wips", "wips"))
ACTIONS = (("captures", "captures"), ("builds", "builds"), ("raises", "raises"),
           ("double_builds", "double builds"), ("takeovers", "takeovers"), ("wips", "wips"),
           ("cards_taken", "cards taken"))
COLUMNS = tuple(c for c, _ in SOURCES + ACTIONS) + ("position_points",)
BUILD_RULES = ("decks", "build_instead_of_capture", "raise_double")
NOTES = [
    "Points by source are per seat and game, averaged over the seats a policy holds; the six sources "
    "add up to the score. Intervals are 95% t-intervals over games.",
    "Play positions: position 1 plays first in every hand of a deal (left of the dealer), the last "
    "position is the dealer. Points per deal from a position = its position_points / deals, per game. "
    "The dealer's edge is the per-game difference dealer minus first position (paired within the game), "
    "with a t-interval; whether the dealer or the first player scores more is a claim of the report "
    "(corrected with the others), and where it is not detectable the interval's bound is given.",
]


# -- per-game metrics (one row = one game) ----------------------------------------------------------
def deals() -> pl.Expr:
    return pl.col("rounds").cast(pl.Float64)


def seat_value(column: str, seat: int) -> pl.Expr:
    return pl.col(column).list.get(seat, null_on_oob=True)


def policy_seats(arm: Arm, policy: str) -> list[int]:
    return [s for s, p in enumerate(arm.policies) if p == policy]


def policy_mean(arm: Arm, policy: str, column: str) -> pl.Expr:
    """Mean over the seats `policy` holds of a per-seat column."""
    return m.mean_over([seat_value(column, s) for s in policy_seats(arm, policy)])


def position_per_deal(p: int) -> pl.Expr:
    return pl.col("position_points").list.get(p, null_on_oob=True) / deals()


def dealer_per_deal() -> pl.Expr:
    return pl.col("position_points").list.last() / deals()


def first_per_deal() -> pl.Expr:
    return pl.col("position_points").list.first() / deals()


def total_per_deal(column: str) -> pl.Expr:
    return pl.col(column).list.sum() / deals()


OUTCOMES = (
    Measure("score_mean", "points per seat", lambda arm: m.score_mean()),
    Measure("points_per_deal", "points per deal (all seats)", lambda arm: total_per_deal("score")),
    Measure("dealer_edge", "dealer minus first player, points per deal",
            lambda arm: dealer_per_deal() - first_per_deal()),
    Measure("wips_per_deal", "wips per deal", lambda arm: total_per_deal("wips")),
    Measure("builds_per_deal", "builds, raises and double builds per deal",
            lambda arm: (pl.col("builds").list.sum() + pl.col("raises").list.sum()
                         + pl.col("double_builds").list.sum()) / deals()),
    Measure("takeovers_per_deal", "takeovers per deal", lambda arm: total_per_deal("takeovers")),
    Measure("captures_per_deal", "captures per deal", lambda arm: total_per_deal("captures")),
)


# -- one pass over the dataset -----------------------------------------------------------------------
def _query(ctx: Context, arms: list[Arm]) -> pl.LazyFrame:
    n_max = max(a.players for a in arms)
    per_game: dict[str, pl.Expr] = {"deals": deals(), "turns": pl.col("turns").cast(pl.Float64),
                                    "dealer": dealer_per_deal(), "first": first_per_deal(),
                                    "dealer-first": dealer_per_deal() - first_per_deal()}
    per_game |= {f"pos{p}": position_per_deal(p) for p in range(n_max)}
    policies = sorted({q for a in arms for q in a.policies})
    for q in policies:
        holders = [a for a in arms if q in a.policies]
        for column, _ in SOURCES + ACTIONS:
            per_game[f"{q}:{column}"] = m.per_arm({a.name: policy_mean(a, q, column) for a in holders})
        per_game[f"{q}:score"] = m.per_arm({a.name: policy_mean(a, q, "score") for a in holders})
    return m.by_arm(lambda name: ctx.arm_scan(name)
                    .select("arm", *[e.cast(pl.Float64).alias(k) for k, e in per_game.items()]),
                    [a.name for a in arms], [pl.len().alias("games")] + [x for k in per_game
                                                                         for x in m.moments(pl.col(k), k)])


def _mean(r: dict, key: str, method: str = "t") -> Estimate:
    return mean_interval(r[f"{key}:mean"], r[f"{key}:var"], r[f"{key}:n"], method=method)


def _arm_stats(ctx: Context, arm: Arm, r: dict) -> dict:
    n = arm.players
    policies = list(dict.fromkeys(arm.policies))
    edge = _mean(r, "dealer-first", "paired t")
    return {
        "arm": arm, "games": int(r["games"]), "players": n,
        "deals": _mean(r, "deals"), "turns": _mean(r, "turns"),
        "positions": [_mean(r, f"pos{p}") for p in range(n)],
        "dealer": _mean(r, "dealer"), "first": _mean(r, "first"),
        "dealer_minus_first": edge,
        "dealer_claim": ctx.claim(f"wippen/{arm.name}/dealer-first", "wippen.positions",
                                  f"{arm.name}: dealer minus first player, points per deal", edge.p_value),
        "policies": {q: {"seats": policy_seats(arm, q), "score": _mean(r, f"{q}:score"),
                         "sources": {c: _mean(r, f"{q}:{c}") for c, _ in SOURCES},
                         "actions": {c: _mean(r, f"{q}:{c}") for c, _ in ACTIONS}} for q in policies},
    }


def has_columns(ctx: Context) -> bool:
    return game_has_columns(ctx, COLUMNS)


def wippen_stats(ctx: Context) -> dict[str, dict]:
    """{arm: numbers} for every arm with games, in study order; one group_by pass, cached."""
    return stats_by_arm(ctx, "wippen", _query, lambda arm, row: _arm_stats(ctx, arm, row))


def position_label(p: int, players: int) -> str:
    if p == players - 1:
        return "dealer"
    return {0: "1st", 1: "2nd", 2: "3rd"}.get(p, f"{p + 1}th")


# -- figures -------------------------------------------------------------------------------------------
def stacked_sources(rows: list[dict], title: str) -> Figure:
    """Stacked bars: one bar per (arm, policy), one segment per point source."""
    return plots.stacked_bars([r["label"] for r in rows],
                              [(name, [r[column] for r in rows]) for column, name in SOURCES],
                              ylabel="points per seat and game", title=title,
                              alt="stacked bars of mean points by source")


# -- sections --------------------------------------------------------------------------------------------
def _bar_label(name: str, policy: str, stats: dict) -> str:
    return policy if len(stats) == 1 else f"{name}: {policy}"


def _sources_section(ctx: Context, stats: dict[str, dict]) -> Section:
    sec = Section(key=ctx.key("wippen.sources"), title="Where the points come from", level=3,
                  notes=NOTES[:1])
    rows, bars = [], []
    for name, s in stats.items():
        for q, p in s["policies"].items():
            src = p["sources"]
            rows.append([name, q, text.seat_list(p["seats"]), text.value_ci(p["score"])]
                        + [text.value_ci(src[c]) for c, _ in SOURCES])
            bars.append({"label": _bar_label(name, q, stats), **{c: src[c].value for c, _ in SOURCES}})
    sec.tables.append(Table("Points per seat and game by source", ["arm", "policy", "seats", "total"]
                            + [label for _, label in SOURCES], rows))
    sec.figures.append(stacked_sources(bars, "Points per seat and game by source"))
    sec.data = {"arms": {name: {q: {"score": p["score"].to_dict(),
                                    **{c: p["sources"][c].to_dict() for c, _ in SOURCES}}
                                for q, p in s["policies"].items()} for name, s in stats.items()}}
    return sec


def _edge_phrase(name: str, s: dict) -> str:
    return f"{name} {text.value_ci(s['dealer_minus_first'], signed_values=True)}"


def _positions_verdicts(stats: dict[str, dict]) -> list[str]:
    """One sentence per decision (dealer scores more / first player scores more / no detectable
    difference), each decided by the corrected claim, instead of one bullet per arm."""
    more = [n for n, s in stats.items() if s["dealer_claim"].detected and s["dealer_minus_first"].value > 0]
    less = [n for n, s in stats.items() if s["dealer_claim"].detected and s["dealer_minus_first"].value <= 0]
    none = [n for n in stats if n not in more and n not in less]
    out = []
    for names, what in ((more, "the dealer (plays last in every hand) scores more per deal than the first player"),
                        (less, "the first player scores more per deal than the dealer (who plays last in every hand)")):
        if names:
            out.append(f"In {', '.join(names)} {what}; dealer minus first, points per deal: "
                       + "; ".join(f"{_edge_phrase(n, stats[n])} ({adjusted(stats[n]['dealer_claim'])})"
                                   for n in names) + ".")
    if none:
        bound = max(max(abs(stats[n]["dealer_minus_first"].lo), abs(stats[n]["dealer_minus_first"].hi)) for n in none)
        out.append("Dealer against first player: no detectable difference at this size in "
                   + ", ".join(none) + f" (dealer minus first within {text.number(bound)} points per deal either "
                   f"way in each): " + "; ".join(_edge_phrase(n, stats[n]) for n in none) + ".")
    return out


def _positions_section(ctx: Context, stats: dict[str, dict]) -> Section:
    sec = Section(key=ctx.key("wippen.positions"), title="Seat and dealer effects", level=3,
                  notes=NOTES[1:] + ["Win shares by seat (seat 0 plays first in the first deal; the "
                                     "deal passes left) are in the first-player section above."])
    rows, frame = [], []
    for name, s in stats.items():
        n, d = s["players"], s["dealer_minus_first"]
        rows.append([name, text.value_ci(s["deals"])] + [text.value_ci(e) for e in s["positions"]]
                    + [""] * (ctx.max_players - n) + [text.value_ci(d, signed_values=True),
                                                      text.p_value(s["dealer_claim"].adjusted, bare=True)])
        frame += [{"position": position_label(p, n) if ctx.max_players == n else f"{p + 1}",
                   "arm": name, "points": e.value, "lo": e.lo, "hi": e.hi}
                  for p, e in enumerate(s["positions"])]
    sec.tables.append(Table("Points per deal by play position", ["arm", "deals per game"]
                            + [f"position {p + 1}" for p in range(ctx.max_players)]
                            + ["dealer - first", "adjusted p"],
                            rows, note="position 1 plays first, the last position is the dealer"))
    sec.figures.append(plots.interval_bars(pl.DataFrame(frame), "position", "points", "lo", "hi", hue="arm",
                                           xlabel="play position", ylabel="points per deal", percent=False,
                                           title="Points per deal by play position"))
    sec.data = {"arms": {name: {"positions": [e.to_dict() for e in s["positions"]],
                                "dealer_minus_first": s["dealer_minus_first"].to_dict(),
                                "dealer_minus_first_detected": s["dealer_claim"].detected,
                                "deals": s["deals"].to_dict(), "card_plays": s["turns"].to_dict()}
                         for name, s in stats.items()}}
    return sec


def _actions_section(ctx: Context, stats: dict[str, dict]) -> Section:
    sec = Section(key=ctx.key("wippen.actions"), title="Captures, builds and takeovers by policy", level=3)
    rows = []
    for name, s in stats.items():
        for q, p in s["policies"].items():
            a = p["actions"]
            rows.append([name, q] + [text.value_ci(a[c]) for c, _ in ACTIONS])
    sec.tables.append(Table("Per seat and game", ["arm", "policy"] + [label for _, label in ACTIONS], rows,
                            note="builds are single builds made; a takeover is a capture of another "
                                 "player's build; game length (deals, cards played) is in 'Game length'"))
    sec.data = {"arms": {name: {q: {c: p["actions"][c].to_dict() for c, _ in ACTIONS}
                                for q, p in s["policies"].items()} for name, s in stats.items()}}
    return sec


def _options_sentence(ctx: Context) -> str | None:
    """Pairs that differ in the deck count or a build option only: their effects are the variant
    comparison's (same pairs, same claims), named here, not repeated."""
    pairs = [p for rule in BUILD_RULES for p in ctx.dataset.toggle_pairs(ctx.game, rule)]
    if not pairs:
        return None
    return ("The deck count and build options (" + "; ".join(f"{p.b.name} vs {p.a.name}" for p in pairs)
            + ") are compared game by game in the variant comparison above; pairs with another deck count deal "
            "other cards, so their paired intervals gain little.")


def wippen_section(ctx: Context) -> Section | None:
    key, title = ctx.key("wippen"), ctx.title("Wippen: points, seats and the dealer, building")
    if not has_columns(ctx):
        return Section(key=key, title=title, verdicts=[
            "The dataset lacks Wippen's columns (" + ", ".join(COLUMNS) + "; docs/schema.md): no Wippen analysis."])
    stats = wippen_stats(ctx)
    if not stats:
        return None
    sec = Section(key=key, title=title)
    options = _options_sentence(ctx)
    # the dealer verdict leads (the section's one claim); its table and figure are in the child
    sec.verdicts = _positions_verdicts(stats) + ([options] if options else [])
    sec.children = [_positions_section(ctx, stats), _sources_section(ctx, stats), _actions_section(ctx, stats)]
    sec.data = {"arms": list(stats), "build_pairs": [p.key for rule in BUILD_RULES
                                                     for p in ctx.dataset.toggle_pairs(ctx.game, rule)]}
    return sec


SECTIONS = (wippen_section,)
