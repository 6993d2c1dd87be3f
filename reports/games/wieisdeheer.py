"""Wie is de Heer?'s own report parts: the answer to the designer. Who wins (the mole's win share by
player count and mole policy), the sabotage sweep and the mole's best rate, how right and how well
calibrated the accusations are (Brier score, reliability), how finishing place and questions drive
correct accusations, the first player's edge in going out, the pot under each mole policy and
whether the points decide anything, and the rule changes that move the mole's win share towards a
target: the designer's `mole_target` in the study file's [report] table, else the fair share
1/players (the mole wins as often as any one player).

Columns (docs/schema.md): mole, mole_won, pot, points_voided, points_left, questions, plays,
reshuffles, sabotages, stalled; per seat finish, suspect, correct, p_suspect, p_mole (per mille),
brier (millionths), joker_finish, questions_asked, banked, voided, drawn. Win shares by seat are the
generic first-player section's; the variant comparison's numbers (OUTCOMES) are reused here.
"""
from __future__ import annotations

import json
import math

import numpy as np
import polars as pl

from reports import plots, text
from reports.compare import Measure
from reports.context import Context
from reports.games import has_columns as game_has_columns
from reports.model import Section, Table
from reports.sections import variants
from reports.sections.first_player import adjusted
from reports.stats import mean_interval, share_interval, share_test, welch_difference, wilson

SEAT_COLUMNS = ("finish", "suspect", "correct", "p_suspect", "p_mole", "brier", "questions_asked")
COLUMNS = ("mole", "mole_won", "pot", "points_voided", "points_left", "sabotages", "questions",
           "stalled") + SEAT_COLUMNS
BINS = (0.0, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0001)  # stated probability bins (reliability)
QUESTION_BINS = ((0, 0, "none"), (1, 3, "1-3"), (4, 6, "4-6"), (7, 10**6, "7 or more"))
NOTES = [
    "The winner is the first player in the final order who wrote the mole, else the mole. The mole's win "
    "share is a yes/no share over games with a Wilson interval. The target is the share the designer names in "
    "the study file (report.mole_target); unset, it is the fair share 1/players (the mole wins as often as "
    "any one player).",
    "Accusations are those of the seats that reason about the mole (reasoner and racer, not random, "
    "not the mole itself). Shares over those seats use the per-game share with a Wilson interval at "
    "the effective number of games; Brier scores are per writer, with a t-interval over games.",
]


def base_policy(label: str) -> str:
    return label.split("(")[0]


def target_of(ctx: Context, arm) -> float:
    """The mole's target win share: the study's report.mole_target, else the arm's fair share."""
    return ctx.options.mole_target if ctx.options.mole_target is not None else arm.fair


def target_words(ctx: Context, arm) -> str:
    named = ctx.options.mole_target is not None
    return f"{'the target' if named else 'the fair'} {text.pct(target_of(ctx, arm))}"


def target_column(ctx: Context) -> str:
    return "target" if ctx.options.mole_target is not None else "fair share"


def target_data(ctx: Context) -> dict:
    named = ctx.options.mole_target
    return {"mole_target": named, "source": "report.mole_target" if named is not None else "fair share 1/players"}


GRID = 1001  # rates between the first and last swept rate at which the interpolated band is read


def reaching_rate(rates: list[float], shares: list, target: float) -> dict | None:
    """Where a sweep's mole win share reaches `target`, reading the share and its 95% interval as
    straight lines between the swept rates: `rate`, the first rate at which the interpolated share
    equals the target (None when no segment crosses it), `crossings`, how many segments cross it,
    and `lo`-`hi`, the rates around it (or, with no crossing, every rate) whose interpolated
    interval contains the target, with `open_lo`/`open_hi` when that run reaches an end of the
    sweep. None when the share never crosses the target and every interval lies apart from it."""
    values = [e.value for e in shares]
    rate, crossings = None, 0
    for k in range(len(rates) - 1):
        a, b = values[k] - target, values[k + 1] - target
        if a == 0 or a * b < 0 or (b == 0 and k == len(rates) - 2):
            crossings += 1
            if rate is None:
                rate = rates[k] if a == 0 else (rates[k + 1] if b == 0 else
                                                rates[k] + (rates[k + 1] - rates[k]) * a / (a - b))
    grid = np.linspace(rates[0], rates[-1], GRID)
    inside = ((np.interp(grid, rates, [e.lo for e in shares]) <= target)
              & (target <= np.interp(grid, rates, [e.hi for e in shares])))
    if not inside.any():
        return None if rate is None else {"rate": rate, "crossings": crossings, "lo": rate, "hi": rate,
                                          "open_lo": False, "open_hi": False}
    if rate is None:
        where = np.flatnonzero(inside)
        first, last = int(where[0]), int(where[-1])
    else:
        first = last = int(np.argmin(np.abs(grid - rate)))
        while first > 0 and inside[first - 1]:
            first -= 1
        while last < GRID - 1 and inside[last + 1]:
            last += 1
    return {"rate": rate, "crossings": crossings, "lo": float(grid[first]), "hi": float(grid[last]),
            "open_lo": first == 0, "open_hi": last == GRID - 1}


