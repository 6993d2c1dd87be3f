"""The search players' workspace of a driver, chosen by the type of its searching seats.

A driver's data ends with the searching seats: an int64 array, or None at a table without a search
seat (sim/contract.py). The driver passes the search's workspace, or None, down to its loop, and
Numba compiles the loop once per type: without the search for None, with it for the workspace.

A branch cannot choose: Numba prunes `if searching is None:` before typing only where `searching`
*is* None. Where it is an array, both sides are typed, so a search table also compiled the loop for
None, a second copy of the whole driver that it never runs (Wie Weet Wat's search table spent
about a third of its compile on it). `workspace_chooser` makes a function that is chosen while
typing instead: its implementation for None returns None, the one for an array the workspace.
"""
from numba import types
from numba.extending import overload


def workspace_chooser(make_workspace):
    """A function for kernels, `choose(searching, args)`: make_workspace(*args) where `searching`
    is an array, None where it is None; only one of the two is compiled. In plain Python (the
    kernels run without Numba: tests/test_conformance.py) it is that same choice."""

    def choose(searching, args):
        return None if searching is None else make_workspace(*args)

    @overload(choose, jit_options={"nogil": True, "error_model": "numpy"})
    def typed(searching, args):
        if isinstance(searching, types.NoneType):
            return lambda searching, args: None
        return lambda searching, args: make_workspace(*args)

    return choose
