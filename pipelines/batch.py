"""run_batch: one batch of one arm as an Arrow table. A plain function: no Ray, no files."""
from __future__ import annotations

import json

import pyarrow as pa

from pipelines.plan import Batch
from sim.spec import StudySpec


def run_batch(study: StudySpec, batch: Batch, checked: bool = False) -> pa.Table:
    arm = study.arm(batch.arm)
    table = arm.info.runner().play_batch(arm, study.seed, batch.start, batch.count, checked=checked)
    return table.replace_schema_metadata({
        "kaartlab.fingerprint": study.fingerprint(),
        "kaartlab.arm": arm.name,
        "kaartlab.study": json.dumps(study.to_dict(), sort_keys=True),
    })


def run_and_write(study: StudySpec, batch: Batch, out: str,
                  record: dict | None = None) -> tuple[Batch, int]:
    """Worker task: play a batch and write it atomically, then its record (row count, size,
    SHA-256, the run and the code that wrote it); returns (batch, file bytes)."""
    from pipelines.storage import StudyDir

    record = {"fingerprint": study.fingerprint(), "run": None, **(record or {}),
              "arm": batch.arm, "index": batch.index, "start": batch.start, "count": batch.count}
    return batch, StudyDir(out).write_batch(batch.relpath, run_batch(study, batch), record)
