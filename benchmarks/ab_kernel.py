"""Same-process A/B of the Knutten kernel: this checkout against a git revision (a tool for speed
work, not a figure).

    python -m benchmarks.ab_kernel REF [--policies random,cautious] [--runs 3] [--pairs 41]
                                       [--no-same-games-check]

This machine's speed moves by up to 2x within minutes, so two runs of `kaartlab bench` cannot
tell a 5 % change. Here `kernels/` at REF is copied under another package name and both versions
play the same games in one process, alternating batches of ~20 ms; each pair gives a ratio and
the median of the ratios is the figure (repeat it: one run still moves by ~5 %). First, both
versions play a set of checked arms (2-7 seats, every policy, John on and off, heavy weather)
and their records must be identical: a speed-up must never hide a change of behaviour
(`--no-check` skips this; a difference exits 1). When a change means to play other games (new
random streams, say), `--no-same-games-check` checks instead that the mean turns per game of
every checked arm agree within 4 standard errors. Both versions are compiled afresh (allow a
minute). Either version may have the one-shape driver (play_games_nb(seed, first, count, rule_i,
rule_f, seat_policy, seat_i, seat_f, data, out, trace, checked)) or the older table-record one.
"""
from __future__ import annotations

import argparse
import hashlib
import importlib
import io
import re
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
REF_PACKAGE = "kernels_ref"
BATCH = {"random": 8000, "cautious": 3000, "trap": 800}  # ~20 ms of games each
CHECK_ARMS = [(players, policies, rules)
              for policies in ("random", "cautious", "trap")
              for players in (2, 4, 7)
              for rules in ({"john_knut": False}, {}, {"heavy_weather": True})] + [
    (4, "cautious,random,trap,random", {}),
    (3, "cautious", {"hand_limit": 5, "threshold": 40}),
]


def rewrite_imports(source: str, package: str = REF_PACKAGE) -> str:
    """A kernels/ file's text with its `kernels.` imports pointing at `package` instead."""
    return re.sub(r"\bkernels\.", f"{package}.", source)


def snapshot(ref: str, into: Path) -> None:
    """kernels/ at git revision `ref` as the package REF_PACKAGE under `into`."""
    data = subprocess.run(["git", "-C", str(ROOT), "archive", ref, "kernels"], check=True,
                          capture_output=True).stdout
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        tar.extractall(into, **({"filter": "data"} if hasattr(tarfile, "data_filter") else {}))
    (into / "kernels").rename(into / REF_PACKAGE)
    for path in (into / REF_PACKAGE).rglob("*.py"):
        path.write_text(rewrite_imports(path.read_text()))


def one_shape(package: str) -> bool:
    """Whether that version's driver has the one-shape signature (its enums name RULE_I_ORDER)."""
    return hasattr(importlib.import_module(f"{package}.knutten.enums"), "RULE_I_ORDER")


def records_by_column(package: str) -> bool:
    """Whether that version's kernel writes out[field, game] (since the column-major change) or
    out[game, field]: passing the wrong shape would write out of bounds."""
    source = Path(importlib.import_module(f"{package}.knutten.play_nb").__file__).read_text()
    return "out[i, k]" in source


def player(package: str, arm):
    """A function (start, count, checked) -> (records, bites) for one version: records as
    [field, game] (older drivers) or an OUT_DTYPE array (one-shape drivers)."""
    from sim.registry import get_game

    enums = importlib.import_module(f"{package}.knutten.enums")
    play_nb = importlib.import_module(f"{package}.knutten.play_nb")
    play_games_nb = play_nb.play_games_nb
    if one_shape(package):
        n = arm.players
        args = tuple(get_game("knutten").runner().kernel_inputs(arm))  # this checkout's inputs

        def play(start: int, count: int, checked: bool = False):
            out = np.zeros(count, enums.OUT_DTYPE)
            status, failed, _ = play_games_nb(np.int64(7), np.int64(start), np.int64(count), *args,
                                              out, None, checked)
            if status != 0:
                raise SystemExit(f"{package}: kernel status {status} at game {failed}")
            return out, out["score"][:, :n]
        return play

    # drivers before the one-shape contract (their helpers left sim/ with it)
    from sim.games._batch import policy_ids, rule_array
    from sim.games.knutten import deck_arrays

    cards, designs = deck_arrays(arm)  # the plain deck
    if arm.rule_values["john_knut"]:  # older drivers take John in the deck arrays
        designs = np.vstack([designs, [[enums.K_JOHN, 0, 0, 1]]])
        cards = np.vstack([cards, [[enums.K_JOHN, 0, 0, len(designs) - 1]]])
    table_nb = importlib.import_module(f"{package}.knutten.table_nb")
    table = table_nb.new_table(cards, designs, rule_array(arm, enums.RULE_ORDER), policy_ids(arm))
    by_column = records_by_column(package)

    def play(start: int, count: int, checked: bool = False):
        shape = (enums.O_N, count) if by_column else (count, enums.O_N)
        out = np.zeros(shape, np.int64)
        score = np.zeros((count, arm.players), np.int64)
        status, failed, _ = play_games_nb(np.int64(7), np.int64(start), np.int64(count), table,
                                          checked, out, score)
        if status != 0:
            raise SystemExit(f"{package}: kernel status {status} at game {failed}")
        return (out if by_column else out.T), score
    return play


