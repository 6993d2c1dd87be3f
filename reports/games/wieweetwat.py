"""Wie Weet Wat's own report parts: the first reader of each round, how much skill decides (win
share against a seat's vocabulary x speed relative to the table), which letters are hard to shed,
the value of holding a Wie Weet Wat card, and each action card's swing and game length; OUTCOMES
for the variant comparison (game length, remises, counter-attacks), through which arms that differ
in the action mix show the action cards' effect on the game's length as an experiment.

Within one arm the action cards' link with game length is observational (``action_length``): the
mean length of games by how many cards of each action they drew, and a least-squares regression
of the categories read on the seven per-game counts with robust (HC1) intervals, each game its
own cluster. A swing is a ratio of sums over games (its interval by the delta method, each game a
cluster).

Columns (docs/schema.md): first_reader_rounds_won, categories, remises, passes, per seat
www_rounds / www_rounds_won / jokers / counter_attacks, per action actions_drawn /
action_self_change / action_leader_change, per card kind letters_left / letters_shed.
Players' vocabulary and speed are arm metadata (study.json `seats`), not columns.

One group_by pass per arm computes every sum and moment (``wieweetwat_stats``, cached); intervals
come from reports.stats; win shares by seat from the generic first-player numbers (``seat_stats``).
"""
from __future__ import annotations

import math

import numpy as np
import polars as pl

from reports import plots, text
from reports.compare import Measure
from reports.context import Context
from reports.dataset import Arm
from reports.games import has_columns as game_has_columns, stats_by_arm
from reports.model import Section, Table
from reports.sections.first_player import seat_stats
from reports.stats import Estimate, mean_interval, wilson

LETTERS = "abcdefghijklmnopqrstuvwxyz"
KINDS = [c.upper() for c in LETTERS] + ["WWW"]
ACTIONS = ("Grote Kans", "Vicieuze cirkel", "Rotonde", "Verkiezingspartij", "Verloren geluk",
           "Te veel keuze", "Pechvogel")
COLUMNS = ("first_reader_rounds_won", "categories", "remises", "passes", "www_rounds",
           "www_rounds_won", "jokers", "counter_attacks", "actions_drawn", "action_self_change",
           "action_leader_change", "letters_left", "letters_shed")


def per_round(column: str) -> pl.Expr:
    return pl.col(column).cast(pl.Float64) / pl.col("rounds").cast(pl.Float64)


def list_sum(column: str) -> pl.Expr:
    return pl.col(column).list.sum().cast(pl.Float64)


OUTCOMES = (
    Measure("rounds_per_game", "rounds per game", lambda arm: pl.col("rounds").cast(pl.Float64)),
    Measure("categories_per_game", "categories read per game", lambda arm: pl.col("categories").cast(pl.Float64)),
    Measure("categories_per_round", "categories read per round", lambda arm: per_round("categories")),
    Measure("remises_per_round", "remises per round", lambda arm: per_round("remises")),
    Measure("wrong_per_round", "wrong answers per round",
            lambda arm: list_sum("wrong_answers") / pl.col("rounds").cast(pl.Float64)),
    Measure("counters_per_round", "counter-attacks per round",
            lambda arm: list_sum("counter_attacks") / pl.col("rounds").cast(pl.Float64)),
)


