"""Frozen, validated specs: an arm (game, seats, rules, policies, deck) and a study (arms x games).

Every error names the offending key or value. Unknown keys are errors, never ignored.
"""
from __future__ import annotations

import hashlib
import json
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

from sim.errors import SpecError
from sim.registry import Game, get_game

_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
DEFAULT_BATCH_SIZE = 50_000
MAX_GAMES = 10**12


def read_toml(path: Path, what: str) -> dict:
    """A TOML file as a dict; a missing, unreadable or invalid file is a SpecError naming it."""
    try:
        return tomllib.loads(Path(path).read_text())
    except FileNotFoundError:
        raise SpecError(f"{what} {str(path)!r} does not exist") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise SpecError(f"{what} {str(path)!r} cannot be read: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise SpecError(f"{what} {str(path)!r} is not valid TOML: {exc}") from None


def check_name(kind: str, name: str) -> str:
    if not isinstance(name, str) or not _NAME_RE.match(name):
        raise SpecError(f"{kind} name {name!r}: use 1-64 letters, digits, '_', '-' or '.'")
    return name


def _positive_int(key: str, value, hi: int = MAX_GAMES) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        try:
            value = int(str(value).replace("_", ""))
        except ValueError:
            raise SpecError(f"{key}={value!r}: expected a positive integer") from None
    if not 1 <= value <= hi:
        raise SpecError(f"{key}={value}: expected 1..{hi}")
    return value


@dataclass(frozen=True)
class ArmSpec:
    name: str
    game: str
    players: int
    rules: tuple[tuple[str, int], ...]  # every rule of the game, in registry order
    policies: tuple[str, ...]  # one per seat, seat 0 first
    deck: tuple | None = None  # game data (Knutten: deck rows); None = the game's default

    @classmethod
    def make(cls, game: str, players, rules: dict | None = None, policies=None,
             name: str = "main", deck=None) -> ArmSpec:
        """Validate user values (TOML or CLI text) into an arm; raises SpecError naming the problem."""
        info = get_game(game)
        check_name("arm", name)
        if isinstance(players, bool):
            raise SpecError(f"players={players!r}: expected an integer")
        try:
            players = int(players)
        except (TypeError, ValueError):
            raise SpecError(f"players={players!r}: expected an integer") from None
        if not info.min_players <= players <= info.max_players:
            raise SpecError(f"players={players}: {info.name} is for "
                            f"{info.min_players}-{info.max_players} players")
        values = {p.name: p.default for p in info.rules}
        for key, value in (rules or {}).items():
            values[key] = info.rule(key).parse(value)
        arm = cls(name, info.name, players, tuple(values.items()),
                  _seat_policies(info, policies, players), _load_deck(info, deck))
        info.runner().check_arm(arm)
        return arm

    @property
    def info(self) -> Game:
        return get_game(self.game)

    @property
    def rule_values(self) -> dict[str, int]:
        return dict(self.rules)

    def non_default_rules(self) -> dict[str, int]:
        return {p.name: v for p, (_, v) in zip(self.info.rules, self.rules) if v != p.default}

    def to_dict(self) -> dict:
        return {"name": self.name, "game": self.game, "game_version": self.info.version,
                "players": self.players, "rules": dict(self.rules),
                "policies": list(self.policies),
                "deck": [list(row) for row in self.deck] if self.deck is not None else None}

    def describe(self) -> str:
        changed = ", ".join(f"{k}={self.info.rule(k).show(v)}" for k, v in self.non_default_rules().items())
        return (f"{self.game}, {self.players} players, policies {','.join(self.policies)}"
                + (f", rules {changed}" if changed else ", default rules")
                + (", custom deck" if self.deck is not None else ""))


def _seat_policies(info: Game, policies, players: int) -> tuple[str, ...]:
    if policies is None:
        names = [info.policies[0].name]
    elif isinstance(policies, str):
        names = [p.strip() for p in policies.split(",")]
    else:
        names = [str(p).strip() for p in policies]
    for name in names:
        info.policy(name)
    if len(names) == 1:
        names = names * players
    if len(names) != players:
        raise SpecError(f"policy list has {len(names)} names for {players} seats: "
                        "give one name for every seat or one per seat")
    return tuple(names)


def _load_deck(info: Game, deck):
    if deck is None:
        return None
    if not info.has_deck:
        raise SpecError(f"deck: {info.name} takes no deck file")
    if isinstance(deck, (str, Path)):
        return info.runner().load_deck(Path(deck))
    return tuple(tuple(row) for row in deck)


@dataclass(frozen=True)
class StudySpec:
    name: str
    seed: int
    games: int  # per arm
    batch_size: int
    arms: tuple[ArmSpec, ...]

    def __post_init__(self):
        check_name("study", self.name)
        if not 0 <= self.seed < 2**63:
            raise SpecError(f"seed={self.seed}: expected 0..2**63-1")
        names = [a.name for a in self.arms]
        if not names:
            raise SpecError("a study needs at least one arm")
        dupes = sorted({n for n in names if names.count(n) > 1})
        if dupes:
            raise SpecError(f"arm name {dupes[0]!r} is used twice")

    def to_dict(self) -> dict:
        return {"name": self.name, "seed": self.seed, "games": self.games,
                "batch_size": self.batch_size, "arms": [a.to_dict() for a in self.arms]}

    def fingerprint(self) -> str:
        """Hash of everything that decides the rows and file layout: a different study, a different hash."""
        text = json.dumps(self.to_dict(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def arm(self, name: str) -> ArmSpec:
        for arm in self.arms:
            if arm.name == name:
                return arm
        raise SpecError(f"no arm {name!r} in study {self.name!r}")

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
        _no_unknown("study", data, {"name", "seed", "games", "batch_size", "defaults", "arm", "description"})
        defaults = data.get("defaults", {})
        if not isinstance(defaults, dict):
            raise SpecError("[defaults] must be a table")
        _no_unknown("[defaults]", defaults, _ARM_KEYS - {"name"})
        raw_arms = data.get("arm")
        if not isinstance(raw_arms, list) or not raw_arms:
            raise SpecError("a study needs at least one [[arm]] table")
        arms = []
        for number, raw in enumerate(raw_arms, 1):
            if not isinstance(raw, dict):
                raise SpecError(f"arm {number} must be a table")
            _no_unknown(f"arm {number}", raw, _ARM_KEYS)
            merged = {**defaults, **raw, "rules": {**defaults.get("rules", {}), **raw.get("rules", {})}}
            if "game" not in merged:
                raise SpecError(f"arm {number}: missing 'game'")
            if "players" not in merged:
                raise SpecError(f"arm {number}: missing 'players'")
            deck = merged.get("deck")
            if deck is not None:
                deck = base / deck
            name = merged.get("name", f"arm{number}")
            try:
                arms.append(ArmSpec.make(merged["game"], merged["players"], merged["rules"],
                                         merged.get("policy"), name=name, deck=deck))
            except SpecError as exc:
                raise SpecError(f"arm {name!r}: {exc}") from None
        seed = data.get("seed", 0)
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise SpecError(f"seed={seed!r}: expected an integer")
        return cls(name=data.get("name", default_name), seed=seed,
                   games=_positive_int("games", data.get("games", 10_000)),
                   batch_size=_positive_int("batch_size", data.get("batch_size", DEFAULT_BATCH_SIZE), 10**8),
                   arms=tuple(arms))


_ARM_KEYS = {"name", "game", "players", "rules", "policy", "deck"}


def _no_unknown(where: str, table: dict, allowed: set[str]) -> None:
    for key in table:
        if key not in allowed:
            raise SpecError(f"{where}: unknown key {key!r} (allowed: {', '.join(sorted(allowed))})")
