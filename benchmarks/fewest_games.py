"""Fewest games for an answer: games needed for a +-0.5-point interval, design against design.

    python -m benchmarks.fewest_games [--deals N] [--seed S] [--only GAME] [--json PATH]

Two questions per game that rotates its seats (issue: "Fewest games for an answer"), each answered
to a 95 % half-width of 0.5 percentage points: seat 0's edge, and a rule's effect on it
(Knutten: John Knut; Wizard: the hook rule; Wippen: a target of 40 points instead of 52; Wie is
de Heer?: answers read by every seat; Wie Weet Wat: no counter-attacks).

For each, four designs play the same arms (all seats the game's default heuristic player, 4 seats):
- independent: every game a fresh deal, the two arms of an effect on unrelated games;
- paired: the two arms of an effect on the same games (same study seed and game indices);
- rotated: each deal once per seat rotation (`rotate = true`): the unit is the deal, the mean of
  its n rotations;
- paired + rotated: both;
- + luck (games that declare luck measures, `luck = true`: Knutten): each of the above with the luck
  of the draw regressed out (reports/stats.luck_adjusted, cross-fitted): the units' variance times
  1 - the share the measures remove.
Games needed = (1.96 sd / 0.005)^2 units, times the games per unit (n for a rotated deal), times
the arms the answer needs (2 for an effect): the figure is the total of games played. The sd is
measured on N deals per arm; its standard error is about sd / sqrt(2N), so ratios are good to a
few percent at the default size.

"""
from __future__ import annotations

import argparse
import json
import sys
import time

import numpy as np

Z95 = 1.959963984540054
HALF_WIDTH = 0.005
DEFAULT_SEED = 20261203
PLAYERS = 4
QUESTIONS = {  # game: (policy, rule of the effect, its two values)
    "knutten": ("cautious", "john_knut", (True, False)),
    "wizard": ("heuristic", "hook_rule", (True, False)),
    "wippen": ("greedy", "target", (52, 40)),
    "wieisdeheer": ("reasoner", "answers_public", (False, True)),
    "wieweetwat": ("targeting", "counter_attacks", (True, False)),
}
DEFAULT_DEALS = {"knutten": 100_000, "wizard": 25_000, "wippen": 10_000, "wieisdeheer": 25_000,
                 "wieweetwat": 25_000}


def seat0_weight(out) -> np.ndarray:
    """Seat 0's win weight per game: 1/k when it is one of k winners, else 0."""
    mask = out["winner_mask"].astype(np.int64)
    k = np.zeros(len(mask))
    for s in range(PLAYERS):
        k += (mask >> s) & 1
    return np.where(mask & 1, 1.0 / np.maximum(k, 1), 0.0)


def play(game: str, rules: dict, rotate: bool, seed: int, games: int) -> tuple[np.ndarray, np.ndarray | None]:
    """Seat 0's win weight per game and, for a game with luck measures, every seat's (games x
    measures x seats, flattened per game)."""
    from sim.spec import ArmSpec

    policy = QUESTIONS[game][0]
    info = ArmSpec.make(game, PLAYERS, rules, policy).info
    arm = ArmSpec.make(game, PLAYERS, rules, policy, rotate=rotate, luck=bool(info.luck))
    runner = arm.info.runner()
    parts, lucks = [], []
    for first in range(0, games, 50_000):
        out, _ = runner.run_kernel(arm, seed, first, min(50_000, games - first))
        parts.append(seat0_weight(out))
        if info.luck:
            lucks.append(np.column_stack([out[c][:, :PLAYERS] for c in info.luck]).astype(float))
    return np.concatenate(parts), (np.concatenate(lucks) if lucks else None)


def needed(values: np.ndarray, per_unit: int, arms: int) -> float:
    """Total games for a 95 % half-width of HALF_WIDTH, from per-unit values."""
    return (Z95 * values.std(ddof=1) / HALF_WIDTH) ** 2 * per_unit * arms


