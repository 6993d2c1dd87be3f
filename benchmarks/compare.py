"""Compare a benchmark run against a stored baseline: the CI regression check.

Only normalised figures are compared (each case's `normalised`: the raw figure relative to the
calibration kernel measured in the same run), so a baseline recorded on one machine can be
checked on another. A case regresses when its normalised figure is worse than the baseline's by
more than its tolerance: for higher-is-better cases (throughput, speed-ups, scaling) when
now / baseline < 1 - tolerance; for lower-is-better cases (compile time, bytes, memory) when
baseline / now < 1 - tolerance. Cases marked `better: null` are information only.

The tolerance is per case. A baseline merged from several runs (`merge_runs`) stores each case's
median and a tolerance from the spread of its runs, so a noisy wall-clock pipeline case gets a wide
one and a CPU-timed kernel a narrow one; a case without a stored tolerance uses the default
(0.15), and `--tolerance` overrides them all. Cases are judged in groups (kernel, pipeline,
compile, size), each with its own verdict line, so a flapping pipeline figure does not hide or
fake a kernel regression.
"""
from __future__ import annotations

import fnmatch
import math
import statistics
from dataclasses import dataclass, field

DEFAULT_TOLERANCE = 0.15
# A run compared with a baseline of n runs: their log-ratio has variance sigma^2 (1 + 1/n); SIGMAS
# of it make a false alarm about 1 in 15,000 per case and run, so ten equal runs of ~170 cases
# pass together nine times in ten even where the noise is as normal as it looks (it is not quite:
# hence the floors). The floor per group is the least tolerance a spread of a few runs can show.
SIGMAS = 4.0
FLOORS = {"kernel": 0.03, "pipeline": 0.10, "compile": 0.10, "size": 0.01, "other": 0.05}
KERNEL_FLAG = 0.10  # a kernel this much slower should be flagged: a wider tolerance is warned about


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


def group_of(case: dict) -> str:
    """kernel: CPU-timed figures of one thread (the kernels, play_batch, pure Python); pipeline:
    wall-clock figures of Ray and Parquet and their ratios; compile: compile and cache-load times;
    size: bytes and memory."""
    kind, name = case.get("kind", ""), case.get("name", "")
    if kind in ("kernel", "play_batch", "pure_python") or name.endswith(("/kernel_over_pure_python",)):
        return "kernel"
    if kind in ("compile", "cache_load"):
        return "compile"
    if kind in ("storage", "memory"):
        return "size"
    if kind in ("pipeline", "startup") or "pipeline" in name or "long_study" in name or "scaling" in name:
        return "pipeline"
    return "other"


def case_sigma(values: list[float]) -> float | None:
    """The spread of a case's runs: the MAD estimate of the standard deviation of their logs. Robust
    on purpose: this machine now and then runs a whole suite several per cent slow for a while, and
    one such run would otherwise set the tolerance (measured: a case at 0.3% in four runs, 12% off in
    the fifth). Such one-off dips are what the confirming looks are for (`confirm`). None for fewer
    than two runs."""
    values = [v for v in values if _finite(v) and v > 0]
    if len(values) < 2:
        return None
    logs = [math.log(v) for v in values]
    centre = statistics.median(logs)
    return 1.4826 * statistics.median(abs(x - centre) for x in logs)


def case_tolerance(values: list[float], group: str, group_sigma: float = 0.0) -> float | None:
    """The tolerance a case's runs justify: SIGMAS standard deviations of a new run's log-ratio
    to their median, the deviation being the case's own (`case_sigma`) or its group's typical one,
    whichever is larger (a few runs can look quieter than the case is), and at least the group's
    floor. None for fewer than two runs (nothing to say about the spread)."""
    sigma = case_sigma(values)
    if sigma is None:
        return None
    n = len([v for v in values if _finite(v) and v > 0])
    tolerance = 1 - math.exp(-SIGMAS * max(sigma, group_sigma) * math.sqrt(1 + 1 / n))
    return round(max(tolerance, FLOORS.get(group, FLOORS["other"])), 4)


