"""The recall model (docs/models/recall.md) against its closed forms: the first-arrival time is
exponential, the k-th arrival Gamma(k, rate), the letter of the first answer is drawn in proportion
to the letters' rates, a pass comes with chance exp(-rate x time limit), follow-up cards count the
arrivals of a window (Poisson, cut at the cards held), and two equal players tie within a window w
with chance 1 - exp(-rate w). Samples are drawn by the kernels' own helpers."""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from kernels.jit import njit
from kernels.wieweetwat.enums import HAND_MASK, HAND_WIDTH, NO_TIME, WWW
from kernels.wieweetwat.piles_nb import kind_set_nb
from kernels.wieweetwat.recall_nb import (
    exponential_nb,
    first_answer_nb,
    say_letter_nb,
    follow_up_count_nb,
    kth_arrival_nb,
    pick_any_letter_nb,
)
from sim.games.wieweetwat import INITIAL_SHARE, LETTERS

SHARE = np.array([INITIAL_SHARE[k] for k in LETTERS])
N = 40_000


def streams(seed=1, k=1):
    return np.array([(seed * 0x9E3779B97F4A7C15 + i * 7919) % 2**64 for i in range(k)], np.uint64)


@njit
def exponentials_nb(rngs, rate, n):
    out = np.empty(n)
    for i in range(n):
        out[i] = exponential_nb(rngs, 0, rate)
    return out


@njit
def kth_nb(rngs, rate, k, n):
    out = np.empty(n)
    for i in range(n):
        out[i] = kth_arrival_nb(rngs, 0, rate, k)
    return out


@njit
def answers_nb(rngs, hands, restrict, rate, share, stuck_only, patience, limit, n):
    times = np.empty(n)
    kinds = np.empty(n, np.int64)
    letters = np.empty(n, np.int64)
    for i in range(n):
        t, kind, letter = first_answer_nb(rngs, 0, hands, restrict, rate, share, stuck_only,
                                          patience, limit)
        if t < NO_TIME:
            kind, letter = say_letter_nb(rngs, 0, hands, share, kind, letter)
        times[i] = t
        kinds[i] = kind
        letters[i] = letter
    return times, kinds, letters


@njit
def follow_counts_nb(rngs, rate, copies, window, n):
    out = np.empty(n, np.int64)
    for i in range(n):
        out[i] = follow_up_count_nb(rngs, 0, rate, copies, window)
    return out


@njit
def remise_share_nb(rngs, hands, rate, share, window, n):
    """Two players with the same hand and rate answer; the share of categories where they tie."""
    ties = 0
    for i in range(n):
        t1, _, _ = first_answer_nb(rngs, 0, hands, -1, rate, share, True, 0.0, 1e9)
        t2, _, _ = first_answer_nb(rngs, 1, hands, -1, rate, share, True, 0.0, 1e9)
        if abs(t1 - t2) <= window:
            ties += 1
    return ties / n


def hand(*letters, www=0):
    h = np.zeros((1, HAND_WIDTH), np.int64)
    for c in letters:
        h[0, LETTERS.index(c)] += 1
    h[0, WWW] = www
    h[0, HAND_MASK] = kind_set_nb(h, 0)
    return h


@pytest.mark.parametrize("rate", [0.05, 1.0, 7.5])
def test_the_first_arrival_is_exponential(rate):
    x = exponentials_nb(streams(3), rate, N)
    assert stats.kstest(x, "expon", args=(0, 1 / rate)).pvalue > 0.001
    assert x.mean() == pytest.approx(1 / rate, rel=0.03)


@pytest.mark.parametrize("k", [1, 2, 3, 5])
def test_the_kth_arrival_is_gamma(k):
    rate = 0.4
    x = kth_nb(streams(4), rate, k, N)
    assert stats.kstest(x, "gamma", args=(k, 0, 1 / rate)).pvalue > 0.001
    assert x.mean() == pytest.approx(k / rate, rel=0.03)
    assert x.var() == pytest.approx(k / rate**2, rel=0.06)


def test_the_first_answer_is_the_minimum_over_the_hands_letters():
    """Time: exponential with the summed rate of the distinct letters held (a second copy adds
    nothing); letter l with chance share[l] / summed share."""
    h = hand("a", "b", "b", "q", "s")
    breadth = 1.3
    times, kinds, letters = answers_nb(streams(5), h, -1, breadth, SHARE, True, 5.0, 1e9, N)
    held = [LETTERS.index(c) for c in "abqs"]
    total = SHARE[held].sum()
    assert stats.kstest(times, "expon", args=(0, 1 / (breadth * total))).pvalue > 0.001
    assert (kinds == letters).all()
    observed = np.array([(letters == i).sum() for i in held])
    expected = N * SHARE[held] / total
    assert stats.chisquare(observed, expected).pvalue > 0.001


def test_a_player_passes_with_chance_exp_of_minus_rate_times_the_limit():
    h = hand("x", "u")
    rate, limit = 2.0, 20.0
    times, _, _ = answers_nb(streams(6), h, -1, rate, SHARE, True, 5.0, limit, N)
    p_pass = math.exp(-rate * SHARE[[LETTERS.index("x"), LETTERS.index("u")]].sum() * limit)
    passed = (times >= NO_TIME).mean()
    assert passed == pytest.approx(p_pass, abs=4 * math.sqrt(p_pass * (1 - p_pass) / N))
    assert times[times < NO_TIME].max() <= limit


