"""The rules of a category and of a reader's turn, on the state the driver owns: drawing penalty
cards, drawing category cards and carrying out the action cards drawn in a row, the race of answers
with wrong answers and remises, and what the winner of a category does (discarding, follow-up cards,
Grote Kans's extra cards, counter-attacks). docs/rules/wieweetwat.md says which sentence of the text
or which ruling each step implements.

The state: hands[seat, kind] and hand_n[seat]; pending[seat], the card a remise player keeps on the
table (-1: none); the letter pile and discards, the category pile, discards and cards in use, with
their sizes in pile_n; the counters seat_stats, action_stats, letter_stats and game_stats (enums
SS_*, AS_*, GS_*); known[observer, holder, kind], what each seat has seen of the others' hands
(known_nb.py), kept only at tables whose readers use it.
"""
import numpy as np

from kernels.jit import borrowing, inline
from kernels.status import CARDS_LOST, INVARIANT, OK, TOO_LONG
from kernels.wieweetwat import search_nb  # a module: search_nb plays its play-outs with this one
from kernels.wieweetwat.actions_nb import (
    circle_nb,
    leader_nb,
    left_of_nb,
    opponents_nb,
    pechvogel_partner_nb,
    rotonde_nb,
    seat_after_nb,
    swap_hands_nb,
    take_card_nb,
    verkiezingspartij_nb,
)
from kernels.wieweetwat.enums import (
    A_GROTE_KANS,
    A_PECHVOGEL,
    A_ROTONDE,
    A_TE_VEEL_KEUZE,
    A_VERKIEZINGSPARTIJ,
    A_VERLOREN_GELUK,
    A_VICIEUZE_CIRKEL,
    AS_DRAWN,
    AS_LEADER_CHANGE,
    AS_SELF_CHANGE,
    CATEGORIES_PER_CARD,
    EV_ACTION,
    EV_ANSWER,
    EV_COUNTER,
    EV_DRAW_ACTION,
    EV_EXTRA,
    EV_FOLLOW,
    EV_NOBODY,
    EV_PASS,
    EV_PENALTY,
    EV_READ,
    EV_REMISE,
    EV_RESHUFFLE,
    EV_WIN,
    EV_WRONG,
    GS_ACTIONS,
    GS_CATEGORIES,
    GS_GROTE_LEADER,
    GS_PASSES,
    GS_RACE_MS,
    GS_REMISES,
    HAND_MASK,
    JOKER_WHEN_STUCK,
    MAX_QUEUE,
    MAX_TURNS,
    N_KINDS,
    N_LETTERS,
    NO_TIME,
    PN_CAT_DISCARDS,
    PN_CAT_IN_USE,
    PN_CAT_PILE,
    P_SEARCH,
    R_COUNTER_ATTACKS,
    R_COUNTER_LAST_CARD,
    R_GROTE_KANS_CARDS,
    R_GROTE_SAME_LETTER,
    R_READER_AFTER_WRONG,
    R_RECALL_MODEL,
    R_ROTONDE_EMPTY,
    READ_WRONG_ANSWERER,
    RECALL_PROFILES,
    RF_CIRCLE_POOL,
    RF_COUNTER_WINDOW,
    RF_FOLLOW_TIME,
    RF_GROTE_KANS_SECONDS,
    RF_TIE_WINDOW,
    RF_TIME_LIMIT,
    ROTONDE_SKIPPED,
    SF_ERROR_RATE,
    SF_JOKER_PATIENCE,
    SI_COUNTER,
    SI_JOKER_USE,
    SI_SHED,
    SI_TARGET,
    SS_CARDS_SHED,
    SS_CATEGORIES_WON,
    SS_COUNTER_ATTACKED,
    SS_COUNTER_ATTACKS,
    SS_JOKERS,
    SS_PENALTY_CARDS,
    SS_WRONG,
    WWW,
)
from kernels.wieweetwat.known_nb import (
    given_to_nb,
    kept_nb,
    known_held_nb,
    returned_nb,
    rotonde_known_nb,
    shown_kept_nb,
    shown_nb,
    swapped_known_nb,
    taken_from_nb,
)
from kernels.wieweetwat.piles_nb import (
    add_card_nb,
    categories_conserved_nb,
    discard_letter_nb,
    draw_category_card_nb,
    draw_letter_nb,
    end_turn_nb,
    is_held_nb,
    letters_conserved_nb,
    remove_card_nb,
)
from kernels.wieweetwat.policies_nb import (
    choose_category_nb,
    choose_extras_nb,
    choose_target_nb,
    ev_targeting_nb,
    wants_counter_nb,
)
from kernels.wieweetwat.recall_nb import (
    cached_hand_share_nb,
    exponential_nb,
    first_answer_of_share_nb,
    is_wrong_nb,
    lowest_kind_nb,
    say_letter_with_share_nb,
    share_total_nb,
)
from kernels.wieweetwat.trace_nb import ev_nb, ms_nb

