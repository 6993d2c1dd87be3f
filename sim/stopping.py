"""Stopping at a target precision: a study's ``[stop]`` table and the anytime-valid intervals it stops on.

A ``[stop]`` table names the intervals a study must make narrow (a measure per arm, and optionally the
paired difference between two arms), the half-width to reach and a cap on the games per arm. kaartlab
plays a pilot, then batches, and after every batch boundary looks at each interval; it stops at the
first boundary where every one is at most ``half_width`` wide on each side (or at the cap).

Looking after every batch and stopping when an interval is narrow is optional stopping: a fixed-n
interval re-checked that way covers less than its nominal level. The intervals here are *confidence
sequences* (asymptotic, in the style of Waudby-Smith, Arbour, Sinha, Kennedy & Ramdas, "Time-uniform
central limit theory and asymptotic confidence sequences"; the boundary is Robbins' two-sided normal
mixture): with probability about 1 - alpha they hold at every look at once, so the one a study stops on
holds too. For n values with mean m_n and sample standard deviation s_n:

    m_n +- s_n * sqrt( 2 (n r + 1) / (n^2 r) * log( sqrt(n r + 1) / alpha ) )

``r`` (rho squared) is fixed before the looks start: the value that makes the sequence narrowest at the
number of games the pilot predicts the target needs (``tuned_rho2``).

Results are consumed in plan order: ``Monitor`` takes batches in any order (Ray workers finish when they
finish) but uses only the contiguous prefix of batch indices 0..k-1 that is complete in every arm, so the
order of completion (long games finish later) cannot bias what is looked at.

Pure numbers: nothing here reads files or plays games (pipelines/stopping.py does).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from sim.errors import SpecError

ALPHA = 0.05
STOP_KEYS = {"measure", "half_width", "max_games", "between", "arms", "pilot", "confidence"}
NOT_PER_GAME = {"balance": "balance is a range over seats, not a per-game mean",
                "seat_share": "every seat's share is not one number (name seat0_edge)"}
DEFAULT_PILOT = 10_000  # games per arm before the first look (rounded up to whole batches)


# -- the boundary -----------------------------------------------------------------------------------------
def unit_margin(n, rho2: float, alpha: float = ALPHA):
    """The half-width of the sequence for values of standard deviation 1 after n of them (n >= 1)."""
    n = np.asarray(n, dtype=float)
    nr = n * rho2
    return np.sqrt(2.0 * (nr + 1.0) / (n * n * rho2) * np.log(np.sqrt(nr + 1.0) / alpha))


def tuned_rho2(t_opt: float, alpha: float = ALPHA) -> float:
    """The rho squared that makes the sequence narrowest at n = t_opt (found numerically: the product
    n * rho2 that minimises the margin does not depend on n)."""
    from scipy.optimize import minimize_scalar

    t_opt = max(float(t_opt), 1.0)
    res = minimize_scalar(lambda lx: float(unit_margin(1.0, math.exp(lx), alpha)),
                          bounds=(math.log(1e-3), math.log(1e3)), method="bounded",
                          options={"xatol": 1e-9})
    return math.exp(res.x) / t_opt


def fixed_margin(alpha: float = ALPHA) -> float:
    """The fixed-n normal quantile z_{1-alpha/2}, for comparison."""
    from scipy.stats import norm

    return float(norm.ppf(1 - alpha / 2))


def games_for(half_width: float, sd: float, alpha: float = ALPHA, rho2: float | None = None) -> int:
    """Games after which the sequence's half-width is at most ``half_width`` for values of standard
    deviation ``sd``: with ``rho2`` given, for that tuning; else for the tuning best at that very
    number (what a pilot predicts)."""
    if not (sd > 0 and math.isfinite(sd)):
        return 1
    if half_width <= 0:
        raise ValueError("half_width must be positive")

    def width(n: float) -> float:
        r = rho2 if rho2 is not None else tuned_rho2(n, alpha)
        return sd * float(unit_margin(n, r, alpha))

    lo, hi = 1.0, 2.0
    while width(hi) > half_width:
        lo, hi = hi, hi * 2
        if hi > 1e16:
            return int(hi)
    while hi - lo > 1:
        mid = math.floor((lo + hi) / 2)
        if width(mid) > half_width:
            lo = mid
        else:
            hi = mid
    return int(hi)


def fixed_games_for(half_width: float, sd: float, alpha: float = ALPHA) -> int:
    """Games a fixed-n interval (looked at once) needs for the same half-width."""
    if not (sd > 0 and math.isfinite(sd)):
        return 1
    return int(math.ceil((fixed_margin(alpha) * sd / half_width) ** 2))


# -- running moments, merged in plan order ---------------------------------------------------------------
@dataclass(frozen=True)
class Moments:
    n: int = 0
    mean: float = 0.0
    m2: float = 0.0  # sum of squared deviations from the mean

    @classmethod
    def of(cls, x) -> Moments:
        x = np.asarray(x, dtype=float)
        if x.size == 0:
            return cls()
        mean = float(x.mean())
        return cls(int(x.size), mean, float(((x - mean) ** 2).sum()))

    def merge(self, other: Moments) -> Moments:
        """Chan et al.'s pairwise update: exact in any grouping, stable for large counts."""
        if other.n == 0:
            return self
        if self.n == 0:
            return other
        n = self.n + other.n
        delta = other.mean - self.mean
        return Moments(n, self.mean + delta * other.n / n, self.m2 + other.m2 + delta * delta * self.n * other.n / n)

    @property
    def sd(self) -> float:
        return math.sqrt(self.m2 / (self.n - 1)) if self.n > 1 else math.inf


