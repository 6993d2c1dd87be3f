"""Wizard's own report parts: seat and dealer-position effects, bid accuracy, score distributions and
the hook rule's effect.

Columns (besides the common ones, docs/schema.md): round_bids and round_tricks (round-major lists:
round 1 seats 0..n-1, round 2, ...), round_turned, round_trump, and per seat exact_bids, tricks,
points_lost, bid_total. ``score`` is points per seat (higher wins).

Who bids where (docs/rules/wizard.md): round r (1-based) deals r cards and is dealt by seat
(r-1 + n-1) % n, so the first dealer is seat n-1 and the deal passes left. Bidding starts at the
dealer's left and ends with the dealer, so seat s bids at position (s - dealer - 1) % n: 0 = first to
bid, n-1 = the dealer, last. With i = r-1, position p is seat (i + p) % n, list slot i*n + (i + p) % n.

Every per-game quantity is a small Polars expression on the list columns (list arithmetic, gather,
slice and get; no explode). The three descriptive sections share one group_by pass over the scan
(``wizard_stats``, cached); the hook rule's effect reuses the paired comparison that the generic
variant section computes once per pair from ``OUTCOMES``.
"""
from __future__ import annotations

from collections.abc import Callable
from itertools import combinations

import numpy as np
import polars as pl

from reports import metrics as m
from reports import plots, text
from reports.compare import Comparison, Measure
from reports.context import Context
from reports.dataset import Arm, Pair
from reports.games import has_columns as game_has_columns, stats_by_arm
from reports.model import Section, Table
from reports.sections import variants
from reports.sections.first_player import seat_stats
from reports.sections.first_player import adjusted
from reports.stats import Estimate, equal_means_test, mean_interval, pairwise_gaps, share_interval, wilson

DECK = 60
COLUMNS = ("round_bids", "round_tricks", "exact_bids", "tricks", "points_lost", "bid_total")


# -- per-game metrics (one row = one game) ----------------------------------------------------------
def players() -> pl.Expr:
    return pl.col("players").cast(pl.Int64)


def rounds() -> pl.Expr:
    return pl.col("rounds").cast(pl.Int64)


def rounds_of(arm: Arm) -> int:
    """Rounds an arm plays: rule ``rounds``, 0 (or absent) = the whole deck, 60 / players."""
    return int(arm.rules.get("rounds") or 0) or DECK // arm.players


def misses() -> pl.Expr:
    """Bid minus tricks taken, per slot (round-major)."""
    return pl.col("round_bids").cast(pl.List(pl.Int32)) - pl.col("round_tricks").cast(pl.List(pl.Int32))


def exact_slots(miss: pl.Expr | None = None) -> pl.Expr:
    """Per slot: the bid was met exactly (list of bools)."""
    return (misses() if miss is None else miss).list.eval(pl.element() == 0)


def slot_points(miss: pl.Expr | None = None, exact: pl.Expr | None = None) -> pl.Expr:
    """Points each slot scored: 20 + 10 per trick when exact, else -10 per trick off the bid."""
    miss = misses() if miss is None else miss
    exact = exact_slots(miss) if exact is None else exact
    taken = pl.col("round_tricks").cast(pl.List(pl.Int32))
    return exact.cast(pl.List(pl.Int32)) * (taken * 10 + 20) - miss.list.eval(pl.element().abs()) * 10


def dealer() -> pl.Expr:
    """The dealer's bidding position (last): players - 1."""
    return players() - 1


def position_slots(p: int | pl.Expr) -> pl.Expr:
    """Slots of bidding position p, one per round: round i (0-based) is dealt by seat (i + n - 1) % n,
    so position p is seat (i + p) % n, slot i*n + (i + p) % n."""
    i = pl.int_ranges(0, rounds())
    return i * players() + (i + p) % players()


def at_position(slots: pl.Expr, p: int | pl.Expr) -> pl.Expr:
    """Per-game mean of a slot list over the rounds where the bidder sat at position p (null when the
    arm has no such position)."""
    value = slots.list.gather(position_slots(p)).list.mean()
    return value if isinstance(p, pl.Expr) else pl.when(players() > p).then(value)


def overbid() -> pl.Expr:
    """All bids of a round minus the cards dealt, per round (> 0: the table bids more tricks than exist)."""
    return (pl.col("bid_total").list.sum() - rounds() * (rounds() + 1) / 2) / rounds()


def exact_rate() -> pl.Expr:
    """Share of a game's bids (all seats, all rounds) met exactly."""
    return pl.col("exact_bids").list.sum() / (rounds() * players())


def seat_exact(seat: int) -> pl.Expr:
    return pl.col("exact_bids").list.get(seat, null_on_oob=True) / rounds()


