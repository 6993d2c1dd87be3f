"""Whole Wie Weet Wat games: every table size in checked mode (the kernel checks after every turn
that each letter card and each category card is in exactly one place), what every row must
satisfy, the data inputs, and paired arms seeing the same deals."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from kernels.wieweetwat import enums as E
from sim.errors import SpecError
from sim.games.wieweetwat import (
    DEFAULT_LETTERS,
    ActionCardsWarning,
    INITIAL_SHARE,
    default_categories,
    parse_categories,
    parse_letters,
)
from sim.registry import games
from sim.spec import ArmSpec

ROOT = Path(__file__).resolve().parents[1]
MIXED = "random,spoiler,widest,random:joker_use=keep_for_counter,spoiler:shed=hardest,widest:target=random"


def play(players, rules=None, policy=None, n=8, seed=5, data=None):
    arm = ArmSpec.make("wieweetwat", players, rules or {}, policy or ",".join(MIXED.split(",")[:players]),
                       data=data)
    return arm, games()["wieweetwat"].runner().play_batch(arm, seed, 0, n, checked=True).to_pylist()


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_every_table_plays_checked_and_its_rows_add_up(players):
    _, rows = play(players)
    for row in rows:
        assert max(row["score"]) == 3 and sorted(row["score"])[-2] < 3
        assert sum(row["score"]) == row["rounds"]
        assert row["turns"] == row["categories"] + sum(row["actions_drawn"])
        assert sum(row["categories_won"]) + row["passes"] <= row["categories"]
        assert row["remises"] <= row["categories"]
        assert sum(row["cards_shed"]) == sum(row["letters_shed"])
        assert sum(row["counter_attacks"]) == sum(row["counter_attacked"])
        assert sum(row["jokers"]) + sum(row["counter_attacks"]) == row["letters_shed"][E.WWW]
        assert row["letters_left"][E.WWW] <= 4 * row["rounds"]
        assert all(w <= r for w, r in zip(row["www_rounds_won"], row["www_rounds"]))
        assert row["first_reader_rounds_won"] <= row["rounds"]
        # a round's winner holds no card: the cards left are the others' hands
        assert 0 < sum(row["letters_left"]) <= row["rounds"] * 60


def test_the_default_letter_mix_follows_the_committed_shares():
    assert sum(DEFAULT_LETTERS) == 56
    assert abs(sum(INITIAL_SHARE.values()) - 1) < 1e-4
    from tools.letter_frequencies import largest_remainder

    assert tuple(largest_remainder(INITIAL_SHARE, 56)[k] for k in "abcdefghijklmnopqrstuvwxyz") == DEFAULT_LETTERS


def test_the_default_categories_are_reproducible():
    cats = default_categories()
    assert cats == default_categories() and len(cats) == 200
    breadth = np.array([b for _, b in cats])
    assert 0.8 < np.median(breadth) < 1.25 and 0.45 < np.log(breadth).std() < 0.75


def test_data_inputs_from_files_play():
    data = {"categories": str(ROOT / "examples/categories.toml"),
            "letters": str(ROOT / "examples/wieweetwat-letters.toml")}
    with pytest.warns(ActionCardsWarning):  # 10 action cards to 4 category cards
        arm, rows = play(4, data=data)
    assert len(arm.data_value("categories")) == 16
    for row in rows:
        for k in "fjz":  # the example mix has no F, J or Z
            assert row["letters_left"]["abcdefghijklmnopqrstuvwxyz".index(k)] == 0
            assert row["letters_shed"]["abcdefghijklmnopqrstuvwxyz".index(k)] == 0


@pytest.mark.parametrize("text,message", [
    ("[[category]]\nname='a'\nbreadth=1\n", "multiple of 4"),
    ("[[category]]\nname='a'\nbreadth=0\n" * 4, "breadth"),
    ("[[category]]\nbreadth=1\n" * 4, "name"),
    ("x = 1\n", "unknown key"),
])
def test_bad_category_lists_are_named(text, message):
    with pytest.raises(SpecError, match=message):
        parse_categories(text)


@pytest.mark.parametrize("text,message", [
    ("[cards]\na = 3\n", "letter cards"),
    ("[cards]\nae = 30\n", "not a letter"),
    ("[cards]\na = 30\n", "0..20"),
])
def test_bad_letter_mixes_are_named(text, message):
    with pytest.raises(SpecError, match=message):
        parse_letters(text)


def test_too_many_cards_for_the_table_is_refused():
    with pytest.raises(SpecError, match="hand_size"):
        ArmSpec.make("wieweetwat", 6, {"hand_size": 11}, "random")


def test_arms_that_differ_in_one_player_see_the_same_deals():
    """The first round's deal and the first category card do not depend on the players."""
    runner = games()["wieweetwat"].runner()
    firsts = []
    for policy in ("random", "random,random:vocabulary=2,random,random", "widest"):
        arm = ArmSpec.make("wieweetwat", 4, {}, policy)
        trace = np.zeros((runner.trace_rows, E.TRACE_WIDTH), np.int32)
        _, rows = runner.run_kernel(arm, 9, 3, 1, trace=trace)
        rows = trace[:rows].tolist()
        dealt = [r for r in rows[:60] if r[0] == E.EV_CARD and r[3] == 0]
        first_card = next(r[2] for r in rows if r[0] == E.EV_READ)
        firsts.append((dealt, first_card))
    assert firsts[0] == firsts[1] == firsts[2]


def test_more_skill_wins_more():
    """A seat with twice the vocabulary wins far more than its share (the model's point)."""
    runner = games()["wieweetwat"].runner()
    arm = ArmSpec.make("wieweetwat", 4, {}, "random,random:vocabulary=2,random,random")
    out, _ = runner.run_kernel(arm, 4, 0, 400)
    wins = np.array([(out["winner_mask"] >> s & 1).mean() for s in range(4)])
    assert wins[1] > 0.4 and wins[1] == wins.max()
