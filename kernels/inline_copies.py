"""Numba's `inline="always"` without its two defensive copies of every inlined body.

For every call of an `inline` helper, Numba's InlineInlinables pass builds the helper's IR afresh
(the untyped pipeline, which inlines the helper's own `inline` callees first) and then deep-copies
it twice, block by block: once to have a copy to mutate and once to return an untouched one, which
that pass throws away. Each block is copied with a memo of its own, and every variable's copy
copies the whole scope (all the function's variables) again, so a copy costs blocks x variables.
In a driver that inlines a turn loop, this was most of the compile: a cold search table of Wie is
de Heer? spent 61 % of its profiled compile in `copy.deepcopy` under `inline_ir`.

The IR that `InlineWorker.inline_function` hands to `inline_ir` is its own, built a line above and
held by nobody else, so the copies guard nothing there. `install()` makes `copy.deepcopy` in
Numba's inliner module an identity while, and only while, `inline_function` inlines such a fresh
body; every other use of `inline_ir` (Numba's overload inlining) still copies. The inlined IR is
the same, so the compiled code is the same (tests/test_inline_copies.py compares it). Numba's own
issues on this: numba#8989 and numba#9204 (the second copy was removed upstream only in part).

A Numba internal: if the module or method is not where this expects it, nothing is patched and
compiles are as slow as before, never wrong.
"""
import copy
import threading

_fresh = threading.local()  # set while inline_function inlines a body it built itself


class _CopyModule:
    """Stands in for the `copy` module inside numba.core.inline_closurecall."""

    def deepcopy(self, value, memo=None):
        if getattr(_fresh, "on", False):
            return value
        return copy.deepcopy(value, memo)

    def __getattr__(self, name):
        return getattr(copy, name)


def install() -> bool:
    """Patch Numba's inliner (once); whether it is patched."""
    try:
        from numba.core import inline_closurecall as module
        worker = module.InlineWorker
        worker.run_untyped_passes, worker.inline_ir  # noqa: B018 (both must exist)
    except (ImportError, AttributeError):
        return False
    if isinstance(module.copy, _CopyModule):
        return True
    if module.copy is not copy:
        return False

    def inline_function(self, caller_ir, block, i, function, arg_typs=None):
        callee_ir = self.run_untyped_passes(function)  # fresh: nobody else holds it
        _fresh.on = True
        try:
            return self.inline_ir(caller_ir, block, i, callee_ir, function.__code__.co_freevars,
                                  arg_typs=arg_typs)
        finally:
            _fresh.on = False

    module.copy = _CopyModule()
    worker.inline_function = inline_function
    return True
