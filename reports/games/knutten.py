"""Knutten's own report parts: outcome measures and the John Knut / heavy-weather sections.

Columns (besides the common ones): swarm_bites, wind_calls, cannot_play, reshuffles, john_in_deck,
john_drawn_by, john_draws, john_played_by, john_played_turn, john_target, john_bites, john_plays,
john_discards, john_discarded_turn. ``score`` is bites per seat (fewer is better).
"""
from __future__ import annotations

import polars as pl

from reports import metrics as m
from reports import plots, text
from reports.compare import Comparison, Measure
from reports.context import Context
from reports.dataset import Arm, Pair
from reports.model import Section, Table
from reports.sections import variants
from reports.stats import mean_interval, wilson

OUTCOMES = (
    Measure("bites", "bites per game", lambda arm: m.score_total()),
    Measure("wind_share", "games with a WIND call", lambda arm: pl.col("wind_calls") > 0, share=True),
    Measure("wind_calls", "WIND calls per game", lambda arm: pl.col("wind_calls")),
    Measure("swarm_bites", "swarm bites per game", lambda arm: pl.col("swarm_bites")),
    Measure("cannot_play", "cannot-play bites per game", lambda arm: pl.col("cannot_play")),
    Measure("reshuffles", "reshuffles per game", lambda arm: pl.col("reshuffles")),
    Measure("john_bites", "John bites per game", lambda arm: pl.col("john_bites")),
)
# What a switch (John Knut, heavy weather) is judged on: length, WIND, bites, seat 0, balance.
EFFECTS = ("turns", "rounds", "wind_share", "wind_calls", "bites", "seat0_win", "balance")

EVENTS = {  # share of games in which ...
    "drawn": pl.col("john_drawn_by") >= 0,
    "held": (pl.col("john_drawn_by") >= 0) & (pl.col("john_plays") == 0),
    "played": pl.col("john_plays") > 0,
    "discarded": pl.col("john_discards") > 0,
}
EVENT_WORDS = {"drawn": "drawn", "held": "held without ever being played", "played": "played",
               "discarded": "discarded"}
COUNTS = ("john_draws", "john_plays", "john_bites", "john_discards")
ROLES = {  # seat column -> who
    "john_drawn_by": "the player who first draws John",
    "john_played_by": "the player who first plays John",
    "john_target": "the player who receives John's first bite",
}
ROLE_KEYS = {"john_drawn_by": "drawer", "john_played_by": "player", "john_target": "target"}
NOTES = [
    "John statistics cover arms with rule john_knut = 1 (or, when the rule is not recorded, arms whose "
    "games have john_in_deck). Drawn: some seat drew John (john_drawn_by >= 0); "
    "held: drawn but never played (john_plays = 0, discarded or not); played: john_plays > 0; "
    "discarded: john_discards > 0. Shares of games with Wilson intervals; counts per game with t-intervals.",
    "Win share of the drawer / player / target: the 1/n-weighted win of the seat named by john_drawn_by / "
    "john_played_by / john_target, over the games where that seat exists (Wilson interval, weighted wins "
    "as successes), against the fair share 1/players.",
    "Effects are paired comparisons of arms that differ only in the switch (john_knut 0->1; heavy_weather "
    "0->1, heavy_bites_to_end may differ too), joined on the game index (common random numbers): mean "
    "per-game difference with a t-interval, the unpaired Welch interval alongside.",
]


def john_arms(ctx: Context) -> list[Arm]:
    """Arms whose rules say john_knut = 1 (a study.json that omits the rule is settled by the data)."""
    return [a for a in ctx.arms if int(a.rules.get("john_knut", 0) or 0) == 1]


def _john_query(ctx: Context, arms: list[Arm]) -> pl.LazyFrame:
    players = ctx.max_players
    aggs = [pl.len().alias("games"), pl.col("john_in_deck").cast(pl.Int64).sum().alias("in_deck")]
    aggs += [e.sum().alias(f"event:{k}") for k, e in EVENTS.items()]
    for c in COUNTS:
        aggs += m.moments(pl.col(c), c)
    for col in ROLES:
        aggs += m.moments(m.win_weight_at(col, players), f"role:{col}")
    for col in ("john_played_turn", "john_discarded_turn"):
        turn = pl.col(col).filter(pl.col(col) >= 0)
        aggs += [turn.mean().alias(f"{col}:mean"), turn.median().cast(pl.Float64).alias(f"{col}:median"),
                 turn.count().alias(f"{col}:n")]
    return ctx.scan.filter(pl.col("arm").is_in([a.name for a in arms])).group_by("arm").agg(aggs)


