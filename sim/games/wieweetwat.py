"""Wie Weet Wat: Kaartspel: registry entry and the thin layer that drives kernels/wieweetwat
(imported lazily). The players are a recall model (docs/models/recall.md); the rules and every
decision taken where the text is silent are in docs/rules/wieweetwat.md."""
from __future__ import annotations

import math
import random
import warnings

import numpy as np

from sim.contract import GameRunner
from sim.errors import SpecError
from sim.games.wieweetwat_kind_letters import KIND_SHARE
from sim.games.wieweetwat_letters import DEFAULT_CARDS, INITIAL_SHARE
from sim.params import BoolParam, ChoiceParam, FloatParam, IntParam
from sim.registry import Column, DataInput, Game, Policy, Score
from sim.spec import parse_toml_text

RULINGS = "ruling, docs/rules/wieweetwat.md"
DOC = "docs/rules/wieweetwat.md"
MODEL = "docs/models/recall.md"
LETTERS = "abcdefghijklmnopqrstuvwxyz"
ACTIONS = ("grote_kans", "vicieuze_cirkel", "rotonde", "verkiezingspartij", "verloren_geluk",
           "te_veel_keuze", "pechvogel")  # kernels/wieweetwat/enums.ACTION_ORDER
ACTION_TEXT = {
    "grote_kans": "Grote Kans ('De speler die als snelste een letterkaart speelt, mag daarna binnen "
                  "10 seconden nog 2 extra letterkaarten spelen')",
    "vicieuze_cirkel": "Vicieuze cirkel ('iedere speler met de klok mee een nieuw antwoord')",
    "rotonde": "Rotonde ('Iedere speler geeft al zijn letterkaarten met de klok mee door')",
    "verkiezingspartij": "Verkiezingspartij ('Alle spelers pakken tegelijk een letterkaart van de "
                         "speler links van zich')",
    "verloren_geluk": "Verloren geluk ('Je pakt een letterkaart van de speler links van je')",
    "te_veel_keuze": "Te veel keuze ('Je pakt een letterkaart van een andere speler naar keuze')",
    "pechvogel": "Pechvogel ('Je ruilt al je letterkaarten met de speler die de meeste "
                 "letterkaarten op hand heeft')",
}
# the default mix of the 10 action cards: the text names the seven actions, not how many of each;
# docs/rules/wieweetwat.md explains this assumption
DEFAULT_ACTIONS = {"grote_kans": 2, "vicieuze_cirkel": 2, "rotonde": 1, "verkiezingspartij": 1,
                   "verloren_geluk": 2, "te_veel_keuze": 1, "pechvogel": 1}
DEFAULT_ACTION_CARDS = 10  # the text: "Tussen de categoriekaarten zitten tien actiekaarten"


class ActionCardsWarning(UserWarning):
    """An arm keeps far more action cards per category card than the game (action_cards=fixed with a
    short category list)."""


def scaled_actions(counts, category_cards: int) -> list[int]:
    """The action_* counts scaled to a category list of `category_cards` cards as the game's
    10 action cards are to its 50 category cards: each count x category_cards / 50, rounded by
    largest remainders (ties: the order of ACTIONS), the total at least 1 while any was asked for."""
    exact = [c * category_cards / CATEGORY_CARDS for c in counts]
    total = math.floor(sum(exact) + 0.5)
    if total == 0 and sum(counts) > 0:
        total = 1
    out = [math.floor(x) for x in exact]
    order = sorted(range(len(counts)), key=lambda i: (-(exact[i] - out[i]), i))
    for i in order[:max(0, total - sum(out))]:
        out[i] += 1
    return out

# ------------------------------------------------------------------------------ data inputs

CATEGORY_SEED = 20240601  # the default category list's generator seed
CATEGORY_CARDS = 50
BREADTH_MEDIAN = 1.0  # answers per second, any initial letter, for a player of vocabulary 1, speed 1
BREADTH_SIGMA = 0.6  # of log(breadth)
BREADTH_MIN, BREADTH_MAX = 0.1, 10.0
MAX_CATEGORIES = 400