def reaching_words(reach: dict | None, target: str, values: list[float]) -> str:
    """The verdict's clause on the sabotage rate that reaches the target."""
    if reach is None:
        return (f"no swept rate reaches {target} (the mole's share runs from {text.pct(min(values))} to "
                f"{text.pct(max(values))}, every interval apart from it)")
    band = f"{reach['lo']:.2f}-{reach['hi']:.2f}" + (
        " (to an end of the sweep, so perhaps beyond it)" if reach["open_lo"] or reach["open_hi"] else "")
    if reach["rate"] is None:
        return f"no swept rate's share crosses {target}, but rates {band} are not told apart from it"
    more = f" (the first of {reach['crossings']} crossings)" if reach["crossings"] > 1 else ""
    return (f"the mole's share reaches {target} at sabotage {reach['rate']:.2f}{more}; rates {band} are not told "
            f"apart from it (95% intervals, interpolated between the swept rates)")


OUTCOMES = (
    Measure("mole_won", "mole win share", lambda arm: pl.col("mole_won"), share=True),
    Measure("accusers_right", "share of the other seats that wrote the mole",
            lambda arm: (pl.col("correct").list.eval((pl.element() == 1).cast(pl.Float64)).list.sum()
                         / (arm.players - 1)), share=True),
    Measure("pot", "pot per game (points)", lambda arm: pl.col("pot"), lower=0.0),
    Measure("points_voided", "points voided per game", lambda arm: pl.col("points_voided"), lower=0.0),
    Measure("questions", "questions per game", lambda arm: pl.col("questions"), lower=0.0),
)


# -- data ------------------------------------------------------------------------------------------------
def has_columns(ctx: Context) -> bool:
    return game_has_columns(ctx, COLUMNS)


def seat_params(ctx: Context, arm_name: str) -> list[dict]:
    """Each seat's player parameters: study.json records every parameter of a seat's policy, the
    defaults included (an arm of default reasoners is the sweep's point at the default `sabotage`)."""
    for a in ctx.dataset.study.get("arms", []):
        if a["name"] == arm_name:
            return [dict(s.get("params") or {}) for s in a.get("seats", [])]
    return []


def labels_frame(ctx: Context) -> pl.DataFrame:
    return pl.DataFrame([{"arm": a.name, "seat": s, "policy": p, "base": base_policy(p)}
                         for a in ctx.arms for s, p in enumerate(a.policies)],
                        schema={"arm": pl.String, "seat": pl.Int64, "policy": pl.String, "base": pl.String})


def game_frame(ctx: Context) -> pl.DataFrame:
    """One row per game: outcome columns, the mole's policy and whether seat 0 took the first place."""
    def run():
        labels = labels_frame(ctx).rename({"seat": "mole", "policy": "mole_policy", "base": "mole_base"})
        return (ctx.scan.select("arm", "game", "players", pl.col("mole").cast(pl.Int64), "mole_won", "pot",
                                "points_voided", "points_left", "sabotages", "questions", "stalled",
                                (pl.col("finish").list.get(0) == 0).cast(pl.Int8).alias("seat0_first"),
                                (pl.col("correct").list.eval((pl.element() == 1).cast(pl.Int32)).list.sum())
                                .alias("right"))
                .collect().join(labels, on=["arm", "mole"], how="left"))
    return ctx.cached(("wieisdeheer", "games"), run)


def writer_frame(ctx: Context) -> pl.DataFrame:
    """One row per (game, seat) for the seats that reason and are not the mole, and wrote a name."""
    def run():
        long = (ctx.scan.select("arm", "game", "players", "mole", *SEAT_COLUMNS)
                .with_columns(seat=pl.int_ranges(0, pl.col("players").cast(pl.Int64)))
                .explode(["seat", *SEAT_COLUMNS]).collect())
        return (long.join(labels_frame(ctx), on=["arm", "seat"], how="left")
                .filter((pl.col("seat") != pl.col("mole")) & (pl.col("suspect") >= 0) & (pl.col("base") != "random"))
                .with_columns(stated=pl.col("p_suspect") / 1000.0, on_mole=pl.col("p_mole") / 1000.0,
                              brier_score=pl.col("brier") / 1e6, right=(pl.col("correct") == 1).cast(pl.Float64)))
    return ctx.cached(("wieisdeheer", "writers"), run)


