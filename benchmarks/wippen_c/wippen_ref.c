/* A plain C11 reference for the Wippen kernel (kernels/wippen/play_nb.py), `random` and `greedy`
 * players only, for benchmarks/wippen_c_reference.py (issue 31: the Numba kernel against C).
 *
 * It plays exactly the games the Numba kernel plays: the same splitmix64 streams
 * (kernels/rng_nb.py), the same deck and removal order, shuffle and dealing
 * (kernels/wippen/table_nb.py), the same move generator with the moves in the same order
 * (kernels/wippen/moves_nb.py), the same choices (kernels/wippen/policies_nb.py) and the same
 * rules and scoring (kernels/wippen/rules_nb.py), so its per-game rows equal the kernel's output
 * records. Non-rotating arms only (deal_of_nb(g) = (g, 0)); no trace, no checked mode.
 *
 * Usage:
 *   wippen_ref MODE SEED FIRST COUNT PLAYERS POLICIES RULES [REPEATS]
 *     MODE      rows: one line per game "turns rounds winner_mask score[0..n-1]"
 *               full: one line per game, every field of the kernel's record (see print_full)
 *               time: play the games REPEATS times (default 1); per repeat print
 *                     "repeat R cpu_s S card_plays P games G" (S: CPU seconds of the process
 *                     for the play only, CLOCK_PROCESS_CPUTIME_ID), then "checksum C"
 *     POLICIES  one policy id per seat, comma-separated: 0 random, 1 greedy
 *     RULES     the 11 rule ints in the kernel's RULE_I_ORDER, comma-separated: decks, target,
 *               deals, build_instead_of_capture, raise_double, points_most_cards,
 *               points_most_spades, points_diamond_ten, points_spade_two, points_ace, points_wip
 * Exit status: 0, 2 for bad arguments, else 10 + the kernel's status code (kernels/status.py),
 * with "status S game G" on stderr.
 */
#define _POSIX_C_SOURCE 199309L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum {
    N_CARDS = 104, DECK_CARDS = 52, N_RANKS = 13, MIN_PLAYERS = 2, MAX_PLAYERS = 6, HAND = 4,
    POT_START = 4, MAX_NUMBER = 10, MAX_ITEMS = 64, MAX_MOVES = 8192, MAX_GROUPS = 4096,
    MAX_DEALS = 250, MAX_TURNS = MAX_DEALS * (2 * DECK_CARDS - POT_START),
    GSPAN_TOP = 2 * (MAX_NUMBER + 1), ALL_SUMS = (1 << (MAX_NUMBER + 1)) - 1,
};
enum { CLUBS, DIAMONDS, HEARTS, SPADES };
enum { ACE = 0, TWO = 1, TEN = 9, JACK = 10, QUEEN = 11, KING = 12 };
enum { ITEM_LOOSE, ITEM_BUILD, ITEM_DOUBLE };
enum { MV_CAPTURE, MV_BUILD, MV_DOUBLE, MV_RAISE, MV_TRAIL };
enum { P_RANDOM = 0, P_GREEDY = 1 };
enum {
    R_DECKS, R_TARGET, R_DEALS, R_BUILD_INSTEAD, R_RAISE_DOUBLE, R_PTS_CARDS, R_PTS_SPADES,
    R_PTS_DIAMOND_TEN, R_PTS_SPADE_TWO, R_PTS_ACE, R_PTS_WIP, N_RULES
};
enum { SRC_CARDS, SRC_SPADES, SRC_DIAMOND_TEN, SRC_SPADE_TWO, SRC_ACES, SRC_WIPS, N_SOURCES };
enum { ST_OK = 0, ST_TOO_LONG = 3, ST_BAD_ARGS = 4, ST_INVARIANT = 6 };
enum { TOOK_BUILD_OF_OTHER = 1, POT_FULL = 2 };  /* play_move's flags */
enum { A_CAPTURES, A_BUILDS, A_RAISES, A_DOUBLES, A_TAKEOVERS, A_WIPS, A_TAKEN, N_ACTS };

static const double CARD_WEIGHT = 0.05, SPADE_WEIGHT = 0.15;

/* ---------------------------------------------------------------- cards */
static int8_t VALUE_OF[N_CARDS];  /* ace 1 .. 10, jack 11, queen 12, king 13 */
static uint64_t SPADE_SET[2], ACE_SET[2], DIAMOND_TEN_SET[2], SPADE_TWO_SET[2];

static inline void set_add(uint64_t *w, int card) { w[card >> 6] |= 1ULL << (card & 63); }
static inline int set_has(const uint64_t *w, int card) { return (w[card >> 6] >> (card & 63)) & 1; }
static inline int set_count(const uint64_t *w, const uint64_t *other)
{
    return __builtin_popcountll(w[0] & other[0]) + __builtin_popcountll(w[1] & other[1]);
}

static void init_tables(void)
{
    for (int c = 0; c < N_CARDS; c++) {
        int suit = (c % DECK_CARDS) / N_RANKS, rank = c % N_RANKS;
        VALUE_OF[c] = (int8_t)(rank + 1);
        if (suit == SPADES) set_add(SPADE_SET, c);
        if (rank == ACE) set_add(ACE_SET, c);
        if (suit == DIAMONDS && rank == TEN) set_add(DIAMOND_TEN_SET, c);
        if (suit == SPADES && rank == TWO) set_add(SPADE_TWO_SET, c);
    }
}

