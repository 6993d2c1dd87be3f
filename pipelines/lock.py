"""One writer per study directory.

On a local or network filesystem the lock is an exclusive `flock` on DIR/.kaartlab.lock: the kernel
(or the NFS server) holds it for the process and drops it when the process ends however it ends, so
a lock left by a dead driver is never in the way; the file's text (host, pid, start time, command)
names the holder in the refusal and in the take-over note.

On an object store (s3://, gs://) there is no lock primitive: the lock is a lease, the same file
with a token and a heartbeat the holder renews every LEASE/4 seconds. A lease whose heartbeat is
older than LEASE is stale and is taken over. Two drivers starting within the same second can both
believe they hold it; that costs duplicated work, never wrong data, because a batch counts only
when its record and its bytes agree (pipelines/integrity.py). docs/reliability.md says more.
"""
from __future__ import annotations

import json
import os
import platform
import threading
import time
import uuid
from datetime import datetime, timezone

from sim.errors import SpecError

LEASE_SECONDS = float(os.environ.get("KAARTLAB_LEASE_SECONDS", "120"))


def _holder_info(command: str, token: str) -> dict:
    return {"host": platform.node(), "pid": os.getpid(), "process_start": process_start(os.getpid()),
            "started": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "command": command, "token": token, "heartbeat": time.time()}


def process_start(pid: int) -> str | None:
    """The kernel's start time of a process (to tell a reused pid from the holder)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return None


def describe(holder: dict) -> str:
    if not holder:
        return "another kaartlab"
    text = f"pid {holder.get('pid')} on host {holder.get('host')}, started {holder.get('started')}"
    if holder.get("command"):
        text += f": {holder['command']}"
    return text


class StudyLock:
    """Held while a driver writes a study; `with StudyLock(directory, command):`."""

    def __init__(self, directory, command: str = "", lease: bool | None = None):
        self.directory = directory
        self.command = command
        self.token = uuid.uuid4().hex
        self.lease = (not directory.local) if lease is None else lease
        self.path = directory.path(directory_lock_name())
        self.taken_over: dict | None = None  # the dead holder whose lock this one replaced
        self._fd = None
        self._stop = threading.Event()
        self._thread = None

    # -- acquire / release --------------------------------------------------------------------
    def acquire(self) -> "StudyLock":
        self.directory.create_root()
        if self.lease:
            self._acquire_lease()
        else:
            self._acquire_flock()
        return self

    def release(self) -> None:
        if self._thread is not None:
            self._stop.set()
            self._thread.join(5)
            self._thread = None
        if self._fd is not None:
            import fcntl

            try:
                os.ftruncate(self._fd, 0)
                fcntl.flock(self._fd, fcntl.LOCK_UN)
            finally:
                os.close(self._fd)
                self._fd = None
        elif self.lease:
            current = self._read_lease()
            if current.get("token") == self.token:
                try:
                    self.directory.fs.delete_file(self.path)
                except OSError:
                    pass

    def __enter__(self) -> "StudyLock":
        return self.acquire()

    def __exit__(self, *exc) -> None:
        self.release()

    def refusal(self, holder: dict) -> SpecError:
        return SpecError(f"output directory {self.directory.display!r} is being written by "
                         f"{describe(holder)}; one study directory has one writer: wait for it to "
                         "end (or stop it), then rerun to resume")

    # -- local and network filesystems: flock ------------------------------------------------
    def _acquire_flock(self) -> None:
        import errno
        import fcntl

        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            raise SpecError(f"cannot write to output directory {self.directory.display!r}: "
                            f"{exc.strerror or exc}") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            holder = _parse(os.pread(fd, 65536, 0))
            for _ in range(40):  # the holder writes its name just after it takes the lock
                if holder:
                    break
                time.sleep(0.05)
                holder = _parse(os.pread(fd, 65536, 0))
            os.close(fd)
            if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                raise self.refusal(holder) from None
            if exc.errno in (errno.ENOLCK, errno.EOPNOTSUPP, errno.ENOSYS):  # no locks here
                self.lease = True
                return self._acquire_lease()
            raise SpecError(f"cannot lock output directory {self.directory.display!r}: {exc}") from None
        previous = _parse(os.pread(fd, 65536, 0))
        if previous:
            self.taken_over = previous  # its process ended without releasing: the kernel did
        os.ftruncate(fd, 0)
        os.pwrite(fd, json.dumps(_holder_info(self.command, self.token)).encode(), 0)
        self._fd = fd

    # -- object stores: a lease ----------------------------------------------------------------
    def _read_lease(self) -> dict:
        try:
            with self.directory.fs.open_input_stream(self.path) as f:
                return _parse(f.read())
        except (FileNotFoundError, OSError):
            return {}

    def _write_lease(self) -> None:
        data = json.dumps(_holder_info(self.command, self.token)).encode()
        try:
            with self.directory.fs.open_output_stream(self.path) as f:
                f.write(data)
        except OSError as exc:
            raise SpecError(f"cannot write to output directory {self.directory.display!r}: "
                            f"{exc}") from None

    def _acquire_lease(self) -> None:
        current = self._read_lease()
        if current and time.time() - float(current.get("heartbeat", 0)) < LEASE_SECONDS:
            if _dead_here(current):
                self.taken_over = current
            else:
                raise self.refusal(current)
        elif current:
            self.taken_over = current
        self._write_lease()
        time.sleep(float(os.environ.get("KAARTLAB_LEASE_SETTLE", "1")))
        if self._read_lease().get("token") != self.token:  # another driver wrote after us
            raise self.refusal(self._read_lease())
        self._thread = threading.Thread(target=self._renew, daemon=True, name="kaartlab-lease")
        self._thread.start()

    def _renew(self) -> None:
        while not self._stop.wait(LEASE_SECONDS / 4):
            try:
                if self._read_lease().get("token") == self.token:
                    self._write_lease()
            except Exception:  # noqa: BLE001 - a missed heartbeat is retried next time
                pass


def directory_lock_name() -> str:
    from pipelines.storage import LOCK

    return LOCK


def _parse(raw: bytes) -> dict:
    try:
        value = json.loads(raw.decode() or "{}")
        return value if isinstance(value, dict) else {}
    except (UnicodeDecodeError, ValueError):
        return {}


def _dead_here(holder: dict) -> bool:
    """A lease held by a process of this host that no longer runs (or whose pid was reused)."""
    if holder.get("host") != platform.node() or not isinstance(holder.get("pid"), int):
        return False
    pid = holder["pid"]
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    start = holder.get("process_start")
    return start is not None and process_start(pid) != start
