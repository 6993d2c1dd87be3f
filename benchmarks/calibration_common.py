"""What every calibration script shares (benchmarks/stats_calibration.py and
benchmarks/calibration_<game>.py): a measured rate with its binomial interval, and the power of the
tests the reports run, which a planted effect must be found at.

(benchmarks/calibration.py is something else: the CPU-speed calibration kernel of the timing
benchmarks.)

* ``rate``: how many of how many, the share and its 95% Wilson interval. A calibration passes when
  that interval includes the nominal level (5% under a null) or the stated power.
* ``power``: two-sided test of 'the true value is 0' for an estimate with a given standard error;
  the report's t tests (``reports.stats.mean_interval``: n - 1 degrees of freedom) by the noncentral
  t, its z tests by the normal. ``tests``: claims corrected together (level alpha / tests, Holm's
  first step, as ``reports.stats.claim_level``).
* ``hotelling_power``: ``reports.stats.equal_means_test`` (Hotelling's T^2 on per-game vectors, F
  distribution) for planted means, from a covariance estimated on the games themselves.
"""
from __future__ import annotations

import math
from typing import Iterable

import numpy as np
from scipy import stats as sps
from statsmodels.stats.proportion import proportion_confint

from reports.stats import ALPHA, claim_level


def rate(hits: Iterable[bool] | int, n: int | None = None) -> dict:
    """Share of hits with its 95% Wilson interval: ``rate(flags)`` or ``rate(count, n)``."""
    if n is None:
        flags = [bool(h) for h in hits]
        count, n = sum(flags), len(flags)
    else:
        count = int(hits)
    lo, hi = proportion_confint(count, n, alpha=0.05, method="wilson") if n else (math.nan, math.nan)
    return {"rate": count / n if n else math.nan, "count": int(count), "n": int(n), "lo": float(lo), "hi": float(hi)}


def power(effect: float, se: float, df: float | None = None, alpha: float = ALPHA, tests: int = 1) -> float:
    """Chance that a two-sided test at level alpha / tests of 'the true value is 0' rejects, for a
    true ``effect`` whose estimate has standard error ``se``: the t test with ``df`` degrees of
    freedom (noncentral t), or the z test when df is None."""
    if not (se > 0 and np.isfinite(effect)):
        return math.nan
    level = claim_level(alpha, tests)
    shift = abs(effect) / se
    if df is None:
        q = float(sps.norm.ppf(1 - level / 2))
        return float(sps.norm.sf(q - shift) + sps.norm.cdf(-q - shift))
    q = float(sps.t.ppf(1 - level / 2, df))
    near = float(sps.nct.sf(q, df, shift))
    far = float(sps.nct.cdf(-q, df, shift))  # the wrong-sign rejections: scipy gives nan once it underflows
    if not np.isfinite(near):
        return math.nan
    return min(near + (far if np.isfinite(far) else 0.0), 1.0)


def paired_power(effect: float, sd: float, games: int, alpha: float = ALPHA) -> float:
    """``power`` of the paired (one-sample) t test over ``games`` per-game differences of spread ``sd``."""
    return power(effect, sd / math.sqrt(games), df=games - 1, alpha=alpha)


def hotelling_power(planted: np.ndarray, cov: np.ndarray, n: int, alpha: float = ALPHA) -> float:
    """Power of ``equal_means_test`` (every entry of a per-game vector has the same mean; contrasts
    with the last entry) over n games whose true means differ by ``planted`` and whose per-game
    covariance ``cov`` is estimated on those n games.

    T^2 (n - q) / (q (n - 1)) is noncentral F(q, n - q) with noncentrality n d' S^-1 d at the true
    contrasts d and covariance S. The inverse of an estimated covariance overstates S^-1 by
    (n - 1) / (n - q - 2) on average (inverse Wishart), so the plug-in noncentrality is scaled back
    by that factor. (A chi-square in place of the F, with the plug-in noncentrality, overstates the
    power of the test the report runs by several points at q = 23, n = 250.)"""
    planted, cov = np.asarray(planted, float), np.asarray(cov, float)
    k = planted.size
    q = k - 1
    if n - q - 2 <= 0:
        return math.nan
    c = np.hstack([np.eye(q), -np.ones((q, 1))])
    d = c @ planted
    lam = float(n * d @ np.linalg.pinv(c @ cov @ c.T) @ d) * (n - q - 2) / (n - 1)
    crit = float(sps.f.ppf(1 - alpha, q, n - q))
    if lam <= 0:
        return float(alpha)
    return float(sps.ncf.sf(crit, q, n - q, lam))
