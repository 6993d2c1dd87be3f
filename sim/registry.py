"""The game registry: name -> metadata (rules, policies, columns, version) and its runner module.

A game's runner module (``sim.games.<name>``) defines ``GAME`` and three functions:
``play_batch(arm, seed, start, count, checked=False) -> pyarrow.Table``,
``trace_game(arm, seed, index) -> str`` and ``check_arm(arm) -> None``. Only those functions
import kernels, so reading the registry compiles nothing.
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass

from sim.errors import SpecError

_BOOL_WORDS = {"true": 1, "on": 1, "yes": 1, "1": 1, "false": 0, "off": 0, "no": 0, "0": 0}


@dataclass(frozen=True)
class RuleParam:
    name: str
    default: int
    lo: int
    hi: int
    help: str
    ruling: str = ""
    boolean: bool = False

    def parse(self, value) -> int:
        """A validated integer value from TOML or CLI text; errors name the parameter."""
        if self.boolean:
            if isinstance(value, bool):
                return int(value)
            word = str(value).strip().lower()
            if word in _BOOL_WORDS:
                return _BOOL_WORDS[word]
            raise SpecError(f"rule {self.name}={value!r}: expected true or false")
        if isinstance(value, bool):
            raise SpecError(f"rule {self.name}={value!r}: expected an integer in {self.lo}..{self.hi}")
        try:
            number = int(str(value).strip().replace("_", "")) if not isinstance(value, int) else value
        except ValueError:
            raise SpecError(f"rule {self.name}={value!r}: expected an integer in {self.lo}..{self.hi}") from None
        if not self.lo <= number <= self.hi:
            raise SpecError(f"rule {self.name}={number}: out of range {self.lo}..{self.hi}")
        return number

    def show(self, value: int) -> str:
        return ("true" if value else "false") if self.boolean else str(value)


@dataclass(frozen=True)
class PolicyInfo:
    name: str
    id: int
    help: str


@dataclass(frozen=True)
class Column:
    name: str
    dtype: str
    help: str


@dataclass(frozen=True)
class Game:
    name: str
    title: str
    version: int  # bump only when the rows a study produces change
    seed_file: str
    min_players: int
    max_players: int
    rules: tuple[RuleParam, ...]
    policies: tuple[PolicyInfo, ...]
    columns: tuple[Column, ...]  # game-specific columns, after the common ones
    has_deck: bool = False

    def rule(self, name: str) -> RuleParam:
        for param in self.rules:
            if param.name == name:
                return param
        known = ", ".join(p.name for p in self.rules)
        raise SpecError(f"unknown rule {name!r} for {self.name} (known: {known})")

    def policy(self, name: str) -> PolicyInfo:
        for info in self.policies:
            if info.name == name:
                return info
        known = ", ".join(p.name for p in self.policies)
        raise SpecError(f"unknown policy {name!r} for {self.name} (known: {known})")

    def runner(self):
        """The module that plays this game (imports kernels lazily inside its functions)."""
        return importlib.import_module(f"sim.games.{self.name}")


COMMON_COLUMNS = (
    Column("arm", "string", "arm name from the study"),
    Column("game", "int64", "game index within the arm (with the study seed, all a replay needs)"),
    Column("players", "int8", "number of seats"),
    Column("winner_mask", "int32", "bit s set when seat s is a winner (ties share the win)"),
    Column("n_winners", "int8", "number of winners (a shared win weighs 1/n_winners)"),
    Column("turns", "int32", "actions taken in the game"),
    Column("rounds", "int32", "rounds (deals) played"),
    Column("score", "list<int32>", "final score per seat, seat order (meaning per game, see below)"),
)


def _load_games() -> dict[str, Game]:
    from sim.games import GAME_MODULES

    games = {}
    for module_name in GAME_MODULES:
        game = importlib.import_module(f"sim.games.{module_name}").GAME
        games[game.name] = game
    return games


_GAMES: dict[str, Game] | None = None


def games() -> dict[str, Game]:
    global _GAMES
    if _GAMES is None:
        _GAMES = _load_games()
    return _GAMES


def get_game(name: str) -> Game:
    registry = games()
    if name not in registry:
        raise SpecError(f"unknown game {name!r} (known: {', '.join(sorted(registry))})")
    return registry[name]
