"""Test set-up shared by every test module: the toy game is registered, in this process and (through
KAARTLAB_GAMES) in every process the tests start."""
import os

from sim.registry import GAMES_ENV

os.environ[GAMES_ENV] = ",".join(filter(None, [os.environ.get(GAMES_ENV, ""), "tests.toy.runner"]))
