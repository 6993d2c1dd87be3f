"""Seat rotation (duplicate deals): an arm with `rotate = true` plays deal g // n at rotation g % n.

The kernels: rotation 0 of deal d is game d of the same arm unrotated, bit for bit; at rotation k seat
s is dealt what seat (s + k) % n is dealt unrotated; the games stay legal (checked mode). The spec:
only games whose kernel rotates, whole deals per study and batch, a boolean. The report and the stop:
a deal is one unit, and the rotations are not counted as independent games.
"""
from __future__ import annotations

import json
import math

import numpy as np
import polars as pl
import pytest

from sim.errors import SpecError
from sim.spec import ArmSpec, StudySpec, default_batch_size, rotating_games

SEED = 23
ROTATING = ["knutten", "wieisdeheer", "wieweetwat", "wippen", "wizard"]  # registry order
POLICY = {"knutten": "cautious", "wizard": "heuristic", "wippen": "greedy", "wieisdeheer": "reasoner",
          "wieweetwat": "targeting"}
# the trace's event code for a card dealt to a seat (enums E_DEAL / EV_DEAL / EV_CARD)
DEAL = {"knutten": 1, "wizard": 3, "wippen": 5, "wieisdeheer": 2, "wieweetwat": 3}


def first_deal(game: str, rotate: bool, index: int, players: int = 4) -> dict[int, list[int]]:
    """Seat -> the cards of the game's first deal, read off its trace."""
    arm = ArmSpec.make(game, players, None, POLICY[game], rotate=rotate)
    _, rows = arm.info.runner().traced(arm, SEED, index)
    hands: dict[int, list[int]] = {s: [] for s in range(players)}
    for row in rows:
        if row[0] == DEAL[game]:
            hands[int(row[1])].append(int(row[2]))
        elif any(hands.values()) and row[0] != DEAL[game]:
            break
    return {s: sorted(c) for s, c in hands.items()}


def test_the_rotating_games_are_those_whose_kernels_rotate():
    assert rotating_games() == ROTATING


@pytest.mark.parametrize("game", ROTATING)
def test_rotation_zero_is_the_unrotated_game_and_rotation_k_shifts_the_hands(game):
    n = 4
    plain = ArmSpec.make(game, n, None, POLICY[game])
    rotated = ArmSpec.make(game, n, None, POLICY[game], rotate=True)
    runner = plain.info.runner()
    # deals 0..2 at rotation 0 are games 0, 4, 8 of the rotated arm, and games 0..2 unrotated
    a, _ = runner.run_kernel(plain, SEED, 0, 3, checked=True)
    b, _ = runner.run_kernel(rotated, SEED, 0, 3 * n, checked=True)
    for field in a.dtype.names:  # field by field: an aligned record's padding bytes are not the game's
        assert np.array_equal(a[field], b[::n][field]), field
    unrotated = first_deal(game, False, 2, n)
    for k in range(n):
        hands = first_deal(game, True, 2 * n + k, n)
        assert all(hands[s] == unrotated[(s + k) % n] for s in range(n)), (k, hands, unrotated)
    # the rotations are other games: not all four alike
    assert len({(int(b[k]["turns"]), tuple(b[k]["score"])) for k in range(n)}) > 1


def test_the_mole_card_moves_with_the_hands():
    n = 5
    plain = ArmSpec.make("wieisdeheer", n, None, "reasoner")
    rotated = ArmSpec.make("wieisdeheer", n, None, "reasoner", rotate=True)
    a, _ = plain.info.runner().run_kernel(plain, SEED, 0, 4, checked=True)
    b, _ = rotated.info.runner().run_kernel(rotated, SEED, 0, 4 * n, checked=True)
    for d in range(4):
        assert [int(b[d * n + k]["mole"]) for k in range(n)] == [(int(a[d]["mole"]) - k) % n for k in range(n)]


def test_holder_is_the_inverse_of_held_hand():
    from kernels.rotation_nb import held_hand_nb, holder_nb
    for n in range(2, 7):
        for shift in range(n):
            for s in range(n):
                u = held_hand_nb(np.int64(s), np.int64(shift), np.int64(n))
                assert u == (s + shift) % n
                assert holder_nb(u, np.int64(shift), np.int64(n)) == s
                assert held_hand_nb(holder_nb(np.int64(s), np.int64(shift), np.int64(n)),
                                    np.int64(shift), np.int64(n)) == s


@pytest.mark.parametrize("game", ROTATING)
def test_rotated_games_play_checked_at_every_player_count(game):
    info = ArmSpec.make(game, 4, None, POLICY[game]).info
    for n in range(info.min_players, info.max_players + 1):
        for policy in [p.name for p in info.policies if p.name != "search"]:
            arm = ArmSpec.make(game, n, None, policy, rotate=True)
            arm.info.runner().run_kernel(arm, SEED, 5, 2 * n, checked=True)  # raises on any broken rule


