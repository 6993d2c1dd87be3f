"""Wizard policies, chosen by integer id (enums.P_*) inside the kernel.

Every decision sees only what its seat can know: its own hand, the turned card and trump, the bids
made so far, the tricks taken so far, the cards already played (`gone`: played cards plus the turned
card) and the current trick (its lead state and the value of the card now winning it).

random     uniform legal bid 0..r, uniform legal card, uniform trump suit.
heuristic  bids for the best expected score given each card's chance of taking a trick, measured
           by self-play per player count, round size, position and card class, times a bid factor
           per player count, round size, turned card's kind and position that makes the mean bid
           the mean tricks (bid_model_nb, bid_tables.py); plays to make the bid exactly, taking needed tricks with a Wizard
           while another Wizard could still beat it later; picks the trump suit it holds most of.
sampler    heuristic play and trump choice; bids by Monte Carlo: deals the unseen cards at random to
           the other seats SAMPLER_DEALS times, plays each deal out with heuristic play for the
           candidate bids around the heuristic bid, and takes the bid with the best mean score.

The Monte Carlo section (deals of the unseen cards, heuristic playouts, bid values) also serves
the search player, kernels/wizard/search_nb.py.
"""
import numpy as np

from kernels.jit import njit
from kernels.rng_nb import next_word_nb, uniform_nb
from kernels.wizard.bid_model_nb import (
    add_bid_bonus_nb, best_bid_nb, bonus_kind_nb, expected_tricks_nb, turn_kind_nb,
)
from kernels.wizard.bid_tables import BID_FACTOR, SAMPLER_BONUS, TRICK_CHANCE
from kernels.wizard.enums import (
    FIRST_JESTER, FIRST_WIZARD, LEAD_NONE, MIN_PLAYERS, N_CARDS, P_BROKEN, P_RANDOM, P_SAMPLER,
    SAMPLER_DEALS,
    SAMPLER_SPREAD, TV_WIZARD,
)
from kernels.wizard.rules_nb import (
    FULL_MASK, ONE, SUIT_MASK, WIZARD_MASK, ZERO, forbidden_bid_nb, higher_in_suit_nb, lead_after_nb, legal_mask_nb,
    lowest_card_nb, nth_card_nb, popcount_nb, round_score_nb, trick_value_nb,
)


# ---------------------------------------------------------------- random
@njit
def seat_word_nb(rng, seat):
    """64 random bits from seat `seat`'s own stream, whose state is rng[seat] (see play_nb)."""
    rng[seat], u = next_word_nb(rng[seat])
    return u


@njit
def random_card_nb(u, legal):
    """A uniform legal card, from the random word u."""
    return nth_card_nb(legal, uniform_nb(u, popcount_nb(legal)))


@njit
def random_bid_nb(u, r, forbidden):
    """A uniform legal bid 0..r (skipping the one the hook rule forbids), from the random word u."""
    if forbidden < 0:
        return uniform_nb(u, r + 1)
    b = uniform_nb(u, r)
    if b >= forbidden:
        b += 1
    return b


# ---------------------------------------------------------------- heuristic
@njit
def hand_estimate_nb(hand, trump, n, pos=0):
    """Expected tricks of a hand as dealt (its size is the round's) for the seat `pos` places after
    the leader: the sum of its cards' chances in the self-play table (bid_model_nb)."""
    return expected_tricks_nb(TRICK_CHANCE, hand, trump, n, pos)


@njit
def heuristic_bid_nb(hand, trump, turned, n, r, pos, bid_sum_before, forbidden):
    """The legal bid with the best expected score under the self-play table's per-card chances
    and bid factors (bid_model_nb); `turned`: the card turned for trump (-1 none), whose kind picks
    the factor. bid_sum_before is not used: the table's chances already assume the others bid and
    play as this policy does."""
    return best_bid_nb(TRICK_CHANCE, BID_FACTOR, hand, trump, turn_kind_nb(turned), n, r, pos,
                       forbidden)


@njit
def heuristic_trump_nb(hand):
    """The suit with the most cards in hand (ties: higher rank sum, then the lower suit)."""
    best = 0
    best_key = -1
    for s in range(4):
        m = hand & SUIT_MASK[s]
        key = popcount_nb(m) * 1000
        x = m
        while x:
            key += lowest_card_nb(x) - 13 * s + 1
            x &= x - ONE
        if key > best_key:
            best_key = key
            best = s
    return best