/* ---------------------------------------------------------- randomness (kernels/rng_nb.py) */
#define GOLDEN 0x9E3779B97F4A7C15ULL
#define SALT_DEAL 0xD1B54A32D192ED03ULL
#define SALT_SEAT 0x8CB92BA72F3D8DD7ULL

static inline uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}
static inline uint64_t game_stream(uint64_t seed, uint64_t index)
{
    return mix64(mix64(seed + GOLDEN) ^ (index * GOLDEN));
}
static inline uint64_t substream(uint64_t seed, uint64_t index, uint64_t purpose, uint64_t k)
{
    return mix64(game_stream(seed, index) ^ purpose ^ mix64(k + purpose));
}
static inline uint64_t next_word(uint64_t *state)
{
    *state += GOLDEN;
    return mix64(*state);
}
static inline int uniform(uint64_t u, int n) { return (int)(((u >> 32) * (uint64_t)n) >> 32); }

static void shuffle(uint64_t state, int *a, int n)
{
    for (int i = n - 1; i > 0; i--) {
        int j = uniform(next_word(&state), i + 1);
        int t = a[i];
        a[i] = a[j];
        a[j] = t;
    }
}

/* ---------------------------------------------------------------- the pot */
typedef struct {
    int n;
    int8_t value[MAX_ITEMS], kind[MAX_ITEMS], owner[MAX_ITEMS];
    uint64_t m[MAX_ITEMS][2];  /* the item's cards */
} Pot;

typedef struct {
    int32_t slot, kind, value;
    uint64_t mask;  /* pot items taken or built on */
} Move;

typedef struct {  /* the move generator's work arrays (moves_nb.scratch_nb) */
    int cand[MAX_ITEMS], cval[MAX_ITEMS], stack[MAX_ITEMS + 1];
    int gspan[GSPAN_TOP + 1];
    uint64_t groups[MAX_GROUPS], joint[MAX_GROUPS], unions[MAX_MOVES];
} Scratch;

static inline uint64_t all_items(int pn) { return pn >= 64 ? ~0ULL : (1ULL << pn) - 1; }

/* MAX_ITEMS + 1 when the pot is full */
static inline int pot_add_loose(Pot *p, int card)
{
    int pn = p->n;
    if (pn >= MAX_ITEMS) return MAX_ITEMS + 1;
    p->value[pn] = VALUE_OF[card];
    p->kind[pn] = ITEM_LOOSE;
    p->owner[pn] = -1;
    p->m[pn][0] = 0;
    p->m[pn][1] = 0;
    set_add(p->m[pn], card);
    return pn + 1;
}

static inline void pot_take(Pot *p, uint64_t mask, uint64_t *into)
{
    int k = 0;
    for (int i = 0; i < p->n; i++) {
        if ((mask >> i) & 1) {
            into[0] |= p->m[i][0];
            into[1] |= p->m[i][1];
        } else {
            if (k != i) {
                p->value[k] = p->value[i];
                p->kind[k] = p->kind[i];
                p->owner[k] = p->owner[i];
                p->m[k][0] = p->m[i][0];
                p->m[k][1] = p->m[i][1];
            }
            k++;
        }
    }
    p->n = k;
}

/* ---------------------------------------------------------------- the move generator */
static inline int candidates(const Pot *p, int limit, int *cand, int *cval)
{
    int m = 0;
    for (int i = 0; i < p->n; i++) {
        int v = p->value[i];
        if (p->kind[i] == ITEM_LOOSE && v <= limit) {
            int k = m;
            while (k > 0 && cval[k - 1] < v) {
                cand[k] = cand[k - 1];
                cval[k] = cval[k - 1];
                k--;
            }
            cand[k] = i;
            cval[k] = v;
            m++;
        }
    }
    return m;
}

static inline int sum_reachable(const Pot *p, int target)
{
    unsigned reach = 1;
    for (int i = 0; i < p->n; i++) {
        int v = p->value[i];
        if (p->kind[i] == ITEM_LOOSE && v <= target) {
            reach |= (reach << v) & ALL_SUMS;
            if ((reach >> target) & 1) return 1;
        }
    }
    return 0;
}

/* append to groups[g0..] every set of the m candidates adding up to target; -1: full */
static int groups_walk(const int *cand, const int *cval, int m, int target, int *stack,
                       uint64_t *groups, int g0)
{
    int ng = g0, total = 0;
    for (int k = 0; k < m; k++) total += cval[k];
    if (total < target) return ng;
    int depth = 0, s = 0, left = total, i = 0;
    uint64_t mask = 0;
    for (;;) {
        if (i < m && s + left >= target) {
            int v = cval[i];
            left -= v;
            if (s + v <= target) {
                uint64_t bit = 1ULL << cand[i];
                if (s + v == target) {
                    if (ng >= MAX_GROUPS) return -1;
                    groups[ng++] = mask | bit;
                } else {
                    stack[depth++] = i;
                    s += v;
                    mask |= bit;
                }
            }
            i++;
        } else {
            if (depth == 0) return ng;
            int j = stack[--depth];
            s -= cval[j];
            mask ^= 1ULL << cand[j];
            left = 0;
            for (int k = j + 1; k < m; k++) left += cval[k];
            i = j + 1;
        }
    }
}