def default_categories() -> tuple[tuple[str, float], ...]:
    """The default 50 cards x 4 categories: breadths drawn from a log-normal distribution (median
    BREADTH_MEDIAN answers per second, sigma BREADTH_SIGMA of the logarithm) with Python's
    `random.Random(CATEGORY_SEED)`, rounded to 0.01 and clipped to [BREADTH_MIN, BREADTH_MAX]; the
    same list on every machine and every run."""
    gen = random.Random(CATEGORY_SEED)
    out = []
    for i in range(CATEGORY_CARDS * 4):
        b = math.exp(math.log(BREADTH_MEDIAN) + BREADTH_SIGMA * gen.gauss(0.0, 1.0))
        out.append((f"category {i + 1:03d}", min(BREADTH_MAX, max(BREADTH_MIN, round(b, 2)))))
    return tuple(out)


def parse_categories(text: str) -> tuple[tuple[str, float], ...]:
    """A category list: `[[category]]` tables with `name` (text) and `breadth` (answers per second
    over all initial letters for an average player, 0.1..10); 4..400 categories, a multiple of 4
    (four to a card, in file order)."""
    data = parse_toml_text(text, "the category list")
    for key in data:
        if key != "category":
            raise SpecError(f"unknown key {key!r} (allowed: category)")
    items = data.get("category")
    if not isinstance(items, list) or not items:
        raise SpecError("give the categories as [[category]] tables with name and breadth")
    if len(items) > MAX_CATEGORIES or len(items) % 4:
        raise SpecError(f"{len(items)} categories: give 4..{MAX_CATEGORIES}, a multiple of 4 "
                        "(four categories to a card)")
    out = []
    for i, item in enumerate(items, 1):
        if not isinstance(item, dict) or set(item) - {"name", "breadth"}:
            raise SpecError(f"category {i}: only name and breadth are allowed")
        name, breadth = item.get("name"), item.get("breadth")
        if not isinstance(name, str) or not name.strip():
            raise SpecError(f"category {i}: name must be a non-empty text")
        if isinstance(breadth, bool) or not isinstance(breadth, (int, float)) \
                or not BREADTH_MIN <= breadth <= BREADTH_MAX:
            raise SpecError(f"category {i} ({name}): breadth must be a number in "
                            f"{BREADTH_MIN}..{BREADTH_MAX}, not {breadth!r}")
        out.append((name.strip(), float(breadth)))
    return tuple(out)


DEFAULT_LETTERS = tuple(DEFAULT_CARDS.get(k, 0) for k in LETTERS)

# ------------------------------------------------------------------------------ category kinds
# The profiles recall model (rule recall_model, docs/models/recall.md): a category asks for words of
# one kind; each kind has its own initial-letter mix (sim/games/wieweetwat_kind_letters.py from a
# real Dutch list per kind; `algemeen` keeps the general table) and each player its own knowledge of
# it. kernels/wieweetwat/enums.CATEGORY_KINDS, in that order.
CATEGORY_KINDS = ("algemeen", "dier", "plaats", "naam", "eten")
KIND_HELP = {"algemeen": "any other category (the general Dutch letter mix)",
             "dier": "animals", "plaats": "Dutch places", "naam": "first names", "eten": "food"}
KIND_SEED = CATEGORY_SEED + 1  # the default list's kinds: their own generator, breadths unchanged
# the default list's mix of kinds: most categories of the game ask for things of every sort
KIND_WEIGHTS = {"algemeen": 0.4, "dier": 0.15, "plaats": 0.15, "naam": 0.15, "eten": 0.15}
# category names that say their kind, for lists given without one (examples/categories.toml)
NAME_KINDS = {"dier": "dier", "dieren": "dier", "vogel": "dier", "insect": "dier", "vis": "dier",
              "huisdier": "dier", "plaats": "plaats", "stad": "plaats", "dorp": "plaats",
              "gemeente": "plaats", "woonplaats": "plaats", "naam": "naam", "voornaam": "naam",
              "jongensnaam": "naam", "meisjesnaam": "naam", "eten": "eten", "groente": "eten",
              "fruit": "eten", "gerecht": "eten", "etenswaar": "eten", "snoep": "eten",
              "kaas": "eten"}


def default_category_kinds() -> tuple[tuple[str, str], ...]:
    """The default kinds: every category of the default list (its name) gets a kind drawn with
    Python's `random.Random(KIND_SEED)` by KIND_WEIGHTS, and the category names of NAME_KINDS
    their kind; any category not named here is `algemeen`."""
    gen = random.Random(KIND_SEED)
    kinds, weights = list(KIND_WEIGHTS), list(KIND_WEIGHTS.values())
    drawn = tuple((name, gen.choices(kinds, weights)[0]) for name, _ in default_categories())
    return drawn + tuple(sorted(NAME_KINDS.items()))