@njit
def strength_nb(card, trump):
    """Static strength for choosing which card to shed or keep: Jester 0, off-suit 1..13,
    trump 20..32, Wizard 40."""
    if card >= FIRST_JESTER:
        return 0
    if card >= FIRST_WIZARD:
        return 40
    s = card // 13
    k = card - 13 * s
    if s == trump:
        return 20 + k
    return 1 + k


@njit
def is_boss_nb(card, hand, gone):
    """No higher card of the suit is still unseen (outside own hand and the cards gone)."""
    return (higher_in_suit_nb(card) & ~(hand | gone)) == ZERO


@njit
def heuristic_card_nb(hand, legal, trump, lead, best, pos, n, need, gone):
    """Play to make the bid exactly. need = bid - tricks taken so far.

    A Wizard held is a sure trick only once no other Wizard is unseen: until then one played before
    it in a trick beats it. So when the Wizards held cover the tricks still needed and another
    Wizard may come, a Wizard takes the trick now while no Wizard is in it (unless the seat plays
    last and a cheaper card wins).
    Wanting more tricks than sure ones: lead the surest winner; follow with the cheapest winning
    card when last, the strongest non-Wizard winner otherwise (a Wizard when only it wins); a trick
    that cannot be won gets a Jester (it never takes a trick) or else the weakest card.
    Wanting no more tricks: lead low (a Jester first); follow with the highest card that already
    loses (it can no longer win the trick), keeping Jesters for later; if every card wins, play the
    lowest when others follow, the highest when last.
    """
    wizards = hand & WIZARD_MASK
    nwiz = popcount_nb(wizards)
    rival = (WIZARD_MASK & ~(hand | gone)) != ZERO  # a Wizard neither held nor seen
    sure = 0 if rival else nwiz
    want = need > sure
    wizard_now = want and 0 < need <= nwiz and best < TV_WIZARD
    choice = -1
    if pos == 0:
        if wizard_now:
            return lowest_card_nb(wizards)
        score = -1000
        x = legal
        while x:
            c = lowest_card_nb(x)
            x &= x - ONE
            if c >= FIRST_JESTER:
                v = -1 if want else 100
            elif c >= FIRST_WIZARD:
                v = 90 if want else -50
            else:
                s = c // 13
                k = c - 13 * s
                boss = is_boss_nb(c, hand, gone)
                if want:
                    if s == trump:
                        v = (95 if boss else 30) + k
                    else:
                        v = (60 if boss else 0) + k
                else:
                    v = 50 - k - (30 if s == trump else 0)
            if v > score:
                score = v
                choice = c
        return choice
    last = pos == n - 1
    if want:
        win_c = -1
        win_key = -1000
        dump_c = -1
        dump_key = 1000
        x = legal
        while x:
            c = lowest_card_nb(x)
            x &= x - ONE
            v = trick_value_nb(c, lead_after_nb(lead, c), trump)
            if v > best:
                # a winner now; last: cheapest; else strongest non-Wizard (Wizard only if nothing else)
                if last:
                    key = -v
                else:
                    key = v if c < FIRST_WIZARD else 0
                if key > win_key:
                    win_key = key
                    win_c = c
            else:
                key = -1 if c >= FIRST_JESTER else strength_nb(c, trump)
                if key < dump_key:
                    dump_key = key
                    dump_c = c
        if wizard_now and not (last and 0 <= win_c < FIRST_WIZARD):
            return lowest_card_nb(wizards)
        return win_c if win_c >= 0 else dump_c
    lose_c = -1
    lose_key = -1000
    hi_c = -1
    hi_key = -1
    lo_c = -1
    lo_key = 1000
    x = legal
    while x:
        c = lowest_card_nb(x)
        x &= x - ONE
        v = trick_value_nb(c, lead_after_nb(lead, c), trump)
        st = strength_nb(c, trump)
        if v <= best:
            # loses now and forever (later cards only raise the bar); keep Jesters for later, and
            # a Wizard (beaten by an earlier Wizard) while it is still a needed sure trick
            if c >= FIRST_JESTER:
                key = 0
            elif c >= FIRST_WIZARD and need > 0:
                key = -1
            else:
                key = st
            if key > lose_key:
                lose_key = key
                lose_c = c
        else:
            if st > hi_key:
                hi_key = st
                hi_c = c
            if v < lo_key:
                lo_key = v
                lo_c = c
    if lose_c >= 0:
        return lose_c
    return hi_c if last else lo_c


