"""build_report: dataset directory in, report.html + report.md + summary.json out."""
from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import polars as pl

from reports import plots, render, stopping, sweeps, text
from reports.answers import Answer, answer, target_section
from reports.claims import Family
from reports.context import Context, Options
from reports.dataset import Dataset, ReportError
from reports.model import Section, Table
from reports.questions import study_questions
from reports.registry import sections as plugin_sections
from reports import search
from reports.sections import GENERIC
from reports.sections.first_player import seat_stats


def _as_list(result) -> list[Section]:
    if result is None:
        return []
    return list(result) if isinstance(result, (list, tuple)) else [result]


def _make(contexts: list[Context]) -> list[Section]:
    answers, targets = answer_questions(contexts)
    found = search.answers(contexts[0].dataset)  # a [[search]]'s answer opens the report (reports/search.py)
    stopped = stopping.section(contexts[0].dataset)
    sections: list[Section] = [answers_section(contexts[0].dataset, found + answers),
                               *([stopped] if stopped else []), *search.sections(contexts[0].dataset), *targets]
    for ctx in contexts:
        sections += sweeps.sections(ctx)
    for ctx in contexts:
        for make in (*GENERIC, *plugin_sections(ctx.game)):
            sections += _as_list(make(ctx))
    return sections


def answer_questions(contexts: list[Context]) -> tuple[list[Answer], list[Section]]:
    """Every question of the study (or implied by its design) answered, and the evidence sections of
    target questions. A question whose arms have no verified games yet is said to have no answer."""
    dataset = contexts[0].dataset
    by_game = {ctx.game: ctx for ctx in contexts}
    played = {a.name for a in dataset.arms}
    answers, targets = [], []
    for q in study_questions(dataset):
        games = [dataset.arm(q.arms[0]).game] if q.arms else list(by_game)
        for game in games:
            ctx = by_game.get(game)
            missing = [a for a in q.arms if a not in played]
            if ctx is None or missing:
                answers.append(Answer(q, q.title or f"Question {q.number} ({q.kind})", "no answer yet",
                                      f"No verified games yet for {', '.join(missing) or game}.", "completeness"))
                continue
            ans = answer(ctx, q)
            answers.append(ans)
            if q.kind == "target":
                targets.append(target_section(ctx, ans))
    return answers, targets


def answers_section(dataset: Dataset, answers: list[Answer]) -> Section:
    """The report's first section: the study's description and one sentence per question."""
    inferred = bool(answers) and all(a.question.inferred for a in answers)
    sec = Section(key="answers", title="Answers")  # rendered apart (render._answers_html); numbers in data
    if inferred:
        sec.notes = ["The study file asks no question ([[question]] tables), so these are the questions its design "
                     "implies: " + "; ".join(f"{a.question.kind} ({', '.join(a.question.arms)})" for a in answers)
                     + ". Name your own to get them answered first."]
    sec.data = {"description": dataset.study.get("description", ""), "inferred": inferred,
                "note": " ".join(sec.notes), "answers": [a.to_dict() for a in answers]}
    sec.answers = answers
    return sec


def build_sections(dataset: Dataset, options: Options | None = None, figures: bool = True
                   ) -> tuple[list[Section], dict[str, int]]:
    """Generic sections then the game's registered ones, per game in the study; games per arm.

    Twice: the first pass (no figures; every number is cached) collects the report's claims, the
    family is corrected (reports.claims), the second pass words every verdict from the corrected
    decisions. The last section lists the claims."""
    options = options or Options.resolve(dataset.study)
    family = Family(options.correction)
    contexts = [Context(dataset, game, options, family) for game in dataset.game_names]
    games: dict[str, int] = {}
    for ctx in contexts:
        games.update({name: st.games for name, st in seat_stats(ctx).items()})
    family.collecting = True
    with plots.disabled():
        _make(contexts)
    family.correct()
    if figures:
        sections = _make(contexts)
    else:
        with plots.disabled():
            sections = _make(contexts)
    sections.append(claims_section(family))
    return sections, games


