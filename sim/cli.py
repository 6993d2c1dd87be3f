"""The `kaartlab` command: games, run, study, skill, trace, report, verify, serve."""
from __future__ import annotations

import argparse
import os
import shlex
import signal
import sys
import time
from dataclasses import replace
from pathlib import Path

from sim.argtypes import positive_int, whole as _whole
from sim.errors import KernelError, SpecError

EPILOG = """examples:
  kaartlab games
  kaartlab run knutten --games 100000 --players 4 --policy cautious,trap,random,cautious --out runs/k4
  kaartlab run knutten --games 100000 --players 4 --rule john_knut=false --rule threshold=35 --out runs/k4b
  kaartlab run knutten --players 4 --policy cautious:start=self,cautious,trap,random --data deck=examples/small-deck.toml
  kaartlab study examples/john-knut.toml --out runs/john-knut --report
  kaartlab study examples/john-knut.toml --games 20000      # a quick look: 20,000 games per arm
  kaartlab study examples/wippen-search.toml --report       # a [[search]]: rerun the same command to resume
  kaartlab plan examples/john-knut-precision.toml           # games and time its questions and [stop] need
  kaartlab study examples/john-knut-precision.toml --report # plays until the [stop] interval is narrow enough
  kaartlab skill knutten wizard --games 20000 --out runs/skill
  kaartlab trace knutten --players 4 --policy cautious --seed 7 --index 12
  kaartlab trace --dataset runs/john-knut --arm john-on --index 12
  kaartlab report runs/john-knut
  kaartlab verify runs/john-knut
  kaartlab bench --quick --json bench.json --compare benchmarks/baseline.json
  kaartlab serve --runs runs --port 8000                    # the web service: queue, watch and browse studies
"""


class Terminated(KeyboardInterrupt):
    """SIGTERM, handled like Ctrl-C: the run stops, finished batches are kept, Ray is shut down."""


_SIGTERM_SEEN = []  # Ray may re-raise our exception as a plain KeyboardInterrupt: remember it here


def _on_sigterm(signum, frame):
    _SIGTERM_SEEN.append(signum)
    raise Terminated()


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 2
    given = list(sys.argv[1:] if argv is None else argv)
    args.resume_command = "kaartlab " + " ".join(shlex.quote(a) for a in given)
    _SIGTERM_SEEN.clear()
    previous = _install_sigterm()
    try:
        return args.handler(args) or 0
    except (SpecError, KernelError) as exc:
        print(f"kaartlab: error: {_one_line(exc)}", file=sys.stderr)
        return 1 if isinstance(exc, KernelError) else 2
    except _report_error() as exc:
        print(f"kaartlab: error: {_one_line(exc)}", file=sys.stderr)
        return 2
    except _run_error() as exc:
        print(f"kaartlab: error: {_one_line(exc)}", file=sys.stderr)
        return 3
    except BrokenPipeError:  # output piped into `head` and the like: not an error
        sys.stderr = open(os.devnull, "w")
        return 0
    except KeyboardInterrupt as exc:
        terminated = isinstance(exc, Terminated) or bool(_SIGTERM_SEEN)
        how = "stopped by SIGTERM" if terminated else "interrupted"
        resume = args.resume_command if args.command in ("run", "study") else "rerun the same command"
        print(f"kaartlab: {how}; finished batches are kept; resume with: {resume}", file=sys.stderr)
        return 143 if terminated else 130
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


def _install_sigterm():
    """SIGTERM raises Terminated in the main thread (only there can a handler be set)."""
    try:
        return signal.signal(signal.SIGTERM, _on_sigterm)
    except ValueError:  # not the main thread
        return None


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return " ".join(text.split("\n")) if text else type(exc).__name__


def _run_error():
    from pipelines.run import RunError

    return RunError


