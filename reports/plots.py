"""Plots for reports: matplotlib's object API on the Agg canvas, PNG bytes out.

Thin functions over a Polars frame that a section built once; intervals are error bars. No pyplot,
so nothing global is touched and no display is needed.

Every figure is laid out for its content (long names wrapped or turned, sizes from the number of
categories) and then checked where it is made (`_png`): no text may lie outside the picture or on
top of another text. What the automatic fixes (wrap, turn, smaller type down to 6 pt, a larger
figure) cannot repair is recorded (`layout_problems()`), or raised with KAARTLAB_STRICT_FIGURES=1.
"""
from __future__ import annotations

import contextlib
import functools
import io
import math
import os
from dataclasses import dataclass

from typing import TYPE_CHECKING

import numpy as np
import polars as pl

from reports.lazy import LazyModule
from reports.model import Figure as ReportFigure

if TYPE_CHECKING:
    from matplotlib.text import Text

# matplotlib is imported at the first figure (reports/lazy.py says why)
matplotlib = LazyModule("matplotlib")
_agg = LazyModule("matplotlib.backends.backend_agg")
_figure = LazyModule("matplotlib.figure")
_image = LazyModule("matplotlib.image")
_lines = LazyModule("matplotlib.lines")
_ticker = LazyModule("matplotlib.ticker")

DPI = 100
MAX_WIDTH = 10.4  # inches: the report's column is about 1040 px; a wider picture is shrunk, its text with it
GROW_LIMIT = 1.5 * MAX_WIDTH  # inches: the fixes enlarge no figure beyond this
ROUNDS = 8  # rounds of check and repair before what is left is recorded
MIN_FONT = 6.0  # points: the smallest type the layout fixes may use
TOLERANCE = 1.0  # pixels two texts may share (anti-aliased edges) before they count as overlapping
EM = 0.6  # a character's width in em, generous for DejaVu Sans: estimates only, the check measures
STRICT_ENV = "KAARTLAB_STRICT_FIGURES"
MARK_COLOR = "#111"
MANY_ARMS = 12  # beyond this many arms, a figure with one bar or outline per arm is folded (a table or a sweep's curve reads better)


def palette(n: int) -> list:
    """`n` colours that can be told apart: matplotlib's ten, then tab20 (its ten strong colours first,
    then their light partners), beyond twenty evenly spaced steps of a perceptual map (viridis)."""
    if n <= 10:
        return list(matplotlib.colormaps["tab10"].colors[:max(n, 0)])
    if n <= 20:
        tab20 = matplotlib.colormaps["tab20"].colors
        return (list(tab20[0::2]) + list(tab20[1::2]))[:n]
    return [tuple(c) for c in matplotlib.colormaps["viridis"](np.linspace(0.0, 0.95, n))]


_DRAW = [True]


@contextlib.contextmanager
def disabled():
    """Within this block every plot returns an empty figure: a report's first pass only collects its
    claims (reports.claims), and the calibration suite needs no pictures."""
    _DRAW.append(False)
    try:
        yield
    finally:
        _DRAW.pop()


def _drawn(func):
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        if not _DRAW[-1]:
            return ReportFigure(title=kwargs.get("title", ""), png=b"", alt="")
        return func(*args, **kwargs)
    return wrapper


# -- layout problems found where figures are made -------------------------------------------------------
class FigureLayoutError(ValueError):
    """A figure has text outside its picture or overlapping text (strict mode only)."""


_PROBLEMS: list[str] = []


def layout_problems() -> list[str]:
    """Messages for every layout problem the automatic fixes left, since the last clear."""
    return list(_PROBLEMS)


def clear_layout_problems() -> None:
    _PROBLEMS.clear()


def _strict() -> bool:
    return os.environ.get(STRICT_ENV, "") not in ("", "0")


# -- wrapping and sizing ------------------------------------------------------------------------------
def _char_in(fontsize: float) -> float:
    return fontsize * EM / 72


def _line_in(fontsize: float) -> float:
    return fontsize * 1.3 / 72


def _pieces(word: str) -> list[str]:
    """A word cut after '-', ':', '/', '_', ',' and '=': where a name may break when it must."""
    out, piece = [], ""
    for ch in word:
        piece += ch
        if ch in "-:/_,=" and len(piece) > 1:
            out.append(piece)
            piece = ""
    return out + [piece] if piece else out


def wrap(text: str, chars: int) -> str:
    """`text` in lines of at most `chars` characters: broken at spaces, and inside a name (after '-',
    ':', ...) only where the name alone is longer than a line; never inside a word."""
    text = str(text)
    if len(text) <= chars or "\n" in text:
        return text
    lines, line = [], ""
    for word in text.split():
        if line and len(line) + 1 + len(word) <= chars:
            line += " " + word
            continue
        if line:
            lines.append(line)
        line = ""
        for piece in _pieces(word) if len(word) > chars else [word]:
            if line and len(line + piece) > chars:
                lines.append(line)
                line = ""
            line += piece
    return "\n".join(lines + [line])


def _wrap_in(text: str, width_in: float, fontsize: float) -> str:
    """Wrap prose (a title, an axis label) to a width: 0.52 em per character is the average of
    DejaVu Sans text, and the check re-wraps on the measured width if it was too hopeful."""
    return wrap(text, max(6, int(width_in / (fontsize * 0.52 / 72))))


