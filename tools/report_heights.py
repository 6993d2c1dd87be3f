"""How tall each example's report is, as a designer scrolls it: every study in examples/ played at a
small size, its report built (with this checkout's reports/, or another checkout's with --reports),
rendered by headless Chromium 1200 px wide, and the height of the page measured (CSS pixels).

    .venv/bin/python tools/report_heights.py --games 1000 --out /tmp/heights
    .venv/bin/python tools/report_heights.py --games 1000 --out /tmp/heights --reports /tmp/old-checkout

The second form reuses the datasets of the first and builds the reports with the old checkout's
code, so the two heights compare the same games. Prints a Markdown table; JSON beside it.
--sections also prints each report's top-level sections by height (what makes it long), written
to sections-new.json (or -old) either way.
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = Path("/usr/bin/chromium")
WIDTH = 1200
SMALL = {"wizard-players": 100}  # all-search tables play ~20 games/s


# the page's height, then each top-level block of <main> (a section by its id) and its height
PROBE = """<script>
document.title = 'height=' + document.documentElement.scrollHeight + ';' + Array.from(
  document.querySelector('main').children).map(function (e) {
    return (e.id || e.tagName.toLowerCase()) + '=' + Math.round(e.getBoundingClientRect().height); }).join(';');
</script></body>"""


def measure(html: Path, work: Path) -> tuple[int, dict[str, int]]:
    """The page's height in CSS pixels at 1200 px wide, and each section's (a block without an id,
    such as the arms table, under its tag; blocks of one name added up): a copy of the report with
    a few lines of script that write them into the title, read back from Chromium's DOM dump."""
    probe = work / f"{html.parent.name}-probe.html"
    probe.write_text(html.read_text().replace("</body>", PROBE))
    dom = subprocess.run([str(CHROMIUM), "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                          f"--user-data-dir={work / 'profile'}", f"--window-size={WIDTH},900", "--dump-dom",
                          probe.resolve().as_uri()], check=True, capture_output=True, text=True, timeout=300).stdout
    probe.unlink()
    first, *blocks = re.search(r"<title>(height=[^<]*)</title>", dom).group(1).split(";")
    parts: dict[str, int] = {}
    for block in blocks:
        name, _, px = block.rpartition("=")
        parts[name] = parts.get(name, 0) + int(px)
    return int(first.split("=")[1]), parts



def play(path: Path, games: int, out: Path) -> Path:
    from pipelines.run import run_study
    from sim.spec import StudySpec

    os.chdir(path.parent)
    spec = StudySpec.from_toml(path)
    n = SMALL.get(path.stem, games)
    spec = dataclasses.replace(spec, games=n, batch_size=n)
    run_study(spec, out / path.stem, workers=0, progress=False)
    return out / path.stem


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=1000)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--reports", type=Path, help="build the reports with this checkout's reports/ package")
    ap.add_argument("--sections", action="store_true", help="print each report's sections by height")
    args = ap.parse_args()
    args.out = args.out.resolve()
    examples = sorted(p for p in (ROOT / "examples").glob("*.toml") if "[[arm]]" in p.read_text())
    label = "old" if args.reports else "new"
    results, sections = {}, {}
    for path in examples:
        data = args.out / "data" / path.stem
        if not (data / "study.json").exists():
            play(path, args.games, args.out / "data")
        report = args.out / label / path.stem
        code = str(args.reports.resolve()) if args.reports else str(ROOT)
        subprocess.run([sys.executable, "-c", "import sys; sys.path.insert(0, sys.argv[1]); "
                        "from reports.build import build_report; build_report(sys.argv[2], sys.argv[3])",
                        code, str(data), str(report)], check=True, cwd=code)
        results[path.stem], sections[path.stem] = measure(report / "report.html", args.out)
        print(f"{path.stem}: {results[path.stem]} px", flush=True)
        if args.sections:
            for name, px in sorted(sections[path.stem].items(), key=lambda kv: -kv[1]):
                print(f"    {px:6,} {name}")
    (args.out / f"heights-{label}.json").write_text(json.dumps(results, indent=1))
    (args.out / f"sections-{label}.json").write_text(json.dumps(sections, indent=1))
    other = args.out / f"heights-{'new' if label == 'old' else 'old'}.json"
    if other.exists():
        before, after = (json.loads(other.read_text()), results) if label == "new" else (results, json.loads(other.read_text()))
        print("\n| example | before (px) | after (px) | after / before |\n|---|---:|---:|---:|")
        for name in results:
            if name in before and name in after:
                print(f"| {name} | {before[name]:,} | {after[name]:,} | {after[name] / before[name]:.2f} |")


if __name__ == "__main__":
    main()
