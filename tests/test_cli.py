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


def test_every_command_has_a_help_page(capsys):
    # argparse formats help strings with %: a stray one crashes only when --help is asked for
    from sim.cli import build_parser

    commands = build_parser()._subparsers._group_actions[0].choices
    assert {"run", "study", "trace", "plan", "serve", "bench"} <= set(commands)
    for command in commands:
        with pytest.raises(SystemExit) as exit_:
            main([command, "--help"])
        assert exit_.value.code == 0, command
        assert "usage: kaartlab " + command in capsys.readouterr().out, command


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


# ------------------------------------------------------------- planning from the command line

def _toy_study(tmp_path, games=1200):
    study = tmp_path / "quick.toml"
    study.write_text(f'name = "quick"\nseed = 2\ngames = {games}\nbatch_size = 400\n'
                     '[defaults]\ngame = "toy"\nplayers = 3\n'
                     '[[arm]]\nname = "a"\n[[arm]]\nname = "b"\nrules = { lowest_wins = true }\n')
    return study


def test_study_games_overrides_the_files_games_per_arm(capsys, tmp_path):
    study = _toy_study(tmp_path)
    code, out, err = run(capsys, "study", str(study), "--games", "300", "--out", str(tmp_path / "d"),
                         "--workers", "0")
    assert code == 0, err
    assert "2 arm(s) x 300 games (--games; the file says 1,200) = 600 games" in out
    counts = pl.read_parquet(tmp_path / "d" / "*" / "*.parquet").group_by("arm").len()
    assert dict(counts.iter_rows()) == {"a": 300, "b": 300}
    assert json.loads((tmp_path / "d" / "study.json").read_text())["study"]["games"] == 300


def test_games_override_never_mixes_into_the_full_studys_directory(capsys, tmp_path, monkeypatch):
    study = _toy_study(tmp_path)
    full = tmp_path / "full"
    assert run(capsys, "study", str(study), "--out", str(full), "--workers", "0")[0] == 0
    before = sorted(p.name for p in full.rglob("*"))
    code, _, err = run(capsys, "study", str(study), "--games", "300", "--out", str(full),
                       "--workers", "0")
    assert code == 2 and err.count("\n") == 1 and err.startswith("kaartlab: error: ")
    assert "holds this study file's own run (1,200 games per arm)" in err
    assert "give another --out (e.g. --out runs/quick-300-games)" in err
    assert sorted(p.name for p in full.rglob("*")) == before
    # without --out, a quick look has a directory of its own, and the file's games its usual one
    monkeypatch.chdir(tmp_path)
    assert run(capsys, "study", str(study), "--games", "300", "--workers", "0")[0] == 0
    rows = pl.read_parquet(tmp_path / "runs" / "quick-300-games" / "*" / "*.parquet")
    assert rows.height == 600
    code, out, _ = run(capsys, "study", str(study), "--games", "1200", "--workers", "0")
    assert code == 0 and "(--games" not in out and (tmp_path / "runs" / "quick" / "study.json").exists()


@pytest.mark.parametrize("command", [["study", str(ROOT / "examples" / "john-knut.toml")],
                                     ["run", "knutten"], ["skill", "knutten"]])
@pytest.mark.parametrize("value", ["0", "-5", "many", "1e3", "10000000000001"])
def test_bad_games_values_give_one_error_naming_games(capsys, tmp_path, command, value):
    out_dir = tmp_path / "out"
    code, _, err = run(capsys, *command, "--games", value, "--out", str(out_dir), "--workers", "0")
    assert code == 2
    assert err.startswith("kaartlab: error: --games=") and err.count("\n") == 1
    assert "expected a whole number 1..1,000,000,000,000" in err
    assert not out_dir.exists()


def test_the_estimate_is_printed_before_playing_and_its_pilot_writes_no_rows(capsys, tmp_path):
    study = _toy_study(tmp_path, games=6000)
    code, out, err = run(capsys, "study", str(study), "--out", str(tmp_path / "d"), "--workers", "0")
    assert code == 0, err
    lines = out.splitlines()
    estimate = next(i for i, line in enumerate(lines) if line.startswith("estimate: "))
    played = next(i for i, line in enumerate(lines) if line.startswith("played "))
    assert estimate < played
    assert lines[estimate].startswith("estimate: 12,000 games in about ")
    assert "of play on 1 worker (a ~" in lines[estimate] and ", b ~" in lines[estimate]
    assert "games/s per core measured now" in lines[estimate]
    games = pl.read_parquet(tmp_path / "d" / "*" / "*.parquet").group_by("arm").agg(
        pl.len(), pl.col("game").n_unique().alias("unique"), pl.col("game").max().alias("last"))
    assert sorted(games.rows()) == [("a", 6000, 6000, 5999), ("b", 6000, 6000, 5999)]
    # finished: nothing to play, nothing to estimate
    code, out, _ = run(capsys, "study", str(study), "--out", str(tmp_path / "d"), "--workers", "0")
    assert code == 0 and "nothing to do" in out and "estimate:" not in out


