"""The player-dependence section on synthetic studies: the same questions (seat 0's edge, a variant's
effect) answered under two player mixes, once with identical answers and once with clearly
different ones."""
from __future__ import annotations

import sys
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parents[1]), str(Path(__file__).resolve().parent)]
from reports_fixtures import FakeArm, write_study  # noqa: E402

from reports.context import Context, Options  # noqa: E402
from reports.dataset import Dataset  # noqa: E402
from reports.sections import player_dependence  # noqa: E402

EDGE = (0.34, 0.22, 0.22, 0.22)  # seat 0 wins 9 points more than a fair 25%


def _section(root: Path):
    ds = Dataset(root)
    ctx = Context(ds, "knutten", Options.resolve(ds.study))
    player_dependence.questions(ctx)
    ctx.family.correct()
    return player_dependence.section(ctx)


def _arms(second_edge, second_shift: float) -> list[FakeArm]:
    """John Knut off/on under the players 'cautious' and 'trap'; the trap tables get their own seat
    probabilities and John's effect on the game's length."""
    arms = []
    for player, probs, shift in (("cautious", EDGE, 10.0), ("trap", second_edge, second_shift)):
        for john in (0, 1):
            arms.append(FakeArm(f"{player}-john{john}", games=2000, policies=(player,) * 4, win_probs=probs,
                                rules={"john_knut": john}, turns_shift=shift * john))
    return arms


def test_identical_answers_agree(tmp_path):
    write_study(tmp_path, _arms(EDGE, 10.0), seed=5)
    sec = _section(tmp_path)
    qs = {q["question"]: q for q in sec.data["questions"]}
    seat = [q for label, q in qs.items() if label.startswith("seat 0's edge")]
    assert len(seat) == 2  # one per rule set (John off, John on)
    assert all(not q["players_matter"] for q in qs.values())
    turns = next(q for label, q in qs.items() if label.endswith("turns per game"))
    assert [a["mix"] for a in turns["answers"]] == ["cautious", "trap"]
    assert abs(turns["answers"][0]["estimate"] - 10.0) < 1.5
    assert len(sec.verdicts) == 1 and sec.verdicts[0].startswith("No detectable difference between the player mixes")
    assert sec.tables[0].columns == ["question", "player mix", "estimate (95%)"]


def test_clearly_different_answers_disagree(tmp_path):
    write_study(tmp_path, _arms(None, 0.0), seed=5)
    sec = _section(tmp_path)
    qs = {q["question"]: q for q in sec.data["questions"]}
    seat = [q for label, q in qs.items() if label.startswith("seat 0's edge")]
    assert seat and all(q["players_matter"] for q in seat)
    diff = seat[0]["differences"][0]
    assert diff["mix_a"] == "cautious" and diff["mix_b"] == "trap" and diff["hi"] < -0.05
    turns = next(q for label, q in qs.items() if label.endswith("turns per game"))
    assert turns["players_matter"]
    assert any("DEPENDS ON THE PLAYERS" in v and "turns per game" in v for v in sec.verdicts)
