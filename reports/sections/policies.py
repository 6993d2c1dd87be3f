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
from reports.stats import Estimate, wilson

KEY = "policies"
NOTES = [
    "Win share of a policy = average over games of the share of the win taken by the seats it holds "
    "(a policy in two seats counts the mean of their 1/n-weighted wins), over the games where it sits.",
    "Head-to-head: in a game where A and B both sit, A finishes ahead of B when an A seat wins and a B "
    "seat does not, or, neither winning, has the better score; level (both winners, or equal scores) "
    "counts 1/2. Several A or B seats are averaged over all A-B seat pairs. So A vs B + B vs A = 100%.",
    "Intervals are Wilson intervals with the sum of these per-game values as the number of successes.",
    "Seat x policy separates seat effects from policy effects only when policies rotate over seats "
    "across arms; when a policy always sits at the same seat the two are confounded.",
]


@dataclass
class PolicyGroup:
    arms: list[Arm]
    policies: list[str]
    share: dict[str, Estimate]
    seat_policy: dict[tuple[int, str], Estimate]
    matchup: dict[tuple[str, str], Estimate]

    @property
    def players(self) -> int:
        return self.arms[0].players

    @property
    def fair(self) -> float:
        return 1.0 / self.players

    @property
    def separable(self) -> bool:
        """Seat and policy effects can be told apart: every policy sits at several seats and every
        seat carries several policies (policies rotate across arms)."""
        seats_of = {p: {s for (s, q) in self.seat_policy if q == p} for p in self.policies}
        policies_of = {s: {q for (t, q) in self.seat_policy if t == s} for s in range(self.players)}
        return all(len(v) > 1 for v in seats_of.values()) and all(len(v) > 1 for v in policies_of.values())


def _seats(arm: Arm, policy: str) -> list[int]:
    return [s for s, p in enumerate(arm.policies) if p == policy]


def _group_query(ctx: Context, arms: list[Arm], policies: list[str]) -> tuple[pl.LazyFrame, list[str]]:
    cols: dict[str, pl.Expr] = {}
    for p in policies:
        cols[f"pol|{p}"] = m.per_arm({a.name: m.group_share(_seats(a, p)) for a in arms if _seats(a, p)})
    for s in range(arms[0].players):
        for p in policies:
            which = {a.name: m.win_weight(s) for a in arms if a.policies[s] == p}
            if which:
                cols[f"sp|{s}|{p}"] = m.per_arm(which)
    for pa, pb in permutations(policies, 2):
        which = {a.name: m.mean_over([m.beats(i, j, ctx.info.higher_score_wins)
                                      for i in _seats(a, pa) for j in _seats(a, pb)])
                 for a in arms if _seats(a, pa) and _seats(a, pb)}
        if which:
            cols[f"h2h|{pa}|{pb}"] = m.per_arm(which)
    names = [a.name for a in arms]
    query = (ctx.scan.filter(pl.col("arm").is_in(names))
             .select([e.cast(pl.Float64).alias(k) for k, e in cols.items()])
             .select([pl.col(k).sum().alias(f"{k}|sum") for k in cols] + [pl.col(k).count().alias(f"{k}|n") for k in cols]))
    return query, list(cols)


def policy_groups(ctx: Context) -> list[PolicyGroup]:
    def run():
        groups = ctx.dataset.policy_groups(ctx.game)
        if not groups:
            return []
        specs = []
        for arms in groups:
            policies = sorted({p for a in arms for p in a.policies})
            specs.append((arms, policies, *_group_query(ctx, arms, policies)))
        frames = pl.collect_all([q for (_, _, q, _) in specs])
        out = []
        for (arms, policies, _, cols), frame in zip(specs, frames):
            r = frame.row(0, named=True)
            est = {k: wilson(r[f"{k}|sum"] or 0.0, r[f"{k}|n"]) for k in cols}
            out.append(PolicyGroup(
                arms=arms, policies=policies,
                share={k.split("|")[1]: e for k, e in est.items() if k.startswith("pol|")},
                seat_policy={(int(k.split("|")[1]), k.split("|")[2]): e for k, e in est.items() if k.startswith("sp|")},
                matchup={(k.split("|")[1], k.split("|")[2]): e for k, e in est.items() if k.startswith("h2h|")}))
        return out
    return ctx.cached(("policies",), run)


