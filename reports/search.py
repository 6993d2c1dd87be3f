"""A ``[[search]]``'s part of the report: its answer (the best setting and its value on fresh games),
its section (every candidate evaluated, in the order the optimiser proposed them, with intervals and
constraint violators marked; the front when there are two objectives) and its figures.

``levels`` measures a candidate: the search's driver (pipelines/search.py) decides with it while the
search runs, and this report shows the same numbers, so what the report says is what the search saw.
Like every report module it reads rows only, never the kernels.
"""
from __future__ import annotations

import math

import numpy as np
import polars as pl

from reports import metrics as m
from reports.stats import mean_interval, pairwise_gaps, share_interval

SEARCH_KEY = "search"
PROBE = 200  # pipelines/search.py PROBE_GAMES: games compared to tell that a parameter changes nothing


# -- a candidate's measures ---------------------------------------------------------------------------------
def _moments(x: np.ndarray) -> tuple[float, float, int]:
    n = int(x.size)
    if n == 0:
        return math.nan, math.nan, 0
    mean = float(np.mean(x))
    var = float(np.var(x, ddof=1)) if n > 1 else math.nan
    return mean, var, n


def _outcome(game: str, name: str):
    """The game's own measure ``name`` (its report plug-in's OUTCOMES), or the mean score per seat."""
    from reports.registry import outcomes

    for mm in outcomes(game) or ():
        if mm.key == name:
            return mm
    if name in ("score", "score_mean"):
        from reports.compare import Measure

        return Measure("score_mean", "score per seat", lambda arm: m.score_mean())
    raise KeyError(f"{game} has no measure {name!r}")


def levels(frame: pl.DataFrame, arm, measures) -> dict:
    """Each measure's estimate on ``frame`` (one arm's rows) with its 95% interval, the intervals of
    the report's first-player section and answers: seat 0's edge (Wilson at the effective number of
    games), balance (bias-corrected range with its simultaneous interval), means (t intervals).
    ``arm`` is a reports.dataset.Arm. Sums are taken in game order, so the same rows give the same
    numbers bit for bit (a resumed search decides as the first run did)."""
    from sim.search import Level

    frame = frame.sort("game")
    out = {}
    k = arm.players
    weights = None
    if {"seat0_edge", "balance"} & set(measures):
        weights = frame.select([m.win_weight(s) for s in range(k)]).to_numpy().astype(float)
    for name in measures:
        if name == "seat0_edge":
            mean, var, n = _moments(weights[:, 0])
            est = share_interval(mean, var, n).shift(-1.0 / k)
        elif name == "balance":
            n = weights.shape[0]
            if n < 2:
                est = None
            else:
                cov = np.atleast_2d(np.cov(weights.T, ddof=1))
                est = pairwise_gaps(weights.mean(axis=0), cov, n, bounds=(0.0, 1.0)).range.complement()
        elif name in ("turns", "rounds"):
            mean, var, n = _moments(frame[name].to_numpy().astype(float))
            est = mean_interval(mean, var, n, lower=0.0)
        else:
            mm = _outcome(arm.game, name)
            x = frame.select(mm.expr(arm).cast(pl.Float64).alias("x"))["x"].to_numpy()
            x = x[np.isfinite(x)]
            mean, var, n = _moments(x)
            est = share_interval(mean, var, n) if mm.share else mean_interval(mean, var, n, lower=mm.lower)
        if est is None or not all(math.isfinite(v) for v in (est.value, est.lo, est.hi)):
            out[name] = Level(math.nan, -math.inf, math.inf)
        else:
            out[name] = Level(float(est.value), float(est.lo), float(est.hi))
    return out


