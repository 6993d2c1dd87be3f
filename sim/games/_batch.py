"""What every game runner shares: seat-policy ids, kernel status checks, Arrow tables."""
from __future__ import annotations

import numpy as np
import pyarrow as pa

from sim.errors import KernelError


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


def seat_lists(values: np.ndarray, dtype) -> pa.ListArray:
    """A (games, seats) array as a list column, one list per game in seat order."""
    games, seats = values.shape
    offsets = np.arange(0, games * seats + 1, seats, dtype=np.int32)
    return pa.ListArray.from_arrays(pa.array(offsets), pa.array(values.reshape(-1).astype(dtype)))


def build_table(arm, start: int, winner_mask: np.ndarray, turns: np.ndarray, rounds: np.ndarray,
                score: np.ndarray, extra: dict[str, pa.Array | np.ndarray]) -> pa.Table:
    """Common columns (registry.COMMON_COLUMNS) then the game's own, one row per game."""
    count = len(winner_mask)
    winner_mask = winner_mask.astype(np.int32)
    n_winners = sum(((winner_mask >> s) & 1) for s in range(arm.players)).astype(np.int8)
    columns = {
        "arm": pa.DictionaryArray.from_arrays(pa.array(np.zeros(count, np.int32)),
                                      pa.array([arm.name])).cast(pa.string()),
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
    return pa.table(columns)