def _verdicts(g: PolicyGroup) -> list[str]:
    out = []
    for p in g.policies:
        e = g.share[p]
        edge = e.shift(-g.fair)
        if edge.excludes(0.0):
            word = "stronger" if edge.value > 0 else "weaker"
            tail = f"{abs(edge.value) * 100:.1f} points {'above' if edge.value > 0 else 'below'} a fair share: {word} than the field"
        else:
            tail = f"{text.signed(edge.value * 100, 1)} points against a fair share: not detectably different"
        out.append(f"policy {p} wins {text.share_ci(e)} of the seats it holds in {g.players}-player games, {tail}.")
    for (pa, pb), e in g.matchup.items():
        if pa > pb:
            continue
        if e.excludes(0.5):
            lead = pa if e.value > 0.5 else pb
            tail = f"{lead} is the stronger of the two"
        else:
            tail = "no detectable difference between them"
        out.append(f"{pa} finishes ahead of {pb} in {text.share_ci(e)} of their encounters: {tail}.")
    if not g.separable:
        out.append("Policies do not rotate over all seats here, so seat and policy effects are partly "
                   "confounded; rotate the policies over the seats to tell them apart.")
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
            "seat_policy": [{"seat": s, "policy": p, **e.to_dict()} for (s, p), e in g.seat_policy.items()],
            "matchups": [{"policy": a, "opponent": b, **e.to_dict()} for (a, b), e in g.matchup.items()],
            "verdicts": verdicts})
        sec.tables.append(Table(f"Win share by policy ({label})", ["policy", "win share", "edge over fair share",
                                                                   "games"],
                                [[p, text.share_ci(e), text.points(e.shift(-g.fair)), text.count(e.n)]
                                 for p, e in g.share.items()]))
        sec.tables.append(Table(f"Head-to-head: row finishes ahead of column ({label})",
                                ["policy"] + g.policies,
                                [[pa] + [text.share_ci(g.matchup[pa, pb]) if (pa, pb) in g.matchup else "-"
                                         for pb in g.policies] for pa in g.policies]))
        seats = range(g.players)
        sec.tables.append(Table(f"Win share by seat and policy ({label})", ["seat"] + g.policies,
                                [[str(s)] + [text.share_ci(g.seat_policy[s, p]) if (s, p) in g.seat_policy else "-"
                                             for p in g.policies] for s in seats]))
        shares = pl.DataFrame([{"policy": p, "share": e.value, "lo": e.lo, "hi": e.hi, "fair": g.fair}
                               for p, e in g.share.items()])
        sec.figures.append(plots.interval_bars(shares, "policy", "share", "lo", "hi", ref="fair", xlabel="policy",
                                               ylabel="win share", title=f"Win share by policy ({label})"))
        if g.matchup:
            mm = pl.DataFrame([{"policy": a, "opponent": b, "share": e.value, "lo": e.lo, "hi": e.hi}
                               for (a, b), e in g.matchup.items()])
            sec.figures.append(plots.heatmap(mm, "policy", "opponent", "share", "lo", "hi", xlabel="opponent",
                                             ylabel="policy", title=f"Row finishes ahead of column ({label})"))
        sp = pl.DataFrame([{"seat": s, "policy": p, "share": e.value, "lo": e.lo, "hi": e.hi, "fair": g.fair}
                           for (s, p), e in sorted(g.seat_policy.items())])
        sec.figures.append(plots.interval_bars(sp, "seat", "share", "lo", "hi", hue="policy", ref="fair",
                                               xlabel="seat (0 acts first)", ylabel="win share",
                                               title=f"Win share by seat and policy ({label})"))
    return sec
