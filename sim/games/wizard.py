"""Wizard: registry entry and the thin layer that drives kernels/wizard (imported lazily)."""
from __future__ import annotations

from sim.contract import GameRunner
from sim.errors import SpecError
from sim.params import BoolParam, IntParam
from sim.registry import Column, Game, Policy, Score

SAMPLES = IntParam(
    "samples", 32, 1, 1024, "random deals of the unseen cards on which the search player plays "
    "out every option of a decision (bid, card, trump suit); more is stronger and slower",
    "not in the text: a player parameter of the search player (docs/rules/wizard.md)")

GAME = Game(
    name="wizard",
    title="Wizard",
    version=5,
    min_players=3,
    max_players=6,
    rules=(
        IntParam("rounds", 0, 0, 20, "rounds to play, round r dealing r cards each: 0 = all "
                 "60/players rounds (20, 15, 12, 10); N = a shorter game of rounds 1..N",
                 "text: 'Dit gaat zo door totdat het hele kaartspel is gedeeld'; ruling: a parameter, "
                 "rounds, default all"),
        BoolParam("hook_rule", False, "the dealer, bidding last, may not bid so that the bids "
                  "add up to the number of cards dealt each", "not in the text; ruling: a parameter, "
                  "hook_rule, default off"),
        BoolParam("final_no_trump", False, "in a shortened game (rounds < 60/players) the last "
                  "round is also played without trump, as the full game's last round is",
                  "text: 'Er is geen troefkleur voor de laatste ronde'; docs/rules/wizard.md "
                  "(default off: with cards left a trump card is turned)"),
        BoolParam("strict_void", False, "a player who cannot follow suit must play a Wizard or "
                  "Jester if holding one (the FAQ read literally)", "text, FAQ: 'Als geen van deze "
                  "opties mogelijk is, mag een speler een kaart naar keuze spelen'; "
                  "docs/rules/wizard.md (default off, as the ruling reads the play rules)"),
    ),
    policies=(
        Policy("heuristic", 1, "bids for the best expected score from each card's chance of taking "
               "a trick, measured by self-play per player count, round size, position and card "
               "(trump, off-suit, no-trump by rank and suit length; Wizard; Jester), times a bid factor "
               "fitted so that its mean bid is its mean tricks; plays to make "
               "the bid exactly, taking a needed trick with a Wizard while another Wizard could "
               "still beat it later; names its longest suit trump"),
        Policy("random", 0, "uniform legal bid 0..r, uniform legal card, uniform trump suit"),
        Policy("sampler", 2, "heuristic play; bids by dealing the unseen cards at random 16 "
               "times, playing each deal out heuristically for the bids next to the heuristic "
               "bid, and taking the bid with the best mean score plus a fitted bonus per trick bid "
               "(so that its mean bid is its mean tricks)"),
        Policy("search", 4, "at every decision (bid, card, trump suit) deals the cards it has not "
               "seen at random `samples` times, consistent with the voids the play has shown, "
               "plays every legal option out to the end of the round heuristically on the same "
               "deals, and takes the option with the best mean round score",
               params=(SAMPLES,)),
    ),
    columns=(
        Column("round_bids", "list<int8>", "bids, round-major: round 1 seats 0..n-1, round 2, ...",
               "round_seats"),
        Column("round_tricks", "list<int8>", "tricks taken, same layout as round_bids",
               "round_seats"),
        Column("round_turned", "list<int8>", "card turned for trump per round (0-51 suit*13+rank "
               "with rank 0 = 2 .. 12 = ace; 52-55 Wizard; 56-59 Jester; -1 none)", "rounds"),
        Column("round_trump", "list<int8>", "trump suit per round (0 hearts, 1 diamonds, 2 clubs, "
               "3 spades, 4 no trump)", "rounds"),
        Column("exact_bids", "list<int8>", "rounds per seat in which the bid was met exactly",
               "seats"),
        Column("tricks", "list<int16>", "tricks per seat over the game", "seats"),
        Column("points_lost", "list<int32>", "points per seat lost for missed bids (positive)",
               "seats"),
        Column("bid_total", "list<int16>", "sum of each seat's bids over the game", "seats"),
    ),
    score=Score("points", higher_wins=True),
    max_turns=710,  # kernels/wizard/enums.MAX_TURNS: bids, cards and trump choices of the longest game
)


def rounds_of(arm) -> int:
    r = arm.rule_values["rounds"]
    return r if r else 60 // arm.players


class WizardRunner(GameRunner):
    game = GAME
    rotates = True
    kernel_module = "kernels.wizard.play_nb"
    search_policy = "search"  # compiled only for a table that seats it (sim/contract.py)
    enums_module = "kernels.wizard.enums"
    trace_rows = 8192

    def check_arm(self, arm) -> None:
        full = 60 // arm.players
        if arm.rule_values["rounds"] > full:
            raise SpecError(f"rounds={arm.rule_values['rounds']}: {arm.players} players can play "
                            f"at most {full} rounds (60 cards / {arm.players}); use 0 for all")

    def list_lengths(self, arm) -> dict[str, int]:
        rounds = rounds_of(arm)
        return {"seats": arm.players, "rounds": rounds, "round_seats": rounds * arm.players}

    def render_trace(self, arm, seed, index, rows, record) -> str:
        from sim.games.wizard_trace import render

        return render(arm, seed, index, rows)


RUNNER = WizardRunner()
