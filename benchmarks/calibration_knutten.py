"""Null test and power of the John Knut section's role verdicts (the drawer / player / target of John
'goes with winning more or less often'): `python -m benchmarks.calibration_knutten`.

Synthetic Knutten datasets (benchmarks/stats_calibration.py, docs/schema.md) read with the report code
(reports.games.knutten), exactly as a study is read:

* Null: John's drawer, player and target unrelated to who wins, with a 4-point seat-0 edge and a drawer
  who is seat 0 twice as often as any other seat (so the expected share is not 1/players). Each role
  verdict must say 'detectable' in about 5% of arms before the report's correction.
* Planted effect: in a share `plant` of the games where John is drawn, the drawer is a winner of the
  game (the rest as in the null); the player is then the drawer too when John is played, the target
  another seat. The drawer verdict must find it at its stated power (normal approximation from the
  drawer's edge and spread measured on all games pooled; the report's t test, benchmarks/calibration_common.py).

The CI version is tests/test_calibration_knutten.py.
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
from benchmarks.stats_calibration import SynthArm, _context, write_synthetic  # noqa: E402
from reports.games import knutten as knutten_report  # noqa: E402
from reports.stats import ALPHA  # noqa: E402

PLAYERS = 4
ROLES = ("drawer", "player", "target")


def plant_drawer(path: Path, plant: float, rng: np.random.Generator) -> None:
    """Rewrite one arm's batch: in a share `plant` of the drawn games the drawer becomes a winner."""
    t = pq.read_table(path)
    drawer = t["john_drawn_by"].to_numpy().astype(np.int64)
    played = t["john_played_by"].to_numpy().astype(np.int64) >= 0
    mask = t["winner_mask"].to_numpy()
    lowest_winner = np.array([int(m & -m).bit_length() - 1 for m in mask])
    move = (drawer >= 0) & (rng.random(len(drawer)) < plant)
    drawer = np.where(move, lowest_winner, drawer)
    player = np.where(played, drawer, -1)
    target = np.where(played, (player + 1 + rng.integers(0, PLAYERS - 1, len(drawer))) % PLAYERS, -1)
    for name, values in (("john_drawn_by", drawer), ("john_played_by", player), ("john_target", target)):
        i = t.schema.get_field_index(name)
        t = t.set_column(i, name, pa.array(values.astype(np.int8), t.schema.field(name).type))
    pq.write_table(t, path)


def roles(work: Path, replicates: int, games: int, seed: int, plant: float = 0.0) -> dict:
    """Rejection rate (p < 5%, before correction) of each role verdict over `replicates` arms."""
    root = work / f"roles-{plant}"
    arms = [SynthArm(f"r{i}", games, PLAYERS, 0.04, john=True, drawer=(0.4, 0.2, 0.2, 0.2)) for i in range(replicates)]
    arms.append(SynthArm("pooled", games * replicates, PLAYERS, 0.04, john=True, drawer=(0.4, 0.2, 0.2, 0.2)))
    write_synthetic(root, arms, seed)
    if plant:
        rng = np.random.default_rng(seed)
        for arm in arms:
            plant_drawer(root / arm.name / "batch-000000.parquet", plant, rng)
    stats = knutten_report.john_stats(_context(root))
    out = {role: rate([bool(stats[a.name]["roles"][role]["edge"].p_value < ALPHA) for a in arms[:-1]])
           for role in ROLES}
    stated = {}
    for role in ROLES:
        e = stats["pooled"]["roles"][role]["edge"]
        sd = (e.hi - e.value) / sps.t.ppf(1 - ALPHA / 2, e.n - 1) * np.sqrt(e.n)
        stated[role] = paired_power(e.value, sd, games)
    shutil.rmtree(root)
    return {"rejections": out, "stated power": stated, "games": games, "replicates": replicates, "plant": plant}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--replicates", type=int, default=1000)
    ap.add_argument("--games", type=int, default=1000)
    ap.add_argument("--plant", type=float, default=0.04)
    ap.add_argument("--seed", type=int, default=91)
    ap.add_argument("--json", type=Path, help="write the figures here")
    args = ap.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="kaartlab-cal-knutten-"))
    t0 = time.perf_counter()
    try:
        res = {"null": roles(work, args.replicates, args.games, args.seed),
               "planted": roles(work, args.replicates, args.games, args.seed + 1, args.plant)}
    finally:
        shutil.rmtree(work, ignore_errors=True)
    res["seconds"] = time.perf_counter() - t0
    if args.json:
        args.json.write_text(json.dumps(res, indent=1, default=float) + "\n")
    lines = ["| case | verdict | rate measured | 95% interval | nominal / stated power |", "|---|---|---|---|---|"]
    for case in ("null", "planted"):
        for role, r in res[case]["rejections"].items():
            want = "5%" if case == "null" else f"{res[case]['stated power'][role]:.0%}"
            label = "null: roles unrelated to winning" if case == "null" else f"planted: drawer wins in +{args.plant:.0%}"
            lines.append(f"| {label} | {role} | {r['rate']:.1%} ({r['count']}/{r['n']}) | {r['lo']:.1%}-{r['hi']:.1%} | "
                         f"{want} |")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
