"""`kaartlab serve` (docs/service.md): every API endpoint, the token, paths that try to leave the runs
directory, oversized uploads, bad study files (the CLI's own one-line errors), the queue's order, stop
and resume, and a server killed in the middle of a study that, restarted, finishes with the rows
of an uninterrupted run. On the toy game (tests/toy); the checks that need no study to run use
FastAPI's TestClient in this process, the rest a real `kaartlab serve` in a subprocess; one study
plays on a local Ray, as studies do by default, the others in their own process (`--workers 0`)."""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from pipelines.run import run_study
from pipelines.service.app import Config, create_app
from pipelines.service.progress import live_intervals
from pipelines.service.submit import parse_study, valid_id
from sim.cli import main
from sim.errors import SpecError
from tests.service_helpers import (ROOT, Server, hashes, processes_naming, records, rows, toy_study, wait_for,
                                   wait_status)

TOKEN = "s3cret-token-for-the-tests-0123456789"
LONG = dict(games=1_000_000, batch_size=25_000, tricks=6)  # 80 batch files: about 5 s of play in one process


def app_client(tmp_path: Path, **config) -> TestClient:
    return TestClient(create_app(Config(runs=tmp_path / "runs", workers=0, **config)), raise_server_exceptions=False)


# -- the schema and input checks (no study runs) ---------------------------------------------------------

def test_openapi_schema_publishes_every_endpoint(tmp_path):
    with app_client(tmp_path) as client:
        schema = client.get("/openapi.json").json()
        paths = schema["paths"]
        assert {"post", "get"} <= set(paths["/api/studies"])
        assert "get" in paths["/api/studies/{id}"]
        assert "post" in paths["/api/studies/{id}/stop"] and "post" in paths["/api/studies/{id}/resume"]
        assert "get" in paths["/studies/{id}/report"]
        assert "application/toml" in paths["/api/studies"]["post"]["requestBody"]["content"]
        assert schema["components"]["securitySchemes"]["HTTPBearer"]["scheme"] == "bearer"
        page = client.get("/api", headers={"accept": "text/html"}).text
        assert "/api/studies/{id}/stop" in page and "/openapi.json" in page
        assert client.get("/api/health").json()["ok"] is True


def test_one_server_per_runs_directory_and_its_options_checked_first(tmp_path, capsys):
    first = create_app(Config(runs=tmp_path / "runs", workers=0))
    with pytest.raises(SpecError, match="is served already .kaartlab serve pid"):
        create_app(Config(runs=tmp_path / "runs", workers=0))
    first.state.queue.close()
    create_app(Config(runs=tmp_path / "runs", workers=0)).state.queue.close()  # free again
    (tmp_path / "short").write_text("abc\n")
    for argv, said in ((["--token-file", tmp_path / "short"], "the token must be at least 16 characters"),
                       (["--token-file", tmp_path / "nope"], "cannot be read"),
                       (["--read-token"], "--read-token needs --token-file"),
                       (["--workers", "0", "--address", "127.0.0.1:1"], "--workers 0 plays in this process"),
                       (["--port", "70000"], "--port=70000: expected 1..65535")):
        assert main(["serve", "--runs", str(tmp_path / "r"), *map(str, argv)]) == 2
        err = capsys.readouterr().err
        assert err.startswith("kaartlab: error: ") and said in err and err.count("\n") == 1, err


BAD_FILES = {
    "not-toml.toml": 'name = "x"\n[[arm]\ngame = "toy"',
    "unknown-key.toml": toy_study("bad1") + '\ncolour = "red"\n',
    "unknown-game.toml": toy_study("bad2").replace('game = "toy"', 'game = "chess"'),
    "bad-measure.toml": toy_study("bad3").replace('"score"]', '"scor"]'),
    "bad-rule.toml": toy_study("bad4").replace("lowest_wins = true", "lowest_wins = 3"),
    "bad-name.toml": toy_study("../../evil"),
    "too-many-games.toml": toy_study("bad5", games=10**12, batch_size=1),
}


