"""Null tests for every verdict the Wie is de Heer? section prints (issue 26), at full sizes.

Synthetic datasets with a known answer, written as the kernel's records (kernels/wieisdeheer/enums
OUT_DTYPE through sim/tables.build_table, so the columns are exactly docs/schema.md's), read by the
section's own code (reports/games/wieisdeheer.py). Each verdict that can say "detectable" is one kind
of claim:

- mole_share: the mole's win share against the fair 1/players. Null: the mole wins with chance 1/n.
- seat0_first: seat 0 takes the first place of the order against 1/n. Null: the order is a uniform
  permutation (relabelled identical players).
- confidence: the writers' stated probability against how often they are right. Null: a writer who
  states p is right with chance p (a calibrated model).
- pot_effect: the mole's win share in small-pot against big-pot games. Null: the pot is drawn
  independently of the winner (an inert measure).
- sabotage_pair: every pair of a sabotage sweep's rates. Null: the mole's win share is the same at
  every rate (an inert parameter); the verdict names a rate as worse than the best only when a
  pair claim is detectable.

Per claim kind: the share of null claims with p < 0.05 (the test's size, nominal 5%), and with the
planted effect the share found (power) against the power the normal approximation states for that
effect and size. Per null study: the share in which the section words anything "detectable" after
the report's Holm correction (nominal at most 5%). Run: `python -m benchmarks.calibration_wieisdeheer`
(prints a table and writes runs/calibration_wieisdeheer.json); tests/test_calibration_wieisdeheer.py
runs the same code at quick sizes.
"""
from __future__ import annotations

import argparse
import json
import math
import shutil
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pyarrow.parquet as pq
from scipy.optimize import brentq
from scipy.stats import norm

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks.calibration_common import rate  # noqa: E402
from kernels.wieisdeheer.enums import OUT_DTYPE  # noqa: E402
from reports.claims import Family  # noqa: E402
from reports.context import Context, Options  # noqa: E402
from reports.dataset import Dataset  # noqa: E402
from reports import plots  # noqa: E402
from reports.games import wieisdeheer as heer  # noqa: E402
from sim.games.wieisdeheer import GAME  # noqa: E402
from sim.tables import build_table  # noqa: E402

ALPHA = 0.05
KINDS = ("mole_share", "seat0_first", "confidence", "pot_effect", "sabotage_pair")
SWEEP = (0.0, 0.3, 0.6, 0.9)


@dataclass
class HeerArm:
    """A synthetic arm. Planted effects (0 = the null): `mole_edge` on the mole's win share over 1/n,
    `seat0_edge` on seat 0 going out first, `overconfidence` (writers are right that much less often
    than they say), `pot_edge` (the mole wins that much more often in games whose pot is at least the
    median, that much less below it)."""

    name: str
    games: int
    players: int = 4
    sabotage: float | None = None  # a sweep arm: every seat's `sabotage`
    mole_edge: float = 0.0
    seat0_edge: float = 0.0
    overconfidence: float = 0.0
    pot_edge: float = 0.0
    params: dict = field(default_factory=dict)

    @property
    def policies(self) -> list[str]:  # plain arms: racers, so that they are no point of the sweep
        label = "racer" if self.sabotage is None else f"reasoner(sabotage={self.sabotage:g})"
        return [label] * self.players

    @property
    def seats(self) -> list[dict]:
        if self.sabotage is None:
            return [{"policy": "racer", "params": {}} for _ in range(self.players)]
        return [{"policy": "reasoner", "params": {"sabotage": self.sabotage}} for _ in range(self.players)]


