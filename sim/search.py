"""Searches: a ``[[search]]`` table of a study file looks for the setting of two or more parameters
that brings a measure to its best (or to a target) under constraints on other measures, when a grid
of every combination would be too big for a ``[[sweep]]``.

A search is an arm template (the keys of an ``[[arm]]``, with ``[defaults]``) and:

- ``vary``: the parameters and their ranges: ``{ from = A, to = B }`` (a whole-number or fractional
  range; ``step`` and ``log = true`` optional) or a list of values; a rule, a player parameter at every
  seat whose policy has it, or at one seat (``seat0.bluff``), as in a sweep;
- ``objective``: ``{ measure = "balance", goal = "maximise" }`` (or ``"minimise"``), or
  ``{ measure = "seat0_edge", target = 0.0 }`` (bring it as close to the target as possible); a list
  of two such tables asks for the trade-off between them (a front);
- ``constraints``: ``[{ measure = "turns", at_most = 60 }]`` (``at_least``, or both);
- ``trials`` (candidate settings to evaluate), ``games`` (the first look at each candidate),
  ``max_games`` (what racing may give a close candidate), ``final_games`` (the best setting re-played
  on games no candidate played), ``parallel`` (candidates proposed per round) and ``sampler``.

The candidates become ordinary arms (``<search>-001``, ...) that the pipeline plays like any arm;
pipelines/search.py runs the optimiser and the racing, docs/search.md says how. This module holds what
a user names and the rules that decide on the numbers (losses, constraints, which candidate is close),
free of files and of the optimiser, so they can be tested on constructed numbers.
"""
from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass, field
from typing import Any

from sim.errors import SpecError

GOALS = {"maximise": "maximise", "maximize": "maximise", "max": "maximise",
         "minimise": "minimise", "minimize": "minimise", "min": "minimise"}
SAMPLERS = ("tpe", "random")
MAX_OBJECTIVES = 2
MAX_TRIALS = 1000
MAX_PARALLEL = 64
MAX_FRONT = 5  # front members re-played on fresh games when there are two objectives
NOT_SCALAR = {"seat_share": "every seat's win share (name seat0_edge or balance)"}
SEARCH_KEYS = {"name", "vary", "objective", "constraints", "trials", "games", "max_games", "final_games",
               "parallel", "sampler"}


# -- what a user names ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Dimension:
    """One varied parameter: a whole-number or fractional range, or a list of values."""

    key: str  # as written in ``vary``: "target", "risk", "seat0.bluff"
    kind: str  # "int", "float" or "choice" (a list of values, any type)
    low: Any = None
    high: Any = None
    step: Any = None
    log: bool = False
    choices: tuple = ()

    def to_dict(self) -> Any:
        if self.kind == "choice":
            return list(self.choices)
        out = {"from": self.low, "to": self.high}
        if self.step is not None:
            out["step"] = self.step
        if self.log:
            out["log"] = True
        return out

    def size(self) -> float:
        """How many values it can take (inf for a fractional range without a step)."""
        if self.kind == "choice":
            return len(self.choices)
        if self.kind == "int":
            return (self.high - self.low) // (self.step or 1) + 1
        return math.floor((self.high - self.low) / self.step + 1e-9) + 1 if self.step else math.inf

    def show(self) -> str:
        if self.kind == "choice":
            return "{" + ", ".join(show_value(v) for v in self.choices) + "}"
        step = f" step {show_value(self.step)}" if self.step is not None else ""
        return f"{show_value(self.low)}..{show_value(self.high)}{step}{' (log)' if self.log else ''}"


@dataclass(frozen=True)
class Objective:
    measure: str
    goal: str  # "maximise", "minimise" or "target"
    target: float | None = None

    def to_dict(self) -> dict:
        return ({"measure": self.measure, "target": self.target} if self.goal == "target"
                else {"measure": self.measure, "goal": self.goal})

    def describe(self) -> str:
        if self.goal == "target":
            return f"{self.measure} as close to {show_value(self.target)} as possible"
        return f"{self.goal} {self.measure}"


