"""Wippen: registry entry and the thin layer that drives kernels/wippen (imported lazily)."""
from __future__ import annotations

import math

from sim.contract import GameRunner
from sim.errors import SpecError
from sim.params import BoolParam, FloatParam, IntParam
from sim.registry import Column, Game, Policy, Score

RULINGS = "ruling, docs/rules/wippen.md"
MAX_DEALS = 250  # kernels/wippen/enums.MAX_DEALS
DOC = "docs/rules/wippen.md"


def _points(name, default, what, source):
    return IntParam(name, default, 0, 10, f"points per deal for {what}", source)


def _seat_list(name, dtype, help):
    return Column(name, f"list<{dtype}>", help, "seats")


GAME = Game(
    name="wippen",
    title="Wippen",
    version=2,
    min_players=2,
    max_players=6,
    rules=(
        IntParam("decks", 0, 0, 2, "decks in play: 0 = by players (one for 2-3 players, two from 4), "
                 "1 or 2 (two only from 4 players)", "text: 'Bij vier of meer spelers kan men twee "
                 "kaartspellen combineren tot 104 kaarten'; " + RULINGS + " (param decks)"),
        IntParam("target", 52, 1, 200, "the game ends after the deal in which a player reaches this "
                 "many points (when deals = 0)", "text: 'Vooraf wordt afgesproken tot welk aantal "
                 "punten er gespeeld wordt, bijvoorbeeld tot 52'; " + RULINGS + " (param target)"),
        IntParam("deals", 0, 0, MAX_DEALS, "0 = play to the target; N = play exactly N deals",
                 "text: 'of hoeveel spelrondes er worden gespeeld'; " + RULINGS + " (param deals)"),
        BoolParam("build_instead_of_capture", True, "a build, double build or raise may be chosen "
                  "while a capture is possible (a trail never may)", "FAQ: 'als een speler een kaart "
                  "uit de pot kan nemen, is dit verplicht'; " + RULINGS +
                  " (param build_instead_of_capture, default on)"),
        BoolParam("raise_double", False, "a double build may be raised too (it then becomes a "
                  "single build of the new value)", "FAQ: 'de waarde van een dubbele bouw mag niet "
                  "meer worden gewijzigd. Wel kunnen sommige groepen afspreken dat optellen nog "
                  "mag'; " + DOC + " (default off)"),
        _points("points_most_cards", 2, "the most cards (a tie: nobody)",
                "text: 'De meeste kaarten leveren 2 punten op'; " + RULINGS),
        _points("points_most_spades", 2, "the most spades (a tie: nobody)",
                "text: 'evenals de meeste schoppen'; " + RULINGS),
        _points("points_diamond_ten", 2, "each diamond 10", "text: 'de ruiten tien (♢10) is goed "
                "voor 2 punten'; " + RULINGS),
        _points("points_spade_two", 1, "each spade 2", "text: 'de schoppen twee (♤2) voor 1 punt'; "
                + RULINGS),
        _points("points_ace", 1, "each ace", "text: 'elke aas voor 1 punt'; " + RULINGS),
        _points("points_wip", 1, "each wip", "text: 'levert een wip ... 1 extra punt op, mits er "
                "nog kaarten over zijn om te delen'; " + RULINGS),
    ),
    policies=(
        Policy("greedy", 1, "takes the capture worth most (aces, the diamond 10, the spade 2, "
               "spades, cards, a wip); without a capture trails the card worth least; never builds"),
        Policy("random", 0, "a uniformly random card among those with a legal move, then a "
               "uniformly random legal move of that card (captures, builds, double builds, raises, "
               "trails)"),
        Policy("defensive", 2, "greedy's worth of a capture or trail minus `risk` times what the "
               "next player could take from the pot it leaves, judged from the cards it has not "
               "seen", params=(
                   FloatParam("risk", 1.0, 0.0, 5.0, "weight of what the next player could take "
                              "(0 = greedy)", DOC + " (a player's knob)"),)),
        Policy("builder", 3, "collects its own builds first; builds for a value it holds when the "
               "next player holds that value with chance at most `max_risk` and the build is "
               "worth more than the best capture; otherwise greedy", params=(
                   FloatParam("max_risk", 0.35, 0.0, 1.0, "the largest chance that the next player "
                              "holds a build's value for the builder to make it",
                              DOC + " (a player's knob)"),)),
        Policy("search", 4, "determinized Monte Carlo: at each choice deals the unseen cards "
               "(the other hands and the stock) `samples` times, plays builder's choice and its "
               "best-ranked alternatives (at most 5) out to the end of the deal with builder at "
               "every seat, and takes the option with the best mean (its win share when the deal "
               "ends the game, else its points lead relative to the target), keeping builder's "
               "own choice unless another is better beyond noise", params=(
                   IntParam("samples", 16, 1, 1024, "search: determinizations (deals of the "
                            "unseen cards) per decision; each plays every option out to the end "
                            "of the deal", DOC + " (the search player's budget)"),)),
    ),
    columns=(
        Column("decks", "int8", "decks in play (1 or 2)"),
        Column("removed", "int8", "face cards removed before each deal so that the deal divides"),
        _seat_list("points_cards", "int32", "points per seat for the most cards"),
        _seat_list("points_spades", "int32", "points per seat for the most spades"),
        _seat_list("points_diamond_ten", "int32", "points per seat for diamond 10s"),
        _seat_list("points_spade_two", "int32", "points per seat for spade 2s"),
        _seat_list("points_aces", "int32", "points per seat for aces"),
        _seat_list("points_wips", "int32", "points per seat for wips"),
        _seat_list("cards_taken", "int16", "cards per seat captured over the game (the rest taken "
                   "at the end of each deal included)"),
        _seat_list("captures", "int16", "captures per seat"),
        _seat_list("builds", "int16", "builds per seat (single builds made)"),
        _seat_list("raises", "int16", "raises per seat"),
        _seat_list("double_builds", "int16", "double builds per seat"),
        _seat_list("takeovers", "int16", "captures per seat that took another player's build"),
        _seat_list("wips", "int16", "wips per seat"),
        Column("position_points", "list<int32>", "points scored from each play position, summed "
               "over the deals: position 0 plays first (left of the dealer), position n-1 is the "
               "dealer (plays last in every hand)", "seats"),
    ),
    score=Score("points", higher_wins=True),
    max_turns=25000,  # kernels/wippen/enums.MAX_TURNS: MAX_DEALS deals of at most 100 cards
)


