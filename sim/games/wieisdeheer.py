"""Wie is de Heer?: registry entry and the thin layer that drives kernels/wieisdeheer (imported
lazily)."""
from __future__ import annotations

from sim.contract import GameRunner
from sim.params import BoolParam, ChoiceParam, FloatParam, IntParam
from sim.registry import Column, Game, Policy, Score

RULINGS = "ruling (docs/rules/wieisdeheer.md)"
DOC = "docs/rules/wieisdeheer.md"
MODEL = "docs/models/mole.md"


def _seat_list(name, dtype, help):
    return Column(name, f"list<{dtype}>", help, "seats")


BLUFF = FloatParam("bluff", 0.5, 0.0, 1.0, "as the mole: how well this player lies when "
                   "questioned (0 = its answers read as truthfully as a loyal player's, 1 = they "
                   "read exactly like a loyal player's)", RULINGS + ": 'the mole may lie'; " + MODEL)
SABOTAGE = FloatParam("sabotage", 0.3, 0.0, 1.0, "as the mole: the chance to void a pile with a "
                      "fitting ace, and to pass up banking a rich pile, when the mole style allows",
                      RULINGS + ": 'The mole's sabotage rate is a policy parameter'; " + MODEL)
SUSPECT = FloatParam("suspect_sabotage", 0.3, 0.0, 1.0, "as an observer: the sabotage rate it "
                     "assumes the mole uses when it reads a reasoner's card on a rich pile (it "
                     "cannot see the mole's own rate; 0 = it reads no act)",
                     "issue: 'Separate the mole's sabotage from the observers' reading model, so a "
                     "sweep varies the mole alone'; " + MODEL)
MOLE_STYLE = ChoiceParam("mole_style", "smart", ("naive", "smart"), "as the mole: naive voids any "
                         "pile at the sabotage rate; smart voids only a rich pile and only when "
                         "the void looks forced (the public's chance of another fitting card is "
                         "below one half)", "issue: 'a smarter mole that sabotages only when the "
                         "pile is rich and the act looks forced'; " + MODEL)
RICH = IntParam("rich", 12, 1, 100, "pile points from which this player banks with a jack and "
                "avoids voiding (loyal), and from which its acts are read as evidence",
                DOC + " (a player's knob); " + MODEL)
SAMPLES = IntParam("samples", 64, 1, 1024, "search: determinizations (deals of the unseen cards "
                   "and a mole drawn from its beliefs) per card choice; each plays every fitting "
                   "card out to the end of the game", "ruling: the search player's budget is a "
                   "player parameter")