LS_LEFT = 0  # letter_stats columns: cards left in hands at the end of each round
LS_SHED = 1  # cards discarded by their players


@borrowing
def penalty_nb(seed, game, rnd, seat, hands, hand_n, lpile, ldisc, pile_n, seat_stats, trace, at):
    """The seat draws a letter card as a penalty (a wrong answer, a counter-attack, the Vicieuze
    cirkel); nothing when the pile and its discards are both empty. Returns the kind drawn or -1.
    A call, not inlined: penalties are rare, and four inlined copies of the draw and its reshuffle
    only crowd the round's registers."""
    kind, shuffled = draw_letter_nb(seed, game, rnd, lpile, ldisc, pile_n)
    if shuffled:
        ev_nb(trace, at, EV_RESHUFFLE, -1, 0, shuffled, 0, 0, 0, 0)
    if kind >= 0:
        add_card_nb(hands, hand_n, seat, kind)
        seat_stats[seat, SS_PENALTY_CARDS] += 1
    ev_nb(trace, at, EV_PENALTY, seat, kind, 0, 0, 0, 0, 0)
    return kind


@inline
def shed_nb(seat, kind, ldisc, pile_n, seat_stats, letter_stats):
    """A card the seat got rid of goes to the letter discards."""
    discard_letter_nb(ldisc, pile_n, kind)
    seat_stats[seat, SS_CARDS_SHED] += 1
    letter_stats[kind, LS_SHED] += 1


@inline
def draw_category_nb(seed, game, cpile, cdisc, cuse, pile_n, held, lo, hi, waiting, trace, at):
    """A category card (-1: none can be drawn); held[lo:hi] and `waiting`: draw_category_card_nb."""
    card, shuffled = draw_category_card_nb(seed, game, cpile, cdisc, cuse, pile_n, held, lo, hi,
                                           waiting)
    if shuffled:
        ev_nb(trace, at, EV_RESHUFFLE, -1, 1, shuffled, 0, 0, 0, 0)
    return card


@inline
def round_winner_nb(start, hands_n, pending, n):
    """The first seat clockwise from `start` with no letter card in hand or on the table, or -1."""
    for k in range(n):
        p = seat_after_nb(start, k, n)
        if hands_n[p] == 0 and pending[p] < 0:
            return p
    return -1


@inline
def take_back_nb(hands, hand_n, pending, n, known, track):
    """The remise players' cards on the table go back to their hands, seen by everyone."""
    for s in range(n):
        if pending[s] >= 0:
            add_card_nb(hands, hand_n, s, pending[s])
            if track:
                returned_nb(known, n, s, pending[s])
            pending[s] = -1


@borrowing
def category_card_left_nb(card_action, cpile, cdisc, cuse, pile_n, held, lo, hi, waiting):
    """Whether a category card (not an action card) can still be drawn in this turn: one in the
    pile, in the discards, or in use and done with (not held: is_held_nb). Only a one-card category
    list has none while its card waits to be read; a Vicieuze cirkel drawing there would take every
    action card into its queue again, the other circles too, without end."""
    for i in range(pile_n[PN_CAT_PILE]):
        if card_action[cpile[i]] < 0:
            return True
    for i in range(pile_n[PN_CAT_DISCARDS]):
        if card_action[cdisc[i]] < 0:
            return True
    for i in range(pile_n[PN_CAT_IN_USE]):
        c = cuse[i]
        if card_action[c] < 0 and not is_held_nb(c, held, lo, hi, waiting):
            return True
    return False


@inline
def draw_card_nb(seed, game, reader, card_action, cpile, cdisc, cuse, pile_n, queue, trace, at):
    """The reader draws category cards until a regular one; the action cards drawn on the way join
    the queue ("Meerdere actiekaarten na elkaar"; the queue holds the cards, card_action their
    kinds). Returns (the category card, cards queued or -1 for a queue overflow or no card to
    draw)."""
    queue_n = 0
    card = draw_category_nb(seed, game, cpile, cdisc, cuse, pile_n, queue, np.int64(0),
                            np.int64(0), np.int64(-1), trace, at)
    while card >= 0 and card_action[card] >= 0:
        if queue_n >= MAX_QUEUE:
            return card, -1
        queue[queue_n] = card
        queue_n += 1
        ev_nb(trace, at, EV_DRAW_ACTION, reader, card_action[card], 0, 0, 0, 0, 0)
        card = draw_category_nb(seed, game, cpile, cdisc, cuse, pile_n, queue, np.int64(0), queue_n,
                                np.int64(-1), trace, at)
    if card < 0:  # cannot happen: a regular card is always in the pile, the discards or done with
        return card, -1
    return card, queue_n