# ---------------------------------------------------------------- Monte Carlo (sampler, search)
# Workspace layout shared by the Monte Carlo players (the search player of search_nb too):
# ws_i (int64): [0:60] the unseen cards, in the order the last deal left them; [64:70] simulated
# bids; [72:78] simulated tricks; [80:86] the order in which seats are dealt; [88:94] cards to deal
# per seat; [96:128] score totals per candidate bid; [128:192] score totals per candidate card.
# ws_h (uint64): [0:6] a sampled deal; [8:14] the hands of a playout; [16:22] the cards each seat
# may hold (FULL_MASK: any).
WS_UNSEEN = 0
WS_BIDS = 64
WS_TRICKS = 72
WS_ORDER = 80
WS_COUNT = 88
WS_BID_TOTALS = 96
WS_CARD_TOTALS = 128
WS_I_SIZE = 192
WS_DEAL = 0
WS_PLAY = 8
WS_ALLOWED = 16
WS_H_SIZE = 24


@njit
def finish_trick_nb(hands, n, leader, pos, lead, best, win, win_c, trump, bids, tricks, gone,
                    strict_void):
    """Play the rest of a trick led by `leader` from position `pos` on (lead, best, win, win_c: its
    lead state, winning value, seat and card so far) with heuristic play for every seat (hands are
    consumed, the winner's trick counted). Returns (winning seat, winning card, gone with the
    trick's cards added)."""
    s = leader + pos
    if s >= n:
        s -= n
    for p in range(pos, n):
        h = hands[s]
        legal = legal_mask_nb(h, lead, strict_void)
        c = heuristic_card_nb(h, legal, trump, lead, best, p, n, bids[s] - tricks[s], gone)
        b = ONE << np.uint64(c)
        hands[s] = h & ~b
        gone |= b
        lead = lead_after_nb(lead, c)
        v = trick_value_nb(c, lead, trump)
        if v > best:
            best = v
            win = s
            win_c = c
        s += 1
        if s == n:
            s = 0
    tricks[win] += 1
    return win, win_c, gone


@njit
def heuristic_trick_nb(hands, n, leader, trump, bids, tricks, gone, strict_void):
    """Play one trick with heuristic play for every seat (hands are consumed, the winner's trick
    counted). Returns (winning seat, winning card, gone with the trick's cards added)."""
    return finish_trick_nb(hands, n, leader, np.int64(0), np.int64(LEAD_NONE), np.int64(-1), leader,
                           np.int64(-1), trump, bids, tricks,
                           gone, strict_void)


@njit
def play_out_nb(hands, n, trump, tricks_left, leader, pos, lead, best, win, bids, tricks, gone,
                strict_void):
    """Play a round out with heuristic play for every seat: `tricks_left` (>= 1) tricks, the first
    of them the current one, led by `leader`, with its cards before position `pos` already played
    (lead, best, win: its lead state, winning value and winning seat so far; pos 0: a fresh trick).
    hands are consumed and tricks counted on, in place; gone holds every card out of play."""
    leader, _c, gone = finish_trick_nb(hands, n, leader, pos, lead, best, win, np.int64(-1), trump,
                                       bids, tricks, gone, strict_void)
    for _ in range(tricks_left - 1):
        leader, _c, gone = heuristic_trick_nb(hands, n, leader, trump, bids, tricks, gone,
                                              strict_void)
    return tricks


@njit
def list_cards_nb(cards, x):
    """Write the cards of the set x into cards[0:], lowest first; return how many."""
    u = 0
    while x:
        cards[u] = lowest_card_nb(x)
        x &= x - ONE
        u += 1
    return u


@njit
def deal_unseen_nb(state, cards, u, order, k, counts, allowed, hands):
    """Deal hidden cards at random: seats order[0..k), in that order, get counts[seat] cards each
    from cards[0:u] (the rest stays undealt), each card uniform among those left that the seat may
    hold (allowed[seat]: a card set, FULL_MASK for any); hands[seat] receives them. cards[0:u] is
    permuted in place (a partial Fisher-Yates shuffle). Should no allowed card be left (voids that
    overlap, dealt to the most constrained seat first, rarely leave one short), the seat takes any
    card left. Returns the stream state after its draws: one word per card dealt."""
    i = 0
    for q in range(k):
        o = order[q]
        a = allowed[o]
        m = ZERO
        for _ in range(counts[o]):
            state, w = next_word_nb(state)
            j = i
            if a == FULL_MASK:
                j = i + uniform_nb(w, u - i)
            else:
                ok = np.int64(0)
                for t in range(i, u):
                    if (a >> np.uint64(cards[t])) & ONE:
                        ok += 1
                if ok == 0:
                    j = i + uniform_nb(w, u - i)
                else:
                    kth = uniform_nb(w, ok)
                    for t in range(i, u):
                        if (a >> np.uint64(cards[t])) & ONE:
                            if kth == 0:
                                j = t
                                break
                            kth -= 1
            c = cards[j]
            cards[j] = cards[i]
            cards[i] = c
            m |= ONE << np.uint64(c)
            i += 1
        hands[o] = m
    return state


