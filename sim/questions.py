"""A study's questions: the ``[[question]]`` tables of a study file, validated against its arms.

A question names what the report must answer first: ``fairness`` (is an arm fair to every seat?),
``compare`` (does arm B change these measures against arm A, overall and seat by seat?),
``players`` (which player is stronger, seat-adjusted?) and ``target`` (which value of a parameter
that varies over the arms makes a measure hit a target?). Questions change no row: they are kept in
study.json beside the arms but left out of the study's fingerprint. Answering them is the report's
job (reports/answers.py).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from sim.errors import SpecError

KINDS = ("fairness", "compare", "players", "target")
_KEYS = {
    "fairness": {"kind", "title", "arms", "measures"},
    "compare": {"kind", "title", "arms", "measures"},
    "players": {"kind", "title", "arms"},
    "target": {"kind", "title", "arms", "sweep", "measure", "target", "parameter"},
}
MAX_TITLE = 80


@dataclass(frozen=True)
class Question:
    kind: str
    arms: tuple[str, ...] = ()  # () = every arm the kind applies to
    measures: tuple[str, ...] = ()  # () = the kind's default measures
    title: str = ""  # short name shown before the answer ("John Knut")
    measure: str = ""  # target: the measure brought to the target
    target: float | None = None
    parameter: str = ""  # target: the rule or player parameter that varies ("" = the one that does)
    sweep: str = ""  # target: the [[sweep]] whose points are the values (instead of arms)

    def to_dict(self) -> dict:
        out: dict[str, Any] = {"kind": self.kind}
        for key in ("title", "arms", "sweep", "measures", "measure", "target", "parameter"):
            value = getattr(self, key)
            if value not in ("", (), None):
                out[key] = list(value) if isinstance(value, tuple) else value
        return out


def _names(where: str, key: str, value) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise SpecError(f"{where}: {key}={value!r}: expected a list of names")
    dupes = sorted({v for v in value if value.count(v) > 1})
    if dupes:
        raise SpecError(f"{where}: {key} names {dupes[0]!r} twice")
    return tuple(value)


def make_question(number: int, raw, arms, sweeps=()) -> Question:
    """Validate one ``[[question]]`` table against the study's arms (ArmSpec objects) and sweeps."""
    where = f"question {number}"
    if not isinstance(raw, dict):
        raise SpecError(f"{where} must be a table, not {raw!r}")
    kind = raw.get("kind")
    if kind not in KINDS:
        raise SpecError(f"{where}: kind={kind!r}: expected one of {', '.join(KINDS)}")
    where = f"question {number} ({kind})"
    for key in raw:
        if key not in _KEYS[kind]:
            raise SpecError(f"{where}: unknown key {key!r} (allowed: {', '.join(sorted(_KEYS[kind]))})")
    title = raw.get("title", "")
    if not isinstance(title, str) or len(title) > MAX_TITLE or "\n" in title:
        raise SpecError(f"{where}: title must be one line of at most {MAX_TITLE} characters")
    by_name = {a.name: a for a in arms}
    names = _names(where, "arms", raw["arms"]) if "arms" in raw else ()
    for name in names:
        if name not in by_name:
            raise SpecError(f"{where}: no arm {name!r} (arms: {', '.join(by_name)})")
    chosen = [by_name[n] for n in names] or list(arms)
    measures = _names(where, "measures", raw["measures"]) if "measures" in raw else ()

    if kind == "compare":
        if len(names) != 2:
            raise SpecError(f"{where}: arms must name two arms, the baseline first, not {list(names)}")
        if chosen[0].game != chosen[1].game:
            raise SpecError(f"{where}: arms {names[0]!r} and {names[1]!r} play different games")
    if kind == "players":
        labels = {label for a in chosen for label in a.labels}
        if len(labels) < 2:
            raise SpecError(f"{where}: every seat of {'these arms' if names else 'the study'} has the same "
                            "player: there is no player to compare")
    _check_measures(where, measures, chosen)

    question = Question(kind=kind, arms=names, measures=measures, title=title)
    if kind == "target" and "sweep" in raw:
        return _sweep_target(where, raw, question, arms, sweeps)
    if kind == "target":
        question = _target(where, raw, question, chosen)
    return question


def _check_measures(where: str, measures, arms) -> None:
    from reports.measures import names as measure_names

    for game in dict.fromkeys(a.game for a in arms):
        known = measure_names(game)
        for name in measures:
            if name not in known:
                raise SpecError(f"{where}: {game} has no measure {name!r} (measures: {', '.join(known)}; "
                                f"`kaartlab games {game}` describes them)")


