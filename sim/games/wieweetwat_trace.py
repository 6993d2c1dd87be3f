"""Wie Weet Wat trace events (kernels/wieweetwat/enums.py EV_*) rendered as a game log a player can
follow: each round's hands, every category read with who answered what and when, remises, wrong
answers, counter-attacks, action cards, and the hands left at the end of each round."""
from __future__ import annotations

from kernels.wieweetwat import enums as e

ACTION_TITLES = dict(enumerate(e.ACTION_TITLES))


def kind_name(kind: int) -> str:
    """'A'..'Z' for a letter card, 'WWW' for the Wie Weet Wat card, '-' for none."""
    if kind == e.WWW:
        return "WWW"
    return e.LETTER_NAMES[kind].upper() if 0 <= kind < e.N_LETTERS else "-"


def hand_text(kinds: list[int]) -> str:
    return " ".join(kind_name(k) for k in sorted(kinds)) or "(empty)"


def seconds(ms: int) -> str:
    return f"{ms / 1000:.2f} s"


def render(arm, seed: int, index: int, trace_rows, record=None) -> str:
    categories = arm.data_value("categories")
    kinds = None  # the profiles recall model: each category's kind, shown as it is read
    if arm.rule_values.get("recall_model") == "profiles":
        from sim.games.wieweetwat import CATEGORY_KINDS, category_kind_indices

        kinds = [CATEGORY_KINDS[k] for k in
                 category_kind_indices(categories, arm.data_value("category_kinds"))]
    lines = [f"Wie Weet Wat, game {index} of seed {seed}: {arm.describe()}",
             "Seat 0 reads first. Letters: A..Z, WWW = the Wie Weet Wat card; times are seconds "
             "after the category is read; (b) = the category's breadth, answers per second for an "
             "average player over all initial letters."]
    hands: dict[int, list[int]] = {}
    left: dict[int, list[int]] = {}

    def flush():
        if hands:
            for s in sorted(hands):
                lines.append(f"  seat {s} holds {hand_text(hands[s])}")
            hands.clear()
        if left:
            for s in range(arm.players):
                lines.append(f"  seat {s} is left with {hand_text(left.get(s, []))}")
            left.clear()

    for row in trace_rows:
        code, seat, a, b, c, d, f5, f6 = (int(x) for x in row)
        if code != e.EV_CARD:
            flush()
        if code == e.EV_END:
            break
        if code == e.EV_GAME:
            lines.append(f"{a} players; {b} letter cards; {c} category cards and {d} action cards; "
                         f"policies: {', '.join(arm.labels)}")
        elif code == e.EV_ROUND:
            lines += ["", f"Round {a}: seat {seat} reads first; the letter cards are shuffled and dealt"]
        elif code == e.EV_CARD:
            (left if b else hands).setdefault(seat, []).append(a)
        elif code == e.EV_RESHUFFLE:
            pile = "letter" if a == 0 else "category"
            lines.append(f"    (the {pile} pile is empty: {b} discarded {pile} cards are shuffled "
                         "into a new one)")
        elif code == e.EV_DRAW_ACTION:
            lines.append(f"  seat {seat} draws the action card {ACTION_TITLES[a]}")
        elif code == e.EV_ACTION:
            lines.append(_action(seat, a, b, c, d, f5, f6))
        elif code == e.EV_MOVE:
            lines.append(f"      seat {b} takes {kind_name(c)} from seat {a}")
        elif code == e.EV_CIRCLE:
            if b:
                lines.append(f"      seat {seat} names answer {a} after {seconds(c)}")
            else:
                lines.append(f"      seat {seat} cannot name answer {a} (no new answer in time, or "
                             "a repeat)")
        elif code == e.EV_KNOWN:
            # d, f5, f6: the letters known at least once, twice, three times
            copies = {k: (d >> k & 1) + (f5 >> k & 1) + (f6 >> k & 1) for k in range(e.N_LETTERS)}
            letters = " ".join(kind_name(k) for k, m in copies.items() for _ in range(m))
            more = " (some three or more times)" if f6 else ""
            lines.append(f"  seat {seat} (targeting) has seen this round that seat {a} holds {letters}"
                         f"{more}: {b} of its {c} cards")
        elif code == e.EV_TARGETING:
            scores = " / ".join(f"{x / 10000:.3f}" for x in (b, c, d, f5))
            if f6:
                lines.append(f"  seat {seat} (targeting) weighs the leader, seat {a}: its knowledge of "
                             f"each category's kind over seat {seat}'s is {scores}; it reads the lowest")
            else:
                lines.append(f"  seat {seat} (targeting) weighs the leader, seat {a}: its chance to "
                             f"answer first is {scores} in the card's four categories; it reads the "
                             "lowest")
        elif code == e.EV_SEARCH:
            gains = " / ".join("=" if k == a else "(plays alike)" if g == e.PLAYS_ALIKE
                               else f"{g / 10000:+.3f}" for k, g in enumerate((b, c, d, f5)))
            lines.append(f"  seat {seat} (search) plays the card's categories out {f6} times each: its "
                         f"chance to win the game against targeting's choice, category {a + 1}, "
                         f"changes by {gains}; it reads another only if its gain is the largest and "
                         "above one standard error")
        elif code == e.EV_READ:
            name, breadth = categories[c]
            what = "for the remise: " if f5 else ""
            grote = " (Grote Kans)" if f6 else ""
            kind = f", {kinds[c]}" if kinds else ""
            lines.append(f"  seat {seat} reads {what}'{name}' (b {d / 100:.2f}{kind}), category "
                         f"{b + 1} of card {a}{grote}")
        elif code == e.EV_ANSWER:
            if a == e.HAND_LETTER:  # too late: which of its letters was never drawn
                card = "a letter card"
            elif a == e.WWW:
                card = f"WWW as {kind_name(b)}" if b >= 0 else "WWW"
            else:
                card = kind_name(a)
            if f5:
                lines.append(f"    seat {seat} plays {card} after {seconds(c)}: "
                             f"{'correct' if d else 'wrong'}")
            else:
                lines.append(f"    seat {seat} is too late (it would have played {card} after "
                             f"{seconds(c)})")
        elif code == e.EV_PASS:
            lines.append(f"    seat {seat} finds nothing in time")
        elif code == e.EV_WRONG:
            lines.append(f"    seat {seat} takes {kind_name(a)} back and draws a penalty card")
        elif code == e.EV_PENALTY:
            if a >= 0:
                lines.append(f"      seat {seat} draws {kind_name(a)}")
            else:
                lines.append(f"      seat {seat} would draw a card, but both letter piles are empty")
        elif code == e.EV_REMISE:
            seats = [s for s in range(arm.players) if a >> s & 1]
            lines.append(f"    remise between seats {', '.join(map(str, seats))}: they keep their "
                         "card on the table and answer a new category")
        elif code == e.EV_WIN:
            card = kind_name(a) if a != e.WWW else f"WWW as joker ({kind_name(b)})"
            lines.append(f"    seat {seat} wins the category with {card} and discards it")
        elif code == e.EV_FOLLOW:
            lines.append(f"    seat {seat} plays another {kind_name(a)} with a new answer "
                         f"{seconds(c)} later")
        elif code == e.EV_EXTRA:
            lines.append(f"    Grote Kans: seat {seat} plays an extra {kind_name(a)} after {seconds(c)}")
        elif code == e.EV_COUNTER:
            if d:
                lines.append(f"    seat {seat} counter-attacks seat {a} with WWW and another "
                             f"{kind_name(b)}-answer after {seconds(c)}: seat {a} draws a penalty card")
            else:
                lines.append(f"    seat {seat} counter-attacks seat {a} with a wrong {kind_name(b)}-"
                             "answer: it keeps its WWW and draws a penalty card")
        elif code == e.EV_NOBODY:
            lines.append(f"    nobody wins the category; seat {a} reads next")
        elif code == e.EV_ROUND_END:
            lines.append(f"Seat {seat} has no letter cards left and wins round {a} "
                         f"({b} round{'s' if b != 1 else ''} won)")
        elif code == e.EV_WINNER:
            lines += ["", f"Winner: seat {seat} with {a} round{'s' if a != 1 else ''}"]
    flush()
    return "\n".join(lines) + "\n"


def _action(seat: int, action: int, target: int, before: int, after: int, leader: int,
            change: int) -> str:
    title = ACTION_TITLES[action]
    what = {
        e.A_GROTE_KANS: "the next category's fastest player may play extra cards",
        e.A_VICIEUZE_CIRKEL: "answers go round from the reader until someone fails",
        e.A_ROTONDE: "every hand passes to the next player",
        e.A_VERKIEZINGSPARTIJ: "every player takes a card from the player to the left",
        e.A_VERLOREN_GELUK: f"the reader takes a card from seat {target}",
        e.A_TE_VEEL_KEUZE: f"the reader takes a card from seat {target}" if target >= 0
        else "nobody has a card to take",
        e.A_PECHVOGEL: f"the reader swaps hands with seat {target}" if target >= 0
        else "nobody holds more cards than the reader: no swap",
    }[action]
    if action == e.A_VICIEUZE_CIRKEL and target >= 0:
        what = f"seat {target} failed the circle and drew a card"
    return (f"  {title}: {what}; the reader's hand {before} -> {after} cards, the leading opponent "
            f"(seat {leader}) {change:+d}")
