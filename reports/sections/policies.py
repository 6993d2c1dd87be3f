"""Policy comparison: win share by policy, head-to-head matchups, and seat x policy shares.

Arms with the same set-up (game, players, rules, deck) whose seats carry different policies are
pooled. Policies are arm metadata, so every per-game quantity is built per arm with
``metrics.per_arm`` and the whole group is aggregated in one pass.
"""
from __future__ import annotations

from dataclasses import dataclass
from itertools import permutations

import polars as pl

from reports import metrics as m
from reports import plots, text
from reports.context import Context
from reports.dataset import Arm
from reports.model import Section, Table
from reports.sections.first_player import seat_stats
from reports.stats import Estimate, SeatPlayerFit, seat_player_fit, share_from_sums, share_test

KEY = "policies"
NOTES = [
    "A player is a seat label from the study (a policy, maybe with parameters), treated as a name.",
    "Raw win share of a player = average over games of the share of the win taken by the seats it holds "
    "(a player in two seats counts the mean of their 1/n-weighted wins), over the games where it sits. "
    "It mixes the player with the seats it happened to hold.",
    "Seat-adjusted win share: least squares of every seat's win weight on a seat effect plus a player "
    "effect, over all arms of the group (the seat x player means of each arm are sufficient), with a "
    "covariance clustered by game; the player's share if it sat in every seat equally often against the "
    "same field. Over the seats of any arm these shares average 1/players, so each is compared with the "
    "fair share. A player is separable from the seats only when the arms rotate it over the seats; "
    "otherwise no claim is made.",
    "Head-to-head: in a game where A and B both sit, A finishes ahead of B when an A seat wins and a B "
    "seat does not, or, neither winning, has the better score; level (both winners, or equal scores) "
    "counts 1/2. Several A or B seats are averaged over all A-B seat pairs. So A vs B + B vs A = 100%. "
    "It is a verdict only when A sits before B as often as after (the seat order cancels); otherwise it "
    "is shown as a description.",
    "Shares carry Wilson intervals at the effective number of games (per-game variance).",
]


@dataclass
class PolicyGroup:
    arms: list[Arm]
    policies: list[str]
    share: dict[str, Estimate]
    seat_policy: dict[tuple[int, str], Estimate]
    matchup: dict[tuple[str, str], Estimate]
    fit: SeatPlayerFit
    balanced: set  # head-to-head pairs whose seat order cancels
    claims: dict  # ("player", p) or ("h2h", a, b) -> Claim

    @property
    def players(self) -> int:
        return self.arms[0].players

    @property
    def fair(self) -> float:
        return 1.0 / self.players

    @property
    def separable(self) -> bool:
        """Seat and player effects can be told apart for every player (the seat + player model
        identifies each player's seat-adjusted share)."""
        return self.fit.separable


def _seats(arm: Arm, policy: str) -> list[int]:
    return [s for s, p in enumerate(arm.policies) if p == policy]


def _group_query(ctx: Context, arms: list[Arm], policies: list[str]) -> tuple[pl.LazyFrame, list[str]]:
    cols: dict[str, pl.Expr] = {}  # keys name players by index: a label is opaque and may hold any character
    ix = {p: i for i, p in enumerate(policies)}
    for p in policies:
        cols[f"pol|{ix[p]}"] = m.per_arm({a.name: m.group_share(_seats(a, p)) for a in arms if _seats(a, p)})
    for s in range(arms[0].players):
        for p in policies:
            which = {a.name: m.win_weight(s) for a in arms if a.policies[s] == p}
            if which:
                cols[f"sp|{s}|{ix[p]}"] = m.per_arm(which)
    for pa, pb in permutations(policies, 2):
        which = {a.name: m.mean_over([m.beats(i, j, ctx.info.higher_score_wins)
                                      for i in _seats(a, pa) for j in _seats(a, pb)])
                 for a in arms if _seats(a, pa) and _seats(a, pb)}
        if which:
            cols[f"h2h|{ix[pa]}|{ix[pb]}"] = m.per_arm(which)
    names = [a.name for a in arms]
    query = (ctx.scan.filter(pl.col("arm").is_in(names))
             .select([e.cast(pl.Float64).alias(k) for k, e in cols.items()])
             .select([pl.col(k).sum().alias(f"{k}|sum") for k in cols] + [pl.col(k).count().alias(f"{k}|n") for k in cols]
                     + [(pl.col(k) * pl.col(k)).sum().alias(f"{k}|sumsq") for k in cols]))
    return query, list(cols)


def seat_order_balanced(arms: list[Arm], games: dict[str, int], a: str, b: str) -> bool:
    """True when, over the group's games, a sits at seat i and b at seat j as often as the other way
    round, for every pair of seats: then seat order cancels in the head-to-head."""
    weight: dict[tuple[int, int], float] = {}
    for arm in arms:
        sa, sb = _seats(arm, a), _seats(arm, b)
        if not sa or not sb:
            continue
        w = games.get(arm.name, 0) / (len(sa) * len(sb))
        for i in sa:
            for j in sb:
                weight[i, j] = weight.get((i, j), 0.0) + w
    total = sum(weight.values()) or 1.0
    return all(abs(w - weight.get((j, i), 0.0)) <= 0.01 * total for (i, j), w in weight.items())


