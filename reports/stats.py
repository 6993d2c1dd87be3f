"""Statistics for reports, on aggregates Polars already computed (sums, sums of products, variances).

Intervals and tests come from maintained libraries (statsmodels, scipy) where they exist; this module
adapts them to per-game aggregates and names the conventions (docs/statistics.md says why):

* A share of wins is the mean of per-game win weights (1/k for each of k tied winners). Shared wins
  make the per-game variance smaller than p(1-p), so a share's interval is a Wilson interval at the
  *effective* number of games n p(1-p) / var (``share_interval``; statsmodels ``proportion_confint``).
  With no shared wins it is the ordinary Wilson interval; it stays within 0-100%. Every share in a
  report (a seat, a policy, an exact-bid rate, an event) uses it, so a quantity that appears twice
  gets one interval.
* "Every seat equal" is Hotelling's T^2 on the per-game vector of seat values (its real covariance,
  ``equal_means_test``), not a chi-square on counts.
* Gaps between seats and the range max - min (balance) come from simultaneous max-|t| intervals over
  all pairs with the per-game covariance (``pairwise_gaps``), so picking the two extreme seats after
  looking does not make the gap look bigger or surer than it is; the range's point estimate is
  bias-corrected with a parametric bootstrap.
* Differences of per-game quantities between two arms are paired on the game index (common random
  numbers): mean of the per-game differences with a t-interval and its p-value. The unpaired (Welch)
  interval on the same games is kept alongside, to show what the pairing buys.
* What a study can detect: the smallest edge detectable at its size (``detectable_edge``) and the
  games needed for an edge the user names (``games_for_edge``), from the per-game variance
  (statsmodels ``NormalIndPower``), never from the observed edge, and at the level the report really
  tests at: alpha / claims when the report corrects its claims together (``claim_level``).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from itertools import combinations

import numpy as np
from reports.lazy import LazyModule

sps = LazyModule("scipy.stats")
_power = LazyModule("statsmodels.stats.power")
_proportion = LazyModule("statsmodels.stats.proportion")

ALPHA = 0.05
POWER = 0.80
SIM_DRAWS = 20000  # draws for the max-|t| and bootstrap distributions (fixed seed: reports are reproducible)
SIM_SEED = 20240611
NESTED = 100  # bootstrap replicates re-estimated to get the spread of a balance change


@dataclass(frozen=True)
class Estimate:
    """A number with its (1 - ALPHA) interval, how many games it rests on and, for differences and
    edges, the two-sided p-value of 'no difference' (nan when not a test)."""

    value: float
    lo: float
    hi: float
    n: int
    method: str
    p_value: float = math.nan

    def excludes(self, ref: float = 0.0) -> bool:
        """True when the interval lies wholly on one side of ref (before any multiplicity correction)."""
        return bool(np.isfinite(self.lo) and np.isfinite(self.hi) and not (self.lo <= ref <= self.hi))

    def shift(self, by: float) -> "Estimate":
        return Estimate(self.value + by, self.lo + by, self.hi + by, self.n, self.method, self.p_value)

    def scale(self, by: float) -> "Estimate":
        lo, hi = sorted((self.lo * by, self.hi * by))
        return Estimate(self.value * by, lo, hi, self.n, self.method, self.p_value)

    def negate(self) -> "Estimate":
        return Estimate(-self.value, -self.hi, -self.lo, self.n, self.method, self.p_value)

    def complement(self) -> "Estimate":
        """1 - x, e.g. balance from the largest gap."""
        return Estimate(1.0 - self.value, 1.0 - self.hi, 1.0 - self.lo, self.n, self.method, self.p_value)

    def clip(self, lo: float | None = None, hi: float | None = None) -> "Estimate":
        """Bounds a quantity cannot cross (a count is >= 0, a share within 0-1)."""
        f = lambda x: float(np.clip(x, -np.inf if lo is None else lo, np.inf if hi is None else hi))  # noqa: E731
        return Estimate(f(self.value), f(self.lo), f(self.hi), self.n, self.method, self.p_value)

    def to_dict(self) -> dict:
        out = {"estimate": self.value, "lo": self.lo, "hi": self.hi, "n": self.n, "method": self.method}
        if np.isfinite(self.p_value):
            out["p_value"] = self.p_value
        return out


def _nan_estimate(n: int, method: str) -> Estimate:
    return Estimate(math.nan, math.nan, math.nan, int(n), method)


def _z(alpha: float = ALPHA) -> float:
    return float(sps.norm.ppf(1 - alpha / 2))


# -- shares -------------------------------------------------------------------------------------------
def wilson(successes: float, n: int, alpha: float = ALPHA) -> Estimate:
    """Share successes/n of independent yes/no games with a Wilson interval (statsmodels)."""
    n = int(n)
    if n <= 0:
        return _nan_estimate(0, "wilson")
    successes = float(min(max(successes, 0.0), n))
    lo, hi = _proportion.proportion_confint(successes, n, alpha=alpha, method="wilson")
    return Estimate(successes / n, float(lo), float(hi), n, "wilson")


def effective_games(mean: float, var: float, n: int) -> float:
    """n p(1-p) / var0 (var0 the per-game variance, ddof 0): the number of yes/no games with the same
    precision. n when p is 0 or 1; infinite when every game has the same value strictly inside (0, 1)."""
    n = int(n)
    if n <= 0 or mean is None or not np.isfinite(mean):
        return math.nan
    p = min(max(float(mean), 0.0), 1.0)
    if p <= 0.0 or p >= 1.0:
        return float(n)
    var0 = max(float(var), 0.0) * (n - 1) / n if (var is not None and np.isfinite(var) and n > 1) else p * (1 - p)
    return math.inf if var0 <= 0 else n * p * (1 - p) / var0


def share_interval(mean: float, var: float, n: int, alpha: float = ALPHA) -> Estimate:
    """Mean of per-game values in [0, 1] (win weights, rates) with a Wilson interval at the effective
    number of games (``effective_games``): the score interval of the mean with its real variance,
    within 0-1. ``var`` is the per-game sample variance (ddof 1, as Polars' ``var``)."""
    n = int(n)
    if n <= 0 or mean is None or not np.isfinite(mean):
        return _nan_estimate(max(n, 0), "wilson (effective n)")
    p = min(max(float(mean), 0.0), 1.0)
    n_eff = effective_games(p, var, n)
    if math.isinf(n_eff):
        return Estimate(p, p, p, n, "wilson (effective n)")
    lo, hi = _proportion.proportion_confint(p * n_eff, n_eff, alpha=alpha, method="wilson")
    return Estimate(p, float(lo), float(hi), n, "wilson (effective n)")


def share_from_sums(total: float, total_sq: float, n: int, alpha: float = ALPHA) -> Estimate:
    """share_interval from the sum and the sum of squares of the per-game values."""
    n = int(n)
    if n <= 0:
        return _nan_estimate(0, "wilson (effective n)")
    mean = float(total) / n
    var = (float(total_sq) - n * mean * mean) / (n - 1) if n > 1 else math.nan
    return share_interval(mean, var, n, alpha)


def share_test(est: Estimate, var: float, ref: float) -> float:
    """Two-sided p-value of 'the share equals ref', the score test that the share's Wilson interval
    (at the effective number of games) inverts: the interval excludes ref exactly when p < ALPHA."""
    n = est.n
    if n <= 0 or not np.isfinite(est.value) or not 0 < ref < 1:
        return math.nan
    n_eff = effective_games(est.value, var, n)
    if math.isinf(n_eff):
        return 0.0 if est.value != ref else 1.0
    z = (est.value - ref) / math.sqrt(ref * (1 - ref) / n_eff)
    return float(2 * sps.norm.sf(abs(z)))


# -- means and differences ------------------------------------------------------------------------------
def mean_interval(mean: float, var: float, n: int, alpha: float = ALPHA, method: str = "t",
                  lower: float | None = None, upper: float | None = None, ref: float = 0.0) -> Estimate:
    """Mean of n per-game values (sample variance var) with a Student t interval and the p-value of
    'the mean is ref'. ``lower``/``upper``: bounds the quantity cannot cross (counts are >= 0); the
    interval is clipped to them."""
    n = int(n)
    if n <= 0 or mean is None or not np.isfinite(mean):
        return _nan_estimate(n, method)
    if n < 2 or var is None or not np.isfinite(var):
        return Estimate(float(mean), math.nan, math.nan, n, method)
    se = math.sqrt(max(var, 0.0) / n)
    half = float(sps.t.ppf(1 - alpha / 2, n - 1)) * se
    p = float(2 * sps.t.sf(abs(mean - ref) / se, n - 1)) if se > 0 else (1.0 if mean == ref else 0.0)
    est = Estimate(float(mean), float(mean) - half, float(mean) + half, n, method, p)
    return est.clip(lower, upper) if (lower is not None or upper is not None) else est


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
    p = float(2 * sps.t.sf(abs(diff) / math.sqrt(se2), df))
    return Estimate(diff, diff - half, diff + half, int(min(n_a, n_b)), "welch", p)


# -- several seats at once ----------------------------------------------------------------------------
@dataclass(frozen=True)
class TestResult:
    statistic: float
    df: tuple | int
    p_value: float
    method: str = ""

    def to_dict(self) -> dict:
        return {"statistic": self.statistic, "df": self.df, "p_value": self.p_value, "method": self.method}


ChiSquare = TestResult  # the name older callers used


def moment_matrices(sums: np.ndarray, cross: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """(mean vector, covariance matrix with ddof 1) from per-game sums and sums of products."""
    sums = np.asarray(sums, float)
    mean = sums / n
    cov = (np.asarray(cross, float) - n * np.outer(mean, mean)) / max(n - 1, 1)
    return mean, cov


def equal_means_test(mean: np.ndarray, cov: np.ndarray, n: int) -> TestResult:
    """Hotelling's T^2 test that every entry of a per-game vector has the same mean, from the vector's
    mean and covariance over n games (contrasts with the last entry; F distribution, scipy)."""
    mean, cov = np.asarray(mean, float), np.asarray(cov, float)
    k = mean.size
    if k < 2 or n <= k:
        return TestResult(math.nan, (max(k - 1, 0), max(n - k + 1, 0)), math.nan, "Hotelling T^2")
    c = np.hstack([np.eye(k - 1), -np.ones((k - 1, 1))])
    d, s = c @ mean, c @ cov @ c.T
    q = k - 1
    rank = np.linalg.matrix_rank(s, tol=1e-12 * max(1.0, float(np.abs(s).max())))
    if rank == 0:
        p = 1.0 if np.allclose(d, 0) else 0.0
        return TestResult(0.0 if p == 1.0 else math.inf, (q, n - q), p, "Hotelling T^2")
    t2 = float(n * d @ np.linalg.pinv(s) @ d)
    q = int(rank)
    f = t2 * (n - q) / (q * (n - 1))
    return TestResult(t2, (q, n - q), float(sps.f.sf(f, q, n - q)), "Hotelling T^2")


@dataclass(frozen=True)
class Gaps:
    """All pairwise differences of k means with simultaneous (max-|t|) intervals, and the range."""

    pairs: dict  # (i, j) -> Estimate of mean_i - mean_j, simultaneous interval, max-|t| adjusted p
    range: Estimate  # max - min of the true means: bias-corrected estimate, simultaneous interval
    high: int
    low: int
    critical: float

    def to_dict(self) -> dict:
        return {"range": self.range.to_dict(), "high": self.high, "low": self.low, "critical_t": self.critical}


def _draws(cov_means: np.ndarray, n: int, draws: int, seed: int) -> np.ndarray:
    """Multivariate t draws (n - 1 df) with scale cov_means: the sampling error of a mean vector."""
    rng = np.random.default_rng(seed)
    vals, vecs = np.linalg.eigh((cov_means + cov_means.T) / 2)
    root = vecs * np.sqrt(np.clip(vals, 0, None))
    z = rng.standard_normal((draws, cov_means.shape[0])) @ root.T
    if n > 2:
        z *= np.sqrt((n - 1) / rng.chisquare(n - 1, draws))[:, None]
    return z


def _debiased_range(mean: np.ndarray, z: np.ndarray, steps: int = 16, draws: int = 5000) -> float:
    """The range max - min corrected for picking the extremes after looking: shrink the observed
    deviations from their average by the factor lam in [0, 1] at which the bootstrap's expected
    observed range, E[range(centre + lam * deviations + error)], equals the observed range (the bias
    correction iterated to its fixed point); lam * observed range. 0 when the observed range is no
    larger than pure sampling error would make it."""
    return float(_debiased_ranges(np.asarray(mean, float)[None, :], z[:draws], steps)[0])


def _ranges(x: np.ndarray) -> np.ndarray:
    """max - min over the last axis, a column at a time: the same numbers as np.ptp, many times faster
    when the last axis is a handful of seats (ptp reduces along it row by row)."""
    hi = x[..., 0].copy()
    lo = hi.copy()
    for j in range(1, x.shape[-1]):
        np.maximum(hi, x[..., j], out=hi)
        np.minimum(lo, x[..., j], out=lo)
    return hi - lo


def _debiased_ranges(means: np.ndarray, z: np.ndarray, steps: int = 16) -> np.ndarray:
    """_debiased_range for each row of ``means`` (B x k) at once, errors ``z`` (D x k)."""
    raw = _ranges(means)
    dev = means - means.mean(axis=1, keepdims=True)
    # seats first (k x B x D), so that max and min over the seats run over contiguous slabs: 3x faster
    # than over the last axis, the same numbers
    dev_s = np.ascontiguousarray(dev.T)[:, :, None]
    z_s = np.ascontiguousarray(np.asarray(z).T)[:, None, :]

    def expected(lam: np.ndarray) -> np.ndarray:  # E[range(lam * dev + z)]; the centre does not move a range
        x = lam[None, :, None] * dev_s + z_s
        return (x.max(axis=0) - x.min(axis=0)).mean(axis=1)

    lo, hi = np.zeros(len(raw)), np.ones(len(raw))
    for _ in range(steps):
        mid = (lo + hi) / 2
        below = expected(mid) < raw
        lo, hi = np.where(below, mid, lo), np.where(below, hi, mid)
    out = (lo + hi) / 2 * raw
    return np.where((raw <= 0) | (expected(np.zeros(len(raw))) >= raw), 0.0, out)


def pairwise_gaps(mean, cov, n: int, alpha: float = ALPHA, bounds: tuple | None = None,
                  draws: int = SIM_DRAWS, seed: int = SIM_SEED) -> Gaps:
    """Simultaneous intervals for every mean_i - mean_j (per-game covariance ``cov``, ddof 1, over n
    games) from the max-|t| distribution, simulated with a fixed seed; the range max - min with the
    interval those imply (it holds whenever all pair intervals hold, so it covers at least 1 - alpha)
    and a bias-corrected point estimate (``_debiased_range``), kept within the interval. ``bounds`` clips the range (shares: (0, 1))."""
    mean, cov = np.asarray(mean, float), np.asarray(cov, float)
    k = mean.size
    hi, lo = int(np.argmax(mean)), int(np.argmin(mean))
    raw = float(mean[hi] - mean[lo])
    if k < 2 or n < 2 or not np.all(np.isfinite(cov)):
        return Gaps({}, Estimate(raw, math.nan, math.nan, n, "max-|t|"), hi, lo, math.nan)
    cov_m = cov / n
    pairs = list(combinations(range(k), 2))
    se = np.array([math.sqrt(max(cov_m[i, i] + cov_m[j, j] - 2 * cov_m[i, j], 0.0)) for i, j in pairs])
    z = _draws(cov_m, n, draws, seed)
    diffs = np.stack([z[:, i] - z[:, j] for i, j in pairs], axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        tmax = np.max(np.where(se > 0, np.abs(diffs) / np.where(se > 0, se, 1), 0.0), axis=1)
    crit = float(np.quantile(tmax, 1 - alpha))
    out = {}
    for (i, j), s in zip(pairs, se):
        d = float(mean[i] - mean[j])
        t = abs(d) / s if s > 0 else (math.inf if d else 0.0)
        p = float(np.mean(tmax >= t)) if np.isfinite(t) else 0.0
        out[(i, j)] = Estimate(d, d - crit * s, d + crit * s, n, "simultaneous max-|t|", max(p, 1.0 / draws) if t else 1.0)
        out[(j, i)] = out[(i, j)].negate()
    lo_r = max([0.0] + [abs(e.value) - crit * s for (i, j), s in zip(pairs, se) for e in [out[(i, j)]]])
    hi_r = max(abs(out[p].value) + crit * s for p, s in zip(pairs, se))
    point = min(max(_debiased_range(mean, z), lo_r), hi_r)
    rng_est = Estimate(point, lo_r, hi_r, n, "bias-corrected range, simultaneous max-|t|",
                       min(p.p_value for p in out.values()))
    if bounds is not None:
        rng_est = rng_est.clip(*bounds)
    return Gaps(out, rng_est, hi, lo, crit)


def range_difference(mean_a, mean_b, cov_joint, n: int, alpha: float = ALPHA,
                     draws: int = SIM_DRAWS, seed: int = SIM_SEED) -> Estimate:
    """Change in the range (max - min) of k means from arm a to arm b, the arms paired on the game
    index: ``cov_joint`` is the 2k x 2k per-game covariance of (a's values, b's values). Estimate: the
    difference of the two bias-corrected ranges (as ``pairwise_gaps`` gives them); its standard error:
    the same estimate recomputed on NESTED parametric-bootstrap replicates of both arms drawn with the
    joint covariance (pairing kept); normal interval and p-value."""
    mean_a, mean_b = np.asarray(mean_a, float), np.asarray(mean_b, float)
    k = mean_a.size
    if n < 2 or not np.all(np.isfinite(cov_joint)):
        return _nan_estimate(n, "bootstrap range difference")
    z = _draws(np.asarray(cov_joint, float) / n, n, draws, seed)
    d_hat = float(_debiased_range(mean_b, z[:, k:]) - _debiased_range(mean_a, z[:, :k]))
    # the spread of that estimate: re-estimate it on bootstrap replicates (a nested bootstrap, smaller)
    inner = z[:500]
    star = (_debiased_ranges(mean_b[None, :] + z[:NESTED, k:], inner[:, k:], steps=12)
            - _debiased_ranges(mean_a[None, :] + z[:NESTED, :k], inner[:, :k], steps=12))
    sd = float(star.std(ddof=1))
    if not sd > 0:
        return Estimate(d_hat, d_hat, d_hat, n, "parametric bootstrap", 1.0 if d_hat == 0 else 0.0)
    half = _z(alpha) * sd
    p = float(2 * sps.norm.sf(abs(d_hat) / sd))
    return Estimate(d_hat, d_hat - half, d_hat + half, n, "parametric bootstrap", p)


# -- what a study can detect --------------------------------------------------------------------------
def claim_level(alpha: float = ALPHA, tests: int = 1) -> float:
    """The level one claim is tested at when ``tests`` claims are corrected together: alpha / tests,
    Bonferroni's level and the first step of Holm's. Holm rejects every claim whose p-value is at or
    below it (whatever the other claims do), so power computed at this level is a floor for the
    corrected test the report runs; Benjamini-Hochberg rejects at least as much as Holm."""
    return float(alpha) / max(int(tests), 1)


def detectable_edge(sd: float, n: int, alpha: float = ALPHA, power: float = POWER, tests: int = 1) -> float:
    """Smallest difference a two-sided test detects with the given power in n games whose per-game
    values have standard deviation sd (statsmodels NormalIndPower, one sample), at the level the
    report really tests it: alpha / tests when ``tests`` claims are corrected together (claim_level)."""
    if not (n and n > 1 and np.isfinite(sd) and sd > 0):
        return math.nan
    d = _power.NormalIndPower().solve_power(nobs1=n, alpha=claim_level(alpha, tests), power=power, ratio=0,
                                     alternative="two-sided")
    return float(np.asarray(d).item()) * sd


def games_for_edge(edge: float, sd: float, alpha: float = ALPHA, power: float = POWER, tests: int = 1) -> float:
    """Games for a two-sided test to detect a difference ``edge`` with the given power, per-game
    standard deviation sd (shared wins included), at level alpha / tests (claim_level); statsmodels
    NormalIndPower, one sample."""
    if not (edge and np.isfinite(edge) and np.isfinite(sd) and sd > 0):
        return math.nan
    n = _power.NormalIndPower().solve_power(effect_size=abs(edge) / sd, alpha=claim_level(alpha, tests), power=power,
                                     ratio=0, alternative="two-sided")
    return float(math.ceil(float(np.asarray(n).item())))


def tost_p(est: Estimate, se: float, margin: float, df: float | None = None) -> float:
    """Two one-sided tests: p-value of 'the true value lies outside +-margin' (small p: equivalent)."""
    if not (margin and margin > 0 and np.isfinite(est.value) and se and se > 0):
        return math.nan
    dist = sps.t(df) if df else sps.norm()
    return float(max(dist.sf((est.value + margin) / se), dist.cdf((est.value - margin) / se)))


# -- seat and player effects --------------------------------------------------------------------------
@dataclass(frozen=True)
class SeatPlayerFit:
    """Least squares of the per-game seat win weight on seat + player effects, with a covariance
    clustered by game (the seats of one game are tied)."""

    players: list[str]
    adjusted: dict  # player -> Estimate of its seat-adjusted share (mean over seats), or None when not estimable
    seats: list  # Estimate of each seat's share for an average player of the group
    estimable: dict  # player -> bool

    @property
    def separable(self) -> bool:
        return all(self.estimable.values())


def seat_player_fit(arms: list[tuple[int, np.ndarray, np.ndarray, list[str]]], players: list[str],
                    alpha: float = ALPHA) -> SeatPlayerFit:
    """``arms``: per arm (games n, mean vector of seat win weights, their per-game covariance (ddof 1),
    player of each seat). Model: E[w_s] = a_s + b_p(s) with sum over players of b_p = 0. The player's
    seat-adjusted share is mean_s(a_s) + b_p: its share if it sat in every seat equally often against
    the same field; over the seats of any arm these average 1/players. Fitted from the per-arm means
    (every game of an arm has the same design), the sandwich covariance from the per-arm residual
    moments, clustered by game with the small-sample factor G/(G-1) (statsmodels' convention).
    A player's share is estimable only when the design separates it from the seats (rotation)."""
    k = len(arms[0][1])
    q = len(players)
    idx = {p: i for i, p in enumerate(players)}

    def code(p: str) -> np.ndarray:
        c = np.zeros(q - 1)
        if idx[p] < q - 1:
            c[idx[p]] = 1.0
        else:
            c[:] = -1.0
        return c

    design = [np.array([np.concatenate([np.eye(k)[s], code(pol[s])]) for s in range(k)]) for (_, _, _, pol) in arms]
    xtx = sum(n * x.T @ x for (n, _, _, _), x in zip(arms, design))
    xty = sum(n * x.T @ mean for (n, mean, _, _), x in zip(arms, design))
    inv = np.linalg.pinv(xtx)
    theta = inv @ xty
    meat = np.zeros_like(xtx)
    for (n, mean, cov, _), x in zip(arms, design):
        res = mean - x @ theta
        e = n * (cov * (n - 1) / n + np.outer(res, res))
        meat += x.T @ e @ x
    g = sum(n for n, _, _, _ in arms)
    vcov = inv @ meat @ inv * (g / (g - 1) if g > 1 else 1.0)
    proj = np.eye(len(theta)) - inv @ xtx  # L is estimable when L @ proj == 0
    z = _z(alpha)
    adjusted, estimable = {}, {}
    for p in players:
        lvec = np.concatenate([np.full(k, 1.0 / k), code(p)])
        ok = bool(np.abs(lvec @ proj).max() < 1e-8)
        estimable[p] = ok
        if not ok:
            adjusted[p] = None
            continue
        value, se = float(lvec @ theta), math.sqrt(max(float(lvec @ vcov @ lvec), 0.0))
        pv = float(2 * sps.norm.sf(abs(value - 1.0 / k) / se)) if se > 0 else math.nan
        adjusted[p] = Estimate(value, value - z * se, value + z * se, int(g), "seat + player model, clustered by game",
                               pv).clip(0.0, 1.0)
    seats = []
    for s in range(k):
        lvec = np.concatenate([np.eye(k)[s], np.zeros(q - 1)])
        value, se = float(lvec @ theta), math.sqrt(max(float(lvec @ vcov @ lvec), 0.0))
        seats.append(Estimate(value, value - z * se, value + z * se, int(g), "seat + player model").clip(0.0, 1.0)
                     if np.abs(lvec @ proj).max() < 1e-8 else None)
    return SeatPlayerFit(list(players), adjusted, seats, estimable)


@dataclass(frozen=True)
class LuckFit:
    """A mean with and without the luck of the draw regressed out (``luck_adjusted``)."""

    raw: Estimate
    adjusted: Estimate
    removed: float  # share of the per-unit variance the luck measures explained out of sample

    @property
    def games_ratio(self) -> float:
        """Games the adjusted interval needs for the raw one's width, as a share (0.88: 12% fewer)."""
        return 1.0 - self.removed


def cross_fitted(y: np.ndarray, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(``y - x @ beta`` per row, ``beta`` fitted on all rows) for zero-mean control variates ``x``,
    where each row's ``beta`` is fitted by least squares (with an intercept) on the other half of the
    rows, the halves alternating row by row: no row adjusts itself, so every adjusted value keeps the
    mean of ``y``. The coefficients fitted on all rows are for later rows (a stop's later batches)."""
    def fit(rows):
        design = np.column_stack([x[rows], np.ones(int(np.count_nonzero(rows)))])
        return np.linalg.lstsq(design, y[rows], rcond=None)[0][:-1]
    adjusted = np.empty(len(y))
    halves = np.arange(len(y)) % 2
    for half in (0, 1):
        use = halves == half
        adjusted[use] = y[use] - x[use] @ fit(~use)
    return adjusted, fit(np.ones(len(y), dtype=bool))


def luck_adjusted(y: np.ndarray, luck: np.ndarray, units: int = 1, alpha: float = ALPHA) -> LuckFit:
    """The mean of per-game values ``y`` with control variates ``luck`` (games x measures) regressed
    out. Every measure must have expectation 0 whatever the players do (the game contract's luck
    columns); then ``y - luck @ beta`` has the mean of ``y`` for any fixed ``beta``. ``units``
    consecutive games form one independent unit (a rotated deal): values are averaged per unit
    first. Cross-fitted (``cross_fitted``: even and odd units, so a study's batches fall in both
    halves) and Student's t on the adjusted unit values. ``removed`` = 1 - their variance / the raw
    values' variance: the share of games the luck measures save for the same interval."""
    y = np.asarray(y, dtype=float)
    x = np.asarray(luck, dtype=float).reshape(len(y), -1)
    cut = len(y) - len(y) % units
    y_u = y[:cut].reshape(-1, units).mean(axis=1)
    x_u = x[:cut].reshape(-1, units, x.shape[1]).mean(axis=1)
    n = len(y_u)
    raw_var = float(y_u.var(ddof=1)) if n > 1 else math.nan
    raw = mean_interval(float(y_u.mean()) if n else math.nan, raw_var, n, alpha)
    if n < 4 * (x.shape[1] + 1) or not raw_var > 0:  # too few units to fit both halves: no adjustment
        return LuckFit(raw, raw, 0.0)
    adjusted, _ = cross_fitted(y_u, x_u)
    adj_var = float(adjusted.var(ddof=1))
    return LuckFit(raw, mean_interval(float(adjusted.mean()), adj_var, n, alpha, method="t, luck-adjusted"),
                   1.0 - adj_var / raw_var)
