"""Wie Weet Wat's rules one at a time, each on a hand-built situation: the seven actions, the
players' choices, the piles and their reshuffles, the end of a round; then rules that only show in
play (who reads next, remises, counter-attacks, jokers) read off the traces of whole games."""
from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest

from kernels.wieweetwat import enums as E
from kernels.wieweetwat.actions_nb import (
    circle_nb,
    pechvogel_partner_nb,
    rotonde_nb,
    swap_hands_nb,
    take_card_nb,
    verkiezingspartij_nb,
)
from kernels.wieweetwat.piles_nb import (
    draw_category_card_nb,
    draw_letter_nb,
    end_turn_nb,
    kind_set_nb,
    letters_conserved_nb,
)
from kernels.wieweetwat.policies_nb import (
    choose_category_nb,
    choose_extras_nb,
    choose_target_nb,
    wants_counter_nb,
)
from kernels.wieweetwat.rules_nb import leader_nb, round_winner_nb
from sim.errors import SpecError
from sim.games.wieweetwat import INITIAL_SHARE, LETTERS, ActionCardsWarning, scaled_actions
from sim.registry import games
from sim.spec import ArmSpec

SHARE = np.array([INITIAL_SHARE[k] for k in LETTERS])


def hands_of(*hands):
    """hands_of("abc", "", "ss*") -> ([6, HAND_WIDTH] hand rows (counts of the 27 kinds, `*` = the
    Wie Weet Wat card, then the kind set), hand sizes)."""
    h = np.zeros((E.MAX_PLAYERS, E.HAND_WIDTH), np.int64)
    for s, text in enumerate(hands):
        for c in text:
            h[s, E.WWW if c == "*" else LETTERS.index(c)] += 1
        h[s, E.HAND_MASK] = kind_set_nb(h, s)
    return h, h[:, :E.N_KINDS].sum(axis=1)


def kind_sets_follow(h):
    """Every hand's kind set column still says which kinds it holds."""
    return all(h[s, E.HAND_MASK] == sum(1 << k for k in range(E.N_KINDS) if h[s, k])
               for s in range(E.MAX_PLAYERS))


def text_of(h, s):
    return "".join(("*" if k == E.WWW else LETTERS[k]) * h[s, k] for k in range(E.N_KINDS))


def rngs():
    return np.arange(1, E.MAX_PLAYERS + 1, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)


# ------------------------------------------------------------------------------ actions

def test_rotonde_passes_every_hand_to_the_next_player():
    h, n = hands_of("ab", "c", "ddd*", "")
    rotonde_nb(h, n, 4, np.zeros(E.HAND_WIDTH, np.int64), False)
    assert [text_of(h, s) for s in range(4)] == ["", "ab", "c", "ddd*"]
    assert n[:4].tolist() == [0, 2, 1, 4] and kind_sets_follow(h)


def test_rotonde_skipping_an_empty_hand_passes_among_the_holders():
    """rotonde_empty_hand=skipped: seat 1 (its last card on the table in a remise) neither gives
    nor receives; with `passed` seat 2 would get the empty hand (and win the round)."""
    h, n = hands_of("ab", "", "c", "ddd*")
    rotonde_nb(h, n, 4, np.zeros(E.HAND_WIDTH, np.int64), True)
    assert [text_of(h, s) for s in range(4)] == ["ddd*", "", "ab", "c"]
    assert n[:4].tolist() == [4, 0, 2, 1] and kind_sets_follow(h)
    h, n = hands_of("", "ab", "", "c")
    rotonde_nb(h, n, 4, np.zeros(E.HAND_WIDTH, np.int64), True)
    assert [text_of(h, s) for s in range(4)] == ["", "c", "", "ab"]


def test_verkiezingspartij_everyone_takes_one_card_from_the_left_at_once():
    h, n = hands_of("aa", "b", "", "cc")
    verkiezingspartij_nb(rngs(), h, n, 4, np.zeros(E.HAND_WIDTH, np.int64), None, np.zeros(1, np.int64))
    # seat 0 takes seat 1's only card, seat 1 takes nothing from the empty seat 2,
    # seat 2 takes a c from seat 3, seat 3 takes an a from seat 0
    assert [text_of(h, s) for s in range(4)] == ["ab", "", "c", "ac"]
    assert n[:4].tolist() == [2, 0, 1, 2] and kind_sets_follow(h)


