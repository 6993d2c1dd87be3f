"""Knutten's search player (kernels/knutten/search_nb.py, policy `search`).

It plays only legal moves, in checked games of every player count and several rules; its choice
depends only on what its seat may know (the other hands and the draw pile exchanged among
themselves, the choice stays); its budget `samples` changes its play and is validated; its
determinizations keep every card in one place.
"""
from __future__ import annotations

import numpy as np
import pytest

from kernels.knutten import enums as E
from kernels.knutten import search_nb
from kernels.knutten.play_nb import new_table, play_card_nb, reset_game_nb
from kernels.knutten.policies_nb import choose_option_nb
from kernels.knutten.rules_nb import legal_actions_nb
from kernels.knutten.table_nb import (
    cards_conserved_nb, deal_nb, draw_nb, new_pile_nb, next_seat_nb, seed_game_nb,
)
from sim.errors import SpecError
from sim.games import knutten as kn
from sim.spec import ArmSpec

SAMPLES = 4  # enough to exercise the search, small enough for a fast suite


def winners(table):
    return [row["winner_mask"] for row in table.to_pylist()]


@pytest.mark.parametrize("players", range(2, 9))
@pytest.mark.parametrize("rules", [
    {},
    {"john_knut": False, "threshold": 20},
    {"heavy_weather": True, "hand_limit": 4},
    {"stuck_empty_pile": "wait", "hand_limit": 2, "bites_to_end": 2},
])
def test_search_plays_only_legal_moves(players, rules):
    seats = ",".join(f"search:samples={SAMPLES}" if s % 2 == 0 else "trap" for s in range(players))
    arm = ArmSpec.make("knutten", players, rules, seats)
    table = kn.RUNNER.play_batch(arm, 3, 0, 2, checked=True)  # a bad move or card fails the batch
    assert table.num_rows == 2
    assert all(mask != 0 for mask in winners(table))


def test_samples_changes_play():
    rows = {}
    for samples in (1, 48):
        arm = ArmSpec.make("knutten", 4, {}, f"search:samples={samples},trap,trap,trap")
        rows[samples] = kn.RUNNER.play_batch(arm, 5, 0, 12).to_pylist()
    assert [r["turns"] for r in rows[1]] != [r["turns"] for r in rows[48]]


@pytest.mark.parametrize("samples", [0, -3, 1025])
def test_samples_out_of_bounds_is_a_clear_error(samples):
    with pytest.raises(SpecError, match=r"samples=.*1\.\.1024"):
        ArmSpec.make("knutten", 4, {}, f"search:samples={samples},trap,trap,trap")


def test_samples_belongs_to_search_only():
    with pytest.raises(SpecError, match="samples"):
        ArmSpec.make("knutten", 2, {}, "trap:samples=8,trap")


# ------------------------------------------------------------------ hand-played states

def table_in_play(players, rules, game, turns, samples=24):
    """A table after `turns` turns of a trap-played round of game `game` (fewer if the round
    ends), seat 0 playing search; returns (table array, search workspace, seat to act)."""
    arm = ArmSpec.make("knutten", players, rules, ",".join(["search"] + ["trap"] * (players - 1)))
    inputs = kn.RUNNER.kernel_inputs(arm)
    cards, designs = kn.RUNNER.data_arrays(arm)
    seat_i = np.array(inputs.seat_i)
    seat_i[:, E.SI_SAMPLES] = samples
    ws = new_table(cards, designs, inputs.rule_i, inputs.seat_policy, seat_i)
    t = ws[0]
    reset_game_nb(t)
    seed_game_nb(t, 11, game)
    new_pile_nb(t, 0)
    assert not deal_nb(t, 0), "pick a game without WIND at the deal"
    p = 0
    for _ in range(turns):
        n = legal_actions_nb(t, p, True)
        option = choose_option_nb(t, p, n)  # seat 0's policy id plays as cautious here
        if play_card_nb(t, p, t["opts"][option], t["opt_after"][option]):
            break
        if t["opts"][option] >= 0:
            draw_nb(t, p, E.E_DRAW)
        p = next_seat_nb(p, players)
    search = search_nb.new_workspace_nb(cards, designs, inputs.rule_i, inputs.seat_policy, seat_i)
    return ws, search, p


