"""Null tests and power of every verdict Wizard's report section prints: `python -m benchmarks.calibration_wizard`.

Real Wizard games (4 heuristic players, the kernel) are cut into replicate arms of `games` games and read
with the report code (Parquet, Polars, reports.games.wizard), exactly as a study is read.

* Nulls (each verdict must say 'detectable' in about 5% of arms before the report's correction):
  - relabelled seats: every game's seats renamed by a random permutation (all of a seat's values move
    together), so no seat and no bidding position can differ: the dealer-minus-first verdicts (points,
    exact bids) and the four gap tests (seats' exact bids and final points, positions' exact bids and
    points per round);
  - the hook verdicts (the variant comparison of Wizard's measures): two arms that differ only in an
    inert rule, final_no_trump in a full game (its last round has no trump anyway), with independent games.
* Planted effects (found at about the power the test states): the same games as played under the hook
  rule (the dealer may not make the bids add up: a real position effect), and hook-on against hook-off
  on the same deals. Stated power: from the effect measured on all games pooled, normal approximation
  for a paired t, noncentral F for Hotelling's test.

The overbid verdict (the round's bids against the cards dealt) has no constructed null here: relabelling
cannot change a round's total. The CI version is tests/test_calibration_wizard.py.
"""
from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
from scipy import stats as sps

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.calibration_common import paired_power, rate  # noqa: E402
from benchmarks.stats_calibration import _relabel_seats  # noqa: E402
from reports.context import Context, Options  # noqa: E402
from reports.dataset import Dataset  # noqa: E402
from reports.games import wizard as wizard_report  # noqa: E402
from reports.sections import variants  # noqa: E402
from reports.stats import ALPHA  # noqa: E402

PLAYERS = 4
GAP_VERDICTS = {"seat_exact_gap": "seats differ in exact bids", "seat_score_gap": "seats differ in final points",
                "position_exact_gap": "positions differ in exact bids",
                "position_points_gap": "positions differ in points per round"}
DEALER_VERDICTS = {"points_per_round": "dealer minus first bidder, points per round",
                   "exact": "dealer minus first bidder, exact bids"}
HOOK_MEASURES = ("exact_rate", "dealer_exact", "dealer_points", "first_exact", "points_lost", "score_mean", "overbid")


def play(rules: dict, seed: int, games: int) -> pa.Table:
    from sim.registry import get_game
    from sim.spec import ArmSpec
    arm = ArmSpec.make("wizard", PLAYERS, rules, "heuristic", name="source")
    return get_game("wizard").runner().play_batch(arm, seed, 0, games)


def write_arms(root: Path, parts: list[tuple[str, dict, pa.Table]]) -> Context:
    """One study directory (docs/schema.md) with an arm per (name, rules, rows); a report context on it."""
    from sim.registry import get_game
    version = get_game("wizard").version
    arms = []
    for name, rules, table in parts:
        table = table.set_column(table.schema.get_field_index("arm"), "arm", pa.array([name] * table.num_rows))
        (root / name).mkdir(parents=True, exist_ok=True)
        pq.write_table(table.replace_schema_metadata(None), root / name / "batch-000000.parquet")
        arms.append({"name": name, "game": "wizard", "game_version": version, "players": PLAYERS,
                     "rules": {"rounds": 0, "hook_rule": 0, "final_no_trump": 0, "strict_void": 0, **rules},
                     "policies": ["heuristic"] * PLAYERS, "deck": None})
    games = max(t.num_rows for _, _, t in parts)
    study = {"name": "wizard-calibration", "seed": 1, "games": games, "batch_size": games, "arms": arms}
    (root / "study.json").write_text(json.dumps({
        "kaartlab_dataset": 1, "fingerprint": "0" * 16, "study": study,
        "games": {"wizard": {"version": version, "score": "points", "higher_score_wins": True}}, "provenance": {}}))
    return Context(Dataset(root), "wizard", Options())


def _slices(table: pa.Table, replicates: int, games: int) -> list[pa.Table]:
    return [table.slice(i * games, games) for i in range(replicates)]


def _hotelling_power(t2_pooled: float, pooled_games: int, q: int, games: int) -> float:
    lam = t2_pooled * games / pooled_games  # T^2 grows with n at a fixed effect
    crit = sps.f.ppf(1 - ALPHA, q, games - q)
    return float(sps.ncf.sf(crit, q, games - q, lam))


def _verdict_tests(stats: dict, arm: str) -> dict[str, float]:
    """Raw p-value of every seat / position verdict of one arm."""
    s = stats[arm]
    out = {k: s[k]["test"].p_value for k in GAP_VERDICTS}
    out |= {f"dealer_{k}": s["dealer_minus_first"][k].p_value for k in DEALER_VERDICTS}
    return out