def merge_runs(runs: list[dict]) -> dict:
    """Several results of the same suite -> one: each case's normalised figure (and raw value)
    is the median over the runs that have it, with its runs' figures and its tolerance kept
    (`runs`, `tolerance`). The first run's header is kept; `merged_runs` says how many."""
    if not runs:
        raise ValueError("no runs to merge")
    modes = {r.get("mode") for r in runs}
    if len(modes) > 1:
        raise ValueError(f"runs of different modes cannot be merged: {sorted(map(str, modes))}")
    merged = {k: v for k, v in runs[0].items() if k != "cases"}
    merged["merged_runs"] = len(runs)
    merged["created_runs"] = [r.get("created") for r in runs]
    order: list[str] = []
    by_name: dict[str, list[dict]] = {}
    for run in runs:
        for case in run.get("cases", []):
            if case["name"] not in by_name:
                order.append(case["name"])
                by_name[case["name"]] = []
            by_name[case["name"]].append(case)
    figures_of = {name: [c.get("normalised") for c in by_name[name]] for name in order}
    finite_of = {name: [x for x in f if _finite(x)] for name, f in figures_of.items()}
    group_sigma = _group_sigmas([(group_of(by_name[n][0]), finite_of[n]) for n in order])
    cases = []
    for name in order:
        found = by_name[name]
        case = dict(found[0])
        figures, finite = figures_of[name], finite_of[name]
        if finite:
            case["normalised"] = statistics.median(finite)
        values = [c.get("value") for c in found if _finite(c.get("value"))]
        if values:
            case["value"] = statistics.median(values)
        case["runs"] = figures
        tolerance = case_tolerance(finite, group_of(case), group_sigma.get(group_of(case), 0.0))
        if tolerance is not None and case.get("better") is not None:
            case["tolerance"] = tolerance
        else:
            case.pop("tolerance", None)
        cases.append(case)
    merged["cases"] = cases
    return merged


def _group_sigmas(cases: list[tuple[str, list[float]]]) -> dict[str, float]:
    """Each group's typical spread: the median of its cases' `case_sigma` (groups of 3+ cases)."""
    by_group: dict[str, list[float]] = {}
    for group, values in cases:
        sigma = case_sigma(values)
        if sigma is not None:
            by_group.setdefault(group, []).append(sigma)
    return {g: statistics.median(s) for g, s in by_group.items() if len(s) >= 3}


CONFIRM_GROUPS = ("kernel", "pipeline")  # timed figures: a second look costs seconds


def confirm(baseline: dict, result: dict, remeasure, looks: int = 2, tolerance: float | None = None,
            patterns: list[str] | None = None, echo=print) -> tuple[dict, "Comparison"]:
    """Judge `result` against `baseline`, then give every timed case it flags `looks` more
    measurements (`remeasure(names)` -> a results dict of those cases) and judge each on the median
    of its looks, or on the best of them for a case that is already the best of its rounds (a
    kernel): a slower kernel stays slow in every look; a dip of the machine during one run does
    not, and a slow spell can outlast two looks but not every look's every round
    (benchmarks/flap_check.py measured both). Returns (the results judged, the comparison)."""
    outcome = compare(baseline, result, tolerance, patterns)
    flagged = [r.name for r in outcome.regressions if r.group in CONFIRM_GROUPS]
    if not flagged or looks <= 0:
        return result, outcome
    echo(f"confirming {len(flagged)} flagged case(s) with {looks} more look(s): {', '.join(flagged)}")
    again = [remeasure(flagged) for _ in range(looks)]
    merged = merge_runs([result, *again])
    for case in merged["cases"]:  # the baseline's tolerance judges; a case's looks are not a baseline
        case.pop("tolerance", None)
        figures = [x for x in case.get("runs", []) if _finite(x)]
        if case.get("statistic") == "best" and figures:
            case["normalised"] = min(figures) if case.get("better") == "lower" else max(figures)
    merged["confirmed"] = {"cases": flagged, "looks": looks + 1}
    return merged, compare(baseline, merged, tolerance, patterns)


@dataclass
class Row:
    name: str
    baseline: float | None
    now: float | None
    ratio: float | None  # now / baseline of the normalised figures
    unit: str
    verdict: str  # ok | REGRESSION | improved | info | missing | new
    tolerance: float | None = None
    group: str = "other"


@dataclass
class Comparison:
    rows: list[Row]
    tolerance: float | None  # the override for every case; None: each case's own
    warnings: list[str] = field(default_factory=list)

    def regressions_in(self, group: str) -> list[Row]:
        return [r for r in self.regressions if r.group == group]

    @property
    def regressions(self) -> list[Row]:
        return [r for r in self.rows if r.verdict == "REGRESSION"]

    @property
    def failed(self) -> bool:
        return bool(self.regressions)