# -- what the report reads ----------------------------------------------------------------------------------
class SearchView:
    """One search as the report sees it: its table, its record (study.json ``searches``), every
    candidate measured on all its games, and the re-played setting(s) on their fresh games."""

    def __init__(self, dataset, table: dict):
        self.dataset, self.table = dataset, table
        self.name = table["name"]
        self.game = table["base"]["game"]
        self.state = (dataset.manifest.get("searches") or {}).get(self.name) or {}
        self.objectives = list(table["objective"])
        self.constraints = list(table.get("constraints") or [])
        self.measures = list(dict.fromkeys([o["measure"] for o in self.objectives]
                                           + [c["measure"] for c in self.constraints]))
        self.vary = list(table["vary"])
        self.candidates = [a for a in dataset.candidates if a.search == self.name]
        self.finals = [a for a in dataset.all_arms if a.search == self.name and dataset._files(a.name)]
        self.levels = {a.name: self._levels(a) for a in self.candidates + self.finals if dataset._files(a.name)}
        params = self.state.get("candidates") or {}
        self.params = {a: dict(p.get("params") or {}) for a, p in params.items()}
        for final in self.state.get("final") or []:
            self.params[final["arm"]] = dict(final["params"])

    def _levels(self, arm) -> dict:
        frame = pl.read_parquet(self.dataset._files(arm.name))
        return {**levels(frame, arm, self.measures), "_games": frame.height}

    # -- the numbers behind each candidate ----------------------------------------------------------
    def evaluation(self, arm: str):
        """The candidate as the search's rules judge it (sim/search.py), on every game it played."""
        from sim.search import Constraint, Objective, evaluation

        objectives = tuple(Objective(o["measure"], "target" if "target" in o else o["goal"], o.get("target"))
                           for o in self.objectives)
        constraints = tuple(Constraint(c["measure"], c.get("at_most"), c.get("at_least")) for c in self.constraints)

        class _Spec:  # what sim.search.evaluation reads
            pass

        spec = _Spec()
        spec.objectives, spec.constraints = objectives, constraints
        lv = self.levels[arm]
        return evaluation(spec, arm, lv["_games"], {k: v for k, v in lv.items() if k != "_games"})

    @property
    def finished(self) -> bool:
        return bool(self.state.get("finished")) and bool(self.finals)

    def setting(self, arm: str) -> str:
        """'target 21, points_wip 2'."""
        return ", ".join(f"{k} {_value(v)}" for k, v in self.params.get(arm, {}).items())


def _value(v) -> str:
    if isinstance(v, bool):
        return "on" if v else "off"
    if isinstance(v, float):
        return f"{v:.3g}"
    return str(v)


def views(dataset) -> list[SearchView]:
    cache = dataset.__dict__.setdefault("_search_views", {})
    if "all" not in cache:
        cache["all"] = [SearchView(dataset, t) for t in dataset.study.get("search") or []
                        if any(a.search == t["name"] for a in dataset.candidates)]
    return cache["all"]


# -- wording ------------------------------------------------------------------------------------------------
def _kind(game: str, measure: str) -> str:
    from reports.measures import lookup

    try:
        return lookup(game, measure).kind
    except KeyError:
        return "count"


def fmt(game: str, measure: str, level, interval: bool = True) -> str:
    """A measure's level as the report writes it: shares in percent, seat 0's edge in percentage
    points, counts as numbers; with its 95% interval."""
    from reports import text
    from reports.stats import Estimate

    est = Estimate(level.value, level.lo, level.hi, 0, "")
    if not interval or not level.known or level.lo == level.hi:  # a value the rules fix: no interval
        if level.lo == level.hi and float(level.value).is_integer() and measure != "seat0_edge" \
                and _kind(game, measure) != "share":
            return f"{int(level.value):,}"
        est = Estimate(level.value, math.nan, math.nan, 0, "")
    if measure == "seat0_edge":
        return text.points(est)
    if _kind(game, measure) == "share":
        return text.share_ci(est)
    return text.value_ci(est)


