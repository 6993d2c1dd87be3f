"""Wizard rules helpers: hand-built tricks for every winner rule, the seed's scoring examples, legal
plays, and a differential test against a plain-Python reading of the rules on random inputs."""
from __future__ import annotations

import random

import numpy as np
import pytest

from kernels.rng_nb import mix64_nb
from kernels.wizard import enums as E
from kernels.wizard import rules_nb as R

H, D, C, S = 0, 1, 2, 3
WIZ = [52, 53, 54, 55]
JES = [56, 57, 58, 59]
NT = E.NO_TRUMP


def card(rank: str, suit: int) -> int:
    return suit * 13 + ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A").index(rank)


def mask(cards) -> np.uint64:
    m = 0
    for c in cards:
        m |= 1 << c
    return np.uint64(m)


def cards_of(m) -> list[int]:
    m = int(m)
    return [c for c in range(60) if m >> c & 1]


def winner(cards, trump) -> int:
    return int(R.trick_winner_nb(np.array(cards, dtype=np.int64), len(cards), trump))


# ------------------------------------------------------------------------ trick winners
def test_first_wizard_wins():
    assert winner([card("A", S), WIZ[2], WIZ[0], card("K", S)], S) == 1
    assert winner([WIZ[3], WIZ[1], card("A", H), JES[0]], H) == 0


def test_highest_of_led_suit_wins_without_trump_played():
    assert winner([card("5", H), card("K", H), card("A", D), card("Q", H)], S) == 1
    assert winner([card("5", H), card("K", H), card("A", D)], NT) == 1


def test_trump_beats_led_suit():
    assert winner([card("A", H), card("2", S), card("K", H)], S) == 1
    assert winner([card("A", H), card("2", S), card("3", S), card("K", H)], S) == 2
    assert winner([card("A", H), card("2", S)], NT) == 0  # no trump: off-suit never wins
    assert winner([card("4", S), card("A", H), card("3", S)], S) == 0  # trump led


def test_jester_lead_first_non_jester_sets_suit():
    assert winner([JES[0], card("3", D), card("K", D), card("A", C)], NT) == 2
    assert winner([JES[0], card("3", D), card("K", D), card("2", S)], S) == 3
    assert winner([JES[0], JES[1], card("7", C), card("9", H)], NT) == 2


def test_jester_then_wizard():
    assert winner([JES[0], WIZ[0], card("A", S), WIZ[1]], S) == 1
    assert winner([JES[0], JES[1], WIZ[2], card("A", H)], H) == 2


def test_all_jesters_first_wins():
    for n in range(3, 5):
        assert winner(JES[:n], S) == 0
        assert winner(JES[:n], NT) == 0


def test_jester_never_wins_once_a_card_is_played():
    assert winner([card("2", C), JES[0], JES[1]], NT) == 0
    assert winner([JES[3], card("2", C), JES[0]], NT) == 1


# ------------------------------------------------------------------------ legal plays
def test_follow_suit_wizard_and_jester_always_allowed():
    hand = mask([card("2", H), card("K", H), card("A", S), WIZ[0], JES[0]])
    legal = cards_of(R.legal_mask_nb(hand, H, False))
    assert legal == sorted([card("2", H), card("K", H), WIZ[0], JES[0]])
    # void in the led suit: anything
    assert cards_of(R.legal_mask_nb(hand, D, False)) == cards_of(hand)
    # strict_void (the FAQ read literally): void and holding a Wizard or Jester: one of those
    assert cards_of(R.legal_mask_nb(hand, D, True)) == [WIZ[0], JES[0]]
    plain = mask([card("A", S), card("3", C)])
    assert cards_of(R.legal_mask_nb(plain, D, True)) == cards_of(plain)


def test_free_after_wizard_and_before_a_suit():
    hand = mask([card("2", H), card("A", S), JES[1]])
    assert cards_of(R.legal_mask_nb(hand, E.LEAD_FREE, False)) == cards_of(hand)
    assert cards_of(R.legal_mask_nb(hand, E.LEAD_NONE, False)) == cards_of(hand)
    # lead states: a Jester keeps it open, a Wizard frees it, a suit fixes it
    assert R.lead_after_nb(E.LEAD_NONE, JES[0]) == E.LEAD_NONE
    assert R.lead_after_nb(E.LEAD_NONE, WIZ[0]) == E.LEAD_FREE
    assert R.lead_after_nb(E.LEAD_NONE, card("7", C)) == C
    assert R.lead_after_nb(C, card("7", H)) == C
    assert R.lead_after_nb(E.LEAD_FREE, card("7", H)) == E.LEAD_FREE


# ------------------------------------------------------------------------ scoring, bids, trump
def test_seed_scoring_examples():
    assert R.round_score_nb(4, 4) == 60  # 'als een speler 4 biedt en precies 4 slagen slaat ... 60'
    assert R.round_score_nb(5, 3) == -20  # 'als een speler 5 biedt en slechts 3 neemt ... 20 punten'
    assert R.round_score_nb(0, 0) == 20
    assert R.round_score_nb(0, 2) == -20
    assert R.round_score_nb(2, 5) == -30


