"""Null tests and planted effects for every verdict the Wie Weet Wat section prints.

Each case synthesises per-game values shaped like the game's rows (docs/schema.md) with a known
truth, feeds their sums to the same estimator the report uses (reports.games.wieweetwat), and
counts how often the verdict's test says 'detectable' at 5% (one claim; the report's Holm
correction can only make it rarer). Under a constructed null that rate must be 5% (the binomial 95%
interval of the measured rate includes it); under a planted effect it must match the power that
the estimator's own standard errors imply for that effect ("stated power").

Verdicts and their nulls:
- first reader: every round's winner drawn with the first reader at exactly 1/players, under
  first-to-3 (the other seats unequal by position); the old estimator (the mean of per-game ratios)
  is run beside it;
- skill: seat shares with a position effect per seat and no skill effect, over arms of one setup
  whose seat 1 has 1, 1.25, 1.5 and 2 times the others' skill; the old fit (least squares of share -
  fair on log2 skill ratio without seat effects) beside it;
- card kinds: every kind with the same hold rate, each game with its own rate (cards of one game
  are not independent); coverage of the old per-card Wilson interval beside it;
- Wie Weet Wat card value: which seats are dealt a card is independent of who wins the round,
  players unequal, first-to-3;
- action swing (reader's gain on the leader): per-card changes whose means are equal;
- action length: categories per game depending on the action counts through their total only.

`python -m benchmarks.calibration_wieweetwat [--reps 2000] [--out FILE]` prints the markdown table
for docs/statistics.md and writes JSON; tests/test_calibration_wieweetwat.py runs small sizes.
"""
from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

import numpy as np
import polars as pl
from scipy import stats as sps
from statsmodels.stats.proportion import proportion_confint

from reports.games import wieweetwat as www

ALPHA = 0.05
Z = float(sps.norm.ppf(1 - ALPHA / 2))


