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


def in_round(slots: pl.Expr, r: int) -> pl.Expr:
    """The n slots of round r (1-based, r cards dealt)."""
    return slots.list.slice((r - 1) * players(), players())


def round_bids_match(r: int) -> pl.Expr:
    """Round r's bids add up to the cards dealt (r): everyone can make their bid."""
    bids = pl.col("round_bids").cast(pl.List(pl.Int32))
    return pl.when(rounds() >= r).then(in_round(bids, r).list.sum() == r)


def bids_match_share(max_rounds: int) -> pl.Expr:
    """Share of a game's rounds whose bids add up to the cards dealt (never under the hook rule)."""
    return pl.sum_horizontal([round_bids_match(r).cast(pl.Int32) for r in range(1, max_rounds + 1)]) / rounds()


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
    Measure("bids_match", "rounds whose bids add up to the cards dealt", lambda arm: bids_match_share(rounds_of(arm)),
            share=True),
    Measure("overbid", "bids minus cards dealt, per round", lambda arm: overbid()),
)
# What the hook rule is judged on, in this order.
EFFECTS = ("exact_rate", "dealer_exact", "dealer_points", "seat0_win", "balance", "score_mean", "bids_match")
TOP_EFFECTS = EFFECTS[:5]  # the short verdict at the top of the section


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
    for arm in arms:
        for q in dict.fromkeys(arm.policies):
            per_game[f"policy:{arm.name}:{q}"] = m.per_arm({arm.name: policy_exact(arm, q)})
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
             c("dist:winning").alias("value").value_counts().alias("hist:winning"),
             c("dist:margin").alias("value").value_counts().alias("hist:margin")]
    return (ctx.scan.filter(pl.col("arm").is_in([a.name for a in arms]))
            .with_columns(misses().alias("_miss"))
            .with_columns(exact_slots(c("_miss")).alias("_exact"))
            .with_columns(slot_points(c("_miss"), c("_exact")).alias("_points"))
            .with_columns(**gathered)
            .select("arm", "rounds", "players", *[e.alias(k) for k, e in per_game.items()])
            .with_columns(**derived)
            .group_by("arm").agg(aggs))


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
    policies = [{"policy": q, "seats": policy_seats(arm, q), "exact": _share(r, f"policy:{arm.name}:{q}")}
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
        "position_points_gap": _gap(ctx, r, "pospt", [p["points_per_round"].value for p in positions], "", claim=False),
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
    """'points' of a share difference are percentage points: say so where score points are near."""
    return formatted.replace(" points", " percentage points", 1)


def _share_diff(est: Estimate) -> str:
    return _pp(text.points(est))


def _value_diff(est: Estimate) -> str:
    return text.value_ci(est, signed_values=True)


def _position_sentence(name: str, s: dict) -> str:
    first, deal, d = s["positions"][0], s["dealer"], s["dealer_minus_first"]
    de, dp = d["exact"], d["points_per_round"]
    if s["claims"]["dealer_exact"].detected:
        how = f"bidding last {'helps' if de.value > 0 else 'hurts'} ({_share_diff(de)})"
    else:
        how = f"no detectable difference ({_share_diff(de)})"
    return (f"{name}: the dealer, who bids last, bids exactly {text.share_ci(deal['exact'])} of the time against "
            f"{text.share_ci(first['exact'])} for the first bidder: {how}; the dealer scores "
            f"{text.value_ci(deal['points_per_round'])} points per round dealt against "
            f"{text.value_ci(first['points_per_round'])} for the first bidder ({_value_diff(dp)}"
            f"{'' if s['claims']['dealer_points'].detected else ', not detectable'}).")


def _mixed(s: dict) -> str:
    arm = s["arm"]
    return (f" Seats carry different policies ({', '.join(arm.policies)}), so seat differences mix seat and "
            f"policy effects." if arm.mixed_policies else "")


def _seat_sentence(name: str, s: dict) -> str:
    g = s["seat_score_gap"]
    hi, lo, est = s["seats"][g["high"]], s["seats"][g["low"]], g["difference"]
    tail = (f"{_value_diff(est)} apart (simultaneous interval), a detectable seat effect ({adjusted(g['claim'])})"
            if g["claim"] is not None and g["claim"].detected
            else f"{_value_diff(est)} apart (simultaneous interval): no detectable seat effect")
    return (f"{name}: seat {hi['seat']} ends highest ({text.value_ci(hi['score'])} points on average) and seat "
            f"{lo['seat']} lowest ({text.value_ci(lo['score'])}), {tail}; seat {hi['seat']} deals rounds "
            f"{text.seat_list(hi['deals_rounds'])}, seat {lo['seat']} rounds {text.seat_list(lo['deals_rounds'])}."
            + _mixed(s))


def _summary_sentence(name: str, s: dict) -> str:
    de = s["dealer_minus_first"]["exact"]
    g = s["seat_score_gap"]
    found = s["claims"]["dealer_exact"].detected
    dealer_word = ("bids exactly more often than the first bidder" if found and de.value > 0 else
                   "bids exactly less often than the first bidder" if found else
                   "is not detectably more or less accurate than the first bidder")
    seats = (f"seat {g['high']} scores most and seat {g['low']} least ({_value_diff(g['difference'])} points)"
             if g["claim"] is not None and g["claim"].detected else
             f"no seat scores detectably more than another (largest gap {_value_diff(g['difference'])} points)")
    return (f"{name}: {text.share_ci(s['exact'])} of bids are met exactly; the dealer, bidding last, {dealer_word} "
            f"({_share_diff(de)}); {seats}.")


def _effect_phrase(c: Comparison) -> str:
    diff = _pp(variants.fmt_diff(c)) if c.measure.share else variants.fmt_diff(c)
    return f"{c.measure.label} {diff}" + ("" if c.detected else " (not detectable)")


def _hook_sentence(pair: Pair, comps: list[Comparison]) -> str:
    n = max((c.paired.n for c in comps), default=0)
    if n == 0:
        return f"Hook rule, {pair.b.name} vs {pair.a.name}: the arms share no game indices, no paired comparison."
    return (f"Hook rule, {pair.b.name} vs {pair.a.name} (paired on {text.count(n)} shared game seeds): "
            + "; ".join(_effect_phrase(c) for c in comps) + ".")


# -- sections -------------------------------------------------------------------------------------------
POSITION_NOTES = [
    "Round r (r cards each) is dealt by seat (r-1 + n-1) % n: the first dealer is seat n-1 and the deal "
    "passes left. Bidding starts at the dealer's left and ends with the dealer, so a seat's bidding "
    "position in round r is (seat - dealer - 1) mod n: '1st' bids first, 'dealer' (position n-1) last. "
    "In round 1 position p is seat p.",
    "Per game, a position's exact-bid rate is the share of the rounds in which the player bidding from "
    "that position met the bid; its points per round are those rounds' points recomputed from round_bids "
    "and round_tricks (20 + 10 per trick when exact, -10 per trick off otherwise; per seat they add up "
    "to the final score). Means over games with 95% t-intervals (scipy), so rounds and seats of one game "
    "are never counted as independent.",
    "Dealer minus first bidder is paired within each game: mean of the per-game differences with a "
    "t-interval. Gaps between seats (or positions) are paired too; the largest gap picks the two extreme "
    "seats after looking, so its interval is simultaneous over all pairs (max-|t| with the per-game "
    "covariance), and 'a detectable seat effect' is Hotelling's test that all seats are equal, a claim "
    "of the report (multiple-comparison corrected).",
]
ACCURACY_NOTES = [
    "A bid is exact when the tricks taken equal the bid. By seat: exact_bids / rounds per game; by "
    "position, round size and policy: from round_bids and round_tricks. Every game plays every round, "
    "so each game contributes the same number of bids to a category and the mean of the per-game "
    "shares is the pooled share; its t-interval respects that bids of one game are not independent.",
    "A cell of round size x position holds one bid per game, so its interval is a Wilson interval "
    "(statsmodels). 'Bids add up': the round's bids sum to the cards dealt, so everyone can make their "
    "bid (the hook rule forbids it). Overbid: the round's bids minus the cards dealt.",
    "By policy: the mean over the seats that policy holds in the arm; with several policies in one arm "
    "the seats differ too (see the seat table).",
]
SCORE_NOTES = [
    "Winning score: the highest final score of the game; margin: the highest minus the second highest "
    "(0 for a shared win); points lost: points a seat loses to missed bids over the game (mean over "
    "seats). p5..p95 are linearly interpolated quantiles. A negative winning score is possible: "
    "everyone may end below zero.",
]
HOOK_NOTES = [
    "The hook rule forbids the dealer the bid that makes all bids add up to the cards dealt. Arms that "
    "differ only in hook_rule (0 -> 1) deal the same cards to game i (common random numbers), so each "
    "measure is compared game by game: mean per-game difference (variant minus baseline) with a paired "
    "t-interval, the unpaired Welch interval alongside. Seat 0's win share difference is the change in "
    "seat 0's edge; balance = 1 - (largest - smallest seat win share).",
]


def _positions_section(ctx: Context, stats: dict[str, dict]) -> Section:
    sec = Section(key=ctx.key("wizard.positions"), title="Seat and dealer-position effects", level=3,
                  notes=list(POSITION_NOTES))
    seats_ = seat_stats(ctx)
    for name, s in stats.items():
        sec.verdicts.append(_position_sentence(name, s))
        g = s["position_exact_gap"]
        if {g["high"], g["low"]} != {0, s["players"] - 1} and g["claim"] is not None and g["claim"].detected:
            sec.verdicts.append(
                f"{name}: the most accurate position is {s['positions'][g['high']]['label']} "
                f"({text.share_ci(s['positions'][g['high']]['exact'])}), the least "
                f"{s['positions'][g['low']]['label']} ({text.share_ci(s['positions'][g['low']]['exact'])}).")
        sec.verdicts.append(_seat_sentence(name, s))
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
          text.value_ci(p["bid_minus_tricks"], signed_values=True)] for name, s in stats.items() for p in s["positions"]],
        note="dealer minus first bidder, paired per game: " + "; ".join(
            f"{name}: exact bids {_share_diff(s['dealer_minus_first']['exact'])}, points per round "
            f"{_value_diff(s['dealer_minus_first']['points_per_round'])}" for name, s in stats.items())))
    sec.tables.append(Table(
        "By seat (seat 0 bids first in round 1; the first dealer is the last seat)",
        ["arm", "seat", "deals rounds", "exact bids", "bid minus tricks per round", "final points", "win share"],
        [[name, str(x["seat"]), text.seat_list(x["deals_rounds"]) or "-", text.share_ci(x["exact"]),
          text.value_ci(x["bid_minus_tricks"], signed_values=True), text.value_ci(x["score"]),
          text.share_ci(seats_[name].shares[x["seat"]])] for name, s in stats.items() for x in s["seats"]]))
    pos = pl.DataFrame([{"position": p["label"], "arm": name, "exact": p["exact"].value, "lo": p["exact"].lo,
                         "hi": p["exact"].hi, "points": p["points_per_round"].value,
                         "plo": p["points_per_round"].lo, "phi": p["points_per_round"].hi,
                         "_order": p["position"] + (DECK if p["label"] == "dealer" else 0)}
                        for name, s in stats.items() for p in s["positions"]])
    # the dealer last on the axis, also when the arms' player counts differ
    pos = pos.sort("_order", maintain_order=True).drop("_order")
    sec.figures.append(plots.interval_bars(pos, "position", "exact", "lo", "hi", hue="arm",
                                           xlabel="bidding position (dealer bids last)", ylabel="exact bids",
                                           title="Exact-bid rate by bidding position"))
    sec.figures.append(plots.interval_bars(pos, "position", "points", "plo", "phi", hue="arm", percent=False,
                                           xlabel="bidding position (dealer bids last)", ylabel="points per round",
                                           title="Points per round by bidding position"))
    seat_frame = pl.DataFrame([{"seat": x["seat"], "arm": name, "score": x["score"].value, "lo": x["score"].lo,
                                "hi": x["score"].hi} for name, s in stats.items() for x in s["seats"]])
    sec.figures.append(plots.interval_bars(seat_frame, "seat", "score", "lo", "hi", hue="arm", percent=False,
                                           xlabel="seat (0 bids first in round 1)", ylabel="final points",
                                           title="Final points by seat"))
    return sec