def claims_section(family: Family) -> Section:
    claims = list(family.claims.values())
    found = [c for c in claims if c._rejected]
    sec = Section(key="claims", title="Claims and multiple comparisons", notes=[family.describe()])
    sec.verdicts = [f"{len(found)} of {len(claims)} claims are detectable after the {family.name} correction "
                    f"(at {family.alpha:.0%} over the whole report)."]
    sec.data = family.to_dict()
    sec.tables.append(Table("Every claim of the report", ["section", "claim", "p-value", "adjusted p", "detectable"],
                            [[c.section, c.label, text.p_value(c.p_value, bare=True), text.p_value(c.adjusted, bare=True),
                              "yes" if c._rejected else "no"] for c in claims],
                            note=f"adjusted p: {family.name}; a claim is detectable when its adjusted p is below "
                                 f"{family.alpha:g}"))
    return sec


def completeness_section(dataset: Dataset) -> Section | None:
    """The report's first section when the study is incomplete or a batch failed verification:
    every warning as a verdict, and games found against games planned per arm."""
    comp = dataset.completeness()
    warnings = comp.warnings()
    if not warnings or comp.unverified:  # a dataset without records: said under the arms table
        return None
    title = ("Note: too few games for statistics" if comp.complete and not comp.unverified
             else "Warning: incomplete or unverified data")
    sec = Section(key="completeness", title=title, verdicts=warnings)
    sec.tables.append(Table("Games found per arm against games planned",
                            ["arm", "games found", "games planned", "missing batch files"],
                            [[arm, text.count(comp.found.get(arm, 0)), text.count(planned),
                              text.count(comp.missing_batches.get(arm, 0))]
                             for arm, planned in comp.planned.items()]))
    sec.data = {"complete": comp.complete, "planned": comp.planned, "found": comp.found, "bad": comp.bad,
                "missing_batches": comp.missing_batches, "unverified": comp.unverified}
    return sec


def rule_cells(rules: list[dict]) -> tuple[list[str], dict, dict]:
    """The arms table's rules: per arm, the rules in which it differs from most arms ("-" for none);
    the rules every arm shares; and each other rule's value in most arms (ties: the first arm's), so
    a cell says how its arm differs, not every rule that varies somewhere in the study."""
    names = list(dict.fromkeys(k for r in rules for k in r))
    values = {k: [json.dumps(r.get(k)) for r in rules] for k in names}
    common = {k: rules[0].get(k) for k in names if len(set(values[k])) == 1}
    usual = {k: Counter(v).most_common(1)[0][0] for k, v in values.items() if k not in common}
    cells = [", ".join(f"{k}={text.rule_value(r.get(k))}" for k in usual if json.dumps(r.get(k)) != usual[k])
             or "-" for r in rules]
    return cells, common, {k: json.loads(v) for k, v in usual.items()}


def _header(dataset: Dataset, games: dict[str, int], options: Options) -> tuple[dict, Table]:
    comp = dataset.completeness()
    planned = {} if comp.unverified else comp.planned
    arms = [{"name": a.name, "game": a.game, "players": a.players, "rules": a.rules, "policies": list(a.policies),
             "deck": a.deck, "games": games.get(a.name, 0), "planned": planned.get(a.name)}
            | ({"rotate": True} if a.rotate else {}) | ({"luck": True} if a.luck else {}) for a in dataset.all_arms]
    rotated = [a["name"] for a in arms if a.get("rotate")]
    lucky = [a["name"] for a in arms if a.get("luck")]
    header = {
        "dataset": {"path": str(dataset.root), "study": dataset.name, "fingerprint": dataset.fingerprint,
                    "seed": dataset.study.get("seed"), "games": sum(games.values()), "arms": arms},
        "games": {g: {"score": i.score, "higher_score_wins": i.higher_score_wins, "version": i.version}
                  for g, i in dataset.games.items()},
        "report_options": {"edge": options.edge, "correction": options.correction,
                           "equivalence_margin": options.equivalence_margin},
        "provenance": dataset.manifest.get("provenance", {}),
    }
    cells: dict[str, str] = {}
    shared, usual = [], []  # the note's parts, per game (rules of two games are not compared)
    games_of = list(dict.fromkeys(a["game"] for a in arms))
    for game in games_of:
        mine = [a for a in arms if a["game"] == game]
        game_cells, common, most = rule_cells([a["rules"] for a in mine])
        cells.update((a["name"], c) for a, c in zip(mine, game_cells))
        which = f" {game}" if len(games_of) > 1 else ""
        if common:
            shared.append(f"rules shared by every{which} arm: " + text.rules(common))
        if most:
            usual.append(f"rules that differ: shown where{which} an arm's value is not the one most"
                         f"{which} arms have (" + text.rules(most) + ")")
    table = Table("Arms", ["arm", "game", "players", "rules that differ", "policies (seat 0 first)", "games"],
                  [[a["name"], a["game"], str(a["players"]), cells[a["name"]],
                    ", ".join(a["policies"]),
                    text.count(a["games"]) + ("" if a["planned"] in (None, a["games"])
                                              else f" of {text.count(a['planned'])}")]
                   for a in arms],
                  note="; ".join(filter(None, [
                      *shared, *usual,
                      "batch files without integrity records (written before kaartlab kept them): "
                      "not verified" if comp.unverified else "",
                      f"{', '.join(rotated)}: each deal played once per seat rotation; the first-player section and "
                      "the comparisons take a deal as one unit, the other sections read each deal once (its first "
                      "rotation), so they count one game per deal" if rotated else "",
                      f"{', '.join(lucky)}: the luck of the draw measured (section 'Luck of the draw')" if lucky
                      else ""])))
    return header, table


