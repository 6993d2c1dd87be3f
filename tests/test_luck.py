"""The luck of the draw (issue 28): the game contract's luck measures have mean 0 whatever the players
do, regressing them out keeps an estimate unbiased and its interval honest, and the report shows
what they remove.

The measures are Knutten's (luck_negative, luck_copy, luck_john): per seat, the special cards of each
kind it drew at random minus the kind's share of the pile at each of its draws."""
from __future__ import annotations

import json
import math

import numpy as np
import pytest

from reports import build_report
from reports.stats import luck_adjusted
from sim.games import knutten as kn
from sim.registry import Column, Game, Score, get_game
from sim.spec import ArmSpec, StudySpec

LUCK = get_game("knutten").luck


def luck_values(out, players: int) -> np.ndarray:
    """games x kinds x seats."""
    return np.stack([out[c][:, :players].astype(float) for c in LUCK], axis=1)


@pytest.mark.parametrize("players,policy,rules,rotate", [
    (4, "cautious", {}, False),
    (3, "random", {}, True),
    (5, "trap", {"stuck_empty_pile": "wait", "heavy_weather": True}, False),
])
def test_every_seats_luck_has_mean_zero(players, policy, rules, rotate):
    """Each kind's luck at each seat averages 0 (within 4.5 standard errors over 30,000 games; a
    share taken from the wrong pile, or a draw from the known queue counted as luck, moves it by far
    more), and every seat's luck is a mix of luck and bad luck."""
    arm = ArmSpec.make("knutten", players, rules, policy, rotate=rotate, luck=True)
    out, _ = kn.RUNNER.run_kernel(arm, 2812, 0, 30_000)
    x = luck_values(out, players)
    units = players if rotate else 1
    per_unit = x.reshape(-1, units, *x.shape[1:]).mean(axis=1)  # a rotated deal's games are one unit
    z = per_unit.mean(axis=0) / (per_unit.std(axis=0, ddof=1) / math.sqrt(len(per_unit)))
    assert np.all(np.abs(z) < 4.5), z
    assert np.all((x > 0).mean(axis=0) > 0.2) and np.all((x < 0).mean(axis=0) > 0.2)
    assert np.all(out["luck_negative"][:, players:] == 0)  # seats beyond the table stay 0


def test_the_pile_counts_hold_in_checked_mode():
    """Checked mode recounts the pile's luck kinds after every action (cards_conserved_nb): a
    count that drifts from the pile (a reshuffle or a search's determinization not recounted) fails
    the batch."""
    for players, policy in ((4, "cautious,random,trap,random"), (3, "search")):
        arm = ArmSpec.make("knutten", players, {}, policy, luck=True)
        kn.RUNNER.run_kernel(arm, 5, 0, 6 if policy == "search" else 300, checked=True)


def test_no_john_no_john_luck():
    arm = ArmSpec.make("knutten", 4, {"john_knut": False}, "cautious", luck=True)
    out, _ = kn.RUNNER.run_kernel(arm, 3, 0, 500)
    assert np.all(out["luck_john"] == 0) and np.any(out["luck_copy"] != 0)


def test_the_adjustment_is_unbiased_and_its_intervals_cover_on_a_constructed_null():
    """y = 0.3 + a known function of zero-mean measures + noise, 600 replicates of 400 games: the
    adjusted estimates average 0.3 (within 4 standard errors of that average) and their 95% intervals
    cover 0.3 in 92-98% of replicates; the measures explain about what they were built to."""
    rng = np.random.default_rng(28)
    hits, estimates, removed = 0, [], []
    for _ in range(600):
        x = rng.normal(size=(400, 6))
        y = 0.3 + x[:, 0] * 0.25 - x[:, 3] * 0.15 + rng.normal(scale=0.5, size=400)
        fit = luck_adjusted(y, x)
        hits += fit.adjusted.lo <= 0.3 <= fit.adjusted.hi
        estimates.append(fit.adjusted.value)
        removed.append(fit.removed)
    estimates = np.array(estimates)
    assert abs(estimates.mean() - 0.3) < 4 * estimates.std() / math.sqrt(len(estimates))
    assert 0.92 <= hits / 600 <= 0.98
    # the measures explain 0.085 / (0.085 + 0.25) = 0.254; fitted on 200 games, a little less out of sample
    assert 0.19 < np.mean(removed) < 0.26


def test_measures_unrelated_to_the_outcome_cost_almost_nothing():
    rng = np.random.default_rng(7)
    y = rng.binomial(1, 0.25, size=4000).astype(float)
    fit = luck_adjusted(y, rng.normal(size=(4000, 12)))
    assert -0.02 < fit.removed < 0.01
    assert fit.adjusted.hi - fit.adjusted.lo < 1.02 * (fit.raw.hi - fit.raw.lo)


