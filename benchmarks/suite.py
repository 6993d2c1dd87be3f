"""The benchmark suite: every registered game and policy, from the bare kernel to the whole
pipeline, each figure also relative to a calibration kernel measured in the same run.

Cases (G = game, P = policy; every seat plays P; 4 seats, default rules and deck, except that
Knutten runs with John Knut off, the set-up its speed targets are stated for):

  G/P/kernel                   games per CPU-second of one core: the jitted kernel alone, the
                               best of several rounds of the same games after a warm-up call (every
                               kernel and play_batch case is timed once per round, round after round)
  G/P/play_batch               the same through the runner's play_batch (kernel + Arrow table)
  G/P/pipeline_1core           run_study on one core: Ray (1 CPU) + Parquet; --quick: in-process
  G/P/pipeline_allcores        run_study with Ray on all local cores, games/s per core
  G/P/pipeline_scaling         all-core games/s over one-core games/s
  G/P/pipeline_efficiency      all-core pipeline games per CPU-second (driver + every Ray process)
                               over the kernel's games per CPU-second
  G/P/parquet_bytes_per_game   bytes of Parquet per game, as the pipeline writes it
  G/compile, G/cache_load      first call in a fresh process with NUMBA_CACHE_DIR pointing at an
                               empty directory (a real compile), then again with that cache
  ray/init, ray/workers_ready  Ray start-up, apart from every timed run
  knutten/random/...           pure_python, kernel_over_pure_python, mean_turns_kernel,
                               mean_turns_pure_python, long_study, long_study_scaling (target
                               >= 1.7 on 2 cores), pipeline_2cores_over_kernel (target >= 1.6),
                               pipeline_1core_over_kernel (one worker, target >= 0.85; also
                               for knutten/cautious, the default player),
                               pipeline_2cores_over_1core (the two paired figures, target >= 1.8),
                               study_startup (a study that starts its own Ray on a warm cache:
                               seconds before its first game, target <= 3),
                               kernel_2proc_scaling (two bare kernel processes at once over one:
                               the machine's ceiling for the two-core targets), driver_rss,
                               driver_rss_4x, driver_rss_growth

Timing: kernels and the calibration are timed in CPU time of the calling thread
(time.thread_time), so other processes on the machine mostly cost wall time, not the figure.
Pipelines are timed in wall-clock time (several processes), with Ray started and its workers warm
before the clock starts; run_study's own timer excludes the manifest and the warm-up.

Calibration: a calibration sample (benchmarks/calibration.py) is taken before the first and after
every timed repeat, and each repeat is normalised by the mean of the two samples around it; a
case's `normalised` figure is the median of those paired ratios. On a shared machine the speed a
thread gets moves over seconds (a busy sibling hyperthread, the clock), and the pairing cancels
most of it. Ratio cases (scaling, speed-ups) are the plain ratio of the two medians, which is what
the targets are about; the ratio of the two calibrated figures is in `detail`. Pipeline cases also
record the CPU the driver and Ray processes really got (`cores_used`): on a busy machine it is
fewer cores than asked for, and `idle_machine_estimate` says what the same CPU efficiency would
give with every core free.
"""
from __future__ import annotations

import gc
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from benchmarks.calibration import Calibration
from benchmarks.compare import matches

FORMAT = 1
SEED = 0
PLAYERS = 4
# Rules the suite plays with, per game (the rest are the game's defaults).
BENCH_RULES = {"knutten": {"john_knut": False}}
SPECIAL = ("knutten", "random")  # the game and policy of the fixed figures
SCALING_TARGET = 1.7  # long study on all cores over the one-core pipeline, on a 2-core machine
PIPE2_TARGET = 1.6  # pipeline on 2 cores over the one-core kernel rate
PIPE1_TARGET = 0.85  # the rate a one-worker study reports over the bare kernel's (issue 31)
PIPE21_TARGET = 1.8  # two workers over one, each paired with the kernel (issue 31)
ONE_WORKER = (("knutten", "random"), ("knutten", "cautious"))  # the fastest kernel, and the default player
STARTUP_TARGET = 3.0  # seconds before a study's first game, its own Ray, warm cache (issue 31)
PAIRED_RUNS = 5  # pipeline runs in pipeline_2cores_over_kernel, each between two kernel timings
PAIRED_MIN_BATCHES = 40  # ... of at least this many full batches (2,000,000 games)
RSS_GROWTH_TARGET = 1.10  # driver peak RSS over a 4x longer study: flat within 10 %


@dataclass
class Settings:
    games: list[str]
    patterns: list[str] = field(default_factory=list)
    quick: bool = False
    repeats: int = 7  # kernel and calibration repeats (kernel and play_batch: rounds)
    round_seconds: float = 0.0  # a round of kernel cases lasts at least this long (_in_rounds)
    kernel_seconds: float = 0.4  # CPU seconds per kernel repeat
    pipeline_seconds: float = 1.0  # size a pipeline study at this many kernel-seconds per core
    pipeline_repeats: int = 3
    long_games: int = 10_000_000
    pure_games: int = 2_000
    compile: bool = True
    cores: int = 0  # 0: every core this process may use
    command: str = ""
    progress: bool = True  # print each figure as it is measured
    # kernel case -> extra CPU work per call as a fraction of the call's own: a kernel made that much
    # slower, for the regression check's own power test (benchmarks/flap_check.py); never set by the CLI
    handicap: dict = field(default_factory=dict)
    # kernel or play_batch case -> games per timed call, instead of sizing it from a timing: a
    # comparison then times the games its baseline timed (`games_of`)
    games_per_call: dict = field(default_factory=dict)

    @classmethod
    def make(cls, games, patterns=None, quick=False, long_games=None, repeats=None,
             compile=None, command="", progress=True) -> Settings:
        s = cls(games=list(games), patterns=list(patterns or []), quick=quick, command=command,
                progress=progress)
        if quick:
            s.repeats, s.kernel_seconds, s.pipeline_seconds, s.pipeline_repeats = 5, 0.05, 0.15, 1
            s.round_seconds = 3.0
            s.long_games, s.pure_games, s.compile = 100_000, 150, False
        if long_games is not None:
            s.long_games = long_games
        if repeats is not None:
            s.repeats = repeats
        if compile is not None:
            s.compile = compile
        s.cores = s.cores or local_cores()
        return s


def local_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


# ------------------------------------------------------------------------------ case names

PER_POLICY = ("kernel", "play_batch", "pipeline_1core", "pipeline_allcores", "pipeline_scaling",
              "pipeline_efficiency", "parquet_bytes_per_game")
