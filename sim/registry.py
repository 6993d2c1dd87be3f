"""The game registry: each game's metadata (`Game`) and its runner, found in one place.

Every module of the `sim.games` package whose name does not start with `_` and that defines
`RUNNER` (a `sim.contract.GameRunner`) is a game; so is every module named in the environment
variable KAARTLAB_GAMES (comma-separated module paths; Ray workers inherit it) and every runner
passed to `register`. Adding a game edits no shared list. Reading the registry imports runners and
kernel enums modules only: it compiles nothing.
"""
from __future__ import annotations

import importlib
import os
import pkgutil
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sim.errors import SpecError
from sim.params import Param, find

GAMES_ENV = "KAARTLAB_GAMES"


@dataclass(frozen=True)
class Policy:
    name: str
    id: int  # the kernel's P_* id; stable, since studies store names and kernels read ids
    help: str
    params: tuple[Param, ...] = ()  # player parameters this policy reads

    def param(self, name: str) -> Param:
        return find(self.params, name, "parameter", f" of policy {self.name!r}")


@dataclass(frozen=True)
class DataInput:
    """A named file a game reads (Knutten's deck, a category list). `parse(text)` validates the
    file's text into a canonical value (tuples, numbers, strings) or raises SpecError naming the
    problem; `default` is used when no file is given; `dump(value)` writes a value as such a file
    (so a value made in Python can be given too, and kept in the dataset like a file)."""

    name: str
    help: str
    parse: Callable[[str], Any]
    default: Any
    dump: Callable[[Any], str] | None = None
    suffix: str = ".toml"
    example: str = ""  # a file in the repository showing the format


@dataclass(frozen=True)
class Column:
    """An output column: a field of the kernel's record dtype with the same name. List columns
    (dtype "list<...>") are fixed-size subarrays in the record, trimmed per arm to `length`
    ("seats", or a key of the runner's `list_lengths`)."""

    name: str
    dtype: str
    help: str
    length: str | None = None

    @property
    def is_list(self) -> bool:
        return self.dtype.startswith("list<")


@dataclass(frozen=True)
class Score:
    meaning: str  # what the `score` column counts ("bites", "points")
    higher_wins: bool

    def to_dict(self) -> dict:
        return {"score": self.meaning, "higher_score_wins": self.higher_wins}


@dataclass(frozen=True)
class Game:
    name: str
    title: str
    version: int  # bump only when the rows a study produces change
    min_players: int
    max_players: int
    rules: tuple[Param, ...]
    policies: tuple[Policy, ...]  # the first is the default
    columns: tuple[Column, ...]  # the game's own columns, after COMMON_COLUMNS
    score: Score
    max_turns: int  # a game that takes more actions is a bug (the kernel says so)
    data: tuple[DataInput, ...] = ()
    rules_doc: str = ""  # default docs/rules/<name>.md
    golden: str = ""  # glob of golden traces; default tests/golden/<name>_*.txt
    # luck measures (issue 28): names of per-seat list columns that are sums of chance terms with
    # expectation 0 at every seat whatever the players do (the luck of the draw); the report
    # regresses them out of seat 0's win share (reports/sections/luck.py)
    luck: tuple[str, ...] = ()
    strongest: str = ""  # the seat entry `kaartlab skill` pits against random players ("policy" or
    # "policy:name=value"); "" = every policy but random, and the report names the best
    player_params: tuple[Param, ...] = field(init=False)

    def __post_init__(self):
        seen: dict[str, Param] = {}
        for policy in self.policies:
            for param in policy.params:
                if seen.setdefault(param.name, param) != param:
                    raise ValueError(f"{self.name}: player parameter {param.name!r} is declared "
                                     "differently by two policies")
        object.__setattr__(self, "player_params", tuple(seen.values()))
        ids = [p.id for p in self.policies]
        if len(set(ids)) != len(ids) or len({p.name for p in self.policies}) != len(ids):
            raise ValueError(f"{self.name}: policy names and ids must be unique")
        if self.strongest and self.strongest.split(":")[0] not in {p.name for p in self.policies}:
            raise ValueError(f"{self.name}: strongest={self.strongest!r} names no policy of the game")
        lists = {c.name for c in self.columns if c.is_list and c.length == "seats"}
        for name in self.luck:
            if name not in lists:
                raise ValueError(f"{self.name}: luck measure {name!r} is not a per-seat list column")
        if not 1 <= self.min_players <= self.max_players:
            raise ValueError(f"{self.name}: players {self.min_players}..{self.max_players}")

    def rule(self, name: str) -> Param:
        return find(self.rules, name, "rule", f" for {self.name}")

    def policy(self, name: str) -> Policy:
        for info in self.policies:
            if info.name == name:
                return info
        known = ", ".join(p.name for p in self.policies)
        raise SpecError(f"unknown policy {name!r} for {self.name} (known: {known})")

    def data_input(self, name: str) -> DataInput:
        for item in self.data:
            if item.name == name:
                return item
        known = ", ".join(d.name for d in self.data) or "none"
        raise SpecError(f"unknown data input {name!r} for {self.name} (known: {known})")

    @property
    def rules_doc_path(self) -> str:
        return self.rules_doc or f"docs/rules/{self.name}.md"

    @property
    def golden_glob(self) -> str:
        return self.golden or f"tests/golden/{self.name}_*.txt"

    def runner(self):
        """The runner that plays this game (it imports kernels lazily inside its methods)."""
        return _registry()[1][self.name]


