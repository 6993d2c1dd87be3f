"""[[search]]: the table's validation, the rules that decide on the numbers (losses, constraints, close
calls, the front), the optimiser with racing on a constructed objective, and whole searches on the
toy game (tests/toy), whose mean score per seat is planted: s(tricks) x (1 + double_chance), exactly.
"""
from __future__ import annotations

import hashlib
import json
import math

import polars as pl
import pytest

from pipelines.run import run_study
from pipelines.search import Engine
from sim.errors import SpecError
from sim.search import Level, close_calls, evaluation, front, loss, status
from sim.spec import StudySpec

S2 = 0.5823  # the toy's mean score per seat at tricks = 2, double_chance = 0 (400,000 games)
OPTIMUM = 0.9 / S2 - 1  # double_chance that brings it to 0.9


def search_table(**over) -> dict:
    table = {"name": "fit", "game": "toy", "players": 4, "policy": "greedy",
             "vary": {"tricks": {"from": 1, "to": 6}, "double_chance": {"from": 0.0, "to": 1.0}},
             "objective": {"measure": "score", "target": 0.9},
             "constraints": [{"measure": "turns", "at_most": 8}],
             "trials": 30, "games": 500, "max_games": 4000, "final_games": 4000}
    table.update(over)
    return {k: v for k, v in table.items() if v is not None}


def study(seed=1, batch_size=1000, arms=(), **over) -> StudySpec:
    data = {"name": "s", "seed": seed, "batch_size": batch_size, "search": [search_table(**over)]}
    if arms:
        data["arm"] = list(arms)
    return StudySpec.from_dict(data)


# -- the table ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("over, message", [
    ({"trails": 3}, "search 'fit': unknown key 'trails'"),
    ({"vary": {"tricks": {"from": 1, "to": 20}}}, "vary tricks: .*out of range 1..10"),
    ({"vary": {"tricks": {"from": 4, "to": 2}}}, "from=4 must be below to=2"),
    ({"vary": {"tricks": {"from": 1, "upto": 2}}}, "vary tricks: unknown key 'upto'"),
    ({"vary": {"lowest_wins": {"from": 0, "to": 1}}}, "lowest_wins is true/false, not a number: give a list"),
    ({"vary": {"ties": ["share", "share"]}}, "vary ties: a value is given twice"),
    ({"vary": {"nonsense": [1, 2]}}, "toy has no rule or player parameter 'nonsense'"),
    ({"vary": {"tricks": {"from": 1, "to": "6"}}}, "expected a whole number"),
    ({"objective": {"measure": "lenght", "goal": "minimise"}}, "toy has no measure 'lenght'"),
    ({"objective": {"measure": "seat_share", "goal": "maximise"}}, "seat_share is every seat's win share"),
    ({"objective": {"measure": "balance", "goal": "maximise", "target": 1.0}}, "either goal"),
    ({"objective": {"measure": "balance", "goal": "best"}}, "goal='best'"),
    ({"objective": [{"measure": "balance", "goal": "maximise"}] * 3}, "a list of 2"),
    ({"constraints": [{"measure": "turns"}]}, "needs at_most = VALUE or at_least"),
    ({"constraints": [{"measure": "turns", "at_most": "8"}]}, "at_most='8': expected a number"),
    ({"constraints": [{"measure": "turns", "at_most": 4, "at_least": 9}]}, "at_least=9 is above at_most=4"),
    ({"max_games": 3000, "games": 2000}, "max_games=3,000 must be a multiple of games=2,000"),
    ({"games": 0}, "games=0: expected 1"),
    ({"trials": True}, "trials=True: expected a whole number"),
    ({"sampler": "grid"}, "sampler='grid'"),
    ({"players": 9}, "players=9"),
])
def test_a_wrong_search_table_is_one_error_naming_the_key(over, message):
    with pytest.raises(SpecError, match=message):
        study(**over)


