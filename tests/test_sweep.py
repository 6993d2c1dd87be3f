"""Sweeps: [[sweep]] tables expanded into paired arms (sim/sweep.py), target questions over them, the
crossing's confidence set (reports/crossing.py) and the report's sweep sections."""
from __future__ import annotations

import json
import tomllib
from pathlib import Path

import numpy as np
import pytest

from reports.crossing import crossing
from sim.errors import SpecError
from sim.spec import StudySpec

ROOT = Path(__file__).resolve().parents[1]

THR = {
    "name": "thr", "games": 200, "batch_size": 200,
    "sweep": [{"name": "thr", "game": "knutten", "players": 4, "policy": "cautious",
               "vary": {"threshold": {"from": 28, "to": 34, "step": 3}, "john_knut": [False, True]}}],
    "question": [{"kind": "target", "sweep": "thr", "parameter": "threshold", "measure": "seat0_edge", "target": 0.0}],
}


def test_a_sweep_expands_into_one_arm_per_point_with_its_values():
    spec = StudySpec.from_dict(THR)
    assert [a.name for a in spec.arms] == ["thr-28-false", "thr-28-true", "thr-31-false", "thr-31-true",
                                           "thr-34-false", "thr-34-true"]
    arm = spec.arm("thr-34-false")
    assert arm.rule_values["threshold"] == 34 and arm.rule_values["john_knut"] is False
    (sweep,) = spec.sweeps
    assert sweep.parameters == ("threshold", "john_knut") and sweep.values[0] == (28, 31, 34)
    assert spec.questions[0].sweep == "thr" and spec.questions[0].parameter == "threshold"


def test_the_sweep_record_is_outside_the_fingerprint_and_comes_back_from_study_json():
    spec = StudySpec.from_dict(THR)
    saved = json.loads(json.dumps(spec.to_dict()))
    assert saved["sweeps"][0]["points"][0] == {"arm": "thr-28-false", "base": "", "at": {"threshold": 28,
                                                                                        "john_knut": False}}
    bare = StudySpec.from_dict({**THR, "question": []})
    assert bare.fingerprint() == spec.fingerprint()
    plain = {k: v for k, v in saved.items() if k not in ("sweeps", "questions")}
    assert json.dumps(plain, sort_keys=True) == json.dumps({k: v for k, v in bare.to_dict().items()
                                                            if k not in ("sweeps",)}, sort_keys=True)
    again = bare.with_report_part(saved)
    assert again.sweeps == spec.sweeps and again.questions == spec.questions


def test_a_sweep_crosses_named_arms_and_varies_one_seat_or_every_seat():
    data = {"name": "s", "games": 10,
            "arm": [{"name": "on", "game": "wieisdeheer", "players": 4, "policy": "reasoner"},
                    {"name": "pot", "game": "wieisdeheer", "players": 4, "policy": "reasoner",
                     "rules": {"mole_pot_threshold": 200}}],
            "sweep": [{"name": "sab", "arms": ["on", "pot"], "vary": {"sabotage": [0.0, 0.5]}},
                      {"name": "one", "arms": ["on"], "vary": {"seat2.sabotage": [0.1, 0.9]}}]}
    spec = StudySpec.from_dict(data)
    assert [a.name for a in spec.arms] == ["on", "pot", "sab-on-0", "sab-on-0.5", "sab-pot-0", "sab-pot-0.5",
                                           "one-on-0.1", "one-on-0.9"]
    assert {dict(s.params)["sabotage"] for s in spec.arm("sab-pot-0.5").seats} == {0.5}
    assert spec.arm("sab-pot-0.5").rule_values["mole_pot_threshold"] == 200
    seats = [dict(s.params)["sabotage"] for s in spec.arm("one-on-0.9").seats]
    assert seats == [0.3, 0.3, 0.9, 0.3]


