"""Skill versus luck: the win share of a strong player seated among random ones, on the same deals.

A skill design (what `kaartlab skill` writes) is a set of arms with the same set-up: one where every
seat plays ``random`` (the baseline) and, per candidate player P, arms where one seat holds P and
the others ``random``, P rotated over the seats. Game i of every arm deals the same cards, so game
index i is one cluster: P's share is the mean over game indices of the mean, over P's arms, of P's
win weight. The more skill decides, the further it lies above the fair share 1/players.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from reports import metrics as m
from reports import plots, text
from reports.claims import Claim
from reports.context import Context
from reports.dataset import Arm
from reports.model import Figure, Section, Table
from reports.sections.first_player import adjusted
from reports.stats import Estimate, mean_interval, share_interval, share_test

KEY = "skill"
RANDOM = "random"
NOTES = [
    "Design: one arm where every seat plays random (the baseline) and, per candidate player, one arm per "
    "seat with that player in the seat and random players elsewhere. Game i deals the same cards in "
    "every arm, so the candidate meets the same deals in every seat.",
    "Win share of a candidate: the mean over game indices of its win weight averaged over its arms (one "
    "per seat), a Wilson interval at the effective number of game indices; compared with the fair share "
    "1/players by the score test (a claim of the report). 'x fair' is the share divided by the fair share.",
    "Gain over random: the same average minus the baseline's average seat win weight on the same game "
    "index (a random player in the same seats on the same deals), paired t-interval.",
    "With several candidates the strongest is the one with the highest share, picked after looking: "
    "with few candidates and many games this flatters it little.",
]


@dataclass
class SkillResult:
    player: str
    arms: list[Arm]
    seats: list[int]
    share: Estimate
    gain: Estimate
    claim: Claim
    complete: bool  # the candidate sits in every seat

    @property
    def players(self) -> int:
        return self.arms[0].players

    @property
    def fair(self) -> float:
        return 1.0 / self.players

    def to_dict(self) -> dict:
        return {"player": self.player, "players": self.players, "fair_share": self.fair, "seats": self.seats,
                "arms": [a.name for a in self.arms], "all_seats": self.complete,
                "share": {**self.share.to_dict(), **self.claim.to_dict()}, "gain_over_random": self.gain.to_dict(),
                "times_fair": self.share.value / self.fair}


def _lone_seat(arm: Arm) -> int | None:
    """The one seat that is not random, when all the others are."""
    others = [s for s, p in enumerate(arm.policies) if p != RANDOM]
    return others[0] if len(others) == 1 else None


def skill_designs(ctx: Context) -> list[tuple[Arm, dict[str, list[Arm]]]]:
    """(baseline arm, {candidate: its arms}) per set-up with an all-random arm and lone candidates."""
    by_setup: dict[tuple, list[Arm]] = {}
    for arm in ctx.arms:
        by_setup.setdefault(arm.setup(), []).append(arm)
    out = []
    for arms in by_setup.values():
        base = [a for a in arms if set(a.policies) == {RANDOM}]
        candidates: dict[str, list[Arm]] = {}
        for a in arms:
            seat = _lone_seat(a)
            if seat is not None:
                candidates.setdefault(a.policies[seat], []).append(a)
        if base and candidates:
            out.append((base[0], candidates))
    return out


def _measure(ctx: Context, base: Arm, player: str, arms: list[Arm]) -> SkillResult:
    names = [base.name] + [a.name for a in arms]
    per_game = (ctx.scan.filter(pl.col("arm").is_in(names))
                .select(pl.col("game"),
                        m.per_arm({a.name: m.win_weight(_lone_seat(a)) for a in arms}).alias("x"),
                        m.per_arm({base.name: m.mean_over([m.win_weight(s) for s in range(base.players)])}).alias("b"))
                .group_by("game", maintain_order=True).agg(pl.col("x").mean(), pl.col("b").mean()))
    r = per_game.select(m.moments(pl.col("x"), "x") + m.moments(pl.col("x") - pl.col("b"), "d")).collect().row(0, named=True)
    share = share_interval(r["x:mean"], r["x:var"], r["x:n"])
    p = share_test(share, r["x:var"], base.fair)
    share = Estimate(share.value, share.lo, share.hi, share.n, share.method, p)
    gain = mean_interval(r["d:mean"], r["d:var"], r["d:n"], method="paired t")
    seats = sorted(_lone_seat(a) for a in arms)
    claim = ctx.claim(f"skill/{base.name}/{player}", KEY, f"{player} among random players: share against fair", p)
    return SkillResult(player, arms, seats, share, gain, claim, seats == list(range(base.players)))


def skill_results(ctx: Context) -> list[list[SkillResult]]:
    """Per skill design, every candidate's result, strongest first."""
    def run():
        return [sorted((_measure(ctx, base, p, arms) for p, arms in cands.items()), key=lambda s: -s.share.value)
                for base, cands in skill_designs(ctx)]
    return ctx.cached(("skill",), run)