def _size_in(text: str, fontsize: float) -> tuple[float, float]:
    """Estimated (width, height) in inches of a possibly multi-line text."""
    lines = str(text).split("\n")
    return max(len(s) for s in lines) * _char_in(fontsize), len(lines) * _line_in(fontsize)


def _label_width(labels, fontsize: float = 8) -> float:
    """Inches needed for the longest tick label."""
    return 0.25 + max((_size_in(str(v), fontsize)[0] for v in labels), default=_char_in(fontsize))


@dataclass
class _Ticks:
    """Category labels planned for a slot width: wrapped in place, or turned when they cannot fit."""
    labels: list[str]
    rotation: float
    height: float  # inches below the axis

    def apply(self, ax, fontsize: float = 8) -> None:
        ax.set_xticks(range(len(self.labels)), self.labels, fontsize=fontsize)
        if self.rotation:
            for t in ax.get_xticklabels():
                t.set_rotation(self.rotation)
                t.set_horizontalalignment("right")
                t.set_rotation_mode("anchor")


def _plan_ticks(labels, slot_in: float, fontsize: float = 8) -> _Ticks:
    """Wrap each label to its slot when every one then fits in at most three lines; otherwise turn
    them 30 degrees (a long name wrapped to two lines first)."""
    texts = [str(v) for v in labels]
    chars = max(3, int(slot_in * 0.92 / _char_in(fontsize)))
    wrapped = [wrap(t, chars) for t in texts]
    if all(max(len(s) for s in w.split("\n")) <= chars and w.count("\n") < 3 for w in wrapped):
        return _Ticks(wrapped, 0.0, 0.12 + max(_size_in(w, fontsize)[1] for w in wrapped) if wrapped else 0.3)
    turned = [wrap(t, 22) for t in texts]
    sizes = [_size_in(t, fontsize) for t in turned]
    height = 0.12 + max(w * 0.5 + h * 0.87 for w, h in sizes)
    return _Ticks(turned, 30.0, height)


def _legend_size(names, fontsize: float = 8, title: str = "") -> tuple[float, float]:
    """(width, height) in inches of a one-column legend with these entries."""
    width = 0.55 + max((_size_in(str(n), fontsize)[0] for n in list(names) + [title]), default=0.0)
    return width, 0.15 + (len(names) + bool(title)) * fontsize * 1.75 / 72


def _percent():
    """Shares as percent (a new formatter per axis: formatters are bound to one axis)."""
    return _ticker.PercentFormatter(xmax=1.0)


def _points():
    """Differences of shares as signed percentage points."""
    return _ticker.FuncFormatter(lambda v, _pos: "0" if abs(v) < 1e-12 else f"{v * 100:+.3g}")


def _new(width: float, height: float, nrows: int = 1, ncols: int = 1, *, left: float = 0.8, right: float = 0.2,
         bottom: float = 0.55, top: float = 0.45, wspace: float = 0.6, hspace: float = 0.7, **kw):
    """Figure and axes grid with margins in inches (fixed layout: constrained layout costs a second
    draw per figure, which dominated report time; `_png` repairs what the estimates missed)."""
    fig = _figure.Figure(figsize=(width, height), dpi=DPI)
    _agg.FigureCanvasAgg(fig)
    axes = fig.subplots(nrows, ncols, squeeze=False, **kw)
    cell_w = max((width - left - right - wspace * (ncols - 1)) / ncols, 0.5)
    cell_h = max((height - top - bottom - hspace * (nrows - 1)) / nrows, 0.3)
    fig.subplots_adjust(left=left / width, right=1 - right / width, bottom=bottom / height, top=1 - top / height,
                        wspace=wspace / cell_w, hspace=hspace / cell_h)
    return fig, axes


# -- the check ----------------------------------------------------------------------------------------
@dataclass
class _Item:
    role: str  # what the text is: 'title', 'x tick label', 'legend entry', ...
    text: Text
    ax: object  # the Axes it belongs to, None for figure-level text
    box: object = None  # window extent (axis-aligned, pixels)
    corners: np.ndarray | None = None  # the text's own (possibly turned) rectangle

    def describe(self) -> str:
        s = " ".join(self.text.get_text().split())
        return f"{self.role} '{s[:48]}{'...' if len(s) > 48 else ''}'"


def _drawn_tick_labels(axis) -> list[Text]:
    """Tick labels drawn on `axis`: those of ticks inside the view (others exist but are not drawn)."""
    lo, hi = sorted(axis.get_view_interval())
    eps = (hi - lo) * 1e-9 + 1e-12
    out = []
    for ticks, locs in ((axis.get_major_ticks(), axis.get_majorticklocs()),
                        (axis.get_minor_ticks(), axis.get_minorticklocs())):
        for tick, loc in zip(ticks, locs):
            if lo - eps <= loc <= hi + eps and tick.get_visible():
                out += [t for t in (tick.label1, tick.label2) if t.get_visible()]
    return out