@pytest.mark.parametrize("filename", sorted(BAD_FILES))
def test_a_bad_study_file_gets_the_cli_s_own_one_line_error(tmp_path, monkeypatch, capsys, filename):
    text = BAD_FILES[filename]
    (tmp_path / filename).write_text(text)
    monkeypatch.chdir(tmp_path)
    code = main(["study", filename, "--workers", "0", "--no-estimate", "--out", str(tmp_path / "cli-out")])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("kaartlab: error: ") and err.count("\n") == 1, err
    cli_line = err[len("kaartlab: error: "):].strip()
    with app_client(tmp_path) as client:
        response = client.post(f"/api/studies?filename={filename}", content=text.encode())
        assert response.status_code == 400, response.text
        assert response.json() == {"detail": cli_line}
        # the form, pasted and uploaded: the same line, the text kept for correcting
        form = client.post("/submit", data={"toml": text, "priority": "0"}, headers={"accept": "text/html"})
        assert form.status_code == 400 and "Traceback" not in form.text
        assert cli_line.replace(filename, "study.toml", 1).replace("'", "&#x27;") in form.text
        upload = client.post("/submit", files={"file": (filename, text.encode(), "application/toml")},
                             data={"toml": "", "priority": "0"})
        assert upload.status_code == 400 and cli_line.replace("'", "&#x27;") in upload.text
        assert client.get("/api/studies").json()["studies"] == []
    assert not (tmp_path / "runs").exists() or [p.name for p in (tmp_path / "runs").iterdir()] == [".queue"]


def test_a_study_that_names_a_data_file_is_refused(tmp_path):
    text = toy_study("decked").replace('policy = "greedy:bluff=0.2"', 'policy = "greedy"\ndeck = "/etc/passwd"')
    with app_client(tmp_path) as client:
        response = client.post("/api/studies", content=text)
        assert response.status_code == 400
        assert response.json()["detail"].startswith("study.toml: [defaults]: deck: the service takes study files "
                                                    "without data files")
        assert "root:" not in response.text


def test_the_token_guards_every_write_and_with_read_token_every_read(tmp_path):
    with app_client(tmp_path, token=TOKEN) as client:
        study = toy_study("guarded", games=10, batch_size=10)
        for headers in ({}, {"Authorization": "Bearer wrong-token"}, {"Authorization": f"Basic {TOKEN}"}):
            response = client.post("/api/studies", content=study, headers=headers)
            assert response.status_code == 401 and response.headers["www-authenticate"] == "Bearer"
            assert "Authorization: Bearer TOKEN" in response.json()["detail"]
        assert client.get("/api/studies").json()["studies"] == []  # nothing was queued
        assert client.get("/", headers={"accept": "text/html"}).status_code == 200  # reading is open
        form = client.post("/submit", data={"toml": study, "token": "wrong"})
        assert form.status_code == 401 and "needs its token" in form.text
        created = client.post("/api/studies", content=study, headers={"Authorization": f"Bearer {TOKEN}"})
        assert created.status_code == 201 and created.json()["id"] == "guarded"
        assert client.post("/api/studies/guarded/stop").status_code == 401
        assert client.post("/api/studies/guarded/resume").status_code == 401
        assert client.post("/studies/guarded/stop", headers={"accept": "text/html"}).status_code == 401
        # a browser logs in once: the cookie (HttpOnly, SameSite=Strict) carries the token
        wrong = client.post("/login", data={"token": "nope", "next": "/"}, follow_redirects=False)
        assert wrong.status_code == 401
        login = client.post("/login", data={"token": TOKEN, "next": "//evil.example/"}, follow_redirects=False)
        assert login.status_code == 303 and login.headers["location"] == "/"
        cookie = login.headers["set-cookie"].lower()
        assert "httponly" in cookie and "samesite=strict" in cookie
        stopped = client.post("/api/studies/guarded/stop")
        assert stopped.status_code == 202, stopped.text
    with app_client(tmp_path / "r", token=TOKEN, read_token=True) as client:
        assert client.get("/api/studies").status_code == 401
        assert client.get("/api/studies", headers={"Authorization": f"Bearer {TOKEN}"}).status_code == 200
        page = client.get("/", headers={"accept": "text/html"}, follow_redirects=False)
        assert page.status_code == 303 and page.headers["location"].startswith("/login")
        assert client.get("/login").status_code == 200


