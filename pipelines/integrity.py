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
    data: list[Problem] = field(default_factory=list)  # copies under data/ that do not match

    @property
    def good(self) -> set[str]:
        return {batch_relpath(a.name, i) for a in self.arms.values() for i in a.good}

    @property
    def bad(self) -> list[Problem]:
        return [p for a in self.arms.values() for p in a.bad] + self.data

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


# ------------------------------------------------------------------------------- study.json
# study.json carries its own SHA-256 ("sha256": over its canonical JSON without that key), so any
# change after kaartlab wrote it (a flipped bit in the seed, the fingerprint, a policy name, the
# integrity key) is found by everything that reads it: verify, resume, trace and reports
# (reports/dataset.py reads it through load_manifest too). A manifest without a seal is one written
# before seals (2026-12-03): with batch records it must agree with what the batch files say of
# themselves (their fingerprint, study head and arm), else it is damaged.
MANIFEST = "study.json"
SEAL = "sha256"
MANIFEST_KEYS = {"kaartlab_dataset", "fingerprint", "study", "games", "provenance", "integrity",
                 "searches", "stopped", SEAL}
MAX_MANIFEST_BYTES = 256 << 20  # a search's or sweep's thousands of arms stay far below
MAX_RECORD_BYTES = 1 << 20
HEAD = ("name", "seed", "games", "batch_size")  # pipelines/batch.py: a batch file's kaartlab.study_head


class DamagedManifest(ValueError):
    """study.json cannot be trusted: the reason, in one line."""


def _canonical(manifest: dict) -> bytes:
    body = {k: v for k, v in manifest.items() if k != SEAL}
    return json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def seal(manifest: dict) -> dict:
    """The manifest with its own SHA-256 (see above)."""
    return {**{k: v for k, v in manifest.items() if k != SEAL}, SEAL: hashlib.sha256(_canonical(manifest)).hexdigest()}


def manifest_bytes(manifest: dict) -> bytes:
    """What study.json holds: the sealed manifest, indented."""
    return json.dumps(seal(manifest), indent=2).encode()


def read_bounded(fs: pafs.FileSystem, path: str, limit: int, what: str) -> bytes:
    """A regular file's bytes, at most ``limit`` of them: its kind and size are checked before it is
    opened (a FIFO would block, /dev/zero never end) and no more than limit + 1 bytes are read.
    FileNotFoundError when absent; ValueError naming the problem otherwise."""
    if isinstance(fs, pafs.LocalFileSystem):
        import stat

        mode = os.stat(path).st_mode  # FileNotFoundError as asked
        if not stat.S_ISREG(mode):
            raise ValueError(f"{what} {path!r} is not a regular file")
        size = os.stat(path).st_size
    else:
        info = fs.get_file_info(path)
        if info.type == pafs.FileType.NotFound:
            raise FileNotFoundError(path)
        if info.type != pafs.FileType.File:
            raise ValueError(f"{what} {path!r} is not a file")
        size = info.size or 0
    if size > limit:
        raise ValueError(f"{what} {path!r} is larger than {limit:,} bytes")
    with fs.open_input_stream(path) as f:
        data = f.read(limit + 1)
    if len(data) > limit:
        raise ValueError(f"{what} {path!r} is larger than {limit:,} bytes")
    return data


def load_manifest(fs: pafs.FileSystem, root: str) -> dict | None:
    """study.json of the dataset at ``root``, its seal checked: None when there is none;
    DamagedManifest (one line: why) when it cannot be read, is not a manifest or does not match its
    own SHA-256."""
    path = f"{root.rstrip('/')}/{MANIFEST}"
    try:
        raw = read_bounded(fs, path, MAX_MANIFEST_BYTES, MANIFEST)
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        raise DamagedManifest(f"cannot be read ({exc})") from None
    try:
        manifest = json.loads(raw.decode())
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise DamagedManifest(f"cannot be read ({type(exc).__name__}: {str(exc)[:200]})") from None
    if not isinstance(manifest, dict) or not isinstance(manifest.get("study"), dict):
        raise DamagedManifest("is not a kaartlab manifest")
    unknown = sorted(set(manifest) - MANIFEST_KEYS)
    if unknown:
        raise DamagedManifest(f"has a key no kaartlab writes ({unknown[0]!r})")
    if SEAL in manifest and manifest[SEAL] != seal(manifest)[SEAL]:
        raise DamagedManifest("does not match its own SHA-256 (changed after kaartlab wrote it)")
    return manifest


