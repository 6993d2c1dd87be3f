"""First-player advantage: win share by seat per arm, test of equal seats, seat 0's edge, balance."""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import polars as pl

from reports import metrics as m
from reports import plots, text
from reports.claims import Claim
from reports.context import SMALL_STUDY, Context
from reports.dataset import Arm
from reports.model import Section, Table
from reports.stats import (ALPHA, POWER, Estimate, Gaps, TestResult, detectable_edge, equal_means_test,
                           games_for_edge, moment_matrices, pairwise_gaps, share_interval, share_test, tost_p)

KEY = "first_player"
NOTES = [
    "Win share of a seat = the mean over games of its win weight: 1 for a sole win, 1/k for each of k "
    "tied winners, 0 otherwise (bit s of winner_mask says whether seat s won). Seat 0 acts first.",
    "95% intervals of shares are Wilson intervals at the effective number of games n p(1-p)/var, var being "
    "the per-game variance of the win weight: shared wins make it smaller than p(1-p), so the plain "
    "binomial interval would be too wide. The same interval is used for a share wherever it appears.",
    "'Every seat equal' is Hotelling's T^2 test on the per-game vector of seat win weights, with its "
    "covariance (the weights of one game are tied: they add up to 1).",
    "Seat 0's edge is its share minus the fair share 1/players, tested with the score test that its "
    "interval inverts.",
    "Balance = 1 - (largest - smallest true seat share), 100% when every seat wins equally often. The "
    "two extreme seats are picked after looking, which makes the plain max - min too large; the estimate "
    "is bias-corrected (parametric bootstrap of the max - min) and its interval comes from simultaneous "
    "max-|t| intervals over all pairs of seats, so it covers at least 95% and stays within 0-100%.",
    f"Detectable edge: the smallest edge this arm detects with {POWER:.0%} power in a two-sided "
    f"{ALPHA:.0%} test, from the per-game variance (shared wins included). Games needed: games for the "
    "same power at the edge named in the study file (report.edge; 1 point unless set). Neither uses the "
    "observed edge.",
]


@dataclass
class SeatStats:
    arm: Arm
    games: int
    no_winner: int
    shared: int
    wins: np.ndarray  # weighted win count per seat
    mean: np.ndarray  # share per seat
    cov: np.ndarray  # per-game covariance of the seat win weights (ddof 1)
    shares: list[Estimate]
    chi: TestResult  # Hotelling's test of equal seats (name kept for older callers)
    edge: Estimate
    gaps: Gaps
    balance: Estimate
    sd0: float  # per-unit standard deviation of seat 0's win weight (a unit: a game, or a rotated deal)
    units: int  # independent units: games, or the deals of an arm that rotates its seats
    rotation_gain: float | None  # rotated arm: variance of seat 0's share as independent games / as deals
    named_edge: float
    within: float  # with 95% confidence |edge| <= within
    margin: float | None  # the study's equivalence margin (report.equivalence_margin)
    equivalence_p: float
    edge_claim: Claim
    equal_claim: Claim
    equivalence_claim: Claim | None

    @property
    def fair(self) -> float:
        return self.arm.fair

    @property
    def test_level(self) -> float:
        """The level seat 0's edge is really tested at: the report corrects all its claims together,
        and Holm's first step (Bonferroni's level alpha / claims) is the one every power figure can
        rely on, so 'detectable' and 'games needed' hold their stated power within this report."""
        fam = self.edge_claim.family
        claims = sum(1 for c in fam.claims.values() if math.isfinite(c.p_value)) if fam is not None else 1
        return ALPHA / max(claims, 1)

    @property
    def detectable(self) -> float:
        """Smallest seat-0 edge this report detects with POWER at its own level (multiplicity included)."""
        return detectable_edge(self.sd0, self.units, alpha=self.test_level)

    @property
    def needed(self) -> float:
        """Games to detect the study's named edge with POWER at this report's level."""
        per_unit = self.arm.players if self.arm.rotate else 1
        return games_for_edge(self.named_edge, self.sd0, alpha=self.test_level) * per_unit

    @property
    def hi_seat(self) -> int:
        return self.gaps.high

    @property
    def lo_seat(self) -> int:
        return self.gaps.low

    @property
    def small(self) -> bool:
        return self.games < SMALL_STUDY

    def to_dict(self) -> dict:
        return {
            "games": self.games,
            "players": self.arm.players,
            "fair_share": self.fair,
            "games_without_winner": self.no_winner,
            "games_with_shared_win": self.shared,
            "seats": [{"seat": s, "weighted_wins": float(self.wins[s]), **e.to_dict()}
                      for s, e in enumerate(self.shares)],
            "equal_seats_test": {"test": "Hotelling T^2 on per-game seat win weights", **self.chi.to_dict(),
                                 **self.equal_claim.to_dict()},
            "seat0_edge": {**self.edge.to_dict(), **self.edge_claim.to_dict(), "within_95": self.within},
            "equivalence": ({"margin": self.margin, "test": "two one-sided t-tests",
                             **self.equivalence_claim.to_dict()} if self.equivalence_claim else None),
            "detectable_edge": self.detectable,
            "games_needed": {"edge": self.named_edge, "games": self.needed, "power": POWER, "alpha": ALPHA,
                             "test_level": self.test_level},
            "balance": {**self.balance.to_dict(), "largest_share_seat": self.hi_seat,
                        "smallest_share_seat": self.lo_seat, "plain_max_minus_min": float(self.mean.max() - self.mean.min())},
            "small_sample": self.small,
            **({"rotation": {"deals": self.units, "games_per_deal": self.arm.players,
                             "variance_as_independent_games_over_as_deals": self.rotation_gain}}
               if self.arm.rotate else {}),
        }


