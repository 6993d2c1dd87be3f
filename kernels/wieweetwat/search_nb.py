"""Wie Weet Wat's search player (policy `search`): determinized Monte Carlo over the reader's
choices, played out to the end of the round.

Its decisions: the category it reads from a card it drew (the first read of its turn; a remise's
new categories and the Vicieuze cirkel's own category it reads as PLAYOUT_POLICY does), and whom
Te veel keuze takes a card from (outside a remise). Its other habits (the joker, counter-attacks,
Grote Kans's extra cards) are its player parameters, as for every policy. At a decision with more
than one distinct option it draws `samples` determinizations of what it cannot see and plays every
option out in each, every seat reading by PLAYOUT_POLICY and keeping its own parameters, to the
end of the round; it takes the option with the best mean value (value below), but keeps
PLAYOUT_POLICY's own choice unless another option is better by more than noise (CONFIDENCE). Every
option sees the same determinizations and the same draws (common random numbers); categories of
equal breadth (and, under the profiles model, of the same kind) play the same and are played out
once.

What the seat knows: its own hand, every hand's size, the letter discards (shed cards are shown),
the category and action cards drawn (the category discards and the turn's cards), the rounds won,
the rules and every player's parameters (skill and habits: as opponents one has played before;
under the profiles model also their knowledge of each kind and reaction times).
Hidden: the other hands, the letter pile, the category pile's order, and every future recall time.
A determinization deals the unseen letter cards (the deck minus its hand and the discards, listed
in kind order, so that the list does not depend on where the hidden cards really are) at random
into the other hands (their sizes kept) and the letter pile, shuffles the category pile's cards
(their set is public, listed in card order), and seeds the play-out's streams, letter and category
reshuffles included, from words of the seat's own stream: the other seats' streams, the real piles
and the real deal streams are never touched. The cards it knows another seat holds (known_nb.py: a
Rotonde, a Pechvogel, a card taken, a remise's card taken back) are dealt to that seat first. In
the play-out it reads with that knowledge; the other seats start it knowing nothing of the hands (a
simplification: what they saw, the searcher does not fully know) and learn from there.

The value of a play-out: the seat's chance to win the game once the round is over, with every
later round won by each player alike (round_values_nb): 1 or 0 when the round ends the game. A
play-out still running after HORIZON turns (never in a normal game) is valued from the hand sizes.

The play-outs run rules_nb's round (play_round_nb, with no workspace: they do not search), which
calls this module back at the search's decisions: the two import each other as modules.
"""
import numpy as np

from kernels.jit import borrowing, inline, kernel, njit
from kernels.rng_nb import next_word_nb, shuffle_from_nb
from kernels.searching_nb import workspace_chooser
from kernels.status import OK
from kernels.wieweetwat import rules_nb  # a module: play_round_nb calls back into this one
from kernels.wieweetwat.actions_nb import opponents_nb, seat_after_nb, take_card_nb
from kernels.wieweetwat.enums import (
    CATEGORIES_PER_CARD,
    EV_SEARCH,
    GS_CATEGORIES,
    HAND_WIDTH,
    MAX_PLAYERS,
    MAX_TURNS,
    N_KINDS,
    PLAYOUT_POLICY,
    PLAYS_ALIKE,
    PN_CAT_DISCARDS,
    PN_CAT_IN_USE,
    PN_CAT_LAZY,
    PN_CAT_PILE,
    PN_LETTER_DISCARDS,
    PN_LETTER_LAZY,
    PN_LETTER_PILE,
    R_RECALL_MODEL,
    R_ROUNDS_TO_WIN,
    RECALL_PROFILES,
    A_GROTE_KANS,
    SI_SAMPLES,
    SI_TARGET,
)
from kernels.wieweetwat.known_nb import given_to_nb, kept_nb, taken_from_nb
from kernels.wieweetwat.piles_nb import add_card_nb
from kernels.wieweetwat.policies_nb import choose_category_nb, choose_target_nb
from kernels.wieweetwat.table_nb import MAX_CAT_CARDS, MAX_LETTER_CARDS, new_table_nb
from kernels.wieweetwat.trace_nb import ev_nb

