"""Instructions and branch mispredictions per turn of a game's kernel, counted by valgrind's
callgrind (a tool for speed work, not a figure).

    python -m benchmarks.count_kernel knutten cautious [--games 3000] [--top 12]

This VM has no hardware counters (perf sees only a software clock), so what a turn costs in
instructions is counted instead: callgrind's instruction and branch counts are exact, its branch
predictor is a simple model (2-bit counters) that overstates what a real CPU mispredicts but
points at the same data-dependent branches (docs/benchmarks.md has what it found).

Valgrind's virtual CPU has no AVX-512, and compiling under valgrind takes many minutes: the
kernel is compiled natively for a Haswell target into a temporary Numba cache, then loaded from
that cache in the process valgrind runs. The code counted is close to, not the same as, what
`kaartlab bench` times. Prints the totals, the branches that mispredict most and the hottest
straight runs of code, disassembled (objdump). About two minutes.
"""
from __future__ import annotations

import argparse
import ctypes
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EVENTS = ("Ir", "Bc", "Bcm")  # instructions, conditional branches, their mispredictions
HASWELL = {"NUMBA_CPU_NAME": "haswell",
           "NUMBA_CPU_FEATURES": "+64bit,+cmov,+cx8,+cx16,+sse,+sse2,+sse3,+ssse3,+sse4.1,+sse4.2,"
                                 "+popcnt,+avx,+avx2,+bmi,+bmi2,+lzcnt,+fma,+movbe,+f16c"}


def child(game: str, policy: str, games: int, out: str) -> None:
    """Runs natively (to fill the cache) and then under valgrind: play the games, and write the
    kernel's code (the mapping that holds its entry point) and how many games and turns it played."""
    sys.path.insert(0, str(ROOT))
    import numpy as np

    from benchmarks.suite import bench_arm, kernel_call

    entry = __import__(f"kernels.{game}.play_nb", fromlist=["play_games_nb"]).play_games_nb
    run, _ = kernel_call(game)
    arm = bench_arm(game, policy)
    warm = run(arm, 1)
    cres = entry.overloads[entry.signatures[0]]
    start = cres.library.get_pointer_to_function(cres.fndesc.llvm_func_name)
    for line in Path("/proc/self/maps").read_text().splitlines():
        lo, hi = (int(x, 16) for x in line.split()[0].split("-"))
        if lo <= start < hi:
            break
    else:
        raise SystemExit(f"count_kernel: no mapping holds the kernel's entry point {start:#x}")
    played = run(arm, games)
    turns = None
    if game == "knutten":  # _run returns the OUT_DTYPE records first
        turns = int(np.sum(warm[0]["turns"]) + np.sum(played[0]["turns"]))
    Path(out).write_text(json.dumps({"start": lo, "code": ctypes.string_at(lo, hi - lo).hex(),
                                     "games": games + 1, "turns": turns}))


def parse_callgrind(text: str, lo: int, hi: int) -> dict[int, list[int]]:
    """Self cost per instruction address in [lo, hi) of a callgrind file written with
    --dump-instr=yes --dump-line=no (addresses may be relative: +n, -n, * for the same; the
    cost line after a `calls=` line is the callee's inclusive cost and is skipped)."""
    names = next(line.split()[1:] for line in text.splitlines() if line.startswith("events:"))
    columns = [names.index(e) for e in EVENTS]
    costs: dict[int, list[int]] = {}
    last, after_call = 0, False
    for line in text.splitlines():
        if line.startswith("calls="):
            after_call = True
            continue
        m = re.match(r"(0x[0-9a-fA-F]+|[+-]\d+|\*)((?:\s+\d+)*)\s*$", line)
        if not m:
            continue
        pos = m.group(1)
        last = int(pos, 16) if pos.startswith("0x") else last if pos == "*" else last + int(pos)
        if after_call:
            after_call = False
            continue
        if lo <= last < hi:
            values = [int(v) for v in m.group(2).split()]
            row = costs.setdefault(last, [0] * len(EVENTS))
            for k, column in enumerate(columns):
                row[k] += values[column] if column < len(values) else 0
    return costs


