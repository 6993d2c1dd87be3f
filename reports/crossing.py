"""Where a measure crosses a target along a swept parameter, with a 95% confidence set for that value.

**The curve** is fitted to the whole sweep: the measure's mean at each value tried, with the
covariance of those means measured from the games (a sweep's points play the same games, so their
means are correlated and that must be counted, not ignored). A polynomial in the parameter of degree
1, 2 or 3 is fitted by generalised least squares with that covariance, the lowest degree the points
do not reject (chi-square lack-of-fit test at 1%). When even a cubic is rejected, the curve is the
means joined by straight lines, (1 - w) m_i + w m_j between two values tried, with its exact
standard error from the same covariance.

**The confidence set** inverts a test: x is kept when the curve at x is within the two-sided 95%
band of the target, |f(x) - target| <= z se(x). At the true crossing f(x*) = target, so that test
rejects with probability 5% and the set covers x* 95% of the time where the fitted form is right
(the calibration measures it on straight and bent curves, benchmarks/calibration_sweep.py). The set
is found on a fine grid of the range. A crossing need not fall on a whole number even when the
parameter is one (game length may reach 120 turns between thresholds 33 and 34), so for an integer
parameter the answer gives the whole numbers that bracket the set ("33 or 34"), never an empty set
because the curve passes between two of them. The estimate is where the fitted curve first crosses
the target.

Without per-game values (balance is a range of seat shares, not a per-game mean) the covariance is
unknown: the curve is the joined means and the error between two values is (1 - w) se_i + w se_j,
never smaller than the true one whatever the covariance, so the set is conservative.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

Z = 1.959963984540054  # two-sided 95%
# A degree is dropped for a higher one only when its lack-of-fit p-value is below this: a curve
# picked after a chance rejection covers badly (at 5%, straight-line truths were covered 92%).
LACK_OF_FIT = 0.01
GRID = 400  # candidate values of a fractional parameter between the first and last value tried


@dataclass
class Crossing:
    xs: np.ndarray  # the values tried, ascending
    means: np.ndarray  # the measure at each
    se: np.ndarray  # its standard error at each
    target: float
    estimate: float | None  # where the joined means cross the target (the first crossing)
    crossings: int  # how many times they cross it
    candidates: np.ndarray  # the values the set was chosen from
    kept: np.ndarray  # bool per candidate: not excluded at 95%
    integer: bool
    fitted: np.ndarray  # the fitted curve at each candidate
    fitted_se: np.ndarray  # its standard error
    fit: str  # "polynomial of degree d" or "straight lines between the values tried"

    @property
    def found(self) -> bool:
        return bool(self.kept.any())

    @property
    def low(self) -> float | None:
        return float(self.candidates[self.kept].min()) if self.found else None

    @property
    def high(self) -> float | None:
        return float(self.candidates[self.kept].max()) if self.found else None

    @property
    def whole(self) -> list[int]:
        """For an integer parameter: the whole numbers from the one at or below the set's low end to
        the one at or above its high end (the values a designer can choose between)."""
        if not self.found:
            return []
        return list(range(int(np.floor(self.low + 1e-9)), int(np.ceil(self.high - 1e-9)) + 1))

    @property
    def open_low(self) -> bool:
        """The set reaches the smallest value tried: the target may lie below the sweep."""
        return self.found and bool(self.kept[0])

    @property
    def open_high(self) -> bool:
        return self.found and bool(self.kept[-1])

    @property
    def pieces(self) -> int:
        """How many separate runs the set has (1 for an interval)."""
        k = self.kept.astype(np.int8)
        return int(k[0] + np.sum(np.diff(k) == 1)) if self.found else 0

    @property
    def side(self) -> str | None:
        """Without a crossing: 'above' or 'below', where every value tried leaves the measure."""
        if self.estimate is not None:
            return None
        return "above" if self.means[0] > self.target else "below"

    def band(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The fitted curve and its pointwise 95% band on the candidate grid (for figures)."""
        return self.fitted, self.fitted - Z * self.fitted_se, self.fitted + Z * self.fitted_se

    def to_dict(self) -> dict:
        return {"estimate": self.estimate, "low": self.low, "high": self.high, "open_low": self.open_low,
                "open_high": self.open_high, "pieces": self.pieces, "crossings": self.crossings,
                "side": self.side, "integer": self.integer, "fit": self.fit,
                "kept": self.whole if self.integer else None}