def test_hook_rule_forbids_exactly_one_dealer_bid():
    assert R.forbidden_bid_nb(5, 3, True, True) == 2
    assert R.forbidden_bid_nb(5, 6, True, True) == -1  # already over: nothing to forbid
    assert R.forbidden_bid_nb(5, 3, False, True) == -1
    assert R.forbidden_bid_nb(5, 3, True, False) == -1
    assert not R.bid_is_legal_nb(2, 5, 3, True, True)
    assert R.bid_is_legal_nb(2, 5, 3, True, False)
    assert not R.bid_is_legal_nb(6, 5, 0, False, False)


def test_trump_of_turned_card():
    assert R.trump_of_turned_nb(card("5", C)) == C
    assert R.trump_of_turned_nb(JES[2]) == NT
    assert R.trump_of_turned_nb(-1) == NT
    assert R.trump_of_turned_nb(WIZ[1]) == -1  # the dealer chooses


def test_card_set_helpers():
    rng = random.Random(3)
    for _ in range(300):
        cards = sorted(rng.sample(range(60), rng.randint(1, 20)))
        m = mask(cards)
        assert R.popcount_nb(m) == len(cards)
        assert R.lowest_card_nb(m) == cards[0]
        k = rng.randrange(len(cards))
        assert R.nth_card_nb(m, k) == cards[k]
        assert R.nth_card_swar_nb(m, k) == cards[k]  # the portable version, whichever is in use
        if R.FAST_PDEP:
            assert R.nth_card_pdep_nb(m, k) == cards[k]


def test_deal_gives_disjoint_hands_and_turned_card():
    rng = np.array([mix64_nb(np.uint64(99))], dtype=np.uint64)
    deck = np.empty(60, dtype=np.int64)
    hands = np.zeros(6, dtype=np.uint64)
    for n in (3, 4, 5, 6):
        for r in (1, 5, 60 // n):
            before = int(rng[0])
            top = R.deal_nb(rng, deck, n, r, hands)
            assert int(rng[0]) != before
            seen = set()
            for s in range(n):
                cs = cards_of(hands[s])
                assert len(cs) == r
                assert not seen & set(cs)
                seen |= set(cs)
            if n * r == 60:
                assert top == -1
            else:
                assert 0 <= top < 60 and top not in seen


# ------------------------------------------------------------------------ differential
def ref_suit(c):
    return None if c >= 52 else c // 13


def ref_lead_suit(trick):
    """The suit to follow for the next card, or None when anything may be played."""
    for c in trick:
        if c >= 56:
            continue  # Jesters do not set the suit
        if c >= 52:
            return None  # a Wizard (led, or first after Jesters) frees the trick
        return c // 13
    return None


def ref_legal(hand, trick, strict):
    lead = ref_lead_suit(trick)
    if lead is None:
        return sorted(hand)
    follow = [c for c in hand if ref_suit(c) == lead]
    special = [c for c in hand if c >= 52]
    if follow:
        return sorted(follow + special)
    if strict and special:
        return sorted(special)
    return sorted(hand)


def ref_winner(trick, trump):
    for i, c in enumerate(trick):
        if 52 <= c < 56:
            return i  # the first Wizard
    if all(c >= 56 for c in trick):
        return 0  # all Jesters: the first Jester
    if trump != NT:
        trumps = [(c % 13, -i) for i, c in enumerate(trick) if ref_suit(c) == trump]
        if trumps:
            return -max(trumps)[1]
    lead = ref_lead_suit(trick)
    led = [(c % 13, i) for i, c in enumerate(trick) if ref_suit(c) == lead]
    return max(led)[1]


def ref_score(bid, tricks):
    return 20 + 10 * tricks if bid == tricks else -10 * abs(bid - tricks)


def test_differential_against_plain_python():
    rng = random.Random(2024)
    for _ in range(3000):
        n = rng.randint(3, 6)
        # bias towards Wizards and Jesters so every rule is exercised often
        pool = list(range(60)) + WIZ * 3 + JES * 3
        cards = []
        while len(cards) < n + 8:
            c = rng.choice(pool)
            if c not in cards:
                cards.append(c)
        trick, hand = cards[:n], cards[n:n + rng.randint(1, 8)]
        trump = rng.choice([H, D, C, S, NT])
        assert winner(trick, trump) == ref_winner(trick, trump), (trick, trump)
        upto = rng.randint(0, n - 1)
        lead = E.LEAD_NONE
        for c in trick[:upto]:
            lead = R.lead_after_nb(lead, c)
        strict = rng.random() < 0.3
        got = cards_of(R.legal_mask_nb(mask(hand), lead, strict))
        assert got == ref_legal(hand, trick[:upto], strict), (hand, trick[:upto], strict)
        bid, took = rng.randint(0, 20), rng.randint(0, 20)
        assert R.round_score_nb(bid, took) == ref_score(bid, took)


@pytest.mark.parametrize("strict", [False, True])
def test_legal_set_is_never_empty(strict):
    rng = random.Random(5)
    for _ in range(500):
        hand = rng.sample(range(60), rng.randint(1, 10))
        for lead in (E.LEAD_NONE, E.LEAD_FREE, H, D, C, S):
            assert R.legal_mask_nb(mask(hand), lead, strict) != 0
