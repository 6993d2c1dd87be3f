"""The benchmark suite's mechanism (not the machine's speed): the regression check, the JSON
shape, case selection, the committed baseline, and `kaartlab bench --quick` end to end."""
from __future__ import annotations

import argparse
import copy
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.compare import compare, format_table, matches, parse_patterns, select_cases  # noqa: E402

CASE_FIELDS = {"name", "game", "policy", "kind", "value", "unit", "normalised", "repeats"}
ISSUE_CASES = ("knutten/random/kernel", "knutten/cautious/kernel",
               "knutten/random/pipeline_2cores_over_kernel")


def _case(name, normalised, better="higher", unit="games/s/core"):
    return {"name": name, "game": name.split("/")[0], "policy": None, "kind": "kernel",
            "value": normalised * 300, "unit": unit, "normalised": normalised,
            "normalised_unit": "games/Mop", "better": better, "repeats": [normalised * 300]}


def _result(*cases):
    return {"kaartlab_bench": 1, "mode": "full", "calibration": {"ops_per_s": 3e8, "version": "v1-x"},
            "machine": {}, "cases": list(cases)}


BASE = _result(_case("knutten/random/kernel", 700.0), _case("knutten/cautious/kernel", 250.0),
               _case("knutten/compile", 9000.0, better="lower", unit="s"),
               _case("knutten/random/mean_turns_kernel", 37.6, better=None))


# ------------------------------------------------------------------------------- comparison

def test_an_equal_run_passes():
    result = compare(BASE, copy.deepcopy(BASE), tolerance=0.15)
    assert not result.failed
    assert {r.verdict for r in result.rows} == {"ok", "info"}
    assert "no regression" in format_table(result)


def test_a_30_percent_slower_kernel_fails_at_tolerance_015():
    now = copy.deepcopy(BASE)
    now["cases"][0]["normalised"] *= 0.70
    result = compare(BASE, now, tolerance=0.15)
    assert result.failed
    assert [r.name for r in result.regressions] == ["knutten/random/kernel"]
    row = result.regressions[0]
    assert row.ratio == pytest.approx(0.70)
    table = format_table(result)
    assert "REGRESSION" in table and "knutten/random/kernel" in table
    # the tolerance is an option: 0.35 lets the same drop pass
    assert not compare(BASE, now, tolerance=0.35).failed


def test_small_noise_passes_and_big_gains_are_not_failures():
    now = copy.deepcopy(BASE)
    now["cases"][0]["normalised"] *= 0.90
    now["cases"][1]["normalised"] *= 1.60
    result = compare(BASE, now, tolerance=0.15)
    assert not result.failed
    assert {r.name: r.verdict for r in result.rows}["knutten/cautious/kernel"] == "improved"


def test_lower_is_better_cases_fail_when_they_grow():
    now = copy.deepcopy(BASE)
    now["cases"][2]["normalised"] *= 1.30  # compile time 30 % longer
    result = compare(BASE, now, tolerance=0.15)
    assert [r.name for r in result.regressions] == ["knutten/compile"]
    now["cases"][2]["normalised"] = BASE["cases"][2]["normalised"] * 0.5  # faster: fine
    assert not compare(BASE, now, tolerance=0.15).failed


def test_information_and_missing_cases_never_fail():
    now = copy.deepcopy(BASE)
    now["cases"][3]["normalised"] *= 0.1  # mean turns: information only
    del now["cases"][1]  # not measured this time
    now["cases"].append(_case("wizard/random/kernel", 10.0))
    verdicts = {r.name: r.verdict for r in compare(BASE, now).rows}
    assert verdicts["knutten/random/mean_turns_kernel"] == "info"
    assert verdicts["knutten/cautious/kernel"] == "missing"
    assert verdicts["wizard/random/kernel"] == "new"
    assert not compare(BASE, now).failed


def test_cases_selection_limits_the_comparison():
    now = copy.deepcopy(BASE)
    now["cases"][0]["normalised"] *= 0.5
    assert compare(BASE, now, patterns=["knutten/random/*"]).failed
    result = compare(BASE, now, patterns=parse_patterns(["knutten/cautious/kernel,*/compile"]))
    assert not result.failed
    assert [r.name for r in result.rows] == ["knutten/cautious/kernel", "knutten/compile"]


