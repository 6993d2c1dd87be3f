"""The players' beliefs about the mole (docs/models/mole.md): the public chances against exact
combinatorics, the act likelihoods as distributions, the Bayes update against a hand calculation,
and every posterior of traced games against exact enumeration of the n possible moles."""
from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from kernels.wieisdeheer import belief_nb as B
from kernels.wieisdeheer import enums as E
from sim.registry import games
from sim.spec import ArmSpec


def test_chance_holds_is_the_hypergeometric_chance():
    for unseen, k, h in itertools.product((5, 20, 38), (0, 1, 3, 6), (1, 2, 7, 12)):
        if h > unseen:
            continue
        exact = 1 - math.comb(unseen - k, h) / math.comb(unseen, h) if unseen - k >= h else 1.0
        assert B.chance_holds_nb(k, unseen, h) == pytest.approx(exact, abs=1e-12)


@pytest.mark.parametrize("style", [E.STYLE_NAIVE, E.STYLE_SMART])
def test_act_likelihoods_are_distributions_over_the_acts(style):
    rng = np.random.default_rng(3)
    for _ in range(200):
        a, j, o, s = rng.random(4)
        pairs = [B.act_likelihoods_nb(act, a, j, o, s, style) for act in range(E.N_ACTS)]
        assert sum(p[0] for p in pairs) == pytest.approx(1.0, abs=1e-6)
        assert sum(p[1] for p in pairs) == pytest.approx(1.0, abs=1e-6)


def test_a_mole_that_never_sabotages_looks_loyal_and_a_smart_one_voids_only_when_forced():
    for act in range(E.N_ACTS):
        loyal, mole = B.act_likelihoods_nb(act, 0.3, 0.2, 0.6, 0.0, E.STYLE_NAIVE)
        assert loyal == pytest.approx(mole)
    # o = 0.6 >= 1/2: a smart mole does not void, so a void says nothing; a naive one does
    assert B.act_likelihoods_nb(E.ACT_VOID, 0.3, 0.2, 0.6, 0.5, E.STYLE_SMART)[1] == pytest.approx(
        B.act_likelihoods_nb(E.ACT_VOID, 0.3, 0.2, 0.6, 0.5, E.STYLE_SMART)[0])
    loyal, mole = B.act_likelihoods_nb(E.ACT_VOID, 0.3, 0.2, 0.6, 0.5, E.STYLE_NAIVE)
    assert mole / loyal > 2  # (0.3 * 0.5 + 0.096 * 0.5) / 0.096
    loyal, mole = B.act_likelihoods_nb(E.ACT_BANK, 0.3, 0.2, 0.6, 0.5, E.STYLE_NAIVE)
    assert mole < loyal  # banking is exculpatory


def test_bayes_update_against_a_hand_calculation():
    """4 players, uniform priors 1/3. Seat 2 acts with P(act | loyal) = 0.2, P(act | mole) = 0.6:
    for seat 0, P(seat 2 is the mole) = (1/3 * 0.6) / (1/3 * 0.6 + 2/3 * 0.2) = 0.6, and seats 1
    and 3 share the rest, 0.2 each. Seat 2's own row does not move."""
    post = np.zeros((E.MAX_PLAYERS, E.MAX_PLAYERS))
    B.init_beliefs_nb(post, 4)
    B.bayes_update_nb(post, 4, 2, 0.2, 0.6)
    assert post[0, :4] == pytest.approx([0, 0.2, 0.6, 0.2])
    assert post[2, :4] == pytest.approx([1 / 3, 1 / 3, 0, 1 / 3])
    # then an answer read mole-like about seat 1, accuracy 0.7, bluff 0.5, read by seat 0 alone:
    # P(mole-like | loyal) = 0.3, P(mole-like | mole) = 0.5 * 0.7 + 0.5 * 0.3 = 0.5
    loyal, mole = B.answer_likelihoods_nb(True, 0.7, 0.5)
    assert (loyal, mole) == pytest.approx((0.3, 0.5))
    B.update_one_nb(post, 0, 4, 1, loyal, mole)
    z = 0.2 * 0.5 + 0.6 * 0.3 + 0.2 * 0.3
    assert post[0, :4] == pytest.approx([0, 0.1 / z, 0.18 / z, 0.06 / z])
    assert post[1, :4] == pytest.approx([0.2, 0, 0.6, 0.2])  # the others did not read it
    assert B.most_likely_nb(post, 0, 4) == 2  # 0.53
    assert B.most_uncertain_nb(post, 0, 4) == 2  # p(1-p): 0.249 against 0.208 and 0.145
    assert B.brier_nb(post, 0, 4, 2) == pytest.approx((0.1 / z) ** 2 + (1 - 0.18 / z) ** 2 + (0.06 / z) ** 2)