def seat_bias(seat: int) -> pl.Expr:
    """Seat's bids minus its tricks, per round."""
    return (pl.col("bid_total").list.get(seat, null_on_oob=True)
            - pl.col("tricks").list.get(seat, null_on_oob=True)) / rounds()


def points_lost() -> pl.Expr:
    """Points a seat loses to missed bids in a game (mean over seats)."""
    return pl.col("points_lost").list.mean()


def winning_score() -> pl.Expr:
    return pl.col("score").list.max()


def lowest_score() -> pl.Expr:
    return pl.col("score").list.min()


def margin() -> pl.Expr:
    """Best score minus the runner-up's (0: a shared win)."""
    ranked = pl.col("score").list.sort(descending=True)
    return ranked.list.get(0) - ranked.list.get(1)


def policy_seats(arm: Arm, policy: str) -> list[int]:
    return [s for s, p in enumerate(arm.policies) if p == policy]


def policy_exact(arm: Arm, policy: str) -> pl.Expr:
    return m.mean_over([seat_exact(s) for s in policy_seats(arm, policy)])


OUTCOMES = (
    Measure("score_mean", "points per seat", lambda arm: m.score_mean()),
    Measure("exact_rate", "exact bids", lambda arm: exact_rate(), share=True),
    Measure("dealer_exact", "dealer's exact bids", lambda arm: at_position(exact_slots(), dealer()), share=True),
    Measure("first_exact", "first bidder's exact bids", lambda arm: at_position(exact_slots(), 0), share=True),
    Measure("dealer_points", "dealer's points per round dealt", lambda arm: at_position(slot_points(), dealer())),
    Measure("points_lost", "points lost per seat", lambda arm: points_lost()),
    Measure("overbid", "bids minus cards dealt, per round", lambda arm: overbid()),
)
# 'rounds whose bids add up' is not an outcome: under the hook rule it is 0 by the rule itself, so a
# comparison with it would test the rule's text, not the game (the section states it instead).


# -- one pass: every per-arm number of the descriptive sections ------------------------------------------
def _pair_moments(names: list[str], name: str) -> list[pl.Expr]:
    """Moments of the per-game difference of every pair of columns (i < j): paired within a game."""
    out = []
    for i, j in combinations(range(len(names)), 2):
        out += m.moments(pl.col(names[i]) - pl.col(names[j]), f"{name}{i}-{j}")
    return out


def _query(ctx: Context, arms: list[Arm]) -> pl.LazyFrame:
    """One pass in steps: per-slot lists (bid minus tricks, exact, points); each bidding position's
    slots gathered once per game (one value per round); per-game values from those (a round or a
    cell is a list.get, no slicing); then their moments per arm."""
    n_max = max(a.players for a in arms)
    r_max = max(rounds_of(a) for a in arms)
    c = pl.col
    kinds = {"ex": "_exact", "pt": "_points", "mi": "_miss"}
    gathered = {f"_{k}{p}": pl.when(players() > p).then(c(src).list.gather(position_slots(p)))
                for p in range(n_max) for k, src in kinds.items()}

    def at(kind: str, p: int, r: int) -> pl.Expr:
        return c(f"_{kind}{p}").list.get(r - 1, null_on_oob=True).cast(pl.Int32)

    per_game: dict[str, pl.Expr] = {"exact": exact_rate(), "overbid": overbid()}
    for s in range(n_max):
        per_game |= {f"seat{s}:exact": seat_exact(s), f"seat{s}:score": m.seat_score(s),
                     f"seat{s}:bias": seat_bias(s)}
    for p in range(n_max):
        per_game |= {f"pos{p}:exact": c(f"_ex{p}").list.mean(), f"pos{p}:points": c(f"_pt{p}").list.mean(),
                     f"pos{p}:bias": c(f"_mi{p}").list.mean()}
    for r in range(1, r_max + 1):
        played = rounds() >= r
        per_game[f"round{r}:exact"] = pl.when(played).then(
            pl.sum_horizontal([at("ex", p, r) for p in range(n_max)]) / players())
        per_game[f"round{r}:overbid"] = pl.when(played).then(pl.sum_horizontal([at("mi", p, r) for p in range(n_max)]))
        per_game |= {f"cell{r}.{p}": at("ex", p, r) for p in range(n_max)}
    for q in dict.fromkeys(q for a in arms for q in a.policies):  # a column per policy, not per arm and policy
        per_game[f"policy:{q}"] = m.per_arm({a.name: policy_exact(a, q) for a in arms if q in a.policies})
    dists = {"winning": winning_score(), "margin": margin(), "lowest": lowest_score(), "lost": points_lost()}
    per_game |= {f"dist:{k}": e for k, e in dists.items()}
    # the dealer is the last position (n - 1); a round's bids add up to the cards dealt when its overbid is 0
    derived = {f"dealer:{what}": pl.coalesce([pl.when(players() == p + 1).then(c(f"pos{p}:{what}"))
                                              for p in range(n_max)]) for what in ("exact", "points", "bias")}
    derived |= {f"round{r}:match": c(f"round{r}:overbid") == 0 for r in range(1, r_max + 1)}
    derived["match"] = pl.sum_horizontal([(c(f"round{r}:overbid") == 0).cast(pl.Int32)
                                           for r in range(1, r_max + 1)]) / rounds()

    aggs = [pl.len().alias("games"), c("rounds").min().alias("rounds_min"), c("rounds").max().alias("rounds_max")]
    for name in [*per_game, *derived]:
        if name.startswith("cell"):
            aggs += [c(name).sum().alias(f"{name}:sum"), c(name).count().alias(f"{name}:n")]
        elif name.startswith("dist:"):
            aggs += m.describe(c(name), name)
        else:
            aggs += m.moments(c(name), name)
    aggs += _pair_moments([f"seat{s}:exact" for s in range(n_max)], "seatex")
    aggs += _pair_moments([f"seat{s}:score" for s in range(n_max)], "seatsc")
    aggs += _pair_moments([f"pos{p}:exact" for p in range(n_max)], "posex")
    aggs += _pair_moments([f"pos{p}:points" for p in range(n_max)], "pospt")
    aggs += m.moments(c("dealer:exact") - c("pos0:exact"), "dealer-first:exact")
    aggs += m.moments(c("dealer:points") - c("pos0:points"), "dealer-first:points")
    aggs += [(c("dist:winning") < 0).sum().alias("negative_winner"),
             c("dist:winning").alias("value").value_counts().implode().alias("hist:winning"),  # a list per arm
             c("dist:margin").alias("value").value_counts().implode().alias("hist:margin")]
    return m.by_arm(lambda name: ctx.arm_scan(name)
                    .with_columns(misses().alias("_miss"))
                    .with_columns(exact_slots(c("_miss")).alias("_exact"))
                    .with_columns(slot_points(c("_miss"), c("_exact")).alias("_points"))
                    .with_columns(**gathered)
                    .select("arm", "rounds", "players", *[e.alias(k) for k, e in per_game.items()])
                    .with_columns(**derived), [a.name for a in arms], aggs)


