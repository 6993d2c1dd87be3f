"""One function per question kind: the report's answer to a question, in one plain sentence with its
number, interval and verdict, and the section that holds the evidence.

The answers block at the top of a report and summary.json's ``answers`` are built from these and
nothing else, so they always agree. Verdicts are the report's corrected claims (reports.claims):
an answer registers no claim of its own that a section does not also show, except the target
question's crossing, which is an estimate, not a test.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import polars as pl

from reports import metrics as m
from reports import text
from reports.compare import Comparison, Measure, compare_pairs
from reports.context import Context
from reports.crossing import Z, Crossing, crossing
from reports.dataset import Arm, Pair
from reports.measures import DEFAULT_COMPARE, lookup
from reports.model import Section, Table
from reports.questions import Question
from reports.sections import policies, variants
from reports.sections.first_player import seat_stats
from reports.stats import Estimate, mean_interval


@dataclass
class Answer:
    question: Question
    title: str  # who or what the question is about: "John Knut", "john-on"
    verdict: str  # one or two words: "fairer", "not fair to seat 0", "no detectable change"
    sentence: str  # the numbers behind the verdict
    link: str  # the key (HTML anchor) of the section with the evidence
    data: dict = field(default_factory=dict)

    @property
    def headline(self) -> str:
        """'John Knut: fairer.' or, for a title that is a question, 'Which threshold ...? Threshold 33.'"""
        if self.title.endswith("?"):
            return f"{self.title} {self.verdict[:1].upper()}{self.verdict[1:]}."
        return f"{self.title}: {self.verdict}."

    @property
    def text(self) -> str:
        return f"{self.headline} {self.sentence}"

    def to_dict(self) -> dict:
        return {"question": self.question.to_dict(), "title": self.title, "verdict": self.verdict,
                "sentence": self.sentence, "text": self.text, "evidence": self.link, "data": self.data}


# -- formatting --------------------------------------------------------------------------------------
def pp(est: Estimate) -> str:
    """'-0.63 percentage points (-0.75 to -0.51)'."""
    return text.points(est)


def _delta(c: Comparison, est: Estimate | None = None) -> str:
    """A paired difference as '-0.63; -0.75 to -0.51' (shares in percentage points)."""
    est = est or c.paired
    k = 100.0 if c.measure.share else 1.0
    if c.measure.share:
        d = text.zero_safe_digits(est.lo * k, est.hi * k, text.share_digits(est))
    else:
        d = text.zero_safe_digits(est.lo, est.hi, min(3, text.decimals_for_width(est.hi - est.lo)))
    return f"{text.signed(est.value * k, d)}; {text.signed(est.lo * k, d)} to {text.signed(est.hi * k, d)}"


def _level(c: Comparison, est: Estimate) -> str:
    return text.pct(est.value, text.share_digits(est)) if c.measure.share else text.number(est.value)


def _change(c: Comparison, name: str | None = None) -> str:
    """'turns per game 111 -> 113 (+2.6; +2.5 to +2.7)', shares with 'percentage points'."""
    unit = " percentage points" if c.measure.share else ""
    return f"{name or c.measure.label} {_level(c, c.baseline)} -> {_level(c, c.variant)} ({_delta(c)}{unit})"


def _flat(comps: list[Comparison]) -> str:
    return ", ".join(c.measure.label for c in comps)


# -- compare --------------------------------------------------------------------------------------------
def _measure_objects(ctx: Context, names: tuple[str, ...], players: int) -> list[Measure]:
    """The comparison measures a question names, every seat's win share for 'seat_share'."""
    pool = {mm.key: mm for mm in variants.measures(ctx, players)}
    pool.setdefault("score_mean", variants.default_outcomes(ctx)[0])
    out: list[Measure] = []
    for name in names:
        keys = [f"seat{s}_win" for s in range(players)] if name == "seat_share" else \
            [lookup(ctx.game, name).comparison_key]
        out += [pool[k] for k in keys if k in pool and k not in {mm.key for mm in out}]
    return out


