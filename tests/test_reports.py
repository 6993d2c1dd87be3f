"""Tests for reports/: statistics on known synthetic datasets, the three outputs, and the HTML in a
real headless Chromium. Datasets are built in tmp_path per docs/schema.md (tests/reports_fixtures.py)."""
from __future__ import annotations

import json
import os
from html import escape as html_escape
import re
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy import stats as sps
from statsmodels.stats.proportion import proportion_confint

# tests/ for the fixture module; the repo root first so `reports` is this checkout's package even
# when an editable install predates reports/__init__.py (it would resolve to a namespace package).
sys.path[:0] = [str(Path(__file__).resolve().parents[1]), str(Path(__file__).resolve().parent)]
from reports_fixtures import FakeArm, probs_for, weighted_wins, write_study  # noqa: E402

from reports import build_report  # noqa: E402
from reports.context import Context, Options  # noqa: E402
from reports.dataset import Dataset, ReportError  # noqa: E402
from reports.registry import outcomes, sections  # noqa: E402
from reports.sections import first_player  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
from browser import CHROMIUM, need_chromium, run_chromium as browser_run  # noqa: E402
EDGE_PROBS = (0.30, 0.70 / 3, 0.70 / 3, 0.70 / 3)  # seat 0 wins 5 points more than a fair 25%
JOHN_SHIFT = 10.0  # turns John adds to every game in the fixture
STRENGTH = {"greedy": 1.3, "cautious(start=self)": 1.0}
ROTATION = (("greedy", "cautious(start=self)", "greedy", "cautious(start=self)"),
            ("cautious(start=self)", "greedy", "cautious(start=self)", "greedy"))  # labels are opaque names


def seat_stats(root: Path, game: str = "knutten", **options) -> dict:
    """First-player numbers of a dataset; their claims are the whole family (corrected here)."""
    ctx = Context(Dataset(root), game, Options.resolve(Dataset(root).study, **options))
    stats = first_player.seat_stats(ctx)
    ctx.family.correct()
    return stats


# -- first-player advantage -------------------------------------------------------------------------
def test_fair_seats_show_no_advantage(tmp_path):
    arm = FakeArm("fair", games=20000)
    written = write_study(tmp_path, [arm], seed=11)
    st = seat_stats(tmp_path)["fair"]
    assert st.games == 20000
    np.testing.assert_allclose(st.wins, weighted_wins(written["columns"]["fair"], 4))
    assert not st.edge.excludes(0.0), st.edge
    for share, truth in zip(st.shares, arm.expected_shares()):
        assert share.lo <= truth <= share.hi
    assert st.chi.p_value > 0.05
    verdict = first_player.edge_verdict(st)
    assert "no detectable first-player advantage" in verdict
    assert "real first-player" not in verdict


def test_injected_five_point_edge_is_detected_and_covered(tmp_path):
    arm = FakeArm("edge", games=20000, win_probs=EDGE_PROBS)
    written = write_study(tmp_path, [arm], seed=12)
    st = seat_stats(tmp_path)["edge"]
    true_edge = arm.expected_shares()[0] - 0.25
    assert true_edge > 0.045
    assert st.edge.excludes(0.0)
    assert st.edge.lo <= true_edge <= st.edge.hi
    assert st.shares[0].value == pytest.approx(weighted_wins(written["columns"]["edge"], 4)[0] / 20000)
    assert st.chi.p_value < 1e-6
    # the weighted count really is used: shared wins exist and count 1/2 each
    assert st.shared > 0 and st.wins.sum() == pytest.approx(20000)
    verdict = first_player.edge_verdict(st)
    assert verdict.startswith("edge: seat 0 wins ")
    assert "above a fair share (25.0%): a real first-player advantage" in verdict


