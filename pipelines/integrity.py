"""What makes a batch file count: its record (a sidecar written after the file, atomically) and a
check of the file against it. Plain pyarrow and hashlib, no simulator imports, so reports and
`kaartlab verify` check a dataset on a machine that has only the files.

A batch `<arm>/batch-000123.parquet` is *done* when `<arm>/batch-000123.parquet.json` exists, names
that arm, index, first game and game count as the study plans them, carries the study's
fingerprint, and the file's size, SHA-256 and row count equal the record's. Anything else (no
record, a record without its file, a flipped bit, a truncated or empty file, a file from another
plan) is *bad*: a resumed run redoes it, a report refuses it.
"""
from __future__ import annotations

import hashlib
import json
import os
import platform
import re
from dataclasses import dataclass, field
from datetime import datetime, timezone

import pyarrow.fs as pafs

from pipelines.identity import git_commit

RECORD_SUFFIX = ".json"  # batch-000123.parquet.json beside batch-000123.parquet
RECORD_VERSION = 1
INTEGRITY = "sha256-sidecar-1"  # the manifest's `integrity` key for datasets written this way
_BATCH_RE = re.compile(r"^batch-(\d{6,})\.parquet$")
_CHUNK = 1 << 20


def batch_relpath(arm: str, index: int) -> str:
    return f"{arm}/batch-{index:06d}.parquet"


def record_relpath(relpath: str) -> str:
    return relpath + RECORD_SUFFIX