def _pair_comparisons(ctx: Context, a: Arm, b: Arm, names: tuple[str, ...]) -> tuple[Pair, list[Comparison]]:
    """b against baseline a on the named measures; the variant comparison's own claims where it
    compares the same two arms (in either direction), so no test is counted twice."""
    known = {frozenset((p.a.name, p.b.name)): p for p in ctx.dataset.variant_pairs(ctx.game)}
    pair = known.get(frozenset((a.name, b.name)), Pair(a, b))
    wanted = _measure_objects(ctx, names, a.players if a.players == b.players else 1)
    if pair in known.values():
        comps = variants.comparisons(ctx, [pair])[pair.key]
        missing = [mm for mm in wanted if mm.key not in {c.measure.key for c in comps}]
        comps = comps + (compare_pairs(ctx, [pair], missing)[pair.key] if missing else [])
    else:
        comps = compare_pairs(ctx, [pair], wanted)[pair.key]
    order = [mm.key for mm in wanted]
    comps = [c for c in comps if c.measure.key in order]
    if pair.a.name != a.name:  # the variant comparison's baseline is the question's variant
        comps = [_reversed(c) for c in comps]
        pair = Pair(a, b)
    return pair, sorted(comps, key=lambda c: order.index(c.measure.key))


def setup_change(a: Arm, b: Arm) -> str:
    """What differs between two arms that are not rule variants: 'seat 1 random -> random(vocabulary=1.5)'."""
    parts = [f"{k} {text.rule_value(va)}->{text.rule_value(vb)}" for k, (va, vb) in a.rule_diff(b).items()]
    if a.players != b.players:
        parts.append(f"players {a.players}->{b.players}")
    else:
        parts += [f"seat {s} {pa}->{pb}" for s, (pa, pb) in enumerate(zip(a.policies, b.policies)) if pa != pb]
    return ", ".join(parts) or "the same set-up"


def _reversed(c: Comparison) -> Comparison:
    return Comparison(measure=c.measure, pair=Pair(c.pair.b, c.pair.a), baseline=c.variant, variant=c.baseline,
                      paired=c.paired.negate(), unpaired=c.unpaired.negate(), claim=c.claim, fixed=c.fixed)


def _fairness_word(ctx: Context, pair: Pair, comps: list[Comparison]) -> str | None:
    """'fairer', 'less fair', 'fairer for seat 0, less balanced' or None (no fairness measure asked)."""
    stats = seat_stats(ctx)
    votes = []
    for c in comps:
        if not c.detected:
            continue
        if c.measure.key == "seat0_win":
            before, after = stats[pair.a.name].edge.value, stats[pair.b.name].edge.value
            votes.append(abs(after) < abs(before))
        elif c.measure.key == "balance":
            votes.append(c.paired.value > 0)
    asked = any(c.measure.key in ("seat0_win", "balance") for c in comps)
    if not asked:
        return None
    if not votes:
        return "no detectable change in fairness"
    return "fairer" if all(votes) else "less fair" if not any(votes) else "fairer by one measure, less by another"


def answer_compare(ctx: Context, q: Question) -> Answer:
    a, b = (ctx.dataset.arm(n) for n in q.arms)
    pair, comps = _pair_comparisons(ctx, a, b, q.measures or DEFAULT_COMPARE)
    stats = seat_stats(ctx)
    title = q.title or f"{b.name} against {a.name}"
    change = pair.describe_changes() if pair.changes else setup_change(a, b)
    parts = []
    for c in comps:
        if c.measure.key == "seat0_win":
            ea, eb = stats[a.name].edge, stats[b.name].edge
            d = text.share_digits(ea)
            levels = f"{text.signed(ea.value * 100, d)} to {text.signed(eb.value * 100, d)} percentage points"
            parts.append(f"seat 0's edge {'rises' if c.paired.value > 0 else 'falls'} from {levels} ({_delta(c)})"
                         if c.detected else f"seat 0's edge: no detectable change ({levels}; change {_delta(c)})")
        elif c.measure.key == "balance":
            parts.append(f"balance {'rises' if c.paired.value > 0 else 'falls'} from {_level(c, c.baseline)} to "
                         f"{_level(c, c.variant)} ({_delta(c)} percentage points)" if c.detected else
                         f"balance: no detectable change ({_level(c, c.baseline)} to {_level(c, c.variant)}; "
                         f"change {_delta(c)} percentage points)")
    seats = [c for c in comps if c.measure.key.startswith("seat") and c.measure.key != "seat0_win"]
    if seats:
        movers = [c for c in seats if c.detected]
        if movers:
            parts.append("seat by seat: " + ", ".join(
                f"seat {c.measure.key[4:-4]} {_level(c, c.baseline)} -> {_level(c, c.variant)} ({_delta(c)})"
                for c in movers) + " percentage points")
        else:
            widest = max((max(abs(c.paired.lo), abs(c.paired.hi)) for c in seats), default=math.nan)
            parts.append("no other seat's win share changes detectably (each change within "
                         f"+-{widest * 100:.2g} percentage points)")
    others = [c for c in comps if not c.measure.key.startswith("seat") and c.measure.key != "balance"]
    found = [c for c in others if c.detected]
    fixed = [c for c in others if c.fixed]
    flat = [c for c in others if not c.detected and not c.fixed]
    parts += [_change(c) for c in found]
    if flat:
        parts.append(f"no detectable change in {_flat(flat)}")
    if fixed:
        parts.append(f"{_flat(fixed)} the same in every game (not tested)")
    verdict = _fairness_word(ctx, pair, comps)
    if verdict is None:
        verdict = "changes " + _flat(found) if found else "no detectable change"
    n = max((c.paired.n for c in comps), default=0)
    sentence = (f"Paired on {text.count(n)} games, {b.name} against {a.name} ({change}): " + "; ".join(parts) + ".")
    return Answer(q, title, verdict, sentence, ctx.key(variants.KEY),
                  {"baseline": a.name, "variant": b.name, "changes": {k: list(v) for k, v in pair.changes.items()},
                   "measures": {c.measure.key: c.to_dict() for c in comps}})