def test_detectable_edge_and_games_for_the_named_edge(tmp_path):
    """Not post hoc: both come from the per-game variance (shared wins included), not the observed edge."""
    written = write_study(tmp_path, [FakeArm("small", games=300, win_probs=(0.28, 0.24, 0.24, 0.24))], seed=3)
    cols = written["columns"]["small"]
    w0 = (cols["winner_mask"] & 1) / cols["n_winners"]
    sd = w0.std(ddof=1)
    for edge in (0.01, 0.03):
        st = seat_stats(tmp_path, edge=edge)["small"]
        # power for the test the report runs: Holm over its claims, whose first step is alpha / claims
        claims = sum(np.isfinite(c.p_value) for c in st.edge_claim.family.claims.values())
        assert claims >= 2 and st.test_level == pytest.approx(0.05 / claims)
        z = sps.norm.ppf(1 - st.test_level / 2) + sps.norm.ppf(0.8)
        assert not st.edge.excludes(0.0)
        assert st.detectable == pytest.approx(z * sd / np.sqrt(300), rel=1e-3)
        assert st.needed == pytest.approx(np.ceil((z * sd / edge) ** 2), abs=1)
        verdict = first_player.edge_verdict(st)
        assert "no detectable first-player advantage" in verdict
        assert f"detects edges of {st.detectable * 100:.2g} percentage points" in verdict
        assert f"an edge of {edge * 100:g} percentage point" in verdict and f"about {int(st.needed):,} games" in verdict
        assert "with 95% confidence the edge is within +-" in verdict
    # the named edge comes from study.json's report table too, and bad values are refused
    manifest = json.loads((tmp_path / "study.json").read_text())
    manifest["study"]["report"] = {"edge": 0.02, "correction": "bh"}
    (tmp_path / "study.json").write_text(json.dumps(manifest))
    assert Options.resolve(Dataset(tmp_path).study) == Options(edge=0.02, correction="bh")
    with pytest.raises(ReportError):
        Options.resolve({"report": {"edge": 2}})
    with pytest.raises(ReportError):
        Options.resolve({"report": {"correction": "bonferroni"}})
    small = [v for v in json.loads(build_report(tmp_path, out_dir=tmp_path / "r")["json"].read_text())
             ["sections"]["first_player"]["verdicts"] if "only 300 games" in v]
    assert small, "a 300-game arm gets a small-sample warning"


# -- full report on a common-random-number study ------------------------------------------------------
@pytest.fixture(scope="module")
def study(tmp_path_factory):
    root = tmp_path_factory.mktemp("study")
    arms = [
        FakeArm("john-off", games=12000, win_probs=(0.28, 0.24, 0.24, 0.24)),
        FakeArm("john-on", games=12000, win_probs=(0.27, 0.25, 0.24, 0.24), rules={"john_knut": 1},
                turns_shift=JOHN_SHIFT),
        FakeArm("john-on-heavy", games=12000, win_probs=(0.27, 0.25, 0.24, 0.24),
                rules={"john_knut": 1, "heavy_weather": 1, "heavy_bites_to_end": 12}, turns_shift=JOHN_SHIFT + 5),
        *[FakeArm(f"mixed-{i}", games=6000, policies=pol, win_probs=probs_for(pol, STRENGTH), rules={"threshold": 25})
          for i, pol in enumerate(ROTATION)],
    ]
    written = write_study(root, arms, seed=5)
    out = tmp_path_factory.mktemp("out")
    paths = build_report(root, out_dir=out)
    return {"root": root, "out": out, "paths": paths, "written": written, "arms": {a.name: a for a in arms},
            "summary": json.loads(paths["json"].read_text())}


def test_build_report_writes_three_files(study):
    paths = study["paths"]
    assert set(paths) == {"html", "md", "json"}
    for key, name in (("html", "report.html"), ("md", "report.md"), ("json", "summary.json")):
        assert paths[key] == study["out"] / name and paths[key].stat().st_size > 0
    assert not (study["root"] / "report.html").exists()  # out_dir respected