def _report_error():
    from reports.dataset import ReportError

    return ReportError


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="kaartlab", formatter_class=argparse.RawDescriptionHelpFormatter, epilog=EPILOG,
        description="Monte Carlo balance studies for card games: play millions of games with "
                    "heuristic players, store one Parquet row per game, report with statistics.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser("games", help="list games, their rule parameters, policies and measures")
    p.add_argument("game", nargs="?", help="show only this game, with the measures a question can name")
    p.set_defaults(handler=cmd_games)

    p = sub.add_parser("run", help="play one arm (a game, seats, rules, policies) into a dataset",
                       formatter_class=argparse.RawDescriptionHelpFormatter, epilog=EPILOG)
    p.add_argument("game", help="game name (see `kaartlab games`)")
    _arm_options(p)
    p.add_argument("--luck", action="store_true",
                   help="write the game's luck measures too, so that the report can take the luck of the "
                        "draw out of seat 0's edge (`kaartlab games` says which games have them; the kernel "
                        "runs a few per cent slower)")
    p.add_argument("--games", default="100000", help="games to play (default 100000)")
    p.add_argument("--name", default=None, help="study name (default: the game's name)")
    _run_options(p)
    p.set_defaults(handler=cmd_run)

    p = sub.add_parser("study", help="run a study file with several arms (see examples/)",
                       description="Plays a study file's [[arm]] and [[sweep]] tables, then each [[search]]: "
                                   "candidate settings proposed round by round and played as arms, close ones "
                                   "given more games, the best re-played on fresh games (docs/search.md). "
                                   "Rerunning the same command resumes any of them.")
    p.add_argument("file", help="study TOML file")
    p.add_argument("--games", default=None, metavar="N",
                   help="games per arm instead of the file's (a quick look; another study, so by "
                        "default another directory: runs/<name>-<N>-games); with a [stop] table, "
                        "the cap per arm instead of max_games, in the same directory")
    p.add_argument("--dry-run", action="store_true",
                   help="play nothing: print what `kaartlab plan FILE` prints")
    _run_options(p)
    p.set_defaults(handler=cmd_study)

    p = sub.add_parser("plan", help="before a study: how many games its questions and [stop] need, and how long",
                       description="Plays a short pilot of every arm in this process (nothing is written) and "
                                   "prints, per question of the study file and for its [stop] table, the games "
                                   "per arm needed for the named precision or for the report's detectable "
                                   "edge (report.edge, default 1 point), and the time they take on this "
                                   "machine (docs/stopping.md).")
    p.add_argument("file", help="study TOML file")
    p.add_argument("--pilot", type=positive_int, default=None,
                   help="games per arm in the pilot (default 5000)")
    p.add_argument("--workers", type=_whole, default=None,
                   help="cores the study will play on (default: all local cores)")
    p.set_defaults(handler=cmd_plan)

    p = sub.add_parser("skill", help="how much skill decides a game: a strong player among random ones",
                       description="Plays, per game, a study on the same deals: every seat random, and "
                                   "the strong player in each seat in turn among random players; then "
                                   "writes its report (section 'Skill versus luck'). With several games, "
                                   "also a figure and a table across them (OUT/skill.png, OUT/skill.md).")
    p.add_argument("game", nargs="+", help="game name(s) (see `kaartlab games`)")
    p.add_argument("--players", type=int, default=4, help="number of seats (default 4)")
    p.add_argument("--games", default="20000", help="games per arm (default 20000)")
    p.add_argument("--strongest", default=None, metavar="SEAT",
                   help="the strong player, POLICY or POLICY:NAME=VALUE (default: the game's declared "
                        "strongest, else every policy but random, and the report names the best)")
    p.add_argument("--seed", type=int, default=0, help="study seed (default 0)")
    p.add_argument("--figure", help="where to write the figure across games (default OUT/skill.png when "
                                    "several games are given)")
    _run_options(p)
    p.set_defaults(handler=cmd_skill)

    p = sub.add_parser("trace", help="print one game move by move",
                       description="Replays game INDEX of an arm exactly as a study played it. "
                                   "Give the arm with options, or point at a dataset and arm.")
    p.add_argument("game", nargs="?", help="game name (not needed with --dataset)")
    _arm_options(p)
    p.add_argument("--index", type=int, default=0, help="game index within the arm (default 0)")
    p.add_argument("--dataset", help="a study directory: take seed and arm from its study.json")
    p.add_argument("--arm", help="arm name within --dataset (default: its first arm)")
    p.set_defaults(handler=cmd_trace)

    p = sub.add_parser("report", help="write report.html, report.md and summary.json for a dataset")
    p.add_argument("dataset", help="study directory")
    p.add_argument("--out", help="where to write the report (default: the study directory)")
    p.add_argument("--skip-bad", action="store_true",
                   help="report on the batch files that verify, with a warning, instead of refusing "
                        "a dataset with bad ones")
    p.set_defaults(handler=cmd_report)

    p = sub.add_parser("verify", help="check every batch file of a dataset against its record",
                       description="Checks each batch file's size, SHA-256 and row count against "
                                   "the record written with it, and the files against the study's "
                                   "plan. Exit 0: complete and verified; 1: bad or missing "
                                   "batches (listed); 2: not a dataset.")
    p.add_argument("dataset", help="study directory (local path or URI)")
    p.add_argument("--deep", action="store_true",
                   help="also read every row: game numbers and the study's fingerprint")
    p.add_argument("--repair", action="store_true",
                   help="rewrite a damaged study.json from what the batch files prove (their study and "
                        "fingerprint), then verify; its description and questions come back only by "
                        "rerunning the study's command")
    p.set_defaults(handler=cmd_verify)

    p = sub.add_parser("compile", help="compile the games' kernels into the cache ahead of time",
                       description="Compiles every game's kernel (or the games named) into Numba's "
                                   "on-disk cache, several games at once, so that the first study "
                                   "of each game loads it instead of compiling (Wippen takes a "
                                   "minute or more). By default only what a study without a search "
                                   "player runs; --trace and --search add the rest, which otherwise "
                                   "compiles on its first call. Needed again only after a file "
                                   "under kernels/ changes.")
    p.add_argument("game", nargs="*", help="game name(s) (default: every game)")
    p.add_argument("--jobs", type=int, default=None,
                   help="processes compiling at once (default: the usable cores)")
    p.add_argument("--trace", action="store_true",
                   help="also the traced kernel `kaartlab trace` runs (one game, move by move)")
    p.add_argument("--search", action="store_true",
                   help="also the kernel for tables with a search player (with --trace, its "
                        "traced kernel too)")
    p.set_defaults(handler=cmd_compile)

    p = sub.add_parser("serve", help="run studies as a service: a web catalogue, a form, a queue and an API",
                       description="Serves the studies of a runs directory over HTTP (docs/service.md): a catalogue, "
                                   "a page per study with its live intervals and report, a form and an API "
                                   "(/api/studies, schema at /openapi.json) that queue study files; each study runs "
                                   "as `kaartlab study FILE --out RUNS/ID --report`, one or several at a time.")
    p.add_argument("--runs", default="runs", metavar="DIR", help="the runs directory (default runs)")
    p.add_argument("--address", default=None, help="the Ray cluster studies run on (default: a local Ray per study)")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    p.add_argument("--token-file", default=None, metavar="F",
                   help="a file holding the token that submitting and stopping need (Authorization: Bearer TOKEN)")
    p.add_argument("--read-token", action="store_true", help="reading needs the token too")
    p.add_argument("--jobs", type=positive_int, default=1, help="studies played at once (default 1)")
    p.add_argument("--workers", type=_whole, default=None,
                   help="each study's Ray worker CPUs (default: all cores / --jobs); 0 plays in the study's process")
    p.add_argument("--max-upload", type=positive_int, default=1 << 20, metavar="BYTES",
                   help="largest study file accepted (default 1 MiB)")
    p.add_argument("--keep-ray", action="store_true",
                   help="start one local Ray with the server and play every study on it (each study then "
                        "skips Ray's start-up, a few seconds); default: a local Ray per study")
    p.set_defaults(handler=cmd_serve)

    from sim.bench import add_parser as add_bench_parser

    add_bench_parser(sub)
    return parser


