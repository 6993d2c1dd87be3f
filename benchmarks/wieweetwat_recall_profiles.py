"""Does the reader's category matter? The leader's chance of answering first by category kind,
under Wie Weet Wat's two recall models (docs/models/recall.md, "Does the category matter?").

    python benchmarks/wieweetwat_recall_profiles.py [--games 4000] [--cards 5] [--seed 1]

A table of four: the reader (seat 3) and three answering players, each holding `cards` letter cards
dealt from the default 56-card letter mix (no Wie Weet Wat card); seat 0 is "the leader", the
player the reader would like to slow down. For each game the players' profiles are drawn by the
kernel's own draw_profiles_nb (default rules: knowledge_sigma 0.5, letter_sigma 0.3, reaction_time
0.8 s, reaction_sigma 0.3), and for each category kind the leader's chance of giving the first
answer is computed exactly: seat s answers at d_s + an exponential time with rate
r_s = breadth x knowledge[s, kind] x (its hand's letter shares for the kind), d_s its reaction time
(the minimum of shifted exponentials, integrated piece by piece between the d_s). Under the
uniform model r_s = breadth x (the hand's general shares) and d_s = 0 for every kind. Wrong answers
and the time limit are left out (both act alike on every kind).

Reported per model: over the games, each kind's mean chance and its 5th-95th percentiles; the
spread within a game (the largest minus the smallest chance over the kinds); and the leader's
chance when the reader picks, on each card, the kind that is worst for the leader (it knows the
players: an upper bound of what the choice can do) against a random kind.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def first_chance(rates, delays) -> float:
    """P(seat 0 is first) for T_s = delays[s] + Exp(rates[s])."""
    order = np.argsort(delays)
    points = list(delays[order]) + [np.inf]
    total = 0.0
    for j in range(len(order)):
        a, b = points[j], points[j + 1]
        if a < delays[0] or a == b:
            continue
        active = order[:j + 1]
        r = rates[active].sum()
        c = (rates[active] * delays[active]).sum()
        if r <= 0.0:
            continue
        upper = 0.0 if np.isinf(b) else np.exp(c - r * b)
        total += rates[0] * (np.exp(c - r * a) - upper) / r
    return total


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=4000)
    parser.add_argument("--cards", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--breadth", type=float, default=1.0)
    args = parser.parse_args(argv)

    from kernels.jit import njit
    from kernels.wieweetwat import enums as E
    from kernels.wieweetwat.recall_nb import draw_profiles_nb
    from sim.games.wieweetwat import CATEGORY_KINDS, DEFAULT_LETTERS, GAME, kind_share_table

    @njit
    def profiles_nb(seed, games_n, n, rule_f, kshare):
        know = np.zeros((games_n, n, E.N_CATEGORY_KINDS))
        lfactor = np.zeros((games_n, n, E.N_LETTERS))
        react = np.zeros((games_n, n))
        pshare = np.zeros((games_n, n, E.N_CATEGORY_KINDS, E.N_LETTERS))
        rngs = np.zeros(n, np.uint64)
        fixed_know = np.zeros((n, E.N_CATEGORY_KINDS))  # nothing fixed: every value drawn
        fixed_letters = np.zeros((n, E.N_LETTERS))
        fixed_react = np.full(n, -1.0)
        for g in range(games_n):
            draw_profiles_nb(seed, np.int64(g), n, np.int64(0), rule_f, kshare, pshare[g], know[g],
                             lfactor[g], react[g], rngs, fixed_know, fixed_letters, fixed_react)
        return know, react, pshare

    rule_f = np.array([p.default for p in GAME.rules if p.in_float_array], dtype=np.float64)
    assert len(rule_f) == E.N_RULES_F
    kshare = kind_share_table()
    know, react, pshare = profiles_nb(np.int64(args.seed), np.int64(args.games), np.int64(4),
                                      rule_f, kshare)
    deck = np.repeat(np.arange(26), DEFAULT_LETTERS)
    gen = np.random.default_rng(args.seed)  # the deals of this benchmark only
    general = kshare[CATEGORY_KINDS.index("algemeen")]
    n_kinds = len(CATEGORY_KINDS)
    chance = {"uniform": np.zeros((args.games, n_kinds)), "profiles": np.zeros((args.games, n_kinds))}
    for g in range(args.games):
        cards = gen.permutation(deck)[:3 * args.cards].reshape(3, args.cards)
        held = [np.unique(c) for c in cards]
        for k in range(n_kinds):
            rates = np.array([args.breadth * general[h].sum() for h in held])
            chance["uniform"][g, k] = first_chance(rates, np.zeros(3))
            rates = np.array([args.breadth * know[g, s, k] * pshare[g, s, k, held[s]].sum()
                              for s in range(3)])
            chance["profiles"][g, k] = first_chance(rates, react[g, :3].copy())
    print(f"{args.games} games, 3 answering players with {args.cards} cards each, breadth "
          f"{args.breadth}, seed {args.seed}; the leader's chance of answering first (even: 1/3)")
    for model, c in chance.items():
        print(f"\n{model}:")
        for k, name in enumerate(CATEGORY_KINDS):
            lo, hi = np.percentile(c[:, k], [5, 95])
            print(f"  {name:9s} mean {c[:, k].mean():.3f}  5-95%: {lo:.2f}-{hi:.2f}")
        spread = c.max(axis=1) - c.min(axis=1)
        print(f"  spread over the kinds within a game: median {np.median(spread):.3f}, "
              f"90th percentile {np.percentile(spread, 90):.3f}")
        # a card of four categories: four kinds drawn by the default list's mix of kinds
        from sim.games.wieweetwat import KIND_WEIGHTS

        w = np.array([KIND_WEIGHTS[k] for k in CATEGORY_KINDS])
        picks = gen.choice(n_kinds, size=(args.games, 4), p=w / w.sum())
        on_card = np.take_along_axis(c, picks, axis=1)
        print(f"  a card of four categories: random pick {on_card.mean():.3f}, the reader's worst "
              f"for the leader {on_card.min(axis=1).mean():.3f}, best {on_card.max(axis=1).mean():.3f}")
        print(f"  all games and kinds: 5-95% {np.percentile(c, 5):.2f}-{np.percentile(c, 95):.2f}, "
              f"min {c.min():.2f}, max {c.max():.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
