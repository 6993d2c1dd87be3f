"""Knutten user input: deck files and arm specs are accepted when valid and rejected with a
SpecError that names the problem."""
from __future__ import annotations

import pytest

from kernels.knutten.table_nb import table_cards
from sim.errors import SpecError
from sim.games import knutten as kn
from sim.spec import ArmSpec, StudySpec

VALID = """\
name = "small"
description = "two number designs, -10 and ?"

[[card]]
values = [1, 6]
copies = 4

[[card]]
values = [4, 9]
copies = 4
name = "four-nine"

[[card]]
values = [-10]
copies = 3

[[card]]
kind = "copy"
copies = 2
"""


def load_deck(path):
    """A deck file's rows, read the way a study reads it (errors name the file)."""
    return ArmSpec.make("knutten", 2, data={"deck": path}).data_value("deck")


def write(tmp_path, text, name="deck.toml"):
    path = tmp_path / name
    path.write_text(text)
    return path


# ------------------------------------------------------------------ valid decks
def test_load_deck_reads_a_valid_file(tmp_path):
    rows = load_deck(write(tmp_path, VALID))
    assert rows == ((kn.VALUE, 1, 6, 4), (kn.VALUE, 4, 9, 4), (kn.VALUE, -10, -10, 3),
                    (kn.COPY, 0, 0, 2))


def test_a_custom_deck_reaches_the_kernel(tmp_path):
    arm = ArmSpec.make("knutten", 3, {}, "random", deck=write(tmp_path, VALID))
    assert arm.data_value("deck") == load_deck(tmp_path / "deck.toml")
    cards, designs = kn.RUNNER.data_arrays(arm)
    assert len(cards) == 13  # the plain deck: the kernel adds John when the john_knut rule is on
    assert [tuple(d) for d in designs] == list(arm.data_value("deck"))
    table = table_cards(cards, designs, True)
    assert len(table) == 14 and tuple(table[-1]) == (kn.JOHN, 0, 0, len(designs))
    off = ArmSpec.make("knutten", 3, {"john_knut": False}, "random", deck=tmp_path / "deck.toml")
    assert len(kn.RUNNER.data_arrays(off)[0]) == 13
    assert kn.RUNNER.play_batch(off, 3, 0, 5).column("john_in_deck").to_pylist() == [False] * 5
    table = kn.RUNNER.play_batch(arm, 3, 0, 50, checked=True)
    assert len(table) == 50
    assert f"deck file {arm.data[0].sha256[:8]}" in arm.describe()


def test_the_default_deck_is_the_ruling():
    """RULINGS: 8 designs x 4 ((1|6), (2|7), (3|8), (4|9), (5|10), (6|11), (1|11), (2|9)),
    5 x -10, 4 x ?, John as the 42nd card."""
    arm = ArmSpec.make("knutten", 4)
    cards, designs = table_cards(*kn.RUNNER.data_arrays(arm), True), kn.RUNNER.data_arrays(arm)[1]
    assert len(cards) == 42
    numbers = [(int(a), int(b)) for kind, a, b, copies in designs if kind == kn.VALUE and a >= 0]
    assert numbers == [(1, 6), (2, 7), (3, 8), (4, 9), (5, 10), (6, 11), (1, 11), (2, 9)]
    assert sum(int(d[3]) for d in designs if d[0] == kn.VALUE and d[1] >= 0) == 32
    assert sum(int(d[3]) for d in designs if d[0] == kn.VALUE and d[1] == -10) == 5
    assert sum(int(d[3]) for d in designs if d[0] == kn.COPY) == 4
    assert [tuple(int(x) for x in c) for c in cards[-1:]] == [(kn.JOHN, 0, 0, len(designs))]
    # the setup's 'Schud alle 42 kaarten': 32 number cards + 9 special cards + 1 expansion
    assert len(kn.RUNNER.data_arrays(ArmSpec.make("knutten", 4, {"john_knut": False}))[0]) == 41


