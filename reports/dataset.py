"""A study's dataset as reports see it: manifest metadata and lazy Polars scans (docs/schema.md).

Only the files are read, never the kernels or the simulator registry, so a report can be built on a
machine that only has the dataset.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cached_property
from itertools import combinations
from pathlib import Path

import polars as pl

COMMON_COLUMNS = ("arm", "game", "players", "winner_mask", "n_winners", "turns", "rounds", "score")
BATCH_GLOB = "batch-*.parquet"


class ReportError(Exception):
    """The directory is not a readable kaartlab dataset."""


@dataclass(frozen=True)
class GameInfo:
    name: str
    score: str = "score"  # what the score counts ("bites", "points")
    higher_score_wins: bool = True
    version: int | None = None


@dataclass(frozen=True)
class Arm:
    name: str
    game: str
    players: int
    rules: dict = field(default_factory=dict, hash=False, compare=False)
    policies: tuple[str, ...] = ()
    deck: object = field(default=None, hash=False, compare=False)
    game_version: int | None = None
    index: int = 0  # position in the study

    @property
    def fair(self) -> float:
        return 1.0 / self.players

    def design(self) -> tuple:
        """What must match for two arms to 'differ in rule parameters only'."""
        return (self.game, self.game_version, self.players, self.policies,
                json.dumps(self.deck, sort_keys=True))

    def setup(self) -> tuple:
        """What must match for arms to be pooled in a policy comparison (all but the policies)."""
        return (self.game, self.game_version, self.players, json.dumps(self.rules, sort_keys=True),
                json.dumps(self.deck, sort_keys=True))

    def rule_diff(self, other: "Arm") -> dict[str, tuple]:
        """{rule: (self value, other value)} for every rule that differs."""
        names = list(self.rules) + [k for k in other.rules if k not in self.rules]
        return {k: (self.rules.get(k), other.rules.get(k)) for k in names
                if self.rules.get(k) != other.rules.get(k)}

    @property
    def mixed_policies(self) -> bool:
        return len(set(self.policies)) > 1

    def describe(self) -> str:
        rules = ", ".join(f"{k}={v}" for k, v in self.rules.items())
        return f"{self.game}, {self.players} players, {rules or 'default rules'}; policies {', '.join(self.policies)}"


@dataclass(frozen=True)
class Pair:
    """Two arms of the same design whose rules differ: ``b`` measured against baseline ``a``."""

    a: Arm
    b: Arm

    @property
    def key(self) -> str:
        return f"{self.b.name} vs {self.a.name}"

    @property
    def changes(self) -> dict[str, tuple]:
        return self.a.rule_diff(self.b)

    def describe_changes(self) -> str:
        return ", ".join(f"{k} {va}->{vb}" for k, (va, vb) in self.changes.items())


class Dataset:
    """Manifest plus lazy scans of ``DIR/<arm>/batch-*.parquet``."""

    def __init__(self, root: str | Path):
        self.root = Path(root)
        if not self.root.is_dir():
            raise ReportError(f"{self.root}: not a directory")
        self.manifest = self._read_manifest()
        study = self.manifest.get("study", {})
        self.study = study
        self.name = study.get("name", self.root.name)
        self.fingerprint = self.manifest.get("fingerprint")
        games = self.manifest.get("games", {})
        arms = []
        for i, a in enumerate(study.get("arms", [])):
            game = a.get("game", "game")
            players = int(a["players"])
            policies = tuple(a.get("policies") or ()) or ("default",) * players
            arms.append(Arm(name=a["name"], game=game, players=players, rules=dict(a.get("rules") or {}),
                            policies=policies, deck=a.get("data") or a.get("deck"), game_version=a.get("game_version"),
                            index=i))
        if not arms:
            raise ReportError(f"{self.root}: the study lists no arms")
        self.all_arms = arms
        self.games = {}
        for arm in arms:
            g = games.get(arm.game, {})
            self.games[arm.game] = GameInfo(arm.game, str(g.get("score", "score")),
                                            bool(g.get("higher_score_wins", True)), g.get("version"))

    # -- manifest ---------------------------------------------------------------------------------
    def _read_manifest(self) -> dict:
        path = self.root / "study.json"
        if path.exists():
            return json.loads(path.read_text())
        # A directory without study.json: every batch file carries the study in its metadata.
        import pyarrow.parquet as pq

        for file in sorted(self.root.glob(f"*/{BATCH_GLOB}")):
            meta = pq.read_schema(file).metadata or {}
            if b"kaartlab.study" in meta:
                study = json.loads(meta[b"kaartlab.study"])
                return {"study": study, "fingerprint": meta.get(b"kaartlab.fingerprint", b"").decode() or None,
                        "games": {}}
        raise ReportError(f"{self.root}: no study.json and no batch files with kaartlab metadata")

    # -- arms -------------------------------------------------------------------------------------
    @cached_property
    def arms(self) -> list[Arm]:
        """Arms that have at least one batch file, in study order."""
        return [a for a in self.all_arms if next((self.root / a.name).glob(BATCH_GLOB), None) is not None]

    def arm(self, name: str) -> Arm:
        for a in self.all_arms:
            if a.name == name:
                return a
        raise KeyError(name)

    def arms_of(self, game: str) -> list[Arm]:
        return [a for a in self.arms if a.game == game]

    @property
    def game_names(self) -> list[str]:
        seen = []
        for a in self.arms:
            if a.game not in seen:
                seen.append(a.game)
        return seen

    def max_players(self, game: str | None = None) -> int:
        arms = self.arms_of(game) if game else self.arms
        return max((a.players for a in arms), default=0)

    # -- scans ------------------------------------------------------------------------------------
    def scan(self, game: str | None = None) -> pl.LazyFrame:
        """One row per game. With one game in the study, the plain glob over every arm; otherwise
        the arms of ``game`` (their files share a schema)."""
        if game is None or len(self.game_names) == 1:
            return pl.scan_parquet(self.root / "*" / BATCH_GLOB, hive_partitioning=False)
        return pl.scan_parquet([self.root / a.name / BATCH_GLOB for a in self.arms_of(game)], hive_partitioning=False)

    # -- structure of the study --------------------------------------------------------------------
    def variant_pairs(self, game: str) -> list[Pair]:
        """Pairs of arms with the same game, players, policies and deck whose rules differ.

        The baseline is the arm with the lower value when a single rule differs (0 -> 1 for a
        switch), otherwise the earlier arm in the study."""
        pairs = []
        for a, b in combinations(self.arms_of(game), 2):
            if a.design() != b.design():
                continue
            diff = a.rule_diff(b)
            if not diff:
                continue
            if len(diff) == 1:
                (va, vb), = diff.values()
                try:
                    if va is not None and vb is not None and vb < va:
                        a, b = b, a
                except TypeError:
                    pass
            pairs.append(Pair(a, b))
        return pairs

    def toggle_pairs(self, game: str, rule: str, ignore: tuple[str, ...] = ()) -> list[Pair]:
        """Pairs that differ in ``rule`` (and at most the rules in ``ignore``), oriented low -> high."""
        out = []
        for pair in self.variant_pairs(game):
            changes = pair.changes
            if rule in changes and set(changes) <= {rule, *ignore}:
                va, vb = changes[rule]
                out.append(pair if (va or 0) < (vb or 0) else Pair(pair.b, pair.a))
        return out

    def policy_groups(self, game: str) -> list[list[Arm]]:
        """Arms with the same set-up (game, players, rules, deck) whose seats carry different
        policies; each group is compared by policy."""
        groups: dict[tuple, list[Arm]] = {}
        for arm in self.arms_of(game):
            if arm.mixed_policies:
                groups.setdefault(arm.setup(), []).append(arm)
        return list(groups.values())
