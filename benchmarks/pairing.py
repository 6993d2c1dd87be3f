"""How much pairing buys: paired against unpaired 95 % intervals for arms that differ in one thing.

    python -m benchmarks.pairing [--games N] [--seed S] [--json PATH] [--only knutten|wizard]

Each comparison plays N games (default 200,000; `--games 20000` for a quick look) of two arms with
the same study seed and the same game indices, in batches of 50,000, and looks at two per-game
quantities: x = seat 0's win weight (1/n_winners when seat 0 is among the winners, else 0) and the
game's length (`turns`). For each it reports the width of the 95 % interval of
mean(A) - mean(B) computed as if the two arms were independent samples (from the two variances:
"unpaired") and from the per-game differences ("paired"), their ratio unpaired/paired (how many
times narrower pairing makes the interval; its square is how many times fewer games pairing needs
for the same width), and the correlation of A and B over the games. See docs/pairing.md.

Only the API that every version of the simulator has is used: `ArmSpec.make(...)` and
`arm.info.runner().play_batch(arm, seed, start, count)`, so this file can be copied into an older
checkout to measure it.
"""
from __future__ import annotations

import argparse
import json
import math
import sys
import time
from dataclasses import dataclass, field

import numpy as np

Z95 = 1.959963984540054  # two-sided 95 % normal quantile
BATCH = 50_000
DEFAULT_GAMES = 200_000
DEFAULT_SEED = 20260101


@dataclass(frozen=True)
class Arm:
    rules: dict = field(default_factory=dict)
    policies: tuple[str, ...] = ()
    label: str = ""


@dataclass(frozen=True)
class Comparison:
    name: str
    game: str
    players: int
    a: Arm
    b: Arm


COMPARISONS = (
    Comparison("Knutten john_knut on vs off", "knutten", 4,
               Arm({"john_knut": True}, ("cautious",) * 4, "john_knut on"),
               Arm({"john_knut": False}, ("cautious",) * 4, "john_knut off")),
    Comparison("Knutten threshold 31 vs 35", "knutten", 4,
               Arm({"threshold": 31}, ("cautious",) * 4, "threshold 31"),
               Arm({"threshold": 35}, ("cautious",) * 4, "threshold 35")),
    Comparison("Knutten heavy_weather off vs on", "knutten", 4,
               Arm({"heavy_weather": False}, ("cautious",) * 4, "heavy_weather off"),
               Arm({"heavy_weather": True}, ("cautious",) * 4, "heavy_weather on")),
    Comparison("Knutten seat 1 cautious -> trap", "knutten", 4,
               Arm({}, ("cautious",) * 4, "all cautious"),
               Arm({}, ("cautious", "trap", "cautious", "cautious"), "seat 1 trap")),
    Comparison("Wizard hook_rule off vs on", "wizard", 4,
               Arm({"hook_rule": False}, ("heuristic",) * 4, "hook_rule off"),
               Arm({"hook_rule": True}, ("heuristic",) * 4, "hook_rule on")),
    Comparison("Wizard seat 1 heuristic -> random", "wizard", 4,
               Arm({}, ("heuristic",) * 4, "all heuristic"),
               Arm({}, ("heuristic", "random", "heuristic", "heuristic"), "seat 1 random")),
)


# ------------------------------------------------------------------------------ pure functions
def seat0_win_weight(winner_mask, n_winners) -> np.ndarray:
    """Per game: 1/n_winners when seat 0 is among the winners, else 0."""
    mask = np.asarray(winner_mask, dtype=np.int64)
    k = np.asarray(n_winners, dtype=np.float64)
    return np.where(mask & 1, 1.0 / np.maximum(k, 1.0), 0.0)