def binary_share(values: pl.Series):
    """A yes/no share over games with a Wilson interval, and its per-game variance (ddof 1)."""
    n = len(values)
    k = float(values.sum())
    var = (k / n) * (1 - k / n) * n / (n - 1) if n > 1 else math.nan
    return wilson(k, n), var


def per_game_share(frame: pl.DataFrame, value: str):
    """Mean over games of the per-game mean of `value` (writers within a game are not independent)."""
    g = frame.group_by("game", maintain_order=True).agg(pl.col(value).mean().alias("v"))["v"]
    n = len(g)
    return share_interval(float(g.mean()), float(g.var()) if n > 1 else math.nan, n) if n else None


def confidence_gap(writers: pl.DataFrame):
    """Stated probability minus right (0/1), averaged over a game's writers, then over games with a
    t-interval and the p-value of 'no gap' (writers within a game are not independent)."""
    g = (writers.group_by("game", maintain_order=True)
         .agg((pl.col("stated") - pl.col("right")).mean().alias("gap"))["gap"])
    return mean_interval(float(g.mean()), float(g.var()), len(g))


# -- sections ---------------------------------------------------------------------------------------------
def _mole_section(ctx: Context, games: pl.DataFrame) -> Section:
    sec = Section(key=ctx.key("wieisdeheer.mole"), title="How often the mole wins", level=3, notes=NOTES[:1])
    rows, frame, data = [], [], {}
    for arm in ctx.arms:
        part = games.filter(pl.col("arm") == arm.name)
        if part.is_empty():
            continue
        est, var = binary_share(part["mole_won"])
        target = target_of(ctx, arm)
        claim = ctx.claim(f"mole_share:{arm.name}", "wieisdeheer.mole",
                          f"{arm.name}: mole win share differs from {target_words(ctx, arm)}",
                          share_test(est, var, target))
        side = "more" if est.value > target else "less"
        found = (f"{side} than {target_words(ctx, arm)}, detectable after correction ({adjusted(claim)})"
                 if claim.detected else f"not detectably different from {target_words(ctx, arm)}")
        sec.verdicts.append(f"{arm.name} ({arm.players} players): the mole wins {text.share_ci(est)}, {found}.")
        rows.append([arm.name, str(arm.players), "all", text.count(len(part)), text.share_ci(est), text.pct(target)])
        frame.append({"arm": arm.name, "share": est.value, "lo": est.lo, "hi": est.hi, "target": target})
        data[arm.name] = {"all": est.to_dict()}
        if len(set(arm.policies)) > 1:
            for policy, sub in part.group_by("mole_policy", maintain_order=True):
                e, _ = binary_share(sub["mole_won"])
                rows.append([arm.name, str(arm.players), f"mole is {policy[0]}", text.count(len(sub)),
                             text.share_ci(e), text.pct(target)])
                data[arm.name][policy[0]] = e.to_dict()
    sec.tables.append(Table("The mole's win share by arm and the mole's policy",
                            ["arm", "players", "which games", "games", "mole wins", target_column(ctx)], rows))
    if frame:
        sec.figures.append(plots.interval_bars(pl.DataFrame(frame), "arm", "share", "lo", "hi", ref="target",
                                               ref_label=target_column(ctx), xlabel="arm",
                                               ylabel="mole win share", title="The mole's win share"))
    sec.data = {"arms": data, "target": target_data(ctx)}
    return sec


def _sabotage_value(ctx: Context, arm) -> float | None:
    values = {p.get("sabotage") for p in seat_params(ctx, arm.name) if "sabotage" in p}
    return values.pop() if len(values) == 1 else None


def _sweep_key(ctx: Context, arm) -> str:
    seats = [{k: v for k, v in p.items() if k != "sabotage"} for p in seat_params(ctx, arm.name)]
    return json.dumps([arm.players, arm.rules, [base_policy(p) for p in arm.policies], seats], sort_keys=True)


