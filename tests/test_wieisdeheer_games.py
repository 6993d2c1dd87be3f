"""Wie is de Heer? whole games: the row's columns agree with each other (the winner is the first in
the order who wrote the mole, else the mole; banked and voided points add up per seat; questions
per ace), the designer's knobs do what they say, and the joker rule shows in the order."""
from __future__ import annotations

import numpy as np
import pytest

from sim.registry import games
from sim.spec import ArmSpec

RUNNER = games()["wieisdeheer"].runner()


def rows(players, rules=None, policy="reasoner", count=300, seed=5):
    arm = ArmSpec.make("wieisdeheer", players, rules or {}, policy)
    return RUNNER.play_batch(arm, seed, 0, count, checked=True).to_pylist()


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_the_winner_is_the_first_in_the_order_who_wrote_the_mole_else_the_mole(players):
    mixed = ",".join(("reasoner", "racer", "random")[s % 3] for s in range(players))
    for r in rows(players, policy=mixed):
        mole = r["mole"]
        order = sorted(range(players), key=lambda s: r["finish"][s])
        assert sorted(r["finish"]) == list(range(players))
        right = [s for s in order if s != mole and r["suspect"][s] == mole]
        winner = right[0] if right else mole
        assert r["winner_mask"] == 1 << winner and r["score"][winner] == 1 and sum(r["score"]) == 1
        assert r["mole_won"] == (winner == mole)
        assert r["correct"][mole] == -1 and r["suspect"][mole] != mole
        assert all(r["correct"][s] == (r["suspect"][s] == mole) for s in range(players) if s != mole)
        assert sum(r["banked"]) == r["pot"] and sum(r["voided"]) == r["points_voided"]
        assert sum(r["questions_asked"]) == r["questions"] and r["questions"] % 3 == 0
        for s in range(players):
            if s != mole and r["suspect"][s] >= 0:
                assert 0 <= r["p_mole"][s] <= 1000 and 0 <= r["brier"][s] <= 2_000_000
                if s % 3 != 2:  # a reasoning player writes its most likely seat
                    assert r["p_suspect"][s] >= r["p_mole"][s] or r["suspect"][s] == mole


def test_a_mole_that_never_sabotages_makes_no_sabotage():
    assert all(r["sabotages"] == 0 for r in rows(4, policy="reasoner:sabotage=0"))
    assert sum(r["sabotages"] for r in rows(4, policy="reasoner:sabotage=1")) > 100


def test_the_designers_knobs():
    assert all(r["questions"] == 0 for r in rows(4, {"questions_per_ace": 0}, count=50))
    threshold = rows(4, {"mole_pot_threshold": 250}, count=100)
    assert all(r["mole_won"] == 1 for r in threshold if r["pot"] < 250)
    assert any(r["pot"] < 250 for r in threshold) and any(r["pot"] >= 250 for r in threshold)
    nameless = rows(4, {"last_player_names": False}, count=50)
    for r in nameless:
        last = r["finish"].index(3)
        assert r["suspect"][last] == -1 and r["p_suspect"][last] == -1


def test_going_out_on_a_joker_moves_up_only_with_the_rule():
    """With the rule, some joker finisher ends ahead of a player who went out before it (seen in
    the trace); without it the order is the order of going out."""
    for rule in (True, False):
        arm = ArmSpec.make("wieisdeheer", 5, {"joker_moves_up": rule}, "reasoner")
        moved = 0
        for index in range(40):
            text = RUNNER.trace_game(arm, 3, index)
            went = [int(line.split()[1]) for line in text.splitlines() if " goes out" in line]
            order = [int(line.split()[2].rstrip(":")) for line in text.splitlines()
                     if line.startswith("  ") and ". seat " in line]
            jokers = [int(line.split()[1]) for line in text.splitlines() if "goes out on a joker" in line]
            if order[: len(went)] != went:
                moved += 1
                assert rule and jokers
        assert (moved > 0) == rule