def interval_widths(a, b, z: float = Z95) -> dict:
    """Widths of the two-sided interval of mean(a) - mean(b) for per-game values a[i], b[i] of the
    same games i: `unpaired` from the two sample variances as if independent,
    2 z sqrt(var(a)/n + var(b)/n); `paired` from the differences, 2 z sqrt(var(a - b)/n);
    `ratio` = unpaired / paired (inf when every difference is equal); `corr` the correlation of
    a and b (nan when either is constant). Variances with n - 1."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if a.shape != b.shape or a.ndim != 1 or len(a) < 2:
        raise ValueError("a and b must be 1-d arrays of the same length >= 2 (one value per game)")
    n = len(a)
    var_a, var_b = a.var(ddof=1), b.var(ddof=1)
    var_d = (a - b).var(ddof=1)
    unpaired = 2 * z * math.sqrt((var_a + var_b) / n)
    paired = 2 * z * math.sqrt(var_d / n)
    corr = (float(np.cov(a, b, ddof=1)[0, 1] / math.sqrt(var_a * var_b))
            if var_a > 0 and var_b > 0 else float("nan"))
    return {"n": n, "mean_a": float(a.mean()), "mean_b": float(b.mean()),
            "diff": float(a.mean() - b.mean()), "unpaired": unpaired, "paired": paired,
            "ratio": unpaired / paired if paired > 0 else float("inf"), "corr": corr}


# ------------------------------------------------------------------------------ playing
def play(comparison: Comparison, which: Arm, name: str, seed: int, games: int):
    """(seat 0's win weight, turns) per game for games 0..games-1 of one arm."""
    from sim.spec import ArmSpec

    arm = ArmSpec.make(comparison.game, comparison.players, dict(which.rules),
                       list(which.policies), name=name)
    runner = arm.info.runner()
    x, turns = [], []
    for start in range(0, games, BATCH):
        table = runner.play_batch(arm, seed, start, min(BATCH, games - start))
        x.append(seat0_win_weight(table["winner_mask"].to_numpy(), table["n_winners"].to_numpy()))
        turns.append(table["turns"].to_numpy().astype(np.float64))
    return np.concatenate(x), np.concatenate(turns)


def measure(comparison: Comparison, seed: int, games: int) -> dict:
    t0 = time.perf_counter()
    xa, ta = play(comparison, comparison.a, "a", seed, games)
    xb, tb = play(comparison, comparison.b, "b", seed, games)
    return {"comparison": comparison.name, "game": comparison.game, "players": comparison.players,
            "a": comparison.a.label, "b": comparison.b.label, "games": games, "seed": seed,
            "win": interval_widths(xa, xb), "turns": interval_widths(ta, tb),
            "seconds": round(time.perf_counter() - t0, 1)}


def finite(value):
    """The figures with inf and nan as null (strict JSON)."""
    if isinstance(value, dict):
        return {k: finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [finite(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def markdown(results: list[dict]) -> str:
    head = ("| comparison (A vs B) | seat 0 win A | B | unpaired width | paired width | ratio | corr "
            "| turns A | B | unpaired width | paired width | ratio | corr |")
    lines = [head, "| --- |" + " ---: |" * 12]
    for r in results:
        w, t = r["win"], r["turns"]
        lines.append(
            f"| {r['comparison']} | {w['mean_a']:.4f} | {w['mean_b']:.4f} | {w['unpaired']:.4f} "
            f"| {w['paired']:.4f} | {w['ratio']:.2f} | {w['corr']:.3f} "
            f"| {t['mean_a']:.2f} | {t['mean_b']:.2f} | {t['unpaired']:.3f} | {t['paired']:.3f} "
            f"| {t['ratio']:.2f} | {t['corr']:.3f} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.pairing",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=DEFAULT_GAMES,
                        help=f"games per arm (default {DEFAULT_GAMES:,}; 20000 for a quick look)")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED, help="study seed")
    parser.add_argument("--only", choices=("knutten", "wizard"), help="one game's comparisons")
    parser.add_argument("--json", help="write the figures to this file")
    args = parser.parse_args(argv)
    if args.games < 2:
        parser.error("--games must be at least 2")
    results = []
    for comparison in COMPARISONS:
        if args.only and comparison.game != args.only:
            continue
        result = measure(comparison, args.seed, args.games)
        print(f"  {comparison.name}: {result['seconds']} s", file=sys.stderr)
        results.append(result)
    print(f"{args.games:,} games per arm, seed {args.seed}, 95 % interval widths of mean(A) - mean(B)")
    print()
    print(markdown(results))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(finite({"games": args.games, "seed": args.seed, "batch": BATCH,
                              "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                              "results": results}), f, indent=2)
            f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
