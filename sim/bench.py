"""`kaartlab bench`: the benchmark suite (benchmarks/) and the CI regression check.

    kaartlab bench [--games knutten,wizard] [--cases GLOBS] [--json PATH] [--quick] [--runs N]
                   [--compare BASELINE.json] [--tolerance T] [--confirm N] [--long-games N]
                   [--results RUN.json [RUN.json ...]]

The same suite runs as `python -m benchmarks` from a checkout. The measuring code lives in the
repository's benchmarks/ package; this module only defines the command and finds that package.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from sim.argtypes import positive_int
from sim.errors import SpecError

DESCRIPTION = """\
Measure every registered game and policy: kernel games/s per core (the best of rounds spread
over the run, after a warm-up), compile time apart (fresh Numba cache in a fresh process), the whole pipeline (Ray +
Parquet) on 1 and on all cores, Parquet bytes per game, driver memory over a long study and a 4x
longer one, a pure-Python Knutten for the kernels' speed-up. Every figure is also given relative
to a calibration kernel measured in the same run (`normalised`), so baselines recorded on one
machine can be checked on another: --compare exits with status 1 when a normalised figure is
worse than the baseline's by more than its tolerance. A baseline of several runs (--runs N, or
--results with several files) keeps each case's median and a tolerance from the spread of its
runs, judged per group: kernel, pipeline, compile, size. A timed case flagged at first look is
measured again (--confirm N), each time in a fresh process, and judged on the median of its
looks (a kernel case on its best look)."""

EPILOG = """\
examples:
  kaartlab bench --quick                                   # a minute: every case, tiny sizes
  kaartlab bench --json bench.json                         # the full suite (several minutes)
  kaartlab bench --quick --runs 5 --json baseline.json     # a baseline with a tolerance per case
  kaartlab bench --results a.json b.json c.json --json baseline.json   # the same from runs made apart
  kaartlab bench --compare benchmarks/baseline.json --cases 'knutten/*/kernel,*/pipeline_*'
  kaartlab bench --results bench.json --compare benchmarks/baseline.json   # no measuring
  kaartlab bench --list --games knutten                    # case names
see docs/benchmarks.md for how to read the numbers and wire the check into CI"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--games", default=None,
                   help="comma-separated games to measure (default: every registered game)")
    p.add_argument("--cases", action="append", default=None, metavar="GLOBS",
                   help="only these cases, comma-separated globs (e.g. 'knutten/*/kernel,ray/*'); "
                        "applies to what is measured and to --compare; repeatable")
    p.add_argument("--json", dest="json_path", metavar="PATH", help="write the results here")
    p.add_argument("--compare", metavar="BASELINE", help="compare against this results file")
    p.add_argument("--tolerance", type=_tolerance, default=None,
                   help="allowed drop of a normalised figure before --compare fails, for every case "
                        "(default: each case's own, stored in a baseline of several runs; else 0.15)")
    p.add_argument("--confirm", type=int, default=2, metavar="N",
                   help="with --compare: measure every timed case that is flagged N more times, each "
                        "in a fresh process, and judge it on the median of its looks (a kernel case, "
                        "the best of its rounds, on its best look), so that a moment "
                        "of a busy machine or an unlucky process does not fail the check (default 2; "
                        "0: judge the first look alone)")
    p.add_argument("--runs", type=positive_int, default=1,
                   help="measure the whole suite N times and keep each case's median and, for N >= 2, "
                        "a tolerance from its spread (recording a baseline: 5 is a good number)")
    p.add_argument("--quick", action="store_true",
                   help="tiny sizes, fewer repeats, no compile measurement, one-core pipeline "
                        "in-process (about a minute)")
    p.add_argument("--long-games", type=positive_int, default=None, metavar="N",
                   help="games in the long study (default 10,000,000; --quick 100,000)")
    p.add_argument("--repeats", type=positive_int, default=None,
                   help="timed rounds per kernel and play_batch figure, each case once a round; "
                        "a case is its best round (default 7; --quick 5)")
    p.add_argument("--round-seconds", type=_seconds, default=None, metavar="S",
                   help="a round of kernel cases lasts at least S seconds (waiting between rounds), "
                        "so that a few cases' rounds are spread over a slow spell of the machine "
                        "instead of falling into one (default 0; --quick 3)")
    p.add_argument("--compile", action=argparse.BooleanOptionalAction, default=None,
                   help="measure compile time in a fresh process (default: on; off with --quick)")
    p.add_argument("--results", metavar="PATH", nargs="+",
                   help="do not measure: read results from PATH (e.g. to --compare them); several "
                        "files are merged like --runs")
    p.add_argument("--same-games-as", metavar="RESULTS", default=None,
                   help="time, in each kernel and play_batch case, as many games per call as this "
                        "results file did (--compare does it with its baseline; the later runs of "
                        "--runs with the first's): sized from a timing, a case plays other games in "
                        "another process")
    p.add_argument("--list", action="store_true", help="print the case names and exit")


