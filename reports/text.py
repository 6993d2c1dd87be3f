"""Number formatting for verdicts and tables (plain ASCII, so CI logs stay readable)."""
from __future__ import annotations

import math

from reports.stats import Estimate


def _finite(*xs) -> bool:
    return all(x is not None and isinstance(x, (int, float)) and math.isfinite(x) for x in xs)


def decimals_for_width(width: float, lo: int = 0, hi: int = 4) -> int:
    """Enough decimals that an interval of this width shows about two significant digits."""
    if not _finite(width) or width <= 0:
        return max(lo, 1)
    return int(min(hi, max(lo, 1 - math.floor(math.log10(width)))))


def rule_value(v) -> str:
    """A rule's or parameter's value as a study file writes it: true/false for booleans (study.json
    keeps Python's), fractions without float noise (0.3, not 0.30000000000000004)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    return f"{v:g}" if isinstance(v, float) else str(v)


def rules(values: dict) -> str:
    """name=value, ... in the study file's spelling."""
    return ", ".join(f"{k}={rule_value(v)}" for k, v in values.items())


def count(n) -> str:
    if not _finite(n):
        return "n/a" if n is None or not (isinstance(n, float) and math.isinf(n)) else "infinitely many"
    return f"{int(round(n)):,}"


def pct(x: float, digits: int = 1) -> str:
    return f"{x * 100:.{digits}f}%" if _finite(x) else "n/a"


def share_digits(est: Estimate) -> int:
    """Decimals for a share in percent: 1, or 2 when the interval is narrower than 0.2 points."""
    return 2 if _finite(est.lo, est.hi) and (est.hi - est.lo) * 100 < 0.2 else 1


def zero_safe_digits(lo: float, hi: float, digits: int, most: int = 6) -> int:
    """At least ``digits`` decimals, more when needed so that rounding never hides on which side of 0
    an interval lies: an interval that excludes 0 never shows a bound of 0 or of the other sign."""
    if not _finite(lo, hi) or lo <= 0 <= hi:
        return digits
    d = digits
    while d < most:
        rl, rh = round(lo, d), round(hi, d)
        if (lo > 0 and rl > 0) or (hi < 0 and rh < 0):
            break
        d += 1
    return d


def share_ci(est: Estimate) -> str:
    """'27.1% (26.9-27.3)'."""
    d = share_digits(est)
    if not _finite(est.value):
        return "n/a"
    if not _finite(est.lo, est.hi):
        return pct(est.value, d)
    return f"{est.value * 100:.{d}f}% ({est.lo * 100:.{d}f}-{est.hi * 100:.{d}f})"


def signed(x: float, digits: int) -> str:
    if not _finite(x):
        return "n/a"
    s = f"{x:+.{digits}f}"
    return f"{0:.{digits}f}" if s.strip("+-0.") == "" else s


def points(est: Estimate, digits: int | None = None) -> str:
    """A difference of shares in percentage points: '+2.1 percentage points (1.8 to 2.4)'."""
    if digits is None:
        digits = share_digits(est)
    digits = zero_safe_digits(est.lo * 100, est.hi * 100, digits) if _finite(est.lo, est.hi) else digits
    if not _finite(est.lo, est.hi):
        return f"{signed(est.value * 100, digits)} percentage points"
    return (f"{signed(est.value * 100, digits)} percentage points "
            f"({signed(est.lo * 100, digits)} to {signed(est.hi * 100, digits)})")


def points_cell(est: Estimate, digits: int | None = None) -> str:
    """A difference of shares in a table whose header names the unit: '+4.1 (-0.9 to +9.6)'."""
    return points(est, digits).replace(" percentage points", "")


def digits_for(x: float) -> int:
    """Decimals for a plain number of this magnitude (3 significant digits, at most 2 decimals)."""
    ax = abs(x) if _finite(x) else 0.0
    return 0 if ax >= 100 else 1 if ax >= 10 else 2


def number(x: float, digits: int | None = None) -> str:
    if not _finite(x):
        return "n/a"
    return f"{x:,.{digits_for(x) if digits is None else digits}f}"


def quantity(x: float, digits: int) -> str:
    """Like number(), but an integral value (a quantile of counts) shows no decimals."""
    if _finite(x) and float(x).is_integer():
        return f"{int(x):,}"
    return number(x, digits)


def p_value(p: float, bare: bool = False) -> str:
    """'p = 0.042', 'p < 0.0001' (bare: '0.042', '< 0.0001')."""
    if not _finite(p):
        return "n/a" if bare else "p n/a"
    s = "< 0.0001" if p < 1e-4 else f"{p:.4f}" if p < 0.01 else f"{p:.3f}"
    if bare:
        return s
    return f"p {s}" if s.startswith("<") else f"p = {s}"


def value_ci(est: Estimate, signed_values: bool = False) -> str:
    """'12.3 (11.9 to 12.7)' with decimals chosen from the interval width."""
    if not _finite(est.value):
        return "n/a"
    if not _finite(est.lo, est.hi):
        return signed(est.value, 2) if signed_values else number(est.value)
    d = decimals_for_width(est.hi - est.lo)
    if signed_values:
        d = zero_safe_digits(est.lo, est.hi, d)
    f = (lambda v: signed(v, d)) if signed_values else (lambda v: f"{v:,.{d}f}")
    return f"{f(est.value)} ({f(est.lo)} to {f(est.hi)})"


def ratio(x: float) -> str:
    return f"{x:.1f}x" if _finite(x) else "n/a"


def seat_list(seats) -> str:
    seats = list(seats)
    return ", ".join(str(s) for s in seats)
