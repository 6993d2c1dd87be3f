"""Figures of sweeps: a measure along a swept parameter (points with their intervals, the fitted curve
and its band, the target line and the values not excluded), and a heat map over two parameters.

Built on reports/plots.py: its figure grid, layout check and formatters.
"""
from __future__ import annotations

import numpy as np

from reports.model import Figure as ReportFigure
from reports.plots import MARK_COLOR, _drawn, _err, _new, _percent, _png, _points, palette, text_color

KEPT_COLOR = "#2a9d8f"


def _formatter(measure: str, share: bool):
    if measure == "seat0_edge":
        return _points()
    return _percent() if share else None


@_drawn
def target_curve(d: dict, *, share: bool, title: str) -> ReportFigure:
    """One target question's curve: ``d`` is its answer's data (reports/answers.answer_target)."""
    xs = np.array([float(p["at"]) for p in d["curve"]])
    est = np.array([p["estimate"] for p in d["curve"]], dtype=float)
    lo = np.array([p["lo"] for p in d["curve"]], dtype=float)
    hi = np.array([p["hi"] for p in d["curve"]], dtype=float)
    fx = np.array(d["fitted"]["at"], dtype=float)
    f = np.array(d["fitted"]["value"], dtype=float)
    band = 1.959963984540054 * np.array(d["fitted"]["se"], dtype=float)
    fig, axes = _new(7.2, 3.6, left=0.95, right=2.3, bottom=0.6)
    ax = axes[0, 0]
    color = palette(1)[0]
    ax.fill_between(fx, f - band, f + band, color=color, alpha=0.18, linewidth=0, label="fitted curve, 95% band")
    ax.plot(fx, f, color=color, linewidth=1.4)
    ax.errorbar(xs, est, yerr=_err(est, lo, hi), fmt="o", color="#222", markersize=4, capsize=3,
                elinewidth=1.1, label="each value tried, 95% interval")
    ax.axhline(d["target"], color=MARK_COLOR, linestyle="--", linewidth=1.2, label=f"target {d['target']:g}")
    s = d["set"]
    if s["low"] is not None:
        ax.axvspan(s["low"], max(s["high"], s["low"] + 1e-3 * (xs[-1] - xs[0])), color=KEPT_COLOR, alpha=0.2,
                   label="values not excluded")
    if d["crossing"] is not None:
        ax.axvline(d["crossing"], color=KEPT_COLOR, linewidth=1.2, label=f"estimate {d['crossing']:.3g}")
    fmt = _formatter(d["measure"], share)
    if fmt is not None:
        ax.yaxis.set_major_formatter(fmt)
    ax.set_xlabel(d["parameter"])
    ax.set_ylabel(d["measure"] + (" (percentage points)" if d["measure"] == "seat0_edge" else ""))
    ax.set_title(title, fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    return _png(fig, title, f"{title}: each value tried with its 95% interval, the fitted curve with its band, "
                            "the target line and the values the games do not exclude")


@_drawn
def sweep_heatmap(rows: list, cols: list, grid: np.ndarray, *, row_name: str, col_name: str, measure: str,
                  share: bool, target: float | None, title: str) -> ReportFigure:
    """A measure over two swept parameters: one cell per point, its value written in it; with a
    target, the colours diverge from it (cells near the target are pale)."""
    cell_w = 0.85 if len(cols) <= 10 else 0.6
    fig, axes = _new(max(4.5, 1.6 + cell_w * len(cols) + 1.4), max(2.4, 1.3 + 0.45 * len(rows)),
                     left=1.2, right=1.4, bottom=0.7, top=0.5)
    ax = axes[0, 0]
    center = target if target is not None else float(np.nanmean(grid))
    span = max(float(np.nanmax(np.abs(grid - center))), 1e-9)
    im = ax.imshow(grid, cmap="RdBu_r", vmin=center - span, vmax=center + span, aspect="auto", origin="lower")
    scale = 100.0 if share else 1.0
    digits = 1 if share else (1 if np.nanmax(np.abs(grid)) < 100 else 0)
    for i in range(len(rows)):
        for j in range(len(cols)):
            if np.isfinite(grid[i, j]):
                v = grid[i, j] * scale
                label = f"{v:+.{digits}f}" if measure == "seat0_edge" else f"{v:.{digits}f}"
                ax.text(j, i, label, ha="center", va="center", fontsize=7 if len(cols) > 10 else 8,
                        color=text_color(im.cmap(im.norm(grid[i, j]))))
    ax.set_xticks(range(len(cols)), [str(c) for c in cols], fontsize=8)
    ax.set_yticks(range(len(rows)), [str(r) for r in rows], fontsize=8)
    ax.set_xlabel(col_name)
    ax.set_ylabel(row_name)
    cb = fig.colorbar(im, ax=ax, shrink=0.9)
    fmt = _formatter(measure, share)
    if fmt is not None:
        cb.ax.yaxis.set_major_formatter(fmt)
    cb.ax.tick_params(labelsize=8)
    ax.set_title(title, fontsize=10)
    unit = " (percentage points)" if measure == "seat0_edge" else " (%)" if share else ""
    return _png(fig, title, f"{title}: {measure}{unit} at every point of the sweep")


@_drawn
def measure_curves(panels: list[dict], *, parameter: str, title: str) -> ReportFigure:
    """Small multiples, one panel per measure: every curve of the sweep (per crossed arm or value of
    the other parameter) with each point's 95% interval. ``panels``: [{measure, share, target,
    curves: [(label, xs, est, lo, hi)]}]."""
    n = len(panels)
    labels = [c[0] for c in panels[0]["curves"]]
    colors = palette(max(len(labels), 1))
    fig, axes = _new(min(10.4, 1.0 + 3.3 * n + (1.8 if any(labels) else 0)), 3.2, 1, n, left=0.85,
                     right=2.0 if any(labels) else 0.2, bottom=0.6, top=0.55, wspace=0.85)
    for ax, panel in zip(axes[0], panels):
        for k, (label, xs, est, lo, hi) in enumerate(panel["curves"]):
            xs, est = np.asarray(xs, dtype=float), np.asarray(est, dtype=float)
            ax.errorbar(xs + (k - (len(labels) - 1) / 2) * 0.08 * (np.ptp(xs) / max(len(xs), 1)), est,
                        yerr=_err(est, np.asarray(lo, dtype=float), np.asarray(hi, dtype=float)), fmt="-o",
                        color=colors[k], markersize=3, capsize=2, linewidth=1.1, label=label or None)
        if panel.get("target") is not None:
            ax.axhline(panel["target"], color=MARK_COLOR, linestyle="--", linewidth=1.0)
        fmt = _formatter(panel["measure"], panel["share"])
        if fmt is not None:
            ax.yaxis.set_major_formatter(fmt)
        ax.set_title(panel["measure"], fontsize=9)
        ax.set_xlabel(parameter, fontsize=8)
        ax.tick_params(labelsize=8)
        ax.grid(alpha=0.3)
    if any(labels):
        axes[0, -1].legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.02, 1.0), frameon=False)
    fig.suptitle(title, fontsize=10)
    return _png(fig, title, f"{title}: each measure at every value of {parameter}, 95% intervals")
