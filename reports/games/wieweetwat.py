"""Wie Weet Wat's own report parts: the first reader of each round, how much skill decides, which
card kinds stay in hand, the value of being dealt a Wie Weet Wat card, each action card's swing,
and game length against the action cards drawn; OUTCOMES for the variant comparison (its own
measures; rounds per game is the generic ``rounds``).

Every share here is a ratio of sums over games (rounds won by the first reader / rounds, cards
left / cards in play, ...), never a mean of per-game ratios: a game ends when a player has won
``rounds_to_win`` rounds, so its number of rounds depends on who won them, and a mean of per-game
ratios is biased (a game won 3-0 has a ratio of 2/3 or 1 for its first readers). A ratio of sums is
consistent: each round adds a term whose expectation given the past is the same, and the number
of rounds is a stopping time (optional stopping). Its interval is the delta method with each game
a cluster (``delta_ratios``), as are the differences and tests built from such ratios.

Every verdict is a claim of the report's family (ctx.claim): the first reader against a fair share
(arms of identical players only), the skill slope, card kinds equal, a Wie Weet Wat card's value,
each action's gain for its reader on the leader, and the actions' equal association with length.
benchmarks/calibration_wieweetwat.py measures their error rates and power under constructed nulls.

Columns (docs/schema.md): first_reader_rounds_won, categories, remises, passes, per seat
www_rounds / www_rounds_won / jokers / counter_attacks, per action actions_drawn /
action_self_change / action_leader_change, per card kind letters_left / letters_shed.
Players' vocabulary and speed are arm metadata (study.json `seats`), not columns.
"""
from __future__ import annotations

import json
import math

import numpy as np
import polars as pl

from reports import metrics as m
from reports import plots, text
from reports.compare import Measure
from reports.context import Context
from reports.dataset import Arm
from reports.games import has_columns as game_has_columns, stats_by_arm
from reports.model import Section, Table
from reports.sections.first_player import adjusted, seat_stats
from reports.stats import ALPHA, POWER, Estimate, claim_level, equal_means_test, mean_interval, moment_matrices, sps

LETTERS = "abcdefghijklmnopqrstuvwxyz"
KINDS = [c.upper() for c in LETTERS] + ["WWW"]
ACTIONS = ("Grote Kans", "Vicieuze cirkel", "Rotonde", "Verkiezingspartij", "Verloren geluk",
           "Te veel keuze", "Pechvogel")
COLUMNS = ("first_reader_rounds_won", "categories", "remises", "passes", "www_rounds",
           "www_rounds_won", "jokers", "counter_attacks", "actions_drawn", "action_self_change",
           "action_leader_change", "letters_left", "letters_shed")
SKILL_PARAMS = ("vocabulary", "speed")  # the recall model multiplies every rate by their product
# Seconds per turn besides the race for answers (drawing the card, reading four categories out,
# choosing, laying cards down): an assumption for the estimate in minutes, named in the report
HANDLING_SECONDS = 6.0


def per_round(column: str) -> pl.Expr:
    return pl.col(column).cast(pl.Float64) / pl.col("rounds").cast(pl.Float64)


def list_sum(column: str) -> pl.Expr:
    return pl.col(column).list.sum().cast(pl.Float64)


# rounds per game is the generic measure `rounds`: not repeated here
OUTCOMES = (
    Measure("categories_per_game", "categories read per game", lambda arm: pl.col("categories").cast(pl.Float64)),
    Measure("categories_per_round", "categories read per round", lambda arm: per_round("categories")),
    Measure("remises_per_round", "remises per round", lambda arm: per_round("remises")),
    Measure("wrong_per_round", "wrong answers per round",
            lambda arm: list_sum("wrong_answers") / pl.col("rounds").cast(pl.Float64)),
    Measure("counters_per_round", "counter-attacks per round",
            lambda arm: list_sum("counter_attacks") / pl.col("rounds").cast(pl.Float64)),
)


# -- ratios of sums with games as clusters ------------------------------------------------------------
def moment_aggs(tag: str, exprs: dict[str, pl.Expr]) -> list[pl.Expr]:
    """Sums of each per-game variable and of each product of two: enough for their means and
    covariance (``moment_block``)."""
    names = list(exprs)
    out = [exprs[a].sum().alias(f"{tag}|{a}") for a in names]
    out += [(exprs[a] * exprs[b]).sum().alias(f"{tag}|{a}*{b}")
            for i, a in enumerate(names) for b in names[i:]]
    return out


