"""Fault tests with the real engine on a real multi-node Ray cluster on this machine (loopback only):
a head without CPUs and two worker nodes (ray.cluster_utils.Cluster), joined by `kaartlab run
--address` in its own process. A node removed, a worker killed, retries exhausted, every worker node
gone: each run either finishes with the rows of a single-process run, or ends in one line that says
how to resume, and the resumed run finishes with those rows. Then the README's `ray start` flow.

Every Ray process this module starts carries its private RAY_TMPDIR, is stopped by the module, and
the module checks that none is left."""
from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import polars as pl
import pytest

from pipelines.run import run_study
from pipelines.storage import StudyDir
from sim.spec import ArmSpec, StudySpec

ROOT = Path(__file__).resolve().parents[1]
GAMES, BATCH = 600_000, 20_000
ARGV = ["study", None, "--batch-size", str(BATCH), "--no-progress"]
LOOPBACK = {"RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0"}  # Ray then binds and dials 127.0.0.1 only


def the_study() -> StudySpec:
    arms = (ArmSpec.make("toy", 4, {}, "greedy,random,greedy:bluff=0.2,random", name="mixed"),
            ArmSpec.make("toy", 3, {"ties": "nobody"}, "greedy", name="plain"))
    return StudySpec("faults", 21, GAMES, BATCH, arms)


STUDY_TOML = f"""
name = "faults"
seed = 21
games = {GAMES}
batch_size = {BATCH}
[defaults]
game = "toy"
[[arm]]
name = "mixed"
players = 4
policy = "greedy,random,greedy:bluff=0.2,random"
[[arm]]
name = "plain"
players = 3
policy = "greedy"
rules = {{ ties = "nobody" }}
"""


