"""Does a [[search]] find a planted optimum? (docs/search.md, "Calibration")

The toy game (tests/toy/rules.md) has a measure with a known shape: a trick scores 1 point, or 2 with
chance `double_chance`, whatever is played, so a seat's mean score is s(t) x (1 + double_chance) for
`tricks` = t, exactly. The search varies `tricks` (1..6) and `double_chance` (0..1) to bring the mean
score per seat to a target under the constraint `turns` <= 8 (4 players play a card a trick, so at
most 2 tricks). Measured once on 400,000 games, s(2) = 0.5817 and s(3) = 0.8990, so for the target
0.9 the optimum is tricks = 2, double_chance = 0.9 / s(2) - 1 = 0.547; without the constraint
tricks = 3, double_chance = 0.001 would do as well, so the constraint decides.

Each replicate runs the whole search through the pipeline (in this process) with another study seed,
and the chosen setting's true score is read off the planted line: a success is a chosen setting within
the constraint whose true score lies within TOLERANCE of the target. Also reported: how far the fresh
re-play's value lies from the chosen setting's true score (it should be noise only), and games spent.

    python -m benchmarks.search_calibration [--replicates 20] [--trials 30] [--sampler tpe|random] [--json PATH]
"""
from __future__ import annotations

import argparse
import json
import math
import os
import sys
import tempfile
import time

TARGET = 0.9
TOLERANCE = 0.02  # points per seat: the chosen setting's true score within this of the target
PLANTED_GAMES = 400_000


def toy_study(seed: int, trials: int, sampler: str, games: int = 500, max_games: int = 4000,
              final_games: int = 4000) -> dict:
    return {"name": "planted", "seed": seed, "batch_size": 1000, "search": [{
        "name": "planted", "game": "toy", "players": 4, "policy": "greedy",
        "vary": {"tricks": {"from": 1, "to": 6}, "double_chance": {"from": 0.0, "to": 1.0}},
        "objective": {"measure": "score", "target": TARGET},
        "constraints": [{"measure": "turns", "at_most": 8}],
        "trials": trials, "games": games, "max_games": max_games, "final_games": final_games,
        "sampler": sampler}]}


def base_scores(tricks=(1, 2, 3, 4, 5, 6), games: int = PLANTED_GAMES, seed: int = 987654) -> dict[int, float]:
    """s(t): the mean score per seat at double_chance 0, on games no replicate's search plays
    (another seed)."""
    import polars as pl

    from sim.spec import ArmSpec

    out = {}
    for t in tricks:
        arm = ArmSpec.make("toy", 4, {"tricks": t, "double_chance": 0.0}, "greedy")
        table = arm.info.runner().play_batch(arm, seed, 0, games)
        out[t] = float(pl.from_arrow(table).select(pl.col("score").list.mean()).to_series().mean())
    return out


def truth(params: dict, s: dict[int, float]) -> float:
    return s[params["tricks"]] * (1.0 + params["double_chance"])


