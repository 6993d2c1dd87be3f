"""Plots for reports: matplotlib's object API on the Agg canvas, PNG bytes out.

Thin functions over a Polars frame that a section built once; intervals are error bars. No pyplot,
so nothing global is touched and no display is needed.
"""
from __future__ import annotations

import contextlib
import functools
import io
import math

import matplotlib
import numpy as np
import polars as pl
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, MaxNLocator, PercentFormatter

from reports.model import Figure as ReportFigure

DPI = 100
COLORS = matplotlib.rcParams["axes.prop_cycle"].by_key()["color"]


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


def _percent() -> PercentFormatter:
    """Shares as percent (a new formatter per axis: formatters are bound to one axis)."""
    return PercentFormatter(xmax=1.0)


def _points() -> FuncFormatter:
    """Differences of shares as signed percentage points."""
    return FuncFormatter(lambda v, _pos: "0" if abs(v) < 1e-12 else f"{v * 100:+.3g}")


def _new(width: float, height: float, nrows: int = 1, ncols: int = 1, *, left: float = 0.8, right: float = 0.2,
         bottom: float = 0.55, top: float = 0.45, wspace: float = 0.6, hspace: float = 0.7, **kw):
    """Figure and axes grid with margins in inches (fixed layout: constrained layout costs a second
    draw per figure, which dominated report time)."""
    fig = Figure(figsize=(width, height), dpi=DPI)
    FigureCanvasAgg(fig)
    axes = fig.subplots(nrows, ncols, squeeze=False, **kw)
    cell_w = max((width - left - right - wspace * (ncols - 1)) / ncols, 0.5)
    cell_h = max((height - top - bottom - hspace * (nrows - 1)) / nrows, 0.3)
    fig.subplots_adjust(left=left / width, right=1 - right / width, bottom=bottom / height, top=1 - top / height,
                        wspace=wspace / cell_w, hspace=hspace / cell_h)
    return fig, axes


def _label_width(labels, fontsize: float = 8) -> float:
    """Inches needed for the longest tick label (about 0.6 em per character)."""
    longest = max((len(str(v)) for v in labels), default=1)
    return 0.25 + longest * fontsize * 0.6 / 72


def _png(fig, title: str, alt: str) -> ReportFigure:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=DPI, metadata={"Software": None})
    return ReportFigure(title=title, png=buf.getvalue(), alt=alt or title)


def _unique(frame: pl.DataFrame, col: str) -> list:
    return frame[col].unique(maintain_order=True).to_list()


