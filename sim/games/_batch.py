"""What every game runner shares: seat-policy ids, kernel status checks, Arrow tables."""
from __future__ import annotations

from functools import lru_cache

import numpy as np
import pyarrow as pa

from sim.errors import KernelError
from sim.registry import COMMON_COLUMNS, get_game


def policy_ids(arm) -> np.ndarray:
    info = arm.info
    return np.array([info.policy(name).id for name in arm.policies], dtype=np.int64)


def rule_array(arm, order: tuple[str, ...]) -> np.ndarray:
    """Rule values as an int64 array in the kernel's index order (the enums module's R_* names)."""
    values = arm.rule_values
    return np.array([values[name] for name in order], dtype=np.int64)


def raise_on_error(status: int, failed_game: int, messages: dict[int, str], arm) -> None:
    if status != 0:
        what = messages.get(int(status), f"kernel error code {status}")
        raise KernelError(f"{arm.game} arm {arm.name!r}, game {failed_game}: {what}")


def arrow_type(dtype: str) -> pa.DataType:
    """A registry column type ("int8", "string", "list<int16>", ...) as Arrow; lists hold no nulls."""
    if dtype.startswith("list<") and dtype.endswith(">"):
        return pa.list_(pa.field("item", pa.type_for_alias(dtype[5:-1]), nullable=False))
    return pa.type_for_alias(dtype)


@lru_cache(maxsize=None)
def table_schema(game: str) -> pa.Schema:
    """The common columns then the game's own. No column is ever null (absent values are -1), and
    saying so lets Parquet skip the definition levels: a sixth of the write."""
    columns = COMMON_COLUMNS + get_game(game).columns
    return pa.schema([pa.field(c.name, arrow_type(c.dtype), nullable=False) for c in columns])


def seat_lists(values: np.ndarray, dtype) -> pa.ListArray:
    """A (games, seats) array as a list column, one list per game in seat order."""
    games, seats = values.shape
    offsets = np.arange(0, games * seats + 1, seats, dtype=np.int32)
    flat = pa.array(values.reshape(-1).astype(dtype))
    return pa.ListArray.from_arrays(pa.array(offsets), flat,
                                    type=pa.list_(pa.field("item", flat.type, nullable=False)))


def build_table(arm, start: int, winner_mask: np.ndarray, turns: np.ndarray, rounds: np.ndarray,
                score: np.ndarray, extra: dict[str, pa.Array | np.ndarray]) -> pa.Table:
    """Common columns (registry.COMMON_COLUMNS) then the game's own, one row per game."""
    count = len(winner_mask)
    winner_mask = winner_mask.astype(np.int32)
    n_winners = np.bitwise_count(winner_mask).astype(np.int8)
    columns = {
        "arm": pa.repeat(arm.name, count),
        "game": pa.array(np.arange(start, start + count, dtype=np.int64)),
        "players": pa.array(np.full(count, arm.players, dtype=np.int8)),
        "winner_mask": pa.array(winner_mask),
        "n_winners": pa.array(n_winners),
        "turns": pa.array(turns.astype(np.int32)),
        "rounds": pa.array(rounds.astype(np.int32)),
        "score": seat_lists(score, np.int32),
    }
    for name, values in extra.items():
        columns[name] = values if isinstance(values, pa.Array) else pa.array(values)
    schema = table_schema(arm.game)
    if columns.keys() != set(schema.names):  # the schema names the arrays: a stray or missing
        raise KernelError(f"{arm.game}: columns {sorted(columns.keys() ^ set(schema.names))} "
                          "are not the registered ones")
    return pa.Table.from_arrays([columns[name] for name in schema.names], schema=schema)
