"""How well the Wizard players bid and play: calibration of their bids by kind of round and seat,
round-1 bids against the 3/7 rule, exact bids, and Wizards beaten by an earlier Wizard.

    python -m benchmarks.wizard_bidding [--games 100000] [--players 3,4,5,6] [--ref main]
                                        [--policies heuristic,sampler=5000,search=200]
                                        [--trace-games 5000] [--seed 4242]

Every seat plays the same policy (self-play), default rules (full games); --policies names the
bidding players measured, each with its own game count after `=` (default --games). `random` bids
uniformly and cannot be calibrated, so it is not measured. For each policy and player count it
prints:
- mean (bid - tricks) per seat and round, with its standard error, by kind of round and by seat:
  round 1 (one card each), later rounds with a suited card turned (trump), a Wizard turned (the
  dealer names trump), a Jester turned (no trump), and the last round (no card left, no trump);
  the goal is |mean| <= 0.15 (GOAL) in every cell, and the worst cell is named;
- the exact-bid rate and the mean final score per seat;
- round 1: the mean score of the policy's bids against "bid 1 exactly when the card takes the trick
  with probability above 3/7" on the same deals. In round 1 each seat plays its only card, so the
  tricks do not depend on the bids and both bids are scored against the same outcomes. The rule's
  probabilities are the observed trick rates by position and card (its class in
  kernels/wizard/bid_model_nb.py), measured on the other half of the games (even games from odd
  ones and back); "in-sample" measures them on the same games, an optimistic bound for the rule;
- Wizards beaten by an earlier Wizard in the same trick, per game, from the traces of the first
  --trace-games games.
With --ref REV the same figures for kernels/ at git revision REV (benchmarks.ab_game.snapshot)
follow each row, on the same deals.
"""
from __future__ import annotations

import argparse
import importlib
import sys
import tempfile
from pathlib import Path

import numpy as np

from benchmarks.ab_game import REF_PACKAGE, ROOT, snapshot

POLICY_IDS = {"heuristic": 1, "sampler": 2, "search": 4}  # kernels/wizard/enums.py P_*
SEARCH_SAMPLES = 32  # the search player's default `samples` (sim/games/wizard.py)
EV_ROUND, EV_PLAY = 2, 7
FIRST_WIZARD, FIRST_JESTER = 52, 56
KINDS = ("round 1", "trump", "wizard turned", "jester turned", "last round")
GOAL = 0.15  # issue 30: |mean bid - tricks| per seat in every kind of round


def round_kinds(turned: np.ndarray) -> np.ndarray:
    """Kind of each round (index into KINDS) of full games, from round_turned (games x rounds)."""
    kind = np.where(turned < 0, 4, np.where(turned >= FIRST_JESTER, 3,
                                            np.where(turned >= FIRST_WIZARD, 2, 1)))
    kind[:, 0] = 0
    kind[:, -1] = 4  # the last round deals every card: no trump, nothing turned
    return kind


def play(package: str, n: int, games: int, seed: int, trace_games: int,
         policy: str = "heuristic") -> dict:
    """Records of `games` self-play games, and beaten Wizards per game over the first trace_games."""
    enums = importlib.import_module(f"{package}.wizard.enums")
    play_nb = importlib.import_module(f"{package}.wizard.play_nb")
    policies = np.full(n, POLICY_IDS[policy], dtype=np.int64)
    extra = (np.zeros(len(enums.RULE_I_ORDER), np.int64), np.zeros(0, np.float64), policies,
             np.full((n, len(enums.SEAT_I_ORDER)), SEARCH_SAMPLES, np.int64),
             np.zeros((n, 0), np.float64),
             # the searching seats (sim/contract.py), for a version of the kernel that takes them
             (np.arange(n) if policy == "search" else None,)
             if getattr(enums, "DATA_SEARCHING", False) else ())
    out = np.zeros(games, dtype=enums.OUT_DTYPE)
    status, failed, _ = play_nb.play_games_nb(np.int64(seed), np.int64(0), np.int64(games), *extra,
                                              out, None, False)
    if status != 0:
        raise SystemExit(f"{package}: kernel status {status} at game {failed}")
    beaten = 0
    trace = np.zeros((8192, enums.TRACE_WIDTH), dtype=np.int32)
    one = np.zeros(1, dtype=enums.OUT_DTYPE)
    for g in range(trace_games):
        status, _, rows = play_nb.play_games_nb(np.int64(seed), np.int64(g), np.int64(1), *extra,
                                                one, trace, False)
        t = trace[:rows]
        rnd = np.cumsum(t[:, 0] == EV_ROUND)
        wiz = (t[:, 0] == EV_PLAY) & (t[:, 2] >= 52) & (t[:, 2] < 56)
        keys = rnd[wiz] * 100 + t[wiz, 3]
        beaten += len(keys) - len(np.unique(keys))
    return {"out": out, "beaten": beaten / trace_games if trace_games else float("nan")}