@borrowing
def carry_out_actions_nb(seed, game, rnd, reader, n, queue_n, rules, state, piles, stats, queue,
                         tmp, known_rows, trace, at, search, remise, card):
    """The action cards of the queue, one by one in the order drawn, before `card` (the category
    card waiting) is read.
    Returns (round winner or -1, Grote Kans or not, status 0 or -1 for a queue overflow). A round
    that ends during the actions skips the rest of them (they are discarded with the turn's cards).
    Called only when a turn drew action cards (its arrays then change hands: a few reference
    counts, paid one turn in six)."""
    rule_i, rule_f, seat_policy, seat_i, seat_f, rates, share, breadth, card_action, prof = rules
    hands, hand_n, pending, restrict, pile_n, seat_rng, known = state
    lpile, ldisc, cpile, cdisc, cuse = piles
    seat_stats, action_stats, letter_stats, game_stats = stats
    track = kept_nb(rule_i, seat_policy, n)
    grote = np.bool_(False)
    i = 0
    while i < queue_n:
        action = card_action[queue[i]]
        i += 1
        action_stats[action, AS_DRAWN] += 1
        game_stats[GS_ACTIONS] += 1
        before = hand_n[reader]
        leader = leader_nb(reader, hand_n, n)
        leader_before = hand_n[leader]
        target = -1
        if action == A_GROTE_KANS:
            grote = True
            # its swing is measured where it acts, around the extras of the category read next
            # (play_round_nb), for the leader as it is now
            if game_stats[GS_GROTE_LEADER] < 0:
                game_stats[GS_GROTE_LEADER] = leader
        elif action == A_VICIEUZE_CIRKEL:
            # a new category card of its own; action cards met on the way join the queue. Still
            # waiting, so never shuffled back: this card and those after it, and `card`
            own = np.int64(-1)
            if category_card_left_nb(card_action, cpile, cdisc, cuse, pile_n, queue, i - 1,
                                     queue_n, card):
                own = draw_category_nb(seed, game, cpile, cdisc, cuse, pile_n, queue, i - 1,
                                       queue_n, card, trace, at)
            while own >= 0 and card_action[own] >= 0:
                if queue_n >= MAX_QUEUE:
                    return -1, False, -1
                queue[queue_n] = own
                queue_n += 1
                ev_nb(trace, at, EV_DRAW_ACTION, reader, card_action[own], 0, 0, 0, 0, 0)
                own = draw_category_nb(seed, game, cpile, cdisc, cuse, pile_n, queue, i - 1,
                                       queue_n, card, trace, at)
            if own < 0:  # no category card but the one waiting (a one-card category list): the
                own = card  # circle reads from it, and draws no action cards in vain
            race = (hand_n, opponents_nb(reader, n), restrict, known[reader])
            slot = choose_category_nb(seat_rng, reader, seat_policy[reader], rules, race, n, own,
                                      np.bool_(True))
            ev_targeting_nb(trace, at, reader, seat_policy[reader], rules, race, n, own,
                            np.bool_(True))
            b = breadth[own * CATEGORIES_PER_CARD + slot]
            ev_nb(trace, at, EV_READ, reader, own, slot, own * CATEGORIES_PER_CARD + slot,
                  np.int64(b * 100.0 + 0.5), 0, 0)
            circle_rates = rates
            if rule_i[R_RECALL_MODEL] == RECALL_PROFILES:  # each seat's knowledge of the kind
                cat_kind, _, know, _, crates, _ = prof
                ckind = cat_kind[own * CATEGORIES_PER_CARD + slot]
                for s in range(n):
                    crates[s] = rates[s] * know[s, ckind]
                circle_rates = crates
            target, _ = circle_nb(seat_rng, reader, n, b, circle_rates, seat_f,
                                  rule_f[RF_CIRCLE_POOL], rule_f[RF_TIME_LIMIT], trace, at)
            penalty_nb(seed, game, rnd, target, hands, hand_n, lpile, ldisc, pile_n, seat_stats,
                       trace, at)
        elif action == A_ROTONDE:
            skip_empty = rule_i[R_ROTONDE_EMPTY] == ROTONDE_SKIPPED
            if track:
                rotonde_known_nb(known, hands, hand_n, n, skip_empty, known_rows)
            rotonde_nb(hands, hand_n, n, tmp, skip_empty)
        elif action == A_VERKIEZINGSPARTIJ:
            verkiezingspartij_nb(seat_rng, hands, hand_n, n, tmp, trace, at)
            if track:  # tmp[s]: the card seat s took from the seat to its left, or -1
                for s in range(n):
                    if tmp[s] >= 0:
                        taken_from_nb(known, n, s, left_of_nb(s, n), tmp[s])
                for s in range(n):
                    if tmp[s] >= 0:
                        given_to_nb(known, left_of_nb(s, n), s, tmp[s])
        elif action == A_VERLOREN_GELUK:
            target = left_of_nb(reader, n)
            kind = take_card_nb(seat_rng, hands, hand_n, reader, target, trace, at)
            if track and kind >= 0:
                taken_from_nb(known, n, reader, target, kind)
                given_to_nb(known, target, reader, kind)
        elif action == A_TE_VEEL_KEUZE:
            if search is not None and seat_policy[reader] == P_SEARCH and not remise:
                target = search_nb.search_target_nb(search, rnd, reader, n, i, grote, rules, state,
                                                    piles)
            else:
                target = choose_target_nb(seat_rng, seat_i[reader, SI_TARGET], reader, hand_n, n)
            kind = take_card_nb(seat_rng, hands, hand_n, reader, target, trace, at)
            if track and kind >= 0:
                taken_from_nb(known, n, reader, target, kind)
                given_to_nb(known, target, reader, kind)
        elif action == A_PECHVOGEL:
            target = pechvogel_partner_nb(reader, hand_n, n)
            if target >= 0:
                swap_hands_nb(hands, hand_n, reader, target)
                if track:
                    swapped_known_nb(known, hands, n, reader, target)
        action_stats[action, AS_SELF_CHANGE] += hand_n[reader] - before
        action_stats[action, AS_LEADER_CHANGE] += hand_n[leader] - leader_before
        ev_nb(trace, at, EV_ACTION, reader, action, target, before, hand_n[reader], leader,
              hand_n[leader] - leader_before)
        won = round_winner_nb(reader, hand_n, pending, n)
        if won >= 0:
            return won, grote, 0
    return -1, grote, 0