# -- fairness -----------------------------------------------------------------------------------------
def _edge_clause(st) -> str:
    d = text.zero_safe_digits(st.edge.lo * 100, st.edge.hi * 100, text.share_digits(st.shares[0]))
    head = (f"seat 0 wins {text.share_ci(st.shares[0])} against a fair {text.pct(st.fair)} "
            f"({text.signed(st.edge.value * 100, d)} percentage points")
    if st.edge_claim.detected:
        return head + (", a first-player advantage)" if st.edge.value > 0 else ", a first-player disadvantage)")
    return head + f", not detectable; within +-{st.within * 100:.{max(d, 1)}f})"


def answer_fairness(ctx: Context, q: Question) -> Answer:
    stats = seat_stats(ctx)
    names = [n for n in (q.arms or [a.name for a in ctx.arms]) if n in stats]
    measures = set(q.measures or ("seat0_edge", "balance"))
    unfair = [n for n in names if stats[n].edge_claim.detected or stats[n].equal_claim.detected]
    if len(names) == 1:
        st = stats[names[0]]
        parts = []
        if "seat0_edge" in measures or "seat_share" in measures:
            parts.append(_edge_clause(st))
        if "balance" in measures or "seat_share" in measures:
            verdict_seats = ("the seats differ detectably" if st.equal_claim.detected
                             else "no detectable difference between the seats")
            parts.append(f"balance is {text.share_ci(st.balance)}, where 100% means every seat wins equally often: "
                         f"{verdict_seats} (highest seat {st.hi_seat} {text.pct(st.shares[st.hi_seat].value)}, "
                         f"lowest seat {st.lo_seat} {text.pct(st.shares[st.lo_seat].value)})")
        verdict = ("not fair to every seat" if unfair else "no detectable unfairness at this size")
        sentence = f"In {text.count(st.games)} games of {st.arm.name}, " + "; ".join(parts) + "."
        title = q.title or f"Is {st.arm.name} fair?"
    else:
        edges = sorted(names, key=lambda n: stats[n].edge.value)
        lo, hi = edges[0], edges[-1]
        bal = sorted(names, key=lambda n: stats[n].balance.value)
        found = [n for n in names if stats[n].edge_claim.detected]
        sentence = (f"Seat 0's edge is detectable in {len(found)} of {len(names)} arms"
                    + (f" ({', '.join(found[:6])}{', ...' if len(found) > 6 else ''})" if found else "")
                    + f"; it ranges from {pp(stats[lo].edge)} ({lo}) to {pp(stats[hi].edge)} ({hi}); balance from "
                    f"{text.share_ci(stats[bal[0]].balance)} ({bal[0]}) to {text.share_ci(stats[bal[-1]].balance)} "
                    f"({bal[-1]}).")
        verdict = (f"{len(unfair)} of {len(names)} arms not fair to every seat" if unfair
                   else "no detectable unfairness in any arm at this size")
        title = q.title or "Fairness of every arm"
    return Answer(q, title, verdict, sentence, ctx.key("first_player"),
                  {"arms": {n: {"seat0_edge": stats[n].edge.to_dict(), "balance": stats[n].balance.to_dict(),
                                "edge_detected": stats[n].edge_claim.detected,
                                "seats_differ": stats[n].equal_claim.detected} for n in names}})