def _arm_options(p) -> None:
    p.add_argument("--players", type=int, default=4, help="number of seats (default 4)")
    p.add_argument("--rule", action="append", default=[], metavar="NAME=VALUE",
                   help="set a rule parameter; repeat for several")
    p.add_argument("--policy", default=None, metavar="SEATS",
                   help="one player for every seat, or one per seat in seat order, comma-separated; "
                        "a player is POLICY or POLICY:NAME=VALUE[:NAME=VALUE...] "
                        "(e.g. cautious:start=self,random)")
    p.add_argument("--data", action="append", default=[], metavar="NAME=FILE",
                   help="a data input of the game (see `kaartlab games`); repeat for several")
    p.add_argument("--deck", metavar="FILE", help="shorthand for --data deck=FILE")
    p.add_argument("--rotate", action="store_true",
                   help="play each deal once per seat rotation (duplicate deals: game g is deal "
                        "g // players with the hands shifted by g %% players; `kaartlab games` says which "
                        "games can)")
    p.add_argument("--seed", type=int, default=0, help="study seed (default 0)")


def _run_options(p) -> None:
    p.add_argument("--out", help="study directory (default runs/<study name>); rerun to resume")
    p.add_argument("--workers", type=_whole, default=None,
                   help="Ray worker CPUs (default: all local cores, but a study that one core plays in "
                        "under 3 s, by the estimate's pilot, plays in this process); 0 runs in this process")
    p.add_argument("--batch-size", type=positive_int, default=None, help="games per Parquet file")
    p.add_argument("--address", default=None,
                   help="join an existing Ray cluster (default: RAY_ADDRESS, else a local Ray)")
    p.add_argument("--report", action="store_true", help="write the report when the run ends")
    p.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                   help="progress bar (default: on when stderr is a terminal)")
    p.add_argument("--no-estimate", action="store_true",
                   help="play without first timing a few games of each arm to estimate the run time")


