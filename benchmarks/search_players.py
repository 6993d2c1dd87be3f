"""A search player against the best heuristic: its win share and its speed, for any game.

    python -m benchmarks.search_players GAME [--search POLICY] [--against POLICY] [--players 4]
                                        [--games 1000] [--seed 13] [--json PATH]

One seat plays the search player (a `--search` value may carry player parameters, as on the
command line: `search:samples=128`), every other seat the heuristic (`--against`). The search
seat moves round the table: `--games` games with it in each seat, the same game indices for every
seat. Its win share counts a shared win as 1/k (k winners); the 95 % interval is the normal one
over the per-game shares (the seats' games are independent samples). Speed: games per CPU second
of this process after a first, untimed game (compiling; the kernel runs on one core), which is
games per second per core; and per wall-clock second.

Only `ArmSpec.make(...)` and the runner's `play_batch` are used, so a game needs nothing more than
a search policy of its own and an entry in DEFAULTS (or the two policy flags).
"""
from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

Z95 = 1.959963984540054
# game: (search player, the best heuristic measured against it)
DEFAULTS = {"knutten": ("search", "trap")}


def win_shares(masks, seat: int) -> np.ndarray:
    """Seat `seat`'s share of each game's win (1/k among k winners) from the rows' winner masks."""
    masks = np.asarray(masks, np.int64)
    winners = np.array([int(m).bit_count() for m in masks])
    return ((masks >> seat) & 1) / winners


def measure(game: str, search: str, against: str, players: int, games: int, seed: int) -> dict:
    from sim.registry import games as registry
    from sim.spec import ArmSpec

    runner = registry()[game].runner()
    shares = []
    cpu = wall = 0.0
    for seat in range(players):
        seats = [against] * players
        seats[seat] = search
        arm = ArmSpec.make(game, players, {}, seats)
        runner.play_batch(arm, seed, 0, 1)  # compiles (once) outside the timing
        c0, w0 = time.process_time(), time.perf_counter()
        table = runner.play_batch(arm, seed, 0, games)
        cpu += time.process_time() - c0
        wall += time.perf_counter() - w0
        shares.append(win_shares(table.column("winner_mask").to_pylist(), seat))
    x = np.concatenate(shares)
    half = Z95 * x.std(ddof=1) / math.sqrt(len(x))
    return {
        "game": game, "search": search, "against": against, "players": players, "seed": seed,
        "games": len(x), "win_share": float(x.mean()),
        "interval95": [float(x.mean() - half), float(x.mean() + half)],
        "fair_share": 1 / players,
        "share_by_seat": [float(s.mean()) for s in shares],
        "games_per_cpu_s": len(x) / cpu, "games_per_wall_s": len(x) / wall,
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("game")
    parser.add_argument("--search", help="the search player (default: the game's, DEFAULTS)")
    parser.add_argument("--against", help="every other seat's player (default: DEFAULTS)")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--games", type=int, default=1000, help="games per seat of the searcher")
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--json", type=Path, help="also write the result here")
    args = parser.parse_args(argv)
    search, against = DEFAULTS.get(args.game, (None, None))
    search, against = args.search or search, args.against or against
    if search is None or against is None:
        parser.error(f"no default players for {args.game!r}: give --search and --against")
    result = measure(args.game, search, against, args.players, args.games, args.seed)
    lo, hi = result["interval95"]
    print(f"{args.game}: {search} against {args.players - 1} x {against}: win share "
          f"{result['win_share']:.4f} (95 % {lo:.4f}..{hi:.4f}; fair {result['fair_share']:.3f}) "
          f"over {result['games']} games; by seat "
          + ", ".join(f"{s:.3f}" for s in result["share_by_seat"])
          + f"; {result['games_per_cpu_s']:.1f} games per CPU second (one core), "
          f"{result['games_per_wall_s']:.1f} per wall second")
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