# -- players ------------------------------------------------------------------------------------------
def answer_players(ctx: Context, q: Question) -> Answer:
    groups = policies.policy_groups(ctx)
    wanted = set(q.arms or (a.name for a in ctx.arms))
    group = max(groups, key=lambda g: len(wanted & {a.name for a in g.arms}), default=None)
    title = q.title or "Which player is stronger?"
    if group is None:
        return Answer(q, title, "no answer", "No arm seats different players at one table, so players cannot be "
                      "compared here.", ctx.key(policies.KEY))
    rows, stronger, weaker = [], [], []
    for p in group.policies:
        adj = group.fit.adjusted.get(p)
        if adj is None:
            continue
        claim = group.claims["player", p]
        edge = adj.shift(-group.fair)
        rows.append(f"{p} {text.share_ci(adj)} ({pp(edge)})")
        if claim.detected:
            (stronger if edge.value > 0 else weaker).append(p)
        rows[-1] += "" if claim.detected else " not detectably different"
    if not rows:
        return Answer(q, title, "cannot be told apart from the seats",
                      f"The arms ({', '.join(a.name for a in group.arms)}) do not rotate the players over the seats, "
                      "so a player's share cannot be separated from the seats it holds: rotate every player through "
                      "every seat to answer this.", ctx.key(policies.KEY))
    if stronger or weaker:
        verdict = "; ".join(filter(None, [
            f"{', '.join(stronger)} stronger than the field" if stronger else "",
            f"{', '.join(weaker)} weaker" if weaker else ""]))
    else:
        verdict = "no detectable difference between the players at this size"
    sentence = (f"Seat-adjusted win share in {group.players}-player games against a fair {text.pct(group.fair)}: "
                + "; ".join(rows) + ".")
    return Answer(q, title, verdict, sentence, ctx.key(policies.KEY),
                  {"arms": [a.name for a in group.arms], "stronger": stronger, "weaker": weaker,
                   "seat_adjusted": {p: e.to_dict() for p, e in group.fit.adjusted.items() if e is not None}})


# -- target -------------------------------------------------------------------------------------------
def parameter_value(arm: Arm, name: str):
    if name in arm.rules:
        return arm.rules[name]
    values = {repr(params.get(name)) for _policy, params in arm.seat_params}
    return arm.seat_params[0][1].get(name) if len(values) == 1 and arm.seat_params else None


def _levels(ctx: Context, arms: list[Arm], name: str) -> dict[str, Estimate]:
    """The measure's value per arm with its 95% interval."""
    stats = seat_stats(ctx)
    if name == "seat0_edge":
        return {a.name: stats[a.name].edge for a in arms}
    if name == "balance":
        return {a.name: stats[a.name].balance for a in arms}
    mm = _measure_objects(ctx, (name,), arms[0].players)[0]

    def level(arm: Arm) -> Estimate:
        r = ctx.scan.filter(pl.col("arm") == arm.name).select(
            m.moments(mm.expr(arm).cast(pl.Float64), "x")).collect().row(0, named=True)
        return mean_interval(r["x:mean"], r["x:var"], r["x:n"], lower=mm.lower)
    return ctx.cached(("target-levels", name, tuple(a.name for a in arms)), lambda: {a.name: level(a) for a in arms})


def _per_game(ctx: Context, arms: list[Arm], name: str) -> np.ndarray | None:
    """games x arms: the measure in every game every arm played (joined on the game index, so row g
    is the same deal in every column); None for balance, which is not a per-game mean."""
    if name == "balance":
        return None
    mm = _measure_objects(ctx, (name,), arms[0].players)[0]  # seat0_edge: seat 0's win weight, less the fair share
    shift = 1.0 / arms[0].players if name == "seat0_edge" else 0.0
    frames = [ctx.scan.filter(pl.col("arm") == a.name).select(
        "game", (mm.expr(a).cast(pl.Float64) - shift).alias(f"v{k}")) for k, a in enumerate(arms)]
    joined = frames[0]
    for frame in frames[1:]:
        joined = joined.join(frame, on="game", how="inner")
    table = joined.sort("game").collect()
    return table.select([f"v{k}" for k in range(len(arms))]).to_numpy()


