"""Null tests and planted effects for every verdict the Wie Weet Wat section prints.

Each case synthesises per-game values shaped like the game's rows (docs/schema.md) with a known
truth, feeds their sums to the same estimator the report uses (reports.games.wieweetwat), and
counts how often the verdict's test says 'detectable' at 5% (one claim; the report's Holm
correction can only make it rarer). Under a constructed null that rate must be 5% (the binomial 95%
interval of the measured rate includes it); under a planted effect it must match the power of the
test the report runs (benchmarks/calibration_common.py: t tests by the noncentral t, Hotelling's
test by the noncentral F) at the planted effect, with the estimator's own standard errors ("stated
power").

Verdicts and their nulls:
- first reader: every round's winner drawn with the first reader at exactly 1/players, under
  first-to-3 (the other seats unequal by position); the old estimator (the mean of per-game ratios)
  is run beside it. The printed 'detectable at 80%' is planted too: a first reader whose edge is the
  figure the report prints with its claims corrected together must be found at the report's level
  in 80% of replications (``detectable_trials``);
- skill: seat shares with a position effect per seat and no skill effect, over arms of one setup
  whose seat 1 has 1, 1.25, 1.5 and 2 times the others' skill; the old fit (least squares of share -
  fair on log2 skill ratio without seat effects) beside it;
- card kinds: every kind with the same hold rate, each game with its own rate (cards of one game
  are not independent); coverage of the old per-card Wilson interval beside it. The old stated power
  (a chi-square with the plug-in noncentrality: a test the report does not run) is kept beside the
  new one;
- Wie Weet Wat card value: which seats are dealt a card is independent of who wins the round,
  players unequal, first-to-3; the planted difference is computed exactly (``www_truth``), not
  measured on one large run (whose own sampling error, 0.06 points at 100,000 games, moved the old
  stated power by several points);
- action swing (reader's gain on the leader): per-card changes whose means are equal;
- action length: categories per game depending on the action counts through their total only.

`python -m benchmarks.calibration_wieweetwat [--reps 2000] [--only "card kinds"] [--out FILE]` prints
the markdown table for docs/statistics.md and writes JSON; tests/test_calibration_wieweetwat.py runs
small sizes.
"""
from __future__ import annotations

import argparse
import itertools
import json
import math
import sys
from pathlib import Path

import numpy as np
import polars as pl
from scipy import stats as sps
from statsmodels.stats.proportion import proportion_confint

from benchmarks.calibration_common import hotelling_power, power, rate
from reports.games import wieweetwat as www
from reports.stats import ALPHA

Z = float(sps.norm.ppf(1 - ALPHA / 2))


