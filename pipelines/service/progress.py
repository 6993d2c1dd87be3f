"""What a study directory says while it is written: games per arm from its batch records, whether
a CLI run holds it, and the live intervals of its questions.

Every number comes from the batch files the pipeline has already written and vouched for with a
record (pipelines/integrity.py), read in plan order (batch 0, 1, ... complete in every arm the
interval needs), as the pipeline's own stop reads them: the page never runs ahead of the data, and
at the end it shows the games the report is built on.

- A study with a ``[stop]`` table: the anytime-valid confidence sequences of sim/stopping.py, fed
  batch by batch exactly as pipelines/stopping.py feeds them (same tuning after the pilot, same
  values), so the page's half-widths are the ones the study stops on; when it has stopped, the
  ``stopped`` record of study.json.
- Otherwise: per question (fairness: seat 0's edge and the named per-game measures of each arm;
  compare: the paired difference, game by game), the fixed-n 95% interval of the games so far and
  the half-width it will have at the planned games (its target: it narrows as 1/sqrt(n)). The
  report's own intervals (Wilson at the effective n for shares) differ from these in the last digit;
  the estimates are the same games' means.
"""
from __future__ import annotations

import json
import math
import threading
from dataclasses import dataclass, field
from pathlib import Path

Z95 = 1.959963984540054
MAX_STREAMS = 12
NOT_PER_GAME = ("balance", "seat_share")
_records_cache: dict[str, tuple[int, int]] = {}
_cache_lock = threading.Lock()


def _record_count(path: Path) -> int | None:
    """The games a batch record vouches for (cached by the file's mtime)."""
    try:
        mtime = path.stat().st_mtime_ns
    except OSError:
        return None
    key = str(path)
    with _cache_lock:
        hit = _records_cache.get(key)
    if hit and hit[0] == mtime:
        return hit[1]
    try:
        count = int(json.loads(path.read_text()).get("rows"))
    except (OSError, ValueError, TypeError, AttributeError):
        return None
    with _cache_lock:
        if len(_records_cache) > 200_000:
            _records_cache.clear()
        _records_cache[key] = (mtime, count)
    return count


def batches(root: Path, arm: str) -> dict[int, int]:
    """Batch index -> games, for the batches of an arm that have their record and their file."""
    out = {}
    folder = root / arm
    if not folder.is_dir():
        return out
    for rec in folder.glob("batch-*.parquet.json"):
        try:
            index = int(rec.name.split("-")[1].split(".")[0])
        except (IndexError, ValueError):
            continue
        if not rec.with_suffix("").is_file():
            continue
        count = _record_count(rec)
        if count is not None:
            out[index] = count
    return out


def read_manifest(root: Path) -> dict | None:
    try:
        data = json.loads((root / "study.json").read_text())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and isinstance(data.get("study"), dict) else None


def holder(root: Path) -> dict | None:
    """The live CLI run that holds the directory's lock on this host, if any (read only: the lock
    itself is never taken here, so a driver starting now is not refused)."""
    import os
    import platform

    try:
        text = (root / ".kaartlab.lock").read_text().strip()
    except OSError:
        return None
    if not text:
        return None
    try:
        info = json.loads(text)
        pid = int(info.get("pid"))
    except (ValueError, TypeError, AttributeError):
        return None
    if info.get("host") != platform.node():
        return None
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return None
    except PermissionError:
        pass
    return info


@dataclass
class Played:
    """Games per arm against games planned (a [stop] study: against its cap)."""

    arms: list[dict] = field(default_factory=list)  # {name, game, games, planned}
    games: int = 0
    planned: int = 0
    complete: bool = False
    stopped: dict | None = None  # study.json's `stopped` record
    capped: bool = False  # a [stop] study: planned is the cap, it may stop before

    def to_dict(self) -> dict:
        return {"games": self.games, "planned": self.planned, "complete": self.complete,
                "fraction": (self.games / self.planned) if self.planned else 0.0,
                "up_to": self.capped, "arms": self.arms, "stopped": self.stopped}


