"""Does a verdict depend on the players? The same question answered under several player mixes.

Arms that differ only by their players (same game, seats, rules and deck) answer the same questions:
seat 0's edge (for tables where every seat has the same player) and each variant's effect (a rule
change between two arms with the same players). Their answers are shown side by side, and every two
mixes are compared: game i deals the same cards in every arm, so a difference of answers is the mean
over game indices of a per-game contrast of the arms (seat 0's win weight under mix B minus under
mix A; the variant's per-game effect under B minus under A), with a paired t-interval. Each such
difference is a claim of the report, corrected with the others.
"""
from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from itertools import combinations

import polars as pl

from reports import metrics as m
from reports import plots, text
from reports.claims import Claim
from reports.context import Context
from reports.dataset import Arm, Pair
from reports.model import Section, Table
from reports.sections.first_player import adjusted, seat_stats
from reports.sections.variants import comparisons, measures
from reports.stats import Estimate, mean_interval

KEY = "player_dependence"
NOTES = [
    "A player mix is the players of an arm's seats (one name when every seat has the same player). Arms "
    "are compared across mixes only when everything else (game, seats, rules, deck) is the same.",
    "Seat 0's edge is asked only of tables where every seat has the same player (otherwise it mixes seat "
    "and player); its value per mix is the first-player section's. A variant's effect per mix is the "
    "variant section's paired difference.",
    "Disagreement: for every two mixes, the difference of their answers, paired on the game index (the "
    "same deals in every arm): the mean of the per-game contrast with a t-interval. 'Disagree' means this "
    "difference is detectable after the report's correction; 'agree' means it is not (the answers may "
    "still differ by less than the study can see: the interval says how much).",
]


def mix_label(arm: Arm) -> str:
    players = set(arm.policies)
    return next(iter(players)) if len(players) == 1 else ",".join(arm.policies)


@dataclass
class Answer:
    mix: str
    estimate: Estimate
    share: bool  # in [0, 1] units: shown in points


@dataclass
class Difference:
    mix_a: str
    mix_b: str
    estimate: Estimate  # answer under b minus answer under a
    claim: Claim


@dataclass
class Question:
    key: str
    label: str
    answers: list[Answer]
    differences: list[Difference]
    share: bool

    @property
    def disagree(self) -> list[Difference]:
        return [d for d in self.differences if d.claim.detected]


def _contrasts(ctx: Context, specs: list[tuple[dict[str, float], Callable[[Arm], pl.Expr]]]) -> list[Estimate]:
    """Mean over shared game indices of sum(coef * expr(arm)), paired t-interval, per spec."""
    queries = []
    for coefs, expr in specs:
        frame = None
        for k, name in enumerate(coefs):
            side = (ctx.arm_scan(name).filter(pl.col("arm") == name)
                    .select(pl.col("game"), expr(ctx.arm(name)).cast(pl.Float64).alias(f"v{k}")))
            frame = side if frame is None else frame.join(side, on="game", how="inner")
        value = pl.sum_horizontal([pl.col(f"v{k}") * c for k, c in enumerate(coefs.values())])
        queries.append(frame.select(m.moments(value, "d")))
    out = []
    for frame in (q.collect() for q in queries):  # in turn: see metrics.by_arm
        r = frame.row(0, named=True)
        out.append(mean_interval(r["d:mean"], r["d:var"], r["d:n"], method="paired t"))
    return out


def _same_but_players(arm: Arm) -> tuple:
    return (arm.game, arm.game_version, arm.players, json.dumps(arm.rules, sort_keys=True),
            json.dumps(arm.deck, sort_keys=True))


def _seat_questions(ctx: Context) -> list[tuple[str, str, dict[str, Arm]]]:
    stats = seat_stats(ctx)
    groups: dict[tuple, dict[str, Arm]] = {}
    for arm in ctx.arms:
        if arm.name in stats and len(set(arm.policies)) == 1:
            groups.setdefault(_same_but_players(arm), {}).setdefault(mix_label(arm), arm)
    out = []
    for mixes in groups.values():
        if len(mixes) > 1:
            first = next(iter(mixes.values()))
            names = ", ".join(a.name for a in mixes.values())
            out.append((f"seat0/{names}", f"seat 0's edge ({first.players} players; arms {names})", mixes))
    return out


def _variant_questions(ctx: Context) -> list[tuple[str, str, dict[str, Pair]]]:
    groups: dict[tuple, dict[str, Pair]] = {}
    for pair in ctx.dataset.variant_pairs(ctx.game):
        if pair.a.name not in seat_stats(ctx) or pair.b.name not in seat_stats(ctx):
            continue
        if pair.a.policies != pair.b.policies:  # a player-parameter variant: its players are the change
            continue
        key = (_same_but_players(pair.a), _same_but_players(pair.b))
        groups.setdefault(key, {}).setdefault(mix_label(pair.a), pair)
    return [(f"variant/{'|'.join(p.key for p in pairs.values())}", f"effect of {next(iter(pairs.values())).describe_changes()}",
             pairs) for pairs in groups.values() if len(pairs) > 1]


def _claim(ctx: Context, key: str, label: str, a: str, b: str, est: Estimate) -> Difference:
    claim = ctx.claim(f"{KEY}/{key}/{a}-vs-{b}", KEY, f"{label}: {b} vs {a}", est.p_value)
    return Difference(a, b, est, claim)


