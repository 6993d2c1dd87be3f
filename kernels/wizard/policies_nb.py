"""Wizard policies, chosen by integer id (enums.P_*) inside the kernel.

Every decision sees only what its seat can know: its own hand, the turned card and trump, the bids
made so far, the tricks taken so far, the cards already played (`gone`: played cards plus the turned
card) and the current trick (its lead state and the value of the card now winning it).

random     uniform legal bid 0..r, uniform legal card, uniform trump suit.
heuristic  bids for the best expected score given each card's chance of taking a trick, measured
           by self-play per player count, round size, position and card class (bid_model_nb,
           bid_tables.py); plays to make the bid exactly, taking needed tricks with a Wizard
           while another Wizard could still beat it later; picks the trump suit it holds most of.
sampler    heuristic play and trump choice; bids by Monte Carlo: deals the unseen cards at random to
           the other seats SAMPLER_DEALS times, plays each deal out with heuristic play for the
           candidate bids around the heuristic bid, and takes the bid with the best mean score.
"""
import numpy as np

from kernels.jit import njit
from kernels.rng_nb import next_word_nb, uniform_nb
from kernels.wizard.bid_model_nb import best_bid_nb, expected_tricks_nb
from kernels.wizard.bid_tables import TRICK_CHANCE
from kernels.wizard.enums import (
    FIRST_JESTER, FIRST_WIZARD, LEAD_NONE, N_CARDS, P_BROKEN, P_RANDOM, P_SAMPLER, SAMPLER_DEALS,
    SAMPLER_SPREAD, TV_WIZARD,
)
from kernels.wizard.rules_nb import (
    ONE, SUIT_MASK, WIZARD_MASK, ZERO, forbidden_bid_nb, higher_in_suit_nb, lead_after_nb, legal_mask_nb,
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
def heuristic_bid_nb(hand, trump, n, r, pos, bid_sum_before, forbidden):
    """The legal bid with the best expected score under the self-play table's per-card chances
    (bid_model_nb). bid_sum_before is not used: the table's chances already assume the others bid
    and play as this policy does."""
    return best_bid_nb(TRICK_CHANCE, hand, trump, n, r, pos, forbidden)


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


@njit
def heuristic_trick_nb(hands, n, leader, trump, bids, tricks, gone, strict_void):
    """Play one trick with heuristic play for every seat (hands are consumed, the winner's trick
    counted). Returns (winning seat, winning card, gone with the trick's cards added)."""
    lead = LEAD_NONE
    best = -1
    win = leader
    win_c = -1
    s = leader
    for p in range(n):
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


# ---------------------------------------------------------------- sampler
@njit
def sim_round_nb(hands, n, r, leader, trump, bids, tricks, gone, strict_void):
    """Play a whole round out with heuristic play for every seat (hands are consumed)."""
    for s in range(n):
        tricks[s] = 0
    for _ in range(r):
        leader, _c, gone = heuristic_trick_nb(hands, n, leader, trump, bids, tricks, gone, strict_void)
    return tricks


@njit
def sampler_bid_nb(rng, hand, trump, turned, n, r, seat, dealer, bids, hook, strict_void, ws_i, ws_h):
    """Monte Carlo bid. Its random deals come from the seat's own stream rng[seat].
    ws_i: int64 workspace (>= 96), ws_h: uint64 workspace (>= 16).

    Layout: ws_i[0:60] unseen cards, ws_i[64:70] simulated bids, ws_i[72:78] simulated tricks,
    ws_i[80:96] score totals per candidate; ws_h[0:6] sampled hands, ws_h[8:14] hands in play.
    """
    leader = dealer + 1
    if leader == n:
        leader = 0
    pos = seat - leader
    if pos < 0:
        pos += n
    bsum = 0
    s = leader
    for _ in range(pos):
        bsum += bids[s]
        s = s + 1 if s + 1 < n else 0
    forbidden = forbidden_bid_nb(r, bsum, seat == dealer, hook)
    h = heuristic_bid_nb(hand, trump, n, r, pos, bsum, forbidden)
    lo = max(0, h - SAMPLER_SPREAD)
    hi = min(r, h + SAMPLER_SPREAD)
    ncand = 0
    for b in range(lo, hi + 1):
        if b != forbidden:
            ncand += 1
    if ncand <= 1:
        return h
    known = hand
    if turned >= 0:
        known |= ONE << np.uint64(turned)
    u = 0
    for c in range(N_CARDS):
        if not (known >> np.uint64(c)) & ONE:
            ws_i[u] = c
            u += 1
    gone0 = ZERO
    if turned >= 0:
        gone0 = ONE << np.uint64(turned)
    sim_bids = ws_i[64:70]
    sim_tricks = ws_i[72:78]
    totals = ws_i[80:96]
    for j in range(hi - lo + 1):
        totals[j] = 0
    need = r * (n - 1)
    state = rng[seat]  # the seat's stream, in a register while it deals
    for _ in range(SAMPLER_DEALS):
        for i in range(need):
            state, w = next_word_nb(state)
            j = i + uniform_nb(w, u - i)
            t = ws_i[i]
            ws_i[i] = ws_i[j]
            ws_i[j] = t
        i = 0
        for o in range(n):
            if o == seat:
                ws_h[o] = hand
                continue
            m = ZERO
            for _k in range(r):
                m |= ONE << np.uint64(ws_i[i])
                i += 1
            ws_h[o] = m
        for b in range(lo, hi + 1):
            if b == forbidden:
                continue
            ssum = 0
            s = leader
            for p in range(n):
                if p < pos:
                    sb = bids[s]
                elif p == pos:
                    sb = b
                else:
                    f = forbidden_bid_nb(r, ssum, s == dealer, hook)
                    sb = heuristic_bid_nb(ws_h[s], trump, n, r, p, ssum, f)
                sim_bids[s] = sb
                ssum += sb
                ws_h[8 + s] = ws_h[s]
                s = s + 1 if s + 1 < n else 0
            sim_round_nb(ws_h[8:8 + n], n, r, leader, trump, sim_bids, sim_tricks, gone0, strict_void)
            totals[b - lo] += round_score_nb(b, sim_tricks[seat])
    rng[seat] = state
    best_b = h
    best_total = -(1 << 62)
    for b in range(lo, hi + 1):
        if b == forbidden:
            continue
        t = totals[b - lo]
        # ties go to the bid nearest the heuristic bid
        if t > best_total or (t == best_total and abs(b - h) < abs(best_b - h)):
            best_total = t
            best_b = b
    return best_b


# ---------------------------------------------------------------- dispatch
# Every random choice of seat s comes from the seat's own stream, state rng[s]: a random decision
# takes one word, the sampler as many as it needs, the heuristic none. So what one seat's player
# does never moves another seat's random draws (arms that differ in one seat stay paired).
#
# Workspaces double as compile-time switches: ws_i (int64) is None when every seat plays random,
# ws_h (uint64) is None when no seat samples. Numba prunes `is None` branches when it compiles, so
# a table of random players runs a kernel without the heuristic's and the sampler's code (which
# would otherwise crowd the hot loop's registers), and heuristic tables one without the sampler.
@njit
def choose_trump_nb(pol, rng, seat, hand, ws_i):
    """The dealer's (seat's) trump suit (0..3) when a Wizard is turned."""
    if pol == P_RANDOM or ws_i is None:
        return uniform_nb(seat_word_nb(rng, seat), 4)
    return heuristic_trump_nb(hand)


@njit
def choose_bid_nb(pol, rng, hand, trump, turned, n, r, seat, dealer, pos, bid_sum_before, bids,
                  hook, strict_void, ws_i, ws_h):
    forbidden = forbidden_bid_nb(r, bid_sum_before, seat == dealer, hook)
    if pol == P_RANDOM or ws_i is None:
        return random_bid_nb(seat_word_nb(rng, seat), r, forbidden)
    if pol == P_SAMPLER and ws_h is not None:
        return sampler_bid_nb(rng, hand, trump, turned, n, r, seat, dealer, bids, hook, strict_void,
                              ws_i, ws_h)
    return heuristic_bid_nb(hand, trump, n, r, pos, bid_sum_before, forbidden)


@njit
def choose_card_nb(pol, hand, legal, trump, lead, best, pos, n, need, gone):
    """The card of a seat that is not random (the driver draws a random seat's card itself, one
    word of the seat's stream per trick)."""
    if pol == P_BROKEN:
        return lowest_card_nb(hand)  # ignores the duty to follow suit: checked mode must catch it
    return heuristic_card_nb(hand, legal, trump, lead, best, pos, n, need, gone)