def test_summary_json_contains_the_numbers(study):
    s, cols = study["summary"], study["written"]["columns"]
    assert s["kaartlab_report"] == 1
    assert s["dataset"]["fingerprint"] == study["written"]["fingerprint"]
    assert {a["name"]: a["games"] for a in s["dataset"]["arms"]}["john-on"] == 12000
    # the rotated arms hold 6,000 of the study's 12,000 games: the report says so first
    assert list(s["sections"]) == ["answers", "completeness", "first_player", "distributions", "variants", "policies",
                                   "ratings", "knutten.john_knut", "knutten.heavy_weather", "claims"]
    assert "mixed-0" in json.dumps(s["sections"]["completeness"])
    fp = s["sections"]["first_player"]["data"]["arms"]["john-off"]
    ref = weighted_wins(cols["john-off"], 4) / 12000
    assert [x["estimate"] for x in fp["seats"]] == pytest.approx(ref.tolist())
    assert fp["seat0_edge"]["estimate"] == pytest.approx(ref[0] - 0.25)
    assert fp["seat0_edge"]["detected"] is True
    assert {"statistic", "df", "p_value"} <= set(fp["equal_seats_test"])
    bal = fp["balance"]
    assert bal["plain_max_minus_min"] == pytest.approx(ref.max() - ref.min())
    # bias-corrected: the plain max - min overstates the gap, so balance rises, within 0-100%
    assert 1 - (ref.max() - ref.min()) <= bal["estimate"] and 0 <= bal["lo"] <= bal["estimate"] <= bal["hi"] <= 1
    # a share's interval: Wilson at the effective number of games n p(1-p) / var (per-game variance)
    c = cols["john-off"]
    w0 = (c["winner_mask"] & 1) / c["n_winners"]
    n_eff = w0.size * w0.mean() * (1 - w0.mean()) / w0.var()
    lo, hi = proportion_confint(w0.mean() * n_eff, n_eff, method="wilson")
    assert (fp["seats"][0]["lo"], fp["seats"][0]["hi"]) == pytest.approx((lo, hi))
    # one method per quantity: seat 0's share has the same interval in the variant comparison
    base = s["sections"]["variants"]["data"]["pairs"]["john-on vs john-off"]["measures"]["seat0_win"]["baseline"]
    assert (base["lo"], base["hi"]) == pytest.approx((fp["seats"][0]["lo"], fp["seats"][0]["hi"]), rel=1e-9)
    claims = s["sections"]["claims"]["data"]
    assert claims["correction"] == "Holm" and len(claims["claims"]) > 20
    assert all(k in claims["claims"] for k in ("knutten:first_player/john-off/seat0_edge",
                                               "knutten:variants/john-on vs john-off/turns"))
    turns = s["sections"]["distributions"]["data"]["arms"]["john-on"]["turns"]
    t = cols["john-on"]["turns"]
    assert turns["mean"] == pytest.approx(t.mean())
    assert turns["p50"] == pytest.approx(np.median(t))
    assert turns["p95"] == pytest.approx(np.quantile(t, 0.95))
    hist = s["sections"]["distributions"]["data"]["histograms"]["turns"]["john-on"]
    assert sum(hist["count"]) == 12000
    john = s["sections"]["knutten.john_knut"]["data"]["arms"]["john-on"]
    c = cols["john-on"]
    assert john["events"]["drawn"]["estimate"] == pytest.approx((c["john_drawn_by"] >= 0).mean())
    assert john["events"]["held"]["estimate"] == pytest.approx(((c["john_drawn_by"] >= 0) & (c["john_plays"] == 0)).mean())
    assert john["per_game"]["john_bites"]["estimate"] == pytest.approx(c["john_bites"].mean())
    # every verdict is in the summary, and no NaN slipped into the JSON
    assert all(sec["verdicts"] for key, sec in s["sections"].items() if key != "answers")  # answers: s["answers"]
    assert "NaN" not in study["paths"]["json"].read_text()