def _text_items(fig) -> list[_Item]:
    items = []
    sup = getattr(fig, "_suptitle", None)
    if sup is not None:
        items.append(_Item("figure title", sup, None))
    items += [_Item("figure text", t, None) for t in fig.texts if t is not sup]
    for leg in fig.legends:
        items += [_Item("legend entry", t, None) for t in leg.get_texts()] + [_Item("legend title", leg.get_title(), None)]
    for ax in fig.axes:
        if not ax.get_visible():
            continue
        for t in (ax.title, getattr(ax, "_left_title", None), getattr(ax, "_right_title", None)):
            if t is not None:
                items.append(_Item("title", t, ax))
        for name, axis in (("x", ax.xaxis), ("y", ax.yaxis)):
            if axis.get_visible():
                items.append(_Item(f"{name} axis label", axis.label, ax))
                items += [_Item(f"{name} tick label", t, ax) for t in _drawn_tick_labels(axis)]
        items += [_Item("text", t, ax) for t in ax.texts]
        leg = ax.get_legend()
        if leg is not None and leg.get_visible():
            items += [_Item("legend entry", t, ax) for t in leg.get_texts()] + [_Item("legend title", leg.get_title(), ax)]
    return [i for i in items if i.text.get_visible() and i.text.get_text().strip()]


def _measure(item: _Item, renderer) -> None:
    t = item.text
    item.box = t.get_window_extent(renderer)
    angle = t.get_rotation()
    b = item.box
    if abs(math.sin(math.radians(angle) * 2)) < 1e-6:  # 0 or 90 degrees: the box is the text's rectangle
        item.corners = np.array([[b.x0, b.y0], [b.x1, b.y0], [b.x1, b.y1], [b.x0, b.y1]])
        return
    # a turned text: its own rectangle, centred where its bounding box is centred
    t.set_rotation(0)
    flat = t.get_window_extent(renderer)
    t.set_rotation(angle)
    th = math.radians(angle)
    u = np.array([math.cos(th), math.sin(th)]) * flat.width / 2
    v = np.array([-math.sin(th), math.cos(th)]) * flat.height / 2
    c = np.array([(b.x0 + b.x1) / 2, (b.y0 + b.y1) / 2])
    item.corners = np.array([c - u - v, c + u - v, c + u + v, c - u + v])


def _overlap(a: np.ndarray, b: np.ndarray) -> bool:
    """Do two convex quadrilaterals share more than TOLERANCE pixels along every separating axis?"""
    for poly in (a, b):
        for k in range(4):
            edge = poly[(k + 1) % 4] - poly[k]
            normal = np.array([-edge[1], edge[0]])
            length = np.hypot(*normal)
            if length == 0:
                continue
            normal /= length
            pa, pb = a @ normal, b @ normal
            if min(pa.max(), pb.max()) - max(pa.min(), pb.min()) <= TOLERANCE:
                return False
    return True


def _find(fig) -> list[tuple[str, _Item, _Item | None, tuple]]:
    """(kind, text, other text, overflow px (left, right, bottom, top)) for every problem."""
    renderer = fig.canvas.get_renderer()
    width, height = fig.bbox.width, fig.bbox.height
    items = _text_items(fig)
    for i in items:
        _measure(i, renderer)
    found = []
    for i in items:
        b = i.box
        over = (max(0.0, -b.x0), max(0.0, b.x1 - width), max(0.0, -b.y0), max(0.0, b.y1 - height))
        if max(over) > TOLERANCE:
            found.append(("outside", i, None, over))
    if len(items) > 1:
        boxes = np.array([[i.box.x0, i.box.y0, i.box.x1, i.box.y1] for i in items])
        ox = np.minimum(boxes[:, None, 2], boxes[None, :, 2]) - np.maximum(boxes[:, None, 0], boxes[None, :, 0])
        oy = np.minimum(boxes[:, None, 3], boxes[None, :, 3]) - np.maximum(boxes[:, None, 1], boxes[None, :, 1])
        for p, q in zip(*np.nonzero(np.triu((ox > TOLERANCE) & (oy > TOLERANCE), k=1))):
            if _overlap(items[p].corners, items[q].corners):
                found.append(("overlap", items[p], items[q], (0.0, 0.0, 0.0, 0.0)))
    return found


def _message(title: str, kind: str, a: _Item, b: _Item | None, over: tuple) -> str:
    if kind == "outside":
        sides = ", ".join(f"{s} by {v:.0f} px" for s, v in zip(("left", "right", "bottom", "top"), over)
                          if v > TOLERANCE)
        return f"figure {title!r}: {a.describe()} lies outside the figure ({sides})"
    return f"figure {title!r}: {a.describe()} overlaps {b.describe()}"


# -- the fixes ----------------------------------------------------------------------------------------
_WRAPPABLE = {"title": "ax_width", "figure title": "fig_width", "x axis label": "ax_width", "y axis label": "ax_height"}


def _room_px(item: _Item) -> float:
    fig = item.text.get_figure(root=True)
    where = _WRAPPABLE[item.role]
    if where == "fig_width":
        return fig.bbox.width - 16
    pos = item.ax.get_window_extent()
    return pos.width if where == "ax_width" else pos.height


def _rewrap(item: _Item, room_px: float) -> bool:
    """Wrap a title or axis label to `room_px` pixels; False when it cannot get narrower."""
    t = item.text
    s = t.get_text()
    lines = s.split("\n")
    length = item.box.width if abs(math.sin(math.radians(t.get_rotation()))) < 0.5 else item.box.height
    longest = max(len(x) for x in lines)
    chars = max(6, int(longest * room_px / max(length, 1.0)) - 1)
    new = wrap(" ".join(x.strip() for x in lines), chars)
    if new == s or max(len(x) for x in new.split("\n")) >= longest:
        return False
    t.set_text(new)
    return True


