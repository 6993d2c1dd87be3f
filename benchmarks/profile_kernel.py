"""Where a game's kernel spends its time, per jitted function (a tool for speed work, not a figure).

    python -m benchmarks.profile_kernel knutten cautious [--games N] [--calls]

Plays N games of the benchmark arm under `perf record -e cpu-clock` (Debian's linux-perf; a
software clock, so no hardware counters are needed) and attributes the samples to the functions
of that compile of `kernels/<game>/play_nb.play_games_nb`, whose addresses the profiled process
writes out. The kernel is compiled afresh (no on-disk cache), so allow its compile time.

Helpers jitted with `kernels.jit.inline` are folded into their callers and show no share of their
own; `--calls` compiles them as ordinary calls to see them apart (a slightly different program:
read the shares, not the speed).
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
    """Runs inside perf: compile without the cache, write function addresses, play the games."""
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
    Path(addresses).write_text(json.dumps(found))
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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.profile_kernel",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("game")
    parser.add_argument("policy")
    parser.add_argument("--games", type=int, default=500_000, help="games to play (default 500,000)")
    parser.add_argument("--calls", action="store_true",
                        help="compile `inline` helpers as calls, to see their shares apart")
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
        shares, total = attribute(json.loads(Path(addresses).read_text()),
                                  [int(x, 16) for x in script.split()])
    in_kernel = sum(shares.values())
    print(f"{args.game}/{args.policy}, {args.games:,} games: {in_kernel:,} of {total:,} samples in "
          f"the kernel ({'inline helpers as calls' if args.calls else 'as compiled'})")
    for name, count in shares.most_common():
        print(f"  {100 * count / max(in_kernel, 1):5.1f} %  {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