def test_a_search_may_not_share_its_arms_names():
    with pytest.raises(SpecError, match="arm 'fit-003' takes a name of this search's arms"):
        study(arms=[{"name": "fit-003", "game": "toy", "players": 4}])


def test_the_fingerprint_covers_the_search_not_its_proposals():
    from dataclasses import replace

    from sim.search import Extent

    s = study()
    spec = s.searches[0]
    grown = replace(s, arms=(spec.arm("fit-001", {"tricks": 2, "double_chance": 0.5}),),
                    extents=(Extent("fit-001", 500, 0, 500, "fit"),))
    assert grown.fingerprint() == s.fingerprint()
    assert grown.to_dict()["arms"][0]["games"] == 500 and grown.to_dict()["arms"][0]["search"] == "fit"
    assert study(trials=31).fingerprint() != s.fingerprint()
    assert study(seed=2).fingerprint() != s.fingerprint()
    assert study(constraints=[{"measure": "turns", "at_most": 12}]).fingerprint() != s.fingerprint()


def test_a_player_parameter_is_varied_at_every_seat_that_has_it():
    s = study(policy=["greedy", "random", "greedy", "random"],
              vary={"bluff": {"from": 0.0, "to": 0.5}, "tricks": [2, 3]})
    arm = s.searches[0].arm("fit-001", {"bluff": 0.25, "tricks": 3})
    assert [dict(seat.params).get("bluff") for seat in arm.seats] == [0.25, None, 0.25, None]
    assert arm.rule_values["tricks"] == 3
    assert s.searches[0].params_of(arm) == {"bluff": 0.25, "tricks": 3}


# -- the rules that decide ------------------------------------------------------------------------------
def test_losses_and_constraint_states():
    spec = study().searches[0]
    target, = spec.objectives
    assert loss(target, Level(0.95, 0.93, 0.97)).value == pytest.approx(0.05)
    assert loss(target, Level(0.95, 0.85, 0.97)).lo == 0.0  # the target lies inside: may be hit exactly
    assert loss(target, Level(0.95, 0.93, 0.97)).lo == pytest.approx(0.03)
    bigger = study(objective={"measure": "balance", "goal": "maximise"}).searches[0].objectives[0]
    assert loss(bigger, Level(0.9, 0.8, 0.95)) == Level(-0.9, -0.95, -0.8)
    turns, = spec.constraints
    assert status(turns, Level(8.0, 8.0, 8.0)) == "met"
    assert status(turns, Level(7.9, 7.5, 8.3)) == "open"
    assert status(turns, Level(9.0, 8.5, 9.5)) == "broken"
    assert status(turns, Level(math.nan, -math.inf, math.inf)) == "open"


def _eval(spec, arm, score, half, turns=8.0, games=500):
    return evaluation(spec, arm, games, {"score": Level(score, score - half, score + half),
                                         "turns": Level(turns, turns, turns)})


def test_close_calls_race_the_candidates_that_may_beat_the_incumbent():
    spec = study().searches[0]
    inc = _eval(spec, "a", 0.90, 0.02)  # the best: loss 0.00 (0-0.02)
    close = _eval(spec, "b", 0.93, 0.02)  # loss 0.03 (0.01-0.05): may be the best
    far = _eval(spec, "c", 0.70, 0.02)  # loss 0.20 (0.18-0.22): clearly worse
    broken = _eval(spec, "d", 0.90, 0.02, turns=12.0)  # as good, but outside the constraint
    done = _eval(spec, "e", 0.91, 0.02, games=4000)  # close, but at max_games already
    evals = [inc, close, far, broken, done]
    assert close_calls(evals, ["b", "c", "d"], 4000) == ["b", "a"]
    assert close_calls(evals, ["c", "d"], 4000) == ["a"]  # e stays a rival of a
    assert close_calls([inc, far, broken], ["c", "d"], 4000) == []  # nobody can beat a: no more games
    open_ = evaluation(spec, "f", 500, {"score": Level(0.9, 0.88, 0.92), "turns": Level(8.0, 7.0, 9.0)})
    assert close_calls([far, open_], ["f"], 4000) == ["f"]  # may be the best, constraint undecided


