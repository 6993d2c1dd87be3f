"""Two hosts on one machine: Linux network, pid and mount namespaces (unprivileged, through a user
namespace) give a "head" host and a "driver" host joined by a virtual cable, each with its own
addresses and its own view of processes, as two machines have.

The head listens on the cable (10.1.0.1) but advertises 10.9.9.1, an address only it has: what a
head started with `--node-ip-address` set to an address other hosts cannot reach (127.0.0.1, an
internal interface) looks like from another host. Everything runs inside the namespaces, so
`ray stop` there and the end of the namespace's first process stop only this test's Ray.
"""
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import polars as pl
import pytest

BIN = Path(sys.executable).parent
HEAD, CABLE_HEAD, CABLE_DRIVER = "10.9.9.1", "10.1.0.1", "10.1.0.2"


def _namespaces_work() -> bool:
    if shutil.which("unshare") is None or shutil.which("ip") is None:
        return False
    probe = subprocess.run(["unshare", "-rnpm", "--fork", "--mount-proc", "ip", "link", "set", "lo", "up"],
                           capture_output=True)
    return probe.returncode == 0


pytestmark = pytest.mark.skipif(not _namespaces_work(), reason="needs unprivileged user, network and pid "
                                "namespaces and iproute2 (unshare -rnpm, ip)")


def plain_env(home: Path) -> dict:
    """The environment a user's shell has (no test games, KAARTLAB_GAMES, and no Ray settings), with
    its own HOME: `ray start --head` turns token authentication on by itself when ~/.ray/auth_token
    exists, and every local ray.init() writes one, so the user's HOME would decide the cluster's mode."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("RAY_", "KAARTLAB_"))}
    home.mkdir(exist_ok=True)
    return {**env, "HOME": str(home)}


def two_hosts(tmp_path: Path, driver: str, join: bool, token: bool = False) -> subprocess.CompletedProcess:
    """Run `driver` (a shell command) on the driver host, after starting the head (no CPUs: every
    batch runs on the driver host when it joins) and, with `join`, a Ray node on the driver host.
    With `token`, the README's recipe: a token first, RAY_AUTH_MODE=token on every host (one HOME,
    so the token is already "copied" to the driver host)."""
    ray_dir = Path(tempfile.mkdtemp(prefix="kl-", dir="/tmp"))  # Ray's sockets: 107 bytes at most
    env = plain_env(tmp_path / "home")
    if token:
        subprocess.run([str(BIN / "ray"), "get-auth-token", "--generate"], env=env, check=True,
                       capture_output=True, timeout=60)
    mode = "token" if token else "disabled"
    go = tmp_path / "go"
    node = (f"RAY_AUTH_MODE={mode} {BIN}/ray start --address {CABLE_HEAD}:6379 --node-ip-address {CABLE_DRIVER} --num-cpus 1 "
            f"--temp-dir {ray_dir}/d --disable-usage-stats >{tmp_path}/node.log 2>&1 || exit 90"
            if join else "true")
    driver_host = textwrap.dedent(f"""\
        while ! ip link show vB >/dev/null 2>&1; do sleep 0.1; done
        ip link set lo up; ip addr add {CABLE_DRIVER}/24 dev vB; ip link set vB up
        while [ ! -e {go} ]; do sleep 0.1; done
        {node}
        cd {tmp_path}
        began=$(date +%s%N)
        {"export RAY_AUTH_MODE=token" if token else ""}
        {driver}
        rc=$?
        echo "ms=$(( ($(date +%s%N) - began) / 1000000 ))"
        exit $rc
        """)
    (tmp_path / "driver_host.sh").write_text(driver_host)
    head_host = textwrap.dedent(f"""\
        ip link set lo up
        ip addr add {HEAD}/32 dev lo
        unshare -npm --fork --mount-proc sh {tmp_path}/driver_host.sh &
        driver=$!
        sleep 0.3
        ip link add vA type veth peer name vB netns $driver
        ip addr add {CABLE_HEAD}/24 dev vA; ip link set vA up
        RAY_AUTH_MODE={mode} {BIN}/ray start --head --node-ip-address {HEAD} --port 6379 --num-cpus 0 --temp-dir {ray_dir}/h \\
            --disable-usage-stats --include-dashboard false >{tmp_path}/head.log 2>&1 || exit 91
        touch {go}
        wait $driver
        """)
    (tmp_path / "head_host.sh").write_text(head_host)
    try:
        return subprocess.run(["unshare", "-rnpm", "--fork", "--mount-proc", "bash", str(tmp_path / "head_host.sh")],
                              capture_output=True, text=True, timeout=240, env=env)
    finally:
        shutil.rmtree(ray_dir, ignore_errors=True)


def seconds(out: str) -> float:
    return int(out.rsplit("ms=", 1)[1].split()[0]) / 1000


@pytest.mark.parametrize("token", [False, True], ids=["open", "token"])
def test_a_driver_on_a_machine_that_is_not_a_node_is_told_at_once(tmp_path, token):
    """Ray waits for a raylet on the driver's machine until the join deadline (then the line blamed
    the addresses); kaartlab sees there is none and says what to do, long before the 60 s, before
    any question of tokens (no token would make this machine a node)."""
    done = two_hosts(tmp_path, f"KAARTLAB_JOIN_TIMEOUT=60 {BIN}/kaartlab run knutten --games 8 "
                     f"--address {CABLE_HEAD}:6379 --out {tmp_path}/runs/k", join=False, token=token)
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert done.returncode == 3, done.stdout + done.stderr
    assert len(lines) == 1 and "this machine is not a node of it" in lines[0], done.stderr
    assert f"ray start --address={CABLE_HEAD}:6379" in lines[0]
    assert seconds(done.stdout) < 30
    assert not (tmp_path / "runs" / "k").exists() or not list((tmp_path / "runs" / "k").rglob("*.parquet"))


@pytest.mark.parametrize("token", [False, True], ids=["open", "token"])
def test_a_node_reaching_a_head_that_advertises_an_unreachable_address_plays_the_study(tmp_path, token):
    """The driver host joined the cluster; the head's own address is out of its reach, its GCS is
    not. The study plays on the driver host's node, with the rows of a single-process run."""
    study = "--games 600 --batch-size 100 --seed 5"
    done = two_hosts(tmp_path, f"timeout 150 {BIN}/kaartlab run knutten {study} --address {CABLE_HEAD}:6379 "
                     f"--out {tmp_path}/runs/cluster", join=True, token=token)
    logs = "".join((tmp_path / name).read_text()[-2000:] for name in ("head.log", "node.log")
                   if (tmp_path / name).exists())
    assert done.returncode == 0, done.stdout + done.stderr + logs
    alone = subprocess.run([str(BIN / "kaartlab"), "run", "knutten", *study.split(), "--workers", "0",
                            "--out", str(tmp_path / "runs" / "alone")], capture_output=True, text=True,
                           timeout=240, env=plain_env(tmp_path / "home"))
    assert alone.returncode == 0, alone.stderr

    def rows(name: str) -> pl.DataFrame:
        return pl.read_parquet(sorted((tmp_path / "runs" / name).rglob("batch-*.parquet"))).sort("game")

    cluster, single = rows("cluster"), rows("alone")
    assert cluster.height == 600
    assert cluster.equals(single)