def _shrink(text: Text) -> bool:
    size = text.get_fontsize()
    if size <= MIN_FONT:
        return False
    text.set_fontsize(max(MIN_FONT, size - 1))
    return True


def _shrink_ticks(ax, axis: str) -> bool:
    labels = _drawn_tick_labels(ax.xaxis if axis == "x" else ax.yaxis)
    size = max((t.get_fontsize() for t in labels), default=MIN_FONT)
    if size <= MIN_FONT:
        return False
    ax.tick_params(axis=axis, which="both", labelsize=max(MIN_FONT, size - 1))
    return True


def _turn_ticks(ax) -> bool:
    labels = _drawn_tick_labels(ax.xaxis)
    if not labels or labels[0].get_rotation():
        return False
    ax.tick_params(axis="x", which="both", labelrotation=30)
    for t in ax.get_xticklabels(which="both"):
        t.set_horizontalalignment("right")
        t.set_rotation_mode("anchor")
    return True


def _grow(fig, left: float, right: float, bottom: float, top: float) -> None:
    """Add margins (inches) around everything drawn, keeping each axes' size and place in inches."""
    w, h = fig.get_size_inches()
    nw, nh = w + left + right, h + bottom + top
    boxes = [(ax, ax.get_position()) for ax in fig.axes]
    fig.set_size_inches(nw, nh)
    for ax, p in boxes:
        ax.set_position([(p.x0 * w + left) / nw, (p.y0 * h + bottom) / nh, p.width * w / nw, p.height * h / nh])


def _scale(fig, fx: float, fy: float) -> None:
    """A larger figure, same fractions: every gap between axes grows, the type stays."""
    w, h = fig.get_size_inches()
    fig.set_size_inches(w * fx, h * fy)


def _fix(fig, problems) -> bool:
    """One round of repairs; True when something changed."""
    changed = False
    grow = np.zeros(4)
    done = set()  # (what, id) repaired this round: one step per thing per round
    scale = [1.0, 1.0]

    def once(key) -> bool:
        if key in done:
            return False
        done.add(key)
        return True

    for kind, a, b, over in problems:
        if kind == "outside":
            if a.role in _WRAPPABLE and once(("wrap", id(a.text))) and _rewrap(a, _room_px(a)):
                changed = True
                continue
            grow = np.maximum(grow, np.asarray(over) / DPI + 0.06)
            continue
        roles = {a.role, b.role}
        same_axes = a.ax is b.ax and a.ax is not None
        if roles == {"x tick label"} and same_axes:
            if once(("xticks", id(a.ax))):
                if _turn_ticks(a.ax) or _shrink_ticks(a.ax, "x"):
                    changed = True
                else:
                    scale[0] = 1.2
            continue
        if roles == {"y tick label"} and same_axes:
            if once(("yticks", id(a.ax))):
                if _shrink_ticks(a.ax, "y"):
                    changed = True
                else:
                    scale[1] = 1.2
            continue
        wrappable = [i for i in (a, b) if i.role in _WRAPPABLE]
        if wrappable and once(("wrap", id(wrappable[0].text))) and _rewrap(wrappable[0], 0.8 * _room_px(wrappable[0])):
            changed = True
            continue
        shrunk = False
        for i in (a, b):
            if i.role.endswith("tick label"):
                if once((i.role, id(i.ax))):
                    shrunk |= _shrink_ticks(i.ax, i.role[0])
            elif once(("font", id(i.text))):
                shrunk |= _shrink(i.text)
        if shrunk:
            changed = True
        else:
            scale = [max(scale[0], 1.15), max(scale[1], 1.15)]
    if grow.any():
        w, _h = fig.get_size_inches()
        if w + grow[0] + grow[1] <= GROW_LIMIT:
            _grow(fig, *grow)
            changed = True
    if scale != [1.0, 1.0] and fig.get_size_inches()[0] * scale[0] <= GROW_LIMIT:
        _scale(fig, *scale)
        changed = True
    return changed


def _wrap_titles(fig) -> None:
    """Wrap titles and axis labels to the room they have before the first draw (estimated widths;
    the check re-wraps on measured ones)."""
    w, h = fig.get_size_inches()
    sup = getattr(fig, "_suptitle", None)
    if sup is not None and sup.get_text():
        sup.set_text(_wrap_in(sup.get_text(), w - 0.3, sup.get_fontsize()))
    for ax in fig.axes:
        if not ax.get_visible():
            continue
        p = ax.get_position()
        for t, room in ((ax.title, p.width * w), (ax.xaxis.label, p.width * w), (ax.yaxis.label, p.height * h)):
            if t.get_text():
                t.set_text(_wrap_in(t.get_text(), room, t.get_fontsize()))




def _png(fig, title: str, alt: str) -> ReportFigure:
    """Lay out, check and encode a figure: see the module docstring."""
    _wrap_titles(fig)
    problems = []
    for round_ in range(ROUNDS + 1):
        fig.canvas.draw()
        problems = _find(fig)
        if not problems or round_ == ROUNDS or not _fix(fig, problems):
            break
    if problems:
        messages = [_message(title, *p) for p in problems]
        if _strict():
            raise FigureLayoutError("; ".join(messages))
        _PROBLEMS.extend(messages)
    buf = io.BytesIO()
    # the canvas was drawn by the last check: encode it as savefig would, without drawing it again
    _image.imsave(buf, np.asarray(fig.canvas.buffer_rgba()), format="png", origin="upper", dpi=DPI,
           metadata={"Software": None})
    return ReportFigure(title=title, png=buf.getvalue(), alt=alt or title)


