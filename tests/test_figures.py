"""Figures a designer can read: the layout check in reports/plots.py, and every figure of every example.

The check (plots._png) finds text outside the picture and texts on top of each other; these tests
first show that it does find them (figures made broken on purpose), then play every example study
in examples/ at a tiny size and build its report, and require that no figure is left with a problem."""
from __future__ import annotations

import dataclasses
import io
import sys
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from PIL import Image

from reports import plots

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

EXAMPLES = sorted(p for p in (ROOT / "examples").glob("*.toml") if "[[arm]]" in p.read_text() or "[[sweep]]" in p.read_text())
TINY_GAMES = 300  # enough rows for every section to draw its figures; the numbers do not matter here


@pytest.fixture(autouse=True)
def _fresh(monkeypatch):
    monkeypatch.delenv(plots.STRICT_ENV, raising=False)
    plots.clear_layout_problems()
    yield
    plots.clear_layout_problems()


def _figure(width=4.0, height=3.0):
    fig = Figure(figsize=(width, height), dpi=plots.DPI)
    FigureCanvasAgg(fig)
    return fig, fig.add_subplot()


def _problems(fig) -> list:
    fig.canvas.draw()
    return plots._find(fig)


# -- the check itself -------------------------------------------------------------------------------
def test_a_clean_figure_passes():
    fig, ax = _figure(6.0, 4.5)  # matplotlib's default margins: at 3 inches high they clip the x label
    ax.bar(range(3), [1, 2, 3])
    ax.set_xticks(range(3), ["a", "b", "c"])
    ax.set_title("Short")
    ax.set_xlabel("x")
    ax.set_ylabel("y")
    assert _problems(fig) == []


def test_overlapping_tick_labels_are_caught():
    fig, ax = _figure()
    names = [f"a-very-long-arm-name-{i}" for i in range(8)]
    ax.set_xticks(range(8), names)
    found = _problems(fig)
    overlaps = [(a.role, b.role) for kind, a, b, _ in found if kind == "overlap"]
    assert ("x tick label", "x tick label") in overlaps
    assert "a-very-long-arm-name" in plots._message("t", *found[0])


def test_a_title_wider_than_the_figure_is_caught():
    fig, ax = _figure(3.0, 2.5)
    ax.set_title("The mole's win share by arm, sabotage rate, pot threshold and number of players at the table")
    found = _problems(fig)
    assert any(kind == "outside" and a.role == "title" for kind, a, _b, _o in found)


def test_text_on_top_of_text_is_caught_and_turned_text_is_measured_as_turned():
    fig, ax = _figure()
    ax.text(0.5, 0.5, "first words", transform=ax.transAxes)
    ax.text(0.52, 0.5, "second words", transform=ax.transAxes)
    assert any(kind == "overlap" and {a.role, b.role} == {"text"} for kind, a, b, _ in _problems(fig))
    # two parallel turned labels whose bounding boxes overlap but whose letters do not
    fig, ax = _figure()
    for x in (0.3, 0.45):
        ax.text(x, 0.5, "a turned label of some length", rotation=30, transform=ax.transAxes, fontsize=8)
    fig.canvas.draw()
    a, b = [i for i in plots._text_items(fig) if i.role == "text"]
    renderer = fig.canvas.get_renderer()
    plots._measure(a, renderer)
    plots._measure(b, renderer)
    assert a.box.overlaps(b.box)  # the boxes do overlap ...
    assert not plots._overlap(a.corners, b.corners)  # ... the texts do not


def test_the_fixes_repair_what_they_can_and_record_the_rest():
    frame = pl.DataFrame({"arm": [f"pot-200-sab-0.{i}-with-long-suffix" for i in range(15)],
                          "share": np.linspace(0.1, 0.4, 15), "lo": np.linspace(0.08, 0.38, 15),
                          "hi": np.linspace(0.12, 0.42, 15), "fair": [0.25] * 15})
    fig = plots.interval_bars(frame, "arm", "share", "lo", "hi", ref="fair", xlabel="arm", ylabel="win share",
                              title="A long title that would not fit on one line of a figure this narrow, "
                                    "so the layout has to wrap it over two or three lines")
    assert plots.layout_problems() == []
    assert Image.open(io.BytesIO(fig.png)).size[0] <= plots.MAX_WIDTH * plots.DPI + 1
    # what cannot be fixed (text placed outside the picture on purpose) is recorded, and strict mode raises
    fig, ax = _figure()
    ax.text(8.0, 0.5, "far beyond the right edge", transform=ax.transAxes)  # more than the figure may grow
    plots._png(fig, "runaway", "")
    assert plots.layout_problems() and "runaway" in plots.layout_problems()[0]