def played(root: Path, study=None) -> Played:
    """From study.json and the records; ``study`` (a StudySpec) fills in before study.json exists."""
    out = Played()
    manifest = read_manifest(root)
    if manifest is None and study is None:
        return out
    if manifest is not None:
        s = manifest["study"]
        stop = s.get("stop")
        default = int((stop or {}).get("max_games") or s.get("games") or 0)
        arms = [(a.get("name"), a.get("game"), int(a.get("games") or default)) for a in s.get("arms", [])
                if isinstance(a, dict)]
        out.stopped = manifest.get("stopped")
        out.capped = bool(stop) and not out.stopped
        if out.stopped:  # stopped: its games are all it plays
            arms = [(n, g, int(out.stopped.get("games") or p)) for n, g, p in arms]
    else:
        cap = study.stop.max_games if study.stop is not None else study.games
        arms = [(a.name, a.game, cap) for a in study.arms]
        out.capped = study.stop is not None
    for name, game, planned in arms:
        if not isinstance(name, str):
            continue
        games = sum(batches(root, name).values()) if manifest is not None else 0
        out.arms.append({"name": name, "game": game, "games": games, "planned": planned})
    out.games = sum(a["games"] for a in out.arms)
    out.planned = sum(a["planned"] for a in out.arms)
    out.complete = bool(out.arms) and all(a["games"] >= a["planned"] for a in out.arms)
    return out


# -- live intervals ---------------------------------------------------------------------------------

def question_streams(study) -> list[tuple[str, str, tuple[str, ...]]]:
    """(name, measure, arms) for the per-game means a study's questions ask about: each fairness
    arm's measures (seat 0's edge by default), each comparison's paired differences. Players and
    target questions are answered by a model over arms, not one mean: the report shows them."""
    from sim.questions import Question

    names = [a.name for a in study.arms]
    questions = list(study.questions) or [Question("fairness")]
    out: list = []
    for q in questions:
        arms = [a for a in (q.arms or names) if a in names]
        if q.kind == "fairness":
            for arm in arms:
                for m in [m for m in (q.measures or ("seat0_edge",)) if m not in NOT_PER_GAME] or ["seat0_edge"]:
                    out.append((f"{arm} {m}", m, (arm,)))
        elif q.kind == "compare" and len(arms) == 2:
            a, b = arms
            for m in [m for m in (q.measures or ("seat0_edge", "turns")) if m not in NOT_PER_GAME] or ["seat0_edge"]:
                out.append((f"{b} - {a} {m}", m, (a, b)))
    seen, unique = set(), []
    for s in out:
        if s[0] not in seen:
            seen.add(s[0])
            unique.append(s)
    return unique[:MAX_STREAMS]


