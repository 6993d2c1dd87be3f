"""Compare a benchmark run against a stored baseline: the CI regression check.

Only normalised figures are compared (each case's `normalised`: the raw figure relative to the
calibration kernel measured in the same run), so a baseline recorded on one machine can be
checked on another. A case regresses when its normalised figure is worse than the baseline's by
more than the tolerance: for higher-is-better cases (throughput, speed-ups, scaling) when
now / baseline < 1 - tolerance; for lower-is-better cases (compile time, bytes, memory) when
baseline / now < 1 - tolerance. Cases marked `better: null` are information only.
"""
from __future__ import annotations

import fnmatch
import math
from dataclasses import dataclass, field


def parse_patterns(values) -> list[str]:
    """`--cases` values (repeatable, comma-separated) -> a list of globs; [] means every case."""
    if values is None:
        return []
    if isinstance(values, str):
        values = [values]
    patterns = []
    for value in values:
        patterns += [p.strip() for p in value.split(",") if p.strip()]
    return patterns


def matches(name: str, patterns: list[str]) -> bool:
    """True when `name` matches any glob (no globs: everything matches). A pattern without a
    wildcard also matches as a prefix of whole path parts, so `knutten` selects `knutten/...`."""
    if not patterns:
        return True
    for pattern in patterns:
        if fnmatch.fnmatchcase(name, pattern):
            return True
        if not any(ch in pattern for ch in "*?[") and name.startswith(pattern.rstrip("/") + "/"):
            return True
    return False


def select_cases(cases: list[dict], patterns: list[str]) -> list[dict]:
    return [c for c in cases if matches(c["name"], patterns)]


@dataclass
class Row:
    name: str
    baseline: float | None
    now: float | None
    ratio: float | None  # now / baseline of the normalised figures
    unit: str
    verdict: str  # ok | REGRESSION | improved | info | missing | new


@dataclass
class Comparison:
    rows: list[Row]
    tolerance: float
    warnings: list[str] = field(default_factory=list)

    @property
    def regressions(self) -> list[Row]:
        return [r for r in self.rows if r.verdict == "REGRESSION"]

    @property
    def failed(self) -> bool:
        return bool(self.regressions)


def _finite(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def compare(baseline: dict, now: dict, tolerance: float = 0.15,
            patterns: list[str] | None = None) -> Comparison:
    """Compare the normalised figures of `now` against `baseline` (both bench JSON objects)."""
    if not 0 <= tolerance < 1:
        raise ValueError(f"tolerance={tolerance}: expected 0 <= tolerance < 1")
    patterns = patterns or []
    base_cases = {c["name"]: c for c in select_cases(baseline.get("cases", []), patterns)}
    now_cases = {c["name"]: c for c in select_cases(now.get("cases", []), patterns)}
    rows = []
    for name in list(base_cases) + [n for n in now_cases if n not in base_cases]:
        b, n = base_cases.get(name), now_cases.get(name)
        if n is None:
            rows.append(Row(name, b.get("normalised"), None, None, b.get("normalised_unit", ""), "missing"))
            continue
        if b is None:
            rows.append(Row(name, None, n.get("normalised"), None, n.get("normalised_unit", ""), "new"))
            continue
        bv, nv = b.get("normalised"), n.get("normalised")
        unit = n.get("normalised_unit", "")
        better = n.get("better", b.get("better"))
        if not (_finite(bv) and _finite(nv)) or bv <= 0 or nv < 0:
            rows.append(Row(name, bv, nv, None, unit, "info" if better is None else "missing"))
            continue
        ratio = nv / bv
        if better is None:
            verdict = "info"
        else:
            score = ratio if better == "higher" else (bv / nv if nv > 0 else math.inf)
            if score < 1 - tolerance:
                verdict = "REGRESSION"
            elif score > 1 + tolerance:
                verdict = "improved"
            else:
                verdict = "ok"
        rows.append(Row(name, bv, nv, ratio, unit, verdict))
    result = Comparison(rows, tolerance)
    result.warnings = _warnings(baseline, now)
    return result


def _warnings(baseline: dict, now: dict) -> list[str]:
    out = []
    bc, nc = baseline.get("calibration", {}), now.get("calibration", {})
    if bc.get("version") and nc.get("version") and bc["version"] != nc["version"]:
        out.append(f"calibration kernel differs (baseline {bc['version']}, now {nc['version']}): "
                   "normalised figures may shift; record a new baseline")
    if baseline.get("mode") and now.get("mode") and baseline["mode"] != now["mode"]:
        out.append(f"baseline was a {baseline['mode']} run, this is a {now['mode']} run: sizes "
                   "differ, pipeline and memory figures are not like for like")
    return out


def _fmt(x) -> str:
    if not _finite(x):
        return "-"
    ax = abs(x)
    if ax >= 1e5:
        return f"{x:,.0f}"
    if ax >= 100:
        return f"{x:.1f}"
    if ax >= 1:
        return f"{x:.3f}"
    return f"{x:.4g}"


def format_table(result: Comparison) -> str:
    width = max([len(r.name) for r in result.rows] + [4])
    lines = [f"{'case':<{width}}  {'baseline':>12}  {'now':>12}  {'ratio':>6}  verdict  (normalised unit)"]
    absent = [r.name for r in result.rows if r.verdict == "missing" and r.now is None]
    for r in result.rows:
        if r.verdict == "missing" and r.now is None:
            continue
        ratio = f"{r.ratio:.3f}" if r.ratio is not None else "-"
        lines.append(f"{r.name:<{width}}  {_fmt(r.baseline):>12}  {_fmt(r.now):>12}  {ratio:>6}  "
                     f"{r.verdict:<10} {r.unit}")
    compared = sum(1 for r in result.rows if r.verdict in ("ok", "REGRESSION", "improved"))
    bad = result.regressions
    lines.append("")
    lines.append(f"{compared} case(s) compared at tolerance {result.tolerance:.0%}: "
                 + (f"{len(bad)} regression(s): " + ", ".join(r.name for r in bad) if bad
                    else "no regression"))
    if absent:
        shown = ", ".join(absent[:8]) + (f", ... ({len(absent) - 8} more)" if len(absent) > 8 else "")
        lines.append(f"not in this run, not compared: {len(absent)} case(s): {shown}")
    for w in result.warnings:
        lines.append(f"warning: {w}")
    return "\n".join(lines)