def records(arm: HeerArm, rng: np.random.Generator) -> np.ndarray:
    """The arm's games as the kernel's output records."""
    n, k = arm.games, arm.players
    out = np.zeros(n, dtype=OUT_DTYPE)
    mole = rng.integers(0, k, n)
    order = np.argsort(rng.random((n, k)), axis=1)  # seats by place: a uniform permutation
    first0 = rng.random(n) < arm.seat0_edge / (1 - 1 / k)  # planted: seat 0 moved to the front
    for g in np.flatnonzero(first0):
        row = list(order[g])
        row.remove(0)
        order[g] = [0] + row
    finish = np.argsort(order, axis=1)
    pot = rng.integers(0, 300, n)
    big = pot >= np.median(pot)
    p_mole = 1 / k + arm.mole_edge + np.where(big, arm.pot_edge, -arm.pot_edge)
    mole_won = rng.random(n) < p_mole
    stated = rng.uniform(0.3, 0.9, (n, k))
    right = rng.random((n, k)) < stated - arm.overconfidence
    seats = np.arange(k)[None, :]
    is_mole = seats == mole[:, None]
    # a wrong writer names one of the k-2 seats that are neither itself nor the mole, uniformly
    pick = rng.integers(0, k - 2, (n, k))
    wrong = np.zeros((n, k), int)
    for w in range(k):
        # [mole, k-2]; the row m = w (the writer is the mole) is not used
        others = np.array([[t for t in range(k) if t != w and t != m][:k - 2] for m in range(k)])
        wrong[:, w] = others[mole, pick[:, w]]
    suspect = np.where(right, mole[:, None], wrong)
    suspect = np.where(is_mole, (mole[:, None] + 1) % k, suspect)  # the mole's own decoy
    correct = np.where(is_mole, -1, (suspect == mole[:, None]).astype(int))
    on_mole = np.where(correct == 1, stated, (1 - stated) / (k - 2))
    brier = (1 - on_mole) ** 2 + np.where(correct == 1, 0, stated ** 2)
    winner = np.where(mole_won, mole, order[:, 0])
    out["winner_mask"] = 1 << winner
    out["turns"] = rng.integers(40, 200, n)
    out["rounds"] = 1
    out["mole"] = mole
    out["mole_won"] = mole_won
    out["pot"] = pot
    out["points_voided"] = rng.integers(0, 200, n)
    out["points_left"] = rng.integers(0, 40, n)
    out["questions"] = 3 * rng.integers(0, 4, n)
    out["plays"] = rng.integers(40, 120, n)
    out["sabotages"] = 0 if arm.sabotage is None else rng.binomial(6, arm.sabotage, n)
    for name, values in (("score", (seats == winner[:, None]).astype(int)), ("finish", finish),
                         ("suspect", suspect), ("correct", correct),
                         ("p_suspect", np.where(is_mole, -1, np.round(1000 * stated))),
                         ("p_mole", np.where(is_mole, -1, np.round(1000 * on_mole))),
                         ("brier", np.where(is_mole, -1, np.round(1e6 * brier))),
                         ("questions_asked", rng.integers(0, 7, (n, k)))):
        out[name][:, :k] = values
    return out


def write_study(root: Path, arms: list[HeerArm], seed: int) -> None:
    """DIR/study.json and DIR/<arm>/batch-000000.parquet, every arm's games independent."""
    root.mkdir(parents=True, exist_ok=True)
    games = max(a.games for a in arms)
    study = {"name": "heer-calibration", "seed": seed, "games": games, "batch_size": games,
             "arms": [{"name": a.name, "game": "wieisdeheer", "game_version": GAME.version, "players": a.players,
                       "rules": {}, "policies": a.policies, "seats": a.seats, "deck": None} for a in arms]}
    for i, arm in enumerate(arms):
        table = build_table(GAME, SimpleNamespace(name=arm.name, players=arm.players), 0,
                            records(arm, np.random.default_rng([seed, i])), {"seats": arm.players})
        (root / arm.name).mkdir(exist_ok=True)
        pq.write_table(table, root / arm.name / "batch-000000.parquet")
    info = {"wieisdeheer": {"version": GAME.version, "score": "wins", "higher_score_wins": True}}
    (root / "study.json").write_text(json.dumps({"kaartlab_dataset": 1, "fingerprint": f"{seed:016x}",
                                                 "study": study, "games": info, "provenance": {}}))


def section_claims(root: Path, sweep_only: bool = False) -> tuple[list, list]:
    """The section's claims (mole, sweep, accusations, going out, pot) on the study at `root`,
    corrected together as the report does: made once to collect them, then again to word them.
    sweep_only: the sweep's claims alone (a smaller family than a report's: a stricter check of its
    false verdicts, and quicker). Returns (claims, [mole, sweep, ...] sections)."""
    family = Family("holm")
    ctx = Context(Dataset(root), "wieisdeheer", Options(), family)
    games = heer.game_frame(ctx)
    writers = None if sweep_only else heer.writer_frame(ctx)

    def make():
        if sweep_only:
            return [None, heer._sabotage_section(ctx, games)]
        return [heer._mole_section(ctx, games), heer._sabotage_section(ctx, games),
                heer._accusation_section(ctx, writers), heer._going_out_section(ctx, games),
                heer._pot_section(ctx, games)]

    with plots.disabled():  # figures are not what is calibrated, and drawing them is most of the time
        family.collecting = True
        make()
        family.correct()
        family.collecting = False
        sections = make()
    return list(family.claims.values()), sections