def batches_per_arm(games: int, batch_size: int) -> int:
    return -(-games // batch_size)


def planned_count(games: int, batch_size: int, index: int) -> int:
    return min(batch_size, games - index * batch_size)


_CODE: dict | None = None


def code_identity() -> dict:
    """Which code writes: kaartlab's version and git commit, the host and the process."""
    global _CODE
    if _CODE is None:
        from importlib import metadata

        try:
            version = metadata.version("kaartlab")
        except metadata.PackageNotFoundError:
            version = None
        _CODE = {"kaartlab": version, "git": git_commit(), "pyarrow": _pyarrow_version()}
    return {**_CODE, "host": platform.node(), "pid": os.getpid()}


def _pyarrow_version() -> str:
    import pyarrow

    return pyarrow.__version__


def make_record(arm: str, index: int, start: int, count: int, data: bytes, rows: int,
                fingerprint: str, run: str | None) -> dict:
    return {"kaartlab_batch": RECORD_VERSION, "arm": arm, "index": index, "start": start,
            "count": count, "rows": rows, "bytes": len(data),
            "sha256": hashlib.sha256(data).hexdigest(), "fingerprint": fingerprint,
            "run": run, "writer": code_identity(),
            "written": datetime.now(timezone.utc).isoformat(timespec="seconds")}


def sha256_of(fs: pafs.FileSystem, path: str) -> tuple[str, int]:
    digest, size = hashlib.sha256(), 0
    with fs.open_input_stream(path) as f:
        while chunk := f.read(_CHUNK):
            digest.update(chunk)
            size += len(chunk)
    return digest.hexdigest(), size


@dataclass
class Problem:
    relpath: str
    reason: str

    def __str__(self) -> str:
        return f"{self.relpath}: {self.reason}"


@dataclass
class ArmState:
    name: str
    planned_batches: int
    planned_games: int
    good: dict[int, int] = field(default_factory=dict)  # batch index -> rows
    bad: list[Problem] = field(default_factory=list)

    @property
    def games(self) -> int:
        return sum(self.good.values())

    @property
    def missing_count(self) -> int:
        """Planned batches with no file at all (bad ones are counted apart)."""
        return self.planned_batches - len(self.good) - len(self.bad)

    def missing(self, limit: int = 10) -> list[int]:
        """The first `limit` missing batch indices."""
        bad = {p.relpath for p in self.bad}
        out = []
        for i in range(self.planned_batches):
            if len(out) >= limit:
                break
            if i not in self.good and batch_relpath(self.name, i) not in bad:
                out.append(i)
        return out


@dataclass
class Integrity:
    """The state of a dataset's batch files against its plan."""

    arms: dict[str, ArmState]
    extra: list[str] = field(default_factory=list)  # batch-like files outside the plan
    temporary: list[str] = field(default_factory=list)  # *.tmp-* left by a killed writer
    legacy: bool = False  # the manifest predates batch records

    @property
    def good(self) -> set[str]:
        return {batch_relpath(a.name, i) for a in self.arms.values() for i in a.good}

    @property
    def bad(self) -> list[Problem]:
        return [p for a in self.arms.values() for p in a.bad]

    @property
    def complete(self) -> bool:
        return all(len(a.good) == a.planned_batches for a in self.arms.values())

    @property
    def ok(self) -> bool:
        return self.complete and not self.bad

    def files(self, arm: str) -> list[str]:
        return [batch_relpath(arm, i) for i in sorted(self.arms[arm].good)]

    def lines(self, limit: int = 20) -> list[str]:
        """Human-readable: per arm games found of planned, then every bad file (up to limit)."""
        out = []
        for a in self.arms.values():
            state = "complete" if len(a.good) == a.planned_batches else "INCOMPLETE"
            out.append(f"{a.name}: {a.games:,} of {a.planned_games:,} games in {len(a.good):,} of "
                       f"{a.planned_batches:,} batches ({state}"
                       + (f", {len(a.bad)} bad" if a.bad else "")
                       + (f", {a.missing_count:,} missing" if a.missing_count else "") + ")")
        bad = self.bad
        for p in bad[:limit]:
            out.append(f"  bad: {p}")
        if len(bad) > limit:
            out.append(f"  ... and {len(bad) - limit} more bad files")
        if self.extra:
            out.append(f"  {len(self.extra)} file(s) outside the plan are ignored: "
                       + ", ".join(self.extra[:5]) + (" ..." if len(self.extra) > 5 else ""))
        return out


MAX_PLANNED = 10**12  # games per arm a manifest may plan (sim.spec.MAX_GAMES)


def plan_of(manifest: dict) -> tuple[dict, int, int, list[str]]:
    """(study, games per arm, batch size, arm names) from a manifest; ValueError naming what is
    wrong when they do not make a plan (a damaged or hand-edited study.json)."""
    study = manifest.get("study") if isinstance(manifest, dict) else None
    if not isinstance(study, dict):
        raise ValueError("no study table")
    games, size, arms = study.get("games"), study.get("batch_size"), study.get("arms")
    for key, value in (("games", games), ("batch_size", size)):
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_PLANNED:
            raise ValueError(f"{key}={value!r} is not a count of games")
    if not isinstance(arms, list) or not (arms or study.get("search")) or not all(
            isinstance(a, dict) and isinstance(a.get("name"), str) and a["name"] and "/" not in a["name"]
            for a in arms):
        raise ValueError("the arms are not a list of named arms")
    names = [a["name"] for a in arms]
    if len(set(names)) != len(names):
        raise ValueError("an arm name is used twice")
    return study, games, size, names


def arm_extents(study: dict, games: int, size: int) -> dict[str, tuple[int, int, int]]:
    """Per arm (games, first game, batch size): the study's games from 0 in its batches, or what a
    search arm's entry says (sim/search.py, Extent); ValueError when an entry does not make a plan."""
    out = {}
    for arm in study["arms"]:
        if "search" not in arm:
            out[arm["name"]] = (games, 0, size)
            continue
        g, first, b = arm.get("games"), arm.get("first", 0), arm.get("batch_size")
        for key, value, lo in (("games", g, 1), ("first", first, 0), ("batch_size", b, 1)):
            if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= MAX_PLANNED:
                raise ValueError(f"arm {arm['name']!r}: {key}={value!r} is not a count of games")
        out[arm["name"]] = (g, first, b)
    return out


def check(fs: pafs.FileSystem, root: str, manifest: dict, deep: bool = False,
          hashes: bool = True) -> Integrity:
    """Check every batch file under `root` against the plan in `manifest` (study.json).

    `hashes=False` skips reading the files (size and record only); `deep=True` also reads every
    row (game numbers, the study's fingerprint in the file's metadata)."""
    study, games, size, names = plan_of(manifest)
    fingerprint = manifest.get("fingerprint")
    if not isinstance(fingerprint, str):
        fingerprint = None
    legacy = manifest.get("integrity") != INTEGRITY
    extents = arm_extents(study, games, size)
    arms = {name: ArmState(name, batches_per_arm(extents[name][0], extents[name][2]), extents[name][0])
            for name in names}
    files: dict[str, pafs.FileInfo] = {}
    extra, temporary = [], []
    selector = pafs.FileSelector(root, recursive=True, allow_not_found=True)
    for info in fs.get_file_info(selector):
        if info.type != pafs.FileType.File:
            continue
        rel = info.path[len(root.rstrip("/")) + 1:]
        parts = rel.split("/")
        if len(parts) != 2 or not parts[1].startswith("batch-"):
            continue
        if ".tmp-" in parts[1]:
            temporary.append(rel)
        elif _BATCH_RE.match(parts[1]) or parts[1].endswith(".parquet" + RECORD_SUFFIX):
            files[rel] = info
        else:
            extra.append(rel)
    for rel in sorted(files):
        if rel.endswith(RECORD_SUFFIX):
            base = rel[:-len(RECORD_SUFFIX)]
            if base not in files:
                arm, name = base.split("/")
                match = _BATCH_RE.match(name)
                if arm in arms and match and int(match.group(1)) < arms[arm].planned_batches:
                    arms[arm].bad.append(Problem(base, "its record exists but the file is missing"))
                else:
                    extra.append(rel)
            continue
        arm, name = rel.split("/")
        index = int(_BATCH_RE.match(name).group(1))
        if arm not in arms or index >= arms[arm].planned_batches:
            extra.append(rel)
            continue
        arm_games, first, arm_size = extents[arm]
        reason, rows = _check_one(fs, root, rel, files[rel], files.get(record_relpath(rel)),
                                  arm, index, first + index * arm_size, planned_count(arm_games, arm_size, index),
                                  fingerprint, legacy, hashes, deep)
        if reason:
            arms[arm].bad.append(Problem(rel, reason))
        else:
            arms[arm].good[index] = rows
    return Integrity(arms, sorted(extra), sorted(temporary), legacy)


def _check_one(fs, root, rel, info, record_info, arm, index, start, count, fingerprint, legacy,
               hashes, deep) -> tuple[str | None, int]:
    path = f"{root}/{rel}"
    if record_info is None:
        if legacy:
            return _check_footer(fs, path, start, count, fingerprint)
        return "no record (cut off while written, or not written by kaartlab)", 0
    try:
        with fs.open_input_stream(f"{root}/{record_relpath(rel)}") as f:
            record = json.loads(f.read().decode())
        expected = {"arm": arm, "index": index, "start": start, "count": count, "rows": count}
        for key, value in expected.items():
            if record.get(key) != value:
                return f"record says {key}={record.get(key)!r}, the plan {value!r}", 0
        if fingerprint and record.get("fingerprint") != fingerprint:
            return f"record is of study {record.get('fingerprint')}, not {fingerprint}", 0
        want_bytes, want_sha = int(record["bytes"]), str(record["sha256"])
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        return f"unreadable record ({type(exc).__name__})", 0
    if info.size != want_bytes:
        return f"{info.size} bytes, its record says {want_bytes} (truncated or replaced)", 0
    if hashes:
        try:
            sha, _ = sha256_of(fs, path)
        except OSError as exc:
            return f"unreadable ({exc})", 0
        if sha != want_sha:
            return "content does not match its SHA-256 (changed after it was written)", 0
    if deep:
        problem = _check_rows(fs, path, start, count, fingerprint)
        if problem:
            return problem, 0
    return None, count


def _check_footer(fs, path, start, count, fingerprint) -> tuple[str | None, int]:
    """A dataset written before records: the file's footer must read and hold the planned rows."""
    import pyarrow.parquet as pq

    try:
        with fs.open_input_file(path) as f:
            meta = pq.ParquetFile(f).metadata
    except Exception as exc:  # noqa: BLE001 - any unreadable footer is a bad file
        return f"unreadable Parquet ({type(exc).__name__})", 0
    if meta.num_rows != count:
        return f"{meta.num_rows} rows, the plan {count}", 0
    return None, count


def _check_rows(fs, path, start, count, fingerprint) -> str | None:
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    try:
        with fs.open_input_file(path) as f:
            table = pq.read_table(f)
    except Exception as exc:  # noqa: BLE001 - any unreadable file is a bad file
        return f"unreadable Parquet ({type(exc).__name__}: {exc})"
    meta = table.schema.metadata or {}
    if fingerprint and meta.get(b"kaartlab.fingerprint", b"").decode() != fingerprint:
        return "its metadata names another study"
    game = table.column("game") if "game" in table.column_names else None
    if table.num_rows != count or game is None:
        return f"{table.num_rows} rows, the plan {count}"
    if pc.min(game).as_py() != start or pc.max(game).as_py() != start + count - 1 \
            or pc.count_distinct(game).as_py() != count:
        return f"games are not {start}..{start + count - 1}"
    return None
