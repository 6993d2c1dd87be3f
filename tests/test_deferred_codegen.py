"""kernels/deferred_codegen.py: a helper compiled inside its caller's compile is neither optimised
on its own nor given machine code until something runs it; the caller's results, and the
helper's when Python calls it, are the same as with every library finished at once."""
from __future__ import annotations

from types import FunctionType

import numba
import numpy as np
from numba.core import cpu

from kernels import deferred_codegen
from kernels.jit import njit


def _inner(x, k):
    return (x * 7 + k) % 1013


def _outer(a, k):
    total = 0
    for i in range(a.shape[0]):
        total += _inner(a[i], k) if a[i] % 2 else -a[i]
    return total


def _driver(a, rounds):
    out = np.zeros(rounds, np.int64)
    for r in range(rounds):
        out[r] = _outer(a, r)
    return out


def _fresh(enabled: bool):
    """A driver -> outer -> inner chain of new dispatchers (none compiled yet), compiled by one
    call of the driver with the deferral on or off; the dispatchers and the driver's result."""
    scope = {"np": np}
    for function in (_inner, _outer, _driver):
        scope[function.__name__] = njit(FunctionType(function.__code__, scope, function.__name__))
    deferred_codegen.enabled = enabled
    try:
        result = scope["_driver"](np.arange(50, dtype=np.int64), 6)
    finally:
        deferred_codegen.enabled = True
    return scope["_driver"], scope["_outer"], scope["_inner"], result


def test_numba_is_patched():
    assert deferred_codegen.install()
    assert getattr(cpu.CPUContext.get_executable, "_kaartlab_deferred", False)


def test_a_helper_gets_machine_code_only_when_python_calls_it():
    driver, outer, inner, result = _fresh(enabled=True)
    expected = np.array([_outer(np.arange(50), r) for r in range(6)])
    np.testing.assert_array_equal(result, expected)
    assert not getattr(driver.overloads[driver.signatures[0]].library, "_kaartlab_pending", False)
    for helper in (outer, inner):
        cres = helper.overloads[helper.signatures[0]]
        assert isinstance(cres.entry_point, deferred_codegen._OnDemand)
        assert cres.library._kaartlab_pending  # no machine code made

    library = inner.overloads[inner.signatures[0]].library
    unoptimised = len(library.get_llvm_str())
    compiles = []
    real = inner._compile_for_args
    inner._compile_for_args = lambda *args, **kws: compiles.append(args) or real(*args, **kws)
    assert inner(10, 3) == _inner(10, 3)  # the first call makes the machine code ...
    assert not library._kaartlab_pending
    assert len(library.get_llvm_str()) < unoptimised  # optimised before its machine code was made
    assert inner(11, 4) == _inner(11, 4)  # ... and puts it in the dispatcher: no second lookup
    assert len(compiles) == 1
    assert outer(np.arange(9, dtype=np.int64), 2) == _outer(np.arange(9), 2)


def test_without_the_deferral_every_helper_gets_machine_code_and_the_same_results():
    _, outer, inner, result = _fresh(enabled=False)
    _, _, _, deferred = _fresh(enabled=True)
    np.testing.assert_array_equal(result, deferred)
    for helper in (outer, inner):
        cres = helper.overloads[helper.signatures[0]]
        assert not isinstance(cres.entry_point, deferred_codegen._OnDemand)
        assert not getattr(cres.library, "_kaartlab_pending", False)


def test_a_helper_raises_from_python_as_before():
    @numba.njit
    def checked(x):
        if x < 0:
            raise ValueError("negative")
        return x

    @numba.njit
    def caller(x):
        return checked(x) + 1

    assert caller(2) == 3
    assert isinstance(checked.overloads[checked.signatures[0]].entry_point,
                      deferred_codegen._OnDemand)
    try:
        checked(-1)
    except ValueError as error:
        assert "negative" in str(error)
    else:
        raise AssertionError("no error")


def test_a_cached_function_compiled_inside_another_gets_its_machine_code_at_once():
    """Its object code goes to the on-disk cache, so it is made whole, as before."""
    scope = {"np": np, "__name__": __name__}
    scope["_inner"] = numba.njit(cache=True)(FunctionType(_inner.__code__, scope, "_inner"))
    scope["_inner"]._cache.flush()  # compiled here, not loaded from an earlier run's cache
    scope["_outer"] = njit(FunctionType(_outer.__code__, scope, "_outer"))
    assert scope["_outer"](np.arange(7, dtype=np.int64), 1) == _outer(np.arange(7), 1)
    inner = scope["_inner"]
    cres = inner.overloads[inner.signatures[0]]
    assert not isinstance(cres.entry_point, deferred_codegen._OnDemand)
    assert not getattr(cres.library, "_kaartlab_pending", False)