@njit
def bid_position_nb(seat, dealer, n):
    """Where `seat` bids (and plays in the first trick): 0 for the dealer's left, n-1 the dealer."""
    pos = seat - dealer - 1
    if pos < 0:
        pos += n
    return pos


@njit
def bid_situation_nb(hand, trump, turned, n, r, seat, dealer, bids, hook):
    """What a bidder knows when its turn to bid comes: (its bid position, the sum of the bids
    made before it, the bid the hook rule forbids it or -1, the heuristic's bid)."""
    pos = bid_position_nb(seat, dealer, n)
    bsum = np.int64(0)  # int64 from the start: a literal 0 would compile its callees twice
    s = dealer + 1 if dealer + 1 < n else 0
    for _ in range(pos):
        bsum += bids[s]
        s = s + 1 if s + 1 < n else 0
    forbidden = forbidden_bid_nb(r, bsum, seat == dealer, hook)
    return pos, bsum, forbidden, heuristic_bid_nb(hand, trump, turned, n, r, pos, bsum, forbidden)


@njit
def bid_totals_nb(state, hand, trump, turned, n, r, seat, dealer, made, bids, lo, hi, skip, deals,
                  hook, strict_void, ws_i, ws_h):
    """Monte Carlo value of the bids lo..hi of `seat` (the bid `skip` left out), for the sum of its
    round scores over `deals` random deals of the cards it has not seen (its hand and the turned
    card are seen) to the other seats, common to every bid. In each deal the first `made` bidders
    bid as in `bids`, the seat bids the candidate, every other seat bids heuristically on its
    sampled hand; then the round is played out heuristically. Totals go to
    ws_i[WS_BID_TOTALS + b - lo]; returns the seat's stream state after the deals."""
    leader = dealer + 1
    if leader == n:
        leader = 0
    pos = bid_position_nb(seat, dealer, n)
    known = hand
    gone0 = ZERO
    if turned >= 0:
        gone0 = ONE << np.uint64(turned)
        known |= gone0
    cards = ws_i[WS_UNSEEN:WS_UNSEEN + N_CARDS]
    u = list_cards_nb(cards, FULL_MASK & ~known)
    order = ws_i[WS_ORDER:WS_ORDER + n]
    counts = ws_i[WS_COUNT:WS_COUNT + n]
    allowed = ws_h[WS_ALLOWED:WS_ALLOWED + n]
    k = np.int64(0)  # int64 from the start: a literal 0 would compile deal_unseen_nb twice
    for o in range(n):
        if o != seat:
            order[k] = o
            k += 1
        counts[o] = r
        allowed[o] = FULL_MASK
    sampled = ws_h[WS_DEAL:WS_DEAL + n]
    play = ws_h[WS_PLAY:WS_PLAY + n]
    sim_bids = ws_i[WS_BIDS:WS_BIDS + n]
    sim_tricks = ws_i[WS_TRICKS:WS_TRICKS + n]
    totals = ws_i[WS_BID_TOTALS:WS_BID_TOTALS + hi - lo + 1]
    for j in range(hi - lo + 1):
        totals[j] = 0
    for _ in range(deals):
        state = deal_unseen_nb(state, cards, u, order, k, counts, allowed, sampled)
        sampled[seat] = hand
        for b in range(lo, hi + 1):
            if b == skip:
                continue
            ssum = np.int64(0)
            s = leader
            for p in range(n):
                if p < made:
                    sb = bids[s]
                elif p == pos:
                    sb = b
                else:
                    f = forbidden_bid_nb(r, ssum, s == dealer, hook)
                    sb = heuristic_bid_nb(sampled[s], trump, turned, n, r, p, ssum, f)
                sim_bids[s] = sb
                ssum += sb
                play[s] = sampled[s]
                sim_tricks[s] = 0
                s = s + 1 if s + 1 < n else 0
            play_out_nb(play, n, trump, r, leader, np.int64(0), np.int64(LEAD_NONE),
                        np.int64(-1), leader, sim_bids, sim_tricks,
                        gone0, strict_void)
            totals[b - lo] += round_score_nb(b, sim_tricks[seat])
    return state


