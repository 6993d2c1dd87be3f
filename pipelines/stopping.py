"""Play a study with a ``[stop]`` table until its intervals are narrow enough (sim/stopping.py).

Every arm plays the same games 0..n-1 (the study's ``games`` is n, grown by whole batches), so the
per-arm plans, integrity records, resume and report are those of any study; only n is decided while
it runs. Round by round: the pilot, then as many batches as the current estimates say the target
needs (at least one more). Batches are handed to the monitor as they land, in whatever order Ray
finishes them, but it consumes only the contiguous prefix of batch indices complete in every arm, and
looks at each boundary; once a look reaches the target no further batch is started. Batches that were
already in flight beyond the stopping look are removed, so the dataset holds exactly the games the
decision used and is the same whatever the number of workers.

A rerun with a smaller ``half_width`` or a bigger ``max_games`` replays the looks from the stored
batches (the same numbers bit for bit) and carries on; batches already stored are kept, never redone.
study.json's ``stopped`` records why and when the study stopped (docs/schema.md).
"""
from __future__ import annotations

import math
from dataclasses import replace
from datetime import datetime, timezone

import numpy as np

from sim.stopping import Monitor

GROWTH = 1.05  # a round asks for this much more than the estimate says, so one round usually suffices


def _meta(study, arm):
    from reports.dataset import Arm

    d = arm.to_dict()
    return Arm(name=arm.name, game=arm.game, players=arm.players, rules=d["rules"],
               policies=tuple(d["policies"]), deck=d["data"] or None, game_version=d["game_version"],
               seat_params=tuple((s["policy"], dict(s["params"])) for s in d["seats"]))


def per_game(frame, study, arm, measure: str) -> np.ndarray:
    """One arm's per-game values of a measure, in game order: seat 0's win weight minus the fair share
    (seat0_edge), turns, rounds, the mean score per seat (score) or the game's own measure; of an arm that
    rotates its seats, per deal."""
    return _per_deal(_per_game(frame.sort("game"), study, arm, measure), arm)


def _per_deal(x: np.ndarray, arm) -> np.ndarray:
    """Rows in game order as they are, or for an arm that rotates its seats a deal's rotations as one
    row, their mean (batches hold whole deals; a pilot may end inside one, left out)."""
    if not arm.rotate:
        return x
    whole = len(x) // arm.players * arm.players
    return x[:whole].reshape(-1, arm.players, *x.shape[1:]).mean(axis=1)


def _per_game(frame, study, arm, measure: str) -> np.ndarray:
    import polars as pl

    from reports import metrics

    if measure == "seat0_edge":
        x = frame.select(metrics.win_weight(0))["w0"].to_numpy().astype(float) - 1.0 / arm.players
    elif measure in ("turns", "rounds"):
        x = frame[measure].to_numpy().astype(float)
    else:
        from reports.search import _outcome

        mm = _outcome(arm.game, measure)
        x = frame.select(mm.expr(_meta(study, arm)).cast(pl.Float64).alias("x"))["x"].to_numpy()
    return np.asarray(x, dtype=float)


def luck_per_game(frame, arm) -> np.ndarray:
    """An arm that measures luck: its luck measures (Game.luck) at every seat, one row per game in game
    order (per deal, their mean, for an arm that rotates its seats, as per_game)."""
    from reports.metrics import seat_values

    return _per_deal(frame.sort("game").select(*seat_values(arm.info.luck, arm.players)).to_numpy(), arm)


def stream_values(frames: dict, study, streams, fits: dict | None = None) -> list[np.ndarray]:
    """Per stream, the values of one batch index: an arm's, or the paired difference variant - baseline
    (game i of both arms; a game where either value is undefined is left out). With ``fits`` (a dict the
    caller keeps over its batches, handed them from batch 0 on, in plan order), a stream whose arms all
    measure luck gets the luck of the draw regressed out: its coefficients are fitted on batch 0
    (cross-fitted there, reports.stats.cross_fitted) and applied unchanged to every later batch, so each
    value keeps its mean and a look's interval stays valid however many looks follow."""
    from reports.stats import cross_fitted

    out, fitted = [], {}  # fits are kept only when every stream's values are made (a file may be mid-write)
    for name, measure, arms in streams:
        values = [per_game(frames[a], study, study.arm(a), measure) for a in arms]
        x = values[0] if len(values) == 1 else values[1] - values[0]
        keep = np.isfinite(x)
        x = x[keep]
        if fits is not None and all(study.arm(a).luck for a in arms):
            luck = np.hstack([luck_per_game(frames[a], study.arm(a)) for a in arms])[keep]
            if name not in fits:  # batch 0: enough rows to fit both halves, else never adjusted
                fitted[name] = None
                if len(x) >= 4 * (luck.shape[1] + 1):
                    x, fitted[name] = cross_fitted(x, luck)
            elif fits[name] is not None:
                x = x - luck @ fits[name]
        out.append(x)
    if fits is not None:
        fits.update(fitted)
    return out


