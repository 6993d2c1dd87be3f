"""Trusted results without a cluster: verified batch files, one writer per study directory, clear
failures, complete reports and bounded input. On the toy game; every Ray this module starts is its
own (a private RAY_TMPDIR) and is gone when its test ends. docs/reliability.md maps each guarantee
to its test."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import polars as pl
import pytest

from pipelines.integrity import record_relpath
from pipelines.lock import StudyLock
from pipelines.run import run_study
from pipelines.storage import StudyDir
from reports import build_report
from reports.dataset import ReportError
from sim.cli import main
from sim.errors import SpecError
from sim.spec import ArmSpec, StudySpec

ROOT = Path(__file__).resolve().parents[1]


def study(games=4_000, batch_size=500, seed=3) -> StudySpec:
    arms = (ArmSpec.make("toy", 3, {}, "greedy,random,greedy:bluff=0.2", name="a"),
            ArmSpec.make("toy", 2, {"lowest_wins": True}, "greedy", name="b"))
    return StudySpec("trust", seed, games, batch_size, arms)


def write(tmp_path, name="d", **kw) -> Path:
    out = tmp_path / name
    run_study(study(**kw), out, workers=0, progress=False)
    return out


def rows(directory) -> pl.DataFrame:
    return pl.read_parquet(f"{directory}/*/batch-*.parquet").sort("arm", "game")


def cli(capsys, *argv) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def kaartlab(*argv, env=None, **kw) -> subprocess.Popen:
    """The command in a new process, as a user runs it."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    return subprocess.Popen([sys.executable, "-m", "sim.cli", *map(str, argv)], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)


def wait_for(condition, timeout=120.0, proc=None):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if condition():
            return
        if proc is not None and proc.poll() is not None:
            pytest.fail("the process ended early: " + proc.stderr.read()[-2000:])
        time.sleep(0.02)
    pytest.fail("timed out")


def records(out: Path) -> int:
    return len(list(out.glob("*/batch-*.parquet.json")))


def one_line_error(err: str) -> None:
    assert err.startswith("kaartlab: ") and err.count("\n") == 1 and "Traceback" not in err, err


# ------------------------------------------------------------------------------------ integrity