def policy_groups(ctx: Context) -> list[PolicyGroup]:
    def run():
        groups = ctx.dataset.policy_groups(ctx.game)
        stats = seat_stats(ctx)
        groups = [[a for a in arms if a.name in stats] for arms in groups]
        groups = [g for g in groups if g]
        if not groups:
            return []
        specs = []
        for arms in groups:
            policies = sorted({p for a in arms for p in a.policies})
            specs.append((arms, policies, *_group_query(ctx, arms, policies)))
        frames = pl.collect_all([q for (_, _, q, _) in specs])
        out = []
        for gi, ((arms, policies, _, cols), frame) in enumerate(zip(specs, frames)):
            r = frame.row(0, named=True)
            est = {k: share_from_sums(r[f"{k}|sum"] or 0.0, r[f"{k}|sumsq"] or 0.0, r[f"{k}|n"]) for k in cols}
            fit = seat_player_fit([(stats[a.name].games, stats[a.name].mean, stats[a.name].cov, list(a.policies))
                                   for a in arms], policies)
            games = {a.name: stats[a.name].games for a in arms}
            label = ", ".join(a.name for a in arms)
            claims = {}
            for p, e in fit.adjusted.items():
                if e is not None:
                    claims["player", p] = ctx.claim(f"policies/{label}/{p}", KEY,
                                                    f"{label}: {p}'s seat-adjusted share against fair", e.p_value)
            name = lambda k, i: policies[int(k.split("|")[i])]  # noqa: E731
            matchup = {(name(k, 1), name(k, 2)): e for k, e in est.items() if k.startswith("h2h|")}
            balanced = set()
            for (pa, pb), e in matchup.items():
                if pa < pb and seat_order_balanced(arms, games, pa, pb):
                    balanced.add((pa, pb))
                    var = (r[f"h2h|{policies.index(pa)}|{policies.index(pb)}|sumsq"] - e.n * e.value ** 2) / (e.n - 1) if e.n > 1 else float("nan")
                    claims["h2h", pa, pb] = ctx.claim(f"policies/{label}/{pa}-vs-{pb}", KEY,
                                                      f"{label}: {pa} vs {pb} head-to-head", share_test(e, var, 0.5))
            out.append(PolicyGroup(
                arms=arms, policies=policies,
                share={name(k, 1): e for k, e in est.items() if k.startswith("pol|")},
                seat_policy={(int(k.split("|")[1]), name(k, 2)): e for k, e in est.items() if k.startswith("sp|")},
                matchup=matchup, fit=fit, balanced=balanced, claims=claims))
        return out
    return ctx.cached(("policies",), run)


def _verdicts(g: PolicyGroup) -> list[str]:
    """At most three sentences: which players the seat-adjusted model separates from the field, which
    head-to-heads are decided, and what the design cannot tell apart. The tables hold every number."""
    out = []
    stronger, weaker, level, mixed = [], [], [], []
    for p in g.policies:
        adj = g.fit.adjusted.get(p)
        if adj is None:
            mixed.append(p)
            continue
        edge = adj.shift(-g.fair)
        if g.claims["player", p].detected:
            (stronger if edge.value > 0 else weaker).append(f"{p} ({text.signed(edge.value * 100, 1)})")
        else:
            level.append(p)
    if stronger or weaker or level:
        parts = [f"{', '.join(stronger)} win more than a fair share" if stronger else "",
                 f"{', '.join(weaker)} less" if weaker else "",
                 f"{', '.join(level)} not detectably different from it" if level else ""]
        out.append(f"Seat-adjusted, in {g.players}-player games (percentage points against a fair "
                   f"{text.pct(g.fair)}): " + "; ".join(x for x in parts if x) + ".")
    if mixed:
        out.append(f"{', '.join(mixed)}: the arms do not rotate {'this player' if len(mixed) == 1 else 'these players'} "
                   f"over the seats, so a share cannot be told apart from the seats held; no verdict (raw shares in "
                   f"the table).")
    decided = [(pa, pb, e) for (pa, pb), e in g.matchup.items() if pa < pb and ("h2h", pa, pb) in g.claims
               and g.claims["h2h", pa, pb].detected]
    tested = sum(1 for (pa, pb) in g.matchup if pa < pb and ("h2h", pa, pb) in g.claims)
    if tested:
        out.append(f"Head-to-head, {len(decided)} of {tested} pairings are decided"
                   + (": " + "; ".join(f"{pa if e.value > 0.5 else pb} finishes ahead of {pb if e.value > 0.5 else pa} "
                                       f"in {text.pct(max(e.value, 1 - e.value))} of their encounters"
                                       for pa, pb, e in decided) if decided else
                      " (no detectable difference in any)") + ".")
    if any(pa < pb and ("h2h", pa, pb) not in g.claims for (pa, pb) in g.matchup):
        out.append("Pairings that do not sit before each other equally often mix seat order with the players: "
                   "shown, not judged.")
    if not g.separable and not mixed:
        out.append("Seat and player cannot be told apart for every player in this design: rotate the players "
                   "over the seats (every player in every seat equally often) to compare them.")
    return out


