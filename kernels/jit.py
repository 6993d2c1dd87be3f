"""The jit wrappers every kernel uses: nopython, GIL released, and the on-disk cache done right.

`kernel` is for entry points that Python calls (one per game's batch driver, plus test probes):
cached on disk. `njit` is for the helpers they call: not cached by themselves, so an entry point
always compiles them afresh into its own module, where LLVM can inline them (a helper loaded from
the cache is linked by address and every use becomes a real call). `inline` is for the few hot
helpers of a turn loop that LLVM will not inline by itself because they have several call sites
(its threshold cannot be raised through llvmlite): Numba inlines them into every caller.

Numba keys a cached entry point on its own file only; a change to a helper in another file would
leave it stale. The locator below keys every function under kernels/ on the whole kernels tree,
by content (not mtimes), so that a cache compiled on one node also loads on another.

Kernels are branchy integer code over loops of a few cards: LLVM's loop vectoriser turns those
into AVX gathers whose set-up costs more than the loop, so it is off for everything compiled here.
"""
import hashlib
from pathlib import Path

import numba
import numpy as np
from numba.core import caching

from kernels import deferred_codegen, inline_copies

KERNELS = Path(__file__).resolve().parent

numba.config.LOOP_VECTORIZE = 0


_stamps: dict[tuple, str] = {}


def tree_stamp(root: Path = KERNELS) -> str:
    """SHA-256 of every .py file under `root` (relative path and bytes): the same on every clone of
    the same code, so a cache compiled on one node is valid on another (pipelines/kernel_cache.py
    ships it). Content, not mtimes: a clone, copy or checkout sets mtimes to when it wrote the files,
    so a stamp of mtimes differed between nodes with the same code. Hashed once per state of the
    files (their mtimes and sizes; a stat of ~50 files is cheap, hashing them is not free for every
    entry point at import), so an edit while a process runs still invalidates."""
    files = sorted(root.rglob("*.py"))
    state = (str(root),) + tuple((str(p), p.stat().st_mtime_ns, p.stat().st_size) for p in files)
    if state not in _stamps:
        digest = hashlib.sha256()
        for p in files:
            digest.update(str(p.relative_to(root)).encode() + b"\0" + p.read_bytes() + b"\0")
        _stamps[state] = "sha256:" + digest.hexdigest()
    return _stamps[state]


def _install_kernel_tree_locator() -> None:
    """Put the locator below first in Numba's list (a Numba internal: without it, or on a Numba
    that moved it, caching still works but keys each file on itself only)."""
    impl = getattr(caching, "CacheImpl", None)
    classes = getattr(impl, "_locator_classes", None)
    base = caching.UserProvidedCacheLocator if numba.config.CACHE_DIR else getattr(
        caching, "InTreeCacheLocator", None)
    if classes is None or base is None:
        return

    class KernelTreeLocator(base):
        """Numba's usual cache place, invalidated when any file of kernels/ changes."""

        def get_source_stamp(self):
            return tree_stamp()

        @classmethod
        def from_function(cls, py_func, py_file):
            if not Path(py_file).resolve().is_relative_to(KERNELS):
                return None
            return super().from_function(py_func, py_file)

    classes.insert(0, KernelTreeLocator)


_install_kernel_tree_locator()
inline_copies.install()  # inlining without Numba's throw-away copies: the same code, compiled sooner
deferred_codegen.install()  # LLVM optimises a helper and makes its code in the kernel that runs it, once


njit = numba.njit(nogil=True, error_model="numpy")
inline = numba.njit(nogil=True, error_model="numpy", inline="always")
kernel = numba.njit(cache=True, nogil=True, error_model="numpy")
# `borrowing` is `njit` without Numba's reference counting (its NRT off), for helpers that only
# index arrays their caller keeps alive and allocate nothing (allocating fails to compile): there,
# passing an array, or inlining an `inline` helper that takes one, costs no NRT_incref/NRT_decref
# call (each a real call, which forces every live floating-point value out to the stack)
borrowing = numba.njit(nogil=True, error_model="numpy", _nrt=False)


@njit
def ix(i):
    """`i` (known not to be negative) as an unsigned index: Numba wraps every signed index for
    Python's negative indexing (three instructions on the address's dependency chain), but not an
    unsigned one. For the hot loops' indices that LLVM cannot prove non-negative by itself."""
    return np.uint64(i)
