"""One conformance suite over every registered game (the toy game of tests/toy included).

For each game: the registry agrees with the kernel's constants and output record; every player
count and policy plays in checked mode (the kernel checks that cards are conserved and moves are
legal after every action) with rows that keep the game's bounds; random legal parameter values
(Hypothesis) play too; rows do not depend on the batch size; the kernel run as plain Python
(NUMBA_DISABLE_JIT=1) plays the same games; and the game has its rules document and golden traces,
which replay line by line.

Golden traces: tests/golden/<game>_<case>.txt starts with the `kaartlab trace` command that makes
it. Regenerate after an intended change with
    KAARTLAB_REGEN_GOLDEN=1 .venv/bin/python -m pytest tests/test_conformance.py -k golden
and read every changed trace before committing it.
"""
from __future__ import annotations

import difflib
import glob
import io
import json
import os
import shlex
import subprocess
import sys
from contextlib import redirect_stdout
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from sim.errors import SpecError
from sim.registry import COMMON_COLUMNS, games
from sim.spec import ArmSpec

ROOT = Path(__file__).resolve().parents[1]
GAMES = sorted(games())
SEED = 11


def rows_are_sound(game, arm, table: pa.Table) -> None:
    """What every row of every game must satisfy, whatever the rules and players."""
    rows = table.to_pylist()
    seats = (1 << arm.players) - 1
    for row in rows:
        assert row["arm"] == arm.name and row["players"] == arm.players
        assert 0 < row["winner_mask"] <= seats, row
        assert row["n_winners"] == bin(row["winner_mask"]).count("1")
        assert 0 <= row["turns"] <= game.max_turns, row  # 0: e.g. a WIND at the deal ends it
        assert row["rounds"] >= 1
        assert len(row["score"]) == arm.players
        best = (max if game.score.higher_wins else min)(row["score"])
        assert row["winner_mask"] == sum(1 << s for s, v in enumerate(row["score"]) if v == best), (
            "the winners are the seats with the best score")
    lengths = arm.info.runner().list_lengths(arm)
    for column in game.columns:
        if column.is_list and (arm.luck or column.name not in game.luck):
            assert {len(r[column.name]) for r in rows} == {lengths[column.length or "seats"]}


# ------------------------------------------------------------------------------ the contract

@pytest.mark.parametrize("name", GAMES)
def test_registry_matches_the_kernel(name):
    game = games()[name]
    runner = game.runner()
    assert runner.contract_problems() == []
    assert runner.enums().MAX_TURNS == game.max_turns
    assert runner.enums().MAX_PLAYERS >= game.max_players
    names = [c.name for c in COMMON_COLUMNS + game.columns]
    assert len(set(names)) == len(names)


def documentation_problems(game) -> list[str]:
    """What a game lacks: its rules document, an explanation of each parameter and policy there,
    a meaning and source for each parameter, golden traces."""
    doc = ROOT / game.rules_doc_path
    if not doc.exists():
        return [f"{game.name} needs {game.rules_doc_path}"]
    text = doc.read_text()
    problems = [f"{game.rules_doc_path} does not explain `{item.name}`"
                for item in game.rules + game.player_params + game.policies
                if f"`{item.name}`" not in text]
    if not glob.glob(str(ROOT / game.golden_glob)):
        problems.append(f"{game.name} has no golden trace ({game.golden_glob})")
    return problems


@pytest.mark.parametrize("name", GAMES)
def test_game_is_documented(name):
    assert documentation_problems(games()[name]) == []


def test_a_game_without_golden_traces_or_rules_document_fails(tmp_path):
    """The suite's own check can fail: a game missing either is caught."""
    from dataclasses import replace

    toy = games()["toy"]
    no_doc = replace(toy, rules_doc=str(tmp_path / "none.md"))
    assert documentation_problems(no_doc) == [f"toy needs {tmp_path / 'none.md'}"]
    no_golden = replace(toy, golden=str(tmp_path / "*.txt"))
    assert documentation_problems(no_golden) == [f"toy has no golden trace ({tmp_path / '*.txt'})"]
    (tmp_path / "thin.md").write_text("# toy\nonly `tricks` is explained\n")
    assert len(documentation_problems(replace(toy, rules_doc=str(tmp_path / "thin.md")))) == 7


# ------------------------------------------------------------------------------ play

def mixed(game, players: int) -> str:
    """One policy per seat, every policy present when the seats allow."""
    return ",".join(game.policies[s % len(game.policies)].name for s in range(players))


def cheap(game, seats: str) -> str:
    """The seats with every search budget (`samples`) at 2: plain Python plays each playout."""
    budgeted = {p.name for p in game.policies if any(q.name == "samples" for q in p.params)}
    return ",".join(f"{s}:samples=2" if s in budgeted else s for s in seats.split(","))


def tables(name):
    """Every player count with every policy at every seat, plus one mixed table per count."""
    game = games()[name]
    for players in range(game.min_players, game.max_players + 1):
        for policy in game.policies:
            yield players, policy.name
        yield players, mixed(game, players)


@pytest.mark.parametrize("name,players,policy", [(g, *t) for g in GAMES for t in tables(g)])
def test_every_player_count_and_policy_plays_checked(name, players, policy):
    game = games()[name]
    arm = ArmSpec.make(name, players, {}, policy)
    table = game.runner().play_batch(arm, SEED, 0, 6, checked=True)
    assert table.num_rows == 6
    rows_are_sound(game, arm, table)


