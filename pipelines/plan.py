"""A study's work as batches; file names follow from it, so a rerun finds what is done.

The plan is lazy: a sequence that computes batch i when asked, so planning costs the same for a
thousand games or a trillion. `check_limits` bounds what a study may ask of this machine before
anything is written."""
from __future__ import annotations

import os
from bisect import bisect_right
from collections.abc import Iterator, Sequence
from itertools import accumulate
from dataclasses import dataclass

from pipelines.integrity import batch_relpath, batches_per_arm
from sim.errors import SpecError
from sim.spec import StudySpec

MAX_BATCHES = 1_000_000  # batch files per study: listing and checking them stays in seconds
MAX_BATCH_BYTES = 4 << 30  # a batch's records, Arrow table and Parquet buffer, at most
RECORD_OVERHEAD = 3  # kernel records + Arrow table + Parquet bytes, per record byte
DEFAULT_RECORD_BYTES = 256  # when a game's record size cannot be read


@dataclass(frozen=True)
class Batch:
    arm: str
    index: int
    start: int  # first game index
    count: int

    @property
    def relpath(self) -> str:
        return batch_relpath(self.arm, self.index)


@dataclass(frozen=True)
class ArmPlan:
    """One arm's games: ``games`` games from game index ``first`` in batches of ``batch_size``.
    Ordinary arms play the study's games 0..games-1 in the study's batches; a search's arms have
    their own (sim/search.py, Extent)."""

    name: str
    games: int
    first: int
    batch_size: int

    @property
    def batches(self) -> int:
        return batches_per_arm(self.games, self.batch_size)

    def batch(self, index: int) -> Batch:
        start = index * self.batch_size
        return Batch(self.name, index, self.first + start, min(self.batch_size, self.games - start))


def arm_plans(study: StudySpec) -> list[ArmPlan]:
    extents = {e.arm: e for e in study.extents}
    out = []
    for arm in study.arms:
        e = extents.get(arm.name)
        out.append(ArmPlan(arm.name, e.games, e.first, e.batch_size) if e is not None
                   else ArmPlan(arm.name, study.games, 0, study.batch_size))
    return out


class Plan(Sequence):
    """Every arm's games cut into batches (of study.batch_size for ordinary arms; the last may be
    shorter), arm by arm; batch i is computed when asked, nothing is stored."""

    def __init__(self, study: StudySpec):
        self.plans = arm_plans(study)
        self.arms = tuple(p.name for p in self.plans)
        self._by_name = {p.name: p for p in self.plans}
        self._ends = list(accumulate(p.batches for p in self.plans))

    def __len__(self) -> int:
        return self._ends[-1] if self._ends else 0

    def batch(self, arm: str, index: int) -> Batch:
        return self._by_name[arm].batch(index)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        if i < 0:
            i += len(self)
        if not 0 <= i < len(self):
            raise IndexError(i)
        k = bisect_right(self._ends, i)
        return self.plans[k].batch(i - (self._ends[k - 1] if k else 0))

    def __iter__(self) -> Iterator[Batch]:
        for p in self.plans:
            for index in range(p.batches):
                yield p.batch(index)

    def games(self) -> int:
        return sum(p.games for p in self.plans)


def plan(study: StudySpec) -> Plan:
    return Plan(study)


def memory_bytes() -> int:
    """Physical memory of this machine (0 when unknown)."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return 0


def batch_byte_limit(workers: int | None = None) -> int:
    """What one batch may hold: a share of this machine's memory for every batch that runs at
    once (one per worker, and the driver's), at most MAX_BATCH_BYTES."""
    slots = (workers or os.cpu_count() or 1) + 1
    total = memory_bytes()
    return min(MAX_BATCH_BYTES, total // (2 * slots)) if total else MAX_BATCH_BYTES


def record_bytes(arm) -> int:
    """Bytes of one game's kernel record (the game's OUT_DTYPE), from its enums (no compile)."""
    try:
        return int(arm.info.runner().enums().OUT_DTYPE.itemsize) or DEFAULT_RECORD_BYTES
    except Exception:  # noqa: BLE001 - a game without the record type: assume a large one
        return DEFAULT_RECORD_BYTES


def check_limits(study: StudySpec, workers: int | None = None) -> None:
    """Refuse a study this machine cannot plan, list or hold, with the numbers that fit."""
    plans = arm_plans(study)
    batches = sum(p.batches for p in plans)
    arms = list(study.arms)
    for search in study.searches:  # the most a search can play: every candidate to max_games, the re-play
        cand = ArmPlan(search.name, search.max_games, 0, search.candidate_batch(study.batch_size))
        final = ArmPlan(search.name, search.final_games, 0, study.batch_size)
        batches += search.trials * cand.batches + len(search.final_names) * final.batches
        plans += [cand, final]
        arms.append(search.base)
    if batches > MAX_BATCHES:
        need = -(-study.games * len(study.arms) // MAX_BATCHES)
        raise SpecError(f"{len(study.arms)} arm(s) x {study.games:,} games in batches of "
                        f"{study.batch_size:,} make {batches:,} batch files; at most "
                        f"{MAX_BATCHES:,} per study: use --batch-size {need:,} or more, or fewer games")
    limit = batch_byte_limit(workers)
    per_game = max(record_bytes(arm) for arm in arms) * RECORD_OVERHEAD
    biggest = max(min(p.batch_size, p.games) for p in plans)
    if biggest * per_game > limit:
        fits = max(1, limit // per_game)
        raise SpecError(f"batches of {biggest:,} games need about {biggest * per_game / 2**30:,.1f} GiB "
                        f"each; this machine allows {limit / 2**30:,.1f} GiB per batch "
                        f"({per_game} bytes per game): use --batch-size {fits:,} or less")
