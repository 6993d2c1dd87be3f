"""The measures a study's questions can name: generic ones, every game has them, and each game's own
(the ``key`` of every ``compare.Measure`` in its report plug-in's ``OUTCOMES``).

A name is what a user types in a ``[[question]]`` table (``measures = ["seat0_edge", "turns"]``) and
what ``kaartlab games GAME`` lists. Importing this module reads no data and compiles nothing.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class MeasureName:
    name: str
    label: str
    kind: str  # "share" (shown in percent, differences in percentage points), "count" or "score"
    source: str  # "generic" or the game's name
    key: str = ""  # the variant comparison's key for it (compare.Measure.key); "" = the name itself

    @property
    def comparison_key(self) -> str:
        return self.key or self.name

    def to_dict(self) -> dict:
        return {"name": self.name, "label": self.label, "kind": self.kind, "source": self.source}


GENERIC = (
    MeasureName("seat0_edge", "seat 0's edge (its win share minus the fair share)", "share", "generic",
                "seat0_win"),
    MeasureName("seat_share", "every seat's win share", "share", "generic"),
    MeasureName("balance", "balance (1 - gap between the best and worst seat's win share)", "share",
                "generic"),
    MeasureName("turns", "turns per game", "count", "generic"),
    MeasureName("rounds", "rounds per game", "count", "generic"),
    MeasureName("score", "final score per seat", "score", "generic", "score_mean"),
)
# What a comparison looks at when a question names no measures.
DEFAULT_COMPARE = ("seat0_edge", "seat_share", "balance", "turns", "rounds")


def catalogue(game: str) -> list[MeasureName]:
    """Every measure a question about ``game`` can name: the generic ones, then the game's own."""
    from reports.registry import outcomes

    own = outcomes(game) or ()
    generic_keys = {m.comparison_key for m in GENERIC} | {m.name for m in GENERIC}
    return list(GENERIC) + [MeasureName(m.key, m.label, "share" if m.share else "count", game)
                            for m in own if m.key not in generic_keys]


def names(game: str) -> list[str]:
    return [m.name for m in catalogue(game)]


def lookup(game: str, name: str) -> MeasureName:
    for m in catalogue(game):
        if m.name == name:
            return m
    raise KeyError(name)
