"""LLVM's work on a helper done once, in the kernel that runs it, not again at every level.

Numba finishes every jitted function as a code library of its own: it links in the libraries of
the functions it calls, optimises the whole module, and has LLVM generate machine code for all of
it (MCJIT's `finalize_object`), so that Python could call the function. A helper compiled because
a kernel calls it is never run as that machine code: its caller links the helper's module into
its own and optimises and generates machine code for the whole again. So a driver six
dispatchers deep optimised its innermost helpers six times and made their machine code six times;
in a cold Wie Weet Wat search table 22.4 of 27.0 s of module optimisation and 19.3 of 22.9 s of
machine code went to libraries that were only ever linked into their callers.

`install()` leaves a library compiled inside another compile (a helper typed by its caller) as
its functions' LLVM IR, each function already cleaned up by Numba's per-function passes: its
callers link that, and the kernel at the top (a function Python calls, or one cached on disk)
optimises the whole once and makes its machine code, as before. A helper's own optimisation and
machine code are made only if something asks for them:
- Python calls the helper (the tests do): its entry point is an `_OnDemand` stand-in whose first
  call optimises the module, makes the machine code and puts the real entry point in the
  dispatcher, so later calls go straight to it;
- a pointer to one of its functions, or its object code.

The code is not byte for byte what it was: before, a caller linked each helper's module after its
own optimisation and after LLVM's code generation had rewritten it in place (CodeGenPrepare's
address sinking, loop strength reduction); now the kernel optimises its helpers' IR in one pass
pipeline. The games are the same (benchmarks/ab_game.py's check, and the goldens); the speeds are
in docs/benchmarks.md ("Compile time: LLVM once per kernel").

A Numba internal: if a method is not where this expects it, nothing is patched and compiles take
as long as before, never wrong.
"""
import threading
import weakref

_compiling = threading.local()  # .stack: the dispatchers this thread is compiling, innermost last
enabled = True  # False: compiles from here on finish every library at once (for an A/B)


class _OnDemand:
    """A helper's entry point until Python calls it: the first call finishes its library (`make`:
    Numba's own get_executable) and puts the real entry point in the dispatcher (`insert`)."""

    __slots__ = ("_make", "_real", "insert")

    def __init__(self, make):
        self._make = make
        self._real = None
        self.insert = None

    def real(self):
        if self._real is None:
            from numba.core.compiler_lock import global_compiler_lock
            with global_compiler_lock:
                if self._real is None:
                    self._real = self._make()
                    if self.insert is not None:
                        self.insert(self._real)
        return self._real

    def __call__(self, *args, **kws):
        return self.real()(*args, **kws)


def install() -> bool:
    """Patch Numba (once); whether it is patched."""
    try:
        from numba.core import codegen, cpu, dispatcher
        from numba.core.caching import NullCache
        from numba.core.compiler_lock import global_compiler_lock
        jit_library = codegen.JITCodeLibrary
        library = codegen.CPUCodeLibrary
        for owner, name in ((library, "_optimize_final_module"),
                            (library, "_finalize_final_module"),
                            (library, "_finalize_dynamic_globals"),
                            (library, "_verify_declare_only_symbols"),
                            (library, "_get_compiled_object"),
                            (jit_library, "get_pointer_to_function"),
                            (jit_library, "_finalize_specific"),
                            (codegen.JITCPUCodegen, "_add_module"),
                            (cpu.CPUContext, "get_executable"),
                            (dispatcher.Dispatcher, "compile"),
                            (dispatcher.Dispatcher, "add_overload"),
                            (dispatcher.Dispatcher, "_insert")):
            getattr(owner, name)
    except (ImportError, AttributeError):
        return False
    if getattr(cpu.CPUContext.get_executable, "_kaartlab_deferred", False):
        return True

    optimise = library._optimize_final_module
    finish = library._finalize_final_module
    pointer_to = jit_library.get_pointer_to_function
    compiled_object = library._get_compiled_object
    get_executable = cpu.CPUContext.get_executable
    compile_ = dispatcher.Dispatcher.compile
    add_overload = dispatcher.Dispatcher.add_overload

    def complete(lib):
        """What a deferred library skipped: optimising its module and making its machine code."""
        if not getattr(lib, "_kaartlab_pending", False):
            return
        lib._kaartlab_pending = False
        optimise(lib)
        # the object cache's hook finds the library through this (Numba's name-mangled `__library`)
        lib._final_module._CPUCodeLibrary__library = weakref.proxy(lib)
        cleanup = lib._codegen._add_module(lib._final_module)
        if cleanup:
            weakref.finalize(lib, cleanup)
        lib._finalize_specific()

    def _optimize_final_module(self):
        if not getattr(self, "_kaartlab_defer", False):
            optimise(self)

    def _finalize_final_module(self):
        if not getattr(self, "_kaartlab_defer", False):
            return finish(self)
        self._finalize_dynamic_globals()  # scans Numba's checks read before any machine code
        self._verify_declare_only_symbols()
        self._finalized = True
        self._kaartlab_pending = True

    def get_pointer_to_function(self, name):
        self._ensure_finalized()
        complete(self)
        return pointer_to(self, name)

    def _get_compiled_object(self):
        complete(self)
        return compiled_object(self)

    def deferred_get_executable(self, library, fndesc, env):
        stack = getattr(_compiling, "stack", ())
        # a helper typed by its caller; not a kernel cached on disk (its object code is saved now)
        helper = len(stack) > 1 and isinstance(getattr(stack[-1], "_cache", None), NullCache)
        if not (enabled and helper) or library._finalized or not isinstance(library, jit_library):
            return get_executable(self, library, fndesc, env)
        library._kaartlab_defer = True
        library._ensure_finalized()  # its callers' links in, no optimisation, no machine code
        return _OnDemand(lambda: get_executable(self, library, fndesc, env))

    deferred_get_executable._kaartlab_deferred = True

    def compile(self, sig):
        if not hasattr(_compiling, "stack"):
            _compiling.stack = []
        _compiling.stack.append(self)
        try:
            return compile_(self, sig)
        finally:
            _compiling.stack.pop()

    def deferred_add_overload(self, cres):
        entry = cres.entry_point
        if not isinstance(entry, _OnDemand):
            return add_overload(self, cres)
        args = tuple(cres.signature.args)
        codes = [a._code for a in args]
        # not in the C dispatcher yet: a Python call finds no match there, asks compile(), which
        # returns this stand-in, and the C dispatcher calls it
        entry.insert = lambda real: self._insert(codes, real, cres.objectmode)
        self.overloads[args] = cres

    with global_compiler_lock:
        library._optimize_final_module = _optimize_final_module
        library._finalize_final_module = _finalize_final_module
        library._get_compiled_object = _get_compiled_object
        jit_library.get_pointer_to_function = get_pointer_to_function
        cpu.CPUContext.get_executable = deferred_get_executable
        dispatcher.Dispatcher.compile = compile
        dispatcher.Dispatcher.add_overload = deferred_add_overload
    return True
