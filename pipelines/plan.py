"""A study's work as a list of batches; file names follow from it, so a rerun finds what is done."""
from __future__ import annotations

from dataclasses import dataclass

from sim.spec import StudySpec


@dataclass(frozen=True)
class Batch:
    arm: str
    index: int
    start: int  # first game index
    count: int

    @property
    def relpath(self) -> str:
        return f"{self.arm}/batch-{self.index:06d}.parquet"


def plan(study: StudySpec) -> list[Batch]:
    """Every arm's games cut into batches of study.batch_size (the last may be shorter)."""
    batches = []
    for arm in study.arms:
        for index, start in enumerate(range(0, study.games, study.batch_size)):
            batches.append(Batch(arm.name, index, start, min(study.batch_size, study.games - start)))
    return batches
