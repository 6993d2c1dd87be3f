"""Bradley-Terry ratings (reports/bradley_terry.py) on synthetic games with known strengths, and the
ratings section on a synthetic dataset.

Games are drawn from a Plackett-Luce model (finishing order = strengths plus Gumbel noise, sorted):
in it P(A ahead of B) is exactly the Bradley-Terry probability, and the pairs of one game are tied
to each other, as in a real game, so the game-clustered intervals are put to the test."""
from __future__ import annotations

import sys
from itertools import combinations
from pathlib import Path

import numpy as np

sys.path[:0] = [str(Path(__file__).resolve().parents[1]), str(Path(__file__).resolve().parent)]
from reports_fixtures import FakeArm, probs_for, write_study  # noqa: E402

from reports import bradley_terry as bt  # noqa: E402
from reports.context import Context, Options  # noqa: E402
from reports.dataset import Dataset  # noqa: E402
from reports.sections import ratings as ratings_section  # noqa: E402


def play(theta: np.ndarray, tables: list[list[int]], games: int, rng: np.random.Generator):
    """(Comparisons, meat, games): each game seats one table (a list of player indices, cycled),
    orders the seats by strength + Gumbel noise, and compares every pair of seats with different
    players."""
    q = len(theta)
    wins = np.zeros((q, q))
    meat = np.zeros((q, q))
    outcomes = []  # per game: list of (a, b, y)
    for g in range(games):
        table = tables[g % len(tables)]
        perf = theta[table] + rng.gumbel(size=len(table))
        game = [(table[i], table[j], float(perf[i] > perf[j])) for i, j in combinations(range(len(table)), 2)
                if table[i] != table[j]]
        outcomes.append(game)
        for a, b, y in game:
            wins[a, b] += y
            wins[b, a] += 1 - y
    rows = [(a, b, wins[a, b] + wins[b, a], wins[a, b]) for a in range(q) for b in range(a + 1, q)
            if wins[a, b] + wins[b, a] > 0]
    comp = bt.Comparisons.make(rows, q)
    theta_hat, info, ok = bt.fit(comp)
    for game in outcomes:  # the per-game scores at the fitted ratings, summed as the report does
        s = np.zeros(q)
        for a, b, y in game:
            r = y - bt.score_weights(theta_hat, np.array([a]), np.array([b]))[0]
            s[a] += r
            s[b] -= r
        meat += np.outer(s, s)
    names = [f"p{i}" for i in range(q)]
    return bt.ratings(names, comp, theta_hat, info, meat, games, ok)


ROTATION = [[0, 1, 2, 3], [1, 2, 3, 0], [2, 3, 0, 1], [3, 0, 1, 2]]


def test_recovers_known_strengths():
    theta = np.array([-0.6, 0.0, 0.2, 0.4])
    r = play(theta, ROTATION, 4000, np.random.default_rng(1))
    assert r.converged and r.connected
    truth = theta - theta.mean()
    np.testing.assert_allclose(r.theta, truth, atol=0.08)
    for i in range(4):
        e = r.rating(i)
        assert e.lo <= truth[i] * bt.ELO <= e.hi, (i, e)
    assert np.argmax(r.theta) == 3 and np.argmin(r.theta) == 0


def test_intervals_cover_at_about_the_nominal_rate():
    """Calibration: 95% intervals of every player's rating (and of the expected share against the
    field) contain the truth in about 95% of repetitions (95.6% and 95.1% with this seed). The
    inverse information alone, treating the pairs of a game as independent, covers 87% here: the
    band catches a covariance that ignores the clustering."""
    rng = np.random.default_rng(2024)
    theta = np.array([-0.5, 0.0, 0.1, 0.4])
    truth = theta - theta.mean()
    reps, hits, field_hits, total = 200, 0, 0, 0
    for _ in range(reps):
        r = play(theta, ROTATION + [[0, 0, 3, 3], [1, 2, 1, 2]], 150, rng)
        for i in range(4):
            e = r.rating(i)
            hits += e.lo <= truth[i] * bt.ELO <= e.hi
            others = [j for j in range(4) if j != i]
            field = float(np.mean(1 / (1 + np.exp(-(truth[i] - truth[others])))))
            f = r.field_share(i)
            field_hits += f.lo <= field <= f.hi
            total += 1
    assert 0.925 <= hits / total <= 0.975, hits / total
    assert 0.925 <= field_hits / total <= 0.975, field_hits / total


def test_symmetric_players_get_ratings_within_each_others_intervals():
    theta = np.array([0.3, 0.3, -0.3, -0.3])
    r = play(theta, ROTATION, 3000, np.random.default_rng(5))
    a, b = r.rating(0), r.rating(1)
    assert a.lo <= b.value <= a.hi and b.lo <= a.value <= b.hi
    assert not r.difference(0, 1).excludes(0.0)
    assert r.difference(0, 2).excludes(0.0)  # the design can tell unequal players apart