def test_a_remise_answers_with_its_letter_only():
    h = hand("a", "s", "s")
    times, kinds, letters = answers_nb(streams(7), h, LETTERS.index("a"), 1.0, SHARE, True, 5.0,
                                       1e9, N)
    assert (kinds == LETTERS.index("a")).all() and (letters == LETTERS.index("a")).all()
    assert stats.kstest(times, "expon", args=(0, 1 / SHARE[LETTERS.index("a")])).pvalue > 0.001


def test_the_joker_comes_after_the_patience_when_the_letters_fail():
    """A hand of one rare letter and a joker: the joker answers at patience + Exp(rate) unless the
    letter X ~ Exp(r_x) came first; given the joker, the time after the patience is
    Exp(rate + r_x) (X is memoryless); its letter is drawn by the shares."""
    h = hand("u", www=1)
    rate, patience = 1.0, 2.0
    times, kinds, letters = answers_nb(streams(8), h, -1, rate, SHARE, True, patience, 1e9, N)
    joker = kinds == WWW
    r_x = SHARE[LETTERS.index("u")] * rate
    p_letter = 1 - math.exp(-r_x * patience) * rate / (rate + r_x)
    assert (~joker).mean() == pytest.approx(p_letter, abs=4 * math.sqrt(p_letter / N))
    assert stats.kstest(times[joker] - patience, "expon", args=(0, 1 / (rate + r_x))).pvalue > 0.001
    observed = np.bincount(letters[joker], minlength=26)
    assert stats.chisquare(observed, joker.sum() * SHARE / SHARE.sum()).pvalue > 0.001


def test_a_player_keeping_its_joker_uses_it_only_when_nothing_else_is_left():
    times, kinds, _ = answers_nb(streams(9), hand("a", www=1), -1, 1.0, SHARE, False, 0.0, 1e9, 2000)
    assert (kinds == LETTERS.index("a")).all()
    times, kinds, _ = answers_nb(streams(9), hand(www=2), -1, 1.0, SHARE, False, 0.0, 1e9, N)
    assert (kinds == WWW).all()
    assert stats.kstest(times, "expon", args=(0, 1.0)).pvalue > 0.001


def test_the_joker_letter_follows_the_shares():
    rngs = streams(10)
    picks = np.array([pick_any_letter_nb(rngs, 0, SHARE) for _ in range(N)])
    assert stats.chisquare(np.bincount(picks, minlength=26), N * SHARE / SHARE.sum()).pvalue > 0.001


@pytest.mark.parametrize("copies", [1, 2, 4])
def test_follow_up_cards_count_the_arrivals_within_the_window(copies):
    """The k-th further card comes at the k-th arrival after the first answer: the count is
    Poisson(rate x window), cut at the copies held."""
    rate, window = 0.3, 5.0
    counts = follow_counts_nb(streams(11), rate, copies, window, N)
    mu = rate * window
    pmf = [stats.poisson.pmf(j, mu) for j in range(copies)]
    pmf.append(1 - sum(pmf))
    observed = np.bincount(counts, minlength=copies + 1)
    assert counts.max() <= copies
    assert stats.chisquare(observed, N * np.array(pmf)).pvalue > 0.001


@pytest.mark.parametrize("window", [0.1, 0.2, 0.5])
def test_two_equal_players_tie_with_chance_one_minus_exp_of_minus_rate_times_window(window):
    h = np.repeat(hand("b", "g", "k", "s"), 2, axis=0)  # seats 0 and 1 hold the same letters
    breadth = 1.0
    rate = breadth * SHARE[[LETTERS.index(c) for c in "bgks"]].sum()
    share = remise_share_nb(streams(12, 2), h, breadth, SHARE, window, N)
    expected = 1 - math.exp(-rate * window)
    assert share == pytest.approx(expected, abs=4 * math.sqrt(expected * (1 - expected) / N))


@njit
def first_share_nb(rngs, hands, rate, share, n):
    """Two players with their own hands answer at the same rate factor (breadth x skill); the share
    of categories that seat 0 answers first."""
    first = 0
    for i in range(n):
        t0, _, _ = first_answer_nb(rngs, 0, hands, -1, rate, share, True, 0.0, 1e9)
        t1, _, _ = first_answer_nb(rngs, 1, hands, -1, rate, share, True, 0.0, 1e9)
        if t0 < t1:
            first += 1
    return first / n


@pytest.mark.parametrize("breadth", [0.2, 1.0, 5.0])
def test_a_categorys_breadth_does_not_change_who_answers_first(breadth):
    """The reason a reader's choice of category decides so little (docs/rules/wieweetwat.md, the
    search player): breadth multiplies every player's rate alike, so seat 0 answers first with
    chance r0 / (r0 + r1) whatever the category."""
    hands = np.vstack([hand("b", "s"), hand("q", "x", "e")])
    r0, r1 = (SHARE[[LETTERS.index(c) for c in letters]].sum() for letters in ("bs", "qxe"))
    expected = r0 / (r0 + r1)
    share = first_share_nb(streams(21, 2), hands, breadth, SHARE, N)
    assert share == pytest.approx(expected, abs=4 * math.sqrt(expected * (1 - expected) / N))
