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

from pipelines import integrity as _integrity
from reports import text

COMMON_COLUMNS = ("arm", "game", "players", "winner_mask", "n_winners", "turns", "rounds", "score")
BATCH_GLOB = "batch-*.parquet"
TOO_FEW_GAMES = 30  # games per arm below which the completeness section says statistics say nothing


class ReportError(Exception):
    """The directory is not a readable kaartlab dataset."""


def _damaged(root: Path, reason: str) -> str:
    return (f"{root}/study.json {reason}: the study's description is damaged and is not reported on; rerun "
            f"the command that wrote the dataset or `kaartlab verify {root} --repair` (each rewrites it when the "
            "batch files prove that study)")


# -- batch records ----------------------------------------------------------------------------------
# The pipeline writes <arm>/batch-000123.parquet.json beside each batch and seals study.json with its
# own SHA-256. Reports check both with the one implementation `kaartlab verify` and resume use,
# pipelines/integrity.py: plain pyarrow and hashlib, importing nothing of the pipeline or the
# simulator (tests/test_reports.py holds it to that), so reports still need only the files.


@dataclass
class Checked:
    planned: dict[str, int]  # arm -> games planned
    games: dict[str, int]  # arm -> games in batch files that verify
    good: dict[str, list[str]]  # arm -> relative paths of the batch files that verify, in order
    bad: list[str]  # "relpath: reason"
    missing: dict[str, int]  # arm -> planned batch files that are absent
    legacy: bool = False  # written before batch records: nothing could be verified


def check_batches(root: Path, manifest: dict) -> Checked:
    """Each planned batch file of each arm against its record, the data copies against their
    hashes, and an unsealed study.json against what its batch files say (pipelines/integrity.py).
    Files outside the plan are ignored. DamagedManifest when study.json cannot be trusted."""
    import pyarrow.fs as pafs

    state = _integrity.check(pafs.LocalFileSystem(), str(Path(root).resolve()), manifest)
    arms = state.arms.values()
    return Checked({a.name: a.planned_games for a in arms}, {a.name: a.games for a in arms},
                   {a.name: [_integrity.batch_relpath(a.name, i) for i in sorted(a.good)] for a in arms},
                   [str(p) for p in state.bad], {a.name: a.missing_count for a in arms}, state.legacy)


@dataclass
class Completeness:
    """What a report is built from against what the study planned (Dataset.completeness)."""

    planned: dict[str, int]  # arm -> games planned
    found: dict[str, int]  # arm -> games in batch files that verify
    bad: list[str]  # "relpath: reason" for every batch file that failed verification
    missing_batches: dict[str, int]  # arm -> planned batch files that are absent
    unverified: bool = False  # no record could be checked (no study.json, or written before records)

    @property
    def complete(self) -> bool:
        return not self.bad and all(self.found.get(a, 0) == n for a, n in self.planned.items())

    def warnings(self) -> list[str]:
        """One line per problem, most serious first; empty when the study is complete."""
        out = []
        if self.bad:
            out.append(f"{len(self.bad)} batch file(s) failed verification and are left out of every "
                       "number below: " + "; ".join(self.bad[:5]) + (" ..." if len(self.bad) > 5 else "")
                       + ". Rerun the study's command to redo them.")
        absent = [a for a, n in self.planned.items() if self.found.get(a, 0) == 0]
        if absent:
            out.append(f"Arm(s) with no games at all, so absent from every section: {', '.join(absent)}.")
        short = [a for a, n in self.planned.items() if 0 < self.found.get(a, 0) < n]
        for arm in short:
            out.append(f"Arm {arm}: {self.found[arm]:,} of {self.planned[arm]:,} planned games "
                       f"({self.missing_batches.get(arm, 0):,} batch file(s) missing); its numbers rest "
                       "on the games found.")
        few = [a for a, n in self.found.items() if 0 < n < TOO_FEW_GAMES]
        if out:
            out.insert(0, "This study is INCOMPLETE: the report covers only part of what was planned. "
                          "Rerun the study's command to finish it, then rebuild the report.")
        if few:
            out.append(f"Too few games for statistics in arm(s) {', '.join(f'{a} ({self.found[a]:,})' for a in few)}: "
                       f"below {TOO_FEW_GAMES} games an interval or test says next to nothing (n/a or nan where "
                       "a quantity cannot be estimated at all); read those numbers as a smoke test only.")
        if self.unverified:
            out.append("The batch files carry no integrity records (written before kaartlab kept them, "
                       "or no study.json): they could not be verified. Rerun the study's command to "
                       "check and record them.")
        return out


