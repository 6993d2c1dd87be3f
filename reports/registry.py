"""A game's report plug-in, found by name: the module `reports.games.<game>`, if there is one.

A plug-in defines ``SECTIONS``: functions ``(ctx: Context) -> Section | list[Section] | None``
appended after the generic sections, and ``OUTCOMES``: the game's own per-game outcome measures
(``compare.Measure``) for the variant comparison. A game without a plug-in gets the generic
sections, and its variants are compared on the mean score per seat. Adding a game edits no list.
"""
from __future__ import annotations

import importlib
from types import ModuleType


def plugin(game: str) -> ModuleType | None:
    name = f"reports.games.{game}"
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name != name:
            raise
        return None


def sections(game: str) -> tuple:
    return tuple(getattr(plugin(game), "SECTIONS", ()))


def outcomes(game: str) -> tuple | None:
    return getattr(plugin(game), "OUTCOMES", None)