GAME = Game(
    name="wieisdeheer",
    title="Wie is de Heer?",
    # 2: writers state tempered beliefs (STATED_POWER); 3: observers read acts at their own
    # suspect_sabotage; 4: only the acts' evidence tempered (ACT_POWER), the suspect written from
    # the stated beliefs, the mole plays to mole_pot_threshold, rule must_stack
    version=4,
    min_players=3,
    max_players=6,
    rules=(
        IntParam("jokers", 2, 0, 4, "jokers in the deck (besides A, 2-10 and J in four suits)",
                 RULINGS + ": 'Deck: 52 cards + 2 jokers (param)'"),
        BoolParam("play_drawn", True, "a player who could not play and drew a fitting card may "
                  "play it at once", "text: 'Als je niet kan moet je een nieuwe andere kaart "
                  "pakken'; " + RULINGS + ": 'may play it if it fits (param)'"),
        IntParam("questions_per_ace", 3, 0, 10, "questions an ace gives its player, all to one "
                 "player of its choice", "text: 'je mag er ook 3 vragen mee stellen aan een "
                 "persoon naar keuze'; a designer's knob (default the text's 3)"),
        BoolParam("answers_public", False, "every seat reads the answers to an ace's questions "
                  "(off: only the asker judges them)", DOC + " (ruling: the asker judges; a "
                  "designer's knob)"),
        IntParam("mole_pot_threshold", 0, 0, 300, "0 = the text's rule; N > 0: the mole also "
                 "wins when the pot ends below N points", "issue: 'the mole also winning when "
                 "the pot stays below a threshold'; a designer's knob (default off: the text)"),
        BoolParam("last_player_names", True, "the player left with cards when the order is "
                  "known writes a suspect too", "text: 'Zo gaat het spel door totdat de volgorde "
                  "bekend is'; " + DOC + " (ruling)"),
        BoolParam("joker_moves_up", True, "going out on a joker moves the player one place "
                  "earlier in the order", "text: 'Joker. Als je hiermee eindigt kom een plek "
                  "eerder aan de beurt om je Mol te kiezen'; " + RULINGS),
        BoolParam("must_stack", True, "a player who holds a 2 or a joker when a draw is pending "
                  "must stack it (off: it may take the draw instead; only a random player ever "
                  "does)", "text: 'De 2 en de 5 kunnen op elkaar gelegd worden' ('kunnen': "
                  "allowed); " + DOC + " (ruling: compulsory, as a player who can play must)"),
        FloatParam("answer_accuracy", 0.7, 0.5, 1.0, "the chance that one answer reads true (a "
                   "loyal player's as loyal, an honest mole's as mole-like)",
                   RULINGS + ": 'each answer a noisy signal with an accuracy (param)'"),
    ),
    policies=(
        Policy("reasoner", 1, "sheds efficiently (longest suit, 7s it can follow, 2s and jokers "
               "kept against draws or thrown at a player about to go out, the jack's suit from "
               "its hand); banks piles of `rich` points or more, never voids them unless forced, "
               "plays aces on poor piles for the questions, questions its most uncertain "
               "suspect, writes its most likely one. As the mole: sabotages by `sabotage` and "
               "`mole_style`, lies by `bluff`",
               params=(SABOTAGE, MOLE_STYLE, BLUFF, RICH, SUSPECT)),
        Policy("racer", 2, "sheds like the reasoner but ignores the points (aces and jacks are "
               "ordinary cards); reasons about the mole like the reasoner. As the mole: plays "
               "the same, lies by `bluff`", params=(BLUFF, SUSPECT)),
        Policy("random", 0, "a uniformly random fitting card, jack suit, question target and "
               "suspect; plays a drawn card whenever it fits. As the mole: lies by `bluff`",
               params=(BLUFF, SUSPECT)),
        Policy("search", 3, "determinized Monte Carlo: plays as the reasoner, but where it chooses "
               "a card with no draw pending (a turn's first card, a card on a 7) deals the unseen "
               "cards and draws the mole from its beliefs `samples` times, plays every fitting "
               "card out to the end of the game (every seat its own policy) and takes the card "
               "with the best mean value (its chance to win), keeping the reasoner's card unless "
               "another is better beyond noise; writes its likeliest suspect that nobody ahead of "
               "it wrote (guessed from the public evidence); questions the seat whose answers most "
               "raise its chance of writing the mole. Read by the others as a reasoner; as the "
               "mole it sabotages only when its search finds it better, and lies by `bluff`",
               params=(SABOTAGE, MOLE_STYLE, BLUFF, RICH, SUSPECT, SAMPLES)),
    ),
    columns=(
        Column("mole", "int8", "the mole's seat (the king's holder)"),
        Column("mole_won", "int8", "1 when the mole wins (nobody wrote it, or the pot rule)"),
        Column("pot", "int16", "points banked into the group pot by jacks"),
        Column("points_voided", "int16", "points voided by aces"),
        Column("points_left", "int16", "points on the pile at the end (neither banked nor voided)"),
        Column("questions", "int16", "questions asked in the game"),
        Column("plays", "int16", "cards played"),
        Column("reshuffles", "int16", "times the discard pile (but its top) became the draw pile"),
        Column("sabotages", "int16", "the mole's deliberate acts: voids at its sabotage rate and "
               "banks passed up"),
        Column("stalled", "int8", "1 when nobody could play or draw and the cards left settled "
               "the order"),
        _seat_list("finish", "int8", "place per seat in the final order (0 = first; the joker "
                   "rule applied)"),
        _seat_list("suspect", "int8", "the seat each seat wrote down (-1: wrote nothing)"),
        _seat_list("correct", "int8", "1 when the seat wrote the mole, 0 when not, -1 for the "
                   "mole's own seat"),
        _seat_list("p_suspect", "int16", "the seat's probability (per mille) on its suspect when "
                   "writing (-1: the mole, or no suspect)"),
        _seat_list("p_mole", "int16", "the seat's probability (per mille) on the true mole when "
                   "writing (-1: the mole, or no suspect)"),
        _seat_list("brier", "int32", "Brier score (millionths) of the seat's posterior over the "
                   "other seats when writing (-1: the mole, or no suspect)"),
        _seat_list("joker_finish", "int8", "1 when the seat went out on a joker"),
        _seat_list("questions_asked", "int16", "questions the seat asked"),
        _seat_list("banked", "int16", "points the seat banked with jacks"),
        _seat_list("voided", "int16", "points the seat voided with aces"),
        _seat_list("drawn", "int16", "cards the seat drew"),
    ),
    score=Score("wins (1 for the winner, 0 for everyone else)", higher_wins=True),
    max_turns=4000,  # kernels/wieisdeheer/enums.MAX_TURNS
)


class WieIsDeHeerRunner(GameRunner):
    game = GAME
    kernel_module = "kernels.wieisdeheer.play_nb"
    search_policy = "search"  # compiled only for a table that seats it (sim/contract.py)
    enums_module = "kernels.wieisdeheer.enums"
    trace_rows = 1 << 15
    rotates = True

    def render_trace(self, arm, seed, index, rows, record) -> str:
        from sim.games.wieisdeheer_trace import render

        return render(arm, seed, index, rows, record)


RUNNER = WieIsDeHeerRunner()