# -- helpers for the plots ----------------------------------------------------------------------------
def _unique(frame: pl.DataFrame, col: str) -> list:
    return frame[col].unique(maintain_order=True).to_list()


def _err(est: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    lo = np.where(np.isfinite(lo), lo, est)
    hi = np.where(np.isfinite(hi), hi, est)
    return np.vstack([np.maximum(est - lo, 0), np.maximum(hi - est, 0)])


def _ref_values(frame: pl.DataFrame, ref: str | float | None) -> np.ndarray | None:
    """One reference value per row: a column's values or the one number, None without a reference."""
    if ref is None:
        return None
    if isinstance(ref, str):
        return frame[ref].to_numpy().astype(float)
    return np.full(frame.height, float(ref))


def _luminance(rgba) -> float:
    """Relative luminance of an sRGB colour (WCAG 2)."""
    lin = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in rgba[:3]]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def text_color(rgba) -> str:
    """Black or white, whichever contrasts more with the background colour `rgba`."""
    lum = _luminance(rgba)
    return "black" if (lum + 0.05) / 0.05 >= 1.05 / (lum + 0.05) else "white"


# -- the plots ----------------------------------------------------------------------------------------
@_drawn
def interval_bars(frame: pl.DataFrame, x: str, y: str, lo: str, hi: str, *, hue: str | None = None,
                  ref: str | float | None = None, ref_label: str = "fair share", xlabel: str = "",
                  ylabel: str = "", title: str = "", percent: bool = True) -> ReportFigure:
    """Bars of ``y`` per ``x`` (grouped by ``hue``) with [lo, hi] error bars. ``ref`` (a column or one
    number) is each bar's own reference, e.g. its fair share: a black mark across that bar."""
    xs = _unique(frame, x)
    hues = _unique(frame, hue) if hue else [None]
    colors = palette(len(hues))
    width = 0.8 / len(hues)
    names = [str(h) for h in hues if h is not None] + ([ref_label] if ref is not None else [])
    legend_w, legend_h = _legend_size(names) if names else (0.2, 0.0)
    bar_in = max(0.12, min(0.45, 0.45 if len(hues) == 1 else 0.3))
    fig_w = min(MAX_WIDTH, max(5.0, 0.9 + legend_w + bar_in * len(xs) * len(hues) + 0.2 * len(xs)))
    ticks = _plan_ticks(xs, (fig_w - 0.9 - legend_w) / max(len(xs), 1))
    bottom = 0.25 + ticks.height + (0.2 if xlabel else 0.0)
    fig, axes = _new(fig_w, max(2.9, 0.5 + bottom + legend_h), left=0.9, bottom=bottom, right=legend_w)
    ax = axes[0, 0]
    refs = _ref_values(frame, ref)
    marked = False
    for k, h in enumerate(hues):
        keep = np.ones(frame.height, dtype=bool) if h is None else (frame[hue] == h).to_numpy()
        part = frame.filter(pl.Series(keep))
        pos = np.array([xs.index(v) for v in part[x].to_list()], dtype=float) + (k - (len(hues) - 1) / 2) * width
        est = part[y].to_numpy().astype(float)
        ax.bar(pos, est, width=width * 0.92, color=colors[k], label=None if h is None else str(h),
               yerr=_err(est, part[lo].to_numpy().astype(float), part[hi].to_numpy().astype(float)),
               capsize=min(3.0, 40 * width), error_kw={"elinewidth": 1.2, "ecolor": "#222"})
        if refs is not None:
            r = refs[keep]
            ok = np.isfinite(r)
            if ok.any():
                ax.hlines(r[ok], pos[ok] - width * 0.5, pos[ok] + width * 0.5, colors=MARK_COLOR, linewidth=2.2,
                          zorder=3, label=None if marked else ref_label)
                marked = True
    ticks.apply(ax)
    ax.set_xlim(-0.6, len(xs) - 0.4)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if percent:
        ax.yaxis.set_major_formatter(_percent())
    ax.set_title(title, fontsize=10)
    if hue or marked:
        ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    ax.grid(axis="y", alpha=0.3)
    return _png(fig, title, f"{title}: bars with 95% intervals" + (f", a black mark at each bar's {ref_label}"
                                                                   if marked else ""))


@_drawn
def stacked_bars(labels: list[str], segments: list[tuple[str, list[float]]], *, ylabel: str = "",
                 title: str = "", alt: str = "stacked bars") -> ReportFigure:
    """One bar per label, stacked from `segments` ((name, one height per label), bottom first)."""
    legend_w, legend_h = _legend_size([name for name, _ in segments])
    fig_w = min(MAX_WIDTH, max(5.0, 1.6 + legend_w + 0.55 * len(labels)))
    ticks = _plan_ticks(labels, (fig_w - 0.8 - legend_w) / max(len(labels), 1))
    bottom = 0.25 + ticks.height
    fig, axes = _new(fig_w, max(3.0 + bottom, 0.5 + bottom + legend_h), left=0.8, bottom=bottom, right=legend_w)
    ax = axes[0, 0]
    colors = palette(len(segments))
    base = np.zeros(len(labels))
    for k, (name, heights) in enumerate(segments):
        heights = np.asarray(heights, dtype=float)
        ax.bar(range(len(labels)), heights, bottom=base, width=0.7, label=name, color=colors[k])
        base += heights
    ticks.apply(ax)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    ax.grid(axis="y", alpha=0.3)
    return _png(fig, title, f"{title}: {alt}")


