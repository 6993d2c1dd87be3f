"""Compile once per cluster (issue 31): the time from a fresh Ray node joining, with an empty Numba
cache of its own, to its first batch finished, when the driver ships its compiled kernels
(pipelines/kernel_cache.py) and when the node compiles them itself (KAARTLAB_SHIP_KERNELS=0, the
old path).

    python -m benchmarks.cluster_cache [--games knutten,wizard] [--repeats 2] [--count 2000]

Two hosts on this machine, as in tests/test_two_hosts.py (unprivileged user, network and pid
namespaces): the head host runs the head (no CPUs) and the driver, whose cache is already warm (it
compiled before the clock starts); the new host starts `ray start --address ...` with one CPU, a
custom resource and an empty NUMBA_CACHE_DIR only when the driver has joined, prepared its shipment
and submitted one batch that only that node can run (the pipeline's own task, run_and_write). The
clock runs from just before that `ray start` to the batch's result in the driver: the node's own
start (raylet, a worker process) is inside, and printed apart. Every run has its own HOME, Ray
directories and caches; the namespaces end with everything in them.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
HEAD, NEW = "10.1.0.1", "10.1.0.2"


def study_of(game: str, count: int):
    from sim.spec import ArmSpec, StudySpec

    arm = ArmSpec.make(game, 4, {}, None, name="main")
    return StudySpec(name=f"cache-{game}", seed=1, games=count, batch_size=count, arms=(arm,))


def first_batch(study, batch, out: str, shipment) -> dict:
    """Ray task on the new node: the pipeline's batch task, then what this process's Numba caches
    did (hits: loaded from the node's cache; misses: compiled here)."""
    from pipelines import kernel_cache
    from pipelines.batch import run_and_write

    began = time.perf_counter()
    run_and_write(study, batch, out, None, shipment)
    dispatchers = list(kernel_cache._cached_dispatchers())
    note = kernel_cache._installed.get(shipment.id) if shipment is not None else None
    return {"task_seconds": time.perf_counter() - began,
            "hits": sum(sum(d.stats.cache_hits.values()) for d in dispatchers),
            "misses": sum(sum(d.stats.cache_misses.values()) for d in dispatchers),
            "placed": note["placed"] if note else 0, "bytes": note["bytes"] if note else 0,
            "placing_seconds": note["seconds"] if note else 0.0}


def inside(game: str, count: int, ship: bool, work: Path) -> None:
    """The driver, on the head host: warm kernels, join, ship (or not), submit, let the node start."""
    import ray

    from pipelines import kernel_cache
    from pipelines.plan import plan
    from pipelines.run import warm_up

    study = study_of(game, count)
    warm_up(study)  # the driver's cache is warm: a load, as after `kaartlab compile`
    ray.init(address=f"{HEAD}:6379", logging_level="ERROR", log_to_driver=False)
    shipment = kernel_cache.prepare() if ship else None
    task = ray.remote(num_cpus=1, resources={"fresh": 1}, max_retries=0)(first_batch)
    ref = task.remote(study, next(iter(plan(study))), str(work / "out"), shipment)
    (work / "go").touch()
    result = ray.get(ref, timeout=600)
    done = time.time()
    t0, joined = (float((work / name).read_text()) for name in ("t0", "joined"))
    print("RESULT " + json.dumps({"game": game, "ship": ship, "seconds": done - t0, "node_start": joined - t0,
                                  **result}), flush=True)


def one_run(game: str, count: int, ship: bool, driver_cache: Path) -> dict:
    work = Path(tempfile.mkdtemp(prefix="klcc-", dir="/tmp"))  # Ray's sockets: 107 bytes at most
    try:
        (work / "home").mkdir()
        (work / "node-cache").mkdir()
        env = {k: v for k, v in os.environ.items() if not k.startswith(("RAY_", "KAARTLAB_"))}
        env.update(HOME=str(work / "home"), NUMBA_CACHE_DIR=str(driver_cache), PYTHONPATH=str(ROOT))
        new_host = textwrap.dedent(f"""\
            while ! ip link show vB >/dev/null 2>&1; do sleep 0.05; done
            ip link set lo up; ip addr add {NEW}/24 dev vB; ip link set vB up
            while [ ! -e {work}/go ]; do sleep 0.05; done
            date +%s.%N > {work}/t0
            NUMBA_CACHE_DIR={work}/node-cache {BIN}/ray start --address {HEAD}:6379 --node-ip-address {NEW} \\
                --num-cpus 1 --resources '{{"fresh": 1}}' --temp-dir {work}/n --disable-usage-stats \\
                >{work}/node.log 2>&1 || exit 90
            date +%s.%N > {work}/joined
            while [ ! -e {work}/done ]; do sleep 0.2; done
            """)
        head_host = textwrap.dedent(f"""\
            ip link set lo up
            unshare -npm --fork --mount-proc sh {work}/new_host.sh &
            new=$!
            sleep 0.3
            ip link add vA type veth peer name vB netns $new
            ip addr add {HEAD}/24 dev vA; ip link set vA up
            {BIN}/ray start --head --node-ip-address {HEAD} --port 6379 --num-cpus 0 --temp-dir {work}/h \\
                --disable-usage-stats --include-dashboard false >{work}/head.log 2>&1 || exit 91
            cd {ROOT}
            {sys.executable} -m benchmarks.cluster_cache --inside {game} --count {count} \\
                {"--ship" if ship else ""} --work {work}
            rc=$?
            touch {work}/done
            wait $new
            exit $rc
            """)
        (work / "new_host.sh").write_text(new_host)
        (work / "head_host.sh").write_text(head_host)
        done = subprocess.run(["unshare", "-rnpm", "--fork", "--mount-proc", "bash", str(work / "head_host.sh")],
                              capture_output=True, text=True, timeout=900, env=env)
        lines = [line for line in done.stdout.splitlines() if line.startswith("RESULT ")]
        if done.returncode != 0 or not lines:
            logs = "".join((work / n).read_text()[-1500:] for n in ("head.log", "node.log") if (work / n).exists())
            raise RuntimeError(f"run failed ({done.returncode}): {done.stdout[-1500:]}{done.stderr[-3000:]}{logs}")
        return json.loads(lines[-1][len("RESULT "):])
    finally:
        shutil.rmtree(work, ignore_errors=True)


def warm_driver_cache(game: str, count: int, driver_cache: Path) -> float:
    """Compile the game's kernels into the driver's cache (a child process); its seconds."""
    began = time.perf_counter()
    code = (f"from benchmarks.cluster_cache import study_of; from pipelines.run import warm_up; "
            f"warm_up(study_of({game!r}, {count}))")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT,
                   env={**os.environ, "NUMBA_CACHE_DIR": str(driver_cache), "PYTHONPATH": str(ROOT)})
    return time.perf_counter() - began


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--games", default="knutten,wizard")
    p.add_argument("--repeats", type=int, default=2)
    p.add_argument("--count", type=int, default=2000, help="games in the node's first batch")
    p.add_argument("--inside", help=argparse.SUPPRESS)
    p.add_argument("--ship", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--work", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.inside:
        inside(args.inside, args.count, args.ship, Path(args.work))
        return 0
    with tempfile.TemporaryDirectory(prefix="klcc-driver-") as driver_cache:
        for game in args.games.split(","):
            cold = warm_driver_cache(game, args.count, Path(driver_cache))
            print(f"{game}: the driver's cold compile (a child process, first game included) {cold:.1f} s")
            runs = {True: [], False: []}
            for _ in range(args.repeats):
                for ship in (True, False):  # alternated: a drift of the machine hits both alike
                    runs[ship].append(one_run(game, args.count, ship, Path(driver_cache)))
            for ship, label in ((True, "shipped"), (False, "compiled on the node")):
                rs = runs[ship]
                print(f"  {label:<22} node joins -> first batch done: median {statistics.median(r['seconds'] for r in rs):5.1f} s"
                      f"  (runs {', '.join(format(r['seconds'], '.1f') for r in rs)}; node start "
                      f"{statistics.median(r['node_start'] for r in rs):.1f} s; batch task "
                      f"{statistics.median(r['task_seconds'] for r in rs):.1f} s; placed "
                      f"{rs[0]['placed']} file(s), {rs[0]['bytes'] / 1e6:.1f} MB in "
                      f"{statistics.median(r['placing_seconds'] for r in rs):.2f} s; Numba on the node: "
                      f"{rs[0]['hits']} loaded, {rs[0]['misses']} compiled)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
