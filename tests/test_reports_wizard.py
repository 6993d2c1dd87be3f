"""Tests for Wizard's report sections (reports/games/wizard.py).

A small real dataset from the pipeline (hook rule off/on, 4 heuristic players, 5 rounds) whose
numbers are recomputed here with numpy from the raw columns, and a hand-made dataset with a known
answer (the dealer always bids exactly, nobody else ever does)."""
from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from scipy import stats as sps
from statsmodels.stats.proportion import proportion_confint

sys.path[:0] = [str(Path(__file__).resolve().parents[1]), str(Path(__file__).resolve().parent)]
from reports_fixtures import FakeArm, write_study  # noqa: E402

from pipelines.run import run_study  # noqa: E402
from reports import build_report  # noqa: E402
from reports.registry import outcomes, sections  # noqa: E402
from sim.spec import ArmSpec, StudySpec  # noqa: E402

PLAYERS, ROUNDS, GAMES = 4, 5, 4000


def dealer_of(r: int, n: int) -> int:
    """Dealer of round r (1-based), per docs/rules/wizard.md: the first dealer is seat n-1, then left."""
    return (r - 1 + n - 1) % n


def bid_position(seat: int, r: int, n: int) -> int:
    """0 = first to bid (dealer's left), n-1 = the dealer."""
    return (seat - dealer_of(r, n) - 1) % n


def raw(root: Path, arm: str) -> dict[str, np.ndarray]:
    """One arm's games sorted by game index, list columns as (games, rounds, seats) arrays."""
    df = pl.read_parquet(root / arm / "batch-*.parquet").sort("game")
    g, n = df.height, int(df["players"][0])
    r = len(df["round_bids"][0]) // n
    out = {k: np.array(df[k].to_list()).reshape(g, r, n) for k in ("round_bids", "round_tricks")}
    for k in ("score", "exact_bids", "points_lost"):
        out[k] = np.array(df[k].to_list())
    out["game"] = df["game"].to_numpy()
    return out


def points(bids: np.ndarray, tricks: np.ndarray) -> np.ndarray:
    return np.where(bids == tricks, 20 + 10 * tricks, -10 * np.abs(bids - tricks))


def by_position(values: np.ndarray, n: int) -> np.ndarray:
    """(games, rounds, seats) -> (games, rounds, positions), using the dealer formula directly."""
    out = np.empty_like(values)
    for r in range(1, values.shape[1] + 1):
        for s in range(n):
            out[:, r - 1, bid_position(s, r, n)] = values[:, r - 1, s]
    return out


# -- a real dataset from the pipeline ---------------------------------------------------------------------
@pytest.fixture(scope="module")
def real(tmp_path_factory):
    root = tmp_path_factory.mktemp("wizard")
    arms = tuple(ArmSpec.make("wizard", PLAYERS, {"rounds": ROUNDS, "hook_rule": hook}, "heuristic", name=name)
                 for name, hook in (("hook-off", False), ("hook-on", True)))
    run_study(StudySpec("wizard-test", 17, GAMES, 2000, arms), str(root), workers=0, progress=False)
    paths = build_report(root)
    summary = json.loads(paths["json"].read_text())
    return {"root": root, "paths": paths, "summary": summary, "wizard": summary["sections"]["wizard"],
            "raw": {a.name: raw(root, a.name) for a in arms}}


def child(real, key: str) -> dict:
    return real["wizard"]["children"][key]["data"]


def test_wizard_is_registered_and_reported(real):
    assert sections("wizard") and outcomes("wizard")
    s = real["summary"]
    assert [k for k in s["sections"] if k != "answers"] == ["first_player", "distributions", "variants", "wizard",
                                                            "claims"]
    w = real["wizard"]
    # the hook rule's effects are the variant comparison's: no child section repeats them
    assert list(w["children"]) == ["wizard.positions", "wizard.bid_accuracy", "wizard.scores"]
    md, html = real["paths"]["md"].read_text(), real["paths"]["html"].read_text()
    for title in ("## Wizard: bidding, seats and the dealer", "### Seat and dealer-position effects",
                  "### Bid accuracy", "### Score distributions"):
        assert title in md
    assert 'id="wizard"' in html and 'id="wizard.hook_rule"' not in html
    verdicts = w["verdicts"] + [v for c in w["children"].values() for v in c["verdicts"]]
    assert len(verdicts) >= 10 and all(v in md for v in verdicts)
    assert w["verdicts"][0].startswith("hook-off: ") and "of bids are met exactly" in w["verdicts"][0]
    assert any(v.startswith("The hook rule's effects (hook-on vs hook-off:") and "not tested" in v for v in w["verdicts"])
    assert "bids_match" not in [m.key for m in outcomes("wizard")]  # 0 by the hook rule itself: not a measure
    assert "NaN" not in real["paths"]["json"].read_text()