def section(ctx: Context) -> Section | None:
    groups = policy_groups(ctx)
    if not groups:
        return None
    sec = Section(key=ctx.key(KEY), title=ctx.title("Policy comparison"), notes=list(NOTES))
    sec.data = {"groups": []}
    many = len(groups) > 1
    for gi, g in enumerate(groups):
        label = f"group {gi + 1} ({', '.join(a.name for a in g.arms)})" if many else ", ".join(a.name for a in g.arms)
        verdicts = _verdicts(g)
        sec.verdicts += [f"{label}: {v}" if many else v for v in verdicts]
        sec.data["groups"].append({
            "arms": [a.name for a in g.arms], "players": g.players, "rules": g.arms[0].rules,
            "fair_share": g.fair, "separable": g.separable,
            "policies": {p: e.to_dict() for p, e in g.share.items()},
            "seat_adjusted": {p: ({**e.to_dict(), **g.claims["player", p].to_dict()} if e is not None else None)
                              for p, e in g.fit.adjusted.items()},
            "seat_effects": [e.to_dict() if e is not None else None for e in g.fit.seats],
            "seat_order_balanced": [list(x) for x in sorted(g.balanced)],
            "seat_policy": [{"seat": s, "policy": p, **e.to_dict()} for (s, p), e in g.seat_policy.items()],
            "matchups": [{"policy": a, "opponent": b, **e.to_dict()} for (a, b), e in g.matchup.items()],
            "verdicts": verdicts})
        sec.tables.append(Table(f"Win share by player ({label})",
                                ["player", "raw win share", "seat-adjusted win share",
                                 "adjusted minus fair (percentage points)", "adjusted p", "games"],
                                [[p, text.share_ci(e), text.share_ci(g.fit.adjusted[p]) if g.fit.adjusted.get(p) else
                                  "not separable", text.points_cell(g.fit.adjusted[p].shift(-g.fair)) if g.fit.adjusted.get(p)
                                  else "-", text.p_value(g.claims["player", p].adjusted, bare=True)
                                  if ("player", p) in g.claims else "-", text.count(e.n)]
                                 for p, e in g.share.items()],
                                note="seat-adjusted: seat + player model over the group's arms (covariance clustered "
                                     "by game); raw shares mix the player with the seats it held"))
        # the heatmap and the seat x policy figure show these two tables' numbers: folded
        sec.tables.append(Table(f"Head-to-head: row finishes ahead of column ({label})",
                                ["policy"] + g.policies,
                                [[pa] + [text.share_ci(g.matchup[pa, pb]) if (pa, pb) in g.matchup else "-"
                                         for pb in g.policies] for pa in g.policies], fold=bool(g.matchup)))
        seats = range(g.players)
        sec.tables.append(Table(f"Win share by seat and policy ({label})", ["seat"] + g.policies,
                                [[str(s)] + [text.share_ci(g.seat_policy[s, p]) if (s, p) in g.seat_policy else "-"
                                             for p in g.policies] for s in seats], fold=True))
        shares = pl.DataFrame([{"policy": p, "share": e.value, "lo": e.lo, "hi": e.hi, "fair": g.fair}
                               for p, e in ((p, g.fit.adjusted.get(p) or g.share[p]) for p in g.share)])
        players_fig = plots.interval_bars(shares, "policy", "share", "lo", "hi", ref="fair", xlabel="policy",
                                          ylabel="win share",
                                          title=f"Win share by player, seat-adjusted where separable ({label})")
        players_fig.fold = True  # the table 'Win share by player' holds these shares and more
        sec.figures.append(players_fig)
        if g.matchup:
            mm = pl.DataFrame([{"policy": a, "opponent": b, "share": e.value, "lo": e.lo, "hi": e.hi}
                               for (a, b), e in g.matchup.items()])
            sec.figures.append(plots.heatmap(mm, "policy", "opponent", "share", "lo", "hi", xlabel="opponent",
                                             ylabel="policy", title=f"Row finishes ahead of column ({label})"))
        sp = pl.DataFrame([{"seat": s, "policy": p, "share": e.value, "lo": e.lo, "hi": e.hi, "fair": g.fair}
                           for (s, p), e in sorted(g.seat_policy.items())])
        seat_fig = plots.interval_bars(sp, "seat", "share", "lo", "hi", hue="policy", ref="fair",
                                       xlabel="seat (0 acts first)", ylabel="win share",
                                       title=f"Win share by seat and policy ({label})")
        seat_fig.fold = True  # the raw seat x player shares behind the seat-adjusted ones: secondary detail
        sec.figures.append(seat_fig)
    return sec
