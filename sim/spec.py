"""Frozen, validated specs: an arm (game, seats with their players' parameters, rules, data files)
and a study (arms x games).

Every error names the offending key or value. Unknown keys are errors, never ignored.
"""
from __future__ import annotations

import hashlib
import json
import math
import os
import re
import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from sim.errors import SpecError
from sim.params import resolve
from sim.questions import Question, check_description, make_questions
from sim.registry import Game, games, get_game
from sim.search import make_searches
from sim.sweep import Sweep, expand

_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
DEFAULT_BATCH_SIZE = 50_000
MAX_GAMES = 10**12
MAX_DATA_BYTES = 1 << 20
RESERVED_NAMES = {"study.json", "data", "report.html", "report.md", "summary.json"}


MAX_STUDY_BYTES = 1 << 20


def read_limited(path, limit: int, what: str) -> bytes:
    """A regular file's bytes, at most ``limit``: its kind and size are checked before it is opened
    (a FIFO would block, /dev/zero never end) and no more than limit + 1 bytes are read. A missing
    file raises FileNotFoundError; anything else that is not a small regular file is a SpecError."""
    import stat

    st = os.stat(path)
    if not stat.S_ISREG(st.st_mode):
        raise SpecError(f"{what} {str(path)!r} is not a regular file")
    if st.st_size > limit:
        raise SpecError(f"{what} {str(path)!r} is larger than {limit:,} bytes")
    with open(path, "rb") as f:
        raw = f.read(limit + 1)
    if len(raw) > limit:
        raise SpecError(f"{what} {str(path)!r} is larger than {limit:,} bytes")
    return raw