def test_wizard_detail_is_folded_not_lost(real):
    """report.html keeps the dealer's evidence open (the position table and figure, the exact-bid rate by
    seat) and folds what other sections or the verdicts already show (per seat, the score quantiles);
    report.md has every row of both. Exact bids by round size are one figure, a line per arm."""
    html, md = real["paths"]["html"].read_text(), real["paths"]["md"].read_text()
    folded = re.findall(r'<details class="fold"><summary>(.*?)</summary>', html)
    seat_title = "By seat (seat 0 bids first in round 1; the first dealer is the last seat)"
    score_title = "Winning score, margin and points lost per game"
    assert f"{seat_title} ({2 * PLAYERS} rows)" in folded and f"{score_title} (8 rows)" in folded, folded
    open_parts = re.sub(r'<details class="fold">.*?</details>', "", html, flags=re.S)
    assert "By bidding position (1st = dealer&#x27;s left, dealer = last)</caption>" in open_parts
    assert "<figcaption>Points per round by bidding position</figcaption>" in open_parts
    assert open_parts.count("<figcaption>Exact-bid rate by round size</figcaption>") == 1
    seats = real["wizard"]["children"]["wizard.positions"]["data"]["arms"]["hook-on"]["seats"]
    for x in seats:  # every folded row is whole in the Markdown
        assert f"| hook-on | {x['seat']} | {', '.join(map(str, x['deals_rounds']))} |" in md
    scores = child(real, "wizard.scores")["arms"]["hook-off"]["winning score"]
    assert f"| hook-off | winning score | {scores['mean']:.0f}" in md


def _shares(node):
    """Every estimate of a share in the accuracy data (dicts with 'estimate' under exact-like keys)."""
    if isinstance(node, dict):
        if "estimate" in node:
            yield node
            return
        for v in node.values():
            yield from _shares(v)
    elif isinstance(node, list):
        for v in node:
            yield from _shares(v)


def test_bid_accuracy_is_a_share_with_its_interval(real):
    acc = child(real, "wizard.bid_accuracy")["arms"]
    found = 0
    for arm in acc.values():
        parts = [arm["overall"], arm["by_seat"], arm["by_position"], arm["by_policy"],
                 [{k: x[k] for k in ("exact", "bids_add_up", "by_position")} for x in arm["by_round"]]]
        for est in _shares(parts):
            eps = 1e-12  # a Wilson bound at 0 or n successes may be off by rounding
            assert -eps <= est["lo"] <= est["estimate"] + eps and est["estimate"] <= est["hi"] + eps <= 1.0 + 2 * eps, est
            found += 1
    assert found == 2 * (1 + 4 + 4 + 1 + ROUNDS * 6)


def test_dealer_is_the_last_bidder(real):
    pos = child(real, "wizard.positions")["arms"]
    for name, arm in pos.items():
        assert arm["dealer_position"] == PLAYERS - 1
        assert [p["label"] for p in arm["positions"]] == ["1st", "2nd", "3rd", "dealer"]
        assert arm["dealer"]["exact"] == arm["positions"][PLAYERS - 1]["exact"]
        # seat 3 deals rounds 1 and 5, seat 0 round 2, ...; seat p is at position p in round 1
        assert [x["deals_rounds"] for x in arm["seats"]] == [[2], [3], [4], [1, 5]]
        assert [p["seat_in_round_1"] for p in arm["positions"]] == [0, 1, 2, 3]