def _goal_words(view: SearchView) -> str:
    from reports.measures import lookup

    def label(measure):
        try:
            return lookup(view.game, measure).label.split(" (")[0]
        except KeyError:
            return measure

    def bound(c):
        parts = []
        if c.get("at_least") is not None:
            parts.append(f"{c['measure']} at least {_value(c['at_least'])}")
        if c.get("at_most") is not None:
            parts.append(f"{c['measure']} at most {_value(c['at_most'])}")
        return " and ".join(parts)

    cons = "; ".join(bound(c) for c in view.constraints)
    if len(view.objectives) == 2:
        head = f"Trade-off between {label(view.objectives[0]['measure'])} and {label(view.objectives[1]['measure'])}"
    else:
        o = view.objectives[0]
        if "target" in o:
            head = f"Setting that brings {label(o['measure'])} closest to {_value(o['target'])}"
        elif o["measure"] == "balance":
            head = f"Most balanced {view.game.capitalize()} setting"
        else:
            head = f"Setting with the {'highest' if o['goal'] == 'maximise' else 'lowest'} {label(o['measure'])}"
    return head + (f" with {cons}" if cons else "")


def _levels_text(view: SearchView, arm: str) -> str:
    lv = view.levels[arm]
    return ", ".join(f"{m} {fmt(view.game, m, lv[m])}" for m in view.measures)


# -- the answer ---------------------------------------------------------------------------------------------
def answers(dataset) -> list:
    """One answer per search, for the top of the report (reports/build.py puts them first)."""
    return [answer(v) for v in views(dataset)]


def answer(view: SearchView):
    from reports import text
    from reports.answers import Answer
    from reports.questions import Question

    title = _goal_words(view)
    q = Question(kind="search", title=title, measure=view.objectives[0]["measure"],
                 extra={"search": view.name})
    key = section_key(view)
    games = sum(view.levels[a.name]["_games"] for a in view.candidates if a.name in view.levels)
    data = {"search": view.name, "candidates": len(view.candidates), "candidate_games": games,
            "finished": view.finished, "feasible": view.state.get("feasible", True),
            "final": [{"arm": f.name, "params": view.params.get(f.name, {}),
                       "fresh": {m: view.levels[f.name][m].to_dict() for m in view.measures},
                       "games": view.levels[f.name]["_games"], "first": f.first} for f in view.finals]}
    if not view.finished:
        told = len(view.candidates)
        return Answer(q, title, "no answer yet",
                      f"The search {view.name} has evaluated {told} of {view.table['trials']} candidates and has "
                      "not re-played its best setting yet: rerun the study's command to finish it.", key, data)
    fresh = [f for f in view.finals]
    sources = {f["arm"]: f["from"] for f in view.state.get("final") or []}
    first = fresh[0]
    n = view.levels[first.name]["_games"]
    where = (f"on {text.count(n)} fresh games (games {first.first:,}-{first.first + n - 1:,}, which no candidate "
             "played)")
    if len(view.objectives) == 1:
        measure = view.objectives[0]["measure"]
        lv = view.levels[first.name]
        verdict = view.setting(first.name)
        source = sources.get(first.name)
        seen = view.levels.get(source, {}).get(measure) if source else None
        others = [m for m in view.measures if m != measure]
        sentence = (f"{measure} {fmt(view.game, measure, lv[measure])} {where}"
                    + (f"; {', '.join(f'{m} {fmt(view.game, m, lv[m])}' for m in others)}" if others else "")
                    + f". Best of {len(view.candidates)} candidates ({text.count(games)} games)"
                    + (f"; on its own candidate games ({source}) it measured {fmt(view.game, measure, seen, False)}"
                       if seen is not None else "") + ".")
        same = dict((view.state.get("final") or [{}])[0].get("indifferent") or {})
        if same:
            data["indifferent"] = same
            sentence += (" With " + " or ".join(f"{k} {' or '.join(_value(v) for v in vs)}" for k, vs in same.items())
                         + f" instead, its first {PROBE} games are the very same: " + " and ".join(same)
                         + (" changes" if len(same) == 1 else " change") + " nothing at this setting.")
        if not data["feasible"]:
            verdict = f"no setting tried meets the constraints; closest: {verdict}"
    else:
        parts = [f"{view.setting(f.name)}: " + ", ".join(f"{m} {fmt(view.game, m, view.levels[f.name][m])}"
                                                           for m in view.measures) for f in fresh]
        verdict = f"{len(fresh)} setting{'s' if len(fresh) != 1 else ''} on the front"
        if not data["feasible"]:
            verdict = "no setting tried meets the constraints"
        sentence = (f"Each re-played {where}: " + "; ".join(parts)
                    + f". From {len(view.candidates)} candidates ({text.count(games)} games); the front is the "
                    "candidates no other beats in both objectives.")
    return Answer(q, title, verdict, sentence, key, data)


