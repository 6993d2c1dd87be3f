"""Knutten golden traces (tests/golden/knutten_*.txt) agree with the rows of the same games.

The traces replay line by line in tests/test_conformance.py (regenerate there, and read the new
logs before committing them: each was checked move by move by a person). The cases were picked to show John (played, bites, discarded), ? cards, heavy weather, WIND, a
reshuffle of the swarm and (rule stuck_empty_pile = wait) a stuck seat waiting.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from sim.games import knutten as kn
from sim.spec import ArmSpec

GOLDEN = Path(__file__).parent / "golden"
SEED = 7

CASES = {
    "knutten_4p_cautious_john": (4, {}, "cautious", 10),
    "knutten_3p_random_heavy": (3, {"heavy_weather": True}, "random", 2),
    "knutten_2p_trap": (2, {}, "trap", 1),
    "knutten_4p_mixed": (4, {}, "cautious,random,trap,random", 0),
    "knutten_3p_cautious_wait": (3, {"stuck_empty_pile": "wait"}, "cautious", 124),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_golden_trace_matches_the_row(case):
    players, rules, policies, index = CASES[case]
    arm = ArmSpec.make("knutten", players, rules, policies)
    row = kn.RUNNER.play_batch(arm, SEED, index, 1).to_pylist()[0]
    text = (GOLDEN / f"{case}.txt").read_text().partition("\n")[2]  # after its command line
    assert text.startswith(f"Knutten, game {index} of seed {SEED}: {arm.describe()}\n")
    assert ("Game over. Bites: " + ", ".join(f"seat {p} {b}" for p, b in enumerate(row["score"]))
            in text)
    assert text.count("\nRound ") == row["rounds"]
    assert text.count("WIND!") == row["wind_calls"]
    assert text.count("plays John Knut") == row["john_plays"]
    assert text.count("to discard John Knut") == row["john_discards"]