PER_GAME = ("compile", "cache_load")
SPECIAL_CASES = ("pure_python", "kernel_over_pure_python", "mean_turns_kernel",
                 "mean_turns_pure_python", "long_study", "long_study_scaling",
                 "pipeline_2cores_over_kernel", "pipeline_1core_over_kernel", "pipeline_2cores_over_1core",
                 "study_startup", "kernel_2proc_scaling", "driver_rss", "driver_rss_4x", "driver_rss_growth")
RAY_CASES = ("ray/init", "ray/workers_ready")


def policies_of(game: str) -> list[str]:
    from sim.registry import get_game

    return [p.name for p in get_game(game).policies]


def planned_cases(games: list[str]) -> list[str]:
    """Every case name a run over `games` can produce, in report order."""
    names = []
    for g in games:
        for p in policies_of(g):
            names += [f"{g}/{p}/{kind}" for kind in PER_POLICY]
        names += [f"{g}/{kind}" for kind in PER_GAME]
        if g == SPECIAL[0] and SPECIAL[1] in policies_of(g):
            names += [f"{g}/{SPECIAL[1]}/{kind}" for kind in SPECIAL_CASES]
        names += [f"{g}/{p}/pipeline_1core_over_kernel" for gg, p in ONE_WORKER if gg == g and (gg, p) != SPECIAL]
    return names + list(RAY_CASES)


# ---------------------------------------------------------------------------------- helpers

def bench_arm(game: str, policy: str):
    from sim.registry import get_game
    from sim.spec import ArmSpec

    info = get_game(game)
    players = min(max(PLAYERS, info.min_players), info.max_players)
    return ArmSpec.make(game, players, BENCH_RULES.get(game, {}), policy, name="bench")


def kernel_call(game: str):
    """(function(arm, count) playing games 0..count-1 with the bare kernel, its name): the
    runner's benchmark entry point (sim.contract.GameRunner.bench_call: no Arrow, no files)."""
    from sim.registry import get_game

    runner = get_game(game).runner()
    return (lambda arm, count: runner.bench_call(arm, SEED)(count)), f"{runner.kernel_module}.play_games_nb"


def batch_call(game: str):
    from sim.registry import get_game

    runner = get_game(game).runner()
    return lambda arm, count: runner.play_batch(arm, SEED, 0, count)


def _handicapped(fn, extra: float):
    """fn, made `extra` (a fraction) slower in CPU time of this thread: after each call, spin for
    that fraction of the call's own CPU time."""
    if extra <= 0:
        return fn

    def slower(*args):
        c0 = time.thread_time()
        out = fn(*args)
        until = time.thread_time() + (time.thread_time() - c0) * extra
        while time.thread_time() < until:
            pass
        return out

    return slower


def games_of(results: dict) -> dict[str, int]:
    """Each kernel and play_batch case's games per timed call in a results file (a baseline): a
    case sized from a timing in each process plays other games in another (a search case one game
    or two), and a comparison must time the same games."""
    return {c["name"]: int(c["detail"]["games_per_repeat"]) for c in results.get("cases", [])
            if c.get("kind") in ("kernel", "play_batch") and isinstance(c.get("detail"), dict)
            and isinstance(c["detail"].get("games_per_repeat"), int) and c["detail"]["games_per_repeat"] > 0}


def _median(xs):
    return statistics.median(xs) if xs else float("nan")


def current_rss() -> int:
    """This process's resident set size in bytes (psutil, else /proc, else the peak so far)."""
    try:
        import psutil

        return psutil.Process().memory_info().rss
    except ImportError:
        pass
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        import resource

        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return peak if sys.platform == "darwin" else peak * 1024


def tree_cpu_seconds() -> float | None:
    """CPU seconds used so far by this process and every live descendant (Ray's raylet, GCS and
    workers, which ray.init starts under the driver). None where /proc is not available."""
    try:
        tick = os.sysconf("SC_CLK_TCK")
        parent, cpu = {}, {}
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                with open(f"/proc/{entry}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            pid = int(entry)
            parent[pid] = int(fields[1])
            cpu[pid] = (int(fields[11]) + int(fields[12])) / tick
    except (OSError, ValueError, AttributeError, IndexError):
        return None
    me = os.getpid()
    children: dict[int, list[int]] = {}
    for pid, ppid in parent.items():
        children.setdefault(ppid, []).append(pid)
    total, todo = time.process_time(), list(children.get(me, []))
    while todo:
        pid = todo.pop()
        total += cpu.get(pid, 0.0)
        todo += children.get(pid, [])
    return total


class RssSampler:
    """Samples current_rss() every `interval` seconds on a thread; `peak` is the highest seen."""

    def __init__(self, interval: float = 0.02):
        self.interval = interval
        self.peak = current_rss()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)

    def _loop(self):
        while not self._stop.wait(self.interval):
            self.peak = max(self.peak, current_rss())

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, current_rss())


def machine_info(command: str) -> dict:
    from pipelines.storage import provenance

    prov = provenance(command)
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.lower().startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    memory = None
    try:
        with open("/proc/meminfo") as f:
            memory = round(int(f.readline().split()[1]) / 1024**2, 1)
    except (OSError, ValueError, IndexError):
        pass
    return {"cpu": cpu, "cores": os.cpu_count(), "usable_cores": local_cores(),
            "memory_gb": memory, "python": prov["python"], "platform": prov["platform"],
            "kaartlab": prov["kaartlab"], "git": prov["git"], "packages": prov["packages"],
            "loadavg_start": _loadavg()}


def _loadavg():
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except (AttributeError, OSError):
        return None


# ------------------------------------------------------------------------------------ suite

@dataclass
class Series:
    """Repeated measurements of one figure, each with the calibration measured right around it
    (the mean of the samples just before and just after, in ops per CPU-second)."""
    values: list[float]
    calibs: list[float]

    @property
    def value(self) -> float:
        return _median(self.values)

    @property
    def calibration(self) -> float:
        return _median(self.calibs)

    def per_mop(self) -> float:
        """A rate in units per million calibration ops: the median of the paired ratios."""
        return _median([v / (c / 1e6) for v, c in zip(self.values, self.calibs)])

    def in_mops(self) -> float:
        """A time in millions of calibration ops: the median of the paired products."""
        return _median([v * c / 1e6 for v, c in zip(self.values, self.calibs)])

    def scaled(self, factor: float) -> Series:
        return Series([v * factor for v in self.values], list(self.calibs))

    @property
    def best(self) -> float:
        return max(self.values)

    def best_per_mop(self) -> float:
        """A rate at the machine's best: the fastest round over the fastest calibration sample.
        The machine runs slow in spells of seconds (docs/benchmarks.md); the best of rounds spread
        over a run is the speed outside them, which a slower kernel cannot reach."""
        return max(self.values) / (max(self.calibs) / 1e6)