def section_key(view: SearchView) -> str:
    return f"{SEARCH_KEY}-{view.name}"


# -- the section --------------------------------------------------------------------------------------------
def _proposals_note(view: SearchView) -> str:
    how = ("Optuna's TPE sampler (a Bayesian optimiser that models where good settings lie from the ones evaluated "
           "so far; its first few proposals are random)" if view.table.get("sampler", "tpe") == "tpe"
           else "Optuna's random sampler (uniform proposals, a baseline)")
    return (f"Candidates are proposed by {how}, seeded from the study's seed, {view.table.get('parallel', 4)} per "
            "round. Every candidate plays games 0, 1, 2, ...: the same deals as every other candidate, so they are "
            "compared on equal cards.")


NOTES = [
    "Racing: after each round, a candidate whose 95% interval reaches the best candidate's (it may be the best), "
    "and the best itself while it has such a rival, or whose constraint's interval still straddles the bound, "
    "plays twice its games (up to the search's max_games); the others stop at their first look. Intervals are the "
    "report's own (seat shares: Wilson at the effective number of games; balance: bias-corrected, simultaneous; "
    "means: t).",
    "The value reported for the chosen setting comes only from its re-play on games after max_games, which no "
    "candidate played: picking the best of many noisy looks makes the best look better than it is, and fresh games "
    "do not carry that selection.",
]


def sections(dataset) -> list:
    return [section(v) for v in views(dataset)]