def replicate(seed: int, trials: int, sampler: str, s: dict[int, float]) -> dict:
    from pipelines.run import run_study
    from sim.spec import StudySpec

    study = StudySpec.from_dict(toy_study(seed, trials, sampler))
    with tempfile.TemporaryDirectory() as tmp:
        began = time.perf_counter()
        run_study(study, os.path.join(tmp, "d"), workers=0, progress=False)
        seconds = time.perf_counter() - began
        with open(os.path.join(tmp, "d", "study.json")) as f:
            manifest = json.load(f)
        from reports.dataset import Dataset
        from reports.search import levels

        data = Dataset(os.path.join(tmp, "d"))
        state = manifest["searches"]["planted"]
        final = state["final"][0]
        arm = data.arm(final["arm"])
        import polars as pl

        fresh = levels(pl.read_parquet(data._files(arm.name)), arm, ["score"])["score"]
        source = data.arm(final["from"])  # the chosen candidate, on the games the search judged it by
        seen = levels(pl.read_parquet(data._files(source.name)), source, ["score"])["score"]
    params = final["params"]
    true = truth(params, s)
    feasible = params["tricks"] * 4 <= 8
    games = sum(a["games"] for a in manifest["study"]["arms"] if a.get("search_role") == "candidate")
    return {"seed": seed, "params": params, "true_score": true, "feasible": feasible,
            "success": feasible and abs(true - TARGET) <= TOLERANCE,
            "fresh": fresh.to_dict(), "fresh_covers_truth": fresh.lo <= true <= fresh.hi,
            "seen": seen.to_dict(), "seen_covers_truth": seen.lo <= true <= seen.hi,
            "candidates": len(state["candidates"]), "candidate_games": games, "seconds": seconds}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--replicates", type=int, default=20)
    parser.add_argument("--trials", type=int, default=30)
    parser.add_argument("--sampler", default="tpe", choices=("tpe", "random"))
    parser.add_argument("--first-seed", type=int, default=1)
    parser.add_argument("--json", help="write every replicate here")
    args = parser.parse_args(argv)
    os.environ["KAARTLAB_GAMES"] = ",".join(filter(None, [os.environ.get("KAARTLAB_GAMES", ""), "tests.toy.runner"]))
    s = base_scores()
    optimum = TARGET / s[2] - 1.0
    print(f"planted: s(t) = {', '.join(f'{t}: {v:.4f}' for t, v in s.items())}; optimum tricks = 2, "
          f"double_chance = {optimum:.3f} (target {TARGET}, turns <= 8)", flush=True)
    rows = []
    for seed in range(args.first_seed, args.first_seed + args.replicates):
        r = replicate(seed, args.trials, args.sampler, s)
        rows.append(r)
        print(f"seed {seed}: tricks {r['params']['tricks']}, double_chance {r['params']['double_chance']:.3f}, "
              f"true score {r['true_score']:.4f}, fresh {r['fresh']['value']:.4f} "
              f"({r['fresh']['lo']:.4f}-{r['fresh']['hi']:.4f}), {'found' if r['success'] else 'MISSED'}, "
              f"{r['candidate_games']:,} candidate games, {r['seconds']:.1f} s", flush=True)
    n = len(rows)
    found = sum(r["success"] for r in rows)
    covered = sum(r["fresh_covers_truth"] for r in rows)
    err = [abs(r["params"]["double_chance"] - optimum) for r in rows if r["params"]["tricks"] == 2]
    from reports.stats import wilson

    def mean_miss(key):
        return sum(abs(r[key]["value"] - TARGET) if key != "true" else abs(r["true_score"] - TARGET)
                   for r in rows) / n

    rate = wilson(found, n)
    print(f"found the optimum (true score within {TOLERANCE} of {TARGET}, within the constraint): {found} of {n} "
          f"({rate.value:.0%}, 95% {rate.lo:.0%}-{rate.hi:.0%}); the fresh re-play's 95% interval covers the "
          f"chosen setting's true score in {covered} of {n}; median |double_chance - {optimum:.3f}| at tricks 2: "
          f"{sorted(err)[len(err) // 2] if err else math.nan:.3f}; median candidate games "
          f"{sorted(r['candidate_games'] for r in rows)[n // 2]:,}", flush=True)
    print(f"distance from the target, mean over replicates: as the search saw the chosen candidate "
          f"{mean_miss('seen'):.4f} (its interval covers the truth in {sum(r['seen_covers_truth'] for r in rows)} "
          f"of {n}), true {mean_miss('true'):.4f}, on fresh games {mean_miss('fresh'):.4f}", flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"planted": {"s": s, "optimum_double_chance": optimum, "target": TARGET,
                                   "tolerance": TOLERANCE}, "trials": args.trials, "sampler": args.sampler,
                       "replicates": rows}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
