"""The kaartlab command: help, listing, a run, a study, a trace, and one clear error per bad input."""
from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest

from sim.cli import main

ROOT = Path(__file__).resolve().parents[1]


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_help_lists_every_command(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["--help"])
    assert exit_.value.code == 0
    out = capsys.readouterr().out
    for command in ("games", "run", "study", "trace", "report", "compile"):
        assert command in out


def test_games_lists_rules_policies_and_columns(capsys):
    code, out, _ = run(capsys, "games", "knutten")
    assert code == 0
    for word in ("threshold", "31", "john_knut", "heavy_bites_to_end", "cautious", "trap", "random",
                 "winner_mask", "john_played_by"):
        assert word in out


def test_run_then_trace_the_same_game_from_the_dataset(capsys, tmp_path):
    out_dir = tmp_path / "k"
    code, out, err = run(capsys, "run", "knutten", "--games", "3000", "--players", "3",
                         "--rule", "john_knut=true", "--policy", "cautious,trap,random",
                         "--seed", "4", "--out", str(out_dir), "--workers", "0", "--batch-size", "1000")
    assert code == 0, err
    assert "played 3,000 games" in out
    frame = pl.read_parquet(out_dir / "main" / "*.parquet")
    assert frame.height == 3000
    code, from_dataset, _ = run(capsys, "trace", "--dataset", str(out_dir), "--index", "17")
    code2, from_options, _ = run(capsys, "trace", "knutten", "--players", "3", "--policy",
                                 "cautious,trap,random", "--seed", "4", "--index", "17")
    assert code == code2 == 0
    assert from_dataset == from_options
    row = frame.filter(pl.col("game") == 17).row(0, named=True)
    assert f"seat 0 {row['score'][0]}, seat 1 {row['score'][1]}, seat 2 {row['score'][2]}" in from_dataset
    assert from_dataset.count("\n") > 20


def test_study_file_runs_every_arm(capsys, tmp_path):
    study = tmp_path / "s.toml"
    study.write_text(
        'name = "tiny"\nseed = 3\ngames = 1500\nbatch_size = 500\n'
        '[defaults]\ngame = "knutten"\nplayers = 4\n'
        '[[arm]]\nname = "on"\n[[arm]]\nname = "off"\nrules = { john_knut = false }\n'
        f'[[arm]]\nname = "small"\ndeck = "{ROOT / "examples" / "small-deck.toml"}"\nplayers = 3\n')
    code, out, err = run(capsys, "study", str(study), "--out", str(tmp_path / "d"), "--workers", "0")
    assert code == 0, err
    counts = pl.read_parquet(tmp_path / "d" / "*" / "*.parquet").group_by("arm").len()
    assert dict(counts.iter_rows()) == {"on": 1500, "off": 1500, "small": 1500}
    manifest = json.loads((tmp_path / "d" / "study.json").read_text())
    deck = manifest["study"]["arms"][2]["data"]["deck"]
    assert (tmp_path / "d" / deck["file"]).read_bytes() == (ROOT / "examples" / "small-deck.toml").read_bytes()


def test_knutten_with_seat_parameters_and_a_data_deck_from_the_command_line(capsys, tmp_path):
    out_dir = tmp_path / "k"
    seats = "cautious:start=self,cautious,trap:start=next,random"
    deck = str(ROOT / "examples" / "small-deck.toml")
    code, out, err = run(capsys, "run", "knutten", "--players", "4", "--policy", seats,
                         "--data", f"deck={deck}", "--games", "2000", "--batch-size", "1000",
                         "--seed", "8", "--workers", "0", "--out", str(out_dir))
    assert code == 0, err
    assert "policies cautious(start=self),cautious,trap(start=next),random" in out
    arm = json.loads((out_dir / "study.json").read_text())["study"]["arms"][0]
    assert arm["seats"][0] == {"policy": "cautious", "params": {"start": "self"}}
    assert arm["seats"][3] == {"policy": "random", "params": {}}
    assert (out_dir / arm["data"]["deck"]["file"]).read_text() == Path(deck).read_text()
    code, from_dataset, _ = run(capsys, "trace", "--dataset", str(out_dir), "--index", "3")
    code2, from_options, _ = run(capsys, "trace", "knutten", "--players", "4", "--policy", seats,
                                 "--deck", deck, "--seed", "8", "--index", "3")
    assert code == code2 == 0 and from_dataset == from_options
    assert "Deck: 23 cards including John Knut" in from_dataset