def test_exact_bid_rates_match_numpy(real):
    acc = child(real, "wizard.bid_accuracy")["arms"]
    pos = child(real, "wizard.positions")["arms"]
    for name, c in real["raw"].items():
        bids, tricks = c["round_bids"], c["round_tricks"]
        exact = bids == tricks
        assert (exact.sum(axis=1) == c["exact_bids"]).all()  # the dataset's own per-seat count agrees
        pts = points(bids, tricks)
        assert (pts.sum(axis=1) == c["score"]).all()  # the scoring rule recomputed gives the final score
        a, p = acc[name], pos[name]
        assert a["overall"]["estimate"] == pytest.approx(exact.mean())
        assert [x["exact"]["estimate"] for x in a["by_seat"]] == pytest.approx(exact.mean(axis=(0, 1)).tolist())
        at = by_position(exact, PLAYERS)
        assert [x["exact"]["estimate"] for x in a["by_position"]] == pytest.approx(at.mean(axis=(0, 1)).tolist())
        assert [x["exact"]["estimate"] for x in a["by_round"]] == pytest.approx(exact.mean(axis=(0, 2)).tolist())
        assert [x["cards"] for x in a["by_round"]] == list(range(1, ROUNDS + 1))
        for r, x in enumerate(a["by_round"]):
            assert [e["estimate"] for e in x["by_position"]] == pytest.approx(at[:, r, :].mean(axis=0).tolist())
            assert x["dealer_seat"] == dealer_of(r + 1, PLAYERS)
        assert a["by_policy"][0]["policy"] == "heuristic" and a["by_policy"][0]["seats"] == [0, 1, 2, 3]
        assert a["by_policy"][0]["exact"]["estimate"] == pytest.approx(exact.mean())
        # the dealer: exact rate, points per round dealt, and the paired difference to the first bidder
        dealer_exact = at[:, :, PLAYERS - 1].mean(axis=1)
        assert p["dealer"]["exact"]["estimate"] == pytest.approx(dealer_exact.mean())
        assert p["dealer"]["points_per_round"]["estimate"] == pytest.approx(
            by_position(pts, PLAYERS)[:, :, PLAYERS - 1].mean())
        d = dealer_exact - at[:, :, 0].mean(axis=1)
        est = p["dealer_minus_first"]["exact"]
        assert est["estimate"] == pytest.approx(d.mean()) and est["method"] == "paired t"
        half = sps.t.ppf(0.975, d.size - 1) * d.std(ddof=1) / np.sqrt(d.size)
        assert est["hi"] - est["estimate"] == pytest.approx(half)
        # seat 0: per-game share, Wilson at the effective number of games from the per-game variance
        # (rounds of one game are not independent), the report's one interval for shares
        x0 = exact[:, :, 0].mean(axis=1)
        seat0 = a["by_seat"][0]["exact"]
        n_eff = GAMES * x0.mean() * (1 - x0.mean()) / x0.var()
        lo, hi = proportion_confint(x0.mean() * n_eff, n_eff, method="wilson")
        assert (seat0["lo"], seat0["hi"]) == pytest.approx((lo, hi))
        # bids adding up to the cards dealt: never under the hook rule
        adds_up = (bids.sum(axis=2) == np.arange(1, ROUNDS + 1)).mean()
        assert a["bids_add_up"]["estimate"] == pytest.approx(adds_up)
        assert (adds_up == 0) == (name == "hook-on")


def test_score_distributions_match_numpy(real):
    sc = child(real, "wizard.scores")["arms"]
    for name, c in real["raw"].items():
        score = np.sort(c["score"], axis=1)
        arm = sc[name]
        assert arm["winning score"]["mean"] == pytest.approx(score[:, -1].mean())
        assert arm["winning score"]["p50"] == pytest.approx(np.median(score[:, -1]))
        assert arm["margin over the runner-up"]["mean"] == pytest.approx((score[:, -1] - score[:, -2]).mean())
        assert arm["lowest score"]["min"] == score[:, 0].min()
        assert arm["points lost per seat"]["mean"] == pytest.approx(c["points_lost"].mean())
        assert arm["negative_winning_score"]["estimate"] == pytest.approx((score[:, -1] < 0).mean())
        hist = arm["histograms"]["winning score"]
        assert sum(hist["count"]) == GAMES
        assert dict(zip(hist["value"], hist["count"]))[float(np.median(score[:, -1]))] == \
            (score[:, -1] == np.median(score[:, -1])).sum()


