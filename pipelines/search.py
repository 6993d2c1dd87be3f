"""Run a study's ``[[search]]`` tables: Optuna proposes candidate settings, the pipeline plays them as
ordinary arms, racing gives the close ones more games, and the best setting is re-played on games no
candidate played.

Round by round (``parallel`` candidates a round): ask the optimiser for settings; a setting already
evaluated is told its value again without playing; each new one becomes an arm ``<search>-NNN`` that
plays games 0..games-1 (the same deals for every candidate: docs/pairing.md). Racing then doubles the
games of every candidate whose decision is close (sim/search.close_calls: its interval reaches the
incumbent's, or a constraint is still open) until none is or they reach max_games; a candidate's games
grow by whole batch files, never replacing one. The round's values are then told to the optimiser.
At the end the best setting (or, with two objectives, each member of the front, up to five) is played
again as ``<search>-best`` on games max_games.. max_games+final_games-1, which no candidate played,
so its reported value is not the luckiest of many looks.

Resuming needs no state of its own: every decision is a function of stored rows (read in game order,
so the numbers are the same bit for bit) and of a sampler seeded from the study's seed, so a rerun
proposes the same candidates and finds their batches done. study.json records every candidate (its
arm, games and first game: the study's arms) and every proposal with the value told, and a rerun
checks each proposal against that record: an optimiser that proposes differently (another Optuna
version) is refused rather than mixed.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass, field, replace

from sim.errors import SpecError
from sim.search import (MAX_FRONT, Evaluation, Extent, SearchSpec, best, close_calls, evaluation, front)

ASKS_PER_TRIAL = 20  # proposals per candidate before a search of a small space stops asking
PROBE_GAMES = 200  # games that must be the very same rows for a parameter to 'change nothing' at the result
VIOLATION_CAP = 1e9  # what the optimiser is told for a constraint that cannot be measured


def _optuna():
    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    return optuna


def distributions(spec: SearchSpec) -> dict:
    optuna = _optuna()
    out = {}
    for dim in spec.vary:
        if dim.kind == "choice":
            out[dim.key] = optuna.distributions.CategoricalDistribution(list(dim.choices))
        elif dim.kind == "int":
            out[dim.key] = optuna.distributions.IntDistribution(dim.low, dim.high, step=dim.step or 1, log=dim.log)
        else:
            out[dim.key] = optuna.distributions.FloatDistribution(dim.low, dim.high, step=dim.step, log=dim.log)
    return out


def make_sampler(spec: SearchSpec, study_seed: int):
    optuna = _optuna()
    seed = spec.sampler_seed(study_seed)
    if spec.sampler == "random":
        return optuna.samplers.RandomSampler(seed=seed)
    startup = max(4, min(10, spec.trials // 3))
    return optuna.samplers.TPESampler(seed=seed, n_startup_trials=startup, multivariate=True)


def _key(params: dict) -> str:
    return json.dumps(params, sort_keys=True)


@dataclass
class Candidate:
    arm: str
    params: dict
    games: int
    number: int  # 1, 2, ...
    evaluation: Evaluation | None = None


@dataclass
class Outcome:
    """What a search ended with: every candidate, the proposals in order, the re-played setting(s)."""

    spec: SearchSpec
    candidates: list[Candidate]
    trials: list[dict]
    finals: list[dict] = field(default_factory=list)  # {"arm", "from", "params"}
    feasible: bool = True

    def state(self, finished: bool) -> dict:
        return {"trials": self.trials, "candidates": {c.arm: {"params": c.params, "games": c.games}
                                                      for c in self.candidates},
                "final": self.finals, "feasible": self.feasible, "finished": finished}


class Engine:
    """The optimiser and racing, over a backend that plays and measures arms:
    ``backend.play(items)`` with items (arm name, params, games, first, role) makes sure each arm has
    played its first `games` games; ``backend.levels(arm, first, games)`` measures those games;
    ``backend.record(state)`` keeps the search's progress; ``backend.recorded()`` is what a previous
    run recorded (or None)."""

    def __init__(self, spec: SearchSpec, seed: int, backend):
        self.spec, self.seed, self.backend = spec, seed, backend
        optuna = _optuna()
        self.optuna = optuna.create_study(directions=["minimize"] * len(spec.objectives),
                                          sampler=make_sampler(spec, seed))
        self.distributions = distributions(spec)
        self.candidates: dict[str, Candidate] = {}  # by settings key
        self.trials: list[dict] = []
        recorded = backend.recorded() or {}
        self.recorded_trials = {t.get("trial"): t for t in recorded.get("trials") or []}
        self.recorded_finals = list(recorded.get("final") or [])

    # -- measuring -------------------------------------------------------------------------------
    def _evaluate(self, cand: Candidate) -> Evaluation:
        if cand.evaluation is None or cand.evaluation.games != cand.games:
            levels = self.backend.levels(cand.arm, 0, cand.games)
            cand.evaluation = evaluation(self.spec, cand.arm, cand.games, levels)
        return cand.evaluation

    def _play(self, cands: list[Candidate]) -> None:
        if cands:
            self.backend.play([(c.arm, c.params, c.games, 0, "candidate") for c in cands])

    # -- the optimiser ---------------------------------------------------------------------------
    def _tell(self, trial, cand: Candidate, new: bool, round_: int) -> None:
        optuna = _optuna()
        e = self._evaluate(cand)
        values = [x.value for x in e.losses]
        entry = {"trial": trial.number, "arm": cand.arm, "params": cand.params, "new": new, "round": round_,
                 "games": e.games, "losses": values, "violations": list(e.violations)}
        for i, v in enumerate(e.violations):
            trial.set_constraint(f"c{i}", v if math.isfinite(v) else VIOLATION_CAP)
        if all(math.isfinite(v) for v in values):
            self.optuna.tell(trial, values if len(values) > 1 else values[0])
        else:
            self.optuna.tell(trial, state=optuna.trial.TrialState.FAIL)
        self.trials.append(json.loads(json.dumps(entry, default=float)))

    def _check_recorded(self, number: int, arm: str, params: dict) -> None:
        was = self.recorded_trials.get(number)
        if was is None:
            return
        if was.get("arm") != arm or was.get("params") != json.loads(json.dumps(params)):
            raise SpecError(
                f"search {self.spec.name!r}: proposal {number + 1} is now {arm} {_show(params)}, but this "
                f"directory's run proposed {was.get('arm')} {_show(was.get('params') or {})}: the optimiser no "
                "longer proposes what it did (another Optuna version?), so this search cannot be resumed "
                "here; choose a new --out")

    def run(self) -> Outcome:
        spec = self.spec
        space = spec.space_size()
        limit = min(spec.trials, space) if math.isfinite(space) else spec.trials
        most = ASKS_PER_TRIAL * spec.trials
        asks = 0
        round_ = 0
        while len(self.candidates) < limit and asks < most:
            round_ += 1
            fresh: list[Candidate] = []
            pending = []  # proposals of this round's new candidates: told once they are measured
            while len(fresh) < spec.parallel and len(self.candidates) + len(fresh) < limit and asks < most:
                trial = self.optuna.ask(self.distributions)
                asks += 1
                params = {dim.key: _plain(trial.params[dim.key], dim) for dim in spec.vary}
                key = _key(params)
                known = self.candidates.get(key) or next((c for c in fresh if _key(c.params) == key), None)
                if known is None:
                    number = len(self.candidates) + len(fresh) + 1
                    known = Candidate(spec.arm_name(number), params, spec.games, number)
                    fresh.append(known)
                self._check_recorded(trial.number, known.arm, params)
                if known in fresh:
                    pending.append((trial, known))
                else:  # evaluated in an earlier round: told its value again, nothing played
                    self._tell(trial, known, False, round_)
            if not fresh:
                continue
            self._play(fresh)
            for cand in fresh:
                self.candidates[_key(cand.params)] = cand
            self._race(fresh)
            told = set()
            for trial, cand in pending:
                self._tell(trial, cand, cand.arm not in told, round_)
                told.add(cand.arm)
            self.backend.record(self.outcome().state(False))
        outcome = self.outcome()
        self._final(outcome)
        self.backend.record(outcome.state(True))
        return outcome

    def _race(self, fresh: list[Candidate]) -> None:
        """Double the games of every close candidate (sim/search.close_calls) until none is."""
        spec = self.spec
        while True:
            evals = [self._evaluate(c) for c in self.candidates.values()]
            more = close_calls(evals, [c.arm for c in fresh], spec.max_games)
            if not more:
                return
            by_arm = {c.arm: c for c in self.candidates.values()}
            grown = []
            for arm in more:
                cand = by_arm[arm]
                cand.games = min(2 * cand.games, spec.max_games)
                grown.append(cand)
            self._play(grown)

    def outcome(self) -> Outcome:
        cands = sorted(self.candidates.values(), key=lambda c: c.number)
        return Outcome(self.spec, cands, list(self.trials))

    def _final(self, outcome: Outcome) -> None:
        spec = self.spec
        evals = [self._evaluate(c) for c in outcome.candidates]
        by_arm = {c.arm: c for c in outcome.candidates}
        if not evals:
            return
        if len(spec.objectives) == 1:
            top = best(evals)
            chosen = [top] if top is not None else []
        else:
            chosen = _spread(front(evals), MAX_FRONT)
        if not chosen:  # no candidate within the constraints: re-play the one closest to them
            outcome.feasible = False
            chosen = [min(evals, key=lambda e: (e.excess, tuple(x.value for x in e.losses)))]
        outcome.finals = [{"arm": name, "from": e.arm, "params": by_arm[e.arm].params}
                          for name, e in zip(spec.final_names, chosen)]
        for k, final in enumerate(outcome.finals):
            if k < len(self.recorded_finals) and self.recorded_finals[k].get("from") not in (None, final["from"]):
                raise SpecError(f"search {spec.name!r}: the best setting is now {final['from']}, but this "
                                f"directory's run chose {self.recorded_finals[k]['from']}: choose a new --out")
        self.backend.play([(f["arm"], f["params"], spec.final_games, spec.fresh_first, "final")
                           for f in outcome.finals])
        for final in outcome.finals:
            final["indifferent"] = self._indifferent(final["params"])

    def _indifferent(self, params: dict) -> dict:
        """The varied parameters that change no game at this setting: moved to each end of its range
        (or to every other value of a list, at most three), the first PROBE_GAMES games are the very
        same rows. {parameter: the values tried}. The probe's games are compared, not kept."""
        out = {}
        for dim in self.spec.vary:
            here = params[dim.key]
            others = [v for v in ((dim.low, dim.high) if dim.kind != "choice" else dim.choices) if v != here][:3]
            if others and all(self.backend.same_games(params, {**params, dim.key: v}, PROBE_GAMES) for v in others):
                out[dim.key] = others
        return out


