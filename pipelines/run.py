"""Run a study: hold the directory's lock, verify what is there and redo what does not verify,
spread the rest over Ray workers (or run it in-process), keep a bounded number in flight, show
progress, and write each batch with its record as it lands.

Every way a run can fail ends in one RunError line that says what happened, what is kept and the
command that resumes; nothing waits without a time limit (connecting, a cluster without capacity),
and a Ray this run started is shut down whatever happens."""
from __future__ import annotations

import contextlib
import os
import socket
import sys
import threading
import time
import uuid
from dataclasses import dataclass, field, replace

from tqdm import tqdm

from pipelines.batch import run_and_write
from pipelines.lock import StudyLock
from pipelines.plan import check_limits, plan
from pipelines.storage import StudyDir
from sim.errors import KernelError, SpecError
from sim.spec import StudySpec

CONNECT_TIMEOUT = float(os.environ.get("KAARTLAB_CONNECT_TIMEOUT", "10"))
JOIN_TIMEOUT = float(os.environ.get("KAARTLAB_JOIN_TIMEOUT", "60"))  # ray.init once the GCS answered
NODE_WAIT = 5.0  # seconds a raylet on this machine may take to appear (a node started just now)
WARM_WAIT = 30.0  # seconds the workers' first kernel load is waited for before play starts anyway
CAPACITY_WAIT_ENV = "KAARTLAB_CAPACITY_WAIT"  # seconds a cluster may have no CPU before the run ends
RETRIES_ENV = "KAARTLAB_TASK_RETRIES"
POLL_SECONDS = 2.0


class RunError(RuntimeError):
    """A run that could not finish, in one line: what happened, what is kept, how to resume."""


@dataclass
class RunResult:
    out: str
    batches_run: int
    batches_skipped: int
    games_run: int
    seconds: float
    resumed: bool
    redone: list[str] = field(default_factory=list)  # batch files that failed verification
    taken_over: dict | None = None  # the dead driver whose lock this run took over
    repaired: str | None = None  # why study.json was rewritten from this study (its batches prove it)
    startup: dict = field(default_factory=dict)  # seconds before the first game: kernels, ray, workers
    shutdown: float = 0.0  # seconds after the last batch: stopping the Ray this run started
    shipped: list = field(default_factory=list)  # per warm-up worker on a joined cluster: the kernels placed
    stopping: bool = False  # the Ray this run started is still stopping on a thread (await_ray_stop)

    @property
    def games_per_second(self) -> float:
        return self.games_run / self.seconds if self.seconds > 0 else 0.0

    @property
    def startup_seconds(self) -> float:
        return sum(self.startup.values())


def warm_up(study: StudySpec, arms=None) -> None:
    """Compile (or load from cache) every arm's kernel once in the driver, so workers only load: one
    game of one arm per game (arms of one game share its kernel; a study of 1,000 arms once played
    1,000 warm-up games)."""
    done = set()
    for arm in study.arms if arms is None else arms:
        if arm.game not in done:
            arm.info.runner().play_batch(arm, study.seed, 0, 1)
            done.add(arm.game)


def warm_worker(study: StudySpec, arms, shipment=None) -> dict | None:
    """Worker task: place the driver's shipped kernels where this node's cache lacks them, then load
    the arms' kernels. Returns what the shipment did here (None without one), with the node and how
    many kernels this worker compiled instead of loading."""
    from pipelines.kernel_cache import compiled_here, ensure

    note = ensure(shipment)
    warm_up(study, arms)
    if note is None:
        return None
    import ray

    return {**note, "node": ray.get_runtime_context().get_node_id(), "compiled": compiled_here(shipment)}


def warm_workers(study: StudySpec, arms, workers: int | None, shipment=None) -> list[dict]:
    """Have every Ray worker that will play load the arms' kernels (from the cache the driver just
    filled, or from `shipment`, on a node whose cache lacks them) before the first batch: a worker's
    first load (about a second) is then start-up, said apart, not a slow first batch inside the
    rate. One task per CPU the study uses, run at once; a task that cannot start within a few
    seconds (a cluster busy elsewhere) is not waited for, and a worker that fails here fails its
    batch later with the batch's own message. Returns the workers' notes on the shipment."""
    import ray

    slots = int(min(workers or 1 << 30, alive_cpus() or 1))
    task = ray.remote(num_cpus=1, max_retries=0)(warm_worker)
    study_ref = ray.put(study)
    refs = [task.remote(study_ref, list(arms), shipment) for _ in range(max(1, slots))]
    ready, _ = ray.wait(refs, num_returns=len(refs), timeout=WARM_WAIT)
    notes = []
    for ref in ready:
        try:
            note = ray.get(ref)
        except Exception:  # noqa: BLE001 - the batch on that worker says what is wrong, with context
            continue
        if note is not None:
            notes.append(note)
    return notes


