"""Where a game's kernel spends its time, per jitted function (a tool for speed work, not a figure).

    python -m benchmarks.profile_kernel knutten cautious [--games N] [--calls] [--annotate FN]

Plays N games of the benchmark arm under `perf record -e cpu-clock` (Debian's linux-perf; a
software clock, so no hardware counters are needed) and attributes the samples to the functions
of that compile of `kernels/<game>/play_nb.play_games_nb`, whose addresses the profiled process
writes out. The kernel is compiled afresh (no on-disk cache), so allow its compile time.

Helpers jitted with `kernels.jit.inline` are folded into their callers and show no share of their
own; `--calls` compiles them as ordinary calls to see them apart (a slightly different program:
read the shares, not the speed). `--annotate play_round_nb` also disassembles that function
(objdump over its machine code, copied out of the profiled process) and prints its hottest
instructions with their share and the code around them.
"""
from __future__ import annotations

import argparse
import bisect
import collections
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _short(symbol: str) -> str:
    """Numba's `_ZN7kernels7knutten8table_nb7draw_nbB3v33B56...` -> `knutten.table_nb.draw_nb`."""
    rest, names = symbol[len("_ZN"):], []
    while rest[:1].isdigit():
        length = re.match(r"\d+", rest)
        end = length.end() + int(length.group())
        names.append(rest[length.end():end])
        rest = rest[end:]
    return ".".join(names[1:]) or symbol


def child(game: str, policy: str, games: int, addresses: str, calls: bool) -> None:
    """Runs inside perf: compile without the cache, write function addresses and machine code
    (hex, up to the next function or 64 KiB), play the games."""
    import ctypes

    sys.path.insert(0, str(ROOT))
    import numba

    if calls:
        import kernels.jit as jit

        jit.inline = jit.njit  # before any kernel module is imported
    from benchmarks.suite import bench_arm, kernel_call

    entry = __import__(f"kernels.{game}.play_nb", fromlist=["play_games_nb"]).play_games_nb
    entry._cache = numba.core.caching.NullCache()
    run, _ = kernel_call(game)
    arm = bench_arm(game, policy)
    run(arm, 10)  # compile
    library = entry.overloads[entry.signatures[0]].library
    found = {}
    for name in re.findall(r"^define [^@]*@(\S+?)\(", library.get_llvm_str(), re.M):
        if name.startswith("_ZN7kernels"):
            pointer = library.get_pointer_to_function(name)
            if pointer:
                found[_short(name)] = pointer
    starts = sorted(found.values())
    maps = [tuple(int(x, 16) for x in line.split()[0].split("-"))
            for line in Path("/proc/self/maps").read_text().splitlines()]
    code = {}
    for name, pointer in found.items():
        i = starts.index(pointer)
        end = min(pointer + 65536, starts[i + 1] if i + 1 < len(starts) else pointer + 65536,
                  next((hi for lo, hi in maps if lo <= pointer < hi), pointer))
        code[name] = ctypes.string_at(pointer, end - pointer).hex()
    Path(addresses).write_text(json.dumps({"addresses": found, "code": code}))
    run(arm, games)


def attribute(addresses: dict[str, int], ips: list[int]) -> tuple[collections.Counter, int]:
    """Samples per function: an address belongs to the nearest function starting at or below it
    (within 64 KiB); samples elsewhere (Python, compiling) are not the kernel's."""
    starts = sorted((address, name) for name, address in addresses.items())
    keys = [a for a, _ in starts]
    shares = collections.Counter()
    for ip in ips:
        i = bisect.bisect_right(keys, ip) - 1
        if i >= 0 and ip - keys[i] < 65536:
            shares[starts[i][1]] += 1
    return shares, len(ips)