def section(view: SearchView):
    from reports import text
    from reports.model import Section, Table

    sec = Section(key=section_key(view), title=f"Search: {view.name}", notes=[_proposals_note(view), *NOTES])
    game = view.game
    evals = {a.name: view.evaluation(a.name) for a in view.candidates if a.name in view.levels}
    sources = {f["arm"]: f["from"] for f in view.state.get("final") or []}
    chosen = set(sources.values())
    order = [t["arm"] for t in view.state.get("trials") or [] if t.get("new")]
    order += [a.name for a in view.candidates if a.name not in order]
    order = [a for a in dict.fromkeys(order) if a in evals]
    broken = [a for a in order if not evals[a].feasible]
    spent = sum(e.games for e in evals.values())
    ans = answer(view)
    sec.verdicts.append(f"{ans.title}: {ans.verdict}. {ans.sentence}")
    raced = [a for a in order if evals[a].games > view.table["games"]]
    sec.verdicts.append(
        f"{len(order)} candidates, {text.count(spent)} games: {len(raced)} raced beyond their first "
        f"{text.count(view.table['games'])} games (close to the best), {len(broken)} outside the constraints"
        + (f" ({', '.join(broken[:6])}{' ...' if len(broken) > 6 else ''})" if broken else "") + ".")
    if view.finals and len(view.objectives) == 1:
        f = view.finals[0]
        src = sources.get(f.name)
        m0 = view.objectives[0]["measure"]
        if src in view.levels:
            seen, fresh = view.levels[src][m0], view.levels[f.name][m0]
            sec.verdicts.append(
                f"The chosen setting ({view.setting(f.name)}) measured {fmt(game, m0, seen)} on its "
                f"{text.count(view.levels[src]['_games'])} candidate games and {fmt(game, m0, fresh)} on "
                f"{text.count(view.levels[f.name]['_games'])} fresh ones"
                + (": the fresh value lies inside the search's interval." if seen.lo <= fresh.value <= seen.hi
                   else ": the fresh value lies outside the search's interval (the search's look was lucky, or "
                        "unlucky)."))
    cols = ["candidate", *view.vary, "games", *view.measures, "constraints"]
    rows = []
    for a in order:
        e = evals[a]
        p = view.params.get(a, {})
        status = ("met" if all(s == "met" for s in e.statuses) else
                  "outside" if not e.feasible else "open (within at the estimate)") if view.constraints else "-"
        rows.append([a + (" (chosen)" if a in chosen else ""), *[_value(p.get(k)) for k in view.vary],
                     text.count(e.games), *[fmt(game, m, view.levels[a][m]) for m in view.measures], status])
    if view.finals:
        for f in view.finals:
            p = view.params.get(f.name, {})
            rows.insert(0, [f"{f.name} (fresh games)", *[_value(p.get(k)) for k in view.vary],
                            text.count(view.levels[f.name]["_games"]),
                            *[fmt(game, m, view.levels[f.name][m]) for m in view.measures], "-"])
    sec.tables.append(Table(f"The re-played setting{'s' if len(view.finals) > 1 else ''} on fresh games, then every "
                            "candidate in the order the optimiser proposed it", cols, rows,
                            note="constraints: met = the whole 95% interval within every bound; outside = the "
                                 "estimate breaks a bound; open = the interval straddles a bound"))
    sec.figures += figures(view, evals, order, chosen)
    sec.data = {"search": view.table, "state": view.state,
                "candidates": {a: {"params": view.params.get(a, {}), **evals[a].to_dict()} for a in order},
                "final": ans.data.get("final")}
    return sec


# -- figures ------------------------------------------------------------------------------------------------
def figures(view: SearchView, evals: dict, order: list[str], chosen: set) -> list:
    out = [evaluations_figure(view, evals, order, chosen)]
    if len(view.vary) >= 2:
        out.append(where_figure(view, evals, order, chosen))
    if len(view.objectives) == 2:
        out.append(front_figure(view, evals, order, chosen))
    return out


_STATUS_COLORS = {"within": "#1f77b4", "outside": "#d62728", "open": "#ff7f0e"}


def _status(e) -> str:
    if not e.statuses:
        return "within"
    return "outside" if not e.feasible else ("within" if all(s == "met" for s in e.statuses) else "open")


def _status_label(view, s: str) -> str:
    if not view.constraints:
        return "candidate"
    return {"within": "within the constraints", "outside": "outside a constraint",
            "open": "constraint undecided"}[s]


def _pct_axis(view, measure: str) -> bool:
    return measure == "seat0_edge" or _kind(view.game, measure) == "share"