def _sabotage_section(ctx: Context, games: pl.DataFrame) -> Section | None:
    groups: dict[str, list] = {}
    for arm in ctx.arms:
        value = _sabotage_value(ctx, arm)
        group = groups.setdefault(_sweep_key(ctx, arm), []) if value is not None else None
        if group is not None and value not in {v for v, _ in group}:  # one arm per rate: the first
            group.append((value, arm))
    sweeps = [sorted(g, key=lambda x: x[0]) for g in groups.values() if len({v for v, _ in g}) >= 3]
    if not sweeps:
        return None
    sec = Section(key=ctx.key("wieisdeheer.sabotage"), title="The sabotage sweep: the mole's best rate", level=3,
                  notes=["Arms that differ only in every seat's `sabotage` (any seat may draw the king): the rate "
                         "the mole plays at, while the observers read the acts at the rate they assume "
                         "(`suspect_sabotage`). Every pair of swept rates is one claim (a Welch difference of the "
                         "mole's win share), corrected with the report's others; a rate is told apart from the "
                         "highest one only when that claim is detectable.",
                         "The rate that reaches the target: the share and its 95% interval are read as straight "
                         "lines between the swept rates; the rate is where the share's line meets the target, and "
                         "the rates around it whose interval contains the target are not told apart from it "
                         "(sweep finer around it to narrow them)."])
    rows, reach_rows, frame, data = [], [], [], {}
    for k, sweep in enumerate(sweeps):
        name = f"sweep {k + 1} ({sweep[0][1].players} players)"
        points = []
        for value, arm in sweep:
            part = games.filter(pl.col("arm") == arm.name)
            est, _ = binary_share(part["mole_won"])
            pot = mean_interval(float(part["pot"].mean()), float(part["pot"].var()), len(part))
            points.append((value, arm, est, pot))
            rows.append([name, arm.name, f"{value:g}", text.share_ci(est), text.value_ci(pot),
                         text.number(float(part["sabotages"].mean()))])
            frame.append({"sabotage": f"{value:g}", "sweep": name, "share": est.value, "lo": est.lo, "hi": est.hi,
                          "target": target_of(ctx, arm)})
        best = max(points, key=lambda p: p[2].value)
        # every pair of swept rates is one claim: picking the best after looking is then covered
        # by the family's correction (comparing the best with the others alone would not be)
        pair_claims = {}
        for i, (va, arm_a, _, _) in enumerate(points):
            for vb, arm_b, _, _ in points[i + 1:]:
                a_won = games.filter(pl.col("arm") == arm_a.name)["mole_won"]
                b_won = games.filter(pl.col("arm") == arm_b.name)["mole_won"]
                diff = welch_difference(float(a_won.mean()), float(a_won.var()), len(a_won),
                                        float(b_won.mean()), float(b_won.var()), len(b_won))
                pair_claims[(va, vb)] = pair_claims[(vb, va)] = ctx.claim(
                    f"sabotage_pair:{arm_a.name}:{arm_b.name}", "wieisdeheer.sabotage",
                    f"{name}: the mole's win share differs between sabotage {va:g} and {vb:g}", diff.p_value)
        above = [f"{p[0]:g}" for p in points if p is not best and pair_claims[(best[0], p[0])].detected]
        ties = [f"{p[0]:g}" for p in points if p is not best and not pair_claims[(best[0], p[0])].detected]
        target = target_of(ctx, sweep[0][1])
        reach = reaching_rate([p[0] for p in points], [p[2] for p in points], target)
        sec.verdicts.append(
            f"{name}: the mole's share is highest at sabotage {best[0]:g}, {text.share_ci(best[2])}"
            + (f"; detectably above rates {', '.join(above)} after correction" if above else "")
            + (f"; rates {', '.join(ties)} are not told apart from it (no detectable difference at this size)"
               if ties else "")
            + f". From rate {points[0][0]:g} to {points[-1][0]:g} the mole's share goes from "
              f"{text.pct(points[0][2].value)} to {text.pct(points[-1][2].value)} and the pot from "
              f"{text.number(points[0][3].value)} to {text.number(points[-1][3].value)} points; "
            + reaching_words(reach, target_words(ctx, sweep[0][1]), [p[2].value for p in points]) + ".")
        reach_rows.append([name, text.pct(target),
                           "none" if reach is None or reach["rate"] is None else f"{reach['rate']:.2f}",
                           "none" if reach is None else f"{reach['lo']:.2f}-{reach['hi']:.2f}"])
        data[name] = {f"{p[0]:g}": {"arm": p[1].name, "mole_share": p[2].to_dict(), "pot": p[3].to_dict()}
                      for p in points}
        data[name]["reaches_target"] = {"target": target, **(reach or {"rate": None})}
    sec.tables.append(Table("Mole win share and pot by sabotage rate", ["sweep", "arm", "sabotage", "mole wins",
                                                                        "pot per game", "sabotage acts per game"],
                            rows))
    sec.tables.append(Table("The sabotage rate at which the mole's share reaches the target",
                            ["sweep", target_column(ctx), "rate (interpolated)", "rates not told apart"], reach_rows))
    sec.figures.append(plots.interval_bars(pl.DataFrame(frame), "sabotage", "share", "lo", "hi", hue="sweep",
                                           ref="target", ref_label=target_column(ctx), xlabel="sabotage rate",
                                           ylabel="mole win share", title="Mole win share by sabotage rate"))
    sec.data = {"sweeps": data, "target": target_data(ctx)}
    return sec