def test_a_card_taken_unseen_comes_from_the_victims_hand():
    h, n = hands_of("", "aab")
    seen = set()
    r = rngs()
    for _ in range(40):
        h2, n2 = h.copy(), n.copy()
        kind = take_card_nb(r, h2, n2, 0, 1, None, np.zeros(1, np.int64))
        seen.add(LETTERS[kind])
        assert n2[0] == 1 and n2[1] == 2 and h2[0, kind] == 1 and kind_sets_follow(h2)
    assert seen == {"a", "b"}
    assert take_card_nb(r, h, n, 1, 0, None, np.zeros(1, np.int64)) == -1  # an empty hand


def test_pechvogel_swaps_with_the_player_holding_the_most():
    _, n = hands_of("ab", "abcd", "abcd", "a")
    assert pechvogel_partner_nb(0, n, 4) == 1  # a tie: the first clockwise from the reader
    assert pechvogel_partner_nb(3, n, 4) == 1
    assert pechvogel_partner_nb(2, n, 4) == -1  # nobody holds more than the reader
    h, n = hands_of("ab", "cde*")
    swap_hands_nb(h, n, 0, 1)
    assert (text_of(h, 0), text_of(h, 1), n[0], n[1]) == ("cde*", "ab", 4, 2)
    assert kind_sets_follow(h)


def test_te_veel_keuze_targets_by_policy_and_never_takes_a_last_card_needlessly():
    _, n = hands_of("abcdef", "a", "abc", "abcde")
    r = rngs()
    assert choose_target_nb(r, E.TARGET_FEWEST_CARDS, 0, n, 4) == 2  # seat 1's last card is spared
    assert choose_target_nb(r, E.TARGET_MOST_CARDS, 0, n, 4) == 3
    assert {choose_target_nb(r, E.TARGET_RANDOM, 0, n, 4) for _ in range(60)} == {2, 3}
    _, n = hands_of("abc", "a", "", "b")
    assert choose_target_nb(r, E.TARGET_FEWEST_CARDS, 0, n, 4) == 1  # only last cards left
    _, n = hands_of("abc", "", "", "")
    assert choose_target_nb(r, E.TARGET_RANDOM, 0, n, 4) == -1


def test_vicieuze_cirkel_goes_round_from_the_reader_until_someone_fails():
    seat_f = np.zeros((E.MAX_PLAYERS, len(E.SEAT_F_ORDER)))
    rates = np.ones(E.MAX_PLAYERS)
    rates[2] = 1e-9  # seat 2 never finds an answer in time
    at = np.zeros(1, np.int64)
    failing, given = circle_nb(rngs(), 0, 4, 5.0, rates, seat_f, 10.0, 30.0, None, at)
    assert (failing, given) == (2, 2)  # the reader and seat 1 answer, seat 2 fails
    failing, given = circle_nb(rngs(), 3, 4, 5.0, rates, seat_f, 10.0, 30.0, None, at)
    assert (failing, given) == (2, 3)  # 3, 0, 1 answer
    # the category's common answers run out: breadth x pool answers at most
    rates[:] = 1.0
    failing, given = circle_nb(rngs(), 0, 4, 0.5, rates, seat_f, 4.0, 1e9, None, at)
    assert given <= 2 and failing == given % 4


# ------------------------------------------------------------------------------ choices

