"""A study's questions: validated in the study file, kept in study.json outside the fingerprint, and
answered first in the report (reports/answers.py), or implied by the design when none are asked."""
from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

from reports.build import build_report
from reports_fixtures import FakeArm, write_study
from sim.errors import SpecError
from sim.spec import StudySpec

ROOT = Path(__file__).resolve().parents[1]
JOHN = tomllib.loads((ROOT / "examples" / "john-knut.toml").read_text())


def study_with(questions, **extra) -> StudySpec:
    data = {**JOHN, **extra, "question": questions}
    return StudySpec.from_dict(data)


def test_the_example_keeps_its_description_and_questions_outside_the_fingerprint():
    spec = StudySpec.from_toml(ROOT / "examples" / "john-knut.toml")
    assert spec.description.startswith("Does John Knut make Knutten fairer")
    assert [q.kind for q in spec.questions] == ["compare", "fairness"]
    saved = spec.to_dict()
    assert saved["description"] == spec.description and saved["questions"][0]["arms"] == ["john-off", "john-on"]
    bare = StudySpec.from_dict({k: v for k, v in JOHN.items() if k not in ("description", "question")})
    assert bare.fingerprint() == spec.fingerprint()  # questions change no row
    again = bare.with_report_part(saved)
    assert again.questions == spec.questions and again.description == spec.description


@pytest.mark.parametrize("question, message", [
    ({"kind": "verdict"}, "kind='verdict': expected one of fairness, compare, players, target"),
    ({"kind": "compare", "arms": ["john-off"]}, "arms must name two arms"),
    ({"kind": "compare", "arms": ["john-off", "john-of"]}, "no arm 'john-of'"),
    ({"kind": "fairness", "measures": ["seat0_egde"]}, "knutten has no measure 'seat0_egde'"),
    ({"kind": "fairness", "arm": ["john-on"]}, "unknown key 'arm'"),
    ({"kind": "players"}, "every seat of the study has the same player"),
    ({"kind": "target", "measure": "seat0_edge", "target": 0}, "'john_knut' is not numeric"),
    ({"kind": "target", "measure": "seat0_edge", "target": "fair"}, "target='fair': expected a number"),
    ({"kind": "compare", "arms": ["john-off", "john-on"], "measures": ["turns", "turns"]}, "names 'turns' twice"),
])
def test_a_wrong_question_is_one_error_naming_it(question, message):
    with pytest.raises(SpecError, match="question 1") as err:
        study_with([question])
    assert message in str(err.value)


def test_description_must_be_text():
    with pytest.raises(SpecError, match="description must be text"):
        study_with([], description=["a list"])


def _write(root: Path, arms, questions=None, description=""):
    write_study(root, arms, seed=11)
    manifest = json.loads((root / "study.json").read_text())
    if questions is not None:
        manifest["study"]["questions"] = questions
    if description:
        manifest["study"]["description"] = description
    (root / "study.json").write_text(json.dumps(manifest))
    return json.loads(build_report(root)["json"].read_text())


def test_a_compare_answer_gives_the_seat_by_seat_change_and_links_its_evidence(tmp_path):
    arms = [FakeArm("off", games=6000, win_probs=(0.31, 0.23, 0.23, 0.23)),
            FakeArm("on", games=6000, rules={"john_knut": 1}, turns_shift=4)]
    s = _write(tmp_path, arms, [{"kind": "compare", "title": "John Knut", "arms": ["off", "on"],
                                 "measures": ["seat0_edge", "balance", "seat_share", "turns"]}],
               description="Does John make it fairer?")
    assert s["description"] == "Does John make it fairer?"
    (a,) = s["answers"]
    assert a["title"] == "John Knut" and a["verdict"] == "fairer" and not a["question"]["inferred"]
    assert a["evidence"] == "variants"
    assert "seat 0's edge falls from +" in a["sentence"] and "seat by seat: seat 1" in a["sentence"]
    assert "turns per game 1" in a["sentence"] and "balance rises from" in a["sentence"]
    edge = a["data"]["measures"]["seat0_win"]
    assert edge["detected"] and edge["difference"]["hi"] < 0
    html = (tmp_path / "report.html").read_text()
    first = html.index("<h1>") < html.index('<section id="answers">') < html.index('id="study"')
    assert first and 'href="#variants"' in html and "Does John make it fairer?" in html
    assert "percentage points" in a["sentence"]