def test_invariant_to_the_order_of_players():
    theta = np.array([-0.2, 0.5, 0.0])
    tables = [[0, 1, 2], [1, 2, 0], [2, 0, 1]]
    r = play(theta, tables, 1500, np.random.default_rng(9))
    order = [2, 0, 1]  # the same games with the players renumbered
    back = {old: new for new, old in enumerate(order)}
    rr = play(theta[order], [[back[p] for p in t] for t in tables], 1500, np.random.default_rng(9))
    np.testing.assert_allclose(rr.theta, r.theta[order], atol=1e-9)
    np.testing.assert_allclose(rr.cov, r.cov[np.ix_(order, order)], atol=1e-9)


def test_levels_count_half_and_disconnected_players_are_flagged():
    level = bt.Comparisons.make([(0, 1, 100, 50.0), (1, 2, 100, 50.0)], 3)
    theta, _, ok = bt.fit(level)
    assert ok and np.allclose(theta, 0.0, atol=1e-9)
    assert level.connected()
    apart = bt.Comparisons.make([(0, 1, 100, 60.0), (2, 3, 100, 40.0)], 4)
    assert not apart.connected()
    unbeaten = bt.Comparisons.make([(0, 1, 50, 50.0)], 2)
    assert not bt.fit(unbeaten)[2]  # no finite maximum: not converged


# -- the report section on a synthetic dataset -----------------------------------------------------
STRENGTH = {"strong": 2.0, "weak": 1.0}


def test_section_ranks_the_stronger_player_first(tmp_path):
    tables = [("strong", "weak", "weak", "strong"), ("weak", "strong", "strong", "weak")]
    arms = [FakeArm(f"mix{i}", games=3000, policies=t, win_probs=probs_for(t, STRENGTH), tie_rate=0.0)
            for i, t in enumerate(tables)]
    write_study(tmp_path, arms, seed=3)
    ds = Dataset(tmp_path)
    ctx = Context(ds, "knutten", Options.resolve(ds.study))
    groups = ratings_section.rating_groups(ctx)
    assert len(groups) == 1
    r = groups[0].ratings
    strong, weak = r.players.index("strong"), r.players.index("weak")
    assert r.difference(strong, weak).lo > 0
    assert r.field_share(strong).lo > 0.5
    ctx.family.correct()
    sec = ratings_section.section(ctx)
    assert sec is not None and "strong" in sec.verdicts[0]
    assert sec.data["groups"][0]["players"]["strong"]["elo"]["estimate"] > 0
    assert sec.tables and sec.figures


def test_players_that_swap_seats_on_the_same_deals_are_exactly_level():
    """Identical players that hold each other's seats on the same deals have the same record in every
    game index: their difference has no sampling variance, and the fit leaves a rounding error
    (1e-15) with a zero-width interval around it. Before, that interval 'excluded 0' and the section
    said so; now the difference is exactly 0, untested, and the section says they cannot be ranked."""
    r = bt.Ratings(["a", "b", "c"], np.array([0.02 + 3e-15, 0.02 - 2e-15, -0.04]),
                   np.array([[1e-4, 1e-4, -2e-4], [1e-4, 1e-4, -2e-4], [-2e-4, -2e-4, 4e-4]]), 500, True, True)
    d = r.difference(0, 1)
    assert (d.value, d.lo, d.hi) == (0.0, 0.0, 0.0) and not d.excludes(0.0) and d.p_value != d.p_value
    assert r.fixed(0, 1) and not r.fixed(0, 2)
    assert r.difference(0, 2).hi > r.difference(0, 2).lo  # a contrast with variance keeps its interval


def test_section_on_identical_players_rotated_over_shared_deals(tmp_path):
    """The fixtures deal game i alike in every arm (common random numbers) and the players are all
    the same: 'a' and 'b' swap seats 0 and 1, so every game index gives them the same record."""
    tables = [("a", "b", "c", "c"), ("b", "a", "c", "c")]
    arms = [FakeArm(f"swap{i}", games=600, policies=t) for i, t in enumerate(tables)]
    write_study(tmp_path, arms, seed=5)  # with this seed 'a' and 'b' are rated above 'c'
    ds = Dataset(tmp_path)
    ctx = Context(ds, "knutten", Options.resolve(ds.study))
    r = ratings_section.rating_groups(ctx)[0].ratings
    a, b, c = (r.players.index(p) for p in "abc")
    assert abs(r.theta[a] - r.theta[b]) < 1e-9 and r.theta[a] > r.theta[c]
    assert r.fixed(a, b) and r.difference(a, b).value == 0.0 and not r.difference(a, b).excludes(0.0)
    ctx.family.correct()
    sec = ratings_section.section(ctx)
    assert any("cannot rank them" in v for v in sec.verdicts), sec.verdicts
    assert not any("excludes 0" in v for v in sec.verdicts), sec.verdicts
