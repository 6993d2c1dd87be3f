"""Knutten: registry entry, deck data, and the thin layer that drives kernels/knutten."""
from __future__ import annotations

import numpy as np

from sim.contract import GameRunner
from sim.errors import SpecError
from sim.params import BoolParam, ChoiceParam, IntParam
from sim.registry import Column, DataInput, Game, Policy, Score
from sim.spec import parse_toml_text

# Kind codes of deck rows; they match kernels/knutten/enums.py (K_VALUE, K_COPY, K_JOHN), which is
# not imported here so that reading the registry compiles nothing.
VALUE, COPY, JOHN = 0, 1, 2

# The printed card list is not in the rules text: this default is a documented assumption
# (docs/rules/knutten.md). Rows are (kind, first value, second value, copies).
DEFAULT_DECK = (
    (VALUE, 1, 6, 4), (VALUE, 2, 7, 4), (VALUE, 3, 8, 4), (VALUE, 4, 9, 4),
    (VALUE, 5, 10, 4), (VALUE, 6, 11, 4), (VALUE, 1, 11, 4), (VALUE, 2, 9, 4),
    (VALUE, -10, -10, 5), (COPY, 0, 0, 4),
)

# ---------------------------------------------------------------------------------------- deck

def load_deck_text(text: str) -> tuple:
    """A deck file's text as design rows (kind, a, b, copies); SpecError names the problem."""
    return parse_deck(parse_toml_text(text, "the deck"))


def dump_deck(rows) -> str:
    """Design rows (kind, a, b, copies) as a deck file that load_deck_text reads back."""
    tables = []
    for kind, a, b, copies in rows:
        values = "" if kind == COPY else f"values = [{a}]\n" if a == b else f"values = [{a}, {b}]\n"
        tables.append("[[card]]\n" + ('kind = "copy"\n' if kind == COPY else values)
                      + f"copies = {copies}\n")
    return "\n".join(tables)


def parse_deck(data: dict) -> tuple:
    for key in data:
        if key not in ("card", "name", "description"):
            raise SpecError(f"unknown key {key!r} (allowed: card, name, description)")
    cards = data.get("card")
    if not isinstance(cards, list) or not cards:
        raise SpecError("a deck needs at least one [[card]] table")
    rows = []
    for number, card in enumerate(cards, 1):
        where = f"card {number}"
        if not isinstance(card, dict):
            raise SpecError(f"{where} must be a table")
        for key in card:
            if key not in ("kind", "values", "copies", "name"):
                raise SpecError(f"{where}: unknown key {key!r} (allowed: kind, values, copies, name)")
        copies = card.get("copies", 1)
        if isinstance(copies, bool) or not isinstance(copies, int) or not 1 <= copies <= 50:
            raise SpecError(f"{where}: copies={copies!r}, expected 1..50")
        kind = card.get("kind", "value")
        if kind == "copy":
            if "values" in card:
                raise SpecError(f"{where}: a copy card ('?') has no values")
            rows.append((COPY, 0, 0, copies))
            continue
        if kind != "value":
            raise SpecError(f"{where}: kind={kind!r}, expected 'value' or 'copy'")
        values = card.get("values")
        if (not isinstance(values, list) or not 1 <= len(values) <= 2
                or any(isinstance(v, bool) or not isinstance(v, int) for v in values)):
            raise SpecError(f"{where}: values={values!r}, expected one or two integers")
        if any(not -50 <= v <= 50 for v in values):
            raise SpecError(f"{where}: values={values!r}, each must be in -50..50")
        rows.append((VALUE, values[0], values[-1], copies))
    if sum(r[3] for r in rows) > 500:
        raise SpecError("a deck may hold at most 500 cards")
    if len(rows) > 63:
        raise SpecError(f"a deck may have at most 63 [[card]] designs, this one has {len(rows)}")
    return tuple(rows)



# ------------------------------------------------------------------------------ registry entry

START = ChoiceParam(
    "start", "most_bites", ("most_bites", "fewest_bites", "next", "self", "random"),
    "whom this player names as next start player after being bitten or calling WIND: the other "
    "seat with the most (or fewest) bites, the next seat, itself, or a random seat",
    "text: 'De verliezende speler ... kiest wie de startspeler wordt' and (after WIND) 'kiest de "
    "startspeler'; ruling: a player parameter (most bites, fewest bites, next seat, random)")

SAMPLES = IntParam(
    "samples", 64, 1, 1024, "search: determinizations (deals of the unseen cards) per decision; "
    "each plays every legal option out to the end of the round",
    "ruling: the search player's budget is a player parameter")

