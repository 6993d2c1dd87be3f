"""Wizard: registry entry and the thin layer that drives kernels/wizard (imported lazily)."""
from __future__ import annotations

import numpy as np
import pyarrow as pa

from sim.errors import SpecError
from sim.games._batch import build_table, policy_ids, raise_on_error, rule_array, seat_lists
from sim.registry import Column, Game, PolicyInfo, RuleParam

# Kernel rule order: kernels/wizard/enums.py RULE_I_ORDER (R_ROUNDS, R_HOOK_RULE, R_FINAL_NO_TRUMP,
# R_STRICT_VOID), repeated here so that reading the registry imports no kernel module.
RULE_ORDER = ("rounds", "hook_rule", "final_no_trump", "strict_void")
TRACE_ROWS = 8192

GAME = Game(
    name="wizard",
    title="Wizard",
    version=2,
    seed_file="002_3247bc1bbdcc34e8.txt",
    min_players=3,
    max_players=6,
    rules=(
        RuleParam("rounds", 0, 0, 20, "rounds to play, round r dealing r cards each: 0 = all "
                  "60/players rounds (20, 15, 12, 10); N = a shorter game of rounds 1..N",
                  "seed: 'Dit gaat zo door totdat het hele kaartspel is gedeeld'; RULINGS Wizard "
                  "(param rounds, default all)"),
        RuleParam("hook_rule", 0, 0, 1, "the dealer, bidding last, may not bid so that the bids "
                  "add up to the number of cards dealt each", "not in the seed; RULINGS Wizard "
                  "(param hook_rule, default off)", boolean=True),
        RuleParam("final_no_trump", 0, 0, 1, "in a shortened game (rounds < 60/players) the last "
                  "round is also played without trump, as the full game's last round is",
                  "seed: 'Er is geen troefkleur voor de laatste ronde'; docs/rules/wizard.md "
                  "(default off: with cards left a trump card is turned)", boolean=True),
        RuleParam("strict_void", 0, 0, 1, "a player who cannot follow suit must play a Wizard or "
                  "Jester if holding one (the FAQ read literally)", "seed FAQ: 'Als geen van deze "
                  "opties mogelijk is, mag een speler een kaart naar keuze spelen'; "
                  "docs/rules/wizard.md (default off, as RULINGS Wizard reads the play rules)",
                  boolean=True),
    ),
    policies=(
        PolicyInfo("heuristic", 1, "bids the rounded sum of per-card trick chances (Wizards, trumps "
                   "by rank, off-suit aces and kings, long trumps) scaled for the player count and "
                   "bidding position; plays to make the bid exactly; names its longest suit trump"),
        PolicyInfo("random", 0, "uniform legal bid 0..r, uniform legal card, uniform trump suit"),
        PolicyInfo("sampler", 2, "heuristic play; bids by dealing the unseen cards at "
                   "random 16 times, playing each deal out heuristically for the bids next to the "
                   "heuristic bid, and taking the bid with the best mean score"),
    ),
    columns=(
        Column("round_bids", "list<int8>", "bids, round-major: round 1 seats 0..n-1, round 2, ..."),
        Column("round_tricks", "list<int8>", "tricks taken, same layout as round_bids"),
        Column("round_turned", "list<int8>", "card turned for trump per round (0-51 suit*13+rank "
               "with rank 0 = 2 .. 12 = ace; 52-55 Wizard; 56-59 Jester; -1 none)"),
        Column("round_trump", "list<int8>", "trump suit per round (0 hearts, 1 diamonds, 2 clubs, "
               "3 spades, 4 no trump)"),
        Column("exact_bids", "list<int8>", "rounds per seat in which the bid was met exactly"),
        Column("tricks", "list<int16>", "tricks per seat over the game"),
        Column("points_lost", "list<int32>", "points per seat lost for missed bids (positive)"),
        Column("bid_total", "list<int16>", "sum of each seat's bids over the game"),
    ),
)
SCORE = {"score": "points", "higher_score_wins": True}

def rounds_of(arm) -> int:
    r = arm.rule_values["rounds"]
    return r if r else 60 // arm.players


def check_arm(arm) -> None:
    full = 60 // arm.players
    rules = arm.rule_values
    if rules["rounds"] > full:
        raise SpecError(f"rounds={rules['rounds']}: {arm.players} players can play at most {full} "
                        f"rounds (60 cards / {arm.players}); use 0 for all")


def _run(arm, seed: int, start: int, count: int, checked: bool, trace_rows: int):
    """(out records (kernels/wizard/enums.py OUT_DTYPE), trace rows written or None)."""
    from kernels.status import MESSAGES
    from kernels.wizard.enums import OUT_DTYPE, TRACE_WIDTH
    from kernels.wizard.play_nb import play_games_nb

    n = arm.players
    out = np.zeros(count, dtype=OUT_DTYPE)
    trace = np.zeros((trace_rows, TRACE_WIDTH), dtype=np.int32) if trace_rows else None
    status, failed, rows = play_games_nb(
        np.int64(seed), np.int64(start), np.int64(count), rule_array(arm, RULE_ORDER),
        np.zeros(0, dtype=np.float64), policy_ids(arm), np.zeros((n, 0), dtype=np.int64),
        np.zeros((n, 0), dtype=np.float64), (), out, trace, bool(checked))
    raise_on_error(status, failed, MESSAGES, arm)
    return out, (trace[:rows] if trace is not None else None)


def play_batch(arm, seed: int, start: int, count: int, checked: bool = False) -> pa.Table:
    out, _ = _run(arm, seed, start, count, checked, 0)
    n, rounds = arm.players, rounds_of(arm)
    extra = {  # seat_lists turns any (games, k) array into one list of k per game
        "round_bids": seat_lists(out["round_bids"][:, :rounds * n], np.int8),
        "round_tricks": seat_lists(out["round_tricks"][:, :rounds * n], np.int8),
        "round_turned": seat_lists(out["round_turned"][:, :rounds], np.int8),
        "round_trump": seat_lists(out["round_trump"][:, :rounds], np.int8),
        "exact_bids": seat_lists(out["exact_bids"][:, :n], np.int8),
        "tricks": seat_lists(out["tricks"][:, :n], np.int16),
        "points_lost": seat_lists(out["points_lost"][:, :n], np.int32),
        "bid_total": seat_lists(out["bid_total"][:, :n], np.int16),
    }
    return build_table(arm, start, out["winner_mask"], out["turns"], out["rounds"],
                       out["score"][:, :n], extra)


# ------------------------------------------------------------------------------------- tracing

def trace_game(arm, seed: int, index: int) -> str:
    """The game as a player would follow it (sim/games/wizard_trace.py renders the events)."""
    from sim.games.wizard_trace import render

    _, trace = _run(arm, seed, index, 1, True, TRACE_ROWS)
    return render(arm, seed, index, trace)
