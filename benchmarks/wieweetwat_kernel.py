"""Wie Weet Wat kernel speed: full games and categories read per second on one core, per policy.

    python benchmarks/wieweetwat_kernel.py [--players 4] [--repeats 5] [--policies random,spoiler]
    python benchmarks/wieweetwat_kernel.py --ab REF [--runs 3] [--pairs 41] [--policies random]

For each policy every seat plays it, full games to three rounds with the default rules, letter mix
and category list. The first call is timed apart (compile time: by default Numba's cache points at
a fresh temporary directory, so this is a real compile; --use-cache loads the project's on-disk
cache instead), then the median of `repeats` timed batches after it is reported. The kernel is
called through the runner's `bench_call` (the kernel alone: no Arrow table, no files), as the
pipeline's hot loop. Reported per wall-clock second and per CPU second of the calling thread (the
kernel is single-threaded; on a shared machine the CPU figure is the steadier one).

`--ab REF` compares this checkout's kernel with `kernels/` at git revision REF in one process
(benchmarks/ab_kernel.py's snapshot: the old code under another package name): first both play
the CHECK_ARMS below in checked mode and their records must be identical (a speed-up must never
hide a change of behaviour; `--no-same-games-check` compares mean turns per game within 4 standard
errors instead, for a change that means to play other games), then they alternate batches of
~20 ms and the median of the per-pair CPU-time ratios is printed (above 1: this checkout is
faster).
"""
from __future__ import annotations

import hashlib
import importlib
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.kernel_timing import fresh_cache, parser, time_batches, write_json  # noqa: E402
from benchmarks.ab_game import known_inputs  # noqa: E402

BATCH = 5_000  # games per timed batch: roughly 0.2-0.5 s on one core
AB_BATCH = 400  # games per A/B batch: ~20 ms
MIXED = ("random,spoiler,widest,random:joker_use=keep_for_counter,spoiler:shed=hardest,"
         "widest:target=random")
# (players, policies, rules): every seat count, policy and player setting, the rules that switch
# code paths on or off, and a deck heavy with action cards
CHECK_ARMS = [(players, MIXED.split(",", players)[:players], {}) for players in (3, 4, 5, 6)] + [
    (4, ["random"] * 4, {}),
    (4, ["spoiler"] * 4, {}),
    (4, ["widest:counter=leader_only:target=fewest_cards"] * 4, {"reader_after_wrong": "winner"}),
    (3, ["random:counter=never:error_rate=0.3", "spoiler:joker_patience=0", "widest"],
     {"counter_attacks": False, "tie_window": 1.0}),
    (5, ["random:vocabulary=0.25:speed=0.5"] * 5, {"time_limit": 5.0, "hand_size": 10}),
    (4, ["random:speed=4"] * 4, {"wie_weet_wat_cards": 8, "follow_time": 30.0}),
    (6, ["spoiler:shed=hardest"] * 6, {f"action_{a}": 10 for a in (
        "grote_kans", "vicieuze_cirkel", "rotonde", "verkiezingspartij", "verloren_geluk",
        "te_veel_keuze", "pechvogel")} | {"grote_kans_cards": 8, "circle_pool": 1.0}),
]


def bench(players: int, policy: str, repeats: int) -> dict:
    from sim.registry import games
    from sim.spec import ArmSpec

    arm = ArmSpec.make("wieweetwat", players, {}, policy)
    runner = games()["wieweetwat"].runner()
    inputs = runner.kernel_inputs(arm)

    def run(start: int, count: int) -> int:
        out, _ = runner.run_kernel(arm, 12345, start, count, inputs=inputs)
        return int(out["categories"].sum())

    return {"players": players, "policy": policy,
            **time_batches("wieweetwat", run, BATCH, repeats, unit="categories")}


# ------------------------------------------------------------------------------ A/B

def player(package: str, arm):
    """A function (first, count, checked) -> records playing `arm` with the kernel of `package`."""
    from sim.registry import games

    runner = games()["wieweetwat"].runner()
    enums = importlib.import_module(f"{package}.wieweetwat.enums")
    inputs = known_inputs(enums, runner.kernel_inputs(arm))
    play_games_nb = importlib.import_module(f"{package}.wieweetwat.play_nb").play_games_nb
    dtype = enums.OUT_DTYPE

    def play(first: int, count: int, checked: bool = False):
        out = np.zeros(count, dtype)
        status, failed, _ = play_games_nb(np.int64(7), np.int64(first), np.int64(count), *inputs,
                                          out, None, checked)
        if status != 0:
            raise SystemExit(f"{package}: kernel status {status} at game {failed}")
        return out
    return play