def sums_cross(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(sums, sums of products) of per-game variables (games x variables)."""
    v = np.asarray(values, float)
    return v.sum(axis=0), v.T @ v


def se_of(est) -> float:
    return (est.hi - est.lo) / (2 * float(sps.t.ppf(1 - ALPHA / 2, max(est.n - 1, 1))))


# -- first reader -------------------------------------------------------------------------------------
def play_rounds(rng, games: int, players: int, by_offset: np.ndarray, to_win: int = 3,
                skills: np.ndarray | None = None, dealt_q: float = 0.0, tilt: float = 0.0) -> dict:
    """Games of rounds until a seat has won ``to_win``: a round's winner is drawn with chance
    by_offset[k] for the seat k places after the round's first reader (seat 0 in round 1, then the
    last winner), times ``skills`` per seat (renormalised), times (1 + tilt) for the seats dealt a
    Wie Weet Wat card (each seat dealt one with chance dealt_q). Per-game counts as the kernel writes
    them."""
    skills = np.ones(players) if skills is None else np.asarray(skills, float)
    score = np.zeros((games, players), int)
    reader = np.zeros(games, int)
    live = np.ones(games, bool)
    out = {k: np.zeros(games) for k in ("won", "rounds", "won_with", "with", "won_without", "without")}
    seats = np.arange(players)
    while live.any():
        g = np.flatnonzero(live)
        offset = (seats[None, :] - reader[g, None]) % players
        weight = by_offset[offset] * skills[None, :]
        dealt = rng.random((len(g), players)) < dealt_q
        weight = weight * (1 + tilt * dealt)
        weight /= weight.sum(axis=1, keepdims=True)
        u = rng.random(len(g))[:, None]
        winner = (weight.cumsum(axis=1) < u).sum(axis=1).clip(max=players - 1)
        out["rounds"][g] += 1
        out["won"][g] += winner == reader[g]
        won_dealt = dealt[np.arange(len(g)), winner]
        out["with"][g] += dealt.sum(axis=1)
        out["without"][g] += players - dealt.sum(axis=1)
        out["won_with"][g] += won_dealt
        out["won_without"][g] += ~won_dealt
        score[g, winner] += 1
        reader[g] = winner
        live[g] = score[g, winner] < to_win
    return out


def first_reader_trial(rng, games: int, players: int, reader_share: float) -> dict:
    rest = np.linspace(1.2, 0.8, players - 1)
    by_offset = np.concatenate([[reader_share], rest / rest.sum() * (1 - reader_share)])
    g = play_rounds(rng, games, players, by_offset)
    est = www.first_reader_share(*sums_cross(np.column_stack([g["won"], g["rounds"]])), games, players)
    ratios = g["won"] / g["rounds"]  # the old estimator: per-game ratios averaged
    old_p = float(sps.ttest_1samp(ratios, 1 / players).pvalue)
    return {"p": est.p_value, "old_p": old_p, "power": power(reader_share - 1 / players, se_of(est), df=games - 1),
            "estimate": est.value, "old_estimate": float(ratios.mean())}


def detectable_trials(rng, reps: int, games: int, players: int, tests: int, pilot: int = 40) -> dict:
    """The first reader's printed 'detectable at 80%' (``www.detectable`` with ``tests`` claims
    corrected together), planted: the edge is the mean printed figure over ``pilot`` replications at
    the planted share itself (two rounds of fixed point from the fair share), then ``reps``
    replications count p at or below the report's level ALPHA / tests (where Holm finds the claim
    whatever the other claims do). The figure the report printed before (one test at ALPHA) is
    planted beside it at the same level."""
    def printed(share, k):
        return float(np.mean([www.detectable(play_share(rng, games, players, share), k) for _ in range(pilot)]))
    level = ALPHA / tests
    out = {}
    for label, k in (("new", tests), ("old", 1)):
        edge = printed(1 / players, k)
        edge = printed(1 / players + edge, k)
        share = 1 / players + edge
        found = [play_share(rng, games, players, share).p_value <= level for _ in range(reps)]
        out[label] = {"edge": edge, **rate(found)}
    return out


def play_share(rng, games: int, players: int, reader_share: float):
    rest = np.linspace(1.2, 0.8, players - 1)
    by_offset = np.concatenate([[reader_share], rest / rest.sum() * (1 - reader_share)])
    g = play_rounds(rng, games, players, by_offset)
    return www.first_reader_share(*sums_cross(np.column_stack([g["won"], g["rounds"]])), games, players)


# -- skill --------------------------------------------------------------------------------------------
SKILL_ARMS = (1.0, 1.25, 1.5, 2.0)  # seat 1's skill against three seats of 1
POSITION = np.array([0.23, 0.28, 0.25, 0.24])  # seat shares without any skill effect


def skill_trial(rng, games: int, slope: float) -> dict:
    arms, old_x, old_y, old_w = [], [], [], []
    for k in SKILL_ARMS:
        x = np.array([-np.log2(k) / 3, np.log2(k), -np.log2(k) / 3, -np.log2(k) / 3])
        p = POSITION + slope * x
        counts = rng.multinomial(games, p)
        mean = counts / games
        cov = (np.diag(mean) - np.outer(mean, mean)) * games / (games - 1)
        arms.append({"setup": "same", "x": x, "mean": mean, "cov": cov, "n": games})
        if k != 1.0:  # the old fit used the seats whose skill differs from the table's
            old_x += list(x)
            old_y += list(mean - 0.25)
            old_w += list(games / np.maximum(np.diag(cov), 1e-9))
    est = www.skill_slope(arms)
    X = np.column_stack([np.ones(len(old_x)), old_x])
    w = np.array(old_w)
    cov = np.linalg.inv(X.T @ (w[:, None] * X))
    beta = cov @ (X.T @ (w * np.array(old_y)))
    old_p = float(2 * sps.norm.sf(abs(beta[1]) / math.sqrt(cov[1, 1])))
    return {"p": est.p_value, "old_p": old_p, "power": power(slope, (est.hi - est.lo) / (2 * Z)),
            "estimate": est.value}


# -- card kinds ---------------------------------------------------------------------------------------
DECK = np.array([3, 5, 2, 3, 2, 1, 4, 2, 1, 1, 2, 2, 3, 1, 3, 3, 2, 5, 3, 1, 4, 2, 1, 4])  # 23 letters + WWW


def kinds_trial(rng, games: int, planted: float) -> dict:
    """Per game: rounds (3-5), cards of each kind in play ~ binomial of the deck's cards x rounds,
    left ~ binomial at the game's own rate (beta around 0.3); kind 0 shifted by ``planted``."""
    k = len(DECK)
    rounds = rng.integers(3, 6, games)
    tot = rng.binomial(DECK[None, :] * rounds[:, None], 0.6)
    game_rate = rng.beta(6, 14, games)[:, None]
    rate = np.clip(game_rate + np.r_[planted, np.zeros(k - 1)][None, :], 0, 1)
    left = rng.binomial(tot, rate)
    v = np.empty((games, 2 * k))
    v[:, 0::2], v[:, 1::2] = left, tot
    rates, test = www.hold_rates(*sums_cross(v), games, list(range(k)))
    true = 6 / 20  # the beta's mean: every kind's rate under the null (kind 1 on)
    covered = [rates[i].lo <= true <= rates[i].hi for i in range(1, k)]
    old = [proportion_confint(left[:, i].sum(), tot[:, i].sum(), method="wilson") for i in range(1, k)]
    old_covered = [lo <= true <= hi for lo, hi in old]
    # stated power of the report's test (Hotelling's T^2, F) at the planted rates, from this
    # replication's covariance of the linearised per-game values
    _, cov = www.delta_ratios(*sums_cross(v), games, [(2 * i, 2 * i + 1) for i in range(k)])
    shift = np.r_[planted, np.zeros(k - 1)]
    # before: a chi-square test (not the F the report uses) at the plug-in noncentrality
    c = np.hstack([np.eye(k - 1), -np.ones((k - 1, 1))])
    lam = float(games * (c @ shift) @ np.linalg.pinv(c @ cov @ c.T) @ (c @ shift))
    old = float(sps.ncx2.sf(sps.chi2.ppf(1 - ALPHA, k - 1), k - 1, lam)) if lam > 0 else ALPHA
    return {"p": test.p_value, "power": hotelling_power(shift, cov, games), "old_power": old,
            "coverage": float(np.mean(covered)), "old_coverage": float(np.mean(old_covered))}