/* sort buf[lo..hi) and drop repeats; returns the new end */
static inline int dedupe(uint64_t *buf, int lo, int hi)
{
    if (hi - lo < 2) return hi;
    for (int i = lo + 1; i < hi; i++) {
        uint64_t x = buf[i];
        int j = i;
        while (j > lo && buf[j - 1] > x) {
            buf[j] = buf[j - 1];
            j--;
        }
        buf[j] = x;
    }
    int k = lo + 1;
    for (int i = lo + 1; i < hi; i++)
        if (buf[i] != buf[k - 1]) buf[k++] = buf[i];
    return k;
}

/* append base | U for every union U of pairwise disjoint groups[g_lo..g_hi) disjoint from base,
 * the empty union first, repeats dropped; -1: full */
static int unions_walk(const uint64_t *groups, int g_lo, int g_hi, uint64_t base, int *stack,
                       uint64_t *unions, int u0)
{
    if (u0 >= MAX_MOVES) return -1;
    unions[u0] = base;
    int nu = u0 + 1, depth = 0, i = g_lo;
    uint64_t cur = base;
    for (;;) {
        if (i < g_hi) {
            uint64_t g = groups[i];
            if ((g & cur) == 0) {
                if (nu >= MAX_MOVES) return -1;
                stack[depth++] = i;
                cur |= g;
                unions[nu++] = cur;
            }
            i++;
        } else {
            if (depth == 0) break;
            int j = stack[--depth];
            cur ^= groups[j];
            i = j + 1;
        }
    }
    return dedupe(unions, u0 + 1, nu);
}

static inline int push(Move *mv, int nm, int slot, int kind, int value, uint64_t mask)
{
    if (nm < 0 || nm >= MAX_MOVES) return -1;
    mv[nm].slot = slot;
    mv[nm].kind = kind;
    mv[nm].value = value;
    mv[nm].mask = mask;
    return nm + 1;
}

static inline int can_capture(const Pot *p, int card)
{
    int v = VALUE_OF[card];
    if (v > MAX_NUMBER) {
        for (int i = 0; i < p->n; i++)
            if (p->kind[i] == ITEM_LOOSE && p->value[i] == v) return 1;
        return 0;
    }
    for (int i = 0; i < p->n; i++)
        if (p->kind[i] != ITEM_LOOSE && p->value[i] == v) return 1;
    return sum_reachable(p, v);
}

/* where groups holds value v's groups, listed on first use; *hi = -1 when groups is full */
static inline void groups_of(int v, Scratch *sc, int m, int *lo, int *hi)
{
    if (sc->gspan[2 * v] >= 0) {
        *lo = sc->gspan[2 * v];
        *hi = sc->gspan[2 * v + 1];
        return;
    }
    int top = sc->gspan[GSPAN_TOP], start = 0;
    while (start < m && sc->cval[start] > v) start++;
    int h = groups_walk(sc->cand + start, sc->cval + start, m - start, v, sc->stack, sc->groups,
                        top);
    if (h < 0) {
        *lo = 0;
        *hi = -1;
        return;
    }
    sc->gspan[2 * v] = top;
    sc->gspan[2 * v + 1] = h;
    sc->gspan[GSPAN_TOP] = h;
    *lo = top;
    *hi = h;
}

static int captures(const Pot *p, int slot, int card, Move *mv, int nm, Scratch *sc, int m)
{
    int v = VALUE_OF[card];
    int face = v > MAX_NUMBER;
    /* a face card: the loose cards of its rank; a number card: the builds of its value */
    uint64_t same = 0;
    for (int i = 0; i < p->n; i++)
        if (p->value[i] == v && (p->kind[i] == ITEM_LOOSE) == face) same |= 1ULL << i;
    if (face) {
        for (uint64_t sub = same; sub != 0; sub = (sub - 1) & same)
            nm = push(mv, nm, slot, MV_CAPTURE, v, sub);
        return nm;
    }
    int lo, hi;
    groups_of(v, sc, m, &lo, &hi);
    if (hi < 0) return -1;
    int nu = unions_walk(sc->groups, lo, hi, 0, sc->stack, sc->unions, 0);
    if (nu < 0) return -1;
    uint64_t sub = same;  /* every subset of the builds of its value, the empty one last */
    for (;;) {
        for (int u = 0; u < nu; u++) {
            uint64_t mask = sub | sc->unions[u];
            if (mask != 0) nm = push(mv, nm, slot, MV_CAPTURE, v, mask);
        }
        if (sub == 0) break;
        sub = (sub - 1) & same;
    }
    return nm;
}

static inline unsigned held_values(const int *hand, int hn, int slot)
{
    unsigned held = 0;
    for (int j = 0; j < hn; j++)
        if (j != slot) {
            int v = VALUE_OF[hand[j]];
            if (v <= MAX_NUMBER) held |= 1u << v;
        }
    return held;
}

static inline int mask_sum(const Pot *p, uint64_t mask)
{
    int s = 0;
    for (int i = 0; i < p->n; i++)
        if ((mask >> i) & 1) s += p->value[i];
    return s;
}