# -- one pass over the dataset ------------------------------------------------------------------------
def _query(ctx: Context, arms: list[Arm]) -> pl.LazyFrame:
    moments = {"rounds": pl.col("rounds").cast(pl.Float64),
               "categories": pl.col("categories").cast(pl.Float64),
               "first_reader": per_round("first_reader_rounds_won"),
               "categories_per_round": per_round("categories"),
               "remises_per_round": per_round("remises"),
               "passes_per_round": per_round("passes"),
               "jokers": list_sum("jokers"), "counters": list_sum("counter_attacks")}
    sums = {"www_rounds": list_sum("www_rounds"), "www_won": list_sum("www_rounds_won"),
            "seat_rounds": pl.col("rounds").cast(pl.Float64) * pl.col("players").cast(pl.Float64),
            "rounds_total": pl.col("rounds").cast(pl.Float64)}
    for k in range(27):
        sums[f"left{k}"] = pl.col("letters_left").list.get(k).cast(pl.Float64)
        sums[f"shed{k}"] = pl.col("letters_shed").list.get(k).cast(pl.Float64)
    for a in range(7):
        for col, key in (("actions_drawn", "drawn"), ("action_self_change", "self"),
                         ("action_leader_change", "leader")):
            sums[f"{key}{a}"] = pl.col(col).list.get(a).cast(pl.Float64)
        moments[f"drawn{a}"] = pl.col("actions_drawn").list.get(a).cast(pl.Float64)
        x = pl.col("actions_drawn").list.get(a).cast(pl.Float64)
        sums[f"xx{a}"] = x * x
        for col, key in (("action_self_change", "self"), ("action_leader_change", "leader")):
            y = pl.col(col).list.get(a).cast(pl.Float64)
            sums[f"{key}_yy{a}"] = y * y
            sums[f"{key}_xy{a}"] = x * y
    aggs = [pl.len().alias("games")]
    for k, e in moments.items():
        aggs += [e.mean().alias(f"{k}:mean"), e.var().alias(f"{k}:var")]
    aggs += [e.sum().alias(f"{k}:sum") for k, e in sums.items()]
    return ctx.scan.filter(pl.col("arm").is_in([a.name for a in arms])).group_by("arm").agg(aggs)


def _mean(r: dict, key: str):
    return mean_interval(r[f"{key}:mean"], r[f"{key}:var"], int(r["games"]))


def seat_params(ctx: Context, arm: Arm) -> list[dict]:
    """Each seat's player parameters as the study recorded them (defaults where absent)."""
    for a in ctx.dataset.study.get("arms", []):
        if a.get("name") == arm.name:
            return [dict(s.get("params") or {}) for s in a.get("seats") or []] or [{}] * arm.players
    return [{}] * arm.players


def skill(params: dict) -> float:
    return float(params.get("vocabulary", 1.0)) * float(params.get("speed", 1.0))


def ratio_interval(sum_y: float, sum_x: float, sum_yy: float, sum_xy: float, sum_xx: float,
                   n: int) -> Estimate:
    """sum(y) / sum(x) over n games (per-card mean of y when x counts the cards), its interval by the
    delta method with each game a cluster: se = sqrt(sum((y - R x)^2) / (n (n - 1))) / mean(x)."""
    if sum_x <= 0 or n < 1:
        return mean_interval(math.nan, math.nan, n)
    r = sum_y / sum_x
    spread = max(sum_yy - 2 * r * sum_xy + r * r * sum_xx, 0.0) / max(n - 1, 1)
    # mean_interval takes a per-game variance: the ratio's se^2 x n
    return mean_interval(r, spread / (sum_x / n) ** 2, n, method="ratio, games as clusters")


def _swing(r: dict, key: str, a: int, n: int) -> Estimate:
    return ratio_interval(r[f"{key}{a}:sum"], r[f"drawn{a}:sum"], r[f"{key}_yy{a}:sum"],
                          r[f"{key}_xy{a}:sum"], r[f"xx{a}:sum"], n)


def _arm_stats(ctx: Context, arm: Arm, r: dict) -> dict:
    n = arm.players
    games = int(r["games"])
    seat_rounds, www = r["seat_rounds:sum"], r["www_rounds:sum"]
    won_total = r["rounds_total:sum"]  # every round has one winner
    left = np.array([r[f"left{k}:sum"] for k in range(27)])
    shed = np.array([r[f"shed{k}:sum"] for k in range(27)])
    return {
        "arm": arm, "games": games, "players": n,
        "rounds": _mean(r, "rounds"), "categories": _mean(r, "categories"),
        "categories_per_round": _mean(r, "categories_per_round"),
        "remises_per_round": _mean(r, "remises_per_round"),
        "passes_per_round": _mean(r, "passes_per_round"),
        "first_reader": _mean(r, "first_reader"),
        "jokers": _mean(r, "jokers"), "counters": _mean(r, "counters"),
        "with_www": wilson(r["www_won:sum"], int(www)),
        "without_www": wilson(won_total - r["www_won:sum"], int(seat_rounds - www)),
        "left": left, "shed": shed,
        "drawn": np.array([r[f"drawn{a}:sum"] for a in range(7)]),
        "drawn_per_game": [_mean(r, f"drawn{a}") for a in range(7)],
        "self": np.array([r[f"self{a}:sum"] for a in range(7)]),
        "leader": np.array([r[f"leader{a}:sum"] for a in range(7)]),
        "self_swing": [_swing(r, "self", a, games) for a in range(7)],
        "leader_swing": [_swing(r, "leader", a, games) for a in range(7)],
        "skills": [skill(p) for p in seat_params(ctx, arm)],
        "params": seat_params(ctx, arm),
    }


