"""Typed parameters: one mechanism for a game's rule parameters and for its players' parameters.

A parameter is an int, a float, a bool or a choice among named options. It knows its default, its
bounds or options, what it means and which sentence of the rules text or which ruling it
implements. `parse` turns user text (CLI) or a TOML value into the canonical value kept in specs
and study.json (int, float, bool or the option's name); `kernel_value` turns that into the number a
kernel reads (bool 0/1, a choice's index). Every error names the parameter and the bad value.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

from sim.errors import SpecError

KINDS = ("int", "float", "bool", "choice")
_NAME_RE = re.compile(r"^[a-z][a-z0-9_]{0,39}$")
_TRUE = {"true", "on", "yes", "1"}
_FALSE = {"false", "off", "no", "0"}


@dataclass(frozen=True)
class Param:
    name: str
    kind: str
    default: Any
    help: str
    source: str  # the rules text's sentence or the ruling this parameter implements
    lo: float | int | None = None
    hi: float | int | None = None
    options: tuple[str, ...] = ()

    def __post_init__(self):
        if not _NAME_RE.match(self.name):
            raise ValueError(f"parameter name {self.name!r}: lower-case letters, digits and '_'")
        if self.kind not in KINDS:
            raise ValueError(f"parameter {self.name}: kind {self.kind!r} not in {KINDS}")
        if not self.help or not self.source:
            raise ValueError(f"parameter {self.name} needs a meaning and its source")
        if self.kind == "choice" and len(set(self.options)) != len(self.options) or (
                self.kind == "choice" and len(self.options) < 2):
            raise ValueError(f"parameter {self.name}: a choice needs two or more distinct options")
        if self.kind in ("int", "float") and not (self.lo is not None and self.hi is not None
                                                   and self.lo <= self.hi):
            raise ValueError(f"parameter {self.name}: bounds {self.lo}..{self.hi}")
        try:
            canonical = self.parse(self.default) == self.default
        except SpecError as exc:
            raise ValueError(f"parameter {self.name}: default {self.default!r}: {exc}") from None
        if not canonical:
            raise ValueError(f"parameter {self.name}: default {self.default!r} is not canonical")

    # ------------------------------------------------------------------------------ values

    def parse(self, value, what: str = "", typed: bool = False) -> Any:
        """The canonical value of `value` (CLI text or a TOML value); SpecError names the problem.
        `typed`: the value comes from a typed source (a study file, study.json), where text is not a
        number and "yes" is not true: only the CLI's text is parsed."""
        label = f"{what}{self.name}={value!r}"
        if typed and isinstance(value, str) and self.kind != "choice":
            kind = {"bool": "true or false (no quotes)", "int": "a whole number (no quotes)",
                    "float": "a number (no quotes)"}[self.kind]
            raise SpecError(f"{label}: expected {kind}")
        if self.kind == "bool":
            if isinstance(value, bool):
                return value
            word = str(value).strip().lower()
            if word in _TRUE or word in _FALSE:
                return word in _TRUE
            raise SpecError(f"{label}: expected true or false")
        if self.kind == "choice":
            if isinstance(value, str) and value.strip() in self.options:
                return value.strip()
            raise SpecError(f"{label}: expected one of {', '.join(self.options)}")
        expected = (f"expected {'a whole number' if self.kind == 'int' else 'a number'} in "
                    f"{self.show(self.lo)}..{self.show(self.hi)}")
        if isinstance(value, bool):
            raise SpecError(f"{label}: {expected}")
        if self.kind == "int":
            number = value if isinstance(value, int) else _parse_number(str(value), int)
        else:
            number = float(value) if isinstance(value, (int, float)) else _parse_number(str(value), float)
            if number is not None and not math.isfinite(number):
                number = None
        if number is None:
            raise SpecError(f"{label}: {expected}")
        if not self.lo <= number <= self.hi:
            raise SpecError(f"{what}{self.name}={self.show(number)}: out of range "
                            f"{self.show(self.lo)}..{self.show(self.hi)}")
        return number

    def kernel_value(self, value) -> int | float:
        """What the kernel reads: ints as they are, bools 0/1, a choice's index, floats."""
        if self.kind == "choice":
            return self.options.index(value)
        if self.kind == "float":
            return float(value)
        return int(value)

    def show(self, value) -> str:
        if self.kind == "bool":
            return "true" if value else "false"
        return f"{value:g}" if self.kind == "float" else str(value)

    def type_text(self) -> str:
        if self.kind == "bool":
            return "true/false"
        if self.kind == "choice":
            return "|".join(self.options)
        return f"{self.kind} {self.show(self.lo)}..{self.show(self.hi)}"

    @property
    def in_float_array(self) -> bool:
        """Kernels receive floats in one float64 array and everything else in one int64 array."""
        return self.kind == "float"


def _parse_number(text: str, kind):
    try:
        return kind(text.strip().replace("_", ""))
    except ValueError:
        return None


def IntParam(name, default, lo, hi, help, source) -> Param:  # noqa: N802 (reads like a type)
    return Param(name, "int", default, help, source, lo=lo, hi=hi)


def FloatParam(name, default, lo, hi, help, source) -> Param:  # noqa: N802
    return Param(name, "float", float(default), help, source, lo=float(lo), hi=float(hi))


def BoolParam(name, default, help, source) -> Param:  # noqa: N802
    return Param(name, "bool", bool(default), help, source)


def ChoiceParam(name, default, options, help, source) -> Param:  # noqa: N802
    return Param(name, "choice", default, help, source, options=tuple(options))


def find(params: tuple[Param, ...], name: str, what: str, where: str = "") -> Param:
    for param in params:
        if param.name == name:
            return param
    known = ", ".join(p.name for p in params) or "none"
    raise SpecError(f"unknown {what} {name!r}{where} (known: {known})")


def resolve(params: tuple[Param, ...], given: dict | None, what: str,
            where: str = "", typed: bool = False) -> tuple[tuple[str, Any], ...]:
    """Every parameter's canonical value, in declaration order: the given ones parsed, the rest
    their defaults. `given` must be a table; unknown names are errors."""
    if given is None:
        given = {}
    if not isinstance(given, dict):
        raise SpecError(f"{what}s{where} must be a table of NAME = VALUE, not {given!r}")
    values = {p.name: p.default for p in params}
    for key, value in given.items():
        values[key] = find(params, str(key), what, where).parse(value, f"{what} ", typed)
    return tuple(values.items())


def kernel_arrays(params: tuple[Param, ...], values: dict):
    """(int64 array, float64 array) of `values` in declaration order, floats apart."""
    import numpy as np

    ints = [p.kernel_value(values[p.name]) for p in params if not p.in_float_array]
    floats = [p.kernel_value(values[p.name]) for p in params if p.in_float_array]
    return np.array(ints, dtype=np.int64), np.array(floats, dtype=np.float64)
