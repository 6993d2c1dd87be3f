"""Measure the Wizard heuristic's bid table by self-play and write kernels/wizard/bid_tables.py.

    python tools/wizard_bid_tables.py [--deals 100000] [--iterations 5] [--seed 2026] [--out PATH]
                                      [--factor-deals 50000] [--factor-iterations 5] [--factors-only]
    python tools/wizard_bid_tables.py --sampler-bonus [--bonus-deals 5000] [--bonus-iterations 5]
    python tools/wizard_bid_tables.py --search-bonus [--search-games 600] [--search-iterations 6]
    make wizard-tables

The table holds each card's chance of taking a trick under heuristic play, by player count, round
bucket, position after the leader and card class (kernels/wizard/bid_model_nb.py). Bids change the
play (a seat plays to make its bid), so the table is found by iterating from a flat start (every
card 1/players): bid from the table, play random deals of every round size, count which cards
took tricks, make the next table, ITERATIONS times. DEALS deals are played of a round that deals
the whole deck, and proportionally more of smaller rounds (deals_of), so that every round size
sees about as many cards: a round-1 cell rests on about as many cards as a last-round cell. Each (players, bucket) slice of the table is
measured from its own rounds and bid from its own cells only, so slices are independent and one
slice can be re-made alone (tests/test_wizard_bidding.py does so).

A cell is the trick rate of its class at its position, shrunk (PRIOR_WEIGHT imagined cards) toward
the class's rate over every position of its slice, itself shrunk toward 1/players: rare classes
(an ace of a four-card trump suit in a two-card round cannot happen at all) get sensible values.
Then the bid factors (BID_FACTOR[players - 3, round size - 1, turn kind, position], in thousandths,
kernels/wizard/bid_model_nb.py): the bid with the best expected score under independent per-card
chances is biased (it bids high where a high bid pays, and the model misses how a hand's cards share
tricks), most in rounds where a Wizard is turned or no trump is played. Every card's chance is
multiplied by the factor of its (players, round size, turn kind, position), found by self-play on
deals of their own (other streams than the table's): start at 1, bid with the table and factors,
play FACTOR_DEALS-scaled deals (deals_of) of each round size, and multiply each factor by (mean
tricks ± FACTOR_BAND) / (mean bid) of its cell, FACTOR_ITERATIONS times; each cell keeps the factor whose round had
the smallest |mean bid - mean tricks| (the deals are the same in every iteration, so the
iterations are compared on the same cards). Only the bias beyond FACTOR_BAND (0.10 tricks) is
corrected: within it a cell keeps factor 1 (the bid with the best expected score need not be the
mean tricks, and round-1 bids stay the 3/7 rule), beyond it the factor aims at the band's edge. The chance table is measured with factors 1, so it is
the same with or without them; --factors-only refits the factors on the shipped table.

Last, with --sampler-bonus (a second run: the sampler bids around the heuristic's bids, which the
kernels compile from the written module), the sampler's bid bonus (SAMPLER_BONUS[players - 3,
kind, position], tenths of a point per trick bid added to each candidate bid's mean score; kinds:
the three turn kinds and the last round of a full game). The sampler takes the bid with the best
mean score on its playouts, which lies below its mean tricks in rounds without trump; cells outside
±FACTOR_BAND get the bonus that brings them to the band's edge (fit_bonus).

With --search-bonus (a third run), the same for the search player (SEARCH_BONUS, the same cells):
it takes the bid with the best mean score on playouts in which the other seats bid and play as
the heuristic does, and then plays its own cards by search, so its bids fell short of its tricks
by up to 0.6 per seat in the last round. Search is too slow for single-round self-play of every
round size, so its bias is measured on SEARCH_GAMES full games of search self-play per player
count and iteration (fit_search_bonus); it depends on the table and factors, not on the sampler.
The result depends only on the arguments: the deals come from counter-based streams of the seed.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from kernels.wizard import bid_model_nb as M
from kernels.wizard.enums import MAX_PLAYERS, MIN_PLAYERS, N_CARDS

SEED = 2026
DEALS = 100_000
ITERATIONS = 5
PRIOR_WEIGHT = 20.0
FACTOR_DEALS = 50_000
FACTOR_ITERATIONS = 5
FACTOR_STREAM = 1024  # deal streams FACTOR_STREAM + 32 n + r: not the table's 32 n + r
FACTOR_STEP = (0.5, 2.0)  # bounds of one iteration's multiplier
FACTOR_BAND = 0.10  # a cell's |mean bid - mean tricks| left alone: issue 30's goal 0.15 less noise
BONUS_DEALS = 5000  # sampler rounds of each size per iteration
BONUS_ITERATIONS = 5
BONUS_STREAM = 2048  # deal streams BONUS_STREAM + 32 n + r
BONUS_FIRST_STEP = 150.0  # first bonus (tenths of a point per trick bid) per trick of excess bias
BONUS_LIMIT = 300  # |bonus| at most 30 points per trick bid
SEARCH_GAMES = 600  # full games of search self-play per player count per iteration
SEARCH_ITERATIONS = 6
SEARCH_MIN_SLOPE = 0.002  # the flattest response measured: 0.0023 tricks per tenth (5 players, last round)
SEARCH_SEED = SEED + 3  # (--seed + 3) not the bidding benchmark's seed (4242), which checks the fit
OUT = ROOT / "kernels" / "wizard" / "bid_tables.py"
BATCH = 20_000  # deals per kernel call (progress and interrupt points)


def round_sizes(n: int, bucket: int) -> list[int]:
    """The round sizes of n players that fall in `bucket`."""
    return [r for r in range(1, N_CARDS // n + 1) if int(M.round_bucket_nb(n, r)) == bucket]


def deals_of(n: int, r: int, deals: int) -> int:
    """Deals of the (n, r) round: as many cards as `deals` deals of the whole deck."""
    return deals * (N_CARDS // (n * r))


def estimate(seen: np.ndarray, won: np.ndarray, n: int) -> np.ndarray:
    """Chances in thousandths (int16[MAX_PLAYERS, N_CLASSES]) from the counts of one slice."""
    pooled = (won[:n].sum(axis=0) + PRIOR_WEIGHT / n) / (seen[:n].sum(axis=0) + PRIOR_WEIGHT)
    cell = (won + PRIOR_WEIGHT * pooled) / (seen + PRIOR_WEIGHT)
    cell[n:] = 0.0
    return np.rint(cell * M.CHANCE_SCALE).astype(np.int16)


def unit_factors() -> np.ndarray:
    return np.full(M.FACTOR_SHAPE, int(M.FACTOR_SCALE), dtype=np.int16)


def flat_table() -> np.ndarray:
    table = np.zeros(M.TABLE_SHAPE, dtype=np.int16)
    for n in range(MIN_PLAYERS, MAX_PLAYERS + 1):
        table[n - MIN_PLAYERS, :, :n, :] = round(M.CHANCE_SCALE / n)
    return table


def build_slice(n: int, bucket: int, deals: int = DEALS, iterations: int = ITERATIONS,
                seed: int = SEED, log=None) -> np.ndarray:
    """One (players, bucket) slice of the table: int16[MAX_PLAYERS, N_CLASSES]."""
    from kernels.wizard.bid_stats_nb import bid_stats_nb

    table = flat_table()
    factors = unit_factors()
    sums = np.zeros((M.N_KINDS, MAX_PLAYERS), dtype=np.int64)  # per-kind sums: not used here
    sizes = round_sizes(n, bucket)
    for it in range(iterations):
        seen = np.zeros((MAX_PLAYERS, M.N_CLASSES), dtype=np.int64)
        won = np.zeros_like(seen)
        bias = 0
        seats = 0
        for r in sizes:
            count = deals_of(n, r, deals)
            seats += count * n
            for first in range(0, count, BATCH):
                bias += bid_stats_nb(np.int64(seed), np.int64(n), np.int64(r), np.int64(32 * n + r),
                                     np.int64(first), np.int64(min(BATCH, count - first)), table,
                                     factors, seen, won, sums, sums)
        table[n - MIN_PLAYERS, bucket] = estimate(seen, won, n)
        if log:
            log(f"  {n}p rounds {sizes[0]}-{sizes[-1]}: iteration {it + 1}: mean bid - tricks "
                f"{bias / seats:+.3f} per seat and round")
    return table[n - MIN_PLAYERS, bucket]


def fit_factors(n: int, r: int, table: np.ndarray, deals: int = FACTOR_DEALS,
                iterations: int = FACTOR_ITERATIONS, seed: int = SEED, log=None) -> np.ndarray:
    """The bid factors of the (n, r) rounds: int16[N_KINDS, MAX_PLAYERS], in thousandths, for
    bids from `table` (the whole chance table; only its (n, bucket of r) slice is read)."""
    from kernels.wizard.bid_stats_nb import bid_stats_nb

    factors = unit_factors()
    cell = factors[n - MIN_PLAYERS, r - 1]  # a view: what the kernel bids with
    best = cell.copy()
    best_gap = np.full(cell.shape, np.inf)
    count = deals_of(n, r, deals)
    for it in range(iterations):
        seen = np.zeros((MAX_PLAYERS, M.N_CLASSES), dtype=np.int64)
        won = np.zeros_like(seen)
        bid_sum = np.zeros((M.N_KINDS, MAX_PLAYERS), dtype=np.int64)
        trick_sum = np.zeros_like(bid_sum)
        for first in range(0, count, BATCH):
            bid_stats_nb(np.int64(seed), np.int64(n), np.int64(r), np.int64(FACTOR_STREAM + 32 * n + r),
                         np.int64(first), np.int64(min(BATCH, count - first)), table, factors,
                         seen, won, bid_sum, trick_sum)
        rounds = trick_sum.sum(axis=1, keepdims=True) // r  # every trick is someone's: rounds per kind
        played = (rounds > 0) & (np.arange(MAX_PLAYERS) < n)
        bias = (bid_sum - trick_sum) / np.maximum(rounds, 1)
        gap = np.where(played, np.maximum(np.abs(bias) - FACTOR_BAND, 0.0), np.inf)
        better = gap < best_gap
        best[better] = cell[better]
        best_gap[better] = gap[better]
        if log:
            log(f"  {n}p round {r}: factor iteration {it + 1}: largest |mean bid - tricks| of a "
                f"(kind, position) {np.abs(bias[played]).max():.3f}")
        # aim at the band's edge: the bid sum that would leave a bias of +-FACTOR_BAND
        target = trick_sum + np.sign(bias) * FACTOR_BAND * rounds
        ratio = np.where(bid_sum > 0, target / np.maximum(bid_sum, 1), FACTOR_STEP[1])
        ratio = np.where(played & (gap > 0), np.clip(ratio, *FACTOR_STEP), 1.0)
        cell[:] = np.clip(np.rint(cell * ratio), 1, np.iinfo(np.int16).max).astype(np.int16)
    return best


def build_factors(table: np.ndarray, deals: int = FACTOR_DEALS, iterations: int = FACTOR_ITERATIONS,
                  seed: int = SEED, log=None) -> np.ndarray:
    factors = unit_factors()
    for n in range(MIN_PLAYERS, MAX_PLAYERS + 1):
        for r in range(1, N_CARDS // n + 1):
            factors[n - MIN_PLAYERS, r - 1] = fit_factors(n, r, table, deals, iterations, seed, log)
    return factors


class BonusFit:
    """Bid bonuses (tenths of a point per trick bid) fitted cell by cell: a cell whose mean bid -
    tricks is outside ±FACTOR_BAND moves its bonus toward the band's edge (a first step of
    BONUS_FIRST_STEP per trick of excess, then the secant through its last two tries); each cell
    keeps, in `best`, the bonus whose rounds came closest. `min_slope` (tricks of bias per tenth of
    a point), if given, floors the secant's slope: a bid's response to its bonus only rises, and a
    noisy first step that barely moved a cell would otherwise send its next try to BONUS_LIMIT."""

    def __init__(self, shape, min_slope: float | None = None):
        self.min_slope = min_slope
        self.bonus = np.zeros(shape, dtype=np.int64)
        self.best = self.bonus.copy()
        self.best_gap = np.full(shape, np.inf)
        self.last_bonus = self.last_bias = None

    def update(self, bias: np.ndarray, played: np.ndarray) -> None:
        """Take one iteration's mean bid - tricks per cell (`played`: the cells that had rounds)."""
        excess = np.where(played, np.sign(bias) * np.maximum(np.abs(bias) - FACTOR_BAND, 0.0), 0.0)
        gap = np.where(played, np.abs(excess), np.inf)
        better = gap < self.best_gap
        self.best[better] = self.bonus[better]
        self.best_gap[better] = gap[better]
        step = -BONUS_FIRST_STEP * excess
        if self.last_bias is not None:
            moved = (self.bonus != self.last_bonus) & (bias != self.last_bias)
            slope = np.where(moved, (bias - self.last_bias)
                             / np.where(moved, self.bonus - self.last_bonus, 1), 0.0)
            if self.min_slope is not None:
                slope = np.maximum(slope, self.min_slope)
            secant = np.where(slope > 0, -excess / np.where(slope > 0, slope, 1), step)
            step = np.where(moved, secant, step)
        self.last_bonus, self.last_bias = self.bonus.copy(), bias
        self.bonus = np.where(excess != 0, np.clip(np.rint(self.bonus + step), -BONUS_LIMIT, BONUS_LIMIT),
                              self.bonus).astype(np.int64)