def test_strict_mode_raises(monkeypatch):
    monkeypatch.setenv(plots.STRICT_ENV, "1")
    fig, ax = _figure(2.0, 2.0)
    ax.text(0.0, 0.5, "x" * 800, transform=ax.transAxes, fontsize=6)  # one word, 40 inches: no fix helps
    with pytest.raises(plots.FigureLayoutError, match="'too wide'.*outside the figure"):
        plots._png(fig, "too wide", "")


def test_palette_gives_distinct_colours_for_any_number_of_arms():
    for n in (1, 10, 11, 15, 20, 21, 40):
        colors = plots.palette(n)
        assert len(colors) == n and len({tuple(np.round(c[:3], 4)) for c in colors}) == n
    assert plots.palette(10)[:3] == plots.palette(15)[:3]  # the first ten keep their usual colours


def test_heatmap_rows_and_columns_share_one_order_and_text_contrasts():
    order = ["trap", "cautious", "random"]
    rows = [{"p": a, "o": b, "v": v, "lo": v - 0.05, "hi": v + 0.05}
            for a, b, v in [("trap", "random", 0.95), ("cautious", "trap", 0.5), ("random", "cautious", 0.05),
                            ("trap", "cautious", 0.6), ("cautious", "random", 0.7), ("random", "trap", 0.3)]]
    assert plots._same_order(order, ["random", "trap", "cautious"]) == (order, order)
    assert plots.text_color((0.02, 0.19, 0.38, 1.0)) == "white"  # RdBu's dark blue end
    assert plots.text_color((0.97, 0.97, 0.97, 1.0)) == "black"
    fig = plots.heatmap(pl.DataFrame(rows), "p", "o", "v", "lo", "hi", title="Row against column")
    assert fig.png and plots.layout_problems() == []


def test_wrap_breaks_only_where_a_name_allows():
    assert plots.wrap("pot-200-sab-0.6", 8) == "pot-200-\nsab-0.6"
    assert plots.wrap("Win share by player, seat-adjusted", 20).split("\n")[0] == "Win share by player,"
    assert plots.wrap("unbreakable", 4) == "unbreakable"


def test_a_fair_share_mark_on_every_bar():
    """Bars of arms with different fair shares (3 to 6 players) each get their own mark: the mark's
    colour appears in the picture at each bar's fair value, not as one line across the plot."""
    frame = pl.DataFrame({"arm": ["3p", "4p", "6p"], "share": [0.1, 0.1, 0.1], "lo": [0.09] * 3, "hi": [0.11] * 3,
                          "fair": [1 / 3, 1 / 4, 1 / 6]})
    fig = plots.interval_bars(frame, "arm", "share", "lo", "hi", ref="fair", title="marks")
    img = np.asarray(Image.open(io.BytesIO(fig.png)).convert("RGB")).astype(int)
    dark = (np.abs(img - 0x11).sum(axis=2) < 30)
    rows_with_marks = sorted({int(r) for r in np.nonzero(dark.sum(axis=1) > 20)[0]})
    # three separate heights of marks (each a couple of pixels thick), apart from the axes' frame
    groups = np.split(rows_with_marks, np.nonzero(np.diff(rows_with_marks) > 3)[0] + 1)
    assert len(groups) >= 3


def _height(fig) -> int:
    return Image.open(io.BytesIO(fig.png)).size[1]


