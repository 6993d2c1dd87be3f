"""Wippen's rules, one by one: the seed text's examples and its FAQ (compulsory capture, no face
cards in sums, no raise on a double build, a wip only while cards remain to deal, the forced trail
on an empty pot, the last capturer takes the rest), the deck, the scoring and the players' view."""
from __future__ import annotations

import re

import numpy as np
import pytest

from kernels.jit import kernel
from kernels.wippen import enums as E
from kernels.wippen import moves_nb
from kernels.wippen import rules_nb as R
from kernels.wippen import table_nb as T
from kernels.wippen.moves_nb import move_arrays_nb, scratch_nb
from sim.errors import SpecError
from sim.games.wippen_trace import card_name
from sim.registry import games
from sim.spec import ArmSpec

# legal_moves_nb is an `inline` helper: called from Python it compiles on its own (about 20 s of
# CPU) in every process. Compiled as a kernel (kernels/jit.py: the same flags, cached on disk and
# keyed on the whole kernels tree), tests/test_wippen_moves.py's copy and this one compile it once
legal_moves_nb = kernel(moves_nb.legal_moves_nb.py_func)

C, D, H, S = range(4)
RANK = {"A": 0, "J": 10, "Q": 11, "K": 12}


def card(name: str, copy: int = 0) -> int:
    """'7H', '10D', 'QS' -> card number (copy 1: the second deck)."""
    rank, suit = name[:-1], "CDHS".index(name[-1])
    r = RANK[rank] if rank in RANK else int(rank) - 1
    return copy * 52 + suit * 13 + r


def loose(*names):
    return [("loose", card(n)) for n in names]


def make_pot(items):
    """items: ("loose", card) or ("build"|"double", value, owner)."""
    item_i = np.zeros((E.MAX_ITEMS, E.IT_FIELDS), np.int64)
    item_m = np.zeros((E.MAX_ITEMS, 2), np.uint64)
    for i, item in enumerate(items):
        if item[0] == "loose":
            item_i[i] = (T.VALUE_OF[item[1]], E.ITEM_LOOSE, -1, item[1])
            T.set_add_nb(item_m[i], item[1])
        else:
            item_i[i] = (item[1], E.ITEM_BUILD if item[0] == "build" else E.ITEM_DOUBLE, item[2], -1)
    return item_i, item_m, len(items)


def moves(items, hand_names, build_instead=True, raise_double=False, with_builds=True):
    item_i, _, pn = make_pot(items)
    hand = np.zeros(E.HAND, np.int64)
    for j, name in enumerate(hand_names):
        hand[j] = card(name)
    mv_i, mv_m = move_arrays_nb()
    n = legal_moves_nb(item_i, pn, hand, len(hand_names), build_instead, raise_double, with_builds,
                       mv_i, mv_m, scratch_nb())
    return [(hand_names[mv_i[k, 0]], int(mv_i[k, 1]), sorted(i for i in range(pn) if int(mv_m[k]) >> i & 1),
             int(mv_i[k, 2])) for k in range(n)]


def kinds(ms):
    return {m[1] for m in ms}


# ------------------------------------------------------------------------ captures
def test_a_card_takes_the_same_rank_or_number_cards_adding_up_to_it():
    ms = moves(loose("7D", "3C", "4S", "KH"), ["7H"], with_builds=False)
    taken = sorted(m[2] for m in ms)
    # 7D alone, 3C+4S, and both groups together (disjoint groups): three captures
    assert taken == [[0], [0, 1, 2], [1, 2]]


def test_capturing_is_compulsory_no_trail_while_a_card_can_capture():
    """FAQ: 'als een speler een kaart uit de pot kan nemen, is dit verplicht'."""
    ms = moves(loose("5D", "9C"), ["5H", "KS", "2C"])
    assert E.MV_TRAIL not in kinds(ms)
    assert {m[0] for m in ms if m[1] == E.MV_CAPTURE} == {"5H"}
    only = moves(loose("5D", "9C"), ["5H", "KS", "2C"], build_instead=False)
    assert kinds(only) == {E.MV_CAPTURE}