def _verdict(ctx: Context, res: SkillResult, others: int) -> str:
    n = res.players
    head = (f"{res.player} seated among {n - 1} random players wins {text.share_ci(res.share)} of {n}-player "
            f"{ctx.game} games, {res.share.value / res.fair:.2f}x the fair share of {text.pct(res.fair)}")
    if res.claim.detected:
        word = "more" if res.share.value > res.fair else "less"
        body = f": detectably {word} than fair ({adjusted(res.claim)})"
    else:
        body = (f": not detectably different from fair at this size (a skill edge of up to "
                f"{max(abs(res.share.lo - res.fair), abs(res.share.hi - res.fair)) * 100:.2g} percentage points is "
                f"still possible)")
    tail = "" if res.complete else (f"; it sat only in seat(s) {text.seat_list(res.seats)}, so the share mixes "
                                    f"skill with those seats")
    pick = (f" It has the highest point estimate of {others} candidates (picked after looking, so not a ranking)."
            if others > 1 else "")
    return head + body + tail + "." + pick


def section(ctx: Context) -> Section | None:
    designs = skill_results(ctx)
    if not designs:
        return None
    sec = Section(key=ctx.key(KEY), title=ctx.title("Skill versus luck"), notes=list(NOTES))
    sec.data = {"designs": []}
    for results in designs:
        best = results[0]
        sec.verdicts.append(_verdict(ctx, best, len(results)))
        sec.data["designs"].append({"strongest": best.player, "candidates": [r.to_dict() for r in results]})
        sec.tables.append(Table(
            "Candidate players among random ones, same deals",
            ["player", "seats", "win share", "x fair", "gain over a random player", "adjusted p", "detectable"],
            [[r.player, text.seat_list(r.seats), text.share_ci(r.share), f"{r.share.value / r.fair:.2f}",
              text.points(r.gain), text.p_value(r.claim.adjusted, bare=True), "yes" if r.claim.detected else "no"]
             for r in results],
            note=f"fair share {text.pct(best.fair)}; gain: paired on game index against the all-random arm"))
        frame = pl.DataFrame([{"player": r.player, "share": r.share.value, "lo": r.share.lo, "hi": r.share.hi,
                               "fair": r.fair} for r in results])
        sec.figures.append(plots.interval_bars(frame, "player", "share", "lo", "hi", ref="fair", xlabel="player",
                                               ylabel="win share among random players",
                                               title="Win share against random players, same deals"))
    return sec


# -- across games ------------------------------------------------------------------------------------
def summary_rows(report_dirs: list[Path]) -> list[dict]:
    """The strongest candidate of each study's skill section, read from its summary.json."""
    rows = []
    for d in report_dirs:
        summary = json.loads((Path(d) / "summary.json").read_text())
        for key, sec in summary["sections"].items():
            if key.split(".")[-1] != KEY:
                continue
            game = key.split(".")[0] if "." in key else next(iter(summary["games"]))
            for design in sec["data"]["designs"]:
                best = next(c for c in design["candidates"] if c["player"] == design["strongest"])
                rows.append({"game": game, "player": best["player"], "players": best["players"],
                             "fair": best["fair_share"], "share": best["share"]["estimate"],
                             "lo": best["share"]["lo"], "hi": best["share"]["hi"],
                             "detected": best["share"]["detected"]})
    return rows


def figure_across_games(rows: list[dict]) -> Figure:
    frame = pl.DataFrame([{"label": f"{r['game']}: {r['player']} ({r['players']} players)", "share": r["share"],
                           "lo": r["lo"], "hi": r["hi"], "fair": r["fair"]} for r in rows])
    return plots.forest(frame, "label", "share", "lo", "hi", ref="fair", percent="all",
                        xlabel="win share among random players, 95% interval (dashed: fair share)",
                        title="How much skill decides: the strongest player among random ones, same deals")


def table_across_games(rows: list[dict]) -> str:
    """The figure's numbers as a Markdown table."""
    lines = ["| game | strongest player | players | win share (95%) | fair share | x fair |",
             "|---|---|---|---|---|---|"]
    for r in rows:
        est = Estimate(r["share"], r["lo"], r["hi"], 0, "")
        lines.append(f"| {r['game']} | {r['player']} | {r['players']} | {text.share_ci(est)} | {text.pct(r['fair'])} "
                     f"| {r['share'] / r['fair']:.2f} |")
    return "\n".join(lines) + "\n"