def enumerate_posteriors(n, events, observer):
    """Exact posterior of `observer` over the n possible moles: prior (uniform over the others) times
    the product of every event's likelihood under each hypothesis, normalised."""
    weights = []
    for m in range(n):
        if m == observer:
            weights.append(0.0)
            continue
        w = 1.0 / (n - 1)
        for kind, who, loyal, mole, readers in events:
            if observer in readers:
                w *= mole if m == who else loyal
        weights.append(w)
    total = sum(weights)
    return [w / total for w in weights]


def traced_beliefs(arm, seed, index):
    """(events, [(events so far, belief rows)]) from a traced game: every act and answer with its
    likelihoods and readers, and every EV_BELIEF block with the events before it."""
    runner = games()["wieisdeheer"].runner()
    trace = np.zeros((runner.trace_rows, E.TRACE_WIDTH), dtype=np.int32)
    _, rows = runner.run_kernel(arm, seed, index, 1, checked=True, trace=trace)
    rules = arm.rule_values
    bluff = [dict(s.params).get("bluff", 0.5) for s in arm.seats]
    n = arm.players
    events, checks, block = [], [], []
    everyone = set(range(n))
    for row in trace[:rows].tolist():
        code, seat, a, b, c, d, e, f = row
        if code != E.EV_BELIEF and block:
            checks.append((list(events), block))
            block = []
        if code == E.EV_EVIDENCE:  # one row per reading model, with the mask of its readers
            events.append(("act", seat, b / 1e6, c / 1e6, {k for k in range(n) if f >> k & 1}))
        elif code == E.EV_ASK:
            readers = everyone if rules["answers_public"] else {seat}
            for k in range(b):
                loyal, mole = B.answer_likelihoods_nb(k < c, rules["answer_accuracy"], bluff[a])
                events.append(("answer", a, loyal, mole, readers))
        elif code == E.EV_BELIEF:
            block.append((seat, [a, b, c, d, e, f][:n]))
    return checks


CASES = [
    (3, {}, "reasoner:sabotage=0.9:mole_style=naive"),
    (4, {}, "reasoner:sabotage=0.6"),
    (5, {"answers_public": True}, "reasoner:sabotage=0.8:mole_style=naive,racer,reasoner,random,reasoner"),
    (6, {"questions_per_ace": 5}, "reasoner:sabotage=0.5:mole_style=naive"),
    # observers with their own models of the mole: each reads the acts at the rate it assumes
    (4, {}, "reasoner:suspect_sabotage=0.6,reasoner:sabotage=0.9,reasoner:suspect_sabotage=0,"
            "racer:suspect_sabotage=0.9"),
]


@pytest.mark.parametrize("players,rules,policy", CASES)
def test_kernel_posteriors_equal_enumeration_over_the_possible_moles(players, rules, policy):
    """Every belief the kernel traces equals (to the trace's per mille) the exact enumeration of the
    n hypotheses 'seat m is the mole' with the likelihoods of the acts and answers before it."""
    arm = ArmSpec.make("wieisdeheer", players, rules, policy)
    compared = 0
    for index in range(6):
        for events, block in traced_beliefs(arm, 17, index):
            # likelihoods are traced in millionths: stop where that rounding could matter
            if any(min(ev[2], ev[3]) < 1e-3 for ev in events):
                break
            for observer, per_mille in block:
                exact = enumerate_posteriors(players, events, observer)
                assert per_mille == pytest.approx([1000 * p for p in exact], abs=1.01), (index, events)
                compared += 1
    assert compared > 20


