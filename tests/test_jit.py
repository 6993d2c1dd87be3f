"""The jit wrapper: a cached entry point is keyed on every file of kernels/, not its own only."""
from numba.core import caching

import kernels.jit as jit
from kernels.knutten import play_nb


def test_kernel_cache_is_keyed_on_the_whole_kernels_tree():
    locator_cls = caching.CacheImpl._locator_classes[0]
    assert locator_cls.__name__ == "KernelTreeLocator"
    func = play_nb.play_games_nb.py_func
    locator = locator_cls.from_function(func, func.__code__.co_filename)
    files = {name for name, *_ in locator.get_source_stamp()}
    assert {"knutten/rules_nb.py", "knutten/table_nb.py", "rng_nb.py", "jit.py"} <= files


def test_code_outside_kernels_keeps_numbas_own_cache_keys():
    locator_cls = caching.CacheImpl._locator_classes[0]
    assert locator_cls.from_function(test_code_outside_kernels_keeps_numbas_own_cache_keys, __file__) is None


def test_entry_points_are_cached_and_helpers_are_not():
    assert play_nb.play_games_nb._cache.__class__.__name__ == "FunctionCache"
    assert play_nb.play_round_nb._cache.__class__.__name__ == "NullCache"
    assert jit.KERNELS.name == "kernels"
