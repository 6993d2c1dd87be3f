"""Luck of the draw: seat 0's edge with the game's luck measures regressed out (issue 28).

A game declares its luck measures in the registry (`Game.luck`): per-seat columns whose every term
has expectation 0 given the game so far, whatever the players do (Knutten: each kind of special card
a seat drew at random, minus that kind's share of the pile at each of its draws). Subtracting any
fixed combination of them from seat 0's win weight leaves its mean alone and, when the combination
tracks the outcome, narrows the interval: a control variate (stats.luck_adjusted).
"""
from __future__ import annotations

import numpy as np

from reports import metrics as m
from reports import text
from reports.context import Context
from reports.dataset import Arm
from reports.model import Section, Table
from reports.questions import study_questions
from reports.stats import LuckFit, luck_adjusted

KEY = "luck"


def luck_columns(ctx: Context) -> tuple[str, ...]:
    """The game's luck measures, as study.json names them (`games.<game>.luck`)."""
    return ctx.info.luck


def _arm_values(ctx: Context, arm: Arm, columns: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray] | None:
    """(seat 0's win weight, the luck measures of every seat: games x (measures x seats)) in game
    order, or None when the arm's rows lack a luck column."""
    scan = ctx.arm_games(arm.name)
    if not set(columns) <= set(scan.collect_schema().names()):
        return None
    frame = scan.sort("game").select(m.win_weight(0), *m.seat_values(columns, arm.players)).collect()
    return frame["w0"].to_numpy(), frame.drop("w0").to_numpy()


def _paired(ctx: Context) -> list[tuple[str, str]]:
    """The study's two-arm `compare` questions whose arms pair game by game (same players and
    rotation), for the adjusted effect on seat 0's edge."""
    pairs = []
    for q in study_questions(ctx.dataset):
        if q.kind != "compare" or len(q.arms) != 2 or not all(a in {x.name for x in ctx.arms} for a in q.arms):
            continue
        a, b = (ctx.arm(n) for n in q.arms)
        if (a.players, a.rotate) == (b.players, b.rotate) and (a.name, b.name) not in pairs:
            pairs.append((a.name, b.name))
    return pairs


def compute(ctx: Context) -> dict:
    columns = luck_columns(ctx)
    if not columns:
        return {}
    values = {a.name: v for a in ctx.arms if a.luck and (v := _arm_values(ctx, a, columns)) is not None}
    arms = {}
    for arm in ctx.arms:
        if arm.name in values:
            y, x = values[arm.name]
            arms[arm.name] = luck_adjusted(y, x, arm.players if arm.rotate else 1)
    effects = {}
    for base, other in _paired(ctx):
        if base in values and other in values:
            (yb, xb), (yo, xo) = values[base], values[other]
            n = min(len(yb), len(yo))
            arm = ctx.arm(base)
            effects[(base, other)] = luck_adjusted(yo[:n] - yb[:n], np.hstack([xo[:n], xb[:n]]),
                                                   arm.players if arm.rotate else 1)
    return {"columns": columns, "arms": arms, "effects": effects}


def _row(label: str, fit: LuckFit, shift: float) -> list[str]:
    digits = text.share_digits(fit.raw)  # both with the raw interval's digits, so they read side by side
    return [label, text.points_cell(fit.raw.shift(shift), digits), text.points_cell(fit.adjusted.shift(shift), digits),
            text.pct(fit.removed), text.count(fit.raw.n)]


def _fit_data(fit: LuckFit, shift: float) -> dict:
    def est(e):
        return {"value": e.value + shift, "lo": e.lo + shift, "hi": e.hi + shift, "units": e.n}
    return {"raw": est(fit.raw), "adjusted": est(fit.adjusted), "variance_removed": fit.removed,
            "games_ratio": fit.games_ratio}


def section(ctx: Context) -> Section | None:
    data = ctx.cached((KEY,), lambda: compute(ctx))
    if not data or not data["arms"]:
        return None
    arms, effects = data["arms"], data["effects"]
    sec = Section(key=ctx.key(KEY), title=ctx.title("Luck of the draw"))
    best = max(arms.items(), key=lambda kv: kv[1].removed)
    measures = ", ".join(data["columns"])
    if best[1].removed < 0.005:  # too few games to fit, or measures that do not track the outcome
        sec.verdicts = [f"The luck of the draw ({measures}) explains almost none of the variance of seat 0's "
                        "win share here: the adjusted intervals are as wide as the raw ones."]
    else:
        sec.verdicts = [
            f"The luck of the draw ({measures}) explains {text.pct(best[1].removed, 0)} of the variance of seat "
            f"0's win share in {best[0]}: with it regressed out, the same interval needs "
            f"{text.pct(best[1].games_ratio, 0)} of the games. The adjusted estimate has the same mean, so where "
            f"the two intervals disagree it is chance; the adjusted one is the narrower."]
    head = ["arm", "seat 0's edge, points (95%)", "luck-adjusted (95%)", "variance removed", "units"]
    rows = [_row(name, fit, -ctx.arm(name).fair) for name, fit in arms.items()]
    sec.tables.append(Table("Seat 0's edge with and without the luck of the draw", head, rows,
                            note="units: games, or rotated deals (all rotations of a deal are one unit)"))
    if effects:
        rows = [_row(f"{other} - {base}", fit, 0.0) for (base, other), fit in effects.items()]
        sec.tables.append(Table("Effect on seat 0's win share, game by game, with and without the luck of the draw",
                                ["compared", "effect, points (95%)", "luck-adjusted (95%)", "variance removed",
                                 "units"], rows))
    sec.notes = [
        "Each luck measure is a sum over a seat's random draws of 'drew a card of this kind' minus the kind's "
        "share of the pile at that draw: every term has expectation 0 given the game so far, so the sum has "
        "mean 0 at every seat whatever the players do. Subtracting a fixed combination of the measures of every "
        "seat from seat 0's win weight keeps its mean and removes the part of its spread the draws explain.",
        "The combination is fitted by least squares on one half of the games (or rotated deals) and applied "
        "to the other, each half in turn (cross-fitting), so no game adjusts itself; the halves alternate "
        "game by game. Intervals: Student's t on the adjusted values. 'Variance removed' is measured on the "
        "same games; 1 minus it is the share of games the adjusted estimate needs for the raw interval's width.",
        "The first-player section's intervals are not adjusted, nor are the study's stopping rule and the "
        "claims the report corrects together: this section shows what the luck measures add.",
    ]
    sec.data = {"columns": list(data["columns"]),
                "arms": {name: _fit_data(fit, -ctx.arm(name).fair) for name, fit in arms.items()},
                "effects": {f"{other} - {base}": _fit_data(fit, 0.0) for (base, other), fit in effects.items()}}
    return sec