@njit
def best_total_bid_nb(totals, lo, hi, skip, h):
    """(bid, total): the bid lo..hi (not `skip`) with the best total in totals[b - lo]; ties go to
    the bid nearest h, then the lower."""
    best_b = -1
    best_total = -(1 << 62)
    for b in range(lo, hi + 1):
        if b == skip:
            continue
        t = totals[b - lo]
        if t > best_total or (t == best_total and abs(b - h) < abs(best_b - h)):
            best_total = t
            best_b = b
    return best_b, best_total


@njit
def sampler_bid_nb(rng, hand, trump, turned, n, r, seat, dealer, bids, hook, strict_void, ws_i, ws_h,
                   bonus):
    """Monte Carlo bid among the bids next to the heuristic bid (bid_totals_nb): the best mean score
    plus `bonus` tenths of a point per trick bid (SAMPLER_BONUS: what calibrates its mean bid to
    its mean tricks). Its random deals come from the seat's own stream rng[seat]. Workspaces: see
    the layout above."""
    pos, bsum, forbidden, h = bid_situation_nb(hand, trump, turned, n, r, seat, dealer, bids, hook)
    lo = max(0, h - SAMPLER_SPREAD)
    hi = min(r, h + SAMPLER_SPREAD)
    ncand = 0
    for b in range(lo, hi + 1):
        if b != forbidden:
            ncand += 1
    if ncand <= 1:
        return h
    rng[seat] = bid_totals_nb(rng[seat], hand, trump, turned, n, r, seat, dealer, pos, bids, lo, hi,
                              forbidden, np.int64(SAMPLER_DEALS), hook, strict_void, ws_i, ws_h)
    totals = ws_i[WS_BID_TOTALS:WS_BID_TOTALS + hi - lo + 1]
    add_bid_bonus_nb(totals, lo, hi, bonus, np.int64(SAMPLER_DEALS))
    return best_total_bid_nb(totals, lo, hi, forbidden, h)[0]


# ---------------------------------------------------------------- dispatch
# Every random choice of seat s comes from the seat's own stream, state rng[s]: a random decision
# takes one word, the sampler as many as it needs, the heuristic none. So what one seat's player
# does never moves another seat's random draws (arms that differ in one seat stay paired).
#
# Workspaces double as compile-time switches: ws_i (int64) is None when every seat plays random,
# ws_h (uint64) is None when no seat samples or searches. Numba prunes `is None` branches when it
# compiles, so a table of random players runs a kernel without the heuristic's and the sampler's
# code (which would otherwise crowd the hot loop's registers), and heuristic tables one without
# the sampler. (The driver dispatches search seats itself, under a switch of its own.)
@njit
def choose_trump_nb(pol, rng, seat, hand, ws_i):
    """The dealer's (seat's) trump suit (0..3) when a Wizard is turned."""
    if pol == P_RANDOM or ws_i is None:
        return uniform_nb(seat_word_nb(rng, seat), np.int64(4))
    return heuristic_trump_nb(hand)


@njit
def choose_bid_nb(pol, rng, hand, trump, turned, n, r, seat, dealer, pos, bid_sum_before, bids,
                  hook, strict_void, ws_i, ws_h):
    forbidden = forbidden_bid_nb(r, bid_sum_before, seat == dealer, hook)
    if pol == P_RANDOM or ws_i is None:
        return random_bid_nb(seat_word_nb(rng, seat), r, forbidden)
    if pol == P_SAMPLER and ws_h is not None:
        bonus = SAMPLER_BONUS[n - MIN_PLAYERS, bonus_kind_nb(turned, n, r), pos]
        return sampler_bid_nb(rng, hand, trump, turned, n, r, seat, dealer, bids, hook, strict_void,
                              ws_i, ws_h, np.int64(bonus))
    return heuristic_bid_nb(hand, trump, turned, n, r, pos, bid_sum_before, forbidden)


@njit
def choose_card_nb(pol, hand, legal, trump, lead, best, pos, n, need, gone):
    """The card of a seat that is not random (the driver draws a random seat's card itself, one
    word of the seat's stream per trick)."""
    if pol == P_BROKEN:
        return lowest_card_nb(hand)  # ignores the duty to follow suit: checked mode must catch it
    return heuristic_card_nb(hand, legal, trump, lead, best, pos, n, need, gone)