# -- the Wie Weet Wat card ----------------------------------------------------------------------------
WWW_SKILLS = np.array([1.0, 1.6, 0.8, 1.0])
TILT = 0.08  # planted: a seat dealt a card weighs 1 + TILT in the draw of the round's winner


DEALT_Q = 0.45


def www_truth(skills=WWW_SKILLS, dealt_q: float = DEALT_Q, tilt: float = TILT) -> float:
    """The exact difference www_trial's estimator converges to: every round is drawn alike (the
    winner does not depend on the reader there), so the share of seat-rounds won when dealt a card is
    E[won with] / E[seat-rounds with] per round, by summing over the 2^players deals."""
    skills = np.asarray(skills, float)
    players = len(skills)
    won_with = 0.0
    for dealt in itertools.product((0, 1), repeat=players):
        d = np.array(dealt)
        chance = float(np.prod(np.where(d == 1, dealt_q, 1 - dealt_q)))
        w = skills * (1 + tilt * d)
        won_with += chance * float(w[d == 1].sum() / w.sum())
    return won_with / (players * dealt_q) - (1 - won_with) / (players * (1 - dealt_q))


def www_trial(rng, games: int, tilt: float) -> dict:
    g = play_rounds(rng, games, 4, np.full(4, 0.25), skills=WWW_SKILLS, dealt_q=DEALT_Q, tilt=tilt)
    v = np.column_stack([g["won_with"], g["with"], g["won_without"], g["without"]])
    _, _, diff = www.www_difference(*sums_cross(v), games)
    se = se_of(diff)
    return {"p": diff.p_value, "estimate": diff.value, "se": se,
            "power": power(www_truth(tilt=tilt), se, df=games - 1) if tilt else ALPHA}