def by_deal(x: np.ndarray) -> np.ndarray:
    """The mean over each deal's PLAYERS rotations (games g*PLAYERS .. g*PLAYERS+PLAYERS-1)."""
    return x.reshape(-1, PLAYERS, *x.shape[1:]).mean(axis=1)


def kept(y: np.ndarray, luck: np.ndarray) -> float:
    """The share of y's variance left with the luck measures regressed out (cross-fitted)."""
    from reports.stats import luck_adjusted

    return 1.0 - luck_adjusted(y, luck).removed


def measure(game: str, deals: int, seed: int) -> list[dict]:
    _policy, rule, (on, off) = QUESTIONS[game]
    games = deals * PLAYERS  # every design plays the same number of games per arm
    t0 = time.perf_counter()
    plain = {v: play(game, {rule: v}, False, seed, games) for v in (on, off)}
    rotated = {v: play(game, {rule: v}, True, seed, games) for v in (on, off)}
    seconds = time.perf_counter() - t0
    fair = 1.0 / PLAYERS
    (a, la), (b, lb) = plain[on], plain[off]
    # independent arms: game i of the second arm is another game than game i of the first
    b_other = np.roll(b, games // 2)
    ra, rb = by_deal(rotated[on][0]), by_deal(rotated[off][0])
    rows = [
        {"question": f"{game}: seat 0's edge", "estimate": float(a.mean() - fair),
         "designs": {"independent": needed(a, 1, 1), "rotated": needed(ra, PLAYERS, 1)}},
        {"question": f"{game}: {rule}'s effect on seat 0's edge", "estimate": float(a.mean() - b.mean()),
         "designs": {"independent": needed(a - b_other, 1, 2), "paired": needed(a - b, 1, 2),
                     "rotated": needed(ra - np.roll(rb, len(rb) // 2), PLAYERS, 2),
                     "paired + rotated": needed(ra - rb, PLAYERS, 2)}},
    ]
    if la is not None:
        rla, rlb = by_deal(rotated[on][1]), by_deal(rotated[off][1])
        edge, effect = rows[0]["designs"], rows[1]["designs"]
        edge["luck"] = edge["independent"] * kept(a, la)
        edge["rotated + luck"] = edge["rotated"] * kept(ra, rla)
        effect["paired + luck"] = effect["paired"] * kept(a - b, np.hstack([la, lb]))
        effect["paired + rotated + luck"] = effect["paired + rotated"] * kept(ra - rb, np.hstack([rla, rlb]))
    for row in rows:
        base = row["designs"]["independent"]
        row["fewer"] = {k: base / v if v else float("inf") for k, v in row["designs"].items()}
        row["deals"], row["games_per_arm"], row["seconds"] = deals, games, seconds
    return rows


def show(rows: list[dict]) -> str:
    designs = [d for d in ("independent", "paired", "rotated", "paired + rotated", "luck", "paired + luck",
                           "rotated + luck", "paired + rotated + luck") if any(d in r["designs"] for r in rows)]
    lines = ["| question | estimate (points) | " + " | ".join(designs) + " | best / independent |",
             "| --- | ---: |" + " ---: |" * len(designs) + " ---: |"]
    for r in rows:
        cells = [f"{r['designs'][d]:,.0f}" if d in r["designs"] else "" for d in designs]
        lines.append(f"| {r['question']} | {r['estimate'] * 100:+.2f} | " + " | ".join(cells)
                     + f" | {max(r['fewer'].values()):.2f}x |")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.fewest_games", description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=None, help="deals per arm and design (default: per game)")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--only", choices=sorted(QUESTIONS), default=None)
    parser.add_argument("--json", default=None, help="write the rows to this file")
    args = parser.parse_args(argv)
    rows = []
    for game in ([args.only] if args.only else list(QUESTIONS)):
        deals = args.deals or DEFAULT_DEALS[game]
        print(f"{game}: {deals:,} deals x {PLAYERS} games per arm and design ...", file=sys.stderr, flush=True)
        rows += measure(game, deals, args.seed)
    print(f"Total games for a 95% half-width of +-{HALF_WIDTH * 100:g} points, by design:\n")
    print(show(rows))
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(rows, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
