"""The Wizard heuristic's calibrated bids and its card play: the shipped bid table and bid factors
reproduce from their script, bids are unbiased by kind of round and seat on a self-play sample at
every table size, round-1 bids follow the 3/7 rule, and hand-built tricks for the Wizard, duck and
dump rules."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from kernels.wizard import bid_model_nb as M
from kernels.wizard import bid_tables
from kernels.wizard import enums as E
from kernels.wizard.policies_nb import heuristic_card_nb
from kernels.wizard.rules_nb import legal_mask_nb, trick_value_nb

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
import wizard_bid_tables as T

H, D, C, S = 0, 1, 2, 3
WIZ, JES = 52, 56
NT = E.NO_TRUMP


def card(rank: str, suit: int) -> int:
    return suit * 13 + ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A").index(rank)


def mask(cards) -> np.uint64:
    m = 0
    for c in cards:
        m |= 1 << c
    return np.uint64(m)


# ------------------------------------------------------------------------ the table
def test_table_header_matches_the_script():
    assert bid_tables.TRICK_CHANCE.shape == M.TABLE_SHAPE
    assert bid_tables.DEALS >= 100_000 and bid_tables.ITERATIONS >= 3
    assert bid_tables.DEALS == T.DEALS and bid_tables.ITERATIONS == T.ITERATIONS
    assert bid_tables.SEED == T.SEED
    assert bid_tables.BID_FACTOR.shape == M.FACTOR_SHAPE
    assert bid_tables.FACTOR_DEALS == T.FACTOR_DEALS and bid_tables.FACTOR_ITERATIONS == T.FACTOR_ITERATIONS


@pytest.mark.parametrize("n,bucket", [(3, 0), (6, 1)])
def test_table_slices_reproduce_exactly(n, bucket):
    """Slices are independent (each is measured from its own rounds and bids from its own cells),
    so the shipped table's small-round slices are re-made in full from the script."""
    got = T.build_slice(n, bucket, bid_tables.DEALS, bid_tables.ITERATIONS, bid_tables.SEED)
    assert np.array_equal(got, bid_tables.TRICK_CHANCE[n - 3, bucket])


@pytest.mark.parametrize("n,r", [(6, 1), (5, 2)])
def test_bid_factors_reproduce_exactly(n, r):
    """A round size's factors depend only on its own deals and the chance table: re-made in full."""
    got = T.fit_factors(n, r, bid_tables.TRICK_CHANCE, bid_tables.FACTOR_DEALS,
                        bid_tables.FACTOR_ITERATIONS, bid_tables.SEED)
    assert np.array_equal(got, bid_tables.BID_FACTOR[n - 3, r - 1])