static int builds(const Pot *p, int slot, int card, unsigned held, Move *mv, int nm, Scratch *sc,
                  int m)
{
    int w = VALUE_OF[card];
    if (w > MAX_NUMBER) return nm;
    for (int V = w; V <= MAX_NUMBER; V++) {
        if (!((held >> V) & 1)) continue;
        int need = V - w, o_lo = 0, o_hi = 0;
        if (need > 0) {  /* the card's own groups: loose cards adding up to V - w */
            groups_of(need, sc, m, &o_lo, &o_hi);
            if (o_hi < 0) return -1;
            if (o_hi == o_lo) continue;
        }
        int lo, hi;  /* the V-groups that may join: loose cards adding up to V, builds of V */
        groups_of(V, sc, m, &lo, &hi);
        if (hi < 0) return -1;
        int nj = 0;
        for (int g = lo; g < hi; g++) sc->joint[nj++] = sc->groups[g];
        for (int i = 0; i < p->n; i++)
            if (p->kind[i] != ITEM_LOOSE && p->value[i] == V) {
                if (nj >= MAX_GROUPS) return -1;
                sc->joint[nj++] = 1ULL << i;
            }
        int nu = 0, u0 = 0, several = 0;
        if (need == 0) {  /* the card alone is its group: it needs a further group */
            if (nj == 0) continue;
            nu = unions_walk(sc->joint, 0, nj, 0, sc->stack, sc->unions, 0);
            u0 = 1;
        } else {
            for (int k = o_lo; k < o_hi; k++) {
                nu = unions_walk(sc->joint, 0, nj, sc->groups[k], sc->stack, sc->unions, nu);
                if (nu < 0) return -1;
            }
            several = o_hi - o_lo > 1;
            if (several) nu = dedupe(sc->unions, 0, nu);
        }
        if (nu < 0) return -1;
        for (int u = u0; u < nu; u++) {
            uint64_t mask = sc->unions[u];
            int kind;
            if (several)
                kind = mask_sum(p, mask) == need ? MV_BUILD : MV_DOUBLE;
            else
                kind = u == 0 ? MV_BUILD : MV_DOUBLE;
            nm = push(mv, nm, slot, kind, V, mask);
        }
    }
    return nm;
}

static inline int raise_value(const Pot *p, int i, int w, unsigned held, int raise_double)
{
    int kind = p->kind[i];
    if (kind == ITEM_BUILD || (kind == ITEM_DOUBLE && raise_double)) {
        int V = p->value[i] + w;
        if (V <= MAX_NUMBER && ((held >> V) & 1)) return V;
    }
    return -1;
}

static inline int raises(const Pot *p, int slot, int card, unsigned held, int raise_double,
                         Move *mv, int nm)
{
    int w = VALUE_OF[card];
    if (w > MAX_NUMBER) return nm;
    for (int i = 0; i < p->n; i++) {
        int V = raise_value(p, i, w, held, raise_double);
        if (V >= 0) nm = push(mv, nm, slot, MV_RAISE, V, 1ULL << i);
    }
    return nm;
}

static inline int any_capture(const Pot *p, const int *hand, int hn)
{
    for (int j = 0; j < hn; j++)
        if (can_capture(p, hand[j])) return 1;
    return 0;
}

/* moves_nb.card_moves_nb: the legal moves of slots first..end-1, by slot, captures first */
static inline int card_moves(const Pot *p, const int *hand, int hn, int first, int end, int capture,
                             int build_instead, int raise_double, int with_builds, Move *mv,
                             Scratch *sc)
{
    int allow_builds = with_builds && (build_instead || !capture) && p->n > 0;
    int m = -1, nm = 0;
    for (int j = first; j < end; j++) {
        int card = hand[j];
        unsigned held = 0;
        if (allow_builds && VALUE_OF[card] <= MAX_NUMBER) held = held_values(hand, hn, j);
        if (m < 0 && (capture || held)) {
            m = candidates(p, MAX_NUMBER, sc->cand, sc->cval);
            for (int k = 0; k < GSPAN_TOP; k++) sc->gspan[k] = -1;
            sc->gspan[GSPAN_TOP] = 0;
        }
        if (capture) nm = captures(p, j, card, mv, nm, sc, m);
        if (held && nm >= 0) {
            nm = builds(p, j, card, held, mv, nm, sc, m);
            nm = raises(p, j, card, held, raise_double, mv, nm);
        }
        if (!capture) nm = push(mv, nm, j, MV_TRAIL, VALUE_OF[card], 0);
        if (nm < 0) return -1;
    }
    return nm;
}

static inline int builds_or_raises(const Pot *p, int card, unsigned held, int raise_double)
{
    int w = VALUE_OF[card];
    if (w > MAX_NUMBER) return 0;
    for (int V = w + 1; V <= MAX_NUMBER; V++)
        if (((held >> V) & 1) && sum_reachable(p, V - w)) return 1;
    for (int i = 0; i < p->n; i++)
        if (raise_value(p, i, w, held, raise_double) >= 0) return 1;
    return 0;
}

