"""Argument checks every game's driver makes alike (each game's args_ok_nb adds its own rules').

A driver's entry point returns BAD_ARGS when these fail (kernels/status.py); the game contract
(sim/contract.py) says what the arguments are.
"""
from kernels.jit import njit
from kernels.rotation_nb import rotation_args_ok_nb


@njit
def shapes_ok_nb(count, min_players, max_players, seat_policy, rule_i, n_rules_i, rule_f,
                 n_rules_f, seat_i, n_seat_i, seat_f, n_seat_f, out):
    """The shapes of a driver's arguments: min_players..max_players seats, a count of games that
    `out` has room for, the rules (with or without the rotation flag after rule_i's n_rules_i) and
    a row of n_seat_i / n_seat_f parameters per seat."""
    n = seat_policy.shape[0]
    if n < min_players or n > max_players or count < 0 or out.shape[0] < count:
        return False
    if not rotation_args_ok_nb(rule_i, n_rules_i) or rule_f.shape[0] != n_rules_f:
        return False
    return (seat_i.shape[0] == n and seat_i.shape[1] == n_seat_i and seat_f.shape[0] == n
            and seat_f.shape[1] == n_seat_f)


@njit
def trace_ok_nb(trace, width):
    """No trace (None), or one with room for an event and the end row, `width` columns wide."""
    if trace is None:
        return True
    return trace.shape[0] >= 2 and trace.shape[1] == width


@njit
def search_unannounced_nb(searching, seat_policy, p_search):
    """A seat plays the search (policy id p_search) but the driver was not told of its searching
    seats (`searching`, the data item, is None): BAD_ARGS. Such a call compiles no search code, so
    it cannot play the seat. The driver chooses the search's workspace by the type of `searching`
    (kernels/searching_nb.py), or branches on `searching is None` where it is its own argument."""
    if searching is not None:
        return False
    for s in range(seat_policy.shape[0]):
        if seat_policy[s] == p_search:
            return True
    return False