def test_paired_comparison_is_narrower_than_unpaired(study):
    pair = study["summary"]["sections"]["variants"]["data"]["pairs"]["john-on vs john-off"]
    assert pair["changes"] == {"john_knut": [0, 1]} and pair["games_paired"] == 12000
    cols = study["written"]["columns"]
    for key in ("turns", "seat0_win", "wind_share"):
        m = pair["measures"][key]
        paired, unpaired = m["difference"], m["unpaired_difference"]
        assert paired["hi"] - paired["lo"] < unpaired["hi"] - unpaired["lo"], key
        assert paired["estimate"] == pytest.approx(unpaired["estimate"])
    turns = pair["measures"]["turns"]["difference"]
    d = cols["john-on"]["turns"].astype(float) - cols["john-off"]["turns"]
    assert turns["estimate"] == pytest.approx(d.mean())
    half = sps.t.ppf(0.975, d.size - 1) * d.std(ddof=1) / np.sqrt(d.size)
    assert turns["hi"] - turns["estimate"] == pytest.approx(half)
    assert turns["lo"] <= JOHN_SHIFT <= turns["hi"]
    assert pair["measures"]["turns"]["narrowing"] > 3
    w0 = lambda c: ((c["winner_mask"] & 1) / c["n_winners"])  # noqa: E731
    seat0 = pair["measures"]["seat0_win"]["difference"]
    assert seat0["estimate"] == pytest.approx((w0(cols["john-on"]) - w0(cols["john-off"])).mean())
    # the John section reuses the same paired numbers, restricted to its effects
    effects = study["summary"]["sections"]["knutten.john_knut"]["children"]["knutten.john_knut.effects"]
    eff = effects["data"]["pairs"]["john-on vs john-off"]["measures"]
    assert set(eff) == {"turns", "rounds", "wind_share", "wind_calls", "bites", "seat0_win", "balance"}
    assert eff["turns"] == pair["measures"]["turns"]
    heavy = study["summary"]["sections"]["knutten.heavy_weather"]["data"]["pairs"]
    assert list(heavy) == ["john-on-heavy vs john-on"]  # heavy_bites_to_end may differ along with the switch


def test_john_knut_roles(study):
    john = study["summary"]["sections"]["knutten.john_knut"]["data"]["arms"]["john-on"]
    roles = john["roles"]
    assert roles["target"]["win_share"]["estimate"] < 0.01 and roles["target"]["detected"]  # fixture: target never wins
    assert roles["drawer"]["win_share"]["lo"] <= 0.25 <= roles["drawer"]["win_share"]["hi"]
    verdicts = study["summary"]["sections"]["knutten.john_knut"]["verdicts"]
    assert any(v.startswith("Receiving John's bite goes with winning less often in") and "john-on" in v
               and "an association, not shown to be the cause" in v for v in verdicts)
    assert not any("helps" in v or "hurts" in v for v in verdicts)  # associations are not stated as causes
    assert "john-off" not in study["summary"]["sections"]["knutten.john_knut"]["data"]["arms"]


def test_policy_comparison(study):
    group = study["summary"]["sections"]["policies"]["data"]["groups"][0]
    assert group["arms"] == ["mixed-0", "mixed-1"] and group["separable"] is True
    C = "cautious(start=self)"
    greedy, cautious = group["policies"]["greedy"], group["policies"][C]
    assert greedy["lo"] > 0.25 > cautious["hi"]
    assert greedy["lo"] <= 1.3 / 4.6 <= greedy["hi"]  # true share 1.3 / (2 * 1.3 + 2 * 1.0), ties aside
    h2h = {(m["policy"], m["opponent"]): m["estimate"] for m in group["matchups"]}
    assert h2h["greedy", C] + h2h[C, "greedy"] == pytest.approx(1.0)
    assert h2h["greedy", C] > 0.5
    adj = group["seat_adjusted"]
    assert adj["greedy"]["lo"] > 0.25 > adj[C]["hi"] and adj["greedy"]["detected"] and adj[C]["detected"]
    assert adj["greedy"]["lo"] <= 1.3 / 4.6 <= adj["greedy"]["hi"]
    assert len(group["seat_policy"]) == 8