def sums_cross(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(sums, sums of products) of per-game variables (games x variables)."""
    v = np.asarray(values, float)
    return v.sum(axis=0), v.T @ v


def z_power(effect: float, se: float) -> float:
    """Power of a two-sided 5% z-test for a true effect with this standard error."""
    if not se > 0:
        return math.nan
    return float(sps.norm.cdf(abs(effect) / se - Z) + sps.norm.cdf(-abs(effect) / se - Z))


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
    return {"p": est.p_value, "old_p": old_p, "power": z_power(reader_share - 1 / players, se_of(est)),
            "estimate": est.value, "old_estimate": float(ratios.mean())}


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
    return {"p": est.p_value, "old_p": old_p, "power": z_power(slope, (est.hi - est.lo) / (2 * Z)),
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
    # stated power of Hotelling's test: noncentral chi-square at the planted contrast
    r, cov = www.delta_ratios(*sums_cross(v), games, [(2 * i, 2 * i + 1) for i in range(k)])
    c = np.hstack([np.eye(k - 1), -np.ones((k - 1, 1))])
    d = c @ np.r_[planted, np.zeros(k - 1)]
    lam = float(games * d @ np.linalg.pinv(c @ cov @ c.T) @ d)
    crit = sps.chi2.ppf(1 - ALPHA, k - 1)
    return {"p": test.p_value, "power": float(sps.ncx2.sf(crit, k - 1, lam)) if lam > 0 else ALPHA,
            "coverage": float(np.mean(covered)), "old_coverage": float(np.mean(old_covered))}


# -- the Wie Weet Wat card ----------------------------------------------------------------------------
WWW_SKILLS = np.array([1.0, 1.6, 0.8, 1.0])
TILT = 0.08  # planted: a seat dealt a card weighs 1 + TILT in the draw of the round's winner


def www_trial(rng, games: int, tilt: float) -> dict:
    g = play_rounds(rng, games, 4, np.full(4, 0.25), skills=WWW_SKILLS, dealt_q=0.45, tilt=tilt)
    v = np.column_stack([g["won_with"], g["with"], g["won_without"], g["without"]])
    _, _, diff = www.www_difference(*sums_cross(v), games)
    return {"p": diff.p_value, "estimate": diff.value, "se": se_of(diff)}


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
    return {"p": est.p_value, "power": z_power(gain - own_mean, se_of(est)), "estimate": est.value,
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
        power = ALPHA
    else:
        # action 0 against the mean of the others: its coefficient's se dominates the contrast
        lam = (extra / math.sqrt(se[0] ** 2 + np.mean(se[1:] ** 2) / 6)) ** 2
        power = float(sps.ncx2.sf(sps.chi2.ppf(1 - ALPHA, 6), 6, lam))
    return {"p": fit["equal_p"], "power": power}


# -- the table ------------------------------------------------------------------------------------------
def rate(flags) -> dict:
    flags = [bool(f) for f in flags]
    count, n = sum(flags), len(flags)
    lo, hi = proportion_confint(count, n, alpha=0.05, method="beta")
    return {"count": count, "n": n, "rate": count / n, "lo": float(lo), "hi": float(hi)}


def run(reps: int = 400, games: int = 1000, seed: int = 26) -> list[dict]:
    """Every case at `reps` replications of `games` games (skill: games per arm)."""
    rng = np.random.default_rng(seed)
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

    case("first reader", "null: reader at 1/players, first-to-3", lambda: first_reader_trial(rng, games, 4, 0.25),
         nominal=ALPHA, old="old_p")
    case("first reader", "planted: reader at 0.265", lambda: first_reader_trial(rng, games, 4, 0.265))
    case("skill", "null: seat position effects, no skill effect", lambda: skill_trial(rng, games, 0.0),
         nominal=ALPHA, old="old_p")
    case("skill", "planted: +5 points per doubling", lambda: skill_trial(rng, games, 0.05))
    kinds_games = max(games // 4, 100)
    case("card kinds", "null: every kind the same rate, games clustered", lambda: kinds_trial(rng, kinds_games, 0.0),
         nominal=ALPHA, extra=lambda rows: {"coverage": float(np.mean([r["coverage"] for r in rows])),
                                            "old_coverage": float(np.mean([r["old_coverage"] for r in rows]))})
    case("card kinds", "planted: one kind +6 points", lambda: kinds_trial(rng, kinds_games, 0.06))
    case("Wie Weet Wat card", "null: deal independent of the round's winner", lambda: www_trial(rng, games, 0.0),
         nominal=ALPHA)
    # the planted tilt's true difference, from one large run; stated power from each rep's se
    big = www_trial(np.random.default_rng(seed + 1), 100_000, TILT)["estimate"]
    rows = [www_trial(rng, games, TILT) for _ in range(reps)]
    results.append({"verdict": "Wie Weet Wat card", "case": f"planted: winning weight x{1 + TILT:g} when dealt "
                    f"({big * 100:+.2f} points)", **rate(r["p"] < ALPHA for r in rows),
                    "nominal": float(np.mean([z_power(big, r["se"]) for r in rows]))})
    case("action swing", "null: reader's and leader's mean change equal", lambda: swing_trial(rng, games, 0.3),
         nominal=ALPHA)
    case("action swing", "planted: reader gains 0.08 card per card", lambda: swing_trial(rng, games, 0.38))
    case("action length", "null: length through the total count only", lambda: length_trial(rng, games, 0.0),
         nominal=ALPHA)
    case("action length", "planted: one action +3 categories per card", lambda: length_trial(rng, games, 3.0))
    return results


def markdown(results: list[dict]) -> str:
    out = ["| verdict | case | detectable | 95% interval | nominal (null) / stated power | old method |",
           "|---|---|---|---|---|---|"]
    for r in results:
        old = f"{r['old']['rate']:.1%}" if "old" in r else ""
        if "old_coverage" in r:
            old = f"interval coverage {r['coverage']:.1%} (old per-card Wilson {r['old_coverage']:.1%})"
        out.append(f"| {r['verdict']} | {r['case']} | {r['rate']:.1%} ({r['count']}/{r['n']}) | "
                   f"{r['lo']:.1%}-{r['hi']:.1%} | {r['nominal']:.1%} | {old} |")
    return "\n".join(out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=2000)
    ap.add_argument("--games", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=26)
    ap.add_argument("--out", type=Path, default=Path("calibration_wieweetwat.json"))
    a = ap.parse_args(argv)
    results = run(a.reps, a.games, a.seed)
    print(markdown(results))
    a.out.write_text(json.dumps({"reps": a.reps, "games": a.games, "seed": a.seed, "results": results}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