# -- action swings ------------------------------------------------------------------------------------
def swing_trial(rng, games: int, gain: float) -> dict:
    """Per game: cards drawn ~ Poisson(2); per card the reader's change in {-1, 0, 1, 2} and the
    leader's in {-1, 0, 1}, both tilted by a per-game luck; the leader's mean raised by ``gain``."""
    drawn = rng.poisson(2.0, games)
    luck = rng.normal(0, 0.3, games)
    game = np.repeat(np.arange(games), drawn)  # each card's game

    def per_game(values, p):
        return np.bincount(game, weights=rng.choice(values, size=len(game), p=p), minlength=games)
    own = per_game([-1, 0, 1, 2], [0.3, 0.3, 0.2, 0.2]) + luck * drawn
    lead = per_game([-1, 0, 1], np.array([0.3, 0.4, 0.3]) + gain * np.array([-0.5, 0, 0.5])) + luck * drawn
    own_mean = -0.3 + 0.2 + 0.4
    _, _, est = www.swing(*sums_cross(np.column_stack([drawn, own, lead])), games)
    return {"p": est.p_value, "power": power(gain - own_mean, se_of(est), df=games - 1), "estimate": est.value,
            "truth": gain - own_mean}


# -- action length ------------------------------------------------------------------------------------
def length_trial(rng, games: int, extra: float) -> dict:
    """Game length L drives seven action counts ~ Poisson(rate_a x L); categories = 2 L + 0.5 x
    (total cards) + extra x (cards of action 0) + noise growing with L: every action the same
    coefficient unless ``extra``."""
    length = rng.gamma(6, 5, games)
    rates = np.array([2, 2, 1, 1, 2, 1, 1]) / 60
    counts = rng.poisson(rates[None, :] * length[:, None])
    y = 2 * length + 0.5 * counts.sum(axis=1) + extra * counts[:, 0] + rng.normal(0, 1, games) * np.sqrt(length)
    frame = pl.DataFrame({"rounds": np.ones(games, int), "categories": y,
                          "actions_drawn": counts.tolist()}).lazy()
    fit = www.length_regression(frame, list(range(7)))
    coefs = [fit["coef"][a] for a in range(7)]
    # stated power: Wald chi-square (6 df) at the planted contrasts, from the fit's own covariance
    se = np.array([(e.hi - e.lo) / (2 * float(sps.t.ppf(0.975, e.n - 1))) for e in coefs])
    if extra == 0:
        stated = ALPHA
    else:
        # action 0 against the mean of the others: its coefficient's se dominates the contrast
        lam = (extra / math.sqrt(se[0] ** 2 + np.mean(se[1:] ** 2) / 6)) ** 2
        stated = float(sps.ncx2.sf(sps.chi2.ppf(1 - ALPHA, 6), 6, lam))
    return {"p": fit["equal_p"], "power": stated}


# -- the table ------------------------------------------------------------------------------------------
VERDICTS = ("first reader", "skill", "card kinds", "Wie Weet Wat card", "action swing", "action length")


