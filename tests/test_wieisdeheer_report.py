"""Wie is de Heer?'s report plug-in: the designer's target for the mole's win share (report.mole_target)
goes from the study file into study.json and into the sections (the mole's share against it, the
sabotage rate that reaches it, the rule changes); a bad value is one clear error naming the key."""
from __future__ import annotations

import json

import pytest

from pipelines.run import run_study
from reports import build_report
from reports.context import Options
from reports.dataset import ReportError
from reports.games.wieisdeheer import direction, reaching_rate
from reports.stats import Estimate
from sim.cli import main
from sim.spec import SpecError, StudySpec

STUDY = """
name = "heer-target"
seed = 3
games = 300
batch_size = 150

[report]
mole_target = {target}

[defaults]
game = "wieisdeheer"
players = 4

[[arm]]
name = "honest"
policy = "reasoner:sabotage=0"

[[arm]]
name = "half"
policy = "reasoner:sabotage=0.5"

[[arm]]
name = "always"
policy = "reasoner:sabotage=1"

[[arm]]
name = "half-pot"
policy = "reasoner:sabotage=0.5"
rules = {{ mole_pot_threshold = 150 }}
"""


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    root = tmp_path_factory.mktemp("heer")
    (root / "study.toml").write_text(STUDY.format(target=0.15))
    out = root / "out"
    run_study(StudySpec.from_toml(root / "study.toml"), out, workers=0, progress=False)
    paths = build_report(out)
    return out, json.loads(paths["json"].read_text()), paths["md"].read_text()


def test_the_target_is_recorded_in_study_json(report):
    out, _, _ = report
    assert json.loads((out / "study.json").read_text())["study"]["report"]["mole_target"] == 0.15


def test_the_sections_measure_the_mole_against_the_named_target(report):
    _, summary, markdown = report
    parts = summary["sections"]["wieisdeheer"]["children"]
    mole, sweep = parts["wieisdeheer.mole"]["data"], parts["wieisdeheer.sabotage"]["data"]
    assert mole["target"] == {"mole_target": 0.15, "source": "report.mole_target"}
    # the sweep's shares cross the target at least once at this seed (the observers read at 0.3 throughout)
    reach = sweep["sweeps"]["sweep 1 (4 players)"]["reaches_target"]
    assert reach["target"] == 0.15 and reach["crossings"] >= 1
    assert 0 <= reach["lo"] <= reach["rate"] <= reach["hi"] <= 1
    verdicts = [line for line in markdown.splitlines() if "players): the mole wins" in line]
    assert len(verdicts) == 4 and all("the target 15.0%" in line for line in verdicts), verdicts
    assert f"reaches the target 15.0% at sabotage {reach['rate']:.2f}" in markdown
    assert "The sabotage rate at which the mole's share reaches the target" in markdown


def _share(value, half=0.02):
    return Estimate(value, value - half, value + half, 1000, "test")


def test_the_reaching_rate_is_interpolated_between_the_swept_rates():
    reach = reaching_rate([0.0, 0.5, 1.0], [_share(0.2), _share(0.3), _share(0.4)], 0.35)
    assert reach["rate"] == pytest.approx(0.75) and reach["crossings"] == 1
    # the upper end 0.32 -> 0.42 reaches 0.35 at 0.65, the lower 0.28 -> 0.38 leaves it at 0.85
    assert reach["lo"] == pytest.approx(0.65, abs=1e-3) and reach["hi"] == pytest.approx(0.85, abs=1e-3)
    assert not reach["open_lo"] and not reach["open_hi"]
    assert reaching_rate([0.0, 0.5, 1.0], [_share(0.2), _share(0.3), _share(0.4)], 0.6) is None
    near = reaching_rate([0.0, 1.0], [_share(0.2), _share(0.31)], 0.32)  # not crossed, not told apart
    assert near["rate"] is None and near["hi"] == 1.0 and near["open_hi"]


@pytest.mark.parametrize("value", ["1.5", "0", "true", '"a third"'])
def test_a_bad_target_is_one_clear_error_naming_the_key(capsys, tmp_path, value):
    path = tmp_path / "bad.toml"
    path.write_text(STUDY.format(target=value))
    with pytest.raises(SpecError, match=r"\[report\] mole_target="):
        StudySpec.from_toml(path)
    code = main(["study", str(path), "--out", str(tmp_path / "o"), "--workers", "0"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "mole_target" in err
    assert not (tmp_path / "o").exists()


def test_a_damaged_target_in_study_json_is_a_report_error_naming_the_key():
    with pytest.raises(ReportError, match="mole_target"):
        Options.resolve({"report": {"mole_target": 2}})
    assert Options.resolve({"report": {"mole_target": 0.2}}).mole_target == 0.2
    assert Options.resolve({}).mole_target is None


def test_a_rule_that_acts_only_on_the_winner_is_said_to_be_played_to_by_reasoners(report):
    """mole_pot_threshold decides the winner after the last card, but reasoners play to it (the
    mole spends the sabotage nobody reads while the pot is below it): the report says so where it
    compares the arms and where it reads the pot, instead of claiming the games were played alike."""
    _, summary, markdown = report
    change = next(line for line in markdown.splitlines()
                  if line.startswith("- ") and "(half-pot against half)" in line)
    assert "but the reasoning players play to it" in change and "played alike" not in change
    pot = [line for line in markdown.splitlines() if line.startswith("- half-pot: with mole_pot_threshold")]
    assert pot and "The reasoning players play to this rule" in pot[0], pot


def test_racers_and_random_players_do_not_play_to_the_winner_rule():
    from types import SimpleNamespace

    from reports.games.wieisdeheer import plays_to_winner_rules

    assert not plays_to_winner_rules(SimpleNamespace(policies=("racer", "random", "racer")))
    assert plays_to_winner_rules(SimpleNamespace(policies=("racer", "reasoner", "racer")))
    assert plays_to_winner_rules(SimpleNamespace(policies=("racer", "search", "random")))


def test_a_target_between_two_arms_is_crossed_not_moved_away_from():
    assert direction(0.10, 0.30, 0.25) == "across"  # 0 undershoots, 120 overshoots: not "away"
    assert direction(0.30, 0.20, 0.25) == "across"
    assert direction(0.10, 0.20, 0.25) == "towards"
    assert direction(0.20, 0.10, 0.25) == "away"
    assert direction(0.20, 0.25, 0.25) == "onto"


def test_the_report_repeats_to_the_byte_in_another_process(report, tmp_path):
    """Per-game shares and gaps are averaged over games in the games' order: a group_by in hash
    order (a process's own) moved their last bits from one report of the same data to the next."""
    import subprocess
    import sys
    out, _, _ = report
    again = tmp_path / "again"
    subprocess.run([sys.executable, "-m", "sim.cli", "report", str(out), "--out", str(again)], check=True,
                   capture_output=True)
    assert (again / "summary.json").read_bytes() == (out / "summary.json").read_bytes()