def processes_of(marker: str) -> list[str]:
    """Live processes (not this one) whose command line or environment names `marker`."""
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit() or int(proc.name) == os.getpid():
            continue
        try:
            text = (proc / "cmdline").read_bytes() + (proc / "environ").read_bytes()
            state = (proc / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if marker.encode() in text and state != "Z":
            found.append(f"{proc.name} {(proc / 'cmdline').read_bytes()[:100]!r}")
    return found


def task_workers(marker: str) -> list[int]:
    """Worker processes of this cluster playing a batch right now."""
    pids = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            if (proc / "cmdline").read_bytes().startswith(b"ray::run_and_write") and \
                    marker.encode() in (proc / "environ").read_bytes():
                pids.append(int(proc.name))
        except OSError:
            continue
    return pids


class Faults:
    """The cluster and what the tests do to it."""

    def __init__(self, tmp: Path):
        from ray.cluster_utils import Cluster

        self.tmp = tmp
        self.marker = str(tmp / "ray")
        self.cluster = Cluster(initialize_head=True, connect=False, head_node_args={
            "num_cpus": 0, "include_dashboard": False, "node_ip_address": "127.0.0.1"})
        self.nodes = [self.add() for _ in range(2)]
        self.study_file = tmp / "faults.toml"
        self.study_file.write_text(STUDY_TOML)
        self.reference = tmp / "reference"
        run_study(the_study(), self.reference, workers=0, progress=False)

    def add(self):
        return self.cluster.add_node(num_cpus=1, node_ip_address="127.0.0.1")

    def remove(self, node) -> None:
        self.cluster.remove_node(node)
        self.nodes.remove(node)

    def driver(self, out: Path, **env) -> subprocess.Popen:
        argv = [sys.executable, "-m", "sim.cli", "study", str(self.study_file), "--batch-size", str(BATCH),
                "--no-progress", "--out", str(out), "--address", self.cluster.address]
        return subprocess.Popen(argv, cwd=ROOT, env={**os.environ, **env}, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)

    def same_as_reference(self, out: Path) -> None:
        state = StudyDir(out).integrity(deep=True)
        assert state.ok and not state.temporary, state.lines()
        ours = pl.read_parquet(f"{out}/*/batch-*.parquet").sort("arm", "game")
        reference = pl.read_parquet(f"{self.reference}/*/batch-*.parquet").sort("arm", "game")
        assert ours.height == 2 * GAMES and ours.equals(reference)
        digests = {p.relative_to(out): json.loads(p.read_text())["sha256"] for p in out.glob("*/*.json")}
        assert digests == {p.relative_to(self.reference): json.loads(p.read_text())["sha256"]
                           for p in self.reference.glob("*/*.json")}  # byte-identical files

    def shutdown(self) -> None:
        self.cluster.shutdown()


@pytest.fixture(scope="module")
def faults(tmp_path_factory):
    tmp = Path(f"/tmp/kc-{os.getpid()}")  # short: Ray's socket paths live under it
    saved = {k: os.environ.get(k) for k in ("RAY_TMPDIR", "PYTHONPATH", *LOOPBACK)}
    os.environ.update({"RAY_TMPDIR": str(tmp / "ray"), "PYTHONPATH": str(ROOT), **LOOPBACK})
    tmp.mkdir(exist_ok=True)
    faults = None
    try:
        faults = Faults(tmp)
        yield faults
    finally:
        if faults is not None:
            faults.shutdown()
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        deadline = time.time() + 30
        while processes_of(str(tmp / "ray")) and time.time() < deadline:
            time.sleep(0.5)
        left = processes_of(str(tmp / "ray"))
        subprocess.run(["rm", "-rf", str(tmp)])
        assert not left, f"Ray processes left behind: {left}"


def records(out: Path) -> int:
    return len(list(out.glob("*/batch-*.parquet.json")))


def wait_for(condition, proc, timeout=120.0):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if condition():
            return
        if proc.poll() is not None:
            pytest.fail("the driver ended early: " + proc.stderr.read()[-3000:])
        time.sleep(0.02)
    proc.kill()
    pytest.fail("timed out")


def finish(proc, timeout=300) -> tuple[int, str, str]:
    stdout, stderr = proc.communicate(timeout=timeout)
    return proc.returncode, stdout, stderr


def test_a_study_through_address_on_two_nodes_equals_a_single_process_run(faults):
    out = faults.tmp / "plain-run"
    code, stdout, stderr = finish(faults.driver(out))
    assert code == 0, stderr
    assert "played 1,200,000 games" in stdout
    faults.same_as_reference(out)


def test_a_node_removed_mid_study(faults):
    out = faults.tmp / "node-removed"
    proc = faults.driver(out)
    wait_for(lambda: records(out) >= 5, proc)
    faults.remove(faults.nodes[0])  # its running batch is lost and retried elsewhere
    faults.nodes.append(faults.add())
    code, _, stderr = finish(proc)
    assert code == 0, stderr
    faults.same_as_reference(out)


def test_a_worker_killed_mid_study(faults):
    out = faults.tmp / "worker-killed"
    proc = faults.driver(out)
    wait_for(lambda: records(out) >= 5 and task_workers(faults.marker), proc)
    victim = task_workers(faults.marker)[0]
    os.kill(victim, signal.SIGKILL)
    code, _, stderr = finish(proc)
    assert code == 0, stderr
    assert records(out) == 60
    faults.same_as_reference(out)


def test_exhausted_retries_end_in_one_line_and_the_resumed_run_finishes(faults):
    out = faults.tmp / "no-retries"
    proc = faults.driver(out, KAARTLAB_TASK_RETRIES="0")
    wait_for(lambda: records(out) >= 5 and task_workers(faults.marker), proc)
    for pid in task_workers(faults.marker)[:1]:
        os.kill(pid, signal.SIGKILL)
    code, _, stderr = finish(proc)
    assert code == 3, stderr
    assert stderr.startswith("kaartlab: error: batch ") and stderr.count("\n") == 1, stderr
    assert "could not be played: its worker died 1 times" in stderr
    assert "are done and kept; resume with: kaartlab study" in stderr and "--address" in stderr
    code, stdout, stderr = finish(faults.driver(out))
    assert code == 0 and "batches were already done" in stdout, stderr
    faults.same_as_reference(out)


def test_every_worker_node_gone_ends_in_one_line_then_resumes(faults):
    out = faults.tmp / "capacity"
    proc = faults.driver(out, KAARTLAB_CAPACITY_WAIT="3")
    wait_for(lambda: records(out) >= 5, proc)
    for node in list(faults.nodes):
        faults.remove(node)
    began = time.monotonic()
    code, _, stderr = finish(proc, timeout=120)
    assert code == 3 and time.monotonic() - began < 60, stderr
    assert stderr.startswith("kaartlab: error: the Ray cluster has had no worker with a CPU for 3 s")
    assert stderr.count("\n") == 1 and "resume with: kaartlab study" in stderr
    faults.nodes += [faults.add() for _ in range(2)]
    code, stdout, stderr = finish(faults.driver(out))
    assert code == 0, stderr
    faults.same_as_reference(out)


def test_a_cluster_without_any_worker_node_ends_in_one_line_then_resumes(faults):
    """The driver joins a cluster whose every worker node is gone (only the CPU-less head is left):
    it connects within its deadlines, then ends in one line after KAARTLAB_CAPACITY_WAIT, nothing
    written but the study's claim; once nodes are back the same command plays the study."""
    out = faults.tmp / "no-workers"
    for node in list(faults.nodes):
        faults.remove(node)
    try:
        began = time.monotonic()
        code, _, stderr = finish(faults.driver(out, KAARTLAB_CAPACITY_WAIT="3"), timeout=120)
        assert code == 3 and time.monotonic() - began < 60, stderr
        assert stderr.startswith("kaartlab: error: the Ray cluster has had no worker with a CPU for 3 s")
        assert stderr.count("\n") == 1 and "0 of 60 batches are done and kept" in stderr, stderr
        assert records(out) == 0
    finally:
        faults.nodes += [faults.add() for _ in range(2 - len(faults.nodes))]
    code, stdout, stderr = finish(faults.driver(out))
    assert code == 0, stderr
    faults.same_as_reference(out)


# ------------------------------------------------------------------- the README's ray start flow

def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Head:
    """`ray start --head --block` on this machine in its own session, HOME and RAY_TMPDIR; stopped
    (its process group), and none of its processes left, on exit."""

    def __init__(self, tmp_path: Path, name: str, token: bool):
        self.ray_tmp = Path(f"/tmp/kh-{os.getpid()}-{name}")
        self.port = free_port()
        home = tmp_path / f"home-{name}"
        home.mkdir()
        self.env = {**os.environ, "PYTHONPATH": str(ROOT), "RAY_TMPDIR": str(self.ray_tmp), "HOME": str(home),
                    **LOOPBACK}
        for key in ("RAY_AUTH_MODE", "RAY_AUTH_TOKEN", "RAY_AUTH_TOKEN_PATH", "RAY_ADDRESS"):
            self.env.pop(key, None)
        ray = Path(sys.executable).parent / "ray"
        head_env = dict(self.env)
        if token:  # the README: a token first (Ray 2.60 writes none by itself), then a head that asks for it
            subprocess.run([str(ray), "get-auth-token", "--generate"], env=self.env, check=True,
                           capture_output=True, timeout=60)
            assert (home / ".ray" / "auth_token").is_file()
            head_env["RAY_AUTH_MODE"] = "token"
        self.proc = subprocess.Popen([str(ray), "start", "--head", "--block", f"--port={self.port}",
                                      "--node-ip-address=127.0.0.1", "--num-cpus=2", "--include-dashboard=false",
                                      "--disable-usage-stats", f"--temp-dir={self.ray_tmp}"],
                                     env=head_env, start_new_session=True, stdout=subprocess.DEVNULL,
                                     stderr=open(tmp_path / f"head-{name}.log", "w"))
        deadline = time.time() + 60
        while time.time() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.2)

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def kaartlab(self, *argv, games: int = 200_000, **env):
        run = ["run", "toy", "--games", str(games), "--batch-size", "20000", "--no-progress", "--no-estimate"]
        return subprocess.run([sys.executable, "-m", "sim.cli", *run, *argv], cwd=ROOT, env={**self.env, **env},
                              capture_output=True, text=True, timeout=300)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        try:  # the whole session at once: `ray start --block` drains for up to 30 s after SIGTERM
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.proc.wait()
        deadline = time.time() + 15
        while processes_of(str(self.ray_tmp)) and time.time() < deadline:
            time.sleep(0.5)
        left = processes_of(str(self.ray_tmp))
        subprocess.run(["rm", "-rf", str(self.ray_tmp)])
        assert not left, f"Ray processes left behind: {left}"