def test_the_front_of_two_objectives():
    spec = study(objective=[{"measure": "balance", "goal": "maximise"}, {"measure": "turns", "goal": "minimise"}],
                 constraints=None).searches[0]

    def ev(arm, bal, turns, half=0.001):
        return evaluation(spec, arm, 500, {"balance": Level(bal, bal - half, bal + half),
                                           "turns": Level(turns, turns - half, turns + half)})

    evals = [ev("a", 0.9, 10), ev("b", 0.8, 5), ev("c", 0.7, 12), ev("d", 0.95, 20)]
    assert [e.arm for e in front(evals)] == ["d", "a", "b"]  # c is worse than a in both
    assert close_calls(evals, ["a", "b", "c", "d"], 4000) == []  # every call is clear
    near = ev("e", 0.899, 10.01, half=0.05)  # its intervals meet a's in both objectives
    assert "e" in close_calls(evals + [near], ["e"], 4000)


# -- the optimiser with racing, on a constructed objective ----------------------------------------------
class Constructed:
    """A backend whose 'games' are draws around a known surface: balance peaks at double_chance 0.7,
    tricks 4 (1 - (dc - 0.7)^2 - 0.01 (tricks - 4)^2); turns are 4 x tricks. Noise shrinks as
    1/sqrt(games) and is a fixed function of (arm, games)."""

    def __init__(self, spec, recorded=None):
        self.spec, self._recorded, self.state = spec, recorded, None
        self.played: dict[str, int] = {}
        self.plays: list[tuple[str, int]] = []
        self.params: dict[str, dict] = {}

    def recorded(self):
        return self._recorded

    def play(self, items):
        for arm, params, games, first, role in items:
            assert games > self.played.get(arm, 0), f"{arm} asked again for {games} games"
            self.played[arm] = games
            self.params[arm] = params
            self.plays.append((arm, games))

    def levels(self, arm, first, games):
        p = self.params[arm]
        true = 1 - (p["double_chance"] - 0.7) ** 2 - 0.01 * (p["tricks"] - 4) ** 2
        digest = hashlib.sha256(f"{arm}:{games}".encode()).digest()
        z = (int.from_bytes(digest[:4], "little") / 2**32 - 0.5) * 3.4  # within about +-1.7 sd
        half = 1.96 * 0.3 / math.sqrt(games)
        value = true + z * half / 1.96
        turns = 4.0 * p["tricks"]
        return {"balance": Level(value, value - half, value + half), "turns": Level(turns, turns, turns)}

    def record(self, state):
        self.state = state

    def same_games(self, a, b, games):
        return False


def constructed_spec(**over):
    return study(objective={"measure": "balance", "goal": "maximise"},
                 constraints=[{"measure": "turns", "at_most": 12}], **over).searches[0]


def test_the_optimiser_finds_a_planted_optimum_under_a_constraint():
    """Unconstrained the peak is at tricks 4; turns <= 12 allows tricks <= 3: the optimum is (3, 0.7)."""
    spec = constructed_spec()
    backend = Constructed(spec)
    outcome = Engine(spec, 7, backend).run()
    chosen = outcome.finals[0]["params"]
    assert chosen["tricks"] == 3 and abs(chosen["double_chance"] - 0.7) < 0.12
    assert backend.plays[-1] == ("fit-best", spec.final_games)
    assert len(outcome.candidates) == spec.trials == len({c.arm for c in outcome.candidates})
    # racing: some candidates got more than the first look, and the clearly worse ones did not
    games = {c.arm: c.games for c in outcome.candidates}
    assert max(games.values()) > spec.games and min(games.values()) == spec.games
    assert all(g in (500, 1000, 2000, 4000) for g in games.values())