def positions(work: Path, replicates: int, games: int, seed: int, rules: dict) -> dict:
    """Seat and position verdicts on relabelled seats (null) and on the games as played (planted)."""
    played = play(rules, seed, replicates * games)
    rng = np.random.default_rng(seed)
    out = {}
    for label, relabel in (("null: seats relabelled", True), ("as played", False)):
        root = work / f"pos-{relabel}"
        parts = [(f"r{i}", rules, _relabel_seats(t, PLAYERS, rng) if relabel else t)
                 for i, t in enumerate(_slices(played, replicates, games))]
        stats = wizard_report.wizard_stats(write_arms(root, parts))
        rejects: dict[str, list[bool]] = {}
        for name, _, _ in parts:
            for k, p in _verdict_tests(stats, name).items():
                rejects.setdefault(k, []).append(bool(p < ALPHA))
        out[label] = {k: rate(v) for k, v in rejects.items()}
        shutil.rmtree(root)
    # stated power of each verdict at `games`, from the effect measured on all games at once
    root = work / "pooled"
    pooled = wizard_report.wizard_stats(write_arms(root, [("all", rules, played)]))["all"]
    total = replicates * games
    stated = {}
    for k in GAP_VERDICTS:
        t = pooled[k]["test"]
        stated[k] = _hotelling_power(t.statistic, total, t.df[0], games)
    for k in DEALER_VERDICTS:
        e = pooled["dealer_minus_first"][k]
        sd = (e.hi - e.value) / sps.t.ppf(1 - ALPHA / 2, e.n - 1) * np.sqrt(e.n)
        stated[f"dealer_{k}"] = paired_power(e.value, sd, games)
    out["stated power"] = stated
    shutil.rmtree(root)
    return out


def _renumber(table: pa.Table, first: int) -> pa.Table:
    """Games numbered from `first`, so independent games can be paired by index with another arm's."""
    games = pa.array(np.arange(first, first + table.num_rows, dtype=np.int64))
    return table.set_column(table.schema.get_field_index("game"), "game", games.cast(table.schema.field("game").type))


def hook(work: Path, replicates: int, games: int, seed: int) -> dict:
    """The hook verdicts (variant comparison of Wizard's measures): an inert rule with independent games
    (null: the variant arm's games are other deals, numbered like the baseline's), and hook-on against
    hook-off on the same deals (planted)."""
    from reports.dataset import Pair
    off = play({}, seed, 2 * replicates * games)
    on = play({"hook_rule": 1}, seed, replicates * games)
    cases = {"null: inert rule (final_no_trump in a full game)": [
                 ((f"a{i}", {}, off.slice(i * games, games)),
                  (f"b{i}", {"final_no_trump": 1}, _renumber(off.slice((replicates + i) * games, games), i * games)))
                 for i in range(replicates)],
             "hook-on vs hook-off": [
                 ((f"a{i}", {}, off.slice(i * games, games)), (f"b{i}", {"hook_rule": 1}, on.slice(i * games, games)))
                 for i in range(replicates)]}
    out = {}
    for n, (label, reps) in enumerate(cases.items()):
        root = work / f"hook{n}"
        ctx = write_arms(root, [part for pair in reps for part in pair])
        pairs = [Pair(ctx.arm(a[0]), ctx.arm(b[0])) for a, b in reps]
        rejects: dict[str, list[bool]] = {}
        diffs: dict[str, list[float]] = {}
        for comps in variants.comparisons(ctx, pairs).values():
            for c in comps:
                if c.measure.key in HOOK_MEASURES:
                    rejects.setdefault(c.measure.key, []).append(bool(c.paired.p_value < ALPHA))
                    diffs.setdefault(c.measure.key, []).append(c.paired.value)
        shutil.rmtree(root)
        out[label] = {k: rate(v) for k, v in rejects.items()}
        if not label.startswith("null"):
            # stated power from the mean and spread of the per-replicate differences
            out["stated power"] = {k: paired_power(np.mean(v), np.std(v, ddof=1) * np.sqrt(games), games)
                                   for k, v in diffs.items()}
    return out


def run(replicates: int, games: int, seed: int) -> dict:
    work = Path(tempfile.mkdtemp(prefix="kaartlab-cal-wizard-"))
    t0 = time.perf_counter()
    try:
        out = {"positions, hook rule off": positions(work, replicates, games, seed, {}),
               "positions, hook rule on": positions(work, replicates, games, seed + 1, {"hook_rule": 1}),
               "hook": hook(work, replicates, games, seed + 2)}
    finally:
        shutil.rmtree(work, ignore_errors=True)
    out["settings"] = {"replicates": replicates, "games": games, "seed": seed, "players": PLAYERS,
                       "seconds": time.perf_counter() - t0}
    return out


def table(res: dict) -> str:
    """Markdown: verdict, null or planted case, rate measured with its 95% interval, nominal or stated."""
    lines = ["| case | verdict | rate measured | 95% interval | nominal / stated power |", "|---|---|---|---|---|"]
    for case, block in res.items():
        if case == "settings":
            continue
        stated = block.get("stated power", {})
        for label, rates in block.items():
            if label == "stated power":
                continue
            for k, r in rates.items():
                want = "5%" if label.startswith("null") else f"{stated.get(k, float('nan')):.0%}"
                lines.append(f"| {case}: {label} | {k} | {r['rate']:.1%} ({r['count']}/{r['n']}) | "
                             f"{r['lo']:.1%}-{r['hi']:.1%} | {want} |")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--replicates", type=int, default=300)
    ap.add_argument("--games", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=71)
    ap.add_argument("--json", type=Path, help="write the figures here")
    args = ap.parse_args(argv)
    res = run(args.replicates, args.games, args.seed)
    if args.json:
        args.json.write_text(json.dumps(res, indent=1, default=float) + "\n")
    print(table(res))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
