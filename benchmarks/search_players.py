"""Strength and speed of one player against a table of another, for any game: a search player's
win share against the best fixed players, and its games per second per core.

    python -m benchmarks.search_players GAME [PLAYER] [--against POLICY] [--players 4]
        [--games 400] [--rule NAME=VALUE ...] [--seed 1] [--alone] [--json out.json]

PLAYER and --against are players as on the command line (`search:samples=64`); left out, they
are the game's search player and the best heuristic measured against it (DEFAULTS). PLAYER sits in
each seat in turn for games/players games (the same game indices in every seat, so every seat
sees the same deals), the other seats play --against. Reported:
- win share: per game 1/winners when PLAYER is among the winners (a shared win is shared), else
  0; its mean and a 95 % interval (normal approximation over the games, which are independent);
  an equal player would get 1/players;
- score edge: PLAYER's score minus the mean of the other seats' scores, mean and 95 % interval
  (the sign follows the game's score: for a lower-wins game a negative edge is better);
- games per CPU-second of the calling thread (the kernel runs single-threaded in it, so this is
  games per second per core, and other processes on a busy machine barely move it), with PLAYER
  in one seat; `--alone` also times a table where every seat plays PLAYER.
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

Z95 = 1.959964
# game: (its search player, the best fixed player measured against it)
DEFAULTS = {"knutten": ("search", "trap"), "wizard": ("search", "heuristic"), "wippen": ("search", "builder")}


def mean_interval(values: np.ndarray) -> tuple[float, float, float]:
    """(mean, low, high): the mean and its 95 % normal interval."""
    m = float(values.mean())
    half = Z95 * float(values.std(ddof=1)) / math.sqrt(len(values)) if len(values) > 1 else math.inf
    return m, m - half, m + half


def seat_games(game: str, players: int, rules: dict, seats: list[str], seed: int, count: int):
    """(table, CPU seconds of this thread) for `count` games of the arm."""
    from sim.registry import get_game
    from sim.spec import ArmSpec

    arm = ArmSpec.make(game, players, rules, seats)
    runner = get_game(game).runner()
    runner.play_batch(arm, seed, 0, 1)  # compiled (or loaded) before the clock starts
    t0 = time.thread_time()
    table = runner.play_batch(arm, seed, 0, count)
    return table, time.thread_time() - t0


def measure(game: str, player: str, against: str, players: int, rules: dict, games: int,
            seed: int, alone: bool = False) -> dict:
    per_seat = max(1, games // players)
    shares, edges, cpu, wall = [], [], 0.0, 0.0
    for seat in range(players):
        seats = [against] * players
        seats[seat] = player
        w0 = time.perf_counter()
        table, seconds = seat_games(game, players, rules, seats, seed, per_seat)
        wall += time.perf_counter() - w0
        cpu += seconds
        winners = np.array(table["winner_mask"].to_pylist())
        score = np.array(table["score"].to_pylist(), dtype=float)
        won = (winners >> seat) & 1
        shares.append(won / np.array([bin(w).count("1") for w in winners]))
        edges.append(score[:, seat] - np.delete(score, seat, axis=1).mean(axis=1))
    share, share_lo, share_hi = mean_interval(np.concatenate(shares))
    edge, edge_lo, edge_hi = mean_interval(np.concatenate(edges))
    result = {"game": game, "player": player, "against": against, "players": players,
              "rules": rules, "games": per_seat * players, "seed": seed,
              "win_share": round(share, 4), "win_share_95": [round(share_lo, 4), round(share_hi, 4)],
              "equal_share": round(1 / players, 4),
              "score_edge": round(edge, 2), "score_edge_95": [round(edge_lo, 2), round(edge_hi, 2)],
              "share_by_seat": [round(float(x.mean()), 4) for x in shares],
              "games_per_cpu_s_one_seat": round(per_seat * players / cpu, 2),
              "games_per_wall_s_one_seat": round(per_seat * players / wall, 2)}
    if alone:
        count = max(1, per_seat // 2)
        _, seconds = seat_games(game, players, rules, [player] * players, seed, count)
        result["games_per_cpu_s_every_seat"] = round(count / seconds, 2)
    return result


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.search_players",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("game")
    parser.add_argument("player", nargs="?", help="default: the game's search player (DEFAULTS)")
    parser.add_argument("--against", help="every other seat's player (default: DEFAULTS)")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--games", type=int, default=400, help="in all, over the seats")
    parser.add_argument("--rule", action="append", default=[], metavar="NAME=VALUE")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--alone", action="store_true",
                        help="also time a table where every seat plays PLAYER")
    parser.add_argument("--json", help="write the result to this file")
    args = parser.parse_args(argv)
    player, against = DEFAULTS.get(args.game, (None, None))
    player, against = args.player or player, args.against or against
    if player is None or against is None:
        parser.error(f"no default players for {args.game!r}: give PLAYER and --against")
    rules = dict(r.split("=", 1) for r in args.rule)
    r = measure(args.game, player, against, args.players, rules, args.games, args.seed, args.alone)
    print(f"{r['game']} {r['players']}p: {r['player']} against {r['against']} x{r['players'] - 1}, "
          f"{r['games']} games: win share {r['win_share']:.3f} (95% {r['win_share_95'][0]:.3f}-"
          f"{r['win_share_95'][1]:.3f}; equal {r['equal_share']:.3f}), score edge "
          f"{r['score_edge']:+.1f} ({r['score_edge_95'][0]:+.1f}..{r['score_edge_95'][1]:+.1f}), by seat "
          + ", ".join(f"{x:.3f}" for x in r["share_by_seat"])
          + f"; {r['games_per_cpu_s_one_seat']} games per CPU-second with it in one seat"
          + (f", {r['games_per_cpu_s_every_seat']} in every seat" if args.alone else ""))
    if args.json:
        Path(args.json).write_text(json.dumps(r, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