def test_rotated_units_are_whole_deals():
    """With units of 4 games the estimate is over 1,000 deals, and a measure that is the same in a
    deal's four games (a deal's own luck) is averaged once per deal."""
    rng = np.random.default_rng(3)
    deal = rng.normal(size=1000)
    x = np.repeat(deal, 4)[:, None]
    y = 0.25 + 0.2 * x[:, 0] + rng.normal(scale=0.3, size=4000)
    fit = luck_adjusted(y, x, units=4)
    assert fit.raw.n == fit.adjusted.n == 1000
    assert fit.removed > 0.5


def test_too_few_games_are_not_adjusted():
    fit = luck_adjusted(np.array([1.0, 0, 0, 1, 0, 1, 0, 0]), np.ones((8, 3)))
    assert fit.adjusted == fit.raw and fit.removed == 0.0


def test_on_real_games_the_adjustment_agrees_with_the_raw_estimate_and_narrows_it():
    """Knutten, cautious players, 40,000 games: the draws explain at least 6% of seat 0's win weight
    (about 13% measured), and the adjusted edge lies within the raw interval."""
    arm = ArmSpec.make("knutten", 4, {}, "cautious", luck=True)
    out, _ = kn.RUNNER.run_kernel(arm, 11, 0, 40_000)
    mask = out["winner_mask"]
    k = sum((mask >> s) & 1 for s in range(4))
    y = np.where(mask & 1, 1.0 / np.maximum(k, 1), 0.0)
    fit = luck_adjusted(y, luck_values(out, 4).reshape(len(y), -1))
    assert fit.removed > 0.06
    assert fit.raw.lo <= fit.adjusted.value <= fit.raw.hi
    assert fit.adjusted.hi - fit.adjusted.lo < fit.raw.hi - fit.raw.lo


def test_the_report_shows_the_luck_section(tmp_path):
    """Two Knutten arms that differ in John Knut (an implied compare question): the section gives
    each arm's edge with and without the luck and the paired effect, with its numbers in summary.json."""
    arms = [ArmSpec.make("knutten", 4, {"john_knut": j}, "cautious", name=n, luck=True)
            for n, j in (("off", False), ("on", True))]
    from pipelines.run import run_study

    run_study(StudySpec("luck-test", 9, 20_000, 10_000, arms), str(tmp_path), workers=0, progress=False)
    paths = build_report(tmp_path)
    summary = json.loads(paths["json"].read_text())
    sec = summary["sections"]["luck"]["data"]
    assert sec["columns"] == list(LUCK)
    for name in ("off", "on"):
        arm = sec["arms"][name]
        assert arm["raw"]["units"] == 20_000 and 0.04 < arm["variance_removed"] < 0.3
        assert arm["raw"]["lo"] <= arm["adjusted"]["value"] <= arm["raw"]["hi"]
    assert list(sec["effects"]) == ["on - off"]
    assert "Luck of the draw" in paths["md"].read_text()


def test_a_game_without_luck_columns_has_no_luck_section(tmp_path):
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from reports_fixtures import FakeArm, write_study

    write_study(tmp_path, [FakeArm("a")])  # rows without luck columns
    summary = json.loads(build_report(tmp_path)["json"].read_text())
    assert "luck" not in summary["sections"]


def test_a_luck_measure_must_be_a_per_seat_column():
    with pytest.raises(ValueError, match="luck measure 'turns'"):
        Game("g", "G", 1, 2, 4, (), (), (Column("turns2", "int32", "x"),), Score("points", True), 10, luck=("turns",))


def test_luck_is_measured_only_when_asked():
    """An arm without luck = true plays the same games, writes no luck columns, and its kernel
    leaves the luck fields at 0."""
    plain, measured = (ArmSpec.make("knutten", 4, {}, "cautious", luck=flag) for flag in (False, True))
    a, _ = kn.RUNNER.run_kernel(plain, 4, 0, 300)
    b, _ = kn.RUNNER.run_kernel(measured, 4, 0, 300)
    for field in ("winner_mask", "turns", "score", "john_drawn_by", "reshuffles"):
        assert np.array_equal(a[field], b[field])
    assert all(np.all(a[c] == 0) for c in LUCK) and any(np.any(b[c] != 0) for c in LUCK)
    assert not set(LUCK) & set(kn.RUNNER.play_batch(plain, 4, 0, 10).column_names)
    assert set(LUCK) <= set(kn.RUNNER.play_batch(measured, 4, 0, 10).column_names)
    assert "luck of the draw measured" in measured.describe() and measured.to_dict()["luck"] is True
    assert ArmSpec.from_dict(measured.to_dict()) == measured