def has_columns(ctx: Context) -> bool:
    return game_has_columns(ctx, COLUMNS)


def wieweetwat_stats(ctx: Context) -> dict[str, dict]:
    """{arm: numbers} for every arm with games, in study order; one group_by pass, cached."""
    return stats_by_arm(ctx, "wieweetwat", _query, lambda a, row: _arm_stats(ctx, a, row))


# -- game length against the action cards drawn, within an arm (observational) ------------------------
BINS = ("fewer", "about as many", "more")  # cards drawn against the arm's mean per game
BIN_EDGES = (0.75, 1.25)  # ... as fractions of that mean


def _drawn(a: int) -> pl.Expr:
    return pl.col("actions_drawn").list.get(a).cast(pl.Float64)


def _length_by_count(ctx: Context, arm: str, means: dict[int, float]) -> dict:
    """{(action, bin): Estimate of categories per game} over the arm's games, binned by the cards of
    the action drawn against the arm's mean (BINS, BIN_EDGES)."""
    scan = ctx.scan.filter(pl.col("arm") == arm)
    length = pl.col("categories").cast(pl.Float64)
    parts = []
    for a, mean in means.items():
        lo, hi = BIN_EDGES[0] * mean, BIN_EDGES[1] * mean
        which = pl.when(_drawn(a) < lo).then(0).when(_drawn(a) > hi).then(2).otherwise(1)
        parts.append(scan.group_by(which.cast(pl.Int64).alias("bin"))
                     .agg(length.mean().alias("mean"), length.var().alias("var"), pl.len().alias("games"))
                     .with_columns(pl.lit(a).cast(pl.Int64).alias("action")))
    out = {}
    if parts:
        for r in pl.concat(parts).collect().iter_rows(named=True):
            out[(r["action"], r["bin"])] = mean_interval(r["mean"], r["var"], int(r["games"]), lower=0.0)
    return out


def _length_regression(ctx: Context, arm: str, actions: list[int]) -> dict | None:
    """Least squares of categories per game on an intercept and the per-game counts of `actions`,
    with HC1 (heteroskedasticity-robust, each game its own cluster) standard errors: two passes
    over the arm's rows, sums of products only."""
    scan = ctx.scan.filter(pl.col("arm") == arm)
    ones = pl.col("rounds").cast(pl.Float64) ** 0  # a column of 1.0 (a literal would sum to 1)
    xs = [ones] + [_drawn(a) for a in actions]
    y = pl.col("categories").cast(pl.Float64)
    k = len(xs)
    pairs = [(i, j) for i in range(k) for j in range(i, k)]
    first = scan.select([pl.len().alias("n")] + [(xs[i] * xs[j]).sum().alias(f"x{i}_{j}") for i, j in pairs]
                        + [(xs[i] * y).sum().alias(f"y{i}") for i in range(k)]).collect().row(0, named=True)
    n = int(first["n"])
    if n <= k:
        return None
    xtx = np.zeros((k, k))
    for i, j in pairs:
        xtx[i, j] = xtx[j, i] = first[f"x{i}_{j}"]
    if np.linalg.matrix_rank(xtx) < k:
        return None
    inv = np.linalg.inv(xtx)
    beta = inv @ np.array([first[f"y{i}"] for i in range(k)])
    resid = y - sum(float(b) * x for b, x in zip(beta, xs))
    second = scan.select([(resid * resid * xs[i] * xs[j]).sum().alias(f"m{i}_{j}")
                          for i, j in pairs]).collect().row(0, named=True)
    meat = np.zeros((k, k))
    for i, j in pairs:
        meat[i, j] = meat[j, i] = second[f"m{i}_{j}"]
    cov = inv @ meat @ inv * n / (n - k)
    coef = {}
    for pos, a in enumerate(actions, start=1):
        se = math.sqrt(max(cov[pos, pos], 0.0))
        # mean_interval's se is sqrt(var / n): hand it var = se^2 n
        coef[a] = mean_interval(float(beta[pos]), se * se * n, n, method="OLS, HC1")
    return {"games": n, "intercept": float(beta[0]), "coef": coef}


