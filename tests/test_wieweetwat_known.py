"""What a Wie Weet Wat seat has seen of the other hands (kernels/wieweetwat/known_nb.py): each way a
seat learns or forgets a card, on hand-built hands; the targeting reader's use of it; the search's
determinizations dealing the known cards to their holders; and whole games in checked mode, where
no seat may ever know of a card that is not there."""
from __future__ import annotations

import math

import numpy as np
import pytest

from kernels.wieweetwat import enums as E
from kernels.wieweetwat.actions_nb import rotonde_nb, swap_hands_nb
from kernels.wieweetwat.known_nb import (
    forget_nb,
    given_to_nb,
    known_held_nb,
    returned_nb,
    rotonde_known_nb,
    shown_kept_nb,
    shown_nb,
    swapped_known_nb,
    taken_from_nb,
)
from sim.games.wieweetwat import LETTERS
from sim.registry import games
from sim.spec import ArmSpec
from tests.test_wieweetwat_rules import hands_of

RUNNER = games()["wieweetwat"].runner()


def no_knowledge():
    """known[o, h]: rows laid out as hand rows (counts, then the kind set in column HAND_MASK)."""
    return np.zeros((E.MAX_PLAYERS, E.MAX_PLAYERS, E.HAND_WIDTH), np.int64)


def see(row, letter, count):
    """Set a known row's count of a letter ('*': the Wie Weet Wat card) and its kind set."""
    kind = E.WWW if letter == "*" else LETTERS.index(letter)
    row[kind] = count
    row[E.HAND_MASK] = sum(1 << k for k in range(E.N_KINDS) if row[k])


def letters_of(row):
    """A known or hand row as sorted text: [.., E=2, ..] -> 'ee'."""
    return "".join(LETTERS[k] * int(row[k]) for k in range(E.N_LETTERS)) + "*" * int(row[E.WWW])


def test_a_rotonde_tells_each_giver_where_its_hand_went_and_moves_what_was_known():
    h, n = hands_of("abc", "dd", "e*", "fgh")
    known = no_knowledge()
    see(known[3, 1], "d", 1)  # seat 3 had seen one of seat 1's d's
    rows = np.zeros((E.MAX_PLAYERS, E.HAND_WIDTH), np.int64)
    rotonde_known_nb(known, h, n, 4, False, rows)
    rotonde_nb(h, n, 4, np.zeros(E.HAND_WIDTH, np.int64), False)
    for o in range(4):  # each knows its old hand, now with the next seat, card for card
        assert letters_of(known[o, (o + 1) % 4]) == letters_of(h[(o + 1) % 4])
        assert not known[o, o].any()
    assert letters_of(known[3, 2]) == "d"  # seat 1's hand went to seat 2, and what 3 knew with it
    assert not known[3, 1].any() and not known[0, 2].any()
    assert known_held_nb(known, h, 4)


def test_a_rotonde_that_skips_an_empty_hand_tells_the_next_holder():
    h, n = hands_of("ab", "", "c", "dd")  # seat 1's last card lies on the table (a remise)
    known = no_knowledge()
    rows = np.zeros((E.MAX_PLAYERS, E.HAND_WIDTH), np.int64)
    rotonde_known_nb(known, h, n, 4, True, rows)
    rotonde_nb(h, n, 4, np.zeros(E.HAND_WIDTH, np.int64), True)
    assert letters_of(h[2]) == "ab" and letters_of(known[0, 2]) == "ab"  # 0 -> 2, past seat 1
    assert letters_of(known[3, 0]) == "dd"
    assert not known[1].any() and not known[:, 1].any()  # seat 1 gave and got nothing
    assert known_held_nb(known, h, 4)


def test_a_pechvogel_swap_tells_both_what_the_other_now_holds():
    h, n = hands_of("ab", "cde", "f", "gg")
    known = no_knowledge()
    see(known[2, 1], "c", 1)  # seat 2 had seen seat 1's c
    swap_hands_nb(h, n, 0, 1)
    swapped_known_nb(known, h, 4, 0, 1)
    assert letters_of(known[0, 1]) == "ab" and letters_of(known[1, 0]) == "cde"
    assert letters_of(known[2, 0]) == "c" and not known[2, 1].any()  # the c moved with its hand
    assert not known[3].any()
    assert known_held_nb(known, h, 4)