def _mean(r: dict, key: str) -> Estimate:
    return mean_interval(r[f"{key}:mean"], r[f"{key}:var"], r[f"{key}:n"])


def _share(r: dict, key: str) -> Estimate:
    """A rate in 0-1 (exact bids, rounds that add up): the report's one interval for shares."""
    return share_interval(r[f"{key}:mean"], r[f"{key}:var"], r[f"{key}:n"])


def _gap(ctx: Context, r: dict, name: str, means: list[float], label: str, claim: bool = True) -> dict:
    """Largest minus smallest of k per-game means, paired within games: the extreme pair's difference
    with a simultaneous max-|t| interval over all pairs (picking the extremes after looking costs
    nothing), and Hotelling's test that all k are equal, a claim of the report. The covariance of the
    per-game values comes from the variances of all pairwise differences."""
    k, games = len(means), int(r["games"])
    hi = max(range(k), key=lambda i: means[i])
    lo = min(range(k), key=lambda i: means[i])
    if k < 2:
        return {"high": hi, "low": lo, "difference": Estimate(0.0, 0.0, 0.0, games, "paired"), "test": None,
                "claim": None}
    v = np.zeros((k, k))
    n = games
    for i, j in combinations(range(k), 2):
        v[i, j] = v[j, i] = r[f"{name}{i}-{j}:var"] if r[f"{name}{i}-{j}:var"] is not None else np.nan
        n = min(n, int(r[f"{name}{i}-{j}:n"] or 0))
    last = k - 1
    cov = np.zeros((k, k))  # of x_i - x_last: (V[i,last] + V[j,last] - V[i,j]) / 2
    for i in range(last):
        for j in range(last):
            cov[i, j] = (v[i, last] + v[j, last] - v[i, j]) / 2
    centred = np.asarray(means, float) - means[last]
    gaps = pairwise_gaps(centred, cov, n)
    test = equal_means_test(centred, cov, n)
    diff = gaps.pairs.get((hi, lo), Estimate(0.0, 0.0, 0.0, n, "paired"))
    c = ctx.claim(f"wizard/{r['arm']}/{name}", "wizard", label, test.p_value) if claim else None
    return {"high": hi, "low": lo, "difference": diff, "test": test, "claim": c}