@dataclass(frozen=True)
class Interval:
    name: str  # "john-on seat0_edge", "john-on - john-off seat0_edge"
    games: int
    value: float
    half_width: float

    @property
    def lo(self) -> float:
        return self.value - self.half_width

    @property
    def hi(self) -> float:
        return self.value + self.half_width

    def to_dict(self) -> dict:
        return {"name": self.name, "games": self.games, "value": self.value, "half_width": self.half_width,
                "lo": self.lo, "hi": self.hi}


def sequence_interval(name: str, m: Moments, rho2: float, alpha: float = ALPHA) -> Interval:
    if m.n < 2:
        return Interval(name, m.n, m.mean, math.inf)
    return Interval(name, m.n, m.mean, m.sd * float(unit_margin(m.n, rho2, alpha)))


# -- the stop table -------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Stop:
    """A study's ``[stop]`` table (validated). ``measures`` in each arm of ``arms`` (None: every arm, or
    none when ``between`` is given) and the paired difference of ``between``, each interval at most
    ``half_width``; ``max_games`` per arm at most."""

    measures: tuple[str, ...]
    half_width: float
    max_games: int
    between: tuple[str, ...] = ()  # (baseline, variant): the paired difference variant - baseline
    pilot: int = DEFAULT_PILOT
    confidence: float = 1 - ALPHA
    arms: tuple[str, ...] | None = None  # the arms whose own intervals are named (None: the default)

    @property
    def alpha(self) -> float:
        return 1 - self.confidence

    def to_dict(self) -> dict:
        out = {"measure": list(self.measures), "half_width": self.half_width, "max_games": self.max_games,
               "pilot": self.pilot, "confidence": self.confidence}
        if self.between:
            out["between"] = list(self.between)
        if self.arms is not None:
            out["arms"] = list(self.arms)
        return out

    def streams(self, arms: list[str]) -> list[tuple[str, str, tuple[str, ...]]]:
        """(interval name, measure, arms): one arm's mean, or (baseline, variant) for a paired difference.
        The arms' own intervals are every arm's unless ``arms`` names some; with ``between`` and no
        ``arms``, only the difference (the arms' levels are not what a comparison asks)."""
        own = list(self.arms) if self.arms is not None else ([] if self.between else list(arms))
        out = []
        for measure in self.measures:
            out += [(f"{arm} {measure}", measure, (arm,)) for arm in own]
            if self.between:
                a, b = self.between
                out.append((f"{b} - {a} {measure}", measure, (a, b)))
        return out

    def batches(self, batch_size: int) -> tuple[int, int]:
        """(pilot batches, cap batches): the pilot rounded up, the cap rounded down to whole batches
        (at least one), so every look is a batch boundary and a bigger cap only adds batch files."""
        cap = max(1, self.max_games // batch_size)
        return min(cap, max(1, -(-self.pilot // batch_size))), cap


def make_stop(table, arms, games: int | None, measure_names) -> Stop | None:
    """The ``[stop]`` table of a study file, checked against its arms; ``games`` the study's own
    ``games`` key (the cap when ``max_games`` is not given). ``measure_names(game)`` lists the measures
    a question may name."""
    if table is None:
        return None
    if not isinstance(table, dict):
        raise SpecError(f"[stop] must be a table, not {table!r}")
    for key in table:
        if key not in STOP_KEYS:
            raise SpecError(f"[stop]: unknown key {key!r} (allowed: {', '.join(sorted(STOP_KEYS))})")
    raw = table.get("measure")
    measures = [raw] if isinstance(raw, str) else raw
    if not isinstance(measures, list) or not measures or not all(isinstance(m, str) for m in measures):
        raise SpecError(f"[stop] measure={raw!r}: expected a measure's name or a list of them")
    if len(set(measures)) != len(measures):
        raise SpecError(f"[stop] measure={raw!r}: a measure is named twice")
    names = [a.name for a in arms]
    if not names:
        raise SpecError("[stop] needs [[arm]] or [[sweep]] tables (a search's arms stop by its own rules)")
    for m in measures:
        if m in NOT_PER_GAME:
            raise SpecError(f"[stop] measure {m!r}: {NOT_PER_GAME[m]}; a stop needs a per-game mean")
        for arm in arms:
            known = measure_names(arm.game)
            if m not in known:
                raise SpecError(f"[stop] measure {m!r}: not a measure of {arm.game} (arm {arm.name!r}; "
                                f"measures: {', '.join(x for x in known if x not in NOT_PER_GAME)})")
    hw = table.get("half_width")
    if isinstance(hw, bool) or not isinstance(hw, (int, float)) or not 0 < hw < math.inf:
        raise SpecError(f"[stop] half_width={hw!r}: expected a positive number (shares: 0.005 = half a point)")
    cap = table.get("max_games", games)
    if cap is None:
        raise SpecError("[stop] needs max_games (or the study's games) as a cap per arm")
    if "max_games" in table and games is not None and games != cap:
        raise SpecError(f"[stop] max_games={cap!r} and games={games!r}: with [stop], games is the cap; "
                        "give one of them")
    if isinstance(cap, bool) or not isinstance(cap, int) or not 1 <= cap <= 10**12:
        raise SpecError(f"[stop] max_games={cap!r}: expected a whole number 1..10**12")
    pilot = table.get("pilot", min(DEFAULT_PILOT, cap))
    if isinstance(pilot, bool) or not isinstance(pilot, int) or not 2 <= pilot <= cap:
        raise SpecError(f"[stop] pilot={pilot!r}: expected a whole number 2..max_games ({cap:,})")
    conf = table.get("confidence", 1 - ALPHA)
    if isinstance(conf, bool) or not isinstance(conf, (int, float)) or not 0.5 <= conf < 1:
        raise SpecError(f"[stop] confidence={conf!r}: expected a level such as 0.95")
    between = table.get("between", [])
    if between:
        if not isinstance(between, list) or len(between) != 2 or not all(isinstance(b, str) for b in between):
            raise SpecError(f"[stop] between={between!r}: expected two arm names, baseline first")
        for b in between:
            if b not in names:
                raise SpecError(f"[stop] between: no arm {b!r} (arms: {', '.join(names)})")
        if between[0] == between[1]:
            raise SpecError("[stop] between names one arm twice")
        a, b = (next(x for x in arms if x.name == n) for n in between)
        if a.game != b.game or a.players != b.players:
            raise SpecError(f"[stop] between {between[0]!r} and {between[1]!r}: a paired difference needs "
                            "one game and one number of players")
        if a.rotate != b.rotate:
            raise SpecError(f"[stop] between {between[0]!r} and {between[1]!r}: one rotates its seats and the "
                            "other does not, so their games do not pair; rotate both or neither")
    own = table.get("arms")
    if own is not None:
        if not isinstance(own, list) or not all(isinstance(a, str) for a in own) or len(set(own)) != len(own):
            raise SpecError(f"[stop] arms={own!r}: expected a list of arm names")
        for a in own:
            if a not in names:
                raise SpecError(f"[stop] arms: no arm {a!r} (arms: {', '.join(names)})")
        if not own and not between:
            raise SpecError("[stop] arms = [] and no between: the table names no interval")
    return Stop(tuple(measures), float(hw), cap, tuple(between), pilot, float(conf),
                None if own is None else tuple(own))


# -- the monitor: plan order, looks, the decision ---------------------------------------------------------
@dataclass
class Look:
    batches: int  # batch boundary: batches 0..batches-1 of every arm consumed
    games: int  # per arm
    intervals: list[Interval]

    def widest(self) -> Interval:
        return max(self.intervals, key=lambda i: i.half_width)


@dataclass
class Monitor:
    """Consumes batch results in plan order and decides when to stop.

    ``add(index, values)`` hands in batch ``index`` of the study (one value array per stream: the
    per-game values of that stream's games in that batch, in game order); batches may arrive in any
    order. Only the contiguous prefix 0..k-1 is consumed; every newly consumed boundary from the pilot
    on is a look. ``reached`` is the first look at which every interval is at most the target."""

    stop: Stop
    streams: list[str]
    batch_size: int
    per_unit: list[int] | None = None  # games per value of each stream: a rotated arm's deal is one value
    rho2: float | None = None  # fixed at the end of the pilot (tuned), or given
    t_opt: float | None = None
    pending: dict = field(default_factory=dict)
    consumed: int = 0
    moments: list = field(default_factory=list)
    looks: list = field(default_factory=list)
    reached: Look | None = None

    def __post_init__(self):
        self.moments = [Moments() for _ in self.streams]
        self.per_unit = list(self.per_unit or [1] * len(self.streams))
        self.pilot_batches = max(1, -(-self.stop.pilot // self.batch_size))

    def add(self, index: int, values) -> list[Look]:
        """Batch ``index``'s values per stream; returns the looks this made (possibly none)."""
        if index < self.consumed or index in self.pending:
            return []
        self.pending[index] = [Moments.of(v) for v in values]
        new = []
        while self.consumed in self.pending:
            for k, m in enumerate(self.pending.pop(self.consumed)):
                self.moments[k] = self.moments[k].merge(m)
            self.consumed += 1
            if self.consumed >= self.pilot_batches:
                if self.rho2 is None:
                    self._tune()
                look = Look(self.consumed, self.consumed * self.batch_size, self.intervals())
                self.looks.append(look)
                new.append(look)
                if self.reached is None and all(i.half_width <= self.stop.half_width for i in look.intervals):
                    self.reached = look
        return new

    def _tune(self) -> None:
        """Fix rho squared at the end of the pilot, for the values the stream needing most games predicts
        (t_opt counts that stream's values: games, or deals of a rotated arm)."""
        games = self.consumed * self.batch_size
        live = [(m, u) for m, u in zip(self.moments, self.per_unit) if m.n > 1 and math.isfinite(m.sd) and m.sd > 0]
        if not live:
            self.t_opt = float(games)
        else:
            m, u = max(live, key=lambda mu: games_for(self.stop.half_width, mu[0].sd, self.stop.alpha) * mu[1])
            self.t_opt = float(min(max(games_for(self.stop.half_width, m.sd, self.stop.alpha), games // u),
                                   max(self.stop.max_games, games) // u))
        self.rho2 = tuned_rho2(self.t_opt, self.stop.alpha)

    def intervals(self) -> list[Interval]:
        return [sequence_interval(name, m, self.rho2, self.stop.alpha) for name, m in zip(self.streams, self.moments)]

    def predicted_games(self) -> int:
        """Games per arm the current estimates say the target needs with this tuning (at least one
        more batch than consumed)."""
        need = 0
        for m, u in zip(self.moments, self.per_unit):
            if m.n > 1 and math.isfinite(m.sd):
                need = max(need, games_for(self.stop.half_width, m.sd, self.stop.alpha, self.rho2) * u)
        return need
