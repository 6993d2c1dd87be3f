"""Counter-based randomness shared by every game.

Game i of an arm draws from streams seeded by splitmix64 of (study seed, i) only, so the same game
index starts from the same shuffle in every arm (common random numbers). A game splits its stream
into substreams by purpose: `deal_stream_nb(seed, i, r)` orders the cards of round r and
`seat_stream_nb(seed, i, s)` serves seat s's random choices, so what one arm changes (a rule, one
seat's player) leaves the other arms' deals and the other seats' choices as they were: paired
arms stay paired. A stream's state lives in a variable or a one-element uint64 array owned by the
kernel: no global RNG state anywhere.
"""
import numpy as np

from kernels.jit import njit

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_S30 = np.uint64(30)
_S27 = np.uint64(27)
_S31 = np.uint64(31)
_S32 = np.uint64(32)


@njit
def mix64_nb(z):
    """splitmix64's finaliser: a bijective avalanche on uint64."""
    z = (z ^ (z >> _S30)) * _MIX1
    z = (z ^ (z >> _S27)) * _MIX2
    return z ^ (z >> _S31)


@njit
def game_stream_nb(seed, index):
    """Initial stream state for game `index` of a study with `seed` (both non-negative ints)."""
    return mix64_nb(mix64_nb(np.uint64(seed) + _GOLDEN) ^ (np.uint64(index) * _GOLDEN))


# Purposes of substreams: distinct salts, so a deal stream and a seat stream never coincide.
DEAL = np.uint64(0xD1B54A32D192ED03)
SEAT = np.uint64(0x8CB92BA72F3D8DD7)
EXTRA = np.uint64(0xAEF17502108EF2D9)


@njit
def substream_nb(seed, index, purpose, k):
    """Initial state of substream k (a round, a seat) for `purpose` of game `index`."""
    return mix64_nb(game_stream_nb(seed, index) ^ purpose ^ mix64_nb(np.uint64(k) + purpose))


@njit
def deal_stream_nb(seed, index, rnd):
    """The stream that orders the cards of round `rnd` of game `index`: the deal depends on
    (seed, game, round) only, never on rules, policies or the play of earlier rounds."""
    return substream_nb(seed, index, DEAL, rnd)


@njit
def seat_stream_nb(seed, index, seat):
    """The stream of seat `seat`'s random choices in game `index`."""
    return substream_nb(seed, index, SEAT, seat)


@njit
def extra_stream_nb(seed, index, k):
    """A game's other randomness (e.g. where an added card enters the deck), numbered by k."""
    return substream_nb(seed, index, EXTRA, k)


@njit
def next_word_nb(state):
    """(new state, 64 random bits) of the stream, with the state in a local variable (it stays in a
    register in hot loops); next_u64_nb is the same step on a state held in an array."""
    state += _GOLDEN
    return state, mix64_nb(state)


@njit
def uniform_nb(u, n):
    """Uniform integer in [0, n) for 0 < n < 2**32 from 64 random bits u (Lemire's multiply-shift)."""
    return np.int64(((u >> _S32) * np.uint64(n)) >> _S32)


@njit
def next_u64_nb(rng):
    """Advance the stream held in rng[0] and return 64 random bits."""
    rng[0], u = next_word_nb(rng[0])
    return u


@njit
def randint_nb(rng, n):
    """Uniform integer in [0, n) for 0 < n < 2**32."""
    return uniform_nb(next_u64_nb(rng), n)


@njit
def random_nb(rng):
    """Uniform float in [0, 1) with 53 random bits."""
    return np.float64(next_u64_nb(rng) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@njit
def shuffle_from_nb(state, a, n):
    """Fisher-Yates shuffle of the first n entries of a, in place, from a stream state held in a
    local variable; returns the new state (shuffle_nb draws the same from a state in an array)."""
    for i in range(n - 1, 0, -1):
        state, u = next_word_nb(state)
        j = uniform_nb(u, i + 1)
        t = a[i]
        a[i] = a[j]
        a[j] = t
    return state


@njit
def shuffle_nb(rng, a, n):
    """Fisher-Yates shuffle of the first n entries of a, in place."""
    for i in range(n - 1, 0, -1):
        j = randint_nb(rng, i + 1)
        t = a[i]
        a[i] = a[j]
        a[j] = t


# ------------------------------------------------------------------ exponential times (ziggurat)
# Marsaglia and Tsang's ziggurat (2000) for the standard exponential: 256 layers of equal area
# cover the density; a draw picks a layer with 8 bits and a point in it with 53 more, and 98.9 %
# of the draws fall in a layer's inner rectangle, where the point itself is the answer: no
# logarithm (a libm log costs more than the rest of a Wie Weet Wat turn). The rest are the wedges
# (accepted under the curve) and the tail beyond ZIG_R (memoryless: ZIG_R plus a new exponential).
ZIG_R = 7.69711747013104972  # where the tail starts: the base layer and the others have area ZIG_V
ZIG_V = 3.949659822581572e-3


def _ziggurat_tables():
    """(k, w, f): per layer the 53-bit bound of its inner rectangle, the scale from 53-bit
    integers to x, and the density at the layer's upper edge (the Marsaglia-Tsang recurrence)."""
    m = 2.0 ** 53
    k = np.zeros(256, np.uint64)
    w = np.zeros(256, np.float64)
    f = np.zeros(256, np.float64)
    x = ZIG_R
    q = ZIG_V / np.exp(-x)
    k[0] = np.uint64(x / q * m)
    w[0] = q / m
    w[255] = x / m
    f[0] = 1.0
    f[255] = np.exp(-x)
    for i in range(254, 0, -1):
        inner = x
        x = -np.log(ZIG_V / x + np.exp(-x))
        k[i + 1] = np.uint64(x / inner * m)
        w[i] = x / m
        f[i] = np.exp(-x)
    return k, w, f


ZIG_K, ZIG_W, ZIG_F = _ziggurat_tables()
_S8 = np.uint64(8)
_S11 = np.uint64(11)
_LAYER = np.uint64(0xFF)
_UNIT = 1.0 / 9007199254740992.0


@njit
def next_exponential_nb(state):
    """(new state, a standard exponential time) from the stream in a local variable: one 64-bit
    word for 98.9 % of the draws (the ziggurat above), a few more for the rest."""
    scale = 0.0  # the tail: what earlier tries added
    while True:
        state, u = next_word_nb(state)
        layer = u & _LAYER
        bits = u >> _S11
        x = np.float64(bits) * ZIG_W[layer]
        if bits < ZIG_K[layer]:
            return state, scale + x
        if layer == 0:  # beyond ZIG_R the density is a shifted exponential
            scale += ZIG_R
            continue
        state, u = next_word_nb(state)
        y = np.float64(u >> _S11) * _UNIT
        if ZIG_F[layer] + y * (ZIG_F[layer - 1] - ZIG_F[layer]) < np.exp(-x):
            return state, scale + x
