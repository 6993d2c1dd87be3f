"""Run a study: skip finished batches, spread the rest over Ray workers (or run them in-process),
keep a bounded number in flight, show progress, and write each batch as it lands."""
from __future__ import annotations

import os
import time
from dataclasses import dataclass

from tqdm import tqdm

from pipelines.batch import run_and_write
from pipelines.plan import plan
from pipelines.storage import StudyDir
from sim.spec import StudySpec


@dataclass
class RunResult:
    out: str
    batches_run: int
    batches_skipped: int
    games_run: int
    seconds: float
    resumed: bool

    @property
    def games_per_second(self) -> float:
        return self.games_run / self.seconds if self.seconds > 0 else 0.0


def warm_up(study: StudySpec) -> None:
    """Compile (or load from cache) every arm's kernel once in the driver, so workers only load."""
    for arm in study.arms:
        arm.info.runner().play_batch(arm, study.seed, 0, 1)


def run_study(study: StudySpec, out: str, workers: int | None = None, address: str | None = None,
              progress: bool = True, command: str = "") -> RunResult:
    """workers=0 runs in this process; otherwise Ray with `workers` CPUs on a local cluster
    (default: all cores) or the cluster at `address` / RAY_ADDRESS."""
    directory = StudyDir(out)
    resumed = directory.prepare(study, command)
    done = directory.done()
    todo = [b for b in plan(study) if b.relpath not in done]
    skipped = len(plan(study)) - len(todo)
    bar = tqdm(total=sum(b.count for b in todo), unit="games", unit_scale=True, smoothing=0.1,
               disable=not progress, desc=study.name, dynamic_ncols=True)
    began = time.perf_counter()
    if todo:
        warm_up(study)
        if workers != 0:
            start_ray(workers, address)
        began = time.perf_counter()
        if workers == 0:
            for batch in todo:
                run_and_write(study, batch, out)
                bar.update(batch.count)
        else:
            _run_on_ray(study, todo, out, workers, bar)
    seconds = time.perf_counter() - began
    bar.close()
    return RunResult(directory.display, len(todo), skipped, sum(b.count for b in todo), seconds, resumed)


def start_ray(workers: int | None, address: str | None) -> None:
    """Join the cluster at `address` (or RAY_ADDRESS), else start a local one with `workers` CPUs."""
    import ray

    if ray.is_initialized():
        return
    address = address or os.environ.get("RAY_ADDRESS")
    if address:
        ray.init(address=address, logging_level="ERROR", log_to_driver=False)
    else:
        ray.init(address="local", num_cpus=workers or os.cpu_count(), include_dashboard=False,
                 logging_level="ERROR", log_to_driver=False)


def _run_on_ray(study, todo, out, workers, bar) -> None:
    import ray

    task = ray.remote(num_cpus=1, max_retries=2)(run_and_write)
    slots = int(ray.available_resources().get("CPU", 1))
    max_in_flight = 2 * max(1, workers or slots)
    study_ref = ray.put(study)
    pending = list(reversed(todo))
    in_flight = []
    while pending or in_flight:
        while pending and len(in_flight) < max_in_flight:
            in_flight.append(task.remote(study_ref, pending.pop(), out))
        ready, in_flight = ray.wait(in_flight, num_returns=1)
        batch, _ = ray.get(ready[0])
        bar.update(batch.count)