def test_the_same_seed_proposes_the_same_candidates_and_another_seed_others():
    spec = constructed_spec(trials=12)
    one = Engine(spec, 7, Constructed(spec)).run()
    two = Engine(spec, 7, Constructed(spec)).run()
    other = Engine(spec, 8, Constructed(spec)).run()
    assert one.trials == two.trials
    assert [t["params"] for t in one.trials] != [t["params"] for t in other.trials]


def test_a_resumed_search_that_would_propose_otherwise_is_refused():
    spec = constructed_spec(trials=8)
    backend = Constructed(spec)
    Engine(spec, 7, backend).run()
    assert Engine(spec, 7, Constructed(spec, backend.state)).run().trials == backend.state["trials"]
    tampered = json.loads(json.dumps(backend.state))
    tampered["trials"][3]["params"]["double_chance"] += 0.01
    with pytest.raises(SpecError, match="no longer proposes what it did"):
        Engine(spec, 7, Constructed(spec, tampered)).run()


def test_a_small_grid_is_evaluated_once_per_setting():
    spec = constructed_spec(vary={"tricks": [2, 3], "double_chance": [0.0, 0.7]}, trials=30)
    outcome = Engine(spec, 7, Constructed(spec)).run()
    assert sorted((c.params["tricks"], c.params["double_chance"]) for c in outcome.candidates) == [
        (2, 0.0), (2, 0.7), (3, 0.0), (3, 0.7)]
    assert outcome.finals[0]["params"] == {"tricks": 3, "double_chance": 0.7}


# -- whole searches on the toy game ---------------------------------------------------------------------
def _files(out) -> dict:
    return {p.relative_to(out): p.stat().st_mtime_ns for p in out.rglob("batch-*")}


def test_a_search_finds_the_planted_optimum_and_replays_it_on_fresh_games(tmp_path):
    out = tmp_path / "d"
    s = study(seed=1)
    run_study(s, out, workers=0, progress=False)
    manifest = json.loads((out / "study.json").read_text())
    state = manifest["searches"]["fit"]
    final = state["final"][0]
    chosen = final["params"]
    true = S2 * (1 + chosen["double_chance"])
    assert chosen["tricks"] == 2 and abs(true - 0.9) < 0.03, chosen  # tricks 3 would break turns <= 8
    rows = pl.scan_parquet(f"{out}/*/batch-*.parquet").select("arm", "game").collect()
    candidates = rows.filter(pl.col("arm") != "fit-best")
    best = rows.filter(pl.col("arm") == "fit-best")["game"]
    assert candidates["game"].max() < 4000 <= best.min() and best.max() == 4000 + 4000 - 1
    assert best.n_unique() == 4000
    # study.json records every candidate: its arm, games and first game
    arms = {a["name"]: a for a in manifest["study"]["arms"]}
    assert set(state["candidates"]) <= set(arms) and arms["fit-best"]["first"] == 4000
    for name, cand in state["candidates"].items():
        assert arms[name]["games"] == cand["games"] == rows.filter(pl.col("arm") == name).height


def test_a_rerun_resumes_without_replaying_a_game(tmp_path):
    out = tmp_path / "d"
    s = study(seed=2, trials=10)
    first = run_study(s, out, workers=0, progress=False)
    manifest = (out / "study.json").read_text()
    before = _files(out)
    again = run_study(s, out, workers=0, progress=False)
    assert (again.batches_run, again.games_run) == (0, 0) and _files(out) == before
    # cut the run short: a candidate's last batch and a batch of the re-play are gone
    gone = [p for p in before if p.name.endswith(".parquet") and p.parts[0] in ("fit-002", "fit-best")]
    for rel in gone:
        (out / rel).unlink()
    third = run_study(s, out, workers=0, progress=False)
    assert third.batches_run == len(gone) and third.resumed
    after = _files(out)
    assert all(after[p] == before[p] for p in before if p not in gone and not p.name.endswith(".json"))
    assert json.loads((out / "study.json").read_text())["searches"] == json.loads(manifest)["searches"]
    assert first.games_run == sum(a.get("games", 0) for a in json.loads(manifest)["study"]["arms"])