def kind_of(claim) -> str:
    return claim.key.split(":")[1]


def study(games: int, planted: bool) -> list[HeerArm]:
    """Three plain arms and a sabotage sweep; planted: each plain arm carries effects of the size
    that gives 80% power at 5% (stated_power), the sweep's best rate such an edge over the rest."""
    e = effects(games) if planted else {k: 0.0 for k in KINDS}
    plain = [HeerArm(f"arm-{j}", games, mole_edge=e["mole_share"], seat0_edge=e["seat0_first"],
                     overconfidence=e["confidence"], pot_edge=e["pot_effect"]) for j in range(3)]
    sweep = [HeerArm(f"sab-{s:g}", games, sabotage=s, mole_edge=e["sabotage_pair"] if s == SWEEP[-1] else 0.0)
             for s in SWEEP]
    return plain + sweep


def stated_power(kind: str, effect: dict, games: int, players: int = 4) -> float:
    """The power the normal approximation states for a claim kind's two-sided 5% test with the
    planted effects `effect` (all kinds at once, as study() plants them: the mole's edge and the
    pot's split share one column, so each enters the other's variance)."""
    z = norm.ppf(1 - ALPHA / 2)
    p0 = 1 / players
    m, d = effect["mole_share"], effect["pot_effect"]

    def var(p):
        return p * (1 - p)

    if kind in ("mole_share", "seat0_first"):  # the score test against 1/n, at the null's variance
        delta = effect[kind]
        p1 = p0 + delta
        spread = var(p0 + m + d) / 2 + var(p0 + m - d) / 2 + d * d if kind == "mole_share" else var(p1)
        return float(norm.cdf((delta * math.sqrt(games) - z * math.sqrt(var(p0))) / math.sqrt(spread)))
    if kind == "confidence":  # per game: the mean of players-1 writers' stated - right, right ~ B(s - delta)
        u = 0.6 - effect[kind]  # s ~ U(0.3, 0.9): E[u(1-u)] = E[u] - E[u]^2 - var(s)
        se = math.sqrt((u - u * u - 0.03) / (players - 1) / games)
        return float(norm.cdf(effect[kind] / se - z))
    if kind == "pot_effect":  # Welch: half the games each side of the median
        se = math.sqrt((var(p0 + m + d) + var(p0 + m - d)) / (games / 2))
        return float(norm.cdf(2 * d / se - z))
    delta = effect[kind]  # sabotage_pair: the best rate against another, games each
    se = math.sqrt((var(p0 + delta) + var(p0)) / games)
    return float(norm.cdf(delta / se - z))


def effects(games: int, players: int = 4, power: float = 0.8) -> dict:
    """The planted effect per claim kind at which stated_power is `power` for every kind (solved
    together: the mole's edge and the pot's split enter each other's variance)."""
    effect = {k: 0.0 for k in KINDS}
    for _ in range(5):  # a fixed point: each kind solved with the others' current effects
        for kind in KINDS:
            effect[kind] = brentq(lambda x: stated_power(kind, {**effect, kind: x}, games, players) - power,
                                  1e-6, 0.2)
    return effect


def run(replicates: int, games: int, seed: int = 1, work: Path | None = None) -> dict:
    """Null and planted studies, `replicates` each: per claim kind the share with p < 0.05, and per
    null study whether the section words anything 'detectable' after correction."""
    own = work is None
    work = Path(tempfile.mkdtemp(prefix="kaartlab-heer-cal-")) if own else work
    counts = {which: {k: [0, 0] for k in KINDS} for which in ("null", "planted")}
    any_detected = sweep_named = sweep_named_raw = 0
    try:
        for which in ("null", "planted"):
            for i in range(replicates):
                root = work / f"{which}{i}"
                write_study(root, study(games, which == "planted"), seed * 100_003 + i + (50_000 if which == "planted" else 0))
                claims, sections = section_claims(root)
                for c in claims:
                    kind = kind_of(c)
                    if which == "planted" and (f"sab-{SWEEP[-1]:g}" not in c.key if kind == "sabotage_pair"
                                               else ":arm-" not in c.key):
                        continue  # only the claims whose arms carry the planted effect
                    counts[which][kind][0] += bool(c.p_value < ALPHA)
                    counts[which][kind][1] += 1
                if which == "null":
                    any_detected += any(c.detected for c in claims)
                    named, named_raw = sweep_verdict(claims, sections)
                    sweep_named += named
                    sweep_named_raw += named_raw
                shutil.rmtree(root)
    finally:
        if own:
            shutil.rmtree(work, ignore_errors=True)
    return {"games_per_arm": games, "replicates": replicates, "alpha": ALPHA,
            "effects": effects(games), "stated_power": {k: stated_power(k, effects(games), games) for k in KINDS},
            "size": {k: rate(*counts["null"][k]) for k in KINDS},
            "power": {k: rate(*counts["planted"][k]) for k in KINDS},
            "any_detectable_after_holm": rate(any_detected, replicates),
            "sweep_names_a_worse_rate": rate(sweep_named, replicates),
            "sweep_names_a_worse_rate_uncorrected": rate(sweep_named_raw, replicates)}


