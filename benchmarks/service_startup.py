"""What `kaartlab serve --keep-ray` saves: the wall time from a study's launch to its end, a Ray per
study against one Ray the server keeps, for a few small Knutten studies played one after another.

    python -m benchmarks.service_startup [--studies 4] [--games 20000]

Each study is `kaartlab study` in a child process (as the service runs them); its seconds are the
child's lifetime as the queue saw it (launch to exit), so Python's start-up, Ray's start or join,
the play, Parquet and the report are all inside. The kept Ray's own start is printed apart.
"""
from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from fastapi.testclient import TestClient

from pipelines.service.app import Config, create_app

STUDY = """name = "{name}"
games = {games}
batch_size = {batch}
seed = {seed}

[[arm]]
name = "main"
game = "knutten"
players = 4
"""


def play(keep_ray: bool, studies: int, games: int, workers: int) -> tuple[float, list[float]]:
    with tempfile.TemporaryDirectory() as runs:
        began = time.perf_counter()
        with TestClient(create_app(Config(runs=Path(runs), workers=workers, keep_ray=keep_ray))) as client:
            ready = time.perf_counter() - began
            seconds = []
            for k in range(studies):
                name = f"s{k}"
                text = STUDY.format(name=name, games=games, batch=max(1, games // 4), seed=k)
                assert client.post("/api/studies", content=text).status_code == 201, name
                queue = client.app.state.queue
                while name not in queue.children and queue.entries[name].status != "done":
                    time.sleep(0.01)
                t0 = time.perf_counter()
                while client.get(f"/api/studies/{name}").json()["status"] not in ("done", "failed"):
                    time.sleep(0.05)
                seconds.append(time.perf_counter() - t0)
                assert client.get(f"/api/studies/{name}").json()["status"] == "done", name
    return ready, seconds


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--studies", type=int, default=4)
    p.add_argument("--games", type=int, default=20_000)
    p.add_argument("--workers", type=int, default=2)
    args = p.parse_args(argv)
    for keep in (False, True, False, True):  # interleaved: the machine's drift hits both alike
        ready, seconds = play(keep, args.studies, args.games, args.workers)
        print(f"{'one kept Ray ' if keep else 'Ray per study'}: server ready in {ready:5.1f} s; per study "
              f"median {statistics.median(seconds):5.2f} s ({', '.join(f'{s:.2f}' for s in seconds)})", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