def test_running_unseen_counts_equal_counting_the_cards():
    """The public's fitting counts kept as running totals equal a count over every card with the fit
    test, for every top, through deals, plays and reshuffles."""
    from kernels.wieisdeheer import table_nb as T

    st = np.zeros(T.N_ST, np.int64)
    hands = np.zeros((E.MAX_PLAYERS, E.N_CARDS), np.int64)
    hand_n = np.zeros(E.MAX_PLAYERS, np.int64)
    draw, disc = np.zeros(E.N_CARDS, np.int64), np.zeros(E.N_CARDS, np.int64)
    in_disc = np.zeros(E.N_CARDS, np.int64)
    rng = np.random.default_rng(8)
    for g in range(10):
        T.setup_nb(4, g, 4, 2, st, hands, hand_n, draw, disc, in_disc)
        for step in range(60):
            s = int(rng.integers(4))
            if hand_n[s] and rng.random() < 0.7:
                T.discard_nb(st, disc, in_disc, T.remove_at_nb(hands, hand_n, s, int(rng.integers(hand_n[s]))))
            else:
                T.draw_one_nb(4, g, st, draw, disc, in_disc, hands, hand_n, s)
            for top in range(st[T.ST_CARDS]):
                for suit in ({int(T.SUIT_OF[top])} | ({0, 1, 2, 3} if T.RANK_OF[top] == E.JACK else set())):
                    rank = int(T.RANK_OF[top])
                    want = [0, 0, 0]
                    for c in range(st[T.ST_CARDS]):
                        if not in_disc[c] and T.fits_nb(c, suit, rank, 0):
                            want[0 if T.RANK_OF[c] == E.ACE else 1 if T.RANK_OF[c] == E.JACK else 2] += 1
                    assert list(B.fitting_unseen_nb(st, in_disc, suit, rank)) == want, (g, step, top, suit)


def test_public_chances_are_the_hypergeometric_chances_of_the_fitting_counts():
    from kernels.wieisdeheer import table_nb as T

    st = np.zeros(T.N_ST, np.int64)
    hands = np.zeros((E.MAX_PLAYERS, E.N_CARDS), np.int64)
    hand_n = np.zeros(E.MAX_PLAYERS, np.int64)
    draw, disc = np.zeros(E.N_CARDS, np.int64), np.zeros(E.N_CARDS, np.int64)
    in_disc = np.zeros(E.N_CARDS, np.int64)
    T.setup_nb(2, 5, 5, 2, st, hands, hand_n, draw, disc, in_disc)
    unseen = st[T.ST_CARDS] - st[T.ST_DISC_N]
    for top in (0, 5, 10, 44):
        suit, rank = int(T.SUIT_OF[top]), int(T.RANK_OF[top])
        counts = B.fitting_unseen_nb(st, in_disc, suit, rank)
        for h in (1, 4, 7, 20):
            got = B.public_chances_nb(st, in_disc, suit, rank, h)
            assert got == pytest.approx([B.chance_holds_nb(k, unseen, h) for k in counts], abs=1e-12)


def test_a_writer_states_its_beliefs_with_the_acts_tempered_and_the_answers_whole():
    """The stated beliefs are the prior times exp(ACT_POWER x the acts' log ratios + the answers'),
    renormalised: the posterior with the acts' evidence divided back out to the power 1 - ACT_POWER.
    A seat known only from answers keeps its full weight; one known from acts is pulled towards
    the prior; with no act read the stated beliefs are the posterior."""
    post = np.zeros((E.MAX_PLAYERS, E.MAX_PLAYERS))
    told = np.zeros((2 * E.MAX_PLAYERS, E.MAX_PLAYERS))
    acts = np.array([np.log(3.0), 0.0, 0.0, 0.0, 0.0])  # seat 0: acts with likelihood ratio 3
    answers = np.array([0.0, 0.0, np.log(4.0), 0.0, 0.0])  # seat 2: answers with ratio 4
    weight = np.exp(acts + answers)
    weight[1] = 0.0  # the writer, seat 1
    post[1, :5] = weight / weight.sum()
    B.note_act_nb(told, 1, 0, 0.2, 0.6)  # one act of seat 0 read by seat 1: ratio 3
    B.stated_beliefs_nb(post, 1, 5, told)
    expect = np.exp(E.ACT_POWER * acts + answers)
    expect[1] = 0.0
    assert told[1, :5] == pytest.approx(expect / expect.sum(), abs=1e-12)
    assert told[1, 0] < post[1, 0] and told[1, 2] > post[1, 2] and told[1, 1] == 0.0
    fresh = np.zeros_like(told)
    B.stated_beliefs_nb(post, 1, 5, fresh)  # no act read: as the posterior
    assert fresh[1, :5] == pytest.approx(post[1, :5], abs=1e-12)