def target_format(ctx: Context, measure: str):
    """How the target question writes the measure: seat 0's edge in signed percentage points,
    shares in percent, counts as numbers."""
    if measure == "seat0_edge":
        return lambda v: text.signed(v * 100, 2)
    return (lambda v: text.pct(v, 1)) if lookup(ctx.game, measure).kind == "share" else text.number


def _x(value: float, integer: bool) -> str:
    return f"{value:.0f}" if integer else f"{value:.3g}"


def _set_text(c: Crossing) -> str:
    """'between 33.1 and 33.6, so 33 or 34', 'between 0.21 and 0.34', with the open ends said."""
    span = f"between {c.low:.3g} and {c.high:.3g}" if c.high > c.low else f"at {c.low:.3g}"
    if c.integer:
        whole = c.whole
        span += (f", so only {whole[0]}" if len(whole) == 1 else f", so {whole[0]} or {whole[1]}" if len(whole) == 2
                 else f", so any of {whole[0]}-{whole[-1]}")
    ends = ["perhaps lower: the sweep starts there"] * c.open_low + ["perhaps higher: the sweep ends there"] * c.open_high
    return span + (f"; {' and '.join(ends)}" if ends else "")


def _level_text(q: Question, fmt, x, est: Estimate) -> str:
    """'at 31 seat 0 wins +0.90 percentage points too often (+0.10 to +1.70)' or 'at 31: 41.2 (40.1 to 42.3)'."""
    if q.measure == "seat0_edge" and q.target == 0:
        how = "too often" if est.value > 0 else "too rarely"
        return (f"at {x} seat 0 wins {abs(est.value) * 100:.2f} percentage points {how} "
                f"({fmt(est.lo)} to {fmt(est.hi)})")
    unit = " percentage points" if q.measure == "seat0_edge" else ""
    return f"at {x} it is {fmt(est.value)}{unit} ({fmt(est.lo)} to {fmt(est.hi)})"


def answer_target(ctx: Context, q: Question) -> Answer:
    """The value of the parameter where the measure crosses the target, from the curve fitted to
    every value tried (reports/crossing.py), with the 95% set of values the games do not exclude."""
    arms = [ctx.dataset.arm(n) for n in q.arms]
    xs = list(q.extra.get("at") or [parameter_value(a, q.parameter) for a in arms])
    order = sorted(range(len(arms)), key=lambda k: xs[k])
    arms, xs = [arms[k] for k in order], [xs[k] for k in order]
    integer = all(isinstance(x, int) and not isinstance(x, bool) for x in xs)
    values = _per_game(ctx, arms, q.measure)
    levels = _levels(ctx, arms, q.measure)
    ys = [levels[a.name] for a in arms]
    if values is not None and len(values) > 1:
        c = crossing(xs, q.target, values=values, integer=integer)
    else:
        c = crossing(xs, q.target, means=[y.value for y in ys], se=[(y.hi - y.lo) / (2 * Z) for y in ys],
                     integer=integer)
    fmt = target_format(ctx, q.measure)
    fair = q.measure == "seat0_edge" and q.target == 0
    unit = " percentage points" if q.measure == "seat0_edge" else ""
    name = SHORT.get(q.measure) or lookup(ctx.game, q.measure).label
    goal = "makes seat 0 fair" if fair else f"brings {name} to {fmt(q.target)}{unit}"
    label = f" ({q.extra['curve']})" if q.extra.get("curve") else ""
    title = q.title + label if q.title else f"Which {q.parameter} {goal}{label}?"
    near = min(range(len(xs)), key=lambda k: abs(ys[k].value - q.target))
    if not c.found:
        end = 0 if abs(ys[0].value - q.target) < abs(ys[-1].value - q.target) else len(xs) - 1
        verdict = f"no {q.parameter} from {xs[0]} to {xs[-1]} does"
        sentence = (f"The games exclude the target at every value tried and between them ({'above' if c.side == 'above' else 'below'} "
                    f"it throughout); closest: {_level_text(q, fmt, xs[near], ys[near])}. If a value reaches it, "
                    f"it lies {'below' if end == 0 else 'above'} {xs[end]}, outside the sweep.")
    elif c.open_low and c.open_high:
        verdict = f"not located at this size: every {q.parameter} from {xs[0]} to {xs[-1]} is possible"
        sentence = (f"No value tried is excluded at 95%; closest: {_level_text(q, fmt, xs[near], ys[near])}. "
                    "More games per value narrow it.")
    elif c.estimate is None:
        verdict = f"no {q.parameter} from {xs[0]} to {xs[-1]} crosses it, though some are not excluded"
        sentence = (f"The fitted curve stays {c.side} the target throughout; it is within its 95% band of the target "
                    f"{_set_text(c)}. Closest value tried: {_level_text(q, fmt, xs[near], ys[near])}.")
    else:
        shown = _x(c.estimate, integer)
        between = integer and abs(c.estimate - round(c.estimate)) > 0.05
        if between:
            goal = "comes closest to a fair seat 0" if fair else f"brings {name} closest to {fmt(q.target)}{unit}"
            goal += f": the curve crosses the target at {c.estimate:.1f}"
        below = max((k for k in range(len(xs)) if xs[k] < c.estimate), default=None)
        above = min((k for k in range(len(xs)) if xs[k] > c.estimate), default=None)
        verdict = f"{q.parameter} {shown}"
        sides = ", ".join(_level_text(q, fmt, xs[k], ys[k]) for k in (below, above) if k is not None)
        sentence = (f"{q.parameter} {shown} {goal} (95%: {_set_text(c)}"
                    + (f"; the set is {c.pieces} separate pieces: the curve runs close to the target" if c.pieces > 1 else "")
                    + f"); {sides}." + (f" The fitted curve crosses the target {c.crossings} times; this is the first."
                                             if c.crossings > 1 else ""))
    data = {"parameter": q.parameter, "measure": q.measure, "target": q.target, "sweep": q.sweep,
            "curve_label": q.extra.get("curve", ""), "crossing": c.estimate, "set": c.to_dict(),
            "curve": [{"at": x, "arm": a.name, **y.to_dict()} for x, a, y in zip(xs, arms, ys)],
            "fitted": {"at": c.candidates.tolist(), "value": c.fitted.tolist(), "se": c.fitted_se.tolist()}}
    if not sentence.startswith(q.parameter):  # a parameter's name keeps its spelling
        sentence = sentence[0].upper() + sentence[1:]
    return Answer(q, title, verdict, sentence, ctx.key(f"target-{q.number}"), data)