def test_case_patterns():
    assert parse_patterns(None) == []
    assert parse_patterns(["a/*, b", "c"]) == ["a/*", "b", "c"]
    assert matches("knutten/random/kernel", [])
    assert matches("knutten/random/kernel", ["*/kernel"])
    assert matches("knutten/random/kernel", ["knutten"])  # a plain word selects a prefix
    assert matches("knutten/random/kernel", ["knutten/random"])
    assert not matches("knutten/random/kernel", ["knut"])
    assert not matches("knutten/random/kernel", ["wizard/*", "*/pipeline_*"])
    names = [c["name"] for c in select_cases(BASE["cases"], ["*/kernel"])]
    assert names == ["knutten/random/kernel", "knutten/cautious/kernel"]


def test_a_bad_tolerance_is_refused():
    with pytest.raises(ValueError):
        compare(BASE, BASE, tolerance=1.5)


# ------------------------------------------------------------------------------- the command

def _bench_parser() -> argparse.ArgumentParser:
    """The real `kaartlab` parser when sim/cli.py registers `bench`, else one with it added."""
    from sim import bench, cli

    parser = cli.build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    if "bench" not in sub.choices:
        bench.add_parser(sub)
    return parser


def _bench(capsys, *argv):
    args = _bench_parser().parse_args(["bench", *argv])
    code = args.handler(args)
    return code, capsys.readouterr().out


def test_compare_saved_results_exit_status(capsys, tmp_path):
    base, now = tmp_path / "base.json", tmp_path / "now.json"
    base.write_text(json.dumps(BASE))
    now.write_text(json.dumps(BASE))
    code, out = _bench(capsys, "--results", str(now), "--compare", str(base))
    assert code == 0, out
    slower = copy.deepcopy(BASE)
    slower["cases"][0]["normalised"] *= 0.70
    now.write_text(json.dumps(slower))
    code, out = _bench(capsys, "--results", str(now), "--compare", str(base), "--tolerance", "0.15")
    assert code == 1
    assert "REGRESSION" in out
    code, out = _bench(capsys, "--results", str(now), "--compare", str(base),
                       "--cases", "knutten/cautious/*")
    assert code == 0, out


def test_list_shows_the_issue_cases_and_filters(capsys):
    code, out = _bench(capsys, "--list", "--games", "knutten")
    assert code == 0
    names = out.split()
    for name in ISSUE_CASES + ("knutten/compile", "knutten/random/long_study_scaling",
                               "knutten/random/kernel_over_pure_python", "ray/init"):
        assert name in names
    assert not any(n.startswith("wizard/") for n in names)
    code, out = _bench(capsys, "--list", "--games", "knutten", "--cases", "*/kernel")
    assert out.split() == ["knutten/cautious/kernel", "knutten/random/kernel", "knutten/trap/kernel",
                           "knutten/search/kernel"]


def test_unknown_game_and_unmatched_cases_are_errors(capsys):
    from sim.errors import SpecError

    with pytest.raises(SpecError, match="unknown game"):
        _bench(capsys, "--games", "knutten,nope", "--list")
    with pytest.raises(SpecError, match="matches no case"):
        _bench(capsys, "--games", "knutten", "--cases", "nothing/like/this")


# ------------------------------------------------------------------------------- pieces

def test_calibration_kernel_is_fixed_work():
    from benchmarks.calibration import Calibration, calibration_nb

    assert calibration_nb(1000, 7) == calibration_nb(1000, 7)
    cal = Calibration(seconds=0.01)
    samples = cal.sample(2)
    assert len(samples) == 2 and all(s > 0 for s in samples)
    data = cal.to_dict()
    assert data["ops_per_s"] > 0 and data["version"].startswith("v")


def test_pure_python_knutten_plays_the_kernels_game():
    """Same rules, different random streams: mean turns per game agree within sampling error."""
    from benchmarks.pure_python_knutten import play_games
    from benchmarks.suite import batch_call, bench_arm

    games = play_games(3000, seed=11, players=4)
    assert all(g["winners"] and max(g["bites"]) >= 3 for g in games)
    pure = [g["turns"] for g in games]
    kernel = batch_call("knutten")(bench_arm("knutten", "random"), 50_000).column("turns").to_numpy()
    p_mean = sum(pure) / len(pure)
    p_var = sum((t - p_mean) ** 2 for t in pure) / len(pure)
    se = (p_var / len(pure) + kernel.var() / len(kernel)) ** 0.5
    assert abs(p_mean - kernel.mean()) < 5 * se, (p_mean, kernel.mean(), se)
    john = play_games(300, seed=2, players=3, john_knut=True, heavy_weather=True)
    assert all(g["winners"] for g in john)


