"""Wippen's Numba kernel against a plain C reference: identical games, card plays per CPU second.

    python -m benchmarks.wippen_c_reference [--rounds 7] [--identity-games 300] [--json FILE]

Issue 31 asks for Wippen at >= 1.0x its C reference in card plays per second, greedy and random.
The reference is benchmarks/wippen_c/wippen_ref.c: a C11 port (no dependencies) of the kernel's
game loop (kernels/wippen/play_nb.py) for the `random` and `greedy` players, with the same random
streams, the same move lists in the same order and the same choices, so it plays exactly the games
the kernel plays. This script

1. compiles it with `gcc -O3 -march=native -std=c11` into a temporary directory (the command and
   gcc's version are printed);
2. checks identity: for 2..6 players with every seat greedy or every seat random, a mixed table
   (random,greedy,random,greedy) and a few arms with other rules, it plays the same games
   (--identity-games, same seed) with the Numba kernel and with the C binary and compares turns,
   rounds, winner_mask and score per seat (the binary's `rows` mode), and then every other field
   of the kernel's output record (its `full` mode: decks, removed, the points by source, captures,
   builds, raises, double builds, takeovers, wips, cards taken, position points). The first
   differing game of an arm is printed and the script exits with status 1;
3. times both on 4 players at the default rules, every seat greedy, then every seat random,
   alternating in one run: in each of --rounds rounds, a batch of games with the Numba kernel
   (CPU time of the calling thread, time.thread_time around the call, after a warm-up call so
   that loading or compiling is excluded; the project's on-disk Numba cache is used, as
   `benchmarks/wippen_kernel.py --use-cache`), then the same games with the C binary in its
   `time` mode, which reports the process's CPU time (CLOCK_PROCESS_CPUTIME_ID) around the play
   alone (process start and argument parsing excluded; nothing is subtracted on either side).
   Both count the card plays (the `turns` of the games) and must agree on them. Reported per
   round: card plays per CPU second of each and their ratio numba/C; then the median over rounds
   of each rate and of the per-round ratio. A ratio >= 1.0 means the kernel is at least as fast.

Both are single-threaded and CPU time is measured, so a machine shared with other work changes
the figures less than wall time would (caches and frequency are still shared).
"""
from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

C_SOURCE = ROOT / "benchmarks" / "wippen_c" / "wippen_ref.c"
CFLAGS = ["-O3", "-march=native", "-std=c11"]
POLICY_IDS = {"random": 0, "greedy": 1}  # kernels/wippen/enums.P_RANDOM, P_GREEDY

# the fields of the C binary's `full` lines after its five scalars, each one value per seat
# (the kernel's OUT_DTYPE field names, in the order wippen_ref.c's print_full writes them)
SCALARS = ("winner_mask", "turns", "rounds", "decks", "removed")
SEAT_FIELDS = ("score", "points_cards", "points_spades", "points_diamond_ten", "points_spade_two",
               "points_aces", "points_wips", "captures", "builds", "raises", "double_builds",
               "takeovers", "wips", "cards_taken", "position_points")

# identity arms beyond every-seat greedy/random at 2..6 players: (players, policies, rules)
EXTRA_ARMS = (
    (4, "random,greedy,random,greedy", {}),
    (4, "random", {"build_instead_of_capture": False, "raise_double": True}),
    (3, "random", {"raise_double": True, "deals": 3, "points_wip": 3, "points_most_cards": 1}),
    (5, "greedy,random,greedy,random,random", {"decks": 1, "target": 30, "points_ace": 2}),
    (6, "greedy", {"decks": 1, "points_most_spades": 5, "points_diamond_ten": 0}),
)


# ---------------------------------------------------------------- the C side
def compile_reference(directory: Path, cc: str) -> tuple[Path, str]:
    """(the binary, the compiler's version line)."""
    binary = directory / "wippen_ref"
    cmd = [cc, *CFLAGS, "-o", str(binary), str(C_SOURCE)]
    version = subprocess.run([cc, "--version"], capture_output=True, text=True,
                             check=True).stdout.splitlines()[0]
    print(f"compiling: {' '.join(cmd)}\n  ({version})")
    subprocess.run(cmd, check=True)
    return binary, version