# what the progress bar says while a start-up phase runs (Session._timed)
PHASE_WAITS = {"kernels": "loading the kernels", "ray": "starting Ray", "shipment": "packing the kernels",
               "workers": "workers loading the kernels"}


class Session:
    """One run's hold on a study directory: it verifies what is there once, redoes what does not
    verify, and then plays whatever batches it is asked for, in this process or on one Ray that it
    starts for the whole run. A study plays once; a search plays round after round as its optimiser
    proposes candidates (pipelines/search.py), each round through the same session."""

    def __init__(self, directory: StudyDir, workers, address, progress: bool, resume: str,
                 before_play=None, name: str = ""):
        self.directory, self.workers, self.address, self.resume = directory, workers, address, resume
        self.before_play = before_play
        state = directory.integrity()
        self.redone = [str(p) for p in state.bad]
        directory.clean(state)
        self.done = set(state.good)
        self.kept: set[str] = set()  # batches asked for that an earlier run had played
        self._earlier = set(state.good)
        self.bar = tqdm(total=0, unit="games", unit_scale=True, smoothing=0.1, disable=not progress,
                        desc=name, dynamic_ncols=True)
        self.record = {"fingerprint": None, "run": uuid.uuid4().hex[:12]}
        self.batches_run = self.batches_skipped = self.games_run = 0
        self.seconds = 0.0
        self.startup: dict[str, float] = {}
        self.shutdown = 0.0
        self.owned = False
        self.stopping = False  # close(soon=True) left Ray stopping on a thread
        self.ray_started = False
        self.warm: set[str] = set()
        self.warm_games: set[str] = set()  # games whose kernels the Ray workers have loaded
        address = address or os.environ.get("RAY_ADDRESS")
        self.joined = bool(workers != 0 and address and address != "local")  # nodes with caches of their own
        self.shipment = None  # the compiled kernels sent to nodes that lack them (kernel_cache.py)
        self.shipped: list[dict] = []  # the warm-up workers' notes on it

    def expect(self, games: int) -> None:
        """Add games to the progress bar's total (a search knows its work only round by round)."""
        self.bar.total = (self.bar.total or 0) + games
        self.bar.refresh()

    def play(self, study: StudySpec, upto: dict[str, int] | None = None, announce: dict | None = None,
             interleave: bool = False, on_batch=None) -> int:
        """Play every planned batch of ``study`` not yet done; with ``upto``, only the batches of those
        arms that hold their first upto[arm] games. ``announce`` (arm -> games) is what before_play
        is told when there is work (default: what is to play now). ``interleave``: start batch i of
        every arm before batch i+1 of any (a stopping study's prefix grows in all arms together).
        ``on_batch(batch)`` is called as each batch file is written; when it returns True no further
        batch is started (those in flight finish). Returns the games played."""
        batches = plan(study)
        if upto is None:
            wanted = list(batches)
        else:
            wanted = [b for p in batches.plans if p.name in upto
                      for b in (p.batch(i) for i in range(-(-min(upto[p.name], p.games) // p.batch_size)))]
        if interleave:
            order = {name: k for k, name in enumerate(batches.arms)}
            wanted.sort(key=lambda b: (b.index, order[b.arm]))
        todo = [b for b in wanted if b.relpath not in self.done]
        self.kept.update(b.relpath for b in wanted if b.relpath in self._earlier)
        self.batches_skipped = len(self.kept)
        if not todo:
            return 0
        games = sum(b.count for b in todo)
        if self.before_play is not None:
            left: dict[str, int] = {}
            for b in todo:
                left[b.arm] = left.get(b.arm, 0) + b.count
            self.bar.clear()  # what it prints starts on a line of its own, not after the bar
            instead = self.before_play({**left, **(announce or {})}, len(todo))
            self.before_play = None
            if instead == 0 and self.workers is None and not self.joined:  # before_play runs before any Ray
                self.workers = 0  # the caller found the study sooner played in this process
        if upto is None:
            self.expect(games)
        elif self.bar.n + games > (self.bar.total or 0):  # racing gave more games than announced
            self.expect(self.bar.n + games - (self.bar.total or 0))
        self.record["fingerprint"] = study.fingerprint()
        by_name = {a.name: a for a in study.arms}
        cold = [by_name[n] for n in dict.fromkeys(b.arm for b in todo) if n not in self.warm]
        if cold:
            with self._timed("kernels"):
                warm_up(study, cold)
        if self.workers != 0 and not self.ray_started:
            with self._timed("ray"):
                self.owned = start_ray(self.workers, self.address, self.resume)
            self.ray_started = True
        if self.workers != 0 and {a.game for a in cold} - self.warm_games:
            if self.joined:  # a local Ray's workers share this process's cache: nothing to ship
                from pipelines.kernel_cache import prepare

                with self._timed("shipment"):
                    self.shipment = prepare() or self.shipment
            with self._timed("workers"):
                self.shipped += warm_workers(study, cold, self.workers, self.shipment)
        self.warm.update(a.name for a in cold)
        self.warm_games.update(a.game for a in cold)
        began = time.perf_counter()
        played = 0
        try:
            if self.workers == 0:
                for batch in todo:
                    run_and_write(study, batch, self.directory.display, self.record)
                    self.done.add(batch.relpath)
                    self.batches_run += 1
                    played += batch.count
                    self.bar.update(batch.count)
                    if on_batch is not None and on_batch(batch):
                        break
            else:
                def landed(batch) -> bool:
                    self.done.add(batch.relpath)
                    return on_batch is not None and bool(on_batch(batch))

                finished = _run_on_ray(study, iter(todo), len(todo), len(self.done) + len(todo),
                                       self.directory.display, self.workers, self.bar, self.record,
                                       self.resume, len(self.done), landed, self.shipment)
                for batch in finished:
                    self.done.add(batch.relpath)
                self.batches_run += len(finished)
                played = sum(b.count for b in finished)
        finally:
            self.seconds += time.perf_counter() - began
        self.games_run += played
        return played

    @contextlib.contextmanager
    def _timed(self, phase: str):
        """Time a start-up phase, and say on the progress bar what it waits for (seconds of Ray's
        start would otherwise show as a bar standing still)."""
        began = time.perf_counter()
        shown = getattr(self.bar, "postfix", None) or ""  # a [stop] study's half-width; a disabled bar has none
        self.bar.set_postfix_str(PHASE_WAITS.get(phase, phase), refresh=True)
        try:
            yield
        finally:
            self.startup[phase] = self.startup.get(phase, 0.0) + time.perf_counter() - began
            self.bar.set_postfix_str(shown, refresh=True)

    def close(self, soon: bool = False) -> None:
        """soon: the run ended well (no task still writes) and the caller has more to do, so the Ray
        it started stops on a thread meanwhile (stop_ray_soon) instead of being waited for here."""
        self.bar.close()
        if self.owned and soon:
            stop_ray_soon()
            self.stopping = True
        elif self.owned:
            began = time.perf_counter()
            stop_ray()
            self.shutdown = time.perf_counter() - began
        self.owned = False
        # a worker killed mid-write leaves a temporary file; the run is over, no task still writes
        self.directory.remove_temporary()


def run_study(study: StudySpec, out: str, workers: int | None = None, address: str | None = None,
              progress: bool = True, command: str = "", before_play=None, say=None,
              stop_soon: bool = False) -> RunResult:
    """workers=0 runs in this process; otherwise Ray with `workers` CPUs on a local cluster
    (default: all cores) or the cluster at `address` / RAY_ADDRESS. `before_play(todo, batches)`
    is called once before the first game when there is work, with the games each arm still has
    to play and the batch files still to write (the CLI prints its run-time estimate there); when
    `workers` is None and no cluster is named, its returning 0 plays the study in this process.
    A study with [[search]] tables plays its own arms first, then each search (pipelines/search.py);
    a study with a [stop] table plays until its intervals are narrow enough (pipelines/stopping.py),
    telling ``say(line)`` what each look found. ``stop_soon``: a Ray this run starts is left stopping
    on a thread when the run ends well (the caller writes its report meanwhile, then calls
    await_ray_stop; RunResult.stopping says so)."""
    if workers == 0 and address:
        raise SpecError("--workers 0 plays in this process and joins no cluster: drop --address "
                        "(or give --workers N to use the cluster)")
    check_limits(study, None if (address or os.environ.get("RAY_ADDRESS")) and workers != 0 else workers)
    directory = StudyDir(out)
    directory.check(study)  # refuse a wrong directory before creating or locking anything
    resume = command or "the same command"
    recorded = 0
    if study.stop is not None:  # study.json plans only the games played so far (pipelines/stopping.py)
        recorded = 0 if directory.repair else ((directory.read_manifest() or {}).get("study") or {}).get("games", 0)
        pilot, _ = study.stop.batches(study.batch_size)
        study = replace(study, games=max(recorded, pilot * study.batch_size))
    with StudyLock(directory, command) as lock:
        resumed = directory.prepare(study, command)
        repaired = directory.repair
        session = Session(directory, workers, address, progress, resume, before_play, study.name)
        try:
            announce = None
            if study.searches:
                from pipelines.search import budget

                announce = budget(study, directory.read_manifest())
                session.expect(sum(announce.values()))
            if study.stop is not None:
                from pipelines.stopping import run_stopping

                run_stopping(study, session, say)
            else:
                session.play(study, announce=announce)
            if study.searches:
                from pipelines.search import run_searches

                run_searches(study, session, announce)
        except BaseException:
            session.close()
            raise
        session.close(soon=stop_soon)
    return RunResult(directory.display, session.batches_run, session.batches_skipped, session.games_run,
                     session.seconds, resumed, session.redone, lock.taken_over, repaired,
                     session.startup, session.shutdown, session.shipped, session.stopping)


# ---------------------------------------------------------------------------------------- Ray

def start_ray(workers: int | None, address: str | None, resume: str = "the same command") -> bool:
    """Join the cluster at `address` (or RAY_ADDRESS), else start a local one with `workers` CPUs
    (always a new one: a `ray start` cluster on this machine is used only when named). Returns True
    when this call connected, so the caller disconnects (and stops a Ray it started)."""
    import ray

    await_ray_stop()  # a Ray still stopping from the run before would look initialized
    if ray.is_initialized():
        return False
    handler = _sigterm_handler()
    address = address or os.environ.get("RAY_ADDRESS")
    games = os.environ.get("KAARTLAB_GAMES")
    runtime_env = {"env_vars": {"KAARTLAB_GAMES": games}} if games else None
    if address and address != "local":
        same_machine = _check_reachable(address)
        _check_node_here(address)  # before the token: a token would not make this machine a node
        _use_auth_token(same_machine, address)
        began = time.monotonic()
        try:
            _join_under_deadline(address, runtime_env)
        except SystemExit as exc:  # Ray's own SIGTERM handler, while it connects: ours decides
            _sigterm_during_init(exc, handler)
            raise
        except RunError:
            raise
        except ConnectionError as exc:
            raise RunError(
                f"cannot join the Ray cluster at {address}: {_first_line(exc)} (after "
                f"{time.monotonic() - began:.0f} s; a cluster with token authentication needs "
                "RAY_AUTH_MODE=token here and its token in RAY_AUTH_TOKEN or ~/.ray/auth_token; "
                "see README, 'Running on a cluster')") from None
        except Exception as exc:  # noqa: BLE001 - version mismatch and the like: one line
            raise RunError(f"cannot join the Ray cluster at {address}: {type(exc).__name__}: "
                           f"{_first_line(exc)}") from None
    else:
        _start_reaper()
        try:
            ray.init(address="local", num_cpus=workers or os.cpu_count(), include_dashboard=False,
                     logging_level="ERROR", log_to_driver=False, runtime_env=runtime_env)
        except SystemExit as exc:  # Ray's own SIGTERM handler, while it starts: ours decides
            _sigterm_during_init(exc, handler)
            raise
        except Exception as exc:  # noqa: BLE001
            raise RunError(f"cannot start a local Ray: {type(exc).__name__}: {_first_line(exc)}; "
                           "--workers 0 plays without Ray") from None
    _restore_sigterm(handler)
    return True


def _join_under_deadline(address: str, runtime_env) -> None:
    """ray.init(address) in a helper thread, waited for at most JOIN_TIMEOUT: a GCS that answers
    but whose nodes this machine cannot reach (a head that advertises 127.0.0.1 to another host)
    makes Ray retry for minutes. Its errors are raised here; past the deadline, one RunError (the
    thread is left behind; the command ends)."""
    import logging
    import threading

    import ray

    outcome: dict = {}

    def join() -> None:
        try:
            ray.init(address=address, logging_level="ERROR", log_to_driver=False, runtime_env=runtime_env)
        except BaseException as exc:  # noqa: BLE001 - handed to the caller
            outcome["error"] = exc

    quiet = logging.getLogger("ray._private.worker")  # "SIGTERM handler is not set ...": ours is
    level = quiet.level
    quiet.setLevel(logging.ERROR)
    thread = threading.Thread(target=join, name="kaartlab-ray-join", daemon=True)
    try:
        thread.start()
        thread.join(JOIN_TIMEOUT)
    finally:
        quiet.setLevel(level)
    if thread.is_alive():
        raise RunError(f"cannot join the Ray cluster at {address}: its GCS answered but the driver was not "
                       f"connected within {JOIN_TIMEOUT:g} s (KAARTLAB_JOIN_TIMEOUT); the head or its nodes may "
                       "advertise an address this machine cannot reach (a head started with --node-ip-address "
                       "127.0.0.1, dialled from another host): start it with an address this machine reaches")
    if "error" in outcome:
        raise outcome["error"]


def stop_ray(settled: bool = True) -> None:
    """settled: Ray was up (not interrupted while starting), so a clean shutdown leaves nothing
    to start late and the reaper may stop sooner."""
    import ray

    try:
        ray.shutdown()
    except Exception:  # noqa: BLE001 - shutting down after a failure: nothing more to say
        settled = False
    _stop_reaper(settled)


_stopping: list[threading.Thread] = []  # stop_ray calls still running on their threads


def stop_ray_soon() -> None:
    """stop_ray on a thread: ray.shutdown waits for each of its processes to end in turn (1-2 s on
    the 2-core machine), which the caller spends writing its report instead. await_ray_stop, the
    next start_ray and the interpreter's exit (a non-daemon thread) wait for it."""
    thread = threading.Thread(target=stop_ray, name="kaartlab-ray-stop")
    thread.start()
    _stopping.append(thread)


def await_ray_stop() -> None:
    """Wait for stop_ray_soon's threads."""
    while _stopping:
        _stopping.pop().join()


# A Ray that kaartlab starts is its own: ray.shutdown() stops it, and when the driver is killed
# (SIGKILL) Ray's fate sharing stops the GCS, the raylet and the workers, but not its dashboard and
# runtime-env agents (Ray 2.60: they outlive the driver until they notice their raylet is gone,
# over 30 s on a loaded machine). The reaper, a small process started before ray.init, waits for the
# driver's end (its pipe closes, however the driver ends) and then ends this Ray's processes: those
# that carry this driver's OWNER_ENV token in their environment (only processes of the Ray this
# driver started inherit it) and every process they started. The second part is needed because the
# agents retitle themselves (setproctitle), which overwrites the environment /proc shows: the token
# alone never found them. So while the driver runs, the reaper records the token's processes and
# their descendants (by pid and start time, so a reused pid is never taken for one), most often in
# the first 30 s, when Ray starts its agents, then every 10 s.
OWNER_ENV = "KAARTLAB_RAY_OWNER"
_REAPER = """
import os, select, signal, sys, time
token = sys.argv[1].encode()
me = os.getpid()
known = {}  # pid -> start time: this Ray's processes and every process they started


def scan():
    procs = {}  # pid -> (parent, start time, carries the token), zombies left out
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == me:
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                fields = f.read().rsplit(b")", 1)[1].split()
            if fields[0] == b"Z":
                continue
            with open(f"/proc/{name}/environ", "rb") as f:
                tokened = token in f.read().split(b"\\0")
        except (OSError, IndexError):
            continue
        procs[int(name)] = (int(fields[1]), fields[19], tokened)
    for pid, (parent, start, tokened) in procs.items():
        if tokened:
            known[pid] = start
    grew = True
    while grew:  # descendants of known processes that are still the same processes
        grew = False
        for pid, (parent, start, tokened) in procs.items():
            if pid not in known and parent in known and parent in procs and procs[parent][1] == known[parent]:
                known[pid] = start
                grew = True
    return procs


began, got = time.monotonic(), b""
while True:  # until the driver's end closes the pipe; "shutdown" first when ray.shutdown() has run
    wait = 0.5 if time.monotonic() - began < 30 else 10.0
    if select.select([sys.stdin.buffer], [], [], wait)[0]:
        chunk = os.read(sys.stdin.buffer.fileno(), 64)
        if not chunk:
            break
        got += chunk
    else:
        scan()
clean = got == b"shutdown"
quiet = 0  # a dying Ray can still start an agent: stop after several empty looks in a row
# (10 s of them after a killed driver; after ray.shutdown() nothing starts any more, and 0.8 s
# spares every run 3 s)
need = 2 if clean else 25
for attempt in range(100):
    procs = scan()
    left = 0
    for pid, start in list(known.items()):
        if pid in procs and procs[pid][1] == start:
            try:
                os.kill(pid, signal.SIGKILL if attempt else signal.SIGTERM)
                left += 1
            except OSError:
                pass
    quiet = 0 if left else quiet + 1
    if quiet == need:
        break
    time.sleep(0.4)
"""
_reaper: dict = {}


def _start_reaper() -> None:
    """See OWNER_ENV. Linux only (it reads /proc); elsewhere Ray's own clean-up is all there is."""
    import subprocess

    if not os.path.isdir("/proc") or _reaper:
        return
    token = uuid.uuid4().hex
    env = {k: v for k, v in os.environ.items() if k != OWNER_ENV}
    read, write = os.pipe()
    try:
        proc = subprocess.Popen([sys.executable, "-c", _REAPER, f"{OWNER_ENV}={token}"], stdin=read,
                                env=env, start_new_session=True, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
    except OSError:
        os.close(write)
        return
    finally:
        os.close(read)
    os.environ[OWNER_ENV] = token
    _reaper.update(proc=proc, pipe=write)


def _stop_reaper(clean: bool = False) -> None:
    """clean: ray.shutdown() has returned, so the reaper may stop sooner."""
    if not _reaper:
        return
    os.environ.pop(OWNER_ENV, None)
    pipe = _reaper.pop("pipe")
    if clean:
        os.write(pipe, b"shutdown")
    os.close(pipe)  # the reaper ends what is left of this Ray, then itself
    _reaper.pop("proc").wait(30)


def _sigterm_handler():
    import signal

    return signal.getsignal(signal.SIGTERM)


def _sigterm_during_init(exc: SystemExit, handler) -> None:
    """ray.init's SIGTERM handler exits with code 15; hand the signal to the caller's handler."""
    import signal

    stop_ray(settled=False)
    if exc.code == signal.SIGTERM and callable(handler):
        handler(signal.SIGTERM, None)


def _restore_sigterm(handler) -> None:
    """ray.init installs its own SIGTERM handler; the caller's (the CLI: SIGTERM = Ctrl-C) wins."""
    import signal
    import threading

    if callable(handler) and threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, handler)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0][:300] if text else type(exc).__name__


# A gRPC server (Ray's GCS) answers the HTTP/2 client preface with a SETTINGS frame at once; a port
# that accepts and never answers (another program, a stuck process) is told apart in seconds,
# before Ray's own client, which waits 40 s and then lets ray.init retry for minutes.
_H2_PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + b"\x00\x00\x00\x04\x00\x00\x00\x00\x00"


def _check_reachable(address: str) -> bool:
    """A TCP connect to host:port and an HTTP/2 greeting, each under CONNECT_TIMEOUT: Ray itself
    retries an address where nothing listens, or where something listens and never answers, for
    minutes. True when the address is this machine's own."""
    if address == "auto":
        return True
    target = address.split("://", 1)[-1].rstrip("/")
    host, _, port = target.rpartition(":")
    if not host or not port.isdigit():
        raise SpecError(f"--address {address!r}: expected HOST:PORT (e.g. 127.0.0.1:6379), "
                        "ray://HOST:PORT or auto")
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=CONNECT_TIMEOUT) as conn:
            same = conn.getsockname()[0] == conn.getpeername()[0]
            if address.startswith("ray://"):  # Ray Client: not spoken here, ray.init says
                return same
            conn.sendall(_H2_PREFACE)
            try:
                answer = conn.recv(9)
            except TimeoutError:
                raise RunError(f"cannot join a Ray cluster at {address}: something accepts connections there "
                               f"but gave no answer within {CONNECT_TIMEOUT:g} s (KAARTLAB_CONNECT_TIMEOUT): "
                               "not a Ray head's GCS port, or a stuck one; check the address (`ray status` on "
                               "the head prints it)") from None
            if len(answer) < 4 or answer[3] != 0x04:
                raise RunError(f"cannot join a Ray cluster at {address}: what listens there is not a Ray "
                               "head's GCS port (it does not speak gRPC); check the address (`ray status` on "
                               "the head prints it)")
            return same
    except RunError:
        raise
    except OSError as exc:
        why = "nothing listens there" if isinstance(exc, ConnectionRefusedError) else (
            f"no answer within {CONNECT_TIMEOUT:g} s" if isinstance(exc, TimeoutError)
            else (exc.strerror or str(exc)))
        raise RunError(f"cannot reach a Ray cluster at {address}: {why}; start one with "
                       "`ray start --head --port PORT` or leave out --address to use this machine's "
                       "cores") from None


def _check_node_here(address: str) -> None:
    """Ray runs a driver only on a node of its cluster: joined from a machine with no raylet, it
    waits for one to appear there until the join deadline, and the deadline's line then blames the
    addresses. Ray's own scan of this machine's processes says within seconds (a node just started
    may still be starting its raylet: NODE_WAIT; a Ray Client address, ray://, needs no node here; a
    Ray without that scan skips this check)."""
    if address.startswith("ray://") or address == "auto":
        return
    deadline = time.monotonic() + NODE_WAIT
    try:
        from ray._private.services import find_node_ids

        while not (here := find_node_ids()) and time.monotonic() < deadline:
            time.sleep(0.2)
    except Exception:  # noqa: BLE001 - a Ray that moved its internals: the join deadline still holds
        return
    if not here:
        raise RunError(f"cannot join the Ray cluster at {address}: this machine is not a node of it (no Ray "
                       "raylet runs here), and Ray runs a driver only on a node of its cluster: run `ray start "
                       f"--address={address}` here first, or run kaartlab on the head (README, 'Running on a "
                       "cluster')")


def _use_auth_token(same_machine: bool, address: str) -> None:
    """Ray (>= 2.59) starts `ray start` clusters with token authentication, writes the token to
    ~/.ray/auth_token, and sends it only to a cluster it finds by itself, not to an address given
    to it. kaartlab asks the cluster first (one quick call): when it wants a token and the cluster
    is on this very machine, the local token is sent as Ray would; a token is never sent to another
    host unless RAY_AUTH_MODE=token says so, and a driver never sends one to a cluster without
    authentication (its workers could not reach the driver back)."""
    if address.startswith("ray://"):
        return
    if os.environ.get("RAY_AUTH_MODE") == "token":
        if _asks_for_token(address) is False:
            raise RunError(f"the Ray cluster at {address} does not use token authentication, but "
                           "RAY_AUTH_MODE=token is set here: unset RAY_AUTH_MODE for it (a driver that sends a "
                           "token to such a cluster gets no result: its workers cannot reach it back, "
                           "OwnerDiedError)")
        _check_token(address)
        return
    if os.environ.get("RAY_AUTH_MODE") or not _wants_token(address):
        return
    path = os.environ.get("RAY_AUTH_TOKEN_PATH") or os.path.expanduser("~/.ray/auth_token")
    if not same_machine or not (os.environ.get("RAY_AUTH_TOKEN") or os.path.isfile(path)):
        raise RunError(f"the Ray cluster at {address} uses token authentication: set "
                       "RAY_AUTH_MODE=token and give its token in RAY_AUTH_TOKEN (or "
                       "~/.ray/auth_token; `ray get-auth-token` on the head node prints it)")
    os.environ["RAY_AUTH_MODE"] = "token"
    try:  # Ray caches its configuration: refresh it, as ray.init does for a cluster it finds
        from ray._private.authentication.authentication_token_setup import _enable_token_auth

        _enable_token_auth()
    except Exception:  # noqa: BLE001 - another Ray version: the variable alone may be enough
        pass
    _check_token(address)


def _check_token(address: str) -> None:
    """The token this driver will send is the cluster's: asked once from a fresh process with this
    one's RAY_AUTH_* settings (a wrong one made ray.init retry for 20 s, printing a line a second)."""
    if _asks_for_token(address, keep_auth=True) is True:
        raise RunError(f"the Ray cluster at {address} refuses the token given here (RAY_AUTH_TOKEN, "
                       "RAY_AUTH_TOKEN_PATH or ~/.ray/auth_token): give the head's (`ray get-auth-token` on "
                       "the head prints it)")


_ASK = """
import sys
try:
    from ray._raylet import GcsClient
    GcsClient(address=sys.argv[1])
except BaseException as exc:
    print("token" if "Authentication" in type(exc).__name__ or "InvalidAuthToken" in str(exc) else "unknown")
else:
    print("open")
"""


def _asks_for_token(address: str, keep_auth: bool = False) -> bool | None:
    """Does the cluster refuse a client that sends no token (keep_auth: the token this process
    would send)? Asked from a fresh process (Ray reads its RAY_AUTH_* settings once per process);
    None when it cannot tell in time."""
    import subprocess

    env = {k: v for k, v in os.environ.items() if keep_auth or not k.startswith("RAY_AUTH")}
    try:
        out = subprocess.run([sys.executable, "-c", _ASK, address], env=env, capture_output=True, text=True,
                             timeout=CONNECT_TIMEOUT + 20).stdout.strip().splitlines()
    except (OSError, subprocess.SubprocessError):
        return None
    answer = out[-1] if out else ""
    return {"token": True, "open": False}.get(answer)


def _wants_token(address: str) -> bool:
    """Does the cluster's GCS refuse a client without a token? (False when it cannot tell.)"""
    try:
        from ray._raylet import GcsClient
    except ImportError:
        return False
    try:
        with _quiet_stderr():  # Ray's C++ client logs the refusal on fd 2: kaartlab says it in its own line
            GcsClient(address=address)
    except BaseException as exc:  # noqa: BLE001 - Ray's error types vary between versions
        if isinstance(exc, KeyboardInterrupt):
            raise
        return "Authentication" in type(exc).__name__ or "InvalidAuthToken" in str(exc)
    return False


@contextlib.contextmanager
def _quiet_stderr():
    """File descriptor 2 to /dev/null for the block (what C++ code prints bypasses sys.stderr)."""
    sys.stderr.flush()
    saved = os.dup(2)
    try:
        with open(os.devnull, "w") as null:
            os.dup2(null.fileno(), 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def alive_cpus() -> float:
    import ray

    return sum(n.get("Resources", {}).get("CPU", 0) for n in ray.nodes() if n.get("Alive"))


def _run_on_ray(study, todo, todo_count, total, out, workers, bar, record, resume, done_before=None,
                on_batch=None, shipment=None) -> list:
    """Play `todo` on Ray, at most two batches per CPU in flight; the batches finished, in order.
    `on_batch(batch)` as each lands; when it returns True, no further batch is started."""
    import ray

    retries = int(os.environ.get(RETRIES_ENV, "3"))
    capacity_wait = float(os.environ.get(CAPACITY_WAIT_ENV, "120"))
    task = ray.remote(num_cpus=1, max_retries=retries)(run_and_write)
    slots = int(ray.cluster_resources().get("CPU", 1))
    max_in_flight = 2 * max(1, workers or slots)
    study_ref = ray.put(study)
    in_flight: dict = {}
    finished = 0
    no_capacity_since = None

    done: list = []

    def kept() -> str:
        before = total - todo_count if done_before is None else done_before
        return (f"{before + finished:,} of {total:,} batches are done and kept; "
                f"resume with: {resume}")

    exhausted = False
    while not exhausted or in_flight:
        while not exhausted and len(in_flight) < max_in_flight:
            batch = next(todo, None)
            if batch is None:
                exhausted = True
                break
            in_flight[task.remote(study_ref, batch, out, record, shipment)] = batch
        if not in_flight:
            break
        batch = None
        try:
            ready, _ = ray.wait(list(in_flight), num_returns=1, timeout=POLL_SECONDS)
            if not ready:
                if alive_cpus() > 0:
                    no_capacity_since = None
                    continue
                no_capacity_since = no_capacity_since or time.monotonic()
                if time.monotonic() - no_capacity_since > capacity_wait:
                    raise RunError(f"the Ray cluster has had no worker with a CPU for "
                                   f"{capacity_wait:g} s (its nodes are gone); {kept()} "
                                   "(after nodes rejoin, or without --address)")
                continue
            batch = in_flight.pop(ready[0])
            ray.get(ready[0])
        except (RunError, KeyboardInterrupt):
            raise
        except ray.exceptions.RayTaskError as exc:
            cause = getattr(exc, "cause", None)
            if isinstance(cause, KernelError):
                raise KernelError(str(cause).splitlines()[0] + f"; {kept()}") from None
            raise RunError(f"batch {batch.relpath if batch else '?'} failed on a worker: {type(cause).__name__}: "
                           f"{_first_line(cause or exc)}; {kept()}") from None
        except ray.exceptions.RayError as exc:
            what = {"WorkerCrashedError": "its worker died",
                    "NodeDiedError": "its node died",
                    "OutOfMemoryError": "its worker ran out of memory",
                    "ObjectLostError": "its result was lost"}.get(type(exc).__name__, type(exc).__name__)
            name = batch.relpath if batch is not None else "a batch"
            raise RunError(f"batch {name} could not be played: {what} {retries + 1} times "
                           f"(Ray gives up after {retries} retries: {RETRIES_ENV}); {kept()}") from None
        except Exception as exc:  # noqa: BLE001 - the connection to the cluster is gone
            raise RunError(f"lost the Ray cluster: {type(exc).__name__}: {_first_line(exc)}; "
                           f"{kept()}") from None
        finished += 1
        done.append(batch)
        bar.update(batch.count)
        if on_batch is not None and on_batch(batch):
            exhausted = True
    return done
