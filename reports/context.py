"""What sections share while one game's part of a report is built: the scan and computed results."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import polars as pl

from reports.dataset import Arm, Dataset, GameInfo


class Context:
    """One game of a study: its arms, one lazy scan, and a cache so a result computed by one
    section (seat shares, paired comparisons) is reused by the next instead of re-read."""

    def __init__(self, dataset: Dataset, game: str):
        self.dataset = dataset
        self.game = game
        self.info: GameInfo = dataset.games[game]
        self.arms: list[Arm] = dataset.arms_of(game)
        self.max_players = max(a.players for a in self.arms)
        self.multi_game = len(dataset.game_names) > 1
        self._cache: dict[Any, Any] = {}

    @property
    def scan(self) -> pl.LazyFrame:
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

    @property
    def score_word(self) -> str:
        return self.info.score

    @property
    def better_score(self) -> str:
        return "higher is better" if self.info.higher_score_wins else "fewer is better"