def john_stats(ctx: Context) -> dict[str, dict]:
    def run():
        unknown = [a for a in ctx.arms if "john_knut" not in a.rules]
        arms = john_arms(ctx) + unknown
        if not arms:
            return {}
        rows = {r["arm"]: r for r in _john_query(ctx, arms).collect().iter_rows(named=True)}
        out = {}
        for arm in ctx.arms:
            r = rows.get(arm.name)
            if r is None or (arm in unknown and not r["in_deck"]):
                continue
            n = int(r["games"])
            roles = {}
            for col in ROLES:
                share = wilson(r[f"role:{col}:sum"] or 0.0, r[f"role:{col}:n"])
                roles[ROLE_KEYS[col]] = {"share": share, "edge": share.shift(-arm.fair), "fair": arm.fair}
            out[arm.name] = {
                "arm": arm, "games": n, "in_deck": int(r["in_deck"]),
                "events": {k: wilson(r[f"event:{k}"], n) for k in EVENTS},
                "per_game": {c: mean_interval(r[f"{c}:mean"], r[f"{c}:var"], r[f"{c}:n"]) for c in COUNTS},
                "roles": roles,
                "turns": {col: {"mean": r[f"{col}:mean"], "median": r[f"{col}:median"], "games": r[f"{col}:n"]}
                          for col in ("john_played_turn", "john_discarded_turn")},
            }
        return out
    return ctx.cached(("knutten", "john"), run)


def _role_phrase(role: str, st: dict, what: str) -> str:
    share, edge = st["share"], st["edge"]
    if share.n == 0:
        return f"{ROLES[role]}: never happened"
    d = text.share_digits(share)
    if edge.excludes(0.0):
        effect = f"{what} {'helps' if edge.value > 0 else 'hurts'}"
        return (f"{ROLES[role]} wins {text.share_ci(share)} of those games, {abs(edge.value) * 100:.{d}f} points "
                f"{'above' if edge.value > 0 else 'below'} a fair share ({text.pct(st['fair'])}): {effect}")
    return (f"{ROLES[role]} wins {text.share_ci(share)} of those games, {text.signed(edge.value * 100, d)} points "
            f"against a fair share ({text.pct(st['fair'])}): no detectable effect of {what}")


ROLE_WHAT = {"john_drawn_by": "drawing John", "john_played_by": "playing John",
             "john_target": "receiving John's bite"}


def _arm_verdicts(name: str, s: dict) -> list[str]:
    ev = s["events"]
    out = [f"{name}: John is drawn in {text.share_ci(ev['drawn'])} of games, played in {text.share_ci(ev['played'])}, "
           f"held without being played in {text.share_ci(ev['held'])} and discarded in "
           f"{text.share_ci(ev['discarded'])}; it bites {text.value_ci(s['per_game']['john_bites'])} times per game."]
    for col, key in ROLE_KEYS.items():
        out.append(f"{name}: " + _role_phrase(col, s["roles"][key], ROLE_WHAT[col]) + ".")
    return out


def _effects(ctx: Context, pairs: list[Pair]) -> dict[str, list[Comparison]]:
    comps = variants.comparisons(ctx, pairs)
    return {k: [c for c in cs if c.measure.key in EFFECTS] for k, cs in comps.items()}


def _effect_section(ctx: Context, key: str, title: str, rule: str, name: str, pairs: list[Pair],
                    present: bool) -> Section | None:
    if not pairs and not present:
        return None
    sec = Section(key=ctx.key(key), title=title, level=3)
    if not pairs:
        sec.verdicts = [f"No two arms differ in {rule} alone (same players, policies and other rules): "
                        f"the effect of {name} cannot be estimated from this study."]
        sec.data = {"pairs": {}}
        return sec
    comps = _effects(ctx, pairs)
    by_key = {p.key: p for p in pairs}
    sec.verdicts = [variants.pair_verdict(by_key[k], c, name=f"{name}, {by_key[k].b.name} vs {by_key[k].a.name}")
                    for k, c in comps.items()]
    sec.data = {"pairs": {k: variants.pair_data(by_key[k], c, v) for (k, c), v in zip(comps.items(), sec.verdicts)}}
    sec.tables = [variants.comparison_table(by_key[k], c, title=f"Effect of {name}: {by_key[k].b.name} vs {by_key[k].a.name}")
                  for k, c in comps.items()]
    sec.figures.append(variants.comparison_figure(comps, f"Effect of {name} (paired blue, unpaired grey)"))
    return sec