def games_option(text: str) -> int:
    """--games N: games per arm, checked as a study file's `games` is, in one error naming --games."""
    from sim.spec import MAX_GAMES

    try:
        value = int(str(text).strip().replace("_", ""))
    except ValueError:
        raise SpecError(f"--games={text}: expected a whole number 1..{MAX_GAMES:,}") from None
    if not 1 <= value <= MAX_GAMES:
        raise SpecError(f"--games={value}: expected a whole number 1..{MAX_GAMES:,}")
    return value


def _pairs(option: str, pairs: list[str]) -> dict[str, str]:
    values = {}
    for pair in pairs:
        if "=" not in pair:
            raise SpecError(f"{option} {pair!r}: expected NAME=VALUE")
        key, value = pair.split("=", 1)
        if key.strip() in values:
            raise SpecError(f"{option} {key.strip()} is given twice")
        values[key.strip()] = value.strip()
    return values


def _arm_from_args(args, game: str):
    from sim.spec import ArmSpec

    data = _pairs("--data", args.data)
    if args.deck is not None:
        if "deck" in data:
            raise SpecError("give the deck with --deck or with --data deck=FILE, not both")
        data["deck"] = args.deck
    return ArmSpec.make(game, args.players, _pairs("--rule", args.rule), args.policy, name="main",
                        data=data, rotate=args.rotate, luck=getattr(args, "luck", False))


# ---------------------------------------------------------------------------------- commands

def cmd_games(args) -> int:
    from sim.registry import COMMON_COLUMNS, games, get_game

    chosen = [get_game(args.game)] if args.game else list(games().values())
    for game in chosen:
        print(f"{game.name}  ({game.title}, {game.min_players}-{game.max_players} players, "
              f"version {game.version}{'; can rotate its seats' if game.runner().rotates else ''}"
              f"{'; luck measures ' + ', '.join(game.luck) if game.luck else ''}; "
              f"rules explained in {game.rules_doc_path})")
        detail = args.game is not None  # one game: where each parameter comes from, too
        print("  rules:")
        for r in game.rules:
            _print_param(r, detail=detail)
        print("  policies (the first is the default):")
        for pol in game.policies:
            print(f"    {pol.name:<12} {pol.help}")
            for param in pol.params:
                _print_param(param, indent="      ", detail=detail)
        for item in game.data:
            print(f"  data {item.name}: {item.help}" + (f" (example: {item.example})" if item.example else ""))
        print(f"  score: {game.score.meaning} ({'higher' if game.score.higher_wins else 'lower'} wins)")
        print("  columns: " + ", ".join(c.name for c in COMMON_COLUMNS + game.columns))
        _print_measures(game.name, detail)
        print()
    return 0


def _print_measures(game: str, detail: bool) -> None:
    """What a study's [[question]] tables can name in `measures`: one per line for one game."""
    from reports.measures import catalogue

    measures = catalogue(game)
    if not detail:
        print("  measures: " + ", ".join(m.name for m in measures))
        return
    print("  measures a [[question]] can name (measures = [...]):")
    for m in measures:
        print(f"    {m.name:<20} {m.kind:<6} {m.label}"
              + (f"  ({m.source})" if m.source != "generic" else ""))


