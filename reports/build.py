"""build_report: dataset directory in, report.html + report.md + summary.json out."""
from __future__ import annotations

import json
from pathlib import Path

from reports import render, text
from reports.context import Context
from reports.dataset import Dataset, ReportError
from reports.model import Section, Table
from reports.registry import sections as plugin_sections
from reports.sections import GENERIC
from reports.sections.first_player import seat_stats


def _as_list(result) -> list[Section]:
    if result is None:
        return []
    return list(result) if isinstance(result, (list, tuple)) else [result]


def build_sections(dataset: Dataset) -> tuple[list[Section], dict[str, int]]:
    """Generic sections then the game's registered ones, per game in the study; games per arm."""
    sections: list[Section] = []
    games: dict[str, int] = {}
    for game in dataset.game_names:
        ctx = Context(dataset, game)
        games.update({name: st.games for name, st in seat_stats(ctx).items()})
        for make in (*GENERIC, *plugin_sections(game)):
            sections += _as_list(make(ctx))
    return sections, games


def _header(dataset: Dataset, games: dict[str, int]) -> tuple[dict, Table]:
    arms = [{"name": a.name, "game": a.game, "players": a.players, "rules": a.rules, "policies": list(a.policies),
             "deck": a.deck, "games": games.get(a.name, 0)} for a in dataset.all_arms]
    header = {
        "dataset": {"path": str(dataset.root), "study": dataset.name, "fingerprint": dataset.fingerprint,
                    "seed": dataset.study.get("seed"), "games": sum(games.values()), "arms": arms},
        "games": {g: {"score": i.score, "higher_score_wins": i.higher_score_wins, "version": i.version}
                  for g, i in dataset.games.items()},
        "provenance": dataset.manifest.get("provenance", {}),
    }
    names = list(dict.fromkeys(k for a in arms for k in a["rules"]))
    varying = [k for k in names if len({json.dumps(a["rules"].get(k)) for a in arms}) > 1]
    common = {k: arms[0]["rules"].get(k) for k in names if k not in varying}
    table = Table("Arms", ["arm", "game", "players", "rules that differ", "policies (seat 0 first)", "games"],
                  [[a["name"], a["game"], str(a["players"]),
                    ", ".join(f"{k}={a['rules'].get(k)}" for k in varying) or "-",
                    ", ".join(a["policies"]), text.count(a["games"])] for a in arms],
                  note=("rules shared by every arm: " + ", ".join(f"{k}={v}" for k, v in common.items()))
                  if common else "")
    return header, table


def build_report(dataset_dir, out_dir=None) -> dict[str, Path]:
    """Read the study's Parquet dataset and write report.html, report.md and summary.json.

    ``out_dir`` defaults to ``dataset_dir``. Returns ``{"html": ..., "md": ..., "json": ...}``.
    Raises ``ReportError`` when the directory holds no readable dataset."""
    dataset = Dataset(dataset_dir)
    if not dataset.arms:
        raise ReportError(f"{dataset.root}: no batch files yet (expected <arm>/batch-*.parquet)")
    out = Path(out_dir) if out_dir is not None else dataset.root
    out.mkdir(parents=True, exist_ok=True)
    sections, games = build_sections(dataset)
    header, table = _header(dataset, games)
    paths = {"html": out / "report.html", "md": out / "report.md", "json": out / "summary.json"}
    render.write_html(paths["html"], header, table, sections)
    render.write_markdown(paths["md"], header, table, sections)
    render.write_json(paths["json"], header, sections)
    return paths
