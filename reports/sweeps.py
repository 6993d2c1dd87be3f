"""The evidence of a sweep: its measures at every point (a table), each along the swept parameter
(curves, one per crossed arm or value of the other parameter) and, over two parameters, a heat map.

Target questions over a sweep have their own sections (reports/answers.target_section); this one
shows the whole grid, so what the target costs elsewhere (longer games, a worse balance) is in view.
"""
from __future__ import annotations

import numpy as np

from reports import sweep_plots, text
from reports.answers import _levels
from reports.context import Context
from reports.measures import lookup
from reports.model import Section, Table
from reports.questions import curves, study_questions

BASE_MEASURES = ("seat0_edge", "balance", "turns")


def _targets(ctx: Context, sweep: dict) -> dict[str, float]:
    """The measures the study's target questions over this sweep name, with their targets."""
    return {q.measure: q.target for q in study_questions(ctx.dataset) if q.sweep == sweep["name"] and q.measure}


def sweep_section(ctx: Context, sweep: dict) -> Section | None:
    played = {a.name for a in ctx.dataset.arms_of(ctx.game)}
    points = [p for p in sweep["points"] if p["arm"] in played]
    if len(points) < 2:
        return None
    arms = [ctx.dataset.arm(p["arm"]) for p in points]
    targets = _targets(ctx, sweep)
    names = list(dict.fromkeys([*targets, *BASE_MEASURES]))
    levels = {name: _levels(ctx, arms, name) for name in names}
    share = {name: lookup(ctx.game, name).kind == "share" for name in names}
    params = sweep["parameters"]
    sec = Section(key=ctx.key(f"sweep-{sweep['name']}"), title=f"Sweep {sweep['name']}: "
                  + " and ".join(f"{p} ({text.rule_value(v[0])} to {text.rule_value(v[-1])})" for p, v in zip(params, sweep["values"])))
    crossed = [b for b in sweep["bases"] if b]
    sec.notes.append(f"{len(points)} points" + (f", each of the arms {', '.join(crossed)} at every value" if crossed else "")
                     + "; every point plays the same deals, so neighbouring points differ by the parameter, not by luck. "
                     "Intervals are each point's own 95%.")
    cell = {name: (text.points_cell if name == "seat0_edge" else text.share_ci if share[name] else text.value_ci)
            for name in names}
    header = (["arm"] if crossed else []) + list(params) + [
        f"{n} (percentage points)" if n == "seat0_edge" else n for n in names]
    rows = [([p["base"]] if crossed else []) + [text.rule_value(p["at"][k]) for k in params]
            + [cell[n](levels[n][p["arm"]]) for n in names] for p in points]
    sec.tables.append(Table(f"Every point of sweep {sweep['name']}", header, rows))
    first = params[0]
    panels = []
    for name in names:
        target = targets.get(name)
        lines = []
        for label, pts in curves({**sweep, "points": points}, first):
            ests = [levels[name][p["arm"]] for p in pts]
            lines.append((label, [p["at"][first] for p in pts], [e.value for e in ests], [e.lo for e in ests],
                          [e.hi for e in ests]))
        panels.append({"measure": name, "share": share[name], "target": target, "curves": lines})
    numeric = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in sweep["values"][0])
    if numeric:
        for start in range(0, len(panels), 3):
            sec.figures.append(sweep_plots.measure_curves(panels[start:start + 3], parameter=first,
                                                          title=f"Sweep {sweep['name']} along {first}"))
    if len(params) == 2 and not crossed:
        rows_v, cols_v = sweep["values"][1], sweep["values"][0]
        for name in names[:2]:
            grid = np.full((len(rows_v), len(cols_v)), np.nan)
            for p in points:
                grid[rows_v.index(p["at"][params[1]]), cols_v.index(p["at"][params[0]])] = levels[name][p["arm"]].value
            target = targets.get(name)
            sec.figures.append(sweep_plots.sweep_heatmap(
                [text.rule_value(v) for v in rows_v], [text.rule_value(v) for v in cols_v], grid, row_name=params[1], col_name=params[0],
                measure=name, share=share[name], target=target, title=f"{name} over {params[0]} and {params[1]}"))
    sec.data = {"sweep": sweep["name"], "parameters": params, "measures": names,
                "points": [{"arm": p["arm"], "base": p["base"], "at": p["at"],
                            **{n: levels[n][p["arm"]].to_dict() for n in names}} for p in points]}
    return sec


def sections(ctx: Context) -> list[Section]:
    game_arms = {a.name for a in ctx.dataset.arms_of(ctx.game)}
    out = []
    for sweep in ctx.dataset.sweeps:
        if any(p["arm"] in game_arms for p in sweep["points"]):
            sec = sweep_section(ctx, sweep)
            if sec is not None:
                out.append(sec)
    return out
