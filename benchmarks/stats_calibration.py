"""Calibration of the report statistics against known truth: `python -m benchmarks.stats_calibration`.

Synthetic Knutten datasets are written per docs/schema.md with independent games and a known answer,
then read by the report code exactly as a study would be (Parquet, Polars, reports.*):

* seats: fair 3-, 4- and 5-player arms (and a 4-player arm with a 2-point seat-0 edge) whose games
  end in shared wins about as often as Knutten's (45%). Measured: coverage of every seat share's
  interval, of seat 0's edge, of balance; the equal-seats test's rejection rate when seats are equal;
  the mean balance estimate (bias).
* pairs: two arms with identical rules in all but a label, independent games. Measured: coverage of 0
  by every paired difference (the false 'detectable' rate of each measure before correction), balance
  change included.
* players: the same seats (with a 3-point seat-0 edge) under relabelled players (trap, cautious,
  random) that rotate unevenly over the seats; every player is the same. Measured: coverage of each
  seat-adjusted player share (truth: the fair share) and the rate of 'stronger/weaker' claims.
* head_to_head: equal players, two of them swapping seats 0 and 1 between two arms, seat-0 edge:
  coverage of 1/2 by the balanced head-to-head, and that unbalanced pairs make no claim.
* roles: John Knut arms whose drawer / player / target is unrelated to winning, with a seat-0 edge and
  a drawer who is seat 0 more often. Measured: coverage of 0 by each role's difference from its
  expected share.
* power: a fair 4-player arm against one with a true balance change of -1.25 points (seat 0 wins alone
  in 1.25% of games), at 2,000 and 10,000 games: how often the seat-0 share change and the balance
  change are found (before correction) and how often their intervals cover the truth.
* wizard_seats: real Wizard games (heuristic self-play) with the seats relabelled at random in every
  game: the Wizard section's seat and position gap tests should reject 5% of arms; the same games
  as played show what they find when positions really differ.
* equal_seats_size: the equal-seats test alone, many replicates, fair 3/4/5 players (no Parquet).
* shared_deals: variant pairs on shared deals (common random numbers, 80% of the variant's games the
  baseline's): a null with strong positive correlation between the arms (coverage of 0 by every
  paired interval, pairs with any claim after Holm) and a planted seat-0 change found at the power
  the paired test states.
* ratings_identical: Bradley-Terry ratings of identical players under different labels (truth: 0),
  on shared deals and on independent games: how often a rating's interval, or the gap between the
  two highest, excludes 0.
* report_power: complete reports in which a seat-0 edge equal to the printed detectable edge is
  planted: the share of reports that call it detectable after Holm (stated: 80%).
* reports: complete reports on studies where nothing differs (fair seats, identical variant arms,
  relabelled equal players, John roles unrelated to winning). Measured: the share of reports with at
  least one 'detectable' claim after the Holm (and Benjamini-Hochberg) correction, and before it.

Each figure is also computed the way the reports did before (plain Wilson with weighted wins,
chi-square on weighted counts, plain max - min, raw player shares, 1/players as the role baseline),
so docs/statistics.md can show both. The small CI version is tests/test_stats_calibration.py.
"""
from __future__ import annotations

import argparse
import json
import math
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
from scipy import stats as sps
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.proportion import proportion_confint

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.calibration_common import rate  # noqa: E402
from reports.build import build_sections  # noqa: E402
from reports.context import Context, Options  # noqa: E402
from reports.dataset import Dataset, Pair  # noqa: E402
from reports.games import knutten as knutten_report  # noqa: E402
from reports.sections import first_player, policies, variants  # noqa: E402

SHARED = (0.55, 0.30, 0.15)  # P(1, 2, 3 winners): 45% of games end in a shared win, as in Knutten
RULES = {"threshold": 31, "hand_limit": 5, "bites_to_end": 10, "john_knut": 0, "heavy_weather": 0,
         "heavy_bites_to_end": 15}
GAME_INFO = {"knutten": {"version": 1, "score": "bites", "higher_score_wins": False}}
INT_TYPES = {"swarm_bites": pa.int16(), "wind_calls": pa.int16(), "cannot_play": pa.int16(), "reshuffles": pa.int16(),
             "john_drawn_by": pa.int8(), "john_draws": pa.int16(), "john_played_by": pa.int8(),
             "john_played_turn": pa.int32(), "john_target": pa.int8(), "john_bites": pa.int16(),
             "john_plays": pa.int16(), "john_discards": pa.int16(), "john_discarded_turn": pa.int32()}