def _spread(items: list, most: int) -> list:
    """At most `most` items, evenly spread over the list (its ends kept)."""
    if len(items) <= most:
        return items
    picks = sorted({round(i * (len(items) - 1) / (most - 1)) for i in range(most)})
    return [items[i] for i in picks]


def _plain(value, dim):
    """An Optuna value as the parameter's own type (numpy scalars become Python numbers); a fraction
    rounded to the resolution the search works at: a range without a step to a thousandth of its
    width (a log range to four significant digits), a range with a step to the step's decimals."""
    if hasattr(value, "item"):
        value = value.item()
    if dim.kind != "float" or not isinstance(value, float):
        return value
    if dim.log:
        return float(f"{value:.4g}")
    if dim.step is not None:
        return round(value, max(_decimals(dim.step), _decimals(dim.low)))
    return round(value, max(0, 3 - math.floor(math.log10(dim.high - dim.low))))


def _decimals(x: float) -> int:
    text = repr(float(x))
    return 0 if "e" in text else len(text.split(".")[1].rstrip("0"))


def _show(params: dict) -> str:
    return "(" + ", ".join(f"{k}={v}" for k, v in params.items()) + ")"


# -- the pipeline as the engine's backend -----------------------------------------------------------------
class PipelineBackend:
    """Plays a search's arms through a run's Session (pipelines/run.py) and measures them from their
    batch files; keeps the study (grown by the search's arms) and study.json up to date."""

    def __init__(self, runner, spec: SearchSpec, recorded: dict | None):
        self.runner, self.spec, self._recorded = runner, spec, recorded

    def recorded(self):
        return self._recorded

    def play(self, items) -> None:
        self.runner.play_search_arms(self.spec, items)

    def levels(self, arm: str, first: int, games: int) -> dict:
        return self.runner.levels(arm, first, games, self.spec.measures())

    def record(self, state: dict) -> None:
        self.runner.record(self.spec.name, state)

    def same_games(self, a: dict, b: dict, games: int) -> bool:
        return self.runner.same_games(self.spec, a, b, games)


