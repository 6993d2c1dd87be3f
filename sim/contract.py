"""The game contract: what every game's runner provides, and the part written once for all.

A game is a kernel package `kernels/<game>/` (an enums module and a cached driver), a runner module
`sim/games/<game>.py` defining `RUNNER = <a GameRunner subclass>()`, an optional report plug-in
`reports/games/<game>.py`, `docs/rules/<game>.md` and its golden traces. docs/architecture.md has
the checklist.

Every kernel driver has one signature:

    play_games_nb(seed, first, count, rule_i, rule_f, seat_policy, seat_i, seat_f, data,
                  out, trace, checked) -> (status, failed_game, trace_rows)

seed, first, count   int64: play games first .. first+count-1 of the study with `seed`
rule_i, rule_f       int64 / float64 arrays: the rule parameters, ints (bools 0/1, a choice's
                     index) apart from floats, in declaration order (enums RULE_I_ORDER, RULE_F_ORDER);
                     for an arm that rotates its seats (a game with `rotates`), rule_i ends with
                     one more entry, 1 (kernels/rotation_nb.py); for an arm that measures luck
                     (a game with luck measures, Game.luck), the rotation flag (0 or 1) and a 1
seat_policy          int64[players]: each seat's policy id
seat_i, seat_f       int64 / float64 [players, k]: each seat's player parameters, the game's
                     player parameters in declaration order (enums SEAT_I_ORDER, SEAT_F_ORDER);
                     a seat whose policy lacks one gets its default
data                 a tuple of arrays: the game's data inputs as `data_arrays` makes them; for a
                     game with a `search_policy`, one more item: None when no seat searches (the
                     driver is then compiled without the search's code), else the searching seats
out                  a record array (enums OUT_DTYPE) of >= count rows: field names are the column
                     names; list columns are fixed-size subarrays, trimmed per arm
trace                None in batches, else int32[rows, TRACE_WIDTH] for the first game's events
checked              bool: check the game's invariants after every action
status               kernels.status: 0, or what went wrong in game `failed_game`
"""
from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import NamedTuple

import numpy as np
import pyarrow as pa

from sim.errors import KernelError
from sim.params import kernel_arrays
from sim.registry import Game
from sim.stack_room import with_room
from sim.tables import build_table, record_columns


class KernelInputs(NamedTuple):
    rule_i: np.ndarray
    rule_f: np.ndarray
    seat_policy: np.ndarray
    seat_i: np.ndarray
    seat_f: np.ndarray
    data: tuple