def evaluations_figure(view: SearchView, evals: dict, order: list[str], chosen: set):
    """The objective per candidate in proposal order, with its 95% interval; colour says whether the
    candidate meets the constraints; the chosen setting's fresh value as a line."""
    from matplotlib.ticker import MaxNLocator

    from reports import plots

    @plots._drawn
    def draw(title: str = ""):
        measure = view.objectives[0]["measure"]
        fig, axes = plots._new(min(plots.MAX_WIDTH, max(6.0, 1.6 + 0.22 * len(order))), 3.8, left=0.9, right=2.3,
                               bottom=0.8)
        ax = axes[0, 0]
        xs = np.arange(1, len(order) + 1)
        for s in ("within", "open", "outside"):
            idx = [i for i, a in enumerate(order) if _status(evals[a]) == s]
            if not idx:
                continue
            lv = [view.levels[order[i]][measure] for i in idx]
            y = np.array([v.value for v in lv])
            err = plots._err(y, np.array([v.lo for v in lv]), np.array([v.hi for v in lv]))
            ax.errorbar(xs[idx], y, yerr=err, fmt="o", markersize=4, capsize=2, elinewidth=1.2,
                        color=_STATUS_COLORS[s], label=_status_label(view, s))
        picked = [i for i, a in enumerate(order) if a in chosen]
        if picked:
            ax.plot(xs[picked], [view.levels[order[i]][measure].value for i in picked], marker="*", markersize=15,
                    linestyle="none", color=plots.MARK_COLOR, label="chosen", zorder=4)
        for f in view.finals[:1] if len(view.objectives) == 1 else ():  # two: the front figure has them
            ax.axhline(view.levels[f.name][measure].value, color="#2ca02c", linestyle="--", linewidth=1.2,
                       label="chosen, on fresh games")
        target = view.objectives[0].get("target")
        if target is not None:
            ax.axhline(target, color="#555", linestyle=":", linewidth=1.2, label="target")
        if _pct_axis(view, measure):
            ax.yaxis.set_major_formatter(plots._points() if measure == "seat0_edge" else plots._percent())
        ax.set_xlabel("candidate, in the order proposed", fontsize=9)
        ax.set_ylabel(measure + (" (points)" if measure == "seat0_edge" else ""), fontsize=9)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_title(title, fontsize=10)
        ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
        ax.grid(alpha=0.3)
        return plots._png(fig, title, f"{title}: one point per candidate with its 95% interval, coloured by whether it "
                                      "meets the constraints; the chosen setting starred, its fresh value dashed")

    return draw(title=f"{view.name}: {view.objectives[0]['measure']} of every candidate")


def where_figure(view: SearchView, evals: dict, order: list[str], chosen: set):
    """Where the search looked: every candidate in the plane of the first two varied parameters,
    coloured by the first objective, crossed out when it breaks a constraint; size grows with games."""
    from matplotlib import colormaps
    from matplotlib.colors import Normalize

    from reports import plots

    @plots._drawn
    def draw(title: str = ""):
        kx, ky = view.vary[0], view.vary[1]
        measure = view.objectives[0]["measure"]
        fig, axes = plots._new(7.2, 4.6, left=0.9, right=1.6, bottom=0.7)
        ax = axes[0, 0]

        def coord(v, key):
            choices = view.table["vary"][key]
            if isinstance(choices, list):
                return choices.index(v) if v in choices else math.nan
            return float(v)

        x = np.array([coord(view.params[a][kx], kx) for a in order], dtype=float)
        y = np.array([coord(view.params[a][ky], ky) for a in order], dtype=float)
        z = np.array([view.levels[a][measure].value for a in order], dtype=float)
        size = np.array([20 + 60 * math.log2(evals[a].games / view.table["games"] + 1) for a in order])
        ok = np.array([evals[a].feasible for a in order])
        norm = Normalize(np.nanmin(z), np.nanmax(z)) if np.isfinite(z).any() else Normalize(0, 1)
        cmap = colormaps["viridis"]
        ax.scatter(x[ok], y[ok], c=z[ok], cmap=cmap, norm=norm, s=size[ok], edgecolors="#222", linewidths=0.5)
        if (~ok).any():
            ax.scatter(x[~ok], y[~ok], c=z[~ok], cmap=cmap, norm=norm, s=size[~ok], marker="X", edgecolors="#d62728",
                       linewidths=0.8, label="outside a constraint")
        picked = [i for i, a in enumerate(order) if a in chosen]
        if picked:
            ax.scatter(x[picked], y[picked], s=260, marker="*", facecolors="none", edgecolors=plots.MARK_COLOR,
                       linewidths=1.5, label="chosen")
        for key, axis in ((kx, ax.xaxis), (ky, ax.yaxis)):
            choices = view.table["vary"][key]
            if isinstance(choices, list):
                (ax.set_xticks if axis is ax.xaxis else ax.set_yticks)(range(len(choices)), [_value(c) for c in choices])
        ax.set_xlabel(kx, fontsize=9)
        ax.set_ylabel(ky, fontsize=9)
        bar = fig.colorbar(ax.collections[0], ax=ax, fraction=0.05, pad=0.02)
        bar.set_label(measure, fontsize=8)
        if _pct_axis(view, measure):
            bar.ax.yaxis.set_major_formatter(plots._points() if measure == "seat0_edge" else plots._percent())
        bar.ax.tick_params(labelsize=7)
        ax.set_title(title, fontsize=10)
        if picked or (~ok).any():
            ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.25, 1.0), frameon=False)
        ax.grid(alpha=0.3)
        return plots._png(fig, title, f"{title}: each candidate at its {kx} and {ky}, coloured by {measure}, larger "
                                      "when racing gave it more games; crosses break a constraint, a star marks the chosen")

    return draw(title=f"{view.name}: where the search looked")


