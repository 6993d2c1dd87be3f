"""Wizard rules as small @njit helpers: card sets, dealing, trump, legal plays, trick winner, scoring.

Card sets are uint64 bitmasks (bit c = card c, see enums). All helpers are pure functions of their
arguments (the deal advances the RNG state held in the caller's array), so tests call them one by one.
"""
import numba
import numpy as np
from llvmlite import ir as llvm_ir
from numba import types
from numba.core import cgutils
from numba.core.extending import intrinsic

from kernels.jit import njit
from kernels.rng_nb import next_word_nb, uniform_nb
from kernels.wizard.enums import (
    FIRST_JESTER, FIRST_WIZARD, LEAD_FREE, LEAD_NONE, N_CARDS, NO_TRUMP, TV_LED, TV_TRUMP, TV_WIZARD,
)

ZERO = np.uint64(0)
ONE = np.uint64(1)
SUIT_BITS = np.uint64((1 << 13) - 1)
SUIT_MASK = np.array([((1 << 13) - 1) << (13 * s) for s in range(4)], dtype=np.uint64)
WIZARD_MASK = np.uint64(0xF << FIRST_WIZARD)
JESTER_MASK = np.uint64(0xF << FIRST_JESTER)
SPECIAL_MASK = np.uint64(0xFF << FIRST_WIZARD)
FULL_MASK = np.uint64((1 << N_CARDS) - 1)

# nth_card_nb's constants and table: BYTE_SELECT[b * 8 + j] = position of the j-th set bit of byte b
M55 = np.uint64(0x5555555555555555)
M33 = np.uint64(0x3333333333333333)
M0F = np.uint64(0x0F0F0F0F0F0F0F0F)
L01 = np.uint64(0x0101010101010101)
L80 = np.uint64(0x8080808080808080)
FF = np.uint64(0xFF)
TWO = np.uint64(2)
FOUR = np.uint64(4)
EIGHT = np.uint64(8)
BYTE_SELECT = np.array([([i for i in range(8) if b >> i & 1] + [0] * 8)[j]
                        for b in range(256) for j in range(8)], dtype=np.int64)

