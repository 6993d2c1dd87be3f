"""How many Numba specialisations a game's kernel compiles, how many of them differ only in a
literal argument, and what a cold compile costs in CPU seconds.

    python -m benchmarks.specialisations GAME [GAME ...] [--typing-only] [--trace] [--search]
                                         [--search-only] [--json]

Numba compiles a helper once per distinct tuple of argument types. A constant passed straight
into a helper (`deal_hands_nb(stock, 0, ...)`), or a variable that holds a constant where it is
passed (`pn = 0` before the first call), is typed `Literal[int](0)`, not `int64`; the helper is
then compiled twice, once for each, and both copies go through LLVM: the game compiles more
code and plays exactly the same games. Such a pair is a *literal duplicate* here.

Each game is compiled in a fresh interpreter with NUMBA_CACHE_DIR pointed at a new temporary
directory, so the compile is cold and the shared cache is left alone. It compiles what `kaartlab
compile` compiles (the driver for a batch without a search seat; with --trace and --search also the
traced one and the searching one, as `kaartlab compile --trace --search`: sim/precompile.py) and
reports the CPU seconds
of that process (all threads; on a loaded machine CPU seconds move much less than wall seconds),
the kernel functions that were specialised, their specialisations and the literal duplicates.

`--typing-only` runs Numba's type inference over the same call graph without lowering anything or
running LLVM: the specialisations are the same (types decide them), at a fraction of the cost.
tests/test_specialisations.py uses it; the CPU seconds it reports are not compile seconds.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


# ------------------------------------------------------------------------ in the child process

def kernel_dispatchers() -> list:
    """Every Numba dispatcher defined in a module under kernels/ (each once, however often it is
    imported elsewhere)."""
    from numba.core.dispatcher import Dispatcher

    found = {}
    for name, module in list(sys.modules.items()):
        if not (name == "kernels" or name.startswith("kernels.")) or module is None:
            continue
        for value in vars(module).values():
            if isinstance(value, Dispatcher) and value.py_func.__module__.startswith("kernels."):
                found[id(value)] = value
    return sorted(found.values(), key=lambda d: (d.py_func.__module__, d.py_func.__name__))


def literal_duplicates(signatures, names) -> list[str]:
    """The groups of signatures (each a tuple of argument types) that become one when their
    literal types are replaced by the types they stand for, each as the arguments that differ
    ("start: Literal[int](0) | int64")."""
    from numba.core import types

    groups: dict[tuple, list] = {}
    for args in signatures:
        groups.setdefault(tuple(types.unliteral(a) for a in args), []).append(args)
    found = []
    for group in groups.values():
        if len(group) > 1:
            differ = [i for i in range(len(group[0])) if len({g[i] for g in group}) > 1]
            found.append(", ".join(
                f"{names[i] if i < len(names) else i}: " + " | ".join(str(g[i]) for g in group)
                for i in differ))
    return found


def census() -> dict:
    """{qualified name: {"specialisations": n, "literal_duplicates": [...]}} for every kernel
    function that was specialised at least once."""
    import inspect

    out = {}
    for disp in kernel_dispatchers():
        signatures = list(disp.overloads)
        if signatures:
            out[f"{disp.py_func.__module__}.{disp.py_func.__name__}"] = {
                "specialisations": len(signatures),
                "literal_duplicates": literal_duplicates(
                    signatures, list(inspect.signature(disp.py_func).parameters)),
            }
    return out


def install_typing_only() -> None:
    """Make every kernels/ dispatcher 'compile' by type inference alone: the untyped passes (with
    Numba's own inlining of `inline` helpers) and the nopython type inference, then a record of the
    signature in place of machine code. Only for a throw-away process: the dispatchers it touches
    cannot run afterwards."""
    from numba.core import sigutils
    from numba.core.compiler import CompilerBase, DefaultPassBuilder
    from numba.core.compiler_machinery import FunctionPass, PassManager, register_pass
    from numba.core.dispatcher import Dispatcher
    from numba.core.typed_passes import NopythonTypeInference
    from numba.core.typing import signature

    class TypedOnly:
        """What a caller's type inference reads from a compiled overload."""

        def __init__(self, sig):
            self.signature = sig
            self.objectmode = False
            self.typing_error = None
            self.entry_point = None  # no machine code

    @register_pass(mutates_CFG=False, analysis_only=True)
    class RecordSignature(FunctionPass):
        _name = "kaartlab_record_signature"

        def __init__(self):
            FunctionPass.__init__(self)

        def run_pass(self, state):
            state.cr = TypedOnly(signature(state.return_type, *state.args))
            return False

    class TypingOnlyCompiler(CompilerBase):
        def define_pipelines(self):
            pm = PassManager("typing only")
            pm.passes.extend(DefaultPassBuilder.define_untyped_pipeline(self.state).passes)
            pm.add_pass(NopythonTypeInference, "nopython frontend")
            pm.add_pass(RecordSignature, "record the signature")
            pm.finalize()
            return [pm]

    real_compile = Dispatcher.compile

    def compile_typing_only(self, sig):
        if not self.py_func.__module__.startswith("kernels."):
            return real_compile(self, sig)
        args, return_type = sigutils.normalize_signature(sig)
        if tuple(args) not in self.overloads:
            self._compiler.pipeline_class = TypingOnlyCompiler
            self.overloads[tuple(args)] = self._compiler._compile_core(args, return_type)
        return None

    Dispatcher.compile = compile_typing_only


def compile_for_census(name: str, typing_only: bool, trace: bool = False,
                       search: bool = False, search_only: bool = False) -> dict:
    """Compile game `name` as `kaartlab compile` does (or type it only); the census and CPU time.
    `search_only`: only the driver for a table with a search seat, as its first batch compiles it."""
    import time

    import numpy as np

    from sim.precompile import compile_game
    from sim.registry import get_game
    from sim.spec import ArmSpec

    game = get_game(name)
    runner = game.runner()
    start = time.process_time()
    if typing_only:
        install_typing_only()
        import importlib

        enums = importlib.import_module(f"kernels.{name}.enums")
        driver = importlib.import_module(f"kernels.{name}.play_nb").play_games_nb
        arms = [] if search_only else [ArmSpec.make(name, game.min_players, None,
                                                    game.policies[0].name)]
        if (search or search_only) and runner.search_policy:
            arms.append(ArmSpec.make(name, game.min_players, None, runner.search_policy))
        traces = [None] + ([np.zeros((2, enums.TRACE_WIDTH), np.int32)] if trace else [])
        out = np.zeros(1, dtype=enums.OUT_DTYPE)
        for k, arm in enumerate(arms):  # the specialisations `kaartlab compile` makes
            inputs = runner.kernel_inputs(arm)
            for t in traces if k == 0 else [None]:
                driver.compile(tuple(driver.typeof_pyval(v) for v in
                                     (np.int64(0), np.int64(0), np.int64(1), *inputs, out, t,
                                      t is not None)))
    elif search_only:
        runner.run_kernel(ArmSpec.make(name, game.min_players, None, runner.search_policy), 0, 0, 1)
    else:
        compile_game(name, trace, search)
    cpu = time.process_time() - start
    functions = census()
    return {
        "game": name,
        "typing_only": typing_only,
        "trace": trace,
        "search": search,
        "search_only": search_only,
        "cpu_seconds": round(cpu, 1),
        "functions": len(functions),
        "specialisations": sum(f["specialisations"] for f in functions.values()),
        "literal_duplicates": {k: f["literal_duplicates"] for k, f in functions.items()
                               if f["literal_duplicates"]},
        "detail": functions,
    }


# ------------------------------------------------------------------------ the parent

def measure(name: str, typing_only: bool = False, trace: bool = False,
            search: bool = False, search_only: bool = False) -> dict:
    """Run compile_for_census in a fresh interpreter with a fresh Numba cache directory."""
    with tempfile.TemporaryDirectory(prefix="kaartlab-cold-") as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        cmd = [sys.executable, "-m", "benchmarks.specialisations", "--child", name]
        cmd += [flag for flag, on in (("--typing-only", typing_only), ("--trace", trace),
                                      ("--search", search), ("--search-only", search_only)) if on]
        done = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{name}: the compile failed:\n{done.stderr[-4000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.specialisations",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("games", nargs="+")
    parser.add_argument("--typing-only", action="store_true",
                        help="type inference only: the specialisations, not the compile's cost")
    parser.add_argument("--trace", action="store_true", help="also the traced driver")
    parser.add_argument("--search", action="store_true",
                        help="also the driver for a table with a search seat")
    parser.add_argument("--search-only", action="store_true",
                        help="only the driver for a table with a search seat (its first batch)")
    parser.add_argument("--json", action="store_true", help="one JSON object per game")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    if args.child:
        print(json.dumps(compile_for_census(args.games[0], args.typing_only, args.trace,
                                             args.search, args.search_only)))
        return 0
    for name in args.games:
        result = measure(name, args.typing_only, args.trace, args.search, args.search_only)
        if args.json:
            print(json.dumps(result), flush=True)
            continue
        what = "typing only" if args.typing_only else "cold compile"
        print(f"{name}: {what} {result['cpu_seconds']:.1f} CPU-s, {result['specialisations']} "
              f"specialisations of {result['functions']} functions, "
              f"{len(result['literal_duplicates'])} compiled for a literal and its type alike",
              flush=True)
        for func, groups in result["literal_duplicates"].items():
            for group in groups:
                print(f"  {func}: {group}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