def run_c(binary: Path, mode: str, seed: int, first: int, count: int, arm: Arm,
          repeats: int = 1) -> str:
    cmd = [str(binary), mode, str(seed), str(first), str(count), str(arm.players),
           ",".join(str(p) for p in arm.policy_ids), ",".join(str(int(v)) for v in arm.rule_i)]
    if mode == "time":
        cmd.append(str(repeats))
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited {done.returncode}: {done.stderr.strip()}")
    return done.stdout


def c_records(binary: Path, seed: int, first: int, count: int, arm: Arm) -> dict[str, np.ndarray]:
    """The C binary's games as the kernel's fields: {field: int64[count] or int64[count, n]}."""
    n = arm.players
    lines = run_c(binary, "full", seed, first, count, arm).splitlines()
    rows = np.array([line.split() for line in lines], dtype=np.int64)
    rows = rows.reshape(count, len(SCALARS) + n * len(SEAT_FIELDS))
    fields = {name: rows[:, k] for k, name in enumerate(SCALARS)}
    for k, name in enumerate(SEAT_FIELDS):
        start = len(SCALARS) + k * n
        fields[name] = rows[:, start:start + n]
    return fields


def c_rows(binary: Path, seed: int, first: int, count: int, arm: Arm) -> np.ndarray:
    """The `rows` mode: int64[count, 3 + n] of turns, rounds, winner_mask, score per seat."""
    return np.array([line.split() for line in run_c(binary, "rows", seed, first, count, arm)
                     .splitlines()], dtype=np.int64).reshape(count, 3 + arm.players)


def c_time(binary: Path, seed: int, first: int, count: int, arm: Arm) -> tuple[float, int]:
    """(CPU seconds of the play, card plays) of one run of the `time` mode."""
    cpu = plays = None
    for line in run_c(binary, "time", seed, first, count, arm).splitlines():
        words = line.split()
        if words[0] == "repeat":
            cpu = float(words[words.index("cpu_s") + 1])
            plays = int(words[words.index("card_plays") + 1])
    if cpu is None:
        raise RuntimeError("the C binary reported no timing")
    return cpu, plays


# ---------------------------------------------------------------- the Numba side
class Arm:
    """An arm's kernel inputs (from the game's own runner, as benchmarks/wippen_kernel.py) and
    what the C binary needs of them."""

    def __init__(self, players: int, policies: str, rules: dict | None = None):
        from sim.registry import games
        from sim.spec import ArmSpec

        self.players = players
        self.label = f"{players}p {policies}" + (
            " " + ",".join(f"{k}={v}" for k, v in rules.items()) if rules else "")
        spec = ArmSpec.make("wippen", players, dict(rules or {}), policies)
        self.inputs = games()["wippen"].runner().kernel_inputs(spec)
        self.rule_i = self.inputs[0]
        self.policy_ids = [int(p) for p in self.inputs[2]]
        if any(p not in POLICY_IDS.values() for p in self.policy_ids):
            raise ValueError(f"{policies}: the C reference plays random and greedy only")
        if len(self.rule_i) != 11:
            raise ValueError("the C reference plays non-rotating arms only")

    def play(self, seed: int, first: int, count: int) -> np.ndarray:
        from kernels.wippen import enums as e
        from kernels.wippen.play_nb import play_games_nb

        out = np.zeros(count, dtype=e.OUT_DTYPE)
        status, failed, _ = play_games_nb(np.int64(seed), np.int64(first), np.int64(count),
                                          *self.inputs, out, None, False)
        if status != 0:
            raise RuntimeError(f"kernel status {status} at game {failed}")
        return out