def turns_of(package: str, records) -> np.ndarray:
    if one_shape(package):
        return records["turns"]
    return records[importlib.import_module(f"{package}.knutten.enums").O_TURNS]


def digest(records: np.ndarray, score: np.ndarray) -> str:
    return hashlib.sha1(np.ascontiguousarray(records).tobytes() + score.tobytes()).hexdigest()[:12]


def same_games(games: int) -> bool:
    from sim.spec import ArmSpec

    same = True
    for players, policies, rules in CHECK_ARMS:
        arm = ArmSpec.make("knutten", players, rules, policies, name="check")
        count = games // 3 if "trap" in policies else games
        hashes = {package: digest(*player(package, arm)(0, count, True))
                  for package in ("kernels", REF_PACKAGE)}
        if len(set(hashes.values())) != 1:
            same = False
            print(f"  DIFFERENT: {players} seats, {policies}, {rules or 'default rules'}: {hashes}")
    print(f"same games in all {len(CHECK_ARMS)} checked arms" if same else "the games differ")
    return same


def same_mean_turns(games: int, limit: float = 4.0) -> bool:
    """The check for versions that play other games: in every checked arm the mean turns per game
    of the two versions agree within `limit` standard errors of their difference."""
    from sim.spec import ArmSpec

    agree = True
    for players, policies, rules in CHECK_ARMS:
        arm = ArmSpec.make("knutten", players, rules, policies, name="check")
        count = games // 3 if "trap" in policies else games
        turns = {package: turns_of(package, player(package, arm)(0, count, True)[0]).astype(float)
                 for package in ("kernels", REF_PACKAGE)}
        a, b = turns["kernels"], turns[REF_PACKAGE]
        z = (a.mean() - b.mean()) / np.sqrt(a.var() / len(a) + b.var() / len(b))
        if abs(z) > limit:
            agree = False
        print(f"  {players} seats, {policies}, {rules or 'default rules'}: mean turns this "
              f"{a.mean():.2f}, ref {b.mean():.2f} (z {z:+.1f})")
    print(f"mean turns agree in all {len(CHECK_ARMS)} checked arms" if agree
          else "the mean turns differ")
    return agree


def median_ratio(new_seconds: list[float], ref_seconds: list[float]) -> float:
    """Median over pairs of ref time / new time: above 1 when this checkout is faster."""
    return statistics.median(r / n for n, r in zip(new_seconds, ref_seconds))


def race(policy: str, pairs: int) -> None:
    from benchmarks.suite import bench_arm

    arm = bench_arm("knutten", policy)
    new, ref = player("kernels", arm), player(REF_PACKAGE, arm)
    new(0, 100), ref(0, 100)  # compiled before any timing
    batch = BATCH.get(policy, 1000)
    new_s, ref_s = [], []
    for pair in range(pairs):
        start = pair * batch
        t0 = time.thread_time()
        new(start, batch)
        t1 = time.thread_time()
        ref(start, batch)
        t2 = time.thread_time()
        new_s.append(t1 - t0)
        ref_s.append(t2 - t1)
    print(f"  {policy:9s} this {batch / statistics.median(new_s):>10,.0f} games/s   ref "
          f"{batch / statistics.median(ref_s):>10,.0f} games/s   this/ref "
          f"{median_ratio(new_s, ref_s):.3f}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.ab_kernel",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("ref", help="git revision to compare against (e.g. HEAD, main~3)")
    parser.add_argument("--policies", default="random,cautious", help="default: random,cautious")
    parser.add_argument("--runs", type=int, default=3, help="A/B runs per policy (default 3)")
    parser.add_argument("--pairs", type=int, default=41, help="batch pairs per run (default 41)")
    parser.add_argument("--check-games", type=int, default=3000,
                        help="games per checked arm (default 3,000; trap a third)")
    parser.add_argument("--no-check", action="store_true", help="skip the same-games check")
    parser.add_argument("--no-same-games-check", action="store_true",
                        help="the versions play other games: check that mean turns agree instead")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    with tempfile.TemporaryDirectory(prefix="kaartlab-ab-") as tmp:
        snapshot(args.ref, Path(tmp))
        sys.path.insert(0, tmp)
        print(f"this checkout against {args.ref} (kernels/ only; sim/ is this checkout's)")
        if not args.no_check:
            check = same_mean_turns if args.no_same_games_check else same_games
            if not check(args.check_games):
                return 1
        for policy in args.policies.split(","):
            for _ in range(args.runs):
                race(policy, args.pairs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