def test_a_card_taken_is_known_to_the_victim_and_blurs_what_others_knew():
    h, n = hands_of("ab", "cce", "f", "")
    known = no_knowledge()
    e = LETTERS.index("e")
    see(known[0, 1], "c", 2)  # seat 0 knows seat 1's whole hand
    see(known[0, 1], "e", 1)
    see(known[2, 1], "c", 1)
    see(known[2, 1], "e", 1)
    # seat 2 takes seat 1's e (at random: it could have been a c)
    h[1, e] -= 1
    h[2, e] += 1
    n[1] -= 1
    n[2] += 1
    taken_from_nb(known, 4, 2, 1, e)
    given_to_nb(known, 1, 2, e)
    assert letters_of(known[2, 1]) == "c"  # the taker knows which card went
    assert letters_of(known[0, 1]) == "c"  # seat 0 only that one card went: c-1 and e-1
    assert letters_of(known[1, 2]) == "e"  # the victim knows where its e is
    assert known_held_nb(known, h, 4)


def test_cards_shown_and_taken_back():
    h, n = hands_of("aab", "c")
    known = no_knowledge()
    a = LETTERS.index("a")
    shown_kept_nb(known, 2, 0, a)  # a wrong answer with an a: shown, kept
    assert known[1, 0, a] == 1 and known[0, 0, a] == 0
    shown_kept_nb(known, 2, 0, a)  # shown again: still at least one, not two
    assert known[1, 0, a] == 1
    shown_nb(known, 2, 0, a)  # laid on the table for a remise
    h[0, a] -= 1
    assert known[1, 0, a] == 0
    returned_nb(known, 2, 0, a)  # and taken back: everyone saw it
    h[0, a] += 1
    assert known[1, 0, a] == 1
    assert known_held_nb(known, h, 2)
    known[1, 0, E.HAND_MASK] = 0  # a kind set that does not say what the row counts
    assert not known_held_nb(known, h, 2)
    see(known[1, 0], "b", 2)  # more than seat 0 holds: the check says so
    assert not known_held_nb(known, h, 2)
    forget_nb(known, 2)
    assert not known.any()


def race_rules(kind, b, hshare, pshare):
    """The rules tuple as race_rate_nb reads it: breadth, rates (vocabulary x speed), and the
    profiles tuple (kinds of the categories, letter shares, knowledge, reaction, rates, hshare)."""
    rates = np.ones(E.MAX_PLAYERS)
    know = np.ones((E.MAX_PLAYERS, E.N_CATEGORY_KINDS))
    react = np.full(E.MAX_PLAYERS, 0.5)
    prof = (np.full(4, kind, np.int64), pshare, know, react, np.ones(E.MAX_PLAYERS), hshare)
    rule_i = np.zeros(E.N_RULES_I, np.int64)
    rule_i[E.R_RECALL_MODEL] = E.RECALL_PROFILES
    return (rule_i, np.zeros(E.N_RULES_F), np.zeros(4, np.int64), np.zeros((4, 4), np.int64),
            np.zeros((4, 4)), rates, np.zeros(E.N_LETTERS), np.full(4, b),
            np.full(1, -1, np.int64), prof)


def test_a_known_letter_races_at_its_own_share():
    from kernels.wieweetwat.policies_nb import race_rate_nb

    kind, b = 1, 0.8
    hshare = np.full((E.MAX_PLAYERS, E.N_CATEGORY_KINDS), 0.04)
    pshare = np.full((E.MAX_PLAYERS, E.N_CATEGORY_KINDS, E.N_LETTERS), 0.01)
    q, x = LETTERS.index("q"), LETTERS.index("s")
    pshare[2, kind, q] = 0.001
    pshare[2, kind, x] = 0.12
    rules = race_rules(kind, b, hshare, pshare)
    hand_n = np.array([5, 5, 4, 5, 0, 0], np.int64)
    known = np.zeros((E.MAX_PLAYERS, E.HAND_WIDTH), np.int64)
    race = (hand_n, np.int64(0b1110), np.full(E.MAX_PLAYERS, -1, np.int64), known)
    assert math.isclose(race_rate_nb(2, rules, race, 0), b * 0.04 * 4)  # nothing seen
    see(known[2], "q", 2)  # two q's seen, one s, one Wie Weet Wat card (counted as unseen)
    see(known[2], "s", 1)
    see(known[2], "*", 1)
    assert math.isclose(race_rate_nb(2, rules, race, 0), b * (2 * 0.001 + 0.12 + 1 * 0.04))