def curve_at(xs: np.ndarray, means: np.ndarray, se: np.ndarray, cov: np.ndarray | None,
             at: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The joined curve and its standard error at each value of ``at`` (within xs[0]..xs[-1]).
    With ``cov`` (the covariance matrix of the means) the error is exact for the straight line;
    without it, the interpolated errors (an upper bound)."""
    i = np.clip(np.searchsorted(xs, at, side="right") - 1, 0, len(xs) - 2)
    j = i + 1
    w = (at - xs[i]) / (xs[j] - xs[i])
    f = (1 - w) * means[i] + w * means[j]
    if cov is None:
        return f, (1 - w) * se[i] + w * se[j]
    var = (1 - w) ** 2 * cov[i, i] + w ** 2 * cov[j, j] + 2 * w * (1 - w) * cov[i, j]
    return f, np.sqrt(np.maximum(var, 0.0))


def _candidates(xs: np.ndarray, integer: bool) -> np.ndarray:
    grid = np.union1d(np.linspace(xs[0], xs[-1], GRID + 1), xs)
    return np.union1d(grid, np.arange(int(xs[0]), int(xs[-1]) + 1, dtype=float)) if integer else grid


def polynomial(xs: np.ndarray, means: np.ndarray, cov: np.ndarray, level: float | None = None):
    """The lowest-degree polynomial (1-3) the means do not reject, fitted by GLS with their
    covariance: (function giving the curve and its standard error at given values, degree), or None
    when a cubic is rejected too (or the points are too few to test a fit)."""
    from scipy.stats import chi2

    level = LACK_OF_FIT if level is None else level
    mid, half = (xs[0] + xs[-1]) / 2, (xs[-1] - xs[0]) / 2  # scaled to -1..1: a well-conditioned basis
    scale = np.sqrt(np.diag(cov))
    inv = np.linalg.pinv(cov / np.outer(scale, scale)) / np.outer(scale, scale)
    for degree in range(1, min(3, len(xs) - 2) + 1):
        basis = np.vander((xs - mid) / half, degree + 1, increasing=True)
        beta_cov = np.linalg.pinv(basis.T @ inv @ basis)
        beta = beta_cov @ basis.T @ inv @ means
        resid = means - basis @ beta
        if chi2.sf(float(resid @ inv @ resid), len(xs) - degree - 1) > level:
            def evaluate(at, beta=beta, beta_cov=beta_cov, degree=degree):
                ba = np.vander((np.asarray(at, dtype=float) - mid) / half, degree + 1, increasing=True)
                return ba @ beta, np.sqrt(np.maximum(np.einsum("ij,jk,ik->i", ba, beta_cov, ba), 0.0))
            return evaluate, degree
    return None


def _first_crossing(xs: np.ndarray, means: np.ndarray, target: float) -> tuple[float | None, int]:
    d = means - target
    found, count = None, 0
    for k in range(len(xs)):
        if d[k] == 0 and (k == 0 or d[k - 1] != 0):
            count += 1
            found = found if found is not None else float(xs[k])
        elif k + 1 < len(xs) and d[k] * d[k + 1] < 0:
            count += 1
            if found is None:
                found = float(xs[k] + (xs[k + 1] - xs[k]) * d[k] / (d[k] - d[k + 1]))
    return found, count


def crossing(xs, target: float, *, values: np.ndarray | None = None, means=None, se=None,
             integer: bool = False) -> Crossing:
    """The crossing of ``target``. Either ``values`` (games x points: every point's per-game values,
    row g = game g in every point) or ``means`` and ``se`` per point (no covariance known)."""
    xs = np.asarray(xs, dtype=float)
    order = np.argsort(xs)
    xs = xs[order]
    if len(xs) < 2 or np.any(np.diff(xs) <= 0):
        raise ValueError("a crossing needs two or more distinct values")
    cov = None
    if values is not None:
        values = np.asarray(values, dtype=float)[:, order]
        n = values.shape[0]
        means = values.mean(axis=0)
        cov = np.cov(values, rowvar=False, ddof=1) / n if n > 1 else np.zeros((len(xs), len(xs)))
        se = np.sqrt(np.diag(cov))
    else:
        means = np.asarray(means, dtype=float)[order]
        se = np.asarray(se, dtype=float)[order]
    fitted = polynomial(xs, means, cov) if cov is not None and np.all(np.diag(cov) > 0) else None
    if fitted is None:
        evaluate = lambda at: curve_at(xs, means, se, cov, at)  # noqa: E731
        fit = "straight lines between the values tried"
    else:
        evaluate, degree = fitted
        fit = {1: "a straight line", 2: "a parabola", 3: "a cubic"}[degree] + " fitted to every value tried"
    candidates = _candidates(xs, integer)
    f, f_se = evaluate(candidates)
    kept = np.abs(f - target) <= Z * f_se + 1e-12
    fine = np.union1d(np.linspace(xs[0], xs[-1], 4 * GRID + 1), xs)
    estimate, count = _first_crossing(fine, evaluate(fine)[0], target)
    return Crossing(xs, means, se, float(target), estimate, count, candidates, kept, integer, f, f_se, fit)