static inline int has_moves(const Pot *p, const int *hand, int hn, int slot, int capture,
                            int build_instead, int raise_double)
{
    if (!capture) return 1;
    int card = hand[slot];
    if (can_capture(p, card)) return 1;
    return build_instead && builds_or_raises(p, card, held_values(hand, hn, slot), raise_double);
}

/* ---------------------------------------------------------------- players */
static inline double set_worth(uint64_t lo, uint64_t hi, const double *worth)
{
    double total = 0.0;
    for (uint64_t x = lo; x; x &= x - 1) total += worth[__builtin_ctzll(x)];
    for (uint64_t x = hi; x; x &= x - 1) total += worth[64 + __builtin_ctzll(x)];
    return total;
}

static inline double mask_worth(uint64_t mask, const double *item_w)
{
    double total = 0.0;  /* items in ascending order, as the kernel adds them */
    for (uint64_t x = mask; x; x &= x - 1) total += item_w[__builtin_ctzll(x)];
    return total;
}

/* the random player: a uniform card among those with a legal move, then a uniform move of it */
static int random_move(uint64_t *rng, const Pot *p, const int *hand, int hn, int build_instead,
                       int raise_double, Move *mv, Scratch *sc, int *choice)
{
    int capture = any_capture(p, hand, hn);
    unsigned tried = 0;
    int left = hn;
    while (left > 0) {
        int k = uniform(next_word(rng), left);
        int slot = 0;
        for (int x = 0; x < hn; x++)
            if (!((tried >> x) & 1)) {
                if (k == 0) {
                    slot = x;
                    break;
                }
                k--;
            }
        if (has_moves(p, hand, hn, slot, capture, build_instead, raise_double)) {
            int nm = card_moves(p, hand, hn, slot, slot + 1, capture, build_instead, raise_double,
                                1, mv, sc);
            if (nm < 0) {
                *choice = -1;
                return nm;
            }
            if (nm > 0) {
                *choice = uniform(next_word(rng), nm);
                return nm;
            }
        }
        tried |= 1u << slot;
        left--;
    }
    *choice = -1;
    return 0;
}

/* the greedy player: the capture worth most, else the trail worth least (the first of equals) */
static int greedy_turn(const Pot *p, const int *hand, int hn, int build_instead, int raise_double,
                       Move *mv, Scratch *sc, const double *worth, double wip_points,
                       int stock_left, int *choice)
{
    int capture = any_capture(p, hand, hn);
    int nm = card_moves(p, hand, hn, 0, hn, capture, build_instead, raise_double, 0, mv, sc);
    *choice = -1;
    if (nm <= 0) return nm;
    int pn = p->n;
    double item_w[MAX_ITEMS];
    for (int i = 0; i < pn; i++) item_w[i] = set_worth(p->m[i][0], p->m[i][1], worth);
    uint64_t full = all_items(pn);
    int best = -1;
    double best_gain = -1e300;
    for (int k = 0; k < nm; k++) {
        int kind = mv[k].kind;
        double gain;
        if (kind == MV_CAPTURE) {
            gain = worth[hand[mv[k].slot]] + mask_worth(mv[k].mask, item_w);
            if (stock_left > 0 && mv[k].mask == full) gain += wip_points;
        } else if (kind == MV_TRAIL) {
            gain = -worth[hand[mv[k].slot]];
        } else {
            continue;
        }
        if (gain > best_gain) {
            best_gain = gain;
            best = k;
        }
    }
    *choice = best;
    return nm;
}

/* ---------------------------------------------------------------- rules */
/* play card (already out of the hand) as (kind, value, mask) of seat; returns flags */
static inline int play_move(Pot *p, int card, int kind, int value, uint64_t mask, int seat,
                            uint64_t *pile)
{
    int flags = 0;
    if (kind == MV_CAPTURE) {
        for (uint64_t x = mask; x; x &= x - 1) {
            int i = __builtin_ctzll(x);
            if (p->kind[i] != ITEM_LOOSE && p->owner[i] != seat) {
                flags |= TOOK_BUILD_OF_OTHER;
                break;
            }
        }
        pot_take(p, mask, pile);
        set_add(pile, card);
    } else if (kind == MV_TRAIL) {
        int pn = pot_add_loose(p, card);
        if (pn > MAX_ITEMS) return POT_FULL;
        p->n = pn;
    } else if (kind == MV_RAISE) {
        int i = __builtin_ctzll(mask);
        p->value[i] = (int8_t)value;
        p->kind[i] = ITEM_BUILD;
        p->owner[i] = (int8_t)seat;
        set_add(p->m[i], card);
    } else {  /* MV_BUILD, MV_DOUBLE: the card and the items become one build at the end */
        uint64_t tmp[2] = {0, 0};
        pot_take(p, mask, tmp);
        int pn = p->n;
        p->value[pn] = (int8_t)value;
        p->kind[pn] = kind == MV_BUILD ? ITEM_BUILD : ITEM_DOUBLE;
        p->owner[pn] = (int8_t)seat;
        p->m[pn][0] = tmp[0];
        p->m[pn][1] = tmp[1];
        set_add(p->m[pn], card);
        p->n = pn + 1;
    }
    return flags;
}