# ---------------------------------------------------------------- identity
def first_difference(ref: dict[str, np.ndarray],
                     got: dict[str, np.ndarray]) -> tuple[int, list[str]] | None:
    """(the first game where a field differs, the fields that differ there), or None."""
    first = {}
    for name, want in ref.items():
        diff = want != got[name]
        if diff.ndim > 1:
            diff = diff.any(axis=1)
        rows = np.flatnonzero(diff)
        if rows.size:
            first[name] = int(rows[0])
    if not first:
        return None
    g = min(first.values())
    return g, [name for name, k in first.items() if k == g]


def check_arm(binary: Path, arm: Arm, seed: int, count: int) -> bool:
    out = arm.play(seed, 0, count)
    n = arm.players
    kernel = {name: out[name].astype(np.int64) for name in SCALARS}
    kernel |= {name: out[name][:, :n].astype(np.int64) for name in SEAT_FIELDS}
    # the `rows` mode: turns, rounds, winner_mask, score per seat
    rows = c_rows(binary, seed, 0, count, arm)
    short = {"turns": rows[:, 0], "rounds": rows[:, 1], "winner_mask": rows[:, 2],
             "score": rows[:, 3:]}
    bad = first_difference({k: kernel[k] for k in short}, short)
    what = "rows"
    if bad is None:  # then every field of the record (the `full` mode)
        full = c_records(binary, seed, 0, count, arm)
        bad = first_difference(kernel, full)
        what = "full record"
        short = full
    if bad is None:
        print(f"  {arm.label:<70} identical ({count} games)")
        return True
    g, names = bad
    print(f"  {arm.label:<70} DIFFERENT ({what}): first at game {g} (seed {seed}), "
          f"fields {', '.join(names)}")
    for name in names:
        print(f"      {name}: numba {kernel[name][g].tolist()}  C {short[name][g].tolist()}")
    return False


def identity(binary: Path, seed: int, count: int, max_players: int) -> bool:
    print(f"identity: {count} games per arm, seed {seed}, the kernel's record against the C rows")
    ok = True
    for players in range(2, max_players + 1):
        for policy in ("greedy", "random"):
            ok &= check_arm(binary, Arm(players, policy), seed, count)
    for players, policies, rules in EXTRA_ARMS:
        ok &= check_arm(binary, Arm(players, policies, rules), seed, count)
    return ok