def test_no_estimate_and_tiny_studies_skip_the_pilot(capsys, tmp_path, monkeypatch):
    import sim.estimate

    def no_pilot(*args, **kwargs):
        raise AssertionError("the pilot ran")

    monkeypatch.setattr(sim.estimate, "time_arm", no_pilot)
    monkeypatch.setattr(sim.estimate.estimate, "__defaults__", (no_pilot, None, sim.estimate.SMALL_STUDY))
    study = _toy_study(tmp_path, games=2000)
    code, out, err = run(capsys, "study", str(study), "--out", str(tmp_path / "d"), "--workers", "0",
                         "--no-estimate")
    assert code == 0, err
    assert "estimate:" not in out
    tiny = _toy_study(tmp_path, games=200)
    code, out, err = run(capsys, "study", str(tiny), "--out", str(tmp_path / "t"), "--workers", "0")
    assert code == 0, err
    assert "estimate: none for 400 games (a study this small plays in about the time a pilot" in out


def test_the_estimate_adds_each_arms_measured_cost_and_shares_it_over_the_workers():
    from dataclasses import replace

    from sim.estimate import SMALL_STUDY, estimate
    from sim.spec import ArmSpec, StudySpec

    arms = (ArmSpec.make("toy", 3, name="a"), ArmSpec.make("toy", 3, name="a2"),
            ArmSpec.make("toy", 3, {"lowest_wins": True}, name="low"))
    study = StudySpec("e", 1, 100_000, 10_000, arms)
    asked = []

    def timer(arm, seed, cap):  # 'a' and 'a2' cost the same: timed once, for both
        asked.append((arm.name, cap))
        return (1000, 0.01) if arm.name == "a" else (1000, 0.1)  # 100,000 and 10,000 games/s

    todo = {"a": 100_000, "a2": 50_000, "low": 20_000}
    result = estimate(study, todo, workers=2, batches=17, timer=timer, share=1.0)
    assert asked == [("a", 15_000), ("low", 2_000)]  # a tenth of the games, at most
    assert result.seconds == pytest.approx((150_000 / 100_000 + 20_000 / 10_000) / 2)
    line = result.line()
    assert line.startswith("estimate: 170,000 games in about 1.8 s of play on 2 workers ")
    assert "busy" not in line
    # a busy machine: the pilot got a quarter of a core, and so will the workers
    busy = estimate(study, todo, workers=2, batches=17, timer=timer, share=0.25)
    assert busy.seconds == pytest.approx(4 * result.seconds)
    assert replace(busy, load=9.0).line().endswith(
        "comes on top; the machine is busy (load 9.0): the pilot got 25% of a core, and so does "
        "the estimate)")
    assert "a (+1 alike) ~100,000 games/s, low ~10,000 games/s per core measured now" in line
    # one batch left: one worker plays it, however many there are
    assert estimate(study, {"a": 10_000}, 2, 1, timer=timer, share=1.0).seconds == pytest.approx(0.1)
    # a cluster of unknown size: per CPU
    assert "per CPU of the cluster" in estimate(study, todo, None, 17, timer=timer).line()
    assert estimate(study, {"a": SMALL_STUDY - 1}, 2, 1, timer=timer).seconds is None
    # where it plays: one core needs 3.5 s (no sooner here); a tenth of it 0.35 s (sooner here)
    assert result.one_core == pytest.approx(3.5) and not result.sooner_here
    small = estimate(study, {"a": 15_000, "low": 2_000}, 2, 2, timer=timer, share=1.0)
    assert small.one_core == pytest.approx(0.35) and small.sooner_here
    assert "0.35 s of play in this process" in small.here_line()
    assert not busy.sooner_here and not estimate(study, {"a": 400}, 2, 1, timer=timer).sooner_here  # no pilot
    assert estimate(study, {"a": 400}, 2, 1, timer=timer, smallest=0).sooner_here  # pilot asked for