def action_length(ctx: Context, stats: dict) -> dict:
    """{arm: {"by_count": {(action, count): Estimate}, "fit": regression or None}}, cached."""
    def run():
        out = {}
        for name, s in stats.items():
            means = {a: s["drawn_per_game"][a].value for a in range(7) if s["drawn"][a] > 0}
            varied = [a for a in means if _varies(s["drawn_per_game"][a])]
            out[name] = {"by_count": _length_by_count(ctx, name, means),
                         "fit": _length_regression(ctx, name, varied) if varied else None}
        return out
    return ctx.cached(("wieweetwat", "action_length"), run)


def _varies(est: Estimate) -> bool:
    """Whether a per-game count varies over the games (its interval has width)."""
    return bool(np.isfinite(est.lo) and est.hi > est.lo)


# -- sections ------------------------------------------------------------------------------------------
def _first_reader_section(ctx: Context, stats: dict) -> Section:
    sec = Section(key=ctx.key("wieweetwat.first_reader"), title="The first reader", level=3, notes=[
        "Seat 0 reads first in the game (its win share is in the first-player section); the winner of "
        "a round reads first in the next one. The first reader does not answer the first category. "
        "Share = rounds won by the round's first reader / rounds, averaged over games; fair = "
        "1/players. From the second round on the first reader is the last round's winner, so "
        "unequal players make this share grow with their skill: compare arms of equal players."])
    rows, frame = [], []
    for name, s in stats.items():
        e, fair = s["first_reader"], 1 / s["players"]
        word = ("the data cannot tell it from a fair share" if e.lo <= fair <= e.hi else
                "more than a fair share" if e.value > fair else "less than a fair share")
        sec.verdicts.append(f"{name}: a round's first reader wins {text.share_ci(e)} of the rounds "
                            f"(fair {text.pct(fair)}): {word}.")
        rows.append([name, text.share_ci(e), text.pct(fair)])
        frame.append({"arm": name, "share": e.value, "lo": e.lo, "hi": e.hi, "fair": fair})
    sec.tables.append(Table("Rounds won by the round's first reader", ["arm", "share", "fair"], rows))
    sec.figures.append(plots.interval_bars(pl.DataFrame(frame), "arm", "share", "lo", "hi", ref="fair",
                                           ylabel="rounds won", title="Rounds won by the first reader"))
    sec.data = {name: s["first_reader"].to_dict() for name, s in stats.items()}
    return sec