def _print_param(param, indent: str = "    ", detail: bool = False) -> None:
    print(f"{indent}{param.name:<20} {param.type_text():<24} default {param.show(param.default):<8} "
          f"{param.help}")
    if detail:
        print(f"{indent}{'':<20} from: {param.source}")


def cmd_run(args) -> int:
    from sim.spec import StudySpec, default_batch_size

    games = games_option(args.games)
    arm = _arm_from_args(args, args.game)
    study = StudySpec(name=args.name or arm.game, seed=args.seed, games=games,
                      batch_size=args.batch_size or default_batch_size([arm]), arms=(arm,))
    return _execute(study, args)


def cmd_study(args) -> int:
    from sim.spec import StudySpec

    study = StudySpec.from_toml(args.file)
    if args.batch_size:
        study = study.with_batch_size(args.batch_size)
    if args.dry_run:
        return _print_plan(study, None, args.workers)
    if study.stop is not None and args.games is not None:  # the cap: the same study, the same directory
        games = games_option(args.games)
        study = replace(study, games=games, stop=replace(study.stop, max_games=games,
                                                          pilot=min(study.stop.pilot, games)))
        return _execute(study, args)
    full = study
    if args.games is not None and study.searches and not study.arms:
        raise SpecError("--games sets the games of a study's [[arm]] and [[sweep]] tables; this study has only "
                        "[[search]] tables, whose games are their own keys (games, max_games, final_games)")
    if args.games is not None:
        games = games_option(args.games)
        if games != study.games:
            study = replace(study, games=games)
            if not args.out:  # another study: not the directory the file's own run uses
                args.out = str(Path("runs") / f"{study.name}-{games}-games")
    return _execute(study, args, full=full)


def cmd_plan(args) -> int:
    from sim.spec import StudySpec

    return _print_plan(StudySpec.from_toml(args.file), args.pilot, args.workers)


def _print_plan(study, pilot, workers) -> int:
    from pipelines.run import warm_up
    from pipelines.stopping import PLAN_PILOT, plan_study
    from sim.estimate import COMPILE_NOTE, uncompiled_games

    if study.searches:
        raise SpecError("kaartlab plan reads [[arm]] and [[sweep]] tables; a [[search]] sets its own games "
                        "(games, max_games, final_games: docs/search.md)")
    cold = uncompiled_games(study)
    if cold:
        print(f"compiling the {', '.join(cold)} kernel{'s' if len(cold) > 1 else ''} first ({COMPILE_NOTE})",
              flush=True)
    warm_up(study)
    playing = 1 if workers == 0 else workers or os.cpu_count() or 1
    for line in plan_study(study, pilot or PLAN_PILOT, playing):
        print(line)
    return 0


def _refuse_full_study_directory(out: str, study, full) -> None:
    """--games makes another study than the file's; its directory is refused as any other study's,
    with what to do instead."""
    from pipelines.storage import StudyDir

    try:
        manifest = StudyDir(out).read_manifest()
    except Exception:  # noqa: BLE001 - unreadable: StudyDir.check says why
        return
    if manifest and manifest.get("fingerprint") == full.fingerprint():
        raise SpecError(f"output directory {out!r} holds this study file's own run ({full.games:,} "
                        f"games per arm); --games {study.games:,} makes another study, which is "
                        f"never mixed into it: give another --out (e.g. --out "
                        f"runs/{study.name}-{study.games}-games)")