def _err(est: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    lo = np.where(np.isfinite(lo), lo, est)
    hi = np.where(np.isfinite(hi), hi, est)
    return np.vstack([np.maximum(est - lo, 0), np.maximum(hi - est, 0)])


@_drawn
def interval_bars(frame: pl.DataFrame, x: str, y: str, lo: str, hi: str, *, hue: str | None = None,
                  ref: str | float | None = None, ref_label: str = "fair share", xlabel: str = "",
                  ylabel: str = "", title: str = "", percent: bool = True) -> ReportFigure:
    """Bars of ``y`` per ``x`` (grouped by ``hue``) with [lo, hi] error bars and a reference line."""
    xs = _unique(frame, x)
    hues = _unique(frame, hue) if hue else [None]
    width = 0.8 / len(hues)
    legend_w = _label_width(hues + [ref_label], 8) + 0.5 if (hue or ref is not None) else 0.2
    fig, axes = _new(max(5.0, 1.2 + legend_w + 0.45 * len(xs) * len(hues)), 3.4, left=0.8, bottom=0.6,
                     right=legend_w)
    ax = axes[0, 0]
    for k, h in enumerate(hues):
        part = frame if h is None else frame.filter(pl.col(hue) == h)
        pos = np.array([xs.index(v) for v in part[x].to_list()], dtype=float) + (k - (len(hues) - 1) / 2) * width
        est = part[y].to_numpy().astype(float)
        ax.bar(pos, est, width=width * 0.92, color=COLORS[k % len(COLORS)], label=None if h is None else str(h),
               yerr=_err(est, part[lo].to_numpy().astype(float), part[hi].to_numpy().astype(float)),
               capsize=3, error_kw={"elinewidth": 1.2, "ecolor": "#222"})
    refs = sorted(set(frame[ref].to_list())) if isinstance(ref, str) else ([] if ref is None else [ref])
    for i, r in enumerate(refs):
        ax.axhline(r, color="#555", linestyle="--", linewidth=1, label=ref_label if i == 0 else None)
    ax.set_xticks(range(len(xs)), [str(v) for v in xs])
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if percent:
        ax.yaxis.set_major_formatter(_percent())
    ax.set_title(title, fontsize=10)
    if hue or refs:
        ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    ax.grid(axis="y", alpha=0.3)
    return _png(fig, title, f"{title}: bars with 95% intervals")


@_drawn
def stacked_bars(labels: list[str], segments: list[tuple[str, list[float]]], *, ylabel: str = "",
                 title: str = "", alt: str = "stacked bars") -> ReportFigure:
    """One bar per label, stacked from `segments` ((name, one height per label), bottom first)."""
    legend_w = _label_width([name for name, _ in segments], 8) + 0.5
    bottom_in = 0.45 + 0.04 * max(len(x) for x in labels)  # labels slanted at 30 degrees
    fig, axes = _new(max(5.0, 1.6 + legend_w + 0.55 * len(labels)), 3.0 + bottom_in,
                     left=0.8, bottom=bottom_in, right=legend_w)
    ax = axes[0, 0]
    base = np.zeros(len(labels))
    for k, (name, heights) in enumerate(segments):
        heights = np.asarray(heights, dtype=float)
        ax.bar(range(len(labels)), heights, bottom=base, width=0.7, label=name,
               color=COLORS[k % len(COLORS)])
        base += heights
    ax.set_xticks(range(len(labels)), labels, rotation=30, ha="right", fontsize=8)
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

    ``percent`` names a boolean column (or is 'all') saying that a row is a share: drawn in
    percentage points when ``ref`` is 0 (a difference), in percent otherwise."""
    panels = _unique(frame, panel) if panel else [None]
    ncols = 1 if len(panels) == 1 else 2 if len(panels) <= 4 else 3
    nrows = math.ceil(len(panels) / ncols)
    labels = _unique(frame, label)
    single = len(labels) == 1 and panel is not None  # one row: say which in the title, not on every panel
    lw = 0.3 if single else _label_width(labels)
    axes_h = max(0.55, 0.3 * len(labels) + 0.15)
    hspace, top, bottom = 0.75, 0.75 if lo2 else 0.5, 0.55
    width = (lw + 3.2) * ncols + 0.2 if ncols > 1 else max(6.5, lw + 4.5)
    fig, axes = _new(width, top + bottom + axes_h * nrows + hspace * (nrows - 1), nrows, ncols,
                     left=lw, wspace=lw + 0.35, hspace=hspace, top=top, bottom=bottom)
    for p_i, p in enumerate(panels):
        ax = axes[p_i // ncols, p_i % ncols]
        part = frame if p is None else frame.filter(pl.col(panel) == p)
        ys = np.array([labels.index(v) for v in part[label].to_list()], dtype=float)
        e = part[est].to_numpy().astype(float)
        if lo2 and hi2:
            ax.errorbar(e, ys + 0.2, xerr=_err(e, part[lo2].to_numpy().astype(float), part[hi2].to_numpy().astype(float)),
                        fmt="o", markersize=3, color="#999", elinewidth=1, capsize=2, label=legend[1])
        ax.errorbar(e, ys, xerr=_err(e, part[lo].to_numpy().astype(float), part[hi].to_numpy().astype(float)),
                    fmt="o", markersize=5, color=COLORS[0], elinewidth=2, capsize=3, label=legend[0])
        refs = ([ref] if not isinstance(ref, str) else sorted(set(part[ref].to_list()))) if ref is not None else []
        for r in refs:
            ax.axvline(r, color="#555", linestyle="--", linewidth=1)
        if single:
            ax.set_yticks([])
        else:
            ax.set_yticks(range(len(labels)), [str(v) for v in labels], fontsize=8)
        ax.set_ylim(len(labels) - 0.5, -0.5)
        is_pct = percent == "all" or bool(percent and part.height and part[percent].all())
        diff = is_pct and ref == 0.0
        if is_pct:
            ax.xaxis.set_major_formatter(_points() if diff else _percent())
        ax.xaxis.set_major_locator(MaxNLocator(5))
        ax.tick_params(axis="x", labelsize=8)
        name = xlabel if p is None else str(p)
        ax.set_xlabel(name + (" (points)" if diff else ""), fontsize=9)
        ax.grid(axis="x", alpha=0.3)
    for p_i in range(len(panels), nrows * ncols):
        axes[p_i // ncols, p_i % ncols].set_visible(False)
    if lo2 and hi2:
        handles, names = axes[0, 0].get_legend_handles_labels()
        fig.legend(handles[::-1], names[::-1], loc="upper right", ncols=2, fontsize=8, frameon=False)
    full = f"{title}: {labels[0]}" if single else title
    fig.suptitle(full, fontsize=10, x=0.02 if lo2 else 0.5, ha="left" if lo2 else "center")
    return _png(fig, full, f"{full}: estimates with 95% intervals")


@_drawn
def histograms(frame: pl.DataFrame, value: str, count: str, *, hue: str, panel: str | None = None,
               xlabel: str = "", title: str = "", max_bins: int = 40) -> ReportFigure:
    """Step histograms from value counts (share of games per bin), one line per ``hue``, small
    multiples by ``panel`` (each with its own range). Integer values get integer-aligned bins."""
    panels = _unique(frame, panel) if panel else [None]
    ncols = min(3, len(panels))
    nrows = math.ceil(len(panels) / ncols)
    fig, axes = _new(4.2 * ncols if ncols > 1 else 6.5, 2.8 * nrows + 0.3, nrows, ncols,
                     left=0.75, wspace=0.8, top=0.6, hspace=0.8)
    hues = _unique(frame, hue)
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
        ax.xaxis.set_major_locator(MaxNLocator(nbins=8, integer=True))
        for k, h in enumerate(hues):
            sub = part.filter((pl.col(hue) == h) & pl.col(value).is_not_null())
            if sub.height == 0:
                continue
            weights = sub[count].to_numpy().astype(float)
            hist, _ = np.histogram(sub[value].to_numpy().astype(float), bins=edges, weights=weights / weights.sum())
            ax.stairs(hist, edges, label=str(h), color=COLORS[k % len(COLORS)], linewidth=1.4)
        ax.set_xlabel(xlabel, fontsize=9)
        ax.set_ylabel("share of games", fontsize=9)
        ax.yaxis.set_major_formatter(_percent())
        if p is not None:
            ax.set_title(str(p), fontsize=9)
        ax.grid(alpha=0.3)
        if p_i == 0:
            ax.legend(fontsize=7, loc="best", title=hue, title_fontsize=7)
    for p_i in range(len(panels), nrows * ncols):
        axes[p_i // ncols, p_i % ncols].set_visible(False)
    fig.suptitle(title, fontsize=10)
    return _png(fig, title, f"{title}: histogram")


@_drawn
def heatmap(frame: pl.DataFrame, row: str, col: str, value: str, lo: str, hi: str, *, title: str = "",
            xlabel: str = "", ylabel: str = "", center: float = 0.5) -> ReportFigure:
    """Matrix of shares (row against col) annotated with estimate and interval; empty cells blank."""
    rows, cols = _unique(frame, row), _unique(frame, col)
    grid = np.full((len(rows), len(cols)), np.nan)
    text = {}
    for r in frame.iter_rows(named=True):
        i, j = rows.index(r[row]), cols.index(r[col])
        grid[i, j] = r[value]
        text[i, j] = f"{r[value] * 100:.1f}%\n({r[lo] * 100:.1f}-{r[hi] * 100:.1f})"
    lw = _label_width(rows)
    fig, axes = _new(lw + 1.4 + 1.3 * len(cols), 1.1 + 0.75 * len(rows), left=lw + 0.2, right=1.2, bottom=0.6,
                     top=0.4)
    ax = axes[0, 0]
    span = np.nanmax(np.abs(grid - center)) if np.isfinite(grid).any() else 0.1
    span = max(span, 0.05)
    im = ax.imshow(grid, cmap="RdBu", vmin=center - span, vmax=center + span)
    for (i, j), t in text.items():
        ax.text(j, i, t, ha="center", va="center", fontsize=8)
    ax.set_xticks(range(len(cols)), [str(c) for c in cols], fontsize=8)
    ax.set_yticks(range(len(rows)), [str(r) for r in rows], fontsize=8)
    ax.set_xlabel(xlabel, fontsize=9)
    ax.set_ylabel(ylabel, fontsize=9)
    cb = fig.colorbar(im, ax=ax, shrink=0.8)
    cb.ax.yaxis.set_major_formatter(_percent())
    ax.set_title(title, fontsize=10)
    return _png(fig, title, f"{title}: matrix of shares with 95% intervals")


@_drawn
def reliability(frame: pl.DataFrame, stated: str, observed: str, lo: str, hi: str, *, hue: str | None = None,
                title: str = "", xlabel: str = "stated probability", ylabel: str = "observed frequency"
                ) -> ReportFigure:
    """A reliability diagram: observed frequency (with [lo, hi] bars) against the stated probability of
    each bin, one line per ``hue``, and the diagonal a calibrated forecaster follows."""
    hues = _unique(frame, hue) if hue else [None]
    legend_w = _label_width([str(h) for h in hues] + ["calibrated"], 8) + 0.5
    fig, axes = _new(4.2 + legend_w, 3.8, left=0.8, bottom=0.6, right=legend_w)
    ax = axes[0, 0]
    ax.plot([0, 1], [0, 1], color="#555", linestyle="--", linewidth=1, label="calibrated")
    for k, h in enumerate(hues):
        part = (frame if h is None else frame.filter(pl.col(hue) == h)).sort(stated)
        x = part[stated].to_numpy().astype(float)
        y = part[observed].to_numpy().astype(float)
        ax.errorbar(x, y, yerr=_err(y, part[lo].to_numpy().astype(float), part[hi].to_numpy().astype(float)),
                    marker="o", markersize=3.5, capsize=2.5, linewidth=1.2, color=COLORS[k % len(COLORS)],
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