def test_forest_panels_sit_side_by_side():
    """Up to four panels (measures) of a forest share one row: as tall as one panel, not a grid."""
    def frame(panels, rows=1):
        return pl.DataFrame([{"pair": f"pair {r}", "measure": f"measure {p}", "d": 0.01 * p, "lo": -0.02, "hi": 0.03,
                              "share": True} for p in range(panels) for r in range(rows)])
    one = plots.forest(frame(1), "pair", "d", "lo", "hi", panel="measure", ref=0.0, percent="share", title="one")
    four = plots.forest(frame(4), "pair", "d", "lo", "hi", panel="measure", ref=0.0, percent="share", title="four")
    six = plots.forest(frame(6), "pair", "d", "lo", "hi", panel="measure", ref=0.0, percent="share", title="six")
    assert _height(four) == _height(one) < 2.5 * plots.DPI
    assert _height(six) > 1.5 * _height(four)  # beyond four: rows of three
    assert plots.layout_problems() == []


def test_interval_lines_cost_no_height_per_point_and_draw_each_reference():
    """Fifteen or thirty round sizes: the same height (a forest would grow a row per round); every
    arm's reference is a dashed line in the arm's colour across the plot."""
    def frame(n):
        return pl.DataFrame([{"cards": c, "arm": arm, "rate": r, "lo": r - 0.02, "hi": r + 0.02, "all": base}
                             for arm, base in (("off", 0.55), ("on", 0.35))
                             for c in range(1, n + 1) for r in [base + 0.3 / c]])
    short = plots.interval_lines(frame(15), "cards", "rate", "lo", "hi", hue="arm", ref="all", ref_label="all rounds",
                                 xlabel="cards", ylabel="exact bids", title="by round size")
    long_ = plots.interval_lines(frame(30), "cards", "rate", "lo", "hi", hue="arm", ref="all", ref_label="all rounds",
                                 xlabel="cards", ylabel="exact bids", title="by round size")
    assert _height(short) == _height(long_) <= 3.2 * plots.DPI
    assert plots.layout_problems() == []
    img = np.asarray(Image.open(io.BytesIO(short.png)).convert("RGB")).astype(int)
    for color in plots.palette(2):  # a long horizontal run of the arm's colour: its dashed reference line
        rgb = np.array(color[:3]) * 255
        rows = (np.abs(img - rgb).sum(axis=2) < 60).sum(axis=1)
        assert rows.max() > 0.2 * img.shape[1], color


# -- every figure of every example -------------------------------------------------------------------
def test_examples_are_found():
    assert len(EXAMPLES) >= 6 and any(p.name == "wieisdeheer-mole.toml" for p in EXAMPLES)


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_every_figure_of_every_example_is_readable(path, tmp_path, monkeypatch):
    from pipelines.run import run_study
    from reports.build import build_report
    from sim.spec import StudySpec

    monkeypatch.chdir(path.parent)  # data files named relative to the study
    spec = StudySpec.from_toml(path)
    spec = dataclasses.replace(spec, games=TINY_GAMES, batch_size=TINY_GAMES)
    run_study(spec, tmp_path / spec.name, workers=0, progress=False)
    paths = build_report(tmp_path / spec.name)
    html = paths["html"].read_text()
    assert html.count("data:image/png;base64,") >= 3
    assert plots.layout_problems() == []
    check_answers_first(paths, spec, tmp_path)


def check_answers_first(paths: dict, spec, work: Path) -> None:
    """The report opens with the study's description and one answer per question, each linking to a
    section that exists; checked in the HTML and in the page headless Chromium builds from it."""
    import json
    import re

    from browser import need_chromium, run_chromium

    summary = json.loads(paths["json"].read_text())
    answers = summary["answers"]
    assert spec.description and spec.questions, f"{spec.name}: the example asks no question"
    assert summary["description"] == spec.description
    assert len(answers) >= len(spec.questions) and not any(a["question"]["inferred"] for a in answers)
    html = paths["html"].read_text()
    assert re.search(r"</h1>\s*<section id=\"answers\">", html), "the answers come first after the title"
    need_chromium()
    dom, console, _shot = run_chromium(paths["html"], work, height=1200)
    assert console == [], console
    headings = re.findall(r"<h([12])[^>]*>(.*?)</h\1>", dom)
    assert [h for _level, h in headings[:2]] == [f"kaartlab report: {spec.name}", "Answers"], headings[:3]
    ids = set(re.findall(r'<section id="([^"]+)"', dom))
    for a in answers:
        assert a["evidence"] in ids, (a["title"], a["evidence"])
        assert f'href="#{a["evidence"]}"' in dom
        assert a["verdict"] and a["sentence"]
