"""What sections share while one game's part of a report is built: the scan, computed results, the
report's options and its family of claims (reports.claims)."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import polars as pl

from reports.claims import Claim, Family
from reports.dataset import Arm, Dataset, GameInfo

SMALL_STUDY = 1000  # games per arm below which a report warns that only large effects can be seen


@dataclass(frozen=True)
class Options:
    """Report options: the study file's optional ``report`` table, overridden by build_report's
    keyword arguments. ``edge``: the smallest edge (a share, 0.01 = 1 point) the user cares about,
    for 'games needed'; ``correction``: 'holm' or 'bh'; ``equivalence_margin``: a share; when given,
    an edge inside +-margin (two one-sided tests) is reported as 'equivalent to fair';
    ``mole_target``: a share, the mole's win share the designer aims at in Wie is de Heer? (unset:
    the fair share 1/players of each arm)."""

    edge: float = 0.01
    correction: str = "holm"
    equivalence_margin: float | None = None
    mole_target: float | None = None

    @classmethod
    def resolve(cls, study: dict | None = None, **overrides) -> "Options":
        table = dict((study or {}).get("report") or {})
        unknown = set(table) - {"edge", "correction", "equivalence_margin", "mole_target"}
        if unknown:
            from reports.dataset import ReportError
            raise ReportError(f"study.json report: unknown keys {sorted(unknown)}")
        table.update({k: v for k, v in overrides.items() if v is not None})
        opts = cls(**table)
        if not (isinstance(opts.edge, (int, float)) and 0 < opts.edge < 1):
            from reports.dataset import ReportError
            raise ReportError(f"report edge must be a share between 0 and 1 (0.01 = 1 point), not {opts.edge!r}")
        if opts.correction not in ("holm", "bh"):
            from reports.dataset import ReportError
            raise ReportError(f"report correction must be 'holm' or 'bh', not {opts.correction!r}")
        m = opts.equivalence_margin
        if m is not None and not (isinstance(m, (int, float)) and 0 < m < 1):
            from reports.dataset import ReportError
            raise ReportError(f"report equivalence_margin must be a share between 0 and 1, not {m!r}")
        t = opts.mole_target
        if t is not None and not (isinstance(t, (int, float)) and not isinstance(t, bool) and 0 < t < 1):
            from reports.dataset import ReportError
            raise ReportError(f"report mole_target must be a share between 0 and 1 (0.3 = 30%), not {t!r}")
        return opts


def first_rotation(arm: Arm) -> pl.Expr:
    """The games of a rotating arm that are a deal's first rotation (whole deals by the spec)."""
    return pl.col("game") % arm.players == 0


class Context:
    """One game of a study: its arms, one lazy scan, and a cache so a result computed by one
    section (seat shares, paired comparisons) is reused by the next instead of re-read."""

    def __init__(self, dataset: Dataset, game: str, options: Options | None = None, family: Family | None = None):
        self.dataset = dataset
        self.game = game
        self.info: GameInfo = dataset.games[game]
        self.arms: list[Arm] = dataset.arms_of(game)
        self.max_players = max(a.players for a in self.arms)
        self.multi_game = len(dataset.game_names) > 1
        self.options = options or Options.resolve(dataset.study)
        self.family = family or Family(self.options.correction)
        self._cache: dict[Any, Any] = {}

    def arm_games(self, name: str) -> pl.LazyFrame:
        """`every_game` of one arm, read from its own files (for `metrics.by_arm`)."""
        return self.dataset.scan_arm(name)

    def arm_scan(self, name: str) -> pl.LazyFrame:
        """`scan` of one arm, read from its own files (for `metrics.by_arm`)."""
        arm = self.arm(name)
        games = self.arm_games(name)
        return games.filter(first_rotation(arm)) if arm.rotate else games

    @property
    def scan(self) -> pl.LazyFrame:
        """One row per game, games being independent: of an arm that rotates its seats, each deal's
        first rotation only (its other rotations replay the same cards; the seat shares and the paired
        comparisons read them all, by deal, through `every_game`)."""
        keep = [(pl.col("arm") != a.name) | first_rotation(a) for a in self.arms if a.rotate]
        return self.every_game.filter(pl.all_horizontal(keep)) if keep else self.every_game

    @property
    def every_game(self) -> pl.LazyFrame:
        return self.dataset.scan(self.game)

    def arm(self, name: str) -> Arm:
        return self.dataset.arm(name)

    def key(self, key: str) -> str:
        """Section key, prefixed with the game when a study mixes games (game sections' keys already
        start with the game's name)."""
        if not self.multi_game or key.startswith(f"{self.game}."):
            return key
        return f"{self.game}.{key}"

    def title(self, title: str) -> str:
        return f"{title} ({self.game})" if self.multi_game else title

    def cached(self, key: Any, compute: Callable[[], Any]) -> Any:
        if key not in self._cache:
            self._cache[key] = compute()
        return self._cache[key]

    def claim(self, key: str, section: str, label: str, p_value: float) -> Claim:
        """Register a claim of this report (see reports.claims); keys are made unique per game."""
        return self.family.add(f"{self.game}:{key}", section, label, p_value)

    @property
    def score_word(self) -> str:
        return self.info.score

    @property
    def better_score(self) -> str:
        return "higher is better" if self.info.higher_score_wins else "fewer is better"