def _estimate_dicts(s: dict) -> dict:
    return {
        "games": s["games"], "games_with_john_in_deck": s["in_deck"],
        "events": {k: e.to_dict() for k, e in s["events"].items()},
        "per_game": {k: e.to_dict() for k, e in s["per_game"].items()},
        "roles": {k: {"win_share": v["share"].to_dict(), "edge": v["edge"].to_dict(), "fair_share": v["fair"],
                      "detected": v["edge"].excludes(0.0)} for k, v in s["roles"].items()},
        "first_turns": s["turns"],
    }


def john_knut_section(ctx: Context) -> list[Section]:
    stats = john_stats(ctx)
    pairs = ctx.dataset.toggle_pairs(ctx.game, "john_knut")
    sec = Section(key=ctx.key("knutten.john_knut"), title=ctx.title("Knutten: John Knut impact"), notes=list(NOTES))
    if not stats and not pairs:
        sec.verdicts = ["No arm plays with John Knut (rule john_knut = 1): nothing to report."]
        return [sec]
    for name, s in stats.items():
        sec.verdicts += _arm_verdicts(name, s)
    sec.data = {"arms": {name: _estimate_dicts(s) for name, s in stats.items()}}
    if stats:
        sec.tables.append(Table(
            "How often John Knut is drawn, held, played and discarded (share of games)",
            ["arm", "games"] + list(EVENTS),
            [[name, text.count(s["games"])] + [text.share_ci(s["events"][k]) for k in EVENTS]
             for name, s in stats.items()]))
        sec.tables.append(Table(
            "John Knut per game",
            ["arm", "draws", "plays", "bites", "discards", "first play turn (median)", "first discard turn (median)"],
            [[name] + [text.value_ci(s["per_game"][c]) for c in COUNTS]
             + [text.quantity(s["turns"][c]["median"], 1) for c in ("john_played_turn", "john_discarded_turn")]
             for name, s in stats.items()]))
        sec.tables.append(Table(
            "Win share of John's drawer, player and target",
            ["arm", "role", "games", "win share", "against fair share"],
            [[name, ROLE_KEYS[col], text.count(s["roles"][key]["share"].n), text.share_ci(s["roles"][key]["share"]),
              text.points(s["roles"][key]["edge"])] for name, s in stats.items() for col, key in ROLE_KEYS.items()]))
        events = pl.DataFrame([{"event": k, "arm": name, "share": e.value, "lo": e.lo, "hi": e.hi}
                               for name, s in stats.items() for k, e in s["events"].items()])
        sec.figures.append(plots.interval_bars(events, "event", "share", "lo", "hi", hue="arm", xlabel="John Knut was ...",
                                               ylabel="share of games", title="John Knut: drawn, held, played, discarded"))
        roles = pl.DataFrame([{"who": f"{name}: {key}", "share": v["share"].value, "lo": v["share"].lo,
                               "hi": v["share"].hi, "fair": v["fair"]}
                              for name, s in stats.items() for key, v in s["roles"].items() if v["share"].n])
        if roles.height:
            sec.figures.append(plots.forest(roles, "who", "share", "lo", "hi", ref="fair", percent="all",
                                            xlabel="win share (dashed: fair share)",
                                            title="Win share of John's drawer, player and target"))
    effect = _effect_section(ctx, "knutten.john_knut.effects", "John Knut's effect on the game", "john_knut",
                             "John Knut", pairs, present=bool(stats))
    if effect:
        sec.children.append(effect)
    out = [sec]
    heavy_pairs = ctx.dataset.toggle_pairs(ctx.game, "heavy_weather", ignore=("heavy_bites_to_end",))
    heavy_present = any(int(a.rules.get("heavy_weather", 0) or 0) for a in ctx.arms)
    heavy = _effect_section(ctx, "knutten.heavy_weather", ctx.title("Knutten: heavy-weather variant"),
                            "heavy_weather", "heavy weather", heavy_pairs, heavy_present)
    if heavy:
        heavy.level = 2
        heavy.notes = [NOTES[2]]
        out.append(heavy)
    return out


SECTIONS = (john_knut_section,)
