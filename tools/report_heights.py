"""How tall each example's report is, as a designer scrolls it: every study in examples/ played at a
small size, its report built (with this checkout's reports/, or another checkout's with --reports),
rendered by headless Chromium 1200 px wide, and the height of the page measured (CSS pixels).

    .venv/bin/python tools/report_heights.py --games 1000 --out /tmp/heights
    .venv/bin/python tools/report_heights.py --games 1000 --out /tmp/heights --reports /tmp/old-checkout

The second form reuses the datasets of the first and builds the reports with the old checkout's
code, so the two heights compare the same games. Prints a Markdown table; JSON beside it.
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


def content_height(html: Path, work: Path) -> int:
    """The page's height in CSS pixels at 1200 px wide: a copy of the report with one line of script
    that writes document height into the title, read back from Chromium's DOM dump."""
    probe = work / f"{html.parent.name}-probe.html"
    probe.write_text(html.read_text().replace(
        "</body>", "<script>document.title = 'height=' + document.documentElement.scrollHeight</script></body>"))
    dom = subprocess.run([str(CHROMIUM), "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                          f"--user-data-dir={work / 'profile'}", f"--window-size={WIDTH},900", "--dump-dom",
                          probe.resolve().as_uri()], check=True, capture_output=True, text=True, timeout=300).stdout
    probe.unlink()
    return int(re.search(r"<title>height=(\d+)</title>", dom).group(1))


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
    args = ap.parse_args()
    args.out = args.out.resolve()
    examples = sorted(p for p in (ROOT / "examples").glob("*.toml") if "[[arm]]" in p.read_text())
    label = "old" if args.reports else "new"
    results = {}
    for path in examples:
        data = args.out / "data" / path.stem
        if not (data / "study.json").exists():
            play(path, args.games, args.out / "data")
        report = args.out / label / path.stem
        code = str(args.reports.resolve()) if args.reports else str(ROOT)
        subprocess.run([sys.executable, "-c", "import sys; sys.path.insert(0, sys.argv[1]); "
                        "from reports.build import build_report; build_report(sys.argv[2], sys.argv[3])",
                        code, str(data), str(report)], check=True, cwd=code)
        results[path.stem] = content_height(report / "report.html", args.out)
        print(f"{path.stem}: {results[path.stem]} px", flush=True)
    (args.out / f"heights-{label}.json").write_text(json.dumps(results, indent=1))
    other = args.out / f"heights-{'new' if label == 'old' else 'old'}.json"
    if other.exists():
        before, after = (json.loads(other.read_text()), results) if label == "new" else (results, json.loads(other.read_text()))
        print("\n| example | before (px) | after (px) | after / before |\n|---|---:|---:|---:|")
        for name in results:
            if name in before and name in after:
                print(f"| {name} | {before[name]:,} | {after[name]:,} | {after[name] / before[name]:.2f} |")


if __name__ == "__main__":
    main()
