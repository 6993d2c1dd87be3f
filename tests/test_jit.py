"""The jit wrapper: a cached entry point is keyed on every file of kernels/, not its own only."""
import os
import shutil

from numba.core import caching

import kernels.jit as jit
from kernels.knutten import play_nb


def test_kernel_cache_is_keyed_on_the_whole_kernels_tree():
    locator_cls = caching.CacheImpl._locator_classes[0]
    assert locator_cls.__name__ == "KernelTreeLocator"
    func = play_nb.play_games_nb.py_func
    locator = locator_cls.from_function(func, func.__code__.co_filename)
    assert locator.get_source_stamp() == jit.tree_stamp() == jit.tree_stamp(jit.KERNELS)
    assert locator.get_source_stamp().startswith("sha256:")


def test_the_tree_stamp_follows_every_files_content_not_its_mtime(tmp_path):
    """A copy of kernels/: the stamp changes with any .py file's bytes (a helper's too, not only the
    entry point's file) or a new file, and not with mtimes or the tree's place (another node's clone
    of the same code must load this node's cache)."""
    tree = tmp_path / "a" / "kernels"
    shutil.copytree(jit.KERNELS, tree, ignore=shutil.ignore_patterns("__pycache__"))
    base = jit.tree_stamp(tree)
    other = tmp_path / "b" / "kernels"
    shutil.copytree(tree, other)
    for p in other.rglob("*.py"):
        os.utime(p, ns=(p.stat().st_atime_ns, p.stat().st_mtime_ns + 10**9))
    assert jit.tree_stamp(other) == base
    helper = tree / "knutten" / "rules_nb.py"
    text = helper.read_text()
    helper.write_text(text + "# changed\n")
    assert jit.tree_stamp(tree) != base
    helper.write_text(text)
    assert jit.tree_stamp(tree) == base
    helper.write_text(text.replace("0", "1", 1))  # same size, other bytes; its own mtime: the stamp
    os.utime(helper, ns=(0, 10**9))  # is rehashed per (mtime, size) state, and two writes can share a clock tick
    assert jit.tree_stamp(tree) != base
    helper.write_text(text)
    (tree / "knutten" / "new_nb.py").write_text("")
    assert jit.tree_stamp(tree) != base


def test_code_outside_kernels_keeps_numbas_own_cache_keys():
    locator_cls = caching.CacheImpl._locator_classes[0]
    assert locator_cls.from_function(test_code_outside_kernels_keeps_numbas_own_cache_keys, __file__) is None


def test_entry_points_are_cached_and_helpers_are_not():
    assert play_nb.play_games_nb._cache.__class__.__name__ == "FunctionCache"
    assert play_nb.play_round_nb._cache.__class__.__name__ == "NullCache"
    assert jit.KERNELS.name == "kernels"
