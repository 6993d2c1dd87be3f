"""Reports: read a study's Parquet dataset and answer its balance questions.

``build_report(dataset_dir, out_dir=None)`` writes report.html (self-contained), report.md and
summary.json and returns their paths. Reads only the dataset (docs/schema.md), never the kernels.

Layout: ``dataset`` (manifest, lazy scans, arm pairs), ``metrics`` (per-game Polars expressions),
``stats`` (intervals and tests), ``compare`` (paired comparisons), ``sections/`` (generic sections),
``games/`` + ``registry`` (game-specific sections and outcome measures), ``plots``, ``render``.
"""
from reports.build import build_report, build_sections
from reports.dataset import Dataset, ReportError

__all__ = ["build_report", "build_sections", "Dataset", "ReportError"]
