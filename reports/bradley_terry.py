"""Bradley-Terry ratings of players from pairwise outcomes, with a covariance clustered by game.

Model: P(A finishes ahead of B) = 1 / (1 + exp(-(theta_A - theta_B))), ratings centred (they sum to
0). Every pair of seats with different players in a game is one comparison with outcome y in
{0, 1/2, 1}; the log-likelihood sum of y log p + (1 - y) log(1 - p) is maximised by Newton steps.
Comparisons of one game are not independent (one result orders every pair), so the covariance is
the sandwich H^+ M H^+: H the observed information, M the sum over games of the outer product of
each game's score (its comparisons' gradients added up), times G/(G-1) for G games (statsmodels'
cluster convention). The caller computes the per-game scores (reports/sections/ratings.py does it
in Polars; the tests in numpy); this module only needs their sum of outer products.

A contrast can have no sampling variance at all: players that hold each other's seats on the same
deals (arms share seeds, game i deals the same cards in every arm) and play alike have the same
record in every game index, so their difference is 0 in every cluster. The fit then returns a
rounding error (1e-15) with a zero-width interval around it, which reads as "excludes 0". Such a
contrast is reported as what it is: exactly its value (0 when within the fit's tolerance), a
zero-width interval and no test (``_exact``).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from reports.stats import ALPHA, Estimate, _z

ELO = 400.0 / math.log(10.0)  # Elo points per unit of log-odds: a 400-point gap is 10:1 odds
NEWTON_STEPS = 50
TOLERANCE = 1e-10
MAX_RATING = 20.0  # log-odds; a player that wins every comparison has no finite rating
EXACT = 1e-7  # log-odds: a standard error or a value below this is the fit's rounding (Newton stops at 1e-10)


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * x))


@dataclass(frozen=True)
class Comparisons:
    """Pairwise outcomes pooled over games: row r compares player ``a[r]`` with ``b[r]`` in
    ``n[r]`` comparisons, of which a finished ahead ``wins[r]`` times (levels count 1/2)."""

    a: np.ndarray
    b: np.ndarray
    n: np.ndarray
    wins: np.ndarray
    players: int

    @classmethod
    def make(cls, rows, players: int) -> Comparisons:
        rows = list(rows)
        arr = np.array([(a, b, n, w) for a, b, n, w in rows], float).reshape(-1, 4)
        return cls(arr[:, 0].astype(int), arr[:, 1].astype(int), arr[:, 2], arr[:, 3], players)

    def connected(self) -> bool:
        """Every player is linked to every other by a chain of comparisons (else the ratings of the
        separate parts are not on one scale)."""
        parent = list(range(self.players))

        def root(i: int) -> int:
            while parent[i] != i:
                parent[i] = parent[parent[i]]
                i = parent[i]
            return i

        for a, b, n in zip(self.a, self.b, self.n):
            if n > 0:
                parent[root(a)] = root(b)
        return len({root(i) for i in range(self.players)}) == 1

    def has_maximum(self) -> bool:
        """The likelihood has a finite maximum: every player can be reached from every other along
        'finished ahead at least once (or level)' links (Ford's condition); otherwise some player
        never lost (or never won) against a part of the field and its rating runs off to infinity."""
        q = self.players
        ahead = np.zeros((q, q), bool)
        for a, b, n, w in zip(self.a, self.b, self.n, self.wins):
            ahead[a, b] |= w > 0
            ahead[b, a] |= n - w > 0
        reach = ahead | np.eye(q, dtype=bool)
        for k in range(q):  # Warshall's transitive closure
            reach |= reach[:, [k]] & reach[[k], :]
        return bool(reach.all())


def fit(comp: Comparisons) -> tuple[np.ndarray, np.ndarray, bool]:
    """Maximum-likelihood ratings (centred), the observed information H at them (players x
    players, singular along the all-ones vector) and whether they are a finite maximum that Newton
    reached."""
    q = comp.players
    theta = np.zeros(q)
    diff = np.zeros((len(comp.a), q))
    diff[np.arange(len(comp.a)), comp.a] += 1.0
    diff[np.arange(len(comp.a)), comp.b] -= 1.0
    ones = np.ones((q, q)) / q

    def loglik(t: np.ndarray) -> float:
        d = diff @ t
        return float(np.sum(comp.wins * -np.logaddexp(0.0, -d) + (comp.n - comp.wins) * -np.logaddexp(0.0, d)))

    converged = False
    for _ in range(NEWTON_STEPS):
        p = _sigmoid(diff @ theta)
        grad = diff.T @ (comp.wins - comp.n * p)
        info = diff.T @ (diff * (comp.n * p * (1 - p))[:, None])
        step = np.linalg.pinv(info + ones) @ grad  # + ones: fixes the centre, H's null direction
        step -= step.mean()
        t = 1.0
        while loglik(np.clip(theta + t * step, -MAX_RATING, MAX_RATING)) < loglik(theta) - 1e-12 and t > 1e-6:
            t /= 2
        theta = np.clip(theta + t * step, -MAX_RATING, MAX_RATING)
        theta -= theta.mean()
        if np.max(np.abs(t * step)) < TOLERANCE:
            converged = True
            break
    p = _sigmoid(diff @ theta)
    info = diff.T @ (diff * (comp.n * p * (1 - p))[:, None])
    return theta, info, converged and comp.has_maximum()


def score_weights(theta: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """P(a ahead of b) for each comparison: a game's score for player k is the sum of
    (y - p) over its comparisons with k first minus those with k second."""
    return _sigmoid(np.asarray(theta)[a] - np.asarray(theta)[b])


@dataclass(frozen=True)
class Ratings:
    players: list[str]
    theta: np.ndarray  # centred log-odds ratings
    cov: np.ndarray  # their sandwich covariance, clustered by game
    games: int  # clusters
    converged: bool
    connected: bool

    def rating(self, i: int, alpha: float = ALPHA) -> Estimate:
        """Elo points against the players' average (0)."""
        lvec = np.zeros(len(self.theta))
        lvec[i] = 1.0
        return self._linear(lvec, alpha).scale(ELO)

    def difference(self, i: int, j: int, alpha: float = ALPHA) -> Estimate:
        """Elo points of i minus j."""
        lvec = np.zeros(len(self.theta))
        lvec[i], lvec[j] = 1.0, -1.0
        return self._linear(lvec, alpha).scale(ELO)

    def field_share(self, i: int, alpha: float = ALPHA) -> Estimate:
        """Expected chance that i finishes ahead of an opponent drawn evenly from the others (the
        mean over them of the model's P(i ahead)); delta-method interval, within 0-1."""
        q = len(self.theta)
        if q < 2:
            return Estimate(math.nan, math.nan, math.nan, self.games, "Bradley-Terry")
        others = [j for j in range(q) if j != i]
        p = _sigmoid(self.theta[i] - self.theta[others])
        value = float(p.mean())
        grad = np.zeros(q)
        grad[i] = float((p * (1 - p)).mean())
        grad[others] = -p * (1 - p) / len(others)
        se = math.sqrt(max(float(grad @ self.cov @ grad), 0.0))
        if se < EXACT:
            return _exact(value, 0.5, self.games, "Bradley-Terry, fixed by the design")
        z = _z(alpha)
        pv = 2 * float(_norm_sf(abs(value - 0.5) / se))
        return Estimate(value, value - z * se, value + z * se, self.games, "Bradley-Terry, delta method",
                        pv).clip(0.0, 1.0)

    def _linear(self, lvec: np.ndarray, alpha: float) -> Estimate:
        v = float(lvec @ self.theta)
        se = math.sqrt(max(float(lvec @ self.cov @ lvec), 0.0))
        if se < EXACT:
            return _exact(v, 0.0, self.games, "Bradley-Terry, fixed by the design")
        z = _z(alpha)
        p = 2 * float(_norm_sf(abs(v) / se))
        return Estimate(v, v - z * se, v + z * se, self.games, "Bradley-Terry, clustered by game", p)

    def fixed(self, i: int, j: int) -> bool:
        """True when i minus j does not vary from game index to game index: the design fixes it."""
        d = self.difference(i, j)
        return d.lo == d.hi


def _exact(value: float, ref: float, games: int, method: str) -> Estimate:
    """A contrast without sampling variance: its value, the reference itself when the difference is
    the fit's rounding, a zero-width interval and no test (p-value nan: it is not a claim)."""
    if abs(value - ref) < EXACT:
        value = ref
    return Estimate(value, value, value, games, method)


def _norm_sf(x: float) -> float:
    return 0.5 * math.erfc(x / math.sqrt(2.0))


def ratings(players: list[str], comp: Comparisons, theta: np.ndarray, info: np.ndarray, meat: np.ndarray,
            games: int, converged: bool = True) -> Ratings:
    """Sandwich covariance H^+ M H^+ (G/(G-1)) of the centred ratings from ``fit``'s information
    and ``meat`` = sum over games of the outer product of the game's score vector."""
    bread = np.linalg.pinv(info)
    factor = games / (games - 1) if games > 1 else 1.0
    cov = bread @ np.asarray(meat, float) @ bread * factor
    return Ratings(list(players), np.asarray(theta, float), (cov + cov.T) / 2, int(games), converged,
                   comp.connected())