def _accusation_section(ctx: Context, writers: pl.DataFrame) -> Section | None:
    if writers.is_empty():
        return None
    sec = Section(key=ctx.key("wieisdeheer.accusations"), title="Accusations: how right, how well calibrated",
                  level=3, notes=NOTES[1:] + [
                      "Brier score: sum over the other seats of (probability - [seat is the mole])^2, 0 is "
                      "perfect; a writer who keeps the uniform prior scores (n-2)/(n-1). Reliability: writers "
                      "binned by the probability they gave their suspect; a calibrated player's suspects are "
                      "right as often as it said. Over- or underconfidence is a claim: the stated probability "
                      "minus right (1) or wrong (0), averaged over a game's writers, then a t-test over games."])
    rows, frame, data = [], [], {}
    for arm in ctx.arms:
        part = writers.filter(pl.col("arm") == arm.name)
        if part.is_empty():
            continue
        right = per_game_share(part, "right")
        brier = mean_interval(float(part["brier_score"].mean()), float(part["brier_score"].var()), len(part))
        stated = float(part["stated"].mean())
        prior = (arm.players - 2) / (arm.players - 1)
        gap = confidence_gap(part)
        claim = ctx.claim(f"confidence:{arm.name}", "wieisdeheer.accusations",
                          f"{arm.name}: the probability the writers state on their suspects differs from how "
                          "often they are right", gap.p_value)
        how = (f"{'over' if gap.value > 0 else 'under'}confident by "
               f"{text.points(gap if gap.value > 0 else gap.negate())}, detectable after "
               f"correction ({adjusted(claim)})" if claim.detected else
               f"no detectable gap between the two at this size ({text.points(gap)})")
        verdict = (f"{arm.name}: the reasoning players name the mole {text.share_ci(right)} of the time (a guess: "
                   f"{text.pct(1 / (arm.players - 1))}); they say {text.pct(stated)} on average: {how}. Brier "
                   f"score {text.value_ci(brier)} against {text.number(prior)} for the prior alone.")
        sec.verdicts.append(verdict)
        rows.append([arm.name, text.count(len(part)), text.share_ci(right), text.pct(stated),
                     text.pct(float(part["on_mole"].mean())), text.value_ci(brier), text.number(prior)])
        data[arm.name] = {"right": right.to_dict(), "stated": stated, "stated_minus_right": gap.to_dict(),
                          "brier": brier.to_dict(), "prior_brier": prior}
        # the bin of each stated probability, left-closed (Polars renamed its `cut` between versions)
        binned = part.with_columns(
            bin=pl.Series(np.searchsorted(BINS[1:-1], part["stated"].to_numpy(), side="right")))
        for _, sub in binned.group_by("bin", maintain_order=True):
            if len(sub) < 30:
                continue
            est = wilson(float(sub["right"].sum()), len(sub))
            frame.append({"arm": arm.name, "stated": float(sub["stated"].mean()), "observed": est.value,
                          "lo": est.lo, "hi": est.hi, "n": len(sub)})
    sec.tables.append(Table("Accusations of the reasoning players", ["arm", "accusations", "right", "stated (mean)",
                                                                     "probability on the mole", "Brier score",
                                                                     "Brier of the prior"], rows))
    if frame:
        rel = pl.DataFrame(frame)
        sec.figures.append(plots.reliability(rel, "stated", "observed", "lo", "hi", hue="arm",
                                             title="Reliability of the written suspects"))
        data["reliability"] = rel.to_dicts()
    sec.data = {"arms": data}
    return sec


