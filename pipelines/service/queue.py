"""The service's queue, kept in the runs directory, and the runner that plays it.

    RUNS/.queue/server.lock   held (flock) by the one `kaartlab serve` that uses RUNS
    RUNS/.queue/<id>.json     the entry: status, priority, order, times, the child's pid, its last line
    RUNS/.queue/<id>.toml     the study file as submitted
    RUNS/.queue/<id>.log      what the study's runs printed
    RUNS/<id>/                the study's dataset and report, as `kaartlab study` writes them

Each study runs as a child process, the CLI itself: ``kaartlab study RUNS/.queue/<id>.toml --out
RUNS/<id> --report`` (plus ``--workers``/``--address``). Stopping a study is SIGTERM to its child,
which the CLI handles like Ctrl-C (finished batches kept, Ray shut down); running it again resumes
it, and the pipeline makes the same rows as an uninterrupted run. Nothing of the queue lives only in
memory: a server that restarts reads the entries back and starts again what was running. A child
gets SIGTERM when the server dies however it dies (Linux: PR_SET_PDEATHSIG), so it never writes on
beside a new server's child; a restart also waits for any child of the old server still alive.

Order: studies that were running when the server stopped first, then by priority (higher first),
then in submission order; ``jobs`` studies at a time.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from pipelines.lock import process_start
from pipelines.service.submit import valid_id
from sim.errors import SpecError

QUEUE_DIR = ".queue"
ACTIVE = ("queued", "running", "stopping")
FINISHED = ("done", "stopped", "failed")
TICK = 0.25  # seconds between the runner's looks at its children and the queue
STOP_WAIT = float(os.environ.get("KAARTLAB_SERVICE_STOP_WAIT", "60"))  # a child's time to stop cleanly

# Runs the CLI with PR_SET_PDEATHSIG = SIGTERM (kept across exec): when the server's runner thread
# ends, however the server ends, the child stops as after Ctrl-C and keeps its finished batches.
LAUNCHER = """import ctypes, os, signal, sys
try:
    ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGTERM))
except Exception:
    pass
if os.getppid() != int(sys.argv[1]):
    sys.exit(143)