def _aggregations(players: int) -> list[pl.Expr]:
    aggs = [pl.len().alias("games"), (pl.col("n_winners") == 0).sum().alias("no_winner"),
            m.shared_win().sum().alias("shared")]
    aggs += [m.win_weight(s).sum().alias(f"w{s}") for s in range(players)]
    aggs += [(m.win_weight(s) * m.win_weight(t)).sum().alias(f"w{s}*w{t}")
             for s in range(players) for t in range(s, players)]
    return aggs


def seat_stats(ctx: Context) -> dict[str, SeatStats]:
    """Per arm (study order), from one group_by pass over the dataset; cached in the context."""
    return ctx.cached(("seat_stats",), lambda: _seat_stats(ctx))


def seat_moments(r: dict, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(sums, mean, covariance) of the per-game seat win weights from one aggregated row."""
    n = int(r["games"])
    sums = np.array([r[f"w{s}"] for s in range(k)], dtype=float)
    cross = np.array([[r[f"w{min(s, t)}*w{max(s, t)}"] for t in range(k)] for s in range(k)], dtype=float)
    mean, cov = moment_matrices(sums, cross, n)
    return sums, mean, cov


def _unit_rows(ctx: Context) -> dict[str, dict]:
    """The aggregated row per arm, over its independent units ("games" counts them, "all_games" counts
    games): a game, or a deal of an arm that rotates its seats, whose rotations (n consecutive games,
    whole deals by the spec) are averaged into one unit first, in game order so the bytes repeat."""
    k = ctx.max_players
    names = [a.name for a in ctx.arms]
    frame = m.by_arm(ctx.arm_games, names, _aggregations(k)).collect()
    rows = {r["arm"]: r | {"all_games": r["games"]} for r in frame.iter_rows(named=True)}
    for arm in (a for a in ctx.arms if a.rotate and a.name in rows):
        n = arm.players
        deals = (ctx.every_game.filter(pl.col("arm") == arm.name).sort("game")
                 .select(*[m.win_weight(s).reshape((-1, n)).arr.mean().alias(f"u{s}") for s in range(n)]))
        unit = deals.select(pl.len().alias("games"), *[pl.col(f"u{s}").sum().alias(f"w{s}") for s in range(n)],
                            *[(pl.col(f"u{s}") * pl.col(f"u{t}")).sum().alias(f"w{s}*w{t}")
                              for s in range(n) for t in range(s, n)]).collect().row(0, named=True)
        games, s1, s2 = rows[arm.name]["games"], rows[arm.name]["w0"], rows[arm.name]["w0*w0"]
        game_var0 = (s2 - s1 * s1 / games) / (games - 1) if games > 1 else None  # as independent games
        rows[arm.name] = rows[arm.name] | unit | {"game_var0": game_var0}
    return rows


def _seat_stats(ctx: Context) -> dict[str, SeatStats]:
    rows = _unit_rows(ctx)
    opts = ctx.options
    out = {}
    for arm in ctx.arms:
        r = rows.get(arm.name)
        if r is None or not r["games"]:
            continue
        n, k = int(r["games"]), arm.players
        wins, mean, cov = seat_moments(r, k)
        gain = None
        if arm.rotate and r.get("game_var0") is not None and cov[0, 0] > 0:
            gain = (r["game_var0"] / r["all_games"]) / (cov[0, 0] / n)
        shares = [share_interval(mean[s], cov[s, s], n) for s in range(k)]
        edge = shares[0].shift(-arm.fair)
        p_edge = share_test(shares[0], cov[0, 0], arm.fair)
        edge = Estimate(edge.value, edge.lo, edge.hi, n, edge.method, p_edge)
        sd0 = math.sqrt(max(cov[0, 0], 0.0))
        equal = equal_means_test(mean, cov, n)
        gaps = pairwise_gaps(mean, cov, n, bounds=(0.0, 1.0))
        eq_p, eq_claim = math.nan, None
        if opts.equivalence_margin:
            eq_p = tost_p(edge, sd0 / math.sqrt(n), opts.equivalence_margin, df=n - 1)
            eq_claim = ctx.claim(f"first_player/{arm.name}/equivalence", KEY,
                                 f"{arm.name}: seat 0's edge within +-{opts.equivalence_margin * 100:g} points", eq_p)
        out[arm.name] = SeatStats(
            arm=arm, games=int(r["all_games"]), no_winner=int(r["no_winner"]), shared=int(r["shared"]),
            wins=wins * (int(r["all_games"]) / n), mean=mean,
            cov=cov, shares=shares, chi=equal, edge=edge, gaps=gaps, balance=gaps.range.complement(),
            sd0=sd0, units=n, rotation_gain=gain, named_edge=opts.edge,
            within=max(abs(edge.lo), abs(edge.hi)) if np.isfinite(edge.lo) else math.nan,
            margin=opts.equivalence_margin, equivalence_p=eq_p,
            edge_claim=ctx.claim(f"first_player/{arm.name}/seat0_edge", KEY, f"{arm.name}: seat 0's edge", p_edge),
            equal_claim=ctx.claim(f"first_player/{arm.name}/equal_seats", KEY, f"{arm.name}: seats differ",
                                  equal.p_value),
            equivalence_claim=eq_claim)
    return out


def adjusted(claim: Claim) -> str:
    """'p = 0.003, Holm-adjusted 0.012'."""
    fam = claim.family
    return f"{text.p_value(claim.p_value)}, {fam.name}-adjusted {text.p_value(claim.adjusted, bare=True)}"


def edge_verdict(st: SeatStats) -> str:
    """Plain-language finding on seat 0, computed from the numbers (after the report's correction)."""
    return _edge_verdict(st) + (
        f" Seats carry different policies ({', '.join(st.arm.policies)}), so this mixes seat and policy "
        f"effects (see the policy comparison)." if st.arm.mixed_policies else "")


def _edge_verdict(st: SeatStats) -> str:
    share, edge = st.shares[0], st.edge
    d = text.zero_safe_digits(edge.lo * 100, edge.hi * 100, text.share_digits(share))
    head = f"{st.arm.name}: seat 0 wins {text.share_ci(share)} of {st.arm.players}-player games"
    size = f"{abs(edge.value) * 100:.{d}f} percentage points"
    if st.edge_claim.detected:
        side = "above" if edge.value > 0 else "below"
        what = "advantage" if edge.value > 0 else "disadvantage"
        small = "a small but real" if abs(edge.value) < 0.01 else "a real"
        return (f"{head}, {size} {side} a fair share ({text.pct(st.fair)}): {small} first-player {what} "
                f"({adjusted(st.edge_claim)}).")
    out = (f"{head}, {text.signed(edge.value * 100, d)} percentage points against a fair share of {text.pct(st.fair)}: "
           f"no detectable first-player advantage")
    if edge.excludes(0.0):
        out += (f" after correcting for the report's {len(st.edge_claim.family.claims)} claims "
                f"({adjusted(st.edge_claim)}; its own 95% interval excludes 0)")
    if st.equivalence_claim is not None and st.equivalence_claim.detected:
        out += (f"; the edge is within the study's equivalence margin of +-{st.margin * 100:g} points "
                f"({adjusted(st.equivalence_claim)})")
    elif np.isfinite(st.within):
        out += f"; with 95% confidence the edge is within +-{st.within * 100:.{max(d, 1)}f} points"
    out += (f". At {text.count(st.games)} games this report detects edges of {st.detectable * 100:.2g} percentage "
            f"points or more ({POWER:.0%} power after its correction for {_claims(st)} claims); an edge of "
            f"{st.named_edge * 100:g} percentage point{'s' if st.named_edge != 0.01 else ''} (the study's report.edge) "
            f"would take about {text.count(st.needed)} games.")
    return out


def _claims(st: SeatStats) -> int:
    return round(ALPHA / st.test_level)


def summary_verdicts(stats: dict[str, SeatStats]) -> list[str]:
    """For several arms: which show a seat-0 edge and which unequal seats, in two sentences (the
    table holds every number)."""
    n = len(stats)
    edge = [name for name, st in stats.items() if st.edge_claim.detected]
    seats = [name for name, st in stats.items() if st.equal_claim.detected]
    quiet = [st for name, st in stats.items() if name not in edge]
    out = [f"Seat 0 has a detectable edge in {len(edge)} of {n} arms"
           + (": " + ", ".join(f"{name} {text.signed(stats[name].edge.value * 100, 1)}" for name in edge)
              + " percentage points" if edge else "")
           + (f"; in the other {len(quiet)} no edge is detectable at this size (each within "
              f"+-{max(st.within for st in quiet) * 100:.2g} percentage points)" if quiet and edge else
              f" at this size (each within +-{max(st.within for st in quiet) * 100:.2g} percentage points)"
              if quiet else "") + "."]
    out.append(f"The seats differ detectably (Hotelling test) in {len(seats)} of {n} arms"
               + (f": {', '.join(seats)}" if seats and len(seats) < n else "") + "; balance per arm is in the table.")
    lo = min(st.detectable for st in stats.values())
    hi = max(st.detectable for st in stats.values())
    out.append(f"At these sizes an arm's seat-0 edge is found when it is {lo * 100:.2g}"
               + (f"-{hi * 100:.2g}" if f"{hi * 100:.2g}" != f"{lo * 100:.2g}" else "")
               + f" percentage points or more ({POWER:.0%} power after the report's correction).")
    return out


def balance_verdict(st: SeatStats) -> str:
    decided = "seats differ detectably" if st.equal_claim.detected else "no detectable difference between seats"
    return (f"{st.arm.name}: balance {text.share_ci(st.balance)} (bias-corrected; 100% = every seat wins equally "
            f"often); the highest share is seat {st.hi_seat}'s ({text.pct(st.shares[st.hi_seat].value)}), the lowest "
            f"seat {st.lo_seat}'s ({text.pct(st.shares[st.lo_seat].value)}); all seats equal, Hotelling test: "
            f"{adjusted(st.equal_claim)}: {decided}.")


def rotation_verdict(st: SeatStats) -> str:
    """What rotating the seats over each deal bought, for seat 0's interval."""
    head = (f"{st.arm.name}: each of {text.count(st.units)} deals was played once per seat rotation "
            f"({text.count(st.games)} games), so every hand sat at every seat; these intervals take the deal as "
            f"the unit")
    g = st.rotation_gain
    if g is None or not np.isfinite(g):
        return head + "."
    return (head + f". Seat 0's interval is {1 / math.sqrt(g):.2f} times the width that as many independently dealt "
            f"games would give: the rotation was worth {g:.2f} times the games.")


def small_verdict(st: SeatStats) -> str:
    return (f"{st.arm.name}: only {text.count(st.games)} games. Intervals rest on large-sample approximations and "
            f"only large effects can be seen (seat 0's edge would have to be {st.detectable * 100:.2g} points or more); "
            f"treat every verdict on this arm as rough and run more games.")


def seat_frame(stats: dict[str, SeatStats]) -> pl.DataFrame:
    rows = [{"arm": name, "seat": s, "share": e.value, "lo": e.lo, "hi": e.hi, "fair": st.fair}
            for name, st in stats.items() for s, e in enumerate(st.shares)]
    return pl.DataFrame(rows)


def section(ctx: Context) -> Section | None:
    stats = seat_stats(ctx)
    if not stats:
        return None
    sec = Section(key=ctx.key(KEY), title=ctx.title("First-player advantage"), notes=list(NOTES))
    small = [st for st in stats.values() if st.small]
    if len(small) > 1:
        sec.verdicts = [f"Only {text.count(min(st.games for st in small))}-{text.count(max(st.games for st in small))} "
                        f"games in {len(small)} arms ({', '.join(st.arm.name for st in small)}): only large effects can "
                        f"be seen; treat their verdicts as rough and run more games."]
    else:
        sec.verdicts = [small_verdict(st) for st in small]
    single = len(stats) == 1
    sec.verdicts += [edge_verdict(st) for st in stats.values()] if single else summary_verdicts(stats)
    sec.verdicts += [rotation_verdict(st) for st in stats.values() if st.arm.rotate]
    sec.data = {"arms": {name: st.to_dict() for name, st in stats.items()}}

    seats = max(st.arm.players for st in stats.values())
    sec.tables.append(Table(
        "Win share by seat (95% Wilson interval at the effective number of games)",
        ["arm", "players", "games"] + [f"seat {s}" for s in range(seats)],
        [[name, str(st.arm.players), text.count(st.games)]
         + [text.share_ci(st.shares[s]) if s < st.arm.players else "" for s in range(seats)]
         for name, st in stats.items()], fold=True))  # the figure shows these shares: their numbers folded
    sec.tables.append(Table(
        "Seat 0's edge, equal-seats test, balance",
        ["arm", "fair share", "seat-0 edge (percentage points)", "adjusted p", "detectable", "equal seats: T^2 (df)",
         "adjusted p",
         "balance", "detectable edge", f"games for {stats[next(iter(stats))].named_edge * 100:g} point(s)",
         "shared wins"],
        [[name, text.pct(st.fair), text.points_cell(st.edge), text.p_value(st.edge_claim.adjusted, bare=True),
          "yes" if st.edge_claim.detected else "no",
          f"{st.chi.statistic:.2f} ({st.chi.df[0]}, {st.chi.df[1]:,})" if np.isfinite(st.chi.statistic) else "n/a",
          text.p_value(st.equal_claim.adjusted, bare=True), text.share_ci(st.balance),
          f"{st.detectable * 100:.2g} pp" if np.isfinite(st.detectable) else "n/a", text.count(st.needed),
          text.count(st.shared)]
         for name, st in stats.items()],
        note=f"pp: percentage points; adjusted p: {ctx.family.name} over the report's claims; detectable edge: smallest "
             f"seat-0 edge found with {POWER:.0%} power at this size after the report's correction; games for the "
             f"study's named edge (report.edge), same power."))
    if single:
        sec.verdicts += [balance_verdict(st) for st in stats.values()]

    frame = seat_frame(stats)
    bars = plots.interval_bars(frame, "seat", "share", "lo", "hi", hue="arm", ref="fair",
                               xlabel="seat (0 acts first)", ylabel="win share", title="Win share by seat")
    bars.fold = len(stats) > plots.MANY_ARMS  # a bar per arm and seat is noise; a sweep's curves say it better
    sec.figures.append(bars)
    return sec
