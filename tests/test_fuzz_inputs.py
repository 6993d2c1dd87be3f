"""Fuzzed input never gives a traceback: study files (any TOML shape, any value types), rule values,
decks, command lines and damaged study.json files end in a study or in one clear error.

Hypothesis draws the inputs; the toy game (tests/toy/) is the game, so every run that does start
plays at most a few hundred games in this process."""
from __future__ import annotations

import itertools
import json
import math
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from pipelines.plan import check_limits
from pipelines.run import run_study
from sim.cli import main
from sim.errors import SpecError
from sim.spec import ArmSpec, StudySpec

FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                         HealthCheck.too_slow])
TOY_RULES = ["tricks", "lowest_wins", "ties", "double_chance"]
KEYS = st.text(min_size=1, max_size=8)

scalars = st.one_of(
    st.integers(min_value=-2**63, max_value=2**63 - 1), st.integers(), st.booleans(),
    st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=12),
    st.sampled_from(["toy", "greedy", "random", "share", "nobody", "true", "4", "4.7", "1e3", "-1", ""]))
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(KEYS, inner, max_size=3),
                      max_leaves=8)


def maybe(strategy):
    return st.one_of(strategy, values)


seat = st.fixed_dictionaries({}, optional={
    "policy": maybe(st.sampled_from(["greedy", "random", "nope"])),
    "bluff": maybe(st.floats(0, 1)), "order": maybe(st.sampled_from(["best_first", "worst_first"])),
    "params": values})
arm = st.fixed_dictionaries({}, optional={
    "name": maybe(st.sampled_from(["a", "b", "study.json", "data", ".x", "a/b", "report.md"])),
    "game": maybe(st.sampled_from(["toy", "knutten-x", "nogame"])),
    "players": maybe(st.sampled_from([1, 2, 3, 4, 6, 7, 4.7, "4", True])),
    "rules": maybe(st.dictionaries(st.sampled_from(TOY_RULES + ["junk"]), values, max_size=3)),
    "policy": maybe(st.sampled_from(["greedy", "random", "greedy,random", "greedy:bluff=0.5", "greedy:bluff",
                                     "random:order=best_first", ",", ""])),
    "seat": maybe(st.lists(seat, max_size=4)),
    "data": maybe(st.dictionaries(st.sampled_from(["deck", "cards"]), values, max_size=2)),
    "deck": values,
    "colour": values})
study_dicts = st.fixed_dictionaries({}, optional={
    "name": maybe(st.sampled_from(["s", "x" * 70, "ok-name", "study.json"])),
    "seed": maybe(st.integers(-5, 2**64)), "games": maybe(st.integers(-5, 10**13)),
    "batch_size": maybe(st.integers(-5, 10**10)), "description": values,
    "defaults": maybe(arm), "arm": maybe(st.lists(arm, max_size=3)),
    "report": maybe(st.dictionaries(st.sampled_from(["edge", "correction", "equivalence_margin", "power"]),
                                    values, max_size=2))})