def decks_of(arm) -> int:
    decks = arm.rule_values["decks"]
    return decks or (2 if arm.players >= 4 else 1)


def longest_game(arm) -> int | None:
    """The most deals a game to the target can take (every deal hands out at least the points of
    the aces, diamond 10s and spade 2s in play, to someone), None when it has no bound."""
    rules = arm.rule_values
    if rules["deals"]:
        return rules["deals"]
    decks = decks_of(arm)
    sure = decks * (4 * rules["points_ace"] + rules["points_diamond_ten"] + rules["points_spade_two"])
    if sure == 0:
        return None
    return math.ceil(rules["target"] * arm.players / sure)


class WippenRunner(GameRunner):
    game = GAME
    kernel_module = "kernels.wippen.play_nb"
    search_policy = "search"  # compiled only for a table that seats it (sim/contract.py)
    enums_module = "kernels.wippen.enums"
    trace_rows = 1 << 16
    rotates = True

    def check_arm(self, arm) -> None:
        rules = arm.rule_values
        if rules["decks"] == 2 and arm.players < 4:
            raise SpecError(f"decks=2: two decks are for four or more players, not {arm.players}")
        deals = longest_game(arm)
        if deals is None:
            raise SpecError("with points_ace, points_diamond_ten and points_spade_two all 0 a game "
                            "to the target may never end: give them points or set deals")
        if deals > MAX_DEALS:
            raise SpecError(f"a game to target={rules['target']} could take {deals} deals with these "
                            f"points, more than {MAX_DEALS}: lower the target or set deals")

    def render_trace(self, arm, seed, index, rows, record) -> str:
        from sim.games.wippen_trace import render

        return render(arm, seed, index, rows, record)


RUNNER = WippenRunner()
