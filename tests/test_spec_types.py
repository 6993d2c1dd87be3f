"""A study file is typed: text where a number or true/false belongs is an error naming the key (the
CLI's text is parsed); arm names cannot smuggle a newline or collide on a case-insensitive disk."""
from __future__ import annotations

import pytest

from sim.errors import SpecError
from sim.spec import StudySpec, parse_toml_text

ARM = {"name": "x", "game": "knutten", "players": 4}


@pytest.mark.parametrize("study, message", [
    ({"games": "100", "arm": [ARM]}, "games='100': expected a whole number (no quotes)"),
    ({"seed": "1", "arm": [ARM]}, "seed='1': expected a whole number (no quotes)"),
    ({"batch_size": "5", "arm": [ARM]}, "batch_size='5': expected a whole number (no quotes)"),
    ({"arm": [{**ARM, "players": "4"}]}, "players='4': expected a whole number (no quotes)"),
    ({"arm": [{**ARM, "rules": {"john_knut": "yes"}}]}, "john_knut='yes': expected true or false"),
    ({"arm": [{**ARM, "rules": {"threshold": "31"}}]}, "threshold='31': expected a whole number"),
    ({"arm": [{**ARM, "name": "a\n"}]}, "arm name 'a\\n'"),
    ({"arm": [{**ARM, "name": "A"}, {**ARM, "name": "a"}]}, "differ only in case"),
])
def test_wrong_types_in_a_study_file_are_errors(study, message):
    with pytest.raises(SpecError) as err:
        StudySpec.from_dict(study)
    assert message in str(err.value)


def test_typed_values_and_cli_text_still_work():
    spec = StudySpec.from_dict({"games": 10, "arm": [{**ARM, "rules": {"john_knut": False, "threshold": 28},
                                                      "policy": "cautious:start=self"}]})
    arm = spec.arms[0]
    assert arm.rule_values["john_knut"] is False and arm.rule_values["threshold"] == 28
    assert arm.labels[0] == "cautious(start=self)"  # the policy string is CLI-style text, parsed


def test_a_deeply_nested_file_is_one_error():
    with pytest.raises(SpecError, match="too deeply"):
        parse_toml_text("description = " + "[" * 50_000 + "]" * 50_000, "study file")