def parse_category_kinds(text: str) -> tuple[tuple[str, str], ...]:
    """Category kinds: a `[kinds]` table of category name = kind (one of CATEGORY_KINDS); a
    category of the list not named here is `algemeen`. Read by the profiles recall model only."""
    data = parse_toml_text(text, "the category kinds")
    for key in data:
        if key != "kinds":
            raise SpecError(f"unknown key {key!r} (allowed: kinds)")
    table = data.get("kinds")
    if not isinstance(table, dict):
        raise SpecError("give the kinds as a [kinds] table of category name = kind")
    out = []
    for name, kind in table.items():
        if kind not in CATEGORY_KINDS:
            raise SpecError(f"category {name!r}: kind {kind!r} is not one of "
                            + ", ".join(CATEGORY_KINDS))
        out.append((name, kind))
    return tuple(out)


def dump_category_kinds(kinds) -> str:
    """Category kinds as the file parse_category_kinds reads."""
    import json

    return "[kinds]\n" + "".join(f"{json.dumps(name)} = {json.dumps(kind)}\n" for name, kind in kinds)


def category_kind_indices(categories, kinds) -> list[int]:
    """Each category's kind (an index into CATEGORY_KINDS) by its name; `algemeen` when unnamed."""
    by_name = dict(kinds)
    return [CATEGORY_KINDS.index(by_name.get(name, "algemeen")) for name, _ in categories]


FACTOR_MIN, FACTOR_MAX = 0.05, 20.0  # a fixed knowledge or letter factor
REACTION_MAX = 10.0
PROFILE_KEYS = ("knowledge", "letters", "reaction_time")


def parse_profiles(text: str) -> tuple:
    """Profiles fixed per seat for recall_model = profiles: `[[seat]]` tables in seat order (seat 0
    first, at most 6), each with any of `knowledge` (a table of kind = factor), `letters` (a table
    of letter = factor), both FACTOR_MIN..FACTOR_MAX, and `reaction_time` (seconds,
    0..REACTION_MAX). Whatever a seat does not fix is drawn (docs/models/recall.md). The value: a
    tuple per seat of (knowledge pairs, letter pairs, reaction time or None)."""
    data = parse_toml_text(text, "the profiles")
    for key in data:
        if key != "seat":
            raise SpecError(f"unknown key {key!r} (allowed: seat)")
    seats = data.get("seat", [])
    if not isinstance(seats, list) or len(seats) > 6:
        raise SpecError("give the profiles as at most 6 [[seat]] tables, seat 0 first")
    out = []
    for i, seat in enumerate(seats):
        if not isinstance(seat, dict) or set(seat) - set(PROFILE_KEYS):
            raise SpecError(f"seat {i}: only {', '.join(PROFILE_KEYS)} are allowed")
        pairs = {}
        for key, names in (("knowledge", CATEGORY_KINDS), ("letters", tuple(LETTERS))):
            table = seat.get(key, {})
            if not isinstance(table, dict):
                raise SpecError(f"seat {i}: {key} must be a table of name = factor")
            for name, value in table.items():
                if name not in names:
                    raise SpecError(f"seat {i}: {key} {name!r} is not one of {', '.join(names)}")
                if isinstance(value, bool) or not isinstance(value, (int, float)) \
                        or not FACTOR_MIN <= value <= FACTOR_MAX:
                    raise SpecError(f"seat {i}: {key} {name} must be a number in "
                                    f"{FACTOR_MIN}..{FACTOR_MAX}, not {value!r}")
            pairs[key] = tuple((name, float(v)) for name, v in table.items())
        react = seat.get("reaction_time")
        if react is not None and (isinstance(react, bool) or not isinstance(react, (int, float))
                                  or not 0.0 <= react <= REACTION_MAX):
            raise SpecError(f"seat {i}: reaction_time must be seconds in 0..{REACTION_MAX}, "
                            f"not {react!r}")
        out.append((pairs["knowledge"], pairs["letters"], None if react is None else float(react)))
    return tuple(out)