def test_another_search_is_refused_in_a_search_directory(tmp_path):
    out = tmp_path / "d"
    run_study(study(trials=4), out, workers=0, progress=False)
    before = _files(out)
    with pytest.raises(SpecError, match="holds another study"):
        run_study(study(trials=5), out, workers=0, progress=False)
    assert _files(out) == before


def test_the_same_search_whatever_the_batch_size(tmp_path):
    a = run_study(study(trials=8, batch_size=1000), tmp_path / "a", workers=0, progress=False)
    b = run_study(study(trials=8, batch_size=200), tmp_path / "b", workers=0, progress=False)
    assert a.games_run == b.games_run
    ra = pl.scan_parquet(f"{tmp_path}/a/*/batch-*.parquet").sort("arm", "game").collect()
    rb = pl.scan_parquet(f"{tmp_path}/b/*/batch-*.parquet").sort("arm", "game").collect()
    assert ra.equals(rb)
    sa = json.loads((tmp_path / "a" / "study.json").read_text())["searches"]
    sb = json.loads((tmp_path / "b" / "study.json").read_text())["searches"]
    assert sa == sb


def test_a_search_plays_through_ray_as_in_process(tmp_path):
    ray = pytest.importorskip("ray")
    try:
        run_study(study(trials=6), tmp_path / "ray", workers=2, progress=False)
    finally:
        ray.shutdown()
    run_study(study(trials=6), tmp_path / "local", workers=0, progress=False)
    ra = pl.scan_parquet(f"{tmp_path}/ray/*/batch-*.parquet").sort("arm", "game").collect()
    rl = pl.scan_parquet(f"{tmp_path}/local/*/batch-*.parquet").sort("arm", "game").collect()
    assert ra.height > 0 and ra.equals(rl)


def test_a_search_beside_ordinary_arms_leaves_their_rows_alone(tmp_path):
    arm = {"name": "plain", "game": "toy", "players": 4, "policy": "greedy"}
    with_search = study(trials=4, arms=[arm])
    run_study(with_search, tmp_path / "a", workers=0, progress=False)
    alone = StudySpec.from_dict({"name": "s", "seed": 1, "batch_size": 1000, "arm": [arm]})
    run_study(alone, tmp_path / "b", workers=0, progress=False)
    ra = pl.read_parquet(f"{tmp_path}/a/plain/*.parquet")
    rb = pl.read_parquet(f"{tmp_path}/b/plain/*.parquet")
    assert ra.height == 10_000 and ra.equals(rb)


# -- the report -----------------------------------------------------------------------------------------
def test_the_report_opens_with_the_search_answer_and_keeps_candidates_out_of_the_generic_sections(
        tmp_path, monkeypatch):
    from reports import plots
    from reports.build import build_report

    monkeypatch.setenv(plots.STRICT_ENV, "1")  # a figure with text outside it or on other text fails

    out = tmp_path / "d"
    arm = {"name": "plain", "game": "toy", "players": 4, "policy": "greedy"}
    run_study(study(seed=1, trials=12, arms=[arm]), out, workers=0, progress=False)
    paths = build_report(out)
    summary = json.loads(paths["json"].read_text())
    first = summary["answers"][0]
    state = json.loads((out / "study.json").read_text())["searches"]["fit"]
    chosen = state["final"][0]["params"]
    assert first["question"]["kind"] == "search" and first["evidence"] == "search-fit"
    assert first["title"].startswith("Setting that brings final score per seat closest to 0.9 with turns at most 8")
    assert first["verdict"] == f"tricks {chosen['tricks']}, double_chance {chosen['double_chance']:.3g}"
    assert "on 4,000 fresh games (games 4,000-7,999, which no candidate played)" in first["sentence"]
    fresh = first["data"]["final"][0]["fresh"]["score"]
    assert fresh["lo"] < fresh["value"] < fresh["hi"]
    # the candidates are in the search's section only: the arms table and the first-player table have
    # the study's own arm and the re-played setting
    arms = [a["name"] for a in summary["dataset"]["arms"]]
    assert arms == ["plain", "fit-best"]
    md = paths["md"].read_text()
    section = md.split("## Search: fit")[1].split("\n## ")[0]
    assert section.count("| fit-0") == len(state["candidates"]) == 12 and "(chosen)" in section
    first_player = md.split("## First-player advantage")[1].split("\n## ")[0]
    assert "fit-0" not in first_player and "fit-best" in first_player
    html = paths["html"].read_text()
    assert html.count('id="search-fit"') == 1 and "where the search looked" in html
    assert html.index('id="answers"') < html.index('id="search-fit"')


