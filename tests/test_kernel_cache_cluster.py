"""Compile once per cluster (issue 31): a node that joins with an empty Numba cache of its own gets
the driver's compiled kernels through Ray (pipelines/kernel_cache.py) and loads them: its workers
compile nothing. Two hosts on this machine as in tests/test_two_hosts.py (a head without CPUs, and
the driver's host with a one-CPU node); the node and the driver each have their own NUMBA_CACHE_DIR,
as two machines have, and every process its own HOME. Also: a shipment this node cannot use (other
kernel code, Numba or Python, or CPU) places nothing, and the node compiles as before."""
import subprocess
from pathlib import Path

import polars as pl
import pytest

from tests.test_two_hosts import BIN, CABLE_HEAD, _namespaces_work, plain_env, two_hosts

namespaces = pytest.mark.skipif(not _namespaces_work(), reason="needs unprivileged user, network and pid "
                                "namespaces and iproute2 (unshare -rnpm, ip)")

STUDY = "--games 400 --batch-size 100 --seed 3"


def cache_files(root: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in root.rglob("*") if p.suffix in (".nbi", ".nbc")}


@namespaces
def test_a_node_with_an_empty_cache_loads_the_drivers_kernels_and_compiles_nothing(tmp_path, monkeypatch):
    node_cache, driver_cache = tmp_path / "node-cache", tmp_path / "driver-cache"
    node_cache.mkdir()
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(node_cache))  # the Ray nodes' (the head has no CPUs)
    done = two_hosts(tmp_path, f"NUMBA_CACHE_DIR={driver_cache} timeout 200 {BIN}/kaartlab run knutten {STUDY} "
                     f"--address {CABLE_HEAD}:6379 --out {tmp_path}/runs/cluster", join=True)
    logs = "".join((tmp_path / name).read_text()[-2000:] for name in ("head.log", "node.log")
                   if (tmp_path / name).exists())
    assert done.returncode == 0, done.stdout + done.stderr + logs
    shipped = [line for line in done.stdout.splitlines() if line.startswith("kernels shipped: ")]
    assert len(shipped) == 1, done.stdout
    assert "placed on 1 of 1 node(s); compiled on the workers: 0" in shipped[0], shipped[0]
    assert "not placed" not in shipped[0], shipped[0]

    # the node's cache holds the driver's data files, byte for byte: shipped, not compiled there
    driver, node = cache_files(driver_cache), cache_files(node_cache)
    data = {name for name in driver if name.endswith(".nbc")}
    assert data and any(name.startswith("play_nb.play_games_nb-") for name in data), sorted(driver)
    assert {name for name in node if name.endswith(".nbi")} == {name for name in driver if name.endswith(".nbi")}
    assert all(node[name] == driver[name] for name in data), sorted(node)

    # the same rows as a single-process run
    alone = subprocess.run([str(BIN / "kaartlab"), "run", "knutten", *STUDY.split(), "--workers", "0",
                            "--out", str(tmp_path / "runs" / "alone")], capture_output=True, text=True,
                           timeout=240, env={**plain_env(tmp_path / "home"), "NUMBA_CACHE_DIR": str(driver_cache)})
    assert alone.returncode == 0, alone.stderr

    def rows(name: str) -> pl.DataFrame:
        return pl.read_parquet(sorted((tmp_path / "runs" / name).rglob("batch-*.parquet"))).sort("game")

    cluster = rows("cluster")
    assert cluster.height == 400
    assert cluster.equals(rows("alone"))


@namespaces
def test_a_node_that_joins_after_the_warm_up_gets_the_kernels_with_its_first_batch(tmp_path):
    """The issue's case: the driver has compiled and is running; a fresh node (empty cache) joins
    and its first batch task places the shipment itself (no warm-up task ran there) and loads it.
    benchmarks/cluster_cache.py's run: the batch is the pipeline's run_and_write, pinned to the node."""
    from benchmarks.cluster_cache import one_run, warm_driver_cache

    warm_driver_cache("knutten", 200, tmp_path / "driver-cache")
    run = one_run("knutten", 200, True, tmp_path / "driver-cache")
    assert run["placed"] == 1 and run["bytes"] > 0, run
    assert run["hits"] >= 1 and run["misses"] == 0, run  # loaded, not compiled


def test_a_shipment_this_node_cannot_use_places_nothing():
    """The checks before any byte is fetched or written (no Ray needed: nothing is placed)."""
    from kernels.jit import tree_stamp
    from kernels.knutten import play_nb
    from pipelines import kernel_cache
    from pipelines.kernel_cache import Entry, Shipment

    magic = play_nb.play_games_nb.targetctx.codegen().magic_tuple()

    def note(versions, stamp, key_magic):
        entry = Entry("kernels.knutten.play_nb", "play_games_nb", stamp, ((), key_magic, ("a", "b")), 1)
        return kernel_cache._install(Shipment("t", versions, (entry,), []))

    here = kernel_cache._versions()
    assert note(here, "sha256:other", magic) == {"placed": 0, "bytes": 0, "skipped": "other kernel code here"}
    assert note(here, tree_stamp(), ("other-triple", "other-cpu", "")) == {
        "placed": 0, "bytes": 0, "skipped": "other CPU here"}
    assert note(("0.1", (3, 0), ""), tree_stamp(), magic)["skipped"].startswith("other Numba or Python here")
    # and ensure() never raises: a broken shipment is a note, the worker then compiles
    broken = kernel_cache.ensure(Shipment("broken", here, (Entry("no.such.module", "f", "", (), 0),), []))
    assert broken["placed"] == 0 and broken["skipped"].startswith("ModuleNotFoundError")