def build_report(dataset_dir, out_dir=None, *, edge: float | None = None, correction: str | None = None,
                 equivalence_margin: float | None = None, skip_bad: bool = False) -> dict[str, Path]:
    """Read the study's Parquet dataset and write report.html, report.md and summary.json.

    ``out_dir`` defaults to ``dataset_dir``. The options default to study.json's ``report`` table
    (docs/statistics.md): ``edge`` (a share, 0.01 = 1 point) for 'games needed', ``correction``
    ('holm' or 'bh') and ``equivalence_margin`` (a share). Returns ``{"html": ..., "md": ..., "json": ...}``.
    Raises ``ReportError`` when the directory holds no readable dataset or an option is invalid, and
    (unless ``skip_bad``) when a batch file fails verification, naming every such file. A study that
    is incomplete, or built with ``skip_bad``, gets a warning section first."""
    # Polars' in-memory engine adds an aggregation's chunks in file order; its streaming engine (the
    # default in Polars 2) in the order its threads finish, so summary.json's last bits moved
    # between two reports of the same data. With it, and every per-arm aggregation over one arm's
    # rows (metrics.by_arm), the same data give the same bytes.
    with pl.Config(engine_affinity="in-memory"):
        return _build_report(dataset_dir, out_dir, edge, correction, equivalence_margin, skip_bad)


def _build_report(dataset_dir, out_dir, edge, correction, equivalence_margin, skip_bad) -> dict[str, Path]:
    dataset = Dataset(dataset_dir)
    bad = dataset.completeness().bad
    if bad and not skip_bad:
        raise ReportError(f"{dataset.root}: {len(bad)} batch file(s) failed verification: " + "; ".join(bad[:20])
                          + (f" ... and {len(bad) - 20} more" if len(bad) > 20 else "")
                          + ". Rerun the study's command to redo them (or report without them: --skip-bad)")
    if not dataset.arms:
        raise ReportError(f"{dataset.root}: no batch files yet (expected <arm>/batch-*.parquet)")
    options = Options.resolve(dataset.study, edge=edge, correction=correction, equivalence_margin=equivalence_margin)
    out = Path(out_dir) if out_dir is not None else dataset.root
    out.mkdir(parents=True, exist_ok=True)
    sections, games = build_sections(dataset, options)
    warning = completeness_section(dataset)
    if warning is not None:  # right under the answers, which it qualifies
        sections[0].notes.insert(0, f"{warning.title}: read the next section before these answers.")
        sections[0].data["note"] = " ".join(sections[0].notes)
        sections.insert(1, warning)
    header, table = _header(dataset, games, options)
    paths = {"html": out / "report.html", "md": out / "report.md", "json": out / "summary.json"}
    render.write_html(paths["html"], header, table, sections)
    render.write_markdown(paths["md"], header, table, sections)
    render.write_json(paths["json"], header, sections)
    return paths
