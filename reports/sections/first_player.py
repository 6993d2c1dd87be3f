"""First-player advantage: win share by seat per arm, test of equal seats, seat 0's edge, balance."""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import polars as pl

from reports import metrics as m
from reports import plots, text
from reports.context import Context
from reports.dataset import Arm
from reports.model import Section, Table
from reports.stats import ALPHA, POWER, ChiSquare, Estimate, equal_shares_test, games_needed, mean_interval, wilson

KEY = "first_player"
NOTES = [
    "Win share of a seat = its wins over the arm's games; a win shared by n winners counts 1/n "
    "(bit s of winner_mask says whether seat s won). Seat 0 acts first.",
    "95% intervals are Wilson intervals (statsmodels proportion_confint) with the weighted win count "
    "as the number of successes; with few shared wins this is the ordinary binomial interval.",
    "'Every seat equal' is a chi-square goodness-of-fit test (scipy.stats.chisquare) of the weighted "
    "win counts per seat against equal counts.",
    "Seat 0's edge is its share minus the fair share 1/players; its interval is the Wilson interval "
    "shifted by 1/players. The data can tell when that interval excludes 0.",
    f"Games needed: games for a two-sided one-sample test at the {ALPHA:.0%} level to detect the "
    f"observed edge with {POWER:.0%} power (Cohen's h, statsmodels NormalIndPower with ratio=0).",
    "Balance = 1 - (largest seat share - smallest seat share); 100% means every seat wins equally often. "
    "Its interval treats the two extreme seats as fixed (t-interval on the per-game difference of "
    "their win weights), so it is slightly optimistic when seats are close.",
]