def dump_profiles(profiles) -> str:
    """Fixed profiles as the file parse_profiles reads."""
    import json

    lines = []
    for knowledge, letters, react in profiles:
        lines.append("[[seat]]")
        if react is not None:
            lines.append(f"reaction_time = {react!r}")
        for key, pairs in (("knowledge", knowledge), ("letters", letters)):
            if pairs:
                lines.append(f"{key} = {{ " + ", ".join(f"{json.dumps(k)} = {v!r}" for k, v in pairs)
                             + " }")
    return "\n".join(lines) + "\n"


def fixed_profile_arrays(profiles):
    """The kernel's fixed profile arrays: knowledge [6, kinds] and letter factors [6, 26] (0: drawn),
    reaction times [6] (-1: drawn)."""
    know = np.zeros((6, len(CATEGORY_KINDS)), dtype=np.float64)
    letters = np.zeros((6, 26), dtype=np.float64)
    react = np.full(6, -1.0, dtype=np.float64)
    for s, (knowledge, letter_pairs, reaction) in enumerate(profiles):
        for name, value in knowledge:
            know[s, CATEGORY_KINDS.index(name)] = value
        for name, value in letter_pairs:
            letters[s, LETTERS.index(name)] = value
        if reaction is not None:
            react[s] = reaction
    return know, letters, react


def kind_share_table() -> np.ndarray:
    """float64[len(CATEGORY_KINDS), 26]: each kind's initial-letter shares."""
    rows = [[INITIAL_SHARE[c] for c in LETTERS] if k == "algemeen" else
            [KIND_SHARE[k][c] for c in LETTERS] for k in CATEGORY_KINDS]
    return np.array(rows, dtype=np.float64)


def parse_letters(text: str) -> tuple[int, ...]:
    """A letter mix: a `[cards]` table of letter = number of cards (letters left out have none);
    every letter a..z, 0..20 cards each, 10..200 cards in all (the Wie Weet Wat cards are the rule
    wie_weet_wat_cards)."""
    data = parse_toml_text(text, "the letter mix")
    for key in data:
        if key != "cards":
            raise SpecError(f"unknown key {key!r} (allowed: cards)")
    cards = data.get("cards")
    if not isinstance(cards, dict) or not cards:
        raise SpecError("give the letter mix as a [cards] table of letter = count")
    for key, value in cards.items():
        if key not in LETTERS:
            raise SpecError(f"cards.{key}: not a letter a..z")
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 20:
            raise SpecError(f"cards.{key}={value!r}: expected a whole number 0..20")
    counts = tuple(cards.get(k, 0) for k in LETTERS)
    if not 10 <= sum(counts) <= 200:
        raise SpecError(f"{sum(counts)} letter cards: give 10..200")
    return counts


# ------------------------------------------------------------------------------ parameters

def _seconds(name, default, lo, hi, help, source):
    return FloatParam(name, default, lo, hi, help + " (seconds)", source)


PLAYER_PARAMS = (
    FloatParam("vocabulary", 1.0, 0.25, 4.0, "how many words the player knows, relative to an "
               "average player: multiplies every recall rate", MODEL + " (the rate's vocabulary)"),
    FloatParam("speed", 1.0, 0.25, 4.0, "how fast the player finds words, relative to an average "
               "player: multiplies every recall rate", MODEL + " (the rate's speed)"),
    FloatParam("error_rate", 0.05, 0.0, 0.5, "chance that an answer is wrong (always caught)",
               RULINGS + ": 'Wrong answers happen with a per-player error rate (param)'"),
    _seconds("joker_patience", 5.0, 0.0, 60.0, "with `joker_use` = when_stuck: how long the "
             "player looks for an answer with its letters before it plays the Wie Weet Wat card "
             "as a joker", "text: 'Kun je met je letterkaarten geen juist antwoord bedenken, dan "
             "speel je de Wie Weet Wat-kaart'; " + DOC),
    ChoiceParam("joker_use", "when_stuck", ("when_stuck", "keep_for_counter"), "spend the Wie Weet "
                "Wat card as a joker when stuck, or keep it for counter-attacks (then it is a "
                "joker only when nothing else is left in hand)",
                "text: 'Je kunt zo'n kaart op twee manieren gebruiken'; " + DOC),
    ChoiceParam("counter", "always", ("always", "never", "leader_only"), "counter-attack with a "
                "Wie Weet Wat card whenever a second answer comes in time, never, or only against "
                "a player holding fewer cards than itself", "text: 'Als tegenaanval'; " + DOC),
    ChoiceParam("shed", "earliest", ("earliest", "hardest"), "Grote Kans's extra cards: the "
                "letters whose answers come first, or the rarest initial letters first (the hardest "
                "to shed later)", "text: Grote Kans 'Dat mogen ook andere letters zijn'; " + DOC),
    ChoiceParam("target", "most_cards", ("fewest_cards", "most_cards", "random"), "whom Te veel "
                "keuze takes a card from: the opponent with the most cards (taking a card helps its "
                "owner, so the one furthest from winning), the fewest, or a random one (never a last "
                "card while another opponent has more)",
                "text: 'Je pakt een letterkaart van een andere speler naar keuze'; " + DOC),
)

