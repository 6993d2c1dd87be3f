"""Same-process A/B of a game's kernel: this checkout against a git revision (a tool for speed work,
not a figure).

    python -m benchmarks.ab_game GAME REF [--policies P,Q] [--runs 3] [--pairs 41]
                                          [--check-games 2000] [--no-check | --no-same-games-check]

This machine's speed moves by up to 2x within minutes, so two runs of `kaartlab bench` cannot tell
a 5 % change. Here `kernels/` at REF is copied under another package name (`snapshot`) and both
versions play the same games in one process; both take the inputs this checkout's runner makes
(sim/ is this checkout's, so their parameter orders must agree; a kernel from before a player
parameter was added gets only the columns it knows).

First both versions play the game's CHECK_ARMS (every seat count, every fixed policy, mixed tables,
the rules that change the play) in checked mode and their records must be byte-identical: a
speed-up must never hide a change of behaviour (a difference exits 1). For a change that means to
play other games, `--no-same-games-check` checks instead that every checked arm's mean turns per
game agree within 4 standard errors. Then, per policy, both play the same 4-seat games (the
benchmark suite's arm) in alternating batches of about 20 ms; each pair gives a ratio (ref time /
this time: above 1 when this checkout is faster) and the median of the ratios is the figure,
printed with each version's games per CPU-second of the thread (medians). Repeat it: one run still
moves by a few per cent.

A freshly compiled kernel can be laid out differently in memory from one loaded from Numba's cache
and run at another speed: `--ref-dir DIR` keeps REF's copy and its cache, so a second run with the
same DIR times both versions loaded from the cache, as pipeline workers run them.
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
SEED = 12345
TARGET_SECONDS = 0.02  # one batch of a pair
# players' cost against the cheapest, to spread the check's time: an arm with one of them plays
# --check-games divided by the largest factor (at least MIN_CHECK games)
SLOW = {"trap": 3, "sampler": 100, "search": 300}
MIN_CHECK = 20
DATA_LENGTH: dict[str, int] = {}  # per package: its kernel's data tuple, when shorter than ours
HEER_RULES = ({}, {"answers_public": True, "jokers": 4}, {"play_drawn": False, "jokers": 0},
              {"mole_pot_threshold": 120, "last_player_names": False, "joker_moves_up": False})
WWW_MIXED = ("random,spoiler,widest,random:joker_use=keep_for_counter,spoiler:shed=hardest,"
             "widest:target=random").split(",")
WWW_ACTIONS = ("grote_kans", "vicieuze_cirkel", "rotonde", "verkiezingspartij", "verloren_geluk",
               "te_veel_keuze", "pechvogel")
# per game: (players, seats, rules); seats is one player for every seat, or a list used in turn
CHECK_ARMS = {
    "knutten": [(players, policy, rules)
                for policy in ("random", "cautious", "trap")
                for players in (2, 4, 7)
                for rules in ({"john_knut": False}, {}, {"heavy_weather": True})] + [
        (4, "cautious,random,trap,random", {}),
        (3, "cautious", {"hand_limit": 5, "threshold": 40}),
    ],
    "wizard": [(players, policy, rules)
               for players in (3, 4, 6)
               for policy in ("random", "heuristic", "heuristic,random,sampler")
               for rules in ({}, {"hook_rule": True}, {"final_no_trump": True, "strict_void": True})],
    "wieisdeheer": [(players, policy, rules)
                    for players in (3, 4, 6)
                    for policy in ("reasoner", "racer", "random", "reasoner,racer,random",
                                   "reasoner:mole_style=naive:sabotage=0.8:rich=8")
                    for rules in HEER_RULES],
    "wippen": [(players, policy, rules)
               for players in (2, 3, 4)
               for policy in ("greedy", "random", "defensive", "builder",
                              "greedy,random,builder,defensive")
               for rules in ({}, {"build_instead_of_capture": False}, {"raise_double": True})],
    "wieweetwat": [(players, ",".join(WWW_MIXED[:players]), {}) for players in (3, 4, 5, 6)] + [
        (4, "random", {}),
        (4, "spoiler", {}),
        (4, "widest:counter=leader_only:target=fewest_cards", {"reader_after_wrong": "winner"}),
        (3, "random:counter=never:error_rate=0.3,spoiler:joker_patience=0,widest",
         {"counter_attacks": False, "tie_window": 1.0}),
        (5, "random:vocabulary=0.25:speed=0.5", {"time_limit": 5.0, "hand_size": 10}),
        (4, "random:speed=4", {"wie_weet_wat_cards": 8, "follow_time": 30.0}),
        (6, "spoiler:shed=hardest", {f"action_{a}": 10 for a in WWW_ACTIONS}
         | {"grote_kans_cards": 8, "circle_pool": 1.0}),  # a deck heavy with action cards
    ],
}


# ------------------------------------------------------------------------ the two versions

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


def known_inputs(enums, inputs, runner=None, data_length=None):
    """The kernel inputs a version of the kernel knows: one from before a player parameter or a rule
    was added takes only the seat_i columns of its SEAT_I_ORDER and the rule_i / rule_f entries of
    its N_RULES_I / N_RULES_F (new ones are appended); one from before the searching seats were
    passed (enums DATA_SEARCHING) takes `data` without them; given `data_length`, only the first
    entries of the data tuple (data inputs appended since). The same-games check then says whether
    the appended inputs' defaults leave the games as they were."""
    width = len(getattr(enums, "SEAT_I_ORDER", ()))
    inputs = inputs._replace(seat_i=np.ascontiguousarray(inputs.seat_i[:, :width]))
    for field, name in (("rule_i", "N_RULES_I"), ("rule_f", "N_RULES_F")):
        known = getattr(enums, name, None)
        if known is not None and len(getattr(inputs, field)) > known:
            inputs = inputs._replace(**{field: np.ascontiguousarray(getattr(inputs, field)[:known])})
    if runner is not None and runner.search_policy and not getattr(enums, "DATA_SEARCHING", False):
        inputs = inputs._replace(data=inputs.data[:-1])
    if data_length is not None:
        inputs = inputs._replace(data=tuple(inputs.data[:data_length]))
    return inputs


