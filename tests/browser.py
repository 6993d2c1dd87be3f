"""Headless Chromium for the tests that look at a report as a reader does (installed by
.ci/ensure-chromium.sh; missing in CI is a failure, missing locally a skip)."""
from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

CHROMIUM = Path("/usr/bin/chromium")


def need_chromium(chromium: Path = CHROMIUM) -> None:
    if chromium.exists():
        return
    if os.environ.get("CI", "").strip().lower() in ("true", "1", "yes"):
        pytest.fail(f"{chromium} missing in CI: run .ci/ensure-chromium.sh first")
    pytest.skip(f"{chromium} not installed (run .ci/ensure-chromium.sh)")


def run_chromium(page: Path, work: Path, height: int = 3000, chromium: Path = CHROMIUM) -> tuple[str, list[str], Path]:
    """Load a file in headless Chromium: (dumped DOM, console messages, screenshot path)."""
    shot = work / "shot.png"
    cmd = [str(chromium), "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
           "--disable-background-networking", "--disable-component-update", "--disable-sync",
           f"--user-data-dir={work / 'profile'}", "--enable-logging=stderr", "--v=0", "--hide-scrollbars",
           f"--window-size=1200,{height}", "--dump-dom", f"--screenshot={shot}", page.resolve().as_uri()]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120, cwd=work)
    assert proc.returncode == 0, proc.stderr[-2000:]
    console = [line for line in proc.stderr.splitlines() if ":CONSOLE" in line]
    return proc.stdout, console, shot