# An option other than PLAYOUT_POLICY's is taken only if its mean gain is above this many standard
# errors of it (the gains are paired: every option sees the same determinizations)
CONFIDENCE = 1.0
# A play-out still running after this many turns (categories and actions) is valued from the hand
# sizes: rounds last about 15 turns, so only strange rules reach it
HORIZON = 400
MAX_OPTIONS = MAX_PLAYERS  # four categories, or the opponents of Te veel keuze


@njit
def new_workspace_nb():
    """The search players' workspace, made once per call of the driver: (the play-out table as a
    one-row record array, the options' gains and squared gains, the value of each round winner,
    the rounds won, the unseen letter cards, a per-category-card mark, the options, the number
    of category cards, room for the rounds each seat still needs and a counter)."""
    return (new_table_nb(), np.zeros(MAX_OPTIONS, np.float64), np.zeros(MAX_OPTIONS, np.float64),
            np.zeros(MAX_PLAYERS, np.float64), np.zeros(MAX_PLAYERS, np.int64),
            np.zeros(MAX_LETTER_CARDS, np.int64), np.zeros(MAX_CAT_CARDS, np.int64),
            np.zeros(MAX_OPTIONS, np.int64), np.zeros(1, np.int64),
            np.zeros(2 * MAX_PLAYERS, np.int64))


# the workspace, or None at a table without a search seat, chosen by type (kernels/searching_nb.py)
workspace_for_nb = workspace_chooser(new_workspace_nb)


@njit
def set_up_nb(search, rules, deck_counts, n_cards):
    """Copy the arm's letter deck and size of the category deck into the workspace; every seat of
    the play-out table reads by PLAYOUT_POLICY."""
    sim = search[0][0]
    sim["deck_counts"][:] = deck_counts
    sim["policy"][:] = PLAYOUT_POLICY
    search[8][0] = n_cards


@njit
def note_score_nb(search, score):
    """The rounds won so far (the driver calls this before each round)."""
    search[4][:] = score[:MAX_PLAYERS]


# ------------------------------------------------------------------------------ values

@borrowing
def race_nb(need, digits, p, n):
    """The chance that seat p is the first to win need[p] more rounds (every need >= 1) when each
    round is won by each of the n players alike: the sum over the other seats' wins c_q < need[q]
    before p's last win of the multinomial chance of that sequence."""
    others = 0
    for q in range(n):
        if q != p:
            others += 1
    digits[:] = 0  # c_q of the other seats, a mixed-radix counter
    total = 0.0
    inv = 1.0 / n
    while True:
        c = 0
        log_w = 0.0
        k = 0
        for q in range(n):
            if q != p:
                c += digits[k]
                log_w -= _log_factorial_nb(digits[k])
                k += 1
        m = need[p] - 1 + c
        log_w += _log_factorial_nb(m) - _log_factorial_nb(need[p] - 1)
        total += np.exp(log_w + (m + 1) * np.log(inv))
        k = 0
        q = 0
        while k < others:  # the next digits
            while q == p:
                q += 1
            digits[k] += 1
            if digits[k] < need[q]:
                break
            digits[k] = 0
            k += 1
            q += 1
        if k == others:
            return total


@borrowing
def _log_factorial_nb(k):
    total = 0.0
    for i in range(2, k + 1):
        total += np.log(i)
    return total


@borrowing
def round_values_nb(search, p, n, rounds_to_win):
    """values[w]: seat p's chance to win the game if seat w wins this round (round winners of later
    rounds drawn alike): 1 or 0 when w's round ends the game."""
    values = search[3]
    score = search[4]
    need = search[9][:MAX_PLAYERS]
    digits = search[9][MAX_PLAYERS:]
    for w in range(n):
        done = False
        for q in range(n):
            need[q] = rounds_to_win - score[q] - (1 if q == w else 0)
            done = done or need[q] <= 0
        if done:
            values[w] = 1.0 if need[p] <= 0 else 0.0
        else:
            values[w] = race_nb(need, digits, p, n)