def read_toml(path: Path, what: str) -> dict:
    """A TOML file as a dict; a missing, unreadable, too large or invalid file is a SpecError naming it."""
    try:
        return tomllib.loads(read_limited(path, MAX_STUDY_BYTES, what).decode())
    except RecursionError:
        raise SpecError(f"{what} {str(path)!r} nests tables or arrays too deeply") from None
    except FileNotFoundError:
        raise SpecError(f"{what} {str(path)!r} does not exist") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise SpecError(f"{what} {str(path)!r} cannot be read: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise SpecError(f"{what} {str(path)!r} is not valid TOML: {exc}") from None


def parse_toml_text(text: str, what: str) -> dict:
    try:
        return tomllib.loads(text)
    except RecursionError:
        raise SpecError(f"{what} nests tables or arrays too deeply") from None
    except tomllib.TOMLDecodeError as exc:
        raise SpecError(f"{what} is not valid TOML: {exc}") from None


def check_name(kind: str, name: str) -> str:
    if not isinstance(name, str) or not _NAME_RE.fullmatch(name) or name in RESERVED_NAMES:
        raise SpecError(f"{kind} name {name!r}: use 1-64 letters, digits, '_', '-' or '.' "
                        f"(not {', '.join(sorted(RESERVED_NAMES))})")
    return name


def _whole_number(key: str, value, lo: int, hi: int, typed: bool = False) -> int:
    """A whole number in lo..hi; CLI text is parsed, a typed source (a study file) must give a number."""
    if isinstance(value, bool) or isinstance(value, float) or (typed and not isinstance(value, int)):
        raise SpecError(f"{key}={value!r}: expected a whole number" + (" (no quotes)" if typed else ""))
    if not isinstance(value, int):
        try:
            value = int(str(value).replace("_", ""))
        except ValueError:
            raise SpecError(f"{key}={value!r}: expected a whole number") from None
    if not lo <= value <= hi:
        raise SpecError(f"{key}={value}: expected {lo}..{hi}")
    return value


# ------------------------------------------------------------------------------------- seats

@dataclass(frozen=True)
class Seat:
    """A player at the table: a policy and the value of each of its parameters."""

    policy: str
    params: tuple[tuple[str, Any], ...] = ()  # every parameter of the policy, declaration order

    def label(self, info: Game) -> str:
        """The policy's name, with the parameters that differ from their defaults:
        'cautious' or 'cautious(start=self)'. Reports name players by it."""
        policy = info.policy(self.policy)
        changed = [f"{k}={policy.param(k).show(v)}" for k, v in self.params
                   if v != policy.param(k).default]
        return f"{self.policy}({','.join(changed)})" if changed else self.policy

    def to_dict(self) -> dict:
        return {"policy": self.policy, "params": dict(self.params)}


def make_seat(info: Game, entry) -> Seat:
    """A seat from 'cautious', 'cautious:start=self:x=1' or {policy = "cautious", start = "self"}."""
    if isinstance(entry, str):
        name, *pairs = [part.strip() for part in entry.split(":")]
        given = {}
        for pair in pairs:
            if "=" not in pair:
                raise SpecError(f"seat {entry!r}: expected POLICY:NAME=VALUE[:NAME=VALUE...]")
            key, value = pair.split("=", 1)
            given[key.strip()] = value.strip()
    elif isinstance(entry, dict):
        given = dict(entry)
        name = given.pop("policy", None)
        if not isinstance(name, str):
            raise SpecError(f"seat {entry!r}: needs policy = \"NAME\"")
        if "params" in given:  # the form study.json records
            nested = given.pop("params")
            if not isinstance(nested, dict):
                raise SpecError(f"seat {entry!r}: params must be a table")
            given.update(nested)
    else:
        raise SpecError(f"seat {entry!r}: expected a policy name or a table with policy = \"NAME\"")
    policy = info.policy(name)
    typed = isinstance(entry, dict)  # a table's values are typed; 'cautious:start=self' is text
    return Seat(policy.name, resolve(policy.params, given, "parameter", f" of policy {name!r}", typed))


def make_seats(info: Game, policies, players: int) -> tuple[Seat, ...]:
    """One seat per player from one entry for every seat or one per seat (comma-separated text,
    a list of names, or a list of tables)."""
    if policies is None:
        entries = [info.policies[0].name]
    elif isinstance(policies, str):
        entries = [p.strip() for p in policies.split(",")]
    elif isinstance(policies, (list, tuple)):
        entries = list(policies)
    else:
        raise SpecError(f"policy={policies!r}: expected a name, a list of names or seat tables")
    if not entries:
        raise SpecError("the policy list is empty")
    seats = [make_seat(info, entry) for entry in entries]
    if len(seats) == 1:
        seats = seats * players
    if len(seats) != players:
        raise SpecError(f"policy list has {len(seats)} entries for {players} seats: "
                        "give one for every seat or one per seat")
    return tuple(seats)


# -------------------------------------------------------------------------------------- data

@dataclass(frozen=True)
class DataValue:
    """A data file an arm uses: its content, its hash (in the fingerprint) and the parsed value."""

    name: str
    sha256: str
    text: str = field(compare=False, repr=False)
    value: Any = field(compare=False, repr=False)
    suffix: str = field(default=".toml", compare=False)

    @property
    def relpath(self) -> str:
        """Where the dataset keeps its copy (content-addressed: equal files share one copy)."""
        return f"data/{self.name}-{self.sha256[:16]}{self.suffix}"

    def to_dict(self) -> dict:
        return {"sha256": self.sha256, "file": self.relpath}


def load_data(info: Game, name: str, source, read=None) -> DataValue:
    """A data input from a file path (or, with `read`, a path inside a dataset)."""
    item = info.data_input(name)
    if isinstance(source, DataValue):
        return source
    if not isinstance(source, (str, Path)):
        if item.dump is None:
            raise SpecError(f"data {name}={source!r}: expected a file path")
        text = item.dump(source)
        return DataValue(name, hashlib.sha256(text.encode()).hexdigest(), text, item.parse(text),
                         item.suffix)
    try:
        raw = read(str(source)) if read else read_limited(source, MAX_DATA_BYTES, f"{name} file")
    except FileNotFoundError:
        raise SpecError(f"{name} file {str(source)!r} does not exist") from None
    except OSError as exc:
        raise SpecError(f"{name} file {str(source)!r} cannot be read: {exc}") from None
    if len(raw) > MAX_DATA_BYTES:
        raise SpecError(f"{name} file {str(source)!r} is larger than {MAX_DATA_BYTES} bytes")
    try:
        text = raw.decode()
    except UnicodeDecodeError:
        raise SpecError(f"{name} file {str(source)!r} is not UTF-8 text") from None
    try:
        value = item.parse(text)
    except SpecError as exc:
        raise SpecError(f"{name} file {source}: {exc}") from None
    return DataValue(name, hashlib.sha256(raw).hexdigest(), text, value, item.suffix)


# -------------------------------------------------------------------------------------- arms

def default_batch_size(arms) -> int:
    """DEFAULT_BATCH_SIZE, made a multiple of every rotated arm's seats (whole deals per batch)."""
    step = math.lcm(*(a.players for a in arms if a.rotate))
    return DEFAULT_BATCH_SIZE // step * step


def rotating_games() -> list[str]:
    """The games whose kernels can rotate the seats over each deal (GameRunner.rotates)."""
    return [name for name, info in games().items() if info.runner().rotates]


def luck_games() -> list[str]:
    """The games that declare luck measures (Game.luck)."""
    return [name for name, info in games().items() if info.luck]


@dataclass(frozen=True)
class ArmSpec:
    name: str
    game: str
    players: int
    rules: tuple[tuple[str, Any], ...]  # every rule of the game, in registry order
    seats: tuple[Seat, ...]  # seat 0 first
    data: tuple[DataValue, ...] = ()  # the data inputs given (the rest take the game's default)
    rotate: bool = False  # play each deal once per seat rotation (duplicate deals; docs/stopping.md)
    luck: bool = False  # write the game's luck measures (Game.luck; docs/stopping.md, "Luck of the draw")

    @classmethod
    def make(cls, game: str, players, rules: dict | None = None, policies=None,
             name: str = "main", data: dict | None = None, deck=None, read=None, typed: bool = False,
             rotate=False, luck=False) -> ArmSpec:
        """Validate user values (TOML or CLI text) into an arm; raises SpecError naming the problem.
        `deck` is a shorthand for data={"deck": deck}; `read` reads data paths (a dataset's);
        `typed`: the values come from a study file or study.json, where "4" is not a number."""
        info = get_game(game)
        check_name("arm", name)
        players = _whole_number("players", players, 1, 64, typed)
        if not info.min_players <= players <= info.max_players:
            raise SpecError(f"players={players}: {info.name} is for "
                            f"{info.min_players}-{info.max_players} players")
        if data is not None and not isinstance(data, dict):
            raise SpecError(f"data={data!r}: expected a table of NAME = FILE")
        data = dict(data or {})
        if deck is not None:
            data["deck"] = deck
        values = tuple(sorted((load_data(info, k, v, read) for k, v in data.items() if v is not None),
                              key=lambda d: d.name))
        if not isinstance(rotate, bool):
            raise SpecError(f"rotate={rotate!r}: expected true or false")
        if rotate and not info.runner().rotates:
            raise SpecError(f"rotate=true: {info.name} cannot rotate its seats yet "
                            f"(games that can: {', '.join(rotating_games())})")
        if not isinstance(luck, bool):
            raise SpecError(f"luck={luck!r}: expected true or false")
        if luck and not info.luck:
            raise SpecError(f"luck=true: {info.name} declares no luck measures "
                            f"(games that do: {', '.join(luck_games())})")
        arm = cls(name, info.name, players, resolve(info.rules, rules, "rule", f" for {info.name}", typed),
                  make_seats(info, policies, players), values, rotate, luck)
        info.runner().check_arm(arm)
        return arm

    @classmethod
    def from_dict(cls, data: dict, read=None) -> ArmSpec:
        """The arm a study.json records (data files read through `read`, relative to the dataset)."""
        files = {k: v["file"] for k, v in (data.get("data") or {}).items()}
        arm = cls.make(data["game"], data["players"], data["rules"], data["seats"],
                       name=data["name"], data=files, read=read, typed=True, rotate=data.get("rotate", False),
                       luck=data.get("luck", False))
        for value in arm.data:
            if value.sha256 != data["data"][value.name]["sha256"]:
                raise SpecError(f"arm {arm.name!r}: data file {value.relpath} does not match the "
                                "hash its study recorded")
        return arm

    @property
    def info(self) -> Game:
        return get_game(self.game)

    @property
    def rule_values(self) -> dict[str, Any]:
        return dict(self.rules)

    @property
    def policies(self) -> tuple[str, ...]:
        return tuple(s.policy for s in self.seats)

    @property
    def labels(self) -> tuple[str, ...]:
        """Per seat: the policy with its non-default parameters ('cautious(start=self)')."""
        info = self.info
        return tuple(s.label(info) for s in self.seats)

    def data_value(self, name: str):
        """The parsed content of data input `name`: the arm's file, else the game's default."""
        for value in self.data:
            if value.name == name:
                return value.value
        return self.info.data_input(name).default

    def non_default_rules(self) -> dict[str, Any]:
        return {p.name: v for p, (_, v) in zip(self.info.rules, self.rules) if v != p.default}

    def to_dict(self) -> dict:
        return {"name": self.name, "game": self.game, "game_version": self.info.version,
                "players": self.players, "rules": dict(self.rules),
                "policies": list(self.labels), "seats": [s.to_dict() for s in self.seats],
                "data": {d.name: d.to_dict() for d in self.data}} | ({"rotate": True} if self.rotate else {}) \
            | ({"luck": True} if self.luck else {})

    def describe(self) -> str:
        info = self.info
        changed = ", ".join(f"{k}={info.rule(k).show(v)}" for k, v in self.non_default_rules().items())
        return (f"{self.game}, {self.players} players, policies {','.join(self.labels)}"
                + (f", rules {changed}" if changed else ", default rules")
                + "".join(f", {d.name} file {d.sha256[:8]}" for d in self.data)
                + (", seats rotated over each deal" if self.rotate else "")
                + (", luck of the draw measured" if self.luck else ""))


# ------------------------------------------------------------------------------------ studies

# study.json keys that change no row (a sweep's arms are in the arms; its record only groups them)
REPORT_ONLY = ("report", "description", "questions", "sweeps")
REPORT_KEYS = {"edge": float, "correction": str, "equivalence_margin": float, "mole_target": float}


@dataclass(frozen=True)
class StudySpec:
    name: str
    seed: int
    games: int  # per arm
    batch_size: int
    arms: tuple[ArmSpec, ...]
    report: tuple[tuple[str, Any], ...] = ()  # report options: they do not change the rows
    description: str = ""  # the study's question in words, shown at the top of the report
    questions: tuple[Question, ...] = ()  # what the report answers first (sim/questions.py)
    sweeps: tuple[Sweep, ...] = ()  # which arms are the points of a [[sweep]] (sim/sweep.py)
    searches: tuple = ()  # [[search]] tables (sim/search.py): their definitions are in the fingerprint
    extents: tuple = ()  # a search's arms' own plans (sim/search.Extent): games, first game, batches
    stop: Any = None  # a [stop] table (sim/stopping.Stop): games is then the games played so far

    def __post_init__(self):
        check_name("study", self.name)
        for key, value, hi in (("games", self.games, MAX_GAMES), ("batch_size", self.batch_size, MAX_GAMES)):
            if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= hi:
                raise SpecError(f"{key}={value!r}: expected a whole number 1..{hi:,}")
        if isinstance(self.seed, bool) or not isinstance(self.seed, int) or not 0 <= self.seed < 2**63:
            raise SpecError(f"seed={self.seed!r}: expected a whole number 0..2**63-1")
        names = [a.name for a in self.arms]
        if not names and not self.searches:
            raise SpecError("a study needs at least one arm")
        dupes = sorted({n for n in names if names.count(n) > 1})
        if dupes:
            raise SpecError(f"arm name {dupes[0]!r} is used twice")
        for game in sorted({a.game for a in self.arms}):
            measured = {a.luck for a in self.arms if a.game == game}
            if len(measured) > 1:
                raise SpecError(f"some {game} arms measure luck (luck = true) and some do not: the arms of a "
                                "game share one table layout, so set luck in [defaults] or in every arm")
        for arm in self.arms:
            if arm.rotate and (self.games % arm.players or self.batch_size % arm.players):
                raise SpecError(f"arm {arm.name!r} rotates its {arm.players} seats over each deal: games "
                                f"({self.games:,}) and batch_size ({self.batch_size:,}) must be multiples of "
                                f"{arm.players}, so that every deal is played at every rotation")

    def to_dict(self) -> dict:
        data = {"name": self.name, "seed": self.seed, "games": self.games,
                "batch_size": self.batch_size, "arms": [a.to_dict() for a in self.arms]}
        if self.searches or self.extents:  # a search's arms carry their own plan; the searches' tables
            extents = {e.arm: e for e in self.extents}
            for arm in data["arms"]:
                arm.update(extents[arm["name"]].to_dict() if arm["name"] in extents else {})
            if self.searches:
                data["search"] = [s.to_dict() for s in self.searches]
        if self.report:
            data["report"] = dict(self.report)
        if self.description:
            data["description"] = self.description
        if self.questions:
            data["questions"] = [q.to_dict() for q in self.questions]
        if self.sweeps:
            data["sweeps"] = [w.to_dict() for w in self.sweeps]
        if self.stop is not None:
            data["stop"] = self.stop.to_dict()
        return data

    def fingerprint(self) -> str:
        """Hash of everything that decides the rows and file layout: a different study, a
        different hash (report options, description, questions and the sweeps' records are left out:
        they change no row). Computed once per spec (frozen): the pipeline asks for it per batch,
        and with 1,000 arms each call serialises every arm."""
        cached = self.__dict__.get("_fingerprint")
        if cached is not None:
            return cached
        data = self.to_dict()
        for key in REPORT_ONLY:
            data.pop(key, None)
        if self.stop is not None:  # how many games, not which: a stopped study grows by whole batches
            data.pop("stop")       # (docs/stopping.md); its arms, seed and batch size stay in
            data.pop("games")
        # a search's arms are its proposals: the search's table decides them, not the other way round
        data["arms"] = [a for a in data["arms"] if "search" not in a]
        text = json.dumps(data, sort_keys=True, separators=(",", ":"))
        object.__setattr__(self, "_fingerprint", hashlib.sha256(text.encode()).hexdigest()[:16])
        return self.__dict__["_fingerprint"]

    def arm(self, name: str) -> ArmSpec:
        for arm in self.arms:
            if arm.name == name:
                return arm
        raise SpecError(f"no arm {name!r} in study {self.name!r} "
                        f"(arms: {', '.join(a.name for a in self.arms)})")

    def with_batch_size(self, batch_size: int) -> StudySpec:
        return replace(self, batch_size=batch_size)

    @classmethod
    def from_toml(cls, path) -> StudySpec:
        path = Path(path)
        data = read_toml(path, "study file")
        try:
            return cls.from_dict(data, base=path.parent, default_name=path.stem)
        except SpecError as exc:
            raise SpecError(f"{path}: {exc}") from None

    @classmethod
    def from_dict(cls, data: dict, base: Path = Path("."), default_name: str = "study") -> StudySpec:
        _no_unknown("study", data, {"name", "seed", "games", "batch_size", "defaults", "arm",
                                    "description", "report", "question", "sweep", "search", "stop"})
        defaults = _table("[defaults]", data.get("defaults", {}))
        _no_unknown("[defaults]", defaults, _ARM_KEYS - {"name"})
        raw_arms = data.get("arm", [])
        if not isinstance(raw_arms, list) or not (raw_arms or data.get("sweep") or data.get("search")):
            raise SpecError("a study needs at least one [[arm]], [[sweep]] or [[search]] table")
        arms = []
        for number, raw in enumerate(raw_arms, 1):
            raw = _table(f"arm {number}", raw)
            _no_unknown(f"arm {number}", raw, _ARM_KEYS)
            name = raw.get("name", f"arm{number}")
            try:
                arms.append(_arm_from_table(number, defaults, raw, base))
            except SpecError as exc:
                raise SpecError(f"arm {name!r}: {exc}") from None
        sweeps, swept = _sweeps(data.get("sweep", []), defaults, arms, base)
        arms += swept
        folded = {}
        for arm in arms:  # arm names are directory names: 'A' and 'a' are one on some filesystems
            if arm.name.lower() in folded and folded[arm.name.lower()] != arm.name:  # the same name: below
                raise SpecError(f"arm names {folded[arm.name.lower()]!r} and {arm.name!r} differ only in case: "
                                "they would share one directory on a case-insensitive filesystem")
            folded[arm.name.lower()] = arm.name
        stop = _stop(data, arms)
        return cls(name=data.get("name", default_name),
                   seed=_whole_number("seed", data.get("seed", 0), 0, 2**63 - 1, typed=True),
                   games=stop.max_games if stop else _whole_number("games", data.get("games", 10_000), 1,
                                                                   MAX_GAMES, typed=True),
                   batch_size=_whole_number("batch_size", data.get("batch_size", default_batch_size(arms)),
                                            1, 10**8, typed=True),
                   arms=tuple(arms), report=_report_options(data.get("report", {})),
                   description=check_description(data.get("description", "")),
                   questions=make_questions(data.get("question"), arms, sweeps), sweeps=sweeps,
                   searches=make_searches(data.get("search", []), lambda number, raw: _arm_from_table(
                       number, defaults, raw, base), [a.name for a in arms]), stop=stop)

    def with_report_part(self, data: dict) -> StudySpec:
        """This study with the report-only part (report options, description, questions) of a
        study.json ``study`` table: what study.json keeps beside the arms."""
        try:
            sweeps = tuple(Sweep.from_dict(w) for w in data.get("sweeps") or ())
            return replace(self, report=_report_options(data.get("report") or {}),
                           description=check_description(data.get("description", "")),
                           questions=make_questions(_as_tables(data.get("questions")), self.arms, sweeps),
                           sweeps=sweeps)
        except SpecError as exc:
            raise SpecError(f"study.json: {exc}") from None


def _stop(data: dict, arms) -> Any:
    """The [stop] table (sim/stopping.py); with it the study's games is the cap per arm."""
    if "stop" not in data:
        return None
    from reports.measures import names as measure_names
    from sim.stopping import make_stop

    games = data.get("games")
    if games is not None:
        games = _whole_number("games", games, 1, MAX_GAMES, typed=True)
    return make_stop(data["stop"], arms, games, measure_names)


def _as_tables(questions):
    return None if questions is None else [dict(q) if isinstance(q, dict) else q for q in questions]


_ARM_KEYS = {"name", "game", "players", "rules", "policy", "seat", "data", "deck", "rotate", "luck"}
_SWEEP_KEYS = _ARM_KEYS | {"vary", "arms"}


def _sweeps(raw_sweeps, defaults: dict, arms: list[ArmSpec], base: Path) -> tuple[tuple[Sweep, ...], list[ArmSpec]]:
    """Every [[sweep]] table: its record and its arms. A sweep either crosses named [[arm]] tables
    (``arms = [...]``) or is an arm template of its own (the [[arm]] keys, with [defaults])."""
    if not isinstance(raw_sweeps, list):
        raise SpecError(f"sweep must be [[sweep]] tables, not {raw_sweeps!r}")
    by_name = {a.name: a for a in arms}
    sweeps, swept = [], []
    for number, raw in enumerate(raw_sweeps, 1):
        raw = _table(f"sweep {number}", raw)
        name = raw.get("name", f"sweep{number}")
        try:
            check_name("sweep", name)
            _no_unknown(f"sweep {name!r}", raw, _SWEEP_KEYS)
            if name in {w.name for w in sweeps}:
                raise SpecError("the name is used twice")
            if "arms" in raw:
                extra = sorted(set(raw) & (_ARM_KEYS - {"name"}))
                if extra:
                    raise SpecError(f"give either arms = [...] or the arm's own keys, not both ({extra[0]!r})")
                names = raw["arms"]
                if not isinstance(names, list) or not names or not all(isinstance(n, str) for n in names):
                    raise SpecError(f"arms={names!r}: expected a list of [[arm]] names")
                for n in names:
                    if n not in by_name:
                        raise SpecError(f"no [[arm]] named {n!r} (arms: {', '.join(by_name) or 'none'})")
                bases = [(n, by_name[n]) for n in dict.fromkeys(names)]
            else:
                template = {k: v for k, v in raw.items() if k not in ("vary", "name")}
                bases = [("", _arm_from_table(number, defaults, {**template, "name": name}, base))]

            def make_arm(arm_name, origin, rules, seats):
                return ArmSpec.make(origin.game, origin.players, rules, seats, name=arm_name,
                                    data={d.name: d for d in origin.data}, typed=True, rotate=origin.rotate,
                                    luck=origin.luck)
            sweep, new_arms = expand(name, raw.get("vary"), bases, make_arm)
        except SpecError as exc:
            raise SpecError(f"sweep {name!r}: {exc}") from None
        sweeps.append(sweep)
        swept += new_arms
    return tuple(sweeps), swept


def _arm_from_table(number: int, defaults: dict, raw: dict, base: Path) -> ArmSpec:
    rules = {**_table("rules", defaults.get("rules", {})), **_table("rules", raw.get("rules", {}))}
    data = {**_table("data", defaults.get("data", {})), **_table("data", raw.get("data", {}))}
    merged = {**defaults, **raw}
    for key in ("game", "players"):
        if key not in merged:
            raise SpecError(f"missing {key!r}")
    if not isinstance(merged["game"], str):
        raise SpecError(f"game={merged['game']!r}: expected a game name")
    seats = raw.get("seat", raw.get("policy", defaults.get("seat", defaults.get("policy"))))
    if "seat" in raw and "policy" in raw:
        raise SpecError("give either policy or [[arm.seat]] tables, not both")
    if "deck" in merged:
        data.setdefault("deck", merged["deck"])
    for key, value in data.items():
        if not isinstance(value, str):
            raise SpecError(f"data {key}={value!r}: expected a file path")
        data[key] = base / value
    return ArmSpec.make(merged["game"], merged["players"], rules, seats,
                        name=raw.get("name", f"arm{number}"), data=data, typed=True,
                        rotate=merged.get("rotate", False), luck=merged.get("luck", False))


def _report_options(table) -> tuple[tuple[str, Any], ...]:
    table = _table("[report]", table)
    _no_unknown("[report]", table, set(REPORT_KEYS))
    options = []
    for key, value in sorted(table.items()):
        kind = REPORT_KEYS[key]
        if kind is float and isinstance(value, (int, float)) and not isinstance(value, bool) and 0 < value < 1:
            options.append((key, float(value)))
        elif kind is str and value in ("holm", "bh"):
            options.append((key, value))
        else:
            expected = "a share between 0 and 1 (0.01 = one point)" if kind is float else '"holm" or "bh"'
            raise SpecError(f"[report] {key}={value!r}: expected {expected}")
    return tuple(options)


def _table(where: str, value) -> dict:
    if not isinstance(value, dict):
        raise SpecError(f"{where} must be a table, not {value!r}")
    return value


def _no_unknown(where: str, table: dict, allowed: set[str]) -> None:
    for key in table:
        if key not in allowed:
            raise SpecError(f"{where}: unknown key {key!r} (allowed: {', '.join(sorted(allowed))})")
