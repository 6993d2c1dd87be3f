"""Wie is de Heer?'s search player (kernels/wieisdeheer/search_nb.py, policy `search`).

It plays only legal moves, in checked games of every player count and several rules; its choices
(cards, question targets, suspects) depend only on what its seat may know (the other hands and the
draw pile exchanged among themselves, another mole among the seats it cannot exclude and other
private beliefs: the choice stays); its budget `samples` changes its play and is validated; its
determinizations keep every card in one place.
"""
from __future__ import annotations

import numpy as np
import pytest

from kernels.wieisdeheer import enums as E
from kernels.wieisdeheer import play_nb, search_nb
from kernels.wieisdeheer.table_nb import ST_CARDS, ST_DRAW_N, cards_conserved_nb
from sim.errors import SpecError
from sim.games import wieisdeheer as wh
from sim.spec import ArmSpec

SAMPLES = 3  # enough to exercise the search, small enough for a fast suite
ST, HANDS, HAND_N, DRAW, DISC, IN_DISC, SEEN, COUNTS, POST, TOLD, PUB, RNG, PER, GS = range(14)


@pytest.mark.parametrize("players,rules", [
    (3, {}),
    (4, {"answers_public": True, "jokers": 4}),
    (5, {"play_drawn": False, "jokers": 0}),
    (6, {"mole_pot_threshold": 120, "last_player_names": False, "joker_moves_up": False}),
])
def test_search_plays_only_legal_moves(players, rules):
    others = ("reasoner", "racer", "random")
    seats = ",".join(f"search:samples={SAMPLES}" if s % 2 == 0 else others[s % 3]
                     for s in range(players))
    arm = ArmSpec.make("wieisdeheer", players, rules, seats)
    table = wh.RUNNER.play_batch(arm, 3, 0, 2, checked=True)  # a bad move or card fails the batch
    assert table.num_rows == 2
    assert all(mask != 0 for mask in table["winner_mask"].to_pylist())


def test_samples_changes_play():
    rows = {}
    for samples in (1, 24):
        arm = ArmSpec.make("wieisdeheer", 4, {}, f"search:samples={samples},reasoner,reasoner,"
                           "reasoner")
        rows[samples] = wh.RUNNER.play_batch(arm, 5, 0, 12).to_pylist()
    assert [r["plays"] for r in rows[1]] != [r["plays"] for r in rows[24]]


@pytest.mark.parametrize("samples", [0, -3, 1025])
def test_samples_out_of_bounds_is_a_clear_error(samples):
    with pytest.raises(SpecError, match=r"samples=.*1\.\.1024"):
        ArmSpec.make("wieisdeheer", 4, {}, f"search:samples={samples},reasoner,reasoner,reasoner")


def test_samples_belongs_to_search_only():
    with pytest.raises(SpecError, match="samples"):
        ArmSpec.make("wieisdeheer", 3, {}, "reasoner:samples=8,reasoner,reasoner")


# ------------------------------------------------------------------ paused states

def paused_state(players, rules, game, until, samples=12):
    """The tables of game `game` with seat 0 searching and the others reasoners, paused at seat 0's
    first card choice with a choice at or after turn `until`: (inputs, tables, workspace, seat,
    the reasoner's slot)."""
    arm = ArmSpec.make("wieisdeheer", players, rules,
                       ",".join(["search"] + ["reasoner"] * (players - 1)))
    inputs = wh.RUNNER.kernel_inputs(arm)
    seat_i = np.array(inputs.seat_i)
    seat_i[:, E.SI_SAMPLES] = samples
    tb = play_nb.new_tables_nb()
    play_nb.start_game_nb(np.int64(11), np.int64(game), np.int64(0), players, inputs.rule_i[E.R_JOKERS],
                          seat_i, tb)  # rotation 0
    search = search_nb.new_workspace_nb(inputs.seat_policy)
    status, _ = play_nb.play_turns_nb(np.int64(11), np.int64(game), inputs.rule_i, inputs.rule_f,
                                      inputs.seat_policy, seat_i, inputs.seat_f, tb, None, 0, False,
                                      True, search, -1, until)
    assert status == 0 and tb[GS][E.G_PAUSED] > 0, "pick a game that reaches a choice"
    p = int(tb[GS][E.G_SEAT])
    heuristic = int(tb[GS][E.G_PAUSED]) - 1
    assert search_nb.options_nb(tb, p, heuristic, search[4]) > 0
    return inputs._replace(seat_i=seat_i), tb, search, p, heuristic


def copy_tables(tb):
    return tuple(a.copy() for a in tb)


def hidden_cards(tb, p, players):
    cards = [int(c) for q in range(players) if q != p for c in tb[HANDS][q, : tb[HAND_N][q]]]
    return cards + [int(c) for c in tb[DRAW][: tb[ST][ST_DRAW_N]]]


def exchange_hidden(tb, p, players, rng):
    """A copy of the tables with what seat p cannot know changed: the cards of the other hands and
    the draw pile exchanged among those places (sizes kept), another mole among the seats p cannot
    exclude (unless p is the mole), the other seats' private beliefs and streams scrambled."""
    other = copy_tables(tb)
    places = [(q, i) for q in range(players) if q != p for i in range(tb[HAND_N][q])]
    places += [("draw", i) for i in range(tb[ST][ST_DRAW_N])]
    cards = hidden_cards(tb, p, players)
    for (q, i), k in zip(places, rng.permutation(len(cards))):
        if q == "draw":
            other[DRAW][i] = cards[k]
        else:
            other[HANDS][q, i] = cards[k]
    mole = int(tb[GS][E.G_MOLE])
    if mole != p:
        other[GS][E.G_MOLE] = rng.choice([q for q in range(players)
                                          if q != p and tb[POST][p, q] > 0])
    for q in range(players):
        if q != p:
            row = rng.random(players)
            row[q] = 0.0
            other[POST][q, :players] = row / row.sum()
            other[RNG][q] ^= np.uint64(0x5DEECE66D)
    other[RNG][E.MAX_PLAYERS] ^= np.uint64(0x9E3779B9)
    assert cards_conserved_nb(other[ST], other[HANDS], other[HAND_N], players, other[DRAW],
                              other[DISC], other[IN_DISC], other[SEEN])
    return other