def test_hook_rule_comparison_is_paired(real):
    assert real["wizard"]["data"]["hook_rule_pairs"] == ["hook-on vs hook-off"]
    pair = real["summary"]["sections"]["variants"]["data"]["pairs"]["hook-on vs hook-off"]
    assert pair["changes"] == {"hook_rule": [0, 1]} and pair["games_paired"] == GAMES
    assert {"exact_rate", "dealer_exact", "dealer_points", "seat0_win", "balance", "score_mean"} <= set(pair["measures"])
    off, on = real["raw"]["hook-off"], real["raw"]["hook-on"]
    assert (off["game"] == on["game"]).all()
    exact = {k: c["round_bids"] == c["round_tricks"] for k, c in (("off", off), ("on", on))}
    dealer = {k: by_position(e, PLAYERS)[:, :, PLAYERS - 1].mean(axis=1) for k, e in exact.items()}
    m = pair["measures"]["dealer_exact"]
    d = dealer["on"] - dealer["off"]
    assert m["difference"]["method"] == "paired t"
    assert m["difference"]["estimate"] == pytest.approx(d.mean())
    assert m["difference"]["hi"] - m["difference"]["estimate"] == pytest.approx(
        sps.t.ppf(0.975, d.size - 1) * d.std(ddof=1) / np.sqrt(d.size))
    assert m["detected"] and m["difference"]["estimate"] < 0  # the hook binds the dealer
    overall = pair["measures"]["exact_rate"]["difference"]["estimate"]
    assert overall == pytest.approx(exact["on"].mean() - exact["off"].mean())
    assert "first_exact" in pair["measures"] and "overbid" in pair["measures"]


# -- a hand-made dataset with a known answer ----------------------------------------------------------------
def write_crafted(root: Path, games: int = 600, n: int = 3, rounds: int = 4, seed: int = 3,
                  bids: np.ndarray | None = None, tricks: np.ndarray | None = None) -> dict:
    """Wizard rows per docs/schema.md where the dealer always bids exactly and everyone else misses by one
    (or the given bids and tricks, (games, rounds, seats))."""
    rng = np.random.default_rng(seed)
    given = bids is not None
    bids = bids if given else np.zeros((games, rounds, n), np.int64)
    tricks = tricks if given else np.zeros((games, rounds, n), np.int64)
    for r in range(1, rounds + 1 if not given else 1):
        tricks[:, r - 1, :] = rng.multinomial(r, np.full(n, 1 / n), size=games)
        miss = np.where(tricks[:, r - 1, :] < r, tricks[:, r - 1, :] + 1, tricks[:, r - 1, :] - 1)
        bids[:, r - 1, :] = miss
        d = dealer_of(r, n)
        bids[:, r - 1, d] = tricks[:, r - 1, d]
    pts = points(bids, tricks)
    score = pts.sum(axis=1)
    best = score.max(axis=1, keepdims=True)
    winners = score == best
    mask = (winners * (1 << np.arange(n))).sum(axis=1)
    flat = lambda a: [row.reshape(-1).tolist() for row in a]  # noqa: E731
    study = {"name": "crafted", "seed": 1, "games": games, "batch_size": games,
             "arms": [{"name": "crafted", "game": "wizard", "game_version": 1, "players": n,
                       "rules": {"rounds": rounds, "hook_rule": 0, "final_no_trump": 0, "strict_void": 0},
                       "policies": ["heuristic"] * n, "deck": None}]}
    table = pa.table({
        "arm": pa.array(["crafted"] * games), "game": pa.array(np.arange(games, dtype=np.int64)),
        "players": pa.array(np.full(games, n, np.int8)), "winner_mask": pa.array(mask.astype(np.int32)),
        "n_winners": pa.array(winners.sum(axis=1).astype(np.int8)),
        "turns": pa.array(np.full(games, rounds * n * 2, np.int32)), "rounds": pa.array(np.full(games, rounds, np.int32)),
        "score": pa.array(score.tolist(), pa.list_(pa.int32())),
        "round_bids": pa.array(flat(bids), pa.list_(pa.int8())),
        "round_tricks": pa.array(flat(tricks), pa.list_(pa.int8())),
        "round_turned": pa.array([[-1] * rounds] * games, pa.list_(pa.int8())),
        "round_trump": pa.array([[4] * rounds] * games, pa.list_(pa.int8())),
        "exact_bids": pa.array((bids == tricks).sum(axis=1).tolist(), pa.list_(pa.int8())),
        "tricks": pa.array(tricks.sum(axis=1).tolist(), pa.list_(pa.int16())),
        "points_lost": pa.array(np.where(bids == tricks, 0, -pts).sum(axis=1).tolist(), pa.list_(pa.int32())),
        "bid_total": pa.array(bids.sum(axis=1).tolist(), pa.list_(pa.int16())),
    })
    (root / "crafted").mkdir(parents=True)
    pq.write_table(table, root / "crafted" / "batch-000000.parquet")
    (root / "study.json").write_text(json.dumps({
        "kaartlab_dataset": 1, "fingerprint": "0123456789abcdef", "study": study,
        "games": {"wizard": {"version": 1, "score": "points", "higher_score_wins": True}}, "provenance": {}}))
    return {"bids": bids, "tricks": tricks, "score": score}


