"""The seam's own test: the toy game (tests/toy/, registered only by the tests) runs through the
command line, a TOML study, the Ray pipeline and the report, with typed rule parameters, seats with
player parameters and a data file that the dataset keeps a copy of."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest

from sim.cli import main
from sim.errors import SpecError
from sim.spec import ArmSpec, StudySpec

ROOT = Path(__file__).resolve().parents[1]
DECK = "values = [" + ", ".join(str(v) for v in range(1, 31)) + "]\n"


def kaartlab(*argv: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    """The installed command in a new process (as a user runs it; Ray workers start from it)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "sim.cli", *argv], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=600)


def test_run_on_ray_with_parameters_and_a_data_file_then_trace_from_the_dataset(tmp_path):
    deck = tmp_path / "deck.toml"
    deck.write_text(DECK)
    out = tmp_path / "toy"
    done = kaartlab("run", "toy", "--players", "3", "--games", "4000", "--batch-size", "1000",
                    "--policy", "greedy:bluff=0.25,random,greedy:order=worst_first",
                    "--rule", "tricks=5", "--rule", "double_chance=0.5", "--rule", "ties=nobody",
                    "--data", f"deck={deck}", "--seed", "3", "--workers", "2",
                    "--out", str(out), "--report")
    assert done.returncode == 0, done.stderr[-3000:]
    frame = pl.read_parquet(out / "main" / "*.parquet")
    assert frame.height == 4000 and frame["game"].n_unique() == 4000
    assert frame["best_card"].list.max().max() <= 30  # the data file's deck, not the default
    manifest = json.loads((out / "study.json").read_text())
    arm = manifest["study"]["arms"][0]
    assert arm["policies"] == ["greedy(bluff=0.25)", "random", "greedy(order=worst_first)"]
    assert arm["seats"][0] == {"policy": "greedy", "params": {"bluff": 0.25, "order": "best_first"}}
    assert arm["rules"] == {"tricks": 5, "lowest_wins": False, "ties": "nobody", "double_chance": 0.5}
    copy = out / arm["data"]["deck"]["file"]
    assert copy.read_text() == DECK
    report = (out / "report.md").read_text()
    assert "greedy(bluff=0.25)" in report
    # the dataset replays without the original file
    deck.unlink()
    code = main(["trace", "--dataset", str(out), "--index", "5"])
    assert code == 0
    again = kaartlab("trace", "--dataset", str(out), "--index", "5")
    direct = ArmSpec.make("toy", 3, {"tricks": 5, "double_chance": 0.5, "ties": "nobody"},
                          "greedy:bluff=0.25,random,greedy:order=worst_first",
                          data={"deck": copy})
    assert again.stdout == direct.info.runner().trace_game(direct, 3, 5)
    row = frame.filter(pl.col("game") == 5).row(0, named=True)
    assert f"scores {row['score']}" in again.stdout


def test_a_study_file_with_per_seat_tables_and_data(tmp_path, capsys):
    (tmp_path / "deck.toml").write_text(DECK)
    study = tmp_path / "toy.toml"
    study.write_text('''
name = "toy-study"
seed = 9
games = 600
batch_size = 250

[report]
correction = "bh"
edge = 0.05

[defaults]
game = "toy"
players = 2
data = { deck = "deck.toml" }

[[arm]]
name = "bluffing"
[[arm.seat]]
policy = "greedy"
bluff = 0.5
[[arm.seat]]
policy = "random"

[[arm]]
name = "straight"
policy = "greedy"
rules = { lowest_wins = true }
''')
    spec = StudySpec.from_toml(study)
    assert spec.arm("bluffing").labels == ("greedy(bluff=0.5)", "random")
    assert spec.arm("straight").labels == ("greedy", "greedy")
    assert spec.arm("straight").data_value("deck") == tuple(range(1, 31))
    code = main(["study", str(study), "--workers", "0", "--out", str(tmp_path / "out"), "--report"])
    assert code == 0
    assert pl.read_parquet(tmp_path / "out" / "*" / "*.parquet").height == 1200
    recorded = json.loads((tmp_path / "out" / "study.json").read_text())["study"]["report"]
    assert recorded == {"correction": "bh", "edge": 0.05}
    assert "Benjamini-Hochberg" in (tmp_path / "out" / "report.md").read_text()
    # the data file's hash is part of the study: another deck is another study
    (tmp_path / "deck.toml").write_text("values = [1, 2, 3, 4, 5, 6, 7, 8]\n")
    assert StudySpec.from_toml(study).fingerprint() != spec.fingerprint()
    assert main(["study", str(study), "--workers", "0", "--out", str(tmp_path / "out")]) == 2
    assert "holds another study" in capsys.readouterr().err


@pytest.mark.parametrize("argv,message", [
    (["--policy", "greedy:bluff=2"], "parameter bluff=2: out of range 0..1"),
    (["--policy", "greedy:speed=1"], "unknown parameter 'speed' of policy 'greedy'"),
    (["--policy", "random:order=best_first"], "unknown parameter 'order' of policy 'random'"),
    (["--policy", "greedy:bluff"], "expected POLICY:NAME=VALUE"),
    (["--rule", "ties=sometimes"], "rule ties='sometimes': expected one of share, nobody"),
    (["--rule", "double_chance=nan"], "rule double_chance='nan': expected a number in 0..1"),
    (["--rule", "lowest_wins=maybe"], "expected true or false"),
    (["--data", "cards=x.toml"], "unknown data input 'cards' for toy (known: deck)"),
    (["--data", "deck=/no/such/file.toml"], "deck file '/no/such/file.toml' does not exist"),
    (["--players", "7"], "players=7: toy is for 2-6 players"),
])
def test_bad_values_get_one_clear_error(capsys, argv, message):
    code = main(["trace", "toy", *argv])
    err = capsys.readouterr().err
    assert code == 2 and message in err and "Traceback" not in err, err


def test_a_bad_data_file_names_the_file_and_the_problem(tmp_path):
    bad = tmp_path / "deck.toml"
    bad.write_text("values = [1, 200]\n")
    with pytest.raises(SpecError, match=r"deck file .*deck.toml: values must be a list"):
        ArmSpec.make("toy", 2, data={"deck": bad})
    bad.write_text("values = [1, 2, 3]\n")
    with pytest.raises(SpecError, match="the deck has 3 cards; 2 players with tricks=3 need 6"):
        ArmSpec.make("toy", 2, data={"deck": bad})


def test_games_lists_typed_parameters(capsys):
    assert main(["games", "toy"]) == 0
    out = capsys.readouterr().out
    for text in ("tricks", "int 1..10", "lowest_wins", "true/false", "ties", "share|nobody",
                 "double_chance", "float 0..1", "bluff", "best_first|worst_first", "data deck"):
        assert text in out, text


@pytest.mark.parametrize("report,message", [
    ({"correction": "bonferroni"}, '[report] correction=\'bonferroni\': expected "holm" or "bh"'),
    ({"edge": 2}, "[report] edge=2: expected a share between 0 and 1"),
    ({"power": 0.9}, "[report]: unknown key 'power'"),
])
def test_report_options_in_a_study_file_are_checked(report, message):
    data = {"arm": [{"game": "toy", "players": 2}], "report": report}
    with pytest.raises(SpecError) as error:
        StudySpec.from_dict(data)
    assert message in str(error.value)