def test_the_same_deals_across_arms_that_differ_in_a_rule():
    base = rows(4, count=100)
    other = rows(4, {"questions_per_ace": 5}, count=100)
    assert [r["mole"] for r in base] == [r["mole"] for r in other]
    assert np.mean([r["mole_won"] for r in base]) >= 0


def test_a_turn_where_nothing_fits_and_nothing_can_be_drawn_is_traced():
    """Five random players hoard the cards until the draw and discard piles are empty: a player who
    cannot play then passes, and the trace says so (it used to show nothing for that turn)."""
    text = RUNNER.trace_game(ArmSpec.make("wieisdeheer", 5, {}, "random"), 11, 3)
    assert "cannot play and there is no card left to draw: the turn passes" in text
    # a penalty draw cut short for want of cards says so (the rest lapses)
    assert "(no card left: the other 3 lapse)" in text


def test_a_sweep_of_the_mole_s_rate_leaves_the_observers_reading_alone():
    """sabotage is what the mole does; suspect_sabotage what the observers assume. At sabotage 0 the
    observers still read the acts (they cannot see the rate), and an observer that assumes 0 reads
    nothing: every stated probability stays the uniform prior's."""
    honest = rows(4, policy="reasoner:sabotage=0", count=100)
    assert any(s != -1 and s != 333 for r in honest for s in r["p_suspect"])
    blind = rows(4, rules={"questions_per_ace": 0}, policy="reasoner:suspect_sabotage=0", count=100)
    assert all(s in (-1, 333) for r in blind for s in r["p_suspect"])


def test_the_players_play_to_the_pot_rule_while_the_pot_can_decide_the_game():
    """With mole_pot_threshold the pot decides: while it is below the threshold the mole spends the
    sabotage nobody reads (it voids poorer piles with points and passes up their banks), and once
    it has reached the threshold the observers read no act. On the same deals the loyal seats'
    choices stay those of the text's game where the mole's acts do not touch them; were the pot
    ignored again, the two arms would be the same games."""
    text = rows(4, count=300)
    pot = rows(4, {"mole_pot_threshold": 200}, count=300)
    assert [r["mole"] for r in text] == [r["mole"] for r in pot]
    assert sum(r["sabotages"] for r in pot) > 1.5 * sum(r["sabotages"] for r in text)
    assert [r["pot"] for r in text] != [r["pot"] for r in pot]
    assert [r["p_suspect"] for r in text] != [r["p_suspect"] for r in pot]


def test_once_the_pot_reaches_the_threshold_the_mole_stops_sabotaging():
    """The pot only grows: past the threshold the pot rule cannot fire, so sabotage could only give
    the mole away. A threshold of 1 is reached at the first bank; a mole that sabotages at rate 1
    then passes up far fewer banks than under the text's rules."""
    always = "reasoner:sabotage=1"
    text = rows(4, policy=always, count=200)
    settled = rows(4, {"mole_pot_threshold": 1}, policy=always, count=200)
    assert sum(r["sabotages"] for r in settled) < 0.5 * sum(r["sabotages"] for r in text)


def test_stacking_is_compulsory_unless_must_stack_is_off():
    """Off, a random player may take a pending draw instead of stacking (its deals stay the same);
    a shedding player always stacks, so its games do not change. The value is checked by name."""
    from sim.errors import SpecError

    on = rows(5, policy="random", count=100)
    off = rows(5, {"must_stack": False}, policy="random", count=100)
    assert [r["mole"] for r in on] == [r["mole"] for r in off]
    assert [r["drawn"] for r in on] != [r["drawn"] for r in off]
    assert rows(4, count=50) == rows(4, {"must_stack": False}, count=50)
    with pytest.raises(SpecError, match="must_stack='maybe'"):
        ArmSpec.make("wieisdeheer", 4, {"must_stack": "maybe"}, "reasoner")