@pytest.mark.parametrize("players,rules,game,until", [
    (4, {}, 1, 3),
    (3, {"jokers": 4}, 2, 12),
    (5, {"answers_public": True}, 4, 9),
    (6, {"play_drawn": False}, 6, 8),
])
def test_search_uses_only_what_its_seat_may_know(players, rules, game, until):
    inputs, tb, search, p, heuristic = paused_state(players, rules, game, until)
    rng = np.random.default_rng(game)
    choices, gains = set(), []
    for variant in range(4):
        tables = copy_tables(tb) if variant == 0 else exchange_hidden(tb, p, players, rng)
        if variant:
            assert hidden_cards(tables, p, players) != hidden_cards(tb, p, players)
        choices.add(int(search_nb.search_slot_nb(inputs.rule_i, inputs.rule_f, inputs.seat_policy,
                                                 inputs.seat_i, inputs.seat_f, tables, p,
                                                 heuristic, search)))
        gains.append(np.array(search[5]))
        assert tables[RNG][p] != tb[RNG][p]  # it drew from its own stream
        for q in range(players):
            if q != p:  # and from nobody else's
                assert tables[RNG][q] == (tb[RNG][q] if variant == 0
                                          else tb[RNG][q] ^ np.uint64(0x5DEECE66D))
        np.testing.assert_array_equal(tables[HANDS][p], tb[HANDS][p])
    assert len(choices) == 1
    for g in gains[1:]:
        np.testing.assert_array_equal(g, gains[0])  # not only the choice: every estimate


def test_question_targets_and_suspects_use_only_what_the_seat_knows():
    inputs, tb, _, p, _ = paused_state(5, {}, 3, 25)
    rng = np.random.default_rng(7)
    players = 5
    tb[PER][E.PS_ORDER, 0] = (p + 2) % players  # a seat went out ahead of p, publicly suspecting
    tb[PER][E.PS_PUB_SUSPECT, (p + 2) % players] = (p + 1) % players
    picks = set()
    for variant in range(4):
        tables = copy_tables(tb) if variant == 0 else exchange_hidden(tb, p, players, rng)
        picks.add((int(search_nb.question_target_nb(tables[POST], tables[PER], p, players, 1, 3,
                                                    0.7, inputs.seat_f)),
                   int(search_nb.suspect_nb(tables[POST], tables[PER], p, players, 2))))
    assert len(picks) == 1


def test_suspect_skips_a_seat_written_ahead():
    post = np.zeros((E.MAX_PLAYERS, E.MAX_PLAYERS))
    post[0, :4] = [0.0, 0.5, 0.3, 0.2]
    per = np.full((E.N_PER, E.MAX_PLAYERS), -1, np.int64)
    per[E.PS_ORDER, :2] = [3, 0]
    per[E.PS_PUB_SUSPECT, 3] = 1  # seat 3 went out first and (publicly) suspects seat 1
    assert search_nb.suspect_nb(post, per, 0, 4, 2) == 2  # writing 1 cannot win: 3 is ahead
    per[E.PS_ORDER, :2] = [0, 3]  # seat 0 first: nobody ahead of it
    assert search_nb.suspect_nb(post, per, 0, 4, 2) == 1


def test_question_target_is_the_most_informative():
    per = np.full((E.N_PER, E.MAX_PLAYERS), -1, np.int64)
    seat_f = np.full((4, 2), 0.5)
    post = np.zeros((E.MAX_PLAYERS, E.MAX_PLAYERS))
    for likely in ((1, 2), (2, 3), (1, 3)):  # two level suspects: ask one of them
        post[0, 1:4] = 0.1
        post[0, list(likely)] = 0.45
        assert search_nb.question_target_nb(post, per, 0, 4, 0, 3, 0.7, seat_f) in likely


def test_determinizations_keep_every_card_in_one_place():
    inputs, tb, search, p, _ = paused_state(4, {}, 1, 10)
    det, unseen = search[0], search[3]
    u = search_nb.unseen_cards_nb(tb, p, unseen)
    assert u == tb[ST][ST_CARDS] - int(tb[IN_DISC].sum()) - tb[HAND_N][p]
    before = sorted(unseen[:u])
    moles = set()
    for _ in range(12):
        search_nb.determinize_nb(tb, det, p, 4, unseen, u)
        assert cards_conserved_nb(det[ST], det[HANDS], det[HAND_N], 4, det[DRAW], det[DISC],
                                  det[IN_DISC], det[SEEN])
        assert sorted(unseen[:u]) == before
        assert list(det[HANDS][p, : det[HAND_N][p]]) == list(tb[HANDS][p, : tb[HAND_N][p]])
        moles.add(int(det[GS][E.G_MOLE]))
    mole = int(tb[GS][E.G_MOLE])
    assert moles == {p} if mole == p else (p not in moles and len(moles) > 1)
