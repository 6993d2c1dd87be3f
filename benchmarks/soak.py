"""Soak: study after study on a multi-node Ray cluster on this machine (loopback only) while workers
are killed, nodes replaced and drivers killed or stopped at intervals; each study, once finished, is
verified in full and a sample of its batches is replayed in this process and compared byte for byte.

    python -m benchmarks.soak --minutes 60 --kill-every 20 --json soak.json

What it does:
- starts ray.cluster_utils.Cluster: a head without CPUs and --nodes worker nodes of one CPU, under a
  private RAY_TMPDIR, everything on 127.0.0.1;
- round after round, runs `kaartlab run GAME --games N --address ...` in its own process (the toy
  game of tests/toy/ by default: it plays in microseconds, so the pipeline, not the kernel, is under
  load; rounds keep the disk bounded: a toy game is ~11 bytes and the cluster writes ~15 MB/s);
- every --kill-every seconds SIGKILLs a worker that is playing a batch; every --node-every-th fault
  removes a worker node and adds a fresh one; in every third round the driver is SIGKILLed, in
  another third it gets SIGTERM, at a random moment; a driver that ends in any other error (retries
  exhausted, say) is counted and resumed, as a user would;
- when a round's run ends well: `verify --deep` (every batch there, each matching its record and its
  rows), --sample batches replayed in this process and compared by SHA-256, then the round's data is
  deleted;
- at the end, checks that no Ray process of the soak is left.

The result (JSON) says how long it ran, how many rounds, games, batches, kills, node replacements and
driver restarts, and whether every check held.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LOOPBACK = {"RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0"}


def task_workers(marker: str) -> list[int]:
    pids = []
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                if (proc / "cmdline").read_bytes().startswith(b"ray::run_and_write") and \
                        marker.encode() in (proc / "environ").read_bytes():
                    pids.append(int(proc.name))
            except OSError:
                pass
    return pids


def processes_of(marker: str) -> list[int]:
    found = []
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit() and int(proc.name) != os.getpid():
            try:
                text = (proc / "cmdline").read_bytes() + (proc / "environ").read_bytes()
                state = (proc / "stat").read_text().rsplit(")", 1)[1].split()[0]
            except OSError:
                continue
            if marker.encode() in text and state != "Z":
                found.append(int(proc.name))
    return found


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--minutes", type=float, default=60)
    ap.add_argument("--kill-every", type=float, default=20, help="seconds between faults")
    ap.add_argument("--node-every", type=int, default=5, help="every N-th fault replaces a node")
    ap.add_argument("--nodes", type=int, default=2)
    ap.add_argument("--game", default="toy")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--batch-size", type=int, default=20_000)
    ap.add_argument("--sample", type=int, default=10, help="batches per round replayed and compared")
    ap.add_argument("--games", type=int, default=30_000_000, help="games per round's study")
    ap.add_argument("--json", default=None, help="write the result here too")
    ap.add_argument("--seed", type=int, default=2026)
    args = ap.parse_args(argv)

    tmp = Path(f"/tmp/ks-{os.getpid()}")
    tmp.mkdir(exist_ok=True)
    marker = str(tmp / "ray")
    games_env = ",".join(filter(None, [os.environ.get("KAARTLAB_GAMES"), "tests.toy.runner"]))
    os.environ.update({"RAY_TMPDIR": marker, "PYTHONPATH": str(ROOT), "KAARTLAB_GAMES": games_env,
                       **LOOPBACK})
    sys.path.insert(0, str(ROOT))
    from ray.cluster_utils import Cluster

    rng = random.Random(args.seed)
    result = {"minutes_planned": args.minutes, "kill_every_s": args.kill_every, "nodes": args.nodes,
              "game": args.game, "games_per_round": args.games, "batch_size": args.batch_size,
              "rounds": 0, "worker_kills": 0, "node_replacements": 0, "driver_kills": 0,
              "driver_sigterms": 0, "driver_errors": [], "driver_runs": 0, "games_verified": 0,
              "batches_verified": 0, "bad_batches": [], "replayed": 0, "replay_mismatches": []}
    cluster = Cluster(initialize_head=True, connect=False, head_node_args={
        "num_cpus": 0, "include_dashboard": False, "node_ip_address": "127.0.0.1"})
    nodes = [cluster.add_node(num_cpus=1, node_ip_address="127.0.0.1") for _ in range(args.nodes)]
    log = open(tmp / "driver.log", "a")

    def start(out: Path, seed: int):
        result["driver_runs"] += 1
        command = [sys.executable, "-m", "sim.cli", "run", args.game, "--players", str(args.players),
                   "--games", str(args.games), "--batch-size", str(args.batch_size), "--seed", str(seed),
                   "--address", cluster.address, "--out", str(out), "--no-progress"]
        return subprocess.Popen(command, cwd=ROOT, stdout=log, stderr=subprocess.PIPE, text=True)

    def fault() -> None:
        nonlocal nodes
        result["faults"] = result.get("faults", 0) + 1
        if result["faults"] % args.node_every == 0:
            victim = rng.choice(nodes)
            cluster.remove_node(victim)
            nodes.remove(victim)
            nodes.append(cluster.add_node(num_cpus=1, node_ip_address="127.0.0.1"))
            result["node_replacements"] += 1
        else:
            busy = task_workers(marker)
            if busy:
                os.kill(rng.choice(busy), signal.SIGKILL)
                result["worker_kills"] += 1

    from pipelines.batch import run_batch
    from pipelines.plan import plan
    from pipelines.storage import PARQUET_OPTIONS, StudyDir, delta_columns
    import hashlib
    import pyarrow as pa
    import pyarrow.parquet as pq

    def check(out: Path) -> None:
        directory = StudyDir(out)
        state = directory.integrity(deep=True)
        study = directory.read_study()
        result["bad_batches"] += [str(p) for p in state.bad]
        if not state.complete or state.temporary:
            result["bad_batches"].append(f"{out}: {len(state.temporary)} temporary files; "
                                         + " | ".join(state.lines(limit=5)))
        result["batches_verified"] += len(state.good)
        result["games_verified"] += sum(a.games for a in state.arms.values())
        batches = plan(study)
        for rel in rng.sample(sorted(state.good), min(args.sample, len(state.good))):
            arm, name = rel.split("/")
            batch = batches.batch(arm, int(name.split("batch-")[1].split(".")[0]))
            table = run_batch(study, batch)
            sink = pa.BufferOutputStream()
            pq.write_table(table, sink, **PARQUET_OPTIONS, column_encoding=delta_columns(table.schema))
            digest = hashlib.sha256(sink.getvalue().to_pybytes()).hexdigest()
            result["replayed"] += 1
            if digest != json.loads((out / (rel + ".json")).read_text())["sha256"]:
                result["replay_mismatches"].append(str(out / rel))

    began = time.monotonic()
    deadline = began + args.minutes * 60
    next_fault = began + args.kill_every
    driver = None
    try:
        while time.monotonic() < deadline:
            round_ = result["rounds"]
            out = tmp / f"round-{round_}"
            seed = args.seed + round_
            driver = start(out, seed)
            kill_driver_at = time.monotonic() + rng.uniform(3, 20) if round_ % 3 == 1 else None
            term_driver_at = time.monotonic() + rng.uniform(3, 20) if round_ % 3 == 2 else None
            while True:
                time.sleep(0.2)
                if driver.poll() is not None:
                    err = driver.stderr.read().strip()
                    if driver.returncode == 0:
                        break
                    if driver.returncode != 143:
                        result["driver_errors"].append({"at_s": round(time.monotonic() - began),
                                                        "code": driver.returncode, "stderr": err[-400:]})
                    driver = start(out, seed)  # resume
                    continue
                now = time.monotonic()
                if kill_driver_at and now > kill_driver_at:
                    kill_driver_at = None
                    driver.send_signal(signal.SIGKILL)
                    driver.wait()
                    result["driver_kills"] += 1
                    driver = start(out, seed)
                elif term_driver_at and now > term_driver_at:
                    term_driver_at = None
                    driver.send_signal(signal.SIGTERM)
                    result["driver_sigterms"] += 1
                elif now >= next_fault:
                    next_fault = now + args.kill_every
                    fault()
            check(out)
            subprocess.run(["rm", "-rf", str(out)])
            result["rounds"] += 1
    finally:
        if driver is not None and driver.poll() is None:
            driver.kill()
            driver.wait()
        result["seconds"] = round(time.monotonic() - began)
        cluster.shutdown()
    deadline = time.time() + 30
    while processes_of(marker) and time.time() < deadline:
        time.sleep(0.5)
    result["ray_processes_left"] = len(processes_of(marker))
    result["games_per_second"] = round(result["games_verified"] / max(1, result["seconds"]))
    result["ok"] = (not result["bad_batches"] and not result["replay_mismatches"]
                    and result["ray_processes_left"] == 0 and result["rounds"] > 0)
    text = json.dumps(result, indent=1)
    print(text)
    if args.json:
        Path(args.json).write_text(text + "\n")
    log.close()
    subprocess.run(["rm", "-rf", str(tmp)])
    return 0 if result["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