def add_parser(subparsers) -> argparse.ArgumentParser:
    """Register `bench` on the CLI's subparsers (sim/cli.py build_parser)."""
    p = subparsers.add_parser("bench", help="benchmark kernels and the pipeline; CI regression check",
                              description=DESCRIPTION, epilog=EPILOG,
                              formatter_class=argparse.RawDescriptionHelpFormatter)
    add_arguments(p)
    p.set_defaults(handler=cmd_bench)
    return p


def _look_in_a_fresh_process(args, names: list[str], flagged: list[str]) -> dict:
    """One more look at the `flagged` cases, in a process of its own and some seconds later, as a CI
    job measures its run, timing the same games (a shared machine runs slow in spells of seconds to
    tens of seconds: docs/benchmarks.md, "Slow spells, not slow processes")."""
    import subprocess
    import tempfile

    with tempfile.TemporaryDirectory(prefix="kaartlab-look-") as tmp:
        out = Path(tmp) / "look.json"
        command = [sys.executable, "-m", "sim.cli", "bench", "--games", ",".join(names),
                   "--cases", ",".join(flagged), "--json", str(out), "--no-compile"]
        if args.quick:
            command.append("--quick")
        for flag, value in (("--long-games", args.long_games), ("--repeats", args.repeats),
                            ("--round-seconds", args.round_seconds),
                            ("--same-games-as", args.same_games_as or args.compare)):
            if value is not None:
                command += [flag, str(value)]
        done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if done.returncode != 0:
            raise SpecError(f"a confirming look at {', '.join(flagged)} failed: "
                            + (done.stderr.strip().splitlines() or ["no message"])[-1])
        return json.loads(out.read_text())


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not 0 <= value <= 600:
        raise argparse.ArgumentTypeError(f"{value} must be in [0, 600] seconds")
    return value