def test_relabelled_equal_players_are_not_ranked(tmp_path):
    """Identical players under three labels, seat 0 with a 5-point edge: the raw shares inherit the seat,
    the seat-adjusted ones do not; one arm alone gets a warning and no claim."""
    rot = (("trap", "cautious", "random", "cautious"), ("random", "trap", "cautious", "cautious"),
           ("cautious", "random", "trap", "cautious"), ("trap", "cautious", "random", "cautious"))
    arms = [FakeArm(f"m{i}", games=6000, policies=pol, win_probs=EDGE_PROBS, tie_rate=0.4, rules={"threshold": 25})
            for i, pol in enumerate(rot)]
    arms.append(FakeArm("alone", games=3000, policies=rot[0], win_probs=EDGE_PROBS, rules={"threshold": 20}))
    write_study(tmp_path, arms, seed=21)
    s = json.loads(build_report(tmp_path)["json"].read_text())["sections"]["policies"]
    rotated, alone = s["data"]["groups"]
    assert rotated["separable"] and not alone["separable"]
    assert rotated["policies"]["trap"]["lo"] > 0.25  # raw: trap sat at seat 0 in two of four arms
    for p, e in rotated["seat_adjusted"].items():
        assert e["lo"] <= 0.25 <= e["hi"] and not e["detected"], p
    assert all(e is None for e in alone["seat_adjusted"].values())
    verdicts = " ".join(s["verdicts"])
    assert "stronger than the field" not in verdicts and "weaker than the field" not in verdicts
    assert "cannot be told apart" in verdicts


def test_markdown_and_html_carry_the_verdicts(study):
    md = study["paths"]["md"].read_text()
    html = study["paths"]["html"].read_text()
    verdicts = [v for sec in study["summary"]["sections"].values() for v in sec["verdicts"]]
    verdicts += [v for sec in study["summary"]["sections"].values() for ch in sec.get("children", {}).values()
                 for v in ch["verdicts"]]
    assert len(verdicts) > 10
    for v in verdicts:
        assert v in md
        assert html_escape(v, quote=True) in html
    assert "Seat 0 has a detectable edge in" in md and "john-off +" in md
    assert "paired on 12,000 shared game seeds" in md
    answers = study["summary"]["answers"]
    assert answers and all(a["question"]["inferred"] for a in answers)  # the fixture's study asks none
    for a in answers:
        assert a["sentence"] in md and html_escape(a["sentence"], quote=True) in html
        assert f'href="#{a["evidence"]}"' in html and f'<section id="{a["evidence"]}">' in html


def test_html_is_self_contained(study):
    html = study["paths"]["html"].read_text()
    assert not re.search(r"""(src|href)\s*=\s*["']?\s*(https?:)?//""", html, re.I)
    assert "<script" not in html.lower() and "@import" not in html and "url(" not in html
    images = re.findall(r'<img [^>]*src="([^"]+)"', html)
    assert len(images) >= 8 and all(src.startswith("data:image/png;base64,") for src in images)


def _folded(html: str) -> list[str]:
    """The summaries of report.html's folded blocks (tables and figures shown behind their title)."""
    return re.findall(r'<details class="fold"><summary>(.*?)</summary>', html)


def test_secondary_detail_is_folded_and_kept(study):
    """A table whose numbers a figure beside it shows, and a figure whose numbers a table holds, are
    folded in report.html, not dropped: their numbers stay in report.html, report.md and summary.json.
    Main evidence (the seat figure, the head-to-head heatmap, the seat-0 edge table) stays open."""
    html, md = study["paths"]["html"].read_text(), study["paths"]["md"].read_text()
    folded = _folded(html)
    seat_table = "Win share by seat (95% Wilson interval at the effective number of games) (5 rows)"
    assert html_escape(seat_table, quote=True) in folded, folded
    assert "Figure: Bradley-Terry rating with 95% interval" in folded
    assert any(f.startswith("Head-to-head: row finishes ahead of column") for f in folded)
    open_parts = re.sub(r'<details class="fold">.*?</details>', "", html, flags=re.S)
    assert "<figcaption>Win share by seat</figcaption>" in open_parts
    assert "<figcaption>Row finishes ahead of column (mixed-0, mixed-1)</figcaption>" in open_parts
    assert "Seat 0&#x27;s edge, equal-seats test, balance</caption>" in open_parts
    # the folded seat table's numbers: in the HTML (folded), the Markdown (whole) and the JSON
    fp = study["summary"]["sections"]["first_player"]["data"]["arms"]["john-off"]["seats"]
    for seat in fp:
        cell = f"{seat['estimate'] * 100:.1f}%"
        assert cell in html.split(html_escape(seat_table, quote=True))[1] and cell in md
    assert "**Win share by seat (95% Wilson interval at the effective number of games)**" in md