@dataclass(frozen=True)
class Constraint:
    measure: str
    at_most: float | None = None
    at_least: float | None = None

    def to_dict(self) -> dict:
        out = {"measure": self.measure}
        if self.at_most is not None:
            out["at_most"] = self.at_most
        if self.at_least is not None:
            out["at_least"] = self.at_least
        return out

    def describe(self) -> str:
        parts = []
        if self.at_least is not None:
            parts.append(f"at least {show_value(self.at_least)}")
        if self.at_most is not None:
            parts.append(f"at most {show_value(self.at_most)}")
        return f"{self.measure} {' and '.join(parts)}"


@dataclass(frozen=True)
class SearchSpec:
    name: str
    base: Any  # the ArmSpec every candidate starts from (its name is the search's)
    vary: tuple[Dimension, ...]
    objectives: tuple[Objective, ...]
    constraints: tuple[Constraint, ...] = ()
    trials: int = 24
    games: int = 2000
    max_games: int = 16000
    final_games: int = 20000
    parallel: int = 4
    sampler: str = "tpe"
    targets: tuple = field(default=(), compare=False, repr=False)  # sim.sweep.Target per dimension

    # -- arms ---------------------------------------------------------------------------------
    def arm_name(self, number: int) -> str:
        return f"{self.name}-{number:03d}"

    @property
    def final_names(self) -> tuple[str, ...]:
        """The arms that re-play the result on fresh games: one, or one per front member."""
        if len(self.objectives) == 1:
            return (f"{self.name}-best",)
        return tuple(f"{self.name}-front-{k}" for k in range(1, MAX_FRONT + 1))

    @property
    def fresh_first(self) -> int:
        """The first game index no candidate plays: candidates play games 0..max_games-1."""
        return self.max_games

    def candidate_batch(self, batch_size: int) -> int:
        """The batch size of candidate arms: every stage of racing (games, 2 games, ..., max_games)
        is then a whole number of batches, so a candidate's games grow by adding batch files and no
        stored file is ever replaced."""
        step = math.gcd(self.games, self.max_games)  # = games: max_games is a multiple of it
        if step <= batch_size:
            return step
        divisors = {d for k in range(1, math.isqrt(step) + 1) if step % k == 0 for d in (k, step // k)}
        return max(d for d in divisors if d <= batch_size)

    def arm(self, name: str, params: dict):
        """The candidate arm for ``params`` ({dimension key: value}), validated like any arm."""
        from sim.spec import ArmSpec

        rules = dict(self.base.rules)
        seats = [{"policy": s.policy, **dict(s.params)} for s in self.base.seats]
        info = self.base.info
        for dim, target in zip(self.vary, self.targets):
            pname, value = target.param.name, params[dim.key]
            if target.rule:
                rules[pname] = value
                continue
            for s, seat in enumerate(seats):  # at the seats whose policy has it (or the one named)
                if (target.seat is None or s == target.seat) and any(
                        p.name == pname for p in info.policy(seat["policy"]).params):
                    seat[pname] = value
        return ArmSpec.make(self.base.game, self.base.players, rules, seats, name=name,
                            data={d.name: d for d in self.base.data}, typed=True, rotate=self.base.rotate,
                            luck=self.base.luck)

    def params_of(self, arm) -> dict:
        """The varied parameters' values in an arm made by ``arm``."""
        rules = dict(arm.rules)
        out = {}
        for dim, target in zip(self.vary, self.targets):
            if target.rule:
                out[dim.key] = rules[target.param.name]
            else:
                seat = target.seat if target.seat is not None else next(
                    s for s, st in enumerate(arm.seats) if target.param.name in dict(st.params))
                out[dim.key] = dict(arm.seats[seat].params)[target.param.name]
        return out

    def space_size(self) -> float:
        return math.prod(d.size() for d in self.vary)

    def sampler_seed(self, study_seed: int) -> int:
        """The optimiser's seed: from the study's seed and the search's name, so a rerun proposes the
        same candidates and two searches of one study do not."""
        digest = hashlib.sha256(f"kaartlab-search:{study_seed}:{self.name}".encode()).digest()
        return int.from_bytes(digest[:4], "little")

    def measures(self) -> tuple[str, ...]:
        """Every measure an evaluation needs, objectives first."""
        names = [o.measure for o in self.objectives] + [c.measure for c in self.constraints]
        return tuple(dict.fromkeys(names))

    # -- study.json -------------------------------------------------------------------------------
    def to_dict(self) -> dict:
        base = self.base.to_dict()
        base.pop("name", None)
        return {"name": self.name, "base": base, "vary": {d.key: d.to_dict() for d in self.vary},
                "objective": [o.to_dict() for o in self.objectives],
                "constraints": [c.to_dict() for c in self.constraints], "trials": self.trials,
                "games": self.games, "max_games": self.max_games, "final_games": self.final_games,
                "parallel": self.parallel, "sampler": self.sampler}

    @classmethod
    def from_dict(cls, data: dict, read=None) -> SearchSpec:
        """The search a study.json records (its base arm's data files read through ``read``)."""
        from sim.spec import ArmSpec

        base = ArmSpec.from_dict({**data["base"], "name": data["name"]}, read=read)
        table = {k: v for k, v in data.items() if k != "base"}
        return make_search(table, base)

    def describe(self) -> str:
        goal = "; ".join(o.describe() for o in self.objectives)
        cons = "; ".join(c.describe() for c in self.constraints)
        return (f"{self.base.describe()}; varies " + ", ".join(f"{d.key} {d.show()}" for d in self.vary)
                + f"; {goal}" + (f" with {cons}" if cons else "")
                + f"; {self.trials} candidates x {self.games:,} games (close ones up to {self.max_games:,}), "
                  f"the best re-played on {self.final_games:,} fresh games")


def show_value(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)


# -- reading a [[search]] table ---------------------------------------------------------------------------
def _count(key: str, value, lo: int, hi: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise SpecError(f"{key}={value!r}: expected a whole number (no quotes)")
    if not lo <= value <= hi:
        raise SpecError(f"{key}={value:,}: expected {lo:,}..{hi:,}")
    return value


def _number(key: str, value) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise SpecError(f"{key}={value!r}: expected a number (no quotes)")
    return float(value)


def _dimension(key: str, target, raw) -> Dimension:
    param = target.param
    where = f"vary {key}"
    if isinstance(raw, list):
        values = tuple(param.parse(v, f"{where}: ", typed=True) for v in raw)
        if len(values) < 2:
            raise SpecError(f"{where}: a list needs two or more values")
        if len(set(map(repr, values))) != len(values):
            raise SpecError(f"{where}: a value is given twice ({', '.join(map(show_value, values))})")
        return Dimension(key, "choice", choices=values)
    if not isinstance(raw, dict):
        raise SpecError(f"{where}={raw!r}: expected {{ from = A, to = B }} or a list of values")
    unknown = sorted(set(raw) - {"from", "to", "step", "log"})
    if unknown:
        raise SpecError(f"{where}: unknown key {unknown[0]!r} (allowed: from, to, step, log)")
    if param.kind not in ("int", "float"):
        raise SpecError(f"{where}: {param.name} is {param.type_text()}, not a number: give a list of values")
    for k in ("from", "to"):
        if k not in raw:
            raise SpecError(f"{where}: a range needs from and to ({{ from = A, to = B }})")
    low, high = (param.parse(raw[k], f"{where}: ", typed=True) for k in ("from", "to"))
    if param.kind == "float":
        low, high = float(low), float(high)
    if not low < high:
        raise SpecError(f"{where}: from={show_value(low)} must be below to={show_value(high)}")
    step = raw.get("step")
    if step is not None:
        if isinstance(step, bool) or not isinstance(step, (int, float)) or not step > 0 or (
                param.kind == "int" and not isinstance(step, int)):
            raise SpecError(f"{where}: step={step!r}: expected a positive "
                            f"{'whole number' if param.kind == 'int' else 'number'}")
        step = float(step) if param.kind == "float" else step
    log = raw.get("log", False)
    if not isinstance(log, bool):
        raise SpecError(f"{where}: log={log!r}: expected true or false")
    if log and (low <= 0 or step is not None):
        raise SpecError(f"{where}: log = true needs from above 0 and no step")
    return Dimension(key, param.kind, low, high, step, log)


def _measure(where: str, game: str, name) -> str:
    from reports.measures import names as measure_names

    known = measure_names(game)
    if not isinstance(name, str) or name not in known:
        raise SpecError(f"{where}: {game} has no measure {name!r} (measures: "
                        f"{', '.join(k for k in known if k not in NOT_SCALAR)}; `kaartlab games {game}` lists them)")
    if name in NOT_SCALAR:
        raise SpecError(f"{where}: {name} is {NOT_SCALAR[name]}, not one number to optimise")
    return name


def _objectives(game: str, raw) -> tuple[Objective, ...]:
    if raw is None:
        raise SpecError('needs objective = { measure = "balance", goal = "maximise" } '
                        '(or target = VALUE instead of goal)')
    tables = raw if isinstance(raw, list) else [raw]
    if not tables or len(tables) > MAX_OBJECTIVES:
        raise SpecError(f"objective: give one table, or a list of {MAX_OBJECTIVES} for a trade-off")
    out = []
    for number, table in enumerate(tables, 1):
        where = "objective" if len(tables) == 1 else f"objective {number}"
        if not isinstance(table, dict):
            raise SpecError(f"{where} must be a table like {{ measure = \"balance\", goal = \"maximise\" }}, "
                            f"not {table!r}")
        unknown = sorted(set(table) - {"measure", "goal", "target"})
        if unknown:
            raise SpecError(f"{where}: unknown key {unknown[0]!r} (allowed: goal, measure, target)")
        measure = _measure(where, game, table.get("measure"))
        if ("goal" in table) == ("target" in table):
            raise SpecError(f"{where}: give either goal = \"maximise\" / \"minimise\" or target = VALUE")
        if "target" in table:
            out.append(Objective(measure, "target", _number(f"{where}: target", table["target"])))
        else:
            goal = table["goal"]
            if goal not in GOALS:
                raise SpecError(f"{where}: goal={goal!r}: expected \"maximise\" or \"minimise\"")
            out.append(Objective(measure, GOALS[goal]))
    if len(out) == 2 and out[0].measure == out[1].measure:
        raise SpecError(f"objective: both objectives are {out[0].measure}")
    return tuple(out)


def _constraints(game: str, raw) -> tuple[Constraint, ...]:
    if raw is None:
        return ()
    tables = raw if isinstance(raw, list) else [raw]
    out = []
    for number, table in enumerate(tables, 1):
        where = f"constraints {number}"
        if not isinstance(table, dict):
            raise SpecError(f"{where} must be a table like {{ measure = \"turns\", at_most = 60 }}, not {table!r}")
        unknown = sorted(set(table) - {"measure", "at_most", "at_least"})
        if unknown:
            raise SpecError(f"{where}: unknown key {unknown[0]!r} (allowed: at_least, at_most, measure)")
        measure = _measure(where, game, table.get("measure"))
        if "at_most" not in table and "at_least" not in table:
            raise SpecError(f"{where}: needs at_most = VALUE or at_least = VALUE")
        most = _number(f"{where}: at_most", table["at_most"]) if "at_most" in table else None
        least = _number(f"{where}: at_least", table["at_least"]) if "at_least" in table else None
        if most is not None and least is not None and least > most:
            raise SpecError(f"{where}: at_least={show_value(least)} is above at_most={show_value(most)}")
        out.append(Constraint(measure, most, least))
    return tuple(out)


def make_search(raw: dict, base) -> SearchSpec:
    """A search from the search keys of its table (``raw``; arm keys already made into ``base``, an
    ArmSpec named after the search). Raises SpecError naming the key."""
    from sim.sweep import target_of

    name = base.name
    unknown = sorted(set(raw) - SEARCH_KEYS)
    if unknown:
        raise SpecError(f"unknown key {unknown[0]!r}")
    vary = raw.get("vary")
    if not isinstance(vary, dict) or not vary:
        raise SpecError("needs vary = { PARAMETER = { from = A, to = B }, ... } (one or more parameters)")
    dims, targets = [], []
    for key, values in vary.items():
        target = target_of(base.info, base.policies, key)
        dims.append(_dimension(key, target, values))
        targets.append(target)
    seen = {}
    for dim, target in zip(dims, targets):
        where = (target.param.name, target.rule, target.seat)
        if where in seen or (not target.rule and (target.param.name, False, None) in seen):
            raise SpecError(f"vary: {dim.key!r} and {seen.get(where, dim.key)!r} set the same parameter")
        seen[where] = dim.key
    objectives = _objectives(base.game, raw.get("objective"))
    constraints = _constraints(base.game, raw.get("constraints"))
    trials = _count("trials", raw.get("trials", 24), 1, MAX_TRIALS)
    games = _count("games", raw.get("games", 2000), 1, 10**9)
    max_games = _count("max_games", raw.get("max_games", 8 * games), games, 10**10)
    if max_games % games:
        raise SpecError(f"max_games={max_games:,} must be a multiple of games={games:,} (racing doubles a "
                        "close candidate's games: games, 2 x games, ... up to max_games)")
    final_games = _count("final_games", raw.get("final_games", max_games), 1, 10**10)
    parallel = _count("parallel", raw.get("parallel", 4), 1, MAX_PARALLEL)
    sampler = raw.get("sampler", "tpe")
    if sampler not in SAMPLERS:
        raise SpecError(f"sampler={sampler!r}: expected one of {', '.join(SAMPLERS)}")
    spec = SearchSpec(name, base, tuple(dims), objectives, constraints, trials, games, max_games, final_games,
                      parallel, sampler, tuple(targets))
    for dim in dims:  # every end of every range makes a valid arm (values that go together: check_arm)
        for value in ((dim.low, dim.high) if dim.kind != "choice" else dim.choices):
            probe = {d.key: (value if d is dim else (d.low if d.kind != "choice" else d.choices[0])) for d in dims}
            try:
                spec.arm(name, probe)
            except SpecError as exc:
                raise SpecError(f"vary {dim.key}={show_value(value)}: {exc}") from None
    return spec


def make_searches(raw_searches, make_base, arm_names) -> tuple[SearchSpec, ...]:
    """Every [[search]] table of a study file. ``make_base(number, table)`` makes the ArmSpec of a
    table's arm keys (with [defaults]); ``arm_names`` are the study's other arms, which a candidate's
    name must not take."""
    if not isinstance(raw_searches, list):
        raise SpecError(f"search must be [[search]] tables, not {raw_searches!r}")
    from sim.spec import _ARM_KEYS, check_name

    out: list[SearchSpec] = []
    for number, raw in enumerate(raw_searches, 1):
        if not isinstance(raw, dict):
            raise SpecError(f"search {number} must be a table, not {raw!r}")
        name = raw.get("name", f"search{number}")
        try:
            allowed = _ARM_KEYS | SEARCH_KEYS
            unknown = sorted(set(raw) - allowed)
            if unknown:
                raise SpecError(f"unknown key {unknown[0]!r} (allowed: {', '.join(sorted(allowed))})")
            check_name("search", name)
            if len(name) > 56:
                raise SpecError(f"name {name!r} is longer than 56 characters (its arms add '-front-5')")
            if name.lower() in {s.name.lower() for s in out}:
                raise SpecError("the name is used twice")
            clash = [a for a in arm_names if a.lower().startswith(f"{name.lower()}-") or a.lower() == name.lower()]
            if clash:
                raise SpecError(f"arm {clash[0]!r} takes a name of this search's arms ({name}-001, ..., "
                                f"{name}-best): rename one of them")
            arm_keys = {k: v for k, v in raw.items() if k not in SEARCH_KEYS}
            base = make_base(number, {**arm_keys, "name": name})
            out.append(make_search({k: v for k, v in raw.items() if k in SEARCH_KEYS and k != "name"}, base))
        except SpecError as exc:
            raise SpecError(f"search {name!r}: {exc}") from None
    return tuple(out)


# -- where a candidate's games lie --------------------------------------------------------------------------
@dataclass(frozen=True)
class Extent:
    """A search arm's own plan: ``games`` games from game index ``first``, in batches of
    ``batch_size``, and which search made it (``role``: "candidate" or "final")."""

    arm: str
    games: int
    first: int
    batch_size: int
    search: str
    role: str = "candidate"

    def to_dict(self) -> dict:
        return {"games": self.games, "first": self.first, "batch_size": self.batch_size,
                "search": self.search, "search_role": self.role}

    @classmethod
    def from_arm_dict(cls, data: dict) -> Extent | None:
        if "search" not in data:
            return None
        return cls(data["name"], data["games"], data.get("first", 0), data["batch_size"], data["search"],
                   data.get("search_role", "candidate"))


# -- deciding on the numbers ------------------------------------------------------------------------------
@dataclass(frozen=True)
class Level:
    """A measure's estimate on a candidate with its 95% interval."""

    value: float
    lo: float
    hi: float

    @property
    def known(self) -> bool:
        return all(math.isfinite(x) for x in (self.value, self.lo, self.hi))

    def to_dict(self) -> dict:
        return {"value": self.value, "lo": self.lo, "hi": self.hi}


UNKNOWN = Level(math.nan, -math.inf, math.inf)


def loss(objective: Objective, level: Level) -> Level:
    """The objective as a loss to minimise, with its interval: -x to maximise, x to minimise, the
    distance |x - target| to reach a target (0 at the low end when the target is inside)."""
    if not level.known:
        return Level(math.inf, -math.inf, math.inf) if objective.goal != "target" else Level(math.inf, 0.0, math.inf)
    if objective.goal == "maximise":
        return Level(-level.value, -level.hi, -level.lo)
    if objective.goal == "minimise":
        return level
    t = objective.target
    far = max(abs(level.lo - t), abs(level.hi - t))
    near = 0.0 if level.lo <= t <= level.hi else min(abs(level.lo - t), abs(level.hi - t))
    return Level(abs(level.value - t), near, far)


def violation(constraint: Constraint, value: float) -> float:
    """How far a value lies outside the constraint (<= 0: inside); what the optimiser is told."""
    if not math.isfinite(value):
        return math.inf
    out = -math.inf
    if constraint.at_most is not None:
        out = max(out, value - constraint.at_most)
    if constraint.at_least is not None:
        out = max(out, constraint.at_least - value)
    return out


def status(constraint: Constraint, level: Level) -> str:
    """"met" (the whole interval inside), "broken" (the whole interval outside) or "open"."""
    if not level.known:
        return "open"
    low = -math.inf if constraint.at_least is None else constraint.at_least
    high = math.inf if constraint.at_most is None else constraint.at_most
    if low <= level.lo and level.hi <= high:
        return "met"
    if level.hi < low or level.lo > high:
        return "broken"
    return "open"


@dataclass
class Evaluation:
    """A candidate's measures on its first ``games`` games, and what follows for the search."""

    arm: str
    games: int
    levels: dict[str, Level]
    losses: tuple[Level, ...]
    violations: tuple[float, ...]  # per constraint, at the point estimate
    statuses: tuple[str, ...]  # per constraint: met, broken, open

    @property
    def feasible(self) -> bool:
        """Within every constraint at the point estimate."""
        return all(v <= 0 for v in self.violations)

    @property
    def broken(self) -> bool:
        """Outside a constraint beyond its interval."""
        return "broken" in self.statuses

    @property
    def open(self) -> bool:
        return "open" in self.statuses

    @property
    def excess(self) -> float:
        return sum(max(v, 0.0) for v in self.violations)

    def to_dict(self) -> dict:
        return {"arm": self.arm, "games": self.games, "levels": {k: v.to_dict() for k, v in self.levels.items()},
                "losses": [x.to_dict() for x in self.losses], "violations": list(self.violations),
                "statuses": list(self.statuses), "feasible": self.feasible}


def evaluation(spec: SearchSpec, arm: str, games: int, levels: dict[str, Level]) -> Evaluation:
    losses = tuple(loss(o, levels.get(o.measure, UNKNOWN)) for o in spec.objectives)
    violations = tuple(violation(c, levels.get(c.measure, UNKNOWN).value) for c in spec.constraints)
    statuses = tuple(status(c, levels.get(c.measure, UNKNOWN)) for c in spec.constraints)
    return Evaluation(arm, games, levels, losses, violations, statuses)


def best(evals: list[Evaluation]) -> Evaluation | None:
    """The single-objective incumbent: the lowest loss among the candidates within every constraint
    (point estimates; the earliest on a tie); None when no candidate is."""
    feasible = [e for e in evals if e.feasible and math.isfinite(e.losses[0].value)]
    return min(feasible, key=lambda e: e.losses[0].value) if feasible else None


def dominates(a: Evaluation, b: Evaluation) -> bool:
    """a is at least as good as b in every objective and better in one (point estimates)."""
    pairs = list(zip(a.losses, b.losses))
    return all(x.value <= y.value for x, y in pairs) and any(x.value < y.value for x, y in pairs)


def clearly_dominates(a: Evaluation, b: Evaluation) -> bool:
    """a is better than b in every objective beyond both intervals."""
    return all(x.hi < y.lo for x, y in zip(a.losses, b.losses))


def front(evals: list[Evaluation]) -> list[Evaluation]:
    """The candidates within every constraint that no other such candidate dominates, in order of
    the first objective."""
    feasible = [e for e in evals if e.feasible and all(math.isfinite(x.value) for x in e.losses)]
    out = [e for e in feasible if not any(dominates(o, e) for o in feasible if o is not e)]
    return sorted(out, key=lambda e: tuple(x.value for x in e.losses))


def close_calls(evals: list[Evaluation], considered: list[str], max_games: int) -> list[str]:
    """The candidates among ``considered`` that racing gives more games: those still below
    max_games whose decision is close. One objective: a candidate whose loss interval reaches the
    incumbent's (it may be the best), the incumbent itself while such a challenger exists, and a
    candidate that may be best but whose constraint is still open. Two objectives: a candidate that
    no other clearly dominates and that may or may not be on the front (an open constraint, or its
    intervals meet a front member's in every objective)."""
    by_arm = {e.arm: e for e in evals}
    alive = [e for e in evals if not e.broken]
    if len(evals[0].losses) == 1:
        inc = best(evals)
        if inc is None:  # nothing within the constraints yet: settle the open ones
            chosen = [by_arm[a] for a in considered if a in by_arm and by_arm[a].open and not by_arm[a].broken]
        else:
            def contender(e: Evaluation) -> bool:
                return not e.broken and e.losses[0].lo <= inc.losses[0].hi

            chosen = [by_arm[a] for a in considered if a in by_arm and by_arm[a] is not inc and contender(by_arm[a])]
            if inc.open or any(e is not inc and contender(e) for e in alive):
                chosen.append(inc)
    else:
        members = front(evals)
        chosen = []
        for a in considered:
            e = by_arm.get(a)
            if e is None or e.broken or any(clearly_dominates(o, e) for o in alive if o is not e):
                continue
            meets = any(o is not e and all(x.lo <= y.hi and y.lo <= x.hi for x, y in zip(e.losses, o.losses))
                        for o in members)
            if e.open or meets:
                chosen.append(e)
        for e in members:  # a front member that a close candidate may push off the front
            if e not in chosen and any(c is not e and all(x.lo <= y.hi for x, y in zip(c.losses, e.losses))
                                       for c in chosen):
                chosen.append(e)
    out = []
    for e in chosen:
        if e.games < max_games and e.arm not in out:
            out.append(e.arm)
    return out
