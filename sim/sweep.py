"""Sweeps: a ``[[sweep]]`` table of a study file varies one or two parameters over a grid and is
expanded into ordinary arms.

A sweep is either an arm template of its own (the keys of an ``[[arm]]``: game, players, policy or
seats, rules, data) or ``arms = [...]``, which crosses the grid with those ``[[arm]]`` tables: every
named arm is played at every grid point. ``vary`` names the parameters and their values, a list or a
range ``{ from = 25, to = 40, step = 1 }``:

- a rule (``threshold``);
- a player parameter, at every seat whose policy has it (``sabotage``), or at one seat
  (``seat0.bluff``).

The expanded arms play the study's games 0..N-1 like every arm, so point k and point k+1 see the
same deals (docs/pairing.md): the curve is smooth and differences along it are narrow. The sweep's
own record (its parameters, values and which arm is which point) changes no row: study.json keeps it
beside the arms, outside the fingerprint, and the report draws the curves from it.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from itertools import product
from typing import Any

from sim.errors import SpecError
from sim.params import Param

MAX_PARAMETERS = 2
MAX_POINTS = 400  # grid points of one sweep (times its base arms): a bigger grid wants [[search]]
_SEAT_RE = re.compile(r"^seat(\d{1,2})\.([a-z][a-z0-9_]*)$")
_UNSAFE = re.compile(r"[^A-Za-z0-9_.]+")


@dataclass(frozen=True)
class Target:
    """What a swept parameter changes: a rule, or a player parameter at some seats (None = every
    seat whose policy has it)."""

    name: str  # as written in ``vary``: "threshold", "sabotage", "seat0.bluff"
    param: Param
    rule: bool
    seat: int | None = None

    def apply(self, rules: dict, seats: list[dict], value, has) -> None:
        """Set the value in ``rules`` or in the seats' parameters (only at the seats whose policy has
        the parameter: ``has(seat_index)``)."""
        if self.rule:
            rules[self.param.name] = value
            return
        for s, seat in enumerate(seats):
            if (self.seat is None or s == self.seat) and has(s):
                seat[self.param.name] = value


@dataclass(frozen=True)
class Point:
    arm: str  # the expanded arm's name
    base: str  # the [[arm]] it was made from ("" for the sweep's own template)
    at: tuple[tuple[str, Any], ...]  # (parameter, value) for every swept parameter

    def to_dict(self) -> dict:
        return {"arm": self.arm, "base": self.base, "at": dict(self.at)}


@dataclass(frozen=True)
class Sweep:
    name: str
    parameters: tuple[str, ...]
    values: tuple[tuple[Any, ...], ...]  # per parameter, its grid values in order
    bases: tuple[str, ...]  # the [[arm]] tables crossed with the grid; ("",) for its own template
    points: tuple[Point, ...]

    def to_dict(self) -> dict:
        return {"name": self.name, "parameters": list(self.parameters),
                "values": [list(v) for v in self.values], "bases": list(self.bases),
                "points": [p.to_dict() for p in self.points]}

    @classmethod
    def from_dict(cls, data: dict) -> Sweep:
        return cls(data["name"], tuple(data["parameters"]), tuple(tuple(v) for v in data["values"]),
                   tuple(data["bases"]), tuple(Point(p["arm"], p["base"], tuple(p["at"].items()))
                                               for p in data["points"]))


def _show(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return f"{value:g}" if isinstance(value, float) else str(value)


# -- reading a [[sweep]] table --------------------------------------------------------------------------
def target_of(info, seats_policies: tuple[str, ...], name) -> Target:
    """The rule or player parameter ``name`` of a ``vary`` table names, checked against the game and
    the arm's policies."""
    if not isinstance(name, str):
        raise SpecError(f"vary: {name!r} is not a parameter name")
    seat_match = _SEAT_RE.match(name)
    seat, pname = (int(seat_match.group(1)), seat_match.group(2)) if seat_match else (None, name)
    rule = next((p for p in info.rules if p.name == pname), None)
    player = next((p for p in info.player_params if p.name == pname), None)
    if seat is None and rule is not None:
        if player is not None:
            raise SpecError(f"vary: {name!r} is both a rule and a player parameter of {info.name}: "
                            f"write seat0.{name} (and so on) for the player's")
        return Target(name, rule, True)
    if player is None:
        known = [p.name for p in info.rules] + [p.name for p in info.player_params]
        raise SpecError(f"vary: {info.name} has no rule or player parameter {pname!r} (known: {', '.join(known)})")
    having = [s for s, pol in enumerate(seats_policies)
              if any(p.name == pname for p in info.policy(pol).params)]
    if seat is not None and seat >= len(seats_policies):
        raise SpecError(f"vary: {name!r}: there is no seat {seat} at a table of {len(seats_policies)}")
    if (seat is not None and seat not in having) or not having:
        who = f"seat {seat}'s policy {seats_policies[seat]!r}" if seat is not None else "no seat's policy"
        raise SpecError(f"vary: {name!r}: {who} has the player parameter {pname!r}")
    return Target(name, player, False, seat)


