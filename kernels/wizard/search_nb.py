"""The Wizard search player: determinized Monte Carlo over every option of every decision.

At a decision (a bid, a card, the trump suit when it deals and a Wizard is turned) the player
deals the cards it has not seen to the other seats at random `samples` times, consistent with
what its seat knows: the cards gone and its own hand, each seat's number of cards, and the voids
the play has shown (a seat that did not follow a led suit holds none of it; under strict_void, a
seat that threw another suit holds no Wizard or Jester either). It plays every option out to the
end of the round on each deal with the heuristic player's play for every seat (the bids already
made as made, the other bids heuristic on the sampled hands), and takes the option with the best
total round score for itself. The deals are common to every option (common random numbers), so
options are compared on the same cards. Ties go to the heuristic's choice, then to the lower bid
or card.

Its random draws come from its seat's own stream rng[seat] only: one word per card dealt in a
sample, and none at a decision with a single option. Its decisions read the table's public state
and hands[seat] only, never another seat's hand.
"""
import numpy as np

from kernels.jit import njit
from kernels.wizard.bid_model_nb import add_bid_bonus_nb
from kernels.wizard.enums import FIRST_JESTER, FIRST_WIZARD, N_CARDS, VOID_SPECIAL
from kernels.wizard.policies_nb import (
    WS_ALLOWED, WS_BID_TOTALS, WS_CARD_TOTALS, WS_COUNT, WS_DEAL, WS_ORDER, WS_PLAY, WS_TRICKS,
    WS_UNSEEN, best_total_bid_nb, bid_situation_nb, bid_totals_nb, deal_unseen_nb,
    heuristic_card_nb, heuristic_trump_nb, list_cards_nb, play_out_nb,
)
from kernels.wizard.rules_nb import (
    FULL_MASK, JESTER_MASK, ONE, SPECIAL_MASK, SUIT_MASK, WIZARD_MASK, ZERO,
    lead_after_nb, lowest_card_nb, popcount_nb, round_score_nb, trick_value_nb,
)


# ---------------------------------------------------------------- what the table has shown
@njit
def note_play_nb(voids, seat, lead, card, strict_void):
    """Record what playing `card` into a trick of lead state `lead` (before the card) shows about
    the seat's hand, in voids[seat]: bit s (s = 0..3) when it is void in suit s, bit VOID_SPECIAL
    when it holds no Wizard or Jester (under strict_void, one of them would have been forced)."""
    if 0 <= lead < 4 and card < FIRST_WIZARD and card // 13 != lead:
        voids[seat] |= 1 << lead
        if strict_void:
            voids[seat] |= 1 << VOID_SPECIAL


@njit
def allowed_cards_nb(void):
    """The cards a seat with the void bits `void` may hold (FULL_MASK when nothing is known)."""
    if void == 0:
        return FULL_MASK
    a = FULL_MASK
    for s in range(4):
        if (void >> s) & 1:
            a &= ~SUIT_MASK[s]
    if (void >> VOID_SPECIAL) & 1:
        a &= ~SPECIAL_MASK
    return a


# ---------------------------------------------------------------- bids and trump
@njit
def searches_bid_nb(r, forbidden):
    """Whether the search values the bids: not in round 1 with a bid forbidden, where the other bid
    is the only legal one."""
    return not (r == 1 and forbidden >= 0)


@njit
def search_bonus_nb(r, bonus):
    """The bid bonus the search adds in round r: none in round 1, where each seat plays its only card
    as the playouts do (nothing to calibrate)."""
    return np.int64(0) if r == 1 else np.int64(bonus)