class GameRunner:
    """Subclass per game: set `game`, `kernel_module` and `enums_module`; override the hooks
    (`check_arm`, `data_arrays`, `list_lengths`, `render_trace`) the game needs."""

    game: Game
    kernel_module: str  # defines the cached driver play_games_nb
    enums_module: str  # RULE_I_ORDER, RULE_F_ORDER, SEAT_I_ORDER, SEAT_F_ORDER, OUT_DTYPE, TRACE_WIDTH
    trace_rows: int = 16384
    rotates: bool = False  # the kernel can rotate the seats over each deal (kernels/rotation_nb.py)
    # the policy whose code the driver compiles only for tables that seat it: `data` ends with
    # search_seats(arm), None (a type of its own to Numba) when no seat plays it
    search_policy: str | None = None

    # ------------------------------------------------------------------ hooks (per game)

    def check_arm(self, arm) -> None:
        """Raise SpecError for values that are each valid but do not go together."""

    def data_arrays(self, arm) -> tuple:
        """The kernel's `data` tuple for this arm (from arm.data_value(name))."""
        return ()

    def list_lengths(self, arm) -> dict[str, int]:
        """The length of each list column kind in this arm's rows."""
        return {"seats": arm.players}

    def render_trace(self, arm, seed: int, index: int, rows: np.ndarray, record) -> str:
        """Game `index` for people, from its trace rows and its output record."""
        raise NotImplementedError(f"{self.game.name} has no trace renderer")

    # ------------------------------------------------------------------ written once

    def enums(self):
        return importlib.import_module(self.enums_module)

    def search_seats(self, arm) -> np.ndarray | None:
        """The seats playing `search_policy` (int64), or None when there are none."""
        seats = [s for s, seat in enumerate(arm.seats) if seat.policy == self.search_policy]
        return np.array(seats, dtype=np.int64) if seats else None

    def kernel_inputs(self, arm) -> KernelInputs:
        game = self.game
        rule_i, rule_f = kernel_arrays(game.rules, arm.rule_values)
        if arm.rotate or arm.luck:  # the arm's flags after the rules: rotation, then luck
            rule_i = np.append(rule_i, np.array([1 if arm.rotate else 0] + ([1] if arm.luck else []), np.int64))
        seat_i, seat_f = [], []
        for seat in arm.seats:
            values = {p.name: p.default for p in game.player_params} | dict(seat.params)
            ints, floats = kernel_arrays(game.player_params, values)
            seat_i.append(ints)
            seat_f.append(floats)
        n_i = sum(not p.in_float_array for p in game.player_params)
        n_f = len(game.player_params) - n_i
        policy = np.array([game.policy(s.policy).id for s in arm.seats], dtype=np.int64)
        return KernelInputs(rule_i, rule_f, policy,
                            np.array(seat_i, dtype=np.int64).reshape(arm.players, n_i),
                            np.array(seat_f, dtype=np.float64).reshape(arm.players, n_f),
                            tuple(self.data_arrays(arm))
                            + ((self.search_seats(arm),) if self.search_policy else ()))

    def run_kernel(self, arm, seed: int, first: int, count: int, checked: bool = False,
                   trace: np.ndarray | None = None, inputs: KernelInputs | None = None):
        """Play the games into a fresh record array; returns (records, trace rows written)."""
        driver = importlib.import_module(self.kernel_module).play_games_nb
        inputs = inputs or self.kernel_inputs(arm)
        # a recarray: its rows read as attributes in plain Python too (NUMBA_DISABLE_JIT=1)
        out = np.zeros(count, dtype=self.enums().OUT_DTYPE).view(np.recarray)
        # with room on the frame stack: a first call compiles, up to 3x faster there (sim/stack_room.py)
        status, failed, rows = with_room(driver, np.int64(seed), np.int64(first), np.int64(count), *inputs,
                                         out, trace, bool(checked))
        if status != 0:
            from kernels.status import MESSAGES

            what = MESSAGES.get(int(status), f"kernel status {status}")
            raise KernelError(f"{self.game.name} arm {arm.name!r}, game {failed}: {what}")
        return out, int(rows)

    def play_batch(self, arm, seed: int, first: int, count: int, checked: bool = False) -> pa.Table:
        out, _ = self.run_kernel(arm, seed, first, count, checked)
        return build_table(self.game, arm, first, out, self.list_lengths(arm))

    def traced(self, arm, seed: int, index: int):
        """(output record, trace rows) of game `index`, played in checked mode."""
        trace = np.zeros((self.trace_rows, self.enums().TRACE_WIDTH), dtype=np.int32)
        out, rows = self.run_kernel(arm, seed, index, 1, checked=True, trace=trace)
        return out[0], trace[:rows]

    def trace_game(self, arm, seed: int, index: int) -> str:
        record, rows = self.traced(arm, seed, index)
        text = self.render_trace(arm, seed, index, rows, record)
        if not arm.rotate:
            return text
        deal, k = divmod(index, arm.players)
        head, _, rest = text.partition("\n")
        return (f"{head}\nSeat rotation: game {index} is deal {deal} at rotation {k}; seat s holds the cards (and "
                f"makes the random choices) of seat (s + {k}) mod {arm.players} in game {deal} unrotated\n{rest}")

    def bench_call(self, arm, seed: int = 1) -> Callable[[int], object]:
        """The benchmark entry point: plays `count` games through the kernel alone (no Arrow, no
        files), its inputs made once."""
        inputs = self.kernel_inputs(arm)
        return lambda count: self.run_kernel(arm, seed, 0, count, inputs=inputs)

    def contract_problems(self) -> list[str]:
        """Where the registry and the kernel's enums disagree (the conformance suite asserts none)."""
        game, enums, problems = self.game, self.enums(), []
        expect = {
            "RULE_I_ORDER": tuple(p.name for p in game.rules if not p.in_float_array),
            "RULE_F_ORDER": tuple(p.name for p in game.rules if p.in_float_array),
            "SEAT_I_ORDER": tuple(p.name for p in game.player_params if not p.in_float_array),
            "SEAT_F_ORDER": tuple(p.name for p in game.player_params if p.in_float_array),
        }
        for name, names in expect.items():
            if tuple(getattr(enums, name, ())) != names:
                problems.append(f"{name}: kernel {getattr(enums, name, None)} != registry {names}")
        fields = enums.OUT_DTYPE.fields
        for column in record_columns(game):
            if column.name not in fields:
                problems.append(f"column {column.name!r} is not a field of OUT_DTYPE")
                continue
            dtype = fields[column.name][0]
            item = dtype.subdtype[0] if dtype.subdtype else dtype
            want = column.dtype[5:-1] if column.is_list else column.dtype
            if column.is_list != (dtype.subdtype is not None) or np.dtype(want) != item:
                problems.append(f"column {column.name!r} is {column.dtype}, OUT_DTYPE has {dtype}")
        extra = set(fields) - {c.name for c in record_columns(game)}
        if extra:
            problems.append(f"OUT_DTYPE fields without a column: {sorted(extra)}")
        return problems
