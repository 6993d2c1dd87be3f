"""Does a game's driver compile to the same LLVM IR with Numba's inliner copies as without them?

    python -m benchmarks.inline_identity GAME [--policy SEATS] [--players N]

kernels/inline_copies.py stops Numba's inliner from deep-copying the fresh IR of every inlined
body. This compiles the table's driver twice, each time in a fresh interpreter with an empty
NUMBA_CACHE_DIR: once as patched and once with Numba's copies put back, and compares the LLVM IR
of the entry point (every helper is linked into it). Both run with PYTHONHASHSEED=0: some of
Numba's lowering orders follow the iteration order of sets of names, so two compiles of the same
code in processes with different hash seeds may order two reference-count calls differently.
The variables' versions and blocks' labels come from process-wide counters and are compared as
equal. Exit 0 when the IR is the same; worth running after a Numba upgrade (tests/
test_inline_copies.py checks a small function on every test run).
"""
from __future__ import annotations

import argparse
import copy
import difflib
import importlib
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
COUNTERS = ((r"B\d+v\d+", "B#v#"), (r"\bB\d+", "B#"), (r"_v\d+_", "_v#_"),
            (r"\[\d+ x i8\]", "[# x i8]"), (r" +;", " ;"))


def without_counters(llvm: str) -> str:
    """LLVM IR with the numbers Numba takes from process-wide counters made equal."""
    for pattern, same in COUNTERS:
        llvm = re.sub(pattern, same, llvm)
    return llvm


def driver_llvm(game_name: str, players: int | None, policy: str | None, copying: bool) -> str:
    """The entry point's LLVM IR after one call of the table's driver in this process."""
    import kernels.jit  # noqa: F401 (installs kernels/inline_copies.py)
    from numba.core import inline_closurecall

    from sim.registry import get_game
    from sim.spec import ArmSpec

    if copying:
        inline_closurecall.copy = copy
    game = get_game(game_name)
    arm = ArmSpec.make(game_name, players or game.min_players, None,
                       policy or game.policies[0].name)
    game.runner().run_kernel(arm, 0, 0, 1)
    entry = importlib.import_module(f"kernels.{game_name}.play_nb").play_games_nb
    return without_counters("\n".join(entry.inspect_llvm(sig) for sig in entry.signatures))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.inline_identity",
        description="Compile a table's driver with and without Numba's inliner copies (fresh "
                    "interpreters, empty caches) and compare the LLVM IR.")
    parser.add_argument("game")
    parser.add_argument("--policy", help="seats as `kaartlab run --policy` takes them")
    parser.add_argument("--players", type=int, help="seats (default: the game's fewest)")
    parser.add_argument("--child", choices=("copying", "patched"), help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    if args.child:
        Path(args.out).write_text(driver_llvm(args.game, args.players, args.policy,
                                              args.child == "copying"))
        return 0
    texts = {}
    with tempfile.TemporaryDirectory(prefix="kaartlab-inline-identity-") as work:
        for mode in ("copying", "patched"):
            out = Path(work) / f"{mode}.ll"
            command = [sys.executable, "-m", "benchmarks.inline_identity", args.game,
                       "--child", mode, "--out", str(out)]
            if args.policy:
                command += ["--policy", args.policy]
            if args.players:
                command += ["--players", str(args.players)]
            env = {**os.environ, "NUMBA_CACHE_DIR": str(Path(work) / f"cache-{mode}"),
                   "PYTHONHASHSEED": "0"}
            done = subprocess.run(command, cwd=ROOT, env=env)
            if done.returncode != 0:
                return done.returncode
            texts[mode] = out.read_text()
    same = texts["copying"] == texts["patched"]
    print(f"{args.game} ({args.policy or 'default players'}): LLVM IR of the driver, "
          f"{len(texts['patched']):,} characters: {'the same' if same else 'DIFFERENT'}")
    if not same:
        diff = difflib.unified_diff(texts["copying"].splitlines(), texts["patched"].splitlines(),
                                    "with Numba's copies", "without", lineterm="", n=1)
        for line in list(diff)[:40]:
            print(line)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
