"""What the service tests share: small toy study files, a `kaartlab serve` in a subprocess on a free
port, and waiting on a study's status through the API."""
from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import polars as pl
import pytest

ROOT = Path(__file__).resolve().parents[1]


def toy_study(name: str, games: int = 2_000, batch_size: int = 1_000, seed: int = 3, bluff: float = 0.2,
              tricks: int = 3, extra: str = "") -> str:
    """A two-arm toy study: lowest_wins off and on, players who bluff a little."""
    return f'''name = "{name}"
description = "Does lowest_wins change who wins the toy game?"
seed = {seed}
games = {games}
batch_size = {batch_size}

[defaults]
game = "toy"
players = 3
policy = "greedy:bluff={bluff}"
rules = {{ tricks = {tricks} }}

[[arm]]
name = "high"

[[arm]]
name = "low"
rules = {{ lowest_wins = true }}

[[question]]
kind = "compare"
arms = ["high", "low"]
measures = ["seat0_edge", "score"]
{extra}'''


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """`kaartlab serve` as a user starts it, in its own process."""

    def __init__(self, runs: Path, *options: str, log: Path | None = None, env: dict | None = None):
        self.runs, self.options, self.env = Path(runs), [str(o) for o in options], env or {}
        self.log = log or self.runs.parent / f"serve-{self.runs.name}.log"
        self.proc: subprocess.Popen | None = None
        self.port = 0

    def start(self, timeout: float = 60) -> Server:
        self.port = free_port()
        env = {**os.environ, "PYTHONPATH": str(ROOT), **self.env}
        self.proc = subprocess.Popen([sys.executable, "-m", "sim.cli", "serve", "--runs", str(self.runs),
                                      "--port", str(self.port), *self.options],
                                     cwd=ROOT, env=env, stdout=open(self.log, "ab"), stderr=subprocess.STDOUT)
        deadline = time.time() + timeout
        while time.time() < deadline:
            if self.proc.poll() is not None:
                pytest.fail(f"kaartlab serve ended: {self.log.read_text()[-2000:]}")
            try:
                if httpx.get(self.url + "/api/health", timeout=2).status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        pytest.fail("kaartlab serve did not answer")

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def client(self, **kw) -> httpx.Client:
        return httpx.Client(base_url=self.url, timeout=30, **kw)

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 90) -> int | None:
        if self.proc is None or self.proc.poll() is not None:
            return None if self.proc is None else self.proc.returncode
        self.proc.send_signal(sig)
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            return self.proc.wait(10)


def wait_status(client: httpx.Client, id: str, statuses, timeout: float = 120.0, every: float = 0.2) -> dict:
    statuses = (statuses,) if isinstance(statuses, str) else tuple(statuses)
    deadline = time.time() + timeout
    study = {}
    while time.time() < deadline:
        study = client.get(f"/api/studies/{id}").json()
        if study.get("status") in statuses:
            return study
        if study.get("status") == "failed" and "failed" not in statuses:
            pytest.fail(f"study {id} failed: {study.get('message')}\n{study.get('log')}")
        time.sleep(every)
    pytest.fail(f"study {id} is {study.get('status')!r} after {timeout:g} s, not {statuses}: {study.get('log')}")


def wait_for(condition, timeout: float = 60.0, every: float = 0.05, what: str = "a condition"):
    deadline = time.time() + timeout
    while time.time() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(every)
    pytest.fail(f"timed out waiting for {what}")


def records(directory: Path) -> int:
    return len(list(Path(directory).glob("*/batch-*.parquet.json")))


def rows(directory: Path) -> pl.DataFrame:
    return pl.read_parquet(f"{directory}/*/batch-*.parquet").sort("arm", "game")


def hashes(directory: Path) -> dict[str, str]:
    """Each batch file's SHA-256 as its record gives it."""
    import json

    return {str(p.relative_to(directory)): json.loads(p.read_text())["sha256"]
            for p in sorted(Path(directory).glob("*/batch-*.parquet.json"))}


def processes_naming(marker: str) -> list[int]:
    """Live processes (not this one) whose command line or environment names ``marker`` (a private
    RAY_TMPDIR: the Ray processes a study started, whatever their titles)."""
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
            found.append(int(proc.name))
    return found