@borrowing
def horizon_value_nb(values, hand_n, n):
    """A play-out stopped at HORIZON: the round winner's values weighted by 1 / cards in hand."""
    total = 0.0
    weight = 0.0
    for q in range(n):
        w = 1.0 / max(hand_n[q], 1)
        total += w * values[q]
        weight += w
    return total / weight


# ------------------------------------------------------------------------------ determinizations

@borrowing
def determinize_nb(search, word, p, n, main, first_left, grote, rules, state, piles):
    """Set the play-out table to a deal of what seat p cannot see, drawn from `word` (a word of p's
    stream), at the start of a reader's turn: the hands as the seat sees them with the unseen
    letter cards dealt into the other hands and the letter pile, the category pile's cards shuffled
    with the rest of this turn on top (Grote Kans if it was drawn, the action cards from number
    `first_left` of the turn not yet carried out, then the category card `main`), the turn's other
    cards discarded; the play-out's seat streams drawn from the word too. Returns the play-out's
    seed (for its reshuffles)."""
    hands, hand_n, pending, restrict, pile_n, seat_rng, known = state
    lpile, ldisc, cpile, cdisc, cuse = piles
    card_action = rules[8]
    sim = search[0][0]
    s_known = sim["known"]
    unseen = search[5]
    mark = search[6]
    n_cards = search[8][0]
    s_hands = sim["hands"]
    s_hand_n = sim["hand_n"]
    s_pile_n = sim["pile_n"]
    s_lpile = sim["lpile"]
    s_cpile = sim["cpile"]
    s_cdisc = sim["cdisc"]
    counts = sim["tmp"]
    state_word = word
    # the unseen letter cards, in kind order
    for kind in range(N_KINDS):
        counts[kind] = sim["deck_counts"][kind] - hands[p, kind]
    for i in range(pile_n[PN_LETTER_DISCARDS]):
        counts[ldisc[i]] -= 1
        sim["ldisc"][i] = ldisc[i]
    # what p knows (known to be in a hand, so not among the cards dealt at random)
    for q in range(n):
        for o in range(n):
            for j in range(HAND_WIDTH):
                s_known[o, q, j] = known[p, q, j] if o == p and q != p else 0
        if q != p:
            for kind in range(N_KINDS):
                counts[kind] -= known[p, q, kind]
    u = np.int64(0)  # not a Literal: shuffle_from_nb compiles once
    for kind in range(N_KINDS):
        for _ in range(counts[kind]):
            unseen[u] = kind
            u += 1
    state_word = shuffle_from_nb(state_word, unseen, u)
    k = 0
    for q in range(n):
        sim["pending"][q] = -1
        sim["restrict"][q] = -1
        if q == p:
            for kind in range(HAND_WIDTH):
                s_hands[q, kind] = hands[q, kind]
            s_hand_n[q] = hand_n[q]
            continue
        for kind in range(HAND_WIDTH):
            s_hands[q, kind] = 0
        s_hand_n[q] = 0
        for kind in range(N_KINDS):
            for _ in range(known[p, q, kind]):
                add_card_nb(s_hands, s_hand_n, q, kind)
        while s_hand_n[q] < hand_n[q]:
            add_card_nb(s_hands, s_hand_n, q, unseen[k])
            k += 1
    for i in range(k, u):
        s_lpile[i - k] = unseen[i]
    for i in range(pile_n.shape[0]):
        s_pile_n[i] = pile_n[i]
    s_pile_n[PN_LETTER_PILE] = u - k
    s_pile_n[PN_LETTER_LAZY] = 0  # both piles are shuffled in full here
    s_pile_n[PN_CAT_LAZY] = 0
    # the category pile: its set in card order, shuffled; then this turn's cards still to come
    for c in range(n_cards):
        mark[c] = 0
    for i in range(pile_n[PN_CAT_DISCARDS]):
        mark[cdisc[i]] = 1
        s_cdisc[i] = cdisc[i]
    for i in range(pile_n[PN_CAT_IN_USE]):
        mark[cuse[i]] = 1
    m = np.int64(0)
    for c in range(n_cards):
        if mark[c] == 0:
            s_cpile[m] = c
            m += 1
    state_word = shuffle_from_nb(state_word, s_cpile, m)
    d = pile_n[PN_CAT_DISCARDS]
    s_cpile[m] = main
    m += 1
    grote_card = -1
    actions = 0
    for i in range(pile_n[PN_CAT_IN_USE]):  # the action cards in the order drawn = the queue's
        c = cuse[i]
        if card_action[c] >= 0:
            actions += 1
    k = actions
    for i in range(pile_n[PN_CAT_IN_USE] - 1, -1, -1):
        c = cuse[i]
        if c == main:
            continue
        if card_action[c] >= 0:
            k -= 1
            if k >= first_left:
                s_cpile[m] = c
                m += 1
                continue
            if grote and grote_card < 0 and card_action[c] == A_GROTE_KANS:
                grote_card = c
                continue
        s_cdisc[d] = c
        d += 1
    if grote_card >= 0:
        s_cpile[m] = grote_card
        m += 1
    s_pile_n[PN_CAT_PILE] = m
    s_pile_n[PN_CAT_DISCARDS] = d
    s_pile_n[PN_CAT_IN_USE] = 0
    for q in range(n):
        state_word, r = next_word_nb(state_word)
        sim["rng"][q] = r
    sim["game_stats"][:] = 0
    sim["game_stats"][GS_CATEGORIES] = MAX_TURNS - HORIZON
    state_word, r = next_word_nb(state_word)
    return np.int64(r >> np.uint64(1))