class Live:
    """One study's intervals, fed batch by batch in plan order as the batches land."""

    def __init__(self, study):
        from sim.stopping import Monitor

        self.study = study
        self.lock = threading.Lock()
        self.error = ""
        names = [a.name for a in study.arms]
        if study.stop is not None:
            self.kind = "sequence"
            self.streams = study.stop.streams(names)
            self.monitor = Monitor(study.stop, [s[0] for s in self.streams], study.batch_size)
        else:
            self.kind = "fixed"
            self.streams = [] if study.searches else question_streams(study)
            self.monitor = None
        from sim.stopping import Moments

        self.moments = [Moments() for _ in self.streams]
        self.consumed = 0  # batch indices 0..consumed-1 of every needed arm are in
        self.luck_fits: dict = {}  # stream_values' luck coefficients, fitted on batch 0

    def update(self, root: Path) -> None:
        import polars as pl

        from pipelines.stopping import stream_values

        if not self.streams:
            return
        needed = sorted({a for _, _, arms in self.streams for a in arms})
        with self.lock:
            have = {arm: batches(root, arm) for arm in needed}
            while all(self.consumed in have[arm] for arm in needed):
                index = self.consumed
                try:
                    frames = {arm: pl.read_parquet(root / arm / f"batch-{index:06d}.parquet") for arm in needed}
                    values = stream_values(frames, self.study, self.streams, self.luck_fits)
                except Exception as exc:  # noqa: BLE001 - a file being replaced: look again next time
                    self.error = f"{type(exc).__name__}: {str(exc)[:200]}"
                    return
                if self.monitor is not None:
                    self.monitor.add(index, values)
                else:
                    from sim.stopping import Moments

                    self.moments = [m.merge(Moments.of(v)) for m, v in zip(self.moments, values)]
                self.consumed += 1

    def to_dict(self, planned: dict[str, int]) -> dict:
        """The intervals now, each with its target half-width."""
        out = {"kind": self.kind, "batches": self.consumed, "intervals": [], "confidence": 0.95}
        if self.monitor is not None:
            stop = self.study.stop
            out.update(confidence=stop.confidence, target=stop.half_width,
                       pilot_batches=self.monitor.pilot_batches)
            look = self.monitor.looks[-1] if self.monitor.looks else None
            if look is None:
                out["note"] = (f"pilot: {self.consumed} of {self.monitor.pilot_batches} batches in every arm; "
                               "the first look is at the pilot's end")
                return out
            out["games"] = look.games
            out["intervals"] = [_interval(i.name, i.value, i.half_width, i.games, stop.half_width)
                                for i in look.intervals]
            out["note"] = (f"anytime-valid {stop.confidence:.0%} confidence sequences at {look.games:,} games "
                           f"per arm; the study stops when every half-width is at most {stop.half_width:g}")
            return out
        for (name, _, arms), m in zip(self.streams, self.moments):
            if m.n < 2 or not math.isfinite(m.sd):
                continue
            hw = Z95 * m.sd / math.sqrt(m.n)
            goal = max(planned.get(a, m.n) for a in arms)
            target = hw * math.sqrt(m.n / goal) if goal > m.n else hw
            out["intervals"].append(_interval(name, m.mean, hw, m.n, target))
        if out["intervals"]:
            games = min(i["games"] for i in out["intervals"])
            out["games"] = games
            out["note"] = (f"95% intervals (fixed n) on the first {games:,} games per arm, read in plan order; "
                           "the target is the half-width at the planned games")
        return out


def _interval(name, value, half_width, games, target) -> dict:
    return {"name": name, "value": float(value), "half_width": float(half_width), "lo": float(value - half_width),
            "hi": float(value + half_width), "games": int(games), "target": float(target),
            "reached": bool(half_width <= target * (1 + 1e-12))}


_live: dict[tuple, Live] = {}
_live_lock = threading.Lock()


def live_intervals(key: tuple, study, root: Path, planned: dict[str, int]) -> dict:
    """The study's live intervals (cached per key, fed with the batches that landed since)."""
    with _live_lock:
        live = _live.get(key)
        if live is None:
            if len(_live) > 256:
                _live.clear()
            live = _live[key] = Live(study)
    try:
        live.update(root)
    except Exception as exc:  # noqa: BLE001 - progress is shown best effort, never a 500
        live.error = f"{type(exc).__name__}: {str(exc)[:200]}"
    data = live.to_dict(planned)
    if live.error:
        data["error"] = live.error
    return data


def stopped_intervals(stopped: dict) -> dict:
    """A [stop] study's final intervals: study.json's ``stopped`` record, as the pipeline wrote it."""
    target = float(stopped.get("target") or 0)
    return {"kind": "sequence", "final": True, "target": target, "games": stopped.get("games"),
            "confidence": stopped.get("confidence", 0.95),
            "intervals": [_interval(i.get("name"), i.get("value"), i.get("half_width"), i.get("games") or 0, target)
                          for i in stopped.get("intervals") or [] if isinstance(i, dict)],
            "note": (f"stopped: {'reached the target' if stopped.get('reason') == 'half_width' else 'hit max_games'} "
                     f"at {int(stopped.get('games') or 0):,} games per arm after {stopped.get('looks')} looks "
                     f"(study.json's stopped record)")}