def data_length_expected(error: Exception) -> int | None:
    """The data tuple's length a kernel expects, from Numba's typing error for a longer one (a
    version from before a data input was appended), or None for any other error."""
    found = re.search(r"wrong tuple length for data: .*expected (\d+), got (\d+)", str(error))
    return int(found.group(1)) if found and int(found.group(1)) < int(found.group(2)) else None


def player(package: str, game: str, arm):
    """A function (start, count, checked) -> records for one version of the game's kernel."""
    from sim.registry import get_game
    from sim.stack_room import with_room  # the compile of the first call: sim/stack_room.py

    runner = get_game(game).runner()
    enums = importlib.import_module(f"{package}.{game}.enums")
    driver = importlib.import_module(f"{package}.{game}.play_nb").play_games_nb
    inputs = known_inputs(enums, runner.kernel_inputs(arm), runner, DATA_LENGTH.get(package))

    def play(start: int, count: int, checked: bool = False):
        nonlocal inputs
        out = np.zeros(count, dtype=enums.OUT_DTYPE)
        try:
            status, failed, _ = with_room(driver, np.int64(SEED), np.int64(start),
                                          np.int64(count), *inputs, out, None, checked)
        except Exception as error:  # numba's TypingError: a kernel from before a data input
            length = data_length_expected(error)
            if length is None:
                raise
            DATA_LENGTH[package] = length
            inputs = known_inputs(enums, inputs, data_length=length)
            status, failed, _ = with_room(driver, np.int64(SEED), np.int64(start),
                                          np.int64(count), *inputs, out, None, checked)
        if status != 0:
            raise SystemExit(f"{package}: kernel status {status} at game {failed}")
        return out
    return play


# ------------------------------------------------------------------------ the check