static void deal_points(uint64_t piles[][2], int n, const int *wips, const int64_t *rule,
                        int64_t points[][N_SOURCES])
{
    int best_c = -1, best_s = -1, n_best_c = 0, n_best_s = 0;
    for (int s = 0; s < n; s++) {
        int c = __builtin_popcountll(piles[s][0]) + __builtin_popcountll(piles[s][1]);
        int sp = set_count(piles[s], SPADE_SET);
        if (c > best_c) {
            best_c = c;
            n_best_c = 1;
        } else if (c == best_c) {
            n_best_c++;
        }
        if (sp > best_s) {
            best_s = sp;
            n_best_s = 1;
        } else if (sp == best_s) {
            n_best_s++;
        }
    }
    for (int s = 0; s < n; s++) {
        int c = __builtin_popcountll(piles[s][0]) + __builtin_popcountll(piles[s][1]);
        int sp = set_count(piles[s], SPADE_SET);
        points[s][SRC_CARDS] = c == best_c && n_best_c == 1 ? rule[R_PTS_CARDS] : 0;
        points[s][SRC_SPADES] = sp == best_s && n_best_s == 1 ? rule[R_PTS_SPADES] : 0;
        points[s][SRC_DIAMOND_TEN] = rule[R_PTS_DIAMOND_TEN] * set_count(piles[s], DIAMOND_TEN_SET);
        points[s][SRC_SPADE_TWO] = rule[R_PTS_SPADE_TWO] * set_count(piles[s], SPADE_TWO_SET);
        points[s][SRC_ACES] = rule[R_PTS_ACE] * set_count(piles[s], ACE_SET);
        points[s][SRC_WIPS] = rule[R_PTS_WIP] * wips[s];
    }
}

/* ---------------------------------------------------------------- the driver */
typedef struct {
    int n, policy[MAX_PLAYERS];
    int64_t rule[N_RULES];
    uint64_t seed;
    int decks, n_in, n_removed, build_instead, raise_double;
    int in_play[N_CARDS];
    double worth[N_CARDS], wip_points;
} Arm;

typedef struct {  /* the kernel's output record (enums.OUT_DTYPE), the seats used */
    int32_t winner_mask, turns, rounds, decks, removed;
    int32_t score[MAX_PLAYERS], sources[MAX_PLAYERS][N_SOURCES], acts[MAX_PLAYERS][N_ACTS];
    int32_t position_points[MAX_PLAYERS];
} Row;

typedef struct {
    Scratch sc;
    Move mv[MAX_MOVES];
} Work;

static void arm_init(Arm *a)
{
    int n = a->n;
    a->decks = a->rule[R_DECKS] == 0 ? (n >= 4 ? 2 : 1) : (int)a->rule[R_DECKS];
    int cards = a->decks * DECK_CARDS;
    int r = (cards - POT_START) % (HAND * n);
    int removed[N_CARDS], k = 0;
    static const int ranks[3] = {KING, QUEEN, JACK};
    for (int ri = 0; ri < 3; ri++)
        for (int suit = 0; suit < 4; suit++)
            for (int copy = 0; copy < 2; copy++) {
                int c = copy * DECK_CARDS + suit * N_RANKS + ranks[ri];
                if (k < r && c < cards) removed[k++] = c;
            }
    int m = 0;
    for (int c = 0; c < cards; c++) {
        int out = 0;
        for (int j = 0; j < r; j++)
            if (removed[j] == c) out = 1;
        if (!out) a->in_play[m++] = c;
    }
    a->n_in = m;
    a->n_removed = r;
    for (int c = 0; c < N_CARDS; c++) {
        double w = CARD_WEIGHT * (double)a->rule[R_PTS_CARDS];
        if (set_has(SPADE_SET, c)) w += SPADE_WEIGHT * (double)a->rule[R_PTS_SPADES];
        if (set_has(ACE_SET, c)) w += (double)a->rule[R_PTS_ACE];
        if (set_has(DIAMOND_TEN_SET, c)) w += (double)a->rule[R_PTS_DIAMOND_TEN];
        if (set_has(SPADE_TWO_SET, c)) w += (double)a->rule[R_PTS_SPADE_TWO];
        a->worth[c] = w;
    }
    a->wip_points = (double)a->rule[R_PTS_WIP];
    a->build_instead = a->rule[R_BUILD_INSTEAD] != 0;
    a->raise_double = a->rule[R_RAISE_DOUBLE] != 0;
}

/* two cards at a time to each player clockwise from the dealer's left, twice */
static inline int deal_hands(const int *stock, int top, int hands[][HAND], int *hand_n, int n,
                             int dealer)
{
    for (int round = 0; round < HAND / 2; round++) {
        int s = dealer + 1 < n ? dealer + 1 : 0;
        for (int q = 0; q < n; q++) {
            hands[s][hand_n[s]++] = stock[top++];
            hands[s][hand_n[s]++] = stock[top++];
            s = s + 1 < n ? s + 1 : 0;
        }
    }
    return top;
}

