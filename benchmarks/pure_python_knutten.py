"""Knutten in plain Python, written the way a user would write it first: lists, tuples, the
`random` module, no numpy, no Numba. The benchmark suite times it against the kernel so that the
kernels' speed-up is measured, not claimed.

It plays the same game as kernels/knutten with every seat on the `random` policy (rules: the seed
rules as docs/rules/knutten.md describes them, deck: sim/games/knutten.DEFAULT_DECK):

- a turn plays one hand card, choosing one of its values; a value that takes the swarm below 0 is
  not allowed; `?` copies the next real card's value (chained `?`s all copy it); John Knut is
  laid before a player with the fewest bites, who takes a bite unless that bite would end the game;
  while John lies on the table every 5 counts 0; the player with John before them may pass to
  discard it; after playing, the player draws one card;
- making the swarm reach the threshold (31) is one bite (heavy weather: swarm - 30 bites) and ends
  the round; the bitten player chooses the next start player;
- three identical cards in a hand after a draw (or the deal) is WIND: every other player takes a
  bite, the round ends and the caller chooses the start player;
- a player with no legal card shows the hand, puts it under the draw pile, takes a bite and draws
  back up to the hand limit;
- when the pile is empty and every hand is empty, the swarm (its total kept) becomes the new pile;
- the game ends when a player has 3 bites; the players with the fewest bites win.

A random player picks uniformly among its legal (card, value) moves, John targets and start
players, like the kernel's `random` policy. The random streams differ from the kernel's, so single
games differ; averages (turns per game, rounds, who wins) agree within sampling error, which the
suite checks and reports.

    python benchmarks/pure_python_knutten.py [GAMES] [--players 4] [--john]
"""
from __future__ import annotations

import random
import sys
import time
from collections import Counter

# (kind, first value, second value, copies), as sim/games/knutten.DEFAULT_DECK
DEFAULT_DECK = [
    ("value", 1, 6, 4), ("value", 2, 7, 4), ("value", 3, 8, 4), ("value", 4, 9, 4),
    ("value", 5, 10, 4), ("value", 6, 11, 4), ("value", 1, 11, 4), ("value", 2, 9, 4),
    ("value", -10, -10, 5), ("copy", 0, 0, 4),
]


