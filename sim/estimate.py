"""How long a study will play: a short timed pilot of every arm that costs differently, before the
study plays, on kernels already compiled.

The pilot plays an arm's first games through the call a batch makes (kernel and Arrow table), in
chunks that double until about PILOT_SECONDS of CPU time have passed; its rows are thrown away
and count for nothing. The cost per game is read from the largest chunk (the fixed cost of a call
weighs least there), with that chunk encoded as a batch file is (Parquet in memory, nothing
written): for a fast game the encoding costs more than the play. The cost is CPU time, not wall
time (on a busy machine a pilot of a fraction of a second is stalled by chance, and one stall would
be read as a slow game); the share of a core the whole pilot got (CPU over wall time) then turns it
into wall time, as the machine's other work will take its part from the workers too. Arms that
differ only in their name cost the same and are timed once. A study so small that the pilot would
cost about as much as playing it gets no pilot.

What the estimate leaves out, and says so: starting Ray and its workers (each loads the kernels:
seconds, more on a busy machine), and putting the bytes on disk. It is measured on this machine now.

It also decides where a small study plays: one that a single core plays in less time than a local
Ray takes to start (HERE_SECONDS) is sooner done in this process (`Estimate.sooner_here`).
"""
from __future__ import annotations

import importlib
import json
import math
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, replace

PILOT_SECONDS = 0.2  # per arm that costs differently
PILOT_SHARE = 10  # the pilot plays at most 1/PILOT_SHARE of an arm's games still to play
BUSY_SHARE = 0.8  # a pilot that got less of a core than this says the machine is busy
SMALL_STUDY = 500  # fewer games to play in all: no pilot (it would cost about as much as the study)
# A local Ray's start and its workers' first kernel load take 3-4 s on the 2-core machine, its stop
# another 1-2 s (docs/benchmarks.md): a study that one core plays in less than this plays sooner in
# the driver's own process, with the same rows (the rows never depend on where a batch is played).
HERE_SECONDS = 3.0
# A cold compile of one game's kernel on the 2-core machine: about 12 s (Wizard) to 35 s (Wippen) on
# a usual day, 21-47 s on a slow one; a table with a search player's own kernel 19-47 s, 31-81 s on
# a slow day (docs/benchmarks.md, "LLVM once per kernel"); a cached kernel loads in about a second.
COMPILE_NOTE = ("once, until a file under kernels/ changes; typically 10-45 s per game on 2 cores, "
                "a table with a search player up to about a minute; "
                "`kaartlab compile` does it ahead of time")


@dataclass(frozen=True)
class ArmCost:
    arms: tuple[str, ...]  # the arms that cost this (they differ only in their names)
    games: int  # games in the timed chunk
    seconds: float

    @property
    def per_second(self) -> float:
        return self.games / self.seconds if self.seconds > 0 else math.inf


@dataclass(frozen=True)
class Estimate:
    games: int  # games still to play
    seconds: float | None  # play time on the workers (None: no pilot)
    workers: int | None  # cores playing at once; None: a cluster whose size is not known yet
    costs: tuple[ArmCost, ...] = ()
    share: float = 1.0  # the share of a core the pilot got (CPU over wall time); seconds allow for it
    load: float = 0.0  # the machine's 1-minute load average when measured
    one_core: float | None = None  # play time on one core (this process), at the same share

    @property
    def sooner_here(self) -> bool:
        """One core plays the whole study before a local Ray would have started its workers."""
        return self.one_core is not None and self.one_core < HERE_SECONDS

    def seconds_for(self, todo: dict[str, int]) -> float | None:
        """Play time of other games of the same arms (arm name -> games), at this estimate's measured
        cost per game, workers and share of a core: what `kaartlab plan` prints per question."""
        if self.seconds is None or not self.costs:
            return None
        rate = {arm: cost.per_second for cost in self.costs for arm in cost.arms}
        core = sum(games / rate[arm] for arm, games in todo.items() if games > 0 and arm in rate)
        return core / (self.workers or 1) / self.share

    def line(self) -> str:
        """One line for the user, before the study plays."""
        if self.seconds is None:
            return (f"estimate: none for {self.games:,} games (a study this small plays in about "
                    "the time a pilot would take to time it)")
        where = (f"on {self.workers} worker{'s' if self.workers != 1 else ''}" if self.workers
                 else "per CPU of the cluster (divide by its CPUs)")
        busy = (f"; the machine is busy (load {self.load:.1f}): the pilot got {self.share:.0%} of a "
                "core, and so does the estimate" if self.share < BUSY_SHARE else "")
        return (f"estimate: {self.games:,} games in about {duration(self.seconds)} of play {where} "
                f"({_rates(self.costs)} per core measured now, Parquet encoding included; starting "
                f"Ray and its workers comes on top{busy})")

    def here_line(self) -> str:
        """The line for a study that plays in this process because it is sooner done there."""
        return (f"estimate: {self.games:,} games in about {duration(self.one_core or 0.0)} of play in "
                f"this process ({_rates(self.costs)} per core measured now, Parquet encoding "
                f"included): under {HERE_SECONDS:g} s on one core, sooner than starting Ray and its "
                "workers; --workers N plays on Ray")