def test_dealer_who_always_bids_exactly(tmp_path):
    n, rounds = 3, 4
    crafted = write_crafted(tmp_path, n=n, rounds=rounds)
    s = json.loads(build_report(tmp_path)["json"].read_text())
    w = s["sections"]["wizard"]
    pos = w["children"]["wizard.positions"]["data"]["arms"]["crafted"]
    acc = w["children"]["wizard.bid_accuracy"]["data"]["arms"]["crafted"]
    assert pos["dealer_position"] == 2
    assert pos["dealer"]["exact"]["estimate"] == 1.0
    assert [p["exact"]["estimate"] for p in pos["positions"]] == [0.0, 0.0, 1.0]
    assert pos["dealer_minus_first"]["exact"]["estimate"] == 1.0
    # seat 2 deals rounds 1 and 4, seat 0 round 2, seat 1 round 3: exact in exactly those rounds
    assert [x["deals_rounds"] for x in pos["seats"]] == [[2], [3], [1, 4]]
    assert [x["exact"]["estimate"] for x in acc["by_seat"]] == pytest.approx([0.25, 0.25, 0.5])
    assert acc["overall"]["estimate"] == pytest.approx(1 / 3)
    assert [x["exact"]["estimate"] for x in acc["by_round"]] == pytest.approx([1 / 3] * rounds)
    for x in acc["by_round"]:
        assert [e["estimate"] for e in x["by_position"]] == [0.0, 0.0, 1.0]
    dealer_tricks = np.stack([crafted["tricks"][:, r - 1, dealer_of(r, n)] for r in range(1, rounds + 1)], axis=1)
    assert pos["dealer"]["points_per_round"]["estimate"] == pytest.approx((20 + 10 * dealer_tricks).mean())
    assert pos["positions"][0]["points_per_round"]["estimate"] == -10.0  # everyone else misses by one trick
    assert "+100.00 percentage points" in w["verdicts"][0] and "the dealer bids exactly more often" in w["verdicts"][0]
    assert "bidding last pays points" in w["verdicts"][0]
    assert "wizard.hook_rule" not in w["children"]  # no arm has the hook rule: no hook section


def test_dataset_without_wizard_columns_says_so(tmp_path):
    write_study(tmp_path, [FakeArm("bare", game="wizard", players=3, games=200)], seed=2)
    s = json.loads(build_report(tmp_path)["json"].read_text())
    assert "lacks Wizard's columns" in s["sections"]["wizard"]["verdicts"][0]


def test_bidding_last_is_judged_on_points_not_on_exact_bids(tmp_path):
    """The issue's case: a dealer who bids exactly less often but takes more tricks, so scores more per
    round. The verdict on bidding last must follow the points (it said 'bidding last hurts' before)."""
    games, n, rounds = 600, 3, 6
    rng = np.random.default_rng(5)
    tricks = np.zeros((games, rounds, n), np.int64)
    bids = np.zeros((games, rounds, n), np.int64)
    for r in range(1, rounds + 1):
        d = dealer_of(r, n)
        tricks[:, r - 1, d] = r  # the dealer takes every trick, the others none and bid 0 (exact)
        bids[:, r - 1, d] = np.where(rng.random(games) < 0.5, r, r - 1)  # the dealer is exact half the time
    write_crafted(tmp_path, games=games, n=n, rounds=rounds, bids=bids, tricks=tricks)
    s = json.loads(build_report(tmp_path)["json"].read_text())
    w = s["sections"]["wizard"]
    d = w["children"]["wizard.positions"]["data"]["arms"]["crafted"]["dealer_minus_first"]
    assert d["exact"]["hi"] < 0 < d["points_per_round"]["lo"]  # less accurate, more points
    assert "bidding last pays points" in w["verdicts"][0] and "the dealer bids exactly less often" in w["verdicts"][0]
    assert "hurts" not in " ".join(w["verdicts"])