def test_spec_refuses_what_cannot_rotate(monkeypatch):
    from sim.games.wieweetwat import RUNNER

    monkeypatch.setattr(RUNNER, "rotates", False)  # every game rotates now: pretend one cannot
    with pytest.raises(SpecError, match="wieweetwat cannot rotate its seats yet"):
        ArmSpec.make("wieweetwat", 3, None, None, rotate=True)
    with pytest.raises(SpecError, match=r"rotate='yes': expected true or false"):
        ArmSpec.make("wizard", 4, None, None, rotate="yes")
    arm = ArmSpec.make("wizard", 3, None, None, rotate=True, name="r")
    with pytest.raises(SpecError, match=r"arm 'r' rotates its 3 seats.*games \(1,000\).*multiples of 3"):
        StudySpec(name="s", seed=1, games=1000, batch_size=300, arms=(arm,))
    with pytest.raises(SpecError, match=r"batch_size \(50,000\)"):
        StudySpec(name="s", seed=1, games=999, batch_size=50_000, arms=(arm,))
    assert default_batch_size([arm]) == 49_998 and default_batch_size([]) == 50_000


def test_a_study_file_rotates_an_arm_and_its_fingerprint_says_so(tmp_path):
    text = """
name = "r"
games = 400
[defaults]
game = "wizard"
players = 4
[[arm]]
name = "plain"
[[arm]]
name = "rotated"
rotate = true
"""
    path = tmp_path / "r.toml"
    path.write_text(text)
    study = StudySpec.from_toml(path)
    assert [a.rotate for a in study.arms] == [False, True]
    data = study.to_dict()
    assert "rotate" not in data["arms"][0] and data["arms"][1]["rotate"] is True  # old fingerprints unchanged
    back = ArmSpec.from_dict(data["arms"][1])
    assert back.rotate and back == study.arms[1]


# ------------------------------------------------------------------------------ report and stop

def _dataset(tmp_path, rotate: bool, games: int = 4000):
    from pipelines.run import run_study

    arm = ArmSpec.make("wizard", 4, None, "heuristic", rotate=rotate, name="main")
    study = StudySpec(name="rot", seed=SEED, games=games, batch_size=games // 2, arms=(arm,))
    out = tmp_path / ("rot" if rotate else "plain")
    run_study(study, str(out), workers=0, progress=False)
    return out


def test_the_report_takes_the_deal_as_its_unit(tmp_path):
    from reports.context import Context
    from reports.dataset import Dataset
    from reports.sections.first_player import seat_stats

    root = _dataset(tmp_path, True)
    ds = Dataset(root)
    ctx = Context(ds, "wizard")
    st = seat_stats(ctx)["main"]
    assert st.games == 4000 and st.units == 1000
    frame = pl.read_parquet(str(root / "main" / "*.parquet")).sort("game")
    w0 = np.where(frame["winner_mask"].to_numpy() & 1, 1.0 / frame["n_winners"].to_numpy(), 0.0)
    deals = w0.reshape(-1, 4).mean(axis=1)
    assert st.mean[0] == pytest.approx(w0.mean())
    assert st.cov[0, 0] == pytest.approx(deals.var(ddof=1))  # the deal's variance, not the game's
    assert st.rotation_gain == pytest.approx((w0.var(ddof=1) / 4000) / (deals.var(ddof=1) / 1000))
    # the other sections read each deal once (rotation 0): independent games only
    assert ctx.scan.select(pl.len()).collect().item() == 1000
    assert ctx.scan.select((pl.col("game") % 4).max()).collect().item() == 0
    summary = seat_stats(ctx)["main"].to_dict()
    assert summary["rotation"]["deals"] == 1000 and summary["rotation"]["games_per_deal"] == 4


def test_the_stop_reads_a_rotated_arm_by_deal():
    from pipelines.stopping import per_game
    from sim.stopping import Monitor, Stop

    arm = ArmSpec.make("wizard", 4, None, "heuristic", rotate=True, name="main")
    study = StudySpec(name="s", seed=SEED, games=40, batch_size=20, arms=(arm,))
    frame = pl.from_arrow(arm.info.runner().play_batch(arm, SEED, 0, 40))
    x = per_game(frame, study, arm, "seat0_edge")
    w0 = np.where(frame.sort("game")["winner_mask"].to_numpy() & 1, 1.0 / frame.sort("game")["n_winners"].to_numpy(), 0)
    assert np.allclose(x, w0.reshape(10, 4).mean(axis=1) - 0.25)
    stop = Stop(("seat0_edge",), 0.01, 10**6, pilot=20)
    plain, deals = (Monitor(stop, ["x"], 20, per_unit) for per_unit in ([1], [4]))
    values = np.random.default_rng(1).normal(0, 0.2, 40)
    for m in (plain, deals):
        m.add(0, [values])
    assert deals.predicted_games() == pytest.approx(4 * plain.predicted_games(), rel=0.05)


def test_stop_between_a_rotated_and_a_plain_arm_is_refused(tmp_path):
    path = tmp_path / "s.toml"
    path.write_text("""
name = "s"
[defaults]
game = "wizard"
players = 4
[[arm]]
name = "a"
[[arm]]
name = "b"
rotate = true
[stop]
measure = "seat0_edge"
half_width = 0.01
max_games = 4000
between = ["a", "b"]
""")
    with pytest.raises(SpecError, match="one rotates its seats and the other does not"):
        StudySpec.from_toml(path)