@njit
def search_bid_nb(rng, seat, hands, trump, turned, n, r, dealer, bids, hook, strict_void, samples,
                  ws_i, ws_h, bonus):
    """The seat's bid: every legal bid 0..r valued on `samples` common deals (bid_totals_nb), by
    its mean score plus `bonus` tenths of a point per trick bid (SEARCH_BONUS: the best mean score
    on playouts in which every other seat plays the heuristic is not the bid whose mean matches
    the tricks the search player then takes; the bonus calibrates it, as SAMPLER_BONUS does the
    sampler's). Not in round 1, where each seat plays its only card as the playouts do."""
    hand = hands[seat]
    pos, bsum, forbidden, h = bid_situation_nb(hand, trump, turned, n, r, seat, dealer, bids,
                                               hook)
    if not searches_bid_nb(r, forbidden):
        return h  # the only legal bid
    rng[seat] = bid_totals_nb(rng[seat], hand, trump, turned, n, r, seat, dealer, pos, bids,
                              np.int64(0), r,
                              forbidden, samples, hook, strict_void, ws_i, ws_h)
    totals = ws_i[WS_BID_TOTALS:WS_BID_TOTALS + r + 1]
    add_bid_bonus_nb(totals, np.int64(0), r, search_bonus_nb(r, bonus), samples)
    return best_total_bid_nb(totals, np.int64(0), r, forbidden, h)[0]


@njit
def search_trump_nb(rng, seat, hands, turned, n, r, dealer, bids, hook, strict_void, samples, ws_i,
                    ws_h):
    """The dealer's trump suit when a Wizard is turned: each suit is valued by its best bid's total
    (every bid 0..r, the other seats bidding heuristically before it) on the same `samples` deals
    for every suit. The hook rule's forbidden bid depends on the others' bids, so it is not left
    out here; the real bid is searched afterwards."""
    hand = hands[seat]
    h = heuristic_trump_nb(hand)
    state0 = rng[seat]
    best_s = h
    best_v = -(1 << 62)
    for k in range(4):
        suit = h if k == 0 else (k - 1 if k - 1 < h else k)  # the heuristic's suit first
        rng[seat] = bid_totals_nb(state0, hand, suit, turned, n, r, seat, dealer, np.int64(0), bids,
                                  np.int64(0), r, np.int64(-1),
                                  samples, hook, strict_void, ws_i, ws_h)
        v = best_total_bid_nb(ws_i[WS_BID_TOTALS:], np.int64(0), r, np.int64(-1), np.int64(0))[1]
        if v > best_v:
            best_v = v
            best_s = suit
    return best_s


# ---------------------------------------------------------------- cards
@njit
def distinct_options_nb(legal, settled):
    """The legal cards with equivalent ones left out: one Wizard, one Jester, and of a run of
    cards of one suit with only settled cards between them (played in earlier tricks, or turned),
    the lowest: whichever of them is played, every card still to come, and every card of the
    current trick, stands in the same place against it."""
    options = legal & ~(WIZARD_MASK | JESTER_MASK)
    wiz = legal & WIZARD_MASK
    options |= wiz & (ZERO - wiz)
    jes = legal & JESTER_MASK
    options |= jes & (ZERO - jes)
    x = legal & ~SPECIAL_MASK
    while x:
        c = lowest_card_nb(x)
        x &= x - ONE
        base = c - c % 13
        d = c - 1
        while d >= base and (settled >> np.uint64(d)) & ONE:
            d -= 1
        if d >= base and (legal >> np.uint64(d)) & ONE:
            options &= ~(ONE << np.uint64(c))
    return options


@njit
def representative_nb(card, options, legal, settled):
    """The card of `options` that stands for the legal `card` (distinct_options_nb)."""
    if (options >> np.uint64(card)) & ONE:
        return card
    if card >= FIRST_WIZARD:
        kind = WIZARD_MASK if card < FIRST_JESTER else JESTER_MASK
        return lowest_card_nb(options & kind)
    base = card - card % 13
    d = card - 1
    while d >= base:
        if (options >> np.uint64(d)) & ONE:
            return d
        if not ((settled | legal) >> np.uint64(d)) & ONE:
            break
        d -= 1
    return card