class Stopper:
    """The monitor over one run's session: reads each landed batch index (all arms) and hands it on."""

    def __init__(self, study, session, say=None):
        self.study, self.session, self.say = study, session, say or (lambda text: None)
        self.stop = study.stop
        self.arms = [a.name for a in study.arms]
        self.streams = self.stop.streams(self.arms)
        self.monitor = Monitor(self.stop, [s[0] for s in self.streams], study.batch_size,
                               [study.arm(arms[0]).players if study.arm(arms[0]).rotate else 1
                                for _, _, arms in self.streams])
        self.landed: dict[int, set] = {}
        self.fed: set[int] = set()
        self.luck_fits: dict = {}  # stream_values' luck coefficients, fitted on batch 0

    def _read(self, index: int) -> dict:
        import polars as pl
        import pyarrow.parquet as pq

        needed = {a for _, _, arms in self.streams for a in arms}
        frames = {}
        for arm in needed:
            rel = f"{arm}/batch-{index:06d}.parquet"
            with self.session.directory.fs.open_input_file(self.session.directory.path(rel)) as f:
                frames[arm] = pl.from_arrow(pq.read_table(f))
        return frames

    def feed(self, index: int) -> None:
        if index in self.fed or index < self.monitor.consumed:
            return
        self.fed.add(index)
        looks = self.monitor.add(index, stream_values(self._read(index), self.study, self.streams, self.luck_fits))
        if looks:
            widest = looks[-1].widest()
            self.session.bar.set_postfix_str(
                f"half-width {widest.half_width:.4g} (target {self.stop.half_width:g})", refresh=True)

    def landed_batch(self, batch) -> bool:
        """Session.play's on_batch: a batch file is written; True once the target is reached."""
        arms = self.landed.setdefault(batch.index, set())
        arms.add(batch.arm)
        if len(arms) == len(self.arms):
            self.feed(batch.index)
        return self.monitor.reached is not None

    def feed_stored(self, upto: int) -> None:
        """The batches an earlier run stored, in plan order, up to batch index ``upto`` (exclusive)."""
        for index in range(self.monitor.consumed, upto):
            if all(f"{a}/batch-{index:06d}.parquet" in self.session.done for a in self.arms):
                self.feed(index)
                if self.monitor.reached is not None:
                    return
            else:
                return


