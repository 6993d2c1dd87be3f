"""Knutten's own report parts: outcome measures and the John Knut / heavy-weather sections.

The John Knut section keeps John's own numbers (drawn, held, played, discarded; the drawer's, player's
and target's win shares); what John or heavy weather change in the game is the generic variant
comparison's, named here and not repeated.

Columns (besides the common ones): swarm_bites, wind_calls, cannot_play, reshuffles, john_in_deck,
john_drawn_by, john_draws, john_played_by, john_played_turn, john_target, john_bites, john_plays,
john_discards, john_discarded_turn. ``score`` is bites per seat (fewer is better).
"""
from __future__ import annotations

import numpy as np
import polars as pl

from reports import metrics as m
from reports import plots, text
from reports.compare import Comparison, Measure
from reports.context import Context
from reports.dataset import Arm, Pair
from reports.model import Section, Table
from reports.sections import variants
from reports.sections.first_player import adjusted, seat_stats
from reports.stats import Estimate, mean_interval, share_from_sums, wilson

OUTCOMES = (
    Measure("bites", "bites per game", lambda arm: m.score_total(), lower=0.0),
    Measure("wind_share", "games with a WIND call", lambda arm: pl.col("wind_calls") > 0, share=True),
    Measure("wind_calls", "WIND calls per game", lambda arm: pl.col("wind_calls"), lower=0.0),
    Measure("swarm_bites", "swarm bites per game", lambda arm: pl.col("swarm_bites"), lower=0.0),
    Measure("cannot_play", "cannot-play bites per game", lambda arm: pl.col("cannot_play"), lower=0.0),
    Measure("reshuffles", "reshuffles per game", lambda arm: pl.col("reshuffles"), lower=0.0),
    Measure("john_bites", "John bites per game", lambda arm: pl.col("john_bites"), lower=0.0),
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
    "john_played_by / john_target, over the games where that seat exists (Wilson interval at the effective "
    "number of games). It is compared with the share expected from who holds the role: the arm's win "
    "share of each seat, weighted by how often that seat holds the role (with equal seats this is "
    "1/players; with a seat edge or mixed players it is not). The difference is the mean over all games "
    "of (n/m) x role win - sum over seats (m_s/m) x seat win (m role games, m_s of them held by seat s), "
    "with a t-interval whose variance is taken given who held the role in which game (the spread within "
    "the games each seat, or nobody, held it); it is a claim of the report.",
    "These are associations: a player who draws or plays John may differ from one who does not in ways "
    "that also decide the game, so 'goes with winning more often' does not mean 'causes'.",
    "Effects are the variant comparison's paired comparisons of arms that differ only in the switch "
    "(john_knut 0->1; heavy_weather 0->1, heavy_bites_to_end may differ too), joined on the game index.",
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
        role = m.win_weight_at(col, players).fill_null(0.0)
        aggs += [(pl.col(col) >= 0).sum().alias(f"role:{col}:n"), role.sum().alias(f"role:{col}:sum"),
                 (role * role).sum().alias(f"role:{col}:sumsq")]
        aggs += [(pl.col(col) == s).sum().alias(f"role:{col}:m{s}") for s in range(players)]
        # per holder (a seat, or -1: nobody holds the role), the seat weights' sums and cross sums, for
        # the role's difference from its expected share with its variance given who held the role
        holder = pl.when(pl.col(col) >= 0).then(pl.col(col)).otherwise(-1)
        for h in range(-1, players):
            ind = (holder == h).cast(pl.Float64)
            aggs.append(ind.sum().alias(f"strat:{col}:{h}:n"))
            aggs += [(ind * m.win_weight(s)).sum().alias(f"strat:{col}:{h}:S{s}") for s in range(players)]
            aggs += [(ind * m.win_weight(s) * m.win_weight(t)).sum().alias(f"strat:{col}:{h}:C{s}.{t}")
                     for s in range(players) for t in range(s, players)]
    for col in ("john_played_turn", "john_discarded_turn"):
        turn = pl.col(col).filter(pl.col(col) >= 0)
        aggs += [turn.mean().alias(f"{col}:mean"), turn.median().cast(pl.Float64).alias(f"{col}:median"),
                 turn.count().alias(f"{col}:n")]
    return m.by_arm(ctx.arm_scan, [a.name for a in arms], aggs)


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
            roles = {col_key: _role(ctx, arm, r, col, col_key) for col, col_key in ROLE_KEYS.items()}
            out[arm.name] = {
                "arm": arm, "games": n, "in_deck": int(r["in_deck"]),
                "events": {k: wilson(r[f"event:{k}"], n) for k in EVENTS},
                "per_game": {c: mean_interval(r[f"{c}:mean"], r[f"{c}:var"], r[f"{c}:n"], lower=0.0) for c in COUNTS},
                "roles": roles,
                "turns": {col: {"mean": r[f"{col}:mean"], "median": r[f"{col}:median"], "games": r[f"{col}:n"]}
                          for col in ("john_played_turn", "john_discarded_turn")},
            }
        return out
    return ctx.cached(("knutten", "john"), run)


def _role_edge(r: dict, col: str, k: int, n: int, mr: int, held: np.ndarray) -> Estimate:
    """The role's win share minus the share expected from who held it: D = (1/m) sum over games of
    a_h . w_g, where w_g are the game's seat win weights, h the seat holding the role (or nobody) and
    a_h = e_h - p (p_s = m_s / n; nobody: -p). Its variance is taken given who held the role in which
    game (within-holder spread of a_h . w_g): the spread of the per-game values between games with and
    without the role is not sampling error of D, and counting it made the test conservative (2.7% of
    null arms rejected instead of 5%, benchmarks/calibration_knutten.py)."""
    p = held / n
    total, var = 0.0, 0.0
    for h in range(-1, k):
        nh = float(r[f"strat:{col}:{h}:n"] or 0.0)
        if nh == 0:
            continue
        a = -p.copy()
        if h >= 0:
            a[h] += 1.0
        sums = np.array([r[f"strat:{col}:{h}:S{s}"] or 0.0 for s in range(k)])
        cross = np.empty((k, k))
        for s in range(k):
            for t in range(s, k):
                cross[s, t] = cross[t, s] = r[f"strat:{col}:{h}:C{s}.{t}"] or 0.0
        first, second = float(a @ sums), float(a @ cross @ a)
        total += first
        if nh > 1:
            var += max(second - first * first / nh, 0.0) * nh / (nh - 1)
    se2 = var / mr ** 2
    return mean_interval(total / mr, se2 * n, n, method="t, expected share from role holders, given who held it")


def _role(ctx: Context, arm: Arm, r: dict, col: str, key: str) -> dict:
    """The role's win share and its difference from the share expected from the seats holding it."""
    n, k = int(r["games"]), arm.players
    mr = int(r[f"role:{col}:n"] or 0)
    share = share_from_sums(r[f"role:{col}:sum"] or 0.0, r[f"role:{col}:sumsq"] or 0.0, mr)
    st = seat_stats(ctx)[arm.name]
    if mr == 0:
        return {"share": share, "edge": Estimate(float("nan"), float("nan"), float("nan"), 0, "t"),
                "fair": float("nan"), "claim": None}
    held = np.array([r[f"role:{col}:m{s}"] or 0 for s in range(k)], float)
    expected = float(held @ st.mean / mr)
    edge = _role_edge(r, col, k, n, mr, held)
    label = f"{arm.name}: win share of {ROLES[col].removeprefix('the ')} against the expected share"
    return {"share": share, "edge": edge, "fair": expected,
            "claim": ctx.claim(f"john/{arm.name}/{key}", "knutten.john_knut", label, edge.p_value)}


def _role_phrase(role: str, st: dict, what: str) -> str:
    share, edge = st["share"], st["edge"]
    if share.n == 0:
        return f"{ROLES[role]}: never happened"
    d = text.zero_safe_digits(edge.lo * 100, edge.hi * 100, text.share_digits(share))
    expected = f"the {text.pct(st['fair'])} expected from the seats that hold this role"
    if st["claim"].detected:
        more = edge.value > 0
        return (f"{ROLES[role]} wins {text.share_ci(share)} of those games, {abs(edge.value) * 100:.{d}f} points "
                f"{'above' if more else 'below'} {expected} ({adjusted(st['claim'])}): {what} goes with winning "
                f"{'more' if more else 'less'} often (an association; it does not show that {what} is the cause)")
    return (f"{ROLES[role]} wins {text.share_ci(share)} of those games, {text.points(edge)} against {expected}: "
            f"no detectable association with {what}")


ROLE_WHAT = {"john_drawn_by": "drawing John", "john_played_by": "playing John",
             "john_target": "receiving John's bite"}


def _arm_verdicts(name: str, s: dict) -> list[str]:
    """Two sentences per arm: how often John is drawn / played / held / discarded, and the roles (the
    detected associations worded one by one, the others together with their bound; the table has all)."""
    ev = s["events"]
    out = [f"{name}: John is drawn in {text.share_ci(ev['drawn'])} of games, played in {text.share_ci(ev['played'])}, "
           f"held without being played in {text.share_ci(ev['held'])} and discarded in "
           f"{text.share_ci(ev['discarded'])}; it bites {text.value_ci(s['per_game']['john_bites'])} times per game."]
    found = [(col, key) for col, key in ROLE_KEYS.items() if s["roles"][key]["claim"] is not None
             and s["roles"][key]["claim"].detected]
    out += [f"{name}: " + _role_phrase(col, s["roles"][key], ROLE_WHAT[col]) + "." for col, key in found]
    rest = [(col, key) for col, key in ROLE_KEYS.items() if (col, key) not in found and s["roles"][key]["share"].n]
    if rest:
        bound = max(max(abs(s["roles"][k]["edge"].lo), abs(s["roles"][k]["edge"].hi)) for _, k in rest)
        out.append(f"{name}: no detectable association with winning at this size for "
                   + ", ".join(ROLE_WHAT[col] for col, _ in rest)
                   + f" (each within {bound * 100:.1f} percentage points of its expected share either way; table below).")
    return out


def _roles_across_arms(stats: dict[str, dict]) -> list[str]:
    """Several arms: one sentence per role, over every arm (how often John is drawn and played is in
    the tables)."""
    out, quiet = [], []
    for col, key in ROLE_KEYS.items():
        roles = {name: s["roles"][key] for name, s in stats.items() if s["roles"][key]["share"].n}
        found = {n: r for n, r in roles.items() if r["claim"] is not None and r["claim"].detected}
        if not found:
            quiet.append(col)
            continue
        for sign, word in ((1, "more"), (-1, "less")):
            arms = {n: r for n, r in found.items() if sign * r["edge"].value > 0}
            if arms:
                out.append(f"{ROLE_WHAT[col][0].upper()}{ROLE_WHAT[col][1:]} goes with winning {word} often in "
                           f"{len(arms)} of {len(roles)} arms ("
                           + ", ".join(f"{n} {text.pct(r['share'].value)} against {text.pct(r['fair'])} expected"
                                       for n, r in arms.items())
                           + "): an association, not shown to be the cause.")
    if quiet:
        out.append("No detectable association with winning in any arm for " + ", ".join(ROLE_WHAT[c] for c in quiet)
                   + " (table below).")
    return out


def _effects(ctx: Context, pairs: list[Pair]) -> dict[str, list[Comparison]]:
    comps = variants.comparisons(ctx, pairs)
    return {k: [c for c in cs if c.measure.key in EFFECTS] for k, cs in comps.items()}


def _effect_section(ctx: Context, key: str, title: str, rule: str, name: str, pairs: list[Pair],
                    present: bool) -> Section | None:
    """Where a switch's effects are: the variant comparison shows them (same pairs, same claims), so
    this section names the pairs and keeps the numbers in its data only, without repeating them."""
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
    names = "; ".join(f"{by_key[k].b.name} vs {by_key[k].a.name}" for k in comps)
    sec.verdicts = [f"What {name} changes in game length, WIND calls, bites, seat 0's win share and balance "
                    f"({names}) is in the variant comparison above, paired game by game; it is not repeated here."]
    sec.data = {"pairs": {k: variants.pair_data(by_key[k], c, variants.pair_verdict(by_key[k], c))
                          for k, c in comps.items()}}
    return sec


def _estimate_dicts(s: dict) -> dict:
    return {
        "games": s["games"], "games_with_john_in_deck": s["in_deck"],
        "events": {k: e.to_dict() for k, e in s["events"].items()},
        "per_game": {k: e.to_dict() for k, e in s["per_game"].items()},
        "roles": {k: {"win_share": v["share"].to_dict(), "edge": v["edge"].to_dict(), "expected_share": v["fair"],
                      **({kk: vv for kk, vv in v["claim"].to_dict().items() if kk not in ("section", "label")}
                         if v["claim"] else {"detected": False})} for k, v in s["roles"].items()},
        "first_turns": s["turns"],
    }


def john_knut_section(ctx: Context) -> list[Section]:
    stats = john_stats(ctx)
    pairs = ctx.dataset.toggle_pairs(ctx.game, "john_knut")
    sec = Section(key=ctx.key("knutten.john_knut"), title=ctx.title("Knutten: John Knut impact"), notes=list(NOTES))
    out = [sec]
    if not stats and not pairs:
        sec.verdicts = ["No arm plays with John Knut (rule john_knut = 1): nothing to report."]
    if len(stats) == 1:
        for name, s in stats.items():
            sec.verdicts += _arm_verdicts(name, s)
    elif stats:
        sec.verdicts += _roles_across_arms(stats)
    sec.data = {"arms": {name: _estimate_dicts(s) for name, s in stats.items()}}
    if stats:
        sec.tables.append(Table(
            "How often John Knut is drawn, held, played and discarded (share of games)",
            ["arm", "games"] + list(EVENTS),
            [[name, text.count(s["games"])] + [text.share_ci(s["events"][k]) for k in EVENTS]
             for name, s in stats.items()], fold=len(stats) == 1))  # one arm: its verdict gives every number
        sec.tables.append(Table(
            "John Knut per game",
            ["arm", "draws", "plays", "bites", "discards", "first play turn (median)", "first discard turn (median)"],
            [[name] + [text.value_ci(s["per_game"][c]) for c in COUNTS]
             + [text.quantity(s["turns"][c]["median"], 1) for c in ("john_played_turn", "john_discarded_turn")]
             for name, s in stats.items()], fold=True))  # detail behind how often John is drawn and played
        sec.tables.append(Table(
            "Win share of John's drawer, player and target",
            ["arm", "role", "games", "win share", "expected share", "difference", "adjusted p"],
            [[name, ROLE_KEYS[col], text.count(s["roles"][key]["share"].n), text.share_ci(s["roles"][key]["share"]),
              text.pct(s["roles"][key]["fair"]), text.points(s["roles"][key]["edge"]),
              text.p_value(s["roles"][key]["claim"].adjusted, bare=True) if s["roles"][key]["claim"] else "n/a"]
             for name, s in stats.items() for col, key in ROLE_KEYS.items()],
            note="expected share: the arm's seat win shares weighted by how often each seat holds the role",
            fold=True))  # the figure shows each role's share against its expected share
        # how often John is drawn, held, played and discarded: the first table (and, for one arm, the
        # verdict); no figure repeats it
        roles = pl.DataFrame([{"arm": name, "role": f"John's {key}", "share": v["share"].value, "lo": v["share"].lo,
                               "hi": v["share"].hi, "expected": v["fair"]}
                              for name, s in stats.items() for key, v in s["roles"].items() if v["share"].n])
        if roles.height:
            sec.figures.append(plots.forest(roles, "arm", "share", "lo", "hi", panel="role", ref="expected",
                                            percent="all", title="Win share of John's drawer, player and target "
                                            "(dashed: expected from the seats holding the role)"))
    effect = _effect_section(ctx, "knutten.john_knut.effects", "John Knut's effect on the game", "john_knut",
                             "John Knut", pairs, present=bool(stats))
    if effect and effect.data["pairs"]:
        sec.children.append(effect)
    elif effect:  # nothing to point to: one sentence here, not a section of its own
        sec.verdicts += effect.verdicts
    heavy_pairs = ctx.dataset.toggle_pairs(ctx.game, "heavy_weather", ignore=("heavy_bites_to_end",))
    heavy_present = any(int(a.rules.get("heavy_weather", 0) or 0) for a in ctx.arms)
    heavy = _effect_section(ctx, "knutten.heavy_weather", ctx.title("Knutten: heavy-weather variant"),
                            "heavy_weather", "heavy weather", heavy_pairs, heavy_present)
    if heavy:
        heavy.level = 2
        heavy.notes = [NOTES[-1]]
        out.append(heavy)
    return out


SECTIONS = (john_knut_section,)
