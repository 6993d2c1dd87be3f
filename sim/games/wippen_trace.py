"""Wippen trace events (kernels/wippen/enums.py EV_*) rendered as a game log a player can follow.

The renderer keeps its own copy of the pot and plays each move on it exactly as the kernel does
(a capture removes its items keeping the others in order, a trail and a new build go to the end,
a raise keeps its place), so every line shows the pot a player sees.
"""
from __future__ import annotations

from kernels.wippen import enums as e

SUITS = "CDHS"  # clubs, diamonds, hearts, spades
RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SOURCE_NAMES = ("most cards", "most spades", "diamond 10s", "spade 2s", "aces", "wips")
KIND_NAMES = {e.MV_CAPTURE: "capture", e.MV_BUILD: "build", e.MV_DOUBLE: "double build",
              e.MV_RAISE: "raise", e.MV_TRAIL: "trail"}


def card_name(card: int) -> str:
    """'7H', '10D', 'QS'; a card of the second deck carries a prime: '7H''."""
    return RANKS[card % 13] + SUITS[(card % 52) // 13] + ("'" if card >= 52 else "")


def cards_text(cards) -> str:
    return " ".join(card_name(c) for c in cards)


def item_text(item: dict) -> str:
    if item["kind"] == "loose":
        return card_name(item["cards"][0])
    what = "double build" if item["kind"] == "double" else "build"
    return f"[{what} {item['value']} of seat {item['owner']}: {cards_text(item['cards'])}]"


def pot_text(pot: list[dict]) -> str:
    return ", ".join(item_text(i) for i in pot) if pot else "(empty)"


def builds_owned_text(builds: list[dict]) -> str:
    """Whose builds a capture takes over, each owner named once: "seat 1's build", "seat 0's 2
    builds", "seat 0's build and seat 2's build"."""
    owners: dict[int, int] = {}
    for item in builds:
        owners[item["owner"]] = owners.get(item["owner"], 0) + 1
    parts = [f"seat {owner}'s build" if k == 1 else f"seat {owner}'s {k} builds"
             for owner, k in owners.items()]
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def _items(mask: int, pot: list[dict]) -> list[int]:
    return [i for i in range(len(pot)) if mask >> i & 1]


def render(arm, seed: int, index: int, trace_rows, record=None) -> str:
    """The game as a player would follow it: removed cards, every deal and hand, every card played
    with the pot it leaves, wips, the rest to the last capturer, each deal's points and the winner."""
    lines = [f"Wippen, game {index} of seed {seed}: {arm.describe()}",
             "Seat 0 sits left of the first dealer and plays first. Cards: rank + suit (C clubs, "
             "D diamonds, H hearts, S spades), a prime (') marks the second deck's copy; "
             "A = 1, J/Q/K are taken by rank only."]
    pot: list[dict] = []
    hands: dict[int, list[int]] = {}
    pending: list[str] = []
    removed: list[int] = []
    dealer = -1

    def flush_hands():
        if hands:
            for s in sorted(hands):
                role = " (dealer)" if s == dealer else ""
                lines.append(f"  seat {s}{role} holds {cards_text(hands[s])}")
            hands.clear()
        if pending:
            lines.extend(pending)
            pending.clear()

    for row in trace_rows:
        code, seat, a, b, c, d, f5, f6 = (int(x) for x in row)
        if code != e.EV_CARD and code != e.EV_POT:
            flush_hands()
        if code == e.EV_END:
            break
        if code == e.EV_GAME:
            lines.append(f"{a} players, {b} deck{'s' if b > 1 else ''}, {d} cards in play; "
                         f"policies: {', '.join(arm.labels)}")
        elif code == e.EV_REMOVED:
            removed.append(a)
            if len(removed) == 1:
                lines.append("")
            lines[-1:] = [f"removed before every deal so that it divides: {cards_text(removed)}"]
        elif code == e.EV_DEAL:
            dealer = seat
            pot = []
            lines.append("")
            lines.append(f"Deal {a}: seat {seat} deals")
        elif code == e.EV_HAND:
            lines.append(f" hand {a} ({b} cards left in the stock after it)")
        elif code == e.EV_CARD:
            hands.setdefault(seat, []).append(a)
        elif code == e.EV_POT:
            pot.append({"kind": "loose", "value": a % 13 + 1, "owner": -1, "cards": [a]})
            pending[:] = [f"  pot: {pot_text(pot)}"]
        elif code == e.EV_PLAY:
            lines.append(_play(pot, seat, a, b, c, d | (f5 << 31), f6))
            lines.append(f"      pot: {pot_text(pot)}")
        elif code == e.EV_WIP:
            lines.append(f"      wip for seat {seat}: the pot is empty with {b} cards left to deal")
        elif code == e.EV_REST:
            rest = [card for item in pot for card in item["cards"]]
            if seat >= 0:
                lines.append(f"  end of the deal: seat {seat}, the last to capture, takes the {a} "
                             f"card{'s' if a != 1 else ''} left" + (f": {cards_text(rest)}" if rest else ""))
            else:
                lines.append(f"  end of the deal: nobody captured; the {a} cards left stay untaken")
            pot = []
        elif code == e.EV_SCORE:
            lines.append(f"  seat {seat}: {a} cards, {b} spades: {c} point{'s' if c != 1 else ''} "
                         f"this deal, {d} in all")
        elif code == e.EV_SOURCES:
            parts = [f"{n} for {what}" for n, what in zip((a, b, c, d, f5, f6), SOURCE_NAMES) if n]
            if parts:
                lines[-1] += " (" + ", ".join(parts) + ")"
        elif code == e.EV_WINNER:
            lines.append("")
            lines.append(f"Winner: seat {seat} with {a} points")
    return "\n".join(lines) + "\n"


def _play(pot: list[dict], seat: int, card: int, kind: int, value: int, mask: int, legal: int) -> str:
    """Play the move on the renderer's pot; the line that says what happened."""
    picked = _items(mask, pot)
    named = ", ".join(item_text(pot[i]) for i in picked)
    head = f"    seat {seat} "
    tail = f"  ({legal} legal move{'s' if legal != 1 else ''})"
    if kind == e.MV_TRAIL:
        pot.append({"kind": "loose", "value": card % 13 + 1, "owner": -1, "cards": [card]})
        return f"{head}trails {card_name(card)}{tail}"
    if kind == e.MV_RAISE:
        item = pot[picked[0]]
        text = f"{head}plays {card_name(card)} on {item_text(item)}: raises it to {value}{tail}"
        item.update(kind="build", value=value, owner=seat, cards=item["cards"] + [card])
        return text
    taken = [pot[i] for i in picked]
    rest = [pot[i] for i in range(len(pot)) if i not in picked]
    pot[:] = rest
    if kind == e.MV_CAPTURE:
        others = [t for t in taken if t["kind"] != "loose" and t["owner"] != seat]
        note = f" (takes over {builds_owned_text(others)})" if others else ""
        return f"{head}plays {card_name(card)} and takes {named}{note}{tail}"
    cards = [c for t in taken for c in t["cards"]] + [card]
    double = kind == e.MV_DOUBLE
    pot.append({"kind": "double" if double else "build", "value": value, "owner": seat, "cards": cards})
    what = "a double build" if double else "a build"
    return f"{head}plays {card_name(card)} on {named}: {what} of {value}{tail}"