@njit
def search_card_nb(rng, seat, hands, legal, trump, n, leader, pos, lead, best, win, bids, tricks,
                   gone, trick_cards, voids, strict_void, samples, ws_i, ws_h):
    """The seat's card in the current trick, led by `leader`, where it plays at position `pos`
    (lead, best, win: the trick's lead state, winning value and winning seat so far); gone: every
    card played this round, the current trick's (trick_cards) and the turned card; voids: note_play_nb's record
    of every seat. Every distinct legal card is played out on `samples` common deals."""
    hand = hands[seat]
    settled = gone & ~trick_cards
    options = distinct_options_nb(legal, settled)
    if popcount_nb(options) == 1:
        return lowest_card_nb(options)
    h = heuristic_card_nb(hand, legal, trump, lead, best, pos, n, bids[seat] - tricks[seat], gone)
    h = representative_nb(h, options, legal, settled)
    k = popcount_nb(hand)  # tricks left, the current one included

    unseen = FULL_MASK & ~hand & ~gone
    cards = ws_i[WS_UNSEEN:WS_UNSEEN + N_CARDS]
    u = list_cards_nb(cards, unseen)
    order = ws_i[WS_ORDER:WS_ORDER + n]
    counts = ws_i[WS_COUNT:WS_COUNT + n]
    allowed = ws_h[WS_ALLOWED:WS_ALLOWED + n]
    # the other seats, the most constrained first (fewest cards to spare among those they may hold)
    m = np.int64(0)  # not a literal 0: deal_unseen_nb would be compiled for both (see play_nb)
    for o in range(n):
        q = o - leader
        if q < 0:
            q += n
        counts[o] = k - 1 if q < pos else k
        allowed[o] = allowed_cards_nb(voids[o])
        if o == seat:
            continue
        spare = popcount_nb(unseen & allowed[o]) - counts[o]
        i = m
        while i > 0 and popcount_nb(unseen & allowed[order[i - 1]]) - counts[order[i - 1]] > spare:
            order[i] = order[i - 1]
            i -= 1
        order[i] = o
        m += 1

    sampled = ws_h[WS_DEAL:WS_DEAL + n]
    play = ws_h[WS_PLAY:WS_PLAY + n]
    sim_tricks = ws_i[WS_TRICKS:WS_TRICKS + n]
    n_opt = popcount_nb(options)
    totals = ws_i[WS_CARD_TOTALS:WS_CARD_TOTALS + n_opt]
    for j in range(n_opt):
        totals[j] = 0
    state = rng[seat]
    for _ in range(samples):
        state = deal_unseen_nb(state, cards, u, order, m, counts, allowed, sampled)
        sampled[seat] = hand
        x = options
        j = 0
        while x:
            c = lowest_card_nb(x)
            x &= x - ONE
            cb = ONE << np.uint64(c)
            for o in range(n):
                play[o] = sampled[o]
                sim_tricks[o] = tricks[o]
            play[seat] = hand & ~cb
            lead2 = lead_after_nb(lead, c)
            v = trick_value_nb(c, lead2, trump)
            best2 = best
            win2 = win
            if v > best:
                best2 = v
                win2 = seat
            play_out_nb(play, n, trump, k, leader, pos + 1, lead2, best2, win2, bids, sim_tricks,
                        gone | cb, strict_void)
            totals[j] += round_score_nb(bids[seat], sim_tricks[seat])
            j += 1
    rng[seat] = state

    choice = h
    x = options
    j = 0
    best_total = -(1 << 62)
    while x:
        c = lowest_card_nb(x)
        x &= x - ONE
        if c == h:
            best_total = totals[j]
        j += 1
    x = options
    j = 0
    while x:
        c = lowest_card_nb(x)
        x &= x - ONE
        if totals[j] > best_total:
            best_total = totals[j]
            choice = c
        j += 1
    return choice