def _round_phrase(name: str, s: dict) -> str:
    rows = s["by_round"]
    best = max(rows, key=lambda x: x["exact"].value)
    worst = min(rows, key=lambda x: x["exact"].value)
    first, last = rows[0], rows[-1]
    out = (f"{name}: by round size, exact bids go from {text.share_ci(first['exact'])} with 1 card to "
           f"{text.share_ci(last['exact'])} with {last['cards']} cards")
    extremes = [f"{word} with {x['cards']} cards ({text.share_ci(x['exact'])})"
                for word, x in (("highest", best), ("lowest", worst)) if x is not first and x is not last]
    ob = s["overbid"]
    if s["claims"]["overbid"].detected:
        table = (f"The bids of a round {'exceed' if ob.value > 0 else 'fall short of'} the cards dealt by "
                 f"{text.value_ci(ob if ob.value > 0 else ob.negate())} tricks on average")
    else:
        table = f"The bids of a round add up to the cards dealt on average ({text.value_ci(ob, signed_values=True)})"
    return (out + ("; " + ", ".join(extremes) if extremes else "") + f". {table}, and exactly to the cards dealt "
            f"in {text.share_ci(s['bids_add_up'])} of rounds.")


def _accuracy_section(ctx: Context, stats: dict[str, dict]) -> Section:
    sec = Section(key=ctx.key("wizard.bid_accuracy"), title="Bid accuracy", level=3, notes=list(ACCURACY_NOTES))
    for name, s in stats.items():
        g = s["seat_exact_gap"]
        hi, lo = s["seats"][g["high"]], s["seats"][g["low"]]
        seat_tail = ("a detectable difference" if g["claim"] is not None and g["claim"].detected
                     else "no detectable difference")
        sec.verdicts.append(
            f"{name}: {text.share_ci(s['exact'])} of bids are exact; by seat from {text.pct(lo['exact'].value)} "
            f"(seat {lo['seat']}) to {text.pct(hi['exact'].value)} (seat {hi['seat']}), "
            f"{_share_diff(g['difference'])}: {seat_tail}." + _mixed(s))
        sec.verdicts.append(_round_phrase(name, s))
        if len(s["policies"]) > 1:
            sec.verdicts.append(f"{name}: by policy, " + ", ".join(
                f"{q['policy']} {text.share_ci(q['exact'])}" for q in s["policies"]) + ".")
    sec.data = {"arms": {name: {
        "overall": s["exact"], "bids_add_up": s["bids_add_up"], "overbid": s["overbid"],
        "by_seat": [{"seat": x["seat"], "exact": x["exact"]} for x in s["seats"]],
        "seat_gap": s["seat_exact_gap"],
        "by_position": [{"position": p["position"], "label": p["label"], "exact": p["exact"]} for p in s["positions"]],
        "by_policy": s["policies"],
        "by_round": s["by_round"]} for name, s in stats.items()}}
    n_max = max(s["players"] for s in stats.values())
    sec.tables.append(Table(
        "Exact-bid rate by seat",
        ["arm", "all seats"] + [f"seat {k}" for k in range(n_max)],
        [[name, text.share_ci(s["exact"])] + [text.share_ci(x["exact"]) for x in s["seats"]]
         + [""] * (n_max - s["players"]) for name, s in stats.items()]))
    sec.tables.append(Table(
        "Exact-bid rate by policy", ["arm", "policy", "seats", "exact bids"],
        [[name, q["policy"], text.seat_list(q["seats"]), text.share_ci(q["exact"])]
         for name, s in stats.items() for q in s["policies"]]))
    sec.tables.append(Table(
        "Exact-bid rate by round size and bidding position",
        ["arm", "cards", "dealer seat", "all seats"] + [f"position {p + 1}" for p in range(n_max)]
        + ["bids add up", "overbid"],
        [[name, str(x["cards"]), str(x["dealer_seat"]), text.share_ci(x["exact"])]
         + [text.share_ci(e) for e in x["by_position"]] + [""] * (n_max - s["players"])
         + [text.share_ci(x["bids_add_up"]), text.value_ci(x["overbid"], signed_values=True)]
         for name, s in stats.items() for x in s["by_round"]],
        note="position 1 bids first, position n (the dealer) last; 'bids add up': share of games whose bids in "
             "that round sum to the cards dealt; overbid: the round's bids minus the cards dealt"))
    rounds_frame = pl.DataFrame([{"cards": f"{x['cards']} card{'s' if x['cards'] > 1 else ''}", "arm": name,
                                  "exact": x["exact"].value, "lo": x["exact"].lo, "hi": x["exact"].hi,
                                  "all": s["exact"].value} for name, s in stats.items() for x in s["by_round"]])
    sec.figures.append(plots.forest(rounds_frame, "cards", "exact", "lo", "hi", panel="arm", ref="all",
                                    percent="all", xlabel="exact bids", title="Exact-bid rate by round size "
                                    "(dashed: all rounds)"))
    if any(len(s["policies"]) > 1 for s in stats.values()) or len({q["policy"] for s in stats.values()
                                                                    for q in s["policies"]}) > 1:
        pol = pl.DataFrame([{"policy": q["policy"], "arm": name, "exact": q["exact"].value, "lo": q["exact"].lo,
                             "hi": q["exact"].hi} for name, s in stats.items() for q in s["policies"]])
        sec.figures.append(plots.interval_bars(pol, "policy", "exact", "lo", "hi", hue="arm", xlabel="policy",
                                               ylabel="exact bids", title="Exact-bid rate by policy"))
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
                            note="final points per seat by seat: see 'Game length and score distributions'"))
    frame = pl.concat([f.with_columns(pl.lit(k).alias("measure"), pl.lit(name).alias("arm"))
                       for name, s in stats.items() for k, f in s["hist"].items()])
    sec.figures.append(plots.histograms(frame, "value", "count", hue="arm", panel="measure", xlabel="points",
                                        title="Winning score and margin over the runner-up"))
    return sec