@inline
def follow_ups_nb(rngs, seat, letter, rate, window, hands, hand_n, ldisc, pile_n, seat_stats,
                  letter_stats, trace, at, n, known, track):
    """More cards of the winning letter, one per further distinct answer (the k-th arrival of the
    letter's process) within `window` seconds of the first ("Heb je nog meer kaarten met dezelfde
    letter ... voor elke extra kaart noem je dan een ander juist antwoord")."""
    t = 0.0
    while hands[seat, letter] > 0:
        t += exponential_nb(rngs, seat, rate)
        if t > window:
            return
        remove_card_nb(hands, hand_n, seat, letter)
        if track:
            shown_nb(known, n, seat, letter)
        shed_nb(seat, letter, ldisc, pile_n, seat_stats, letter_stats)
        ev_nb(trace, at, EV_FOLLOW, seat, letter, 0, ms_nb(t), 0, 0, 0)


@borrowing
def grote_kans_extras_nb(rngs, seat, rate, share, shed, limit, most, same_letter, hands, hand_n,
                         ldisc, pile_n, seat_stats, letter_stats, times, chosen, trace, at, n, known,
                         track):
    """Grote Kans: after winning, up to `most` more letter cards of any letters within `limit`
    seconds, each with its own answer: every letter still in hand recalls its answer at its own
    exponential time; the player sheds by its `shed` preference among those that came in time.
    `same_letter`: a letter may give more than one card, the k-th card of a letter at the k-th
    answer of its process (another distinct answer each)."""
    for letter in range(N_LETTERS):
        times[letter] = NO_TIME
        if hands[seat, letter] > 0:
            times[letter] = exponential_nb(rngs, seat, rate * share[letter])
    if same_letter:
        for j in range(most):
            if choose_extras_nb(shed, times, share, limit, np.int64(1), chosen) == 0:
                return
            letter = chosen[0]
            remove_card_nb(hands, hand_n, seat, letter)
            if track:
                shown_nb(known, n, seat, letter)
            shed_nb(seat, letter, ldisc, pile_n, seat_stats, letter_stats)
            ev_nb(trace, at, EV_EXTRA, seat, letter, 0, ms_nb(times[letter]), 0, 0, 0)
            if hands[seat, letter] > 0:  # its next card needs the letter's next answer
                times[letter] += exponential_nb(rngs, seat, rate * share[letter])
            else:
                times[letter] = NO_TIME
        return
    k = choose_extras_nb(shed, times, share, limit, most, chosen)
    for j in range(k):
        letter = chosen[j]
        remove_card_nb(hands, hand_n, seat, letter)
        if track:
            shown_nb(known, n, seat, letter)
        shed_nb(seat, letter, ldisc, pile_n, seat_stats, letter_stats)
        ev_nb(trace, at, EV_EXTRA, seat, letter, 0, ms_nb(times[letter]), 0, 0, 0)