def test_a_study_one_core_plays_in_under_3_s_plays_in_this_process(capsys, tmp_path, monkeypatch):
    import pipelines.run

    def no_ray(*args, **kwargs):
        raise AssertionError("a local Ray was started for a study one core plays in a moment")

    monkeypatch.setattr(pipelines.run, "start_ray", no_ray)
    code, out, err = run(capsys, "run", "knutten", "--games", "300", "--out", str(tmp_path / "here"))
    assert code == 0, err
    assert "of play in this process" in out and "--workers N plays on Ray" in out
    assert "played 300 games" in out and "around the games" not in out
    here = pl.read_parquet(tmp_path / "here" / "main" / "*.parquet")
    code, _, err = run(capsys, "run", "knutten", "--games", "300", "--workers", "0", "--out", str(tmp_path / "zero"))
    assert code == 0, err
    assert here.equals(pl.read_parquet(tmp_path / "zero" / "main" / "*.parquet"))
    # told where to play, or without a pilot to decide by, it does what it is told: Ray
    for extra in (["--workers", "1"], ["--no-estimate"]):
        with pytest.raises(AssertionError, match="a local Ray was started"):
            main(["run", "knutten", "--games", "300", "--out", str(tmp_path / extra[-1]), *extra])


def test_the_report_is_written_while_the_ray_the_run_started_stops(capsys, tmp_path, monkeypatch):
    import threading

    import ray

    import pipelines.run
    import reports.build

    report_began = threading.Event()
    overlapped = []
    real_stop, real_build = pipelines.run.stop_ray, reports.build.build_report

    def stop_ray(*args, **kwargs):  # waits for the report to begin: a stop waited for first never sees it
        overlapped.append(report_began.wait(20))
        real_stop(*args, **kwargs)

    def build_report(*args, **kwargs):
        report_began.set()
        return real_build(*args, **kwargs)

    monkeypatch.setattr(pipelines.run, "stop_ray", stop_ray)
    monkeypatch.setattr(reports.build, "build_report", build_report)
    code, out, err = run(capsys, "study", str(_toy_study(tmp_path, games=400)), "--out", str(tmp_path / "d"),
                         "--workers", "1", "--report")
    assert code == 0, err
    assert overlapped == [True]
    assert "; Ray stops while the report is written" in out and "shut-down" not in out
    assert (tmp_path / "d" / "report.html").is_file()
    assert not ray.is_initialized() and not pipelines.run._stopping  # stopped before the command returned


def test_the_progress_bar_says_what_the_start_up_waits_for(capsys, tmp_path):
    code, out, err = run(capsys, "study", str(_toy_study(tmp_path, games=400)), "--out", str(tmp_path / "d"),
                         "--workers", "0", "--progress")
    assert code == 0, err
    assert ", loading the kernels]" in err  # the phase, on the bar while it runs
    last = err.rstrip().rsplit("\r", 1)[-1]
    assert "800/800" in last and "loading" not in last  # then the games, without it