def questions(ctx: Context) -> list[Question]:
    def run():
        out: list[Question] = []
        stats = seat_stats(ctx)
        seat_qs = _seat_questions(ctx)
        var_qs = _variant_questions(ctx)
        per_game = [mm for mm in measures(ctx) if not mm.seat_range]
        specs, where = [], []
        for key, label, mixes in seat_qs:
            for a, b in combinations(mixes, 2):
                specs.append(({mixes[b].name: 1.0, mixes[a].name: -1.0}, lambda arm: m.win_weight(0)))
                where.append((key, a, b, None))
        for key, label, pairs in var_qs:
            for a, b in combinations(pairs, 2):
                pa, pb = pairs[a], pairs[b]
                for mm in per_game:
                    specs.append(({pb.b.name: 1.0, pb.a.name: -1.0, pa.b.name: -1.0, pa.a.name: 1.0}, mm.expr))
                    where.append((key, a, b, mm.key))
        found = dict(zip(where, _contrasts(ctx, specs))) if specs else {}
        for key, label, mixes in seat_qs:
            answers = [Answer(mix, stats[arm.name].edge, True) for mix, arm in mixes.items()]
            diffs = [_claim(ctx, key, label, a, b, found[key, a, b, None]) for a, b in combinations(mixes, 2)]
            out.append(Question(key, label, answers, diffs, True))
        for key, label, pairs in var_qs:
            comps = comparisons(ctx, list(pairs.values()))
            for mm in per_game:
                answers = [Answer(mix, next(c.paired for c in comps[p.key] if c.measure.key == mm.key), mm.share)
                           for mix, p in pairs.items()]
                full = f"{label}: {mm.label}"
                diffs = [_claim(ctx, f"{key}/{mm.key}", full, a, b, found[key, a, b, mm.key])
                         for a, b in combinations(pairs, 2)]
                out.append(Question(f"{key}/{mm.key}", full, answers, diffs, mm.share))
        return out
    return ctx.cached((KEY,), run)


def _fmt(est: Estimate, share: bool) -> str:
    return text.points(est) if share else text.value_ci(est, signed_values=True)


def _verdicts(qs: list[Question]) -> list[str]:
    """A sentence per question whose answers disagree; one for all those that agree."""
    out = []
    for q in qs:
        if not q.disagree:
            continue
        answers = "; ".join(f"{a.mix} {_fmt(a.estimate, a.share)}" for a in q.answers)
        parts = "; ".join(f"{d.mix_b} minus {d.mix_a} {_fmt(d.estimate, q.share)} ({adjusted(d.claim)})"
                          for d in q.disagree)
        out.append(f"{q.label} DEPENDS ON THE PLAYERS: the answers ({answers}) disagree beyond their intervals: "
                   f"{parts}.")
    agree = [q.label for q in qs if not q.disagree]
    if agree:
        out.append("No detectable difference between the player mixes' answers at this size (which is not proof "
                   "that they agree: the intervals in the table below say how large a difference could still be) "
                   "on: " + "; ".join(agree) + ".")
    return out


FIGURE_PANELS = 6  # questions drawn: those whose answers disagree first, then seat 0's; the table has all


def section(ctx: Context) -> Section | None:
    qs = questions(ctx)
    if not qs:
        return None
    sec = Section(key=ctx.key(KEY), title=ctx.title("Do the verdicts depend on the players?"), notes=list(NOTES))
    sec.verdicts = _verdicts(qs)
    sec.data = {"questions": [{
        "question": q.label, "share": q.share,
        "answers": [{"mix": a.mix, **a.estimate.to_dict()} for a in q.answers],
        "differences": [{"mix_a": d.mix_a, "mix_b": d.mix_b, **d.estimate.to_dict(), **d.claim.to_dict()}
                        for d in q.differences],
        "players_matter": bool(q.disagree)} for q in qs]}
    # each mix's answer is the first-player or variant section's own number, drawn in the figure:
    # folded here; what this section adds is the differences between mixes
    sec.tables.append(Table("The same question under each player mix", ["question", "player mix", "estimate (95%)"],
                            [[q.label, a.mix, _fmt(a.estimate, a.share)] for q in qs for a in q.answers],
                            note="shares in percentage points; seat 0's edge is its share minus the fair share; a "
                                 "variant's effect is variant minus baseline, paired on the game index", fold=True))
    one = len(qs) == 1  # one question: named in the title, not on every row
    shares = all(q.share for q in qs)  # all in percentage points: said once, in the header
    cell = (lambda est, share: text.points_cell(est)) if shares else _fmt
    sec.tables.append(Table("Differences between player mixes" + (f": {qs[0].label}" if one else ""),
                            ([] if one else ["question"])
                            + ["mixes", "difference, percentage points (95%)" if shares else "difference (95%)",
                               "adjusted p", "answers"],
                            [([] if one else [q.label]) + [f"{d.mix_b} minus {d.mix_a}", cell(d.estimate, q.share),
                              text.p_value(d.claim.adjusted, bare=True), "disagree" if d.claim.detected else "no detectable difference"]
                             for q in qs for d in q.differences],
                            note=f"paired on the game index; adjusted p: {ctx.family.name} over the report's claims"))
    shown = sorted(qs, key=lambda q: (not q.disagree, not q.label.startswith("seat 0")))[:FIGURE_PANELS]
    frame = pl.DataFrame([{"question": q.label, "mix": a.mix, "value": a.estimate.value, "lo": a.estimate.lo,
                           "hi": a.estimate.hi, "share": a.share} for q in shown for a in q.answers])
    more = f"; {len(qs) - len(shown)} more in the table" if len(qs) > len(shown) else ""
    sec.figures.append(plots.forest(frame, "mix", "value", "lo", "hi", panel="question", ref=0.0, percent="share",
                                    title=f"The same question under each player mix (95% intervals{more})"))
    return sec