def _skill_section(ctx: Context, stats: dict) -> Section | None:
    seats = seat_stats(ctx)
    points = []
    for name, s in stats.items():
        skills = s["skills"]
        for seat, k in enumerate(skills):
            others = [x for j, x in enumerate(skills) if j != seat]
            ratio = k / (math.prod(others) ** (1 / len(others)))
            e = seats[name].shares[seat]
            p = s["params"][seat]
            points.append({"arm": name, "seat": seat, "vocabulary": float(p.get("vocabulary", 1.0)),
                           "speed": float(p.get("speed", 1.0)), "ratio": ratio, "share": e,
                           "fair": 1 / s["players"]})
    sec = Section(key=ctx.key("wieweetwat.skill"), title="How much skill decides", level=3, notes=[
        "Skill = vocabulary x speed (the recall model multiplies every rate by it); a seat's skill "
        "ratio = its skill over the geometric mean of the other seats'. Win shares by seat come from "
        "the first-player numbers (shared wins weigh 1/k). The fit is a weighted least-squares line "
        "of (win share - fair share) on log2 of the skill ratio over every (arm, seat) of the study: "
        "its slope is the win share a seat gains by doubling its skill against the table."])
    varied = [p for p in points if abs(math.log(p["ratio"])) > 1e-9]
    rows = [[p["arm"], str(p["seat"]), text.number(p["vocabulary"]), text.number(p["speed"]),
             text.number(p["ratio"]), text.share_ci(p["share"]), text.pct(p["fair"])]
            for p in (varied or points)]
    sec.tables.append(Table("Win share by a seat's skill against the table",
                            ["arm", "seat", "vocabulary", "speed", "skill ratio", "win share", "fair"],
                            rows, note="seats whose skill equals the table's are left out when any "
                                       "differs"))
    if varied:
        x = np.array([math.log2(p["ratio"]) for p in points])
        y = np.array([p["share"].value - p["fair"] for p in points])
        # each share's standard error from its 95% interval
        se_share = np.array([max((p["share"].hi - p["share"].lo) / (2 * 1.96), 1e-6) for p in points])
        w = 1 / se_share**2
        X = np.column_stack([np.ones_like(x), x])
        cov = np.linalg.inv(X.T @ (w[:, None] * X))
        beta = cov @ (X.T @ (w * y))
        se = math.sqrt(cov[1, 1])
        sec.verdicts.append(f"Doubling a seat's vocabulary x speed against the table adds "
                            f"{text.pct(beta[1])} (95% interval {text.pct(beta[1] - 1.96 * se)} to "
                            f"{text.pct(beta[1] + 1.96 * se)}) to its win share, over "
                            f"{len(points)} seats in {len(stats)} arms.")
        for p in varied:
            sec.verdicts.append(f"{p['arm']}: seat {p['seat']} with {text.number(p['ratio'])} times "
                                f"the table's skill wins {text.share_ci(p['share'])} of the games "
                                f"(fair {text.pct(p['fair'])}).")
        frame = pl.DataFrame([{"seat": f"{p['arm']} s{p['seat']}", "share": p["share"].value,
                               "lo": p["share"].lo, "hi": p["share"].hi, "fair": p["fair"]}
                              for p in varied])
        sec.figures.append(plots.interval_bars(frame, "seat", "share", "lo", "hi", ref="fair",
                                               ylabel="win share", title="Win share of the more or "
                                               "less skilled seat"))
        sec.data = {"slope_per_doubling": float(beta[1]), "slope_se": se, "intercept": float(beta[0])}
    else:
        sec.verdicts.append("Every seat of every arm has the same vocabulary and speed: give seats "
                            "other values (examples/wieweetwat-skill.toml) to measure skill.")
    sec.data["seats"] = [{**{k: v for k, v in p.items() if k != "share"}, "share": p["share"].to_dict()}
                         for p in points]
    return sec


def _letters_section(ctx: Context, stats: dict) -> Section:
    sec = Section(key=ctx.key("wieweetwat.letters"), title="Which letters are hard to shed", level=3,
                  notes=["Hold rate of a card kind = cards of it left in hands at the end of the "
                         "rounds / (cards left + cards shed), summed over the games; a Wilson "
                         "interval over those cards (cards of one game are not independent: read "
                         "the intervals as rough). Kinds with no card in play are left out."])
    frame, data = [], {}
    for name, s in stats.items():
        left, shed = s["left"], s["shed"]
        est = {KINDS[k]: wilson(left[k], int(left[k] + shed[k])) for k in range(27) if left[k] + shed[k] > 0}
        order = sorted(est, key=lambda k: -est[k].value)
        sec.verdicts.append(f"{name}: hardest to shed {', '.join(f'{k} ({text.pct(est[k].value)})' for k in order[:4])}; "
                            f"easiest {', '.join(f'{k} ({text.pct(est[k].value)})' for k in order[-3:])}.")
        sec.tables.append(Table(f"{name}: hold rate per card kind", ["kind", "left", "shed", "hold rate"],
                                [[k, text.count(left[KINDS.index(k)]), text.count(shed[KINDS.index(k)]),
                                  text.share_ci(est[k])] for k in order]))
        frame += [{"kind": k, "arm": name, "rate": est[k].value, "lo": est[k].lo, "hi": est[k].hi}
                  for k in KINDS if k in est]
        data[name] = {k: e.to_dict() for k, e in est.items()}
    sec.figures.append(plots.interval_bars(pl.DataFrame(frame), "kind", "rate", "lo", "hi",
                                           hue="arm" if len(stats) > 1 else None, ylabel="hold rate",
                                           title="Cards left at a round's end per card shed or left"))
    sec.data = data
    return sec