@dataclass
class SynthArm:
    """An arm with known truth. A game is won by seat 0 alone with probability ``edge``; otherwise 1, 2
    or 3 seats (SHARED) chosen uniformly share the win. True share: seat 0 edge + (1 - edge)/k, every
    other seat (1 - edge)/k. With ``john``, John's drawer is seat s with probability ``drawer``[s],
    independent of the winners, so no role is associated with winning. With ``deals``, game i is
    drawn from a stream shared by every arm with the same ``deals`` (as a real study deals game i alike
    in every arm), except a share 1 - ``same`` of games drawn from the arm's own stream (one different
    play changes the rest of a real game): two such arms are strongly, not perfectly, correlated, and
    a seat-0 edge that differs between them moves only the games whose shared draw falls below it."""

    name: str
    games: int
    players: int = 4
    edge: float = 0.0
    rules: dict = field(default_factory=dict)
    policies: tuple | None = None
    john: bool = False
    drawer: tuple | None = None
    deals: int | None = None  # arms with the same deals play game i from the same stream (common random numbers)
    same: float = 1.0  # share of games that follow the shared deals; the rest are played from the arm's own stream

    def truth(self) -> np.ndarray:
        t = np.full(self.players, (1 - self.edge) / self.players)
        t[0] += self.edge
        return t


