"""The questions a report answers first: the study's own ``questions`` (study.json, validated by
sim/questions.py when the study was made) or, without any, the ones its design implies.

Implied questions: arms that differ in one rule, or in one player parameter at every seat, are
``compare`` questions (baseline = the lower value); arms that seat different players are a
``players`` question per set-up; a game with a single arm is a ``fairness`` question; a game whose
arms pair with nothing (different player counts, say) gets one ``fairness`` question over them; a
sweep over a numeric parameter asks which value makes seat 0 fair (``target`` seat0_edge = 0).

A ``target`` question over a sweep is answered once per curve: per crossed arm and per value of the
sweep's other parameter (``curves``).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from reports.dataset import Dataset
from reports.measures import DEFAULT_COMPARE
from reports.text import rule_value

FAIRNESS_MEASURES = ("seat0_edge", "balance")


@dataclass(frozen=True)
class Question:
    kind: str
    arms: tuple[str, ...] = ()
    measures: tuple[str, ...] = ()
    title: str = ""
    measure: str = ""
    target: float | None = None
    parameter: str = ""
    sweep: str = ""
    inferred: bool = False
    number: int = 0  # 1-based position in the report
    extra: dict = field(default_factory=dict, compare=False)

    @classmethod
    def from_dict(cls, raw: dict, number: int, inferred: bool = False) -> "Question":
        return cls(kind=raw["kind"], arms=tuple(raw.get("arms") or ()), measures=tuple(raw.get("measures") or ()),
                   title=raw.get("title", ""), measure=raw.get("measure", ""), target=raw.get("target"),
                   parameter=raw.get("parameter", ""), sweep=raw.get("sweep", ""), inferred=inferred,
                   number=number)

    def to_dict(self) -> dict:
        out = {"kind": self.kind, "arms": list(self.arms)}
        if self.measures:
            out["measures"] = list(self.measures)
        for key in ("title", "measure", "target", "parameter", "sweep"):
            if getattr(self, key) not in ("", None):
                out[key] = getattr(self, key)
        return {**out, "inferred": self.inferred}


def study_questions(dataset: Dataset) -> list[Question]:
    """The study's questions, or the implied ones (each marked ``inferred``), a sweep's target
    question once per curve, numbered in order."""
    raw = dataset.study.get("questions") or []
    asked = [Question.from_dict(q, 0) for q in raw] if raw else implied(dataset)
    out = [c for q in asked for c in (per_curve(dataset, q) if q.sweep else [q])]
    return [Question(**{**q.__dict__, "number": i}) for i, q in enumerate(out, 1)]


def curves(sweep: dict, parameter: str) -> list[tuple[str, list[dict]]]:
    """A sweep's points along ``parameter`` (study.json's record), one curve per crossed arm and
    value of the other parameter: [(label, points in the grid's order)]; label '' for one curve."""
    k = sweep["parameters"].index(parameter)
    others = [p for j, p in enumerate(sweep["parameters"]) if j != k]
    groups: dict[tuple, list[dict]] = {}
    for point in sweep["points"]:
        rest = tuple(repr(point["at"][o]) for o in others)
        groups.setdefault((point["base"], rest), []).append(point)
    out = []
    for (base, _), points in groups.items():
        points.sort(key=lambda p: sweep["values"][k].index(p["at"][parameter]))
        first = points[0]["at"]
        label = ", ".join([base] * bool(base) + [f"{o}={rule_value(first[o])}" for o in others])
        out.append((label, points))
    return out


def per_curve(dataset: Dataset, q: Question) -> list[Question]:
    sweep = dataset.sweep(q.sweep)
    out = []
    for label, points in curves(sweep, q.parameter):
        out.append(Question(**{**q.__dict__, "arms": tuple(p["arm"] for p in points),
                               "extra": {"curve": label, "at": [p["at"][q.parameter] for p in points]}}))
    return out


def implied(dataset: Dataset) -> list[Question]:
    out: list[Question] = []
    for sweep in dataset.sweeps:
        numeric = [p for p, values in zip(sweep["parameters"], sweep["values"])
                   if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values)]
        if numeric:
            out.append(Question("target", measure="seat0_edge", target=0.0, parameter=numeric[0],
                                sweep=sweep["name"], inferred=True))
    swept = {p["arm"] for sweep in dataset.sweeps for p in sweep["points"]}
    for game in dataset.game_names:
        arms = dataset.arms_of(game)
        paired: set[str] = set()
        for pair in dataset.variant_pairs(game):
            if len(pair.changes) == 1:
                out.append(Question("compare", (pair.a.name, pair.b.name), DEFAULT_COMPARE, inferred=True))
                paired |= {pair.a.name, pair.b.name}
        for group in dataset.policy_groups(game):
            if all(a.name in swept for a in group):
                continue  # a sweep's points: its curve answers for them
            out.append(Question("players", tuple(a.name for a in group), inferred=True))
            paired |= {a.name for a in group}
        lone = [a.name for a in arms if a.name not in paired | swept]
        if lone and (len(arms) == 1 or len(lone) == len(arms) or not out):
            out.append(Question("fairness", tuple(lone), FAIRNESS_MEASURES, inferred=True))
    return out