os.execv(sys.argv[2], sys.argv[2:])
"""


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


@dataclass
class Entry:
    id: str
    name: str
    fingerprint: str
    filename: str = "study.toml"
    priority: int = 0
    seq: int = 0
    status: str = "queued"
    submitted: str = ""
    started: str | None = None
    finished: str | None = None
    pid: int | None = None
    pid_start: str | None = None
    returncode: int | None = None
    message: str = ""
    resume: bool = False  # was running when the server stopped: started again first
    runs: int = 0  # how many times a child was started for it
    launched: int = 0  # the queue-wide number of its last start (1, 2, ...: the order studies started in)
    history: list = field(default_factory=list)  # (time, status, message) of each change

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> Entry:
        known = {k: v for k, v in data.items() if k in cls.__dataclass_fields__}
        return cls(**known)

    def order(self) -> tuple:
        return (not self.resume, -self.priority, self.seq)


def _alive(pid: int | None, start: str | None) -> bool:
    if not pid:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return start is None or process_start(pid) in (None, start)


def last_line(log: Path, prefix: str = "kaartlab: ") -> str:
    """The CLI's last one-line message from a study's log: an error without its ``kaartlab: error: ``
    (the page puts it back), or how it stopped."""
    try:
        with open(log, "rb") as f:
            f.seek(max(0, os.path.getsize(log) - 65536))
            lines = f.read().decode(errors="replace").splitlines()
    except OSError:
        return ""
    for line in reversed(lines):
        if line.startswith(prefix):
            for head in ("kaartlab: error: ", "kaartlab: "):
                if line.startswith(head):
                    return line[len(head):].strip()
            return line.strip()
    return ""


class Queue:
    """The entries of RUNS/.queue and the children that play them. One per runs directory."""

    def __init__(self, runs: Path, workers: int | None = None, address: str | None = None, jobs: int = 1,
                 python: str = sys.executable):
        self.runs = Path(runs).resolve()
        self.dir = self.runs / QUEUE_DIR
        self.workers, self.address, self.jobs, self.python = workers, address, max(1, jobs), python
        self.cwd = os.getcwd()  # children start where the server did, as `kaartlab study` would (KAARTLAB_GAMES)
        try:
            self.dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise SpecError(f"runs directory {str(runs)!r} cannot be used: {exc}") from None
        self._server_lock = self._hold_server_lock()
        self.lock = threading.RLock()
        self.entries: dict[str, Entry] = {}
        for path in sorted(self.dir.glob("*.json")):
            try:
                entry = Entry.from_dict(json.loads(path.read_text()))
            except (OSError, ValueError, TypeError) as exc:
                print(f"kaartlab serve: skipping damaged queue entry {path}: {exc}", file=sys.stderr)
                continue
            if valid_id(entry.id) and path.stem == entry.id:
                self.entries[entry.id] = entry
        self.seq = max((e.seq for e in self.entries.values()), default=0)
        self.launches = max((e.launched for e in self.entries.values()), default=0)
        self.children: dict[str, subprocess.Popen] = {}
        self.closing = threading.Event()
        self.thread: threading.Thread | None = None

    # -- the directory ---------------------------------------------------------------------------
    def _hold_server_lock(self):
        import fcntl

        f = open(self.dir / "server.lock", "a+")
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            f.seek(0)
            holder = f.read().strip() or "another process"
            f.close()
            raise SpecError(f"runs directory {str(self.runs)!r} is served already ({holder}); "
                            "one kaartlab serve per runs directory") from None
        f.seek(0)
        f.truncate()
        f.write(f"kaartlab serve pid {os.getpid()} since {now()}\n")
        f.flush()
        return f

    def path(self, id: str, suffix: str) -> Path:
        if not valid_id(id):
            raise SpecError(f"study id {id!r}: not a study of this service")
        return self.dir / f"{id}{suffix}"

    def dataset(self, id: str) -> Path:
        if not valid_id(id):
            raise SpecError(f"study id {id!r}: not a study of this service")
        return self.runs / id

    def save(self, entry: Entry) -> None:
        target = self.path(entry.id, ".json")
        tmp = target.with_name(f".{target.name}.tmp-{os.getpid()}")
        tmp.write_text(json.dumps(entry.to_dict(), indent=1))
        os.replace(tmp, target)

    def _set(self, entry: Entry, status: str, message: str | None = None) -> None:
        entry.status = status
        if message is not None:
            entry.message = message
        entry.history = (entry.history + [[now(), status, entry.message]])[-50:]
        self.save(entry)

    def study_text(self, id: str) -> str:
        return self.path(id, ".toml").read_text()

    def log(self, id: str) -> Path:
        return self.path(id, ".log")

    # -- what users do ---------------------------------------------------------------------------
    def get(self, id: str) -> Entry | None:
        with self.lock:
            return self.entries.get(id) if valid_id(id) else None

    def list(self) -> list[Entry]:
        with self.lock:
            return sorted(self.entries.values(), key=lambda e: e.seq)

    def submit(self, text: str, filename: str, priority: int, study) -> tuple[Entry, bool]:
        """Queue a parsed study; returns (entry, queued now). Its id is its name, or name-2, -3, ...
        when that directory holds another study. The same study again (same fingerprint) is the same
        entry: queued again when it is not queued or running (a stopped one resumes)."""
        fingerprint = study.fingerprint()
        with self.lock:
            for number in range(1, 1000):
                id = study.name if number == 1 else f"{study.name[:60]}-{number}"
                entry = self.entries.get(id)
                if entry is not None:
                    if entry.fingerprint != fingerprint:
                        continue
                    if entry.status in ACTIVE:
                        return entry, False
                elif not self._free_for(id, fingerprint):
                    continue
                self._write_study(id, text)
                self.seq += 1
                if entry is None:
                    entry = Entry(id=id, name=study.name, fingerprint=fingerprint, submitted=now())
                    self.entries[id] = entry
                entry.filename, entry.priority, entry.seq = filename, priority, self.seq
                entry.submitted, entry.started, entry.finished = now(), None, None
                entry.returncode, entry.resume = None, False
                self._set(entry, "queued", "")
                return entry, True
        raise SpecError(f"study name {study.name!r}: 999 studies of that name are here already")

    def _free_for(self, id: str, fingerprint: str) -> bool:
        """Can RUNS/<id> take this study: absent, empty, or a dataset of this very study?"""
        directory = self.runs / id
        if not directory.exists():
            return True
        if not directory.is_dir():
            return False
        manifest = directory / "study.json"
        if manifest.is_file():
            try:
                return json.loads(manifest.read_text()).get("fingerprint") == fingerprint
            except (OSError, ValueError, AttributeError):
                return False
        return not any(directory.iterdir())

    def _write_study(self, id: str, text: str) -> None:
        target = self.path(id, ".toml")
        tmp = target.with_name(f".{target.name}.tmp-{os.getpid()}")
        tmp.write_text(text)
        os.replace(tmp, target)

    def stop(self, id: str) -> Entry:
        """A queued study is stopped at once; a running one gets SIGTERM and is 'stopping' until its
        child has kept its batches and ended."""
        with self.lock:
            entry = self.entries[id]
            if entry.status == "queued":
                entry.resume = False
                entry.finished = now()
                self._set(entry, "stopped", "stopped before it started")
            elif entry.status == "running":
                self._set(entry, "stopping", "stop requested")
                child = self.children.get(id)
                if child is not None and child.poll() is None:
                    child.send_signal(signal.SIGTERM)
            elif entry.status != "stopping":
                raise SpecError(f"study {id!r} is {entry.status}, not queued or running: nothing to stop")
            return entry

    def resume(self, id: str) -> Entry:
        """A stopped or failed study queued again: its child resumes from the batches kept."""
        with self.lock:
            entry = self.entries[id]
            if entry.status in ACTIVE:
                return entry
            if entry.status == "done":
                raise SpecError(f"study {id!r} is done: nothing to resume (submit it again to rebuild its report)")
            self.seq += 1
            entry.seq, entry.finished, entry.returncode = self.seq, None, None
            self._set(entry, "queued", "")
            return entry

    # -- the runner ------------------------------------------------------------------------------
    def start(self) -> None:
        """Take over what a previous server left (its children first stopped), then run the queue."""
        with self.lock:
            for entry in self.entries.values():
                if entry.status in ("running", "stopping"):
                    self._wait_for_orphan(entry)
                    if entry.status == "running":
                        entry.resume = True
                        self._set(entry, "queued", "resumed after a server restart")
                    else:
                        entry.finished = now()
                        self._set(entry, "stopped", "stopped")
        self.thread = threading.Thread(target=self._loop, name="kaartlab-service-runner", daemon=True)
        self.thread.start()

    def _wait_for_orphan(self, entry: Entry) -> None:
        """A child of a server that is gone: its parent-death signal stops it; wait until it has,
        so that the directory's lock is free (SIGTERM again, in case it was not delivered)."""
        if not _alive(entry.pid, entry.pid_start):
            return
        try:
            os.kill(entry.pid, signal.SIGTERM)
        except OSError:
            return
        deadline = time.monotonic() + STOP_WAIT
        while _alive(entry.pid, entry.pid_start) and time.monotonic() < deadline:
            time.sleep(0.1)

    def close(self) -> None:
        """The server stops: children are stopped (they keep their batches) and their entries stay
        'running', so the next server resumes them."""
        self.closing.set()
        with self.lock:
            children = dict(self.children)
            for child in children.values():
                if child.poll() is None:
                    child.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + STOP_WAIT
        for child in children.values():
            try:
                child.wait(max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait(10)
        if self.thread is not None:
            self.thread.join(5)
        with self.lock:  # what the runner did not reap: stays 'running', to resume first next time
            for id, child in list(self.children.items()):
                if child.poll() is not None:
                    del self.children[id]
                    self._finished(self.entries[id], child.returncode)
        try:
            self._server_lock.close()
        except OSError:
            pass

    def _loop(self) -> None:
        while not self.closing.is_set():
            try:
                self.tick()
            except Exception as exc:  # noqa: BLE001 - the runner keeps going; the log says what
                print(f"kaartlab serve: runner: {type(exc).__name__}: {exc}", file=sys.stderr)
            self.closing.wait(TICK)

    def tick(self) -> None:
        with self.lock:
            for id, child in list(self.children.items()):
                code = child.poll()
                if code is not None:
                    del self.children[id]
                    self._finished(self.entries[id], code)
            if self.closing.is_set():
                return
            waiting = sorted((e for e in self.entries.values() if e.status == "queued"), key=Entry.order)
            for entry in waiting[:max(0, self.jobs - len(self.children))]:
                self._launch(entry)

    def command(self, entry: Entry) -> list[str]:
        cmd = [self.python, "-m", "sim.cli", "study", str(self.path(entry.id, ".toml")),
               "--out", str(self.dataset(entry.id)), "--report", "--no-estimate", "--no-progress"]
        workers = self.workers
        if workers is None and not self.address and self.jobs > 1:
            workers = max(1, (os.cpu_count() or 1) // self.jobs)
        if workers is not None:
            cmd += ["--workers", str(workers)]
        if self.address:
            cmd += ["--address", self.address]
        return cmd

    def _launch(self, entry: Entry) -> None:
        cmd = self.command(entry)
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        entry.pid, entry.pid_start = None, None
        self._set(entry, "running", "starting")  # written first: a server killed now resumes it
        with open(self.log(entry.id), "ab") as log:
            log.write(f"--- {now()} {'resuming' if entry.runs else 'starting'}: kaartlab "
                      f"{' '.join(cmd[3:])}\n".encode())
            log.flush()
            try:
                child = subprocess.Popen([self.python, "-c", LAUNCHER, str(os.getpid()), *cmd],
                                         cwd=self.cwd, env=env, stdin=subprocess.DEVNULL, stdout=log,
                                         stderr=subprocess.STDOUT, start_new_session=True)
            except OSError as exc:
                entry.finished = now()
                self._set(entry, "failed", f"cannot start the study: {exc}")
                return
        self.children[entry.id] = child
        entry.pid, entry.pid_start = child.pid, process_start(child.pid)
        entry.started, entry.finished, entry.returncode = now(), None, None
        entry.runs += 1
        self.launches += 1
        entry.launched = self.launches
        self._set(entry, "running", "resuming" if entry.resume else "")

    def _finished(self, entry: Entry, code: int) -> None:
        entry.returncode = code
        entry.pid = None
        if self.closing.is_set() and entry.status == "running":
            entry.message = "stopped with the server; resumes when it starts again"
            self.save(entry)  # stays 'running': the next server starts it again first
            return
        entry.resume = False
        entry.finished = now()
        said = last_line(self.log(entry.id))
        if code == 0 and (self.dataset(entry.id) / "report.html").is_file():
            self._set(entry, "done", "")
        elif code == 0:
            self._set(entry, "failed", said or "the study ended without a report")
        elif entry.status == "stopping" or code in (130, 143, -signal.SIGTERM, -signal.SIGINT):
            self._set(entry, "stopped", said or "stopped")
        else:
            self._set(entry, "failed", said or f"the study's process ended with code {code}")