def sweep_selection(replicates: int, games: int, seed: int = 1, work: Path | None = None) -> dict:
    """Sweeps alone (four rates, nothing differs): how often the verdict names a rate worse than
    the best, as printed and as the old uncorrected reading of the best against each would."""
    own = work is None
    work = Path(tempfile.mkdtemp(prefix="kaartlab-heer-sweep-")) if own else work
    named = named_raw = 0
    try:
        for i in range(replicates):
            root = work / f"sweep{i}"
            write_study(root, [a for a in study(games, False) if a.sabotage is not None], seed * 100_003 + 90_000 + i)
            claims, sections = section_claims(root, sweep_only=True)
            a, b = sweep_verdict(claims, sections)
            named, named_raw = named + a, named_raw + b
            shutil.rmtree(root)
    finally:
        if own:
            shutil.rmtree(work, ignore_errors=True)
    return {"games_per_arm": games, "replicates": replicates, "sweep_names_a_worse_rate": rate(named, replicates),
            "sweep_names_a_worse_rate_uncorrected": rate(named_raw, replicates)}


def sweep_verdict(claims, sections) -> tuple[bool, bool]:
    """Does the sweep's verdict name a rate as worse than the best (as printed: after correction),
    and would it with the best compared to each other rate at an uncorrected 5% (the selection of
    the best after looking, uncorrected: the bug the pair claims fix)?"""
    sweep = sections[1]
    named = any("detectably above rates" in v for v in sweep.verdicts)
    shares = {rate: p["mole_share"]["estimate"] for rate, p in next(iter(sweep.data["sweeps"].values())).items()
              if rate != "reaches_target"}
    best = max(shares, key=shares.get)
    raw = any(c.p_value < ALPHA for c in claims
              if kind_of(c) == "sabotage_pair" and f"sab-{best}" in c.key.split(":")[2:])
    return named, raw


NULLS = {"mole_share": "the mole wins 1/players", "seat0_first": "uniform finishing order",
         "confidence": "a writer stating p is right with chance p", "pot_effect": "pot independent of the winner",
         "sabotage_pair": "equal mole share at every swept rate"}


def table(result: dict) -> str:
    lines = ["| verdict (claim) | null | rate measured | 95% interval | nominal | planted effect | power measured "
             "| stated power |", "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for k in KINDS:
        s, p = result["size"][k], result["power"][k]
        lines.append(f"| {k} | {NULLS[k]} | {s['rate']:.3f} ({s['count']}/{s['n']}) | {s['lo']:.3f}-{s['hi']:.3f} "
                     f"| 0.05 | {100 * result['effects'][k]:.1f} points | {p['rate']:.3f} ({p['lo']:.3f}-{p['hi']:.3f}) "
                     f"| {result['stated_power'][k]:.2f} |")
    for key, words in (("sweep_names_a_worse_rate", "sweep names a rate worse than the best, after Holm"),
                       ("sweep_names_a_worse_rate_uncorrected", "the same, best against each at uncorrected 5% (old)")):
        a = result[key]
        lines.append(f"| {words} | equal mole share at every swept rate | {a['rate']:.3f} ({a['count']}/{a['n']}) "
                     f"| {a['lo']:.3f}-{a['hi']:.3f} | at most 0.05 | | | |")
    a = result["any_detectable_after_holm"]
    lines.append(f"| any verdict of the section, after Holm | all of the above | {a['rate']:.3f} ({a['count']}/{a['n']}) "
                 f"| {a['lo']:.3f}-{a['hi']:.3f} | at most 0.05 | | | |")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--replicates", type=int, default=400)
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, default=Path("runs/calibration_wieisdeheer.json"))
    args = parser.parse_args(argv)
    result = run(args.replicates, args.games, args.seed)
    sweeps = sweep_selection(args.replicates, args.games, args.seed)
    result.update({k: v for k, v in sweeps.items() if k.startswith("sweep_")})
    print(table(result))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1))
    print(f"written: {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