def _drivers_section(ctx: Context, writers: pl.DataFrame) -> Section | None:
    if writers.is_empty():
        return None
    sec = Section(key=ctx.key("wieisdeheer.drivers"), title="What makes an accusation right: place and questions",
                  level=3, notes=["Place: 1 = the first in the final order (after the joker rule). Players who go out "
                                  "early write with less evidence but name first; the last player writes with the most."])
    rows, qrows, frame, data = [], [], [], {}
    for arm in ctx.arms:
        part = writers.filter(pl.col("arm") == arm.name)
        if part.is_empty():
            continue
        by_place = {}
        for place in range(arm.players):
            sub = part.filter(pl.col("finish") == place)
            if len(sub) < 20:
                continue
            est = wilson(float(sub["right"].sum()), len(sub))
            by_place[place] = est
            frame.append({"place": str(place + 1), "arm": arm.name, "share": est.value, "lo": est.lo, "hi": est.hi})
        rows.append([arm.name] + [text.share_ci(by_place[p]) if p in by_place else "" for p in range(ctx.max_players)])
        by_q = {}
        for lo, hi, label in QUESTION_BINS:
            sub = part.filter(pl.col("questions_asked").is_between(lo, hi))
            if len(sub) >= 20:
                by_q[label] = wilson(float(sub["right"].sum()), len(sub))
        qrows.append([arm.name] + [text.share_ci(by_q[b[2]]) if b[2] in by_q else "" for b in QUESTION_BINS])
        if by_place:
            first, last = by_place[min(by_place)], by_place[max(by_place)]
            sec.verdicts.append(f"{arm.name}: the first to go out names the mole {text.share_ci(first)}, the last "
                                f"{text.share_ci(last)}; writers who asked no questions are right "
                                f"{text.share_ci(by_q['none']) if 'none' in by_q else 'n/a'}, who asked 4-6 "
                                f"{text.share_ci(by_q['4-6']) if '4-6' in by_q else 'n/a'}.")
        data[arm.name] = {"by_place": {str(p + 1): e.to_dict() for p, e in by_place.items()},
                          "by_questions": {k: e.to_dict() for k, e in by_q.items()}}
    sec.tables.append(Table("Right accusations by place in the final order", ["arm"] +
                            [f"place {p + 1}" for p in range(ctx.max_players)], rows))
    sec.tables.append(Table("Right accusations by questions the writer asked", ["arm"] + [b[2] for b in QUESTION_BINS],
                            qrows))
    if frame:
        sec.figures.append(plots.interval_bars(pl.DataFrame(frame), "place", "share", "lo", "hi", hue="arm",
                                               xlabel="place in the final order", ylabel="right accusations",
                                               title="Right accusations by place"))
    sec.data = {"arms": data}
    return sec


def _going_out_section(ctx: Context, games: pl.DataFrame) -> Section:
    sec = Section(key=ctx.key("wieisdeheer.going_out"), title="The first player's edge in going out", level=3,
                  notes=["The share of games in which seat 0 (who plays first) takes the first place of the final "
                         "order, the place that names first, against 1/players."])
    rows, data = [], {}
    for arm in ctx.arms:
        part = games.filter(pl.col("arm") == arm.name)
        if part.is_empty():
            continue
        est, var = binary_share(part["seat0_first"])
        claim = ctx.claim(f"seat0_first:{arm.name}", "wieisdeheer.going_out",
                          f"{arm.name}: seat 0 goes out first more or less often than 1/{arm.players}",
                          share_test(est, var, arm.fair))
        found = (f"{'more' if est.value > arm.fair else 'less'} often than the fair {text.pct(arm.fair)}, "
                 f"detectable after correction ({adjusted(claim)})" if claim.detected
                 else f"not detectably different from the fair {text.pct(arm.fair)}")
        sec.verdicts.append(f"{arm.name}: seat 0 takes the first place {text.share_ci(est)} of the time, {found}.")
        rows.append([arm.name, text.share_ci(est), text.pct(arm.fair), text.p_value(claim.adjusted, bare=True)])
        data[arm.name] = est.to_dict()
    sec.tables.append(Table("Seat 0 takes the first place", ["arm", "share", "fair share", "adjusted p"], rows))
    sec.data = {"arms": data}
    return sec


