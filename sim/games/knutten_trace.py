"""Knutten trace events (kernels/knutten/enums.py E_*) rendered as a game log a player can follow."""
from __future__ import annotations

from kernels.knutten import enums as e

_CAUSE = {e.B_SWARM: "the swarm", e.B_WIND: "WIND", e.B_CANNOT: "cannot play", e.B_JOHN: "John Knut"}


def card_name(cards, card: int) -> str:
    kind, a, b, _ = (int(x) for x in cards[card])
    if kind == e.K_COPY:
        return "?"
    if kind == e.K_JOHN:
        return "John"
    return f"{a}" if a == b else f"{a}|{b}"


def render(arm, seed: int, index: int, events, cards, designs, bites) -> str:
    """The game log of trace events `events`, played with the plain deck (cards, designs); the
    card ids of the events are the table's (John, when in play, the last card)."""
    from kernels.knutten.table_nb import table_cards

    cards = table_cards(cards, designs, arm.rule_values["john_knut"])
    name = lambda c: card_name(cards, c)  # noqa: E731
    seat = lambda p: f"seat {p} ({arm.policies[p]})"  # noqa: E731
    hands: dict[int, list[int]] = {p: [] for p in range(arm.players)}
    show = lambda p: "[" + ", ".join(name(c) for c in hands[p]) + "]"  # noqa: E731
    lines = [f"Knutten, game {index} of seed {seed}: {arm.describe()}",
             f"Deck: {len(cards)} cards" + (" including John Knut" if arm.rule_values["john_knut"] else "")]
    pending_deal = False
    for code, a, b, c, d, f in (tuple(int(x) for x in row) for row in events):
        if pending_deal and code != e.E_DEAL:
            lines.append("  dealt: " + "; ".join(f"seat {p} {show(p)}" for p in hands))
            pending_deal = False
        if code == e.E_ROUND:
            for p in hands:
                hands[p] = []
            lines.append(f"Round {a}: {seat(b)} starts; all cards but a John on the table are "
                         "shuffled into a new draw pile")
        elif code == e.E_DEAL:
            hands[a].append(b)
            pending_deal = True
        elif code == e.E_DRAW:
            hands[a].append(b)
            lines.append(f"    draws {name(b)} -> hand {show(a)}" if a == _last_actor(lines, a)
                         else f"  {seat(a)} draws {name(b)} -> hand {show(a)}")
        elif code == e.E_PLAY:
            hands[a].remove(b)
            value = int(cards[b][1 + c])
            note = "" if d == value else f" (counts {d:+d}: " + _why(value, d) + ")"
            lines.append(f"  {seat(a)} plays {name(b)} as {value}{note}: swarm {f}")
        elif code == e.E_COPY:
            hands[a].remove(b)
            lines.append(f"  {seat(a)} plays ? (copies the next card; {c} waiting): swarm stays {d}")
        elif code == e.E_BITE:
            lines.append(f"  >> {seat(a)} is bitten by {_CAUSE[c]}: +{b} bite{'s' if b > 1 else ''}, "
                         f"now {d}")
        elif code == e.E_WIND:
            lines.append(f"  {seat(a)} holds three identical cards {show(a)}: WIND! the round stops")
        elif code == e.E_CANNOT:
            lines.append(f"  {seat(a)} cannot play: shows {show(a)} and puts it under the draw pile")
        elif code == e.E_UNDER:
            hands[a].remove(b)
        elif code == e.E_JOHN_PLAY:
            john = next(i for i, row in enumerate(cards) if int(row[0]) == e.K_JOHN)
            hands[a].remove(john)
            lines.append(f"  {seat(a)} plays John Knut before {seat(b)}"
                         + ("" if c else " (nobody may take another bite: no bite)")
                         + "; every 5 now counts 0")
        elif code == e.E_JOHN_DISCARD:
            lines.append(f"  {seat(a)} passes the turn to discard John Knut; 5 counts 5 again")
        elif code == e.E_RESHUFFLE:
            lines.append(f"  draw pile empty and nobody can play: the {a} cards of the swarm "
                         f"become the new draw pile; the swarm total stays {b}")
        elif code == e.E_SKIP and b == e.SKIP_STUCK:
            lines.append(f"  {seat(a)} cannot play {show(a)} and the pile is empty: waits (skipped)")
        elif code == e.E_SKIP:
            lines.append(f"  {seat(a)} has no cards and the pile is empty: skipped")
        elif code == e.E_START:
            lines.append(f"  {seat(a)} chooses {seat(b)} to start the next round")
        elif code == e.E_END:
            winners = [p for p in range(arm.players) if a >> p & 1]
            lines.append("Game over. Bites: " + ", ".join(f"seat {p} {int(bites[p])}" for p in range(arm.players)))
            lines.append("Winner" + ("s: " if len(winners) > 1 else ": ") + ", ".join(seat(p) for p in winners))
    return "\n".join(lines) + "\n"


def _why(value: int, counted: int) -> str:
    if value == 5 and counted == 0:
        return "John makes every 5 count 0"
    waiting = counted // value - 1
    return f"{waiting} waiting ? cop{'y' if waiting == 1 else 'ies'} it"


def _last_actor(lines, p) -> int:
    """p when the previous line is p's own play (its draw then reads as part of that turn)."""
    last = lines[-1] if lines else ""
    return p if last.startswith(f"  seat {p} ") and " plays " in last else -1