def hot_runs(rows: list[tuple[int, str]], costs: dict[int, list[int]], per: float,
             floor: float = 0.2) -> list[tuple[float, int, int]]:
    """Straight runs of instructions each executed at least `floor` times per unit: (instructions
    per unit the run executes, index of its first row, its length), the biggest first."""
    runs, first = [], None
    for i, (address, _) in enumerate(rows + [(-1, "")]):
        hot = costs.get(address, [0])[0] / per >= floor
        if hot and first is None:
            first = i
        elif not hot and first is not None:
            runs.append((sum(costs.get(a, [0])[0] for a, _ in rows[first:i]) / per, first, i - first))
            first = None
    return sorted(runs, reverse=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.count_kernel",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("game")
    parser.add_argument("policy")
    parser.add_argument("--games", type=int, default=3000, help="games to count (default 3,000)")
    parser.add_argument("--top", type=int, default=12, help="branches and code runs to show")
    parser.add_argument("--listing", type=int, default=0, metavar="K",
                        help="also list the instructions of the K hottest runs, with their counts")
    parser.add_argument("--child", metavar="OUT", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child(args.game, args.policy, args.games, args.child)
        return 0
    missing = [tool for tool in ("valgrind", "objdump") if shutil.which(tool) is None]
    if missing:
        print(f"count_kernel: needs {' and '.join(missing)}", file=sys.stderr)
        return 2
    from benchmarks.profile_kernel import disassemble

    with tempfile.TemporaryDirectory(prefix="kaartlab-count-") as tmp:
        env = dict(os.environ, NUMBA_CACHE_DIR=os.path.join(tmp, "cache"), **HASWELL)
        me = [sys.executable, "-m", "benchmarks.count_kernel", args.game, args.policy]
        native, counted = os.path.join(tmp, "native.json"), os.path.join(tmp, "counted.json")
        subprocess.run(me + ["--games", "10", "--child", native], cwd=ROOT, env=env, check=True)
        out = os.path.join(tmp, "callgrind.out")
        subprocess.run(["valgrind", "--tool=callgrind", "--branch-sim=yes", "--dump-instr=yes",
                        "--dump-line=no", f"--callgrind-out-file={out}", "-q"]
                       + me + ["--games", str(args.games), "--child", counted],
                       cwd=ROOT, env=env, check=True)
        found = json.loads(Path(counted).read_text())
        code, lo = bytes.fromhex(found["code"]), found["start"]
        costs = parse_callgrind(Path(out).read_text(), lo, lo + len(code))
    unit, per = ("turn", found["turns"]) if found["turns"] else ("game", found["games"])
    totals = [sum(row[k] for row in costs.values()) for k in range(len(EVENTS))]
    print(f"{args.game}/{args.policy}, {found['games']:,} games"
          + (f", {found['turns']:,} turns" if found["turns"] else "") + " (Haswell code, callgrind)")
    print(f"  per {unit}: {totals[0] / per:,.1f} instructions, {totals[1] / per:,.1f} conditional "
          f"branches, {totals[2] / per:,.2f} mispredicted (callgrind's simple predictor)")
    rows = disassemble(code, lo)
    text = dict(rows)
    print(f"\nbranches that mispredict most (per {unit}: mispredicted, executed)")
    for address, row in sorted(costs.items(), key=lambda kv: -kv[1][2])[:args.top]:
        if row[2]:
            print(f"  {row[2] / per:6.3f} {row[0] / per:6.2f}  {address:#x}  {text.get(address, '?')}")
    print(f"\nhottest straight runs of code (instructions per {unit}; first instruction)")
    for amount, first, length in hot_runs(rows, costs, per)[:args.top]:
        address, instruction = rows[first]
        print(f"  {amount:7.1f}  {length:4d} instructions from {address:#x}  {instruction}")
    for amount, first, length in hot_runs(rows, costs, per)[:args.listing]:
        print(f"\nthe run from {rows[first][0]:#x} ({amount:,.1f} instructions per {unit}); "
              f"executed per {unit}, address, instruction")
        for address, instruction in rows[first:first + length]:
            print(f"  {costs.get(address, [0])[0] / per:8.2f}  {address:#x}  {instruction}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