COMMON_COLUMNS = (
    Column("arm", "string", "arm name from the study"),
    Column("game", "int64", "game index within the arm (with the study seed, all a replay needs)"),
    Column("players", "int8", "number of seats"),
    Column("winner_mask", "int32", "bit s set when seat s is a winner (ties share the win)"),
    Column("n_winners", "int8", "number of winners (a shared win weighs 1/n_winners)"),
    Column("turns", "int32", "actions taken in the game"),
    Column("rounds", "int32", "rounds (deals) played"),
    Column("score", "list<int32>", "final score per seat, seat order (meaning per game, see below)",
           "seats"),
)
# Common columns the runner fills itself; every other column is a field of the kernel's record.
RUNNER_COLUMNS = ("arm", "game", "players", "n_winners")

_REGISTERED: list = []
_CACHE: tuple[dict, dict] | None = None


def register(runner) -> None:
    """Add a game defined outside sim.games (a test's game, a plug-in) for this process. Worker
    processes find it through KAARTLAB_GAMES instead."""
    global _CACHE
    _REGISTERED.append(runner)
    _CACHE = None


def _discover() -> list:
    import sim.games

    modules = [importlib.import_module(f"sim.games.{m.name}")
               for m in pkgutil.iter_modules(sim.games.__path__) if not m.name.startswith("_")]
    for name in filter(None, (m.strip() for m in os.environ.get(GAMES_ENV, "").split(","))):
        try:
            modules.append(importlib.import_module(name))
        except ImportError as exc:
            raise SpecError(f"{GAMES_ENV}: cannot import game module {name!r}: {exc}") from None
    return [m.RUNNER for m in modules if hasattr(m, "RUNNER")] + _REGISTERED


def _registry() -> tuple[dict, dict]:
    global _CACHE
    if _CACHE is None:
        games, runners = {}, {}
        for runner in _discover():
            game = runner.game
            if games.get(game.name, game) is not game:
                raise SpecError(f"two games are called {game.name!r}")
            games[game.name], runners[game.name] = game, runner
        _CACHE = (games, runners)
    return _CACHE


def games() -> dict[str, Game]:
    return dict(sorted(_registry()[0].items()))


def get_game(name: str) -> Game:
    registry = _registry()[0]
    if name not in registry:
        raise SpecError(f"unknown game {name!r} (known: {', '.join(sorted(registry))})")
    return registry[name]
