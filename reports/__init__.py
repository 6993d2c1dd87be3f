"""Reports: read a study's Parquet dataset and answer its balance questions.

``build_report(dataset_dir, out_dir=None)`` writes report.html (self-contained), report.md and
summary.json and returns their paths. Reads only the dataset (docs/schema.md), never the kernels.

Layout: ``dataset`` (manifest, lazy scans, arm pairs), ``metrics`` (per-game Polars expressions),
``stats`` (intervals and tests), ``compare`` (paired comparisons), ``sections/`` (generic sections),
``games/`` + ``registry`` (game-specific sections and outcome measures), ``plots``, ``render``.
"""
import importlib

__all__ = ["build_report", "build_sections", "Dataset", "ReportError"]
_HOME = {"build_report": "reports.build", "build_sections": "reports.build",
         "Dataset": "reports.dataset", "ReportError": "reports.dataset"}


def __getattr__(name: str):
    # loaded when first asked for: building a report imports matplotlib, SciPy and statsmodels
    # (over a second), which checking a study file's measure names must not wait for
    if name in _HOME:
        return getattr(importlib.import_module(_HOME[name]), name)
    raise AttributeError(f"module 'reports' has no attribute {name!r}")
