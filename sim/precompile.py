"""Compile the games' kernels into Numba's on-disk cache ahead of time, several games at once.

A game's kernel compiles on its first call, in the process that calls it: for Wippen that is
minutes. `kaartlab compile` does it for every game (or the ones named) in a pool of processes, one
game per task, the costliest first, each compiling the driver a study calls for a table without a
search player. `trace=True` adds the traced driver `kaartlab trace` calls and `search=True` the
driver for a table with a search player, and with both the traced driver of a search table (the
search goldens): each is a specialisation of its own (the trace array or None, the searching seats
or None), otherwise compiled on its first call. The last is cheap here, where the search's helpers
are already compiled in the process (Wie is de Heer? 9 s, Wie Weet Wat 57 s), and costly alone
(145 and 150 s in a test process). Afterwards every process
loads the kernels from the cache in about a second, until a file under kernels/ changes.
"""
from __future__ import annotations

import os
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from multiprocessing import get_context

# rough cost order of `compile --trace --search` (cold, 2 jobs: Wie is de Heer? 267 s, Wie Weet Wat 179,
# Wippen 128, Knutten 73, Wizard 57), the costliest first so that no long one starts last
COST_ORDER = ("wieisdeheer", "wieweetwat", "wippen", "knutten", "wizard")


def compile_game(name: str, trace: bool = False, search: bool = False) -> tuple[str, float]:
    """Compile (or load from the cache) game `name`'s driver for a batch without a search seat,
    and the traced one and the searching one when asked; (name, seconds)."""
    from sim.registry import get_game
    from sim.spec import ArmSpec

    start = time.perf_counter()
    game = get_game(name)
    arm = ArmSpec.make(name, game.min_players, None, game.policies[0].name)
    runner = game.runner()
    runner.run_kernel(arm, 0, 0, 1)
    if trace:
        runner.traced(arm, 0, 0)
    if search and runner.search_policy:
        searching = ArmSpec.make(name, game.min_players, None, runner.search_policy)
        runner.run_kernel(searching, 0, 0, 1)
        if trace:
            runner.traced(searching, 0, 0)
    return name, time.perf_counter() - start


def compile_games(names: list[str], jobs: int | None = None, echo=print, trace: bool = False,
                  search: bool = False) -> dict[str, float]:
    """Compile the named games (compile_game) with `jobs` processes (default: the usable cores);
    {name: seconds}."""
    order = sorted(names, key=lambda n: COST_ORDER.index(n) if n in COST_ORDER else len(COST_ORDER))
    jobs = max(1, min(jobs or len(os.sched_getaffinity(0)), len(order)))
    seconds = {}
    if jobs == 1:
        for name in order:
            seconds[name] = compile_game(name, trace, search)[1]
            echo(f"  {name}: {seconds[name]:.1f} s")
        return seconds
    # spawn: a fresh interpreter per worker, as Numba is not fork-safe once it has compiled
    with ProcessPoolExecutor(jobs, mp_context=get_context("spawn")) as pool:
        for done in as_completed([pool.submit(compile_game, n, trace, search) for n in order]):
            name, s = done.result()
            seconds[name] = s
            echo(f"  {name}: {s:.1f} s")
    return seconds