def test_face_cards_are_taken_by_rank_only_never_in_a_sum():
    """FAQ: 'prentkaarten ... kunnen alleen op gelijke waarde worden genomen, niet in optelsommen'."""
    assert kinds(moves(loose("AC", "JD"), ["QH"])) == {E.MV_TRAIL}  # 1 + 11 is no queen
    assert kinds(moves(loose("QC", "2D"), ["10S", "2H"], build_instead=False)) == {E.MV_CAPTURE}
    ten = [m for m in moves(loose("QC", "2D", "8S"), ["10S"]) if m[0] == "10S"]
    assert [m[2] for m in ten] == [[1, 2]]  # 2 + 8, the queen never counts
    jacks = moves(loose("JC", "JD", "5S"), ["JH"])
    assert sorted(m[2] for m in jacks) == [[0], [0, 1], [1]]  # any non-empty set of jacks
    assert not any(m[1] in (E.MV_BUILD, E.MV_DOUBLE) and 0 in m[2]
                   for m in moves(loose("JC", "AD"), ["AS", "QH"]))  # no build holds a face card


def test_a_build_is_taken_whole_by_its_value():
    ms = moves([("build", 9, 1)] + loose("4C", "5D"), ["9H"], with_builds=False)
    assert sorted(m[2] for m in ms) == [[0], [0, 1, 2], [1, 2]]
    assert kinds(moves([("build", 9, 1)], ["4H", "5C"], with_builds=False)) == {E.MV_TRAIL}


# ------------------------------------------------------------------------ builds
def test_a_build_only_for_a_value_held_after_the_play():
    """'Een speler mag alleen bouwen voor een waarde die hij in zijn hand heeft.'"""
    ms = moves(loose("3D"), ["4C", "7S"])
    assert ("4C", E.MV_BUILD, [0], 7) in ms
    assert not any(m[1] == E.MV_BUILD for m in moves(loose("3D"), ["4C", "8S"]))
    # the card played does not count as held: one 7 cannot build 7
    assert not any(m[1] == E.MV_BUILD for m in moves(loose("3D"), ["4C"]))


def test_the_texts_double_build_4_5_and_3_6_for_9():
    """'dubbel bouwen ... bijvoorbeeld door een combinatie van 4+5 en 3+6 te maken voor een waarde
    van 9': the 4 from the hand on the 5, and the 3 and 6 of the pot, with a 9 in hand."""
    ms = moves(loose("5D", "3C", "6H"), ["4S", "9C"])
    assert ("4S", E.MV_DOUBLE, [0, 1, 2], 9) in ms
    assert ("4S", E.MV_BUILD, [0], 9) in ms


def test_a_double_build_cannot_be_raised_unless_the_group_agrees():
    """FAQ: 'Kan ik bovenbouwen op een dubbele bouw? Nee ... Wel kunnen sommige groepen afspreken
    dat optellen nog mag' (rule raise_double)."""
    pot = [("double", 9, 2), ("build", 7, 2)]
    ms = moves(pot, ["AC", "10D", "8S"])
    assert ("AC", E.MV_RAISE, [1], 8) in ms
    assert not any(m[1] == E.MV_RAISE and m[2] == [0] for m in ms)
    assert ("AC", E.MV_RAISE, [0], 10) in moves(pot, ["AC", "10D", "8S"], raise_double=True)


def test_a_raise_needs_the_higher_value_in_hand():
    pot = [("build", 6, 1)]
    assert ("2C", E.MV_RAISE, [0], 8) in moves(pot, ["2C", "8D"])
    assert not any(m[1] == E.MV_RAISE for m in moves(pot, ["2C", "9D"]))


def test_the_forced_trail_on_an_empty_pot():
    """'Is de pot leeg, dan moet de volgende speler verplicht bijleggen' (FAQ too)."""
    ms = moves([], ["4C", "7S", "KD", "3H"])
    assert [m[1] for m in ms] == [E.MV_TRAIL] * 4


