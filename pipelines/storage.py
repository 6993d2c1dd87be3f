"""The study directory on any filesystem pyarrow can write: manifest, atomic batch files, resume."""
from __future__ import annotations

import json
import os
import platform
import sys
import threading
import uuid
from datetime import datetime, timezone
from importlib import metadata
from pathlib import Path

import pyarrow as pa
import pyarrow.fs as pafs
import pyarrow.parquet as pq

from pipelines import integrity
from pipelines.identity import git_commit
from sim.errors import SpecError
from sim.registry import get_game
from sim.spec import REPORT_ONLY, StudySpec

MANIFEST = "study.json"
FORMAT = 2  # 2: seats with player parameters, data files kept in the dataset
LOCK = ".kaartlab.lock"  # pipelines/lock.py; arm names cannot start with '.'
STORAGE_TIMEOUT_ENV = "KAARTLAB_STORAGE_TIMEOUT"  # seconds the first look at --out may take

# How batch files are written. The write is the pipeline's largest cost after the kernel, so it is
# chosen for speed: list items and 32- and 64-bit integers are delta bit-packed; 8- and 16-bit
# columns (mostly small or constant) are left plain, since lz4 shrinks those as well at a third of
# delta's cost; then lz4 on every page. Dictionaries and statistics cost a tenth of the write and
# buy little here: only `game` keeps its statistics (min/max for index filters). The not-null
# schema (sim/tables.table_schema) saves the definition levels. Against the settings before
# (every integer delta-packed, nullable columns, a dictionary for `arm`), one process, batches of
# 50,000 (Wizard 20,000): Knutten 0.68x the time at 7.7 bytes/game instead of 8.5, Wizard 0.88x
# at 113 instead of 241. pyarrow's defaults with zstd take 2.6x (Knutten) and 1.5x (Wizard) as
# long, for 6.3 and 80 bytes/game.
PARQUET_OPTIONS = {"compression": "lz4", "use_dictionary": False, "write_statistics": ["game"]}


def filesystem_from_uri(uri: str):
    return pafs.FileSystem.from_uri(uri)


