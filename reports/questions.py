"""The questions a report answers first: the study's own ``questions`` (study.json, validated by
sim/questions.py when the study was made) or, without any, the ones its design implies.

Implied questions: arms that differ in one rule, or in one player parameter at every seat, are
``compare`` questions (baseline = the lower value); arms that seat different players are a
``players`` question per set-up; a game with a single arm is a ``fairness`` question; a game whose
arms pair with nothing (different player counts, say) gets one ``fairness`` question over them.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from reports.dataset import Dataset
from reports.measures import DEFAULT_COMPARE

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
    inferred: bool = False
    number: int = 0  # 1-based position in the report
    extra: dict = field(default_factory=dict, compare=False)

    @classmethod
    def from_dict(cls, raw: dict, number: int, inferred: bool = False) -> "Question":
        return cls(kind=raw["kind"], arms=tuple(raw.get("arms") or ()), measures=tuple(raw.get("measures") or ()),
                   title=raw.get("title", ""), measure=raw.get("measure", ""), target=raw.get("target"),
                   parameter=raw.get("parameter", ""), inferred=inferred, number=number)

    def to_dict(self) -> dict:
        out = {"kind": self.kind, "arms": list(self.arms)}
        if self.measures:
            out["measures"] = list(self.measures)
        for key in ("title", "measure", "target", "parameter"):
            if getattr(self, key) not in ("", None):
                out[key] = getattr(self, key)
        return {**out, "inferred": self.inferred}


def study_questions(dataset: Dataset) -> list[Question]:
    """The study's questions, or the implied ones (each marked ``inferred``)."""
    raw = dataset.study.get("questions") or []
    if raw:
        return [Question.from_dict(q, i) for i, q in enumerate(raw, 1)]
    return implied(dataset)


def implied(dataset: Dataset) -> list[Question]:
    out: list[Question] = []
    for game in dataset.game_names:
        arms = dataset.arms_of(game)
        paired: set[str] = set()
        for pair in dataset.variant_pairs(game):
            if len(pair.changes) == 1:
                out.append(Question("compare", (pair.a.name, pair.b.name), DEFAULT_COMPARE, inferred=True))
                paired |= {pair.a.name, pair.b.name}
        for group in dataset.policy_groups(game):
            out.append(Question("players", tuple(a.name for a in group), inferred=True))
            paired |= {a.name for a in group}
        lone = [a.name for a in arms if a.name not in paired]
        if lone and (len(arms) == 1 or len(lone) == len(arms) or not out):
            out.append(Question("fairness", tuple(lone), FAIRNESS_MEASURES, inferred=True))
    return [Question(**{**q.__dict__, "number": i}) for i, q in enumerate(out, 1)]