def test_checking_a_studys_measure_names_imports_no_statistics_or_plotting_library():
    # a study file's questions name measures, checked against every game's report plug-in: that
    # must not wait over a second for SciPy, statsmodels and matplotlib, which only a report needs
    import subprocess
    import sys

    code = ("import sys; from reports.measures import names; from sim.registry import games\n"
            "[names(g) for g in games()]\n"
            "print(sorted(m for m in ('scipy', 'statsmodels', 'matplotlib', 'pandas') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_the_pilot_doubles_its_chunks_until_its_time_or_its_cap():
    from sim.estimate import time_arm
    from sim.spec import ArmSpec

    ticks = iter(i * 0.03 for i in range(1000))  # every chunk, and the encoding, take 0.03 s here
    arm = ArmSpec.make("toy", 3)
    # 1, 2, ..., 64 games: 0.21 s; the largest chunk's play and its encoding
    assert time_arm(arm, 1, cap=10**6, target=0.2, clock=lambda: next(ticks)) == (64, pytest.approx(0.06))
    # 1, 2, 4, 8, 16 and the 19 left of the cap
    assert time_arm(arm, 1, cap=50, target=0.2, clock=lambda: next(ticks)) == (19, pytest.approx(0.06))
    assert time_arm(arm, 1, cap=1, target=0.2, clock=lambda: next(ticks)) == (1, pytest.approx(0.06))


def test_kernels_not_in_the_cache_are_announced_before_they_compile(capsys, tmp_path, monkeypatch):
    import sim.estimate
    from sim.spec import StudySpec

    study = _toy_study(tmp_path, games=300)
    code, out, err = run(capsys, "study", str(study), "--out", str(tmp_path / "d"), "--workers", "0")
    assert code == 0, err
    assert sim.estimate.uncompiled_games(StudySpec.from_toml(study)) == []  # loaded in this process
    assert "compiling" not in out
    monkeypatch.setattr(sim.estimate, "uncompiled_games", lambda study: ["toy"])
    code, out, err = run(capsys, "study", str(study), "--out", str(tmp_path / "e"), "--workers", "0",
                         "--no-estimate")
    assert code == 0, err
    assert "compiling the toy kernel first, not in the cache yet (once, until a file under " \
           "kernels/ changes; typically 10-45 s per game" in out


def test_trace_refuses_an_index_beyond_the_arms_games(capsys, tmp_path):
    study = _toy_study(tmp_path, games=300)
    assert run(capsys, "study", str(study), "--out", str(tmp_path / "d"), "--workers", "0")[0] == 0
    code, out, _ = run(capsys, "trace", "--dataset", str(tmp_path / "d"), "--arm", "b", "--index", "299")
    assert code == 0 and out.count("\n") > 3
    for index in ("300", "5000", "-1"):
        code, out, err = run(capsys, "trace", "--dataset", str(tmp_path / "d"), "--arm", "b",
                             "--index", index)
        assert code == 2 and out == ""
        assert err == (f"kaartlab: error: --index={index}: arm 'b' of {tmp_path / 'd'} has 300 games, "
                       "numbered 0..299\n")


def test_games_lists_the_measures_a_question_can_name(capsys):
    from reports.measures import catalogue

    code, out, _ = run(capsys, "games", "knutten")
    assert code == 0
    listed = out.split("measures a [[question]] can name", 1)[1].splitlines()[1:]
    names = [line.split()[0] for line in listed if line.startswith("    ")]
    assert names == [m.name for m in catalogue("knutten")]
    assert "seat0_edge" in names and "bites" in names
    assert any(line.split()[:2] == ["bites", "count"] and line.endswith("(knutten)") for line in listed)
    code, out, _ = run(capsys, "games")
    assert code == 0
    assert "  measures: seat0_edge, seat_share, balance, turns, rounds, score, bites," in out


STOP_STUDY = '''name = "toystop"
seed = 3
batch_size = 1000
[defaults]
game = "toy"
players = 4
policy = "greedy"
[[arm]]
name = "a"
[[arm]]
name = "b"
rules = { lowest_wins = true }
[[question]]
kind = "compare"
arms = ["a", "b"]
measures = ["seat0_edge", "turns"]
[stop]
measure = "seat0_edge"
half_width = 0.025
max_games = 40_000
pilot = 2000
'''


def test_plan_prints_games_and_time_per_question_and_for_the_stop(capsys, tmp_path):
    path = tmp_path / "stop.toml"
    path.write_text(STOP_STUDY)
    code, out, err = run(capsys, "plan", str(path), "--pilot", "3000", "--workers", "1")
    assert code == 0, err
    assert "a pilot of 3,000 games per arm" in out
    assert "[stop] seat0_edge to +-0.025 (95% confidence sequences), at most 40,000 games per arm" in out
    # sd of a win weight near 0.25 with few shared wins: about 0.4; the sequence needs about 2.4x a fixed interval
    import re

    a_seq, a_fixed = map(lambda t: int(t.replace(",", "")),
                         re.search(r"a seat0_edge: sd 0\.\d+ per game -> ([\d,]+) games \(a fixed-n interval "
                                   r"looked at once: ([\d,]+)\)", out).groups())
    assert 1_500 < a_seq < 4_000 and 2.0 < a_seq / a_fixed < 2.8
    assert "question 1: compare: an edge of 1 point (report.edge)" in out
    assert "b - a seat0_edge: sd" in out and "b - a turns: sd 0 per game (not a share" in out
    assert re.search(r"needs [\d,]+ games per arm \([\d,]+ games, (about|under)", out)
    assert not any(tmp_path.glob("runs*")) and not (ROOT / "runs" / "toystop").exists()
    code, dry, _ = run(capsys, "study", str(path), "--dry-run", "--workers", "1")
    assert code == 0 and "[stop] seat0_edge to +-0.025" in dry
    with pytest.raises(SystemExit):
        main(["--help"])
    assert "before a study: how many games" in capsys.readouterr().out


def test_study_with_a_stop_plays_until_the_target_and_games_raises_the_cap(capsys, tmp_path):
    path = tmp_path / "stop.toml"
    path.write_text(STOP_STUDY.replace("half_width = 0.025", "half_width = 0.005"))
    out_dir = tmp_path / "s"
    code, out, err = run(capsys, "study", str(path), "--out", str(out_dir), "--workers", "0", "--games", "4000",
                         "--no-estimate")
    assert code == 0, err
    assert "up to 4,000 games, stopping once a seat0_edge, b seat0_edge reach +-0.005" in out
    assert "stopped: hit max_games (4,000 per arm) before the target" in out
    first = json.loads((out_dir / "study.json").read_text())
    assert first["stopped"]["reason"] == "max_games" and first["study"]["games"] == 4000
    # a bigger cap: the same directory grows
    code, out, err = run(capsys, "study", str(path), "--out", str(out_dir), "--workers", "0", "--games", "6000",
                         "--no-estimate")
    assert code == 0, err
    second = json.loads((out_dir / "study.json").read_text())
    assert second["study"]["games"] == 6000 and second["fingerprint"] == first["fingerprint"]
    assert "played 4,000 games" in out  # two batches per arm, nothing replayed