@dataclass(frozen=True)
class GameInfo:
    name: str
    score: str = "score"  # what the score counts ("bites", "points")
    higher_score_wins: bool = True
    version: int | None = None
    luck: tuple[str, ...] = ()  # the game's luck measures, per-seat columns (sim Game.luck)


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
    seat_params: tuple = field(default=(), hash=False, compare=False)  # per seat: (policy, {param: value})
    first: int = 0  # first game index (a search re-plays its best setting on games after its candidates')
    search: str = ""  # the [[search]] that made this arm ("" for the study's own arms)
    rotate: bool = False  # each deal played once per seat rotation: game g is deal g // players
    luck: bool = False  # the rows hold the game's luck measures (reports/sections/luck.py)

    @property
    def fair(self) -> float:
        return 1.0 / self.players

    def design(self) -> tuple:
        """What must match for two arms to 'differ in rule parameters only'."""
        return (self.game, self.game_version, self.players, self.policies,
                json.dumps(self.deck, sort_keys=True), self.first, self.rotate)

    def setup(self) -> tuple:
        """What must match for arms to be pooled in a policy comparison (all but the policies)."""
        return (self.game, self.game_version, self.players, json.dumps(self.rules, sort_keys=True),
                json.dumps(self.deck, sort_keys=True), self.rotate)

    def rule_diff(self, other: "Arm") -> dict[str, tuple]:
        """{rule: (self value, other value)} for every rule that differs."""
        names = list(self.rules) + [k for k in other.rules if k not in self.rules]
        return {k: (self.rules.get(k), other.rules.get(k)) for k in names
                if self.rules.get(k) != other.rules.get(k)}

    def player_diff(self, other: "Arm") -> dict[str, tuple]:
        """{player parameter: (self value, other value)} when both tables seat one policy at every
        seat, the same policy, with parameters that differ (knutten-start's four tables); else {}."""
        if not (self.uniform and other.uniform and self.seat_params and other.seat_params):
            return {}
        (pa, va), (pb, vb) = self.seat_params[0], other.seat_params[0]
        if pa != pb:
            return {}
        return {k: (va.get(k), vb.get(k)) for k in dict.fromkeys([*va, *vb]) if va.get(k) != vb.get(k)}

    @property
    def uniform(self) -> bool:
        """Every seat holds the same player (policy and parameters)."""
        return len(set(self.policies)) == 1

    def variant_design(self) -> tuple:
        """What must match for two uniform tables to differ in a player parameter only."""
        return (self.game, self.game_version, self.players, json.dumps(self.deck, sort_keys=True), self.first,
                self.rotate)

    @property
    def mixed_policies(self) -> bool:
        return len(set(self.policies)) > 1

    def describe(self) -> str:
        rules = text.rules(self.rules)
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
        """Rules, then player parameters, that differ: {name: (baseline value, variant value)}."""
        return {**self.a.rule_diff(self.b), **self.a.player_diff(self.b)}

    def describe_changes(self) -> str:
        return ", ".join(f"{k} {text.rule_value(va)}->{text.rule_value(vb)}" for k, (va, vb) in self.changes.items())