def _columns(arm: SynthArm, rng: np.random.Generator) -> dict:
    n, k = arm.games, arm.players
    winners_n = np.minimum(rng.choice(np.arange(1, len(SHARED) + 1), size=n, p=SHARED), k)
    ranks = np.argsort(np.argsort(rng.random((n, k)), axis=1), axis=1)
    winners = ranks < winners_n[:, None]
    solo = rng.random(n) < arm.edge
    winners[solo] = False
    winners[solo, 0] = True
    mask = (winners * (1 << np.arange(k))).sum(axis=1)
    bites = np.where(winners, rng.integers(0, 2, (n, k)), rng.integers(2, 11, (n, k)))
    turns = np.maximum(5, np.round(rng.normal(120, 25, n))).astype(np.int32)
    cols = {"winner_mask": mask.astype(np.int32), "n_winners": winners.sum(axis=1).astype(np.int8), "turns": turns,
            "rounds": (1 + turns // 30).astype(np.int32), "score": bites.astype(np.int32),
            "swarm_bites": rng.integers(0, 3, n), "wind_calls": rng.geometric(0.6, n) - 1,
            "cannot_play": rng.integers(0, 2, n), "reshuffles": rng.integers(0, 3, n),
            "john_in_deck": np.full(n, arm.john)}
    minus = np.full(n, -1)
    if arm.john:
        q = np.asarray(arm.drawer or np.full(k, 1 / k), float)
        drawn = rng.random(n) < 0.9
        drawer = np.where(drawn, rng.choice(k, size=n, p=q / q.sum()), -1)
        played = drawn & (rng.random(n) < 0.6)
        played_by = np.where(played, drawer, -1)
        target = np.where(played, (played_by + 1 + rng.integers(0, k - 1, n)) % k, -1)
        plays = played.astype(int)
        discards = (drawn & ~played & (rng.random(n) < 0.5)).astype(int)
        cols.update(john_drawn_by=drawer, john_draws=drawn.astype(int), john_played_by=played_by,
                    john_played_turn=np.where(played, turns // 2, -1), john_target=target, john_bites=plays,
                    john_plays=plays, john_discards=discards, john_discarded_turn=np.where(discards > 0, turns // 3, -1))
    else:
        zero = np.zeros(n, int)
        cols.update(john_drawn_by=minus, john_draws=zero, john_played_by=minus, john_played_turn=minus,
                    john_target=minus, john_bites=zero, john_plays=zero, john_discards=zero, john_discarded_turn=minus)
    return cols


def _arm_columns(arm: SynthArm, seed: int, i: int) -> dict:
    """The arm's columns: from its own stream, or from its shared deals with 1 - ``same`` of the games
    replaced by its own (every column draws the same numbers whatever the arm's edge, so the shared
    games are the same games)."""
    own = _columns(arm, np.random.default_rng([seed, i]))
    if arm.deals is None:
        return own
    shared = _columns(arm, np.random.default_rng([seed, 1_000_003, arm.deals]))
    if arm.same >= 1.0:
        return shared
    apart = np.random.default_rng([seed, i, 7]).random(arm.games) >= arm.same
    return {k: np.where(apart if np.ndim(v) == 1 else apart[:, None], own[k], v) for k, v in shared.items()}


def write_synthetic(root: Path, arms: list[SynthArm], seed: int, name: str = "calibration") -> None:
    """DIR/study.json and DIR/<arm>/batch-000000.parquet (docs/schema.md); every arm's games independent."""
    root = Path(root)
    root.mkdir(parents=True, exist_ok=True)
    study = {"name": name, "seed": seed, "games": max(a.games for a in arms), "batch_size": max(a.games for a in arms),
             "arms": [{"name": a.name, "game": "knutten", "game_version": 1, "players": a.players,
                       "rules": {**RULES, **a.rules, **({"john_knut": 1} if a.john else {})},
                       "policies": list(a.policies or ["cautious"] * a.players), "deck": None} for a in arms]}
    for i, arm in enumerate(arms):
        cols = _arm_columns(arm, seed, i)
        n, k = arm.games, arm.players
        data = {"arm": pa.array([arm.name] * n, pa.string()), "game": pa.array(np.arange(n, dtype=np.int64)),
                "players": pa.array(np.full(n, k, np.int8)), "winner_mask": pa.array(cols["winner_mask"]),
                "n_winners": pa.array(cols["n_winners"]), "turns": pa.array(cols["turns"]),
                "rounds": pa.array(cols["rounds"]),
                "score": pa.ListArray.from_arrays(pa.array(np.arange(0, n * k + 1, k, dtype=np.int32)),
                                                  pa.array(cols["score"].reshape(-1)))}
        for c, typ in INT_TYPES.items():
            data[c] = pa.array(np.asarray(cols[c]).astype(typ.to_pandas_dtype()), typ)
        data["john_in_deck"] = pa.array(cols["john_in_deck"], pa.bool_())
        (root / arm.name).mkdir(exist_ok=True)
        pq.write_table(pa.table(data), root / arm.name / "batch-000000.parquet")
    (root / "study.json").write_text(json.dumps({"kaartlab_dataset": 1, "fingerprint": f"{seed:016x}", "study": study,
                                                 "games": GAME_INFO, "provenance": {}}))


def _context(root: Path) -> Context:
    return Context(Dataset(root), "knutten", Options())


def _covers(lo: float, hi: float, truth: float) -> bool:
    return bool(lo <= truth + 1e-12 and truth - 1e-12 <= hi)


# -- scenarios ---------------------------------------------------------------------------------------------
def seats(work: Path, replicates: int, games: int, seed: int) -> dict:
    """Per configuration: coverage of shares, edge and balance; size of the equal-seats test; bias."""
    configs = {"fair 3p": (3, 0.0), "fair 4p": (4, 0.0), "fair 5p": (5, 0.0), "4p, 2-point edge": (4, 0.02)}
    out = {}
    for ci, (label, (k, edge)) in enumerate(configs.items()):
        root = work / f"seats{ci}"
        arms = [SynthArm(f"r{i}", games, k, edge) for i in range(replicates)]
        write_synthetic(root, arms, seed + ci)
        ctx = _context(root)
        stats = first_player.seat_stats(ctx)
        share_cov, share_old, edge_cov, bal_cov, eq_rej, chi_rej, bal, bal_old = [], [], [], [], [], [], [], []
        bal_cov_old, bal_over_old = [], []
        for arm in arms:
            st, truth = stats[arm.name], arm.truth()
            for s in range(k):
                share_cov.append(_covers(st.shares[s].lo, st.shares[s].hi, truth[s]))
                lo, hi = proportion_confint(st.wins[s], st.games, method="wilson")  # before: weighted count
                share_old.append(_covers(lo, hi, truth[s]))
            edge_cov.append(_covers(st.edge.lo, st.edge.hi, truth[0] - 1 / k))
            true_balance = 1 - (truth.max() - truth.min())
            bal_cov.append(_covers(st.balance.lo, st.balance.hi, true_balance))
            bal.append(st.balance.value)
            bal_old.append(1 - (st.mean.max() - st.mean.min()))
            # before: 1 - t-interval of the per-game gap between the two observed extreme seats
            hi_s, lo_s = int(np.argmax(st.mean)), int(np.argmin(st.mean))
            sd = math.sqrt(max(st.cov[hi_s, hi_s] + st.cov[lo_s, lo_s] - 2 * st.cov[hi_s, lo_s], 0.0))
            half = sps.t.ppf(0.975, st.games - 1) * sd / math.sqrt(st.games)
            gap = st.mean[hi_s] - st.mean[lo_s]
            bal_cov_old.append(_covers(1 - gap - half, 1 - gap + half, true_balance))
            bal_over_old.append(1 - gap + half > 1)
            eq_rej.append(st.chi.p_value < 0.05)
            chi_rej.append(sps.chisquare(st.wins).pvalue < 0.05)
        out[label] = {"players": k, "edge": edge, "games": games, "replicates": replicates,
                      "true_balance": 1 - (arms[0].truth().max() - arms[0].truth().min()),
                      "share_coverage": rate(share_cov), "share_coverage_before": rate(share_old),
                      "edge_coverage": rate(edge_cov), "balance_coverage": rate(bal_cov),
                      "balance_mean": float(np.mean(bal)), "balance_mean_before": float(np.mean(bal_old)),
                      "balance_coverage_before": rate(bal_cov_old), "balance_interval_above_100_before": rate(bal_over_old),
                      "equal_seats_rejections": rate(eq_rej) if edge == 0 else None,
                      "chi_square_rejections_before": rate(chi_rej) if edge == 0 else None}
    return out


def pairs(work: Path, replicates: int, games: int, seed: int, edge: float = 0.02) -> dict:
    """Identical arms (a label differs), independent games: every paired interval should cover 0."""
    root = work / "pairs"
    arms = []
    for i in range(replicates):
        pol = (f"p{i}",) * 4  # a label per replicate, so only the two arms of a replicate pair up
        arms += [SynthArm(f"r{i}-a", games, 4, edge, rules={"threshold": 31}, policies=pol),
                 SynthArm(f"r{i}-b", games, 4, edge, rules={"threshold": 32}, policies=pol)]
    write_synthetic(root, arms, seed)
    ctx = _context(root)
    ds = ctx.dataset
    prs = [Pair(ds.arm(f"r{i}-a"), ds.arm(f"r{i}-b")) for i in range(replicates)]
    comps = variants.comparisons(ctx, prs)
    by_measure: dict[str, list[bool]] = {}
    for cs in comps.values():
        for c in cs:
            if not c.paired.hi > c.paired.lo:
                continue  # a measure that is constant in these arms (John bites without John) says nothing
            by_measure.setdefault(c.measure.key, []).append(_covers(c.paired.lo, c.paired.hi, 0.0))
    allc = [x for v in by_measure.values() for x in v]
    return {"games": games, "replicates": replicates, "seat0_edge": edge,
            "coverage_by_measure": {k: rate(v) for k, v in by_measure.items()}, "coverage_all": rate(allc)}


def power(work: Path, replicates: int, games: int, seed: int, change: float = 0.0125) -> dict:
    """A real balance change: a fair 4-player arm against one whose seat 0 wins alone with probability
    ``change`` (true balance 100% against 100% - change). Measured: how often each paired interval
    excludes 0 on the right side (power, before correction) and how often it covers the true change."""
    root = work / "power"
    arms = []
    for i in range(replicates):
        pol = (f"p{i}",) * 4
        arms += [SynthArm(f"r{i}-a", games, 4, 0.0, rules={"threshold": 31}, policies=pol),
                 SynthArm(f"r{i}-b", games, 4, change, rules={"threshold": 32}, policies=pol)]
    write_synthetic(root, arms, seed)
    ctx = _context(root)
    ds = ctx.dataset
    comps = variants.comparisons(ctx, [Pair(ds.arm(f"r{i}-a"), ds.arm(f"r{i}-b")) for i in range(replicates)])
    truth = {"seat0_win": change * (1 - 1 / 4), "balance": -change}
    found: dict[str, list[bool]] = {k: [] for k in truth}
    covered: dict[str, list[bool]] = {k: [] for k in truth}
    for cs in comps.values():
        for c in cs:
            key = c.measure.key
            if key in truth:
                right_side = c.paired.lo > 0 if truth[key] > 0 else c.paired.hi < 0
                found[key].append(bool(right_side))
                covered[key].append(_covers(c.paired.lo, c.paired.hi, truth[key]))
    return {"games": games, "replicates": replicates, "true_change": truth,
            "detected": {k: rate(v) for k, v in found.items()}, "coverage": {k: rate(v) for k, v in covered.items()}}


def paired_shared_deals(work: Path, replicates: int, games: int, seed: int, same: float = 0.8,
                        change: float = 0.0) -> dict:
    """Variant pairs on shared deals (common random numbers), as a real study plays them: game i of
    both arms comes from one stream, except a share 1 - ``same`` of the variant's games, played from
    its own stream. Both arms have the same distribution when ``change`` is 0 (a null with strong
    positive correlation between the arms); with ``change`` the variant's seat 0 wins alone whenever
    a game's draw falls below it (true seat-0 share change 3/4 of it, balance change -change).
    Measured: coverage of the truth by every paired interval (and by the unpaired one, which ignores
    the correlation: far above 95%), the false-claim rate per measure and
    per pair (any claim of the pair after Holm over its claims), how much narrower pairing makes the
    seat-0 interval, and for a planted change how often the paired seat-0 test finds it against the
    power the paired test states (NormalIndPower at the per-game SD of the differences, 5%)."""
    from statsmodels.stats.power import NormalIndPower

    root = work / f"shared-deals-{change:g}"
    arms = []
    for i in range(replicates):
        pol = (f"p{i}",) * 4
        arms += [SynthArm(f"r{i}-a", games, 4, 0.0, rules={"threshold": 31}, policies=pol, deals=i),
                 SynthArm(f"r{i}-b", games, 4, change, rules={"threshold": 32}, policies=pol, deals=i, same=same)]
    write_synthetic(root, arms, seed)
    ctx = _context(root)
    ds = ctx.dataset
    comps = variants.comparisons(ctx, [Pair(ds.arm(f"r{i}-a"), ds.arm(f"r{i}-b")) for i in range(replicates)])
    truth = {"seat0_win": 0.75 * change, "balance": -change, **{f"seat{s}_win": -0.25 * change for s in (1, 2, 3)}}
    if change == 0:
        truth.update(turns=0.0, rounds=0.0)  # every measure is null; without a change the rest too
    covered: dict[str, list[bool]] = {}
    pair_claims, found, stated, narrower, unpaired = [], [], [], [], []
    for cs in comps.values():
        pvals = []
        for c in cs:
            if c.claim is None or not c.paired.hi > c.paired.lo:
                continue  # fixed by design (John's columns without John): no claim
            pvals.append(c.claim.p_value)
            key = c.measure.key
            if key in truth or change == 0:
                covered.setdefault(key, []).append(_covers(c.paired.lo, c.paired.hi, truth.get(key, 0.0)))
                unpaired.append(_covers(c.unpaired.lo, c.unpaired.hi, truth.get(key, 0.0)))
            if key == "seat0_win":
                narrower.append(c.narrowing)
                if change:
                    n = c.paired.n
                    sd = (c.paired.hi - c.paired.lo) / 2 / sps.t.ppf(0.975, n - 1) * math.sqrt(n)
                    stated.append(float(NormalIndPower().power(truth[key] / sd, nobs1=n, alpha=0.05, ratio=0)))
                    found.append(bool(c.paired.lo > 0))
        pair_claims.append(bool(multipletests(pvals, method="holm")[0].any()) if pvals else False)
    allc = [x for v in covered.values() for x in v]
    out = {"games": games, "replicates": replicates, "same_games": same, "change": change, "true_change": truth,
           "coverage_by_measure": {k: rate(v) for k, v in covered.items()}, "coverage_all": rate(allc),
           "unpaired_coverage_all": rate(unpaired), "seat0_narrower_median": float(np.median(narrower)), "pairs_with_any_claim_holm": rate(pair_claims)}
    if change:
        out.update(seat0_found=rate(found), seat0_stated_power=float(np.mean(stated)))
    shutil.rmtree(root, ignore_errors=True)
    return out


SWAP = (("a", "b", "c", "c"), ("b", "a", "c", "c"))
NULL_ROTATION = (("trap", "cautious", "random", "cautious"), ("random", "trap", "cautious", "cautious"),
                 ("cautious", "random", "trap", "cautious"))


def ratings_identical(work: Path, replicates: int, games: int, seed: int) -> dict:
    """Bradley-Terry ratings of identical players under different labels, seats equal (truth: every
    rating 0). Designs: two players swapping seats 0 and 1, and the null studies' three-arm rotation,
    each on shared deals (identical players on the same deals play the same game, as in a real study)
    and the rotation on independent games. Measured per group: ratings whose interval excludes 0,
    groups with any, and the gap between the two highest-rated players excluding 0 (the section's
    verdict); before: the same intervals without the exact rule for contrasts that never vary (a
    rounding error of 1e-15 with a zero-width interval 'excluded 0')."""
    from reports.bradley_terry import ELO
    from reports.sections import ratings as ratings_section
    from reports.stats import _z

    def old_excludes(r, lvec) -> bool:  # the intervals as the section computed them before
        v, se = float(lvec @ r.theta), math.sqrt(max(float(lvec @ r.cov @ lvec), 0.0))
        return not (v - _z() * se <= 0.0 <= v + _z() * se)

    designs = {"swap, shared deals": (SWAP, True), "rotation, shared deals": (NULL_ROTATION, True),
               "rotation, independent games": (NULL_ROTATION, False)}
    out = {}
    for d, (label, (design, shared)) in enumerate(designs.items()):
        root = work / f"ratings{d}"
        arms = [SynthArm(f"r{i}-{j}", games, 4, 0.0, rules={"threshold": 20 + i}, policies=pol,
                         deals=i if shared else None) for i in range(replicates) for j, pol in enumerate(design)]
        write_synthetic(root, arms, seed + d)
        groups = ratings_section.rating_groups(_context(root))
        per, per_old, any_, any_old, gap, gap_old, exact = [], [], [], [], [], [], []
        for g in groups:
            r = g.ratings
            q = len(r.players)
            ex = [r.rating(i).excludes(0.0) for i in range(q)]
            ex_old = [old_excludes(r, np.eye(q)[i]) for i in range(q)]
            per += ex
            per_old += ex_old
            any_.append(any(ex))
            any_old.append(any(ex_old))
            top, nxt = (int(i) for i in np.argsort(-r.theta)[:2])
            gap.append(r.difference(top, nxt).excludes(0.0))
            gap_old.append(old_excludes(r, np.eye(q)[top] - np.eye(q)[nxt]))
            exact.append(r.fixed(top, nxt))
        out[label] = {"groups": len(groups), "games_per_arm": games, "arms_per_group": len(design),
                      "rating_excludes_0": rate(per), "rating_excludes_0_before": rate(per_old),
                      "any_rating_excludes_0": rate(any_), "any_rating_excludes_0_before": rate(any_old),
                      "top_gap_excludes_0": rate(gap), "top_gap_excludes_0_before": rate(gap_old),
                      "top_two_level_by_design": rate(exact), "elo_per_log_odds": ELO}
        shutil.rmtree(root, ignore_errors=True)
    return out


def report_power(work: Path, replicates: int, games: int, seed: int, small: bool = False) -> dict:
    """Complete reports (the null studies' seven arms, Holm over all their claims) in which arm
    'base' has a true seat-0 edge equal to the detectable edge the report prints for it (80% power
    at the level the report tests at). The printed figure depends a little on the edge itself (seat
    0's per-game variance), so it is read from a pilot report with the edge planted at the null
    report's figure. Measured: how often the report calls base's edge detectable (at least 80%),
    and the printed detectable edge over the replicates. ``small``: only the null studies' first two
    arms (a variant pair), a cheaper full report with fewer claims, for CI."""
    def one(edge: float, s: int) -> tuple[float, bool, int]:
        root = work / f"report-power{s}"
        arms = null_study(games)[:2] if small else null_study(games)
        arms[0] = SynthArm("base", games, 4, edge / (1 - 1 / 4), rules={"threshold": 31})  # edge over the fair share
        write_synthetic(root, arms, s)
        sections, _ = build_sections(Dataset(root), Options(correction="holm"), figures=False)
        base = next(sec.data for sec in sections if sec.key.endswith("first_player"))["arms"]["base"]
        claims = sum(1 for c in sections[-1].data["claims"].values() if c["p_value"] == c["p_value"])
        shutil.rmtree(root, ignore_errors=True)
        return float(base["detectable_edge"]), bool(base["seat0_edge"]["detected"]), claims

    null_figure = one(0.0, seed)[0]
    planted, _, _ = one(null_figure, seed + 1)
    printed, found, claims = [], [], []
    for i in range(replicates):
        d, hit, m = one(planted, seed + 2 + i)
        printed.append(d)
        found.append(hit)
        claims.append(m)
    return {"games_per_arm": games, "replicates": replicates, "arms": 2 if small else len(null_study(games)),
            "planted_edge": planted,
            "printed_detectable_edge_null": null_figure, "printed_detectable_edge_mean": float(np.mean(printed)),
            "claims_per_report": float(np.mean(claims)), "detected_holm": rate(found)}


def equal_seats_size(replicates: int, games: int, seed: int) -> dict:
    """The equal-seats test alone (no Parquet, so many replicates are cheap): its rejection rate on fair
    3-, 4- and 5-player games with Knutten-like shared wins. Nominal 5%."""
    from reports.stats import equal_means_test
    out = {}
    for k in (3, 4, 5):
        rng = np.random.default_rng([seed, k])
        hits = []
        for _ in range(replicates):
            n_win = np.minimum(rng.choice(np.arange(1, len(SHARED) + 1), size=games, p=SHARED), k)
            ranks = np.argsort(np.argsort(rng.random((games, k)), axis=1), axis=1)
            w = (ranks < n_win[:, None]) / n_win[:, None]
            hits.append(equal_means_test(w.mean(axis=0), np.cov(w, rowvar=False), games).p_value < 0.05)
        out[f"fair {k}p"] = rate(hits)
    return {"games": games, "replicates": replicates, "rejections": out}


ROTATION = (("trap", "cautious", "random", "cautious"), ("random", "trap", "cautious", "cautious"),
            ("cautious", "random", "trap", "cautious"), ("trap", "cautious", "random", "cautious"))


def players(work: Path, replicates: int, games: int, seed: int, edge: float = 0.03) -> dict:
    """Equal players relabelled over seats with a seat-0 edge: adjusted shares should cover 1/players."""
    root = work / "players"
    arms = [SynthArm(f"r{i}-{j}", games, 4, edge, rules={"threshold": 20 + i}, policies=pol)
            for i in range(replicates) for j, pol in enumerate(ROTATION)]
    write_synthetic(root, arms, seed)
    ctx = _context(root)
    groups = policies.policy_groups(ctx)
    cov, raw_cov, claims_any, raw_any = [], [], [], []
    for g in groups:
        hit = raw_hit = False
        for p in g.policies:
            adj = g.fit.adjusted[p]
            cov.append(_covers(adj.lo, adj.hi, 0.25))
            hit |= not _covers(adj.lo, adj.hi, 0.25)
            raw = g.share[p]
            raw_cov.append(_covers(raw.lo, raw.hi, 0.25))
            raw_hit |= not _covers(raw.lo, raw.hi, 0.25)
        claims_any.append(hit)
        raw_any.append(raw_hit)
    return {"games_per_arm": games, "arms_per_group": len(ROTATION), "replicates": len(groups), "seat0_edge": edge,
            "separable": all(g.separable for g in groups), "adjusted_coverage": rate(cov),
            "raw_coverage_before": rate(raw_cov), "any_player_claim_uncorrected": rate(claims_any),
            "any_player_claim_raw_before": rate(raw_any)}


def head_to_head(work: Path, replicates: int, games: int, seed: int, edge: float = 0.03) -> dict:
    """Equal players, two of them swapping seats 0 and 1 between two arms (seat 0 has an edge): the
    swap makes their head-to-head balanced, so its interval should cover 1/2; pairs whose seat order
    does not cancel must not be claimed at all."""
    root = work / "h2h"
    swap = (("trap", "cautious", "random", "random"), ("cautious", "trap", "random", "random"))
    arms = [SynthArm(f"r{i}-{j}", games, 4, edge, rules={"threshold": 20 + i}, policies=pol)
            for i in range(replicates) for j, pol in enumerate(swap)]
    write_synthetic(root, arms, seed)
    groups = policies.policy_groups(_context(root))
    cov, unbalanced_claimed = [], []
    for g in groups:
        for (a, b), est in g.matchup.items():
            if a >= b:
                continue  # b vs a is the complement of a vs b
            if (a, b) in g.balanced:
                cov.append(_covers(est.lo, est.hi, 0.5))
            else:
                unbalanced_claimed.append(("h2h", a, b) in g.claims)
    return {"games_per_arm": games, "replicates": len(groups), "seat0_edge": edge, "balanced_coverage": rate(cov),
            "unbalanced_pairs_claimed": rate(unbalanced_claimed)}


def roles(work: Path, replicates: int, games: int, seed: int) -> dict:
    """John's roles unrelated to winning, seat-0 edge and a drawer who is seat 0 more often."""
    root = work / "roles"
    arms = [SynthArm(f"r{i}", games, 4, 0.04, john=True, drawer=(0.4, 0.2, 0.2, 0.2)) for i in range(replicates)]
    write_synthetic(root, arms, seed)
    ctx = _context(root)
    stats = knutten_report.john_stats(ctx)
    cov, old = {}, {}
    for arm in arms:
        for role, v in stats[arm.name]["roles"].items():
            cov.setdefault(role, []).append(_covers(v["edge"].lo, v["edge"].hi, 0.0))
            sh = v["share"]
            old.setdefault(role, []).append(_covers(sh.lo, sh.hi, 0.25))  # before: against 1/players
    return {"games": games, "replicates": replicates, "coverage": {r: rate(v) for r, v in cov.items()},
            "coverage_against_fair_before": {r: rate(v) for r, v in old.items()}}


SEAT_LISTS = ("score", "exact_bids", "tricks", "points_lost", "bid_total")  # Wizard columns indexed by seat
ROUND_SEAT_LISTS = ("round_bids", "round_tricks")  # indexed by round * players + seat


def _relabel_seats(table: pa.Table, players: int, rng: np.random.Generator) -> pa.Table:
    """Each game's seats renamed by a uniform random permutation (a seat's values all move together):
    a seat label then says nothing about the game, so every seat and bidding-position gap is 0."""
    n = table.num_rows
    perm = np.argsort(rng.random((n, players)), axis=1)  # old seat s becomes seat perm[g, s]
    rows = np.arange(n)[:, None]
    cols = {}
    for name in SEAT_LISTS:
        old = np.stack(table[name].to_numpy(zero_copy_only=False))
        new = np.empty_like(old)
        new[rows, perm] = old
        cols[name] = new
    for name in ROUND_SEAT_LISTS:
        old = np.stack(table[name].to_numpy(zero_copy_only=False))
        rounds = old.shape[1] // players
        old3 = old.reshape(n, rounds, players)
        new3 = np.empty_like(old3)
        new3[rows, :, perm] = old3.transpose(0, 2, 1)
        cols[name] = new3.reshape(n, -1)
    mask = table["winner_mask"].to_numpy()
    bits = (mask[:, None] >> np.arange(players)) & 1
    moved = np.zeros_like(bits)
    moved[rows, perm] = bits
    cols["winner_mask"] = (moved << np.arange(players)).sum(axis=1).astype(np.int32)
    for name, values in cols.items():
        field = table.schema.field(name)
        if name == "winner_mask":
            arr = pa.array(values, field.type)
        else:
            flat = values.reshape(-1).astype(field.type.value_type.to_pandas_dtype())
            width = values.shape[1]
            arr = pa.ListArray.from_arrays(pa.array(np.arange(0, n * width + 1, width, dtype=np.int32)), pa.array(flat))
        table = table.set_column(table.schema.get_field_index(name), field.name, arr.cast(field.type))
    return table


def wizard_seats(work: Path, replicates: int, games: int, seed: int, players: int = 4,
                 rules: dict | None = None) -> dict:
    """Real Wizard games (heuristic self-play) whose seats are relabelled at random in every game, so
    no seat or bidding position differs. Measured: how often each of the Wizard section's gap tests
    (seats' exact bids, seats' points, positions' exact bids) rejects before correction (nominal 5%),
    and, on the same games left as played, how often it finds the real differences."""
    from reports.games import wizard as wizard_report
    from sim.registry import get_game
    from sim.spec import ArmSpec

    info = get_game("wizard")
    arm = ArmSpec.make("wizard", players, rules or {}, "heuristic", name="source")
    played = info.runner().play_batch(arm, seed, 0, replicates * games)
    rng = np.random.default_rng(seed)
    out = {}
    for label, relabel in (("relabelled", True), ("as played", False)):
        root = work / f"wizard-{label.replace(' ', '-')}"
        arms = []
        for i in range(replicates):
            part = played.slice(i * games, games)
            if relabel:
                part = _relabel_seats(part, players, rng)
            name = f"r{i}"
            part = part.set_column(part.schema.get_field_index("arm"), "arm", pa.array([name] * games, pa.string()))
            part = part.replace_schema_metadata(None)
            (root / name).mkdir(parents=True, exist_ok=True)
            pq.write_table(part, root / name / "batch-000000.parquet")
            arms.append({"name": name, "game": "wizard", "game_version": info.version, "players": players,
                         "rules": dict(arm.rules), "policies": ["heuristic"] * players, "deck": None})
        study = {"name": "wizard-seats", "seed": seed, "games": games, "batch_size": games, "arms": arms}
        (root / "study.json").write_text(json.dumps({
            "kaartlab_dataset": 1, "fingerprint": f"{seed:016x}", "study": study,
            "games": {"wizard": {"version": info.version, "score": "points", "higher_score_wins": True}},
            "provenance": {}}))
        stats = wizard_report.wizard_stats(Context(Dataset(root), "wizard", Options()))
        rejects = {}
        for key in ("seat_exact_gap", "seat_score_gap", "position_exact_gap"):
            rejects[key] = rate([stats[a["name"]][key]["test"].p_value < 0.05 for a in arms])
        out[label] = rejects
        shutil.rmtree(root)
    return {"games": games, "replicates": replicates, "players": players, "rules": rules or {},
            "rejections": out}


def null_study(games: int, small: bool = False) -> list[SynthArm]:
    """A study where nothing differs: every claim of its report is a false one if 'detectable'."""
    rot = (("trap", "cautious", "random", "cautious"), ("random", "trap", "cautious", "cautious"),
           ("cautious", "random", "trap", "cautious"))
    return [SynthArm("base", games, 4, rules={"threshold": 31}), SynthArm("variant", games, 4, rules={"threshold": 32}),
            *[SynthArm(f"mixed-{j}", games, 4, rules={"threshold": 25}, policies=pol) for j, pol in enumerate(rot)],
            SynthArm("john", games, 3, john=True, drawer=(0.5, 0.25, 0.25))]


def reports(work: Path, replicates: int, games: int, seed: int) -> dict:
    """Complete reports (no figures) on studies where nothing differs: reports with any 'detectable'."""
    holm, bh, raw, sizes = [], [], [], []
    for i in range(replicates):
        root = work / f"report{i}"
        write_synthetic(root, null_study(games), seed + i)
        sections, _ = build_sections(Dataset(root), Options(correction="holm"), figures=False)
        claims = list(sections[-1].data["claims"].values())
        pvals = [c["p_value"] for c in claims if c["p_value"] == c["p_value"]]
        holm.append(any(c["detected"] for c in claims))
        bh.append(bool(multipletests(pvals, method="fdr_bh")[0].any()))  # same p-values, the other correction
        raw.append(any(p < 0.05 for p in pvals))
        sizes.append(len(claims))
        shutil.rmtree(root)
    return {"games_per_arm": games, "replicates": replicates, "claims_per_report": float(np.mean(sizes)),
            "any_detectable_holm": rate(holm), "any_detectable_bh": rate(bh), "any_p_below_5pct_uncorrected": rate(raw)}


def planted_change(games: int, same: float = 0.8) -> float:
    """A variant's seat-0 solo-win rate that the paired seat-0 test finds with about 80% power at 5%:
    the per-game SD of a seat-0 difference is about sqrt(2 (1 - same) var), var 0.125 the variance of
    a seat's win weight here, and the share change is 3/4 of the solo-win rate."""
    sd = math.sqrt(2 * (1 - same) * 0.125)
    return (sps.norm.ppf(0.975) + sps.norm.ppf(0.8)) * sd / math.sqrt(games) / 0.75


def run(replicates: int = 200, games: int = 400, report_replicates: int = 100, report_games: int = 400,
        seed: int = 1, small_games: tuple = (50, 2000), power_games: tuple = (2000, 10000),
        size_replicates: int = 2000) -> dict:
    work = Path(tempfile.mkdtemp(prefix="kaartlab-calibration-"))
    t0 = time.perf_counter()
    try:
        out = {"seats": seats(work, replicates, games, seed), "pairs": pairs(work, replicates, games, seed + 10),
               "players": players(work, max(replicates // 4, 10), games, seed + 20),
               "roles": roles(work, replicates, games, seed + 30),
               "head_to_head": head_to_head(work, max(replicates // 2, 10), games, seed + 35),
               "power": {n: power(work / f"power{n}", max(replicates // 2, 10), n, seed + 50 + n) for n in power_games},
               "equal_seats_size": equal_seats_size(size_replicates, games, seed + 60),
               "wizard_seats": wizard_seats(work, replicates, games, seed + 70),
               "reports": reports(work, report_replicates, report_games, seed + 1000),
               "shared_deals_null": paired_shared_deals(work, replicates, games, seed + 80),
               "shared_deals_planted": paired_shared_deals(work, replicates, games, seed + 90,
                                                           change=planted_change(games)),
               "ratings_identical": ratings_identical(work, max(replicates // 2, 10), games, seed + 100),
               "report_power": report_power(work, report_replicates, report_games, seed + 2000)}
        out["balance_bias"] = {}
        for n in small_games:
            res = seats(work / f"bias{n}", replicates, n, seed + 40 + n)["fair 4p"]
            out["balance_bias"][n] = {"balance_mean": res["balance_mean"], "balance_mean_before": res["balance_mean_before"],
                                      "balance_coverage": res["balance_coverage"]}
    finally:
        shutil.rmtree(work, ignore_errors=True)
    out["seconds"] = time.perf_counter() - t0
    out["settings"] = {"replicates": replicates, "games": games, "report_replicates": report_replicates,
                       "report_games": report_games, "seed": seed, "shared_wins": SHARED}
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--replicates", type=int, default=1000)
    ap.add_argument("--games", type=int, default=1000)
    ap.add_argument("--report-replicates", type=int, default=400)
    ap.add_argument("--report-games", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", type=Path, help="write the figures here")
    ap.add_argument("--size-replicates", type=int, default=4000, help="replicates of the equal-seats test alone")
    args = ap.parse_args(argv)
    res = run(args.replicates, args.games, args.report_replicates, args.report_games, args.seed,
              size_replicates=args.size_replicates)
    text = json.dumps(res, indent=1, default=float)
    if args.json:
        args.json.write_text(text + "\n")
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