def grid_values(name: str, param: Param, raw) -> tuple:
    """The values of one ``vary`` entry: a list, or a range table {from, to, step}."""
    where = f"vary {name}"
    if isinstance(raw, dict):
        unknown = set(raw) - {"from", "to", "step"}
        if unknown:
            raise SpecError(f"{where}: unknown key {sorted(unknown)[0]!r} (allowed: from, to, step)")
        if param.kind not in ("int", "float"):
            raise SpecError(f"{where}: a range needs a numeric parameter; {param.name} is {param.type_text()}: "
                            "give a list")
        for key in ("from", "to"):
            if key not in raw:
                raise SpecError(f"{where}: a range needs {key} (from = A, to = B, step = S)")
        if param.kind == "float" and "step" not in raw:
            raise SpecError(f"{where}: a range of a fractional parameter needs step")
        start, stop = (param.parse(raw[k], f"{where}: ", typed=True) for k in ("from", "to"))
        step = raw.get("step", 1)
        if isinstance(step, bool) or not isinstance(step, (int, float)) or not step > 0 or (
                param.kind == "int" and not isinstance(step, int)):
            raise SpecError(f"{where}: step={step!r}: expected a positive "
                            f"{'whole number' if param.kind == 'int' else 'number'}")
        if stop < start:
            raise SpecError(f"{where}: from={start} is above to={stop}")
        count = int(math.floor((stop - start) / step + 1e-9)) + 1
        if count > MAX_POINTS:
            raise SpecError(f"{where}: {count} values; a sweep takes at most {MAX_POINTS} points")
        values = [start + i * step for i in range(count)]
        values = [round(v, 12) for v in values] if param.kind == "float" else values
    elif isinstance(raw, list):
        values = [param.parse(v, f"{where}: ", typed=True) for v in raw]
    else:
        raise SpecError(f"{where}={raw!r}: expected a list of values or {{ from = A, to = B, step = S }}")
    if len(values) < 2:
        raise SpecError(f"{where}: a sweep needs two or more values")
    if len(set(map(repr, values))) != len(values):
        raise SpecError(f"{where}: a value is given twice ({values})")
    return tuple(values)


def _has(arm, seat: int, name: str) -> bool:
    """Whether the policy at ``seat`` of ``arm`` reads the player parameter ``name``."""
    return any(p.name == name for p in arm.info.policy(arm.seats[seat].policy).params)


def point_name(sweep: str, base: str, values) -> str:
    parts = [sweep] + [base] * bool(base) + [_UNSAFE.sub("_", _show(v)) for v in values]
    return "-".join(parts)


def expand(name: str, vary, bases: list[tuple[str, Any]], make_arm) -> tuple[Sweep, list]:
    """A sweep and its arms. ``bases``: (name, ArmSpec) it starts from: the named [[arm]] tables, or
    ('', its own template); ``make_arm(name, base, rules, seats)`` builds and validates one arm."""
    base_arms = [arm for _, arm in bases]
    if not isinstance(vary, dict) or not vary:
        raise SpecError("needs vary = { PARAMETER = [VALUES] } (one or two parameters)")
    if len(vary) > MAX_PARAMETERS:
        raise SpecError(f"vary names {len(vary)} parameters; a sweep varies one or two "
                        "(more at once is a [[search]])")
    first = base_arms[0]
    for arm in base_arms[1:]:
        if arm.game != first.game:
            raise SpecError(f"arms {first.name!r} and {arm.name!r} play different games: a sweep is over one game")
    targets, grids = [], []
    for key, raw_values in vary.items():
        for arm in base_arms:
            target = target_of(arm.info, arm.policies, key)
        targets.append(target)
        grids.append(grid_values(key, target.param, raw_values))
    if math.prod(map(len, grids)) * len(bases) > MAX_POINTS:
        raise SpecError(f"{math.prod(map(len, grids)) * len(bases)} arms; a sweep makes at most {MAX_POINTS} "
                        "(a bigger grid wants [[search]])")
    points, arms = [], []
    for label, base in bases:
        for values in product(*grids):
            rules = dict(base.rules)
            seats = [{"policy": s.policy, **dict(s.params)} for s in base.seats]
            for target, value in zip(targets, values):
                target.apply(rules, seats, value, lambda s, t=target, b=base: _has(b, s, t.param.name))
            arm_name = point_name(name, label, values)
            arms.append(make_arm(arm_name, base, rules, seats))
            points.append(Point(arm_name, label, tuple((t.name, v) for t, v in zip(targets, values))))
    sweep = Sweep(name, tuple(t.name for t in targets), tuple(grids), tuple(label for label, _ in bases),
                  tuple(points))
    return sweep, arms