static int play_game(const Arm *a, Work *w, int64_t g, Row *row)
{
    const int n = a->n, n_in = a->n_in;
    uint64_t seat_rng[MAX_PLAYERS];
    int64_t totals[MAX_PLAYERS], sources[MAX_PLAYERS][N_SOURCES], points[MAX_PLAYERS][N_SOURCES];
    int32_t acts[MAX_PLAYERS][N_ACTS];
    int64_t position_points[MAX_PLAYERS];
    int stock[N_CARDS], hands[MAX_PLAYERS][HAND], hand_n[MAX_PLAYERS], wips[MAX_PLAYERS];
    uint64_t piles[MAX_PLAYERS][2];
    Pot pot;
    memset(sources, 0, sizeof sources);
    memset(acts, 0, sizeof acts);
    for (int s = 0; s < n; s++) {
        seat_rng[s] = substream(a->seed, (uint64_t)g, SALT_SEAT, (uint64_t)s);
        totals[s] = 0;
        position_points[s] = 0;
    }
    int dealer = n - 1;
    int64_t deal = 0, turns = 0;
    for (;;) {
        memcpy(stock, a->in_play, sizeof(int) * (size_t)n_in);
        shuffle(substream(a->seed, (uint64_t)g, SALT_DEAL, (uint64_t)deal), stock, n_in);
        int last_capturer = -1;
        for (int s = 0; s < n; s++) {
            piles[s][0] = piles[s][1] = 0;
            wips[s] = 0;
            hand_n[s] = 0;
        }
        pot.n = 0;
        int top = deal_hands(stock, 0, hands, hand_n, n, dealer);
        for (int j = 0; j < POT_START; j++) pot.n = pot_add_loose(&pot, stock[top++]);
        for (;;) {
            int s = dealer + 1 < n ? dealer + 1 : 0;
            for (int t = 0; t < HAND * n; t++) {
                int *hand = hands[s], hn = hand_n[s], choice, nm;
                if (a->policy[s] == P_RANDOM)
                    nm = random_move(&seat_rng[s], &pot, hand, hn, a->build_instead,
                                     a->raise_double, w->mv, &w->sc, &choice);
                else
                    nm = greedy_turn(&pot, hand, hn, a->build_instead, a->raise_double, w->mv,
                                     &w->sc, a->worth, a->wip_points, n_in - top, &choice);
                if (nm <= 0 || choice < 0) return ST_INVARIANT;
                const Move mv = w->mv[choice];
                int card = hand[mv.slot];
                for (int j = mv.slot; j < hn - 1; j++) hand[j] = hand[j + 1];
                hand_n[s] = hn - 1;
                int flags = play_move(&pot, card, mv.kind, mv.value, mv.mask, s, piles[s]);
                if (flags & POT_FULL) return ST_INVARIANT;
                turns++;
                switch (mv.kind) {
                case MV_CAPTURE:
                    acts[s][A_CAPTURES]++;
                    last_capturer = s;
                    if (flags & TOOK_BUILD_OF_OTHER) acts[s][A_TAKEOVERS]++;
                    if (pot.n == 0 && top < n_in) {
                        wips[s]++;
                        acts[s][A_WIPS]++;
                    }
                    break;
                case MV_BUILD: acts[s][A_BUILDS]++; break;
                case MV_RAISE: acts[s][A_RAISES]++; break;
                case MV_DOUBLE: acts[s][A_DOUBLES]++; break;
                }
                s = s + 1 < n ? s + 1 : 0;
            }
            if (top >= n_in) break;
            top = deal_hands(stock, top, hands, hand_n, n, dealer);
        }
        /* the end of the deal: the last capturer takes what is left (no wip) */
        if (last_capturer >= 0) pot_take(&pot, all_items(pot.n), piles[last_capturer]);
        deal_points(piles, n, wips, a->rule, points);
        for (int s = 0; s < n; s++) {
            int64_t pts = 0;
            for (int x = 0; x < N_SOURCES; x++) {
                pts += points[s][x];
                sources[s][x] += points[s][x];
            }
            totals[s] += pts;
            acts[s][A_TAKEN] +=
                __builtin_popcountll(piles[s][0]) + __builtin_popcountll(piles[s][1]);
            int position = s - dealer - 1;
            if (position < 0) position += n;
            position_points[position] += pts;
        }
        deal++;
        if (a->rule[R_DEALS] > 0) {
            if (deal >= a->rule[R_DEALS]) break;
        } else {
            int64_t best = totals[0];
            for (int s = 1; s < n; s++)
                if (totals[s] > best) best = totals[s];
            if (best >= a->rule[R_TARGET]) break;
        }
        if (deal >= MAX_DEALS) return ST_TOO_LONG;
        dealer = dealer + 1 < n ? dealer + 1 : 0;
    }
    if (turns > MAX_TURNS) return ST_TOO_LONG;
    int64_t best = totals[0];
    for (int s = 1; s < n; s++)
        if (totals[s] > best) best = totals[s];
    int32_t mask_w = 0;
    for (int s = 0; s < n; s++) {
        if (totals[s] == best) mask_w |= 1 << s;
        row->score[s] = (int32_t)totals[s];
        for (int x = 0; x < N_SOURCES; x++) row->sources[s][x] = (int32_t)sources[s][x];
        for (int x = 0; x < N_ACTS; x++) row->acts[s][x] = acts[s][x];
        row->position_points[s] = (int32_t)position_points[s];
    }
    row->winner_mask = mask_w;
    row->turns = (int32_t)turns;
    row->rounds = (int32_t)deal;
    row->decks = a->decks;
    row->removed = a->n_removed;
    return ST_OK;
}