@pytest.mark.parametrize("path", [
    "/api/studies/%2e%2e", "/api/studies/%2E%2E%2Fsecret", "/api/studies/..%2F..%2Fetc%2Fpasswd", "/api/studies/.queue",
    "/studies/..%2Fsecret/report", "/studies/%2e%2e/report", "/studies/.queue/report", "/api/studies/a%5C..%5Cb",
    "/studies/..%2F..%2F..%2Fetc%2Fpasswd/report", "/compare?a=..%2Fsecret",
])
def test_ids_never_reach_outside_the_runs_directory(tmp_path, path):
    (tmp_path / "secret").mkdir()
    (tmp_path / "secret" / "report.html").write_text("SECRET REPORT")
    (tmp_path / "secret" / "study.json").write_text('{"study": {"name": "secret"}}')
    with app_client(tmp_path) as client:
        response = client.get(path)
        assert response.status_code in (400, 404), (path, response.status_code)
        assert "SECRET" not in response.text and "root:" not in response.text and "Traceback" not in response.text
        assert client.post(path.split("?")[0] + "/stop").status_code in (400, 404, 405)


def test_study_names_and_file_names_stay_inside_the_runs_directory(tmp_path):
    assert not valid_id("..") and not valid_id(".queue") and not valid_id("a/b") and not valid_id("a\\b")
    assert not valid_id("x\n") and valid_id("john-knut") and valid_id("a..b")
    with app_client(tmp_path) as client:
        # no name in the file: the default is the file name's stem, whatever path the client sends
        text = toy_study("x", games=10, batch_size=10).replace('name = "x"\n', "")
        response = client.post("/api/studies", params={"filename": "../../../tmp/evil.toml"}, content=text)
        assert response.status_code == 201 and response.json()["id"] == "evil"
        assert (tmp_path / "runs" / ".queue" / "evil.toml").is_file()
        assert not (tmp_path / "evil.toml").exists() and not Path("/tmp/evil.toml").exists()
        # an upload through the form: named by its file's last part, and the browser goes to its page
        upload = client.post("/submit", files={"file": ("C:\\studies\\upload-me.toml", text.encode(), "text/plain")},
                             data={"toml": "", "priority": "2"}, follow_redirects=False)
        assert upload.status_code == 303 and upload.headers["location"] == "/studies/upload-me"
        entry = client.get("/api/studies/upload-me").json()
        assert entry["priority"] == 2 and entry["spec"]["filename"] == "upload-me.toml"


def test_an_oversized_upload_is_refused_before_it_is_read(tmp_path):
    with app_client(tmp_path, max_upload=64 * 1024) as client:
        big = toy_study("big") + "\n# padding\n" + "#" * (200 * 1024)
        response = client.post("/api/studies", content=big)
        assert response.status_code == 413 and "at most 65,536" in response.json()["detail"]

        def chunks():  # no Content-Length: the limit holds while the body is read
            for _ in range(100):
                yield b"#" * 4096

        assert client.post("/api/studies", content=chunks()).status_code == 413
        upload = client.post("/submit", files={"file": ("big.toml", big.encode(), "application/toml")})
        assert upload.status_code == 413
        just = toy_study("fits") + "#" * (64 * 1024 - len(toy_study("fits")) - 10)
        assert client.post("/api/studies", content=just).status_code != 413
        assert client.get("/api/studies/big").status_code == 404


def test_bad_requests_are_4xx_lines_never_tracebacks(tmp_path):
    with app_client(tmp_path) as client:
        for method, path, kw in (("post", "/api/studies?priority=high", {"content": "x"}),
                                 ("post", "/api/studies?priority=5000", {"content": toy_study("p")}),
                                 ("post", "/api/studies", {"content": b"\xff\xfe\x00bad"}),
                                 ("post", "/api/studies", {"content": ""}),
                                 ("get", "/api/studies/nope", {}), ("post", "/api/studies/nope/stop", {}),
                                 ("get", "/studies/nope/report", {}), ("post", "/submit", {"data": {"toml": "  "}})):
            response = getattr(client, method)(path, **kw)
            assert 400 <= response.status_code < 500, (path, response.status_code, response.text)
            assert "Traceback" not in response.text


# -- studies that run: a real `kaartlab serve` --------------------------------------------------------------

