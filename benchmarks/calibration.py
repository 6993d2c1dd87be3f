"""The calibration kernel: a small, fixed @njit integer workload that every benchmark run measures
alongside its cases, so that figures can be compared across machines and across loads.

One calibration "op" is one card of a 64-card deck: one Fisher-Yates step of its shuffle
(kernels/rng_nb.shuffle_nb: a splitmix64 draw, a multiply-shift, a swap) and one step of a toy
game over the shuffled deck (a table look-up, a running "swarm" total with a threshold and a
not-below-zero rule: short, data-dependent branches). It is the kind of work the game kernels do
(short integer loops, random draws, small arrays in L1, unpredictable branches), so it speeds up
and slows down with them: a faster CPU, a busier one, a different clock.

Never change the workload without bumping CALIBRATION_VERSION: every stored normalised figure
is relative to it. (A change to kernels/rng_nb.py or kernels/jit.py changes it too; the version
fingerprint below hashes the kernel's source and both files, and `--compare` warns when the
baseline's and the run's differ.)
"""
from __future__ import annotations

import hashlib
import statistics
import time
from pathlib import Path

import numpy as np

from kernels.jit import njit
from kernels.rng_nb import shuffle_nb

CALIBRATION_VERSION = 1
CARDS = 64


@njit
def calibration_nb(rounds, seed):
    """`rounds` shuffles of 64 cards, each followed by a toy game over them; returns a checksum."""
    deck = np.arange(CARDS)
    values = np.empty(CARDS, np.int64)
    for i in range(CARDS):
        values[i] = (i * 7) % 13 - 3
    rng = np.zeros(1, np.uint64)
    rng[0] = np.uint64(seed)
    total = 0
    swarm = 0
    bites = 0
    for _ in range(rounds):
        shuffle_nb(rng, deck, CARDS)
        for i in range(CARDS):
            v = values[deck[i]]
            if v < 0 and swarm + v < 0:
                bites += 1
                continue
            swarm += v
            if swarm >= 31:
                bites += 1
                swarm = 0
            elif deck[i] & 1:
                total += swarm
    return total + bites


def ops(rounds: int) -> int:
    return rounds * CARDS


def fingerprint() -> str:
    """Version + hash of what the calibration runs: its own source and the files it depends on."""
    import inspect

    root = Path(__file__).resolve().parents[1]
    digest = hashlib.sha256(str(CALIBRATION_VERSION).encode())
    digest.update(inspect.getsource(calibration_nb.py_func).encode())
    for rel in ("kernels/rng_nb.py", "kernels/jit.py"):
        path = root / rel
        if path.exists():
            digest.update(path.read_bytes())
    return f"v{CALIBRATION_VERSION}-{digest.hexdigest()[:12]}"


class Calibration:
    """Collects calibration samples (ops per CPU-second) through a run; the median is the figure."""

    def __init__(self, seconds: float = 0.1):
        self.seconds = seconds
        self.rounds = 0
        self.samples: list[float] = []

    def _sized(self) -> int:
        if not self.rounds:
            calibration_nb(10, 1)  # compile or load from cache
            rounds = 1000
            while True:
                t0 = time.thread_time()
                calibration_nb(rounds, 1)
                dt = time.thread_time() - t0
                if dt > 0.02 or rounds > 10**9:
                    break
                rounds *= 4
            self.rounds = max(1000, int(rounds * self.seconds / max(dt, 1e-6)))
        return self.rounds

    def sample(self, repeats: int = 1) -> list[float]:
        """Measure `repeats` times; each sample is ops per CPU-second of this thread."""
        rounds = self._sized()
        new = []
        for _ in range(repeats):
            t0 = time.thread_time()
            calibration_nb(rounds, 7)
            dt = time.thread_time() - t0
            new.append(ops(rounds) / max(dt, 1e-9))
        self.samples.extend(new)
        return new

    @property
    def ops_per_s(self) -> float:
        return statistics.median(self.samples) if self.samples else float("nan")

    def to_dict(self) -> dict:
        return {"ops_per_s": round(self.ops_per_s), "unit": "calibration ops per CPU-second",
                "op": "one card: a Fisher-Yates step (kernels/rng_nb) and a toy-game step",
                "version": fingerprint(), "ops_per_sample": ops(self.rounds),
                "repeats": [round(s) for s in self.samples]}