def file_metadata(fs: pafs.FileSystem, path: str) -> dict[bytes, bytes]:
    """A batch file's schema metadata (its footer only)."""
    import pyarrow.parquet as pq

    with fs.open_input_file(path) as f:
        return pq.ParquetFile(f).schema_arrow.metadata or {}


def manifest_from_batches(fs: pafs.FileSystem, root: str) -> dict | None:
    """What the batch files say of their study, from one file per arm: its fingerprint, head and
    each arm (files written before 2026-12-03 carry the whole study); None without such files."""
    root = root.rstrip("/")
    head, arms, fingerprint, records = None, {}, None, False
    folders = sorted(i.path for i in fs.get_file_info(pafs.FileSelector(root, allow_not_found=True))
                     if i.type == pafs.FileType.Directory)
    for folder in folders:
        infos = fs.get_file_info(pafs.FileSelector(folder))
        records = records or any(i.base_name.endswith(".parquet" + RECORD_SUFFIX) for i in infos)
        files = sorted(i.path for i in infos if i.type == pafs.FileType.File and _BATCH_RE.match(i.base_name))
        for path in files[:3]:  # a damaged first file: the next says the same
            try:
                meta = file_metadata(fs, path)
            except Exception:  # noqa: BLE001 - an unreadable footer says nothing
                continue
            fingerprint = fingerprint or meta.get(b"kaartlab.fingerprint", b"").decode() or None
            if b"kaartlab.study" in meta:
                return {"study": json.loads(meta[b"kaartlab.study"]), "fingerprint": fingerprint, "games": {},
                        **({"integrity": INTEGRITY} if records else {})}
            if b"kaartlab.arm_spec" in meta:
                head = head or json.loads(meta[b"kaartlab.study_head"])
                arms[int(meta[b"kaartlab.arm_index"])] = json.loads(meta[b"kaartlab.arm_spec"])
            break
    if head is None:
        return None
    # with records, what they vouch for is checked as for any dataset (an unsealed description)
    return {"study": {**head, "arms": [arms[k] for k in sorted(arms)]}, "fingerprint": fingerprint, "games": {},
            **({"integrity": INTEGRITY} if records else {})}