@inline
def counter_attack_nb(seed, game, rnd, reader, winner, letter, n, rule_f, seat_i, seat_f, rates,
                      breadth_now, share, hands, hand_n, lpile, ldisc, pile_n, seat_rng, seat_stats,
                      letter_stats, trace, at, profiles, pshare, ckind, react, known, track):
    """The Wie Weet Wat card as a counter-attack ("Als tegenaanval"): every other player holding one
    (not the reader, who plays no card to this category) who wants to recalls a second answer with
    the winner's initial letter (a joker's chosen letter); the first to find one within the counter
    window plays it. Correct: the card is discarded and the winner draws a penalty card. Wrong: the
    attacker keeps the card and draws the penalty. `profiles`: the profiles recall model (`rates`
    then holds each seat's rate for the category's kind `ckind`; an attacker recalls with its own
    letter shares pshare[a, ckind] and its reaction time react[a] is added)."""
    attacker = -1
    best = NO_TIME
    holders = 0  # the seats holding a Wie Weet Wat card: no branch per seat
    for a in range(n):
        holders |= ((hands[a, HAND_MASK] >> WWW) & 1) << a
    holders &= ~((1 << reader) | (1 << winner))
    # clockwise from the winner: the seats after it as they are, those before it moved up by n
    seats = (holders & -(2 << winner)) | ((holders & ((1 << winner) - 1)) << n)
    while seats:
        a = lowest_kind_nb(seats)
        seats &= seats - 1
        if a >= n:
            a -= n
        if not wants_counter_nb(seat_i[a, SI_COUNTER], a, winner, hand_n):
            continue
        if profiles:
            t = exponential_nb(seat_rng, a, breadth_now * rates[a] * pshare[a, ckind, letter])
            if t < NO_TIME:
                t += react[a]
        else:
            t = exponential_nb(seat_rng, a, breadth_now * rates[a] * share[letter])
        if t <= rule_f[RF_COUNTER_WINDOW] and t < best:
            best = t
            attacker = a
    if attacker < 0:
        return
    wrong = is_wrong_nb(seat_rng, attacker, seat_f[attacker, SF_ERROR_RATE])
    if wrong:
        seat_stats[attacker, SS_WRONG] += 1
        ev_nb(trace, at, EV_COUNTER, attacker, winner, letter, ms_nb(best), 0, hand_n[winner], 0)
        if track:  # the card was shown
            shown_kept_nb(known, n, attacker, WWW)
        penalty_nb(seed, game, rnd, attacker, hands, hand_n, lpile, ldisc, pile_n, seat_stats,
                   trace, at)
        return
    remove_card_nb(hands, hand_n, attacker, WWW)
    if track:
        shown_nb(known, n, attacker, WWW)
    shed_nb(attacker, WWW, ldisc, pile_n, seat_stats, letter_stats)
    seat_stats[attacker, SS_COUNTER_ATTACKS] += 1
    seat_stats[winner, SS_COUNTER_ATTACKED] += 1
    ev_nb(trace, at, EV_COUNTER, attacker, winner, letter, ms_nb(best), 1, hand_n[winner], 0)
    penalty_nb(seed, game, rnd, winner, hands, hand_n, lpile, ldisc, pile_n, seat_stats, trace, at)