/* ---------------------------------------------------------------- main */
static int parse_list(const char *text, int64_t *out, int max)
{
    int k = 0;
    const char *p = text;
    while (*p) {
        char *end;
        long long v = strtoll(p, &end, 10);
        if (end == p || k >= max) return -1;
        out[k++] = v;
        p = end;
        if (*p == ',') p++;
        else if (*p) return -1;
    }
    return k;
}

static double cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void print_full(const Row *r, int n)
{
    /* winner_mask turns rounds decks removed, then per field n values: score, points_cards,
     * points_spades, points_diamond_ten, points_spade_two, points_aces, points_wips, captures,
     * builds, raises, double_builds, takeovers, wips, cards_taken, position_points */
    printf("%d %d %d %d %d", r->winner_mask, r->turns, r->rounds, r->decks, r->removed);
    for (int s = 0; s < n; s++) printf(" %d", r->score[s]);
    for (int x = 0; x < N_SOURCES; x++)
        for (int s = 0; s < n; s++) printf(" %d", r->sources[s][x]);
    for (int x = 0; x < N_ACTS; x++)
        for (int s = 0; s < n; s++) printf(" %d", r->acts[s][x]);
    for (int s = 0; s < n; s++) printf(" %d", r->position_points[s]);
    putchar('\n');
}

static int usage(void)
{
    fputs("usage: wippen_ref rows|full|time SEED FIRST COUNT PLAYERS POLICIES RULES [REPEATS]\n"
          "  POLICIES: a policy id per seat, comma-separated (0 random, 1 greedy)\n"
          "  RULES: the 11 rule ints in RULE_I_ORDER, comma-separated\n", stderr);
    return 2;
}

int main(int argc, char **argv)
{
    if (argc < 8 || argc > 9) return usage();
    const char *mode = argv[1];
    int rows = !strcmp(mode, "rows"), full = !strcmp(mode, "full"), timing = !strcmp(mode, "time");
    if (!rows && !full && !timing) return usage();
    long long seed = atoll(argv[2]), first = atoll(argv[3]), count = atoll(argv[4]);
    int n = atoi(argv[5]);
    long repeats = argc == 9 ? atol(argv[8]) : 1;
    Arm arm;
    memset(&arm, 0, sizeof arm);
    int64_t pol[MAX_PLAYERS + 1];
    if (seed < 0 || first < 0 || count < 0 || repeats < 1 || n < MIN_PLAYERS || n > MAX_PLAYERS
        || parse_list(argv[6], pol, MAX_PLAYERS + 1) != n
        || parse_list(argv[7], arm.rule, N_RULES) != N_RULES) {
        fprintf(stderr, "status %d game -1\n", ST_BAD_ARGS);
        return usage();
    }
    const int64_t *r = arm.rule;
    int bad = r[R_DECKS] < 0 || r[R_DECKS] > 2 || r[R_TARGET] < 1 || r[R_DEALS] < 0
              || r[R_DEALS] > MAX_DEALS;
    for (int k = R_BUILD_INSTEAD; k < N_RULES; k++) bad |= r[k] < 0;
    for (int s = 0; s < n; s++) {
        bad |= pol[s] != P_RANDOM && pol[s] != P_GREEDY;
        arm.policy[s] = (int)pol[s];
    }
    if (bad) {
        fprintf(stderr, "status %d game -1\n", ST_BAD_ARGS);
        return 10 + ST_BAD_ARGS;
    }
    init_tables();
    arm.n = n;
    arm.seed = (uint64_t)seed;
    arm_init(&arm);

    static Work work;  /* ~330 KB: static rather than on the stack */
    Row *out = calloc((size_t)(count > 0 ? count : 1), sizeof(Row));
    if (!out) return 1;
    uint64_t checksum = 0;
    for (long rep = 0; rep < (timing ? repeats : 1); rep++) {
        double t0 = cpu_seconds();
        for (long long k = 0; k < count; k++) {
            int st = play_game(&arm, &work, first + k, &out[k]);
            if (st != ST_OK) {
                fprintf(stderr, "status %d game %lld\n", st, first + k);
                return 10 + st;
            }
        }
        double t1 = cpu_seconds();
        long long plays = 0;
        for (long long k = 0; k < count; k++) {
            plays += out[k].turns;
            checksum = checksum * 1000003u + (uint64_t)out[k].turns;
            checksum = checksum * 1000003u + (uint64_t)out[k].winner_mask;
            for (int s = 0; s < n; s++) checksum = checksum * 1000003u + (uint64_t)out[k].score[s];
        }
        if (timing)
            printf("repeat %ld cpu_s %.6f card_plays %lld games %lld\n", rep, t1 - t0, plays,
                   count);
    }
    if (timing) {
        printf("checksum %llu\n", (unsigned long long)checksum);
    } else {
        for (long long k = 0; k < count; k++) {
            const Row *o = &out[k];
            if (full) {
                print_full(o, n);
            } else {
                printf("%d %d %d", o->turns, o->rounds, o->winner_mask);
                for (int s = 0; s < n; s++) printf(" %d", o->score[s]);
                putchar('\n');
            }
        }
    }
    free(out);
    return 0;
}