def param_value(param):
    if param.kind == "bool":
        return st.booleans()
    if param.kind == "choice":
        return st.sampled_from(param.options)
    if param.kind == "float":
        return st.floats(param.lo, param.hi, allow_nan=False)
    # long games are slow, not new; a search budget (`samples`) changes only how long a decision
    # takes, not which rules are played
    span = 7 if param.name == "samples" else 60
    return st.integers(param.lo, min(param.hi, param.lo + span))


@st.composite
def random_arm(draw, name):
    game = games()[name]
    players = draw(st.integers(game.min_players, game.max_players))
    rules = {p.name: draw(param_value(p)) for p in game.rules}
    seats = []
    for _ in range(players):
        policy = draw(st.sampled_from(game.policies))
        params = {p.name: draw(param_value(p)) for p in policy.params}
        seats.append({"policy": policy.name, **params})
    try:
        return ArmSpec.make(name, players, rules, seats)
    except SpecError:  # values that are each legal but do not go together (check_arm)
        assume(False)


@pytest.mark.parametrize("name", GAMES)
def test_random_legal_parameters_play_checked(name):
    game = games()[name]

    @settings(max_examples=15, deadline=None, derandomize=True,  # the same draws in every run
              suppress_health_check=[HealthCheck.too_slow])
    @given(random_arm(name), st.integers(0, 2**40))
    def check(arm, seed):
        rows_are_sound(game, arm, game.runner().play_batch(arm, seed, 0, 3, checked=True))

    check()


@pytest.mark.parametrize("name", GAMES)
def test_rows_do_not_depend_on_the_batch_size(name):
    game = games()[name]
    arm = ArmSpec.make(name, game.max_players, {}, mixed(game, game.max_players))
    runner = game.runner()
    whole = runner.play_batch(arm, SEED, 0, 9)
    parts = pa.concat_tables([runner.play_batch(arm, SEED, a, b - a) for a, b in ((0, 2), (2, 7), (7, 9))])
    assert whole.equals(parts)


_PLAIN_PYTHON = """
import json, sys
from sim.registry import games
from sim.spec import ArmSpec
name, players, policy, seed, count = json.loads(sys.argv[1])
arm = ArmSpec.make(name, players, {}, policy)
table = games()[name].runner().play_batch(arm, seed, 0, count, checked=True)
print(json.dumps(table.to_pylist()))
"""


@pytest.mark.parametrize("name", GAMES)
def test_plain_python_plays_the_same_games(name):
    """The kernel run by the Python interpreter (NUMBA_DISABLE_JIT=1) against the compiled one."""
    game = games()[name]
    policy = cheap(game, mixed(game, game.min_players + 1))
    args = [name, game.min_players + 1, policy, SEED, 2]
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1", "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", _PLAIN_PYTHON, json.dumps(args)], cwd=ROOT,
                         env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    arm = ArmSpec.make(name, game.min_players + 1, {}, policy)
    compiled = game.runner().play_batch(arm, SEED, 0, 2, checked=True).to_pylist()
    assert json.loads(out.stdout) == compiled


# ------------------------------------------------------------------------------ golden traces

def golden_cases():
    for name in GAMES:
        for path in sorted(glob.glob(str(ROOT / games()[name].golden_glob))):
            yield pytest.param(Path(path), id=Path(path).name)


@pytest.mark.parametrize("path", list(golden_cases()))
def test_golden_trace_replays_line_by_line(path, monkeypatch):
    from sim.cli import main

    monkeypatch.chdir(ROOT)  # data files in the commands are relative to the repository
    header, _, expected = path.read_text().partition("\n")
    assert header.startswith("# kaartlab trace "), f"{path.name} must start with its command"
    buffer = io.StringIO()
    with redirect_stdout(buffer):
        assert main(shlex.split(header[len("# kaartlab "):])) == 0
    got = buffer.getvalue()
    if os.environ.get("KAARTLAB_REGEN_GOLDEN"):
        path.write_text(f"{header}\n{got}")
        expected = got
    diff = "".join(difflib.unified_diff(expected.splitlines(True), got.splitlines(True),
                                        f"golden/{path.name}", "kaartlab trace now"))
    assert not diff, f"trace {path.name} changed:\n{diff}"


def test_kernel_values_reach_the_kernel_in_declaration_order():
    """Rule and player parameters arrive as the int64 / float64 arrays the contract describes."""
    arm = ArmSpec.make("toy", 3, {"tricks": 5, "lowest_wins": True, "ties": "nobody",
                                  "double_chance": 0.25},
                       ["greedy:bluff=0.5:order=worst_first", "random", "greedy"])
    inputs = games()["toy"].runner().kernel_inputs(arm)
    assert inputs.rule_i.tolist() == [5, 1, 1] and inputs.rule_f.tolist() == [0.25]
    assert inputs.seat_policy.tolist() == [1, 0, 1]
    assert inputs.seat_i.tolist() == [[1], [0], [0]]  # random lacks `order`: its default
    assert inputs.seat_f.tolist() == [[0.5], [0.0], [0.0]]
    assert inputs.seat_i.dtype == np.int64 and inputs.seat_f.dtype == np.float64