def test_an_unfinished_search_says_so_in_its_answer(tmp_path):
    from reports.build import build_report

    out = tmp_path / "d"
    arm = {"name": "plain", "game": "toy", "players": 4, "policy": "greedy"}
    run_study(study(seed=1, trials=6, arms=[arm]), out, workers=0, progress=False)
    for path in (out / "fit-best").iterdir():
        path.unlink()
    summary = json.loads(build_report(out)["json"].read_text())
    first = summary["answers"][0]
    assert first["verdict"] == "no answer yet" and "rerun the study's command" in first["sentence"]


def test_the_answer_says_which_parameters_changed_no_game_at_the_chosen_setting(tmp_path):
    """With one trick a player holds one card: the order it plays its cards in changes nothing."""
    from reports.build import build_report

    out = tmp_path / "d"
    s = study(vary={"tricks": [1, 2], "order": ["best_first", "worst_first"]}, trials=4,
              objective={"measure": "turns", "goal": "minimise"}, constraints=None)
    run_study(s, out, workers=0, progress=False)
    first = json.loads(build_report(out)["json"].read_text())["answers"][0]
    chosen = first["data"]["final"][0]["params"]
    other = "worst_first" if chosen["order"] == "best_first" else "best_first"
    assert chosen["tricks"] == 1 and first["data"]["indifferent"] == {"order": [other]}
    assert (f"With order {other} instead, its first 200 games are the very same: order changes nothing at this "
            "setting." in first["sentence"])


def test_two_objectives_give_a_front_each_member_replayed_on_fresh_games(tmp_path, monkeypatch):
    """Score grows with tricks and double_chance, turns with tricks: the front is double_chance near 1
    at each number of tricks; five of its members, spread along it, are re-played."""
    from reports import plots
    from reports.build import build_report

    monkeypatch.setenv(plots.STRICT_ENV, "1")

    out = tmp_path / "d"
    s = study(seed=4, trials=30, constraints=None,
              objective=[{"measure": "score", "goal": "maximise"}, {"measure": "turns", "goal": "minimise"}])
    run_study(s, out, workers=0, progress=False)
    manifest = json.loads((out / "study.json").read_text())
    finals = manifest["searches"]["fit"]["final"]
    assert [f["arm"] for f in finals] == [f"fit-front-{k}" for k in range(1, 6)]
    tricks = [f["params"]["tricks"] for f in finals]
    assert tricks == sorted(tricks, reverse=True) and len(set(tricks)) == 5  # most score first
    assert all(f["params"]["double_chance"] > 0.8 for f in finals)
    arms = {a["name"]: a for a in manifest["study"]["arms"]}
    assert all(arms[f["arm"]]["first"] == 4000 and arms[f["arm"]]["search_role"] == "final" for f in finals)
    paths = build_report(out)
    first = json.loads(paths["json"].read_text())["answers"][0]
    assert first["verdict"] == "5 settings on the front"
    assert "the trade-off between score and turns" in paths["html"].read_text()