# -- the HTML in a real browser --------------------------------------------------------------------
def _need_chromium():
    need_chromium(CHROMIUM)


def run_chromium(page: Path, work: Path, height: int = 3000) -> tuple[str, list[str], Path]:
    return browser_run(page, work, height, CHROMIUM)


def test_missing_chromium_fails_in_ci_and_skips_locally(monkeypatch, tmp_path):
    monkeypatch.setattr(sys.modules[__name__], "CHROMIUM", tmp_path / "no-chromium")
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception):
        _need_chromium()
    monkeypatch.delenv("CI")
    with pytest.raises(pytest.skip.Exception):
        _need_chromium()


def test_console_check_catches_page_errors(tmp_path):
    """Negative control: the console scan used below does see a page's errors."""
    _need_chromium()
    bad = tmp_path / "bad.html"
    bad.write_text('<!DOCTYPE html><html><body><p>x</p><script>console.error("boom"); nope();</script></body></html>')
    _dom, console, _shot = run_chromium(bad, tmp_path, height=200)
    assert any("boom" in line for line in console)
    assert any("nope is not defined" in line for line in console)


def test_html_opens_in_headless_chromium(study, tmp_path):
    _need_chromium()
    dom, console, shot = run_chromium(study["paths"]["html"], tmp_path)
    assert console == [], console
    assert "First-player advantage" in dom and "John Knut impact" in dom
    assert dom.count("data:image/png;base64,") >= 8
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 50_000
    width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    assert (width, height) == (1200, 3000)
    keep = os.environ.get("KAARTLAB_REPORT_SHOT")
    if keep:
        shutil.copy(shot, keep)


# -- generic parts: other games, registry, layout of the package -------------------------------------
def test_game_without_registered_sections_gets_the_generic_report(tmp_path):
    arms = [FakeArm("w-3p", game="newgame", players=3, games=1500, win_probs=(0.4, 0.3, 0.3), rules={"trump": 1}),
            FakeArm("w-3p-b", game="newgame", players=3, games=1500, rules={"trump": 0})]
    write_study(tmp_path, arms, seed=9)
    paths = build_report(tmp_path)
    assert paths["html"] == tmp_path / "report.html"
    s = json.loads(paths["json"].read_text())
    assert list(s["sections"]) == ["answers", "first_player", "distributions", "variants", "claims"]
    assert s["games"]["newgame"]["higher_score_wins"] is True
    dist = s["sections"]["distributions"]["verdicts"][0]
    assert "points per seat" in dist and "higher is better" in dist
    pair = s["sections"]["variants"]["data"]["pairs"]["w-3p vs w-3p-b"]
    assert "score_mean" in pair["measures"]  # default outcome: mean score per seat
    assert sections("newgame") == () and sections("knutten") and outcomes("knutten")


def test_dataset_without_study_json_reads_parquet_metadata(tmp_path):
    write_study(tmp_path, [FakeArm("a", games=100)], write_manifest=False)
    ds = Dataset(tmp_path)
    assert [a.name for a in ds.arms] == ["a"] and ds.fingerprint
    assert seat_stats(tmp_path)["a"].games == 100


def test_reports_reads_only_the_dataset():
    """Reports import neither the kernels nor the simulator; of the pipeline only the dataset's
    own integrity check (plain pyarrow and hashlib), which says which files can be trusted; of sim
    only the search's decision rules (sim/search.py: how a candidate's level, loss and constraint
    status are decided, shared with the driver so the report says what the search did), which
    themselves load nothing of the simulator but its error type when imported."""
    allowed = {"from pipelines import integrity as _integrity", "from sim.search import Level",
               "from sim.search import Constraint, Objective, evaluation", "from sim.search import front"}
    for path in (ROOT / "reports").rglob("*.py"):
        src = path.read_text()
        for line in re.findall(r"^\s*(?:from|import)\s+(?:kernels|sim|pipelines)\b.*$", src, re.M):
            assert line.strip() in allowed, (path, line)
        assert "import matplotlib.pyplot" not in src, path
    integrity = (ROOT / "pipelines" / "integrity.py").read_text()
    assert not re.search(r"^\s*(from|import)\s+(kernels|sim)\b", integrity, re.M)
    search = (ROOT / "sim" / "search.py").read_text()  # at import: the functions that build specs import lazily
    for line in re.findall(r"^(?:from|import)\s+(?:kernels|sim|pipelines)\b.*$", search, re.M):
        assert line.strip() == "from sim.errors import SpecError", line


