"""How well calibrated the Wie is de Heer? writers' stated beliefs are, and what tempering would do
(a tool for the likelihood model, not a speed figure).

    python -m benchmarks.heer_temper [--games 2000] [--players 3,4,5,6] [--rule k=v ...]
                                     [--policy reasoner] [--grid]

Plays traced games and splits each loyal writer's posterior, at the moment it writes, into the
evidence it came from, read off the trace: the acts it read (EV_EVIDENCE rows with the writer among
the readers: log of P(act | mole) / P(act | loyal) for the actor) and the answers it read (EV_ASK
rows of its own questions, or every seat's with `answers_public`: each answer's log ratio from
`answer_accuracy` and the target's `bluff`). With the uniform prior the posterior is exp(acts +
answers) renormalised over the other seats; the script checks that against the seat's last
EV_BELIEF row.

A tempering states exp(tau_acts * acts + tau_answers * answers) renormalised (the written suspect,
the most likely seat, is the posterior's). Printed per player count: the mean stated probability,
the share right, the mean Brier score (sum over the other seats of (p - [seat is the mole])^2), the
expected calibration error (ten bins of the stated probability, |stated - right| weighted by the
bin's share) and the table of bins above 0.5, for the untempered posterior, the kernel's stated
probability on its suspect (p_suspect, so the share right is of the suspect the kernel wrote; no
Brier score), each --powers pair and, with --grid, the pair with the lowest Brier score.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def accusations(players: int, games: int, seed: int = 11, rules=None, policy="reasoner"):
    """Per loyal writer: (acts [k, players], answers [k, players], posterior [k, players] from the
    trace, writer [k], mole [k], [k, 2]: the kernel's stated probability on its suspect and the
    suspect it wrote)."""
    from kernels.wieisdeheer import enums as e
    from sim.registry import get_game
    from sim.spec import ArmSpec

    runner = get_game("wieisdeheer").runner()
    arm = ArmSpec.make("wieisdeheer", players, rules or {}, policy)
    accuracy = float(arm.rule_values["answer_accuracy"])
    public = bool(arm.rule_values["answers_public"])
    bluff = [float(dict(seat.params).get("bluff", 0.5)) for seat in arm.seats]
    acts_out, answers_out, posts, writers, moles, stated = [], [], [], [], [], []
    for index in range(games):
        record, rows = runner.traced(arm, seed, index)
        mole = int(rows[rows[:, 0] == e.EV_GAME][0, 5])
        acts = np.zeros((players, players))
        answers = np.zeros((players, players))
        latest = {}
        for row in rows:
            code, seat = int(row[0]), int(row[1])
            if code == e.EV_BELIEF:
                latest[seat] = row[2:2 + players] / 1000.0
            elif code == e.EV_EVIDENCE:
                ratio = np.log(max(row[4], 1) / max(row[3], 1))
                for o in range(players):
                    if row[7] >> o & 1:
                        acts[o, seat] += ratio
            elif code == e.EV_ASK:
                target, q, k = int(row[2]), int(row[3]), int(row[4])
                b = bluff[target]
                p_loyal = 1 - accuracy  # a mole-like reading from a loyal target
                p_mole = (1 - b) * accuracy + b * (1 - accuracy)
                ratio = k * np.log(p_mole / p_loyal) + (q - k) * np.log((1 - p_mole) / (1 - p_loyal))
                for o in (range(players) if public else (seat,)):
                    answers[o, target] += ratio
            elif code == e.EV_OUT and row[3] >= 0 and seat != mole:
                acts_out.append(acts[seat].copy())
                answers_out.append(answers[seat].copy())
                posts.append(latest[seat])
                writers.append(seat)
                moles.append(mole)
                stated.append((int(row[4]) / 1000.0, int(row[3])))
    return (np.array(acts_out), np.array(answers_out), np.array(posts), np.array(writers),
            np.array(moles), np.array(stated).reshape(-1, 2))


def tempered(acts, answers, writers, tau_acts: float, tau_answers: float):
    x = tau_acts * acts + tau_answers * answers
    x[np.arange(len(writers)), writers] = -np.inf
    x -= x.max(axis=1, keepdims=True)
    p = np.exp(x)
    return p / p.sum(axis=1, keepdims=True)


def scores(p, writers, moles, stated=None) -> dict:
    truth = np.zeros_like(p)
    truth[np.arange(len(moles)), moles] = 1.0
    suspect = p.argmax(axis=1) if stated is None else stated[:, 1].astype(int)
    said = p.max(axis=1) if stated is None else stated[:, 0]
    right = (suspect == moles).astype(float)
    bins = np.minimum((said * 10).astype(int), 9)
    ece = sum(abs(said[bins == b].mean() - right[bins == b].mean()) * (bins == b).mean()
              for b in range(10) if (bins == b).any())
    table = [(b / 10, int((bins == b).sum()), said[bins == b].mean(), right[bins == b].mean())
             for b in range(5, 10) if (bins == b).sum() >= 20]
    brier = ((p - truth) ** 2).sum(axis=1).mean() if stated is None else float("nan")
    return {"stated": said.mean(), "right": right.mean(), "brier": brier, "ece": ece, "table": table}


def line(label, s):
    bins = "; ".join(f"{lo:.1f}+: {n} said {sd:.3f} right {r:.3f}" for lo, n, sd, r in s["table"])
    return (f"  {label}: stated {s['stated']:.3f}, right {s['right']:.3f}, Brier {s['brier']:.4f}, "
            f"calibration error {s['ece']:.3f} | {bins}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--players", default="3,4,5,6")
    parser.add_argument("--policy", default="reasoner")
    parser.add_argument("--rule", action="append", default=[], help="k=v, as the CLI's --rule")
    parser.add_argument("--grid", action="store_true", help="search the pair of powers")
    parser.add_argument("--powers", default="", help="tau_acts,tau_answers pairs to score: a,b;c,d")
    args = parser.parse_args(argv)
    rules = dict(kv.split("=", 1) for kv in args.rule)
    for players in map(int, args.players.split(",")):
        acts, answers, posts, writers, moles, stated = accusations(players, args.games, rules=rules,
                                                                    policy=args.policy)
        untempered = tempered(acts, answers, writers, 1.0, 1.0)
        gap = np.abs(untempered - posts).max()
        print(f"{players}p {rules or 'default rules'}: {len(writers)} accusations; trace decomposition off "
              f"by at most {gap:.4f}")
        print(line("posterior", scores(untempered, writers, moles)))
        # the kernel's own stated probability on the suspect it wrote (its p_suspect; Brier: the row's)
        print(line("kernel's stated", scores(untempered, writers, moles, stated)))
        for pair in filter(None, args.powers.split(";")):
            ta, tq = map(float, pair.split(","))
            print(line(f"acts^{ta:g} answers^{tq:g}", scores(tempered(acts, answers, writers, ta, tq),
                                                              writers, moles)))
        if args.grid:
            best = min(((scores(tempered(acts, answers, writers, ta, tq), writers, moles)["brier"], ta, tq)
                        for ta in np.arange(0.3, 1.31, 0.05) for tq in np.arange(0.5, 1.51, 0.05)))
            _, ta, tq = best
            print(line(f"best acts^{ta:.2f} answers^{tq:.2f}",
                       scores(tempered(acts, answers, writers, ta, tq), writers, moles)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