def moment_block(r: dict, tag: str, names: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """(sums, sums of products) of ``moment_aggs`` from an aggregated row."""
    sums = np.array([r[f"{tag}|{a}"] or 0.0 for a in names], float)
    cross = np.zeros((len(names), len(names)))
    for i, a in enumerate(names):
        for j in range(i, len(names)):
            cross[i, j] = cross[j, i] = r[f"{tag}|{a}*{names[j]}"] or 0.0
    return sums, cross


def delta_ratios(sums, cross, n: int, pairs: list[tuple[int, int]]) -> tuple[np.ndarray, np.ndarray]:
    """Ratios R_i = sum(v[num_i]) / sum(v[den_i]) of per-game variables v and the per-game
    covariance of their linearisations (v[num] - R v[den]) / mean(v[den]): divided by n it is the
    ratios' covariance by the delta method with each game a cluster. nan where a denominator is 0."""
    mean, cov = moment_matrices(sums, cross, n)
    grad = np.zeros((len(pairs), len(mean)))
    ratios = np.full(len(pairs), math.nan)
    for i, (a, b) in enumerate(pairs):
        if mean[b] > 0:
            ratios[i] = mean[a] / mean[b]
            grad[i, a], grad[i, b] = 1 / mean[b], -ratios[i] / mean[b]
    return ratios, grad @ cov @ grad.T


def ratio_estimate(value: float, var: float, n: int, ref: float = 0.0, method: str = "ratio, games as clusters",
                   lower: float | None = None, upper: float | None = None) -> Estimate:
    """A ratio (or a difference of ratios) with its t interval and the p-value of 'it equals ref';
    ``var`` is the per-game variance of its linearisation (``delta_ratios``)."""
    if not np.isfinite(value):
        return mean_interval(math.nan, math.nan, n, method=method)
    return mean_interval(float(value), float(max(var, 0.0)), n, method=method, ref=ref, lower=lower, upper=upper)


def ratio_interval(sum_y: float, sum_x: float, sum_yy: float, sum_xy: float, sum_xx: float,
                   n: int) -> Estimate:
    """sum(y) / sum(x) over n games (per-card mean of y when x counts the cards) with its interval by
    the delta method, each game a cluster."""
    r, v = delta_ratios([sum_y, sum_x], [[sum_yy, sum_xy], [sum_xy, sum_xx]], n, [(0, 1)])
    return ratio_estimate(r[0], v[0, 0], n)


def detectable(est: Estimate, tests: int = 1) -> float:
    """The smallest true difference this estimate's own test finds with POWER when ``tests`` claims
    are corrected together: the t test (n - 1 degrees of freedom, as ``mean_interval``) at level
    ALPHA / tests (``claim_level``: Holm's first step, the level every claim of the report reaches),
    so (t_{1-level/2} + t_power) standard errors. The standard error is read from the wider side of
    the 95% interval (a share's interval may be clipped at 0 or 1 on the other)."""
    if not (np.isfinite(est.lo) and np.isfinite(est.hi) and np.isfinite(est.value)):
        return math.nan
    df = max(est.n - 1, 1)
    se = max(est.hi - est.value, est.value - est.lo) / float(sps.t.ppf(1 - ALPHA / 2, df))
    level = claim_level(ALPHA, tests)
    return float((sps.t.ppf(1 - level / 2, df) + sps.t.ppf(POWER, df)) * se)


def report_claims(ctx: Context) -> int:
    """How many claims the report corrects together (those with a p-value): the ``tests`` of
    ``detectable``. Read when the sections are worded, after every section registered its claims."""
    return max(sum(1 for c in ctx.family.claims.values() if math.isfinite(c.p_value)), 1)


# -- the estimators behind each verdict (plain sums in, Estimate out: the calibration calls them) ----
def first_reader_share(sums, cross, n: int, players: int) -> Estimate:
    """Rounds won by the round's first reader / rounds, from the per-game (first_reader_rounds_won,
    rounds) sums; p-value against the fair share 1/players."""
    r, v = delta_ratios(sums, cross, n, [(0, 1)])
    return ratio_estimate(r[0], v[0, 0], n, ref=1 / players, lower=0.0, upper=1.0)


def www_difference(sums, cross, n: int) -> tuple[Estimate, Estimate, Estimate]:
    """(share of seat-rounds won when dealt a Wie Weet Wat card, share when dealt none, their
    difference) from the per-game (won with, seat-rounds with, won without, seat-rounds without)."""
    r, v = delta_ratios(sums, cross, n, [(0, 1), (2, 3)])
    c = np.array([1.0, -1.0])
    with_, without = (ratio_estimate(r[i], v[i, i], n, lower=0.0, upper=1.0) for i in (0, 1))
    return with_, without, ratio_estimate(r[0] - r[1], float(c @ v @ c), n, method="difference of ratios, games as clusters")


def hold_rates(sums, cross, n: int, kinds: list[int]) -> tuple[dict[int, Estimate], object]:
    """Per card kind, cards left in hands at rounds' ends / cards in play (left + shed), from the
    per-game (left_k, in play_k) of each kind in ``kinds`` (variables 2i, 2i+1); and Hotelling's test
    that every kind's rate is the same (on the linearised per-game values, games as clusters)."""
    r, v = delta_ratios(sums, cross, n, [(2 * i, 2 * i + 1) for i in range(len(kinds))])
    rates = {k: ratio_estimate(r[i], v[i, i], n, lower=0.0, upper=1.0) for i, k in enumerate(kinds)}
    return rates, equal_means_test(r, v, n)


def swing(sums, cross, n: int) -> tuple[Estimate, Estimate, Estimate]:
    """Per card carried out: the reader's hand change, the leader's, and the reader's gain on the
    leader (leader's change - reader's: positive = the reader closes in), from the per-game
    (cards drawn, reader's change, leader's change)."""
    r, v = delta_ratios(sums, cross, n, [(1, 0), (2, 0)])
    c = np.array([-1.0, 1.0])
    own, lead = (ratio_estimate(r[i], v[i, i], n) for i in (0, 1))
    return own, lead, ratio_estimate(r[1] - r[0], float(c @ v @ c), n)


def skill_slope(arms: list[dict]) -> Estimate | None:
    """The win share a seat gains per doubling of its skill (vocabulary x speed) against the table:
    generalised least squares of the seat shares on log2 of each seat's skill ratio, with a seat
    effect per setup (arms that differ only in the players' skill share their seat effects, so a
    seat's position is not taken for its skill). ``arms``: dicts with ``setup`` (hashable), ``x``
    (log2 skill ratio per seat), ``mean`` and ``cov`` (the per-game seat win weights' mean and
    covariance) and ``n`` (games). Shares and x sum to 0 over the seats, so the last seat is left
    out. None when no setup has two arms of different skill patterns."""
    groups: dict = {}
    for a in arms:
        groups.setdefault(a["setup"], []).append(a)
    used = [g for g in groups.values()
            if len({tuple(np.round(a["x"], 12)) for a in g}) > 1 and any(np.any(a["x"] != 0) for a in g)]
    if not used:
        return None
    cols = sum(len(g[0]["x"]) - 1 for g in used) + 1
    xtwx, xtwy, games, start = np.zeros((cols, cols)), np.zeros(cols), 0, 0
    for g in used:
        k = len(g[0]["x"]) - 1
        for a in g:
            design = np.zeros((k, cols))
            design[:, start:start + k] = np.eye(k)
            design[:, -1] = a["x"][:k]
            w = np.linalg.pinv(np.asarray(a["cov"], float)[:k, :k] / a["n"])
            xtwx += design.T @ w @ design
            xtwy += design.T @ w @ np.asarray(a["mean"], float)[:k]
            games += int(a["n"])
        start += k
    if np.linalg.matrix_rank(xtwx) < cols:
        return None
    cov = np.linalg.inv(xtwx)
    beta = float((cov @ xtwy)[-1])
    se = math.sqrt(max(cov[-1, -1], 0.0))
    z = float(sps.norm.ppf(1 - ALPHA / 2))
    p = float(2 * sps.norm.sf(abs(beta) / se)) if se > 0 else math.nan
    return Estimate(beta, beta - z * se, beta + z * se, games, "GLS, seat effects per setup", p)


def equal_coefficients(beta: np.ndarray, cov: np.ndarray) -> float:
    """p-value of the Wald test that every coefficient is the same (chi-square, k-1 df)."""
    k = len(beta)
    if k < 2:
        return math.nan
    c = np.hstack([np.eye(k - 1), -np.ones((k - 1, 1))])
    d, s = c @ beta, c @ cov @ c.T
    stat = float(d @ np.linalg.pinv(s) @ d)
    return float(sps.chi2.sf(stat, np.linalg.matrix_rank(s)))


# -- one pass over the dataset ------------------------------------------------------------------------
def _f(e: pl.Expr) -> pl.Expr:
    return e.cast(pl.Float64)


def _get(column: str, i: int) -> pl.Expr:
    return _f(pl.col(column).list.get(i))


FIRST = ["won", "rounds"]
WWW = ["won_with", "with", "won_without", "without"]
SWING = ["drawn", "self", "leader"]


def _query(ctx: Context, arms: list[Arm]) -> pl.LazyFrame:
    rounds = _f(pl.col("rounds"))
    means = {"categories_per_round": per_round("categories"), "remises_per_round": per_round("remises"),
             "passes_per_round": per_round("passes"), "jokers": list_sum("jokers"),
             "counters": list_sum("counter_attacks")}
    if game_has_columns(ctx, ("race_seconds", "turns")):  # version 5 on
        race = _f(pl.col("race_seconds"))
        means.update(turns=_f(pl.col("turns")), race_minutes=race / 60.0,
                     minutes=(race + HANDLING_SECONDS * _f(pl.col("turns"))) / 60.0)
    aggs = [pl.len().alias("games")]
    for k, e in means.items():
        aggs += [e.mean().alias(f"{k}:mean"), e.var().alias(f"{k}:var")]
    aggs += moment_aggs("first", {"won": _f(pl.col("first_reader_rounds_won")), "rounds": rounds})
    with_won = list_sum("www_rounds_won")
    aggs += moment_aggs("www", {"won_with": with_won, "with": list_sum("www_rounds"),
                                "won_without": rounds - with_won,
                                "without": rounds * _f(pl.col("players")) - list_sum("www_rounds")})
    kinds = {}
    for k in range(27):
        kinds[f"l{k}"] = _get("letters_left", k)
        kinds[f"t{k}"] = _get("letters_left", k) + _get("letters_shed", k)
    aggs += moment_aggs("kinds", kinds)
    for a in range(7):
        aggs += moment_aggs(f"act{a}", {"drawn": _get("actions_drawn", a), "self": _get("action_self_change", a),
                                        "leader": _get("action_leader_change", a)})
        aggs += [_get("actions_drawn", a).var().alias(f"act{a}:var")]
    return m.by_arm(ctx.arm_scan, [a.name for a in arms], aggs)


def _mean(r: dict, key: str) -> Estimate:
    return mean_interval(r[f"{key}:mean"], r[f"{key}:var"], int(r["games"]), lower=0.0)


def seat_params(arm: Arm) -> list[dict]:
    """Each seat's player parameters (empty where the study gave none)."""
    if arm.seat_params:
        return [dict(p or {}) for _, p in arm.seat_params]
    return [{} for _ in range(arm.players)]


def skill(params: dict) -> float:
    return float(params.get("vocabulary", 1.0)) * float(params.get("speed", 1.0))


def identical_players(arm: Arm) -> bool:
    """Every seat the same policy with the same parameters: the players are exchangeable."""
    if arm.seat_params:
        return len({(pol, json.dumps(p or {}, sort_keys=True)) for pol, p in arm.seat_params}) == 1
    return len(set(arm.policies)) <= 1


def skill_setup(arm: Arm) -> tuple:
    """What arms must share for their seat effects to be the same: all but the players' skill."""
    seats = tuple((pol, json.dumps({k: v for k, v in (p or {}).items() if k not in SKILL_PARAMS}, sort_keys=True))
                  for pol, p in (arm.seat_params or [(pol, {}) for pol in arm.policies]))
    return (arm.players, json.dumps(arm.rules, sort_keys=True), json.dumps(arm.deck, sort_keys=True), seats)


def skill_ratios(arm: Arm) -> np.ndarray:
    """Each seat's skill over the geometric mean of the other seats' skills."""
    ks = np.array([skill(p) for p in seat_params(arm)] or [1.0] * arm.players)
    logs = np.log(ks)
    others = (logs.sum() - logs) / (len(ks) - 1)
    return np.exp(logs - others)


def _arm_stats(ctx: Context, arm: Arm, r: dict) -> dict:
    n = int(r["games"])
    first = first_reader_share(*moment_block(r, "first", FIRST), n, arm.players)
    with_www, without_www, www_diff = www_difference(*moment_block(r, "www", WWW), n)
    ksums, kcross = moment_block(r, "kinds", [f"{p}{k}" for k in range(27) for p in "lt"])
    present = [k for k in range(27) if ksums[2 * k + 1] > 0]
    idx = [i for k in present for i in (2 * k, 2 * k + 1)]
    rates, kinds_test = hold_rates(ksums[idx], kcross[np.ix_(idx, idx)], n, present) if present else ({}, None)
    actions = {}
    for a in range(7):
        sums, cross = moment_block(r, f"act{a}", SWING)
        if sums[0] > 0:
            own, lead, gain = swing(sums, cross, n)
            actions[a] = {"drawn": sums[0], "per_game": mean_interval(sums[0] / n, r[f"act{a}:var"], n, lower=0.0),
                          "self": own, "leader": lead, "gain": gain}
    return {"arm": arm, "games": n, "players": arm.players, "first_reader": first,
            "identical": identical_players(arm),
            "with_www": with_www, "without_www": without_www, "www_difference": www_diff,
            "www_dealt": moment_block(r, "www", WWW)[0][1] > 0,
            "rates": rates, "kinds_test": kinds_test, "actions": actions,
            **{k: _mean(r, k) for k in ("categories_per_round", "remises_per_round", "passes_per_round",
                                         "jokers", "counters", "turns", "race_minutes", "minutes")
               if f"{k}:mean" in r}}


def has_columns(ctx: Context) -> bool:
    return game_has_columns(ctx, COLUMNS)


def wieweetwat_stats(ctx: Context) -> dict[str, dict]:
    """{arm: numbers} for every arm with games, in study order; one group_by pass, cached."""
    return stats_by_arm(ctx, "wieweetwat", _query, lambda a, row: _arm_stats(ctx, a, row))


# -- game length against the action cards drawn, within an arm (observational) ------------------------
def length_regression(scan: pl.LazyFrame, actions: list[int]) -> dict | None:
    """Least squares of categories per game on an intercept and the per-game counts of `actions`,
    with HC1 (heteroskedasticity-robust, each game its own cluster) covariance: two passes over the
    rows, sums of products only; and the Wald test that every action's coefficient is the same."""
    ones = pl.col("rounds").cast(pl.Float64) ** 0  # a column of 1.0 (a literal would sum to 1)
    xs = [ones] + [_get("actions_drawn", a) for a in actions]
    y = pl.col("categories").cast(pl.Float64)
    k = len(xs)
    pairs = [(i, j) for i in range(k) for j in range(i, k)]
    first = scan.select([pl.len().alias("n")] + [(xs[i] * xs[j]).sum().alias(f"x{i}_{j}") for i, j in pairs]
                        + [(xs[i] * y).sum().alias(f"y{i}") for i in range(k)]).collect().row(0, named=True)
    n = int(first["n"])
    if n <= k:
        return None
    xtx = np.zeros((k, k))
    for i, j in pairs:
        xtx[i, j] = xtx[j, i] = first[f"x{i}_{j}"]
    if np.linalg.matrix_rank(xtx) < k:
        return None
    inv = np.linalg.inv(xtx)
    beta = inv @ np.array([first[f"y{i}"] for i in range(k)])
    resid = y - sum(float(b) * x for b, x in zip(beta, xs))
    second = scan.select([(resid * resid * xs[i] * xs[j]).sum().alias(f"m{i}_{j}")
                          for i, j in pairs]).collect().row(0, named=True)
    meat = np.zeros((k, k))
    for i, j in pairs:
        meat[i, j] = meat[j, i] = second[f"m{i}_{j}"]
    cov = inv @ meat @ inv * n / (n - k)
    coef = {}
    for pos, a in enumerate(actions, start=1):
        se = math.sqrt(max(cov[pos, pos], 0.0))
        # mean_interval's se is sqrt(var / n): hand it var = se^2 n
        coef[a] = mean_interval(float(beta[pos]), se * se * n, n, method="OLS, HC1")
    return {"games": n, "intercept": float(beta[0]), "coef": coef,
            "equal_p": equal_coefficients(beta[1:], cov[1:, 1:])}


def action_length(ctx: Context, stats: dict) -> dict:
    """{arm: regression or None}, cached; actions never drawn, or drawn equally often in every game,
    are left out (their count cannot vary, so it explains nothing)."""
    def run():
        out = {}
        for name, s in stats.items():
            varied = [a for a, st in s["actions"].items() if st["per_game"].hi > st["per_game"].lo]
            out[name] = length_regression(ctx.scan.filter(pl.col("arm") == name), varied) if len(varied) > 1 else None
        return out
    return ctx.cached(("wieweetwat", "action_length"), run)


# -- wording ------------------------------------------------------------------------------------------
def _listing(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _decision(claim) -> str:
    return "yes" if claim.detected else "no"


# -- sections ------------------------------------------------------------------------------------------
def _first_reader_section(ctx: Context, stats: dict) -> Section:
    sec = Section(key=ctx.key("wieweetwat.first_reader"), title="The first reader", level=3, notes=[
        "Seat 0 reads first in the game; the winner of a round reads first in the next one, and the "
        "first reader does not answer the round's first category. Share = rounds won by the round's "
        "first reader / rounds, over all games of the arm (a ratio of sums; its 95% interval by the "
        "delta method with each game a cluster). The fair share is 1/players: the seats' chances to "
        "win a round add up to 1, so 1/players is the average seat's, and a first reader who wins "
        "it has no advantage or handicap from reading first. That is the right comparison only when "
        "the players are identical: otherwise the last round's winner, who reads first, is more "
        "often the stronger player, so arms with different players are shown but not tested."])
    rows, frame, data, found, flat = [], [], {}, [], []
    tests = report_claims(ctx)
    for name, s in stats.items():
        e, fair = s["first_reader"], 1 / s["players"]
        diff = e.shift(-fair)
        entry = {"share": e.to_dict(), "fair": fair, "identical_players": s["identical"]}
        if s["identical"]:
            claim = ctx.claim(f"wieweetwat/{name}/first_reader", "wieweetwat.first_reader",
                              f"{name}: the first reader's share of rounds against 1/players", e.p_value)
            (found if claim.detected else flat).append((name, diff, claim))
            smallest = detectable(e, tests)
            entry.update(claim.to_dict(), detectable=smallest, test_level=claim_level(ALPHA, tests))
            decided = _decision(claim)
            note = f"{smallest * 100:.1f} points"
        else:
            decided, note = "not tested (players differ)", ""
        rows.append([name, text.share_ci(e), text.pct(fair), text.points(diff), note, decided])
        frame.append({"arm": name, "share": e.value, "lo": e.lo, "hi": e.hi, "fair": fair})
        data[name] = entry
    if found:
        sec.verdicts.append("A round's first reader wins detectably " + "; ".join(
            f"{'more' if d.value > 0 else 'less'} than the fair share in {n} ({text.points(d)}, {adjusted(c)})"
            for n, d, c in found) + ".")
    if flat:
        sec.verdicts.append(f"No detectable first-reader effect at this size in {_listing([n for n, _, _ in flat])} "
                            f"(the table gives each interval and the smallest effect each arm detects).")
    if not found and not flat:
        sec.verdicts.append("No arm has identical players at every seat, so the first reader is not tested.")
    sec.tables.append(Table("Rounds won by the round's first reader",
                            ["arm", "share", "fair", "difference", "detectable at 80%", "detectable"], rows,
                            note="difference in percentage points; 'detectable at 80%': the smallest "
                                 f"difference the arm finds with 80% power at this report's level, "
                                 f"{ALPHA:.0%} / {tests} claims (the first step of the correction)"))
    sec.figures.append(plots.interval_bars(pl.DataFrame(frame), "arm", "share", "lo", "hi", ref="fair",
                                           ylabel="rounds won", title="Rounds won by the first reader"))
    sec.data = data
    return sec


def _skill_section(ctx: Context, stats: dict) -> Section:
    seats = seat_stats(ctx)
    points, rows = [], []
    for name, s in stats.items():
        arm, st = s["arm"], seats[name]
        x = np.log2(skill_ratios(arm))
        points.append({"setup": skill_setup(arm), "x": x, "mean": st.mean, "cov": st.cov, "n": st.games})
        params = seat_params(arm)
        skills = [skill(p) for p in params]
        common = max(set(skills), key=skills.count)
        for seat, p in enumerate(params):
            if abs(x[seat]) > 1e-9 and skills[seat] != common:
                rows.append([name, str(seat), text.number(float(p.get("vocabulary", 1.0))),
                             text.number(float(p.get("speed", 1.0))), text.number(2 ** x[seat])])
    sec = Section(key=ctx.key("wieweetwat.skill"), title="How much skill decides", level=3, notes=[
        "Skill = vocabulary x speed (the recall model multiplies every rate by it); a seat's skill "
        "ratio = its skill over the geometric mean of the other seats'. The slope is the win share a "
        "seat gains per doubling of that ratio: generalised least squares of the seats' win shares "
        "(from the first-player section, with their covariance within each arm) on log2 of the "
        "ratio, with an effect per seat shared by the arms that differ only in the players' skill. "
        "So an arm of equal players with the same rules and habits is needed: it tells a seat's "
        "position from its skill."])
    slope = skill_slope(points)
    if not rows:
        sec.verdicts.append("Every seat of every arm has the same vocabulary and speed: give seats "
                            "other values (examples/wieweetwat-skill.toml) to measure skill.")
    elif slope is None:
        sec.verdicts.append("Seats differ in skill, but no arm of equal players shares their rules and "
                            "habits, so seat position and skill cannot be told apart: no estimate.")
    else:
        claim = ctx.claim("wieweetwat/skill_slope", "wieweetwat.skill",
                          "win share per doubling of a seat's skill", slope.p_value)
        if claim.detected:
            sec.verdicts.append(f"Doubling a seat's vocabulary x speed against the table adds "
                                f"{text.points(slope)} to its win share ({adjusted(claim)}).")
        else:
            sec.verdicts.append(f"No detectable effect of a seat's skill on its win share at this size: "
                                f"{text.points(slope)} per doubling.")
        sec.data = {"slope_per_doubling": slope.to_dict(), **claim.to_dict()}
    if rows:
        sec.tables.append(Table("Seats whose skill differs from the table's",
                                ["arm", "seat", "vocabulary", "speed", "skill ratio"], rows,
                                note="the other seats of these arms have the table's usual skill; "
                                     "every seat's win share is in the first-player section"))
    return sec


def _letters_section(ctx: Context, stats: dict) -> Section:
    sec = Section(key=ctx.key("wieweetwat.letters"), title="Which card kinds stay in hand", level=3,
                  notes=["Hold rate of a card kind = cards of it left in hands at the end of the "
                         "rounds / (cards left + cards shed), summed over the games, with its 95% "
                         "interval by the delta method (each game a cluster). 'Kinds differ' is "
                         "Hotelling's test that every kind in play has the same hold rate. Kinds with "
                         "no card in play are left out."])
    names = list(stats)
    found, flat, data = [], [], {}
    for name, s in stats.items():
        test = s["kinds_test"]
        if test is None or not np.isfinite(test.p_value):
            continue
        claim = ctx.claim(f"wieweetwat/{name}/kinds", "wieweetwat.letters",
                          f"{name}: card kinds differ in how often they stay in hand", test.p_value)
        (found if claim.detected else flat).append(name)
        data[name] = {"rates": {KINDS[k]: e.to_dict() for k, e in s["rates"].items()},
                      "test": test.to_dict(), **claim.to_dict()}
    if found:
        first = stats[found[0]]["rates"]
        order = sorted(first, key=lambda k: -first[k].value)
        sec.verdicts.append(f"Card kinds differ detectably in how often they stay in hand in {_listing(found)}. "
                            f"In {found[0]} the most often kept are "
                            + ", ".join(f"{KINDS[k]} {text.share_ci(first[k])}" for k in order[:3])
                            + "; the least " + ", ".join(f"{KINDS[k]} {text.share_ci(first[k])}" for k in order[-2:])
                            + " (by estimate: where intervals overlap the order is not settled).")
    if flat:
        sec.verdicts.append(f"No detectable difference between card kinds at this size in {_listing(flat)}.")
    base = stats[names[0]]["rates"]
    kinds = sorted({k for s in stats.values() for k in s["rates"]}, key=lambda k: -base[k].value if k in base else 0)

    def cell(e: Estimate | None) -> str:
        if e is None:
            return "-"
        return f"{e.value * 100:.1f} ±{(e.hi - e.lo) * 50:.1f}"
    sec.tables.append(Table("Hold rate per card kind (% of its cards in play left in hand)", ["kind"] + names,
                            [[KINDS[k]] + [cell(stats[n]["rates"].get(k)) for n in names] for k in kinds],
                            note="estimate ± half the 95% interval, in percent"))
    frame = [{"kind": KINDS[k], "arm": n, "rate": e.value, "lo": e.lo, "hi": e.hi}
             for n in names for k, e in stats[n]["rates"].items()]
    if frame:
        sec.figures.append(plots.interval_bars(pl.DataFrame(frame), "kind", "rate", "lo", "hi",
                                               hue="arm" if len(stats) > 1 else None, ylabel="hold rate",
                                               title="Cards left at a round's end per card in play"))
    sec.data = data
    return sec


def _www_section(ctx: Context, stats: dict) -> Section:
    sec = Section(key=ctx.key("wieweetwat.www"), title="The value of a Wie Weet Wat card", level=3,
                  notes=["Rounds won by a seat dealt at least one Wie Weet Wat card, per such "
                         "seat-round, against the seat-rounds dealt none; both ratios of sums, their "
                         "difference's interval by the delta method with each game a cluster. The "
                         "deal does not depend on the seat or the player, so without any value of "
                         "the card both are 1/players, whoever sits where. Jokers and counter-attacks "
                         "are per game, all seats."])
    rows, found, flat, data = [], [], [], {}
    for name, s in stats.items():
        a, b, d = s["with_www"], s["without_www"], s["www_difference"]
        entry = {"with": a.to_dict(), "without": b.to_dict(), "difference": d.to_dict(),
                 "jokers": s["jokers"].to_dict(), "counters": s["counters"].to_dict()}
        decided = "not tested (no card dealt)"
        if s["www_dealt"] and np.isfinite(d.p_value):
            claim = ctx.claim(f"wieweetwat/{name}/www", "wieweetwat.www",
                              f"{name}: rounds won with a Wie Weet Wat card against without", d.p_value)
            (found if claim.detected else flat).append((name, d, claim))
            entry.update(claim.to_dict())
            decided = _decision(claim)
        rows.append([name, text.share_ci(a), text.share_ci(b), text.points(d), decided,
                     text.value_ci(s["jokers"]), text.value_ci(s["counters"])])
        data[name] = entry
    for up in (True, False):
        picked = [(n, d, c) for n, d, c in found if (d.value > 0) == up]
        if picked:
            values = sorted(d.value * 100 for _, d, _ in picked)
            spread = (f"{values[0]:+.1f} points" if len(values) == 1 else
                      f"from {values[0]:+.1f} to {values[-1]:+.1f} points")
            sec.verdicts.append(f"Dealt a Wie Weet Wat card, a seat wins detectably {'more' if up else 'fewer'} "
                                f"of its rounds in {_listing([n for n, _, _ in picked])} ({spread}, {ctx.family.name}-adjusted "
                                f"p at most {text.p_value(max(c.adjusted for _, _, c in picked), bare=True)}; "
                                "intervals in the table).")
    if flat:
        sec.verdicts.append(f"No detectable value of the card at this size in {_listing([n for n, _, _ in flat])}.")
    sec.tables.append(Table("Rounds won with and without a Wie Weet Wat card",
                            ["arm", "with a card", "without", "difference", "detectable", "jokers per game",
                             "counter-attacks per game"], rows, note="difference in percentage points"))
    sec.data = data
    return sec


def _actions_section(ctx: Context, stats: dict) -> Section:
    sec = Section(key=ctx.key("wieweetwat.actions"), title="Action cards: swing and game length", level=3, notes=[
        "Swing = hand size after the action minus before, per card carried out: of the reader, and "
        "of the reader's opponent with the fewest cards before it (the leader); the reader's gain = "
        "the leader's change minus the reader's (positive: the reader closes in, since fewer cards "
        "is better). Each is a ratio of sums over games with its 95% interval by the delta method "
        "(each game a cluster). Grote Kans acts on the category read after it: its swing is the "
        "change over the extra cards that category's winner sheds (once per turn); its reader, who "
        "does not answer, never changes. A gain that cannot vary by design is not tested.",
        "Game length within an arm is observational: a longer game reads more categories and so "
        "draws more action cards of every kind, whatever they do. The regression of categories per "
        "game on the seven per-game counts (least squares, robust HC1 intervals, each game its own "
        "cluster) therefore mixes an action's own effect with that; what it can show is whether the "
        "actions differ from each other ('actions differ': the Wald test that every coefficient is "
        "the same). The causal effect of an action mix is measured by arms that differ in the "
        "action_* rules, in the variant comparison."])
    lengths = action_length(ctx, stats)
    data, gains, coefs, verdicts = {}, {}, {}, {}
    for name, s in stats.items():
        per, better, worse, flat = {}, [], [], []
        for a, st in s["actions"].items():
            title, gain = ACTIONS[a], st["gain"]
            per[title] = {"per_game": st["per_game"].to_dict(), "self": st["self"].to_dict(),
                          "leader": st["leader"].to_dict(), "gain": gain.to_dict()}
            gains[name, a] = gain
            if gain.hi > gain.lo and np.isfinite(gain.p_value):  # else fixed by design: not tested
                claim = ctx.claim(f"wieweetwat/{name}/gain/{title}", "wieweetwat.actions",
                                  f"{name}: the reader's gain on the leader with {title}", gain.p_value)
                per[title].update(claim.to_dict())
                (better if claim.detected and gain.value > 0 else worse if claim.detected else flat).append(title)
        fit = lengths.get(name)
        fit_data, length_found = None, None
        if fit:
            claim = ctx.claim(f"wieweetwat/{name}/length", "wieweetwat.actions",
                              f"{name}: the actions differ in how game length goes with them", fit["equal_p"])
            coefs.update({(name, a): e for a, e in fit["coef"].items()})
            fit_data = {"games": fit["games"], "intercept": fit["intercept"], **claim.to_dict(),
                        "coef": {ACTIONS[a]: e.to_dict() for a, e in fit["coef"].items()}}
            length_found = claim.detected
        data[name] = {"actions": per, "length_fit": fit_data}
        if per:
            verdicts.setdefault((tuple(better), tuple(worse), tuple(flat), length_found), []).append(name)
        else:
            verdicts.setdefault(None, []).append(name)
    for key, names in verdicts.items():
        if key is None:
            sec.verdicts.append(f"No action cards in play in {_listing(names)}.")
            continue
        better, worse, flat, length_found = key
        parts = []
        if better:
            parts.append(f"the reader gains detectably on the leader with {_listing(list(better))}")
        if worse:
            parts.append(f"loses ground detectably with {_listing(list(worse))}")
        if flat:
            parts.append(f"no detectable gain or loss with {_listing(list(flat))} at this size")
        if length_found is not None:
            parts.append("the actions differ detectably in how game length goes with them (observational)"
                         if length_found else "no detectable difference between the actions in how game "
                         "length goes with them at this size")
        sec.verdicts.append(f"In {_listing(names)}: " + "; ".join(parts) + ".")
    with_actions = [n for n in stats if stats[n]["actions"]]
    if with_actions:
        first = with_actions[0]
        s = stats[first]
        sec.tables.append(Table(f"Per action card ({first})", ["action", "cards per game", "reader's swing",
                                                              "leader's swing", "reader's gain"],
                                [[ACTIONS[a], text.value_ci(st["per_game"]), text.value_ci(st["self"], True),
                                  text.value_ci(st["leader"], True), text.value_ci(st["gain"], True)]
                                 for a, st in s["actions"].items()],
                                note="cards per card carried out, with 95% intervals; negative = the hand "
                                     "shrinks (good for its holder); every arm's numbers are in summary.json"))

        def cell(e: Estimate | None) -> str:
            if e is None or not np.isfinite(e.value):
                return "-"
            half = (e.hi - e.lo) / 2
            d = min(max(-math.floor(math.log10(half)), 0), 4) if half > 0 else 2  # one significant digit of the half
            return f"{e.value:+.{d}f} ±{half:.{d}f}"
        sec.tables.append(Table("The reader's gain on the leader per card, by arm", ["action"] + with_actions,
                                [[ACTIONS[a]] + [cell(gains.get((n, a))) for n in with_actions] for a in range(7)
                                 if any((n, a) in gains for n in with_actions)],
                                note="estimate ± half the 95% interval, cards"))
        fitted = [n for n in with_actions if data[n]["length_fit"]]
        if fitted:
            sec.tables.append(Table("Categories per game per card drawn of each action (observational)",
                                    ["action"] + fitted,
                                    [[ACTIONS[a]] + [cell(coefs.get((n, a))) for n in fitted] for a in range(7)
                                     if any((n, a) in coefs for n in fitted)],
                                    note="least squares with the seven counts together, robust HC1 intervals "
                                         "(estimate ± half the 95% interval); compare the actions with each "
                                         "other, not with 0"))
    sec.data = data
    return sec


def wieweetwat_section(ctx: Context) -> Section | None:
    key, title = ctx.key("wieweetwat"), ctx.title("Wie Weet Wat: readers, skill, card kinds, actions")
    if not has_columns(ctx):
        return Section(key=key, title=title, verdicts=[
            "The dataset lacks Wie Weet Wat's columns (" + ", ".join(COLUMNS) + "; docs/schema.md)."])
    stats = wieweetwat_stats(ctx)
    if not stats:
        return None
    sec = Section(key=key, title=title, notes=[
        "Per round, means over games with 95% t intervals; rounds and turns per game are in the "
        "game-length section."])
    sec.tables.append(Table("A round in numbers", ["arm", "categories", "remises", "categories without a winner"],
                            [[name, text.value_ci(s["categories_per_round"]), text.value_ci(s["remises_per_round"]),
                              text.value_ci(s["passes_per_round"])] for name, s in stats.items()]))
    if all("minutes" in s for s in stats.values()):
        sec.tables.append(Table(
            "How long a game takes", ["arm", "turns", "racing for answers (min)", "estimated minutes"],
            [[name, text.value_ci(s["turns"]), text.value_ci(s["race_minutes"]), text.value_ci(s["minutes"])]
             for name, s in stats.items()],
            note="turns: categories read plus action cards; racing: the seconds from each category "
                 "read to its fastest correct answer (or the time limit), by the recall model; "
                 f"estimated minutes: racing plus {HANDLING_SECONDS:g} s per turn to draw, read out, "
                 "choose and lay down cards (an assumption, not measured)"))
    sec.children = [_first_reader_section(ctx, stats), _skill_section(ctx, stats),
                    _letters_section(ctx, stats), _www_section(ctx, stats), _actions_section(ctx, stats)]
    sec.data = {"arms": list(stats), "per_round": {
        name: {k: s[k].to_dict() for k in ("categories_per_round", "remises_per_round", "passes_per_round")}
        for name, s in stats.items()}}
    if all("minutes" in s for s in stats.values()):
        sec.data["length"] = {name: {k: s[k].to_dict() for k in ("turns", "race_minutes", "minutes")}
                              for name, s in stats.items()}
        sec.data["handling_seconds"] = HANDLING_SECONDS
    return sec


SECTIONS = (wieweetwat_section,)
