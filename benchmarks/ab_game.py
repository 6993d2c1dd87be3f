"""Same-process A/B of a one-shape game kernel (Wie is de Heer?, Wippen): this checkout against a
git revision (a tool for speed work, as benchmarks/ab_kernel.py is for Knutten).

    python -m benchmarks.ab_game GAME REF [--policies reasoner] [--runs 3] [--pairs 41]
                                          [--check-games 2000] [--no-check]

`kernels/` at REF is copied under another package name (benchmarks.ab_kernel.snapshot); both
versions take the inputs this checkout's runner makes (sim/ is this checkout's), so the parameter
orders must agree. First both versions play the game's checked arms (CHECK_ARMS: every player
count, every policy, mixed tables, the rules that change the play) in checked mode and their records
must be byte-identical: a speed-up must never hide a change of behaviour (a difference exits 1).
Then, per policy, both play the same 4-seat games in alternating batches of about 20 ms; each pair
gives a ratio (ref time / this time: above 1 when this checkout is faster) and the median of the
ratios is the figure, printed with each version's games per CPU-second of the thread (medians).
"""
from __future__ import annotations

import argparse
import hashlib
import importlib
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from benchmarks.ab_kernel import REF_PACKAGE, ROOT, median_ratio, snapshot

SEED = 12345
HEER_RULES = ({}, {"answers_public": True, "jokers": 4}, {"play_drawn": False, "jokers": 0},
              {"mole_pot_threshold": 120, "last_player_names": False, "joker_moves_up": False})
CHECK_ARMS = {
    "wieisdeheer": [(players, policy, rules)
                    for players in (3, 4, 6)
                    for policy in ("reasoner", "racer", "random", "reasoner,racer,random",
                                   "reasoner:mole_style=naive:sabotage=0.8:rich=8")
                    for rules in HEER_RULES],
    "wippen": [(players, policy, rules)
               for players in (2, 3, 4)
               for policy in ("greedy", "random", "defensive", "builder", "greedy,random,builder,defensive")
               for rules in ({}, {"build_instead_of_capture": False}, {"raise_double": True})],
}
TARGET_SECONDS = 0.02  # one batch of a pair


def known_inputs(enums, inputs):
    """The kernel inputs a version of the kernel knows: one from before a player parameter was
    added takes only the seat_i columns of its SEAT_I_ORDER (new parameters are appended)."""
    width = len(getattr(enums, "SEAT_I_ORDER", ()))
    return inputs._replace(seat_i=np.ascontiguousarray(inputs.seat_i[:, :width]))


def player(package: str, game: str, arm):
    """A function (start, count, checked) -> records for one version of the game's kernel."""
    from sim.registry import get_game

    runner = get_game(game).runner()
    enums = importlib.import_module(f"{package}.{game}.enums")
    driver = importlib.import_module(f"{package}.{game}.play_nb").play_games_nb
    inputs = known_inputs(enums, runner.kernel_inputs(arm))

    def play(start: int, count: int, checked: bool = False):
        out = np.zeros(count, dtype=enums.OUT_DTYPE)
        status, failed, _ = driver(np.int64(SEED), np.int64(start), np.int64(count), *inputs, out,
                                   None, checked)
        if status != 0:
            raise SystemExit(f"{package}: kernel status {status} at game {failed}")
        return out
    return play


def same_games(game: str, games: int) -> bool:
    from sim.spec import ArmSpec

    same = True
    arms = CHECK_ARMS[game]
    for players, policy, rules in arms:
        names = policy.split(",")  # a mixed table: the names in turn round the seats
        arm = ArmSpec.make(game, players, rules, ",".join(names[s % len(names)] for s in range(players)),
                           name="check")
        digests = {package: hashlib.sha1(player(package, game, arm)(0, games, True).tobytes()).hexdigest()[:12]
                   for package in ("kernels", REF_PACKAGE)}
        if len(set(digests.values())) != 1:
            same = False
            print(f"  DIFFERENT: {players} seats, {policy}, {rules or 'default rules'}: {digests}")
    print(f"same games in all {len(arms)} checked arms ({games} games each)" if same
          else "the games differ")
    return same


def race(game: str, policy: str, pairs: int) -> float:
    from benchmarks.suite import bench_arm

    arm = bench_arm(game, policy)
    new, ref = player("kernels", game, arm), player(REF_PACKAGE, game, arm)
    new(0, 10), ref(0, 10)  # compiled before any timing
    t0 = time.thread_time()
    new(0, 200)
    batch = max(10, int(200 * TARGET_SECONDS / max(time.thread_time() - t0, 1e-6)))
    new_s, ref_s = [], []
    for pair in range(pairs):
        start = 1000 + pair * batch
        t0 = time.thread_time()
        new(start, batch)
        t1 = time.thread_time()
        ref(start, batch)
        t2 = time.thread_time()
        new_s.append(t1 - t0)
        ref_s.append(t2 - t1)
    ratio = median_ratio(new_s, ref_s)
    print(f"  {policy:9s} this {batch / statistics.median(new_s):>10,.0f} games/s   ref "
          f"{batch / statistics.median(ref_s):>10,.0f} games/s   this/ref {ratio:.3f}  ({batch} games a batch)")
    return ratio


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.ab_game",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("game", choices=sorted(CHECK_ARMS))
    parser.add_argument("ref", help="git revision to compare against (e.g. HEAD, main)")
    parser.add_argument("--policies", help="default: the game's first policy")
    parser.add_argument("--runs", type=int, default=3, help="A/B runs per policy (default 3)")
    parser.add_argument("--pairs", type=int, default=41, help="batch pairs per run (default 41)")
    parser.add_argument("--check-games", type=int, default=2000, help="games per checked arm")
    parser.add_argument("--no-check", action="store_true",
                        help="skip the same-games check (for a change that means to change the rows)")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    from sim.registry import get_game

    policies = (args.policies or get_game(args.game).policies[0].name).split(",")
    with tempfile.TemporaryDirectory(prefix="kaartlab-ab-") as tmp:
        snapshot(args.ref, Path(tmp))
        sys.path.insert(0, tmp)
        print(f"{args.game}: this checkout against {args.ref} (kernels/ only; sim/ is this checkout's)")
        if not args.no_check and not same_games(args.game, args.check_games):
            return 1
        for policy in policies:
            for _ in range(args.runs):
                race(args.game, policy, args.pairs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