# Per-card tables: suit (7 for Wizards and Jesters, never a suit, trump or lead value), rank
# (0 for Wizards and Jesters), Wizard bonus, and the lead state a card sets as the first non-Jester.
SUIT_OF = np.array([c // 13 for c in range(52)] + [7] * 8, dtype=np.int64)
RANK_OF = np.array([c % 13 for c in range(52)] + [0] * 8, dtype=np.int64)
WIZARD_OF = np.array([0] * 52 + [TV_WIZARD] * 4 + [0] * 4, dtype=np.int64)
LEAD_OF = np.array([c // 13 for c in range(52)] + [LEAD_FREE] * 4 + [LEAD_NONE] * 4, dtype=np.int64)
# Cards that follow a lead state, indexed lead + 1: LEAD_NONE and LEAD_FREE follow nothing
FOLLOW_MASK = np.array([0] + [((1 << 13) - 1) << (13 * s) for s in range(4)] + [0],
                       dtype=np.uint64)


# ---------------------------------------------------------------- card sets
@njit
def bit_nb(card):
    """The one-card set {card}."""
    return ONE << np.uint64(card)


@njit
def popcount_nb(x):
    """Number of cards in the set x (LLVM turns this loop into one popcnt)."""
    c = 0
    while x:
        x &= x - ONE
        c += 1
    return c


@njit
def lowest_card_nb(x):
    """The lowest card in the non-empty set x (count of trailing zero bits)."""
    return popcount_nb(~x & (x - ONE))


@njit
def nth_card_swar_nb(x, k):
    """The k-th lowest card (0-based) of the set x; k < popcount(x). Portable and branch-free (a loop over k mispredicts on random k): byte bit counts by SWAR, their running sums
    by one multiply, the byte holding the k-th bit by a SWAR compare, then a table inside the byte.
    """
    c = x - ((x >> ONE) & M55)
    c = (c & M33) + ((c >> TWO) & M33)
    c = (c + (c >> FOUR)) & M0F
    cum = c * L01  # byte i: bits in bytes 0..i
    kk = np.uint64(k) * L01
    byte = popcount_nb(((kk | L80) - cum) & L80)  # bytes whose running sum is <= k
    shift = np.uint64(8 * byte)
    before = ((cum << EIGHT) >> shift) & FF
    inner = (x >> shift) & FF
    # an unsigned index spares Numba's negative-index wraparound on this hot path
    return 8 * byte + BYTE_SELECT[inner * EIGHT + np.uint64(k) - before]


@intrinsic
def _pdep_u64(typingctx, src, mask):
    """x86 BMI2 PDEP: deposit the low bits of src at the set bit positions of mask."""
    sig = types.uint64(types.uint64, types.uint64)

    def codegen(context, builder, signature, args):
        fnty = llvm_ir.FunctionType(llvm_ir.IntType(64), [llvm_ir.IntType(64)] * 2)
        fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.x86.bmi.pdep.64")
        return builder.call(fn, args)

    return sig, codegen


@njit
def nth_card_pdep_nb(x, k):
    """nth_card_nb with one PDEP: bit k deposited onto the set x lands on its k-th card."""
    return lowest_card_nb(_pdep_u64(ONE << np.uint64(k), x))


def _fast_pdep() -> bool:
    """PDEP is used when the kernels compile for this machine's CPU, it has BMI2, and PDEP is fast
    there (AMD before Zen 3 runs it in microcode); never under NUMBA_DISABLE_JIT."""
    if numba.config.DISABLE_JIT or numba.config.CPU_NAME not in (None, "host"):
        return False
    try:
        import llvmlite.binding as llvm

        name, features = llvm.get_host_cpu_name(), llvm.get_host_cpu_features()
    except Exception:  # noqa: BLE001 - any failure means: use the portable code
        return False
    return bool(features.get("bmi2")) and not name.startswith(("znver1", "znver2", "bdver"))


FAST_PDEP = _fast_pdep()
# The k-th lowest card of a set: the random player's whole choice. Chosen once at import.
nth_card_nb = nth_card_pdep_nb if FAST_PDEP else nth_card_swar_nb


@njit
def is_wizard_nb(card):
    return FIRST_WIZARD <= card < FIRST_JESTER


@njit
def is_jester_nb(card):
    return card >= FIRST_JESTER


@njit
def suit_nb(card):
    """Suit 0..3 of a suited card; -1 for Wizards and Jesters."""
    if card >= FIRST_WIZARD:
        return -1
    return card // 13


@njit
def rank_nb(card):
    """Rank 0..12 (the 2 .. the ace) of a suited card; -1 for Wizards and Jesters."""
    if card >= FIRST_WIZARD:
        return -1
    return card % 13


@njit
def higher_in_suit_nb(card):
    """The set of cards of the same suit ranked above a suited card."""
    s = card // 13
    return SUIT_MASK[s] & ~((ONE << np.uint64(card + 1)) - ONE)


# ---------------------------------------------------------------- deal and trump
@njit
def deal_nb(rng, deck, n, r, hands):
    """Deal r cards to each of n seats from a freshly shuffled 60-card deck; return the top card of
    the undealt rest (the card to turn for trump), or -1 when every card was dealt.

    Only the n*r dealt cards and the top card are drawn (a partial Fisher-Yates shuffle): the same
    distribution as shuffling all 60. Card i of the shuffled deck goes to seat i % n (the order of
    dealing does not change who holds what in distribution). `deck` is int64 workspace of 60; the
    stream state rng[0] advances by exactly min(n*r+1, 60) draws.
    """
    for i in range(N_CARDS):
        deck[i] = i
    dealt = n * r
    draws = dealt + 1 if dealt < N_CARDS else N_CARDS
    for s in range(n):
        hands[s] = ZERO
    state = rng[0]
    s = 0
    for i in range(draws):
        state, u = next_word_nb(state)
        j = i + uniform_nb(u, N_CARDS - i)
        t = deck[j]
        deck[j] = deck[i]
        deck[i] = t
        if i < dealt:
            hands[s] |= ONE << np.uint64(t)
            s = s + 1 if s + 1 < n else 0
    rng[0] = state
    if dealt < N_CARDS:
        return deck[dealt]
    return -1


@njit
def rotate_hands_nb(hands, n, shift):
    """Seat s takes the hand of seat (s + shift) % n (kernels/rotation_nb.py): the rotated deal."""
    for _ in range(shift):  # shift < n <= 6: one step at a time, no scratch array
        first = hands[0]
        for s in range(n - 1):
            hands[s] = hands[s + 1]
        hands[n - 1] = first


@njit
def trump_of_turned_nb(turned):
    """Trump suit from the turned card: its suit; a Jester or no card: NO_TRUMP; a Wizard: -1 (the
    dealer chooses)."""
    if turned < 0 or turned >= FIRST_JESTER:
        return NO_TRUMP
    if turned >= FIRST_WIZARD:
        return -1
    return turned // 13


# ---------------------------------------------------------------- bidding
@njit
def forbidden_bid_nb(r, bid_sum_before, is_dealer, hook):
    """The one bid the hook rule forbids the dealer (the bid that makes the bids add up to r), else -1."""
    if hook and is_dealer:
        f = r - bid_sum_before
        if 0 <= f <= r:
            return f
    return -1


@njit
def bid_is_legal_nb(bid, r, bid_sum_before, is_dealer, hook):
    if bid < 0 or bid > r:
        return False
    return bid != forbidden_bid_nb(r, bid_sum_before, is_dealer, hook)


# ---------------------------------------------------------------- playing a trick
@njit
def legal_mask_nb(hand, lead, strict_void):
    """Cards of `hand` that may be played into a trick whose lead state is `lead`.

    lead: LEAD_NONE (no card yet or only Jesters: anything), LEAD_FREE (a Wizard set the trick:
    anything) or a suit 0..3 to follow. Following suit is compulsory when possible, a Wizard or Jester
    may always be played. strict_void (a variant): a player who cannot follow but holds a Wizard or
    Jester must play one of them. Branch-free on the common path.
    """
    follow = hand & FOLLOW_MASK[lead + 1]
    special = hand & SPECIAL_MASK
    if strict_void and 0 <= lead < 4 and follow == ZERO and special != ZERO:
        return special
    m = ZERO - np.uint64(follow != ZERO)  # all ones when the hand can follow
    return (m & (follow | special)) | (~m & hand)


@njit
def lead_after_nb(lead, card):
    """Lead state of a trick after `card` is added: the first non-Jester card sets it (its suit, or
    LEAD_FREE for a Wizard); once set it never changes."""
    if lead != LEAD_NONE:
        return lead
    return LEAD_OF[np.uint64(card)]


@njit
def trick_value_nb(card, lead, trump):
    """How strongly `card` holds the trick once the lead state is `lead` (after adding the card):
    Wizard 300, trump 200+rank, led suit 100+rank, anything else (Jesters too) 0. The trick goes to
    the highest value, the earlier card winning ties (first Wizard; all Jesters: the first Jester)."""
    i = np.uint64(card)  # unsigned: no negative-index wraparound code
    s = SUIT_OF[i]
    k = RANK_OF[i]
    is_trump = s == trump
    return (WIZARD_OF[i] + is_trump * (TV_TRUMP + k)
            + ((s == lead) & (not is_trump)) * (TV_LED + k))


@njit
def trick_winner_nb(cards, n, trump):
    """Position (0 = the leader) of the card that wins the trick cards[0..n)."""
    lead = LEAD_NONE
    best = -1
    win = 0
    for p in range(n):
        lead = lead_after_nb(lead, cards[p])
        v = trick_value_nb(cards[p], lead, trump)
        if v > best:
            best = v
            win = p
    return win


# ---------------------------------------------------------------- scoring
@njit
def round_score_nb(bid, tricks):
    """Exact bid: 20 + 10 per trick taken; otherwise -10 per trick more or fewer than the bid."""
    if bid == tricks:
        return 20 + 10 * tricks
    d = bid - tricks
    if d < 0:
        d = -d
    return -10 * d


@njit
def cards_conserved_nb(hands, n, trick, played, undealt):
    """True when every card is in exactly one of: a hand, the current trick, the tricks already
    played this round, the undealt deck."""
    acc = ZERO
    for s in range(n):
        if acc & hands[s]:
            return False
        acc |= hands[s]
    for m in (trick, played, undealt):
        if acc & m:
            return False
        acc |= m
    return acc == FULL_MASK