GAME = Game(
    name="knutten",
    title="Knutten",
    version=3,
    min_players=2,
    max_players=8,
    rules=(
        IntParam("threshold", 31, 5, 200, "a swarm of this many knutten or more bites the player "
                 "who made it", "text: 'een zwerm maakt van 31 of meer knutten'; ruling (param)"),
        IntParam("hand_limit", 3, 1, 8, "cards in hand after every draw",
                 "text: '3 kaarten is ook je handlimiet'; ruling (param)"),
        IntParam("bites_to_end", 3, 1, 50, "the game ends when a player has this many bites",
                 "text: 'Heeft een speler drie knutten beten, dan stopt het spel'; ruling (param)"),
        BoolParam("john_knut", True, "the John Knut expansion card is shuffled in (5 counts 0 "
                  "while it lies on the table)", "text: 'Uitbreiding: John Knut'; ruling: "
                  "default on"),
        BoolParam("heavy_weather", False, "'Zwaar knut weer': a bitten player takes swarm - "
                  "(threshold - 1) bites and the game ends at heavy_bites_to_end",
                  "text: 'Variant: Zwaar knut weer!'; ruling: default off"),
        IntParam("heavy_bites_to_end", 11, 1, 200, "bites that end a heavy-weather game",
                 "text: 'Als een speler 11 of meer beten heeft stopt het spel'; ruling (param)"),
        ChoiceParam("stuck_empty_pile", "bite", ("bite", "wait"), "a player who cannot play "
                    "while the draw pile is empty: takes the cannot-play bite (bite), or is "
                    "skipped until nobody can play and the swarm becomes the new pile (wait)",
                    "text: 'wordt er doorgespeeld totdat alle spelers geen kaarten meer hebben of "
                    "geen kaarten meer kunnen spelen'; ruling: both readings, default bite"),
    ),
    policies=(
        Policy("cautious", 1, "keeps the swarm as low as it can; spends ?, -10 and a John discard "
               "only in an emergency; plays John when it bites an opponent; keeps pairs",
               params=(START,)),
        Policy("random", 0, "uniform over legal cards and values, John targets and start players"),
        Policy("trap", 2, "like cautious, but among safe plays leaves the swarm where the next "
               "player most likely holds nothing safe (estimated from unseen cards only)",
               params=(START,)),
        Policy("search", 3, "determinized Monte Carlo: at each choice deals the unseen cards "
               "`samples` times, plays every option out to the end of the round with trap at "
               "every seat, and takes the option with the best mean (its win share when the "
               "round ends the game, else its lead in bites), keeping trap's own choice unless "
               "another is better beyond noise; John's target and the start player as cautious",
               params=(START, SAMPLES)),
    ),
    columns=(
        Column("swarm_bites", "int16", "bites given for making the swarm reach the threshold"),
        Column("wind_calls", "int16", "WIND calls (three identical cards in one hand)"),
        Column("cannot_play", "int16", "times a player could not play (one bite each)"),
        Column("reshuffles", "int16", "times the swarm became the new draw pile"),
        Column("john_in_deck", "bool", "John Knut was shuffled in"),
        Column("john_drawn_by", "int8", "first seat to draw John (-1: never drawn)"),
        Column("john_draws", "int16", "times John was drawn (each round reshuffles it)"),
        Column("john_played_by", "int8", "first seat to play John (-1: never played)"),
        Column("john_played_turn", "int32", "turn number of that first play (-1: never)"),
        Column("john_target", "int8", "seat John was laid before at its first play (-1: never)"),
        Column("john_bites", "int16", "bites given by playing John"),
        Column("john_plays", "int16", "times John was played"),
        Column("john_discards", "int16", "times John was discarded by passing a turn"),
        Column("john_discarded_turn", "int32", "turn number of the first discard (-1: never)"),
        Column("luck_negative", "list<float32>", "luck of the draw in cards with a negative first "
               "value (-10): such cards the seat drew at random minus their share of the pile at "
               "each of its draws (expectation 0, whatever the players do)", "seats"),
        Column("luck_copy", "list<float32>", "luck of the draw in ? cards (as luck_negative)",
               "seats"),
        Column("luck_john", "list<float32>", "luck of the draw in John Knut (as luck_negative; "
               "his place in a new pile is any place left)", "seats"),
    ),
    luck=("luck_negative", "luck_copy", "luck_john"),
    score=Score("bites", higher_wins=False),
    max_turns=1_000_000,
    data=(DataInput("deck", "the card list: [[card]] tables with values = [a, b] (or [a]) and "
                    "copies, or kind = \"copy\" for a ? card; John Knut is added by the john_knut "
                    "rule", load_deck_text,
                    DEFAULT_DECK, dump=dump_deck,
                    example="examples/small-deck.toml"),),
)


# ------------------------------------------------------------------------------------- running

def deck_arrays(rows) -> tuple[np.ndarray, np.ndarray]:
    """(cards, designs) for the kernel: one row per card (kind, a, b, design) and per design
    (kind, a, b, copies)."""
    cards = [(kind, a, b, d) for d, (kind, a, b, copies) in enumerate(rows) for _ in range(copies)]
    return np.array(cards, dtype=np.int64).reshape(-1, 4), np.array(rows, dtype=np.int64).reshape(-1, 4)


class KnuttenRunner(GameRunner):
    game = GAME
    rotates = True
    kernel_module = "kernels.knutten.play_nb"
    search_policy = "search"  # compiled only for a table that seats it (sim/contract.py)
    enums_module = "kernels.knutten.enums"
    trace_rows = 16384

    def check_arm(self, arm) -> None:
        rules = arm.rule_values
        plain = sum(copies for *_, copies in arm.data_value("deck"))
        need = arm.players * rules["hand_limit"] + 1
        if plain < need:
            raise SpecError(f"the deck has {plain} cards besides John; {arm.players} players with "
                            f"hand_limit={rules['hand_limit']} need at least {need} (a full deal "
                            "and one card to play on)")
        if rules["heavy_weather"] and rules["heavy_bites_to_end"] < 2:
            raise SpecError("heavy_bites_to_end must be at least 2")

    def data_arrays(self, arm) -> tuple:
        """The plain deck: the kernel adds John as the last design and card when john_knut is on."""
        return deck_arrays(arm.data_value("deck"))

    def render_trace(self, arm, seed, index, rows, record) -> str:
        from sim.games.knutten_trace import render

        return render(arm, seed, index, rows, *self.data_arrays(arm), record["score"][:arm.players])


RUNNER = KnuttenRunner()
