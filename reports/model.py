"""What a section hands to the renderers: verdicts, tables, figures, notes and its raw numbers."""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Table:
    title: str
    columns: list[str]
    rows: list[list[str]]  # formatted cells; the raw numbers live in Section.data
    note: str = ""
    fold: bool = False  # secondary detail (e.g. the numbers a figure beside it shows): folded in report.html


@dataclass
class Figure:
    title: str
    png: bytes
    alt: str = ""
    fold: bool = False  # secondary detail: folded in report.html behind its title


@dataclass
class Section:
    key: str  # stable id: summary.json key and HTML anchor
    title: str
    verdicts: list[str] = field(default_factory=list)  # plain-language findings, computed
    notes: list[str] = field(default_factory=list)  # method notes (how the numbers were made)
    tables: list[Table] = field(default_factory=list)
    figures: list[Figure] = field(default_factory=list)
    data: dict = field(default_factory=dict)  # every number shown, machine-readable
    children: list["Section"] = field(default_factory=list)
    level: int = 2
    answers: list = field(default_factory=list)  # the answers section only: reports.answers.Answer
