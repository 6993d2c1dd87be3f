"""The toy game's registry entry and runner: everything kaartlab needs to play, store, trace and
report it. Registered for tests by tests/conftest.py (and in worker processes through the
KAARTLAB_GAMES variable it sets)."""
from __future__ import annotations

import numpy as np

from sim.contract import GameRunner
from sim.errors import SpecError
from sim.params import BoolParam, ChoiceParam, FloatParam, IntParam
from sim.registry import Column, DataInput, Game, Policy, Score
from sim.spec import parse_toml_text

DEFAULT_DECK = tuple(v for v in range(1, 14) for _ in range(4))


def parse_deck(text: str) -> tuple[int, ...]:
    """A deck file: `values = [1, 2, ...]`, 2-200 cards valued 1..99."""
    data = parse_toml_text(text, "the deck")
    for key in data:
        if key != "values":
            raise SpecError(f"unknown key {key!r} (allowed: values)")
    values = data.get("values")
    if (not isinstance(values, list) or not 2 <= len(values) <= 200
            or any(isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= 99 for v in values)):
        raise SpecError("values must be a list of 2-200 whole numbers in 1..99")
    return tuple(values)


SOURCE = "toy rules, tests/toy/rules.md"

GAME = Game(
    name="toy",
    title="Highest card (toy)",
    version=1,
    min_players=2,
    max_players=6,
    rules=(
        IntParam("tricks", 3, 1, 10, "cards dealt to each player, one played per trick", SOURCE),
        BoolParam("lowest_wins", False, "the lowest card takes the trick instead", SOURCE),
        ChoiceParam("ties", "share", ("share", "nobody"), "a tied trick scores for every tied "
                    "player, or for nobody", SOURCE),
        FloatParam("double_chance", 0.0, 0.0, 1.0, "chance that a trick scores 2 points", SOURCE),
    ),
    policies=(
        Policy("greedy", 1, "plays its strongest card", params=(
            FloatParam("bluff", 0.0, 0.0, 1.0, "chance to play its weakest card instead", SOURCE),
            ChoiceParam("order", "best_first", ("best_first", "worst_first"),
                        "strongest card first, or weakest first", SOURCE),
        )),
        Policy("random", 0, "plays a uniformly random card"),
    ),
    columns=(
        Column("tied_tricks", "int16", "tricks won by more than one player"),
        Column("doubled_tricks", "int16", "tricks that scored 2 points"),
        Column("best_card", "list<int8>", "highest card each seat was dealt", "seats"),
    ),
    score=Score("tricks won", higher_wins=True),
    max_turns=60,
    data=(DataInput("deck", "card values: `values = [1, 2, ...]`", parse_deck, DEFAULT_DECK,
                    dump=lambda values: f"values = {list(values)}\n"),),
    rules_doc="tests/toy/rules.md",
)


class ToyRunner(GameRunner):
    game = GAME
    kernel_module = "tests.toy.kernel"
    enums_module = "tests.toy.enums"
    trace_rows = 128

    def check_arm(self, arm) -> None:
        cards = len(arm.data_value("deck"))
        need = arm.players * arm.rule_values["tricks"]
        if cards < need:
            raise SpecError(f"the deck has {cards} cards; {arm.players} players with "
                            f"tricks={arm.rule_values['tricks']} need {need}")

    def data_arrays(self, arm) -> tuple:
        return (np.array(arm.data_value("deck"), dtype=np.int64),)

    def render_trace(self, arm, seed, index, rows, record) -> str:
        from tests.toy.enums import EV_DEAL, EV_END, EV_PLAY, EV_TRICK

        values = arm.data_value("deck")
        lines = [f"Highest card, game {index} of seed {seed}: {arm.describe()}"]
        hands: dict[int, list[int]] = {p: [] for p in range(arm.players)}
        plays: list[str] = []
        for code, a, b, c in rows.tolist():
            if code == EV_DEAL:
                hands[a].append(c)
                if len(hands[a]) == arm.rule_values["tricks"]:
                    lines.append(f"seat {a} ({arm.labels[a]}) is dealt {sorted(hands[a])}")
            elif code == EV_PLAY:
                plays.append(f"seat {a} {values[b]}")
            elif code == EV_TRICK:
                seats = [p for p in range(arm.players) if b >> p & 1]
                won = ("nobody scores" if not seats else
                       f"seat{'s' if len(seats) > 1 else ''} {', '.join(map(str, seats))} "
                       f"score{'' if len(seats) > 1 else 's'} {c}")
                lines.append(f"trick {a + 1}: {', '.join(plays)} -> {won}")
                plays = []
            elif code == EV_END:
                seats = [p for p in range(arm.players) if a >> p & 1]
                lines.append(f"scores {record['score'][:arm.players].tolist()}; "
                             f"winner{'s' if len(seats) > 1 else ''}: seat "
                             f"{', '.join(map(str, seats))}")
        return "\n".join(lines) + "\n"


RUNNER = ToyRunner()
