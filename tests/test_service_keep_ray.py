"""`kaartlab serve --keep-ray`: one local Ray started with the server, every study joins it (no Ray
start-up per study), and nothing of it is left when the server stops. On the toy game."""
from __future__ import annotations

import os
import shutil
from pathlib import Path

from fastapi.testclient import TestClient

from pipelines.run import run_study
from pipelines.service.app import Config, create_app
from pipelines.service.submit import parse_study
from sim.cli import main
from tests.service_helpers import ROOT, hashes, processes_naming, toy_study, wait_for, wait_status


def core_processes(ray_tmp: Path) -> set[tuple[int, str]]:
    """The GCS server and raylet processes of the Ray whose files are under ray_tmp."""
    found = set()
    for pid in processes_naming(str(ray_tmp)):
        try:
            name = Path(f"/proc/{pid}/comm").read_text().strip()
        except OSError:
            continue
        if name in ("gcs_server", "raylet"):
            found.add((pid, name))
    return found


def test_studies_join_the_one_ray_the_server_keeps_and_it_ends_with_the_server(tmp_path, monkeypatch):
    first, second = (toy_study(name, games=20_000, batch_size=5_000, seed=seed)
                     for name, seed in (("kept-a", 3), ("kept-b", 4)))
    for name, text in (("kept-a", first), ("kept-b", second)):
        run_study(parse_study(text, f"{name}.toml"), tmp_path / "reference" / name, workers=0, progress=False)
    ray_tmp = Path(f"/tmp/kk-{os.getpid()}-ray")  # the kept Ray's files (short: Ray's socket paths)
    monkeypatch.setenv("RAY_TMPDIR", str(ray_tmp))
    monkeypatch.setenv("PYTHONPATH", str(ROOT))  # the children import the toy game (KAARTLAB_GAMES)
    try:
        with TestClient(create_app(Config(runs=tmp_path / "runs", workers=1, keep_ray=True))) as client:
            kept = core_processes(ray_tmp)
            assert len(kept) == 2, f"the server starts its Ray (a GCS and a raylet) before any study: {kept}"
            address = client.app.state.queue.address
            for name, text in (("kept-a", first), ("kept-b", second)):
                assert client.post("/api/studies", content=text).status_code == 201
                done = wait_status(client, name, "done", timeout=180)
                assert done["returncode"] == 0 and f"--address {address}" in done["log"]
            # the Ray the studies played on is still the server's: its GCS and raylet, none started anew
            assert core_processes(ray_tmp) == kept
        for name in ("kept-a", "kept-b"):
            assert hashes(tmp_path / "runs" / name) == hashes(tmp_path / "reference" / name)
        wait_for(lambda: not processes_naming(str(ray_tmp)), 60, 0.2, "the kept Ray's processes to end")
    finally:
        shutil.rmtree(ray_tmp, ignore_errors=True)


def test_keep_ray_with_an_address_or_without_ray_is_one_error(tmp_path, capsys):
    runs = str(tmp_path / "runs")
    assert main(["serve", "--runs", runs, "--keep-ray", "--address", "127.0.0.1:6379"]) == 2
    assert "--keep-ray keeps a local Ray" in capsys.readouterr().err
    assert main(["serve", "--runs", runs, "--keep-ray", "--workers", "0"]) == 2
    assert "--keep-ray keeps a local Ray" in capsys.readouterr().err
