"""Does the regression check flap, and does it catch a slower kernel? Measured, not assumed.

    python -m benchmarks.flap_check [--cases '*/kernel,*/play_batch'] [--baseline-runs 5]
                                    [--equal 10] [--slowed 5] [--slower 0.10] [--confirm 2]
                                    [--same-process] [--json out.json]

Records a baseline of `--baseline-runs` quick runs (each case's median and its tolerance from their
spread, as `kaartlab bench --quick --runs N` does), then compares `--equal` further runs of the same
code with it (the goal: every one passes) and `--slowed` runs in which one kernel case, a different
one each run, is made `--slower` slower in CPU time (benchmarks/suite.py: `handicap`; the goal:
that case is flagged each time, and nothing else). Run it on an idle machine: it measures the
machine's noise as much as the check.

Each run (and each second look at a flagged case) is measured in a process of its own, as a CI job
runs `kaartlab bench --quick --compare` in a fresh process against a baseline recorded earlier: one
long process drifted (Knutten's cases a few per cent slower after ten minutes) in a way no CI run
sees. `--same-process` measures everything in this process, as before 2026-12-06.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

from benchmarks.compare import confirm, merge_runs, parse_patterns
from benchmarks.suite import Settings, games_of, run_suite


def measure_here(games, patterns, handicap=None, same_games=None) -> dict:
    settings = Settings.make(games, patterns, quick=True, command="benchmarks.flap_check", progress=False)
    settings.handicap = dict(handicap or {})
    settings.games_per_call = dict(same_games or {})
    return run_suite(settings)


def measure(games, patterns, handicap=None, fresh=True, same_games=None) -> dict:
    """One quick run of the cases matching `patterns`, in a process of its own if `fresh`;
    `same_games`: games per call of each kernel case (as `kaartlab bench --same-games-as`)."""
    if not fresh:
        return measure_here(games, patterns, handicap, same_games)
    with tempfile.TemporaryDirectory(prefix="flap-") as tmp:
        out = Path(tmp) / "run.json"
        subprocess.run([sys.executable, "-m", "benchmarks.flap_check", "--measure-into", str(out),
                        "--games", ",".join(games), "--cases", ",".join(patterns),
                        "--handicap", json.dumps(dict(handicap or {})),
                        "--same-games", json.dumps(dict(same_games or {}))], check=True)
        return json.loads(out.read_text())


def judge(baseline, result, games, looks, handicap=None, fresh=True, same=None):
    """The check as `kaartlab bench --compare` makes it: flagged timed cases are measured `looks`
    more times (the same handicap: a slowed kernel stays slowed; the baseline's games) and judged on
    their median. Returns (the comparison, each flagged case's looks)."""
    judged, outcome = confirm(baseline, result, lambda names: measure(games, names, handicap, fresh, same),
                              looks, echo=lambda line: print("  " + line, flush=True))
    flagged = judged.get("confirmed", {}).get("cases", [])
    return outcome, {c["name"]: c["runs"] for c in judged["cases"] if c["name"] in flagged}


def main(argv=None) -> int:
    from sim.registry import games as registered

    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--games", default=",".join(sorted(registered())))
    p.add_argument("--cases", default="*/kernel,*/play_batch")
    p.add_argument("--baseline-runs", type=int, default=5)
    p.add_argument("--equal", type=int, default=10)
    p.add_argument("--slowed", type=int, default=5)
    p.add_argument("--slower", type=float, default=0.10)
    p.add_argument("--confirm", type=int, default=2, help="more looks at a flagged case (0: none)")
    p.add_argument("--same-process", action="store_true",
                   help="measure every run in this process (default: each in a fresh one, as CI does)")
    p.add_argument("--json", dest="json_path")
    # the child's side of a fresh-process run: measure once, write the result, exit
    p.add_argument("--measure-into", help=argparse.SUPPRESS)
    p.add_argument("--handicap", default="{}", help=argparse.SUPPRESS)
    p.add_argument("--same-games", default="{}", help=argparse.SUPPRESS)
    p.add_argument("--sized-each-run", action="store_true",
                   help="size every run's kernel cases from its own timing, as before 2026-12-06 "
                        "(default: every run times the games the first baseline run timed, as "
                        "kaartlab bench --compare times its baseline's)")
    args = p.parse_args(argv)
    games = [g for g in args.games.split(",") if g]
    patterns = parse_patterns(args.cases)
    if args.measure_into:
        result = measure_here(games, patterns, json.loads(args.handicap), json.loads(args.same_games))
        Path(args.measure_into).write_text(json.dumps(result))
        return 0
    fresh = not args.same_process

    runs, same = [], None
    for k in range(args.baseline_runs):
        runs.append(measure(games, patterns, fresh=fresh, same_games=same))
        if k == 0 and not args.sized_each_run:
            same = games_of(runs[0])  # the later runs time the first's games
        print(f"baseline run {k + 1}/{args.baseline_runs}", flush=True)
    baseline = merge_runs(runs)
    kernels = [c["name"] for c in baseline["cases"] if c.get("kind") == "kernel"]
    tolerances = {c["name"]: c.get("tolerance") for c in baseline["cases"]}

    equal = []
    for k in range(args.equal):
        result, looks = judge(baseline, measure(games, patterns, fresh=fresh, same_games=same), games,
                              args.confirm, fresh=fresh, same=same)
        equal.append({"flagged": [r.name for r in result.regressions],
                      "ratios": {r.name: r.ratio for r in result.rows}, "looks": looks})
        print(f"equal run {k + 1}/{args.equal}: "
              + (f"FLAGGED {', '.join(equal[-1]['flagged'])}" if equal[-1]["flagged"] else "passed"), flush=True)

    slowed = []
    for k in range(args.slowed):
        victim = kernels[k % len(kernels)]
        handicap = {victim: args.slower}
        result, looks = judge(baseline, measure(games, patterns, handicap, fresh, same), games,
                              args.confirm, handicap, fresh, same)
        flagged = [r.name for r in result.regressions]
        ratio = next(r.ratio for r in result.rows if r.name == victim)
        slowed.append({"slowed": victim, "ratio": ratio, "flagged": flagged,
                       "ratios": {r.name: r.ratio for r in result.rows}, "looks": looks})
        print(f"slowed run {k + 1}/{args.slowed}: {victim} at {ratio:.3f} of the baseline "
              f"(allowed {tolerances[victim]:.0%}): " + ("caught" if victim in flagged else "MISSED")
              + (f"; also flagged {', '.join(f for f in flagged if f != victim)}"
                 if set(flagged) - {victim} else ""), flush=True)

    passed = sum(1 for e in equal if not e["flagged"])
    caught = sum(1 for s in slowed if s["slowed"] in s["flagged"])
    print(f"\nequal runs passed: {passed} of {len(equal)}; {args.slower:.0%} slower kernels caught: "
          f"{caught} of {len(slowed)}")
    print("tolerances: " + ", ".join(f"{name} {t:.1%}" for name, t in tolerances.items() if t is not None))
    if args.json_path:
        Path(args.json_path).write_text(json.dumps({"baseline": baseline, "equal": equal, "slowed": slowed},
                                                   indent=2) + "\n")
    return 0 if passed == len(equal) and caught == len(slowed) else 1


if __name__ == "__main__":
    raise SystemExit(main())