def _rates(costs: tuple[ArmCost, ...]) -> str:
    def one(cost: ArmCost) -> str:
        more = f" (+{len(cost.arms) - 1} alike)" if len(cost.arms) > 1 else ""
        return f"{cost.arms[0]}{more} ~{_figure(cost.per_second)} games/s"

    if len(costs) <= 3:
        return ", ".join(one(c) for c in costs)
    ordered = sorted(costs, key=lambda c: c.per_second)
    return f"{len(costs)} arms, slowest {one(ordered[0])}, fastest {one(ordered[-1])}"


def _figure(value: float) -> str:
    """Two significant digits, with thousands separators: a pilot measures no more than that."""
    if not math.isfinite(value) or value <= 0:
        return "?"
    digits = 1 - int(math.floor(math.log10(value)))
    rounded = round(value, digits)
    return f"{rounded:,.{digits}f}" if digits > 0 else f"{round(rounded):,}"


def duration(seconds: float) -> str:
    """'0.4 s', '14 s', '3.5 min', '2.1 h', '3.2 days': two significant digits."""
    for unit, size, from_ in (("days", 86400, 2 * 86400), ("h", 3600, 2 * 3600), ("min", 60, 100)):
        if seconds >= from_:
            return f"{_figure(seconds / size)} {unit}"
    return f"{_figure(seconds)} s" if seconds >= 0.1 else "under 0.1 s"


def time_arm(arm, seed: int, cap: int, target: float = PILOT_SECONDS,
             clock: Callable[[], float] = time.process_time) -> tuple[int, float]:
    """Play the arm's first games in doubling chunks until `target` seconds have passed or `cap`
    games are played; (games, seconds) of the largest chunk, its Parquet encoding included. The
    rows are dropped."""
    runner = arm.info.runner()
    played, spent, chunk = 0, 0.0, 1
    largest = (0, 0.0, None)
    while True:
        chunk = min(chunk, cap - played)
        began = clock()
        table = runner.play_batch(arm, seed, played, chunk)
        took = clock() - began
        played, spent = played + chunk, spent + took
        if chunk >= largest[0]:
            largest = (chunk, took, table)
        if spent >= target or played >= cap:
            games, took, table = largest
            began = clock()
            _encode(table)
            return games, took + clock() - began
        chunk *= 2


def _encode(table) -> int:
    """The batch file's bytes, as StudyDir.write_batch makes them, in memory; their count."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from pipelines.storage import PARQUET_OPTIONS, delta_columns

    sink = pa.BufferOutputStream()
    pq.write_table(table, sink, **PARQUET_OPTIONS, column_encoding=delta_columns(table.schema))
    return sink.getvalue().size


def estimate(study, todo: dict[str, int], workers: int | None, batches: int,
             timer=time_arm, share: float | None = None, smallest: int = SMALL_STUDY) -> Estimate:
    """The play time of the games still to play (`todo`: arm name -> games), on `workers` cores
    at once (None: a cluster of unknown size), `batches` batch files still to play. `share`: the
    share of a core the workers get (default: what the pilot got). Fewer than `smallest` games get
    no pilot (0: always one, as deciding where a study plays needs it)."""
    total = sum(todo.values())
    if total < smallest or total == 0:
        return Estimate(total, None, workers)
    groups: dict[str, list] = {}
    for arm in study.arms:
        if todo.get(arm.name, 0) > 0:
            groups.setdefault(_cost_key(arm), []).append(arm)
    costs, core_seconds = [], 0.0
    wall, cpu = time.perf_counter(), time.process_time()
    for arms in groups.values():
        games = sum(todo[a.name] for a in arms)
        played, seconds = timer(arms[0], study.seed, max(1, games // PILOT_SHARE))
        cost = ArmCost(tuple(a.name for a in arms), played, seconds)
        costs.append(cost)
        core_seconds += games / cost.per_second
    if share is None:
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        share = min(1.0, cpu / wall) if wall > 0 and cpu > 0 else 1.0
    at_once = min(workers, max(1, batches)) if workers else 1
    return Estimate(total, core_seconds / at_once / share, workers and at_once, tuple(costs), share,
                    _load(), core_seconds / share)


def _load() -> float:
    try:
        return os.getloadavg()[0]
    except OSError:
        return 0.0


def _cost_key(arm) -> str:
    """Arms equal but for their name cost the same."""
    return json.dumps(replace(arm, name="arm").to_dict(), sort_keys=True, default=str)


# ------------------------------------------------------------------------------ compile state

def uncompiled_games(study) -> list[str] | None:
    """The games of the study whose batch kernel is not in Numba's on-disk cache for this code (so
    the first call compiles it); None when that cannot be told (Numba internals moved)."""
    missing = []
    try:
        for arm in study.arms:
            if arm.game not in missing and not _cached(arm):
                missing.append(arm.game)
    except Exception:  # noqa: BLE001 - a Numba without these internals: say nothing
        return None
    return missing


def _cached(arm) -> bool:
    """Does the cache index of the game's driver hold the signature a batch of this arm calls?
    (Numba's index is read only when its stamp matches the kernels' files: kernels/jit.py.)"""
    import numba
    import numpy as np

    runner = arm.info.runner()
    driver = importlib.import_module(runner.kernel_module).play_games_nb
    inputs = runner.kernel_inputs(arm)
    out = np.zeros(1, dtype=runner.enums().OUT_DTYPE).view(np.recarray)
    args = (np.int64(0), np.int64(0), np.int64(1), *inputs, out, None, False)
    signature = tuple(numba.typeof(a) for a in args)
    if signature in driver.signatures:  # compiled (or loaded) in this process already
        return True
    index = driver._cache._cache_file._load_index()
    return any(key[0] == signature for key in index)