def reader_rules(breadth, model=E.RECALL_UNIFORM, kinds=None, know=None, react=None):
    """The `rules` tuple a reader decides from: breadths, and the profiles it knows."""
    rule_i = np.zeros(E.N_RULES_I, np.int64)
    rule_i[E.R_RECALL_MODEL] = model
    n = E.MAX_PLAYERS
    kinds = np.zeros(len(breadth), np.int64) if kinds is None else np.asarray(kinds, np.int64)
    know = np.ones((n, E.N_CATEGORY_KINDS)) if know is None else know
    react = np.zeros(n) if react is None else react
    prof = (kinds, np.zeros((n, E.N_CATEGORY_KINDS, E.N_LETTERS)), know, react, np.zeros(n),
            np.ones((n, E.N_CATEGORY_KINDS)))
    return (rule_i, np.zeros(E.N_RULES_F), np.zeros(n, np.int64), np.zeros((n, 4), np.int64),
            np.zeros((n, 4)), np.ones(n), SHARE, np.asarray(breadth, np.float64),
            np.full(len(breadth) // 4, -1, np.int64), prof)


def test_the_reader_chooses_the_category_by_policy():
    rules = reader_rules([1.0, 0.2, 3.0, 0.9, 0.5, 0.5, 0.5, 0.5])
    hand_n = np.full(E.MAX_PLAYERS, 5, np.int64)
    r = rngs()

    def choose(policy, card):
        race = (hand_n, np.int64(0b1110), np.full(E.MAX_PLAYERS, -1, np.int64),
                np.zeros((E.MAX_PLAYERS, E.HAND_WIDTH), np.int64))
        return choose_category_nb(r, 0, policy, rules, race, 4, card, False)
    assert choose(E.P_SPOILER, 0) == 1
    assert choose(E.P_TARGETING, 0) == 1  # the uniform model: as spoiler
    assert choose(E.P_WIDEST, 0) == 2
    assert choose(E.P_WIDEST, 1) == 0  # ties: the first
    assert {choose(E.P_RANDOM, 0) for _ in range(60)} == {0, 1, 2, 3}


def test_grote_kans_extras_shed_the_earliest_or_the_hardest_letters():
    times = np.full(E.N_KINDS, E.NO_TIME)
    for c, t in (("s", 1.0), ("b", 2.0), ("z", 3.0), ("u", 9.0), ("v", 12.0)):
        times[LETTERS.index(c)] = t
    chosen = np.zeros(E.N_KINDS, np.int64)
    k = choose_extras_nb(E.SHED_EARLIEST, times, SHARE, 10.0, 2, chosen)
    assert [LETTERS[c] for c in chosen[:k]] == ["s", "b"]
    k = choose_extras_nb(E.SHED_HARDEST, times, SHARE, 10.0, 2, chosen)
    assert [LETTERS[c] for c in chosen[:k]] == ["u", "z"]  # v came after the 10 seconds
    k = choose_extras_nb(E.SHED_EARLIEST, times, SHARE, 1.5, 2, chosen)
    assert [LETTERS[c] for c in chosen[:k]] == ["s"]


def test_counter_attack_settings():
    _, n = hands_of("abc", "ab", "abcd")
    assert wants_counter_nb(E.COUNTER_ALWAYS, 2, 0, n)
    assert not wants_counter_nb(E.COUNTER_NEVER, 2, 0, n)
    assert wants_counter_nb(E.COUNTER_LEADER_ONLY, 2, 0, n)  # 3 cards against its 4
    assert not wants_counter_nb(E.COUNTER_LEADER_ONLY, 1, 0, n)  # 3 cards against its 2


def test_the_round_ends_with_an_empty_hand_and_nothing_on_the_table():
    _, n = hands_of("ab", "", "c", "")
    pending = np.full(E.MAX_PLAYERS, -1)
    assert round_winner_nb(0, n, pending, 4) == 1
    assert round_winner_nb(2, n, pending, 4) == 3  # the first clockwise from the start
    pending[1] = 0  # seat 1's card lies on the table in a remise
    assert round_winner_nb(0, n, pending, 4) == 3
    assert leader_nb(0, np.array([5, 3, 2, 2, 0, 0]), 4) == 2


# ------------------------------------------------------------------------------ piles

def test_an_empty_letter_pile_is_refilled_from_the_discards():
    pile = np.zeros(10, np.int64)
    discards = np.array([3, 4, 5, 0, 0, 0, 0, 0, 0, 0])
    pile_n = np.zeros(E.N_PILE_N, np.int64)
    pile_n[E.PN_LETTER_DISCARDS] = 3
    kind, shuffled = draw_letter_nb(1, 2, 0, pile, discards, pile_n)
    assert shuffled == 3 and kind in (3, 4, 5)
    assert pile_n[E.PN_LETTER_PILE] == 2 and pile_n[E.PN_LETTER_DISCARDS] == 0
    assert sorted(pile[:2].tolist() + [kind]) == [3, 4, 5]
    draw_letter_nb(1, 2, 0, pile, discards, pile_n)
    draw_letter_nb(1, 2, 0, pile, discards, pile_n)
    assert draw_letter_nb(1, 2, 0, pile, discards, pile_n) == (-1, 0)  # both empty: no card


def test_category_cards_in_use_come_back_only_when_nothing_else_is_left():
    pile = np.array([0, 1, 2])
    discards = np.zeros(3, np.int64)
    in_use = np.zeros(3, np.int64)
    pile_n = np.zeros(E.N_PILE_N, np.int64)
    pile_n[E.PN_CAT_PILE] = 3
    none = np.zeros(1, np.int64)
    drawn = [draw_category_card_nb(1, 0, pile, discards, in_use, pile_n, none, 0, 0, -1)[0]
             for _ in range(3)]
    assert drawn == [2, 1, 0] and pile_n[E.PN_CAT_IN_USE] == 3
    card, shuffled = draw_category_card_nb(1, 0, pile, discards, in_use, pile_n, none, 0, 0, -1)
    assert shuffled == 3 and card in (0, 1, 2)  # everything was in use: shuffled back
    end_turn_nb(discards, in_use, pile_n)
    assert pile_n[E.PN_CAT_DISCARDS] == 1 and pile_n[E.PN_CAT_PILE] == 2


def test_cards_still_waiting_in_the_turn_are_never_shuffled_back():
    """Issue 30's defect: a Vicieuze cirkel drawing its own card from an empty pile with empty
    discards shuffled back every card in use, the turn's category card not yet read and the action
    cards not yet carried out too (read or carried out twice). Cards 0-5 in use in draw order: 0
    a category card read in a remise, 1 an action carried out, 2 the circle being carried out, 3
    an action still queued, 4 the category card waiting, 5 an action drawn by the circle."""
    for _ in range(20):
        pile = np.zeros(6, np.int64)
        discards = np.zeros(6, np.int64)
        in_use = np.array([0, 1, 2, 3, 4, 5])
        pile_n = np.zeros(E.N_PILE_N, np.int64)
        pile_n[E.PN_CAT_IN_USE] = 6
        queue = np.array([1, 2, 3, 5])  # the queued action cards; 2 (index 1) is being carried out
        card, shuffled = draw_category_card_nb(1, 0, pile, discards, in_use, pile_n, queue, 1, 4, 4)
        assert shuffled == 2 and card in (0, 1)
        assert in_use[:pile_n[E.PN_CAT_IN_USE]].tolist() == [2, 3, 4, 5, card]
    # every card waits: nothing to draw, nothing moved
    in_use = np.array([2, 3, 4, 5])
    pile_n[:] = 0
    pile_n[E.PN_CAT_IN_USE] = 4
    card, shuffled = draw_category_card_nb(1, 0, pile, discards, in_use, pile_n, queue, 1, 4, 4)
    assert (card, shuffled) == (-1, 0) and pile_n[E.PN_CAT_IN_USE] == 4


def test_the_conservation_check_catches_a_lost_card():
    h, n = hands_of("ab", "c")
    deck = np.zeros(E.N_KINDS, np.int64)
    for c in "abcd":
        deck[LETTERS.index(c)] = 1
    pile = np.array([LETTERS.index("d")])
    pile_n = np.zeros(E.N_PILE_N, np.int64)
    pile_n[E.PN_LETTER_PILE] = 1
    pending = np.full(E.MAX_PLAYERS, -1)
    seen = np.zeros(E.N_KINDS, np.int64)
    assert letters_conserved_nb(deck, h, n, 2, pending, pile, pile, pile_n, seen)
    h[0, E.HAND_MASK] = 0  # a kind set that forgot the hand's letters
    assert not letters_conserved_nb(deck, h, n, 2, pending, pile, pile, pile_n, seen)
    h[0, E.HAND_MASK] = kind_set_nb(h, 0)
    h[1, LETTERS.index("c")] = 0
    assert not letters_conserved_nb(deck, h, n, 2, pending, pile, pile, pile_n, seen)


# ------------------------------------------------------------------------------ rules in play

def trace_rows(players, rules=None, policy="random", seed=1, index=0):
    arm = ArmSpec.make("wieweetwat", players, rules or {}, policy)
    runner = games()["wieweetwat"].runner()
    trace = np.zeros((runner.trace_rows, E.TRACE_WIDTH), np.int32)
    out, rows = runner.run_kernel(arm, seed, index, 1, checked=True, trace=trace)
    return trace[:rows].tolist(), out[0]


def steps_of(block):
    """A category's steps: the first reading and each remise's new reading, with their rows."""
    steps = []
    for row in block:
        if row[0] == E.EV_READ:
            steps.append([])
        steps[-1].append(row)
    return steps


def first_wrong_of(block):
    """The first wrong answerer: the earliest wrong answer of the first step that has one."""
    for step in steps_of(block):
        wrong = {r[1] for r in step if r[0] == E.EV_WRONG}
        if wrong:
            return min((r[4], r[1]) for r in step if r[0] == E.EV_ANSWER and r[1] in wrong)[1]
    return None


def categories_of(rows):
    """Split the events into categories: from one EV_READ that is not a remise's to the next. A
    Vicieuze cirkel's own category (its read followed by the circle's answers) stays inside the
    category it interrupts: a remise goes on after it."""
    block = None
    for i, row in enumerate(rows):
        circle = row[0] == E.EV_READ and i + 1 < len(rows) and rows[i + 1][0] == E.EV_CIRCLE
        if row[0] in (E.EV_READ, E.EV_ROUND, E.EV_END) and not (row[0] == E.EV_READ and row[6]) \
                and not circle:
            if block:
                yield block
            block = [row] if row[0] == E.EV_READ else None
        elif block is not None:
            block.append(row)


@pytest.mark.parametrize("reader_rule", ["wrong_answerer", "winner"])
def test_who_reads_next(reader_rule):
    """The winner reads next; after a wrong answer the first wrong answerer (or, by the rule, still
    the winner); with nobody correct the first wrong answerer; with no answer at all the reader."""
    checked = {"win": 0, "wrong+win": 0, "wrong": 0, "nobody": 0}
    for index in range(12):
        rows, _ = trace_rows(4, {"rounds_to_win": 1, "reader_after_wrong": reader_rule,
                                 "time_limit": 5.0},  # short: categories nobody answers
                             "random:error_rate=0.3", index=index)
        blocks = list(categories_of(rows))
        for block, nxt in zip(blocks, blocks[1:]):
            if any(r[0] == E.EV_ROUND_END for r in block):
                continue
            reader = block[0][1]
            wins = [r[1] for r in block if r[0] == E.EV_WIN]
            wrong = [r for r in block if r[0] == E.EV_WRONG]
            first_wrong = first_wrong_of(block)
            # an action card drawn before the next category is read names its reader too
            next_reader = next(r[1] for r in nxt if r[0] == E.EV_READ)
            if wins and not wrong:
                kind, expect = "win", wins[0]
            elif wins:
                kind = "wrong+win"
                expect = first_wrong if reader_rule == "wrong_answerer" else wins[0]
            elif wrong:
                kind, expect = "wrong", first_wrong
            else:
                kind, expect = "nobody", reader
            if len({r[1] for r in block if r[0] == E.EV_READ}) > 1:
                continue  # a Vicieuze cirkel's own category inside the block
            assert next_reader == expect, (kind, block)
            checked[kind] += 1
    assert all(checked.values()), checked


def test_a_remise_is_played_by_the_tied_players_with_their_letters():
    rows, _ = trace_rows(5, {"tie_window": 1.0, "rounds_to_win": 1}, index=2)
    remises = 0
    for i, row in enumerate(rows):
        if row[0] != E.EV_REMISE:
            continue
        tied = {s for s in range(5) if row[2] >> s & 1}
        letters = {r[1]: r[2] for r in rows[:i] if r[0] == E.EV_ANSWER and r[1] in tied}
        j = i + 1
        # the next category read, not a Vicieuze cirkel's own (answered in a circle, not a race)
        while rows[j][0] != E.EV_READ or rows[j + 1][0] == E.EV_CIRCLE:
            j += 1
        assert rows[j][6] == 1  # read as a remise
        k = j + 1
        while rows[k][0] in (E.EV_ANSWER, E.EV_PASS):
            assert rows[k][1] in tied
            if rows[k][0] == E.EV_ANSWER:
                assert rows[k][2] == letters[rows[k][1]] or letters[rows[k][1]] == E.WWW
            k += 1
        remises += 1
    assert remises >= 3


def test_answer_windows_wrong_answers_and_counter_attacks_in_play():
    rows, rec = trace_rows(4, {"rounds_to_win": 2}, index=4)
    steps = [step for block in categories_of(rows) for step in steps_of(block)]
    for step in steps:
        answers = [r for r in step if r[0] == E.EV_ANSWER]
        correct = [r[4] for r in answers if r[5] == 1]
        for r in step:
            if r[0] == E.EV_WIN:
                # the winner is the fastest correct answer, alone in its tie window
                assert min(correct) == next(a[4] for a in answers if a[1] == r[1] and a[5] == 1)
                assert sum(c <= min(correct) + 200 for c in correct) == 1
            if r[0] == E.EV_COUNTER:
                winner = next(x for x in step if x[0] == E.EV_WIN)
                assert r[2] == winner[1] and r[3] == winner[3]  # the winner's letter
                assert r[1] != step[0][1]  # never the reader
            if r[0] == E.EV_WRONG:  # said no later than the fastest correct answer's window
                said = next(a[4] for a in answers if a[1] == r[1])
                assert not correct or said <= min(correct) + 200
    assert rec["counter_attacks"].sum() + rec["jokers"].sum() > 0


def test_rule_switches_show_in_the_rows():
    runner = games()["wieweetwat"].runner()
    none = {f"action_{a}": 0 for a in E.ACTION_ORDER}
    cases = [({"counter_attacks": False}, "random", lambda r: r["counter_attacks"].sum() == 0),
             ({"tie_window": 0.0}, "random", lambda r: r["remises"] == 0),
             (none, "random", lambda r: r["actions_drawn"].sum() == 0),
             ({}, "random:error_rate=0", lambda r: r["wrong_answers"].sum() == 0),
             ({}, "random:counter=never", lambda r: r["counter_attacks"].sum() == 0),
             ({"wie_weet_wat_cards": 0}, "random",
              lambda r: r["jokers"].sum() + r["www_rounds"].sum() == 0)]
    for rules, policy, holds in cases:
        arm = ArmSpec.make("wieweetwat", 4, rules, policy)
        out, _ = runner.run_kernel(arm, 3, 0, 30, checked=True)
        assert all(holds(r) for r in out), (rules, policy)


# ------------------------------------------------------------------------- issue 30's rule doubts

EXAMPLE_CATEGORIES = str(Path(__file__).resolve().parents[1] / "examples/categories.toml")


def traced_games(rules, games_n, players=4, policy="random", seed=1, data=None):
    """The trace rows (lists) of games 0..games_n-1 of an arm, each played in checked mode."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ActionCardsWarning)
        arm = ArmSpec.make("wieweetwat", players, rules, policy, data=data)
    runner = games()["wieweetwat"].runner()
    return [runner.traced(arm, seed, i)[1].tolist() for i in range(games_n)]


def read_twice(rows):
    """Category cards read a second time with no reshuffle of the category discards since their
    last reading (a card read is done with: only a reshuffle can bring it back)."""
    last, shuffles, twice = {}, 0, []
    for row in rows:
        if row[0] == E.EV_RESHUFFLE and row[2] == 1:
            shuffles += 1
        elif row[0] == E.EV_READ:
            if last.get(row[2]) == shuffles:
                twice.append(row[2])
            last[row[2]] = shuffles
    return twice


def test_a_card_waiting_in_the_turn_is_never_shuffled_back_and_read_twice():
    """Issue 30's defect: with the 4-card example list (14 category cards, 10 of them actions) a
    Vicieuze cirkel drawing from an empty pile shuffled back the turn's category card still waiting
    to be read; it was read, then drawn and read again (13 of these 60 games before the fix)."""
    traces = traced_games({}, 60, data={"categories": EXAMPLE_CATEGORIES})
    assert sum(row[0] == E.EV_RESHUFFLE and row[2] == 1 for rows in traces for row in rows) > 60
    assert [i for i, rows in enumerate(traces) if read_twice(rows)] == []


def test_counter_last_card_decides_whether_an_emptied_hand_can_be_attacked():
    """An EV_COUNTER row's e is the attacked winner's hand: 0 when its win emptied it."""
    def on_empty(rules):
        return sum(row[0] == E.EV_COUNTER and row[6] == 0
                   for rows in traced_games(rules, 40) for row in rows)

    assert on_empty({}) > 0
    assert on_empty({"counter_last_card": False}) == 0


def rounds_ended_by_rotonde(rows):
    """Rounds that end right after a Rotonde is carried out (nothing read in between)."""
    ended, after_rotonde = 0, False
    for row in rows:
        if row[0] == E.EV_ACTION:
            after_rotonde = row[2] == E.A_ROTONDE
        elif row[0] == E.EV_ROUND_END:
            ended += after_rotonde
            after_rotonde = False
        elif row[0] in (E.EV_READ, E.EV_WIN, E.EV_DRAW_ACTION):
            after_rotonde = False
    return ended


def test_rotonde_empty_hand_decides_whether_an_empty_hand_is_passed_on():
    """Remises and Rotondes made frequent: `passed` hands a remise player's empty hand to the next
    player, who wins the round; `skipped` never ends a round by a Rotonde."""
    rules = {"tie_window": 1.0, "action_rotonde": 10}
    passed = sum(rounds_ended_by_rotonde(rows) for rows in traced_games(rules, 30))
    skipped = sum(rounds_ended_by_rotonde(rows)
                  for rows in traced_games(rules | {"rotonde_empty_hand": "skipped"}, 30))
    assert passed > 0 and skipped == 0


def extras_by_category(rows):
    """The letters of each category's Grote Kans extra cards."""
    out, current = [], None
    for row in rows:
        if row[0] == E.EV_WIN:
            current = []
            out.append(current)
        elif row[0] == E.EV_EXTRA and current is not None:
            current.append(row[2])
    return [c for c in out if c]


def test_grote_kans_same_letter_lets_the_extras_repeat_a_letter():
    rules = {"action_grote_kans": 10, "grote_kans_cards": 4, "follow_time": 0.0}
    same = [c for rows in traced_games(rules | {"grote_kans_same_letter": True}, 20)
            for c in extras_by_category(rows)]
    distinct = [c for rows in traced_games(rules, 20) for c in extras_by_category(rows)]
    assert distinct and all(len(set(c)) == len(c) for c in distinct)
    assert sum(len(set(c)) < len(c) for c in same) > 0
    assert max(len(c) for c in same) <= 4


def test_action_cards_scaled_to_a_short_list_and_a_warning_when_fixed():
    runner = games()["wieweetwat"].runner()
    data = {"categories": EXAMPLE_CATEGORIES}
    with pytest.warns(ActionCardsWarning, match="10 action cards among 4 category cards"):
        fixed = ArmSpec.make("wieweetwat", 4, {}, "random", data=data)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ActionCardsWarning)
        scaled = ArmSpec.make("wieweetwat", 4, {"action_cards": "scaled"}, "random", data=data)
        ArmSpec.make("wieweetwat", 4, {}, "random")  # the default list: 10 to 50, no warning
        full = ArmSpec.make("wieweetwat", 4, {"action_cards": "scaled"}, "random")
    counts = slice(E.R_ACTION_FIRST, E.R_ACTION_FIRST + E.N_ACTIONS)
    assert runner.kernel_inputs(scaled).rule_i[counts].tolist() == [1, 0, 0, 0, 0, 0, 0]
    assert runner.kernel_inputs(full).rule_i[counts].tolist() == [2, 2, 1, 1, 2, 1, 1]
    assert scaled_actions([2, 2, 1, 1, 2, 1, 1], 100) == [4, 4, 2, 2, 4, 2, 2]
    ratio = {}
    for name, arm in (("fixed", fixed), ("scaled", scaled)):
        out, _ = runner.run_kernel(arm, 1, 0, 40, checked=True)
        ratio[name] = out["actions_drawn"].sum() / out["categories"].sum()
    assert ratio["fixed"] > 1.5 and ratio["scaled"] < 0.4, ratio


@pytest.mark.parametrize("rules,named", [({"rotonde_empty_hand": "sideways"}, "sideways"),
                                          ({"action_cards": "half"}, "half"),
                                          ({"counter_last_card": "maybe"}, "maybe"),
                                          ({"grote_kans_same_letter": 2}, "2")])
def test_the_new_rules_refuse_bad_values_by_name(rules, named):
    with pytest.raises(SpecError, match=named):
        ArmSpec.make("wieweetwat", 4, rules, "random")


def test_a_one_card_category_list_plays_with_every_action_card(tmp_path):
    """One category card and the ten action cards: a Vicieuze cirkel finds no category card to
    draw but the one waiting and reads from it (drawing on, it took every action card into its
    queue again, the other circle too, until the queue overflowed: every game failed)."""
    one = tmp_path / "one.toml"
    one.write_text("".join(f"[[category]]\nname = 'c{i}'\nbreadth = {b}\n"
                           for i, b in enumerate((3.0, 1.5, 0.8, 0.3))))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ActionCardsWarning)
        arm = ArmSpec.make("wieweetwat", 4, {}, "random", data={"categories": str(one)})
    out, _ = games()["wieweetwat"].runner().run_kernel(arm, 1, 0, 60, checked=True)
    assert out["actions_drawn"][:, E.A_VICIEUZE_CIRKEL].sum() > 60
