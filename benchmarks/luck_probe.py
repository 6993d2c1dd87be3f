"""How much of Wizard's seat-0 variance a hand-strength control variate explains.

    python -m benchmarks.luck_probe [--games N] [--seed S]

Per game and seat, five counts summed over the rounds of the seat's dealt hands: Wizards, Jesters,
trump cards, the ranks of those trumps, and cards ranked Q or higher. Seat 0's counts minus the mean of
the seats' are zero in expectation (the deal is exchangeable across seats), so they may be regressed
out of seat 0's win weight without bias. The regression is fitted on the first half of the games and
judged on the second (out-of-sample R^2); 1 / (1 - R^2) is how many times fewer games the adjustment
would need. docs/stopping.md, "Luck of the draw", has the result.
"""
from __future__ import annotations

import argparse
import sys

import numpy as np

from benchmarks.fewest_games import PLAYERS, seat0_weight
from kernels.jit import njit
from kernels.rng_nb import deal_stream_nb
from kernels.wizard.enums import FIRST_JESTER, FIRST_WIZARD, N_CARDS
from kernels.wizard.rules_nb import deal_nb

FEATURES = ("wizards", "jesters", "trumps", "trump ranks", "high cards")


@njit
def hand_counts_nb(seed, games, n, rounds, out):
    """out[g, s, f] += feature f of seat s's hands over game g's rounds (deal_stream_nb, as the kernel)."""
    deck = np.empty(N_CARDS, np.int64)
    hands = np.zeros(8, np.uint64)
    rng = np.zeros(1, np.uint64)
    for g in range(games):
        for rd in range(rounds):
            rng[0] = deal_stream_nb(seed, g, rd)
            top = deal_nb(rng, deck, n, rd + 1, hands)
            trump = top // 13 if 0 <= top < FIRST_WIZARD else -1
            for s in range(n):
                for c in range(N_CARDS):
                    if not (hands[s] >> np.uint64(c)) & np.uint64(1):
                        continue
                    if c >= FIRST_JESTER:
                        out[g, s, 1] += 1
                    elif c >= FIRST_WIZARD:
                        out[g, s, 0] += 1
                    else:
                        if c // 13 == trump:
                            out[g, s, 2] += 1
                            out[g, s, 3] += c % 13
                        if c % 13 >= 10:
                            out[g, s, 4] += 1


def out_of_sample_r2(x: np.ndarray, y: np.ndarray) -> float:
    design = np.column_stack([x, np.ones(len(y))])
    half = len(y) // 2
    beta, *_ = np.linalg.lstsq(design[:half], y[:half], rcond=None)
    rest = y[half:] - design[half:] @ beta
    return 1.0 - rest.var() / y[half:].var()


def main(argv=None) -> int:
    from sim.spec import ArmSpec

    parser = argparse.ArgumentParser(prog="python -m benchmarks.luck_probe", description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=40_000)
    parser.add_argument("--seed", type=int, default=5)
    args = parser.parse_args(argv)
    arm = ArmSpec.make("wizard", PLAYERS, None, "heuristic")
    out, _ = arm.info.runner().run_kernel(arm, args.seed, 0, args.games)
    counts = np.zeros((args.games, PLAYERS, len(FEATURES)))
    hand_counts_nb(args.seed, args.games, PLAYERS, 60 // PLAYERS, counts)
    x = counts[:, 0, :] - counts.mean(axis=1)
    score = out["score"][:, :PLAYERS].astype(float)
    for name, y in (("seat 0's win weight", seat0_weight(out)), ("seat 0's score minus the table's mean",
                                                                 score[:, 0] - score.mean(axis=1))):
        r2 = out_of_sample_r2(x, y)
        print(f"{name}: out-of-sample R^2 {r2:.3f}, {1 / (1 - r2):.3f}x fewer games")
    return 0


if __name__ == "__main__":
    sys.exit(main())