class StudyDir:
    """A directory holding exactly one study's dataset."""

    def __init__(self, out: str | Path):
        text = str(out)
        try:
            if "://" in text:
                self.fs, self.root = filesystem_from_uri(text)
            else:
                self.fs, self.root = pafs.LocalFileSystem(), str(Path(text).expanduser().resolve())
        except (pa.ArrowInvalid, OSError) as exc:
            raise SpecError(f"output path {text!r} cannot be used: {exc}") from None
        self.display = text
        self.repair: str | None = None  # check(): why study.json is rewritten on resume
        self.local = isinstance(self.fs, pafs.LocalFileSystem)
        if not self.local:
            self._probe()

    def _probe(self) -> None:
        """Look at the root once under a time limit: an object store without network or
        credentials retries for minutes; this says so in seconds instead."""
        limit = float(os.environ.get(STORAGE_TIMEOUT_ENV, "30"))
        result: dict = {}

        def look():
            try:
                result["info"] = self.fs.get_file_info(self.root)
            except Exception as exc:  # noqa: BLE001 - reported below as one line
                result["error"] = exc

        thread = threading.Thread(target=look, daemon=True, name="kaartlab-storage-probe")
        thread.start()
        thread.join(limit)
        if thread.is_alive():
            raise SpecError(f"output {self.display!r} did not answer within {limit:g} s: check the "
                            "network and the storage credentials (or use a local --out)")
        if "error" in result:
            first = str(result["error"]).splitlines()[0] if str(result["error"]) else ""
            raise SpecError(f"output {self.display!r} cannot be reached: "
                            f"{type(result['error']).__name__}: {first}")

    def path(self, relpath: str) -> str:
        return f"{self.root}/{relpath}"

    def _info(self, relpath: str = ""):
        return self.fs.get_file_info(self.path(relpath) if relpath else self.root)

    def read_manifest(self) -> dict | None:
        """study.json, its own SHA-256 checked (pipelines/integrity.py); None when there is none."""
        try:
            return integrity.load_manifest(self.fs, self.root)
        except integrity.DamagedManifest as exc:
            raise SpecError(self.damaged(str(exc))) from None

    def damaged(self, reason: str) -> str:
        return (f"{self.display}/{MANIFEST} {reason}: the study's description is damaged; rerun the command "
                f"that wrote the dataset or `kaartlab verify {self.display} --repair` (each rewrites it when the "
                "batch files prove that study), or choose a new --out")

    def repair_from_batches(self, command: str = "") -> str | None:
        """`kaartlab verify --repair`: rewrite a damaged study.json from what its batch files prove
        (their study head, each arm, the fingerprint every record carries), when the study they
        describe has that very fingerprint. Returns why it was damaged (None: it was not). What the
        batch files do not carry (description, questions, report options, a search's tables, a stop's
        record) is not restored: rerunning the study's command does that. The caller holds the lock."""
        reason = self.damage() if self._info(MANIFEST).type != pafs.FileType.NotFound else None
        if reason is None:
            return None
        proof = integrity.manifest_from_batches(self.fs, self.root)
        if proof is None:
            raise SpecError(f"{self.damaged(reason)}; no batch file says which study it is, so nothing can be rebuilt")
        from sim.spec import ArmSpec

        data = proof["study"]
        try:
            arms = tuple(ArmSpec.from_dict(a, read=self.read_file) for a in data["arms"])
            study = StudySpec(data["name"], data["seed"], data["games"], data["batch_size"], arms)
        except (SpecError, KeyError, TypeError, ValueError) as exc:
            raise SpecError(f"{self.damaged(reason)}; its batch files do not describe a study ({exc})") from None
        if study.fingerprint() != proof["fingerprint"] or any("search" in a for a in data["arms"]):
            raise SpecError(f"{self.damaged(reason)}; its batch files describe part of a study (a [[search]] or "
                            "[stop] study keeps more in study.json), so only its own command can rewrite it")
        self._write_manifest(manifest_for(study, command))
        return reason

    def damage(self) -> str | None:
        """Why study.json cannot be trusted (unreadable, not matching its own SHA-256, or not what the
        batch files say of themselves), or None."""
        try:
            manifest = integrity.load_manifest(self.fs, self.root)
            if manifest is not None:
                integrity.check(self.fs, self.root, manifest, hashes=False)
        except integrity.DamagedManifest as exc:
            return str(exc)
        except (KeyError, TypeError, ValueError) as exc:
            return f"lacks the study's plan ({exc})"
        return None

    def check(self, study: StudySpec) -> bool:
        """Can this study be written here? True when the directory already holds it (resume).

        Refuses a path that is a file, a directory of another study, or a non-empty directory
        that is not a kaartlab study: nothing there is ever overwritten or mixed. Writes nothing."""
        info = self._info()
        if info.type == pafs.FileType.File:
            raise SpecError(f"output path {self.display!r} is a file, not a directory")
        self.repair = None
        reason = self.damage() if self._info(MANIFEST).type != pafs.FileType.NotFound else None
        if reason is not None:
            proof = integrity.manifest_from_batches(self.fs, self.root)
            proven = proof["fingerprint"] if proof else None
            if proof is not None and proven != study.fingerprint():
                raise SpecError(f"{self.damaged(reason)}; its batch files are of study {proven}, not this "
                                f"one ({study.name!r}, {study.fingerprint()})")
            self.repair = reason  # prepare rewrites it from this study, which its batch files prove
            return True
        manifest = self.read_manifest()
        if manifest is not None:
            if manifest.get("kaartlab_dataset") != FORMAT:
                raise SpecError(f"output directory {self.display!r} holds a dataset of format "
                                f"{manifest.get('kaartlab_dataset')}, this kaartlab writes format "
                                f"{FORMAT}: choose a new --out")
            if manifest.get("fingerprint") != study.fingerprint():
                other = manifest.get("study", {}).get("name", "?")
                raise SpecError(
                    f"output directory {self.display!r} holds another study ({other!r}, "
                    f"fingerprint {manifest.get('fingerprint')}), not this one "
                    f"({study.name!r}, {study.fingerprint()}); choose a new --out")
            return True
        names = {i.base_name for i in self.fs.get_file_info(pafs.FileSelector(self.root))} \
            if info.type == pafs.FileType.Directory else set()
        if LOCK in names:  # a kaartlab directory being claimed (or whose claim was cut off),
            # its manifest perhaps still under its temporary name: the lock then says who holds it
            names = {n for n in names - {LOCK, "data"} if not n.startswith(f"{MANIFEST}.tmp-")}
        if names:
            raise SpecError(f"output directory {self.display!r} is not empty and holds no "
                            f"{MANIFEST}: refusing to write a study into it")
        return False

    def prepare(self, study: StudySpec, command: str = "") -> bool:
        """Claim the directory for this study (see check). Returns True when resuming.
        The caller holds the directory's lock (pipelines/lock.py)."""
        if self.check(study):
            if self.repair is not None:
                self._write_manifest(manifest_for(study, command))
            else:
                self._refresh_report_part(study)
            self._restore_data(study)
            return True
        try:
            self.fs.create_dir(self.root, recursive=True)
            self.fs.create_dir(self.path("data"), recursive=True)
            for value in {d.relpath: d for arm in study.arms for d in arm.data}.values():
                self._write_atomic(value.relpath, value.text.encode())  # the dataset replays anywhere
            self._write_atomic(MANIFEST, integrity.manifest_bytes(manifest_for(study, command)))
        except OSError as exc:
            raise SpecError(f"cannot write to output directory {self.display!r}: {exc}") from None
        return False

    def _write_manifest(self, manifest: dict) -> None:
        try:
            self._write_atomic(MANIFEST, integrity.manifest_bytes(manifest))
        except OSError as exc:
            raise SpecError(f"cannot write to output directory {self.display!r}: {exc}") from None

    def _restore_data(self, study: StudySpec) -> None:
        """A resumed run writes back any data copy that is missing or does not match its hash."""
        try:
            problems = integrity._check_data(self.fs, self.root, study.to_dict())
        except OSError:
            return
        values = {d.relpath: d for arm in study.arms for d in arm.data}
        for problem in problems:
            if problem.relpath in values:
                try:
                    self._write_atomic(problem.relpath, values[problem.relpath].text.encode())
                except OSError as exc:
                    raise SpecError(f"cannot write to output directory {self.display!r}: {exc}") from None

    def _refresh_report_part(self, study: StudySpec) -> None:
        """A resumed study whose file changed only what changes no row (its description, questions or
        report options): study.json takes the new ones, so the report answers what the file asks."""
        manifest = self.read_manifest()
        fresh = study.to_dict()
        keys = REPORT_ONLY + ("stop",)  # a new [stop] target changes which games are still to play only
        if all(manifest["study"].get(k) == fresh.get(k) for k in keys):
            return
        for key in keys:
            manifest["study"].pop(key, None)
            if key in fresh:
                manifest["study"][key] = fresh[key]
        try:
            self._write_atomic(MANIFEST, integrity.manifest_bytes(manifest))
        except OSError as exc:
            raise SpecError(f"cannot write to output directory {self.display!r}: {exc}") from None

    def update_manifest(self, study: StudySpec, searches: dict | None = None, stopped: dict | None = None) -> None:
        """Rewrite study.json for the same study grown by a search's arms (their own plans) and,
        with ``searches``, the searches' progress: what it proposed, evaluated and chose
        (pipelines/search.py). The fingerprint covers neither, so it stays. The caller holds the lock."""
        manifest = self.read_manifest()
        if manifest is None or manifest.get("fingerprint") != study.fingerprint():
            raise SpecError(f"{self.display}/{MANIFEST} does not hold study {study.name!r} any more")
        manifest["study"] = study.to_dict()
        for arm in study.arms:
            info = get_game(arm.game)
            manifest.setdefault("games", {})[arm.game] = game_entry(info)
        if searches is not None:
            manifest["searches"] = searches
        if stopped is not None:  # why and when a [stop] study stopped (pipelines/stopping.py)
            manifest["stopped"] = stopped
        try:
            self._write_atomic(MANIFEST, integrity.manifest_bytes(manifest))
        except OSError as exc:
            raise SpecError(f"cannot write to output directory {self.display!r}: {exc}") from None

    def create_root(self) -> None:
        try:
            self.fs.create_dir(self.root, recursive=True)
        except OSError as exc:
            raise SpecError(f"cannot create output directory {self.display!r}: {exc}") from None

    def read_file(self, relpath: str) -> bytes:
        """A file of the dataset (a data input's copy), by its path relative to the directory."""
        if relpath.startswith("/") or ".." in relpath.split("/"):
            raise SpecError(f"{relpath!r} is not a path inside the dataset")
        try:
            return integrity.read_bounded(self.fs, self.path(relpath), integrity.MAX_DATA_BYTES, "data copy")
        except FileNotFoundError:
            raise SpecError(f"dataset {self.display!r} lacks {relpath}") from None
        except ValueError as exc:
            raise SpecError(str(exc)) from None

    def read_study(self) -> StudySpec:
        """The study this directory holds, data files taken from its own copies."""
        from sim.spec import ArmSpec

        manifest = self.read_manifest()
        if manifest is None:
            raise SpecError(f"{self.display!r} holds no {MANIFEST}: not a kaartlab study directory")
        if manifest.get("kaartlab_dataset") != FORMAT:
            raise SpecError(f"{self.display!r} is a dataset of format {manifest.get('kaartlab_dataset')}; "
                            f"this kaartlab reads format {FORMAT}")
        data = manifest["study"]
        try:
            from sim.search import Extent, SearchSpec

            arms = tuple(ArmSpec.from_dict(a, read=self.read_file) for a in data["arms"])
            searches = tuple(SearchSpec.from_dict(d, read=self.read_file) for d in data.get("search") or ())
            extents = tuple(e for e in (Extent.from_arm_dict(a) for a in data["arms"]) if e is not None)
            study = StudySpec(data["name"], data["seed"], data["games"], data["batch_size"], arms,
                              searches=searches, extents=extents).with_report_part(data)
        except SpecError as exc:
            raise SpecError(f"{self.display}/{MANIFEST}: {exc}") from None
        except (KeyError, TypeError, AttributeError, ValueError) as exc:
            raise SpecError(f"{self.display}/{MANIFEST} does not describe a study ({type(exc).__name__}: "
                            f"{exc}): the directory is damaged") from None
        if "stop" not in data and study.fingerprint() != manifest.get("fingerprint"):  # [stop]: games left out
            raise SpecError(self.damaged(f"names fingerprint {manifest.get('fingerprint')!r}, its own study "
                                         f"has {study.fingerprint()!r}"))
        self.integrity(hashes=False)  # its description against what the batch files say (unsealed ones)
        return study

    def integrity(self, hashes: bool = True, deep: bool = False) -> integrity.Integrity:
        """Every batch file checked against its record and the plan (pipelines/integrity.py)."""
        manifest = self.read_manifest()
        if manifest is None:
            raise SpecError(f"{self.display!r} holds no {MANIFEST}: not a kaartlab study directory")
        try:
            return integrity.check(self.fs, self.root, manifest, deep=deep, hashes=hashes)
        except integrity.DamagedManifest as exc:
            raise SpecError(self.damaged(str(exc))) from None
        except (KeyError, TypeError, ValueError) as exc:
            raise SpecError(f"{self.display}/{MANIFEST} lacks the study's plan ({exc}): the "
                            "directory is damaged") from None

    def done(self) -> set[str]:
        """Relative paths of verified batch files (see integrity)."""
        return self.integrity().good

    def clean(self, state: integrity.Integrity) -> None:
        """Remove what a resumed run replaces: temporary files of killed writers, and bad batch
        files with their records. Only the lock holder calls this."""
        for rel in state.temporary:
            self._delete(rel)
        for problem in state.bad:
            self._delete(integrity.record_relpath(problem.relpath))
            self._delete(problem.relpath)

    def remove_temporary(self) -> int:
        """Remove temporary files of batch writes (killed workers leave them); the lock holder
        calls this when no task of its run can still be writing. Returns how many."""
        selector = pafs.FileSelector(self.root, recursive=True, allow_not_found=True)
        found = [i.path for i in self.fs.get_file_info(selector)
                 if i.type == pafs.FileType.File and ".tmp-" in i.base_name and i.base_name.startswith("batch-")]
        for path in found:
            try:
                self.fs.delete_file(path)
            except FileNotFoundError:
                pass
        return len(found)

    def _delete(self, relpath: str) -> None:
        try:
            self.fs.delete_file(self.path(relpath))
        except FileNotFoundError:
            pass

    def write_batch(self, relpath: str, table: pa.Table, record: dict | None = None) -> int:
        """Write a batch under a temporary name and rename it into place, then its record (row
        count, size and SHA-256 of the very bytes written) the same way; returns its bytes. A batch
        counts as done only when its record and its bytes agree."""
        self.fs.create_dir(self.path(relpath.rsplit("/", 1)[0]), recursive=True)
        sink = pa.BufferOutputStream()
        pq.write_table(table, sink, **PARQUET_OPTIONS, column_encoding=delta_columns(table.schema))
        data = sink.getvalue().to_pybytes()
        # No record is deleted first: a late duplicate of this task (a retry whose first attempt
        # still ran, a task of a driver that died) then only replaces the file with the same bytes
        # and the record with an equal one, and a duplicate killed half-way leaves a valid pair.
        # A bad batch's record is removed before it is redone (clean), under the lock.
        self._write_atomic(relpath, data)
        if record is not None:
            record = {**record, **integrity.make_record(
                record["arm"], record["index"], record["start"], record["count"], data,
                table.num_rows, record["fingerprint"], record.get("run"))}
            self._write_atomic(integrity.record_relpath(relpath),
                               json.dumps(record, indent=1).encode())
        return len(data)

    def _write_atomic(self, relpath: str, data: bytes) -> None:
        tmp = self.path(f"{relpath}.tmp-{uuid.uuid4().hex}")
        with self.fs.open_output_stream(tmp) as f:
            f.write(data)
        self.fs.move(tmp, self.path(relpath))