def test_playing_moves_onto_the_pot():
    item_i, item_m, pn = make_pot(loose("5D", "3C", "6H") + [("build", 7, 1)])
    pile, tmp = np.zeros(2, np.uint64), np.zeros(2, np.uint64)
    # a double build of 9: 4S on 5D, with 3C+6H; it becomes the last item, owned by seat 0
    pn, flags = R.play_move_nb(item_i, item_m, pn, card("4S"), E.MV_DOUBLE, 9, np.uint64(0b111), 0,
                               pile, tmp)
    assert pn == 2 and flags == 0
    assert list(item_i[1, :3]) == [9, E.ITEM_DOUBLE, 0]
    assert T.pot_cards_nb(item_m, pn) == 4  # 5D 3C 6H 4S (the test's build of 7 holds no cards)
    # seat 2 takes the build of 7 (seat 1's) with a 7: a takeover
    pn, flags = R.play_move_nb(item_i, item_m, pn, card("7C"), E.MV_CAPTURE, 7, np.uint64(1), 2,
                               pile, tmp)
    assert pn == 1 and flags == R.TOOK_BUILD_OF_OTHER and T.set_has_nb(pile, card("7C"))


# ------------------------------------------------------------------------ deck and scoring
@pytest.mark.parametrize("decks,players,removed", [(1, 2, 0), (1, 3, 0), (1, 4, 0), (2, 4, 4),
                                                   (1, 5, 8), (2, 5, 0), (1, 6, 0), (2, 6, 4)])
def test_face_cards_leave_until_the_deal_divides(decks, players, removed):
    deck, out = np.empty(104, np.int64), np.empty(104, np.int64)
    n, r = T.deck_nb(decks, players, deck, out)
    assert r == removed and n == 52 * decks - removed
    assert (n - 4) % (4 * players) == 0
    names = [card_name(c) for c in out[:r]]
    kings_first = ["KC", "KC'", "KD", "KD'"] if decks == 2 else ["KC", "KD", "KH", "KS", "QC", "QD", "QH", "QS"]
    assert names == kings_first[:r]


def test_a_deals_points():
    piles = np.zeros((6, 2), np.uint64)
    for c in ("10D", "2S", "AS", "AH", "5S", "6C"):
        T.set_add_nb(piles[0], card(c))
    for c in ("10D", "AD", "3S", "4S", "9S", "8C"):
        T.set_add_nb(piles[1], card(c, copy=1))
    rule_i = np.array([0, 52, 0, 1, 0, 2, 2, 2, 1, 1, 1], np.int64)
    points = np.zeros((6, E.N_SOURCES), np.int64)
    R.deal_points_nb(piles, 2, np.array([1, 0, 0, 0, 0, 0]), rule_i, points)
    # 6 cards each and 3 spades each: most cards and most spades tie, nobody scores them
    assert list(points[0]) == [0, 0, 2, 1, 2, 1]
    assert list(points[1]) == [0, 0, 2, 0, 1, 0]  # the second deck's diamond 10 scores too
    T.set_add_nb(piles[1], card("7S"))
    R.deal_points_nb(piles, 2, np.array([1, 0, 0, 0, 0, 0]), rule_i, points)
    assert list(points[1]) == [2, 2, 2, 0, 1, 0]


# ------------------------------------------------------------------------ whole games, traced
def trace_text(players=2, policy="random,builder", seed=7, index=0, **rules):
    arm = ArmSpec.make("wippen", players, rules, policy)
    return games()["wippen"].runner().trace_game(arm, seed, index)


def deals_of(text):
    return text.split("\nDeal ")[1:]


@pytest.mark.parametrize("players,policy", [(2, "random,builder"), (4, "greedy,random,defensive,builder"),
                                            (3, "random")])
def test_a_wip_only_while_cards_remain_to_deal(players, policy):
    """'mits er nog kaarten over zijn om te delen': a capture that empties the pot scores a wip in
    every hand but a deal's last (its stock is empty), and only then."""
    wips = no_wips = 0
    for index in range(3):
        left = None
        lines = trace_text(players, policy, 11, index).splitlines()
        for k, line in enumerate(lines):
            hand = re.match(r" hand \d+ \((\d+) cards left", line)
            if hand:
                left = int(hand.group(1))
            if " takes " in line and "end of the deal" not in line and lines[k + 1].endswith("pot: (empty)"):
                follows = lines[k + 2] if k + 2 < len(lines) else ""
                if left > 0:
                    assert follows.startswith("      wip for seat"), (index, line)
                    wips += 1
                else:
                    assert "wip" not in follows, (index, line)
                    no_wips += 1
            if "wip for seat" in line:
                assert left > 0 and "takes" in lines[k - 2]
    assert wips > 0 and no_wips > 0