def _www_section(ctx: Context, stats: dict) -> Section:
    sec = Section(key=ctx.key("wieweetwat.www"), title="The value of a Wie Weet Wat card", level=3,
                  notes=["Rounds won by a seat dealt at least one Wie Weet Wat card, per such "
                         "seat-round, against the seat-rounds dealt none (Wilson intervals over "
                         "seat-rounds). Jokers and counter-attacks are per game, all seats."])
    rows = []
    for name, s in stats.items():
        a, b = s["with_www"], s["without_www"]
        sec.verdicts.append(f"{name}: dealt a Wie Weet Wat card a seat wins {text.share_ci(a)} of "
                            f"its rounds, without one {text.share_ci(b)}; {text.number(s['jokers'].value)} "
                            f"jokers and {text.number(s['counters'].value)} counter-attacks per game.")
        rows.append([name, text.share_ci(a), text.share_ci(b), text.value_ci(s["jokers"]),
                     text.value_ci(s["counters"])])
    sec.tables.append(Table("Rounds won with and without a Wie Weet Wat card",
                            ["arm", "with a card", "without", "jokers per game", "counter-attacks per game"], rows))
    sec.data = {name: {"with": s["with_www"].to_dict(), "without": s["without_www"].to_dict(),
                       "jokers": s["jokers"].to_dict(), "counters": s["counters"].to_dict()}
                for name, s in stats.items()}
    return sec