def log_bias(log, title: str, bias: np.ndarray, played: np.ndarray) -> None:
    """One iteration's mean bid - tricks: a row per kind of round, a column per position."""
    if log:
        n = int(played.any(axis=0).sum())
        log(f"  {title}: mean bid - tricks by kind (suit, Wizard, no trump, last) and position\n"
            + "\n".join("    " + " ".join(f"{v:+.3f}" if ok else "   -  " for v, ok in zip(row[:n], live[:n]))
                        for row, live in zip(bias, played)))


def fit_bonus(n: int, deals: int = BONUS_DEALS, iterations: int = BONUS_ITERATIONS, seed: int = SEED,
              log=None) -> np.ndarray:
    """The sampler's bid bonus of n players: int64[N_BONUS_KINDS, MAX_PLAYERS], tenths of a point
    per trick bid, by kind of round (turn kind, or the last round) and position. Self-play of
    `deals` rounds of every size per iteration (the same deals each time), all seats sampling with
    the current bonus (BonusFit)."""
    from kernels.wizard.bid_stats_nb import sampler_stats_nb

    shape = (M.N_BONUS_KINDS, MAX_PLAYERS)
    fit = BonusFit(shape)
    for it in range(iterations):
        bid_sum = np.zeros(shape, dtype=np.int64)
        trick_sum = np.zeros(shape, dtype=np.int64)
        rounds = np.zeros((M.N_BONUS_KINDS, 1))
        for r in range(1, N_CARDS // n + 1):
            b = np.zeros(shape, dtype=np.int64)
            t = np.zeros(shape, dtype=np.int64)
            for first in range(0, deals, BATCH):
                sampler_stats_nb(np.int64(seed), np.int64(n), np.int64(r),
                                 np.int64(BONUS_STREAM + 32 * n + r), np.int64(first),
                                 np.int64(min(BATCH, deals - first)), fit.bonus, b, t)
            bid_sum += b
            trick_sum += t
            rounds[:, 0] += t.sum(axis=1) // r
        played = (rounds > 0) & (np.arange(MAX_PLAYERS) < n)
        bias = (bid_sum - trick_sum) / np.maximum(rounds, 1)
        log_bias(log, f"{n}p sampler bonus iteration {it + 1}", bias, played)
        fit.update(bias, played)
    return fit.best


def search_sums(bonus: np.ndarray, games: int, seed: int) -> np.ndarray:
    """Full games of search self-play at 3 to 6 players, every seat bidding with SEARCH_BONUS =
    `bonus`: int64[3, *BONUS_SHAPE], the sums of bids and of tricks and the count of seat-rounds
    by (players, kind, position). The kernel reads SEARCH_BONUS as a constant when it compiles, so
    this runs in a process of its own with a cache directory of its own (measure_search_bias)."""
    from kernels.wizard import bid_tables

    bid_tables.SEARCH_BONUS[:] = bonus  # before play_nb compiles (imported below, by play)
    from benchmarks.wizard_bidding import play

    sums = np.zeros((3,) + tuple(M.BONUS_SHAPE), dtype=np.int64)
    size = M.N_BONUS_KINDS * MAX_PLAYERS
    for n in range(MIN_PLAYERS, MAX_PLAYERS + 1):
        out = play("kernels", n, games, seed, 0, "search")["out"]
        rounds = N_CARDS // n
        bids = out["round_bids"][:, :rounds * n].reshape(-1, rounds, n).astype(np.int64)
        tricks = out["round_tricks"][:, :rounds * n].reshape(-1, rounds, n).astype(np.int64)
        cell = bonus_cells(out, n).ravel()
        keep = cell >= 0
        for i, values in enumerate((bids, tricks, np.ones_like(bids))):
            sums[i, n - MIN_PLAYERS] = np.bincount(cell[keep], values.ravel()[keep], size).reshape(
                M.N_BONUS_KINDS, MAX_PLAYERS).astype(np.int64)
    return sums


def bonus_cells(out: np.ndarray, n: int) -> np.ndarray:
    """The bonus cell of each seat in each round of full games (records `out` of n players):
    int64[games, rounds, n], kind * MAX_PLAYERS + bid position, as the kernel looks its bonus up
    (the kernel's own bid_model_nb.bonus_kind_nb; the dealer of round rd is seat (n - 1 + rd) % n,
    so the first to bid is seat rd % n); -1 in round 1, which has no bonus (search_nb.search_bid_nb)."""
    rounds = N_CARDS // n
    turned = out["round_turned"][:, :rounds].astype(np.int64)
    kind = np.vectorize(lambda t, r: int(M.bonus_kind_nb(t, n, r)))(turned, np.arange(1, rounds + 1))
    pos = (np.arange(n)[None, :] - np.arange(rounds)[:, None]) % n
    cells = kind[:, :, None] * MAX_PLAYERS + pos[None, :, :]
    cells[:, 0] = -1
    return cells


def measure_search_bias(bonus: np.ndarray, games: int, seed: int, workers: int = 2):
    """(mean bid - tricks, played) by (players, kind, position) of `games` search self-play games
    per player count with the bid bonus `bonus`, split over `workers` fresh processes (each with
    its own Numba cache directory: the cached kernels hold the bonus they were compiled with)."""
    import json
    import os
    import subprocess
    import tempfile

    with tempfile.TemporaryDirectory(prefix="search-bonus-") as tmp:
        procs = []
        for k in range(workers):
            share = games // workers + (k < games % workers)
            env = dict(os.environ, NUMBA_CACHE_DIR=f"{tmp}/cache{k}")
            procs.append(subprocess.Popen(
                [sys.executable, __file__, "--search-worker", f"{tmp}/sums{k}.npy",
                 "--worker-bonus", json.dumps(bonus.tolist()), "--search-games", str(share),
                 "--seed", str(seed + 7919 * k)], env=env))
        if any(p.wait() != 0 for p in procs):
            raise SystemExit("a search-bonus worker failed")
        sums = sum(np.load(f"{tmp}/sums{k}.npy") for k in range(workers))
    bids, tricks, count = sums
    played = count > 0
    return (bids - tricks) / np.maximum(count, 1), played


def fit_search_bonus(games: int = SEARCH_GAMES, iterations: int = SEARCH_ITERATIONS,
                     seed: int = SEARCH_SEED, log=None) -> np.ndarray:
    """The search player's bid bonus (SEARCH_BONUS, like SAMPLER_BONUS: int64[BONUS_SHAPE]) fitted
    on `games` full games of search self-play per player count per iteration (the same deals each
    time; BonusFit)."""
    fit = BonusFit(M.BONUS_SHAPE, SEARCH_MIN_SLOPE)
    for it in range(iterations):
        t0 = time.perf_counter()
        bias, played = measure_search_bias(fit.bonus, games, seed)
        for n in range(MIN_PLAYERS, MAX_PLAYERS + 1):
            log_bias(log, f"{n}p search bonus iteration {it + 1}", bias[n - MIN_PLAYERS],
                     played[n - MIN_PLAYERS])
        if log:
            log(f"  iteration {it + 1}: {time.perf_counter() - t0:.0f} s")
        fit.update(bias, played)
    return fit.best


def build(deals: int = DEALS, iterations: int = ITERATIONS, seed: int = SEED, log=None) -> np.ndarray:
    table = np.zeros(M.TABLE_SHAPE, dtype=np.int16)
    for n in range(MIN_PLAYERS, MAX_PLAYERS + 1):
        for bucket in range(M.N_BUCKETS):
            if round_sizes(n, bucket):
                table[n - MIN_PLAYERS, bucket] = build_slice(n, bucket, deals, iterations, seed, log)
    return table


def render(table: np.ndarray, factors: np.ndarray, deals: int, iterations: int, seed: int,
           factor_deals: int, factor_iterations: int, bonus: np.ndarray | None = None,
           bonus_deals: int = 0, bonus_iterations: int = 0, search_bonus: np.ndarray | None = None,
           search_games: int = 0, search_iterations: int = 0) -> str:
    """The generated module's text: one line of chances per (players, bucket, position), one line
    of bid factors per (players, round size), one line of bonuses per (players, kind)."""
    lines = [
        '"""Generated by tools/wizard_bid_tables.py (`make wizard-tables`); do not edit.',
        "",
        "TRICK_CHANCE[players - 3, round bucket, position, card class]: the chance, in thousandths, that",
        "such a card takes a trick under heuristic self-play (kernels/wizard/bid_model_nb.py says what",
        "the indices mean). Made from DEALS deals of the whole deck's worth of cards per round size",
        "(tools/wizard_bid_tables.deals_of), ITERATIONS times, from SEED.",
        "",
        "BID_FACTOR[players - 3, round size - 1, turn kind, position]: the factor, in thousandths, by",
        "which the heuristic multiplies its cards' chances when it bids, so that its mean bid is its",
        "mean tricks (turn kinds: suited card, Wizard, no trump). Fitted by self-play on FACTOR_DEALS",
        "deals of the whole deck's worth of cards per round size, FACTOR_ITERATIONS times, from SEED.",
        "",
        "SAMPLER_BONUS[players - 3, kind, position]: tenths of a point per trick bid that the sampler",
        "adds to each candidate bid's mean score (kinds: suited card, Wizard, no trump turned, last",
        "round of a full game), fitted by sampler self-play on BONUS_DEALS rounds of every size,",
        "BONUS_ITERATIONS times, from SEED, bidding with the table and factors above (0: not fitted).",
        "",
        "SEARCH_BONUS[players - 3, kind, position]: the same for the search player, fitted by search",
        "self-play of SEARCH_GAMES full games per player count, SEARCH_ITERATIONS times (0: not fitted).",
        '"""',
        "import numpy as np",
        "",
        f"SEED = {seed}",
        f"DEALS = {deals}",
        f"ITERATIONS = {iterations}",
        f"SHAPE = {tuple(table.shape)}",
        f"FACTOR_DEALS = {factor_deals}",
        f"FACTOR_ITERATIONS = {factor_iterations}",
        f"FACTOR_SHAPE = {tuple(factors.shape)}",
        f"BONUS_DEALS = {bonus_deals}",
        f"BONUS_ITERATIONS = {bonus_iterations}",
        f"BONUS_SHAPE = {tuple(M.BONUS_SHAPE)}",
        f"SEARCH_GAMES = {search_games}",
        f"SEARCH_ITERATIONS = {search_iterations}",
        "",
        "TRICK_CHANCE = np.array([",
    ]
    for n in range(table.shape[0]):
        for b in range(table.shape[1]):
            for p in range(table.shape[2]):
                lines.append(f"    # {n + MIN_PLAYERS} players, bucket {b}, position {p}")
                row = [str(int(v)) for v in table[n, b, p]]
                for i in range(0, len(row), 20):
                    lines.append("    " + ", ".join(row[i:i + 20]) + ",")
    lines += ["], dtype=np.int16).reshape(SHAPE)", ""]
    lines += ["BID_FACTOR = np.array(["]
    for n in range(factors.shape[0]):
        for r in range(factors.shape[1]):
            lines.append(f"    # {n + MIN_PLAYERS} players, round size {r + 1}: suit, Wizard, "
                         "no trump turned, by position")
            for k in range(factors.shape[2]):
                lines.append("    " + ", ".join(str(int(v)) for v in factors[n, r, k]) + ",")
    lines += ["], dtype=np.int16).reshape(FACTOR_SHAPE)", ""]
    for name, values in (("SAMPLER_BONUS", bonus), ("SEARCH_BONUS", search_bonus)):
        if values is None:
            values = np.zeros(M.BONUS_SHAPE, dtype=np.int64)
        lines += [f"{name} = np.array(["]
        for n in range(values.shape[0]):
            lines.append(f"    # {n + MIN_PLAYERS} players: suit, Wizard, no trump turned, last round, by position")
            for k in range(values.shape[1]):
                lines.append("    " + ", ".join(str(int(v)) for v in values[n, k]) + ",")
        lines += ["], dtype=np.int64).reshape(BONUS_SHAPE)", ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=DEALS,
                        help=f"deals of a whole-deck round; smaller rounds get more (default {DEALS})")
    parser.add_argument("--iterations", type=int, default=ITERATIONS, help=f"default {ITERATIONS}")
    parser.add_argument("--seed", type=int, default=SEED, help=f"default {SEED}")
    parser.add_argument("--factor-deals", type=int, default=FACTOR_DEALS,
                        help=f"as --deals, for the bid factors (default {FACTOR_DEALS})")
    parser.add_argument("--factor-iterations", type=int, default=FACTOR_ITERATIONS,
                        help=f"default {FACTOR_ITERATIONS}")
    parser.add_argument("--factors-only", action="store_true",
                        help="keep the shipped chance table (it does not depend on the factors) and "
                             "refit the bid factors only")
    parser.add_argument("--sampler-bonus", action="store_true",
                        help="keep the shipped table and factors (the sampler bids around the "
                             "heuristic's bids, compiled from the shipped module) and fit the "
                             "sampler's bid bonus; run after the table and factors are written")
    parser.add_argument("--bonus-deals", type=int, default=BONUS_DEALS, help=f"default {BONUS_DEALS}")
    parser.add_argument("--bonus-iterations", type=int, default=BONUS_ITERATIONS,
                        help=f"default {BONUS_ITERATIONS}")
    parser.add_argument("--search-bonus", action="store_true",
                        help="keep the shipped table, factors and sampler bonus and fit the search "
                             "player's bid bonus (full games of search self-play in 2 processes); "
                             "run last")
    parser.add_argument("--search-games", type=int, default=SEARCH_GAMES,
                        help=f"games per player count and iteration (default {SEARCH_GAMES})")
    parser.add_argument("--search-iterations", type=int, default=SEARCH_ITERATIONS,
                        help=f"default {SEARCH_ITERATIONS}")
    # a search-bonus worker (measure_search_bias): play, write the sums, exit
    parser.add_argument("--search-worker", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--worker-bonus", help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, default=OUT, help="default: kernels/wizard/bid_tables.py")
    args = parser.parse_args(argv)
    t0 = time.perf_counter()
    if args.search_worker:
        import json

        bonus = np.array(json.loads(args.worker_bonus), dtype=np.int64).reshape(M.BONUS_SHAPE)
        np.save(args.search_worker, search_sums(bonus, args.search_games, args.seed))
        return 0
    if args.sampler_bonus or args.search_bonus:
        from kernels.wizard import bid_tables as shipped

        bonus, deals, iterations = shipped.SAMPLER_BONUS, shipped.BONUS_DEALS, shipped.BONUS_ITERATIONS
        if args.sampler_bonus:
            bonus = np.zeros(M.BONUS_SHAPE, dtype=np.int64)
            for n in range(MIN_PLAYERS, MAX_PLAYERS + 1):
                bonus[n - MIN_PLAYERS] = fit_bonus(n, args.bonus_deals, args.bonus_iterations,
                                                   args.seed, log=print)
            deals, iterations = args.bonus_deals, args.bonus_iterations
        search = (shipped.SEARCH_BONUS, shipped.SEARCH_GAMES, shipped.SEARCH_ITERATIONS)
        if args.search_bonus:
            search = (fit_search_bonus(args.search_games, args.search_iterations,
                                       args.seed + SEARCH_SEED - SEED, log=print),
                      args.search_games, args.search_iterations)
        args.out.write_text(render(shipped.TRICK_CHANCE, shipped.BID_FACTOR, shipped.DEALS,
                                   shipped.ITERATIONS, shipped.SEED, shipped.FACTOR_DEALS,
                                   shipped.FACTOR_ITERATIONS, bonus, deals, iterations, *search))
        print(f"wrote {args.out} in {time.perf_counter() - t0:.0f} s")
        return 0
    if args.factors_only:
        from kernels.wizard import bid_tables

        if (bid_tables.DEALS, bid_tables.ITERATIONS, bid_tables.SEED) != (args.deals, args.iterations,
                                                                          args.seed):
            parser.error("--factors-only: the shipped table was made with other --deals, "
                         "--iterations or --seed")
        table = bid_tables.TRICK_CHANCE.copy()
    else:
        table = build(args.deals, args.iterations, args.seed, log=print)
    factors = build_factors(table, args.factor_deals, args.factor_iterations, args.seed, log=print)
    args.out.write_text(render(table, factors, args.deals, args.iterations, args.seed,
                               args.factor_deals, args.factor_iterations))
    print(f"wrote {args.out} in {time.perf_counter() - t0:.0f} s; SAMPLER_BONUS and SEARCH_BONUS are 0 "
          "now (they depend on the factors): run again with --sampler-bonus, then --search-bonus")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