def dealt_rounds(seat: int, players_: int, rounds_: int) -> list[int]:
    """Rounds (1-based) that ``seat`` deals: round r is dealt by seat (r-1 + n-1) % n."""
    return [r for r in range(1, rounds_ + 1) if (r - 1 + players_ - 1) % players_ == seat]


def position_label(p: int, players_: int) -> str:
    if p == players_ - 1:
        return "dealer"
    return {0: "1st", 1: "2nd", 2: "3rd"}.get(p, f"{p + 1}th")


def _hist(r: dict, key: str) -> pl.DataFrame:
    rows = r[key] or []
    return pl.DataFrame({"value": [x["value"] for x in rows], "count": [x["count"] for x in rows]},
                        schema={"value": pl.Float64, "count": pl.Int64}).sort("value")


def _arm_stats(ctx: Context, arm: Arm, r: dict) -> dict:
    n, rounds_ = arm.players, int(r["rounds_max"])
    positions = [{"position": p, "label": position_label(p, n), "seat_in_round_1": p,
                  "exact": _share(r, f"pos{p}:exact"), "points_per_round": _mean(r, f"pos{p}:points"),
                  "bid_minus_tricks": _mean(r, f"pos{p}:bias")} for p in range(n)]
    seats = [{"seat": s, "deals_rounds": dealt_rounds(s, n, rounds_), "first_in_rounds":
              [rr for rr in range(1, rounds_ + 1) if (s - (rr - 1)) % n == 0],
              "exact": _share(r, f"seat{s}:exact"), "bid_minus_tricks": _mean(r, f"seat{s}:bias"),
              "score": _mean(r, f"seat{s}:score")} for s in range(n)]
    by_round = []
    for rr in range(1, rounds_ + 1):
        match = r[f"round{rr}:match:sum"] or 0.0
        by_round.append({
            "cards": rr, "dealer_seat": (rr - 1 + n - 1) % n, "exact": _share(r, f"round{rr}:exact"),
            "bids_add_up": wilson(match, r[f"round{rr}:match:n"]), "overbid": _mean(r, f"round{rr}:overbid"),
            "by_position": [wilson(r[f"cell{rr}.{p}:sum"] or 0.0, r[f"cell{rr}.{p}:n"]) for p in range(n)]})
    policies = [{"policy": q, "seats": policy_seats(arm, q), "exact": _share(r, f"policy:{q}")}
                for q in dict.fromkeys(arm.policies)]
    dist = {name: {st: r[f"dist:{name}:{st}"] for st in ("mean", "sd", "min", "p5", "p25", "p50", "p75", "p95", "max")}
            for name in ("winning", "margin", "lowest", "lost")}
    games = int(r["games"])
    overbid = _mean(r, "overbid")
    dmf = {"exact": mean_interval(r["dealer-first:exact:mean"], r["dealer-first:exact:var"], r["dealer-first:exact:n"],
                                  method="paired t"),
           "points_per_round": mean_interval(r["dealer-first:points:mean"], r["dealer-first:points:var"],
                                             r["dealer-first:points:n"], method="paired t")}
    return {
        "arm": arm, "games": games, "players": n, "rounds": rounds_, "dealer_position": n - 1,
        "hook": bool(int(arm.rules.get("hook_rule", 0) or 0)),
        "exact": _share(r, "exact"), "bids_add_up": _share(r, "match"), "overbid": overbid,
        "positions": positions, "seats": seats, "by_round": by_round, "policies": policies,
        "dealer": {"position": n - 1, "exact": _share(r, "dealer:exact"), "points_per_round": _mean(r, "dealer:points"),
                   "bid_minus_tricks": _mean(r, "dealer:bias")},
        "dealer_minus_first": dmf,
        "claims": {"dealer_exact": ctx.claim(f"wizard/{arm.name}/dealer-first-exact", "wizard",
                                             f"{arm.name}: dealer minus first bidder, exact bids", dmf["exact"].p_value),
                   "dealer_points": ctx.claim(f"wizard/{arm.name}/dealer-first-points", "wizard",
                                              f"{arm.name}: dealer minus first bidder, points per round",
                                              dmf["points_per_round"].p_value),
                   "overbid": ctx.claim(f"wizard/{arm.name}/overbid", "wizard",
                                        f"{arm.name}: bids of a round against the cards dealt", overbid.p_value)},
        "seat_exact_gap": _gap(ctx, r, "seatex", [s["exact"].value for s in seats], f"{arm.name}: seats differ in exact bids"),
        "seat_score_gap": _gap(ctx, r, "seatsc", [s["score"].value for s in seats], f"{arm.name}: seats differ in final points"),
        "position_exact_gap": _gap(ctx, r, "posex", [p["exact"].value for p in positions],
                                   f"{arm.name}: bidding positions differ in exact bids"),
        "position_points_gap": _gap(ctx, r, "pospt", [p["points_per_round"].value for p in positions],
                                    f"{arm.name}: bidding positions differ in points per round"),
        "scores": dist, "negative_winner": wilson(r["negative_winner"] or 0, games),
        "hist": {"winning score": _hist(r, "hist:winning"), "margin over the runner-up": _hist(r, "hist:margin")},
    }


