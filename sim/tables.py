"""Batch tables: the Arrow schema of a game's rows and the table built from a kernel's records."""
from __future__ import annotations

from functools import lru_cache

import numpy as np
import pyarrow as pa

from sim.errors import KernelError
from sim.registry import COMMON_COLUMNS, RUNNER_COLUMNS, Game


def arrow_type(dtype: str) -> pa.DataType:
    """A registry column type ("int8", "string", "list<int16>", ...) as Arrow; lists hold no nulls."""
    if dtype.startswith("list<") and dtype.endswith(">"):
        return pa.list_(pa.field("item", pa.type_for_alias(dtype[5:-1]), nullable=False))
    return pa.type_for_alias(dtype)


@lru_cache(maxsize=None)
def table_schema(game: Game, luck: bool = True) -> pa.Schema:
    """The common columns then the game's own; its luck measures (Game.luck) only with `luck`, for
    arms that measure them. No column is ever null (absent values are -1), and saying so lets
    Parquet skip the definition levels: a sixth of the write."""
    columns = [c for c in COMMON_COLUMNS + game.columns if luck or c.name not in game.luck]
    return pa.schema([pa.field(c.name, arrow_type(c.dtype), nullable=False) for c in columns])


def record_columns(game: Game):
    """The columns a kernel writes into its record (every column but the runner's own)."""
    return [c for c in COMMON_COLUMNS + game.columns if c.name not in RUNNER_COLUMNS]


def seat_lists(values: np.ndarray, arrow_item: pa.DataType) -> pa.ListArray:
    """A (games, k) array as a list column, one list of k per game."""
    games, k = values.shape
    offsets = np.arange(0, games * k + 1, k, dtype=np.int32)
    flat = pa.array(np.ascontiguousarray(values).reshape(-1), type=arrow_item)
    return pa.ListArray.from_arrays(pa.array(offsets), flat,
                                    type=pa.list_(pa.field("item", arrow_item, nullable=False)))


def build_table(game: Game, arm, first: int, out: np.ndarray, lengths: dict[str, int]) -> pa.Table:
    """One row per game of `out` (the kernel's records): the runner's columns, then every record
    field under its own name (the luck measures only when the arm measures luck), list fields
    trimmed to their length for this arm."""
    count = len(out)
    schema = table_schema(game, getattr(arm, "luck", False))
    missing = [c.name for c in record_columns(game) if c.name not in out.dtype.names]
    if missing:
        raise KernelError(f"{game.name}: the kernel's record has no field for columns {missing}")
    winner_mask = np.ascontiguousarray(out["winner_mask"]).astype(np.int32)
    columns = {
        "arm": pa.repeat(arm.name, count),
        "game": pa.array(np.arange(first, first + count, dtype=np.int64)),
        "players": pa.array(np.full(count, arm.players, dtype=np.int8)),
        "n_winners": pa.array(np.bitwise_count(winner_mask).astype(np.int8)),
    }
    for column in record_columns(game):
        if column.name not in schema.names:  # a luck measure of an arm that does not measure luck
            continue
        values = out[column.name]
        kind = schema.field(column.name).type
        if column.is_list:
            length = lengths[column.length or "seats"]
            columns[column.name] = seat_lists(values[:, :length], kind.value_type)
        else:
            columns[column.name] = pa.array(np.ascontiguousarray(values), type=kind)
    return pa.Table.from_arrays([columns[name] for name in schema.names], schema=schema)
