"""Every registered game: metadata is consistent, documented, and matches what play_batch writes."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pytest

from sim.errors import SpecError
from sim.registry import COMMON_COLUMNS, games
from sim.spec import ArmSpec

ROOT = Path(__file__).resolve().parents[1]
GAMES = sorted(games())
ARROW = {"string": pa.string(), "int64": pa.int64(), "int32": pa.int32(), "int16": pa.int16(),
         "int8": pa.int8(), "bool": pa.bool_(), "float32": pa.float32()}
ARROW.update({f"list<{k}>": pa.list_(pa.field("item", ARROW[k], nullable=False))
              for k in ("int32", "int16", "int8", "float32")})


def test_importing_sim_compiles_nothing():
    """Reading the registry imports runners and kernel constants, never Numba or a kernel."""
    code = ("import sys, sim, sim.cli, sim.registry, sim.spec, pipelines.run, reports\n"
            "sim.registry.games()\n"
            "print(any(m == 'numba' or m.endswith('_nb') for m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert out.stdout.strip() == "False", out.stderr


def test_parameters_are_validated_when_declared():
    from sim.params import ChoiceParam, IntParam

    with pytest.raises(ValueError, match="default"):
        IntParam("n", 9, 1, 5, "a count", "a ruling")
    with pytest.raises(ValueError, match="source"):
        IntParam("n", 3, 1, 5, "a count", "")
    with pytest.raises(ValueError, match="two or more"):
        ChoiceParam("c", "a", ("a",), "a choice", "a ruling")
    with pytest.raises(ValueError, match="default"):
        ChoiceParam("c", "z", ("a", "b"), "a choice", "a ruling")


def test_values_parse_to_canonical_types():
    from sim.params import BoolParam, ChoiceParam, FloatParam, IntParam

    assert IntParam("n", 3, 1, 5, "h", "s").parse("4") == 4
    assert FloatParam("x", 0.5, 0, 1, "h", "s").parse("0.25") == 0.25
    assert FloatParam("x", 0.5, 0, 1, "h", "s").parse(1) == 1.0
    assert BoolParam("b", False, "h", "s").parse("on") is True
    assert ChoiceParam("c", "a", ("a", "b"), "h", "s").kernel_value("b") == 1
    for param, bad in ((IntParam("n", 3, 1, 5, "h", "s"), 4.5), (IntParam("n", 3, 1, 5, "h", "s"), True),
                       (FloatParam("x", 0.5, 0, 1, "h", "s"), "inf"),
                       (ChoiceParam("c", "a", ("a", "b"), "h", "s"), 1)):
        with pytest.raises(SpecError, match=f"{param.name}="):
            param.parse(bad)


def test_two_policies_may_not_declare_one_player_parameter_differently():
    from sim.params import IntParam
    from sim.registry import Game, Policy, Score

    one = IntParam("depth", 1, 1, 3, "h", "s")
    other = IntParam("depth", 2, 1, 3, "h", "s")
    with pytest.raises(ValueError, match="depth"):
        Game("g", "G", 1, 2, 4, (), (Policy("a", 0, "h", (one,)), Policy("b", 1, "h", (other,))),
             (), Score("points", True), 10)


SHIPPED = [name for name in GAMES if games()[name].runner().__module__.startswith("sim.games.")]


@pytest.mark.parametrize("name", SHIPPED)
def test_every_shipped_game_has_its_rules_document(name):
    assert (ROOT / "docs" / "rules" / f"{name}.md").exists()


@pytest.mark.parametrize("name", SHIPPED)
def test_every_column_is_documented(name):
    schema = (ROOT / "docs" / "schema.md").read_text()
    for column in COMMON_COLUMNS + games()[name].columns:
        assert f"`{column.name}`" in schema, column.name


@pytest.mark.parametrize("name", GAMES)
def test_play_batch_writes_the_registered_columns(name):
    game = games()[name]
    arm = ArmSpec.make(name, game.min_players + 1, {}, game.policies[0].name)
    table = game.runner().play_batch(arm, 3, 10, 25)
    expected = [(c.name, ARROW[c.dtype]) for c in COMMON_COLUMNS + game.columns if c.name not in game.luck]
    assert [(f.name, f.type) for f in table.schema] == expected
    if game.luck:  # an arm that measures luck writes its columns too
        lucky = ArmSpec.make(name, game.min_players + 1, {}, game.policies[0].name, luck=True)
        assert [f.name for f in game.runner().play_batch(lucky, 3, 10, 25).schema] == \
            [c.name for c in COMMON_COLUMNS + game.columns]
    assert not any(f.nullable for f in table.schema), "no column holds nulls (absent values are -1)"
    assert table.num_rows == 25
    assert table.column("game").to_pylist() == list(range(10, 35))


def test_build_table_takes_columns_by_name_and_refuses_a_missing_one():
    """Columns are taken from the kernel's record by name, so a record with its fields in another
    order still writes each under its own name; a missing field is an error."""
    import numpy as np

    from sim.errors import KernelError
    from sim.tables import build_table, record_columns

    game = games()["toy"]
    arm = ArmSpec.make("toy", 2, {}, "random")
    fields = [(c.name, np.int32, (6,)) if c.is_list else (c.name, np.int32)
              for c in reversed(record_columns(game))]
    out = np.zeros(3, dtype=fields)
    out["winner_mask"] = 1
    out["tied_tricks"] = 4
    table = build_table(game, arm, 10, out, {"seats": 2})
    assert table.column("tied_tricks").to_pylist() == [4] * 3
    assert table.column("n_winners").to_pylist() == [1] * 3
    assert table.column("game").to_pylist() == [10, 11, 12]
    with pytest.raises(KernelError, match="tied_tricks"):
        build_table(game, arm, 0, out[[n for n, *_ in fields if n != "tied_tricks"]], {"seats": 2})