# ------------------------------------------------------------------ bad decks
@pytest.mark.parametrize("text, message", [
    ("colour = 'red'\n[[card]]\nvalues=[1]\n", "unknown key 'colour'"),
    ("name = 'x'\n", "at least one \\[\\[card\\]\\]"),
    ("[[card]]\nvalues=[1, 6]\ncopies=0\n", "card 1: copies=0, expected 1..50"),
    ("[[card]]\nvalues=[1, 6]\ncopies=51\n", "card 1: copies=51"),
    ("[[card]]\nvalues=[1, 6]\ncopies='4'\n", "card 1: copies='4'"),
    ("[[card]]\nvalues=[1, 6]\ncopies=true\n", "card 1: copies=True"),
    ("[[card]]\nvalues=[1]\n[[card]]\nvalues=[1, 6]\ncolor=1\n", "card 2: unknown key 'color'"),
    ("[[card]]\nvalues=[]\n", "card 1: values=\\[\\], expected one or two integers"),
    ("[[card]]\nvalues=[1, 2, 3]\n", "card 1: values=\\[1, 2, 3\\]"),
    ("[[card]]\nvalues=[1.5]\n", "card 1: values=\\[1.5\\]"),
    ("[[card]]\nvalues=[51]\n", "each must be in -50..50"),
    ("[[card]]\ncopies=2\n", "card 1: values=None"),
    ("[[card]]\nkind='john'\n", "card 1: kind='john', expected 'value' or 'copy'"),
    ("[[card]]\nkind='copy'\nvalues=[3]\n", "card 1: a copy card \\('\\?'\\) has no values"),
    ("[[card]]\nvalues=[1]\ncopies=50\n" * 11, "at most 500 cards"),
    ("card = 3\n", "at least one \\[\\[card\\]\\]"),
])
def test_load_deck_rejects_bad_files_naming_the_problem(tmp_path, text, message):
    path = write(tmp_path, text)
    with pytest.raises(SpecError, match=message) as info:
        load_deck(path)
    assert str(path) in str(info.value)


def test_load_deck_file_errors(tmp_path):
    with pytest.raises(SpecError, match="does not exist"):
        load_deck(tmp_path / "missing.toml")
    with pytest.raises(SpecError, match="is not valid TOML"):
        load_deck(write(tmp_path, "[[card]\nvalues = [1\n"))
    with pytest.raises(SpecError, match="does not exist"):
        ArmSpec.make("knutten", 3, deck=tmp_path / "missing.toml")


def test_too_few_cards_to_deal_is_rejected(tmp_path):
    small = write(tmp_path, "[[card]]\nvalues=[1, 6]\ncopies=4\n[[card]]\nvalues=[2, 7]\ncopies=5\n")
    ArmSpec.make("knutten", 2, deck=small)  # 9 cards >= 2 x 3 + 1
    with pytest.raises(SpecError, match=r"the deck has 9 cards besides John; 3 players with "
                                        r"hand_limit=3 need at least 10"):
        ArmSpec.make("knutten", 3, deck=small)
    ArmSpec.make("knutten", 2, {"hand_limit": 4}, deck=small)  # 9 >= 2 x 4 + 1
    with pytest.raises(SpecError, match="hand_limit=5 need at least 11"):
        ArmSpec.make("knutten", 2, {"hand_limit": 5}, deck=small)
    # the default deck holds 41 plain cards: 8 players x 5 cards + 1 fits, x 6 does not
    ArmSpec.make("knutten", 8, {"hand_limit": 5})
    with pytest.raises(SpecError, match="the deck has 41 cards besides John; 8 players"):
        ArmSpec.make("knutten", 8, {"hand_limit": 6})


def test_a_deck_with_more_designs_than_the_kernel_holds_is_a_spec_error():
    """The kernel's table holds MAX_DESIGNS = 64 designs (John included), but the deck parser
    accepts any number of [[card]] tables up to 500 cards: 70 one-copy designs pass validation
    and then crash play_batch with a bare numpy ValueError ('could not broadcast'). They should be
    rejected up front with a SpecError naming the limit.

    Proposed fix (sim/games/knutten.py::parse_deck): reject more than MAX_DESIGNS - 1 = 63 rows
    (one design is kept for John), e.g. "a deck may list at most 63 card designs ([[card]]
    tables), this one lists 70"."""
    data = {"card": [{"values": [i % 11 + 1, (3 * i) % 11 + 1]} for i in range(70)]}
    with pytest.raises(SpecError, match="design"):
        arm = ArmSpec.make("knutten", 3, deck=kn.parse_deck(data))
        kn.RUNNER.play_batch(arm, 1, 0, 2)  # reached only while the bug is there: a ValueError


def test_a_deck_within_the_design_limit_plays():
    data = {"card": [{"values": [i % 11 + 1, (3 * i) % 11 + 1]} for i in range(63)]}
    arm = ArmSpec.make("knutten", 3, deck=kn.parse_deck(data))  # 63 + John = 64 designs
    assert len(kn.RUNNER.play_batch(arm, 1, 0, 20, checked=True)) == 20