def round_one_cards(seed: int, games: int, n: int) -> np.ndarray:
    """The card each seat is dealt in round 1 of each game (int64[games, n]), as the driver deals."""
    from kernels.rng_nb import deal_stream_nb
    from kernels.wizard.rules_nb import deal_nb

    rng = np.zeros(1, dtype=np.uint64)
    deck = np.empty(60, dtype=np.int64)
    hands = np.zeros(6, dtype=np.uint64)
    cards = np.empty((games, n), dtype=np.int64)
    for g in range(games):
        rng[0] = deal_stream_nb(np.int64(seed), np.int64(g), np.int64(0))
        deal_nb(rng, deck, n, 1, hands)
        for s in range(n):
            cards[g, s] = int(hands[s]).bit_length() - 1
    return cards


def score(bids: np.ndarray, tricks: np.ndarray) -> np.ndarray:
    return np.where(bids == tricks, 20 + 10 * tricks, -10 * np.abs(bids - tricks))


def rule_bids(key: np.ndarray, tricks: np.ndarray, fit: np.ndarray) -> np.ndarray:
    """Bid 1 where the trick rate of the card's key (position, class), measured on the games
    `fit`, is above 3/7 (a key never seen there: bid 0)."""
    size = int(key.max()) + 1
    seen = np.bincount(key[fit].ravel(), minlength=size)
    won = np.bincount(key[fit].ravel(), weights=tricks[fit].ravel(), minlength=size)
    rate = np.divide(won, seen, out=np.zeros(size), where=seen > 0)
    return (rate[key] > 3 / 7).astype(np.int64)


def figures(run: dict, n: int, cards: np.ndarray) -> dict:
    from kernels.wizard.bid_model_nb import card_class_nb

    out = run["out"]
    games = len(out)
    rounds = 60 // n
    bids = out["round_bids"][:, :rounds * n].reshape(games, rounds, n).astype(np.int64)
    tricks = out["round_tricks"][:, :rounds * n].reshape(games, rounds, n).astype(np.int64)
    trump = out["round_trump"][:, :rounds].astype(np.int64)
    kind = round_kinds(out["round_turned"][:, :rounds].astype(np.int64))
    diff = bids - tricks
    res = {}
    for k, name in enumerate(KINDS):
        d = diff[kind == k]  # rounds x seats
        res[name] = (d.mean(), d.std() / np.sqrt(d.size), (d == 0).mean(),
                     d.mean(axis=0), d.std(axis=0) / np.sqrt(len(d)))
    res["all"] = (diff.mean(), diff.std() / np.sqrt(diff.size), (diff == 0).mean(),
                  diff.reshape(-1, n).mean(axis=0), diff.reshape(-1, n).std(axis=0) / np.sqrt(games * rounds))
    res["score"] = out["score"][:, :n].mean()
    res["beaten"] = run["beaten"]
    # round 1 against the 3/7 rule
    t1, b1, tr1 = tricks[:, 0], bids[:, 0], trump[:, 0]
    cls = np.array([[card_class_nb(cards[g, s], np.uint64(1 << int(cards[g, s])), tr1[g])
                     for s in range(n)] for g in range(games)])
    key = np.broadcast_to(np.arange(n), (games, n)) * 1000 + cls
    in_sample = rule_bids(key, t1, np.ones(games, dtype=bool))
    half = np.arange(games) % 2 == 0
    crossed = np.where(half[:, None], rule_bids(key, t1, ~half), rule_bids(key, t1, half))
    gain = (score(b1, t1) - score(crossed, t1)).ravel()  # paired: same deals, same tricks
    res["round1"] = (score(b1, t1).mean(), score(crossed, t1).mean(), score(in_sample, t1).mean(),
                     (b1 == crossed).mean(), gain.mean(), gain.std() / np.sqrt(len(gain)))
    return res


