"""Multiple comparisons: every 'detectable' / 'not detectable' decision in a report is a claim with a
p-value; all claims of one report form one family, corrected together (Holm by default, which keeps
the chance of any false 'detectable' in the report at or below ALPHA; Benjamini-Hochberg on request,
which keeps the expected share of false ones at or below ALPHA). statsmodels ``multipletests``.

Sections register claims while they compute (``Context.claim``); ``build_sections`` makes every
section once to collect them, corrects the family, then makes the sections again, now worded from
the corrected decisions. A claim read before the family is corrected raises, so no verdict can be
worded from an uncorrected p-value by accident.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from reports.lazy import LazyModule
from reports.stats import ALPHA

_multitest = LazyModule("statsmodels.stats.multitest")

METHODS = {"holm": ("holm", "Holm"), "bh": ("fdr_bh", "Benjamini-Hochberg")}


@dataclass
class Claim:
    key: str
    section: str
    label: str
    p_value: float
    family: "Family" = field(repr=False, default=None)
    adjusted: float = math.nan
    _rejected: bool | None = None

    @property
    def detected(self) -> bool:
        """The corrected decision: the data show an effect (family-wide error controlled)."""
        if self.family is not None and self.family.collecting:
            return False  # first pass: the wording is thrown away
        if self.family is None or not self.family.corrected:
            raise RuntimeError(f"claim {self.key!r} read before its family was corrected")
        return bool(self._rejected)

    def to_dict(self) -> dict:
        return {"section": self.section, "label": self.label, "p_value": self.p_value,
                "adjusted_p_value": self.adjusted, "detected": self._rejected}


class Family:
    """The claims of one report, corrected together."""

    def __init__(self, correction: str = "holm", alpha: float = ALPHA):
        if correction not in METHODS:
            raise ValueError(f"correction must be one of {sorted(METHODS)}, not {correction!r}")
        self.correction, self.alpha = correction, alpha
        self.claims: dict[str, Claim] = {}
        self.corrected = False
        self.collecting = False  # build_sections' first pass: decisions read as False, wording discarded

    @property
    def name(self) -> str:
        return METHODS[self.correction][1]

    def add(self, key: str, section: str, label: str, p_value: float) -> Claim:
        """Register a claim (once per key; a second call returns the first claim)."""
        if key in self.claims:
            return self.claims[key]
        if self.corrected:
            raise RuntimeError(f"claim {key!r} registered after the family was corrected")
        claim = Claim(key, section, label, float(p_value) if p_value is not None else math.nan, self)
        self.claims[key] = claim
        return claim

    def correct(self) -> None:
        tested = [c for c in self.claims.values() if np.isfinite(c.p_value)]
        for c in self.claims.values():
            c._rejected, c.adjusted = False, math.nan
        if tested:
            reject, adj, _, _ = _multitest.multipletests([min(max(c.p_value, 0.0), 1.0) for c in tested], alpha=self.alpha,
                                              method=METHODS[self.correction][0])
            for c, r, a in zip(tested, reject, adj):
                c._rejected, c.adjusted = bool(r), float(a)
        self.corrected = True
        self.collecting = False

    def describe(self) -> str:
        n = sum(np.isfinite(c.p_value) for c in self.claims.values())
        what = ("the chance of even one false 'detectable' in the report" if self.correction == "holm"
                else "the expected share of false 'detectable' findings")
        return (f"Every 'detectable' in this report is decided with the {self.name} correction over all "
                f"{n} claims of the report at {self.alpha:.0%}, which keeps {what} at or below {self.alpha:.0%}. "
                f"Intervals are ordinary 95% intervals; a claim may be 'not detectable after correction' "
                f"although its own interval excludes 0.")

    def to_dict(self) -> dict:
        return {"correction": self.name, "alpha": self.alpha, "claims": {k: c.to_dict() for k, c in self.claims.items()}}