@borrowing
def play_out_nb(search, sim_seed, p, n, rnd, reader, rules, first_slot):
    """Seat p's value of the play-out table's round played to its end from a reader's turn."""
    sim = search[0][0]
    rule_i, rule_f, seat_policy, seat_i, seat_f, rates, share, breadth, card_action, prof = rules
    # the profiles model: the game's profiles; its per-category rates (prof[4]) are scratch that
    # the round fills when it reads a category, after any search of the reader's turn
    sim_rules = (rule_i, rule_f, sim["policy"], seat_i, seat_f, rates, share, breadth, card_action,
                 prof)
    state = (sim["hands"], sim["hand_n"], sim["pending"], sim["restrict"], sim["pile_n"],
             sim["rng"], sim["known"])
    piles = (sim["lpile"], sim["ldisc"], sim["cpile"], sim["cdisc"], sim["cuse"])
    stats = (sim["seat_stats"], sim["action_stats"], sim["letter_stats"], sim["game_stats"])
    scratch = (sim["times"], sim["kinds"], sim["letters"], sim["wrong"], sim["hand_shares"],
               sim["queue"], sim["tmp"], sim["letter_times"], sim["chosen"], sim["share_masks"],
               sim["known_rows"])
    checks = (sim["deck_counts"], sim["seen"], search[8][0], np.int64(0))
    won, status = rules_nb.play_round_nb(sim_seed, np.int64(0), rnd, reader, n, sim_rules, state,
                                         piles, stats, scratch, checks, None, sim["trace_n"], None,
                                         first_slot)
    if status == OK and won >= 0:
        return search[3][won]
    return horizon_value_nb(search[3], sim["hand_n"], n)