def _check_description(fs, root: str, manifest: dict, arms: dict, has_records: bool) -> None:
    """DamagedManifest when the integrity key is not this scheme's while records exist, or when an
    unsealed manifest disagrees with what its good batch files say of themselves."""
    key = manifest.get("integrity")
    if key is not None and key != INTEGRITY:
        raise DamagedManifest(f"names an integrity scheme kaartlab does not know ({key!r})")
    if key is None:
        if has_records or SEAL in manifest:
            raise DamagedManifest("lacks its integrity key, yet the batches carry records")
        return
    if SEAL in manifest:
        return
    study, fingerprint = manifest["study"], manifest.get("fingerprint")
    if not any(a.good for a in arms.values()) and has_records:
        raise DamagedManifest(f"names fingerprint {fingerprint!r}, which no batch record carries")
    by_name = {a.get("name"): a for a in study.get("arms", [])}
    for state in arms.values():
        if not state.good:
            continue
        path = f"{root}/{batch_relpath(state.name, min(state.good))}"
        try:
            meta = file_metadata(fs, path)
        except Exception:  # noqa: BLE001 - its bytes verified; a footer that does not read is bad data
            continue
        said = {k.decode(): v.decode() for k, v in meta.items() if k.startswith(b"kaartlab.")}
        if said.get("kaartlab.fingerprint") != fingerprint:
            raise DamagedManifest(f"names fingerprint {fingerprint!r}; arm {state.name}'s batches say "
                                  f"{said.get('kaartlab.fingerprint')!r}")
        if "kaartlab.study_head" in said:
            head = json.loads(said["kaartlab.study_head"])
            for key in HEAD:
                if key == "games" and "stop" in study:
                    continue  # a stopping study's files name its cap; study.json the games played
                if study.get(key) != head.get(key):
                    raise DamagedManifest(f"says {key}={study.get(key)!r}, its batch files {head.get(key)!r}")
            if json.loads(said["kaartlab.arm_spec"]) != by_name.get(state.name):
                raise DamagedManifest(f"describes arm {state.name!r} otherwise than its batch files do")


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
    has_records = any(rel.endswith(RECORD_SUFFIX) for rel in files)
    legacy = manifest.get("integrity") is None and SEAL not in manifest and not has_records
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
    if not legacy:
        _check_description(fs, root, manifest, arms, has_records)
    return Integrity(arms, sorted(extra), sorted(temporary), legacy, _check_data(fs, root, study))


MAX_DATA_BYTES = 1 << 20  # sim/spec.py's bound on a data file (this module imports nothing of sim)


def _check_data(fs, root: str, study: dict) -> list[Problem]:
    """Every copy under data/ that an arm names: its file name carries the first 16 hex digits of
    the SHA-256 study.json records, and its bytes have that SHA-256."""
    problems, seen = [], set()
    for arm in study.get("arms", []):
        for name, entry in (arm.get("data") or {}).items() if isinstance(arm.get("data"), dict) else ():
            rel = entry.get("file") if isinstance(entry, dict) else None
            sha = entry.get("sha256") if isinstance(entry, dict) else None
            if not isinstance(rel, str) or not isinstance(sha, str) or rel in seen:
                continue
            seen.add(rel)
            base = rel.split("/", 1)[-1]
            if not rel.startswith("data/") or "/" in base or not base.startswith(f"{name}-{sha[:16]}."):
                problems.append(Problem(rel, f"is not where a copy of {name} {sha[:16]} belongs"))
                continue
            try:
                data = read_bounded(fs, f"{root}/{rel}", MAX_DATA_BYTES, "data copy")
            except FileNotFoundError:
                problems.append(Problem(rel, "the data copy is missing"))
                continue
            except (OSError, ValueError) as exc:
                problems.append(Problem(rel, f"unreadable ({exc})"))
                continue
            if hashlib.sha256(data).hexdigest() != sha:
                problems.append(Problem(rel, "content does not match the SHA-256 in its name and study.json"))
    return problems


def _check_one(fs, root, rel, info, record_info, arm, index, start, count, fingerprint, legacy,
               hashes, deep) -> tuple[str | None, int]:
    path = f"{root}/{rel}"
    if record_info is None:
        if legacy:
            return _check_footer(fs, path, start, count, fingerprint)
        return "no record (cut off while written, or not written by kaartlab)", 0
    try:
        record = json.loads(read_bounded(fs, f"{root}/{record_relpath(rel)}", MAX_RECORD_BYTES,
                                         "record").decode())
        expected = {"arm": arm, "index": index, "start": start, "count": count, "rows": count}
        for key, value in expected.items():
            if record.get(key) != value:
                return f"record says {key}={record.get(key)!r}, the plan {value!r}", 0
        if fingerprint and record.get("fingerprint") != fingerprint:
            return f"record is of study {record.get('fingerprint')}, not {fingerprint}", 0
        want_bytes, want_sha = int(record["bytes"]), str(record["sha256"])
    except (OSError, ValueError, KeyError, TypeError, AttributeError, RecursionError) as exc:
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