def has_columns(ctx: Context) -> bool:
    return game_has_columns(ctx, COLUMNS)


def wizard_stats(ctx: Context) -> dict[str, dict]:
    """{arm: numbers} for every arm with games, in study order; one group_by pass, cached."""
    return stats_by_arm(ctx, "wizard", _query, lambda a, row: _arm_stats(ctx, a, row))


# -- wording ------------------------------------------------------------------------------------------
def _pp(formatted: str) -> str:
    """'points' of a share difference are percentage points (text.points says so already)."""
    return formatted if " percentage points" in formatted else formatted.replace(" points", " percentage points", 1)


def _share_diff(est: Estimate) -> str:
    return _pp(text.points(est))


def _value_diff(est: Estimate) -> str:
    return text.value_ci(est, signed_values=True)


def _bound(est: Estimate, share: bool) -> str:
    """The largest difference the interval leaves open: 'within 0.4 percentage points either way'."""
    edge = max(abs(est.lo), abs(est.hi))
    if share:
        return f"within {text.number(edge * 100, text.share_digits(est))} percentage points either way"
    return f"within {text.number(edge)} points either way"


def _no_difference(est: Estimate, share: bool) -> str:
    """Absence of evidence worded as such, with the bound the interval gives."""
    return f"no detectable difference at this size (the 95% interval puts it {_bound(est, share)})"


def _dealer_sentence(name: str, s: dict) -> str:
    """Whether bidding last pays, judged on points per round (what wins a game), and the exact-bid
    difference said as what it is (how often, not whether it hurts). The dealer both bids last and
    plays last to the first trick, so the two cannot be told apart."""
    first, deal, d = s["positions"][0], s["dealer"], s["dealer_minus_first"]
    dp, de = d["points_per_round"], d["exact"]
    points_ = (f"the dealer, who bids last (and plays last to the first trick), scores "
               f"{text.value_ci(deal['points_per_round'])} points per round dealt against "
               f"{text.value_ci(first['points_per_round'])} for the first bidder, {_value_diff(dp)}: ")
    if s["claims"]["dealer_points"].detected:
        points_ += (f"bidding last {'pays' if dp.value > 0 else 'costs'} points "
                    f"({adjusted(s['claims']['dealer_points'])})")
    else:
        points_ += _no_difference(dp, share=False)
    exact = (f"; the dealer bids exactly {text.share_ci(deal['exact'])} of the time, the first bidder "
             f"{text.share_ci(first['exact'])}, {_share_diff(de)}: ")
    if s["claims"]["dealer_exact"].detected:
        exact += f"the dealer bids exactly {'more' if de.value > 0 else 'less'} often"
    else:
        exact += _no_difference(de, share=True)
    return f"{name}: {text.share_ci(s['exact'])} of bids are met exactly; {points_}{exact}."


def _mixed(s: dict) -> str:
    arm = s["arm"]
    return (f" Seats carry different policies ({', '.join(arm.policies)}), so seat differences mix seat and "
            f"policy effects." if arm.mixed_policies else "")


def _gap_sentence(name: str, g: dict, what: str, unit_of: Callable[[int], str], share: bool) -> str:
    """'Seats differ in final points' from Hotelling's test (a claim), with the extreme pair's
    simultaneous interval as the uncertainty of which two lie furthest apart; otherwise no ranking."""
    est = g["difference"]
    if g["claim"] is not None and g["claim"].detected:
        diff = _share_diff(est) if share else _value_diff(est)
        return (f"{name}: {what} differ ({adjusted(g['claim'])}); the furthest apart are {unit_of(g['high'])} "
                f"over {unit_of(g['low'])}, {diff} (simultaneous interval over all pairs).")
    return f"{name}: {what}: {_no_difference(est, share)} (simultaneous interval of the largest gap)."


def _hook_sentence(pairs: list[Pair], comps: dict[str, list[Comparison]]) -> str:
    names = "; ".join(f"{p.b.name} vs {p.a.name}" for p in pairs if p.key in comps)
    return (f"The hook rule's effects ({names}: exact bids, the dealer's exact bids and points, seat 0's "
            f"win share, balance) are in the variant comparison above, paired game by game. Under the hook "
            f"rule no round's bids add up to the cards dealt: the rule forbids it, so that is not tested.")