# ---------------------------------------------------------------- timing
def timing(binary: Path, seed: int, rounds: int, batches: dict[str, int],
           players: int) -> list[dict]:
    arms = {policy: Arm(players, policy) for policy in batches}
    for arm in arms.values():  # warm-up (main's first call loaded the kernel already)
        arm.play(seed, 0, 1)
        c_time(binary, seed, 0, 1, arm)
    per_round = {policy: [] for policy in batches}
    print(f"timing: {players} players, default rules, {rounds} rounds; card plays per CPU second")
    print(f"  {'round':>5} {'policy':>7} {'games':>6} {'numba':>12} {'C':>12} {'numba/C':>8}")
    for r in range(rounds):
        for policy, arm in arms.items():
            count = batches[policy]
            first = (r + 1) * count
            c0 = time.thread_time()
            out = arm.play(seed, first, count)
            nb_cpu = time.thread_time() - c0
            nb_plays = int(out["turns"].sum())
            c_cpu, c_plays = c_time(binary, seed, first, count, arm)
            if c_plays != nb_plays:
                raise RuntimeError(f"round {r} {policy}: the kernel played {nb_plays} cards, "
                                   f"C {c_plays}: not the same games")
            row = {"round": r, "games": count, "first": first, "card_plays": nb_plays,
                   "numba_cpu_s": nb_cpu, "c_cpu_s": c_cpu,
                   "numba_plays_per_s": nb_plays / nb_cpu, "c_plays_per_s": c_plays / c_cpu}
            row["ratio"] = row["numba_plays_per_s"] / row["c_plays_per_s"]
            per_round[policy].append(row)
            print(f"  {r:>5} {policy:>7} {count:>6} {row['numba_plays_per_s']:>12,.0f} "
                  f"{row['c_plays_per_s']:>12,.0f} {row['ratio']:>8.3f}")
    results = []
    for policy, rows in per_round.items():
        games = rounds * batches[policy]
        summary = {
            "policy": policy, "players": players, "rounds": rounds,
            "games_per_round": batches[policy],
            "card_plays_per_game": round(sum(x["card_plays"] for x in rows) / games, 1),
            "median_numba_plays_per_cpu_s": round(
                statistics.median(x["numba_plays_per_s"] for x in rows)),
            "median_c_plays_per_cpu_s": round(
                statistics.median(x["c_plays_per_s"] for x in rows)),
            "median_ratio_numba_over_c": round(statistics.median(x["ratio"] for x in rows), 4),
            "min_ratio": round(min(x["ratio"] for x in rows), 4),
            "max_ratio": round(max(x["ratio"] for x in rows), 4),
            "rounds_detail": rows,
        }
        results.append(summary)
    print("summary (medians over rounds):")
    for s in results:
        print(f"  {s['players']}p {s['policy']:>7}: numba {s['median_numba_plays_per_cpu_s']:>11,} "
              f"card plays/CPU s, C {s['median_c_plays_per_cpu_s']:>11,}; numba/C "
              f"{s['median_ratio_numba_over_c']:.3f} "
              f"(rounds {s['min_ratio']:.3f}-{s['max_ratio']:.3f}; "
              f"{s['card_plays_per_game']} plays a game)")
    return results


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.wippen_c_reference",
                                description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--seed", type=int, default=12345,
                   help="study seed of every game (default 12345)")
    p.add_argument("--identity-games", type=int, default=300, metavar="N",
                   help="games per arm in the identity check (default 300)")
    p.add_argument("--max-players", type=int, default=6, choices=range(2, 7), metavar="N",
                   help="identity check for 2..N players (default 6)")
    p.add_argument("--rounds", type=int, default=7, help="timing rounds (default 7)")
    p.add_argument("--greedy-games", type=int, default=3000, metavar="N",
                   help="games per timed greedy batch (default 3000, about 0.7 s for the kernel)")
    p.add_argument("--random-games", type=int, default=2000, metavar="N",
                   help="games per timed random batch (default 2000, about 0.5 s for the kernel)")
    p.add_argument("--players", type=int, default=4, help="players in the timing (default 4)")
    p.add_argument("--skip-identity", action="store_true", help="time only")
    p.add_argument("--skip-timing", action="store_true", help="check identity only")
    p.add_argument("--cc", default=shutil.which("gcc") or "gcc", help="the C compiler (gcc)")
    p.add_argument("--json", help="write the figures to this file")
    args = p.parse_args(argv)

    with tempfile.TemporaryDirectory(prefix="wippen-c-") as tmp:
        binary, version = compile_reference(Path(tmp), args.cc)
        report = {"cc": " ".join([args.cc, *CFLAGS]), "cc_version": version, "seed": args.seed}
        t0 = time.perf_counter()  # the first kernel call: the on-disk cache's load (or a compile)
        Arm(4, "greedy").play(args.seed, 0, 1)
        report["first_kernel_call_s"] = round(time.perf_counter() - t0, 3)
        print(f"first Numba kernel call (cache load, or a compile if the cache is stale): "
              f"{report['first_kernel_call_s']} s")
        if not args.skip_identity:
            ok = identity(binary, args.seed, args.identity_games, args.max_players)
            report["identical"] = ok
            if not ok:
                print("identity check FAILED: the C reference does not play the kernel's games")
                if args.json:
                    Path(args.json).write_text(json.dumps(report, indent=2) + "\n")
                return 1
        if not args.skip_timing:
            report["timing"] = timing(binary, args.seed, args.rounds,
                                      {"greedy": args.greedy_games, "random": args.random_games},
                                      args.players)
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
