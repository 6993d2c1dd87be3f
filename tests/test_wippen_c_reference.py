"""Wippen's C reference (benchmarks/wippen_c/wippen_ref.c) plays the kernel's games.

The reference is the measuring stick of the kernel's speed (docs/benchmarks.md, "Wippen against its
C reference"): a figure against it means something only while both play the same games. It is also
a second implementation of the rules, written apart from the kernel, that must agree with it on
every field of every game record, for greedy and random players at 2-6 seats and other rules.
"""
import shutil

import numpy as np
import pytest

from benchmarks import wippen_c_reference as ref

needs_gcc = pytest.mark.skipif(shutil.which("gcc") is None,
                               reason="no gcc here: the C reference cannot be built")


@needs_gcc
def test_the_c_reference_plays_the_kernels_games(capsys):
    assert ref.main(["--skip-timing", "--identity-games", "60"]) == 0
    out = capsys.readouterr().out
    assert "DIFFERENT" not in out
    assert out.count("identical (60 games)") == 2 * 5 + len(ref.EXTRA_ARMS)


def test_the_identity_check_names_the_first_differing_game_and_field():
    kernel = {"turns": np.array([5, 6, 7]), "score": np.array([[1, 2], [3, 4], [5, 6]])}
    same = {k: v.copy() for k, v in kernel.items()}
    assert ref.first_difference(kernel, same) is None
    other = {k: v.copy() for k, v in kernel.items()}
    other["score"][2, 1] = 0
    other["turns"][1] = 0
    assert ref.first_difference(kernel, other) == (1, ["turns"])
    other["score"][1, 0] = 9
    assert ref.first_difference(kernel, other) == (1, ["turns", "score"])