class Dataset:
    """Manifest plus lazy scans of ``DIR/<arm>/batch-*.parquet``."""

    def __init__(self, root: str | Path):
        self.root = Path(root)
        if not self.root.is_dir():
            raise ReportError(f"{self.root}: not a directory")
        self.manifest = self._read_manifest()
        try:
            self._describe()
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise ReportError(f"{self.root}/study.json does not describe a study ({type(exc).__name__}: "
                              f"{exc}): the dataset is damaged") from None

    def _describe(self) -> None:
        study = self.manifest.get("study", {})
        self.study = study
        self.name = study.get("name", self.root.name)
        self.fingerprint = self.manifest.get("fingerprint")
        games = self.manifest.get("games", {})
        arms, candidates = [], []
        for i, a in enumerate(study.get("arms", [])):
            game = a.get("game", "game")
            players = int(a["players"])
            if players < 1:
                raise ValueError(f"arm {a.get('name')!r}: players {players}")
            if not isinstance(a.get("rules") or {}, dict):
                raise ValueError(f"arm {a.get('name')!r}: rules {a.get('rules')!r}")
            policies = tuple(a.get("policies") or ()) or ("default",) * players
            if len(policies) != players or not all(isinstance(p, str) for p in policies):
                raise ValueError(f"arm {a.get('name')!r}: policies {a.get('policies')!r}")
            if not isinstance(a["name"], str) or not a["name"] or "/" in a["name"] or a["name"].startswith("."):
                raise ValueError(f"arm name {a['name']!r}")
            seats = tuple((str(t.get("policy")), dict(t.get("params") or {}))
                          for t in a.get("seats") or () if isinstance(t, dict))
            arm = Arm(name=a["name"], game=game, players=players, rules=dict(a.get("rules") or {}),
                      policies=policies, deck=a.get("data") or a.get("deck"), game_version=a.get("game_version"),
                      index=i, seat_params=seats if len(seats) == players else (), first=int(a.get("first", 0)),
                      rotate=a.get("rotate") is True,
                      luck=a.get("luck") is True,
                      search=str(a.get("search", "")))
            # a search's candidates are read by its own section (reports/search.py), not the generic ones
            (candidates if a.get("search_role") == "candidate" else arms).append(arm)
        if not arms and not candidates:
            raise ReportError(f"{self.root}: the study lists no arms")
        self.all_arms = arms
        self.candidates = candidates
        self.games = {}
        for arm in arms + candidates:
            g = games.get(arm.game, {})
            self.games[arm.game] = GameInfo(arm.game, str(g.get("score", "score")),
                                            bool(g.get("higher_score_wins", True)), g.get("version"),
                                            tuple(str(c) for c in g.get("luck") or ()))

    # -- manifest ---------------------------------------------------------------------------------
    def _read_manifest(self) -> dict:
        import pyarrow.fs as pafs

        fs, root = pafs.LocalFileSystem(), str(self.root.resolve())
        try:
            manifest = _integrity.load_manifest(fs, root)
        except _integrity.DamagedManifest as exc:
            raise ReportError(_damaged(self.root, str(exc))) from None
        if manifest is not None:
            return manifest
        # A directory without study.json: every batch file carries its study's head and its own arm
        # (older files: the whole study), so one file per arm describes the study.
        manifest = _integrity.manifest_from_batches(fs, root)
        if manifest is None:
            raise ReportError(f"{self.root}: no study.json and no batch files with kaartlab metadata")
        return manifest

    # -- integrity --------------------------------------------------------------------------------
    @cached_property
    def integrity(self) -> "Checked | None":
        """Every batch file checked against its record and the plan (the records pipelines write,
        docs/reliability.md); None for a dataset written before records, read as it is."""
        if "integrity" not in self.manifest and _integrity.SEAL not in self.manifest \
                and not any(self.root.glob("*/batch-*.parquet.json")):
            return None  # written before batch records (or rebuilt from batch files): read as it is
        try:
            return check_batches(self.root, self.manifest)
        except _integrity.DamagedManifest as exc:
            raise ReportError(_damaged(self.root, str(exc))) from None
        except (KeyError, TypeError, ValueError) as exc:
            raise ReportError(f"{self.root}/study.json lacks the study's plan ({exc}): the dataset is damaged") from None

    def completeness(self) -> Completeness:
        """Games found per arm against games planned, batch files that failed verification, and
        missing batch files: what the report's completeness section says."""
        state = self.integrity
        if state is None:
            found = {}
            for a in self.all_arms:
                files = self._files(a.name)
                found[a.name] = pl.scan_parquet(files).select(pl.len()).collect().item() if files else 0
            return Completeness(dict(found), found, [], {}, unverified=True)
        return Completeness(state.planned, state.games, state.bad, state.missing)

    def _files(self, arm: str) -> list[str]:
        """The arm's batch files that verify (every batch file of a dataset without records)."""
        if self.integrity is None:
            return [str(p) for p in sorted((self.root / arm).glob(BATCH_GLOB))]
        return [str(self.root / rel) for rel in self.integrity.good.get(arm, [])]

    # -- arms -------------------------------------------------------------------------------------
    @cached_property
    def arms(self) -> list[Arm]:
        """Arms that have at least one verified batch file, in study order."""
        return [a for a in self.all_arms if self._files(a.name)]

    def arm(self, name: str) -> Arm:
        for a in self.all_arms + self.candidates:
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
        arms = self.arms if game is None else self.arms_of(game)
        return pl.scan_parquet([f for a in arms for f in self._files(a.name)], hive_partitioning=False)

    def scan_arm(self, name: str) -> pl.LazyFrame:
        """One row per game of arm `name`, from its own files only."""
        return pl.scan_parquet(self._files(name), hive_partitioning=False)

    # -- structure of the study --------------------------------------------------------------------
    @property
    def sweeps(self) -> list[dict]:
        """The study's [[sweep]] records (study.json): name, parameters, values, bases, points."""
        return list(self.study.get("sweeps") or [])

    def sweep(self, name: str) -> dict:
        for sweep in self.sweeps:
            if sweep["name"] == name:
                return sweep
        raise KeyError(name)

    @cached_property
    def _sweep_by_arm(self) -> dict[str, str]:
        return {p["arm"]: w["name"] for w in self.sweeps for p in w["points"]}

    def sweep_of(self, arm: str) -> str | None:
        """The sweep whose point ``arm`` is, or None."""
        return self._sweep_by_arm.get(arm)

    def variant_pairs(self, game: str) -> list[Pair]:
        """Pairs of arms with the same game, players, policies and deck whose rules differ, and pairs
        of tables that seat one player everywhere and differ in that player's parameters.

        The baseline is the arm with the lower value when a single rule differs (0 -> 1 for a
        switch), otherwise the earlier arm in the study. Worked out once per game (every question
        and section asks, and a study of many arms has many pairs)."""
        if game not in self._variant_pairs:
            self._variant_pairs[game] = self._find_variant_pairs(game)
        return list(self._variant_pairs[game])

    @cached_property
    def _variant_pairs(self) -> dict[str, list[Pair]]:
        return {}

    def _find_variant_pairs(self, game: str) -> list[Pair]:
        pairs = []
        for a, b in combinations(self.arms_of(game), 2):
            if self.sweep_of(a.name) is not None and self.sweep_of(a.name) == self.sweep_of(b.name):
                continue  # two points of one sweep: its curve compares them (reports/sweeps.py)
            if a.design() == b.design():
                diff = a.rule_diff(b)
            elif a.variant_design() == b.variant_design() and not a.rule_diff(b) and len(a.player_diff(b)) == 1:
                diff = a.player_diff(b)  # one player parameter, same rules: the parameter's effect
            else:
                continue
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