SHORT = {"seat0_edge": "seat 0's edge", "balance": "balance", "turns": "turns per game", "rounds": "rounds per game"}


def target_section(ctx: Context, ans: Answer) -> Section:
    """The evidence of a target question: the measure at every value tried, the fitted curve with
    its band, the target line and the values not excluded."""
    from reports import sweep_plots

    d = ans.data
    share = lookup(ctx.game, d["measure"]).kind == "share"
    points = [Estimate(p["estimate"], p["lo"], p["hi"], p["n"], p["method"]) for p in d["curve"]]
    cell = text.points_cell if d["measure"] == "seat0_edge" else text.share_ci if share else text.value_ci
    kept = set(d["set"]["kept"] or [])  # an integer parameter's whole numbers that bracket the set
    where = f" ({d['curve_label']})" if d["curve_label"] else ""
    sec = Section(key=ans.link, title=f"Target: {d['measure']} = {d['target']:g} over {d['parameter']}{where}")
    sec.notes.append(f"The curve is {d['set']['fit']}, from the games' own covariance of the values tried "
                     "(they play the same deals); a value is kept when the curve there is within its 95% band of "
                     "the target.")
    sec.tables.append(Table(f"{d['measure']} by {d['parameter']} (95% interval of each value on its own)",
                            [d["parameter"], d["measure"] + (" (percentage points)" if d["measure"] == "seat0_edge"
                                                             else ""), "not excluded"],
                            [[str(p["at"]), cell(e), ("yes" if float(p["at"]) in kept else "no") if d["set"]["integer"]
                              else ("yes" if d["set"]["low"] is not None and d["set"]["low"] <= p["at"] <= d["set"]["high"]
                                    else "no")]
                             for p, e in zip(d["curve"], points)]))
    sec.figures.append(sweep_plots.target_curve(d, share=share, title=f"{d['measure']} by {d['parameter']}{where}"))
    sec.data = d
    return sec


KINDS = {"fairness": answer_fairness, "compare": answer_compare, "players": answer_players, "target": answer_target}


def answer(ctx: Context, q: Question) -> Answer:
    return KINDS[q.kind](ctx, q)