def test_restart_stop_resume_and_priority_end_in_the_rows_of_an_uninterrupted_run(tmp_path):
    """One study at a time. A long study plays; two more are queued (the second with a higher priority).
    The server is killed (SIGKILL) in the middle of the long study: its child stops (parent-death signal:
    SIGTERM, batches kept), and a new server reads the queue back and starts it again first. Stopped
    through the API and resumed, it goes behind the other two. Everything is played in that order, each
    endpoint says so, and the long study's batches are those of an uninterrupted run, byte for byte."""
    text = toy_study("long", **LONG)
    (tmp_path / "long.toml").write_text(text)
    reference = tmp_path / "reference"  # the same study, uninterrupted, played meanwhile on the other core
    uninterrupted = kaartlab("study", tmp_path / "long.toml", "--out", reference, "--workers", "0", "--no-estimate")
    runs = tmp_path / "runs"
    out = runs / "long"
    server = Server(runs, "--workers", "0", "--jobs", "1").start()
    try:
        with server.client() as client:
            created = client.post("/api/studies", params={"filename": "long.toml"}, content=text)
            assert created.status_code == 201 and created.json()["status"] in ("queued", "running")
            assert created.json()["page_url"] == "/studies/long"
            wait_for(lambda: records(out) >= 3, 60, what="the long study's first batches")
            low = client.post("/api/studies", content=toy_study("low-priority", games=100, batch_size=100))
            high = client.post("/api/studies", params={"priority": 5},
                               content=toy_study("high-priority", games=100, batch_size=100))
            assert low.status_code == high.status_code == 201
            again = client.post("/api/studies", params={"filename": "long.toml"}, content=text)
            assert again.status_code == 200 and again.json()["id"] == "long"  # running: the same study
            assert again.json()["status"] == "running" and again.json()["progress"]["games"] > 0

        entry = json.loads((runs / ".queue" / "long.json").read_text())
        server.stop(signal.SIGKILL)
        wait_for(lambda: _gone(entry["pid"]), 60, what="the killed server's study to stop")
        kept = records(out)
        assert 0 < kept < 80 and json.loads((runs / ".queue" / "long.json").read_text())["status"] == "running"

        server.start()
        with server.client() as client:
            wait_for(lambda: records(out) >= kept + 2, 60, what="the resumed study's batches")
            stopping = client.post("/api/studies/long/stop")  # at once: the study is playing
            assert stopping.status_code == 202 and stopping.json()["status"] in ("stopping", "stopped")
            assert stopping.json()["runs"] == 2
            stopped = wait_status(client, "long", "stopped")
            assert 0 < stopped["progress"]["games"] < 2_000_000
            assert stopped["progress"]["games"] == records(out) * 25_000
            assert client.post("/api/studies/long/stop").status_code == 409
            assert client.post("/api/studies/long/resume").status_code == 202
            for id in ("high-priority", "low-priority", "long"):
                wait_status(client, id, "done")
            studies = {s["id"]: s for s in client.get("/api/studies").json()["studies"]}
            assert set(studies) == {"long", "low-priority", "high-priority"}
            order = [s["id"] for s in sorted(studies.values(), key=lambda s: s["launched"])]
            assert order == ["high-priority", "low-priority", "long"]  # the last start of each
            assert studies["long"]["runs"] == 3 and studies["high-priority"]["launched"] == 3
            detail = client.get("/api/studies/long").json()
            assert detail["progress"]["games"] == 2_000_000 and detail["progress"]["complete"]
            assert detail["summary"]["answers"][0]["question"]["kind"] == "compare"
            assert detail["log"].count("resuming") == 2 and "stopped by SIGTERM" in detail["log"]
            # the page's numbers are the report's games: the compare interval's mean is the report's change
            interval = {i["name"]: i for i in detail["intervals"]["intervals"]}["low - high seat0_edge"]
            change = detail["summary"]["answers"][0]["data"]["measures"]["seat0_win"]["difference"]["estimate"]
            assert interval["games"] == 1_000_000 and interval["value"] == pytest.approx(change, abs=1e-12)
            report = client.get("/studies/long/report")
            assert report.status_code == 200 and "kaartlab report: long" in report.text
        assert uninterrupted.wait(120) == 0, uninterrupted.stderr.read()
        assert hashes(out) == hashes(reference) and len(hashes(out)) == 80  # the same bytes, so the same rows
        assert rows(out).equals(rows(reference))
    finally:
        server.stop()
        if uninterrupted.poll() is None:
            uninterrupted.kill()


