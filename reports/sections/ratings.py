"""Player ratings: a Bradley-Terry rating of each player of a policy comparison, on one scale.

The groups are the policy comparison's (arms with the same set-up whose seats carry different
players). Two passes over the group's games: the first sums, per arm and pair of seats, how often
the one finished ahead of the other (the head-to-head's definition, levels 1/2), which is all the
fit needs; the second sums each game's score at the fitted ratings over every arm that played that
game index (arms share seeds, so game i of every arm deals the same cards: one cluster), for the
sandwich covariance (reports/bradley_terry.py).
"""
from __future__ import annotations

import math

from dataclasses import dataclass
from itertools import combinations

import numpy as np
import polars as pl

from reports import metrics as m
from reports import plots, text
from reports.bradley_terry import ELO, Comparisons, Ratings, fit, ratings, score_weights
from reports.context import Context
from reports.dataset import Arm
from reports.model import Section, Table
from reports.sections.policies import policy_groups

KEY = "ratings"
NOTES = [
    "Bradley-Terry model: P(A finishes ahead of B) = 1 / (1 + 10^(-(R_A - R_B)/400)), R in Elo-like "
    "points, centred on the players' average (0). Every pair of seats with different players in a game "
    "is one comparison, decided as in the head-to-head (a winner is ahead of a non-winner, between "
    "non-winners the better score, levels count 1/2). Ratings are maximum likelihood (Newton steps).",
    "Intervals: the observed information with a sandwich covariance clustered by game index: the pairs "
    "of one game are decided together, and game i of every arm deals the same cards, so all comparisons "
    "made on game i form one cluster.",
    "A difference that is the same in every game index (players that hold each other's seats on the same "
    "deals and play alike) has no interval: it is exact, and the ratings say the players cannot be ranked.",
    "Expected share against the field: the model's chance that the player finishes ahead of an opponent "
    "drawn evenly from the other players of the group (delta-method interval); 50% is an average player.",
    "The model has no seat effect: when the arms do not seat every pair of players in both orders equally "
    "often, a rating mixes the player with the seats it held (said in the verdicts). Ratings describe; "
    "the claims about players are the policy comparison's (seat-adjusted shares, head-to-head).",
]


@dataclass
class RatingGroup:
    arms: list[Arm]
    ratings: Ratings
    comparisons: int
    balanced: bool  # every pair of players sits in both orders equally often

    @property
    def label(self) -> str:
        return ", ".join(a.name for a in self.arms)


def _pairs(arm: Arm, index: dict[str, int]) -> list[tuple[int, int, int, int]]:
    """(seat i, seat j, player of i, player of j) for every pair of seats with different players."""
    return [(i, j, index[arm.policies[i]], index[arm.policies[j]])
            for i, j in combinations(range(arm.players), 2) if arm.policies[i] != arm.policies[j]]


def _fit_group(ctx: Context, arms: list[Arm], players: list[str], balanced: bool) -> RatingGroup | None:
    index = {p: i for i, p in enumerate(players)}
    hsw = ctx.info.higher_score_wins
    seat_pairs = sorted({(i, j) for a in arms for i, j, _, _ in _pairs(a, index)})
    if not seat_pairs:
        return None
    names = [a.name for a in arms]
    ahead = {(i, j): m.per_arm({a.name: m.beats(i, j, hsw) for a in arms if a.policies[i] != a.policies[j]})
             for i, j in seat_pairs}
    sums = m.by_arm(ctx.arm_scan, names, [pl.len().alias("games")]
                    + [e.sum().alias(f"y{i}|{j}") for (i, j), e in ahead.items()]).collect()
    rows, by_arm = [], {r["arm"]: r for r in sums.iter_rows(named=True)}
    for a in arms:
        r = by_arm.get(a.name)
        for i, j, pa, pb in _pairs(a, index) if r else ():
            rows.append((pa, pb, float(r["games"]), float(r[f"y{i}|{j}"] or 0.0)))
    comp = Comparisons.make(rows, len(players))
    theta, info, ok = fit(comp)
    # each game's score vector at the fitted ratings, summed over the arms that played that game index
    score = []
    for k in range(len(players)):
        terms = {}
        for a in arms:
            parts = [(m.beats(i, j, hsw) - float(score_weights(theta, np.array([pa]), np.array([pb]))[0]))
                     * ((pa == k) - (pb == k)) for i, j, pa, pb in _pairs(a, index) if k in (pa, pb)]
            if parts:
                terms[a.name] = pl.sum_horizontal(parts)
        score.append(m.per_arm(terms).fill_null(0.0).alias(f"s{k}"))
    q = len(players)
    # the meat: per game index, the score vector summed over the arms that played it, then its outer
    # products summed over games. Added in numpy, arm after arm in study order and game by game:
    # Polars' group_by adds a group's rows in whatever order its threads finish, which moved the
    # intervals' last bits from one report of the same data to the next.
    parts = [ctx.arm_scan(a.name).select(pl.col("game"), *score).collect() for a in arms]  # see metrics.by_arm
    game = np.concatenate([p["game"].to_numpy() for p in parts])
    values = np.concatenate([p.select([f"s{k}" for k in range(q)]).to_numpy() for p in parts]).astype(float)
    seen, slot = np.unique(game, return_inverse=True)
    per_game = np.zeros((len(seen), q))
    np.add.at(per_game, slot, values)
    meat = np.array([[math.fsum(per_game[:, k] * per_game[:, l]) for l in range(q)] for k in range(q)])
    fitted = ratings(players, comp, theta, info, meat, len(seen), ok)
    return RatingGroup(arms, fitted, int(sum(r[2] for r in rows)), balanced)