def _finite(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def compare(baseline: dict, now: dict, tolerance: float | None = None,
            patterns: list[str] | None = None) -> Comparison:
    """Compare the normalised figures of `now` against `baseline` (both bench JSON objects).
    `tolerance` overrides every case's own (the baseline's `tolerance`, else DEFAULT_TOLERANCE)."""
    if tolerance is not None and not 0 <= tolerance < 1:
        raise ValueError(f"tolerance={tolerance}: expected 0 <= tolerance < 1")
    patterns = patterns or []
    base_cases = {c["name"]: c for c in select_cases(baseline.get("cases", []), patterns)}
    now_cases = {c["name"]: c for c in select_cases(now.get("cases", []), patterns)}
    rows = []
    for name in list(base_cases) + [n for n in now_cases if n not in base_cases]:
        b, n = base_cases.get(name), now_cases.get(name)
        group = group_of(b or n)
        if n is None:
            rows.append(Row(name, b.get("normalised"), None, None, b.get("normalised_unit", ""), "missing",
                            group=group))
            continue
        if b is None:
            rows.append(Row(name, None, n.get("normalised"), None, n.get("normalised_unit", ""), "new",
                            group=group))
            continue
        allowed = tolerance if tolerance is not None else b.get("tolerance", DEFAULT_TOLERANCE)
        bv, nv = b.get("normalised"), n.get("normalised")
        unit = n.get("normalised_unit", "")
        better = n.get("better", b.get("better"))
        if not (_finite(bv) and _finite(nv)) or bv <= 0 or nv < 0:
            rows.append(Row(name, bv, nv, None, unit, "info" if better is None else "missing", group=group))
            continue
        ratio = nv / bv
        if better is None:
            verdict = "info"
        else:
            score = ratio if better == "higher" else (bv / nv if nv > 0 else math.inf)
            if score < 1 - allowed:
                verdict = "REGRESSION"
            elif score > 1 + allowed:
                verdict = "improved"
            else:
                verdict = "ok"
        rows.append(Row(name, bv, nv, ratio, unit, verdict, None if better is None else allowed, group))
    result = Comparison(rows, tolerance)
    result.warnings = _warnings(baseline, now)
    return result


def _warnings(baseline: dict, now: dict) -> list[str]:
    out = []
    bc, nc = baseline.get("calibration", {}), now.get("calibration", {})
    if bc.get("version") and nc.get("version") and bc["version"] != nc["version"]:
        out.append(f"calibration kernel differs (baseline {bc['version']}, now {nc['version']}): "
                   "normalised figures may shift; record a new baseline")
    wide = sorted(c["name"] for c in baseline.get("cases", [])
                  if group_of(c) == "kernel" and c.get("tolerance", 0) >= KERNEL_FLAG)
    if wide:
        out.append(f"{len(wide)} kernel case(s) vary by {KERNEL_FLAG:.0%} or more between the baseline's runs, so "
                   f"a {KERNEL_FLAG:.0%} slower kernel may pass there ({', '.join(wide[:4])}"
                   f"{', ...' if len(wide) > 4 else ''}): record the baseline on a quieter machine or "
                   "with more --repeats")
    statistic = {c["name"]: c.get("statistic", "median") for c in baseline.get("cases", [])}
    changed = sorted(c["name"] for c in now.get("cases", [])
                     if c["name"] in statistic and c.get("statistic", "median") != statistic[c["name"]])
    if changed:
        out.append(f"{len(changed)} case(s) are now the best of their rounds where the baseline took a "
                   f"median, or the other way round ({', '.join(changed[:4])}"
                   f"{', ...' if len(changed) > 4 else ''}): a best round is a few per cent faster; "
                   "record a new baseline")
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


GROUPS = ("kernel", "pipeline", "compile", "size", "other")


def format_table(result: Comparison) -> str:
    width = max([len(r.name) for r in result.rows] + [4])
    lines = [f"{'case':<{width}}  {'baseline':>12}  {'now':>12}  {'ratio':>6}  {'allowed':>7}  verdict  "
             "(normalised unit)"]
    absent = [r.name for r in result.rows if r.verdict == "missing" and r.now is None]
    for r in result.rows:
        if r.verdict == "missing" and r.now is None:
            continue
        ratio = f"{r.ratio:.3f}" if r.ratio is not None else "-"
        allowed = f"{r.tolerance:.0%}" if r.tolerance is not None else "-"
        lines.append(f"{r.name:<{width}}  {_fmt(r.baseline):>12}  {_fmt(r.now):>12}  {ratio:>6}  {allowed:>7}  "
                     f"{r.verdict:<10} {r.unit}")
    lines.append("")
    how = (f"at tolerance {result.tolerance:.0%}" if result.tolerance is not None
           else "each at its own tolerance")
    for group in GROUPS:
        judged = [r for r in result.rows if r.group == group and r.verdict in ("ok", "REGRESSION", "improved")]
        if not judged:
            continue
        bad = result.regressions_in(group)
        lines.append(f"{group}: {len(judged)} case(s) compared {how}: "
                     + (f"{len(bad)} regression(s): " + ", ".join(r.name for r in bad) if bad
                        else "no regression"))
    if absent:
        shown = ", ".join(absent[:8]) + (f", ... ({len(absent) - 8} more)" if len(absent) > 8 else "")
        lines.append(f"not in this run, not compared: {len(absent)} case(s): {shown}")
    for w in result.warnings:
        lines.append(f"warning: {w}")
    return "\n".join(lines)
