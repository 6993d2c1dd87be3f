"""argparse value types shared by the commands (sim/cli.py, sim/bench.py): below both, so neither
imports the other."""
from __future__ import annotations

import argparse


def whole(text: str) -> int:
    """argparse type: a whole number (underscores allowed)."""
    try:
        return int(text.replace("_", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None


def positive_int(text: str) -> int:
    """argparse type: a whole number >= 1 (underscores allowed, as in 1_000_000)."""
    value = whole(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} must be at least 1")
    return value
