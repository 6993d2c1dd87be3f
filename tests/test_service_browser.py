"""The service as a person uses it, in the headless Chromium the suite already installs (driven over
the DevTools protocol, tests/devtools.py): an example study pasted into the form is queued, its page
follows it to done by itself and opens its report; a second example (a [stop] study, submitted through
the API as a script would) is compared with it side by side; a bad file shows the CLI's own line. The
server plays two studies at a time, each in its own process (tests/test_service.py has one on Ray).
Screenshots of every page go to the test's directory (and to $KAARTLAB_SCREENSHOTS when set)."""
from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from sim.cli import main
from tests.browser import need_chromium
from tests.service_helpers import ROOT, Server, wait_status

JOHN_KNUT = (ROOT / "examples" / "john-knut.toml").read_text().replace("games = 1_000_000", "games = 20_000")
PRECISION = (ROOT / "examples" / "john-knut-precision.toml").read_text()


def shot(browser, work: Path, name: str) -> Path:
    path = browser.screenshot(work / f"{name}.png")
    if os.environ.get("KAARTLAB_SCREENSHOTS"):
        target = Path(os.environ["KAARTLAB_SCREENSHOTS"])
        target.mkdir(parents=True, exist_ok=True)
        shutil.copy(path, target / path.name)
    return path


def test_submit_watch_report_and_compare_in_a_browser(tmp_path, monkeypatch, capsys):
    need_chromium()
    from tests.devtools import Chromium

    assert "games = 20_000" in JOHN_KNUT and "[stop]" in PRECISION
    server = Server(tmp_path / "runs", "--workers", "0", "--jobs", "2").start()
    try:
        with Chromium(tmp_path / "chromium") as browser, server.client() as api:
            # a script queues the precision study while a person pastes the John Knut example into the form
            queued = api.post("/api/studies", params={"filename": "john-knut-precision.toml"}, content=PRECISION)
            assert queued.status_code == 201 and queued.json()["id"] == "john-knut-precision"
            browser.goto(server.url + "/submit")
            shot(browser, tmp_path, "submit")
            browser.js(f"document.getElementById('toml').value = {json.dumps(JOHN_KNUT)}")
            browser.js("document.getElementById('priority').value = '3'")
            browser.js("document.getElementById('submit').click()")
            browser.wait("location.pathname === '/studies/john-knut' && document.readyState === 'complete'")
            assert "Does John Knut make Knutten fairer" in browser.text()
            shot(browser, tmp_path, "study-queued")
            # the page follows the study by itself (it polls its progress and reloads when the status changes)
            browser.wait("document.querySelector('h1 .badge') && document.querySelector('h1 .badge').textContent === 'done'",
                         timeout=240, every=0.5)
            answers = browser.js("Array.from(document.querySelectorAll('#answers li')).map(li => li.innerText)")
            assert answers and "John Knut" in answers[0]
            assert browser.js("document.querySelectorAll('#live tbody tr').length") >= 2
            assert "40,000 of 40,000 games" in browser.js("document.getElementById('live').innerText")
            shot(browser, tmp_path, "study-done")
            browser.js("document.querySelector('a.button[href$=\"/report\"]').click()")
            browser.wait("location.pathname === '/studies/john-knut/report' && document.readyState === 'complete'")
            assert browser.js("document.title") == "kaartlab report: john-knut"
            assert browser.js("document.querySelectorAll('#answers li').length") == len(answers)
            shot(browser, tmp_path, "report")

            precision = wait_status(api, "john-knut-precision", "done", timeout=240)
            stopped = precision["intervals"]
            assert stopped["kind"] == "sequence" and stopped["intervals"] and all(i["reached"] for i in stopped["intervals"])
            browser.goto(server.url + "/studies/john-knut-precision")
            assert "anytime-valid" in browser.text() and "reached the target" in browser.text()
            shot(browser, tmp_path, "study-stopped")

            browser.goto(server.url + "/compare?a=john-knut")
            browser.js("document.getElementById('b').value = 'john-knut-precision'")
            browser.js("document.getElementById('show').click()")
            browser.wait("location.search.indexOf('b=john-knut-precision') >= 0 && document.readyState === 'complete'")
            columns = browser.js("Array.from(document.querySelectorAll('.cols > div')).map(d => d.innerText)")
            assert len(columns) == 2 and columns[0].startswith("john-knut") and columns[1].startswith("john-knut-precision")
            assert "Answers" in columns[0] and "Answers" in columns[1]
            shot(browser, tmp_path, "compare")

            browser.goto(server.url + "/")
            rows = browser.js("Array.from(document.querySelectorAll('table.cat tbody tr')).map(r => r.innerText)")
            assert len(rows) == 2 and all("done" in r for r in rows)
            shot(browser, tmp_path, "catalogue")

            # a bad file: the form says what `kaartlab study` says, before anything runs
            bad = JOHN_KNUT.replace('measures = ["seat0_edge"', 'measures = ["seat0_egde"')
            assert bad != JOHN_KNUT
            (tmp_path / "study.toml").write_text(bad)
            monkeypatch.chdir(tmp_path)
            assert main(["study", "study.toml", "--workers", "0", "--no-estimate"]) == 2
            cli_line = capsys.readouterr().err.strip()
            browser.goto(server.url + "/submit")
            browser.js(f"document.getElementById('toml').value = {json.dumps(bad)}")
            browser.js("document.getElementById('submit').click()")
            browser.wait("document.querySelector('.error') !== null")
            assert browser.js("document.querySelector('.error').innerText").strip() == cli_line
            assert browser.js("document.getElementById('toml').value") == bad  # kept for correcting
            shot(browser, tmp_path, "submit-error")
            assert len(api.get("/api/studies").json()["studies"]) == 2
            assert not [c for c in browser.console if c.startswith("exception")], browser.console
    finally:
        server.stop()
