"""Seat rotation (duplicate deals), shared by the games that offer it.

An arm that rotates its seats plays each deal once per rotation: game g is deal g // n (n seats)
seen from rotation k = g % n, in which seat s holds what seat (s + k) % n holds in the unrotated
deal, and makes the random choices of that seat's stream. Over the n games of a deal every hand and
every stream of choices sits once at every seat, so what differs between them is the seat alone:
position is measured with the cards' luck cancelled. The runner asks for it by appending a 1 to
rule_i after the game's rules (sim/contract.py); a game's kernel reads it with rotating_nb.
"""
import numpy as np

from kernels.jit import njit


@njit
def rotating_nb(rule_i, n_rules):
    """Whether the arm rotates its seats: rule_i holds one entry after its n_rules rules, and it is 1."""
    return rule_i.shape[0] > n_rules and rule_i[n_rules] != 0


@njit
def rotation_args_ok_nb(rule_i, n_rules):
    """rule_i holds the rules, or the rules and a rotation flag of 0 or 1."""
    if rule_i.shape[0] == n_rules:
        return True
    return rule_i.shape[0] == n_rules + 1 and 0 <= rule_i[n_rules] <= 1


@njit
def deal_of_nb(game, n, rotating):
    """(the deal game `game` plays, its rotation): (game, 0) for an arm that does not rotate."""
    if rotating:
        return game // n, game - (game // n) * n
    return game, np.int64(0)


@njit
def held_hand_nb(seat, shift, n):
    """Which seat's hand (and stream) of the unrotated deal `seat` holds at rotation `shift`."""
    h = seat + shift
    return h - n if h >= n else h


@njit
def holder_nb(u, shift, n):
    """Which seat holds, at rotation `shift`, what seat `u` holds in the unrotated deal: the inverse
    of held_hand_nb (holder_nb(held_hand_nb(s, shift, n), shift, n) == s)."""
    return u - shift if u >= shift else u - shift + n


@njit
def rotate_seat_rows_nb(rows, counts, n, shift):
    """Seat s takes row and count of seat (s + shift) % n, for hands kept as a row of cards per seat
    and a count per seat: the rotated deal."""
    for _ in range(shift):  # shift < n: one step at a time
        first = rows[0].copy()
        first_n = counts[0]
        for s in range(n - 1):
            rows[s] = rows[s + 1]
            counts[s] = counts[s + 1]
        rows[n - 1] = first
        counts[n - 1] = first_n
