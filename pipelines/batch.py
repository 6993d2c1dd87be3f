"""run_batch: one batch of one arm as an Arrow table. A plain function: no Ray, no files."""
from __future__ import annotations

import json

import pyarrow as pa

from pipelines.plan import Batch
from sim.spec import StudySpec


STUDY_HEAD = ("name", "seed", "games", "batch_size")


def batch_metadata(study: StudySpec, arm_name: str) -> dict[str, str]:
    """What a batch file says about itself: the study's fingerprint and head (name, seed, games,
    batch size), and its own arm's description and place in the study. Not the whole study: with
    hundreds of arms (a sweep, a search) every file would carry every arm, a size that grows with the
    square of the arms. A directory of batch files without study.json still describes its study
    from one file per arm (reports/dataset.py)."""
    arms = [a.name for a in study.arms]
    arm = study.arm(arm_name).to_dict()
    arm.update(next((e.to_dict() for e in study.extents if e.arm == arm_name), {}))
    return {"kaartlab.fingerprint": study.fingerprint(), "kaartlab.arm": arm_name,
            "kaartlab.arm_index": str(arms.index(arm_name)),
            "kaartlab.study_head": json.dumps({k: getattr(study, k) for k in STUDY_HEAD}, sort_keys=True),
            "kaartlab.arm_spec": json.dumps(arm, sort_keys=True)}


def run_batch(study: StudySpec, batch: Batch, checked: bool = False) -> pa.Table:
    arm = study.arm(batch.arm)
    table = arm.info.runner().play_batch(arm, study.seed, batch.start, batch.count, checked=checked)
    return table.replace_schema_metadata(batch_metadata(study, arm.name))


def run_and_write(study: StudySpec, batch: Batch, out: str,
                  record: dict | None = None, shipment=None) -> tuple[Batch, int]:
    """Worker task: play a batch and write it atomically, then its record (row count, size,
    SHA-256, the run and the code that wrote it); returns (batch, file bytes). `shipment`: the
    driver's compiled kernels, placed first where this node's cache lacks them (a node that joined
    after the warm-up; pipelines/kernel_cache.py)."""
    from pipelines.storage import StudyDir

    if shipment is not None:
        from pipelines.kernel_cache import ensure

        ensure(shipment)

    record = {"fingerprint": study.fingerprint(), "run": None, **(record or {}),
              "arm": batch.arm, "index": batch.index, "start": batch.start, "count": batch.count}
    return batch, StudyDir(out).write_batch(batch.relpath, run_batch(study, batch), record)