def test_bad_luck_options_are_refused():
    from sim.errors import SpecError

    with pytest.raises(SpecError, match="wizard declares no luck measures"):
        ArmSpec.make("wizard", 4, {}, "heuristic", luck=True)
    with pytest.raises(SpecError, match="luck='yes'"):
        ArmSpec.make("knutten", 4, {}, "cautious", luck="yes")
    arms = [ArmSpec.make("knutten", 4, {}, "cautious", name="a", luck=True),
            ArmSpec.make("knutten", 4, {"john_knut": False}, "cautious", name="b")]
    with pytest.raises(SpecError, match="some knutten arms measure luck"):
        StudySpec("mixed", 1, 100, 100, arms)


def test_the_kernel_refuses_a_bad_luck_flag():
    from sim.errors import KernelError

    arm = ArmSpec.make("knutten", 4, {}, "cautious", luck=True)
    inputs = kn.RUNNER.kernel_inputs(arm)
    for flags in ([0, 2], [0, 1, 1]):
        rule_i = np.concatenate([inputs.rule_i[:len(inputs.rule_i) - 2], flags]).astype(np.int64)
        with pytest.raises(KernelError, match="bad kernel arguments"):
            kn.RUNNER.run_kernel(arm, 1, 0, 5, inputs=inputs._replace(rule_i=rule_i))


def test_a_stop_regresses_the_luck_out_with_coefficients_from_batch_0():
    """stream_values: batch 0 is cross-fitted (its values are the cross-fitted ones, and the
    coefficients kept are those fitted on all of it); a later batch takes those coefficients
    unchanged; without `fits`, or for arms that do not measure luck, the values are the raw ones."""
    import polars as pl

    from pipelines.stopping import luck_per_game, per_game, stream_values
    from reports.stats import cross_fitted

    arms = [ArmSpec.make("knutten", 4, {"john_knut": j}, "cautious", name=n, luck=True)
            for n, j in (("off", False), ("on", True))]
    study = StudySpec("stop-luck", 5, 4000, 2000, arms)
    streams = [("on - off seat0_edge", "seat0_edge", ["off", "on"])]
    batch = {k: {a.name: pl.from_arrow(kn.RUNNER.play_batch(a, 5, k * 2000, 2000)) for a in arms} for k in (0, 1)}
    raw = [per_game(batch[k]["on"], study, arms[1], "seat0_edge") - per_game(batch[k]["off"], study, arms[0], "seat0_edge")
           for k in (0, 1)]
    luck = [np.hstack([luck_per_game(batch[k][a.name], a) for a in arms]) for k in (0, 1)]
    fits: dict = {}
    (first,) = stream_values(batch[0], study, streams, fits)
    expected, beta = cross_fitted(raw[0], luck[0])
    assert np.allclose(first, expected) and np.allclose(fits[streams[0][0]], beta)
    (second,) = stream_values(batch[1], study, streams, fits)
    assert np.allclose(second, raw[1] - luck[1] @ beta)
    assert np.var(second) < np.var(raw[1])
    (plain,) = stream_values(batch[1], study, streams)
    assert np.array_equal(plain, raw[1])


def test_plan_gives_the_games_with_the_luck_taken_out():
    """`kaartlab plan` of a [stop] over arms that measure luck says so, and its spread is the adjusted
    one: smaller than the same study's without luck (the same games)."""
    import re

    from pipelines.stopping import plan_study

    def plan(luck: bool) -> tuple[str, float]:
        study = StudySpec.from_dict({
            "name": "plan-luck", "seed": 5, "batch_size": 2000,
            "defaults": {"game": "knutten", "players": 4, "policy": "cautious", "luck": luck},
            "arm": [{"name": "off", "rules": {"john_knut": False}}, {"name": "on"}],
            "stop": {"measure": "seat0_edge", "between": ["off", "on"], "half_width": 0.01,
                     "max_games": 200_000}})
        lines = plan_study(study, pilot=6000, workers=0)
        head = next(line for line in lines if line.startswith("[stop]"))
        sd = float(re.search(r"seat0_edge: sd ([0-9.]+) per game", "\n".join(lines)).group(1))
        return head, sd

    (lucky, sd_luck), (plain, sd_plain) = plan(True), plan(False)
    assert "with the luck of the draw regressed out" in lucky and "luck" not in plain
    assert sd_luck < 0.97 * sd_plain


def test_too_few_games_say_the_luck_explains_nothing(tmp_path):
    from pipelines.run import run_study

    arm = ArmSpec.make("knutten", 4, {}, "cautious", name="tiny", luck=True)
    run_study(StudySpec("luck-tiny", 3, 40, 40, (arm,)), str(tmp_path), workers=0, progress=False)
    sec = json.loads(build_report(tmp_path)["json"].read_text())["sections"]["luck"]
    assert sec["data"]["arms"]["tiny"]["variance_removed"] == 0.0
    assert "explains almost none" in sec["verdicts"][0]