def disassemble(code: bytes, address: int) -> list[tuple[int, str]]:
    """(address, instruction) of x86-64 machine code copied from `address` (objdump, Intel syntax)."""
    with tempfile.NamedTemporaryFile(suffix=".bin") as f:
        f.write(code)
        f.flush()
        listing = subprocess.run(["objdump", "-D", "-b", "binary", "-m", "i386:x86-64",
                                  "-M", "intel", f"--adjust-vma={address:#x}", f.name],
                                 capture_output=True, text=True, check=True).stdout
    rows = []
    for line in listing.splitlines():
        m = re.match(r"\s*([0-9a-f]+):\s+(?:[0-9a-f]{2} )+\s*(.*)", line)
        if m and m.group(2).strip():  # (a long instruction's bytes wrap onto a second line)
            rows.append((int(m.group(1), 16), m.group(2).strip()))
    return rows


def annotate(name: str, address: int, code: bytes, ips: list[int], lines: int = 40) -> str:
    """The function's hottest instructions, each with its share of the function's samples and
    the instructions just before it (objdump's disassembly of the copied machine code)."""
    if shutil.which("objdump") is None:
        return "annotate: needs objdump (binutils)"
    rows = disassemble(code, address)
    keys = [a for a, _ in rows]
    hits = collections.Counter()
    for ip in ips:
        i = bisect.bisect_right(keys, ip) - 1
        if 0 <= i and address <= ip < address + len(code):
            hits[i] += 1
    total = max(1, sum(hits.values()))
    out = [f"{name}: {sum(hits.values()):,} samples, {len(rows):,} instructions; hottest first "
           "(a sample lands on the instruction after the one that stalled)"]
    shown = set()
    for i, count in hits.most_common(lines):
        if i in shown:
            continue
        out.append("")
        for j in range(max(0, i - 3), min(len(rows), i + 2)):
            shown.add(j)
            share = f"{100 * hits[j] / total:5.1f} %" if hits[j] else "       "
            out.append(f"  {share}  {rows[j][0]:#x}  {rows[j][1]}")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.profile_kernel",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("game")
    parser.add_argument("policy")
    parser.add_argument("--games", type=int, default=500_000, help="games to play (default 500,000)")
    parser.add_argument("--calls", action="store_true",
                        help="compile `inline` helpers as calls, to see their shares apart")
    parser.add_argument("--annotate", metavar="FN",
                        help="also print the hottest instructions of this function (e.g. play_round_nb)")
    parser.add_argument("--child", metavar="ADDRESSES", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child(args.game, args.policy, args.games, args.child, args.calls)
        return 0
    if shutil.which("perf") is None:
        print("profile_kernel: needs `perf` (Debian: apt-get install linux-perf)", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="kaartlab-profile-") as tmp:
        data, addresses = os.path.join(tmp, "perf.data"), os.path.join(tmp, "addresses.json")
        command = [sys.executable, "-m", "benchmarks.profile_kernel", args.game, args.policy,
                   "--games", str(args.games), "--child", addresses] + (["--calls"] if args.calls else [])
        subprocess.run(["perf", "record", "-q", "-e", "cpu-clock", "-F", "5000", "-o", data, "--"]
                       + command, cwd=ROOT, check=True)
        script = subprocess.run(["perf", "script", "-i", data, "-F", "ip"], capture_output=True,
                                text=True, check=True).stdout
        found = json.loads(Path(addresses).read_text())
        ips = [int(x, 16) for x in script.split()]
        shares, total = attribute(found["addresses"], ips)
    in_kernel = sum(shares.values())
    print(f"{args.game}/{args.policy}, {args.games:,} games: {in_kernel:,} of {total:,} samples in "
          f"the kernel ({'inline helpers as calls' if args.calls else 'as compiled'})")
    for name, count in shares.most_common():
        print(f"  {100 * count / max(in_kernel, 1):5.1f} %  {name}")
    if args.annotate:
        matches = [n for n in found["addresses"] if n.split(".")[-1] == args.annotate or n == args.annotate]
        if not matches:
            print(f"profile_kernel: no function {args.annotate!r} in this compile", file=sys.stderr)
            return 2
        for name in matches:
            print()
            print(annotate(name, found["addresses"][name], bytes.fromhex(found["code"][name]), ips))
    return 0


if __name__ == "__main__":
    sys.exit(main())