def front_figure(view: SearchView, evals: dict, order: list[str], chosen: set):
    """Two objectives: every candidate at its two values with both intervals, the front joined."""
    from sim.search import front

    from reports import plots

    @plots._drawn
    def draw(title: str = ""):
        m1, m2 = view.objectives[0]["measure"], view.objectives[1]["measure"]
        fig, axes = plots._new(7.4, 4.8, left=0.9, right=2.3, bottom=0.7)
        ax = axes[0, 0]
        for s in ("within", "open", "outside"):
            names = [a for a in order if _status(evals[a]) == s]
            if not names:
                continue
            a1 = [view.levels[a][m1] for a in names]
            a2 = [view.levels[a][m2] for a in names]
            x, y = np.array([v.value for v in a1]), np.array([v.value for v in a2])
            ax.errorbar(x, y, xerr=plots._err(x, np.array([v.lo for v in a1]), np.array([v.hi for v in a1])),
                        yerr=plots._err(y, np.array([v.lo for v in a2]), np.array([v.hi for v in a2])),
                        fmt="o", markersize=4, elinewidth=0.8, capsize=1.5, color=_STATUS_COLORS[s],
                        alpha=0.8, label=_status_label(view, s))
        members = front(list(evals.values()))
        if members:
            pts = sorted(((view.levels[e.arm][m1].value, view.levels[e.arm][m2].value) for e in members))
            ax.plot([p[0] for p in pts], [p[1] for p in pts], color=plots.MARK_COLOR, linewidth=1.2,
                    drawstyle="steps-post", label="front (point estimates)")
        for f in view.finals:
            ax.plot(view.levels[f.name][m1].value, view.levels[f.name][m2].value, marker="D", markersize=6,
                    linestyle="none", color="#2ca02c", label="re-played on fresh games" if f is view.finals[0] else None)
        for measure, axis in ((m1, ax.xaxis), (m2, ax.yaxis)):
            if _pct_axis(view, measure):
                axis.set_major_formatter(plots._points() if measure == "seat0_edge" else plots._percent())
        goal = {o["measure"]: o.get("goal", "target") for o in view.objectives}
        ax.set_xlabel(f"{m1} ({goal[m1]})", fontsize=9)
        ax.set_ylabel(f"{m2} ({goal[m2]})", fontsize=9)
        ax.set_title(title, fontsize=10)
        ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
        ax.grid(alpha=0.3)
        return plots._png(fig, title, f"{title}: every candidate at its {m1} and {m2} with 95% intervals; the line "
                                      "joins the candidates no other beats in both; diamonds are the fresh re-plays")

    return draw(title=f"{view.name}: the trade-off between {m1_m2(view)}")


def m1_m2(view) -> str:
    return f"{view.objectives[0]['measure']} and {view.objectives[1]['measure']}"