def toml_value(value) -> str:
    """A minimal TOML writer (inline tables and arrays) for the drawn structures."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf") if math.isinf(value) else repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    return "{" + ", ".join(f"{json.dumps(k, ensure_ascii=False)} = {toml_value(v)}" for k, v in value.items()) + "}"


def only_spec_errors(call):
    try:
        return call()
    except SpecError as exc:
        assert str(exc) and "\n" not in str(exc).strip(), repr(exc)
        return None


@FUZZ
@given(data=study_dicts)
def test_fuzzed_study_files_give_a_study_or_one_clear_error(tmp_path, data):
    path = tmp_path / "fuzz.toml"
    path.write_text("\n".join(f"{json.dumps(k, ensure_ascii=False)} = {toml_value(v)}" for k, v in data.items()),
                    encoding="utf-8", errors="surrogatepass")
    spec = only_spec_errors(lambda: StudySpec.from_toml(path))
    if spec is not None:
        only_spec_errors(lambda: check_limits(spec))


@FUZZ
@given(rule=st.sampled_from(TOY_RULES + ["junk", ""]), text=st.text(max_size=20) | st.sampled_from(
    ["1", "10", "11", "0", "-1", "1e400", "nan", "inf", "true", "yes", "share", "0.5", "1_000", "0x10", " 3 "]))
def test_fuzzed_rule_values(rule, text):
    only_spec_errors(lambda: ArmSpec.make("toy", 2, {rule: text}))


@FUZZ
@given(raw=st.binary(max_size=300) | st.text(max_size=200).map(str.encode) | st.lists(
    st.integers(-5, 120), max_size=60).map(lambda v: f"values = {v}\n".encode()))
def test_fuzzed_decks(tmp_path, raw):
    deck = tmp_path / "deck.toml"
    deck.write_bytes(raw)
    only_spec_errors(lambda: ArmSpec.make("toy", 2, data={"deck": deck}))


_runs = itertools.count()
OPTION_VALUES = {
    "--games": st.sampled_from(["1", "2", "300", "0", "-1", "10**3", "1e3", "1000000000000", str(2**64), "x"]),
    "--batch-size": st.sampled_from(["1", "7", "100", "0", "1000000000", str(2**70), "1_000", "abc"]),
    "--players": st.sampled_from(["2", "3", "6", "7", "0", "4.7", "-2", "x"]),
    "--seed": st.sampled_from(["0", "1", "-1", str(2**63), str(2**63 - 1), "1.5"]),
    "--workers": st.sampled_from(["0", "-1", "100000", "x"]),
    "--rule": st.sampled_from(["tricks=3", "tricks=99", "ties=nobody", "ties", "=", "junk=1", "tricks=1e400"]),
    "--policy": st.sampled_from(["greedy", "random,greedy", "greedy:bluff=2", ":", ",", "greedy:order=up"]),
    "--data": st.sampled_from(["deck=/no/such", "deck", "cards=x", "="]),
    "--index": st.sampled_from(["0", "5", "-1", str(2**63), str(2**80), "x"]),
    "--name": st.sampled_from(["ok", "study.json", "../x", "", "a" * 70]),
    "--address": st.sampled_from(["", "nohost", "127.0.0.1:notaport", "ray://"]),
}


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@example(command="trace", options=[["--index", str(2**63)]], game="toy")
@example(command="trace", options=[["--seed", str(2**63)]], game="toy")
@example(command="run", options=[["--games", "1000000000000"]], game="toy")
@example(command="run", options=[["--batch-size", "1000000000"], ["--games", "300"]], game="toy")
@example(command="run", options=[["--name", "study.json"]], game="toy")
@given(command=st.sampled_from(["run", "trace", "games", "report", "verify", "study"]),
       options=st.lists(st.sampled_from(sorted(OPTION_VALUES)).flatmap(
           lambda o: OPTION_VALUES[o].map(lambda v: [o, v])), max_size=4),
       game=st.sampled_from(["toy", "nogame", "", "--games"]))
def test_fuzzed_command_lines(tmp_path, capsys, command, options, game):
    out = tmp_path / f"o{next(_runs)}"
    argv = [command]
    if command in ("run", "trace", "games"):
        argv.append(game)
    elif command in ("report", "verify", "study"):
        argv.append(str(out / "nothing"))
    argv += [x for pair in options for x in pair]
    if command == "run":
        argv += ["--out", str(out)]
        if "--workers" not in argv:
            argv += ["--workers", "0"]
        if "--games" not in argv:
            argv += ["--games", "50"]
    try:
        code = main(argv)
    except SystemExit as exit_:  # argparse: usage and one error line, exit 2
        code = exit_.code
    _, err = capsys.readouterr()
    assert "Traceback" not in err, (argv, err)
    assert code in (0, 1, 2, 3), (argv, code, err)
    if code and err:
        assert err.rstrip("\n").splitlines()[-1].startswith(("kaartlab: error: ", "kaartlab ")), (argv, err)


@pytest.fixture(scope="module")
def dataset(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("fuzz") / "d"
    run_study(StudySpec("fz", 1, 40, 10, (ArmSpec.make("toy", 2, name="a"),)), out, workers=0, progress=False)
    return out


manifests = st.one_of(
    st.binary(max_size=200),
    values.map(lambda v: json.dumps(v, default=str).encode()),
    st.fixed_dictionaries({"kaartlab_dataset": maybe(st.just(2)), "fingerprint": values,
                           "integrity": maybe(st.just("sha256-sidecar-1")),
                           "study": maybe(st.fixed_dictionaries({
                               "name": maybe(st.just("fz")), "seed": maybe(st.just(1)),
                               "games": maybe(st.sampled_from([40, 0, -1, 10**30])),
                               "batch_size": maybe(st.sampled_from([10, 0, -3])),
                               "arms": maybe(st.lists(st.fixed_dictionaries({
                                   "name": maybe(st.sampled_from(["a", "b"])), "game": maybe(st.just("toy")),
                                   "players": maybe(st.just(2)), "rules": values, "seats": values,
                                   "policies": values, "data": values}), max_size=2))}))})
    .map(lambda m: json.dumps(m, default=str).encode()))


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(raw=manifests, command=st.sampled_from(["report", "verify", "trace", "run"]))
def test_a_damaged_study_json_is_one_clear_error(dataset, tmp_path, capsys, raw, command):
    import shutil

    copy = tmp_path / f"c{next(_runs)}"
    shutil.copytree(dataset, copy)
    (copy / "study.json").write_bytes(raw)
    argv = {"report": ["report", copy, "--out", tmp_path / "r"], "verify": ["verify", copy],
            "trace": ["trace", "--dataset", copy],
            "run": ["run", "toy", "--players", "2", "--games", "40", "--batch-size", "10", "--seed", "1",
                    "--name", "fz", "--workers", "0", "--out", copy]}[command]
    code = main([str(a) for a in argv])
    _, err = capsys.readouterr()
    assert "Traceback" not in err, err
    assert code in (0, 1, 2), (code, err)
    if code:
        assert err.count("\n") == 1 and err.startswith("kaartlab: "), err