def test_no_detectable_change_is_worded_as_such(tmp_path):
    arms = [FakeArm("off", games=3000), FakeArm("on", games=3000, rules={"john_knut": 1})]
    s = _write(tmp_path, arms, [{"kind": "compare", "arms": ["off", "on"], "measures": ["seat0_edge", "balance"]}])
    (a,) = s["answers"]
    assert a["verdict"] == "no detectable change in fairness"
    assert "no detectable change" in a["sentence"]


def test_questions_are_implied_by_the_design_and_the_report_says_so(tmp_path):
    arms = [FakeArm("off", games=2000), FakeArm("on", games=2000, rules={"john_knut": 1}),
            FakeArm("mixed", games=2000, policies=("trap", "cautious", "random", "cautious"), rules={"threshold": 28})]
    s = _write(tmp_path, arms)
    kinds = [(a["question"]["kind"], a["question"]["arms"], a["question"]["inferred"]) for a in s["answers"]]
    assert ("compare", ["off", "on"], True) in kinds
    assert ("players", ["mixed"], True) in kinds
    assert "implies" in s["sections"]["answers"]["data"]["note"]


def test_a_target_question_finds_the_crossing_between_the_values_tried(tmp_path):
    """Seat 0's true edge falls by 3 points per step of threshold: +6, +3, 0 (at 31), -3 points."""
    arms = [FakeArm(f"t{t}", games=8000, tie_rate=0.0, rules={"threshold": t},
                    win_probs=(0.25 + e, (0.75 - e) / 3, (0.75 - e) / 3, (0.75 - e) / 3))
            for t, e in ((25, 0.06), (28, 0.03), (31, 0.0), (34, -0.03))]
    s = _write(tmp_path, arms, [{"kind": "target", "arms": [a.name for a in arms], "measure": "seat0_edge",
                                 "target": 0.0, "parameter": "threshold"}])
    (a,) = s["answers"]
    crossing = a["data"]["crossing"]
    assert 28 <= crossing <= 34 and 31 in a["data"]["set"]["kept"] and 25 not in a["data"]["set"]["kept"]
    assert a["evidence"] == "target-1" and "target-1" in s["sections"]
    assert a["verdict"] == f"threshold {crossing:.0f}"
    assert "makes seat 0 fair (95%: between" in a["sentence"] or (
        f"comes closest to a fair seat 0: the curve crosses the target at {crossing:.1f} (95%: between" in a["sentence"])


def test_a_target_never_reached_is_said_with_its_side(tmp_path):
    arms = [FakeArm(f"t{t}", games=4000, tie_rate=0.0, rules={"threshold": t}, win_probs=(0.4, 0.2, 0.2, 0.2))
            for t in (25, 31)]
    s = _write(tmp_path, arms, [{"kind": "target", "arms": ["t25", "t31"], "measure": "seat0_edge", "target": 0.0,
                                 "parameter": "threshold"}])
    (a,) = s["answers"]
    assert a["data"]["crossing"] is None and a["data"]["set"]["side"] == "above"
    assert a["verdict"] == "no threshold from 25 to 31 does" and "above 31, outside the sweep" in a["sentence"]


def test_a_rerun_with_new_questions_keeps_the_rows_and_takes_the_questions(tmp_path):
    from pipelines.run import run_study

    small = {**JOHN, "games": 300, "batch_size": 300}
    first = StudySpec.from_dict(small)
    run_study(first, tmp_path / "s", workers=0, progress=False)
    rows = sorted(p.name for p in (tmp_path / "s").rglob("batch-*.parquet"))
    asked = StudySpec.from_dict({**small, "description": "Now with one question",
                                 "question": [{"kind": "fairness", "arms": ["john-off"]}]})
    assert asked.fingerprint() == first.fingerprint()
    run_study(asked, tmp_path / "s", workers=0, progress=False)
    manifest = json.loads((tmp_path / "s" / "study.json").read_text())
    assert manifest["study"]["description"] == "Now with one question"
    assert manifest["study"]["questions"] == [{"kind": "fairness", "arms": ["john-off"]}]
    assert sorted(p.name for p in (tmp_path / "s").rglob("batch-*.parquet")) == rows
    s = json.loads(build_report(tmp_path / "s")["json"].read_text())
    assert [a["question"]["arms"] for a in s["answers"]] == [["john-off"]]