def run_stopping(study, session, say=None) -> dict:
    """Play ``study`` (which has a stop) through ``session`` until the target or the cap; returns the
    ``stopped`` record written to study.json. The games an earlier run stopped at are kept whatever the
    new target says; batches of a run that was cut off before it stopped are looked at again in plan
    order, and those past the new stopping look removed, as if that run had not been cut off."""
    stop, bs = study.stop, study.batch_size
    pilot_b, cap_b = stop.batches(bs)
    stopped = (session.directory.read_manifest() or {}).get("stopped") or {}
    kept_b = int(stopped.get("games") or 0) // bs
    stopper = Stopper(study, session, say)
    monitor = stopper.monitor
    directory = session.directory
    say = stopper.say

    def grow(batches: int):
        return replace(study, games=max(batches, kept_b) * bs)

    planned = max(pilot_b, min(kept_b, cap_b))
    stopper.feed_stored(planned)
    first_round = True
    while True:
        if monitor.reached is None and monitor.consumed < planned:
            directory.update_manifest(grow(planned))  # study.json plans what is played so far
            # the batches are written as parts of the study at its cap, so a batch file's bytes do not
            # depend on the round that played it (its metadata's head names the study's games)
            session.play(grow(cap_b), {a: planned * bs for a in stopper.arms}, interleave=True,
                         on_batch=stopper.landed_batch)
            stopper.feed_stored(planned)
        if first_round and monitor.looks:
            first_round = False
            look = monitor.looks[0]
            unit = "deals" if max(monitor.per_unit) > 1 else "games"  # a rotated arm's values are its deals
            say(f"pilot: {look.games:,} games per arm; rho^2 tuned for {monitor.t_opt:,.0f} {unit}; widest "
                f"half-width {look.widest().half_width:.4g} (target {stop.half_width:g})")
        if monitor.reached is not None or monitor.consumed >= cap_b:
            break
        if monitor.consumed < planned:  # a batch is missing after play: cannot happen unless removed
            raise RuntimeError(f"batch {monitor.consumed} did not land; rerun to resume")
        need = monitor.predicted_games()
        planned = min(cap_b, max(monitor.consumed + 1, math.ceil(need * GROWTH / bs)))
        look = monitor.looks[-1]
        say(f"look at {look.games:,} games per arm: widest half-width {look.widest().half_width:.4g} "
            f"(target {stop.half_width:g}); playing to {planned * bs:,}")

    reached = monitor.reached
    final_b = max(reached.batches if reached else monitor.consumed, kept_b)
    stopper.feed_stored(final_b)  # an earlier run kept more: its games stay, and are looked at
    final_b = max(min(final_b, monitor.consumed), kept_b)
    removed = _remove_beyond(session, stopper.arms, final_b)
    if removed:
        say(f"removed {removed} batch file(s) played past the stopping look")
    last = next((lk for lk in reversed(monitor.looks) if lk.batches == final_b), monitor.looks[-1])
    record = {
        "reason": "half_width" if reached else "max_games",
        "games": final_b * bs,
        "reached_at": reached.games if reached else None,
        "target": stop.half_width,
        "confidence": stop.confidence,
        "half_width": max(i.half_width for i in last.intervals),
        "intervals": [_games_and_deals(i.to_dict(), u) for i, u in zip(last.intervals, monitor.per_unit)],
        "looks": sum(1 for lk in monitor.looks if lk.batches <= final_b),
        "pilot": pilot_b * bs,
        "rho2": monitor.rho2,
        "t_opt": monitor.t_opt,
        "method": "asymptotic confidence sequence (Robbins normal mixture), batches in plan order"
                  + ("; luck of the draw regressed out (coefficients fitted on batch 0)"
                     if any(b is not None for b in stopper.luck_fits.values()) else ""),
        "stopped": datetime.now(timezone.utc).isoformat(timespec="seconds"),
    }
    directory.update_manifest(grow(final_b), stopped=record)
    why = (f"reached the target at {reached.games:,} games per arm" if reached
           else f"hit max_games ({cap_b * bs:,} per arm) before the target")
    say(f"stopped: {why}; widest half-width {record['half_width']:.4g} (target {stop.half_width:g}) "
        f"on {final_b * bs:,} games per arm")
    for i in last.intervals:
        say(f"  {i.name}: {i.value:+.4g} +- {i.half_width:.4g}")
    return record


def _games_and_deals(interval: dict, per_unit: int) -> dict:
    """An interval's record: a rotated arm's values are deals, recorded as such beside their games."""
    if per_unit == 1:
        return interval
    return interval | {"games": interval["games"] * per_unit, "deals": interval["games"]}


def _remove_beyond(session, arms, final_b: int) -> int:
    """Batches past the stopping look (in flight when it was reached, or played by a run cut off before
    it stopped): removed, so the dataset is exactly the games the decision used. Returns how many."""
    from pipelines import integrity

    removed = 0
    for rel in sorted(session.done):
        arm, name = rel.split("/")
        if arm in arms and int(name.split('-')[1].split('.')[0]) >= final_b:
            session.directory._delete(integrity.record_relpath(rel))
            session.directory._delete(rel)
            session.done.discard(rel)
            removed += 1
    return removed


# -- before a study: how many games? -----------------------------------------------------------------------
PLAN_PILOT = 5_000  # games per arm `kaartlab plan` plays (in this process; nothing is written)
POWER_TESTS = 1  # the level the plan's power figures use: one test at 5% (the report corrects for all its claims)


def _frames(study, pilot: int) -> dict:
    """Each arm's first ``pilot`` games, played in this process and kept in memory only."""
    import polars as pl

    return {a.name: pl.from_arrow(a.info.runner().play_batch(a, study.seed, 0, pilot)) for a in study.arms}