# ------------------------------------------------------------------ arm specs
def test_defaults_of_every_rule():
    arm = ArmSpec.make("knutten", 4)
    assert arm.rule_values == {"threshold": 31, "hand_limit": 3, "bites_to_end": 3, "john_knut": True,
                               "heavy_weather": False, "heavy_bites_to_end": 11,
                               "stuck_empty_pile": "bite"}
    assert arm.policies == ("cautious",) * 4
    assert arm.data == () and arm.data_value("deck") == kn.DEFAULT_DECK


@pytest.mark.parametrize("rules, message", [
    ({"treshold": 30}, "unknown rule 'treshold' for knutten \\(known: threshold, hand_limit"),
    ({"threshold": 4}, "rule threshold=4: out of range 5..200"),
    ({"threshold": 201}, "rule threshold=201: out of range 5..200"),
    ({"threshold": "thirty"}, "rule threshold='thirty': expected a whole number in 5..200"),
    ({"threshold": True}, "rule threshold=True: expected a whole number"),
    ({"hand_limit": 0}, "rule hand_limit=0: out of range 1..8"),
    ({"hand_limit": 9}, "rule hand_limit=9: out of range 1..8"),
    ({"bites_to_end": 0}, "rule bites_to_end=0: out of range 1..50"),
    ({"john_knut": "maybe"}, "rule john_knut='maybe': expected true or false"),
    ({"heavy_weather": 2}, "rule heavy_weather=2: expected true or false"),
    ({"heavy_bites_to_end": 0}, "rule heavy_bites_to_end=0: out of range 1..200"),
    ({"heavy_weather": True, "heavy_bites_to_end": 1}, "heavy_bites_to_end must be at least 2"),
])
def test_bad_rules_are_rejected_by_name(rules, message):
    with pytest.raises(SpecError, match=message):
        ArmSpec.make("knutten", 4, rules)


def test_rule_values_from_text():
    arm = ArmSpec.make("knutten", 4, {"threshold": "41", "john_knut": "off", "heavy_weather": "yes",
                                      "heavy_bites_to_end": "2_0"})
    assert arm.rule_values["threshold"] == 41 and arm.rule_values["john_knut"] == 0
    assert arm.rule_values["heavy_weather"] == 1 and arm.rule_values["heavy_bites_to_end"] == 20
    assert "threshold=41" in arm.describe() and "john_knut=false" in arm.describe()


@pytest.mark.parametrize("players, message", [
    (1, "players=1: knutten is for 2-8 players"),
    (9, "players=9: knutten is for 2-8 players"),
    ("four", "players='four': expected a whole number"),
    (True, "players=True: expected a whole number"),
    (None, "players=None: expected a whole number"),
])
def test_bad_player_counts(players, message):
    with pytest.raises(SpecError, match=message):
        ArmSpec.make("knutten", players)


@pytest.mark.parametrize("policies, message", [
    ("greedy", "unknown policy 'greedy' for knutten \\(known: cautious, random, trap, search\\)"),
    ("cautious,random", "policy list has 2 entries for 4 seats"),
    (["trap", "trap", "trap", "trap", "trap"], "policy list has 5 entries for 4 seats"),
    ("cautious,,random,trap", "unknown policy ''"),
])
def test_bad_policies(policies, message):
    with pytest.raises(SpecError, match=message):
        ArmSpec.make("knutten", 4, {}, policies)


def test_policy_lists_and_ids():
    arm = ArmSpec.make("knutten", 4, {}, "cautious, random,trap ,cautious")
    assert arm.policies == ("cautious", "random", "trap", "cautious")
    assert {p.name: p.id for p in kn.GAME.policies} == {"random": 0, "cautious": 1, "trap": 2,
                                                            "search": 3}
    assert ArmSpec.make("knutten", 3, {}, ["random"]).policies == ("random",) * 3


def test_study_toml_with_a_deck_path_relative_to_the_study(tmp_path):
    write(tmp_path, VALID, "small.toml")
    study = tmp_path / "study.toml"
    study.write_text('seed = 5\ngames = 10\n[[arm]]\nname = "custom"\ngame = "knutten"\n'
                     'players = 3\ndeck = "small.toml"\n[arm.rules]\njohn_knut = false\n'
                     '[[arm]]\nname = "bad"\ngame = "knutten"\nplayers = 3\n[arm.rules]\n'
                     'threshold = 2\n')
    with pytest.raises(SpecError, match="arm 'bad': rule threshold=2: out of range"):
        StudySpec.from_toml(study)
    study.write_text(study.read_text().split('[[arm]]\nname = "bad"')[0])
    spec = StudySpec.from_toml(study)
    assert spec.arms[0].data_value("deck") == load_deck(tmp_path / "small.toml")
    assert spec.arms[0].rule_values["john_knut"] == 0