class Suite:
    def __init__(self, settings: Settings):
        self.s = settings
        self.cases: list[dict] = []
        self.calibration = Calibration(seconds=0.03 if settings.quick else 0.1)
        self.kernel_rates: dict[tuple[str, str], Series] = {}
        self.pipe: dict[tuple[str, str, str], dict] = {}  # (game, policy, "1core"/"allcores"/"2cores")
        self.ray_init: list[float] = []
        self.ray_ready: list[float] = []
        self.ray_calibs: list[float] = []
        self.notes: list[str] = []
        self.tmp: Path | None = None

    # ---------------------------------------------------------------- selection and recording
    def want(self, name: str) -> bool:
        return matches(name, self.s.patterns)

    def want_any(self, *names: str) -> bool:
        return any(self.want(n) for n in names)

    def log(self, text: str) -> None:
        if self.s.progress:
            print(text, flush=True)

    def add(self, name, game, policy, kind, series, unit, norm, better, detail=None,
            target=None, value=None) -> None:
        """Record a case when it is selected. `series` holds the repeats and their calibration;
        norm: 'rate' (normalised per million calibration ops), 'time' (in millions of
        calibration ops) or None (a machine-independent figure, kept as it is)."""
        if not self.want(name):
            return
        value = (series.best if norm == "best" else series.value) if value is None else value
        case = {"name": name, "game": game, "policy": policy, "kind": kind, "value": value,
                "unit": unit, "better": better, "repeats": list(series.values),
                "detail": detail or {}}
        if norm == "best":
            case["statistic"] = "best"
            case["normalised"], case["normalised_unit"] = series.best_per_mop(), unit.split("/")[0] + "/Mop"
        elif norm == "rate":
            case["normalised"], case["normalised_unit"] = series.per_mop(), unit.split("/")[0] + "/Mop"
        elif norm == "time":
            case["normalised"], case["normalised_unit"] = series.in_mops(), "Mop"
        else:
            case["normalised"], case["normalised_unit"] = value, unit
        if norm:
            case["calibration"] = round(series.calibration)
            case["calibrations"] = [round(c) for c in series.calibs]
        if target is not None:
            case["target"] = target
        self.cases.append(case)
        shown = f"{value:,.0f}" if abs(value) >= 1000 else f"{value:.3f}"
        how = "best" if norm == "best" else "median"
        reps = f" [{how} of {len(series.values)}]" if len(series.values) > 1 else ""
        aim = ""
        if target is not None:
            aim = f"  target {'>=' if better == 'higher' else '<='} {target}: " + \
                  ("met" if target_met(case) else "MISSED")
        self.log(f"  {name:<46} {shown:>12} {unit}{reps}{aim}")

    def timed(self, fn, repeats: int) -> tuple[list, list[float]]:
        """Run fn() `repeats` times between calibration samples. Returns the results and, for
        each, the mean of the calibration samples taken just before and just after it."""
        results, calibs = [], []
        before = self.calibration.sample(1)[0]
        for _ in range(repeats):
            results.append(fn())
            after = self.calibration.sample(1)[0]
            calibs.append((before + after) / 2)
            before = after
        return results, calibs

    # ---------------------------------------------------------------- run
    def run(self) -> dict:
        s = self.s
        started = datetime.now(timezone.utc)
        began = time.perf_counter()
        machine = machine_info(s.command)
        self.log(f"kaartlab bench ({'quick' if s.quick else 'full'}): {machine['cpu']}, "
                 f"{s.cores} core(s), load {machine['loadavg_start']}")
        self.calibration.sample(s.repeats)
        self.log(f"  calibration: {self.calibration.ops_per_s / 1e6:,.0f} Mop/s")
        self.tmp = Path(tempfile.mkdtemp(prefix="kaartlab-bench-"))
        try:
            self._kernels()
            self._pure_python()
            self._compile()
            self._two_processes()
            self._pipelines()
        finally:
            self._ray_stop()
            shutil.rmtree(self.tmp, ignore_errors=True)
        machine["loadavg_end"] = _loadavg()
        order = {n: i for i, n in enumerate(planned_cases(s.games))}
        self.cases.sort(key=lambda c: order.get(c["name"], len(order)))
        return {
            "kaartlab_bench": FORMAT,
            "mode": "quick" if s.quick else "full",
            "created": started.isoformat(timespec="seconds"),
            "command": s.command,
            "seconds": round(time.perf_counter() - began, 1),
            "machine": machine,
            "calibration": self.calibration.to_dict(),
            "settings": {"games": s.games, "cases": s.patterns, "players": PLAYERS,
                         "rules": BENCH_RULES, "seed": SEED, "repeats": s.repeats,
                         "round_seconds": s.round_seconds,
                         "kernel_seconds": s.kernel_seconds, "pipeline_seconds": s.pipeline_seconds,
                         "pipeline_repeats": s.pipeline_repeats, "long_games": s.long_games,
                         "pure_games": s.pure_games, "compile": s.compile, "cores": s.cores},
            "notes": self.notes,
            "cases": self.cases,
        }

    def pairs(self):
        for g in self.s.games:
            for p in policies_of(g):
                yield g, p

    def special(self) -> bool:
        g, p = SPECIAL
        return g in self.s.games and p in policies_of(g)

    # ---------------------------------------------------------------- kernels
    def _prepare(self, fn, seconds: float, count: int | None = None) -> dict:
        """Warm-up call, then size a call to `seconds` of CPU time (unless `count` gives it).
        Returns the timed call `once` (games per CPU-second of this thread, and per wall second),
        the games it plays and the warm-up call's seconds."""
        t0 = time.perf_counter()
        fn(1)
        first = time.perf_counter() - t0
        if count is None:
            count = 8
            while True:
                c0 = time.thread_time()
                fn(count)
                dt = time.thread_time() - c0
                if dt >= min(0.02, seconds / 2) or count >= 10**8:
                    break
                count *= 4
            count = max(1, int(count * seconds / max(dt, 1e-6)))

        def once():
            c0, w0 = time.thread_time(), time.perf_counter()
            fn(count)
            c1, w1 = time.thread_time(), time.perf_counter()
            return count / max(c1 - c0, 1e-9), count / max(w1 - w0, 1e-9)

        return {"once": once, "games": count, "first_call_s": first}

    def _measure(self, fn, seconds: float, repeats: int, count: int | None = None) -> dict:
        """`repeats` timed calls of the same games in a row, after _prepare."""
        prep = self._prepare(fn, seconds, count)
        results, calibs = self.timed(prep["once"], repeats)
        return {"cpu": Series([r[0] for r in results], calibs), "wall": _median([r[1] for r in results]),
                "games": prep["games"], "first_call_s": prep["first_call_s"]}

    def _in_rounds(self, jobs: list[dict], rounds: int) -> list[dict]:
        """Each prepared job timed once per round, round after round, so that a job's calls are
        spread over the whole phase instead of made in a row: the machine runs slow in spells of
        seconds to tens of seconds, and calls in a row fall into one spell together. A round lasts
        at least `round_seconds` (a short comparison of one or two cases waits between rounds)."""
        cpu = [[] for _ in jobs]
        wall = [[] for _ in jobs]
        calibs = [[] for _ in jobs]
        before = self.calibration.sample(1)[0]
        for r in range(rounds):
            began = time.perf_counter()
            for j, job in enumerate(jobs):
                rate, wall_rate = job["once"]()
                after = self.calibration.sample(1)[0]
                cpu[j].append(rate)
                wall[j].append(wall_rate)
                calibs[j].append((before + after) / 2)
                before = after
            rest = self.s.round_seconds - (time.perf_counter() - began)
            if r < rounds - 1 and rest > 0:
                time.sleep(rest)
        return [{"cpu": Series(cpu[j], calibs[j]), "wall": max(wall[j]), "games": job["games"],
                 "first_call_s": job["first_call_s"]} for j, job in enumerate(jobs)]

    def kernel_rate(self, g: str, p: str) -> Series:
        """The kernel's games per CPU-second: the measured case, else a short estimate."""
        if (g, p) not in self.kernel_rates:
            fn, _ = kernel_call(g)
            arm = bench_arm(g, p)
            self.kernel_rates[(g, p)] = self._measure(lambda n: fn(arm, n), 0.05, 1)["cpu"]
        return self.kernel_rates[(g, p)]

    def _kernels(self) -> None:
        """The kernel and play_batch cases: each prepared (compiled, sized), then all timed in
        rounds (_in_rounds); a case's figure is its best round (Series.best_per_mop)."""
        s = self.s
        jobs = []
        for g, p in self.pairs():
            arm = bench_arm(g, p)
            need_special = (g, p) == SPECIAL and self.want_any(
                f"{g}/{p}/kernel_over_pure_python", f"{g}/{p}/pipeline_2cores_over_kernel")
            if self.want(f"{g}/{p}/kernel") or need_special:
                fn, entry = kernel_call(g)
                play = _handicapped(fn, s.handicap.get(f"{g}/{p}/kernel", 0.0))
                prep = self._prepare(lambda n, play=play, arm=arm: play(arm, n), s.kernel_seconds,
                                     s.games_per_call.get(f"{g}/{p}/kernel"))
                jobs.append({**prep, "g": g, "p": p, "case": "kernel", "entry": entry, "arm": arm})
            if self.want(f"{g}/{p}/play_batch"):
                fn = batch_call(g)
                prep = self._prepare(lambda n, fn=fn, arm=arm: fn(arm, n), s.kernel_seconds,
                                     s.games_per_call.get(f"{g}/{p}/play_batch"))
                jobs.append({**prep, "g": g, "p": p, "case": "play_batch"})
        for job, m in zip(jobs, self._in_rounds(jobs, s.repeats)):
            g, p = job["g"], job["p"]
            if job["case"] == "kernel":
                self.kernel_rates[(g, p)] = m["cpu"]
                self.add(f"{g}/{p}/kernel", g, p, "kernel", m["cpu"], "games/s/core", "best", "higher",
                         {"entry": job["entry"], "games_per_repeat": m["games"], "timed": "CPU time",
                          "wall_games_per_s": m["wall"], "first_call_s": round(m["first_call_s"], 3),
                          "arm": job["arm"].describe()})
            else:
                self.add(f"{g}/{p}/play_batch", g, p, "play_batch", m["cpu"], "games/s/core", "best",
                         "higher", {"games_per_repeat": m["games"], "timed": "CPU time",
                                    "wall_games_per_s": m["wall"]})

    def _two_processes(self) -> None:
        """The bare kernel in one process alone, then in two at once, alternately: the ratio of
        their wall-clock games/s is the ceiling any two-core pipeline can reach on this machine."""
        g, p = SPECIAL
        name = f"{g}/{p}/kernel_2proc_scaling"
        if not (self.special() and self.want(name)):
            return
        if self.s.cores < 2:
            self.notes.append(f"{name} needs at least 2 cores: skipped")
            return
        seconds = 0.5 if self.s.quick else 2.0
        solo, pair = [], []
        for _ in range(1 if self.s.quick else 3):
            solo.append(sum(_kernel_processes(g, p, 1, seconds)))
            pair.append(sum(_kernel_processes(g, p, 2, seconds)))
        one, two = _median(solo), _median(pair)
        self.add(name, g, p, "ratio", Series([], []), "x", None, "higher",
                 {"one_process_games_per_s": one, "two_processes_games_per_s": two,
                  "seconds_each": seconds, "one_process_runs": solo, "two_process_runs": pair,
                  "timed": "wall clock",
                  "what": "two processes playing the bare kernel at once over one alone: what the "
                          "machine gives two busy cores, the ceiling of pipeline_2cores_over_kernel"},
                 value=two / one)

    # ---------------------------------------------------------------- pure Python
    def _pure_python(self) -> None:
        g, p = SPECIAL
        names = [f"{g}/{p}/{k}" for k in ("pure_python", "kernel_over_pure_python",
                                          "mean_turns_kernel", "mean_turns_pure_python")]
        if not self.special() or not self.want_any(*names):
            return
        from benchmarks.pure_python_knutten import play_games

        s = self.s
        turns = []

        def once():
            c0 = time.thread_time()
            results = play_games(s.pure_games, seed=len(turns), players=PLAYERS)
            rate = s.pure_games / max(time.thread_time() - c0, 1e-9)
            turns.extend(res["turns"] for res in results)
            return rate

        rates, calibs = self.timed(once, max(3, s.repeats // 2))
        pure = Series(rates, calibs)
        self.add(f"{g}/{p}/pure_python", g, p, "pure_python", pure, "games/s/core", "rate", "higher",
                 {"games_per_repeat": s.pure_games, "timed": "CPU time",
                  "source": "benchmarks/pure_python_knutten.py"})
        if self.want(f"{g}/{p}/kernel_over_pure_python"):
            kernel = self.kernel_rate(g, p)
            detail = ratio_detail(kernel, pure, "kernel", "pure_python")
            self.add(f"{g}/{p}/kernel_over_pure_python", g, p, "speedup", Series([], []), "x", None,
                     "higher", detail, value=detail["raw_ratio"])
        # Sanity check: the two implementations play the same game.
        arm = bench_arm(g, p)
        k_games = 20_000 if s.quick else 100_000
        k_turns = batch_call(g)(arm, k_games).column("turns").to_numpy()
        k_mean, k_var = float(k_turns.mean()), float(k_turns.var())
        p_mean, p_var = statistics.fmean(turns), statistics.pvariance(turns)
        se = (k_var / k_games + p_var / len(turns)) ** 0.5
        z = (p_mean - k_mean) / se if se > 0 else 0.0
        agree = abs(z) < 4
        detail = {"kernel_mean": k_mean, "kernel_games": k_games, "pure_python_mean": p_mean,
                  "pure_python_games": len(turns), "z": round(z, 2), "agree": agree}
        self.add(f"{g}/{p}/mean_turns_kernel", g, p, "sanity", Series([], []), "turns/game", None,
                 None, detail, value=k_mean)
        self.add(f"{g}/{p}/mean_turns_pure_python", g, p, "sanity", Series([], []), "turns/game",
                 None, None, detail, value=p_mean)
        if not agree:
            self.notes.append(f"mean turns differ: kernel {k_mean:.3f}, pure Python {p_mean:.3f} "
                              f"(z = {z:.1f}): the two implementations may not play the same game")
            self.log(f"  WARNING: {self.notes[-1]}")

    # ---------------------------------------------------------------- compile time
    def _compile(self) -> None:
        if not self.s.compile:
            if self.s.patterns and any(self.want(f"{g}/{k}") for g in self.s.games for k in PER_GAME):
                self.notes.append("compile cases skipped (compile measurement is off)")
            return
        for g in self.s.games:
            if not self.want_any(f"{g}/compile", f"{g}/cache_load"):
                continue
            cache = tempfile.mkdtemp(prefix="kaartlab-numba-cache-", dir=self.tmp)
            policy = policies_of(g)[0]
            self.log(f"  ({g}: compiling in a fresh process with an empty Numba cache)")
            (first, again), calibs = self.timed(lambda: _first_call(g, policy, cache), 2)
            self.add(f"{g}/compile", g, None, "compile", Series([first["cpu_s"]], calibs[:1]), "s",
                     "time", "lower", {"wall_s": first["wall_s"], "import_s": first["import_s"],
                                       "numba_cache": "empty temporary directory",
                                       "timed": "first play_batch call, CPU seconds"})
            self.add(f"{g}/cache_load", g, None, "cache_load", Series([again["cpu_s"]], calibs[1:]),
                     "s", "time", "lower", {"wall_s": again["wall_s"], "import_s": again["import_s"],
                                            "timed": "first play_batch call, CPU seconds, with "
                                                     "the cache the compile wrote"})

    # ---------------------------------------------------------------- pipelines
    def _pipelines(self) -> None:
        s = self.s
        g0, p0 = SPECIAL
        sp = self.special()
        need1, needn = set(), set()
        for g, p in self.pairs():
            n = f"{g}/{p}/"
            if self.want_any(n + "pipeline_1core", n + "parquet_bytes_per_game", n + "pipeline_scaling"):
                need1.add((g, p))
            if self.want_any(n + "pipeline_allcores", n + "pipeline_scaling", n + "pipeline_efficiency"):
                needn.add((g, p))
        pre = f"{g0}/{p0}/"
        need_long = sp and self.want_any(*(pre + k for k in ("long_study", "long_study_scaling",
                                                             "driver_rss_4x", "driver_rss_growth")))
        need_mem = sp and self.want_any(pre + "driver_rss", pre + "driver_rss_growth")
        need_pipe2 = sp and self.want(pre + "pipeline_2cores_over_kernel") and s.cores >= 2
        if sp and self.want(pre + "long_study_scaling"):
            need1.add(SPECIAL)
        if need_pipe2 and s.cores == 2:
            needn.add(SPECIAL)
        need_ray_n = bool(needn or need_long or need_mem) or self.want_any(*RAY_CASES)
        sizes = {gp: self._size(*gp) for gp in need1 | needn}

        if need1:
            if s.quick:
                self.log("  (quick: one-core pipeline runs in-process, without Ray)")
            else:
                self._ray_start(1)
            for g, p in self.pairs():
                if (g, p) in need1:
                    self._pipeline_case(g, p, "1core", 0 if s.quick else 1, sizes[(g, p)])
        if need_ray_n:
            self._ray_start(s.cores)
            for g, p in self.pairs():
                if (g, p) in needn:
                    self._pipeline_case(g, p, "allcores", s.cores, sizes[(g, p)])
            if need_mem or need_long:
                self._long_and_memory(need_mem, need_long)
        if need_pipe2 and s.cores > 2:
            self._ray_start(2)
            self._pipeline_case(g0, p0, "2cores", 2, self._size(g0, p0))
        if need_pipe2:
            run = self.pipe.get((g0, p0, "2cores")) or self.pipe.get((g0, p0, "allcores"))
            kernel = self.kernel_rate(g0, p0)
            detail = ratio_detail(run["total"], kernel, "pipeline_2cores", "kernel")
            detail.update(pipeline_games=run["games"], batch_size=run["batch_size"])
            use = self._cpu_use(run["runs"], 2)
            if use.get("games_per_cpu_s"):
                # the kernel is timed in CPU seconds: with two free cores the pipeline would give
                detail["idle_machine_estimate"] = round(2 * use["games_per_cpu_s"] / kernel.value, 3)
                detail["cores_used"] = use["cores_used"]
            detail.update(self._paired_pipeline_over_kernel(g0, p0, run))
            self.add(pre + "pipeline_2cores_over_kernel", g0, p0, "ratio", Series([], []), "x",
                     None, "higher", detail, target=PIPE2_TARGET,
                     value=detail["paired_ratio"])
        elif sp and self.want(pre + "pipeline_2cores_over_kernel"):
            self.notes.append("pipeline_2cores_over_kernel needs at least 2 cores: skipped")
        for g, p in ONE_WORKER:
            if g in s.games and self.want_any(f"{g}/{p}/pipeline_1core_over_kernel",
                                              f"{g}/{p}/pipeline_2cores_over_1core"):
                self._one_worker_over_kernel(g, p)
        if sp and self.want(pre + "study_startup"):
            self._study_startup(g0, p0)
        for g, p in self.pairs():
            one, alln = self.pipe.get((g, p, "1core")), self.pipe.get((g, p, "allcores"))
            use = self._cpu_use(alln["runs"], s.cores) if alln else {}
            if use.get("games_per_cpu_s"):
                kernel = self.kernel_rate(g, p)
                raw = use["games_per_cpu_s"] / kernel.value
                # each side per million calibration ops measured around it: a shift of the
                # machine's speed between the kernel and the pipeline measurement cancels out
                calibrated = raw * kernel.calibration / alln["total"].calibration
                self.add(f"{g}/{p}/pipeline_efficiency", g, p, "ratio", Series([], []), "x", None,
                         "higher", {"pipeline_games_per_cpu_s": use["games_per_cpu_s"],
                                    "kernel_games_per_cpu_s": kernel.value, "raw_ratio": raw,
                                    "cores_used": use["cores_used"], "cores": s.cores,
                                    "what": "all-core pipeline games per CPU-second of the driver "
                                            "and every Ray process, over the kernel's games per "
                                            "CPU-second, both calibrated: the share of the "
                                            "pipeline's CPU that plays games"},
                         value=calibrated)
            if one and alln:
                detail = ratio_detail(alln["total"], one["total"], "all_cores", "one_core")
                detail["cores"] = s.cores
                self.add(f"{g}/{p}/pipeline_scaling", g, p, "ratio", Series([], []), "x", None,
                         "higher", detail, value=detail["raw_ratio"])
        if self.ray_init:
            self.add("ray/init", None, None, "startup", Series(self.ray_init, self.ray_calibs), "s",
                     "time", "lower", {"what": "ray.init() on this machine, per session"})
            self.add("ray/workers_ready", None, None, "startup", Series(self.ray_ready, self.ray_calibs),
                     "s", "time", "lower",
                     {"what": "first tiny studies per game after ray.init (workers start and "
                              "load the kernels)"})

    def _one_worker_over_kernel(self, g: str, p: str) -> None:
        """The rate a one-worker study reports (Ray with one CPU: a larger Ray would run two of its
        batches at once) over the kernel timed around each run; and the two-core figure over it,
        each already paired with the kernel, so the machine's drift between them cancels."""
        pre = f"{g}/{p}/"
        self._ray_start(1)
        games, batch = self._size(g, p)
        detail = self._paired_pipeline_over_kernel(g, p, {"games": games, "batch_size": batch}, workers=1)
        self.add(pre + "pipeline_1core_over_kernel", g, p, "ratio", Series([], []), "x", None, "higher",
                 {**detail, "what": "games/s a one-worker study reports (start-up apart) over the bare "
                                    "kernel's, timed just before and after each run"},
                 target=PIPE1_TARGET, value=detail["paired_ratio"])
        two = next((c for c in self.cases if c["name"] == pre + "pipeline_2cores_over_kernel"), None)
        if (g, p) != SPECIAL:  # the two-core figure is measured for SPECIAL only
            return
        if two is not None:
            self.add(pre + "pipeline_2cores_over_1core", g, p, "ratio", Series([], []), "x", None, "higher",
                     {"two_cores_paired": two["value"], "one_core_paired": detail["paired_ratio"],
                      "what": "two workers' games/s over one worker's, each as its ratio to the kernel "
                              "timed around it"},
                     target=PIPE21_TARGET, value=two["value"] / detail["paired_ratio"])
        elif self.want(pre + "pipeline_2cores_over_1core"):
            self.notes.append("pipeline_2cores_over_1core needs pipeline_2cores_over_kernel in the same run")

    def _study_startup(self, g: str, p: str) -> None:
        """What a user waits for before the first game of `kaartlab run` on all cores with a warm
        cache: the kernels (already loaded in this process: about 0), Ray's start, the workers'
        first kernel load; median of pipeline_repeats studies, each starting its own Ray."""
        self._ray_stop()
        study = self._study(g, p, 8 * self.s.cores, 4)
        runs, calibs = [], []
        for _ in range(max(3, self.s.pipeline_repeats)):
            c0 = self.calibration.sample(1)[0]
            runs.append(self._run(study, self.s.cores))
            calibs.append((c0 + self.calibration.sample(1)[0]) / 2)
        phases = {k: round(_median([r["startup"].get(k, 0.0) for r in runs]), 3) for k in runs[0]["startup"]}
        self.add(f"{g}/{p}/study_startup", g, p, "startup", Series([r["startup_s"] for r in runs], calibs), "s",
                 "time", "lower", {"phases_median_s": phases,
                                   "shutdown_median_s": round(_median([r["shutdown_s"] for r in runs]), 3),
                                   "what": "seconds before a study's first game when it starts its own Ray "
                                           "on a warm cache (kernels, Ray, workers loading the kernels)"},
                 target=STARTUP_TARGET)

    def _paired_pipeline_over_kernel(self, g: str, p: str, run: dict, workers: int = 2) -> dict:
        """The pipeline on `workers` cores over the kernel timed just before and just after it, for
        each of PAIRED_RUNS runs (Ray with that many CPUs is up): the median of these paired ratios.
        The kernel case itself was timed minutes earlier, and this machine's speed moves by up to
        2x in minutes, so only a pairing compares the two in the same state. The study has at
        least PAIRED_MIN_BATCHES full batches, whatever speed the kernel case happened to see,
        so that start-up and the last batch's tail stay small against it."""
        from sim.spec import DEFAULT_BATCH_SIZE

        fn, _ = kernel_call(g)
        arm = bench_arm(g, p)
        count = max(8, int(self.kernel_rate(g, p).value * self.s.kernel_seconds))

        def kernel_now() -> float:
            c0 = time.thread_time()
            fn(arm, count)
            return count / max(time.thread_time() - c0, 1e-9)

        games, batch = run["games"], run["batch_size"]
        runs = self.s.pipeline_repeats
        if not self.s.quick:
            games, batch = max(games, PAIRED_MIN_BATCHES * DEFAULT_BATCH_SIZE), DEFAULT_BATCH_SIZE
            runs = max(runs, PAIRED_RUNS)
        study = self._study(g, p, games, batch)
        before = kernel_now()
        ratios, kernels, pipelines = [], [], []
        for _ in range(runs):
            pipeline = self._run(study, workers)["rate"]
            after = kernel_now()
            kernels.append((before + after) / 2)
            pipelines.append(pipeline)
            ratios.append(pipeline / kernels[-1])
            before = after
        return {"paired_ratio": _median(ratios), "paired_ratios": [round(r, 3) for r in ratios],
                "paired_kernel_games_per_s": [round(k) for k in kernels],
                "paired_pipeline_games_per_s": [round(x) for x in pipelines],
                "paired_games": games, "paired_batch_size": batch}

    def _size(self, g: str, p: str) -> tuple[int, int]:
        """(games, batch_size) for a pipeline study: `pipeline_seconds` of kernel time per core."""
        from sim.spec import DEFAULT_BATCH_SIZE

        cores = self.s.cores
        games = int(self.kernel_rate(g, p).value * self.s.pipeline_seconds * cores)
        games = max(games, 8 * cores)
        batch = min(DEFAULT_BATCH_SIZE, max(1, games // (4 * cores)))
        return games, batch

    def _study(self, g: str, p: str, games: int, batch: int):
        from sim.spec import StudySpec

        return StudySpec(name=f"bench-{g}-{p}", seed=SEED, games=games, batch_size=batch,
                         arms=(bench_arm(g, p),))

    def _run(self, study, workers: int, sample_rss: bool = False) -> dict:
        from pipelines.run import run_study

        out = self.tmp / f"run-{uuid.uuid4().hex[:8]}"
        gc.collect()
        before = current_rss()
        cpu0 = tree_cpu_seconds()
        if sample_rss:
            with RssSampler() as sampler:
                result = run_study(study, str(out), workers=workers, progress=False,
                                   command="kaartlab bench")
            peak = sampler.peak
        else:
            result = run_study(study, str(out), workers=workers, progress=False,
                               command="kaartlab bench")
            peak = None
        cpu1 = tree_cpu_seconds()
        size = sum(f.stat().st_size for f in out.rglob("batch-*.parquet"))
        shutil.rmtree(out, ignore_errors=True)
        return {"games": result.games_run, "seconds": result.seconds,
                "rate": result.games_run / max(result.seconds, 1e-9), "bytes": size,
                "startup": result.startup, "startup_s": result.startup_seconds, "shutdown_s": result.shutdown,
                "rss_before": before, "rss_peak": peak,
                "cpu_s": cpu1 - cpu0 if cpu0 is not None and cpu1 is not None else None}

    def _pipeline_case(self, g: str, p: str, tag: str, workers: int, size: tuple[int, int]) -> None:
        from pipelines.storage import PARQUET_OPTIONS

        games, batch = size
        study = self._study(g, p, games, batch)
        runs, calibs = self.timed(lambda: self._run(study, workers), self.s.pipeline_repeats)
        total = Series([r["rate"] for r in runs], calibs)
        cores = max(1, workers)
        runner = "in-process (workers=0)" if workers == 0 else f"ray ({workers} CPU)"
        self.pipe[(g, p, tag)] = {"total": total, "games": games, "batch_size": batch, "runs": runs}
        detail = {"games": games, "batch_size": batch, "runner": runner, "cores": cores,
                  "timed": "wall clock", "games_per_s_total": total.value,
                  "seconds": [round(r["seconds"], 3) for r in runs]}
        detail.update(self._cpu_use(runs, cores))
        if tag == "1core":
            self.add(f"{g}/{p}/pipeline_1core", g, p, "pipeline", total, "games/s/core", "rate",
                     "higher", detail)
            self.add(f"{g}/{p}/parquet_bytes_per_game", g, p, "storage", Series([], []), "bytes/game",
                     None, "lower", {"games": games, "batch_size": batch, "bytes": runs[0]["bytes"],
                                     "compression": PARQUET_OPTIONS["compression"]},
                     value=runs[0]["bytes"] / games)
        elif tag == "allcores":
            self.add(f"{g}/{p}/pipeline_allcores", g, p, "pipeline", total.scaled(1 / cores),
                     "games/s/core", "rate", "higher", detail)
        else:
            self.log(f"  ({g}/{p} pipeline on 2 cores: {total.value:,.0f} games/s)")

    def _cpu_use(self, runs: list[dict], cores: int) -> dict:
        """CPU the pipeline got: seconds of CPU over wall time is the cores it really used. On a
        busy machine that is fewer than it asked for, and wall-clock figures understate it."""
        if any(r.get("cpu_s") is None for r in runs):
            return {}
        cpu = sum(r["cpu_s"] for r in runs)
        wall = sum(r["seconds"] for r in runs)
        games = sum(r["games"] for r in runs)
        used = cpu / wall if wall > 0 else float("nan")
        if cores > 1 and used < 0.85 * cores:
            note = (f"the machine was busy: pipelines on {cores} cores got {used:.2f} cores of CPU "
                    "(driver + Ray processes); wall-clock pipeline and scaling figures understate "
                    "an idle machine")
            if note.split(":")[0] not in " ".join(self.notes):
                self.notes.append(note)
        return {"cpu_seconds": round(cpu, 2), "cores_used": round(used, 2),
                "games_per_cpu_s": games / cpu if cpu > 0 else None}

    def _long_and_memory(self, need_mem: bool, need_long: bool) -> None:
        from sim.spec import DEFAULT_BATCH_SIZE

        g, p = SPECIAL
        pre = f"{g}/{p}/"
        s = self.s
        long_games = s.long_games
        batch = min(DEFAULT_BATCH_SIZE, max(1, long_games // (8 * s.cores)))
        mb = 1024**2
        short = None
        none = Series([], [])
        if need_mem:
            short_games = max(1, long_games // 4)
            short = self._run(self._study(g, p, short_games, batch), s.cores, sample_rss=True)
            self.add(pre + "driver_rss", g, p, "memory", none, "MB", None, "lower",
                     {"games": short_games, "batch_size": batch,
                      "rss_before_mb": round(short["rss_before"] / mb, 1),
                      "growth_mb": round((short["rss_peak"] - short["rss_before"]) / mb, 1)},
                     value=short["rss_peak"] / mb)
        if need_long or (need_mem and self.want(pre + "driver_rss_growth")):
            self.log(f"  (long study: {long_games:,} games on {s.cores} cores, batches of {batch:,})")
            # one core, in-process, just before and just after: the pairing for the scaling
            one_core = self._study(g, p, max(1, long_games // 10), batch)
            before = self._run(one_core, 0)["rate"]
            (run,), calibs = self.timed(
                lambda: self._run(self._study(g, p, long_games, batch), s.cores, sample_rss=True), 1)
            after = self._run(one_core, 0)["rate"]
            total = Series([run["rate"]], calibs)
            use = self._cpu_use([run], s.cores)
            self.add(pre + "long_study", g, p, "pipeline", total.scaled(1 / s.cores), "games/s/core",
                     "rate", "higher", {"games": long_games, "batch_size": batch, "cores": s.cores,
                                        "timed": "wall clock", "games_per_s_total": run["rate"],
                                        "seconds": round(run["seconds"], 2), **use})
            # The one-core pipeline case ran minutes earlier; the machine's speed moves more than
            # that between then and now, so the figure is the pairing with the in-process
            # one-core runs around the long study (Ray's own share is then on the long side only).
            paired = {"paired_one_core_games_per_s": [round(before), round(after)],
                      "paired_one_core_games": one_core.games}
            detail = {"long_study_games_per_s": run["rate"], "cores": s.cores, **paired}
            one = self.pipe.get((g, p, "1core"))
            if one:
                detail.update(ratio_detail(total, one["total"], "long_study", "one_core_pipeline"))
                detail["one_core_runner"] = "in-process" if s.quick else "ray"
                one_use = self._cpu_use(one["runs"], 1)
                if use.get("games_per_cpu_s") and one_use.get("games_per_cpu_s"):
                    # what the same CPU efficiency gives when every core is free
                    detail["idle_machine_estimate"] = round(
                        s.cores * use["games_per_cpu_s"] / one_use["games_per_cpu_s"], 3)
            self.add(pre + "long_study_scaling", g, p, "ratio", none, "x", None, "higher",
                     detail, target=SCALING_TARGET if s.cores == 2 else None,
                     value=run["rate"] / ((before + after) / 2))
            self.add(pre + "driver_rss_4x", g, p, "memory", none, "MB", None, "lower",
                     {"games": long_games, "batch_size": batch,
                      "rss_before_mb": round(run["rss_before"] / mb, 1),
                      "growth_mb": round((run["rss_peak"] - run["rss_before"]) / mb, 1)},
                     value=run["rss_peak"] / mb)
            if short:
                self.add(pre + "driver_rss_growth", g, p, "memory", none, "x", None, "lower",
                         {"short_mb": short["rss_peak"] / mb, "long_mb": run["rss_peak"] / mb},
                         target=RSS_GROWTH_TARGET, value=run["rss_peak"] / short["rss_peak"])

    # ---------------------------------------------------------------- Ray
    def _ray_start(self, cpus: int) -> None:
        import ray

        self._ray_stop()
        c0 = self.calibration.sample(1)[0]
        t0 = time.perf_counter()
        ray.init(address="local", num_cpus=cpus, include_dashboard=False, logging_level="ERROR",
                 log_to_driver=False)
        self.ray_init.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        for g in self.s.games:  # workers start and load every game's kernels before any timing
            for _ in range(2):
                self._run(self._study(g, policies_of(g)[0], 4 * cpus, 1), cpus)
        self.ray_ready.append(time.perf_counter() - t0)
        self.ray_calibs.append((c0 + self.calibration.sample(1)[0]) / 2)
        self.log(f"  (ray with {cpus} CPU: init {self.ray_init[-1]:.1f} s, workers ready "
                 f"{self.ray_ready[-1]:.1f} s)")

    def _ray_stop(self) -> None:
        if "ray" in sys.modules:
            import ray

            if ray.is_initialized():
                ray.shutdown()


def ratio_detail(a: Series, b: Series, a_name: str, b_name: str) -> dict:
    """How a ratio case was made. The case's value is the raw ratio of the two medians; the ratio
    of their calibrated figures (games/Mop, each normalised by the calibration measured around
    it) is kept beside it: when the two disagree, the machine's speed moved between them."""
    a_mop, b_mop = a.per_mop(), b.per_mop()
    return {f"{a_name}_games_per_s": a.value, f"{b_name}_games_per_s": b.value,
            "raw_ratio": a.value / b.value if b.value else float("nan"),
            "calibrated_ratio": a_mop / b_mop if b_mop else float("nan")}


def target_met(case: dict) -> bool:
    if case["better"] == "higher":
        return case["value"] >= case["target"]
    return case["value"] <= case["target"]


_FIRST_CALL = r"""
import json, sys, time
w0 = time.perf_counter()
from sim.registry import get_game
from sim.spec import ArmSpec
game, policy, players, rules = sys.argv[1], sys.argv[2], int(sys.argv[3]), json.loads(sys.argv[4])
arm = ArmSpec.make(game, players, rules, policy)
runner = get_game(game).runner()
w1, c1 = time.perf_counter(), time.process_time()
runner.play_batch(arm, 0, 0, 1)
w2, c2 = time.perf_counter(), time.process_time()
print(json.dumps({"import_s": w1 - w0, "wall_s": w2 - w1, "cpu_s": c2 - c1}))
"""


_KERNEL_FOR = """
import json, sys, time
from benchmarks.suite import bench_arm, kernel_call
game, policy, start_at, seconds = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
fn, _ = kernel_call(game)
arm = bench_arm(game, policy)
fn(arm, 200)  # loads the kernel from the cache
w0 = time.perf_counter()
fn(arm, 2000)
chunk = max(2000, int(2000 * 0.1 / max(time.perf_counter() - w0, 1e-6)))  # ~0.1 s a call
time.sleep(max(0.0, start_at - time.time()))
games, w0 = 0, time.perf_counter()
while time.perf_counter() - w0 < seconds:
    fn(arm, chunk)
    games += chunk
print(json.dumps({"games_per_s": games / (time.perf_counter() - w0)}))
"""


def _kernel_processes(game: str, policy: str, n: int, seconds: float) -> list[float]:
    """Wall-clock games/s of `n` fresh processes playing the bare kernel over the same seconds."""
    root = str(Path(__file__).resolve().parents[1])
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")])))
    start_at = time.time() + 3.0  # every process has loaded its kernel by then
    procs = [subprocess.Popen([sys.executable, "-c", _KERNEL_FOR, game, policy, str(start_at),
                               str(seconds)], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True) for _ in range(n)]
    rates = []
    for proc in procs:
        out, err = proc.communicate(timeout=600)
        if proc.returncode != 0:
            raise RuntimeError(f"kernel process for {game}/{policy} failed:\n{err[-2000:]}")
        rates.append(json.loads(out.strip().splitlines()[-1])["games_per_s"])
    return rates


def _first_call(game: str, policy: str, cache_dir: str) -> dict:
    """Time the first play_batch call in a fresh interpreter whose Numba cache is `cache_dir`."""
    from sim.registry import get_game

    info = get_game(game)
    players = min(max(PLAYERS, info.min_players), info.max_players)
    env = dict(os.environ, NUMBA_CACHE_DIR=cache_dir)
    proc = subprocess.run([sys.executable, "-c", _FIRST_CALL, game, policy, str(players),
                           json.dumps(BENCH_RULES.get(game, {}))],
                          env=env, capture_output=True, text=True, timeout=1800)
    if proc.returncode != 0:
        raise RuntimeError(f"compile-time measurement for {game} failed:\n{proc.stderr[-2000:]}")
    data = json.loads(proc.stdout.strip().splitlines()[-1])
    return {k: round(v, 3) for k, v in data.items()}


def run_suite(settings: Settings) -> dict:
    return Suite(settings).run()


def summary_lines(result: dict) -> list[str]:
    """A short human summary: each case's figure and normalised figure, and the targets."""
    lines = [f"{'case':<48} {'value':>14} {'unit':<14} {'normalised':>12} unit"]
    for c in result["cases"]:
        v, n = c["value"], c["normalised"]
        fv = f"{v:,.0f}" if abs(v) >= 1000 else f"{v:.3f}"
        fn = f"{n:,.1f}" if abs(n) >= 100 else f"{n:.4g}"
        lines.append(f"{c['name']:<48} {fv:>14} {c['unit']:<14} {fn:>12} {c['normalised_unit']}")
    targets = [c for c in result["cases"] if c.get("target") is not None]
    for c in targets:
        met = target_met(c)
        op = ">=" if c["better"] == "higher" else "<="
        lines.append(f"target {c['name']}: {c['value']:.3f} {op} {c['target']}: "
                     f"{'met' if met else 'MISSED'}")
    for note in result.get("notes", []):
        lines.append(f"note: {note}")
    return lines
