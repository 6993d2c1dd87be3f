"""The section of a study that stopped at a precision ([stop]): why and when it stopped, and the
anytime-valid intervals it stopped on (study.json's ``stopped``, written by pipelines/stopping.py)."""
from __future__ import annotations

from reports import text
from reports.dataset import Dataset
from reports.model import Section, Table

KEY = "stopping"
NOTES = [
    "The intervals here are confidence sequences (a normal mixture, Robbins): valid however often they were "
    "looked at, so stopping at the first look where they were narrow enough does not bias them. They are wider "
    "than a fixed-n interval over the same games; the other sections show the usual fixed-n intervals at the "
    "stopped number of games, which still cover at their level (docs/stopping.md, 'The method').",
    "A look is a batch boundary; batches are used in plan order whatever order the workers finished them in.",
]


def _show(name: str, x: float, signed: bool = True) -> str:
    """Seat 0's edge in percentage points, as the rest of the report; other measures as they are."""
    if name.endswith("seat0_edge"):
        return f"{x * 100:+.2f} pp" if signed else f"{x * 100:.2f} pp"
    return f"{x:+.4g}" if signed else f"{x:.4g}"


def section(dataset: Dataset) -> Section | None:
    rec = dataset.manifest.get("stopped")
    if not isinstance(rec, dict) or not rec.get("intervals"):
        return None
    games, target = int(rec["games"]), float(rec["target"])
    widest = max(rec["intervals"], key=lambda i: i["half_width"])
    if rec.get("reason") == "half_width":
        why = (f"every interval reached its target at {text.count(rec.get('reached_at') or games)} "
               f"games per arm")
    else:
        why = f"it hit its cap of {text.count(games)} games per arm before every interval reached its target"
    sec = Section(key=KEY, title="Stopping at a precision", notes=list(NOTES))
    sec.verdicts = [
        f"The study stopped at {text.count(games)} games per arm because {why} ({rec.get('looks', '?')} looks after a "
        f"pilot of {text.count(rec.get('pilot') or 0)} games): the widest, {widest['name']}, is "
        f"{_show(widest['name'], widest['value'])} +- {_show(widest['name'], widest['half_width'], False)} at "
        f"{float(rec.get('confidence', 0.95)):.0%} "
        "confidence, valid whenever it was looked at."]
    sec.tables.append(Table(
        "The intervals the study stopped on (anytime-valid confidence sequences)",
        ["interval", "games", "estimate", "half-width", "interval", "target"],
        [[i["name"], text.count(i["games"]) + (f" ({text.count(i['deals'])} deals)" if "deals" in i else ""),
          _show(i["name"], i["value"]), _show(i["name"], i["half_width"], False),
          f"{_show(i['name'], i['lo'])} to {_show(i['name'], i['hi'])}", "+-" + _show(i["name"], target, False)]
         for i in rec["intervals"]]))
    sec.data = {k: rec[k] for k in ("reason", "games", "reached_at", "target", "confidence", "half_width",
                                    "intervals", "looks", "pilot", "method") if k in rec}
    return sec
