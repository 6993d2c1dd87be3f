"""Which report parts each game adds: a small dict per kind, keyed by game name.

``SECTIONS[game]``: functions ``(ctx: Context) -> Section | list[Section] | None`` appended after the
generic sections. ``OUTCOMES[game]``: the game's own per-game outcome measures (``compare.Measure``),
used by the variant comparison; a game without an entry is compared on its mean score per seat.
A new game adds a module under ``reports/games/`` and one line in each dict.
"""
from __future__ import annotations

from reports.games import knutten, wizard

SECTIONS = {
    "knutten": (knutten.john_knut_section,),
    "wizard": (wizard.wizard_section,),
}

OUTCOMES = {
    "knutten": knutten.OUTCOMES,
    "wizard": wizard.OUTCOMES,
}
