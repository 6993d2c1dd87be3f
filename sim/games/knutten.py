"""Knutten: registry entry, deck data, and the thin layer that drives kernels/knutten."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from sim.errors import SpecError
from sim.games._batch import build_table, policy_ids, raise_on_error, rule_array
from sim.registry import Column, Game, PolicyInfo, RuleParam

# Kind codes of deck rows; they match kernels/knutten/enums.py (K_VALUE, K_COPY, K_JOHN), which is
# not imported here so that reading the registry compiles nothing.
VALUE, COPY, JOHN = 0, 1, 2

# The printed card list is not in the rules text: this default is a documented assumption
# (RULINGS.md, Knutten). Rows are (kind, first value, second value, copies).
DEFAULT_DECK = (
    (VALUE, 1, 6, 4), (VALUE, 2, 7, 4), (VALUE, 3, 8, 4), (VALUE, 4, 9, 4),
    (VALUE, 5, 10, 4), (VALUE, 6, 11, 4), (VALUE, 1, 11, 4), (VALUE, 2, 9, 4),
    (VALUE, -10, -10, 5), (COPY, 0, 0, 4),
)

GAME = Game(
    name="knutten",
    title="Knutten",
    version=2,
    seed_file="003_6ca32ad491a8b230.txt",
    min_players=2,
    max_players=8,
    has_deck=True,
    rules=(
        RuleParam("threshold", 31, 5, 200, "a swarm of this many knutten or more bites the player "
                  "who made it", "seed: 'een zwerm maakt van 31 of meer knutten'; RULINGS (param)"),
        RuleParam("hand_limit", 3, 1, 8, "cards in hand after every draw",
                  "seed: '3 kaarten is ook je handlimiet'; RULINGS (param)"),
        RuleParam("bites_to_end", 3, 1, 50, "the game ends when a player has this many bites",
                  "seed: 'Heeft een speler drie knutten beten, dan stopt het spel'; RULINGS (param)"),
        RuleParam("john_knut", 1, 0, 1, "the John Knut expansion card is shuffled in (5 counts 0 "
                  "while it lies on the table)", "seed: 'Uitbreiding: John Knut'; RULINGS param "
                  "john_knut, default on", boolean=True),
        RuleParam("heavy_weather", 0, 0, 1, "'Zwaar knut weer': a bitten player takes swarm - "
                  "(threshold - 1) bites and the game ends at heavy_bites_to_end",
                  "seed: 'Variant: Zwaar knut weer!'; RULINGS param heavy_weather", boolean=True),
        RuleParam("heavy_bites_to_end", 11, 1, 200, "bites that end a heavy-weather game",
                  "seed: 'Als een speler 11 of meer beten heeft stopt het spel'; RULINGS (param)"),
        RuleParam("stuck_empty_pile", 0, 0, 1, "a player who cannot play while the draw pile is "
                  "empty: 0 = bite (shows the hand, puts it under the pile, takes a bite), 1 = wait "
                  "(is skipped until nobody can play; then the swarm becomes the new pile)",
                  "seed: 'wordt er doorgespeeld totdat alle spelers geen kaarten meer hebben of geen "
                  "kaarten meer kunnen spelen'; RULINGS (param), default the bite"),
    ),
    policies=(
        PolicyInfo("cautious", 1, "keeps the swarm as low as it can; spends ?, -10 and a John "
                   "discard only in an emergency; plays John when it bites an opponent; keeps pairs"),
        PolicyInfo("random", 0, "uniform over legal cards and values, John targets and start players"),
        PolicyInfo("trap", 2, "like cautious, but among safe plays leaves the swarm where the next "
                   "player most likely holds nothing safe (estimated from unseen cards only)"),
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
    ),
)
SCORE = {"score": "bites", "higher_score_wins": False}


# ---------------------------------------------------------------------------------------- deck

def load_deck(path: Path) -> tuple:
    """Read a deck file: [[card]] tables with `values = [a, b]` (or [a]) and `copies`, or
    `kind = "copy"` for a `?` card. John Knut is not listed: the john_knut rule adds it."""
    from sim.spec import read_toml

    data = read_toml(path, "deck file")
    try:
        return parse_deck(data)
    except SpecError as exc:
        raise SpecError(f"deck file {path}: {exc}") from None


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


def deck_rows(arm) -> tuple:
    return arm.deck if arm.deck is not None else DEFAULT_DECK


def deck_arrays(arm) -> tuple[np.ndarray, np.ndarray]:
    """(cards, designs), the kernel's data: one row per card (kind, a, b, design) and per design
    (kind, a, b, copies) of the plain deck. John is not among them: the kernel adds him (last
    design, last card) when the john_knut rule is on."""
    designs = list(deck_rows(arm))
    cards = [(kind, a, b, d) for d, (kind, a, b, copies) in enumerate(designs) for _ in range(copies)]
    return np.array(cards, dtype=np.int64), np.array(designs, dtype=np.int64)


def check_arm(arm) -> None:
    rules = arm.rule_values
    plain = sum(copies for *_, copies in deck_rows(arm))
    need = arm.players * rules["hand_limit"] + 1
    if plain < need:
        raise SpecError(f"the deck has {plain} cards besides John; {arm.players} players with "
                        f"hand_limit={rules['hand_limit']} need at least {need} (a full deal and "
                        "one card to play on)")
    if rules["heavy_weather"] and rules["heavy_bites_to_end"] < 2:
        raise SpecError("heavy_bites_to_end must be at least 2")


# ------------------------------------------------------------------------------------- running

def _run(arm, seed: int, start: int, count: int, checked: bool, trace: bool = False):
    """The kernel's output records (OUT_DTYPE) for games start..start+count-1, and the first
    game's trace events when `trace` (else None). Interim glue: every seat's parameters are the
    defaults (start = most_bites) until seats carry their own."""
    from kernels.knutten import enums as e
    from kernels.knutten.play_nb import play_games_nb
    from kernels.status import MESSAGES

    players = arm.players
    out = np.zeros(count, e.OUT_DTYPE)
    events = np.zeros((e.TRACE_CAP, e.TRACE_WIDTH), np.int32) if trace else None
    status, failed, rows = play_games_nb(
        np.int64(seed), np.int64(start), np.int64(count), rule_array(arm, e.RULE_I_ORDER),
        np.zeros(0), policy_ids(arm), np.zeros((players, len(e.SEAT_I_ORDER)), np.int64),
        np.zeros((players, 0)), deck_arrays(arm), out, events, bool(checked))
    raise_on_error(status, failed, MESSAGES, arm)
    return out, (events[:rows] if trace else None)


def play_batch(arm, seed: int, start: int, count: int, checked: bool = False):
    out, _ = _run(arm, seed, start, count, checked)
    extra = {column.name: out[column.name] for column in GAME.columns}
    return build_table(arm, start, out["winner_mask"], out["turns"], out["rounds"],
                       out["score"][:, :arm.players], extra)


def trace_game(arm, seed: int, index: int) -> str:
    from sim.games.knutten_trace import render

    out, events = _run(arm, seed, index, 1, True, trace=True)
    return render(arm, seed, index, events, *deck_arrays(arm), out[0]["score"][:arm.players])