def _pot_section(ctx: Context, games: pl.DataFrame) -> Section:
    sec = Section(key=ctx.key("wieisdeheer.pot"), title="The pot, and whether the points decide anything", level=3,
                  notes=["Pot, voided and left: points per game with t-intervals. Small and big pot: games below "
                         "and at or above the arm's median pot; the difference in the mole's win share is a "
                         "Welch difference (a claim of the report)."])
    rows, data = [], {}
    for arm in ctx.arms:
        part = games.filter(pl.col("arm") == arm.name)
        if part.is_empty():
            continue
        for policy, sub in part.group_by("mole_policy", maintain_order=True):
            est = {c: mean_interval(float(sub[c].mean()), float(sub[c].var()), len(sub), lower=0.0)
                   for c in ("pot", "points_voided", "points_left", "sabotages")}
            rows.append([arm.name, policy[0], text.count(len(sub))] + [text.value_ci(est[c]) for c in est])
            data.setdefault(arm.name, {})[policy[0]] = {c: e.to_dict() for c, e in est.items()}
        threshold = arm.rules.get("mole_pot_threshold", 0) or 0
        median = float(part["pot"].median())
        small, big = part.filter(pl.col("pot") < median), part.filter(pl.col("pot") >= median)
        if len(small) < 2 or len(big) < 2:
            continue
        diff = welch_difference(float(big["mole_won"].mean()), float(big["mole_won"].var()), len(big),
                                float(small["mole_won"].mean()), float(small["mole_won"].var()), len(small))
        claim = ctx.claim(f"pot_effect:{arm.name}", "wieisdeheer.pot",
                          f"{arm.name}: the mole's win share differs between small-pot and big-pot games", diff.p_value)
        gap = (f"the mole wins {text.pct(float(small['mole_won'].mean()))} of the games with a small pot (under "
               f"{median:g}) and {text.pct(float(big['mole_won'].mean()))} with a big one "
               f"(difference {text.points(diff)}, {'detectable' if claim.detected else 'not detectable'} after correction)")
        if threshold > 0:
            sec.verdicts.append(f"{arm.name}: with mole_pot_threshold = {threshold} the pot decides directly: {gap}."
                                + " " + (PLAYED_TO if plays_to_winner_rules(arm) else NOT_PLAYED_TO))
        elif claim.detected:
            sec.verdicts.append(f"{arm.name}: under the text's rules the points never decide who wins (the winner "
                                f"is the first right accuser, whatever the pot); {gap}: the pot only tells what the "
                                f"mole's sabotage revealed.")
        else:
            sec.verdicts.append(f"{arm.name}: the text's winner rule ignores the pot, and the mole's win share "
                                f"shows no detectable difference between small-pot and big-pot games at this "
                                f"size: {gap}.")
        data.setdefault(arm.name, {})["small_minus_big"] = diff.to_dict()
    sec.tables.append(Table("Points per game by the mole's policy", ["arm", "mole", "games", "pot", "voided",
                                                                      "left on the pile", "sabotage acts"], rows))
    sec.data = {"arms": data}
    return sec


# Rules that act only on who wins once the order is known. A reasoner plays to them (as the mole it
# spends the sabotage nobody reads while the pot is below the threshold, and stops sabotaging once
# the pot has reached it; docs/models/mole.md), and so does the search player (its play-outs are
# scored by the winner rule); racers and random players never read them, so two arms of those that
# differ only in such a rule play every game alike.
WINNER_ONLY_RULES = ("mole_pot_threshold",)
NOT_PLAYED_TO = ("The players do not play to this rule: it only decides who wins after the last card, "
                 "so the mole's sabotage rate and everyone's play are those of the game without it.")
PLAYED_TO = ("The reasoning players play to this rule: while the pot is below the threshold the mole spends "
             "the sabotage nobody reads, and once the pot has reached it the mole stops sabotaging and the "
             "others stop reading acts.")
DIRECTION_WORDS = {"towards": "moves the mole's share towards the target of {}",
                   "away": "moves the mole's share away from the target of {}",
                   "across": "moves the mole's share across the target of {} (the two arms lie on either side of it)",
                   "onto": "moves the mole's share onto the target of {}"}


def direction(baseline: float, variant: float, target: float) -> str:
    """How a change moves a share relative to a target: across it when the two lie on either side
    (then nearer or farther says little), else towards or away."""
    if (baseline - target) * (variant - target) < 0:
        return "across"
    if variant == target:
        return "onto"
    return "towards" if abs(variant - target) < abs(baseline - target) else "away"


def plays_to_winner_rules(arm) -> bool:
    """Does any seat play to a rule that acts only on the winner? Reasoners and search players do."""
    return any(base_policy(p) in ("reasoner", "search") for p in arm.policies)


def same_play(ctx: Context, a: str, b: str) -> bool:
    """True when two arms played every common game alike: the same pot, points voided and
    suspects game by game (what a rule acting only on the winner leaves untouched)."""
    cols = ["pot", "points_voided", "suspect"]
    frames = [ctx.scan.filter(pl.col("arm") == name).select("game", *cols).collect() for name in (a, b)]
    joined = frames[0].join(frames[1], on="game", suffix="_b")
    return bool(len(joined) and all((joined[c] == joined[f"{c}_b"]).all() for c in cols))