@borrowing
def best_option_nb(search, n_opts, heuristic, samples):
    """PLAYOUT_POLICY's option `heuristic`, unless another option's mean gain over it is the
    largest and above CONFIDENCE standard errors (options marked -1 in the workspace's list play
    as another and were not played out)."""
    gain = search[1]
    spread = search[2]
    best = heuristic
    best_gain = 0.0
    for i in range(n_opts):
        if i == heuristic or search[7][i] < 0:
            continue
        mean = gain[i] / samples
        variance = max(spread[i] / samples - mean * mean, 0.0)
        if mean > best_gain and mean > CONFIDENCE * np.sqrt(variance / samples):
            best, best_gain = i, mean
    return best


# ------------------------------------------------------------------------------ the decisions

@inline
def plays_alike_nb(rules, a, b):
    """Whether categories a and b play the same games: the same breadth, and under the profiles
    model the same kind."""
    if rules[7][a] != rules[7][b]:
        return False
    return rules[0][R_RECALL_MODEL] != RECALL_PROFILES or rules[9][0][a] == rules[9][0][b]


@borrowing
def search_category_nb(search, rnd, reader, n, card, grote, rules, state, piles, trace, at):
    """The slot (0..3) the search reader reads from `card`, the first card of its turn (the action
    cards before it carried out; `grote`: a Grote Kans among them). A trace gets its estimates
    (EV_SEARCH) when it searched."""
    seat_rng = state[5]
    seat_i = rules[3]
    opts = search[7]
    first = card * CATEGORIES_PER_CARD
    heuristic = choose_category_nb(seat_rng, reader, PLAYOUT_POLICY, rules,
                                   (state[1], opponents_nb(reader, n), state[3], state[6][reader]),
                                   n, card,
                                   np.bool_(False))
    distinct = 0
    for slot in range(CATEGORIES_PER_CARD):  # -1: plays as an earlier slot it plays alike
        opts[slot] = slot
        for other in range(slot):
            if plays_alike_nb(rules, first + other, first + slot):
                opts[slot] = -1
                break
        if opts[slot] >= 0:
            distinct += 1
    if distinct == 1:
        return heuristic
    opts[heuristic] = heuristic
    for slot in range(CATEGORIES_PER_CARD):  # the heuristic's slot stands for its equals
        if slot != heuristic and plays_alike_nb(rules, first + slot, first + heuristic):
            opts[slot] = -1
    samples = seat_i[reader, SI_SAMPLES]
    round_values_nb(search, reader, n, rules[0][R_ROUNDS_TO_WIN])
    gain = search[1]
    spread = search[2]
    gain[:] = 0.0
    spread[:] = 0.0
    for _ in range(samples):
        seat_rng[reader], word = next_word_nb(seat_rng[reader])
        seed = determinize_nb(search, word, reader, n, card, np.int64(1 << 30), grote, rules, state, piles)
        base = play_out_nb(search, seed, reader, n, rnd, reader, rules, heuristic)
        for slot in range(CATEGORIES_PER_CARD):
            if opts[slot] < 0 or slot == heuristic:
                continue
            determinize_nb(search, word, reader, n, card, np.int64(1 << 30), grote, rules, state, piles)
            d = play_out_nb(search, seed, reader, n, rnd, reader, rules, slot) - base
            gain[slot] += d
            spread[slot] += d * d
    ev_search_nb(trace, at, reader, search, heuristic, samples)
    return best_option_nb(search, np.int64(CATEGORIES_PER_CARD), heuristic, samples)


@borrowing
def gain_row_nb(search, slot, heuristic, samples):
    """A slot's mean gain over the heuristic's slot in a trace row: x 10,000, whole; PLAYS_ALIKE for
    a slot that plays as another and was not played out."""
    if slot == heuristic:
        return np.int64(0)
    if search[7][slot] < 0:
        return np.int64(PLAYS_ALIKE)
    return np.int64(np.floor(search[1][slot] / samples * 10000.0 + 0.5))