def check_arms(game: str, games: int):
    """(arm, games to play, label) for each of the game's checked arms."""
    from sim.spec import ArmSpec

    for players, policy, rules in CHECK_ARMS[game]:
        names = policy.split(",")  # a mixed table: the names in turn round the seats
        seats = [names[s % len(names)] for s in range(players)]
        slowest = max(SLOW.get(name.split(":")[0], 1) for name in seats)
        arm = ArmSpec.make(game, players, rules, seats, name="check")
        yield arm, max(MIN_CHECK, games // slowest), f"{players} seats, {policy}, {rules or 'default rules'}"


def common_fields(game: str) -> list[str]:
    """The record fields both versions write: a change that adds an output column (a luck measure,
    say) must still play the same games in every column the other version has."""
    ref = importlib.import_module(f"{REF_PACKAGE}.{game}.enums").OUT_DTYPE.names
    return [name for name in importlib.import_module(f"kernels.{game}.enums").OUT_DTYPE.names if name in ref]


def same_games(game: str, games: int) -> bool:
    same = True
    fields = common_fields(game)
    for arm, count, label in check_arms(game, games):
        digests = {package: hashlib.sha1(b"".join(np.ascontiguousarray(player(package, game, arm)(0, count, True)[f])
                                                  .tobytes() for f in fields)).hexdigest()[:12]
                   for package in ("kernels", REF_PACKAGE)}
        if len(set(digests.values())) != 1:
            same = False
            print(f"  DIFFERENT: {label}: {digests}")
    extra = sorted(set(importlib.import_module(f"kernels.{game}.enums").OUT_DTYPE.names) - set(fields))
    print(f"same games in all {len(CHECK_ARMS[game])} checked arms (up to {games:,} games each"
          + (f"; columns only this checkout writes: {', '.join(extra)})" if extra else ")")
          if same else "the games differ")
    return same


def same_mean_turns(game: str, games: int, limit: float = 4.0) -> bool:
    """The check for versions that play other games: in every checked arm the mean turns per game
    of the two versions agree within `limit` standard errors of their difference."""
    agree = True
    for arm, count, label in check_arms(game, games):
        a, b = (player(package, game, arm)(0, count, True)["turns"].astype(float)
                for package in ("kernels", REF_PACKAGE))
        z = (a.mean() - b.mean()) / np.sqrt(a.var() / len(a) + b.var() / len(b) + 1e-300)
        agree &= bool(abs(z) <= limit)
        print(f"  {label}: mean turns this {a.mean():.2f}, ref {b.mean():.2f} (z {z:+.1f})")
    print(f"mean turns agree in all {len(CHECK_ARMS[game])} checked arms" if agree
          else "the mean turns differ")
    return agree


# ------------------------------------------------------------------------ the race

def median_ratio(new_seconds: list[float], ref_seconds: list[float]) -> float:
    """Median over pairs of ref time / new time: above 1 when this checkout is faster."""
    return statistics.median(r / n for n, r in zip(new_seconds, ref_seconds))


def batch_size(play) -> int:
    """Games in about TARGET_SECONDS of this version's play (grown from a few games, so that a slow
    player's probe does not take seconds)."""
    count = 4
    while True:
        t0 = time.thread_time()
        play(0, count)
        spent = time.thread_time() - t0
        if spent >= TARGET_SECONDS / 4 or count >= 1 << 20:
            return max(1, int(count * TARGET_SECONDS / max(spent, 1e-9)))
        count *= 4


def race(game: str, policy: str, pairs: int) -> float:
    from benchmarks.suite import bench_arm

    arm = bench_arm(game, policy)
    new, ref = player("kernels", game, arm), player(REF_PACKAGE, game, arm)
    new(0, 2), ref(0, 2)  # compiled before any timing
    batch = batch_size(new)
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
    parser.add_argument("ref", help="git revision to compare against (e.g. HEAD, main~3)")
    parser.add_argument("--policies", help="default: the game's first policy")
    parser.add_argument("--runs", type=int, default=3, help="A/B runs per policy (default 3)")
    parser.add_argument("--pairs", type=int, default=41, help="batch pairs per run (default 41)")
    parser.add_argument("--check-games", type=int, default=2000,
                        help="games per checked arm (default 2,000; fewer with slow players)")
    parser.add_argument("--ref-dir", help="keep REF's copy (and its Numba cache) in this directory "
                        "and reuse it when it is there: run twice to time both versions loaded "
                        "from the cache, as pipeline workers run them")
    check = parser.add_mutually_exclusive_group()
    check.add_argument("--no-check", action="store_true", help="skip the same-games check")
    check.add_argument("--no-same-games-check", action="store_true",
                       help="the versions play other games: check that mean turns agree instead")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    from sim.registry import get_game

    policies = (args.policies or get_game(args.game).policies[0].name).split(",")
    with tempfile.TemporaryDirectory(prefix="kaartlab-ab-") as tmp:
        where = Path(args.ref_dir or tmp)
        if not (where / REF_PACKAGE).is_dir():
            where.mkdir(parents=True, exist_ok=True)
            snapshot(args.ref, where)
        sys.path.insert(0, str(where))
        print(f"{args.game}: this checkout against {args.ref} (kernels/ only; sim/ is this checkout's)")
        if not args.no_check:
            checker = same_mean_turns if args.no_same_games_check else same_games
            if not checker(args.game, args.check_games):
                return 1
        for policy in policies:
            for _ in range(args.runs):
                race(args.game, policy, args.pairs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