@_drawn
def forest(frame: pl.DataFrame, label: str, est: str, lo: str, hi: str, *, panel: str | None = None,
           lo2: str | None = None, hi2: str | None = None, ref: float | str | None = 0.0,
           xlabel: str = "", title: str = "", percent: str | None = None,
           legend: tuple[str, str] = ("paired", "unpaired")) -> ReportFigure:
    """Estimates as points with horizontal error bars, one row per ``label``, small multiples by
    ``panel`` (each with its own x axis). Optional second, thinner grey interval [lo2, hi2].

    ``ref`` (one number or a column): a dashed line where a panel's rows share one value, else a
    dashed mark on each row at its own value. ``percent`` names a boolean column (or is 'all')
    saying that a row is a share: drawn in percentage points when ``ref`` is 0 (a difference), in
    percent otherwise."""
    panels = _unique(frame, panel) if panel else [None]
    ncols = len(panels) if len(panels) <= 4 else 3  # up to four side by side: one row, the height of its rows
    nrows = math.ceil(len(panels) / ncols)
    raw = _unique(frame, label)
    single = len(raw) == 1 and panel is not None  # one row: say which in the title, not on every panel
    shown = [wrap(str(v), 30) for v in raw]
    lines = max((s.count("\n") + 1 for s in shown), default=1)
    lw = 0.3 if single else _label_width(shown)
    row_h = max(0.3, lines * _line_in(8) + 0.08)
    axes_h = max(0.55, row_h * len(raw) + 0.15)
    hspace, top, bottom = 0.8, 0.75 if lo2 else 0.55, 0.6
    # every panel has the same rows in the same order: their names once, left of the first column
    gap = 0.35
    panel_w = min(3.2, max(1.8, (MAX_WIDTH - lw - 0.25 - gap * (ncols - 1)) / ncols))
    width = lw + 0.25 + ncols * panel_w + gap * (ncols - 1) if ncols > 1 else max(6.5, lw + 4.5)
    fig, axes = _new(width, top + bottom + axes_h * nrows + hspace * (nrows - 1), nrows, ncols,
                     left=lw, right=0.25, wspace=gap, hspace=hspace, top=top, bottom=bottom)
    for p_i, p in enumerate(panels):
        ax = axes[p_i // ncols, p_i % ncols]
        part = frame if p is None else frame.filter(pl.col(panel) == p)
        ys = np.array([raw.index(v) for v in part[label].to_list()], dtype=float)
        e = part[est].to_numpy().astype(float)
        if lo2 and hi2:
            ax.errorbar(e, ys + 0.2, xerr=_err(e, part[lo2].to_numpy().astype(float), part[hi2].to_numpy().astype(float)),
                        fmt="o", markersize=3, color="#999", elinewidth=1, capsize=2, label=legend[1])
        ax.errorbar(e, ys, xerr=_err(e, part[lo].to_numpy().astype(float), part[hi].to_numpy().astype(float)),
                    fmt="o", markersize=5, color=palette(1)[0], elinewidth=2, capsize=3, label=legend[0])
        refs = _ref_values(part, ref)
        if refs is not None and np.isfinite(refs).any():
            values = np.unique(refs[np.isfinite(refs)])
            if len(values) == 1:
                ax.axvline(values[0], color="#555", linestyle="--", linewidth=1)
            else:
                ok = np.isfinite(refs)
                ax.vlines(refs[ok], ys[ok] - 0.38, ys[ok] + 0.38, colors="#555", linestyles="--", linewidth=1.4)
        if single:
            ax.set_yticks([])
        elif p_i % ncols == 0:
            ax.set_yticks(range(len(raw)), shown, fontsize=8)
        else:
            ax.set_yticks(range(len(raw)), [""] * len(raw))
        ax.set_ylim(len(raw) - 0.5, -0.5)
        is_pct = percent == "all" or bool(percent and part.height and part[percent].all())
        diff = is_pct and ref == 0.0
        if is_pct:
            ax.xaxis.set_major_formatter(_points() if diff else _percent())
        ax.xaxis.set_major_locator(_ticker.MaxNLocator(5))
        ax.tick_params(axis="x", labelsize=8)
        name = xlabel if p is None else str(p)
        ax.set_xlabel(name + (" (points)" if diff else ""), fontsize=9)
        ax.grid(axis="x", alpha=0.3)
    for p_i in range(len(panels), nrows * ncols):
        axes[p_i // ncols, p_i % ncols].set_visible(False)
    if lo2 and hi2:
        handles, names = axes[0, 0].get_legend_handles_labels()
        fig.legend(handles[::-1], names[::-1], loc="upper right", ncols=2, fontsize=8, frameon=False)
    full = f"{title}: {raw[0]}" if single else title
    sup = fig.suptitle(full, fontsize=10, x=0.02 if lo2 else 0.5, ha="left" if lo2 else "center")
    if lo2 and hi2:  # the legend sits at the top right: the title keeps left of it
        sup.set_text(_wrap_in(full, width - 0.3 - _legend_size(["paired", "unpaired"])[0] * 2, 10))
    return _png(fig, full, f"{full}: estimates with 95% intervals")


@_drawn
def histograms(frame: pl.DataFrame, value: str, count: str, *, hue: str, panel: str | None = None,
               xlabel: str = "", title: str = "", max_bins: int = 40) -> ReportFigure:
    """Step histograms from value counts (share of games per bin), one line per ``hue``, small
    multiples by ``panel`` (each with its own range). Integer values get integer-aligned bins."""
    panels = _unique(frame, panel) if panel else [None]
    ncols = min(3, len(panels))
    nrows = math.ceil(len(panels) / ncols)
    hues = _unique(frame, hue)
    colors = palette(len(hues))
    outside = len(hues) > 5  # many lines: the legend beside the panels, not over the first one
    legend_w, legend_h = _legend_size([str(h) for h in hues], 7, hue) if outside else (0.2, 0.0)
    width = min(MAX_WIDTH, (4.2 * ncols if ncols > 1 else 6.5) + (legend_w if outside else 0.0))
    fig, axes = _new(width, max(2.5 * nrows + 0.3, legend_h + 1.2), nrows, ncols,
                     left=0.75, wspace=0.8, top=0.6, hspace=0.9, right=legend_w)
    for p_i, p in enumerate(panels):
        ax = axes[p_i // ncols, p_i % ncols]
        part = frame if p is None else frame.filter(pl.col(panel) == p)
        vals = part[value].drop_nulls().to_numpy().astype(float)
        vmin, vmax = (float(vals.min()), float(vals.max())) if vals.size else (0.0, 1.0)
        # integers on a lattice (Wizard points: multiples of 10) get bins of whole lattice steps
        whole = vals.size and np.all(vals == np.round(vals))
        unit = float(np.gcd.reduce((vals - vmin).astype(np.int64))) if whole else 0.0
        unit = unit or 1.0
        step = unit * max(1.0, math.ceil((vmax - vmin + unit) / unit / max_bins))
        edges = np.arange(vmin - unit / 2, vmax + step + unit / 2, step)
        ax.xaxis.set_major_locator(_ticker.MaxNLocator(nbins=6 if ncols > 1 else 8, integer=True))
        for k, h in enumerate(hues):
            sub = part.filter((pl.col(hue) == h) & pl.col(value).is_not_null())
            if sub.height == 0:
                continue
            weights = sub[count].to_numpy().astype(float)
            hist, _ = np.histogram(sub[value].to_numpy().astype(float), bins=edges, weights=weights / weights.sum())
            ax.stairs(hist, edges, label=str(h), color=colors[k], linewidth=1.4)
        ax.set_xlabel(xlabel, fontsize=9)
        ax.set_ylabel("share of games", fontsize=9)
        ax.yaxis.set_major_formatter(_percent())
        ax.tick_params(labelsize=8)
        if p is not None:
            ax.set_title(str(p), fontsize=9)
        ax.grid(alpha=0.3)
        if p_i == 0 and outside:
            handles = [_lines.Line2D([], [], color=colors[k], linewidth=1.4) for k in range(len(hues))]
            fig.legend(handles, [str(h) for h in hues], fontsize=7, title=hue, title_fontsize=7, frameon=False,
                       loc="upper right", bbox_to_anchor=(1.0, 1 - 0.55 / fig.get_size_inches()[1]))
        elif p_i == 0:
            ax.legend(fontsize=7, loc="best", title=hue, title_fontsize=7)
    for p_i in range(len(panels), nrows * ncols):
        axes[p_i // ncols, p_i % ncols].set_visible(False)
    fig.suptitle(title, fontsize=10)
    return _png(fig, title, f"{title}: histogram")


def _same_order(rows: list, cols: list) -> tuple[list, list]:
    """Rows and columns in one order (first appearance among rows, then columns), so that a player
    has the same place across and down: the diagonal is the player against itself."""
    order = list(dict.fromkeys(rows + cols))
    return [v for v in order if v in set(rows)], [v for v in order if v in set(cols)]


@_drawn
def heatmap(frame: pl.DataFrame, row: str, col: str, value: str, lo: str, hi: str, *, title: str = "",
            xlabel: str = "", ylabel: str = "", center: float = 0.5) -> ReportFigure:
    """Matrix of shares (row against col) annotated with estimate and interval; empty cells blank.
    Rows and columns share one order; cell text is black or white for contrast with its cell."""
    rows, cols = _same_order(_unique(frame, row), _unique(frame, col))
    grid = np.full((len(rows), len(cols)), np.nan)
    text = {}
    for r in frame.iter_rows(named=True):
        i, j = rows.index(r[row]), cols.index(r[col])
        grid[i, j] = r[value]
        text[i, j] = f"{r[value] * 100:.1f}%\n({r[lo] * 100:.1f}-{r[hi] * 100:.1f})"
    cell = 1.2
    col_ticks = _plan_ticks(cols, cell)
    row_labels = [wrap(str(v), 24) for v in rows]
    lw = _label_width(row_labels) + (0.3 if ylabel else 0.0)
    bottom = 0.3 + col_ticks.height + (0.25 if xlabel else 0.0)
    fig, axes = _new(lw + 1.4 + cell * len(cols), bottom + 0.55 + 0.7 * len(rows), left=lw + 0.2, right=1.2,
                     bottom=bottom, top=0.55)
    ax = axes[0, 0]
    span = np.nanmax(np.abs(grid - center)) if np.isfinite(grid).any() else 0.1
    span = max(span, 0.05)
    im = ax.imshow(grid, cmap="RdBu", vmin=center - span, vmax=center + span, aspect="auto")
    for (i, j), t in text.items():
        ax.text(j, i, t, ha="center", va="center", fontsize=8, color=text_color(im.cmap(im.norm(grid[i, j]))))
    col_ticks.apply(ax)
    ax.set_yticks(range(len(rows)), row_labels, fontsize=8)
    ax.set_xlabel(xlabel, fontsize=9)
    ax.set_ylabel(ylabel, fontsize=9)
    cb = fig.colorbar(im, ax=ax, shrink=0.8)
    cb.ax.yaxis.set_major_formatter(_percent())
    cb.ax.tick_params(labelsize=8)
    ax.set_title(title, fontsize=10)
    return _png(fig, title, f"{title}: matrix of shares with 95% intervals")


@_drawn
def reliability(frame: pl.DataFrame, stated: str, observed: str, lo: str, hi: str, *, hue: str | None = None,
                title: str = "", xlabel: str = "stated probability", ylabel: str = "observed frequency"
                ) -> ReportFigure:
    """A reliability diagram: observed frequency (with [lo, hi] bars) against the stated probability of
    each bin, one line per ``hue``, and the diagonal a calibrated forecaster follows."""
    hues = _unique(frame, hue) if hue else [None]
    colors = palette(len(hues))
    legend_w, legend_h = _legend_size([str(h) for h in hues] + ["calibrated"])
    fig, axes = _new(4.2 + legend_w, max(3.8, legend_h + 1.2), left=0.8, bottom=0.6, right=legend_w)
    ax = axes[0, 0]
    ax.plot([0, 1], [0, 1], color="#555", linestyle="--", linewidth=1, label="calibrated")
    for k, h in enumerate(hues):
        part = (frame if h is None else frame.filter(pl.col(hue) == h)).sort(stated)
        x = part[stated].to_numpy().astype(float)
        y = part[observed].to_numpy().astype(float)
        ax.errorbar(x, y, yerr=_err(y, part[lo].to_numpy().astype(float), part[hi].to_numpy().astype(float)),
                    marker="o", markersize=3.5, capsize=2.5, linewidth=1.2, color=colors[k],
                    label=None if h is None else str(h))
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.xaxis.set_major_formatter(_percent())
    ax.yaxis.set_major_formatter(_percent())
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    ax.grid(alpha=0.3)
    return _png(fig, title, f"{title}: observed frequency against stated probability, with 95% intervals")


@_drawn
def interval_lines(frame: pl.DataFrame, x: str, y: str, lo: str, hi: str, *, hue: str | None = None,
                   ref: str | None = None, ref_label: str = "", xlabel: str = "", ylabel: str = "",
                   title: str = "", percent: bool = True) -> ReportFigure:
    """``y`` along a numeric ``x`` (e.g. the cards of a round), one line with [lo, hi] error bars per
    ``hue``; a row per x costs no height. ``ref`` (a column, one value per hue) is drawn as a dashed
    line across the plot in the hue's colour, e.g. the hue's overall rate."""
    hues = _unique(frame, hue) if hue else [None]
    colors = palette(len(hues))
    xs = sorted({float(v) for v in frame[x].to_list()})
    names = [str(h) for h in hues if h is not None] + ([ref_label] if ref and ref_label else [])
    legend_w, legend_h = _legend_size(names) if names else (0.2, 0.0)
    fig_w = min(MAX_WIDTH, max(5.5, 1.1 + legend_w + 0.32 * len(xs)))
    bottom = 0.6 + (0.2 if xlabel else 0.0)
    fig, axes = _new(fig_w, max(3.0, 0.5 + bottom + legend_h), left=0.9, bottom=bottom, right=legend_w)
    ax = axes[0, 0]
    step = min(np.diff(xs)) if len(xs) > 1 else 1.0
    dodge = step * 0.12
    for k, h in enumerate(hues):
        part = (frame if h is None else frame.filter(pl.col(hue) == h)).sort(x)
        pos = part[x].to_numpy().astype(float) + (k - (len(hues) - 1) / 2) * dodge
        est = part[y].to_numpy().astype(float)
        ax.errorbar(pos, est, yerr=_err(est, part[lo].to_numpy().astype(float), part[hi].to_numpy().astype(float)),
                    marker="o", markersize=3.5, capsize=2.5, linewidth=1.3, color=colors[k],
                    label=None if h is None else str(h))
        if ref:
            values = part[ref].drop_nulls().unique().to_list()
            if len(values) == 1:
                ax.axhline(values[0], color=colors[k], linestyle="--", linewidth=1)
    if ref and ref_label:
        ax.plot([], [], color="#555", linestyle="--", linewidth=1, label=ref_label)
    ax.xaxis.set_major_locator(_ticker.MaxNLocator(nbins=min(len(xs), 16), integer=True))
    ax.tick_params(labelsize=8)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if percent:
        ax.yaxis.set_major_formatter(_percent())
    ax.set_title(title, fontsize=10)
    if names:
        ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    ax.grid(alpha=0.3)
    return _png(fig, title, f"{title}: estimates with 95% intervals along {xlabel or x}"
                + (f", dashed lines: {ref_label}" if ref and ref_label else ""))
