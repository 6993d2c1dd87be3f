"""Test set-up shared by every test module: the toy game is registered, in this process and (through
KAARTLAB_GAMES) in every process the tests start; the objects a test process already holds are
left out of the garbage collector's full collections while a test runs."""
import gc
import os

import pytest

from sim.registry import GAMES_ENV

os.environ[GAMES_ENV] = ",".join(filter(None, [os.environ.get(GAMES_ENV, ""), "tests.toy.runner"]))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item, nextitem):
    """statsmodels' Holm correction (multipletests, which every report's claims and the stats
    calibrations run) ends each call with gc.collect(): a full collection over every object the
    process holds, up to a second a call in an xdist worker that has run many tests (a 50-row test
    of it took 60 s). Frozen (gc.freeze, O(1)), the objects made before a test are skipped by every
    collection during its set-up (module fixtures too), call and teardown, and unfrozen after it
    (gc.unfreeze, O(1)): garbage among them is collected later, never lost, and no value a test
    computes depends on when a collection runs."""
    gc.freeze()
    try:
        return (yield)
    finally:
        gc.unfreeze()