def test_bid_factors_are_sane():
    f = bid_tables.BID_FACTOR
    for n in range(3, 7):
        assert (f[n - 3, 60 // n:] == 1000).all(), "round sizes a table cannot deal keep factor 1"
        assert (f[n - 3, :, :, n:] == 1000).all(), "positions a table does not have keep factor 1"
        used = f[n - 3, :60 // n, :, :n]
        assert (used >= 400).all() and (used <= 2500).all(), (n, used.min(), used.max())
    # the 3-player Wizard-turned rounds bid too high with factor 1 (+0.22 tricks): corrected down
    # for the first two bidders (the dealer, who names trump, was within the band)
    assert (f[0, 5:19, M.KIND_WIZARD, :2].mean(axis=0) < 970).all()


def test_sampler_bonus_header_and_shape():
    assert bid_tables.SAMPLER_BONUS.shape == M.BONUS_SHAPE
    assert bid_tables.BONUS_DEALS == T.BONUS_DEALS and bid_tables.BONUS_ITERATIONS == T.BONUS_ITERATIONS
    for n in range(3, 7):
        assert (bid_tables.SAMPLER_BONUS[n - 3, :, n:] == 0).all()
    assert (np.abs(bid_tables.SAMPLER_BONUS) <= T.BONUS_LIMIT).all()


def test_search_bonus_header_and_shape():
    b = bid_tables.SEARCH_BONUS
    assert b.shape == M.BONUS_SHAPE
    assert bid_tables.SEARCH_GAMES == T.SEARCH_GAMES and bid_tables.SEARCH_ITERATIONS == T.SEARCH_ITERATIONS
    for n in range(3, 7):
        assert (b[n - 3, :, n:] == 0).all()
    assert (np.abs(b) <= T.BONUS_LIMIT).all()
    # fitted: the search player bid under its tricks everywhere but round 1 (down to -0.6 at 3
    # players in the last round), so the early positions of the last round get a positive bonus
    assert (b[:, M.KIND_LAST, 0] > 0).all()


def test_bonus_fit_reaches_the_band_on_a_known_response():
    """BonusFit on a made-up response (bias = offset + slope * bonus, per cell: a bonus per trick
    bid raises the bids): cells outside ±FACTOR_BAND end at its edge within a bonus step, cells
    inside it or without rounds keep bonus 0, and `best` is the bonus of the closest try."""
    offset = np.array([[-0.6, -0.3, 0.05], [0.4, -0.12, 0.0]])
    slope = np.array([[0.004, 0.01, 0.02], [0.002, 0.003, 0.05]])
    played = np.array([[True, True, True], [True, True, False]])
    fit = T.BonusFit(offset.shape)
    for _ in range(6):
        fit.update(offset + slope * fit.bonus, played)
    bias = offset + slope * fit.best
    assert (np.abs(bias[played]) <= T.FACTOR_BAND + slope[played]).all(), bias
    assert fit.best[0, 2] == 0 and fit.best[1, 2] == 0  # within the band; not played
    assert fit.best[0, 0] > 0 and fit.best[1, 0] < 0


def test_bonus_fit_floors_a_flat_slope():
    """A cell whose first step barely moved it (a noisy measure of a rising response) would have
    its next try sent to BONUS_LIMIT by the secant; `min_slope` keeps that step to excess/min_slope."""
    bias = lambda bonus: -0.6 + 1e-5 * bonus  # noqa: E731
    played = np.ones((1, 1), dtype=bool)
    tries = {}
    for floor in (None, 0.01):
        fit = T.BonusFit((1, 1), floor)
        for _ in range(2):
            fit.update(bias(fit.bonus), played)
        tries[floor] = int(fit.bonus[0, 0])
    first = round(T.BONUS_FIRST_STEP * 0.5)  # the excess over the band: 0.5 tricks
    assert tries[None] == T.BONUS_LIMIT
    assert tries[0.01] == first + round(-(bias(first) + T.FACTOR_BAND) / 0.01), tries


@pytest.mark.parametrize("n", [3, 5])
def test_search_bonus_cells_are_the_kernels(n):
    """The fit counts each seat-round in the cell the kernel reads its bonus from: the kind of
    round (bonus_kind_nb of the turned card) and the seat's place in the round's bidding order
    (from the trace's bids); round 1, which has no bonus, in none."""
    from kernels.wizard import play_nb
    from kernels.wizard.bid_model_nb import bonus_kind_nb

    policies = np.full(n, 1, np.int64)  # heuristic: the cells do not depend on the player
    out = np.zeros(1, dtype=E.OUT_DTYPE)
    trace = np.zeros((4096, E.TRACE_WIDTH), dtype=np.int32)
    for g in range(3):
        status_, _, rows = play_nb.play_games_nb(
            np.int64(11), np.int64(g), np.int64(1), np.zeros(len(E.RULE_I_ORDER), np.int64),
            np.zeros(0, np.float64), policies, np.full((n, len(E.SEAT_I_ORDER)), 32, np.int64),
            np.zeros((n, 0), np.float64), (None,), out, trace, False)
        assert status_ == 0
        cells = T.bonus_cells(out, n)[0]
        t = trace[:rows]
        rd, order = -1, 0
        for ev, seat in zip(t[:, 0], t[:, 1]):
            if ev == E.EV_ROUND:
                rd, order = rd + 1, 0
            elif ev == E.EV_BID:
                kind = bonus_kind_nb(out["round_turned"][0, rd], n, rd + 1)
                want = kind * E.MAX_PLAYERS + order if rd > 0 else -1  # round 1: no bonus
                assert cells[rd, seat] == want, (g, rd, seat)
                order += 1
        assert rd == 60 // n - 1


def test_sampler_bonus_moves_the_bid_through_its_candidates():
    """The bonus is added per trick bid to each candidate's mean score: a large one takes the
    highest candidate (heuristic bid + 1), a large negative one the lowest, none the heuristic's
    neighbourhood by score alone."""
    from kernels.rng_nb import deal_stream_nb, seat_stream_nb
    from kernels.wizard import policies_nb as P
    from kernels.wizard.rules_nb import deal_nb, trump_of_turned_nb

    n, r = 4, 5
    deck = np.empty(60, np.int64)
    hands = np.zeros(E.MAX_PLAYERS, np.uint64)
    for d in range(100):
        top = deal_nb(np.array([deal_stream_nb(np.int64(5), np.int64(d), np.int64(r))], np.uint64),
                      deck, n, r, hands)
        trump = int(trump_of_turned_nb(top))
        if trump < 0:
            continue
        h = int(P.heuristic_bid_nb(hands[0], trump, top, n, r, 0, 0, -1))
        if 0 < h < r:
            break
    bids = np.zeros(E.MAX_PLAYERS, np.int64)

    def sampled(bonus):
        rng = np.array([seat_stream_nb(np.int64(5), np.int64(d), np.int64(s)) for s in range(6)],
                       np.uint64)
        return int(P.sampler_bid_nb(rng, hands[0], trump, top, n, r, 0, n - 1, bids, False, False,
                                    np.zeros(P.WS_I_SIZE, np.int64), np.zeros(P.WS_H_SIZE, np.uint64),
                                    np.int64(bonus)))

    assert sampled(10_000) == h + 1
    assert sampled(-10_000) == h - 1
    assert abs(sampled(0) - h) <= 1


def test_table_is_sane():
    t = bid_tables.TRICK_CHANCE
    for n in range(3, 7):
        for b in range(M.N_BUCKETS):
            if not T.round_sizes(n, b):
                continue
            lead = t[n - 3, b, 0]
            assert lead[M.CLS_WIZARD] >= 950, "a led Wizard always takes its trick"
            assert lead[M.CLS_JESTER] <= 60
            assert (t[n - 3, b, n:] == 0).all()
    # round 1: the trump jack led by seat 0 wins often; an off-suit ace of a later seat rarely
    jack = M.CLS_TRUMP + 9 * M.N_LENGTHS
    ace_off = M.CLS_OFF + 12 * M.N_LENGTHS
    assert t[1, 0, 0, jack] > 600
    assert t[1, 0, 2, ace_off] < 250


# ------------------------------------------------------------------------ bids
def unit_factors():
    return np.full(M.FACTOR_SHAPE, 1000, dtype=np.int16)


def test_one_card_bids_follow_the_3_7_rule():
    """With one card, bid 1 scores 40p - 10 and bid 0 scores 20 - 30p: bid 1 exactly when p > 3/7."""
    table = np.zeros(M.TABLE_SHAPE, dtype=np.int16)
    ones = unit_factors()
    ace = card("A", H)
    cls = M.card_class_nb(ace, mask([ace]), S)
    for chance, bid in [(420, 0), (428, 0), (429, 1), (700, 1)]:
        table[1, 0, 2, cls] = chance
        assert M.best_bid_nb(table, ones, mask([ace]), S, M.KIND_SUIT, 4, 1, 2, -1) == bid
    table[1, 0, 2, cls] = 700
    assert M.best_bid_nb(table, ones, mask([ace]), S, M.KIND_SUIT, 4, 1, 2, 1) == 0, \
        "the hook rule's bid is skipped"


def test_bid_factor_scales_the_chances_of_its_cell_only():
    """A chance of 0.3 bids 0 alone; doubled by the factor of its (players, round, kind, position)
    it is 0.6 and bids 1; the other kinds and positions keep their factor."""
    table = np.zeros(M.TABLE_SHAPE, dtype=np.int16)
    factors = unit_factors()
    ace = card("A", H)
    table[1, 0, 1:3, M.card_class_nb(ace, mask([ace]), S)] = 300
    assert M.best_bid_nb(table, factors, mask([ace]), S, M.KIND_WIZARD, 4, 1, 2, -1) == 0
    factors[1, 0, M.KIND_WIZARD, 2] = 2000
    assert M.best_bid_nb(table, factors, mask([ace]), S, M.KIND_WIZARD, 4, 1, 2, -1) == 1
    assert M.best_bid_nb(table, factors, mask([ace]), S, M.KIND_SUIT, 4, 1, 2, -1) == 0
    assert M.best_bid_nb(table, factors, mask([ace]), S, M.KIND_WIZARD, 4, 1, 1, -1) == 0
    assert M.turn_kind_nb(-1) == M.KIND_NO_TRUMP and M.turn_kind_nb(JES) == M.KIND_NO_TRUMP
    assert M.turn_kind_nb(WIZ + 3) == M.KIND_WIZARD and M.turn_kind_nb(card("2", C)) == M.KIND_SUIT


def test_bid_is_the_best_expected_score():
    """Two sure cards and a coin flip: bids 2 and 3 are the candidates, 3 scores more when exact."""
    table = np.zeros(M.TABLE_SHAPE, dtype=np.int16)
    hand = [WIZ, WIZ + 1, card("K", H)]
    table[1, 2, 0, M.CLS_WIZARD] = 1000
    table[1, 2, 0, M.card_class_nb(card("K", H), mask(hand), S)] = 500
    # bid 2: 0.5 * 40 - 0.5 * 10 = 15; bid 3: 0.5 * 50 - 0.5 * 10 = 20
    assert M.best_bid_nb(table, unit_factors(), mask(hand), S, M.KIND_SUIT, 4, 3, 0, -1) == 3
    assert M.expected_tricks_nb(table, mask(hand), S, 4, 0) == pytest.approx(2.5)


def test_card_classes():
    hand = mask([card("2", H), card("9", H), card("A", H), card("K", S), WIZ, JES])
    assert M.card_class_nb(WIZ, hand, H) == M.CLS_WIZARD
    assert M.card_class_nb(JES, hand, H) == M.CLS_JESTER
    assert M.card_class_nb(card("9", H), hand, H) == M.CLS_TRUMP + 7 * 4 + 2  # 3 hearts
    assert M.card_class_nb(card("9", H), hand, S) == M.CLS_OFF + 7 * 4 + 2
    assert M.card_class_nb(card("K", S), hand, NT) == M.CLS_NO_TRUMP + 11 * 4 + 0
    assert M.round_bucket_nb(4, 15) == M.LAST_BUCKET and M.round_bucket_nb(3, 15) == 6
    assert M.round_bucket_nb(4, 1) == 0


GOAL = 0.15  # issue 30: |mean bid - tricks| per seat in every kind of round
KINDS = ("round 1", "trump", "wizard turned", "jester turned", "last round")


def bias_by_kind_and_seat(table, n):
    """{kind: (mean bid - tricks per seat, its standard error per seat)} over full games, kinds as
    benchmarks/wizard_bidding.py cuts them (round 1 and the last round apart, the other rounds by
    the card turned)."""
    rounds = 60 // n
    bids = np.array(table["round_bids"].to_pylist()).reshape(len(table), rounds, n)
    tricks = np.array(table["round_tricks"].to_pylist()).reshape(len(table), rounds, n)
    turned = np.array(table["round_turned"].to_pylist())
    kind = np.where(turned >= JES, 3, np.where(turned >= WIZ, 2, 1))
    kind[:, 0] = 0
    kind[:, -1] = 4
    diff = bids - tricks
    return {name: (diff[kind == k].mean(axis=0), diff[kind == k].std(axis=0) / np.sqrt((kind == k).sum()))
            for k, name in enumerate(KINDS)}


@pytest.mark.parametrize("n,games", [(3, 12000), (4, 8000), (5, 8000), (6, 8000)])
def test_bids_are_calibrated_by_kind_of_round_and_seat(n, games):
    """Mean (bid - tricks) per seat in every kind of round is not significantly outside the goal:
    below 0.15 + 3 standard errors (fixed seed; the benchmark's 20,000 games put every cell within
    0.11). The standard errors are 0.02 or less, so a bias like version 3's at 3 players (+0.23 in
    Wizard-turned rounds, bound 0.18 here) fails."""
    from sim.games import wizard
    from sim.spec import ArmSpec

    table = wizard.RUNNER.play_batch(ArmSpec.make("wizard", n, {}, "heuristic"), 777, 0, games)
    for name, (mean, se) in bias_by_kind_and_seat(table, n).items():
        assert (se <= 0.02).all(), (name, se)
        for seat in range(n):
            assert abs(mean[seat]) <= GOAL + 3 * se[seat], (name, seat, mean[seat], se[seat])


# ------------------------------------------------------------------------ card play
def play(hand, trump, lead, best, pos, need, gone=(), n=4):
    h = mask(hand)
    legal = legal_mask_nb(h, lead, False)
    return int(heuristic_card_nb(h, legal, trump, lead, best, pos, n, need, mask(gone)))


def test_a_needed_wizard_takes_the_trick_while_another_wizard_may_come():
    queen = card("Q", H)
    best = int(trick_value_nb(queen, H, S))
    hand = [WIZ, card("5", H), card("3", C)]
    # needs one trick, holds one Wizard, three Wizards unseen: the Wizard wins it now
    assert play(hand, S, H, best, 1, need=1, gone=[queen]) == WIZ
    assert play(hand, S, E.LEAD_NONE, -1, 0, need=1) == WIZ
    # every other Wizard is gone: the Wizard is a sure trick later, so it ducks with the 5
    assert play(hand, S, H, best, 1, need=1, gone=[queen, 53, 54, 55]) == card("5", H)
    # a Wizard is already in the trick: its own Wizard would lose, so it keeps it
    assert play(hand, S, E.LEAD_FREE, E.TV_WIZARD, 2, need=1, gone=[53]) == card("3", C)
    # last to play with a cheaper winner: the cheap card takes it
    hand = [WIZ, card("K", H), card("3", C)]
    assert play(hand, S, H, best, 3, need=1, gone=[queen]) == card("K", H)


def test_ducks_with_the_highest_card_that_loses():
    ace = card("A", H)
    best = int(trick_value_nb(ace, H, S))
    hand = [card("10", H), card("4", H), JES, card("K", S)]
    assert play(hand, S, H, best, 1, need=0, gone=[ace]) == card("10", H)
    # over the bid as well: still the highest loser, keeping the Jester for a later trick
    assert play(hand, S, H, best, 1, need=-1, gone=[ace]) == card("10", H)


def test_dumps_a_jester_on_a_trick_it_cannot_win():
    """Wanting tricks but a Wizard already holds this one: a Jester goes (it never takes a trick)."""
    hand = [card("2", C), JES, card("A", S), card("K", H)]
    assert play(hand, S, E.LEAD_FREE, E.TV_WIZARD, 1, need=2, gone=[53]) == JES
    # without a Jester, the weakest card
    hand = [card("2", C), card("A", S), card("K", H)]
    assert play(hand, S, E.LEAD_FREE, E.TV_WIZARD, 1, need=2, gone=[53]) == card("2", C)
