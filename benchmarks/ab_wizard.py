"""Same-process A/B of the Wizard kernel: this checkout against a git revision (a tool for speed
work, as benchmarks/ab_kernel.py is for Knutten).

    python -m benchmarks.ab_wizard REF [--policies random,heuristic] [--runs 3] [--pairs 41]

`kernels/` at REF is copied under another package name (benchmarks.ab_kernel.snapshot) and both
versions play 4-seat games with the default rules in one process, alternating batches of ~20 ms of
the same game indices; each pair gives a ratio (ref time / this time, above 1 when this checkout is
faster) and the median of the ratios is the figure. Either version may use the driver signature
before or after the one-shape contract (detected by enums.OUT_DTYPE). When the two versions play
different games (a change of streams), the work per game can differ: the mean turns per game of
each is printed, and the per-turn ratio beside the per-game one.
"""
from __future__ import annotations

import argparse
import importlib
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from benchmarks.ab_kernel import REF_PACKAGE, ROOT, median_ratio, snapshot

BATCH = {"random": 4000, "heuristic": 1300, "sampler": 10}  # ~20 ms of games each
POLICY_IDS = {"random": 0, "heuristic": 1, "sampler": 2}  # kernels/wizard/enums.py P_*
SEED = 12345


def player(package: str, policy: str, players: int = 4):
    """A function (start, count) -> turns per game (int array), for one version of the kernel."""
    enums = importlib.import_module(f"{package}.wizard.enums")
    play_nb = importlib.import_module(f"{package}.wizard.play_nb")
    n = players
    policies = np.full(n, POLICY_IDS[policy], dtype=np.int64)
    rules = np.zeros(4, dtype=np.int64)  # rounds, hook_rule, final_no_trump, strict_void: defaults
    if hasattr(enums, "OUT_DTYPE"):  # the one-shape driver
        seat_i = np.zeros((n, len(enums.SEAT_I_ORDER)), np.int64)  # unread by these policies
        extra = (np.zeros(0, np.float64), policies, seat_i, np.zeros((n, 0), np.float64), ())

        def play(start: int, count: int, checked: bool = False):
            out = np.zeros(count, dtype=enums.OUT_DTYPE)
            status, failed, _ = play_nb.play_games_nb(np.int64(SEED), np.int64(start),
                                                      np.int64(count), rules, *extra, out, None,
                                                      checked)
            if status != 0:
                raise SystemExit(f"{package}: kernel status {status} at game {failed}")
            return out["turns"]
        return play

    rounds = 60 // n
    ws_i, ws_h = play_nb.policy_workspace(policies)
    trace = np.zeros((0, enums.TRACE_WIDTH), dtype=np.int32)

    def play_old(start: int, count: int, checked: bool = False):
        out = (np.zeros((count, enums.N_OUT_GAME), np.int32),
               np.zeros((count, n, enums.N_OUT_SEAT), np.int32),
               np.zeros((count, rounds * n), np.int8), np.zeros((count, rounds * n), np.int8),
               np.zeros((count, rounds), np.int8), np.zeros((count, rounds), np.int8))
        status, failed = play_nb.play_games_nb(np.int64(SEED), np.int64(start), np.int64(count),
                                               np.int64(n), rules, policies, checked, trace, *out,
                                               ws_i, ws_h)
        if status != 0:
            raise SystemExit(f"{package}: kernel status {status} at game {failed}")
        return out[0][:, enums.O_TURNS]
    return play_old


def race(policy: str, pairs: int) -> dict:
    new, ref = player("kernels", policy), player(REF_PACKAGE, policy)
    new(0, 50, True), ref(0, 50, True)  # compiled (and checked once) before any timing
    batch = BATCH[policy]
    new_s, ref_s, new_turns, ref_turns = [], [], [], []
    for pair in range(pairs):
        start = pair * batch
        t0 = time.thread_time()
        turns_new = new(start, batch)
        t1 = time.thread_time()
        turns_ref = ref(start, batch)
        t2 = time.thread_time()
        new_s.append(t1 - t0)
        ref_s.append(t2 - t1)
        new_turns.append(float(np.mean(turns_new)))
        ref_turns.append(float(np.mean(turns_ref)))
    per_game = median_ratio(new_s, ref_s)
    turns_this, turns_ref = statistics.fmean(new_turns), statistics.fmean(ref_turns)
    result = {"policy": policy, "batch": batch, "pairs": pairs,
              "this_games_per_s": batch / statistics.median(new_s),
              "ref_games_per_s": batch / statistics.median(ref_s),
              "per_game": per_game, "turns_this": turns_this, "turns_ref": turns_ref,
              "per_turn": per_game * turns_this / turns_ref}
    print(f"  {policy:9s} this {result['this_games_per_s']:>9,.0f} games/s   ref "
          f"{result['ref_games_per_s']:>9,.0f} games/s   this/ref {per_game:.3f} per game, "
          f"{result['per_turn']:.3f} per turn   (mean turns this {turns_this:.2f}, ref {turns_ref:.2f})")
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.ab_wizard",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("ref", help="git revision to compare against (e.g. HEAD, main~3)")
    parser.add_argument("--policies", default="random,heuristic", help="default: random,heuristic")
    parser.add_argument("--runs", type=int, default=3, help="A/B runs per policy (default 3)")
    parser.add_argument("--pairs", type=int, default=41, help="batch pairs per run (default 41)")
    parser.add_argument("--ref-dir", help="keep REF's copy (and its Numba cache) in this directory "
                        "and reuse it when it is there: run twice to time both versions loaded "
                        "from the cache, as pipeline workers run them")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    with tempfile.TemporaryDirectory(prefix="kaartlab-ab-") as tmp:
        where = Path(args.ref_dir) if args.ref_dir else Path(tmp)
        if not (where / REF_PACKAGE).is_dir():
            where.mkdir(parents=True, exist_ok=True)
            snapshot(args.ref, where)
        sys.path.insert(0, str(where))
        print(f"Wizard kernel, 4 seats, default rules: this checkout against {args.ref}")
        for policy in args.policies.split(","):
            for _ in range(args.runs):
                race(policy, args.pairs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
