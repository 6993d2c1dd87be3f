"""What each seat has seen of the other hands (docs/rules/wieweetwat.md, "What a reader knows").

known[o, h, kind] is how many cards of `kind` seat o knows seat h holds: a lower bound of
hands[h, kind], never above it, from what o saw happen this round. A row known[o, h] is laid out as
a hand row (HAND_WIDTH: the counts, then in column HAND_MASK the set of kinds counted), so that
a reader walks only the few kinds it knows of. A round's deal is hidden, so every
round starts from nothing. What o learns:
- a Rotonde: o passed its whole hand to its receiver, so o knows that hand is there; what o knew of
  any hand moves on with it;
- a Pechvogel between o and another seat: each knows the hand it gave away;
- a card taken (Verloren geluk, Te veel keuze, Verkiezingspartij): the victim knows the card it
  lost, now in the taker's hand; the taker knows which card left the victim; every other seat only
  that one random card left, which may be any card it knew of (each count drops by one);
- a card laid face up (an answer's card, its follow-ups and Grote Kans's extras, a counter-attack's
  Wie Weet Wat card, a remise's card on the table) leaves the known cards of its kind; a card that
  was on the table and goes back into its hand (a remise's), or that a wrong answer showed and
  kept, is known to everyone.
Penalty cards are drawn unseen.

Kept only at tables where a reader uses it (kept_nb): `targeting` and `search` under the profiles
recall model. Elsewhere it stays zero and costs nothing.
"""
from kernels.jit import borrowing, inline
from kernels.wieweetwat.enums import (
    HAND_MASK,
    HAND_WIDTH,
    N_KINDS,
    P_SEARCH,
    P_TARGETING,
    R_RECALL_MODEL,
    RECALL_PROFILES,
)


@borrowing
def kept_nb(rule_i, seat_policy, n):
    """Whether the table keeps `known`: a `targeting` or `search` seat under the profiles model."""
    if rule_i[R_RECALL_MODEL] != RECALL_PROFILES:
        return False
    for s in range(n):
        if seat_policy[s] == P_TARGETING or seat_policy[s] == P_SEARCH:
            return True
    return False


@borrowing
def forget_nb(known, n):
    """A new deal: nobody knows anything of the others' hands."""
    for o in range(n):
        for h in range(n):
            for j in range(HAND_WIDTH):
                known[o, h, j] = 0


@inline
def less_nb(known, o, h, kind):
    """One card of `kind` fewer known by o in h's hand (none below zero)."""
    left = known[o, h, kind] - 1
    if left >= 0:
        known[o, h, kind] = left
        if left == 0:
            known[o, h, HAND_MASK] &= ~(1 << kind)


@inline
def more_nb(known, o, h, kind):
    known[o, h, kind] += 1
    known[o, h, HAND_MASK] |= 1 << kind


@inline
def shown_nb(known, n, holder, kind):
    """A card of `kind` left holder's hand face up: everyone's count of it drops, if it had one."""
    for o in range(n):
        less_nb(known, o, holder, kind)


@inline
def returned_nb(known, n, holder, kind):
    """A card everyone saw on the table went back into holder's hand."""
    for o in range(n):
        if o != holder:
            more_nb(known, o, holder, kind)


@inline
def shown_kept_nb(known, n, holder, kind):
    """Holder showed a card of `kind` and kept it (a wrong answer, a wrong counter-attack): everyone
    knows it holds at least one."""
    for o in range(n):
        if o != holder and known[o, holder, kind] == 0:
            more_nb(known, o, holder, kind)


@borrowing
def taken_from_nb(known, n, taker, victim, kind):
    """A random card of `kind` left victim's hand for taker's: the taker knows which, the victim too
    (it is in the taker's hand now, see given_to_nb); for every other seat any known card of the
    victim may be the one that went."""
    for o in range(n):
        if o == victim:
            continue
        if o == taker:
            less_nb(known, o, victim, kind)
            continue
        for k in range(N_KINDS):
            less_nb(known, o, victim, k)


@borrowing
def given_to_nb(known, victim, taker, kind):
    """The victim of a taken card knows the taker holds it."""
    more_nb(known, victim, taker, kind)


@borrowing
def receiver_nb(s, hand_n, n, skip_empty):
    """Whom seat s passes its hand to in a Rotonde (as actions_nb.rotonde_nb moves them): the next
    seat clockwise, or with `skip_empty` the next seat holding cards (s itself if none does)."""
    for k in range(1, n):
        p = s + k
        if p >= n:
            p -= n
        if not skip_empty or hand_n[p] > 0:
            return p
    return s


@borrowing
def rotonde_known_nb(known, hands, hand_n, n, skip_empty, rows):
    """A Rotonde, before the hands move: what each seat knew of a hand moves with it, and each
    giver knows its receiver now holds the giver's hand. `rows`: scratch of (seats, HAND_WIDTH)."""
    for o in range(n):
        for s in range(n):
            for j in range(HAND_WIDTH):
                rows[s, j] = known[o, s, j]
                known[o, s, j] = 0
        for s in range(n):
            if skip_empty and hand_n[s] == 0:
                continue
            r = receiver_nb(s, hand_n, n, skip_empty)
            for j in range(HAND_WIDTH):
                known[o, r, j] = rows[s, j]
    for o in range(n):
        if skip_empty and hand_n[o] == 0:
            continue
        r = receiver_nb(o, hand_n, n, skip_empty)
        for j in range(HAND_WIDTH):
            known[o, r, j] = hands[o, j]
            known[o, o, j] = 0


@borrowing
def swapped_known_nb(known, hands, n, a, b):
    """A Pechvogel, after seats a and b swapped hands: what everyone knew of each hand moves with
    it, and each of the two knows the hand it gave away."""
    for o in range(n):
        for j in range(HAND_WIDTH):
            x = known[o, a, j]
            known[o, a, j] = known[o, b, j]
            known[o, b, j] = x
    for j in range(HAND_WIDTH):
        known[a, b, j] = hands[b, j]
        known[b, a, j] = hands[a, j]
        known[a, a, j] = 0
        known[b, b, j] = 0


@borrowing
def known_held_nb(known, hands, n):
    """The checked mode's test: nobody knows of a card that is not there, and every row's kind set
    says which kinds it counts."""
    for o in range(n):
        for h in range(n):
            held = 0
            for kind in range(N_KINDS):
                if known[o, h, kind] > hands[h, kind] or known[o, h, kind] < 0:
                    return False
                if known[o, h, kind] > 0:
                    held |= 1 << kind
            if known[o, h, HAND_MASK] != held:
                return False
    return True
