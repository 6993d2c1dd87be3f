"""How well calibrated the Wie is de Heer? reasoners' written suspects are, and what tempering their
final beliefs would do (a tool for the likelihood model, not a speed figure).

    python -m benchmarks.heer_temper [--games 2000] [--players 3,4,5,6] [--taus 1,0.9,0.8,0.7,0.6]

Plays traced games with every seat a `reasoner` (default parameters and rules) and reads, for each
loyal seat that writes a suspect, its beliefs at that moment (the last EV_BELIEF row of that seat,
per mille) and the mole. Tempering with tau raises each probability to the power tau and
renormalises: with the uniform prior that is the posterior under likelihoods raised to tau, but the
written suspect (the most likely seat) is unchanged. Prints per player count and tau: the mean
stated probability, the share right, the mean Brier score (sum over the other seats of
(p - [seat is the mole])^2) and the expected calibration error (ten bins of the stated probability,
|stated - right| weighted by the bin's share).
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def accusations(players: int, games: int, seed: int = 11):
    """(beliefs [k, players] at each loyal writer's moment, writer seat [k], mole [k])."""
    from kernels.wieisdeheer import enums as e
    from sim.registry import get_game
    from sim.spec import ArmSpec

    runner = get_game("wieisdeheer").runner()
    arm = ArmSpec.make("wieisdeheer", players, {}, "reasoner")
    beliefs, writers, moles = [], [], []
    for index in range(games):
        _, rows = runner.traced(arm, seed, index)
        mole = int(rows[rows[:, 0] == e.EV_GAME][0, 5])
        latest = {}
        for row in rows:
            if row[0] == e.EV_BELIEF:
                latest[int(row[1])] = row[2:2 + players] / 1000.0
            elif row[0] == e.EV_OUT and row[3] >= 0 and row[1] != mole:
                beliefs.append(latest[int(row[1])])
                writers.append(int(row[1]))
                moles.append(mole)
    return np.array(beliefs), np.array(writers), np.array(moles)


def scores(beliefs, writers, moles, tau: float) -> dict:
    p = beliefs ** tau
    p[np.arange(len(writers)), writers] = 0.0
    p /= p.sum(axis=1, keepdims=True)
    truth = np.zeros_like(p)
    truth[np.arange(len(moles)), moles] = 1.0
    truth[np.arange(len(writers)), writers] = 0.0
    stated = p.max(axis=1)
    right = (p.argmax(axis=1) == moles).astype(float)
    bins = np.minimum((stated * 10).astype(int), 9)
    ece = sum(abs(stated[bins == b].mean() - right[bins == b].mean()) * (bins == b).mean()
              for b in range(10) if (bins == b).any())
    return {"stated": stated.mean(), "right": right.mean(), "brier": ((p - truth) ** 2).sum(axis=1).mean(),
            "ece": ece}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--players", default="3,4,5,6")
    parser.add_argument("--taus", default="1,0.9,0.8,0.7,0.6")
    args = parser.parse_args(argv)
    for players in map(int, args.players.split(",")):
        data = accusations(players, args.games)
        for tau in map(float, args.taus.split(",")):
            s = scores(*data, tau)
            print(f"{players}p tau {tau:.2f}: {len(data[0])} accusations, stated {s['stated']:.3f}, right "
                  f"{s['right']:.3f}, Brier {s['brier']:.4f}, calibration error {s['ece']:.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