def _whole_batches(games: int, batch_size: int) -> int:
    return max(1, -(-int(games) // batch_size)) * batch_size


def plan_study(study, pilot: int = PLAN_PILOT, workers: int | None = None) -> list[str]:
    """What `kaartlab plan FILE` prints: per question of the study (and its [stop] table), the games per
    arm it needs and the time they take on this machine, from a pilot of every arm."""
    from reports.measures import lookup
    from reports.stats import games_for_edge
    from sim.estimate import duration, estimate
    from sim.stopping import fixed_games_for, games_for

    pilot = max(2, min(pilot, study.stop.max_games if study.stop else pilot))
    frames = _frames(study, pilot)
    cost = estimate(study, {a.name: 10 * pilot for a in study.arms}, workers, 10**6)
    edge = dict(study.report).get("edge", 0.01)
    bs = study.batch_size
    cap = study.stop.max_games if study.stop else None
    lines = [f"plan for study {study.name!r}: a pilot of {pilot:,} games per arm (seed {study.seed}), "
             f"measured now on this machine ({cost.workers or '?'} worker(s))"]

    def sd(arm: str, measure: str, other: str | None = None, luck: bool = False) -> float:
        """Per game; for an arm that rotates its seats, the sd of a deal's mean times sqrt(players): the
        sd that gives the games needed directly. With `luck`, the luck of the draw regressed out where
        the arms measure it (cross-fitted on the pilot), as a stop takes it."""
        a = study.arm(arm)
        names = [other, arm] if other is not None else [arm]
        (x,) = stream_values(frames, study, [("sd", measure, names)], fits={} if luck else None)
        per = math.sqrt(a.players) if a.rotate else 1.0
        return float(np.std(x, ddof=1)) * per if x.size > 1 else math.nan

    def timing(games: int, arms, batches: bool) -> str:
        """A stop looks at batch boundaries, so it plays whole batches; a study's games may be any number."""
        games = _whole_batches(min(games, cap), bs) if batches else int(games)
        seconds = cost.seconds_for({a: games for a in arms})
        when = "" if seconds is None else (", under 0.1 s of play" if seconds < 0.1
                                           else f", about {duration(seconds)} of play")
        where = f" in batches of {bs:,}" if batches else ""
        return f"{games:,} games per arm{where} ({games * len(arms):,} games{when})"

    if study.stop is not None:
        stop = study.stop
        lucky = " with the luck of the draw regressed out" if all(a.luck for a in study.arms) else ""
        lines.append(f"[stop] {', '.join(stop.measures)} to +-{stop.half_width:g} ({stop.confidence:.0%} confidence "
                     f"sequences{lucky}), at most {stop.max_games:,} games per arm:")
        need = 0
        for name, measure, arms in stop.streams([a.name for a in study.arms]):
            s = sd(arms[-1], measure, arms[0] if len(arms) == 2 else None, luck=True)
            if not (math.isfinite(s) and s > 0):
                lines.append(f"  {name}: does not vary in the pilot (the first look settles it)")
                continue
            n = games_for(stop.half_width, s, stop.alpha)
            need = max(need, n)
            lines.append(f"  {name}: sd {s:.4g} per game -> {n:,} games (a fixed-n interval looked at once: "
                         f"{fixed_games_for(stop.half_width, s, stop.alpha):,})")
        capped = " (the cap: the target is out of reach)" if need > stop.max_games else ""
        lines.append(f"  stops at about {timing(need, [a.name for a in study.arms], True)}{capped}")

    questions = list(study.questions)
    if not questions:
        from sim.questions import Question

        questions = [Question("fairness")]
        lines.append("no [[question]] tables: seat 0's edge in every arm (the report infers its questions "
                     "from the design)")
    for number, q in enumerate(questions, 1):
        title = f" ({q.title})" if q.title else ""
        if q.kind in ("fairness", "compare"):
            arms = list(q.arms) or [a.name for a in study.arms]
            paired = q.kind == "compare"
            measures = [m for m in (q.measures or (("seat0_edge",) if not paired else
                                                   ("seat0_edge", "turns", "rounds")))
                        if m not in ("balance", "seat_share")] or ["seat0_edge"]
            head = (f"question {number}: {q.kind}{title}: an edge of {100 * edge:g} point{'' if edge == 0.01 else 's'} "
                    f"(report.edge) found "
                    f"with 80% power at 5% for one test" + (", paired game by game" if paired else ""))
            lines.append(head)
            need = 0
            for measure in measures:
                kind = lookup(study.arm(arms[0]).game, measure).kind
                targets = [(f"{arms[1]} - {arms[0]}", sd(arms[1], measure, arms[0]))] if paired else \
                    [(arm, sd(arm, measure)) for arm in arms]
                for who, s in targets:
                    if kind == "share":
                        n = int(games_for_edge(edge, s, tests=POWER_TESTS)) if math.isfinite(s) and s > 0 else 1
                        need = max(need, n)
                        lines.append(f"  {who} {measure}: sd {s:.4g} per game -> {n:,} games")
                    else:
                        lines.append(f"  {who} {measure}: sd {s:.4g} per game (not a share: report.edge does "
                                     "not apply; see the detectable change in the report)")
            if need:
                lines.append(f"  needs {timing(need, arms, False)}")
            lines.append("  (the report tests at 5% divided by its number of claims, so it needs more games "
                         "for the same power)")
        else:
            lines.append(f"question {number}: {q.kind}{title}: not estimated (its precision depends on the "
                         "spread of the players or the parameter; try `kaartlab study FILE --games N`)")
    return lines
