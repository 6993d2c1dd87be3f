"""Synthetic kaartlab datasets for report tests, written exactly per docs/schema.md.

Each game's winner is drawn from chosen per-seat win probabilities with numpy's Generator and a
fixed seed. Per-game random numbers come from the study seed only (not the arm), so game i of
every arm uses the same draws: common random numbers, as the real simulator guarantees.
"""
from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from pipelines.integrity import INTEGRITY, batch_relpath, make_record, record_relpath

KNUTTEN_RULES = {"threshold": 31, "hand_limit": 5, "bites_to_end": 10, "john_knut": 0, "heavy_weather": 0,
                 "heavy_bites_to_end": 15}
GAME_INFO = {"knutten": {"version": 1, "score": "bites", "higher_score_wins": False},
             "wizard": {"version": 1, "score": "points", "higher_score_wins": True},
             "newgame": {"version": 1, "score": "points", "higher_score_wins": True}}  # no own sections


@dataclass
class FakeArm:
    name: str
    games: int = 2000
    players: int = 4
    win_probs: tuple[float, ...] | None = None  # per seat; None = fair
    rules: dict = field(default_factory=dict)  # over KNUTTEN_RULES for knutten
    policies: tuple[str, ...] | None = None  # default: "cautious" in every seat
    turns_shift: float = 0.0  # added to every game's length
    tie_rate: float = 0.03  # share of games whose win is shared by two seats
    game: str = "knutten"

    @property
    def probs(self) -> np.ndarray:
        p = np.full(self.players, 1.0 / self.players) if self.win_probs is None else np.asarray(self.win_probs, float)
        assert len(p) == self.players and abs(p.sum() - 1) < 1e-9
        return p

    @property
    def all_rules(self) -> dict:
        return {**KNUTTEN_RULES, **self.rules} if self.game == "knutten" else dict(self.rules)

    @property
    def seat_policies(self) -> list[str]:
        return list(self.policies or ["cautious"] * self.players)

    def expected_shares(self) -> np.ndarray:
        """True weighted win share per seat: a shared win pairs the drawn winner with a uniform other seat."""
        p, n, t = self.probs, self.players, self.tie_rate
        return (1 - t) * p + t * (p / 2 + (1 - p) / (2 * (n - 1)))


def probs_for(policies, strength: dict[str, float], seat_weight=None) -> tuple[float, ...]:
    """Win probabilities proportional to seat weight x policy strength."""
    w = np.array([strength[p] for p in policies], float)
    if seat_weight is not None:
        w = w * np.asarray(seat_weight, float)
    return tuple(w / w.sum())


def _shared_draws(seed: int, games: int, players: int) -> dict[str, np.ndarray]:
    """Per-game random numbers that depend on the study seed and game index only (CRN)."""
    rng = np.random.default_rng(seed)
    names = ["win", "tie", "second", "wind", "swarm", "cannot", "reshuffle", "jd", "js", "jp", "jp2", "jt",
             "jd2", "dc", "dt", "winner_score"]
    out = {k: rng.random(games) for k in names}
    out["length"] = rng.standard_normal(games)
    out["seat_score"] = rng.random((games, players))
    return out


def _seat_mask(mask: np.ndarray, seat: np.ndarray) -> np.ndarray:
    return (mask >> seat) & 1