@dataclass
class SeatStats:
    arm: Arm
    games: int
    no_winner: int
    shared: int
    wins: np.ndarray  # weighted win count per seat
    shares: list[Estimate]
    chi: ChiSquare
    edge: Estimate
    needed: float  # games to detect the observed edge
    needed_1pt: float  # games to detect a 1-point edge
    balance: Estimate
    hi_seat: int
    lo_seat: int

    @property
    def fair(self) -> float:
        return self.arm.fair

    def to_dict(self) -> dict:
        return {
            "games": self.games,
            "players": self.arm.players,
            "fair_share": self.fair,
            "games_without_winner": self.no_winner,
            "games_with_shared_win": self.shared,
            "seats": [{"seat": s, "weighted_wins": float(self.wins[s]), **e.to_dict()}
                      for s, e in enumerate(self.shares)],
            "equal_seats_test": {"test": "chi-square goodness of fit", **self.chi.to_dict()},
            "seat0_edge": {**self.edge.to_dict(), "detected": self.edge.excludes(0.0)},
            "games_needed": self.needed,
            "games_needed_for_1_point": self.needed_1pt,
            "balance": {**self.balance.to_dict(), "largest_share_seat": self.hi_seat,
                        "smallest_share_seat": self.lo_seat},
            "verdict": edge_verdict(self),
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


def _seat_stats(ctx: Context) -> dict[str, SeatStats]:
    frame = ctx.scan.group_by("arm").agg(_aggregations(ctx.max_players)).collect()
    rows = {r["arm"]: r for r in frame.iter_rows(named=True)}
    out = {}
    for arm in ctx.arms:
        r = rows.get(arm.name)
        if r is None or not r["games"]:
            continue
        n, k = int(r["games"]), arm.players
        wins = np.array([r[f"w{s}"] for s in range(k)], dtype=float)
        shares = [wilson(w, n) for w in wins]
        hi, lo = int(np.argmax(wins)), int(np.argmin(wins))
        q = lambda s, t: r[f"w{min(s, t)}*w{max(s, t)}"]  # noqa: E731
        d_sum = wins[hi] - wins[lo]
        d_sq = q(hi, hi) + q(lo, lo) - 2 * q(hi, lo) if hi != lo else 0.0
        d_var = (d_sq - d_sum ** 2 / n) / (n - 1) if n > 1 else math.nan
        gap = mean_interval(d_sum / n, d_var, n, method="delta t")
        out[arm.name] = SeatStats(
            arm=arm, games=n, no_winner=int(r["no_winner"]), shared=int(r["shared"]), wins=wins,
            shares=shares, chi=equal_shares_test(wins), edge=shares[0].shift(-arm.fair),
            needed=games_needed(shares[0].value, arm.fair),
            needed_1pt=games_needed(arm.fair + 0.01, arm.fair),
            balance=gap.complement(), hi_seat=hi, lo_seat=lo)
    return out


def edge_verdict(st: SeatStats) -> str:
    """Plain-language finding on seat 0, computed from the numbers."""
    return _edge_verdict(st) + (
        f" Seats carry different policies ({', '.join(st.arm.policies)}), so this mixes seat and policy "
        f"effects (see the policy comparison)." if st.arm.mixed_policies else "")


def _edge_verdict(st: SeatStats) -> str:
    share, edge, d = st.shares[0], st.edge, text.share_digits(st.shares[0])
    head = f"{st.arm.name}: seat 0 wins {text.share_ci(share)} of {st.arm.players}-player games"
    size = f"{abs(edge.value) * 100:.{d}f} points"
    if edge.excludes(0.0):
        side = "above" if edge.value > 0 else "below"
        what = "advantage" if edge.value > 0 else "disadvantage"
        small = "a small but real" if abs(edge.value) < 0.01 else "a real"
        return f"{head}, {size} {side} a fair share ({text.pct(st.fair)}): {small} first-player {what}."
    bounds = f"{text.signed(edge.lo * 100, d)} and {text.signed(edge.hi * 100, d)} points"
    out = (f"{head}, {text.signed(edge.value * 100, d)} points against a fair share of {text.pct(st.fair)}: "
           f"no detectable first-player advantage (the edge is somewhere between {bounds})")
    if math.isinf(st.needed):
        return out + (f"; too few games to rule out small edges: a 1-point edge would take about "
                      f"{text.count(st.needed_1pt)} games to detect, this arm has {text.count(st.games)}.")
    if st.needed > st.games:
        return out + (f"; too few games to tell: detecting an edge of {size} would take about "
                      f"{text.count(st.needed)} games ({POWER:.0%} power, {ALPHA:.0%} level), "
                      f"this arm has {text.count(st.games)}.")
    return out + "."


def balance_verdict(st: SeatStats) -> str:
    gap = st.balance.complement()
    return (f"{st.arm.name}: balance {text.share_ci(st.balance)}; the largest gap is "
            f"{gap.value * 100:.1f} points, between seat {st.hi_seat} ({text.pct(st.shares[st.hi_seat].value)}) "
            f"and seat {st.lo_seat} ({text.pct(st.shares[st.lo_seat].value)}); test of all seats equal: "
            f"{text.p_value(st.chi.p_value)}.")


def seat_frame(stats: dict[str, SeatStats]) -> pl.DataFrame:
    rows = [{"arm": name, "seat": s, "share": e.value, "lo": e.lo, "hi": e.hi, "fair": st.fair}
            for name, st in stats.items() for s, e in enumerate(st.shares)]
    return pl.DataFrame(rows)


def section(ctx: Context) -> Section | None:
    stats = seat_stats(ctx)
    if not stats:
        return None
    sec = Section(key=ctx.key(KEY), title=ctx.title("First-player advantage"), notes=list(NOTES))
    sec.verdicts = [edge_verdict(st) for st in stats.values()]
    sec.data = {"arms": {name: st.to_dict() for name, st in stats.items()}}

    seats = max(st.arm.players for st in stats.values())
    sec.tables.append(Table(
        "Win share by seat (95% Wilson interval)",
        ["arm", "players", "games"] + [f"seat {s}" for s in range(seats)],
        [[name, str(st.arm.players), text.count(st.games)]
         + [text.share_ci(st.shares[s]) if s < st.arm.players else "" for s in range(seats)]
         for name, st in stats.items()]))
    sec.tables.append(Table(
        "Seat 0's edge, equal-seats test, balance",
        ["arm", "fair share", "seat-0 edge", "chi-square (df)", "p-value", "balance", "games needed", "shared wins"],
        [[name, text.pct(st.fair), text.points(st.edge), f"{st.chi.statistic:.2f} ({st.chi.df})",
          text.p_value(st.chi.p_value, bare=True), text.share_ci(st.balance), text.count(st.needed), text.count(st.shared)]
         for name, st in stats.items()],
        note="games needed: to detect the observed seat-0 edge (80% power, 5% level)."))
    sec.verdicts += [balance_verdict(st) for st in stats.values()]

    frame = seat_frame(stats)
    sec.figures.append(plots.interval_bars(frame, "seat", "share", "lo", "hi", hue="arm", ref="fair",
                                           xlabel="seat (0 acts first)", ylabel="win share",
                                           title="Win share by seat"))
    edges = pl.DataFrame([{"arm": n, "edge": st.edge.value, "lo": st.edge.lo, "hi": st.edge.hi}
                          for n, st in stats.items()])
    sec.figures.append(plots.forest(edges, "arm", "edge", "lo", "hi", ref=0.0, percent="all",
                                    xlabel="seat 0's share minus fair share", title="Seat 0's edge"))
    return sec