def damage(out: Path) -> dict[str, str]:
    """Flip one bit, truncate, empty, delete a file, delete a record: what verify must name."""
    a = out / "a"
    data = bytearray((a / "batch-000001.parquet").read_bytes())
    data[len(data) // 2] ^= 0x04
    (a / "batch-000001.parquet").write_bytes(bytes(data))
    (a / "batch-000002.parquet").write_bytes((a / "batch-000002.parquet").read_bytes()[:100])
    (a / "batch-000003.parquet").write_bytes(b"")
    (a / "batch-000004.parquet").unlink()
    (out / "b" / record_relpath("batch-000005.parquet")).unlink()
    return {"a/batch-000001.parquet": "SHA-256", "a/batch-000002.parquet": "truncated",
            "a/batch-000003.parquet": "0 bytes", "a/batch-000004.parquet": "file is missing",
            "b/batch-000005.parquet": "no record"}


def test_every_kind_of_damage_is_found_refused_by_report_and_redone_by_resume(tmp_path, capsys):
    out = write(tmp_path)
    before = rows(out)
    hashes = {p.name: p.read_text() for p in out.glob("*/*.json")}
    assert cli(capsys, "verify", out)[0] == 0
    bad = damage(out)

    code, stdout, err = cli(capsys, "verify", out)
    assert code == 1 and "5 bad" in err
    for rel, why in bad.items():
        assert any(rel in line and why in line for line in stdout.splitlines()), (rel, stdout)

    code, _, err = cli(capsys, "report", out)  # refuses, naming every bad file
    assert code == 2 and "5 batch file(s) failed verification" in err
    one_line_error(err)
    assert all(rel in err for rel in bad)
    assert not (out / "report.md").exists()

    code, _, err = cli(capsys, "report", out, "--skip-bad")  # or reports on the rest, warning first
    assert code == 0, err
    md = (out / "report.md").read_text()
    warning = md.index("## Warning: incomplete or unverified data")
    assert warning < md.index("## First-player advantage")
    assert "5 batch file(s) failed verification" in md and "INCOMPLETE" in md
    summary = json.loads((out / "summary.json").read_text())
    assert summary["sections"]["completeness"]["data"]["found"] == {"a": 2_000, "b": 3_500}

    result = run_study(study(), out, workers=0, progress=False)  # resume redoes exactly those
    assert result.batches_run == 5 and sorted(r.split(":")[0] for r in result.redone) == sorted(bad)
    assert cli(capsys, "verify", out, "--deep")[0] == 0
    assert rows(out).equals(before)
    assert {p.name: json.loads(p.read_text())["sha256"] for p in out.glob("*/*.json")} == \
        {n: json.loads(t)["sha256"] for n, t in hashes.items()}  # the very same bytes again


def test_a_file_from_another_plan_or_study_does_not_count(tmp_path, capsys):
    out = write(tmp_path)
    other = write(tmp_path, "other", seed=4)
    (out / "a" / "batch-000000.parquet").write_bytes((other / "a" / "batch-000000.parquet").read_bytes())
    (out / "a" / record_relpath("batch-000000.parquet")).write_text(
        (other / "a" / record_relpath("batch-000000.parquet")).read_text())
    (out / "a" / "batch-000099.parquet").write_bytes(b"stray")  # outside the plan
    code, stdout, _ = cli(capsys, "verify", out)
    assert code == 1 and "record is of study" in stdout and "outside the plan are ignored" in stdout
    run_study(study(), out, workers=0, progress=False)
    code, stdout, _ = cli(capsys, "verify", out)
    assert code == 0 and "outside the plan are ignored: a/batch-000099.parquet" in stdout
    (out / "a" / "batch-000099.parquet").unlink()  # not ours to delete; the user's to remove
    assert rows(out).equals(rows(write(tmp_path, "fresh")))


def test_verify_refuses_what_is_not_a_dataset(tmp_path, capsys):
    code, _, err = cli(capsys, "verify", tmp_path)
    assert code == 2 and "holds no study.json" in err
    one_line_error(err)


# ----------------------------------------------------------------------------- complete reports

def test_report_warns_when_a_batch_or_a_whole_arm_is_missing(tmp_path):
    out = write(tmp_path)
    (out / "a" / "batch-000007.parquet").unlink()
    (out / "a" / record_relpath("batch-000007.parquet")).unlink()
    build_report(out)
    md = (out / "report.md").read_text()
    assert "Arm a: 3,500 of 4,000 planned games (1 batch file(s) missing)" in md
    assert "| a | toy | 3 |" in md and "3,500 of 4,000" in md  # the header's games column too
    for path in (out / "b").iterdir():
        path.unlink()
    build_report(out)
    md = (out / "report.md").read_text()
    assert "Arm(s) with no games at all, so absent from every section: b." in md
    data = json.loads((out / "summary.json").read_text())["sections"]["completeness"]["data"]
    assert data["complete"] is False and data["missing_batches"] == {"a": 1, "b": 8}


@pytest.mark.parametrize("games", [1, 2])
def test_report_renders_with_one_or_two_games_per_arm(tmp_path, games):
    out = write(tmp_path, games=games)
    build_report(out)
    md = (out / "report.md").read_text()
    assert "## Note: too few games for statistics" in md
    assert f"a ({games}), b ({games})" in md
    assert "INCOMPLETE" not in md


def test_a_complete_study_has_no_warning(tmp_path):
    out = write(tmp_path, games=1_000)
    build_report(out)
    md = (out / "report.md").read_text()
    assert "Warning" not in md and "completeness" not in json.loads((out / "summary.json").read_text())["sections"]


def test_report_on_a_damaged_manifest_is_one_error(tmp_path, capsys):
    out = write(tmp_path, games=500)
    (out / "study.json").write_text("{ not json")
    for argv in (["report", out], ["verify", out], ["trace", "--dataset", out]):
        code, _, err = cli(capsys, *argv)
        assert code == 2, argv
        one_line_error(err)
    with pytest.raises(ReportError, match="damaged"):
        build_report(out)


# ------------------------------------------------------------------------------- the description

# One change each to a written study.json, as a flipped bit or a hand edit would make it: every
# reader refuses it in one line, and rerunning the study's command rewrites it from the study, which
# the batch files prove. (The toy's threshold is `tricks`; "greedz" is the player that never played.)
FLIPS = {
    "seed": lambda m: m["study"].update(seed=4),
    "games": lambda m: m["study"].update(games=4_001),
    "rule": lambda m: m["study"]["arms"][0]["rules"].update(tricks=4),
    "player": lambda m: m["study"]["arms"][0].update(policies=["greedz", "random", "greedy(bluff=0.2)"]),
    "fingerprint": lambda m: m.update(fingerprint=m["fingerprint"][:-1] + ("0" if m["fingerprint"][-1] != "0" else "1")),
    "integrity key flipped": lambda m: m.update(integrity="sha256-sidecar-0"),
    "integrity key removed": lambda m: m.pop("integrity"),
    "seal removed, seed changed": lambda m: (m.pop("sha256"), m["study"].update(seed=4)),
    "seal removed, integrity key removed": lambda m: (m.pop("sha256"), m.pop("integrity")),
}


@pytest.fixture(scope="module")
def written(tmp_path_factory) -> Path:
    return write(tmp_path_factory.mktemp("desc"), games=1_000)


@pytest.mark.parametrize("flip", list(FLIPS))
def test_a_damaged_study_json_is_refused_by_every_reader_and_repaired_by_resume(written, tmp_path, capsys, flip):
    import shutil

    out = tmp_path / "d"
    shutil.copytree(written, out)
    manifest = json.loads((out / "study.json").read_text())
    FLIPS[flip](manifest)
    (out / "study.json").write_text(json.dumps(manifest, indent=2))
    for argv in (["verify", out], ["report", out], ["trace", "--dataset", out, "--arm", "a"]):
        code, _, err = cli(capsys, *argv)
        assert code == 2 and "study.json" in err and "damaged" in err, (flip, argv, err)
        one_line_error(err)
    with pytest.raises(SpecError, match="batch files are of study"):  # another study: refused, not rewritten
        run_study(study(games=1_000, seed=5), out, workers=0, progress=False)
    if flip in ("player", "fingerprint"):  # without the command: what the batch files prove
        code, stdout, _ = cli(capsys, "verify", out, "--repair")
        assert code == 0 and stdout.startswith("repaired: ") and "verified:" in stdout, stdout
    else:
        result = run_study(study(games=1_000), out, workers=0, progress=False)
        assert result.repaired and result.batches_run == 0
    assert cli(capsys, "verify", out, "--deep")[0] == 0
    assert json.loads((out / "study.json").read_text())["study"] == json.loads((written / "study.json").read_text())["study"]


def test_a_one_bit_flip_anywhere_in_study_json_is_found(written, tmp_path):
    """Every 97th bit of study.json flipped in turn: each copy is refused (or still reads the same)."""
    import shutil

    raw = (written / "study.json").read_bytes()
    out = tmp_path / "d"
    shutil.copytree(written, out)
    for bit in range(0, len(raw) * 8, 97):
        data = bytearray(raw)
        data[bit // 8] ^= 1 << (bit % 8)
        (out / "study.json").write_bytes(bytes(data))
        with pytest.raises(SpecError, match="study.json"):
            StudyDir(out).integrity(hashes=False)


def test_a_damaged_data_copy_is_found_and_rewritten(tmp_path, capsys):
    deck = tmp_path / "deck.toml"
    deck.write_text("values = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]\n")
    spec = StudySpec("decked", 1, 200, 100, (ArmSpec.make("toy", 2, data={"deck": deck}, name="a"),))
    out = tmp_path / "d"
    run_study(spec, out, workers=0, progress=False)
    (copy,) = (out / "data").iterdir()
    copy.write_text("values = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 13]\n")
    code, stdout, _ = cli(capsys, "verify", out)
    assert code == 1 and f"data/{copy.name}: content does not match the SHA-256" in stdout
    code, _, err = cli(capsys, "trace", "--dataset", out)
    assert code == 2 and "does not match the hash its study recorded" in err
    assert cli(capsys, "report", out)[0] == 2
    run_study(spec, out, workers=0, progress=False)  # resume writes the copy back
    assert cli(capsys, "verify", out)[0] == 0 and copy.read_text().endswith("12]\n")


def test_two_reports_of_the_same_data_are_the_same_bytes(tmp_path):
    """summary.json is a regression check's input: no tolerance is needed. (Before: 32 floats of two
    reports of one dataset differed in their last bits: Polars' parallel group_by and streaming engine
    add floats in the order their threads finish, and a hash join's row order varies.)"""
    arms = (ArmSpec.make("toy", 3, {}, "greedy,random,greedy:bluff=0.2", name="a"),
            ArmSpec.make("toy", 3, {"lowest_wins": True}, "greedy,random,greedy:bluff=0.2", name="b"),
            ArmSpec.make("toy", 3, {}, "random,greedy,greedy", name="c"))
    out = tmp_path / "d"
    run_study(StudySpec("same", 3, 20_000, 2_000, arms), out, workers=0, progress=False)
    from reports import plots

    with plots.disabled():  # the numbers are the point; drawing would take most of the time
        summaries = [build_report(out, tmp_path / f"r{i}")["json"].read_bytes() for i in range(3)]
    assert summaries[0] == summaries[1] == summaries[2]
    sections = json.loads(summaries[0])["sections"]
    assert {"first_player", "variants", "ratings"} <= set(sections)  # the sums that used to move


# ----------------------------------------------------------------------------------- one writer

def test_a_second_driver_is_refused_while_the_first_holds_the_lock(tmp_path, capsys):
    out = tmp_path / "d"
    directory = StudyDir(out)
    with StudyLock(directory, "kaartlab run toy --out d"):
        code, _, err = cli(capsys, "run", "toy", "--games", "100", "--workers", "0", "--out", out)
        assert code == 2 and f"pid {os.getpid()} on host" in err and "kaartlab run toy --out d" in err
        one_line_error(err)
        assert sorted(p.name for p in out.iterdir()) == [".kaartlab.lock"]
    code, out_text, _ = cli(capsys, "run", "toy", "--games", "100", "--workers", "0", "--out", out)
    assert code == 0 and "took over" not in out_text  # released cleanly: nothing to take over


def test_a_stale_lock_of_a_killed_driver_is_taken_over(tmp_path):
    out = tmp_path / "d"
    argv = ["run", "toy", "--games", "3000000", "--batch-size", "20000", "--workers", "0",
            "--out", out, "--no-progress"]
    first = kaartlab(*argv)
    wait_for(lambda: records(out) >= 2, proc=first)
    first.send_signal(signal.SIGKILL)
    first.wait()
    holder = json.loads((out / ".kaartlab.lock").read_text())
    assert holder["pid"] == first.pid  # the dead driver's lock is still there, as a file
    second = kaartlab(*argv)
    stdout, stderr = second.communicate(timeout=300)
    assert second.returncode == 0, stderr
    assert f"took over the lock of a driver that is no longer running (pid {first.pid}" in stdout
    assert (out / ".kaartlab.lock").read_text() == ""  # released at the end


def test_two_drivers_racing_for_one_directory(tmp_path):
    """Started together: one writes, the other is refused with the holder's name (or, if the
    first was already done, finds nothing to do); the dataset is complete and verifies."""
    out = tmp_path / "race"
    argv = ["run", "toy", "--games", "1000000", "--batch-size", "20000", "--workers", "0",
            "--out", out, "--no-progress"]
    procs = [kaartlab(*argv) for _ in range(2)]
    results = [(p.wait(timeout=300), *p.communicate()) for p in procs]
    codes = sorted(r[0] for r in results)
    assert codes in ([0, 0], [0, 2]), results
    for code, stdout, stderr in results:
        if code == 2:
            assert "is being written by pid" in stderr and stderr.count("\n") == 1
        else:
            assert "played 1,000,000 games" in stdout or "nothing to do" in stdout
    state = StudyDir(out).integrity(deep=True)
    assert state.ok and not state.temporary


def test_a_directory_caught_while_its_manifest_is_written_is_left_to_the_lock(tmp_path):
    """The moment the racing test above can catch: the holder's lock and its manifest still under
    a temporary name. check() must not call that a foreign directory; the lock names the holder."""
    out = tmp_path / "claimed"
    out.mkdir()
    (out / ".kaartlab.lock").write_text("")
    (out / "study.json.tmp-0123abcd").write_text("{")
    assert StudyDir(out).check(study()) is False
    (out / "notes.txt").write_text("mine")
    with pytest.raises(SpecError, match="is not empty"):
        StudyDir(out).check(study())


def test_lease_lock_for_object_stores(tmp_path, monkeypatch):
    """The object-store lock (a lease with a heartbeat), tried on a local directory."""
    import pipelines.lock as lock_module

    monkeypatch.setenv("KAARTLAB_LEASE_SETTLE", "0")
    directory = StudyDir(tmp_path / "s3")
    first = StudyLock(directory, "first", lease=True).acquire()
    with pytest.raises(SpecError, match="being written by pid .* first"):
        StudyLock(directory, "second", lease=True).acquire()
    first.release()
    assert not (tmp_path / "s3" / ".kaartlab.lock").exists()
    stale = {"host": "elsewhere", "pid": 1, "token": "x", "heartbeat": time.time() - 10_000}
    (tmp_path / "s3" / ".kaartlab.lock").write_text(json.dumps(stale))
    taker = StudyLock(directory, "third", lease=True).acquire()
    assert taker.taken_over["host"] == "elsewhere"
    taker.release()
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                          text=True).stdout.strip()
    fresh = {**lock_module._holder_info("dead", "y"), "pid": int(dead)}  # a fresh lease of a dead pid
    (tmp_path / "s3" / ".kaartlab.lock").write_text(json.dumps(fresh))
    taker = StudyLock(directory, "fourth", lease=True).acquire()
    assert taker.taken_over["pid"] == int(dead)
    taker.release()


def test_an_output_that_cannot_be_written_is_one_error(tmp_path, capsys, monkeypatch):
    code, _, err = cli(capsys, "run", "toy", "--games", "10", "--workers", "0", "--out", "/proc/kaartlab-x")
    assert code == 2 and "cannot create output directory" in err
    one_line_error(err)
    import pipelines.lock as lock_module

    def read_only(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    (tmp_path / "ro").mkdir()
    monkeypatch.setattr(lock_module.os, "open", read_only)  # what a read-only directory answers
    code, _, err = cli(capsys, "run", "toy", "--games", "10", "--workers", "0", "--out", tmp_path / "ro")
    assert code == 2 and "cannot write to output directory" in err and "Permission denied" in err
    one_line_error(err)


# ------------------------------------------------------------------------- driver killed, resumed

@pytest.mark.parametrize("point", ["at once", "after one batch", "after many batches"])
def test_a_driver_killed_at_any_point_resumes_to_the_same_rows(tmp_path, point):
    out = tmp_path / "k"
    argv = ["run", "toy", "--games", "600000", "--batch-size", "10000", "--workers", "0", "--seed", "9",
            "--out", out, "--no-progress"]
    proc = kaartlab(*argv)
    if point == "at once":
        time.sleep(0.3)
    else:
        wait_for(lambda: records(out) >= (1 if point == "after one batch" else 30), proc=proc)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    # and as if killed between a batch file and its record, and mid-write
    if (out / "main").is_dir():
        (out / "main" / "batch-000059.parquet").write_bytes(b"PAR1 half a file")
        (out / "main" / "batch-000058.parquet.tmp-0123").write_bytes(b"PAR1")
    done = kaartlab(*argv)
    stdout, stderr = done.communicate(timeout=300)
    assert done.returncode == 0, stderr
    state = StudyDir(out).integrity()
    assert state.ok and not state.temporary
    reference = tmp_path / "ref"
    run_study(StudySpec("toy", 9, 600_000, 10_000, (ArmSpec.make("toy", 4, name="main"),)), reference,
              workers=0, progress=False)
    assert rows(out).equals(rows(reference))


# ------------------------------------------------------------------------------ clear failures

def test_sigterm_is_handled_like_ctrl_c(tmp_path):
    out = tmp_path / "t"
    argv = ["run", "toy", "--games", "3000000", "--batch-size", "20000", "--workers", "0", "--out", out,
            "--no-progress"]
    proc = kaartlab(*argv)
    wait_for(lambda: records(out) >= 2, proc=proc)
    proc.send_signal(signal.SIGTERM)
    _, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 143
    assert stderr.startswith("kaartlab: stopped by SIGTERM; finished batches are kept; resume with: "
                             "kaartlab run toy --games 3000000") and stderr.count("\n") == 1, stderr
    assert (out / ".kaartlab.lock").read_text() == ""  # the lock was released on the way out


def ray_processes(tmpdir: Path) -> list[str]:
    """Live processes (not this one) whose command line or environment names this Ray temp
    directory: Ray's own and its workers (whose titles change, but not their environment)."""
    found = []
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit() and int(proc.name) != os.getpid():
            try:
                text = (proc / "cmdline").read_bytes() + (proc / "environ").read_bytes()
                state = (proc / "stat").read_text().rsplit(")", 1)[1].split()[0]
            except OSError:
                continue
            if str(tmpdir).encode() in text and state != "Z":
                found.append(f"{proc.name} {(proc / 'cmdline').read_bytes()[:100]!r}")
    return found


def ray_agents(tmpdir: Path) -> list[int]:
    """The dashboard and runtime-env agents of this Ray: children of its processes titled
    ray::...Agent (their title overwrites the environment /proc shows, so they are found by parent)."""
    ours = {int(p.split()[0]) for p in ray_processes(tmpdir)}
    found = []
    for proc in Path("/proc").iterdir():
        try:
            if proc.name.isdigit() and int((proc / "stat").read_text().rsplit(")", 1)[1].split()[1]) in ours \
                    and b"Agent" in (proc / "cmdline").read_bytes().split(b"\0")[0]:
                found.append(int(proc.name))
        except OSError:
            continue
    return found


def alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_sigterm_on_ray_leaves_no_ray_process_behind(tmp_path):
    ray_tmp = Path(f"/tmp/kt-{os.getpid()}-term")
    out = tmp_path / "t"
    proc = kaartlab("run", "toy", "--games", "30000000", "--batch-size", "20000", "--workers", "1",
                    "--out", out, "--no-progress", env={"RAY_TMPDIR": str(ray_tmp)})
    try:
        wait_for(lambda: records(out) >= 2, proc=proc)
        assert ray_processes(ray_tmp), "the run uses its own Ray"
        proc.send_signal(signal.SIGTERM)
        _, stderr = proc.communicate(timeout=60)
        assert proc.returncode == 143 and "stopped by SIGTERM" in stderr
        assert "Traceback" not in stderr and "core dumped" not in stderr and "SIGABRT" not in stderr
        wait_for(lambda: not ray_processes(ray_tmp), timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()


def test_a_finished_ray_run_leaves_no_ray_process_behind(tmp_path):
    """After ray.shutdown() the reaper stops after 0.8 s of quiet (not 4 s): nothing of the run's
    Ray may be left when the command returns."""
    ray_tmp = Path(f"/tmp/kt-{os.getpid()}-done")
    proc = kaartlab("run", "toy", "--games", "40000", "--batch-size", "20000", "--workers", "1",
                    "--out", tmp_path / "d", "--no-progress", env={"RAY_TMPDIR": str(ray_tmp)})
    _, stderr = proc.communicate(timeout=180)
    assert proc.returncode == 0, stderr
    assert records(tmp_path / "d") == 2
    assert not ray_processes(ray_tmp)


def test_a_killed_ray_driver_leaves_no_ray_process_behind(tmp_path):
    """SIGKILL cannot be handled: Ray's fate sharing ends the Ray the driver started, and the
    reaper its dashboard and runtime-env agents, which fate sharing leaves running until they notice
    (over 30 s on a loaded machine: this test passed 9 of 10 before the reaper knew them)."""
    ray_tmp = Path(f"/tmp/kt-{os.getpid()}-kill")
    out = tmp_path / "k"
    proc = kaartlab("run", "toy", "--games", "30000000", "--batch-size", "20000", "--workers", "1",
                    "--out", out, "--no-progress", env={"RAY_TMPDIR": str(ray_tmp)})
    try:
        wait_for(lambda: records(out) >= 2, proc=proc)
        assert ray_processes(ray_tmp)
        agents = ray_agents(ray_tmp)
        assert agents, "Ray's agents run (they retitle themselves, which hid them from the token)"
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        began = time.time()  # the reaper ends them at its first look, not Ray when they notice
        while any(alive(pid) for pid in agents) and time.time() - began < 5:
            time.sleep(0.1)
        assert not [pid for pid in agents if alive(pid)]
        deadline = time.time() + 30
        while ray_processes(ray_tmp) and time.time() < deadline:
            time.sleep(0.2)
        assert not ray_processes(ray_tmp)
    finally:
        if proc.poll() is None:
            proc.kill()


def test_the_reaper_ends_what_this_ray_started_even_without_the_token(tmp_path):
    """The cause of a flaky kill test: Ray's agents retitle themselves, which overwrites the
    environment /proc shows, so a reaper that looked only for the token never ended them (they
    lived until they noticed their raylet was gone, over 30 s under load). Here a 'driver' starts the
    reaper and a process that inherits the token, which starts one without it and ignores its
    parent's death; after the driver's SIGKILL both are gone within seconds."""
    script = (
        "import subprocess, sys, time\n"
        "from pipelines.run import _start_reaper\n"
        "_start_reaper()\n"
        "inner = 'import time; time.sleep(120)'\n"
        "outer = f'import subprocess, sys, time; subprocess.Popen([sys.executable, \"-c\", {inner!r}], env={{}}); time.sleep(120)'\n"
        "print(subprocess.Popen([sys.executable, '-c', outer]).pid, flush=True)\n"
        "time.sleep(120)\n")
    driver = subprocess.Popen([sys.executable, "-c", script], cwd=ROOT, stdout=subprocess.PIPE, text=True,
                              env={**os.environ, "PYTHONPATH": str(ROOT)})
    child, grandchild = None, []
    try:
        child = int(driver.stdout.readline())

        def started() -> bool:
            grandchild[:] = [int(p.name) for p in Path("/proc").iterdir() if p.name.isdigit() and alive(int(p.name))
                             and (p / "stat").read_text().rsplit(")", 1)[1].split()[1] == str(child)]
            return bool(grandchild)

        wait_for(started, timeout=30)
        assert b"KAARTLAB_RAY_OWNER" not in Path(f"/proc/{grandchild[0]}/environ").read_bytes()
        time.sleep(1.5)  # the reaper looks every 0.5 s while the driver runs
        driver.kill()
        driver.wait()
        began = time.time()
        while (alive(child) or alive(grandchild[0])) and time.time() - began < 5:
            time.sleep(0.1)
        assert not alive(child) and not alive(grandchild[0])
    finally:
        driver.kill()
        for pid in [p for p in [child, *grandchild] if p]:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass


def test_an_address_where_nothing_listens_fails_in_seconds(tmp_path, capsys):
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # free, and nothing will listen on it
    began = time.monotonic()
    code, _, err = cli(capsys, "run", "toy", "--games", "100", "--out", tmp_path / "x",
                       "--address", f"127.0.0.1:{port}")
    assert code == 3 and time.monotonic() - began < 15
    assert f"cannot reach a Ray cluster at 127.0.0.1:{port}: nothing listens there" in err
    one_line_error(err)
    code, _, err = cli(capsys, "run", "toy", "--games", "100", "--out", tmp_path / "y", "--workers", "0",
                       "--address", f"127.0.0.1:{port}")
    assert code == 2 and "--workers 0 plays in this process and joins no cluster" in err
    assert not (tmp_path / "y").exists()


def test_an_address_that_accepts_and_never_answers_fails_in_seconds(tmp_path, capsys, monkeypatch):
    """A port that accepts a connection and never answers (Ray's client waits 40 s there, then
    ray.init retries for minutes), and one that answers but not in gRPC: one line each, exit 3,
    within the connect deadline; nothing is written but the study's claim."""
    import socket
    import threading

    import pipelines.run as run_module

    monkeypatch.setattr(run_module, "CONNECT_TIMEOUT", 2.0)
    silent, talker = socket.socket(), socket.socket()
    for s in (silent, talker):
        s.bind(("127.0.0.1", 0))
        s.listen()
    held = []

    def answer_http():
        conn, _ = talker.accept()
        held.append(conn)
        conn.sendall(b"HTTP/1.1 400 Bad Request\r\n\r\n")

    threading.Thread(target=answer_http, daemon=True).start()
    try:
        for server, why in ((silent, "gave no answer within 2 s"), (talker, "does not speak gRPC")):
            address = "127.0.0.1:%d" % server.getsockname()[1]
            began = time.monotonic()
            code, _, err = cli(capsys, "run", "toy", "--games", "100", "--out", tmp_path / "x",
                               "--address", address, "--no-estimate")
            assert code == 3 and time.monotonic() - began < 8 and why in err, err
            one_line_error(err)
            assert records(tmp_path / "x") == 0
    finally:
        for s in [silent, talker, *held]:
            s.close()


def test_joining_a_cluster_has_a_deadline(monkeypatch):
    """ray.init(address) once the GCS answered (a head whose nodes advertise an address this
    machine cannot reach retried for 4 min 49 s) is waited for at most KAARTLAB_JOIN_TIMEOUT."""
    import ray

    import pipelines.run as run_module

    monkeypatch.setattr(run_module, "JOIN_TIMEOUT", 1.0)
    monkeypatch.setattr(ray, "init", lambda **kw: time.sleep(30))
    began = time.monotonic()
    with pytest.raises(run_module.RunError, match="not connected within 1 s"):
        run_module._join_under_deadline("127.0.0.1:1", None)
    assert time.monotonic() - began < 3


def test_an_object_store_without_network_fails_in_seconds(tmp_path, capsys, monkeypatch):
    """An unreachable store retries for minutes inside pyarrow; the first look has a time limit."""
    import pyarrow.fs as pafs

    class Hanging(pafs.FileSystemHandler):
        def get_type_name(self):
            return "hanging"

        def get_file_info(self, paths):
            time.sleep(60)

    Hanging.__abstractmethods__ = frozenset()  # only get_file_info is ever called

    import pipelines.storage as storage

    monkeypatch.setattr(storage, "filesystem_from_uri", lambda uri: (pafs.PyFileSystem(Hanging()), "bucket/study"))
    monkeypatch.setenv("KAARTLAB_STORAGE_TIMEOUT", "1")
    began = time.monotonic()
    code, _, err = cli(capsys, "run", "toy", "--games", "100", "--workers", "0", "--out", "gs://bucket/study")
    assert code == 2 and time.monotonic() - began < 10
    assert "did not answer within 1 s: check the network and the storage credentials" in err
    one_line_error(err)


# --------------------------------------------------------------------------------- bounded input

def test_a_trillion_games_is_refused_before_planning_or_writing(tmp_path, capsys):
    import resource

    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    began = time.monotonic()
    code, _, err = cli(capsys, "run", "toy", "--games", "1000000000000", "--workers", "0", "--out", tmp_path / "t")
    assert code == 2 and time.monotonic() - began < 5
    assert "make 20,000,000 batch files; at most 1,000,000 per study: use --batch-size 1,000,000 or more" in err
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 100_000  # KiB
    assert not (tmp_path / "t").exists()
    from pipelines.plan import check_limits

    check_limits(StudySpec("big", 0, 10**12, 10**6, (ArmSpec.make("toy", 4),)))  # fits: a cluster's work


@pytest.mark.parametrize("argv,message", [
    (["--batch-size", "1000000000", "--games", "2000000000"], "this machine allows"),
    (["--games", "0"], "--games=0: expected a whole number 1.."),
    (["--games", "12abc"], "--games=12abc: expected a whole number 1.."),
    (["--workers", "100000"], "--workers=100000: expected 0 (in this process) to"),
    (["--workers", "-1"], "--workers=-1"),
    (["--seed", "-1"], "seed=-1"),
    (["--seed", str(2**70)], "seed="),
    (["--players", "4.7"], "invalid int value"),
])
def test_out_of_bounds_command_lines_are_one_clear_error(tmp_path, capsys, argv, message):
    try:
        code, _, err = cli(capsys, "run", "toy", "--out", tmp_path / "o", "--workers", "0", *argv)
    except SystemExit as exit_:  # argparse's own: usage and one error line
        code, err = exit_.code, capsys.readouterr().err
    assert code == 2 and message in err and "Traceback" not in err, err
    assert not (tmp_path / "o").exists()


def test_a_device_a_fifo_or_a_huge_file_is_refused_before_it_is_read(tmp_path, capsys):
    """Kind and size are checked before a study file, a deck or a data copy is opened, and at most
    the limit is read: /dev/zero and a FIFO once read for ever (a FIFO blocked)."""
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    big = tmp_path / "big.toml"
    big.write_bytes(b"# " + b"x" * (1 << 20) + b"\n")
    cases = [(["study", "/dev/zero"], "is not a regular file"), (["study", fifo], "is not a regular file"),
             (["study", big], "is larger than 1,048,576 bytes"), (["study", tmp_path], "is not a regular file")]
    for deck, why in (("/dev/zero", "is not a regular file"), (fifo, "is not a regular file"),
                      (big, "is larger than 1,048,576 bytes")):
        cases.append((["run", "toy", "--players", "2", "--deck", deck, "--workers", "0", "--out", tmp_path / "o"], why))
    for argv, why in cases:
        began = time.monotonic()
        code, _, err = cli(capsys, *argv)
        assert code == 2 and why in err and time.monotonic() - began < 5, (argv, err)
        one_line_error(err)


def test_an_empty_out_and_an_unwritable_bench_json_are_refused_at_once(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for argv in (["run", "toy", "--games", "10", "--workers", "0", "--out", ""],
                 ["report", tmp_path, "--out", " "]):
        code, _, err = cli(capsys, *argv)
        assert code == 2 and "--out is empty" in err, err
        one_line_error(err)
    assert not (tmp_path / "runs").exists()
    began = time.monotonic()
    code, _, err = cli(capsys, "bench", "--json", "/proc/nope/x.json", "--quick")
    assert code == 2 and "--json '/proc/nope/x.json' cannot be written" in err and time.monotonic() - began < 5
    one_line_error(err)