SAMPLES = IntParam(
    "samples", 32, 1, 1024, "search: determinizations (deals of the unseen letter cards, orders of "
    "the category pile, future recall times) per decision; each plays every option out to the end "
    "of the round", "ruling: the search player's budget is a player parameter")

GAME = Game(
    name="wieweetwat",
    title="Wie Weet Wat: Kaartspel",
    version=7,  # 2: ziggurat exponential times, letters drawn only for answers said; 3: Grote
    # Kans's swing measured around the extra cards it allows (play unchanged); 4: a category or
    # action card still waiting in a turn is never shuffled back (it was read or carried out twice
    # with short category lists), the rules counter_last_card, rotonde_empty_hand,
    # grote_kans_same_letter and action_cards; 5: the profiles recall model is the default
    # (recall_model = profiles; uniform plays version 4's games); 6: the targeting reader judges
    # a hidden hand's rate by the letter share of an average card, not by its size alone, and a
    # remise's race by the tied players and the letters they laid down; 7: the targeting reader
    # and the search use the letters they have seen in other hands this round (known_nb.py)
    min_players=3,
    max_players=6,
    rules=(
        IntParam("hand_size", 8, 1, 12, "letter cards dealt to each player at the start of a round",
                 "text: 'Geef iedere speler 8 letterkaarten'"),
        IntParam("rounds_to_win", 3, 1, 5, "rounds a player must win to win the game",
                 "text: 'De speler die als eerste drie rondes wint, wint het spel'"),
        IntParam("wie_weet_wat_cards", 4, 0, 8, "Wie Weet Wat cards among the letter cards",
                 "text: 'Tussen de letterkaarten zitten 4 Wie Weet Wat-kaarten'"),
        FloatParam("time_limit", 30.0, 5.0, 120.0, "seconds the players get for a category; a "
                   "player with no answer by then passes", RULINGS + ": 'with no arrival before a "
                   "time limit (param) the player passes'"),
        FloatParam("tie_window", 0.2, 0.0, 1.0, "correct answers within this many seconds of the "
                   "fastest correct answer are a remise among those players",
                   RULINGS + ": 'Answers within a tie window (param) of the fastest are a remise'"),
        FloatParam("follow_time", 5.0, 0.0, 30.0, "seconds after the first answer in which more "
                   "cards of the same letter may follow, each with its own answer",
                   "text: 'Heb je nog meer kaarten met dezelfde letter, dan mag je die er snel "
                   "achteraan spelen'; " + DOC),
        FloatParam("counter_window", 3.0, 0.0, 30.0, "seconds after an answer in which a "
                   "counter-attack with a Wie Weet Wat card may come", RULINGS + ": 'Counter-"
                   "attacks with the Wie Weet Wat card need a second answer with the same letter "
                   "in a window'"),
        FloatParam("grote_kans_seconds", 10.0, 0.0, 60.0, "Grote Kans: seconds for the extra "
                   "cards", "text: 'binnen 10 seconden nog 2 extra letterkaarten spelen'"),
        IntParam("grote_kans_cards", 2, 0, 8, "Grote Kans: extra letter cards the fastest player "
                 "may play", "text: 'binnen 10 seconden nog 2 extra letterkaarten spelen'"),
        FloatParam("circle_pool", 10.0, 1.0, 100.0, "Vicieuze cirkel: the answers the table knows "
                   "of a category per unit of breadth; each answer given lowers every rate by "
                   "1 / (breadth x circle_pool) of it", DOC + " (the text: 'De speler die niets "
                   "meer kan bedenken of een antwoord herhaalt')"),
        ChoiceParam("reader_after_wrong", "wrong_answerer", ("wrong_answerer", "winner"),
                    "who reads next when a category has a wrong answer and a winner: the first "
                    "wrong answerer (the penalty's sentence) or the winner",
                    "text: 'Daarna ben jij de voorlezer van de volgende categorie' against 'De "
                    "winnaar van de categorie wordt de nieuwe voorlezer'; " + DOC),
        BoolParam("counter_attacks", True, "the Wie Weet Wat card may be used as a counter-attack",
                  "text: 'Als tegenaanval'; " + DOC),
    ) + tuple(IntParam(f"action_{a}", DEFAULT_ACTIONS[a], 0, 10, f"{ACTION_TEXT[a].split(' (')[0]} "
                       "cards among the category cards", "text: " + ACTION_TEXT[a] + "; "
                       + RULINGS + ": 'Action cards: 10, over the 7 named actions, default mix "
                       "documented (param)'") for a in ACTIONS) + (
        # after the action_* rules: kernels/wieweetwat/enums.RULE_I_ORDER
        BoolParam("counter_last_card", True, "a counter-attack may hit a winner whose win emptied "
                  "its hand (its penalty card keeps the round going); off: the round ends at once",
                  "text: 'De speler die je zo aanvalt, moet als straf een letterkaart pakken' against "
                  "'Een ronde eindigt zodra een speler geen letterkaarten meer op hand heeft'; "
                  + DOC),
        ChoiceParam("rotonde_empty_hand", "passed", ("passed", "skipped"), "Rotonde in a remise: "
                    "an empty hand (a remise player's last card on the table) is passed on like any "
                    "other, and the player who gets it holds no card and wins the round; or that "
                    "player is skipped and the hands go round among the players holding cards",
                    "text: 'Iedere speler geeft al zijn letterkaarten met de klok mee door aan de "
                    "volgende speler' and 'Een ronde eindigt zodra een speler geen letterkaarten meer "
                    "op hand heeft'; " + DOC),
        BoolParam("grote_kans_same_letter", False, "Grote Kans's extra cards may repeat a letter "
                  "(another answer for each card); off: one extra card per letter",
                  "text: 'Dat mogen ook andere letters zijn'; " + DOC),
        ChoiceParam("action_cards", "fixed", ("fixed", "scaled"), "the action_* counts as given "
                    "whatever the category list, or scaled to the list: counts x (category cards / "
                    f"{CATEGORY_CARDS}), largest remainders, at least one action card while any is "
                    "asked for", "text: '60 categoriekaarten ... Tussen de categoriekaarten zitten "
                    "tien actiekaarten' (10 to 50 category cards); " + DOC),
        ChoiceParam("recall_model", "profiles", ("uniform", "profiles"), "the recall model: "
                    "uniform, every player's rate breadth x letter share x vocabulary x speed "
                    "(a category scales all players alike); or profiles, adding per player a "
                    "knowledge factor per category kind, a letter mix per category kind, a factor "
                    "per letter and an additive reaction time, drawn per game", RULINGS + " "
                    "(amended: 'per-player, per-category knowledge, per-category letter profiles, "
                    "per-player letter difficulty and an additive reaction time'); " + MODEL),
        FloatParam("knowledge_sigma", 0.5, 0.0, 2.0, "profiles: the spread of a player's knowledge "
                   "of a category kind, the sigma of its logarithm (log-normal, median 1, drawn per "
                   "game and seat for each kind)", MODEL),
        FloatParam("letter_sigma", 0.3, 0.0, 2.0, "profiles: the spread of a player's ease with "
                   "an initial letter, the sigma of its logarithm (log-normal, median 1, drawn per "
                   "game and seat for each letter)", MODEL),
        _seconds("reaction_time", 0.8, 0.0, 10.0, "profiles: the median time a player needs to put "
                 "its card down and say a word it has found, added to each of its answers", MODEL),
        FloatParam("reaction_sigma", 0.3, 0.0, 2.0, "profiles: the spread of the players' reaction "
                   "times, the sigma of the logarithm (log-normal around reaction_time, drawn per "
                   "game and seat)", MODEL),
    ),
    policies=(
        Policy("random", 0, "as reader, reads a random one of the card's four categories",
               PLAYER_PARAMS),
        Policy("spoiler", 1, "as reader, reads the narrowest category: the hardest for the player "
               "with the fewest cards (whose letters it cannot see)", PLAYER_PARAMS),
        Policy("widest", 2, "as reader, reads the widest category", PLAYER_PARAMS),
        Policy("search", 3, "determinized Monte Carlo: as reader, deals what it cannot see "
               "`samples` times and plays every category of the card (and every opponent for Te "
               "veel keuze) out to the end of the round with targeting at every seat; takes the "
               "best mean chance to win the game, keeping targeting's choice unless another is "
               "better beyond noise; remises and the Vicieuze cirkel read as targeting",
               PLAYER_PARAMS + (SAMPLES,)),
        Policy("targeting", 4, "as reader, under the profiles recall model, reads the category "
               "in which the leader (the opponent with the fewest cards) is least likely to answer "
               "first, judged from every player's knowledge of the kinds and reaction time (in its "
               "own Vicieuze cirkel: the kind the leader knows least beside itself); under the "
               "uniform model it reads as spoiler", PLAYER_PARAMS),
    ),
    columns=(
        Column("categories", "int32", "categories read (remises' new categories and Vicieuze "
               "cirkel categories not counted twice: every category read to the table once)"),
        Column("race_seconds", "float32", "seconds the table spent racing for answers: per "
               "category read (a remise's new categories too), until the fastest correct answer's "
               "tie window closed, or the time limit when nobody answered correctly (the Vicieuze "
               "cirkel's answers and the time to draw, read out and lay down cards not counted)"),
        Column("remises", "int32", "categories read for a remise"),
        Column("passes", "int32", "categories in which nobody gave a correct answer"),
        Column("first_reader_rounds_won", "int32", "rounds won by the round's first reader"),
        Column("wrong_answers", "list<int32>", "wrong answers per seat (counter-attacks included)",
               "seats"),
        Column("categories_won", "list<int32>", "categories won per seat", "seats"),
        Column("cards_shed", "list<int32>", "letter cards per seat got rid of (won categories, "
               "follow-up cards, Grote Kans extras, jokers and counter-attacks)", "seats"),
        Column("penalty_cards", "list<int32>", "penalty letter cards drawn per seat (wrong answers, "
               "counter-attacks against it, the Vicieuze cirkel)", "seats"),
        Column("jokers", "list<int32>", "Wie Weet Wat cards per seat that won a category as a "
               "joker", "seats"),
        Column("counter_attacks", "list<int32>", "correct counter-attacks per seat", "seats"),
        Column("counter_attacked", "list<int32>", "counter-attacks per seat suffered", "seats"),
        Column("www_rounds", "list<int32>", "rounds per seat dealt at least one Wie Weet Wat card",
               "seats"),
        Column("www_rounds_won", "list<int32>", "of those rounds, the ones the seat won", "seats"),
        Column("actions_drawn", "list<int32>", "action cards carried out, per action (grote_kans, "
               "vicieuze_cirkel, rotonde, verkiezingspartij, verloren_geluk, te_veel_keuze, "
               "pechvogel)", "actions"),
        Column("action_self_change", "list<int32>", "per action: the reader's hand size after it "
               "minus before, summed over the game; Grote Kans: around the extra cards of the "
               "category it acts on (once per turn)", "actions"),
        Column("action_leader_change", "list<int32>", "per action: the hand size change of the "
               "reader's opponent with the fewest cards before it, summed over the game; Grote "
               "Kans: that opponent's change around the extra cards of the category it acts on "
               "(once per turn)", "actions"),
        Column("letters_left", "list<int32>", "letter cards per kind (a..z, then the Wie Weet Wat "
               "card) left in hands at the end of each round, summed over the rounds", "letters"),
        Column("letters_shed", "list<int32>", "letter cards per kind (a..z, www) got rid of by "
               "their players over the game", "letters"),
    ),
    score=Score("rounds won", higher_wins=True),
    max_turns=1_000_000,  # kernels/wieweetwat/enums.MAX_TURNS
    data=(
        DataInput("categories", "the category list: [[category]] tables with name and breadth "
                  "(answers per second over all letters for an average player); four to a card",
                  parse_categories, default_categories(), example="examples/categories.toml"),
        DataInput("letters", "the letter mix: a [cards] table of letter = cards (default: Dutch "
                  "word-initial shares, sim/games/wieweetwat_letters.py)", parse_letters,
                  DEFAULT_LETTERS, example="examples/wieweetwat-letters.toml"),
        DataInput("category_kinds", "the kind of words each category asks for, read by "
                  "recall_model = profiles: a [kinds] table of category name = kind ("
                  + ", ".join(f"{k}: {v}" for k, v in KIND_HELP.items()) + "); a category not "
                  "named is algemeen (default: the default list's categories drawn, and common "
                  "names such as dier, stad, voornaam, fruit)", parse_category_kinds,
                  default_category_kinds(), dump=dump_category_kinds,
                  example="examples/category-kinds.toml"),
        DataInput("profiles", "players' profiles fixed per seat, read by recall_model = profiles: "
                  "[[seat]] tables in seat order with any of knowledge (kind = factor), letters "
                  "(letter = factor) and reaction_time (seconds); whatever is not fixed is drawn "
                  "per game (default: nothing fixed)", parse_profiles, (), dump=dump_profiles,
                  example="examples/wieweetwat-profiles.toml"),
    ),
)