def run(reps: int = 400, games: int = 1000, seed: int = 26, only: tuple[str, ...] = VERDICTS,
        detectable_reps: int = 0, claims: int = 30) -> list[dict]:
    """Every case of the verdicts in ``only`` at `reps` replications of `games` games (skill: games
    per arm; card kinds: games / 4). Each verdict draws from its own generator ([seed, its index]),
    so a verdict's figures are the same whichever others run. ``detectable_reps``: replications of
    the first reader's printed 'detectable at 80%' planted, with ``claims`` claims in the report."""
    results = []

    def case(verdict, null, trial, nominal=None, old=None, extra=None):
        rows = [trial() for _ in range(reps)]
        res = {"verdict": verdict, "case": null, **rate(r["p"] < ALPHA for r in rows),
               "nominal": nominal if nominal is not None else float(np.mean([r["power"] for r in rows]))}
        if old:
            res["old"] = rate(r[old] < ALPHA for r in rows)
        if extra:
            res.update(extra(rows))
        results.append(res)
        return rows

    def old_power(rows):
        return {"old_stated": float(np.mean([r["old_power"] for r in rows]))}

    for index, verdict in enumerate(VERDICTS):
        if verdict not in only:
            continue
        rng = np.random.default_rng([seed, index])
        if verdict == "first reader":
            case(verdict, "null: reader at 1/players, first-to-3", lambda: first_reader_trial(rng, games, 4, 0.25),
                 nominal=ALPHA, old="old_p")
            case(verdict, "planted: reader at 0.265", lambda: first_reader_trial(rng, games, 4, 0.265))
            if detectable_reps:
                d = detectable_trials(rng, detectable_reps, games, 4, claims)
                for label, words in (("new", f"printed at {claims} claims"), ("old", "printed before (one test at 5%)")):
                    results.append({"verdict": verdict, "case": f"planted: the 'detectable at 80%' {words}, "
                                    f"{d[label]['edge'] * 100:.2f} points; found at 5%/{claims}",
                                    **{k: v for k, v in d[label].items() if k != "edge"},
                                    "edge": d[label]["edge"], "nominal": 0.8 if label == "new" else math.nan})
        elif verdict == "skill":
            case(verdict, "null: seat position effects, no skill effect", lambda: skill_trial(rng, games, 0.0),
                 nominal=ALPHA, old="old_p")
            case(verdict, "planted: +5 points per doubling", lambda: skill_trial(rng, games, 0.05))
        elif verdict == "card kinds":
            kinds_games = max(games // 4, 100)
            case(verdict, "null: every kind the same rate, games clustered", lambda: kinds_trial(rng, kinds_games, 0.0),
                 nominal=ALPHA, extra=lambda rows: {"coverage": float(np.mean([r["coverage"] for r in rows])),
                                                    "old_coverage": float(np.mean([r["old_coverage"] for r in rows]))})
            case(verdict, "planted: one kind +6 points", lambda: kinds_trial(rng, kinds_games, 0.06), extra=old_power)
        elif verdict == "Wie Weet Wat card":
            case(verdict, "null: deal independent of the round's winner", lambda: www_trial(rng, games, 0.0),
                 nominal=ALPHA)
            truth = www_truth()
            # before: the truth measured on one run of 100,000 games, and a z test
            big = www_trial(np.random.default_rng(seed + 1), 100_000, TILT)["estimate"]
            case(verdict, f"planted: winning weight x{1 + TILT:g} when dealt ({truth * 100:+.2f} points)",
                 lambda: www_trial(rng, games, TILT),
                 extra=lambda rows: {"truth": truth, "old_truth": big,
                                     "old_stated": float(np.mean([power(big, r["se"]) for r in rows]))})
        elif verdict == "action swing":
            case(verdict, "null: reader's and leader's mean change equal", lambda: swing_trial(rng, games, 0.3),
                 nominal=ALPHA)
            case(verdict, "planted: reader gains 0.08 card per card", lambda: swing_trial(rng, games, 0.38))
        elif verdict == "action length":
            case(verdict, "null: length through the total count only", lambda: length_trial(rng, games, 0.0),
                 nominal=ALPHA)
            case(verdict, "planted: one action +3 categories per card", lambda: length_trial(rng, games, 3.0))
    return results


def markdown(results: list[dict]) -> str:
    out = ["| verdict | case | detectable | 95% interval | nominal (null) / stated power | old method |",
           "|---|---|---|---|---|---|"]
    for r in results:
        old = f"{r['old']['rate']:.1%}" if "old" in r else ""
        if "old_stated" in r:
            old = f"old stated power {r['old_stated']:.1%}"
        if "old_coverage" in r:
            old = f"interval coverage {r['coverage']:.1%} (old per-card Wilson {r['old_coverage']:.1%})"
        out.append(f"| {r['verdict']} | {r['case']} | {r['rate']:.1%} ({r['count']}/{r['n']}) | "
                   f"{r['lo']:.1%}-{r['hi']:.1%} | {'-' if math.isnan(r['nominal']) else format(r['nominal'], '.1%')} | {old} |")
    return "\n".join(out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=2000)
    ap.add_argument("--games", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=26)
    ap.add_argument("--only", action="append", choices=VERDICTS, help="run only this verdict (repeatable)")
    ap.add_argument("--detectable-reps", type=int, default=400,
                    help="replications of the first reader's printed detectable edge, planted (0: skip)")
    ap.add_argument("--claims", type=int, default=30, help="claims of the report the detectable edge is printed for")
    ap.add_argument("--out", type=Path, default=Path("calibration_wieweetwat.json"))
    a = ap.parse_args(argv)
    results = run(a.reps, a.games, a.seed, tuple(a.only or VERDICTS), a.detectable_reps, a.claims)
    print(markdown(results))
    a.out.write_text(json.dumps({"reps": a.reps, "games": a.games, "seed": a.seed, "only": a.only,
                                 "results": results}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