# -- sections -------------------------------------------------------------------------------------------
POSITION_NOTES = [
    "Round r (r cards each) is dealt by seat (r-1 + n-1) % n: the first dealer is seat n-1 and the deal "
    "passes left. Bidding starts at the dealer's left and ends with the dealer, so a seat's bidding "
    "position in round r is (seat - dealer - 1) mod n: '1st' bids first, 'dealer' (position n-1) last. "
    "In round 1 position p is seat p. The first bidder also leads the first trick, so the dealer plays "
    "last to it: a position's numbers are those of bidding and of playing from that place.",
    "Per game, a position's exact-bid rate is the share of the rounds in which the player bidding from "
    "that position met the bid; its points per round are those rounds' points recomputed from round_bids "
    "and round_tricks (20 + 10 per trick when exact, -10 per trick off otherwise; per seat they add up "
    "to the final score). Means over games with 95% t-intervals (scipy), so rounds and seats of one game "
    "are never counted as independent.",
    "Whether bidding last pays is judged on points per round, which decide the game; the exact-bid rate "
    "alone can mislead (a dealer who bids and takes more tricks scores more at the same rate). Dealer "
    "minus first bidder is paired within each game: mean of the per-game differences with a t-interval, "
    "one claim for points and one for exact bids. Seats (or positions) differ: Hotelling's test that all "
    "are equal, a claim; the two furthest apart are named only then, with a simultaneous interval over "
    "all pairs (max-|t| with the per-game covariance), since they were picked after looking.",
]
ACCURACY_NOTES = [
    "A bid is exact when the tricks taken equal the bid. By seat: exact_bids / rounds per game; by "
    "position, round size and policy: from round_bids and round_tricks. Every game plays every round, "
    "so each game contributes the same number of bids to a category and the mean of the per-game "
    "shares is the pooled share; its interval respects that bids of one game are not independent.",
    "A cell of round size x position holds one bid per game, so its interval is a Wilson interval "
    "(statsmodels). 'Bids add up': the round's bids sum to the cards dealt, so everyone can make their "
    "bid (the hook rule forbids it: 'none, by the rule'). Overbid: the round's bids minus the cards dealt.",
    "By policy: the mean over the seats that policy holds in the arm; with several policies in one arm "
    "the seats differ too (see the seat table).",
]
SCORE_NOTES = [
    "Winning score: the highest final score of the game; margin: the highest minus the second highest "
    "(0 for a shared win); points lost: points a seat loses to missed bids over the game (mean over "
    "seats). p5..p95 are linearly interpolated quantiles. A negative winning score is possible: "
    "everyone may end below zero.",
]


def _position_word(s: dict) -> Callable[[int], str]:
    return lambda p: "the dealer" if p == s["players"] - 1 else f"the {s['positions'][p]['label']} bidder"


def _positions_section(ctx: Context, stats: dict[str, dict]) -> Section:
    sec = Section(key=ctx.key("wizard.positions"), title="Seat and dealer-position effects", level=3,
                  notes=list(POSITION_NOTES))
    seats_ = seat_stats(ctx)
    for name, s in stats.items():
        sec.verdicts.append(_gap_sentence(name, s["position_points_gap"], "bidding positions' points per round",
                                          _position_word(s), share=False))
        sec.verdicts.append(_gap_sentence(name, s["seat_score_gap"], "seats' final points",
                                          lambda k: f"seat {k}", share=False) + _mixed(s))
    sec.data = {"dealer_rule": "round r is dealt by seat (r-1 + n-1) % n; position = (seat - dealer - 1) mod n",
                "arms": {name: {
                    "players": s["players"], "rounds": s["rounds"], "dealer_position": s["dealer_position"],
                    "positions": s["positions"], "dealer": s["dealer"], "dealer_minus_first": s["dealer_minus_first"],
                    "position_exact_gap": s["position_exact_gap"], "position_points_gap": s["position_points_gap"],
                    "seats": [{**x, "win_share": seats_[name].shares[x["seat"]]} for x in s["seats"]],
                    "seat_score_gap": s["seat_score_gap"]} for name, s in stats.items()}}
    sec.tables.append(Table(
        "By bidding position (1st = dealer's left, dealer = last)",
        ["arm", "position", "seat in round 1", "exact bids", "points per round", "bid minus tricks per round"],
        [[name, p["label"], str(p["seat_in_round_1"]), text.share_ci(p["exact"]), text.value_ci(p["points_per_round"]),
          text.value_ci(p["bid_minus_tricks"], signed_values=True)] for name, s in stats.items() for p in s["positions"]]))
    sec.tables.append(Table(
        "By seat (seat 0 bids first in round 1; the first dealer is the last seat)",
        ["arm", "seat", "deals rounds", "exact bids", "bid minus tricks per round", "final points", "win share"],
        [[name, str(x["seat"]), text.seat_list(x["deals_rounds"]) or "-", text.share_ci(x["exact"]),
          text.value_ci(x["bid_minus_tricks"], signed_values=True), text.value_ci(x["score"]),
          text.share_ci(seats_[name].shares[x["seat"]])] for name, s in stats.items() for x in s["seats"]],
        # a seat's exact bids, final points and win share are also in the bid-accuracy, distribution and
        # first-player sections; the seats' gaps are the verdicts above: the per-seat detail is folded
        fold=True))
    pos = pl.DataFrame([{"position": p["label"], "arm": name, "points": p["points_per_round"].value,
                         "lo": p["points_per_round"].lo, "hi": p["points_per_round"].hi,
                         "_order": p["position"] + (DECK if p["label"] == "dealer" else 0)}
                        for name, s in stats.items() for p in s["positions"]])
    # the dealer last on the axis, also when the arms' player counts differ
    pos = pos.sort("_order", maintain_order=True).drop("_order")
    sec.figures.append(plots.interval_bars(pos, "position", "points", "lo", "hi", hue="arm", percent=False,
                                           xlabel="bidding position (dealer bids last)", ylabel="points per round",
                                           title="Points per round by bidding position"))
    return sec