def _execute(study, args, full=None) -> int:
    from pipelines.run import run_study
    from pipelines.storage import StudyDir

    from pipelines.plan import check_limits

    cores = os.cpu_count() or 1
    cluster = args.address or (os.environ.get("RAY_ADDRESS") and args.workers != 0)
    most = 1_000_000 if cluster else 4 * cores  # a cluster's CPUs, or 4 per core of this machine
    if args.workers is not None and not 0 <= args.workers <= most:
        raise SpecError(f"--workers={args.workers}: expected 0 (in this process) to {most:,}"
                        + ("" if cluster else " (4 per core of this machine)"))
    if args.workers == 0 and args.address:
        raise SpecError("--workers 0 plays in this process and joins no cluster: drop --address "
                        "(or give --workers N to use the cluster)")
    check_limits(study, None if cluster else args.workers)
    if args.out is not None and not args.out.strip():
        raise SpecError("--out is empty: give the study directory (or leave --out out for runs/<study name>)")
    out = args.out or str(Path("runs") / study.name)
    overridden = full is not None and full.games != study.games
    if overridden:
        _refuse_full_study_directory(out, study, full)
    StudyDir(out).check(study)
    progress = sys.stderr.isatty() if args.progress is None else args.progress
    total = study.games * len(study.arms)
    games = f"{study.games:,} games" + (f" (--games; the file says {full.games:,})" if overridden else "")
    if study.stop is not None:
        stop = study.stop
        games = (f"up to {study.games:,} games, stopping once {', '.join(n for n, _, _ in stop.streams([a.name for a in study.arms]))} "
                 f"reach +-{stop.half_width:g} ({stop.confidence:.0%} confidence sequences; the estimate below "
                 "is the pilot's, `kaartlab plan FILE` predicts the whole)")
    searches = f"{len(study.searches)} search{'es' if len(study.searches) > 1 else ''}"
    if study.arms:
        print(f"study {study.name!r}: {len(study.arms)} arm(s) x {games}"
              + ("" if study.stop is not None else f" = {total:,} games")
              + (f" and {searches}" if study.searches else "")
              + f", seed {study.seed}, batches of {min(study.batch_size, study.games):,}")
    else:
        print(f"study {study.name!r}: {searches}, seed {study.seed}")
    for arm in study.arms:
        print(f"  {arm.name}: {arm.describe()}")
    for search in study.searches:
        print(f"  search {search.name}: {search.describe()}")
    sys.stdout.flush()
    playing = None if cluster else (1 if args.workers == 0 else args.workers or cores)
    # where to play is left to the estimate only when the user named nothing and the games are known
    here_if_sooner = (args.workers is None and not cluster and study.stop is None and not study.searches
                      and not args.no_estimate)
    result = run_study(study, out, workers=args.workers, address=args.address, progress=progress,
                       command=args.resume_command,
                       before_play=_before_play(_with_search_previews(study), playing, not args.no_estimate,
                                                here_if_sooner),
                       say=_say, stop_soon=args.report)
    if result.taken_over:
        from pipelines.lock import describe

        print(f"note: took over the lock of a driver that is no longer running "
              f"({describe(result.taken_over)})")
    if result.repaired:
        print(f"note: {result.out}/study.json {result.repaired}; rewritten from this study, which its batch "
              "files prove")
    if result.redone:
        print(f"redid {len(result.redone)} batch file(s) that failed verification: "
              + "; ".join(result.redone[:5]) + (" ..." if len(result.redone) > 5 else ""))
    if result.batches_run == 0:
        print(f"nothing to do: all {result.batches_skipped} batches are already in {result.out}")
    else:
        resumed = f" (resumed: {result.batches_skipped} batches were already done)" if result.batches_skipped else ""
        print(f"played {result.games_run:,} games in {result.seconds:.1f} s "
              f"({result.games_per_second:,.0f} games/s){resumed}")
        if result.startup_seconds >= 0.05 or result.shutdown or result.stopping:  # nothing to say of a warm in-process run
            print(overhead_line(result))
        if any(n["placed"] or n["compiled"] or n["skipped"] for n in result.shipped):  # a node lacked them
            print(shipped_line(result.shipped))
    print(f"data: {result.out}  (polars: pl.scan_parquet('{result.out}/*/batch-*.parquet'))")
    if args.report:
        try:
            _write_report(result.out, None)
        finally:
            from pipelines.run import await_ray_stop

            await_ray_stop()
    return 0


def _say(line: str) -> None:
    """A line while a run plays (a [stop] look): above the progress bar, which tqdm then redraws."""
    from tqdm import tqdm

    tqdm.write(line)
    sys.stdout.flush()


def overhead_line(result) -> str:
    """What the run spent around its games: start-up by phase, and stopping its Ray."""
    names = {"kernels": "kernels", "ray": "Ray", "shipment": "kernels to ship",
             "workers": "workers loading the kernels"}
    phases = ", ".join(f"{names.get(k, k)} {v:.1f} s" for k, v in result.startup.items() if v >= 0.05)
    line = f"around the games: start-up {result.startup_seconds:.1f} s" + (f" ({phases})" if phases else "")
    if result.stopping:
        return line + "; Ray stops while the report is written"
    return line + (f", shut-down {result.shutdown:.1f} s" if result.shutdown else "")


