"""Whole Wippen games: every table size with both deck counts in checked mode (the kernel checks
after every card that hands + pot + captured piles + stock = the cards in play), and what every
row must satisfy: points by source add up to the score, every card is taken once per deal, the
game ends at its target or after its deals, and arms that differ in a player see the same deals."""
from __future__ import annotations

import numpy as np
import pytest

from kernels.wippen import enums as E
from sim.registry import games
from sim.spec import ArmSpec

SOURCES = ("points_cards", "points_spades", "points_diamond_ten", "points_spade_two", "points_aces",
           "points_wips")
MIXED = "random,greedy,defensive,builder,random,builder"


def play(players, rules=None, policy=None, games_=4, seed=5, checked=True):
    arm = ArmSpec.make("wippen", players, rules or {}, policy or ",".join(MIXED.split(",")[:players]))
    return arm, games()["wippen"].runner().play_batch(arm, seed, 0, games_, checked=checked).to_pylist()


def cards_in_play(players, decks):
    cards = 52 * decks
    return cards - (cards - 4) % (4 * players)


TABLES = [(p, d) for p in range(2, 7) for d in (1, 2) if d == 1 or p >= 4]


@pytest.mark.parametrize("players,decks", TABLES)
def test_every_table_plays_checked_and_its_rows_add_up(players, decks):
    arm, rows = play(players, {"decks": decks, "deals": 2})
    n_cards = cards_in_play(players, decks)
    for row in rows:
        assert row["rounds"] == 2 and row["decks"] == decks
        assert row["removed"] == 52 * decks - n_cards
        assert row["turns"] == 2 * (n_cards - 4)  # every card but the pot's four is played
        assert sum(row["cards_taken"]) == 2 * n_cards  # the last capturer takes the rest
        for s in range(players):
            assert sum(row[c][s] for c in SOURCES) == row["score"][s]
            assert row["points_wips"][s] == row["wips"][s]  # points_wip = 1
            assert row["takeovers"][s] <= row["captures"][s] and row["wips"][s] <= row["captures"][s]
        assert sum(row["position_points"]) == sum(row["score"])
        # every deal hands out its aces, diamond 10s and spade 2s
        assert sum(row["points_aces"]) == 2 * 4 * decks
        assert sum(row["points_diamond_ten"]) == 2 * 2 * decks
        assert sum(row["points_spade_two"]) == 2 * decks


def test_a_game_runs_to_its_target():
    for target in (10, 52):
        _, rows = play(4, {"target": target}, "greedy", games_=5, checked=False)
        for row in rows:
            assert max(row["score"]) >= target
            assert row["winner_mask"] == sum(1 << s for s, v in enumerate(row["score"]) if v == max(row["score"]))
    _, short = play(4, {"target": 10}, "greedy", games_=5, checked=False)
    _, long = play(4, {"target": 52}, "greedy", games_=5, checked=False)
    assert all(a["rounds"] < b["rounds"] for a, b in zip(short, long))


def test_builders_build_raise_double_and_take_over():
    """Builds of every kind happen in play, and builds change hands."""
    _, rows = play(3, {"raise_double": True, "deals": 3}, "builder,random,builder", games_=10)
    total = {c: sum(sum(r[c]) for r in rows) for c in ("builds", "raises", "double_builds", "takeovers", "wips")}
    assert min(total.values()) > 0, total


def test_without_build_instead_of_capture_builders_build_less():
    _, on = play(4, {"deals": 2}, "builder", games_=20, checked=False)
    _, off = play(4, {"deals": 2, "build_instead_of_capture": False}, "builder", games_=20, checked=False)
    assert sum(sum(r["builds"]) for r in off) < sum(sum(r["builds"]) for r in on)


def test_arms_that_differ_in_a_player_see_the_same_deals():
    runner = games()["wippen"].runner()
    a = ArmSpec.make("wippen", 4, {"deals": 2}, "greedy")
    b = ArmSpec.make("wippen", 4, {"deals": 2}, "random,builder,defensive,greedy")
    for index in (0, 3):
        ta, tb = runner.trace_game(a, 9, index), runner.trace_game(b, 9, index)
        for deal_a, deal_b in zip(ta.split("\nDeal ")[1:], tb.split("\nDeal ")[1:]):
            head_a = [line for line in deal_a.splitlines() if " holds " in line or line.startswith("  pot:")]
            head_b = [line for line in deal_b.splitlines() if " holds " in line or line.startswith("  pot:")]
            assert head_a[:5] == head_b[:5]  # the first hand of every deal: hands and pot


def test_rows_are_a_function_of_seed_and_game_index():
    _, one = play(5, {"deals": 1}, games_=6, checked=False)
    arm = ArmSpec.make("wippen", 5, {"deals": 1}, ",".join(MIXED.split(",")[:5]))
    part = games()["wippen"].runner().play_batch(arm, 5, 3, 3).to_pylist()
    assert [{k: v for k, v in r.items() if k != "game"} for r in one[3:]] == \
        [{k: v for k, v in r.items() if k != "game"} for r in part]


def test_a_lost_card_is_caught():
    """The conservation check itself: a card missing from the stock is found."""
    from kernels.wippen.rules_nb import cards_conserved_nb
    from kernels.wippen.table_nb import deck_nb

    deck, removed = np.empty(104, np.int64), np.empty(104, np.int64)
    n, _ = deck_nb(1, 2, deck, removed)
    hands = np.zeros((6, 4), np.int64)
    hand_n = np.zeros(6, np.int64)
    items = np.zeros((E.MAX_ITEMS, 2), np.uint64)
    piles = np.zeros((6, 2), np.uint64)
    count = np.zeros(104, np.int64)
    assert cards_conserved_nb(deck, n, hands, hand_n, 2, deck, 0, n, items, 0, piles, count)
    assert not cards_conserved_nb(deck, n, hands, hand_n, 2, deck, 1, n, items, 0, piles, count)
    hands[0, 0] = deck[0]
    hand_n[0] = 1
    assert cards_conserved_nb(deck, n, hands, hand_n, 2, deck, 1, n, items, 0, piles, count)
    piles[1, 0] = np.uint64(1) << np.uint64(int(deck[0]))
    assert not cards_conserved_nb(deck, n, hands, hand_n, 2, deck, 1, n, items, 0, piles, count)