def arm_columns(arm: FakeArm, shared: dict[str, np.ndarray], noise: np.random.Generator) -> dict[str, np.ndarray]:
    n, k = arm.games, arm.players
    s = {key: v[:n] for key, v in shared.items()}
    cum = np.cumsum(arm.probs)
    first = np.minimum(np.searchsorted(cum, s["win"] * cum[-1], side="right"), k - 1)
    tie = s["tie"] < arm.tie_rate
    second = (first + 1 + np.floor(s["second"] * (k - 1)).astype(int)) % k
    mask = (1 << first) | np.where(tie, 1 << second, 0)
    winners = np.stack([_seat_mask(mask, np.full(n, j)) for j in range(k)], axis=1).astype(bool)
    turns = np.maximum(5, np.round(120 + 25 * s["length"] + arm.turns_shift + noise.normal(0, 4, n))).astype(np.int32)
    rounds = (1 + turns // 30).astype(np.int32)
    cols = {"winner_mask": mask.astype(np.int32), "n_winners": (1 + tie).astype(np.int8), "turns": turns,
            "rounds": rounds}
    if arm.game != "knutten":
        points = np.where(winners, 100 + np.floor(s["winner_score"] * 20)[:, None],
                          np.floor(s["seat_score"][:, :k] * 90))
        cols["score"] = points.astype(np.int32)
        return cols
    bites = np.where(winners, np.floor(s["winner_score"] * 2)[:, None], 2 + np.floor(s["seat_score"][:, :k] * 9))
    cols["score"] = bites.astype(np.int32)
    john = bool(arm.all_rules.get("john_knut"))
    heavy = bool(arm.all_rules.get("heavy_weather"))
    cols["swarm_bites"] = np.floor(s["swarm"] * 3).astype(np.int16)
    cols["wind_calls"] = np.floor(-np.log(s["wind"]) * (1.0 + 0.5 * john + 0.5 * heavy)).astype(np.int16)
    cols["cannot_play"] = np.floor(s["cannot"] * 2).astype(np.int16)
    cols["reshuffles"] = np.floor(s["reshuffle"] * 3).astype(np.int16)
    cols["john_in_deck"] = np.full(n, john)
    minus = np.full(n, -1)
    if john:
        drawn = s["jd"] < 0.9
        drawn_by = np.where(drawn, np.floor(s["js"] * k).astype(int), -1)
        played = drawn & (s["jp"] < 0.6)
        played_by = np.where(played, drawn_by, -1)
        target = np.full(n, -1)
        for off in range(k - 1, 0, -1):  # the first non-winner after the player (last assignment wins)
            cand = (played_by + off) % k
            free = ~winners[np.arange(n), cand]
            target = np.where(played & free, cand, target)
        target = np.where(played & (target < 0), (played_by + 1) % k, target)
        plays = played * (1 + (s["jp2"] < 0.2))
        discards = (drawn & ~played & (s["dc"] < 0.5)).astype(int)
        cols.update(
            john_drawn_by=drawn_by, john_draws=drawn * (1 + (s["jd2"] < 0.3)), john_played_by=played_by,
            john_played_turn=np.where(played, np.floor(s["jt"] * turns), -1), john_target=target,
            john_bites=plays, john_plays=plays, john_discards=discards,
            john_discarded_turn=np.where(discards > 0, np.floor(s["dt"] * turns), -1))
    else:
        cols.update(john_drawn_by=minus, john_draws=np.zeros(n), john_played_by=minus, john_played_turn=minus,
                    john_target=minus, john_bites=np.zeros(n), john_plays=np.zeros(n), john_discards=np.zeros(n),
                    john_discarded_turn=minus)
    return cols


KNUTTEN_TYPES = {"swarm_bites": pa.int16(), "wind_calls": pa.int16(), "cannot_play": pa.int16(),
                 "reshuffles": pa.int16(), "john_in_deck": pa.bool_(), "john_drawn_by": pa.int8(),
                 "john_draws": pa.int16(), "john_played_by": pa.int8(), "john_played_turn": pa.int32(),
                 "john_target": pa.int8(), "john_bites": pa.int16(), "john_plays": pa.int16(),
                 "john_discards": pa.int16(), "john_discarded_turn": pa.int32()}


def _table(arm: FakeArm, cols: dict[str, np.ndarray], lo: int, hi: int) -> pa.Table:
    count, k = hi - lo, arm.players
    score = cols["score"][lo:hi]
    data = {
        "arm": pa.array([arm.name] * count, pa.string()),
        "game": pa.array(np.arange(lo, hi, dtype=np.int64)),
        "players": pa.array(np.full(count, k, np.int8)),
        "winner_mask": pa.array(cols["winner_mask"][lo:hi].astype(np.int32)),
        "n_winners": pa.array(cols["n_winners"][lo:hi].astype(np.int8)),
        "turns": pa.array(cols["turns"][lo:hi].astype(np.int32)),
        "rounds": pa.array(cols["rounds"][lo:hi].astype(np.int32)),
        "score": pa.ListArray.from_arrays(pa.array(np.arange(0, count * k + 1, k, dtype=np.int32)),
                                          pa.array(score.reshape(-1).astype(np.int32))),
    }
    for name, typ in (KNUTTEN_TYPES.items() if arm.game == "knutten" else ()):
        data[name] = pa.array(np.asarray(cols[name][lo:hi]).astype(typ.to_pandas_dtype()), typ)
    return pa.table(data)


def write_study(root: Path, arms: list[FakeArm], seed: int = 7, batch_size: int | None = None,
                name: str = "test-study", write_manifest: bool = True) -> dict:
    """Write DIR/study.json and DIR/<arm>/batch-NNNNNN.parquet; return the study.json content plus
    'columns': {arm: generated columns} for checks. Batches default to a size that divides every
    arm's games, so an arm with fewer games than the study's reads as one whose last batches are
    missing (as after an interrupted run), never as one with a short batch (a damaged file)."""
    if batch_size is None:
        common = math.gcd(*(a.games for a in arms))
        batch_size = next(d for d in range(min(5000, common), 0, -1) if common % d == 0)
    root = Path(root)
    root.mkdir(parents=True, exist_ok=True)
    fingerprint = hashlib.sha256(json.dumps([name, seed, [a.name for a in arms]]).encode()).hexdigest()[:16]
    study = {"name": name, "seed": seed, "games": max(a.games for a in arms), "batch_size": batch_size,
             "arms": [{"name": a.name, "game": a.game, "game_version": 1, "players": a.players,
                       "rules": a.all_rules, "policies": a.seat_policies, "deck": None} for a in arms]}
    manifest = {"kaartlab_dataset": 2, "integrity": INTEGRITY, "fingerprint": fingerprint, "study": study,
                "games": {g: GAME_INFO[g] for g in dict.fromkeys(a.game for a in arms)},
                "provenance": {"kaartlab": "0.1.0", "git": None, "python": "3.11", "packages": {},
                               "created": "2025-01-01T00:00:00Z", "command": "tests/reports_fixtures.py"}}
    max_players = max(a.players for a in arms)
    shared = _shared_draws(seed, study["games"], max_players)
    generated = {}
    for i, arm in enumerate(arms):
        cols = arm_columns(arm, shared, np.random.default_rng([seed, i + 1]))
        generated[arm.name] = cols
        (root / arm.name).mkdir(exist_ok=True)
        for b, lo in enumerate(range(0, arm.games, batch_size)):
            table = _table(arm, cols, lo, min(lo + batch_size, arm.games))
            table = table.replace_schema_metadata({"kaartlab.fingerprint": fingerprint, "kaartlab.arm": arm.name,
                                                   "kaartlab.study": json.dumps(study)})
            sink = pa.BufferOutputStream()
            pq.write_table(table, sink)
            data = sink.getvalue().to_pybytes()
            relpath = batch_relpath(arm.name, b)
            (root / relpath).write_bytes(data)
            record = make_record(arm.name, b, lo, table.num_rows, data, table.num_rows, fingerprint, None)
            (root / record_relpath(relpath)).write_text(json.dumps(record))
    if write_manifest:
        (root / "study.json").write_text(json.dumps(manifest, indent=1))
    return {**manifest, "columns": generated}


def weighted_wins(cols: dict[str, np.ndarray], players: int) -> np.ndarray:
    """Reference computation of weighted win counts per seat, with numpy (not the report code)."""
    mask, nw = cols["winner_mask"], cols["n_winners"].astype(float)
    return np.array([(((mask >> s) & 1) / nw).sum() for s in range(players)])