@pytest.mark.parametrize("change, message", [
    ({"vary": {"treshold": [30, 31]}}, "knutten has no rule or player parameter 'treshold'"),
    ({"vary": {"threshold": [30]}}, "a sweep needs two or more values"),
    ({"vary": {"threshold": [30, 30]}}, "a value is given twice"),
    ({"vary": {"threshold": {"from": 40, "to": 30}}}, "from=40 is above to=30"),
    ({"vary": {"threshold": {"from": 30, "to": 40, "step": 0.5}}}, "step=0.5: expected a positive whole number"),
    ({"vary": {"threshold": {"from": 30, "upto": 40}}}, "unknown key 'upto'"),
    ({"vary": {"threshold": [30, 999]}}, "out of range"),
    ({"vary": {"threshold": [30, "31"]}}, "expected a whole number (no quotes)"),
    ({"vary": {"threshold": [30, 31], "john_knut": [True, False], "hand_limit": [3, 4]}}, "varies one or two"),
    ({"vary": {"seat9.threshold": [1, 2]}}, "no rule or player parameter 'threshold'"),
    ({"vary": {"threshold": {"from": 5, "to": 200}, "hand_limit": [1, 2, 3]}}, "a sweep makes at most 400"),
    ({"arms": ["nope"], "vary": {"threshold": [30, 31]}}, "no [[arm]] named 'nope'"),
    ({"colour": "red"}, "unknown key 'colour'"),
    ({"name": "bad name"}, "sweep name 'bad name'"),
])
def test_a_wrong_sweep_is_one_error_naming_it(change, message):
    sweep = {**THR["sweep"][0], **change}
    if "arms" in change:
        sweep = {k: v for k, v in sweep.items() if k not in ("game", "players", "policy")}
    with pytest.raises(SpecError) as err:
        StudySpec.from_dict({**THR, "sweep": [sweep], "question": []})
    assert message in str(err.value) and "sweep" in str(err.value)


@pytest.mark.parametrize("question, message", [
    ({"sweep": "thr", "measure": "seat0_edge", "target": 0.0}, "name the one to solve for"),
    ({"sweep": "thr", "parameter": "john_knut", "measure": "seat0_edge", "target": 0.0}, "is not numeric"),
    ({"sweep": "tht", "parameter": "threshold", "measure": "seat0_edge", "target": 0.0}, "no sweep 'tht'"),
    ({"sweep": "thr", "parameter": "hand_limit", "measure": "seat0_edge", "target": 0.0}, "sweep 'thr' varies"),
    ({"sweep": "thr", "arms": ["thr-28-true"], "parameter": "threshold", "measure": "seat0_edge", "target": 0},
     "either sweep or arms"),
])
def test_a_wrong_sweep_question_is_one_error_naming_it(question, message):
    with pytest.raises(SpecError, match="question 1") as err:
        StudySpec.from_dict({**THR, "question": [{"kind": "target", **question}]})
    assert message in str(err.value)


def test_the_sweep_examples_read():
    for name in ("knutten-threshold", "wieisdeheer-mole"):
        spec = StudySpec.from_toml(ROOT / "examples" / f"{name}.toml")
        assert spec.sweeps and any(q.sweep for q in spec.questions)
    assert len(StudySpec.from_toml(ROOT / "examples" / "knutten-threshold.toml").arms) == 32


# -- the crossing and its confidence set ---------------------------------------------------------------
def _paired_bernoulli(rng, xs, p_of_x, games, rho_same_deal=True):
    """Per-game 0/1 outcomes at every x: one uniform per game shared by every point (paired) or one
    per game and point (independent)."""
    u = rng.random((games, 1 if rho_same_deal else len(xs)))
    return (u < p_of_x(np.asarray(xs, dtype=float))).astype(float)


def test_the_set_covers_a_known_crossing_at_its_nominal_rate():
    """p(x) = 0.25 + 0.004 (32 - x): the measure p - 0.25 crosses 0 at x = 32 exactly. 400
    replicates: the 95% set keeps 32 in 91.8-97.8% of them (the binomial range of a true 95%)."""
    rng = np.random.default_rng(2026)
    xs = [25, 28, 31, 34, 37, 40]
    kept = 0
    for _ in range(400):
        values = _paired_bernoulli(rng, xs, lambda x: 0.25 + 0.004 * (32 - x), 2000) - 0.25
        c = crossing(xs, 0.0, values=values, integer=True)
        kept += 32.0 in c.candidates[c.kept]
    assert 367 <= kept <= 391, kept