def rating_groups(ctx: Context) -> list[RatingGroup]:
    def run():
        out = []
        for g in policy_groups(ctx):
            pairs = [(a, b) for a, b in combinations(g.policies, 2) if (a, b) in g.matchup]
            balanced = bool(pairs) and all((a, b) in g.balanced for a, b in pairs)
            group = _fit_group(ctx, g.arms, g.policies, balanced)
            if group is not None:
                out.append(group)
        return out
    return ctx.cached(("ratings",), run)


def _verdicts(g: RatingGroup, many: bool) -> list[str]:
    r = g.ratings
    head = f"{g.label}: " if many else ""
    if not r.connected:
        return [f"{head}some players never meet, directly or through others: their ratings are not on one "
                f"scale; no ratings."]
    if not r.converged:
        return [f"{head}some player was never behind (or never ahead of) part of the field in any comparison, so "
                f"its rating has no finite estimate (it runs off to infinity); play more games or closer players."]
    order = list(np.argsort(-r.theta))
    top = order[0]
    # every player's rating is in the table: the verdicts say who is on top and by how much
    out = [] if len(order) > 1 else [f"{head}{r.players[top]}: {text.value_ci(r.rating(top), signed_values=True)} Elo points."]
    if len(order) > 1:
        nxt = order[1]
        gap = r.difference(top, nxt)
        if r.fixed(top, nxt) and gap.value == 0.0:
            # no sampling variance: on the same deals the two hold each other's seats and play alike
            out.append(f"{head}{r.players[top]} and {r.players[nxt]} share the highest rating: in every game index their "
                       f"records against the rest of the field are the same (they hold each other's seats on the "
                       f"same deals), so the data cannot rank them.")
        else:
            tail = ("its interval excludes 0" if gap.excludes(0.0) else "its interval includes 0: the two are not "
                    "told apart by the ratings")
            out.append(f"{head}{r.players[top]} is rated highest ({text.value_ci(r.rating(top), signed_values=True)} "
                       f"Elo points around the players' average), {text.value_ci(gap, signed_values=True)} Elo points "
                       f"above {r.players[nxt]} ({tail}); it would finish ahead of an average opponent of the group "
                       f"in {text.share_ci(r.field_share(top))} of their encounters.")
    if not g.balanced:
        out.append("The arms do not seat every pair of players before each other equally often: the ratings mix "
                   "the players with the seats they held (rotate the players over the seats to separate them).")
    return out


def section(ctx: Context) -> Section | None:
    groups = rating_groups(ctx)
    if not groups:
        return None
    sec = Section(key=ctx.key(KEY), title=ctx.title("Player ratings (Bradley-Terry)"), notes=list(NOTES))
    sec.data = {"groups": []}
    many = len(groups) > 1
    for g in groups:
        r = g.ratings
        verdicts = _verdicts(g, many)
        sec.verdicts += verdicts
        usable = r.connected and r.converged
        sec.data["groups"].append({
            "arms": [a.name for a in g.arms], "comparisons": g.comparisons, "games": r.games,
            "seat_order_balanced": g.balanced, "connected": r.connected, "finite": r.converged,
            "elo_per_log_odds": ELO,
            "players": {p: {"elo": r.rating(i).to_dict(), "field_share": r.field_share(i).to_dict()}
                        for i, p in enumerate(r.players)} if usable else {},
            "verdicts": verdicts})
        if not usable:
            continue
        title = f" ({g.label})" if many else ""
        sec.tables.append(Table(
            f"Ratings{title}", ["player", "rating (Elo points)", "expected share against the field", "games"],
            [[p, text.value_ci(r.rating(i), signed_values=True), text.share_ci(r.field_share(i)), text.count(r.games)]
             for i, p in sorted(enumerate(r.players), key=lambda x: -r.theta[x[0]])],
            note="Elo points around the players' average, 95% intervals clustered by game; the head-to-head matrix "
                 "is in the policy comparison"))
        frame = pl.DataFrame([{"player": p, "elo": e.value, "lo": e.lo, "hi": e.hi}
                              for p, e in ((p, r.rating(i)) for i, p in enumerate(r.players))])
        figure = plots.forest(frame.sort("elo", descending=True), "player", "elo", "lo", "hi", ref=0.0,
                              xlabel="rating (Elo points, 0 = the players' average)",
                              title=f"Bradley-Terry rating with 95% interval{title}")
        figure.fold = True  # the table above holds every rating with its interval
        sec.figures.append(figure)
    return sec