def seat_cells(res: dict, n: int) -> str:
    m, se = res[3], res[4]
    return " ".join(f"{m[s]:+7.3f}±{se[s]:.3f}" for s in range(n))


def worst_cell(res: dict, n: int) -> tuple[str, int, float, float]:
    """(kind, seat, mean, standard error) of the seat and kind of round furthest from 0."""
    cells = [(name, s, res[name][3][s], res[name][4][s]) for name in KINDS for s in range(n)]
    return max(cells, key=lambda c: abs(c[2]))


def report(n: int, games: int, this: dict, ref: dict | None, policy: str = "heuristic") -> None:
    print(f"\n{n} players, {games:,} games of {policy} self-play" + (" (this | ref)" if ref else ""))
    seats = " ".join(f"{'seat ' + str(s):>13s}" for s in range(n))
    print(f"  {'kind of round':14s} {'mean bid-tricks':>17s} {'exact':>6s}  {seats}"
          + ("  |  ref bid-tricks   exact  ref seats" if ref else ""))
    for name in KINDS + ("all",):
        m, se, ex = this[name][:3]
        line = f"  {name:14s} {m:+9.3f} ± {se:.3f} {ex:6.1%}  {seat_cells(this[name], n)}"
        if ref:
            rm, rse, rex = ref[name][:3]
            line += f"  |  {rm:+8.3f} ± {rse:.3f} {rex:6.1%}  {seat_cells(ref[name], n)}"
        print(line)
    kind, seat, m, se = worst_cell(this, n)
    line = (f"  worst seat: {kind}, seat {seat}: {m:+.3f} ± {se:.3f} "
            f"({'within' if abs(m) <= GOAL else 'outside'} the ±{GOAL} goal)")
    if ref:
        kind, seat, m, se = worst_cell(ref, n)
        line += f"   |  ref {kind}, seat {seat}: {m:+.3f} ± {se:.3f}"
    print(line)
    p, r, r_in, agree, gain, gain_se = this["round1"]
    line = (f"  round 1 mean score: policy {p:+.3f}, 3/7 rule {r:+.3f}, policy - rule {gain:+.3f} "
            f"± {gain_se:.3f} (same bid {agree:.1%}; rule in-sample {r_in:+.3f})")
    if ref:
        line += f"   |  ref policy {ref['round1'][0]:+.3f}"
    print(line)
    line = f"  mean final score per seat {this['score']:.1f}; Wizards beaten per game {this['beaten']:.3f}"
    if ref:
        line += f"   |  ref {ref['score']:.1f}; {ref['beaten']:.3f}"
    print(line)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.wizard_bidding",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--players", default="4,3,5,6")
    parser.add_argument("--seed", type=int, default=4242)
    parser.add_argument("--policies", default="heuristic",
                        help="bidding players, comma-separated, each optionally with its own game "
                             "count: heuristic,sampler=5000,search=200 (default heuristic)")
    parser.add_argument("--trace-games", type=int, default=5000,
                        help="games traced for beaten Wizards (heuristic only)")
    parser.add_argument("--ref", help="also measure kernels/ at this git revision")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    runs = []
    for item in args.policies.split(","):
        name, _, count = item.partition("=")
        if name not in POLICY_IDS:
            parser.error(f"--policies: {name!r} is not a bidding player ({', '.join(POLICY_IDS)})")
        runs.append((name, int(count) if count else args.games))
    with tempfile.TemporaryDirectory(prefix="kaartlab-wizbid-") as tmp:
        if args.ref:
            snapshot(args.ref, Path(tmp))
            sys.path.insert(0, tmp)
        for policy, games in runs:
            traced = args.trace_games if policy == "heuristic" else 0
            for n in (int(x) for x in args.players.split(",")):
                cards = round_one_cards(args.seed, games, n)
                this = figures(play("kernels", n, games, args.seed, traced, policy), n, cards)
                ref = None
                if args.ref:
                    ref = figures(play(REF_PACKAGE, n, games, args.seed, traced, policy), n, cards)
                report(n, games, this, ref, policy)
    return 0


if __name__ == "__main__":
    sys.exit(main())