def hidden_places(t, p):
    """(seat, slot) of every card in another seat's hand, then ('pile', i) of the pile's set."""
    places = [(q, i) for q in range(t["st"][E.S_PLAYERS]) if q != p for i in range(t["hand_n"][q])]
    return places + [("pile", i) for i in range(t["st"][E.S_PILE_N])]


def hidden_cards(t, p):
    return [int(t["pile"][i] if q == "pile" else t["hands"][q, i]) for q, i in hidden_places(t, p)]


def exchange_hidden(ws, p, rng):
    """A copy of the table with the cards of the other hands and the pile's set exchanged among
    those places at random (hand sizes and the pile's size kept), and another deal stream."""
    other = ws.copy()
    t = other[0]
    places = hidden_places(t, p)
    cards = [t["hands"][pl] if pl[0] != "pile" else t["pile"][pl[1]] for pl in places]
    order = rng.permutation(len(cards))
    for place, k in zip(places, order):
        if place[0] == "pile":
            t["pile"][place[1]] = cards[k]
        else:
            t["hands"][place] = cards[k]
    designs = t["cards"][:, E.C_DESIGN]
    for q in range(t["st"][E.S_PLAYERS]):
        if q != p:
            t["hand_designs"][q, :] = 0
            for c in t["hands"][q, : t["hand_n"][q]]:
                t["hand_designs"][q, designs[c]] += 1
    t["deal_rng"][0] ^= np.uint64(0x5DEECE66D)
    assert cards_conserved_nb(t)
    return other


@pytest.mark.parametrize("players,rules,game,turns", [
    (4, {}, 1, 3),
    (3, {"john_knut": False}, 2, 5),
    (5, {"hand_limit": 4}, 4, 7),
    (2, {"heavy_weather": True}, 6, 4),
])
def test_search_uses_only_what_its_seat_may_know(players, rules, game, turns):
    ws, search, p = table_in_play(players, rules, game, turns)
    t = ws[0]
    t["policies"][p] = E.P_SEARCH
    n = legal_actions_nb(t, p, True)
    assert n > 1, "pick a state with a choice"
    rng = np.random.default_rng(game)
    choices = set()
    gains = []
    for variant in range(4):
        table = ws.copy() if variant == 0 else exchange_hidden(ws, p, rng)
        if variant:
            assert hidden_cards(table[0], p) != hidden_cards(t, p)
            assert sorted(hidden_cards(table[0], p)) == sorted(hidden_cards(t, p))
        legal_actions_nb(table[0], p, True)
        choices.add(int(search_nb.search_option_nb(table[0], p, n, search)))
        gains.append(np.array(search[1][:n]))
        assert table[0]["seat_rng"][p] != t["seat_rng"][p]  # it drew from its own stream
    assert len(choices) == 1
    for g in gains[1:]:
        np.testing.assert_array_equal(g, gains[0])  # not only the choice: every estimate


def test_determinizations_keep_every_card_in_one_place():
    ws, search, p = table_in_play(4, {}, 1, 6)
    t = ws[0]
    sim = search[0][0]
    unseen = search[4]
    u = search_nb.unseen_cards_nb(t, p, search[5], unseen)
    assert u == sum(t["hand_n"][q] for q in range(4) if q != p) + t["st"][E.S_PILE_N] + \
        t["st"][E.S_JOHN_WAITS]
    dealt = u - t["st"][E.S_PILE_N] - t["st"][E.S_JOHN_WAITS]
    before = sorted(unseen[:u])
    for _ in range(5):
        search_nb.shuffle_hands_nb(t, p, unseen, u, dealt)
        search_nb.copy_public_nb(t, sim, p)
        search_nb.deal_hidden_nb(sim, p, unseen, u)
        assert cards_conserved_nb(sim)
        assert sorted(unseen[:u]) == before
        assert list(sim["hands"][p, : sim["hand_n"][p]]) == list(t["hands"][p, : t["hand_n"][p]])