class KnuttenGame:
    """One game of Knutten with random players. `play()` returns a dict of results."""

    def __init__(self, players=4, rng=None, john_knut=False, threshold=31, hand_limit=3,
                 bites_to_end=3, heavy_weather=False, heavy_bites_to_end=11, deck=DEFAULT_DECK):
        self.n = players
        self.rng = rng or random.Random()
        self.threshold = threshold
        self.hand_limit = hand_limit
        self.heavy = heavy_weather
        self.end_at = heavy_bites_to_end if heavy_weather else bites_to_end
        # a card is a tuple (kind, a, b, design); copies of a design are equal tuples
        self.cards = []
        for design, (kind, a, b, copies) in enumerate(deck):
            self.cards += [(kind, a, b, design)] * copies
        self.john = ("john", 0, 0, len(deck)) if john_knut else None
        if self.john:
            self.cards.append(self.john)

    # ------------------------------------------------------------------ the whole game
    def play(self):
        self.bites = [0] * self.n
        self.john_seat = None  # seat John lies before, or None
        self.turns = 0
        self.rounds = 0
        start = 0
        while True:
            chooser = self.play_round(start)
            if chooser is None:
                break
            start = self.rng.randrange(self.n)  # a random player picks any start player
        fewest = min(self.bites)
        winners = [p for p in range(self.n) if self.bites[p] == fewest]
        return {"turns": self.turns, "rounds": self.rounds, "bites": list(self.bites),
                "winners": winners}

    def game_over(self):
        return max(self.bites) >= self.end_at

    # ------------------------------------------------------------------ one round
    def play_round(self, start):
        """Plays a round; returns who chooses the next start player, or None when the game ended."""
        self.rounds += 1
        self.pile = [c for c in self.cards if not (c is self.john and self.john_seat is not None)]
        self.rng.shuffle(self.pile)  # the top of the pile is the end of the list
        self.swarm_cards = []
        self.discard = []
        self.swarm = 0
        self.pending = 0  # `?` cards waiting for the next real value
        self.hands = [[] for _ in range(self.n)]
        for _ in range(self.hand_limit):
            for k in range(self.n):
                self.draw((start + k) % self.n)
        caller = self.wind_caller(start)
        if caller is not None:
            return self.wind(caller)
        p = start
        while True:
            hand = self.hands[p]
            if not hand:
                if self.pile or any(self.hands):
                    p = (p + 1) % self.n
                    continue
                # nobody can play any more: the swarm becomes the new pile, its total kept
                self.pile = self.swarm_cards + self.discard
                self.rng.shuffle(self.pile)
                self.swarm_cards = []
                self.discard = []
                for k in range(self.n):
                    self.fill_hand((p + k) % self.n)
                caller = self.wind_caller(p)
                if caller is not None:
                    return self.wind(caller)
                continue
            self.turns += 1
            moves = self.legal_moves(p)
            if not moves:
                # cannot play: show the hand, put it under the pile, take a bite, draw again
                self.pile[0:0] = reversed(hand)
                self.hands[p] = []
                self.bites[p] += 1
                if self.game_over():
                    return None
                self.fill_hand(p)
            else:
                move = self.rng.choice(moves)
                if move == "discard":
                    self.discard.append(self.john)
                    self.john_seat = None
                else:
                    slot, side = move
                    card = hand.pop(slot)
                    if self.play_card(p, card, side):
                        self.bites[p] += self.swarm - (self.threshold - 1) if self.heavy else 1
                        return None if self.game_over() else p
                    self.draw(p)
            if self.three_alike(p):
                return self.wind(p)
            p = (p + 1) % self.n

    # ------------------------------------------------------------------ helpers
    def counted(self, value):
        return 0 if value == 5 and self.john_seat is not None else value

    def swarm_after(self, value):
        return self.swarm + self.counted(value) * (1 + self.pending)

    def legal_moves(self, p):
        moves = []
        for slot, (kind, a, b, _) in enumerate(self.hands[p]):
            if kind != "value":
                moves.append((slot, 0))
                continue
            if self.swarm_after(a) >= 0:
                moves.append((slot, 0))
            if b != a and self.swarm_after(b) >= 0:
                moves.append((slot, 1))
        if self.john_seat == p:
            moves.append("discard")
        return moves

    def play_card(self, p, card, side):
        """Returns True when the card made the swarm reach the threshold."""
        kind, a, b, _ = card
        if kind == "john":
            fewest = min(self.bites)
            candidates = [q for q in range(self.n) if self.bites[q] == fewest]
            target = self.rng.choice(candidates)
            self.john_seat = target
            if fewest + 1 < self.end_at:
                self.bites[target] += 1
            return False
        self.swarm_cards.append(card)
        if kind == "copy":
            self.pending += 1
            return False
        self.swarm = self.swarm_after(a if side == 0 else b)
        self.pending = 0
        return self.swarm >= self.threshold

    def draw(self, p):
        if self.pile:
            self.hands[p].append(self.pile.pop())

    def fill_hand(self, p):
        while len(self.hands[p]) < self.hand_limit and self.pile:
            self.draw(p)

    def three_alike(self, p):
        counts = Counter(card[3] for card in self.hands[p])
        return any(c >= 3 for c in counts.values())

    def wind_caller(self, first):
        for k in range(self.n):
            p = (first + k) % self.n
            if self.three_alike(p):
                return p
        return None

    def wind(self, caller):
        for q in range(self.n):
            if q != caller:
                self.bites[q] += 1
        return None if self.game_over() else caller


def play_games(count, seed=0, players=4, **rules):
    """Play `count` games; returns the list of result dicts."""
    rng = random.Random(seed)
    return [KnuttenGame(players, rng, **rules).play() for _ in range(count)]


def main(argv=None):
    args = list(sys.argv[1:] if argv is None else argv)
    players = 4
    if "--players" in args:
        i = args.index("--players")
        players = int(args[i + 1])
        del args[i:i + 2]
    john = "--john" in args
    if john:
        args.remove("--john")
    count = int(args[0]) if args else 10_000
    began = time.perf_counter()
    results = play_games(count, seed=1, players=players, john_knut=john)
    seconds = time.perf_counter() - began
    turns = sum(r["turns"] for r in results) / count
    print(f"{count} games, {players} players, John Knut {'on' if john else 'off'}: "
          f"{count / seconds:,.0f} games/s, {turns:.2f} turns per game")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