def _measure_and_target(where: str, raw: dict, arms) -> tuple[str, float]:
    measure = raw.get("measure")
    if not isinstance(measure, str):
        raise SpecError(f"{where}: needs measure = \"NAME\" (the measure brought to the target)")
    _check_measures(where, (measure,), arms)
    target = raw.get("target")
    if isinstance(target, bool) or not isinstance(target, (int, float)) or not math.isfinite(target):
        raise SpecError(f"{where}: target={target!r}: expected a number (a share as 0.25, a count as 40)")
    return measure, float(target)


def _sweep_target(where: str, raw: dict, question: Question, arms, sweeps) -> Question:
    """A target over a [[sweep]]: the parameter is the sweep's (named when it varies two); the
    report answers it once per curve (per crossed arm and value of the other parameter)."""
    if question.arms:
        raise SpecError(f"{where}: give either sweep or arms, not both")
    by_name = {w.name: w for w in sweeps}
    sweep = by_name.get(raw["sweep"]) if isinstance(raw["sweep"], str) else None
    if sweep is None:
        raise SpecError(f"{where}: no sweep {raw['sweep']!r} (sweeps: {', '.join(by_name) or 'none'})")
    swept = {a.name: a for a in arms}
    measure, target = _measure_and_target(where, raw, [swept[p.arm] for p in sweep.points[:1]])
    parameter = raw.get("parameter", "")
    if not parameter:
        if len(sweep.parameters) != 1:
            raise SpecError(f"{where}: sweep {sweep.name!r} varies {' and '.join(sweep.parameters)}: "
                            "name the one to solve for (parameter = ...)")
        parameter = sweep.parameters[0]
    if parameter not in sweep.parameters:
        raise SpecError(f"{where}: parameter={parameter!r}: sweep {sweep.name!r} varies "
                        f"{', '.join(sweep.parameters)}")
    values = sweep.values[sweep.parameters.index(parameter)]
    if any(isinstance(v, bool) or not isinstance(v, (int, float)) for v in values):
        raise SpecError(f"{where}: parameter {parameter!r} is not numeric ({list(values)}): "
                        "a target needs a numeric parameter")
    return Question(kind="target", title=question.title, measure=measure, target=target,
                    parameter=parameter, sweep=sweep.name)


def _target(where: str, raw: dict, question: Question, arms) -> Question:
    measure, target = _measure_and_target(where, raw, arms)
    if len(arms) < 2 or len({a.game for a in arms}) > 1:
        raise SpecError(f"{where}: needs two or more arms of one game (the values of the parameter)")
    varying = _varying_parameters(arms)
    parameter = raw.get("parameter", "")
    if parameter:
        if not isinstance(parameter, str) or parameter not in varying:
            raise SpecError(f"{where}: parameter={parameter!r} does not vary over the arms "
                            f"(what varies: {', '.join(varying) or 'nothing'})")
    elif len(varying) != 1:
        raise SpecError(f"{where}: the arms differ in {', '.join(varying) or 'nothing'}: a target question needs "
                        "arms that differ in one numeric rule or player parameter (or name it: parameter = ...)")
    else:
        parameter = varying[0]
    values = [parameter_value(a, parameter) for a in arms]
    if any(isinstance(v, bool) or not isinstance(v, (int, float)) for v in values):
        raise SpecError(f"{where}: parameter {parameter!r} is not numeric over these arms ({values})")
    if len(set(values)) != len(values):
        raise SpecError(f"{where}: two arms have the same {parameter}={values}")
    return Question(kind="target", arms=question.arms, title=question.title, measure=measure,
                    target=float(target), parameter=parameter)


def parameter_value(arm, name: str):
    """A rule's value, or a player parameter's value when every seat has the same one."""
    rules = arm.rule_values
    if name in rules:
        return rules[name]
    values = {dict(s.params).get(name) for s in arm.seats}
    return values.pop() if len(values) == 1 else None


def _varying_parameters(arms) -> list[str]:
    rules = [k for k in arms[0].rule_values if len({repr(a.rule_values.get(k)) for a in arms}) > 1]
    params = list(dict.fromkeys(k for a in arms for s in a.seats for k, _ in s.params))
    players = [k for k in params if len({repr(parameter_value(a, k)) for a in arms}) > 1]
    return rules + players


def make_questions(raw, arms, sweeps=()) -> tuple[Question, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise SpecError(f"question must be [[question]] tables, not {raw!r}")
    return tuple(make_question(i, q, arms, sweeps) for i, q in enumerate(raw, 1))


def check_description(value) -> str:
    if not isinstance(value, str):
        raise SpecError(f"description must be text, not {type(value).__name__}")
    if len(value) > 2000:
        raise SpecError("description is longer than 2,000 characters")
    return value.strip()
