"""Null test and power of Wippen's position verdict ('the dealer / the first player scores more per deal'):
`python -m benchmarks.calibration_wippen`.

Real Wippen games (4 players, `greedy`, the kernel) are cut into replicate arms of `games` games and read
with the report code (reports.games.wippen), exactly as a study is read.

* Null: every game's play positions relabelled by a random permutation (position_points moved as a
  whole), so no position differs: the verdict must say 'detectable' in about 5% of arms before the
  report's correction.
* Planted effect: the same games as played (the dealer plays last in every hand of a deal); stated
  power of the report's paired t (noncentral t, games - 1 degrees of freedom) at the dealer's edge and
  spread measured on all games pooled.

The CI version is tests/test_calibration_wippen.py.
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
from reports.context import Context, Options  # noqa: E402
from reports.dataset import Dataset  # noqa: E402
from reports.games import wippen as wippen_report  # noqa: E402
from reports.stats import ALPHA  # noqa: E402

PLAYERS = 4
POLICY = "greedy"


def play(seed: int, games: int) -> pa.Table:
    from sim.registry import get_game
    from sim.spec import ArmSpec
    arm = ArmSpec.make("wippen", PLAYERS, {}, POLICY, name="source")
    return get_game("wippen").runner().play_batch(arm, seed, 0, games)


def relabel_positions(table: pa.Table, rng: np.random.Generator) -> pa.Table:
    """Each game's position_points in a random order: a position label then says nothing about the game."""
    field = table.schema.field("position_points")
    old = np.stack(table["position_points"].to_numpy(zero_copy_only=False))
    new = np.take_along_axis(old, np.argsort(rng.random(old.shape), axis=1), axis=1)
    n, k = new.shape
    arr = pa.ListArray.from_arrays(pa.array(np.arange(0, n * k + 1, k, dtype=np.int32)),
                                   pa.array(new.reshape(-1).astype(field.type.value_type.to_pandas_dtype())))
    return table.set_column(table.schema.get_field_index("position_points"), field.name, arr.cast(field.type))


def write_arms(root: Path, parts: list[tuple[str, pa.Table]]) -> Context:
    from sim.registry import get_game
    info = get_game("wippen")
    arms = []
    for name, table in parts:
        table = table.set_column(table.schema.get_field_index("arm"), "arm", pa.array([name] * table.num_rows))
        (root / name).mkdir(parents=True, exist_ok=True)
        pq.write_table(table.replace_schema_metadata(None), root / name / "batch-000000.parquet")
        arms.append({"name": name, "game": "wippen", "game_version": info.version, "players": PLAYERS,
                     "rules": {}, "policies": [POLICY] * PLAYERS, "deck": None})
    games = max(t.num_rows for _, t in parts)
    study = {"name": "wippen-calibration", "seed": 1, "games": games, "batch_size": games, "arms": arms}
    (root / "study.json").write_text(json.dumps({
        "kaartlab_dataset": 1, "fingerprint": "0" * 16, "study": study,
        "games": {"wippen": {"version": info.version, "score": "points", "higher_score_wins": True}},
        "provenance": {}}))
    return Context(Dataset(root), "wippen", Options())


def position(work: Path, replicates: int, games: int, seed: int) -> dict:
    played = play(seed, replicates * games)
    rng = np.random.default_rng(seed)
    out = {}
    for label, relabel in (("null: positions relabelled", True), ("as played", False)):
        root = work / f"wippen-{relabel}"
        parts = [(f"r{i}", relabel_positions(played.slice(i * games, games), rng) if relabel
                  else played.slice(i * games, games)) for i in range(replicates)]
        stats = wippen_report.wippen_stats(write_arms(root, parts))
        out[label] = {"dealer_minus_first": rate([bool(stats[name]["dealer_minus_first"].p_value < ALPHA)
                                                   for name, _ in parts])}
        shutil.rmtree(root)
    root = work / "pooled"
    e = wippen_report.wippen_stats(write_arms(root, [("all", played)]))["all"]["dealer_minus_first"]
    shutil.rmtree(root)
    sd = (e.hi - e.value) / sps.t.ppf(1 - ALPHA / 2, e.n - 1) * np.sqrt(e.n)
    out["stated power"] = {"dealer_minus_first": paired_power(e.value, sd, games)}
    out["pooled edge"] = e.to_dict()
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--replicates", type=int, default=300)
    ap.add_argument("--games", type=int, default=400)
    ap.add_argument("--seed", type=int, default=81)
    ap.add_argument("--json", type=Path, help="write the figures here")
    args = ap.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="kaartlab-cal-wippen-"))
    t0 = time.perf_counter()
    try:
        res = position(work, args.replicates, args.games, args.seed)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    res["settings"] = {"replicates": args.replicates, "games": args.games, "seed": args.seed, "players": PLAYERS,
                       "policy": POLICY, "seconds": time.perf_counter() - t0}
    if args.json:
        args.json.write_text(json.dumps(res, indent=1, default=float) + "\n")
    lines = ["| case | verdict | rate measured | 95% interval | nominal / stated power |", "|---|---|---|---|---|"]
    for label in ("null: positions relabelled", "as played"):
        r = res[label]["dealer_minus_first"]
        want = "5%" if label.startswith("null") else f"{res['stated power']['dealer_minus_first']:.0%}"
        lines.append(f"| {label} | dealer minus first player | {r['rate']:.1%} ({r['count']}/{r['n']}) | "
                     f"{r['lo']:.1%}-{r['hi']:.1%} | {want} |")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