def winner_rule_note(ctx: Context, pair) -> str:
    """For a change of a rule that acts only on the winner: say whether the players play to it."""
    changed = [name for name in WINNER_ONLY_RULES if pair.a.rules.get(name) != pair.b.rules.get(name)]
    if not changed:
        return ""
    if plays_to_winner_rules(pair.a) or plays_to_winner_rules(pair.b):
        return (f"{changed[0]} acts only on who wins after the last card, but the reasoning players play to it, "
                "so the arms differ in play too, not only in the games the rule hands to the mole.")
    alike = same_play(ctx, pair.a.name, pair.b.name)
    return (f"{changed[0]} acts only on who wins after the last card and none of these players plays to it"
            + (": every game was played alike in both arms (same pot, voids and suspects game by game), so the "
               "difference is only the games the rule hands to the mole." if alike else "."))


def _changes_section(ctx: Context) -> Section | None:
    pairs = [p for p in ctx.dataset.variant_pairs(ctx.game) if len(p.changes) == 1]  # one change at a time
    if not pairs:
        return None
    comps = variants.comparisons(ctx, pairs)
    by_key = {p.key: p for p in pairs}
    sec = Section(key=ctx.key("wieisdeheer.changes"), title="Rule changes and the mole's win share", level=3,
                  notes=["Each pair differs in one rule only and plays the same deals, so the difference is paired "
                         "by game. The target is the study's report.mole_target, else the fair share 1/players. A "
                         "change moves the share towards it when the variant's share is nearer to it on the same "
                         "side, across it when the two arms lie on either side of it, and only when the difference "
                         "is detectable after correction."])
    rows, data = [], {}
    for key, cs in comps.items():
        pair = by_key[key]
        c = next((x for x in cs if x.measure.key == "mole_won"), None)
        if c is None:
            continue
        fair = target_of(ctx, pair.a)
        where = direction(c.baseline.value, c.variant.value, fair)
        verdict = (DIRECTION_WORDS[where].format(text.pct(fair)) if c.detected
                   else f"has no detectable effect on it at this size (target {text.pct(fair)})")
        note = winner_rule_note(ctx, pair)
        sec.verdicts.append(f"{pair.describe_changes()} ({pair.b.name} against {pair.a.name}): the mole wins "
                            f"{text.share_ci(c.variant)} instead of {text.share_ci(c.baseline)} (paired difference "
                            f"{text.points(c.paired)}); the change {verdict}." + (f" {note}" if note else ""))
        rows.append([pair.describe_changes(), pair.a.name, pair.b.name, text.share_ci(c.baseline),
                     text.share_ci(c.variant), text.points(c.paired), "yes" if c.detected else "no", where])
        data[key] = {"changes": pair.describe_changes(), **c.to_dict()}
    if not rows:
        return None
    sec.tables.append(Table("The mole's win share under each rule change", ["change", "baseline", "variant",
                                                                           "baseline share", "variant share",
                                                                           "difference", "detectable", "target"],
                            rows))
    sec.data = {"pairs": data, "target": target_data(ctx)}
    return sec


def wieisdeheer_section(ctx: Context) -> Section | None:
    key, title = ctx.key("wieisdeheer"), ctx.title("Wie is de Heer?: the mole, the accusations and the pot")
    if not has_columns(ctx):
        return Section(key=key, title=title, verdicts=[
            "The dataset lacks the game's columns (" + ", ".join(COLUMNS) + "; docs/schema.md): no analysis."])
    games = game_frame(ctx)
    if games.is_empty():
        return None
    writers = writer_frame(ctx)
    sec = Section(key=key, title=title)
    stalled = int(games["stalled"].sum())
    sec.verdicts = [f"{text.count(len(games))} games; {text.count(stalled)} ended stuck (the cards left settled the "
                    f"order: docs/rules/wieisdeheer.md)."]
    children = [_mole_section(ctx, games), _sabotage_section(ctx, games), _accusation_section(ctx, writers),
                _drivers_section(ctx, writers), _going_out_section(ctx, games), _pot_section(ctx, games),
                _changes_section(ctx)]
    sec.children = [c for c in children if c is not None]
    sec.data = {"arms": [a.name for a in ctx.arms], "stalled": stalled}
    return sec


SECTIONS = (wieisdeheer_section,)