def _round_phrase(name: str, s: dict) -> str:
    rows = s["by_round"]
    first, last = rows[0], rows[-1]
    out = (f"{name}: by round size, exact bids go from {text.share_ci(first['exact'])} with 1 card to "
           f"{text.share_ci(last['exact'])} with {last['cards']} cards")
    ob = s["overbid"]
    if s["claims"]["overbid"].detected:
        table = (f"the bids of a round {'exceed' if ob.value > 0 else 'fall short of'} the cards dealt by "
                 f"{text.value_ci(ob if ob.value > 0 else ob.negate())} tricks on average")
    else:
        table = ("the bids of a round against the cards dealt: "
                 + _no_difference(ob, share=False).replace(" points either way", " tricks either way"))
    adds_up = ("no round's bids add up to the cards dealt (the hook rule forbids it)" if s["hook"] else
               f"the bids add up to exactly the cards dealt in {text.share_ci(s['bids_add_up'])} of rounds")
    return f"{out}; {table}; {adds_up}."


def _accuracy_section(ctx: Context, stats: dict[str, dict]) -> Section:
    sec = Section(key=ctx.key("wizard.bid_accuracy"), title="Bid accuracy", level=3, notes=list(ACCURACY_NOTES))
    for name, s in stats.items():
        sec.verdicts.append(_gap_sentence(name, s["seat_exact_gap"], "seats' exact-bid rates",
                                          lambda k: f"seat {k}", share=True) + _mixed(s))
        sec.verdicts.append(_gap_sentence(name, s["position_exact_gap"], "bidding positions' exact-bid rates",
                                          _position_word(s), share=True))
        sec.verdicts.append(_round_phrase(name, s))
    sec.data = {"arms": {name: {
        "overall": s["exact"], "bids_add_up": s["bids_add_up"], "overbid": s["overbid"],
        "bids_add_up_fixed_by_rule": s["hook"],
        "by_seat": [{"seat": x["seat"], "exact": x["exact"]} for x in s["seats"]],
        "seat_gap": s["seat_exact_gap"],
        "by_position": [{"position": p["position"], "label": p["label"], "exact": p["exact"]} for p in s["positions"]],
        "by_policy": s["policies"],
        "by_round": s["by_round"]} for name, s in stats.items()}}
    n_max = max(s["players"] for s in stats.values())
    several = any(len(s["policies"]) > 1 for s in stats.values())
    sec.tables.append(Table(
        "Exact-bid rate by seat" + (" and policy" if several else ""),
        ["arm", "all seats"] + [f"seat {k}" for k in range(n_max)] + (["by policy"] if several else []),
        [[name, text.share_ci(s["exact"])] + [text.share_ci(x["exact"]) for x in s["seats"]]
         + [""] * (n_max - s["players"])
         + (["; ".join(f"{q['policy']} {text.share_ci(q['exact'])}" for q in s["policies"])] if several else [])
         for name, s in stats.items()]))
    sec.tables.append(Table(
        "Exact-bid rate by round size and bidding position",
        ["arm", "cards", "dealer seat", "all seats"] + [f"position {p + 1}" for p in range(n_max)]
        + ["bids add up", "overbid"],
        [[name, str(x["cards"]), str(x["dealer_seat"]), text.share_ci(x["exact"])]
         + [text.share_ci(e) for e in x["by_position"]] + [""] * (n_max - s["players"])
         + ["none (rule)" if s["hook"] else text.share_ci(x["bids_add_up"]),
            text.value_ci(x["overbid"], signed_values=True)]
         for name, s in stats.items() for x in s["by_round"]],
        note="position 1 bids first, position n (the dealer) last; 'bids add up': share of games whose bids in "
             "that round sum to the cards dealt; overbid: the round's bids minus the cards dealt"))
    rounds_frame = pl.DataFrame([{"cards": x["cards"], "arm": name, "exact": x["exact"].value, "lo": x["exact"].lo,
                                  "hi": x["exact"].hi, "all": s["exact"].value}
                                 for name, s in stats.items() for x in s["by_round"]])
    sec.figures.append(plots.interval_lines(rounds_frame, "cards", "exact", "lo", "hi", hue="arm", ref="all",
                                            ref_label="all rounds", xlabel="cards dealt (round size)",
                                            ylabel="exact bids", title="Exact-bid rate by round size"))
    return sec