def shipped_line(notes: list[dict]) -> str:
    """On a joined cluster, what the driver's compiled kernels did on the other nodes (one note per
    warm-up worker, pipelines/kernel_cache.py): placed where a node's cache lacked them, and how many
    the workers compiled all the same (0 when the shipment loaded)."""
    nodes = {n["node"] for n in notes}
    placed, size = sum(n["placed"] for n in notes), sum(n["bytes"] for n in notes)
    line = (f"kernels shipped: {placed} cache file(s) ({size / 1e6:.1f} MB) placed on "
            f"{len({n['node'] for n in notes if n['placed']})} of {len(nodes)} node(s); "
            f"compiled on the workers: {sum(n['compiled'] for n in notes)}")
    skipped = sorted({n["skipped"] for n in notes if n["skipped"]})
    return line + (f" (not placed: {'; '.join(skipped)})" if skipped else "")


def _with_search_previews(study):
    """The study with an arm per [[search]] at its base settings, which the estimate times."""
    if not study.searches:
        return study
    from pipelines.search import preview

    return preview(study)


def _before_play(study, workers: int | None, timed: bool, here_if_sooner: bool = False):
    """What the user reads before the first game: which kernels compile first, then (timed) the
    run-time estimate from a pilot on the warm kernels. `workers` None: a cluster of unknown size.
    With `here_if_sooner`, a study that one core plays before a local Ray would have started is
    played in this process: the hook then returns 0, the workers run_study is to use instead."""
    def before_play(todo: dict[str, int], batches: int) -> int | None:
        from pipelines.run import warm_up
        from sim.estimate import COMPILE_NOTE, SMALL_STUDY, estimate, uncompiled_games

        cold = uncompiled_games(study)
        if cold:
            print(f"compiling the {', '.join(cold)} kernel{'s' if len(cold) > 1 else ''} first, not "
                  f"in the cache yet ({COMPILE_NOTE})", flush=True)
        if not timed:
            return None
        warm_up(study)  # the pilot times play, not a compile
        found = estimate(study, todo, workers, batches, smallest=0 if here_if_sooner else SMALL_STUDY)
        if here_if_sooner and found.sooner_here:
            print(found.here_line(), flush=True)
            return 0
        print(found.line(), flush=True)
        return None

    return before_play


def skill_study(game: str, players: int, games: int, seed: int, strongest: str | None = None,
                batch_size: int | None = None):
    """The skill study of one game: arm `random` (every seat random) and, per candidate, one arm
    per seat with the candidate there and random players elsewhere (same seed: same deals)."""
    from sim.registry import get_game
    from sim.spec import DEFAULT_BATCH_SIZE, ArmSpec, StudySpec

    info = get_game(game)
    if "random" not in {p.name for p in info.policies}:
        raise SpecError(f"{game} has no random policy to measure skill against")
    chosen = strongest or info.strongest
    candidates = [chosen] if chosen else [p.name for p in info.policies if p.name != "random"]
    if not candidates:
        raise SpecError(f"{game} has no policy but random: nothing to measure")
    arms = [ArmSpec.make(game, players, None, "random", name="random")]
    for number, seat_entry in enumerate(candidates):
        tag = seat_entry if ":" not in seat_entry else f"strong{number}"
        for seat in range(players):
            seats = ["random"] * players
            seats[seat] = seat_entry
            arms.append(ArmSpec.make(game, players, None, seats, name=f"{tag}-seat{seat}"))
    return StudySpec(name=f"skill-{game}", seed=seed, games=games,
                     batch_size=batch_size or min(DEFAULT_BATCH_SIZE, games), arms=tuple(arms))


def cmd_skill(args) -> int:
    from reports.sections.skill import figure_across_games, summary_rows, table_across_games

    several = len(args.game) > 1
    root = Path(args.out or str(Path("runs") / "skill"))
    dirs = []
    for game in dict.fromkeys(args.game):
        study = skill_study(game, args.players, games_option(args.games), args.seed, args.strongest,
                            args.batch_size)
        out = root / game if several else Path(args.out or str(Path("runs") / study.name))
        run_args = argparse.Namespace(**{**vars(args), "out": str(out), "report": True})
        _execute(study, run_args)
        dirs.append(out)
    figure = args.figure or (str(root / "skill.png") if several else None)
    if figure:
        rows = summary_rows(dirs)
        Path(figure).parent.mkdir(parents=True, exist_ok=True)
        Path(figure).write_bytes(figure_across_games(rows).png)
        table = Path(figure).with_suffix(".md")
        table.write_text(table_across_games(rows))
        print(f"skill across games: {figure}  {table}")
    return 0