def _gone(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except (OSError, IndexError):
        return True


def kaartlab(*argv) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen([sys.executable, "-m", "sim.cli", *map(str, argv)], cwd=ROOT, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


def test_a_study_plays_on_a_local_ray_and_leaves_no_ray_behind(tmp_path, monkeypatch):
    """The default: each study on a Ray of its own (here one worker CPU), shut down when it ends; its
    batches are those of a run in one process."""
    text = toy_study("on-ray", games=20_000, batch_size=5_000)
    reference = tmp_path / "reference"
    run_study(parse_study(text, "on-ray.toml"), reference, workers=0, progress=False)
    ray_tmp = Path(f"/tmp/ks-{os.getpid()}-ray")  # the study's Ray, found by it (short: Ray's socket paths)
    monkeypatch.setenv("RAY_TMPDIR", str(ray_tmp))
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    try:
        with TestClient(create_app(Config(runs=tmp_path / "runs", workers=1))) as client:
            assert client.post("/api/studies", content=text).status_code == 201
            wait_for(lambda: processes_naming(str(ray_tmp)), 120, 0.1, "the study's local Ray")
            done = wait_status(client, "on-ray", "done", timeout=180)
            assert done["progress"]["games"] == 40_000 and "--workers 1" in done["log"]
            assert done["launched"] == 1 and done["returncode"] == 0
        assert hashes(tmp_path / "runs" / "on-ray") == hashes(reference)
        wait_for(lambda: not processes_naming(str(ray_tmp)), 60, 0.2, "the study's Ray processes to end")
    finally:
        shutil.rmtree(ray_tmp, ignore_errors=True)


def test_a_study_that_fails_shows_the_cli_s_line(tmp_path, monkeypatch):
    """A study whose run ends in an error (here: a cluster address where nothing listens) is 'failed' with
    the CLI's own line, on its page too; it can be queued again."""
    monkeypatch.setenv("PYTHONPATH", str(ROOT))  # the child imports the toy game (KAARTLAB_GAMES)
    app = create_app(Config(runs=tmp_path / "runs", address="127.0.0.1:1"))
    with TestClient(app) as client:
        assert client.post("/api/studies", content=toy_study("nowhere", games=10, batch_size=10)).status_code == 201
        failed = wait_for(lambda: (lambda s: s if s["status"] == "failed" else None)(
            client.get("/api/studies/nowhere").json()), 60, 0.2, "the study to fail")
        assert failed["message"].startswith("cannot reach a Ray cluster at 127.0.0.1:1: nothing listens there")
        assert failed["returncode"] == 3 and failed["report_url"] is None
        page = client.get("/studies/nowhere").text
        assert "kaartlab: error: cannot reach a Ray cluster" in page and ">Resume</button>" in page
        assert client.post("/api/studies/nowhere/resume").json()["status"] in ("queued", "running")


def test_live_intervals_of_a_stop_study_are_the_ones_it_stops_on(tmp_path):
    """A [stop] study: the service's confidence sequences, fed from the stored batches in plan order, end
    on the intervals the pipeline stopped on (study.json's `stopped`)."""
    text = toy_study("precise", games=1, batch_size=2_000).replace("games = 1\n", "") + """
[stop]
measure = "seat0_edge"
between = ["high", "low"]
half_width = 0.01
max_games = 400_000
pilot = 10_000
"""
    study = parse_study(text, "precise.toml")
    out = tmp_path / "precise"
    run_study(study, out, workers=0, progress=False)
    stopped = json.loads((out / "study.json").read_text())["stopped"]
    live = live_intervals(("precise-test",), study, out, {"high": 400_000, "low": 400_000})
    assert live["kind"] == "sequence" and live["games"] == stopped["games"]
    assert [(i["name"], i["value"], i["half_width"]) for i in live["intervals"]] == \
        [(i["name"], i["value"], i["half_width"]) for i in stopped["intervals"]]
    assert all(i["reached"] for i in live["intervals"]) and live["target"] == 0.01
