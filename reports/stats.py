"""Statistics for reports, on aggregates Polars already computed (sums, means, variances).

Intervals and tests come from maintained libraries (statsmodels, scipy); this module only adapts
them to aggregates and names the conventions:

* Shares of wins are Wilson intervals (``statsmodels.stats.proportion.proportion_confint``). A win
  shared by n winners counts 1/n, so the *count of weighted wins* (a sum of per-game values in
  [0, 1]) is passed as the number of successes; with few ties this is very close to the plain
  binomial interval.
* Differences of per-game quantities between two arms are paired on the game index (common random
  numbers): mean of the per-game differences with a t-interval. The unpaired (Welch) interval on
  the same games is kept alongside, to show what the pairing buys.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats as sps
from statsmodels.stats.power import NormalIndPower
from statsmodels.stats.proportion import proportion_confint, proportion_effectsize

ALPHA = 0.05
POWER = 0.80


@dataclass(frozen=True)
class Estimate:
    """A number with its (1 - ALPHA) interval and how many games it rests on."""

    value: float
    lo: float
    hi: float
    n: int
    method: str

    def excludes(self, ref: float = 0.0) -> bool:
        """True when the interval lies wholly on one side of ref (the data can tell)."""
        return bool(np.isfinite(self.lo) and np.isfinite(self.hi) and not (self.lo <= ref <= self.hi))

    def shift(self, by: float) -> "Estimate":
        return Estimate(self.value + by, self.lo + by, self.hi + by, self.n, self.method)

    def scale(self, by: float) -> "Estimate":
        lo, hi = sorted((self.lo * by, self.hi * by))
        return Estimate(self.value * by, lo, hi, self.n, self.method)

    def negate(self) -> "Estimate":
        return Estimate(-self.value, -self.hi, -self.lo, self.n, self.method)

    def complement(self) -> "Estimate":
        """1 - x, e.g. balance from the largest gap."""
        return Estimate(1.0 - self.value, 1.0 - self.hi, 1.0 - self.lo, self.n, self.method)

    def to_dict(self) -> dict:
        return {"estimate": self.value, "lo": self.lo, "hi": self.hi, "n": self.n, "method": self.method}


def _nan_estimate(n: int, method: str) -> Estimate:
    return Estimate(math.nan, math.nan, math.nan, int(n), method)


def wilson(successes: float, n: int, alpha: float = ALPHA) -> Estimate:
    """Share successes/n with a Wilson interval; successes may be a weighted (fractional) count."""
    n = int(n)
    if n <= 0:
        return _nan_estimate(0, "wilson")
    successes = float(min(max(successes, 0.0), n))
    lo, hi = proportion_confint(successes, n, alpha=alpha, method="wilson")
    return Estimate(successes / n, float(lo), float(hi), n, "wilson")


def mean_interval(mean: float, var: float, n: int, alpha: float = ALPHA, method: str = "t") -> Estimate:
    """Mean of n per-game values (sample variance var) with a Student t interval."""
    n = int(n)
    if n <= 0 or mean is None or not np.isfinite(mean):
        return _nan_estimate(n, method)
    if n < 2 or var is None or not np.isfinite(var):
        return Estimate(float(mean), math.nan, math.nan, n, method)
    half = float(sps.t.ppf(1 - alpha / 2, n - 1)) * math.sqrt(max(var, 0.0) / n)
    return Estimate(float(mean), float(mean) - half, float(mean) + half, n, method)


def welch_difference(mean_a: float, var_a: float, n_a: int, mean_b: float, var_b: float, n_b: int,
                     alpha: float = ALPHA) -> Estimate:
    """mean_b - mean_a treating the two samples as independent (Welch-Satterthwaite t)."""
    if min(n_a, n_b) < 2 or not all(np.isfinite([mean_a, mean_b, var_a, var_b])):
        return _nan_estimate(min(n_a, n_b), "welch")
    va, vb = max(var_a, 0.0) / n_a, max(var_b, 0.0) / n_b
    se2 = va + vb
    diff = float(mean_b - mean_a)
    if se2 == 0:
        return Estimate(diff, diff, diff, int(min(n_a, n_b)), "welch")
    df = se2 ** 2 / ((va ** 2 / (n_a - 1) if va else 0.0) + (vb ** 2 / (n_b - 1) if vb else 0.0))
    half = float(sps.t.ppf(1 - alpha / 2, df)) * math.sqrt(se2)
    return Estimate(diff, diff - half, diff + half, int(min(n_a, n_b)), "welch")


@dataclass(frozen=True)
class ChiSquare:
    statistic: float
    df: int
    p_value: float

    def to_dict(self) -> dict:
        return {"statistic": self.statistic, "df": self.df, "p_value": self.p_value}


def equal_shares_test(weighted_wins) -> ChiSquare:
    """Chi-square goodness of fit of weighted win counts per seat against 'every seat equal'."""
    observed = np.asarray(weighted_wins, dtype=float)
    if observed.size < 2 or observed.sum() <= 0:
        return ChiSquare(math.nan, max(observed.size - 1, 0), math.nan)
    result = sps.chisquare(observed)
    return ChiSquare(float(result.statistic), int(observed.size - 1), float(result.pvalue))


def games_needed(share: float, fair: float, alpha: float = ALPHA, power: float = POWER) -> float:
    """Games for a two-sided one-sample test at level alpha to detect share != fair with given power.

    Cohen's h effect size (``proportion_effectsize``) and ``NormalIndPower`` with ratio=0 (one
    sample). Infinite when share == fair (no edge to detect).
    """
    if not (np.isfinite(share) and 0 < fair < 1):
        return math.nan
    share = min(max(share, 1e-9), 1 - 1e-9)
    h = abs(float(proportion_effectsize(share, fair)))
    if h < 1e-12:
        return math.inf
    n = NormalIndPower().solve_power(effect_size=h, alpha=alpha, power=power, ratio=0,
                                     alternative="two-sided")
    return float(math.ceil(float(np.asarray(n).item())))