def cmd_trace(args) -> int:
    from sim.registry import get_game

    if args.dataset:
        study = _study_from_dataset(args.dataset)
        arm = study.arm(args.arm) if args.arm else study.arms[0]
        seed = study.seed
        first, games = next(((e.first, e.games) for e in study.extents if e.arm == arm.name), (0, study.games))
        if not first <= args.index < first + games:  # a search's arm has its own games (docs/search.md)
            raise SpecError(f"--index={args.index}: arm {arm.name!r} of {args.dataset} has "
                            f"{games:,} games, numbered {first:,}..{first + games - 1:,}")
    else:
        if not args.game:
            raise SpecError("trace: name a game (e.g. `kaartlab trace knutten`) or give --dataset")
        arm = _arm_from_args(args, args.game)
        seed = args.seed
    if not 0 <= args.index < 2**63:
        raise SpecError(f"--index={args.index}: expected 0..2**63-1")
    if not 0 <= seed < 2**63:
        raise SpecError(f"--seed={seed}: expected 0..2**63-1")
    sys.stdout.write(get_game(arm.game).runner().trace_game(arm, seed, args.index))
    return 0


def _study_from_dataset(directory: str):
    from pipelines.storage import StudyDir

    return StudyDir(directory).read_study()


def cmd_report(args) -> int:
    if args.out is not None and not args.out.strip():
        raise SpecError("--out is empty: give the report's directory (or leave --out out for the dataset's)")
    _write_report(args.dataset, args.out, skip_bad=args.skip_bad)
    return 0


def _write_report(dataset: str, out: str | None, skip_bad: bool = False) -> None:
    from reports import build_report

    if not Path(dataset).is_dir():
        raise SpecError(f"dataset {dataset!r} is not a directory")
    paths = build_report(dataset, out, skip_bad=skip_bad)
    print("report: " + "  ".join(str(p) for p in paths.values()))


def cmd_compile(args) -> int:
    from sim.precompile import compile_games
    from sim.registry import games

    known = games()
    names = list(dict.fromkeys(args.game)) or list(known)
    unknown = [n for n in names if n not in known]
    if unknown:
        raise SpecError(f"unknown game {unknown[0]!r} (known: {', '.join(known)})")
    if args.jobs is not None and args.jobs < 1:
        raise SpecError(f"--jobs must be at least 1, got {args.jobs}")
    start = time.perf_counter()
    print(f"compiling {len(names)} game kernel(s) into the cache ...")
    compile_games(names, args.jobs, trace=args.trace, search=args.search)
    print(f"compiled in {time.perf_counter() - start:.1f} s")
    return 0


def cmd_serve(args) -> int:
    from pipelines.service.app import serve

    return serve(args)


def cmd_verify(args) -> int:
    from pipelines.storage import StudyDir

    directory = StudyDir(args.dataset)
    if args.repair:
        from pipelines.lock import StudyLock

        with StudyLock(directory, args.resume_command):
            reason = directory.repair_from_batches(args.resume_command)
        if reason:
            print(f"repaired: {args.dataset}/study.json {reason}; rewritten from what its batch files prove "
                  "(rerun the study's command to restore its description and questions)")
    state = directory.integrity(deep=args.deep)
    for line in state.lines(limit=50):
        print(line)
    if state.temporary:
        print(f"  {len(state.temporary)} temporary file(s) of an unfinished write (a resumed run "
              "removes them)")
    if state.ok:
        print(f"verified: every batch of {args.dataset} matches its record"
              + (" and its rows" if args.deep else ""))
        return 0
    what = []
    if state.bad:
        what.append(f"{len(state.bad)} bad")
    missing = sum(a.missing_count for a in state.arms.values())
    if missing:
        what.append(f"{missing:,} missing")
    if state.legacy and not state.bad:
        what.append("written before batch records")
    print(f"kaartlab: {args.dataset}: {', '.join(what)} batch file(s); rerun the study's command "
          "to redo them", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