class SearchRunner:
    """What run_study hands the searches: the session, the growing study, the manifest's record."""

    def __init__(self, study, session, manifest: dict | None):
        self.study = study
        self.session = session
        self.directory = session.directory
        manifest = manifest or {}
        self.states: dict = dict(manifest.get("searches") or {})
        recorded_arms = {a["name"]: a for a in (manifest.get("study") or {}).get("arms", []) if "search" in a}
        self.recorded_extents = {n: Extent.from_arm_dict(a) for n, a in recorded_arms.items()}
        self.recorded_arms = recorded_arms

    def play_search_arms(self, spec: SearchSpec, items) -> None:
        """Add or grow the search's arms (never shrinking what study.json records), write study.json,
        then play what is missing of each arm's first `games` games."""
        arms = {a.name: a for a in self.study.arms}
        extents = {e.arm: e for e in self.study.extents}
        upto = {}
        for name, params, games, first, role in items:
            arm = spec.arm(name, params)
            if name in arms and arms[name] != arm:
                raise SpecError(f"search {spec.name!r}: arm {name} is recorded with other settings")
            was = self.recorded_arms.get(name)
            if was is not None:
                mine = {k: v for k, v in arm.to_dict().items()}
                theirs = {k: v for k, v in was.items() if k in mine}
                if json.dumps(mine, sort_keys=True) != json.dumps(theirs, sort_keys=True):
                    raise SpecError(f"search {spec.name!r}: arm {name} in this directory has other settings than "
                                    "the search now proposes for it: choose a new --out")
            batch = spec.candidate_batch(self.study.batch_size) if role == "candidate" else self.study.batch_size
            planned = max(games, extents[name].games if name in extents else 0,
                          self.recorded_extents[name].games if name in self.recorded_extents else 0)
            arms[name] = arm
            extents[name] = Extent(name, planned, first, batch, spec.name, role)
            upto[name] = games
        self.study = replace(self.study, arms=tuple(arms.values()), extents=tuple(extents.values()))
        self.directory.update_manifest(self.study, self.states or None)
        self.session.play(self.study, upto)

    def levels(self, arm: str, first: int, games: int, measures) -> dict:
        """The measures on games first..first+games-1 of a search arm, from its verified batch files."""
        import polars as pl
        import pyarrow.parquet as pq

        from reports.dataset import Arm
        from reports.search import levels

        spec_arm = self.study.arm(arm)
        extent = next(e for e in self.study.extents if e.arm == arm)
        tables = []
        for index in range(-(-games // extent.batch_size)):
            rel = f"{arm}/batch-{index:06d}.parquet"
            with self.directory.fs.open_input_file(self.directory.path(rel)) as f:
                tables.append(pq.read_table(f))
        import pyarrow as pa

        frame = pl.from_arrow(pa.concat_tables(tables)).filter(pl.col("game") < first + games)
        d = spec_arm.to_dict()
        meta = Arm(name=arm, game=spec_arm.game, players=spec_arm.players, rules=d["rules"],
                   policies=tuple(d["policies"]), deck=d["data"] or None, game_version=d["game_version"],
                   seat_params=tuple((s["policy"], dict(s["params"])) for s in d["seats"]), first=first,
                   search=self.study.name)
        return levels(frame, meta, measures)

    def same_games(self, spec: SearchSpec, a: dict, b: dict, games: int) -> bool:
        """Do two settings play the very same first games (every column but the arm's name)? Played in
        this process, compared, and dropped."""
        tables = []
        for params in (a, b):
            arm = spec.arm(spec.name, params)
            table = arm.info.runner().play_batch(arm, self.study.seed, 0, games)
            tables.append(table.drop_columns(["arm"]).replace_schema_metadata(None))
        return tables[0].equals(tables[1])

    def record(self, name: str, state: dict) -> None:
        self.states[name] = state
        self.directory.update_manifest(self.study, self.states)


def budget(study, manifest: dict | None) -> dict[str, int]:
    """Games the searches will play at least (their candidates' first looks and the re-play), less
    what their arms have already played, per search: the progress bar's and the estimate's figure."""
    done = {}
    for a in (manifest or {}).get("study", {}).get("arms", []):
        if "search" in a:
            done[a["search"]] = done.get(a["search"], 0) + a.get("games", 0)
    out = {}
    for spec in study.searches:
        total = spec.trials * spec.games + spec.final_games * (1 if len(spec.objectives) == 1 else MAX_FRONT)
        out[f"{spec.name}-base"] = max(0, total - done.get(spec.name, 0))
    return out


def run_searches(study, session, announce: dict | None = None) -> list[Outcome]:
    """Every search of the study, one after the other, through the run's session."""
    manifest = session.directory.read_manifest()
    runner = SearchRunner(study, session, manifest)
    if announce and sum(announce.values()) and session.before_play is not None:
        at_once = sum(s.parallel * -(-s.games // s.candidate_batch(study.batch_size)) for s in study.searches)
        session.before_play(announce, at_once)  # the batches a round plays at once
        session.before_play = None
    outcomes = []
    for spec in study.searches:
        backend = PipelineBackend(runner, spec, runner.states.get(spec.name))
        outcomes.append(Engine(spec, study.seed, backend).run())
    return outcomes


def preview(study):
    """The study with one arm per search at its base settings, named as the estimate names a search's
    games (``<search>-base``): what the CLI times before the study plays."""
    extra = tuple(replace(s.base, name=f"{s.name}-base") for s in study.searches)
    return replace(study, arms=tuple(study.arms) + extra)
