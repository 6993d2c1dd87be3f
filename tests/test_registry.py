"""Every registered game: metadata is consistent, documented, and matches what play_batch writes."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pytest

from sim.registry import COMMON_COLUMNS, games
from sim.spec import ArmSpec

ROOT = Path(__file__).resolve().parents[1]
GAMES = sorted(games())
ARROW = {"string": pa.string(), "int64": pa.int64(), "int32": pa.int32(), "int16": pa.int16(),
         "int8": pa.int8(), "bool": pa.bool_()}
ARROW.update({f"list<{k}>": pa.list_(pa.field("item", ARROW[k], nullable=False))
              for k in ("int32", "int16", "int8")})


def test_importing_sim_compiles_nothing():
    code = ("import sys, sim, sim.cli, sim.registry, sim.spec, pipelines.run, reports\n"
            "sim.registry.games()\n"
            "print(any(m.startswith('kernels.') and m != 'kernels.jit' for m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert out.stdout.strip() == "False", out.stderr


@pytest.mark.parametrize("name", GAMES)
def test_game_metadata_is_consistent(name):
    game = games()[name]
    assert 2 <= game.min_players <= game.max_players
    assert (ROOT.parent / "shared" / "seeds" / game.seed_file).exists() or not (ROOT.parent / "shared").exists()
    ids = [p.id for p in game.policies]
    assert len(set(ids)) == len(ids), "policy ids must be unique"
    for rule in game.rules:
        assert rule.lo <= rule.default <= rule.hi, rule.name
        assert rule.help and rule.ruling, f"{rule.name} needs a meaning and its source"
    assert (ROOT / "docs" / "rules" / f"{name}.md").exists()


@pytest.mark.parametrize("name", GAMES)
def test_every_column_is_documented(name):
    schema = (ROOT / "docs" / "schema.md").read_text()
    for column in COMMON_COLUMNS + games()[name].columns:
        assert f"`{column.name}`" in schema, column.name


@pytest.mark.parametrize("name", GAMES)
def test_play_batch_writes_the_registered_columns(name):
    game = games()[name]
    arm = ArmSpec.make(name, game.min_players + 1, {}, game.policies[0].name)
    table = game.runner().play_batch(arm, 3, 10, 25)
    expected = [(c.name, ARROW[c.dtype]) for c in COMMON_COLUMNS + game.columns]
    assert [(f.name, f.type) for f in table.schema] == expected
    assert not any(f.nullable for f in table.schema), "no column holds nulls (absent values are -1)"
    assert table.num_rows == 25
    assert table.column("game").to_pylist() == list(range(10, 35))


def test_build_table_takes_columns_by_name_and_refuses_strays():
    """Columns are matched to the registered schema by name, so a runner listing them in another
    order still writes each under its own name; a missing or unknown column is an error."""
    import numpy as np

    from sim.errors import KernelError
    from sim.games._batch import build_table

    game = games()["knutten"]
    arm = ArmSpec.make("knutten", 2, {}, "random")
    n = 3
    extra = {c.name: np.full(n, i, dtype=ARROW[c.dtype].to_pandas_dtype())
             for i, c in enumerate(game.columns)}
    args = (arm, 0, np.ones(n, np.int64), np.full(n, 7), np.ones(n, np.int64), np.zeros((n, 2)))
    table = build_table(*args, dict(reversed(list(extra.items()))))
    assert table.column("john_discarded_turn").to_pylist() == [len(game.columns) - 1] * n
    assert table.column("swarm_bites").to_pylist() == [0] * n
    with pytest.raises(KernelError, match="swarm_bites"):
        build_table(*args, {k: v for k, v in extra.items() if k != "swarm_bites"})
    with pytest.raises(KernelError, match="stray"):
        build_table(*args, dict(extra, stray=np.zeros(n, np.int8)))
