"""Reduce real Dutch word lists, one per category kind, to the per-kind initial-letter table of Wie
Weet Wat's `profiles` recall model (docs/models/recall.md).

    python tools/category_letters.py --animals animals.js --places address.py --names person.py \
        --foods Foods/ [--out sim/games/wieweetwat_kind_letters.py]

Sources (public repositories; download the files, pass their paths; nothing of them is committed
but the letter shares this script writes):

- dier (animals): mschilling/word-party-assistant, functions/src/scripts/animals.js (commit
  433b2f7419075faf566a93502a94af116e7d9629): about 2,000 Dutch zoo and wild animal names, one per
  line before a tab and the scientific name.
- plaats (places): joke2k/faker, faker/providers/address/nl_NL/__init__.py (commit
  9ac841768d1ae0651583e5d6336068e81be8199f), the tuple `cities`: the Dutch Basisregistratie
  Adressen en Gebouwen's "woonplaatsen" (its comment: the 8 March 2014 extract).
- naam (first names): joke2k/faker, faker/providers/person/nl_NL/__init__.py (same commit), the
  tuples `first_names_male` and `first_names_female`.
- eten (food): Rouzax/MealieSync, Data/nl/Foods/*.json (commit
  819e1128f2a8d4b73ec0e4566aa684f75c36dff7): Dutch ingredient names (`items[].name`), over 1,000.
- algemeen (any other category): not written here; it keeps the general table of
  sim/games/wieweetwat_letters.py (tools/letter_frequencies.py, wordfreq's Dutch list).

Each distinct name counts once (a word type), lower-cased, accents removed (é -> e); a name whose
first character is not a letter a-z after that ('s-Hertogenbosch, 1e Exloërmond) or that holds a
digit is left out (tools/letter_frequencies.initial_letter). A letter's share is (count + 0.5) /
(kept + 13): half a word added to every letter, because a list of one or two thousand names misses
rare initials that players still find (no letter becomes impossible in a category). The shares of a
kind sum to 1.
"""
from __future__ import annotations

import argparse
import ast
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from letter_frequencies import LETTERS, initial_letter  # noqa: E402

PSEUDO = 0.5  # added to every letter's count
KINDS = ("dier", "plaats", "naam", "eten")
SOURCES = {
    "dier": "mschilling/word-party-assistant@433b2f74 functions/src/scripts/animals.js",
    "plaats": "joke2k/faker@9ac84176 faker/providers/address/nl_NL cities (BAG woonplaatsen 2014)",
    "naam": "joke2k/faker@9ac84176 faker/providers/person/nl_NL first_names_male + first_names_female",
    "eten": "Rouzax/MealieSync@819e1128 Data/nl/Foods/*.json items[].name",
}


def python_tuples(path: Path, names: tuple[str, ...]) -> list[str]:
    """The string tuples assigned to `names` in a class body of a Python source file (read with
    ast, never run)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 \
                and isinstance(node.targets[0], ast.Name) and node.targets[0].id in names:
            out += [v for v in ast.literal_eval(node.value) if isinstance(v, str)]
    return out


def animal_names(path: Path) -> list[str]:
    text = path.read_text(encoding="utf-8")
    body = text.split("`", 2)[1]
    return [line.split("\t")[0].strip() for line in body.splitlines() if line.strip()]


def food_names(folder: Path) -> list[str]:
    out = []
    for f in sorted(folder.glob("*.json")):
        out += [item["name"] for item in json.loads(f.read_text(encoding="utf-8"))["items"]]
    return out


def kind_shares(words) -> tuple[dict[str, float], int]:
    counts = dict.fromkeys(LETTERS, 0)
    seen = set()
    for word in words:
        key = word.strip().lower()
        if not key or key in seen:
            continue
        seen.add(key)
        first = initial_letter(key)
        if first:
            counts[first] += 1
    kept = sum(counts.values())
    total = kept + PSEUDO * len(LETTERS)
    return {k: (counts[k] + PSEUDO) / total for k in LETTERS}, kept


def module_text(tables: dict[str, dict[str, float]], kept: dict[str, int]) -> str:
    lines = [
        '"""Initial-letter shares per category kind for Wie Weet Wat\'s `profiles` recall model.',
        "",
        "Written by tools/category_letters.py (do not edit by hand) from one real Dutch word list per kind",
        "(SOURCES; each name counted once, accents removed, half a word added to every letter). The kind",
        "`algemeen` is not here: it keeps INITIAL_SHARE of sim/games/wieweetwat_letters.py.",
        '"""',
        "",
        "SOURCES = {",
    ]
    lines += [f'    "{k}": "{SOURCES[k]}, {kept[k]} names kept",' for k in KINDS]
    lines += ["}", "", "# kind: letter: share of the kind's names starting with it (each kind sums to 1)",
              "KIND_SHARE = {"]
    for k in KINDS:
        lines.append(f'    "{k}": {{')
        lines += [f'        "{c}": {tables[k][c]:.6f},' for c in LETTERS]
        lines.append("    },")
    lines += ["}", ""]
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--animals", type=Path, required=True)
    parser.add_argument("--places", type=Path, required=True)
    parser.add_argument("--names", type=Path, required=True)
    parser.add_argument("--foods", type=Path, required=True)
    parser.add_argument("--out", default=str(Path(__file__).resolve().parents[1]
                                             / "sim" / "games" / "wieweetwat_kind_letters.py"))
    args = parser.parse_args(argv)
    words = {
        "dier": animal_names(args.animals),
        "plaats": python_tuples(args.places, ("cities",)),
        "naam": python_tuples(args.names, ("first_names_male", "first_names_female")),
        "eten": food_names(args.foods),
    }
    tables, kept = {}, {}
    for k in KINDS:
        tables[k], kept[k] = kind_shares(words[k])
    Path(args.out).write_text(module_text(tables, kept))
    for k in KINDS:
        top = sorted(LETTERS, key=lambda c: -tables[k][c])[:5]
        print(f"{k}: {kept[k]} names; " + " ".join(f"{c} {tables[k][c]:.3f}" for c in top))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
