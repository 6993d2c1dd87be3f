"""Where a table's first compile goes: seconds per kernel function and per compiler pass.

    python -m benchmarks.compile_profile GAME [--policy SEATS] [--players N] [--top K] [--json]

In a fresh interpreter with an empty NUMBA_CACHE_DIR, the table's driver is called once through
the runner (what a study's first batch does) while Numba's compile events are recorded
(`numba.core.event`: one per dispatcher compile, one per compiler pass). A helper's compile runs
inside its caller's type inference, so every figure here is *exclusive*: a function's seconds
leave out the compiles of the functions it calls, and each pass's seconds leave out the compiles
nested in it. The sum of the functions is the compile's whole wall time. The time spent in LLVM
itself (building and optimising modules, all functions) is the time Numba holds its LLVM lock. `nopython-type-inference`
is Numba's front end typing the (inlined) bodies; `native-lowering` includes LLVM's optimisation of
that function's module. Per code library (one per compiled function), the seconds of LLVM's module
passes (Numba's `_optimize_final_module`) and of making machine code (`_finalize_specific`): since
kernels/deferred_codegen.py, only the kernel's own library should show either.

Used for issue 31's goal of 60 s for the first game of any kind (a search table compiles the
driver and the search as one specialisation of their own).
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def profile_compile(game_name: str, players: int | None, policy: str | None) -> dict:
    """Compile the table's driver in this process, recording Numba's compile events; the figures
    as a dict (functions and passes: exclusive seconds)."""
    from numba.core import event

    from sim.registry import get_game
    from sim.spec import ArmSpec

    game = get_game(game_name)
    arm = ArmSpec.make(game_name, players or game.min_players, None,
                       policy or game.policies[0].name)
    runner = game.runner()

    functions: dict[str, float] = defaultdict(float)
    passes: dict[str, float] = defaultdict(float)
    counts: dict[str, int] = defaultdict(int)
    signatures: dict[str, list[list[str]]] = defaultdict(list)
    stack: list[list] = []  # [kind, name, start, seconds spent in nested events of the same kind]

    class Listener(event.Listener):
        def on_start(self, ev):
            if ev.kind == "numba:compile":
                d = ev.data["dispatcher"].py_func
                name = f"{d.__module__.removeprefix('kernels.')}.{d.__name__}"
                signatures[name].append([str(t) for t in ev.data["args"]])
            else:
                name = ev.data["name"]
            stack.append([ev.kind, name, time.perf_counter(), 0.0])

        def on_end(self, ev):
            kind, name, start, nested = stack.pop()
            spent = time.perf_counter() - start
            # charge the parent of the same kind only: a compile's time is not its caller's
            for frame in reversed(stack):
                if frame[0] == kind:
                    frame[3] += spent
                    break
            if kind == "numba:compile":
                functions[name] += spent - nested
                counts[name] += 1
            else:
                passes[name] += spent - nested

    def count_llvm(seconds):
        llvm[0] += seconds

    import kernels.jit  # noqa: F401 (its patches of Numba first: the timers below wrap them)
    from numba.core import codegen

    libraries: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0])
    timed = ((codegen.CPUCodeLibrary, "_optimize_final_module", 0),
             (codegen.JITCodeLibrary, "_finalize_specific", 1))
    for owner, method, column in timed:
        def timer(self, _real=getattr(owner, method), _column=column):
            t = time.perf_counter()
            try:
                return _real(self)
            finally:
                libraries[self.name][_column] += time.perf_counter() - t
        setattr(owner, method, timer)

    listener = Listener()
    llvm = [0.0]
    start = time.perf_counter()
    with event.install_listener("numba:compile", listener), \
            event.install_listener("numba:run_pass", listener), \
            event.install_timer("numba:llvm_lock", count_llvm):
        runner.run_kernel(arm, 0, 0, 1)
    wall = time.perf_counter() - start
    return {"game": game_name, "policies": ",".join(seat.policy for seat in arm.seats),
            "wall": wall, "cpu": time.process_time(), "llvm": llvm[0],
            "functions": dict(functions), "specialisations": dict(counts), "passes": dict(passes),
            "libraries": {name: [round(a, 3), round(b, 3)] for name, (a, b) in libraries.items()
                          if a + b >= 0.005},
            "signatures": {k: v for k, v in signatures.items() if len(v) > 1}}


def print_profile(result: dict, top: int) -> None:
    print(f"{result['game']} ({result['policies']}): first call {result['wall']:.1f} s wall, "
          f"process {result['cpu']:.1f} CPU-s; in LLVM (holding Numba's LLVM lock) "
          f"{result['llvm']:.1f} s")
    total = sum(result["functions"].values())
    print(f"\n  functions, exclusive seconds (sum {total:.1f} s; top {top}):")
    ranked = sorted(result["functions"].items(), key=lambda kv: -kv[1])
    for name, seconds in ranked[:top]:
        n = result["specialisations"][name]
        print(f"  {seconds:7.2f} s  {n:2d}x  {name}")
    for name, seen in result["signatures"].items():
        if name.startswith("numba."):
            continue
        print(f"\n  {name} compiled {len(seen)} times; where the argument types differ:")
        for k, types in enumerate(zip(*seen)):
            if len(set(types)) > 1:
                print(f"    argument {k}: " + " | ".join(types))
        if len({tuple(args) for args in seen}) < len(seen):
            print("    (some with the same types: a compile that was retried)")
    libraries = result.get("libraries", {})
    opt = sum(a for a, _ in libraries.values())
    code = sum(b for _, b in libraries.values())
    print(f"\n  LLVM per code library: module passes {opt:.1f} s, machine code {code:.1f} s "
          f"(top {min(top, 8)}):")
    for name, (a, b) in sorted(libraries.items(), key=lambda kv: -sum(kv[1]))[:min(top, 8)]:
        print(f"  {a:7.2f} s + {b:6.2f} s  {name}")
    print("\n  compiler passes, exclusive seconds:")
    for name, seconds in sorted(result["passes"].items(), key=lambda kv: -kv[1])[:8]:
        print(f"  {seconds:7.2f} s  {name}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.compile_profile",
        description="Seconds per kernel function and compiler pass of a table's first compile "
                    "(empty cache, fresh interpreter; exclusive of nested compiles).")
    parser.add_argument("game")
    parser.add_argument("--policy", help="seats as `kaartlab run --policy` takes them "
                                         "(default: the game's default player)")
    parser.add_argument("--players", type=int, help="seats (default: the game's fewest)")
    parser.add_argument("--top", type=int, default=25, help="functions to list (default 25)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    if args.child:
        result = profile_compile(args.game, args.players, args.policy)
        print(json.dumps(result))
        return 0
    with tempfile.TemporaryDirectory(prefix="kaartlab-compile-profile-") as cache:
        command = [sys.executable, "-m", "benchmarks.compile_profile", args.game, "--child"]
        if args.policy:
            command += ["--policy", args.policy]
        if args.players:
            command += ["--players", str(args.players)]
        env = {**os.environ, "NUMBA_CACHE_DIR": cache}
        done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        sys.stderr.write(done.stderr)
        return done.returncode
    result = json.loads(done.stdout.strip().splitlines()[-1])
    if args.json:
        print(json.dumps(result))
    else:
        print_profile(result, args.top)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
