"""Wie is de Heer? trace events (kernels/wieisdeheer/enums.py EV_*) rendered as a game log a player
can follow: the mole card, the hands, every card with the pile's points and the suit to follow,
draws and reshuffles, banks and voids, the questions and how the answers read, every act the
players take as evidence with its two likelihoods and the beliefs after it, who goes out and whom
they write down, the final order and the winner."""
from __future__ import annotations

from kernels.wieisdeheer import enums as e

SUITS = "CDHS"  # clubs, diamonds, hearts, spades
RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J")
ACTS = {e.ACT_VOID: "voids", e.ACT_BANK: "banks", e.ACT_OTHER: "leaves", e.ACT_DRAW: "draws on"}


def card_name(card: int) -> str:
    """'7H', '10D', 'JS'; a joker is 'JK'."""
    if card >= e.N_SUITS * e.N_RANKS:
        return "JK"
    return RANKS[card % e.N_RANKS] + SUITS[card // e.N_RANKS]


def cards_text(cards) -> str:
    return " ".join(card_name(c) for c in cards)


def suit_name(suit: int) -> str:
    return "any" if suit == e.NO_SUIT else SUITS[suit]


def beliefs_text(rows: list[list[int]], players: int) -> str:
    """'s0 [-, 33, 33, 33]  s1 [...]': each seat's probabilities (percent) that seat 0.. is the mole."""
    parts = []
    for seat, values in rows:
        cells = ["-" if m == seat else f"{values[m] / 10:.0f}" for m in range(players)]
        parts.append(f"s{seat} [{' '.join(cells)}]")
    return "  ".join(parts)


def render(arm, seed: int, index: int, trace_rows, record=None) -> str:
    n = arm.players
    lines = [f"Wie is de Heer?, game {index} of seed {seed}: {arm.describe()}",
             "Seat 0 plays first. Cards: rank + suit (C clubs, D diamonds, H hearts, S spades), "
             "JK = joker; queens and kings are the mole cards. 'pile' = points played since the "
             "last ace or jack. Beliefs: each seat's chance in percent that seat 0, 1, ... is the "
             "mole (its own seat '-'); likelihoods are P(act | loyal) and P(act | mole)."]
    hands: dict[int, list[int]] = {}
    beliefs: list[list[int]] = []
    evidence: list[str] = []  # judged as the card lands: shown after the card's line
    draw_line = -1
    draw_short = 0  # cards of the current draw still to come (EV_GOT rows)
    mole = -1

    def flush():
        if hands:
            for s in sorted(hands):
                role = " (the mole)" if s == mole else ""
                lines.append(f"  seat {s}{role} ({arm.labels[s]}) holds {cards_text(sorted(hands[s]))}")
            hands.clear()
        if beliefs:
            text = "      beliefs: " + beliefs_text(beliefs, n)
            (evidence if evidence else lines).append(text)
            beliefs.clear()

    for row in trace_rows:
        code, seat, a, b, c, d, f5, f6 = (int(x) for x in row)
        if draw_short > 0 and code not in (e.EV_GOT, e.EV_RESHUFFLE):
            # the draw ended before its count: no card was left to draw, the rest lapses
            lines[draw_line] += f" (no card left: the other {draw_short} lapse)"
            draw_short = 0
        if code not in (e.EV_CARD, e.EV_BELIEF):
            flush()
        if code not in (e.EV_BELIEF, e.EV_EVIDENCE, e.EV_PLAY, e.EV_SABOTAGE, e.EV_RESHUFFLE,
                        e.EV_GOT) and evidence:
            lines.extend(evidence)  # (an act without a card line: not expected)
            evidence.clear()
        if code == e.EV_END:
            break
        if code == e.EV_GAME:
            mole = d
            lines.append(f"{a} players, {b} joker{'s' if b != 1 else ''}, {c} cards in play; the "
                         f"king (mole card) goes to seat {d}; the others get queens")
        elif code == e.EV_CARD:
            hands.setdefault(seat, []).append(a)
        elif code == e.EV_START:
            lines.append(f"start card {card_name(a)} (pile {b})")
        elif code == e.EV_BELIEF:
            beliefs.append([seat, [a, b, c, d, f5, f6]])
        elif code == e.EV_PLAY:
            what = f"seat {seat} plays {card_name(a)}: pile {b} -> {c}"
            if a < e.N_SUITS * e.N_RANKS and a % e.N_RANKS == e.JACK:
                what += f", names {suit_name(f5)}"
            if d:
                what += f", next draws {d}"
            lines.append(f"  {what}; {f6} card{'s' if f6 != 1 else ''} left")
            lines.extend(evidence)
            evidence.clear()
        elif code == e.EV_DRAW:
            why = {e.DRAW_NO_FIT: "nothing fits", e.DRAW_PENALTY: "penalty"}.get(b, "?")
            lines.append(f"  seat {seat} draws {a} ({why}):")
            draw_line = len(lines) - 1
            draw_short = a
        elif code == e.EV_GOT:
            lines[draw_line] += f" {card_name(a)}"
            draw_short -= 1
        elif code == e.EV_BANK:
            lines.append(f"      banks {a} points into the pot (pot {b})")
        elif code == e.EV_VOID:
            lines.append(f"      voids {a} points; play turns round")
        elif code == e.EV_ASK:
            lines.append(f"      seat {seat} asks seat {a} {b} question{'s' if b != 1 else ''}: "
                         f"{c} answer{'s' if c != 1 else ''} read mole-like")
        elif code == e.EV_RESHUFFLE:
            lines[draw_line] += f" [draw pile empty: {a} discards reshuffled, the top card stays]"
        elif code == e.EV_SKIP:
            lines.append(f"  seat {seat} is skipped")
        elif code == e.EV_PASS:
            lines.append(f"  seat {seat} cannot play and there is no card left to draw: the turn passes")
        elif code == e.EV_EVIDENCE:
            sab = " [the mole, on purpose]" if f5 else ""
            # seats that assume different sabotage rates read the act with their own likelihoods
            everyone = ((1 << n) - 1) & ~(1 << seat)
            who = "" if f6 == everyone else " (read by seat " + ", ".join(
                str(k) for k in range(n) if f6 >> k & 1) + ")"
            evidence.append(f"      evidence: seat {seat} {ACTS[a]} a pile of {d}{sab}; likelihood "
                            f"loyal {b / 1e6:.3f}, mole {c / 1e6:.3f}{who}")
        elif code == e.EV_SABOTAGE:
            evidence.append("      (the mole holds a jack and passes up the bank on purpose)")
        elif code == e.EV_OUT:
            how = " on a joker" if d else ""
            if f5:
                head = f"  seat {seat} ends with cards left, place {a + 1}"
            else:
                head = f"  seat {seat} goes out{how} (place {a + 1} so far)"
            if b >= 0:
                head += f" and writes seat {b} ({c / 10:.1f}%)"
            lines.append(head)
        elif code == e.EV_STALL:
            lines.append(f"  stuck: {a} players still in, no cards left to go round; cards left "
                         "settle the order")
        elif code == e.EV_ORDER:
            if a == 0:
                lines.append("")
                lines.append("Order:")
            who = f"seat {seat} (the mole)" if seat == mole else f"seat {seat}"
            mark = "a decoy" if seat == mole else ("right" if c else "wrong")
            wrote = f"wrote seat {b} ({mark})" if b >= 0 else "wrote nothing"
            lines.append(f"  {a + 1}. {who}: {wrote}")
        elif code == e.EV_WINNER:
            lines.append("")
            who = f"the mole, seat {seat}" if a else f"seat {seat}"
            lines.append(f"Winner: {who}. Pot {b} points, {c} voided, {d} left on the pile.")
    flush()
    return "\n".join(lines) + "\n"