def test_the_last_capturer_takes_the_rest():
    """'De laatste die iets uit de pot nam, wint de resterende kaarten' (no wip)."""
    for deal in deals_of(trace_text(4, "random,greedy,builder,defensive", 3, 1)):
        takers = re.findall(r"    seat (\d) plays \S+ and takes", deal)
        end = re.search(r"end of the deal: seat (\d), the last to capture, takes the (\d+) card", deal)
        assert end and end.group(1) == takers[-1]
        assert "wip for seat" not in deal.split("end of the deal")[1]


def test_the_dealer_plays_last_in_every_hand_and_the_deal_passes_on():
    text = trace_text(3, "random", 5, 2)
    for number, deal in enumerate(deals_of(text), 1):
        dealer = (3 - 2 + number) % 3
        assert deal.startswith(f"{number}: seat {dealer} deals")
        for hand in deal.split(" hand ")[1:]:
            plays = re.findall(r"    seat (\d) (?:plays|trails)", hand)
            assert len(plays) == 12 and plays[-1] == str(dealer)
            assert plays[0] == str((dealer + 1) % 3)


def test_two_decks_from_four_players_only():
    with pytest.raises(SpecError, match="decks=2"):
        ArmSpec.make("wippen", 3, {"decks": 2}, "greedy")
    assert ArmSpec.make("wippen", 4, {"decks": 1}, "greedy").rule_values["decks"] == 1


def test_a_game_that_could_never_end_is_refused():
    with pytest.raises(SpecError, match="never end"):
        ArmSpec.make("wippen", 4, {"points_ace": 0, "points_diamond_ten": 0, "points_spade_two": 0},
                     "greedy")
    ArmSpec.make("wippen", 4, {"points_ace": 0, "points_diamond_ten": 0, "points_spade_two": 0,
                               "deals": 3}, "greedy")
    with pytest.raises(SpecError, match="deals"):
        ArmSpec.make("wippen", 6, {"target": 200, "points_ace": 0, "points_diamond_ten": 0,
                                   "points_spade_two": 1}, "greedy")


def test_what_a_player_has_not_seen():
    """hold_chances_nb counts only cards in play that are neither public this deal nor in hand."""
    from kernels.wippen.policies_nb import hold_chances_nb

    in_play = np.zeros(14, np.int64)
    in_play[1:14] = 4
    public = np.zeros(14, np.int64)
    public[9] = 3  # three nines seen
    hand = np.array([card("9C"), card("2D"), 0, 0], np.int64)
    chance = np.zeros(14)
    hold_chances_nb(in_play, public, hand, 2, 4, chance)
    assert chance[9] == 0.0  # all four nines accounted for
    assert chance[2] < chance[3] and chance[3] == pytest.approx(1 - (1 - 4 / 47) ** 4)  # 52 - 3 seen - 2 in hand


def test_a_capture_of_several_builds_names_each_owner_once():
    """The trace's note on a capture that takes other seats' builds used to repeat an owner ("takes
    over seat 0, 0's build" for two builds of seat 0)."""
    from sim.games.wippen_trace import builds_owned_text

    def build(owner):
        return {"kind": "build", "value": 9, "owner": owner, "cards": []}

    assert builds_owned_text([build(1)]) == "seat 1's build"  # the goldens' wording is kept
    assert builds_owned_text([build(0), build(0)]) == "seat 0's 2 builds"
    assert builds_owned_text([build(0), build(2), build(0)]) == "seat 0's 2 builds and seat 2's build"
    assert builds_owned_text([build(3), build(1), build(2)]) == \
        "seat 3's build, seat 1's build and seat 2's build"