DIST_ROWS = (("winning", "winning score"), ("margin", "margin over the runner-up"), ("lowest", "lowest score"),
             ("lost", "points lost per seat"))


def _scores_section(ctx: Context, stats: dict[str, dict]) -> Section:
    sec = Section(key=ctx.key("wizard.scores"), title="Score distributions", level=3, notes=list(SCORE_NOTES))
    for name, s in stats.items():
        w, mg, lost = s["scores"]["winning"], s["scores"]["margin"], s["scores"]["lost"]
        sec.verdicts.append(
            f"{name}: the winner ends on {text.number(w['mean'])} points on average (median {text.quantity(w['p50'], 0)}, "
            f"90% of games between {text.quantity(w['p5'], 0)} and {text.quantity(w['p95'], 0)}), "
            f"{text.number(mg['mean'])} ahead of the runner-up (median {text.quantity(mg['p50'], 0)}); "
            f"{text.share_ci(s['negative_winner'])} of games are won with a negative score; a seat loses "
            f"{text.number(lost['mean'])} points per game to missed bids.")
    sec.data = {"arms": {name: {**{label: s["scores"][k] for k, label in DIST_ROWS},
                                "negative_winning_score": s["negative_winner"],
                                "histograms": {k: {"value": f["value"].to_list(), "count": f["count"].to_list()}
                                               for k, f in s["hist"].items()}} for name, s in stats.items()}}
    rows = []
    for name, s in stats.items():
        for k, label in DIST_ROWS:
            x = s["scores"][k]
            d = text.digits_for(x["mean"])
            rows.append([name, label, text.number(x["mean"], d), text.number(x["sd"], d)]
                        + [text.quantity(x[st], d) for st in ("min", "p5", "p25", "p50", "p75", "p95", "max")])
    sec.tables.append(Table("Winning score, margin and points lost per game",
                            ["arm", "measure", "mean", "sd", "min", "p5", "p25", "median", "p75", "p95", "max"], rows,
                            note="final points per seat by seat: see 'Game length and score distributions'",
                            fold=True))  # the verdicts give the main numbers, the figure the distributions
    frame = pl.concat([f.with_columns(pl.lit(k).alias("measure"), pl.lit(name).alias("arm"))
                       for name, s in stats.items() for k, f in s["hist"].items()])
    sec.figures.append(plots.histograms(frame, "value", "count", hue="arm", panel="measure", xlabel="points",
                                        title="Winning score and margin over the runner-up"))
    return sec


def wizard_section(ctx: Context) -> Section | None:
    key, title = ctx.key("wizard"), ctx.title("Wizard: bidding, seats and the dealer")
    if not has_columns(ctx):
        return Section(key=key, title=title, verdicts=[
            "The dataset lacks Wizard's columns (" + ", ".join(COLUMNS) + "; docs/schema.md): no Wizard analysis."])
    stats = wizard_stats(ctx)
    if not stats:
        return None
    pairs = ctx.dataset.toggle_pairs(ctx.game, "hook_rule")
    # the hook rule's effects are the variant comparison's (same pairs, same claims): named, not repeated
    comps = variants.comparisons(ctx, pairs) if pairs else {}
    sec = Section(key=key, title=title)
    sec.verdicts = [_dealer_sentence(name, s) for name, s in stats.items()]
    if comps:
        sec.verdicts.append(_hook_sentence(pairs, comps))
    sec.data = {"arms": {name: {"games": s["games"], "players": s["players"], "rounds": s["rounds"],
                                "exact_bids": s["exact"], "dealer_minus_first": s["dealer_minus_first"],
                                "seat_score_gap": s["seat_score_gap"]} for name, s in stats.items()},
                "hook_rule_pairs": list(comps)}
    sec.children = [_positions_section(ctx, stats), _accuracy_section(ctx, stats), _scores_section(ctx, stats)]
    return sec


SECTIONS = (wizard_section,)
