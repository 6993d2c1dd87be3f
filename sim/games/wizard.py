"""Wizard: registry entry and the thin layer that drives kernels/wizard (imported lazily)."""
from __future__ import annotations

import numpy as np
import pyarrow as pa

from sim.errors import SpecError
from sim.games._batch import build_table, policy_ids, raise_on_error, rule_array, seat_lists
from sim.registry import Column, Game, PolicyInfo, RuleParam

# Kernel rule order: kernels/wizard/enums.py R_ROUNDS, R_HOOK_RULE, R_FINAL_NO_TRUMP, R_STRICT_VOID.
RULE_ORDER = ("rounds", "hook_rule", "final_no_trump", "strict_void")
TRACE_ROWS = 8192

GAME = Game(
    name="wizard",
    title="Wizard",
    version=1,
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

# kernel status (kernels/wizard/enums.py ERR_*) -> message
_ERRORS = {"ERR_CARDS_LOST": "a card was lost or duplicated",
           "ERR_ILLEGAL_CARD": "a policy played an illegal card",
           "ERR_ILLEGAL_BID": "a policy made an illegal bid",
           "ERR_TRICK_SUM": "a round's tricks do not add up to its size",
           "ERR_TRACE_FULL": "the trace buffer overflowed",
           "ERR_BAD_ARGS": "bad kernel arguments (players, rounds, policies or array shapes)",
           "ERR_ILLEGAL_TRUMP": "a policy chose an illegal trump suit"}


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
    from kernels.wizard import enums
    from kernels.wizard.enums import N_OUT_GAME, N_OUT_SEAT, TRACE_WIDTH
    from kernels.wizard.play_nb import play_games_nb, policy_workspace

    n, rounds = arm.players, rounds_of(arm)
    pols = policy_ids(arm)
    out = {
        "game": np.zeros((count, N_OUT_GAME), dtype=np.int32),
        "seat": np.zeros((count, n, N_OUT_SEAT), dtype=np.int32),
        "bids": np.zeros((count, rounds * n), dtype=np.int8),
        "tricks": np.zeros((count, rounds * n), dtype=np.int8),
        "turned": np.zeros((count, rounds), dtype=np.int8),
        "trump": np.zeros((count, rounds), dtype=np.int8),
    }
    trace = np.zeros((trace_rows, TRACE_WIDTH), dtype=np.int32)
    ws_i, ws_h = policy_workspace(pols)
    status, failed = play_games_nb(np.int64(seed), np.int64(start), np.int64(count), np.int64(n),
                                   rule_array(arm, RULE_ORDER), pols, bool(checked), trace,
                                   out["game"], out["seat"], out["bids"], out["tricks"],
                                   out["turned"], out["trump"], ws_i, ws_h)
    raise_on_error(status, failed, {getattr(enums, k): v for k, v in _ERRORS.items()}, arm)
    return out, trace


def play_batch(arm, seed: int, start: int, count: int, checked: bool = False) -> pa.Table:
    from kernels.wizard import enums as e

    out, _ = _run(arm, seed, start, count, checked, 0)
    g, s = out["game"], out["seat"]
    extra = {  # seat_lists turns any (games, k) array into one list of k per game
        "round_bids": seat_lists(out["bids"], np.int8),
        "round_tricks": seat_lists(out["tricks"], np.int8),
        "round_turned": seat_lists(out["turned"], np.int8),
        "round_trump": seat_lists(out["trump"], np.int8),
        "exact_bids": seat_lists(s[:, :, e.S_EXACT], np.int8),
        "tricks": seat_lists(s[:, :, e.S_TRICKS], np.int16),
        "points_lost": seat_lists(s[:, :, e.S_LOST], np.int32),
        "bid_total": seat_lists(s[:, :, e.S_BID_SUM], np.int16),
    }
    return build_table(arm, start, g[:, e.O_WINNER_MASK], g[:, e.O_TURNS], g[:, e.O_ROUNDS],
                       s[:, :, e.S_SCORE], extra)


# ------------------------------------------------------------------------------------- tracing

SUIT_NAMES = ("hearts", "diamonds", "clubs", "spades")
SUIT_LETTERS = "HDCS"
RANK_NAMES = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")


def card_name(card: int) -> str:
    """'QS' (queen of spades), '10H', 'Wizard', 'Jester'."""
    if card >= 56:
        return "Jester"
    if card >= 52:
        return "Wizard"
    return RANK_NAMES[card % 13] + SUIT_LETTERS[card // 13]


def _sort_key(card: int):
    return (card // 13, -(card % 13)) if card < 52 else (-1 if card < 56 else 9, card)


def trace_game(arm, seed: int, index: int) -> str:
    """The game as a player would follow it: deals, trump, bids, every card, tricks, scores."""
    _, trace = _run(arm, seed, index, 1, True, TRACE_ROWS)
    return render_trace(arm, seed, index, trace)


def render_trace(arm, seed: int, index: int, trace: np.ndarray) -> str:
    from kernels.wizard import enums as e

    n = arm.players
    lines = [f"Wizard, game {index} of seed {seed}: {arm.describe()}",
             "Seat 0 bids and leads first; cards are rank + suit (H hearts, D diamonds, C clubs, "
             "S spades), 2 low .. A high; Wizards beat everything, Jesters lose to everything."]
    hands: dict[int, list[int]] = {}
    bids = [0] * n
    trick_cards: list[str] = []
    for code, seat, card, value, extra in trace.tolist():
        if code == e.EV_END:
            break
        if code == e.EV_GAME:
            lines.append(f"{value} players, {extra} rounds; policies: {', '.join(arm.policies)}")
        elif code == e.EV_ROUND:
            hands = {s: [] for s in range(n)}
            lines.append("")
            lines.append(f"Round {value}: seat {seat} deals {extra} card{'s' if extra > 1 else ''} each")
        elif code == e.EV_DEAL:
            hands[seat].append(card)
        elif code == e.EV_TURN:
            for s in range(n):
                cards = " ".join(card_name(c) for c in sorted(hands[s], key=_sort_key))
                lines.append(f"  seat {s} holds {cards}")
            if card < 0 and value == 1:
                lines.append("  no card is turned: the last round is played without trump")
            elif card < 0:
                lines.append("  no card is left to turn")
            else:
                lines.append(f"  turned card: {card_name(card)}")
        elif code == e.EV_TRUMP:
            if value == e.NO_TRUMP:
                lines.append("  no trump this round")
            elif seat >= 0:
                lines.append(f"  trump: {SUIT_NAMES[value]} (chosen by the dealer, seat {seat})")
            else:
                lines.append(f"  trump: {SUIT_NAMES[value]}")
        elif code == e.EV_BID:
            bids[seat] = value
            note = " (hook rule: bids may not add up to the tricks)" if extra else ""
            lines.append(f"  seat {seat} bids {value}{note}")
        elif code == e.EV_PLAY:
            if extra == 0:
                trick_cards = []
            trick_cards.append(f"seat {seat} {card_name(card)}")
        elif code == e.EV_TRICK:
            lines.append(f"  trick {value}: {', '.join(trick_cards)} -> seat {seat} wins "
                         f"({extra} trick{'s' if extra != 1 else ''})")
        elif code == e.EV_SCORE:
            lines.append(f"  seat {seat} bid {bids[seat]}, took {card}: {value:+d} points, total {extra}")
        elif code == e.EV_WINNER:
            lines.append("")
            lines.append(f"Winner: seat {seat} with {value} points")
    return "\n".join(lines) + "\n"