def test_heavy_weather_section_without_john(tmp_path):
    arms = [FakeArm("calm", games=800), FakeArm("heavy", games=800, rules={"heavy_weather": 1}, turns_shift=5)]
    write_study(tmp_path, arms, seed=31)
    s = json.loads(build_report(tmp_path)["json"].read_text())["sections"]
    assert "knutten.heavy_weather" in s and list(s["knutten.heavy_weather"]["data"]["pairs"]) == ["heavy vs calm"]
    assert s["knutten.john_knut"]["verdicts"][0].startswith("No arm plays with John Knut")


def test_batch_files_alone_describe_their_study(tmp_path):
    """Without study.json, one batch file per arm gives the study's head and that arm, in study order."""
    from pipelines.run import run_study
    from reports.dataset import Dataset
    from sim.spec import StudySpec

    spec = StudySpec.from_dict({"name": "alone", "seed": 5, "games": 200, "batch_size": 100, "sweep": [
        {"name": "t", "game": "knutten", "players": 4, "vary": {"threshold": [31, 25, 40]}}]})
    run_study(spec, tmp_path / "s", workers=0, progress=False)
    (tmp_path / "s" / "study.json").unlink()
    ds = Dataset(tmp_path / "s")
    assert [a.name for a in ds.arms] == ["t-31", "t-25", "t-40"] and ds.study["seed"] == 5
    assert ds.fingerprint == spec.fingerprint() and ds.arm("t-40").rules["threshold"] == 40


def test_the_arms_table_shows_each_arm_where_it_differs_from_most_arms():
    """An arm's 'rules that differ' cell lists only the rules whose value in it is not the one most
    arms have, not every rule that varies somewhere in the study; the note says what most arms have."""
    from reports.build import rule_cells

    base = {"hand_size": 8, "counter_attacks": True, "action_rotonde": 1}
    rules = [base, base | {"counter_attacks": False}, base | {"action_rotonde": 0}, dict(base)]
    cells, common, usual = rule_cells(rules)
    assert cells == ["-", "counter_attacks=false", "action_rotonde=0", "-"]
    assert common == {"hand_size": 8} and usual == {"counter_attacks": True, "action_rotonde": 1}
    # two arms, one value each: the first arm's is the usual one (a tie)
    cells, _, usual = rule_cells([{"x": 1}, {"x": 2}])
    assert cells == ["-", "x=2"] and usual == {"x": 1}
    assert rule_cells([base, dict(base)])[0] == ["-", "-"]


def test_a_forest_of_many_pairs_shows_the_clearest_changes(tmp_path):
    """Ten arms that differ in the threshold make 45 variant pairs: the figure shows the 40 whose
    changes are clearest (the furthest thresholds: their games grow longest) and says so; every pair
    stays in the section's numbers."""
    from reports.sections import variants

    arms = [FakeArm(f"t{t}", games=400, rules={"threshold": t}, turns_shift=3.0 * i)
            for i, t in enumerate(range(25, 35))]
    write_study(tmp_path, arms)
    paths = build_report(tmp_path)
    summary = json.loads(paths["json"].read_text())
    assert len(summary["sections"]["variants"]["data"]["pairs"]) == 45
    assert "the 40 of 45 pairs with the clearest changes" in paths["html"].read_text()
    ctx = Context(Dataset(tmp_path), "knutten")
    ctx.family.collecting = True  # the comparisons alone, without the report's correction
    comps = variants.comparisons(ctx, ctx.dataset.variant_pairs("knutten"))
    ranked = sorted(comps, key=lambda k: -variants._clearness(comps[k]))
    assert set(ranked[0].split(" vs ")) == {"t25", "t34"}