@borrowing
def play_round_nb(seed, game, rnd, reader, n, rules, state, piles, stats, scratch, checks, trace,
                  at, search, first_slot):
    """One round, reader's turn after reader's turn until a player has no letter card left. A turn:
    the card (and its actions), the category, the race of answers and every remise that follows,
    the winner's discards, counter-attacks; the next reader. Returns (round winner, status: OK, or
    the kernels/status.py code of what went wrong).

    The driver's arrays come in tuples: rules (rule_i, rule_f, seat_policy, seat_i, seat_f, rates =
    vocabulary x speed per seat, share, breadth, card_action), state (hands, hand_n, pending,
    restrict, pile_n, seat_rng), piles (letter pile, letter discards, category pile, category
    discards, category cards in use), stats (seat_stats, action_stats, letter_stats, game_stats),
    scratch (times, kinds, letters, wrong, hand_shares, queue, tmp, letter_times, chosen,
    share_masks) and checks (deck_counts, seen, checked 0/1). One call per round: arrays handed to a
    function cost reference counts, so nothing in a turn hands them on but the rare action cards
    and penalties (penalty_nb is compiled `borrowing`: no reference counts).

    `search`: the search players' workspace (search_nb.new_workspace_nb), or None at tables without
    a search seat and in the search's own play-outs (Numba then compiles the round without it).
    `first_slot`: -1, or (a play-out of the search) the slot the reader reads on the first card."""
    rule_i, rule_f, seat_policy, seat_i, seat_f, rates, share, breadth, card_action, prof = rules
    cat_kind, pshare, know, react, crates, _ = prof
    profiles = rule_i[R_RECALL_MODEL] == RECALL_PROFILES
    hands, hand_n, pending, restrict, pile_n, seat_rng, known = state
    lpile, ldisc, cpile, cdisc, cuse = piles
    seat_stats, action_stats, letter_stats, game_stats = stats
    (times, kinds, letters, wrong, hand_shares, queue, tmp, letter_times, chosen, share_masks,
     known_rows) = scratch
    track = kept_nb(rule_i, seat_policy, n)  # what the seats see of each other's hands
    deck_counts, seen, n_cards, checked = checks
    time_limit = rule_f[RF_TIME_LIMIT]
    tie = rule_f[RF_TIE_WINDOW]
    share_total = share_total_nb(share)
    ckind = np.int64(0)  # the profiles model: the kind of the category read
    seat_rates = rates  # vocabulary x speed per seat (x knowledge of ckind: crates, profiles)
    won = -1
    reset = True  # only a remise leaves marks (restrict) to clear before the next turn
    while won < 0:
        # ---- one reader's turn
        if reset:
            for s in range(n):
                pending[s] = -1
                restrict[s] = -1
        active = ((1 << n) - 1) & ~(1 << reader)
        remise = np.bool_(False)
        first_wrong = -1
        winner = -1
        b = 0.0
        grote = np.bool_(False)
        game_stats[GS_GROTE_LEADER] = -1
        while True:
            # the card (the first, or a remise's new one) and the action cards drawn before it
            card, queue_n = draw_card_nb(seed, game, reader, card_action, cpile, cdisc, cuse, pile_n,
                                         queue, trace, at)
            if queue_n < 0:
                return -1, INVARIANT
            won = -1
            if queue_n > 0:
                won, grote_now, status = carry_out_actions_nb(seed, game, rnd, reader, n, queue_n,
                                                              rules, state, piles, stats, queue, tmp,
                                                              known_rows, trace, at, search, remise,
                                                              card)
                grote = grote or grote_now
                if status != 0:
                    return -1, INVARIANT
            if won >= 0:  # the round ended during the actions: a remise's cards go back
                if remise:
                    take_back_nb(hands, hand_n, pending, n, known, track)
                break
            if first_slot >= 0:
                slot = first_slot
                first_slot = np.int64(-1)
            elif search is not None and seat_policy[reader] == P_SEARCH and not remise:
                slot = search_nb.search_category_nb(search, rnd, reader, n, card, grote, rules,
                                                    state, piles, trace, at)
            else:
                # opponents, or a remise's tied players; what the reader knows of their hands
                race = (hand_n, active, restrict, known[reader])
                slot = choose_category_nb(seat_rng, reader, seat_policy[reader], rules, race, n,
                                          card, np.bool_(False))
                ev_targeting_nb(trace, at, reader, seat_policy[reader], rules, race, n, card,
                                np.bool_(False))
            b = breadth[card * CATEGORIES_PER_CARD + slot]
            if profiles:
                # the seats' rates and letter shares for this category's kind; the hand shares
                # summed for another kind are stale
                ckind = cat_kind[card * CATEGORIES_PER_CARD + slot]
                for s in range(n):
                    crates[s] = rates[s] * know[s, ckind]
                    share_masks[s] = -1
                seat_rates = crates
            game_stats[GS_CATEGORIES] += 1
            if remise:
                game_stats[GS_REMISES] += 1
            ev_nb(trace, at, EV_READ, reader, card, slot, card * CATEGORIES_PER_CARD + slot,
                  np.int64(b * 100.0 + 0.5), 1 if remise else 0, 1 if grote else 0)
            best = NO_TIME
            first_wrong_t = NO_TIME
            step_wrong = -1
            # the seats are walked as bit sets, lowest seat first (the order of the draws and events)
            answered = 0  # seats with an answer within the time limit
            seats = active
            while seats:
                s = lowest_kind_nb(seats)
                seats &= seats - 1
                if profiles:
                    # the additive reaction time: the recall must come by time_limit - react[s]
                    sh = pshare[s, ckind]
                    total = cached_hand_share_nb(hands, s, sh, share_masks, hand_shares) \
                        if restrict[s] < 0 else 0.0
                    t, kind, letter = first_answer_of_share_nb(
                        seat_rng, s, hands, restrict[s], b * crates[s], sh, total,
                        seat_i[s, SI_JOKER_USE] == JOKER_WHEN_STUCK, seat_f[s, SF_JOKER_PATIENCE],
                        time_limit - react[s])
                    if t < NO_TIME:
                        t += react[s]
                else:
                    total = cached_hand_share_nb(hands, s, share, share_masks, hand_shares) \
                        if restrict[s] < 0 else 0.0
                    t, kind, letter = first_answer_of_share_nb(
                        seat_rng, s, hands, restrict[s], b * rates[s], share, total,
                        seat_i[s, SI_JOKER_USE] == JOKER_WHEN_STUCK, seat_f[s, SF_JOKER_PATIENCE],
                        time_limit)
                times[s] = t
                kinds[s] = kind
                letters[s] = letter
                if t < NO_TIME:
                    answered |= 1 << s
                    wrong[s] = 1 if is_wrong_nb(seat_rng, s, seat_f[s, SF_ERROR_RATE]) else 0
                    if wrong[s] == 0 and t < best:
                        best = t
            cutoff = best + tie if best < NO_TIME else time_limit
            game_stats[GS_RACE_MS] += ms_nb(min(cutoff, time_limit))  # the race's seconds
            tied = 0
            n_tied = 0
            caught = 0  # wrong answers said before the fastest correct one was complete
            seats = active
            while seats:
                s = lowest_kind_nb(seats)
                seats &= seats - 1
                if not (answered >> s) & 1:
                    ev_nb(trace, at, EV_PASS, s, 0, 0, 0, 0, 0, 0)
                    continue
                t = times[s]
                in_window = t <= cutoff
                if in_window:  # said before the race ended: now its letter counts
                    if profiles:
                        sh = pshare[s, ckind]
                        kinds[s], letters[s] = say_letter_with_share_nb(
                            seat_rng, s, hands, sh, kinds[s], letters[s], hand_shares[s],
                            share_total_nb(sh))
                    else:
                        kinds[s], letters[s] = say_letter_with_share_nb(
                            seat_rng, s, hands, share, kinds[s], letters[s], hand_shares[s],
                            share_total)
                    if wrong[s] == 0:
                        tied |= 1 << s
                        n_tied += 1
                    else:
                        caught |= 1 << s
                ev_nb(trace, at, EV_ANSWER, s, kinds[s], letters[s], ms_nb(t), 1 - wrong[s],
                      1 if in_window else 0, 0)
            # the caught wrong answers: the card back, a penalty
            active &= ~caught
            while caught:
                s = lowest_kind_nb(caught)
                caught &= caught - 1
                back = kinds[s]
                if pending[s] >= 0:
                    add_card_nb(hands, hand_n, s, pending[s])
                    if track:
                        returned_nb(known, n, s, pending[s])
                    pending[s] = -1
                elif track and 0 <= back < N_KINDS:  # shown with the answer, taken back
                    shown_kept_nb(known, n, s, back)
                seat_stats[s, SS_WRONG] += 1
                ev_nb(trace, at, EV_WRONG, s, back, 0, 0, 0, 0, 0)
                penalty_nb(seed, game, rnd, s, hands, hand_n, lpile, ldisc, pile_n, seat_stats,
                           trace, at)
                if times[s] < first_wrong_t:
                    first_wrong_t = times[s]
                    step_wrong = s
            if first_wrong < 0 and step_wrong >= 0:
                first_wrong = step_wrong
            if n_tied == 1:
                winner = lowest_kind_nb(tied)
                break
            if n_tied == 0:
                game_stats[GS_PASSES] += 1
                if not remise or active == 0:
                    break
            else:
                # a remise: the tied players keep their card on the table and answer a new category
                # with the same letter (a joker stays a joker)
                remise = True
                active = tied
                for s in range(n):
                    if (tied >> s) & 1 and pending[s] < 0:
                        pending[s] = kinds[s]
                        restrict[s] = kinds[s]
                        remove_card_nb(hands, hand_n, s, kinds[s])
                        if track:
                            shown_nb(known, n, s, kinds[s])
                ev_nb(trace, at, EV_REMISE, -1, tied, 0, 0, 0, 0, 0)
        if won < 0:  # the category was played to its end
            if winner >= 0:
                kind = kinds[winner]
                letter = letters[winner]
                if pending[winner] >= 0:
                    pending[winner] = -1
                else:
                    remove_card_nb(hands, hand_n, winner, kind)
                    if track:
                        shown_nb(known, n, winner, kind)
                shed_nb(winner, kind, ldisc, pile_n, seat_stats, letter_stats)
                seat_stats[winner, SS_CATEGORIES_WON] += 1
                if kind == WWW:
                    seat_stats[winner, SS_JOKERS] += 1
                ev_nb(trace, at, EV_WIN, winner, kind, letter, ms_nb(times[winner]), 0, 0, 0)
                rate = b * seat_rates[winner]
                if kind != WWW:
                    letter_share = pshare[winner, ckind, kind] if profiles else share[kind]
                    follow_ups_nb(seat_rng, winner, kind, rate * letter_share,
                                  rule_f[RF_FOLLOW_TIME], hands, hand_n, ldisc, pile_n, seat_stats,
                                  letter_stats, trace, at, n, known, track)
                if grote:
                    # Grote Kans's swing: the hand sizes around the extra cards it allows (the
                    # reader, who does not answer, and the leader when the card was carried out);
                    # once per turn, however many Grote Kans cards the turn drew
                    gk_leader = game_stats[GS_GROTE_LEADER]
                    reader_before = hand_n[reader]
                    leader_before = hand_n[gk_leader]
                    if profiles:  # the winner's own letter shares for the kind
                        grote_kans_extras_nb(seat_rng, winner, rate, pshare[winner, ckind],
                                             seat_i[winner, SI_SHED], rule_f[RF_GROTE_KANS_SECONDS],
                                             rule_i[R_GROTE_KANS_CARDS],
                                             rule_i[R_GROTE_SAME_LETTER] != 0, hands, hand_n,
                                             ldisc, pile_n, seat_stats, letter_stats, letter_times,
                                             chosen, trace, at, n, known, track)
                    else:
                        grote_kans_extras_nb(seat_rng, winner, rate, share, seat_i[winner, SI_SHED],
                                             rule_f[RF_GROTE_KANS_SECONDS],
                                             rule_i[R_GROTE_KANS_CARDS],
                                             rule_i[R_GROTE_SAME_LETTER] != 0, hands, hand_n,
                                             ldisc, pile_n, seat_stats, letter_stats, letter_times,
                                             chosen, trace, at, n, known, track)
                    action_stats[A_GROTE_KANS, AS_SELF_CHANGE] += hand_n[reader] - reader_before
                    action_stats[A_GROTE_KANS, AS_LEADER_CHANGE] += hand_n[gk_leader] - leader_before
                # a winner whose hand its win emptied: with counter_last_card off the round ends
                # at once ("Een ronde eindigt zodra een speler geen letterkaarten meer op hand
                # heeft"), no counter-attack can come
                if rule_i[R_COUNTER_ATTACKS] != 0 and (rule_i[R_COUNTER_LAST_CARD] != 0
                                                       or hand_n[winner] > 0):
                    counter_attack_nb(seed, game, rnd, reader, winner, letter, n, rule_f, seat_i,
                                      seat_f, seat_rates, b, share, hands, hand_n, lpile, ldisc,
                                      pile_n, seat_rng, seat_stats, letter_stats, trace, at,
                                      profiles, pshare, ckind, react, known, track)
            if remise:  # the others take their cards back (only a remise puts cards on the table)
                take_back_nb(hands, hand_n, pending, n, known, track)
            nxt = reader
            if first_wrong >= 0 and (rule_i[R_READER_AFTER_WRONG] == READ_WRONG_ANSWERER
                                     or winner < 0):
                nxt = first_wrong
            elif winner >= 0:
                nxt = winner
            if winner < 0:
                ev_nb(trace, at, EV_NOBODY, -1, nxt, 0, 0, 0, 0, 0)
            won = round_winner_nb(winner if winner >= 0 else reader, hand_n, pending, n)
            reader = nxt
        reset = remise
        end_turn_nb(cdisc, cuse, pile_n)
        if checked:
            if not letters_conserved_nb(deck_counts, hands, hand_n, n, pending, lpile, ldisc,
                                        pile_n, seen):
                return -1, CARDS_LOST
            if not categories_conserved_nb(n_cards, cpile, cdisc, cuse, pile_n, seen):
                return -1, CARDS_LOST
            if track and not known_held_nb(known, hands, n):
                return -1, INVARIANT
        if game_stats[GS_CATEGORIES] + game_stats[GS_ACTIONS] > MAX_TURNS:
            return -1, TOO_LONG
    return won, OK