def one_line(result, code: int, text: str) -> None:
    assert result.returncode == code and text in result.stderr, result.stderr
    assert result.stderr.startswith("kaartlab: ") and result.stderr.count("\n") == 1, result.stderr


def test_the_ray_start_flow_of_the_readme(tmp_path):
    """The README's recipe with Ray 2.60: `ray start --head` alone starts a cluster without token
    authentication (and writes no token); `ray get-auth-token --generate` then `RAY_AUTH_MODE=token
    ray start --head` one with it. kaartlab joins either with --address (on the head's machine it sends
    the local token itself), refuses to send a token to the open one (Ray's own answer was an
    OwnerDiedError), says a wrong token in one line; a plain `kaartlab run` beside a cluster starts
    its own Ray; `--workers 0 --address` is refused."""
    with Head(tmp_path, "open", token=False) as head:
        assert not (tmp_path / "home-open" / ".ray" / "auth_token").exists()
        joined = head.kaartlab("--address", head.address, "--out", str(tmp_path / "joined"))
        assert joined.returncode == 0, joined.stderr
        local = head.kaartlab("--workers", "1", "--out", str(tmp_path / "local"))  # its own Ray beside
        assert local.returncode == 0, local.stderr
        one_line(head.kaartlab("--workers", "0", "--address", head.address, "--out", str(tmp_path / "no")),
                 2, "joins no cluster")
        one_line(head.kaartlab("--address", head.address, "--out", str(tmp_path / "tok"), RAY_AUTH_MODE="token",
                               RAY_AUTH_TOKEN="0" * 32), 3, "does not use token authentication")
        a = pl.read_parquet(tmp_path / "joined" / "main" / "*.parquet").sort("game")
        assert a.height == 200_000 and a.equals(pl.read_parquet(tmp_path / "local" / "main" / "*.parquet").sort("game"))
    with Head(tmp_path, "token", token=True) as head:
        joined = head.kaartlab("--address", head.address, "--out", str(tmp_path / "joined-token"), games=40_000)
        assert joined.returncode == 0, joined.stderr
        assert pl.read_parquet(tmp_path / "joined-token" / "main" / "*.parquet").sort("game").equals(a.head(40_000))
        one_line(head.kaartlab("--address", head.address, "--out", str(tmp_path / "wrong"), RAY_AUTH_MODE="token",
                               RAY_AUTH_TOKEN="0" * 32), 3, "refuses the token given here")