def delta_columns(schema: pa.Schema) -> dict[str, str]:
    """Parquet column paths to delta-pack: integer list items, and 32- and 64-bit integers."""
    paths = {}
    for field in schema:
        if pa.types.is_list(field.type):
            if pa.types.is_integer(field.type.value_type):
                paths[f"{field.name}.list.element"] = "DELTA_BINARY_PACKED"
        elif pa.types.is_integer(field.type) and field.type.bit_width >= 32:
            paths[field.name] = "DELTA_BINARY_PACKED"
    return paths


def game_entry(info) -> dict:
    """study.json's `games.<game>`: the version, what the score counts and, for a game with luck
    measures, their columns (the report reads the dataset, not the registry)."""
    return {"version": info.version, **info.score.to_dict()} | ({"luck": list(info.luck)} if info.luck else {})


def manifest_for(study: StudySpec, command: str = "") -> dict:
    games = {}
    for arm in study.arms:
        info = get_game(arm.game)
        games[arm.game] = game_entry(info)
    return {"kaartlab_dataset": FORMAT, "fingerprint": study.fingerprint(),
            "study": study.to_dict(), "games": games, "provenance": provenance(command),
            "integrity": integrity.INTEGRITY}


def provenance(command: str = "") -> dict:
    packages = {}
    for name in ("kaartlab", "numba", "numpy", "pyarrow", "polars", "ray", "scipy", "optuna"):
        try:
            packages[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            packages[name] = None
    return {"kaartlab": packages.pop("kaartlab"), "git": git_commit(), "python": platform.python_version(),
            "platform": platform.platform(), "packages": packages,
            "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "command": command or " ".join(sys.argv)}
