"""Wie Weet Wat: what the reader's category choice is worth, and how long a game lasts, under both
recall models.

    python -m benchmarks.wieweetwat_category_choice [--games 8000] [--players 4] [--seed 1]
        [--handling 6] [--models profiles,uniform] [--rule NAME=VALUE ...]

1. **The choice's worth.** Each reader policy (random, widest, spoiler, targeting) sits in one
   seat against three of a table policy (random, then targeting): its win share and 95 % interval,
   the seat rotated over the same games (benchmarks.search_players.measure). An equal player wins
   1/players. Under the uniform model a category slows every player alike, so the choice can only
   act through the rules measured in seconds; under profiles it picks who is likely to answer.
2. **Catch-up and length.** Tables where every seat plays one policy: rounds per game, categories
   per round (a round lasts longer when the readers hold the leader back), turns per game
   (categories read plus action cards), the seconds spent racing for answers (column
   `race_seconds`) and an estimate in minutes: the race seconds plus `--handling` seconds per turn
   for drawing the card, reading its four categories out, choosing and laying cards down. The
   handling time is an assumption, not a measurement: the output names it.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.search_players import mean_interval, measure  # noqa: E402

READERS = ("random", "widest", "spoiler", "targeting")


def worth(players: int, rules: dict, games: int, seed: int, tables: tuple[str, ...]) -> None:
    for table in tables:
        print(f"\n  against three {table}:")
        for reader in READERS:
            r = measure("wieweetwat", reader, table, players, rules, games, seed)
            lo, hi = r["win_share_95"]
            print(f"    {reader:<10} win share {r['win_share']:.3f} (95% {lo:.3f}-{hi:.3f}; "
                  f"equal {r['equal_share']:.3f}), {r['games']} games")


def length(players: int, rules: dict, games: int, seed: int, handling: float) -> None:
    from sim.registry import get_game
    from sim.spec import ArmSpec

    runner = get_game("wieweetwat").runner()
    print(f"\n  tables of one policy, {games} games each; minutes = (race seconds + {handling:g} s "
          "of handling per turn) / 60, the handling time assumed:")
    print("    policy      rounds  categories/round  turns          race s          minutes")
    for policy in READERS:
        arm = ArmSpec.make("wieweetwat", players, rules, [policy] * players)
        t = runner.play_batch(arm, seed, 0, games)
        rounds = np.asarray(t["rounds"].to_numpy(), float)
        categories = np.asarray(t["categories"].to_numpy(), float)
        turns = np.asarray(t["turns"].to_numpy(), float)
        race = np.asarray(t["race_seconds"].to_numpy(), float)
        minutes = (race + handling * turns) / 60.0
        per_round = categories.sum() / rounds.sum()  # a ratio of sums: rounds per game vary
        cells = []
        for values in (turns, race, minutes):
            m, lo, hi = mean_interval(values)
            cells.append(f"{m:7.1f} +-{(hi - lo) / 2:4.1f}")
        print(f"    {policy:<10} {rounds.mean():6.2f}  {per_round:16.2f}  " + "  ".join(cells))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.wieweetwat_category_choice",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=8000, help="per measurement (default 8000)")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--handling", type=float, default=6.0,
                        help="assumed seconds per turn besides the race for answers (default 6)")
    parser.add_argument("--models", default="profiles,uniform",
                        help="recall models, comma-separated (default profiles,uniform)")
    parser.add_argument("--tables", default="random,targeting",
                        help="table policies the readers play against (default random,targeting)")
    parser.add_argument("--rule", action="append", default=[], metavar="NAME=VALUE")
    args = parser.parse_args(argv)
    base = dict(r.split("=", 1) for r in args.rule)
    for model in args.models.split(","):
        rules = dict(base, recall_model=model)
        print(f"Wie Weet Wat, {args.players} players, recall_model = {model}, seed {args.seed}"
              + (f", rules {base}" if base else ""))
        worth(args.players, rules, args.games, args.seed, tuple(args.tables.split(",")))
        length(args.players, rules, args.games, args.seed, args.handling)
        print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
