"""No kernel helper is compiled both for a literal and for the type it stands for.

Numba types a constant argument as a literal (Literal[int](0)) and compiles a helper once per
tuple of argument types, so a helper called with `0` in one place and an int64 in another is
compiled twice for the same machine code; it made the cold compile of Knutten, Wizard and Wippen
much longer than it needed to be (docs/benchmarks.md, "Compile time"). benchmarks/specialisations
types each game's whole call graph in a fresh interpreter (type inference only: the types decide
the specialisations, and typing costs a fraction of a compile) and lists such pairs.

GAMES are the games whose kernels have been cleared of such pairs and checked here. Wippen's and
Wie is de Heer?'s are cleared too (docs/benchmarks.md), but their type inference takes one to a few
minutes of CPU, which this test cannot afford: `python -m benchmarks.specialisations wippen
wieisdeheer --typing-only` checks them.
"""
import pytest
from numba.core import types

from benchmarks.specialisations import literal_duplicates, measure

GAMES = ["knutten", "wizard", "wieweetwat"]


def test_a_literal_and_its_type_alike_are_found_and_other_pairs_are_not():
    int64, zero = types.int64, types.IntegerLiteral(0)
    array = types.Array(types.int64, 1, "C")
    found = literal_duplicates([(array, zero), (array, int64), (types.none, int64)], ["a", "k"])
    assert found == ["k: Literal[int](0) | int64"]
    # a None against an array (a trace or none) is a real difference, not a literal one
    assert literal_duplicates([(types.none, int64), (array, int64)], ["trace", "k"]) == []


@pytest.mark.parametrize("game", GAMES)
def test_no_helper_is_compiled_for_a_literal_and_its_type_alike(game):
    result = measure(game, typing_only=True, trace=True, search=True)
    assert result["specialisations"] >= result["functions"] > 10  # the census saw the kernel
    assert result["literal_duplicates"] == {}, (
        f"{game}: helpers typed for a literal and for its type alike (pass np.int64(...), or "
        f"start the variable from np.int64(...)): {result['literal_duplicates']}")


@pytest.mark.parametrize("game", ["knutten", "wizard", "wieweetwat"])
def test_a_table_without_a_search_seat_compiles_no_search_code(game):
    """What `kaartlab compile` compiles by default (a batch without a search seat) types no function
    of the game's search_nb: the runner passes None for the searching seats and the driver prunes
    the search's branches (sim/contract.py). Wippen's and Wie is de Heer?'s drivers do the same,
    checked by `python -m benchmarks.specialisations wippen wieisdeheer --typing-only` (minutes)."""
    plain = measure(game, typing_only=True)
    searching = measure(game, typing_only=True, search=True)
    module = f"kernels.{game}.search_nb."
    assert plain["functions"] > 10 and not [f for f in plain["detail"] if f.startswith(module)]
    assert [f for f in searching["detail"] if f.startswith(module)]  # the census would see them


@pytest.mark.parametrize("game", ["wieweetwat", "wippen", "wieisdeheer"])
def test_a_search_table_compiles_its_driver_loop_once(game):
    """A table with a search seat types its driver loop for the search's workspace only, not also
    for None: Numba prunes `if searching is None:` only where `searching` is None, so a branch
    there compiled a second copy of the whole driver that such a table never runs (Wie Weet Wat's
    search table took 85 s to compile with it, 75 s without: docs/benchmarks.md). The workspace
    is chosen by type instead (kernels/searching_nb.py)."""
    census = measure(game, typing_only=True, search_only=True)
    loop = census["detail"][f"kernels.{game}.play_nb.play_nb"]
    assert loop["specialisations"] == 1
    assert [f for f in census["detail"] if f.startswith(f"kernels.{game}.search_nb.")]