def test_knutten_start_example_study_file(tmp_path):
    """examples/knutten-start.toml: per-seat tables with a player parameter and a data deck."""
    from dataclasses import replace

    from pipelines.run import run_study
    from sim.spec import StudySpec

    spec = StudySpec.from_toml(ROOT / "examples" / "knutten-start.toml")
    assert spec.arm("self").labels == ("cautious(start=self)",) * 4
    mixed = spec.arm("small-deck-self-first")
    assert mixed.labels == ("cautious(start=self)", "cautious", "cautious", "trap")
    assert sum(copies for *_, copies in mixed.data_value("deck")) == 22
    small = replace(spec, games=400, batch_size=400, arms=(spec.arm("most-bites"), mixed))
    run_study(small, tmp_path / "s", workers=0, progress=False)
    rows = pl.read_parquet(tmp_path / "s" / "*" / "*.parquet")
    assert dict(rows.group_by("arm").len().iter_rows()) == {"most-bites": 400,
                                                             "small-deck-self-first": 400}


BAD = [
    (["run", "nogame"], "unknown game 'nogame'"),
    (["run", "knutten", "--players", "9"], "players=9"),
    (["run", "knutten", "--players", "1"], "players=1"),
    (["run", "knutten", "--rule", "colour=red"], "unknown rule 'colour'"),
    (["run", "knutten", "--rule", "threshold=500"], "threshold=500: out of range"),
    (["run", "knutten", "--rule", "john_knut=maybe"], "john_knut='maybe'"),
    (["run", "knutten", "--rule", "threshold"], "expected NAME=VALUE"),
    (["run", "knutten", "--policy", "genius"], "unknown policy 'genius'"),
    (["run", "knutten", "--policy", "random,trap"], "2 entries for 4 seats"),
    (["run", "knutten", "--deck", "/no/such/deck.toml"], "does not exist"),
    (["run", "knutten", "--players", "8", "--deck", str(ROOT / "examples" / "small-deck.toml")],
     "need at least 25"),
    (["run", "knutten", "--workers", "-1"], "--workers=-1"),
    (["study", "/no/such/study.toml"], "does not exist"),
    (["trace"], "name a game"),
    (["trace", "knutten", "--index", "-3"], "--index=-3"),
    (["report", "/no/such/dir"], "not a directory"),
]


@pytest.mark.parametrize("argv,message", BAD, ids=[" ".join(a) for a, _ in BAD])
def test_bad_input_gives_one_clear_error_and_writes_nothing(capsys, tmp_path, argv, message):
    out_dir = tmp_path / "out"
    if argv[0] in ("run", "study"):
        argv = argv[:2] + ["--out", str(out_dir), "--workers", "0"] + argv[2:]
    code, _, err = run(capsys, *argv)
    assert code != 0
    assert message in err
    assert err.count("\n") == 1 and err.startswith("kaartlab: error: ")
    assert not out_dir.exists()


@pytest.mark.parametrize("text,message", [
    ("seed = 1\n[[arm]]\ngame = 'knutten'\nplayers = 4\ncolour = 'red'\n", "unknown key 'colour'"),
    ("seed = 1\ngamez = 5\n[[arm]]\ngame = 'knutten'\nplayers = 4\n", "unknown key 'gamez'"),
    ("seed = 1\n", "at least one [[arm]]"),
    ("seed = 1\n[[arm]]\nplayers = 4\n", "missing 'game'"),
    ("seed = 1\n[[arm]]\ngame = 'knutten'\nplayers = 4\nrules = { threshold = 2 }\n", "threshold=2"),
    ("seed = 1\n[[arm]]\nname='a'\ngame = 'knutten'\nplayers = 4\n[[arm]]\nname='a'\ngame = 'knutten'\nplayers = 3\n",
     "used twice"),
    ("seed = [1\n", "not valid TOML"),
    ("games = -5\n[[arm]]\ngame = 'knutten'\nplayers = 4\n", "games=-5"),
])
def test_bad_study_files(capsys, tmp_path, text, message):
    path = tmp_path / "bad.toml"
    path.write_text(text)
    code, _, err = run(capsys, "study", str(path), "--out", str(tmp_path / "o"), "--workers", "0")
    assert code == 2
    assert message in err
    assert not (tmp_path / "o").exists()


def test_compile_fills_the_cache_for_the_games_named(capsys):
    code, out, err = run(capsys, "compile", "toy", "--jobs", "2")
    assert code == 0, err
    assert "toy:" in out and "compiled in" in out
    from sim.registry import get_game
    from sim.spec import ArmSpec

    arm = ArmSpec.make("toy", 3, None, "random")
    runner = get_game("toy").runner()
    assert runner.traced(arm, 0, 0)[1].shape[0] > 0  # the traced driver runs (now from the cache)


@pytest.mark.parametrize("argv,message", [(["compile", "nope"], "unknown game 'nope'"),
                                          (["compile", "--jobs", "0"], "--jobs must be at least 1")])
def test_compile_rejects_bad_input_in_one_line(capsys, argv, message):
    code, _, err = run(capsys, *argv)
    assert code == 2 and message in err and err.count("\n") == 1