@borrowing
def ev_search_nb(trace, at, reader, search, heuristic, samples):
    """The trace's row saying what the search weighed (EV_SEARCH); nothing in a batch."""
    if trace is None:
        return
    ev_nb(trace, at, EV_SEARCH, reader, heuristic, gain_row_nb(search, 0, heuristic, samples),
          gain_row_nb(search, 1, heuristic, samples), gain_row_nb(search, 2, heuristic, samples),
          gain_row_nb(search, 3, heuristic, samples), samples)


@borrowing
def main_card_nb(piles, pile_n, card_action):
    """The category card of the turn: the first regular card drawn in it (action cards come before
    it; a Vicieuze cirkel's own card after)."""
    cuse = piles[4]
    for i in range(pile_n[PN_CAT_IN_USE]):
        if card_action[cuse[i]] < 0:
            return cuse[i]
    return -1


@borrowing
def search_target_nb(search, rnd, reader, n, done, grote, rules, state, piles):
    """Te veel keuze: the opponent the search reader takes a card from, outside a remise, when
    `done` action cards of the turn have been carried out (this one included)."""
    hands, hand_n, pending, restrict, pile_n, seat_rng, known = state
    seat_i = rules[3]
    heuristic_seat = choose_target_nb(seat_rng, seat_i[reader, SI_TARGET], reader, hand_n, n)
    opts = search[7]
    n_opts = np.int64(0)
    heuristic = np.int64(-1)
    for k in range(1, n):  # the opponents the heuristic may take from (same floor)
        q = seat_after_nb(reader, k, n)
        if hand_n[q] == 0:
            continue
        opts[n_opts] = q
        if q == heuristic_seat:
            heuristic = n_opts
        n_opts += 1
    floor = 1
    for i in range(n_opts):
        if hand_n[opts[i]] >= 2:
            floor = 2
    j = np.int64(0)
    for i in range(n_opts):
        if hand_n[opts[i]] >= floor:
            if opts[i] == heuristic_seat:
                heuristic = j
            opts[j] = opts[i]
            j += 1
    n_opts = j
    main = main_card_nb(piles, pile_n, rules[8])
    if n_opts <= 1 or heuristic < 0 or main < 0:
        return heuristic_seat
    samples = seat_i[reader, SI_SAMPLES]
    round_values_nb(search, reader, n, rules[0][R_ROUNDS_TO_WIN])
    gain = search[1]
    spread = search[2]
    gain[:] = 0.0
    spread[:] = 0.0
    sim = search[0][0]
    for _ in range(samples):
        seat_rng[reader], word = next_word_nb(seat_rng[reader])
        base = 0.0
        for i in range(-1, n_opts):  # the heuristic's option first
            if i == heuristic:
                continue
            option = heuristic if i < 0 else i
            seed = determinize_nb(search, word, reader, n, main, done, grote, rules, state, piles)
            kind = take_card_nb(sim["rng"], sim["hands"], sim["hand_n"], reader, opts[option], None,
                                sim["trace_n"])
            if kind >= 0 and kept_nb(rules[0], sim["policy"], n):
                taken_from_nb(sim["known"], n, reader, opts[option], kind)
                given_to_nb(sim["known"], opts[option], reader, kind)
            v = play_out_nb(search, seed, reader, n, rnd, reader, rules, np.int64(-1))
            if i < 0:
                base = v
            else:
                gain[i] += v - base
                spread[i] += (v - base) * (v - base)
    return opts[best_option_nb(search, n_opts, heuristic, samples)]


@kernel
def decide_nb(target, search, rnd, reader, n, card, done, grote, rules, state, piles):
    """A probe for the tests (cached, so a warm suite does not compile the search again): the
    search reader's Te veel keuze target when `target`, else its category slot on `card`."""
    if target:
        return search_target_nb(search, rnd, reader, n, done, grote, rules, state, piles)
    return search_category_nb(search, rnd, reader, n, card, grote, rules, state, piles, None,
                              np.zeros(1, np.int64))
