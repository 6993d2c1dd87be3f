"""Wizard trace events (kernels/wizard/enums.py EV_*) rendered as a game log a player can follow."""
from __future__ import annotations

from kernels.wizard import enums as e

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


def render(arm, seed: int, index: int, trace_rows) -> str:
    """The game as a player would follow it: deals, trump, bids, every card, tricks, scores.
    trace_rows: the kernel's trace rows (int32[rows, TRACE_WIDTH], an EV_END row ends them)."""
    n = arm.players
    lines = [f"Wizard, game {index} of seed {seed}: {arm.describe()}",
             "Seat 0 bids and leads first; cards are rank + suit (H hearts, D diamonds, C clubs, "
             "S spades), 2 low .. A high; Wizards beat everything, Jesters lose to everything."]
    hands: dict[int, list[int]] = {}
    bids = [0] * n
    values: list[tuple[int, int, int]] = []  # the search seat's EV_BID_VALUE rows before its bid
    trick_cards: list[str] = []
    for code, seat, card, value, extra in (tuple(int(x) for x in row) for row in trace_rows):
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
        elif code == e.EV_BID_VALUE:
            values.append((card, value, extra))
        elif code == e.EV_BID:
            if values:
                lines.append(_bid_values(arm, seat, values))
                values = []
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


def _bid_values(arm, seat: int, values: list[tuple[int, int, int]]) -> str:
    """The search seat's view of its bids: each legal bid's mean score on its deals, and the bid
    bonus (SEARCH_BONUS) added to it; it bids the highest sum."""
    deals = dict(arm.seats[seat].params)["samples"]
    from kernels.wizard.bid_model_nb import BONUS_SCALE  # here: importing sim imports no kernel module

    scale = BONUS_SCALE * deals
    parts = [f"{bid}: {total / scale:+.1f}" + (f" ({bonus / scale:+.1f})" if bonus else "")
             for bid, total, bonus in values]
    head = "mean score (+ bid bonus)" if any(b for _, _, b in values) else "mean score"
    return (f"  seat {seat} (search) plays each bid out on {deals} deals, {head}: {', '.join(parts)}; "
            "it bids the best")