def test_committed_baseline_is_complete():
    baseline = json.loads((ROOT / "benchmarks" / "baseline.json").read_text())
    _check_result_shape(baseline)
    assert baseline["mode"] == "full"
    assert baseline["command"] and baseline["created"]
    names = {c["name"] for c in baseline["cases"]}
    for name in ISSUE_CASES + ("knutten/compile", "knutten/random/long_study_scaling",
                               "knutten/random/kernel_over_pure_python",
                               "knutten/random/driver_rss_growth"):
        assert name in names
    assert not compare(baseline, baseline).failed


def _check_result_shape(result: dict) -> None:
    machine = result["machine"]
    for key in ("cpu", "cores", "python", "packages", "git"):
        assert key in machine, key
    assert {"numba", "numpy", "pyarrow", "ray"} <= set(machine["packages"])
    assert result["calibration"]["ops_per_s"] > 0
    assert result["cases"]
    for case in result["cases"]:
        missing = CASE_FIELDS - set(case)
        assert not missing, (case["name"], missing)
        assert isinstance(case["repeats"], list)
        assert isinstance(case["value"], (int, float)) and isinstance(case["normalised"], (int, float))


# ------------------------------------------------------------------------------- end to end

def _command() -> list[str]:
    """`kaartlab bench` once sim/cli.py registers it; until then the same handler via
    `python -m benchmarks`."""
    from sim import cli

    sub = next(a for a in cli.build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    if "bench" in sub.choices:
        return [sys.executable, "-m", "sim.cli", "bench"]
    return [sys.executable, "-m", "benchmarks"]


@pytest.fixture(scope="module")
def warm_kernels():
    """Compile (or load) the Knutten kernel once outside the timed run, as a user's machine has."""
    from benchmarks.suite import batch_call, bench_arm

    batch_call("knutten")(bench_arm("knutten", "random"), 1)


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory, warm_kernels):
    out = tmp_path_factory.mktemp("bench") / "x.json"
    proc = subprocess.run(_command() + ["--quick", "--games", "knutten", "--json", str(out)],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return json.loads(out.read_text()), proc.stdout


def test_quick_suite_runs_end_to_end(quick_run):
    result, stdout = quick_run  # how long it took is the machine's business, not a test's
    assert result["mode"] == "quick"
    _check_result_shape(result)
    names = {c["name"] for c in result["cases"]}
    for name in ISSUE_CASES + ("knutten/random/pipeline_1core", "knutten/random/pipeline_allcores",
                               "knutten/random/parquet_bytes_per_game",
                               "knutten/random/long_study_scaling", "knutten/random/driver_rss",
                               "knutten/random/driver_rss_4x", "knutten/random/pure_python",
                               "knutten/random/kernel_over_pure_python",
                               "knutten/random/mean_turns_pure_python",
                               "knutten/random/kernel_2proc_scaling", "ray/init"):
        assert name in names, name
    assert not any(n.startswith("wizard/") for n in names)
    for line in ("knutten/random/kernel", "calibration"):
        assert line in stdout
    cases = {c["name"]: c for c in result["cases"]}
    assert cases["knutten/random/kernel"]["unit"] == "games/s/core"
    assert len(cases["knutten/random/kernel"]["repeats"]) == 5  # rounds, spread over 3 s each
    assert cases["knutten/random/kernel"]["statistic"] == "best"
    assert cases["knutten/random/kernel"]["value"] == max(cases["knutten/random/kernel"]["repeats"])
    assert result["settings"]["round_seconds"] == 3.0
    assert cases["knutten/random/pipeline_2cores_over_kernel"]["target"] == 1.6
    assert cases["knutten/random/mean_turns_kernel"]["detail"]["agree"]
    two = cases["knutten/random/kernel_2proc_scaling"]["detail"]
    assert cases["knutten/random/kernel_2proc_scaling"]["value"] == pytest.approx(
        two["two_processes_games_per_s"] / two["one_process_games_per_s"])
    assert len(two["two_process_runs"]) == len(two["one_process_runs"]) >= 1
    # a run compared with itself passes; with a 30 % slower kernel in the baseline's place, fails
    assert not compare(result, result).failed
    slower = copy.deepcopy(result)
    for case in slower["cases"]:
        if case["name"] == "knutten/random/kernel":
            case["normalised"] *= 0.7
    assert [r.name for r in compare(result, slower, 0.15).regressions] == ["knutten/random/kernel"]


def test_cases_option_limits_what_is_measured(tmp_path, warm_kernels):
    out = tmp_path / "k.json"
    proc = subprocess.run(_command() + ["--quick", "--games", "knutten", "--cases",
                                        "knutten/cautious/kernel", "--round-seconds", "0",
                                        "--json", str(out)],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    result = json.loads(out.read_text())
    assert [c["name"] for c in result["cases"]] == ["knutten/cautious/kernel"]
    assert "(ray with" not in proc.stdout  # no Ray session was started


def test_profile_kernel_names_and_attributes_samples():
    """The profiler's pure parts: Numba's mangled names shortened, samples given to the nearest
    function start below them, samples outside the kernel left out."""
    from benchmarks.profile_kernel import _short, attribute

    assert _short("_ZN7kernels7knutten8table_nb7draw_nbB3v33B56c8tJTIeFIjx") == "knutten.table_nb.draw_nb"
    shares, total = attribute({"a": 1000, "b": 5000}, [1000, 1200, 4999, 5000, 5100, 10, 999_999])
    assert total == 7
    assert shares == {"a": 3, "b": 2}


@pytest.mark.skipif(shutil.which("objdump") is None, reason="needs objdump (binutils)")
def test_profile_kernel_annotates_instructions_with_their_samples():
    """`--annotate`: the copied machine code is disassembled and each sample lands on the
    instruction whose bytes hold it; samples outside the function are left out."""
    from benchmarks.profile_kernel import annotate

    code = bytes.fromhex("b801000000" "4801c0" "c3")  # mov eax,1 / add rax,rax / ret
    text = annotate("f", 0x1000, code, [0x1005, 0x1006, 0x1008, 0x1008, 0x2000])
    assert "f: 4 samples, 3 instructions" in text
    ret = next(line for line in text.splitlines() if line.endswith("ret"))
    add = next(line for line in text.splitlines() if "add" in line and "rax,rax" in line)
    assert "50.0 %" in ret and "0x1008" in ret
    assert "50.0 %" in add and "0x1005" in add


def test_count_kernel_reads_callgrind_costs_per_instruction():
    """The counting tool's pure parts: callgrind's compressed addresses (absolute, +n, -n, *) are
    followed, a callee's inclusive cost after `calls=` is not counted as the caller's own, costs
    outside the kernel's code are left out, and hot straight runs are summed and ranked."""
    from benchmarks.count_kernel import hot_runs, parse_callgrind

    text = "\n".join([
        "version: 1", "positions: instr", "events: Ir Bc Bcm Bi Bim", "fn=(1) 0x1000",
        "0x1000 10 0 0",       # 10 instructions executed at 0x1000
        "+4 10 10 3",          # 0x1004: a branch, 10 runs, 3 mispredicted
        "* 5",                 # 0x1004 again (another context): 5 more
        "calls=1 0x9000", "+2 900 90 9",  # 0x1006 calls: the callee's cost, not 0x1006's own
        "-6 1",                # back at 0x1000
        "0x5000 77",           # outside the kernel
    ])
    costs = parse_callgrind(text, 0x1000, 0x2000)
    assert costs == {0x1000: [11, 0, 0], 0x1004: [15, 10, 3]}
    rows = [(0x1000, "mov"), (0x1004, "jne"), (0x1006, "call"), (0x100b, "ret"), (0x100c, "add")]
    costs[0x100c] = [4, 0, 0]
    assert hot_runs(rows, costs, per=1.0, floor=2) == [(26.0, 0, 2), (4.0, 4, 1)]


def test_ab_game_rewrites_imports_and_takes_the_median_of_pair_ratios(tmp_path):
    """The A/B tool's pure parts: a snapshot's imports point at its own package (and nothing
    that merely ends in `kernels` is touched); the figure is the median over pairs of ref/new time
    (a pair where the machine stalled moves it less than it would move a ratio of totals)."""
    from benchmarks.ab_game import REF_PACKAGE, median_ratio, rewrite_imports

    text = "from kernels.jit import njit\nimport kernels.rng_nb\nmykernels.x = 1\n"
    assert rewrite_imports(text) == (f"from {REF_PACKAGE}.jit import njit\n"
                                     f"import {REF_PACKAGE}.rng_nb\nmykernels.x = 1\n")
    assert median_ratio([1.0, 1.0, 1.0], [1.2, 1.1, 9.0]) == pytest.approx(1.2)
    assert median_ratio([2.0, 1.0, 1.0], [1.0, 1.0, 1.0]) == pytest.approx(1.0)


@pytest.mark.parametrize("module,policy", [("wippen_kernel", "greedy"), ("wippen_kernel", "random"),
                                           ("wieisdeheer_kernel", "reasoner"),
                                           ("wizard_kernel", "heuristic")])
def test_kernel_benchmarks_play_their_games(module, policy):
    """A benchmark's hand-made kernel call still matches its kernel (a new player parameter once
    left wippen_kernel's call refused as bad arguments): two games are played and counted."""
    import importlib

    bench_module = importlib.import_module(f"benchmarks.{module}")
    run = bench_module.make_runner(4, policy, 2)
    played = run(0, 2)
    assert played is None or played > 0


def test_compare_confirms_a_flagged_case_in_fresh_processes(tmp_path, warm_kernels, monkeypatch, capsys):
    """`--compare` looks again at a flagged kernel case twice, each look a `kaartlab bench` process
    of its own, timing the baseline's games, and judges the median of the three looks: a baseline
    10x faster than this machine stays a regression."""
    from sim.cli import main

    out = tmp_path / "now.json"
    assert main(["bench", "--quick", "--games", "knutten", "--cases", "knutten/cautious/kernel",
                 "--round-seconds", "0", "--json", str(out)]) == 0
    base = json.loads(out.read_text())
    base["cases"][0]["normalised"] *= 10
    (tmp_path / "base.json").write_text(json.dumps(base))
    looks = []
    real_run = subprocess.run

    def run(command, *args, **kwargs):
        if command[1:3] == ["-m", "sim.cli"]:  # not the provenance's git calls
            looks.append(command)
        return real_run(command, *args, **kwargs)

    monkeypatch.setattr(subprocess, "run", run)
    capsys.readouterr()
    assert main(["bench", "--quick", "--games", "knutten", "--cases", "knutten/cautious/kernel",
                 "--round-seconds", "0", "--compare", str(tmp_path / "base.json")]) == 1
    stdout = capsys.readouterr().out
    assert "median of its 3 looks; a kernel case" in stdout and "REGRESSION" in stdout
    assert len(looks) == 2
    for command in looks:
        assert command[:4] == [sys.executable, "-m", "sim.cli", "bench"]
        assert "--quick" in command and command[command.index("--cases") + 1] == "knutten/cautious/kernel"
        assert command[command.index("--same-games-as") + 1] == str(tmp_path / "base.json")
        assert command[command.index("--round-seconds") + 1] == "0.0"


def test_a_comparison_times_the_games_its_baseline_timed(tmp_path, warm_kernels):
    """Sized from a timing, a case plays other games in another process (a search case one game or
    two); `--compare` (and `--same-games-as`) time as many games per call as the baseline did."""
    from benchmarks.suite import games_of
    from sim.cli import main

    args = ["bench", "--quick", "--games", "knutten", "--cases", "knutten/random/kernel,knutten/random/play_batch",
            "--round-seconds", "0"]
    assert main(args + ["--json", str(tmp_path / "a.json")]) == 0
    base = json.loads((tmp_path / "a.json").read_text())
    for case in base["cases"]:
        case["detail"]["games_per_repeat"] = 777  # not what a timing would give
    (tmp_path / "base.json").write_text(json.dumps(base))
    assert games_of(base) == {"knutten/random/kernel": 777, "knutten/random/play_batch": 777}
    assert main(args + ["--compare", str(tmp_path / "base.json"), "--tolerance", "0.99",
                        "--json", str(tmp_path / "b.json")]) == 0
    assert games_of(json.loads((tmp_path / "b.json").read_text())) == games_of(base)
    assert main(args + ["--same-games-as", str(tmp_path / "b.json"), "--json", str(tmp_path / "c.json")]) == 0
    assert games_of(json.loads((tmp_path / "c.json").read_text())) == games_of(base)
    assert main(args + ["--same-games-as", str(tmp_path / "missing.json")]) == 2