def _tolerance(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 0 <= value < 1:
        raise argparse.ArgumentTypeError(f"{value} must be in [0, 1): 0.15 allows a 15% drop")
    return value


def _benchmarks():
    """Import the repository's benchmarks package (it sits beside sim/, not in the wheel)."""
    try:
        import benchmarks.suite  # noqa: F401
    except ModuleNotFoundError as exc:
        if exc.name not in ("benchmarks", "benchmarks.suite"):
            raise
        root = Path(__file__).resolve().parents[1]
        if not (root / "benchmarks" / "suite.py").exists():
            raise SpecError("kaartlab bench needs the repository's benchmarks/ directory: run it "
                            "from a checkout (pip install -e .)") from None
        sys.path.insert(0, str(root))
    import benchmarks.compare
    import benchmarks.suite

    return benchmarks.suite, benchmarks.compare


def _load(path: str, what: str) -> dict:
    try:
        data = json.loads(Path(path).read_text())
    except FileNotFoundError:
        raise SpecError(f"{what} {path!r} does not exist") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise SpecError(f"{what} {path!r} cannot be read: {exc}") from None
    if not isinstance(data, dict) or not isinstance(data.get("cases"), list):
        raise SpecError(f"{what} {path!r} is not a kaartlab bench results file (no 'cases' list)")
    return data


def _check_writable(path: str) -> None:
    """--json PATH can be written: its directory is made and the file opened for appending (and
    removed again when it did not exist), so a bad path fails before the suite runs."""
    target = Path(path)
    existed = target.exists()
    try:
        if target.is_dir():
            raise IsADirectoryError(21, "Is a directory")
        target.parent.mkdir(parents=True, exist_ok=True)
        with open(target, "a"):
            pass
    except OSError as exc:
        raise SpecError(f"--json {path!r} cannot be written: {exc.strerror or exc}") from None
    if not existed:
        target.unlink()


def cmd_bench(args) -> int:
    from sim.registry import games as registered

    suite, compare = _benchmarks()
    names = sorted(registered()) if not args.games else [g.strip() for g in args.games.split(",") if g.strip()]
    for name in names:
        if name not in registered():
            raise SpecError(f"--games: unknown game {name!r} (known: {', '.join(sorted(registered()))})")
    patterns = compare.parse_patterns(args.cases)
    planned = suite.planned_cases(names)
    if args.list:
        print("\n".join(n for n in planned if compare.matches(n, patterns)))
        return 0
    if args.json_path:
        _check_writable(args.json_path)  # before minutes of measuring, not after
    baseline = _load(args.compare, "baseline") if args.compare else None
    if args.results:
        if args.runs != 1 or args.same_games_as:
            raise SpecError(f"{'--runs' if args.runs != 1 else '--same-games-as'} measures; --results reads "
                            "runs already measured: give one of them")
        runs = [_load(path, "results file") for path in args.results]
    else:
        if patterns and not any(compare.matches(n, patterns) for n in planned):
            raise SpecError(f"--cases {','.join(patterns)}: matches no case (see kaartlab bench --list)")
        settings = suite.Settings.make(names, patterns, quick=args.quick, long_games=args.long_games,
                                       repeats=args.repeats, compile=args.compile,
                                       command=getattr(args, "bench_command", None)
                                       or "kaartlab " + " ".join(sys.argv[1:]))
        if args.round_seconds is not None:
            settings.round_seconds = args.round_seconds
        same_as = _load(args.same_games_as, "--same-games-as file") if args.same_games_as else baseline
        if same_as is not None:
            settings.games_per_call = suite.games_of(same_as)
        runs = []
        for k in range(args.runs):
            if args.runs > 1:
                print(f"run {k + 1} of {args.runs}", flush=True)
            runs.append(suite.run_suite(settings))
            settings.games_per_call = settings.games_per_call or suite.games_of(runs[0])
            print()
            print("\n".join(suite.summary_lines(runs[-1])))
            print(f"({runs[-1]['mode']} run: {runs[-1]['seconds']:.0f} s; calibration "
                  f"{runs[-1]['calibration']['ops_per_s'] / 1e6:,.0f} Mop/s)")
    try:
        result = runs[0] if len(runs) == 1 else compare.merge_runs(runs)
    except ValueError as exc:
        raise SpecError(f"--results: {exc}") from None
    if len(runs) > 1:
        judged = [c for c in result["cases"] if "tolerance" in c]
        print(f"merged {len(runs)} runs: each case's median; tolerances from their spread for "
              f"{len(judged)} compared case(s)")
    if args.json_path:
        try:
            Path(args.json_path).write_text(json.dumps(result, indent=2) + "\n")
        except OSError as exc:
            raise SpecError(f"--json {args.json_path!r} cannot be written: {exc}") from None
        print(f"results: {args.json_path}")
    if args.compare:
        if args.results or args.confirm <= 0:
            outcome = compare.compare(baseline, result, args.tolerance, patterns)
        else:
            def remeasure(flagged):
                return _look_in_a_fresh_process(args, names, flagged)

            result, outcome = compare.confirm(baseline, result, remeasure, args.confirm, args.tolerance,
                                              patterns)
        print()
        print(f"against {args.compare} ({baseline.get('mode', '?')} run of "
              f"{baseline.get('created', '?')}, {baseline.get('machine', {}).get('cpu', '?')}):")
        print(compare.format_table(outcome))
        if "confirmed" in result:
            print(f"(each of the {len(result['confirmed']['cases'])} case(s) flagged at first look is judged on the "
                  f"median of its {result['confirmed']['looks']} looks; a kernel case, already the best of its "
                  "rounds, on the best look)")
        return 1 if outcome.failed else 0
    return 0