def test_the_targeting_reader_uses_the_leaders_letters_it_has_seen():
    """The leader's hand, all seen, is three s's (common in 'dier' for it) and nothing it would say
    quickly for 'naam': with the hand unseen the reader reads the kind the leader knows least
    ('dier'); knowing the letters, it reads 'naam', where those letters are rare."""
    from kernels.wieweetwat.policies_nb import choose_category_nb
    from tests.test_wieweetwat_rules import reader_rules, rngs

    know = np.ones((E.MAX_PLAYERS, E.N_CATEGORY_KINDS))
    kinds = [E.CATEGORY_KINDS.index(k) for k in ("dier", "plaats", "naam", "eten")]
    know[2, kinds[0]] = 0.8  # the leader knows animals a little less than the rest
    rules = reader_rules([1.0] * 4, E.RECALL_PROFILES, kinds, know, np.full(E.MAX_PLAYERS, 0.8))
    x = LETTERS.index("s")
    pshare, hshare = rules[9][1], rules[9][5]
    pshare[:, :, :] = 1.0 / E.N_LETTERS
    hshare[:, :] = 1.0 / E.N_LETTERS
    pshare[2, kinds[0], x] = 0.30  # the leader's s's: many animals, few names
    pshare[2, kinds[2], x] = 0.002
    hand_n = np.array([6, 5, 3, 7, 0, 0], np.int64)
    known = np.zeros((E.MAX_PLAYERS, E.HAND_WIDTH), np.int64)
    race = (hand_n, np.int64(0b1110), np.full(E.MAX_PLAYERS, -1, np.int64), known)
    assert choose_category_nb(rngs(), 0, E.P_TARGETING, rules, race, 4, 0, False) == 0
    see(known[2], "s", 3)
    assert choose_category_nb(rngs(), 0, E.P_TARGETING, rules, race, 4, 0, False) == 2


def test_the_search_deals_the_cards_it_knows_to_their_holders():
    from kernels.wieweetwat import search_nb
    from tests.test_wieweetwat_search import piles_of, rules_of, state_of, table_in_play

    rows, search, _ = table_in_play(4, 3)
    t = rows[0]
    seen = {1: [k for k in range(E.N_KINDS) if t["hands"][1, k]][:2],
            3: [int(np.argmax(t["hands"][3, :E.N_KINDS]))]}
    for q, kinds in seen.items():
        for k in kinds:
            see(t["known"][0, q], "*" if k == E.WWW else LETTERS[k], t["hands"][q, k])
    card = int(t["cpile"][t["pile_n"][E.PN_CAT_PILE] - 1])
    sim = search[0][0]
    for word in range(1, 40):
        search_nb.determinize_nb(search, np.uint64(word * 7919), 0, 4, card, np.int64(1 << 30),
                                 False, rules_of(t), state_of(t), piles_of(t))
        for q, kinds in seen.items():
            for k in kinds:
                assert sim["hands"][q, k] >= t["hands"][q, k]  # at least the cards it knows
            assert sim["hand_n"][q] == t["hand_n"][q]
        assert (sim["known"][0, :4] == t["known"][0, :4]).all()  # it plays out knowing them
        assert not sim["known"][1:4].any()
        total = sim["hands"][:4, :E.N_KINDS].sum(axis=0) + np.bincount(
            sim["lpile"][: sim["pile_n"][E.PN_LETTER_PILE]], minlength=E.N_KINDS) + np.bincount(
            sim["ldisc"][: sim["pile_n"][E.PN_LETTER_DISCARDS]], minlength=E.N_KINDS)
        assert (total == t["deck_counts"]).all()  # no card made or lost


MANY_ACTIONS = {"action_rotonde": 4, "action_pechvogel": 4, "action_te_veel_keuze": 4,
                "action_verloren_geluk": 4, "action_verkiezingspartij": 4,
                "action_cards": "fixed"}


@pytest.mark.filterwarnings("ignore:.*action cards among")  # many on purpose
@pytest.mark.parametrize("players,policy,rules", [
    (4, "targeting", MANY_ACTIONS),
    (3, "targeting", dict(MANY_ACTIONS, rotonde_empty_hand="skipped")),
    (5, "targeting,search:samples=2,targeting,random,targeting", MANY_ACTIONS),
])
def test_in_checked_play_nobody_knows_a_card_that_is_not_there(players, policy, rules):
    """The checked mode tests known_held_nb after every turn (status INVARIANT otherwise)."""
    arm = ArmSpec.make("wieweetwat", players, rules, policy)
    out, _ = RUNNER.run_kernel(arm, 5, 0, 40 if "search" in policy else 150, checked=True)
    assert out["turns"].min() > 0


def test_a_targeting_trace_says_what_the_reader_has_seen():
    """After a Rotonde a targeting reader has seen a whole hand: the trace says so."""
    arm = ArmSpec.make("wieweetwat", 4, None, "targeting")
    whole = 0
    for index in range(6):
        _, rows = RUNNER.traced(arm, 3, index)
        # EV_KNOWN rows: (code, reader, holder, letters known, cards held, ...)
        whole += sum(1 for row in rows if row[0] == E.EV_KNOWN and row[3] == row[4])
    assert whole > 0
    text = RUNNER.trace_game(arm, 3, 1)
    assert "(targeting) has seen this round that seat" in text