def test_the_estimate_is_near_the_truth_and_the_set_narrows_with_games():
    rng = np.random.default_rng(7)
    xs = [0.0, 0.25, 0.5, 0.75, 1.0]
    wide = crossing(xs, 0.3, values=_paired_bernoulli(rng, xs, lambda x: 0.1 + 0.4 * x, 2000, False))
    narrow = crossing(xs, 0.3, values=_paired_bernoulli(rng, xs, lambda x: 0.1 + 0.4 * x, 50_000, False))
    assert abs(narrow.estimate - 0.5) < 0.02 and narrow.low <= 0.5 <= narrow.high
    assert narrow.high - narrow.low < (wide.high - wide.low) / 3
    assert narrow.fit.startswith("a straight line") and not narrow.integer


def test_a_curve_that_never_reaches_the_target_says_on_which_side():
    rng = np.random.default_rng(3)
    c = crossing([1, 2, 3], 0.9, values=_paired_bernoulli(rng, [1, 2, 3], lambda x: 0.2 + 0.05 * x, 5000))
    assert c.estimate is None and not c.found and c.side == "below"


def test_without_per_game_values_the_set_is_the_conservative_one():
    c = crossing([10, 20], 0.0, means=[0.02, -0.02], se=[0.01, 0.01], integer=True)
    assert c.estimate == 15.0 and c.fit == "straight lines between the values tried"
    # halfway the error is the average of the two, 0.01, so the band is +-0.0196: 15 kept, 10 and 20 not
    assert 15.0 in c.candidates[c.kept] and c.low > 10 and c.high < 20


def test_a_bent_curve_is_fitted_by_a_higher_degree():
    xs = np.linspace(0, 1, 9)
    means = (xs - 0.3) ** 2
    cov = np.eye(9) * 1e-8
    from reports.crossing import polynomial
    evaluate, degree = polynomial(xs, means, cov)
    assert degree == 2 and abs(evaluate(np.array([0.3]))[0][0]) < 1e-3


# -- in a report ---------------------------------------------------------------------------------------
def test_a_sweep_study_opens_with_its_target_answers_and_shows_the_grid(tmp_path):
    from pipelines.run import run_study
    from reports.build import build_report

    spec = StudySpec.from_dict(THR)
    run_study(spec, tmp_path / "s", workers=0, progress=False)
    summary = json.loads(build_report(tmp_path / "s")["json"].read_text())
    answers = summary["answers"]
    assert [a["question"]["arms"] for a in answers] == [["thr-28-false", "thr-31-false", "thr-34-false"],
                                                        ["thr-28-true", "thr-31-true", "thr-34-true"]]
    assert answers[0]["title"] == "Which threshold makes seat 0 fair (john_knut=false)?"
    for a in answers:
        assert a["data"]["set"]["fit"] and len(a["data"]["curve"]) == 3 and a["evidence"] in summary["sections"]
    grid = summary["sections"]["sweep-thr"]["data"]
    assert len(grid["points"]) == 6 and grid["measures"][0] == "seat0_edge"
    variants = summary["sections"].get("variants", {}).get("data", {})
    assert "thr-28-false" not in json.dumps(variants)  # the sweep's points are its curve, not 15 pairs
    html = (tmp_path / "s" / "report.html").read_text()
    assert html.count("<img") >= 4  # two target curves, the grid's curves, the heat maps


def test_a_player_parameter_is_swept_only_at_the_seats_whose_policy_has_it():
    """A table of cautious and random players: random has no 'start', so only the cautious seats move."""
    data = {"name": "mixed", "games": 10, "sweep": [
        {"name": "s", "game": "knutten", "players": 4, "policy": ["cautious", "random", "cautious", "random"],
         "vary": {"start": ["self", "next"]}}]}
    arm = StudySpec.from_dict(data).arm("s-next")
    assert [dict(s.params).get("start") for s in arm.seats] == ["next", None, "next", None]
