"""Reduce a real Dutch word-frequency list to the initial-letter table Wie Weet Wat ships.

    pip install wordfreq            # once, for this script only (not a kaartlab dependency)
    python tools/letter_frequencies.py [--words 50000] [--out sim/games/wieweetwat_letters.py]

Source: the `wordfreq` package's Dutch list (`wordfreq.top_n_list("nl", N)`: the N most frequent
Dutch words, drawn from subtitles, Wikipedia, news, books, web text and social media). Each of the N
words counts once (a word type, not its occurrences: recall in a category is about how many
distinct words start with a letter, and counting occurrences would let "de", "het" and "een" decide).
Words are lower-cased and their accents removed (é -> e); words that do not start with a letter
a-z after that, or that contain a digit, are left out. The table written is each letter's share of
the words kept (the 26 shares sum to 1) and the default letter mix of the 56 letter cards that
follows from it by the largest-remainder method (docs/rules/wieweetwat.md).

The output is a small Python module that the project commits: the game reads it, never wordfreq.
"""
from __future__ import annotations

import argparse
import unicodedata
from pathlib import Path

LETTERS = "abcdefghijklmnopqrstuvwxyz"
LETTER_CARDS = 56


def initial_letter(word: str) -> str | None:
    plain = unicodedata.normalize("NFKD", word.lower()).encode("ascii", "ignore").decode()
    if not plain or plain[0] not in LETTERS or any(ch.isdigit() for ch in plain):
        return None
    return plain[0]


def shares(words) -> tuple[dict[str, float], int]:
    counts = dict.fromkeys(LETTERS, 0)
    kept = 0
    for word in words:
        first = initial_letter(word)
        if first:
            counts[first] += 1
            kept += 1
    return {k: v / kept for k, v in counts.items()}, kept


def largest_remainder(weights: dict[str, float], total: int) -> dict[str, int]:
    """Whole numbers summing to `total` in proportion to `weights` (Hamilton's method; ties of the
    remainders go to the earlier letter)."""
    quotas = {k: w * total for k, w in weights.items()}
    counts = {k: int(q) for k, q in quotas.items()}
    rest = total - sum(counts.values())
    order = sorted(weights, key=lambda k: (-(quotas[k] - counts[k]), k))
    for k in order[:rest]:
        counts[k] += 1
    return counts


def module_text(table: dict[str, float], cards: dict[str, int], n: int, kept: int, version: str) -> str:
    lines = [
        '"""Dutch word-initial letter shares and the default letter mix of Wie Weet Wat\'s 56 letter cards.',
        "",
        "Written by tools/letter_frequencies.py (do not edit by hand): the share of word types starting with",
        f"each letter among the {n} most frequent Dutch words of the `wordfreq` package (version {version}),",
        f"{kept} of them kept (accents removed; words with digits or a non-letter start left out). The card",
        "mix is the largest-remainder apportionment of 56 cards to these shares.",
        '"""',
        "",
        f"SOURCE = \"wordfreq {version}, top_n_list('nl', {n}), word types, {kept} words kept\"",
        "",
        "# letter: share of Dutch word types starting with it (sums to 1)",
        "INITIAL_SHARE = {",
    ]
    lines += [f'    "{k}": {table[k]:.6f},' for k in LETTERS]
    lines += ["}", "", "# letter: cards in the default letter mix (sums to 56; letters left out have 0 cards)",
              "DEFAULT_CARDS = {"]
    lines += [f'    "{k}": {cards[k]},' for k in LETTERS if cards[k]]
    lines += ["}", ""]
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--words", type=int, default=50_000)
    parser.add_argument("--out", default=str(Path(__file__).resolve().parents[1]
                                             / "sim" / "games" / "wieweetwat_letters.py"))
    args = parser.parse_args(argv)
    import wordfreq

    table, kept = shares(wordfreq.top_n_list("nl", args.words))
    # the 56 cards are shared out with shares rounded as the table prints them, so the module's two
    # tables agree exactly (a test recomputes the mix from INITIAL_SHARE)
    rounded = {k: round(v, 6) for k, v in table.items()}
    cards = largest_remainder(rounded, LETTER_CARDS)
    from importlib.metadata import version as package_version

    version = package_version("wordfreq")
    Path(args.out).write_text(module_text(rounded, cards, args.words, kept, version))
    print(f"{args.out}: {kept} words; cards " + " ".join(f"{k}{cards[k]}" for k in LETTERS if cards[k]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