def test_a_search_killed_midway_resumes_to_the_uninterrupted_result(tmp_path):
    import signal
    import subprocess
    import sys
    import time
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    table = search_table(trials=12, games=20_000, max_games=80_000, final_games=20_000)
    lines = ['name = "killed"', "seed = 5", "batch_size = 2000", "", "[[search]]"]
    lines += [f"{k} = {json.dumps(v)}" if not isinstance(v, (dict, list)) else f"{k} = {_toml(v)}"
              for k, v in table.items()]
    path = tmp_path / "killed.toml"
    path.write_text("\n".join(lines) + "\n")
    cmd = [sys.executable, "-m", "sim.cli", "study", str(path), "--workers", "0", "--no-progress",
           "--no-estimate", "--out"]
    proc = subprocess.Popen(cmd + [str(tmp_path / "k")], cwd=root, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.time() + 240
    while time.time() < deadline and len(list((tmp_path / "k").glob("*/batch-*.parquet.json"))) < 40:
        if proc.poll() is not None:
            pytest.fail("the search ended before it could be killed: " + proc.stderr.read().decode())
        time.sleep(0.02)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    partial = len(list((tmp_path / "k").glob("*/batch-*.parquet.json")))
    assert 40 <= partial < 130 and not (tmp_path / "k" / "fit-best").exists(), "the kill should land part-way"
    done = subprocess.run(cmd + [str(tmp_path / "k")], cwd=root, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert "batches were already done" in done.stdout
    whole = subprocess.run(cmd + [str(tmp_path / "w")], cwd=root, capture_output=True, text=True, timeout=600)
    assert whole.returncode == 0, whole.stderr
    k = json.loads((tmp_path / "k" / "study.json").read_text())
    w = json.loads((tmp_path / "w" / "study.json").read_text())
    assert k["searches"] == w["searches"] and k["study"] == w["study"]
    rk = pl.scan_parquet(f"{tmp_path}/k/*/batch-*.parquet").sort("arm", "game").collect()
    rw = pl.scan_parquet(f"{tmp_path}/w/*/batch-*.parquet").sort("arm", "game").collect()
    assert rk.equals(rw) and rk.select("arm", "game").is_duplicated().sum() == 0


def _toml(value) -> str:
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{k} = {_toml(v)}" for k, v in value.items()) + " }"
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    return json.dumps(value)


def test_kaartlab_study_runs_a_search_and_resumes_it_with_the_same_command(tmp_path, capsys):
    from sim.cli import main

    table = search_table(trials=4)
    path = tmp_path / "s.toml"
    path.write_text('name = "cli"\nseed = 1\nbatch_size = 1000\n\n[[search]]\n'
                    + "\n".join(f"{k} = {_toml(v)}" for k, v in table.items()) + "\n")
    args = ["study", str(path), "--workers", "0", "--no-progress", "--no-estimate", "--out", str(tmp_path / "d")]
    assert main(args + ["--report"]) == 0
    out = capsys.readouterr().out
    assert "study 'cli': 1 search, seed 1" in out and "search fit: toy, 4 players" in out
    assert "varies tricks 1..6, double_chance 0..1; score as close to 0.9 as possible with turns at most 8" in out
    assert (tmp_path / "d" / "report.html").exists()
    assert main(args) == 0
    assert "nothing to do" in capsys.readouterr().out
    assert main(["study", str(path), "--games", "100", "--workers", "0"]) == 2
    assert "whose games are their own keys" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["study", "--help"])
    assert "[[search]]" in capsys.readouterr().out


def test_the_wippen_example_is_a_valid_search_of_three_parameters_too_big_for_a_grid():
    from pathlib import Path

    s = StudySpec.from_toml(Path(__file__).resolve().parents[1] / "examples" / "wippen-search.toml")
    spec, = s.searches
    assert [d.key for d in spec.vary] == ["deals", "target", "points_wip"] and spec.space_size() == 13 * 46 * 4
    assert spec.objectives[0].measure == "balance" and spec.constraints[0].at_most == 600
    assert not s.arms and spec.candidate_batch(s.batch_size) == 2000