def hook_comparisons(ctx: Context, pairs: list[Pair]) -> dict[str, list[Comparison]]:
    """The variant comparison's numbers for hook-rule pairs (cached there), restricted to EFFECTS."""
    comps = variants.comparisons(ctx, pairs)
    order = {k: i for i, k in enumerate(EFFECTS)}
    return {k: sorted((c for c in cs if c.measure.key in order), key=lambda c: order[c.measure.key])
            for k, cs in comps.items()}


def _hook_section(ctx: Context, pairs: list[Pair], comps: dict[str, list[Comparison]]) -> Section | None:
    present = any(int(a.rules.get("hook_rule", 0) or 0) for a in ctx.arms)
    if not pairs and not present:
        return None
    sec = Section(key=ctx.key("wizard.hook_rule"), title="The hook rule's effect", level=3, notes=list(HOOK_NOTES))
    if not comps:
        sec.verdicts = ["No two arms differ in hook_rule alone (same players, policies and other rules): the "
                        "effect of the hook rule cannot be estimated from this study."]
        sec.data = {"pairs": {}}
        return sec
    by_key = {p.key: p for p in pairs}
    sec.verdicts = [_hook_sentence(by_key[k], c) for k, c in comps.items()]
    sec.data = {"pairs": {k: {**variants.pair_data(by_key[k], c, v), "paired": True, "paired_on": "game index"}
                          for (k, c), v in zip(comps.items(), sec.verdicts)}}
    sec.tables = [variants.comparison_table(by_key[k], c, title=f"Effect of the hook rule: {by_key[k].b.name} vs "
                                            f"{by_key[k].a.name}") for k, c in comps.items()]
    sec.figures.append(variants.comparison_figure(comps, "Effect of the hook rule (paired blue, unpaired grey)"))
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
    comps = hook_comparisons(ctx, pairs) if pairs else {}
    sec = Section(key=key, title=title)
    sec.verdicts = [_summary_sentence(name, s) for name, s in stats.items()]
    by_key = {p.key: p for p in pairs}
    sec.verdicts += [_hook_sentence(by_key[k], [x for x in c if x.measure.key in TOP_EFFECTS])
                     for k, c in comps.items()]
    sec.data = {"arms": {name: {"games": s["games"], "players": s["players"], "rounds": s["rounds"],
                                "exact_bids": s["exact"], "dealer_minus_first_exact": s["dealer_minus_first"]["exact"],
                                "seat_score_gap": s["seat_score_gap"]} for name, s in stats.items()},
                "hook_rule_pairs": list(comps)}
    sec.children = [_positions_section(ctx, stats), _accuracy_section(ctx, stats), _scores_section(ctx, stats)]
    hook = _hook_section(ctx, pairs, comps)
    if hook:
        sec.children.append(hook)
    return sec


SECTIONS = (wizard_section,)