def check_arms():
    from sim.spec import ArmSpec

    return [ArmSpec.make("wieweetwat", players, rules, list(policies), name="check")
            for players, policies, rules in CHECK_ARMS]


def same_games(games: int, ref: str) -> bool:
    same = True
    for arm in check_arms():
        digests = {package: hashlib.sha1(player(package, arm)(0, games, True).tobytes()).hexdigest()
                   for package in ("kernels", ref)}
        if len(set(digests.values())) != 1:
            same = False
            print(f"  DIFFERENT: {arm.players} seats, {arm.seats}: {digests}")
    print(f"identical records in all {len(CHECK_ARMS)} checked arms ({games:,} games each)" if same
          else "the games differ")
    return same


def same_mean_turns(games: int, ref: str, limit: float = 4.0) -> bool:
    agree = True
    for arm in check_arms():
        a, b = (player(package, arm)(0, games, True)["turns"].astype(float)
                for package in ("kernels", ref))
        z = (a.mean() - b.mean()) / np.sqrt(a.var() / len(a) + b.var() / len(b))
        agree &= abs(z) <= limit
        print(f"  {arm.players} seats: mean turns this {a.mean():.2f}, ref {b.mean():.2f} (z {z:+.1f})")
    return agree


def race(policy: str, pairs: int, ref: str) -> float:
    from sim.spec import ArmSpec

    arm = ArmSpec.make("wieweetwat", 4, {}, policy)
    new, old = player("kernels", arm), player(ref, arm)
    new(0, 50), old(0, 50)  # compiled before any timing
    new_s, ref_s = [], []
    for pair in range(pairs):
        first = pair * AB_BATCH
        t0 = time.thread_time()
        new(first, AB_BATCH)
        t1 = time.thread_time()
        old(first, AB_BATCH)
        t2 = time.thread_time()
        new_s.append(t1 - t0)
        ref_s.append(t2 - t1)
    ratio = statistics.median(r / n for n, r in zip(new_s, ref_s))
    print(f"  {policy:8s} this {AB_BATCH / statistics.median(new_s):>8,.0f} games/s   ref "
          f"{AB_BATCH / statistics.median(ref_s):>8,.0f} games/s   this/ref {ratio:.3f}")
    return ratio


def ab(args) -> int:
    from benchmarks.ab_kernel import REF_PACKAGE, snapshot

    with tempfile.TemporaryDirectory(prefix="kaartlab-ab-") as tmp:
        snapshot(args.ab, Path(tmp))
        sys.path.insert(0, tmp)
        print(f"this checkout against {args.ab} (kernels/ only; sim/ is this checkout's)")
        if not args.no_check:
            check = same_mean_turns if args.no_same_games_check else same_games
            if not check(args.check_games, REF_PACKAGE):
                return 1
        for policy in args.policies.split(","):
            for _ in range(args.runs):
                race(policy, args.pairs, REF_PACKAGE)
    return 0


def main(argv=None) -> int:
    options = parser(__doc__, "random,spoiler")
    options.add_argument("--ab", metavar="REF", help="A/B against kernels/ at this git revision")
    options.add_argument("--runs", type=int, default=3, help="--ab: runs per policy (default 3)")
    options.add_argument("--pairs", type=int, default=41, help="--ab: batch pairs per run (default 41)")
    options.add_argument("--check-games", type=int, default=2000,
                         help="--ab: games per checked arm (default 2,000)")
    options.add_argument("--no-check", action="store_true", help="--ab: skip the same-games check")
    options.add_argument("--no-same-games-check", action="store_true",
                         help="--ab: the versions play other games: check that mean turns agree")
    args = options.parse_args(argv)
    fresh_cache("wieweetwat", args.use_cache)
    if args.ab:
        return ab(args)
    results = [bench(args.players, p, args.repeats) for p in args.policies.split(",")]
    for r in results:
        print(f"wieweetwat {r['players']}p {r['policy']:>8}: {r['games_per_s']:>7} games/s, "
              f"{r['categories_per_s']:>9} categories/s wall; {r['cpu_games_per_s']:>7} games/s, "
              f"{r['cpu_categories_per_s']:>9} categories/s per CPU second "
              f"({r['categories_per_game']} categories a game; median of {r['repeats']} x "
              f"{r['games']}; first call {r['first_call_s']} s)")
    write_json(results, args.json)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
