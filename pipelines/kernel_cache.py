"""Compile once per cluster: the driver's compiled kernels, shipped to Ray nodes that lack them.

Each node has its own Numba cache (a clone of its own, or its own NUMBA_CACHE_DIR), so without this
every new node compiled every kernel again before its first batch. The driver, which has just
compiled or loaded the study's kernels (`warm_up`), collects the cache entries it used: per cached
entry point, its module and name, its source stamp, Numba's index key (signature, the target
machine's codegen magic tuple, bytecode hashes) and the data file's bytes. The small list goes with
every worker task; the bytes go once into Ray's object store, wrapped in a list so that a task's
arguments do not fetch them. A worker (once per process) asks its own cache whether each entry
loads; only when one does not does it fetch the bytes (once per node from the object store) and
write them where its own locator looks (its own path, its own index), then loads as usual.

Nothing is written when the worker's code, Numba or Python differ from the driver's (another stamp
or version), nor on another CPU (another magic tuple: Numba's own lookup would miss): that worker
compiles, as before. Any failure here is a note, never a failed batch: the worst case is a compile.
Numba internals used: Dispatcher._cache, Cache._index_key, IndexDataCacheFile's index helpers."""
from __future__ import annotations

import contextlib
import importlib
import os
import sys
import time
import types
import uuid
from dataclasses import dataclass, field

SHIP_ENV = "KAARTLAB_SHIP_KERNELS"  # "0": never ship (each node compiles for itself)


@dataclass(frozen=True)
class Entry:
    module: str
    qualname: str
    stamp: object  # the driver's source stamp of the function (kernels/: the tree's content hash)
    key: tuple  # Numba's index key: (signature, codegen magic tuple, bytecode hashes)
    size: int


@dataclass(frozen=True)
class Shipment:
    id: str
    versions: tuple  # (numba, python): another one here means another cache format
    entries: tuple
    blobs: list = field(default_factory=list)  # [ObjectRef of the data bytes, one per entry], nested


def enabled() -> bool:
    return os.environ.get(SHIP_ENV, "1") != "0"


def _versions() -> tuple:
    import numba

    return numba.__version__, sys.version_info[:2], getattr(sys, "abiflags", "")


def _cached_dispatchers():
    """Every on-disk-cached Numba entry point this process has loaded or compiled."""
    from numba.core.registry import CPUDispatcher

    seen = set()
    for name, module in list(sys.modules.items()):
        if not isinstance(module, types.ModuleType):
            continue
        for value in list(vars(module).values()):
            if isinstance(value, CPUDispatcher) and id(value) not in seen and value.overloads \
                    and type(value._cache).__name__ == "FunctionCache" and value.py_func.__module__ == name:
                seen.add(id(value))
                yield value


def collect() -> tuple[list[Entry], list[bytes]]:
    """The cache entries of what this process has loaded: (entries, their data files' bytes)."""
    entries, blobs = [], []
    for dispatcher in _cached_dispatchers():
        cache = dispatcher._cache
        files = cache._cache_file
        try:
            index = files._load_index()
            codegen = dispatcher.targetctx.codegen()
            stamp = cache._impl.locator.get_source_stamp()
        except Exception:  # noqa: BLE001 - an unreadable cache is not shipped, nothing more
            continue
        for sig in list(dispatcher.overloads):
            key = cache._index_key(sig, codegen)
            name = index.get(key)
            if name is None:
                continue
            try:
                with open(files._data_path(name), "rb") as f:
                    data = f.read()
            except OSError:
                continue
            entries.append(Entry(dispatcher.py_func.__module__, dispatcher.py_func.__qualname__, stamp, key,
                                 len(data)))
            blobs.append(data)
    return entries, blobs


def prepare() -> Shipment | None:
    """In the driver, on a joined cluster, after warm_up: the shipment for the workers (None when
    shipping is off or nothing is cached)."""
    if not enabled():
        return None
    import ray

    entries, blobs = collect()
    if not entries:
        return None
    return Shipment(uuid.uuid4().hex[:12], _versions(), tuple(entries), [ray.put(blobs)])


_installed: dict[str, dict] = {}  # shipment id -> what this worker process did with it


def _dispatcher(entry: Entry):
    value = importlib.import_module(entry.module)
    for part in entry.qualname.split("."):
        value = getattr(value, part)
    return value


def ensure(shipment: Shipment | None) -> dict | None:
    """In a worker, before it loads the kernels: place the shipped entries its own cache lacks.
    Once per process and shipment; returns a note of what was done (see _install)."""
    if shipment is None:
        return None
    if shipment.id not in _installed:
        began = time.perf_counter()
        try:
            note = _install(shipment)
        except Exception as exc:  # noqa: BLE001 - never a failed batch: the kernels then compile
            note = {"placed": 0, "bytes": 0, "skipped": f"{type(exc).__name__}: {exc}"[:200]}
        note["seconds"] = time.perf_counter() - began
        _installed[shipment.id] = note
    return _installed[shipment.id]


def _install(shipment: Shipment) -> dict:
    note = {"placed": 0, "bytes": 0, "skipped": None}
    if tuple(shipment.versions) != _versions():
        note["skipped"] = f"other Numba or Python here ({_versions()} vs {shipment.versions})"
        return note
    needed = []
    for i, entry in enumerate(shipment.entries):
        dispatcher = _dispatcher(entry)
        cache = dispatcher._cache
        if cache._impl.locator.get_source_stamp() != entry.stamp:
            note["skipped"] = "other kernel code here"
            continue
        if dispatcher.targetctx.codegen().magic_tuple() != entry.key[1]:
            note["skipped"] = "other CPU here"
            continue
        files = cache._cache_file
        name = files._load_index().get(entry.key)
        if name is None or not os.path.exists(files._data_path(name)):
            needed.append((i, entry, cache))
    if not needed:
        return note
    import ray

    blobs = ray.get(shipment.blobs[0])
    for i, entry, cache in needed:
        files = cache._cache_file
        cache._impl.locator.ensure_cache_path()
        with _locked(cache._cache_path):  # workers of one node placing at once
            index = files._load_index()  # {} when absent or stale: then only what is placed here
            name = index.get(entry.key)
            if name is None or not os.path.exists(files._data_path(name)):
                taken = set(index.values())
                name = next(files._data_name(n) for n in range(1, 1 << 20) if files._data_name(n) not in taken)
                with files._open_for_write(files._data_path(name)) as f:
                    f.write(blobs[i])
                index[entry.key] = name
                files._save_index(index)
                note["placed"] += 1
                note["bytes"] += len(blobs[i])
    return note


@contextlib.contextmanager
def _locked(directory: str):
    import fcntl

    with open(os.path.join(directory, ".kaartlab-ship.lock"), "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def compiled_here(shipment: Shipment | None) -> int:
    """How many of the shipment's entry points this process compiled instead of loading (Numba's
    cache misses): 0 after a placed shipment on a node with the driver's CPU."""
    if shipment is None:
        return 0
    total = 0
    for entry in {(e.module, e.qualname): e for e in shipment.entries}.values():
        with contextlib.suppress(Exception):
            total += sum(_dispatcher(entry).stats.cache_misses.values())
    return total