def _actions_section(ctx: Context, stats: dict) -> Section:
    sec = Section(key=ctx.key("wieweetwat.actions"), title="Action cards: swing and game length", level=3,
                  notes=["Swing = hand size after the action minus before, per card carried out: of "
                         "the reader, and of the reader's opponent with the fewest cards before it. "
                         "A swing is the sum over games of the change over the sum of the cards; its "
                         "95% interval comes from the delta method with each game a cluster (the "
                         "cards of one game are not independent). "
                         "Grote Kans acts on the next category (its extra cards are counted there, "
                         "not as its swing).",
                         "Game length within an arm is observational: a game that lasts longer reads "
                         "more cards and so draws more action cards of every kind, whatever they do. "
                         "So the mean length by cards drawn and the regression coefficients mix the "
                         "action's own effect with that; compare actions with each other (a card "
                         "that ends games sooner has a lower coefficient than the rest) rather than "
                         "with zero, and read them as associations. The regression: categories per "
                         "game on an intercept and the seven per-game counts (actions never drawn, "
                         "or drawn equally often in every game, left out), least squares with robust "
                         "HC1 intervals, each game its own cluster. The causal effect of an action "
                         "mix is measured by arms that differ in the action_* rules: the variant "
                         "comparison's categories and rounds per game."])
    lengths = action_length(ctx, stats)
    rows, count_rows, fit_rows, data = [], [], [], {}
    for name, s in stats.items():
        per = {}
        for a, title in enumerate(ACTIONS):
            d = s["drawn"][a]
            if d <= 0:
                continue
            own, lead = s["self_swing"][a], s["leader_swing"][a]
            per[title] = {"per_game": s["drawn_per_game"][a].to_dict(), "self": own.to_dict(),
                          "leader": lead.to_dict()}
            rows.append([name, title, text.value_ci(s["drawn_per_game"][a]),
                         text.value_ci(own, signed_values=True), text.value_ci(lead, signed_values=True)])
        by_count, fit = lengths[name]["by_count"], lengths[name]["fit"]
        for a, title in enumerate(ACTIONS):
            if s["drawn"][a] <= 0:
                continue
            cells = [by_count.get((a, c)) for c in range(len(BINS))]
            coef = fit["coef"].get(a) if fit else None
            count_rows.append([name, title] + [text.value_ci(e) + f" [{text.count(e.n)}]" if e else "-"
                                               for e in cells])
            if coef is not None:
                fit_rows.append([name, title, text.value_ci(coef, signed_values=True),
                                 text.p_value(coef.p_value)])
            if title in per:
                per[title]["length_by_count"] = {BINS[c]: e.to_dict() for c, e in enumerate(cells) if e}
                if coef is not None:
                    per[title]["length_coefficient"] = coef.to_dict()
        if per:
            # a shedding game: cards gained are bad for their holder
            key = {t: per[t]["leader"]["estimate"] - per[t]["self"]["estimate"] for t in per}
            best, worst = max(key, key=key.get), min(key, key=key.get)
            sec.verdicts.append(
                f"{name}: {text.number(s['categories'].value)} categories and "
                f"{text.number(s['rounds'].value)} rounds per game; worst for its reader against the "
                f"leader: {worst} (reader {text.value_ci(s['self_swing'][ACTIONS.index(worst)], True)}, "
                f"leader {text.value_ci(s['leader_swing'][ACTIONS.index(worst)], True)} cards); best: "
                f"{best} (reader {text.value_ci(s['self_swing'][ACTIONS.index(best)], True)}, leader "
                f"{text.value_ci(s['leader_swing'][ACTIONS.index(best)], True)} cards).")
            if fit and fit["coef"]:
                coefs = fit["coef"]
                low = min(coefs, key=lambda a: coefs[a].value)
                high = max(coefs, key=lambda a: coefs[a].value)
                sec.verdicts.append(
                    f"{name} (observational): each card drawn goes with "
                    f"{text.value_ci(coefs[low], True)} categories per game for {ACTIONS[low]} and "
                    f"{text.value_ci(coefs[high], True)} for {ACTIONS[high]}, the others between; "
                    "longer games draw more of every card, so compare the actions, not each with 0.")
        else:
            sec.verdicts.append(f"{name}: no action cards in play; {text.number(s['categories'].value)} "
                                f"categories and {text.number(s['rounds'].value)} rounds per game.")
        data[name] = {"actions": per, "length_fit": None if not fit else {
            "games": fit["games"], "intercept": fit["intercept"],
            "coef": {ACTIONS[a]: e.to_dict() for a, e in fit["coef"].items()}}}
    sec.tables.append(Table("Per action card", ["arm", "action", "cards per game", "reader's swing",
                                                "leader's swing"], rows,
                            note="swings in cards per card carried out, with 95% intervals; negative "
                                 "= the hand shrinks (good for its holder)"))
    sec.tables.append(Table("Categories per game by the cards of each action the game drew "
                            "(observational)", ["arm", "action"] + [f"{b} cards" for b in BINS],
                            count_rows,
                            note=f"games that drew fewer than {BIN_EDGES[0]} times the arm's mean "
                                 f"cards of the action per game, about as many, or more than "
                                 f"{BIN_EDGES[1]} times: mean categories per game with its 95% "
                                 "interval [games]"))
    if fit_rows:
        sec.tables.append(Table("Categories per game on the cards drawn of each action: regression "
                                "(observational)", ["arm", "action", "categories per card drawn",
                                                    "p (coefficient 0)"], fit_rows,
                                note="least squares with the seven counts together, robust HC1 "
                                     "intervals; see the note on what the coefficients mix"))
    sec.data = data
    return sec


def wieweetwat_section(ctx: Context) -> Section | None:
    key, title = ctx.key("wieweetwat"), ctx.title("Wie Weet Wat: readers, skill, letters, cards")
    if not has_columns(ctx):
        return Section(key=key, title=title, verdicts=[
            "The dataset lacks Wie Weet Wat's columns (" + ", ".join(COLUMNS) + "; docs/schema.md)."])
    stats = wieweetwat_stats(ctx)
    if not stats:
        return None
    sec = Section(key=key, title=title)
    sec.verdicts = [f"{name}: {text.number(s['rounds'].value)} rounds, {text.number(s['categories_per_round'].value)} "
                    f"categories per round, {text.number(s['remises_per_round'].value)} remises and "
                    f"{text.number(s['passes_per_round'].value)} categories without a winner per round."
                    for name, s in stats.items()]
    sec.children = [_first_reader_section(ctx, stats), _skill_section(ctx, stats),
                    _letters_section(ctx, stats), _www_section(ctx, stats), _actions_section(ctx, stats)]
    sec.data = {"arms": list(stats)}
    return sec


SECTIONS = (wieweetwat_section,)