class WieWeetWatRunner(GameRunner):
    game = GAME
    kernel_module = "kernels.wieweetwat.play_nb"
    enums_module = "kernels.wieweetwat.enums"
    trace_rows = 1 << 16
    rotates = True
    search_policy = "search"  # compiled only for a table that seats it (sim/contract.py)

    def check_arm(self, arm) -> None:
        rules = arm.rule_values
        cards = sum(arm.data_value("letters")) + rules["wie_weet_wat_cards"]
        if arm.players * rules["hand_size"] > cards:
            raise SpecError(f"{arm.players} players x hand_size={rules['hand_size']} need more than "
                            f"the {cards} letter cards")
        if len(arm.data_value("profiles")) > arm.players:
            raise SpecError(f"profiles: {len(arm.data_value('profiles'))} [[seat]] tables for "
                            f"{arm.players} players")
        category_cards = len(arm.data_value("categories")) // 4
        actions = sum(rules[f"action_{a}"] for a in ACTIONS)
        if rules["action_cards"] == "fixed" and actions * CATEGORY_CARDS > 2 * DEFAULT_ACTION_CARDS \
                * category_cards:
            warnings.warn(
                f"wieweetwat: {actions} action cards among {category_cards} category cards, "
                f"{actions / category_cards:.2f} per category card (the game has "
                f"{DEFAULT_ACTION_CARDS} to {CATEGORY_CARDS}, "
                f"{DEFAULT_ACTION_CARDS / CATEGORY_CARDS:.2f}); set action_cards=scaled to scale "
                "them to the list", ActionCardsWarning, stacklevel=2)

    def kernel_inputs(self, arm):
        inputs = super().kernel_inputs(arm)
        if arm.rule_values["action_cards"] == "scaled":
            category_cards = len(arm.data_value("categories")) // 4
            counts = scaled_actions([arm.rule_values[f"action_{a}"] for a in ACTIONS],
                                    category_cards)
            ints = [p.name for p in self.game.rules if not p.in_float_array]
            first = ints.index(f"action_{ACTIONS[0]}")
            inputs.rule_i[first:first + len(ACTIONS)] = counts
        return inputs

    def data_arrays(self, arm) -> tuple:
        letters = np.zeros(27, dtype=np.int64)
        letters[:26] = arm.data_value("letters")
        share = np.array([INITIAL_SHARE[k] for k in LETTERS], dtype=np.float64)
        categories = arm.data_value("categories")
        breadth = np.array([b for _, b in categories], dtype=np.float64)
        kinds = np.array(category_kind_indices(categories, arm.data_value("category_kinds")),
                         dtype=np.int64)
        return (letters, share, breadth, kind_share_table(), kinds,
                *fixed_profile_arrays(arm.data_value("profiles")))

    def list_lengths(self, arm) -> dict[str, int]:
        return {"seats": arm.players, "actions": len(ACTIONS), "letters": 27}

    def render_trace(self, arm, seed, index, rows, record) -> str:
        from sim.games.wieweetwat_trace import render

        return render(arm, seed, index, rows, record)


RUNNER = WieWeetWatRunner()
