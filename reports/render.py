"""Render sections to report.html (self-contained), report.md and summary.json."""
from __future__ import annotations

import base64
import html
import json
import math
from pathlib import Path

import numpy as np

from reports.model import Section, Table
from reports.claims import Claim
from reports.stats import Estimate, Gaps, TestResult

CSS = """
body{font-family:-apple-system,"Segoe UI",Roboto,"DejaVu Sans",Arial,sans-serif;margin:0;color:#1d2125;background:#fafafa;line-height:1.45}
main{max-width:1100px;margin:0 auto;padding:1.2em 2em 3em}
h1{font-size:1.6em;margin:.4em 0}h2{font-size:1.3em;margin-top:1.8em;border-bottom:2px solid #d0d7de;padding-bottom:.2em}
h3{font-size:1.1em;margin-top:1.4em}h4{font-size:1em}
.meta{color:#57606a;font-size:.9em}
.verdicts{background:#eef6ee;border-left:4px solid #2d7d46;padding:.5em 1em;margin:.8em 0}
.verdicts ul{margin:.2em 0;padding-left:1.2em}.verdicts li{margin:.25em 0}
table{border-collapse:collapse;margin:.6em 0 1em;font-size:.85em;background:#fff}
th,td{border:1px solid #d0d7de;padding:.25em .5em;text-align:right}.nw{white-space:nowrap}
th{background:#f0f2f4}td.l,th.l{text-align:left;white-space:normal}
.tablewrap{overflow-x:auto}caption{text-align:left;font-weight:600;padding:.2em 0}
.tnote{color:#57606a;font-size:.85em;margin-top:-.6em}
figure{margin:.6em .6em .6em 0;background:#fff;border:1px solid #e1e4e8;padding:.3em;display:inline-block;max-width:100%;vertical-align:top}
figure img{max-width:100%;height:auto;display:block}
figcaption{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
details{margin:.6em 0;font-size:.88em;color:#3d444d}summary{cursor:pointer;font-weight:600}
details.fold{font-size:1em;color:inherit}details.fold>summary{font-size:.9em;color:#0b5cad}
.folds{display:flex;flex-wrap:wrap;column-gap:1.8em;align-items:baseline;margin:.4em 0}
.folds>details{margin:.25em 0}.folds>details[open]{flex-basis:100%}
nav ul{display:flex;flex-wrap:wrap;gap:.15em 1.4em;list-style:none;padding:0;margin:.6em 0;font-size:.9em}
nav li ul{display:inline-flex;margin:0 0 0 .6em;gap:.15em .8em;font-size:1em}
#answers{background:#fff;border:1px solid #d0d7de;border-left:5px solid #0b5cad;padding:.6em 1.2em;margin:.8em 0 1.2em}
#answers h2{border:0;margin:.2em 0 .4em;font-size:1.25em}
#answers .description{font-size:1.08em;margin:.2em 0 .6em;font-style:italic}
#answers ol{margin:.2em 0;padding-left:1.4em}#answers li{margin:.45em 0}
#answers .verdict{font-weight:700}#answers a.evidence{white-space:nowrap;font-size:.9em}
#answers .note{color:#57606a;font-size:.88em;margin:.5em 0 .2em}
"""


# -- summary.json -------------------------------------------------------------------------------
def plain(obj):
    """JSON-safe copy: numpy scalars to Python, NaN/inf to null, Estimates to dicts."""
    if isinstance(obj, (Estimate, TestResult, Gaps, Claim)):
        return plain(obj.to_dict())
    if isinstance(obj, dict):
        return {str(k): plain(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [plain(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return plain(obj.tolist())
    if isinstance(obj, (np.bool_, bool)):
        return bool(obj)
    if isinstance(obj, np.integer):
        return int(obj)
    if isinstance(obj, (float, np.floating)):
        x = float(obj)
        return x if math.isfinite(x) else None
    return obj


def _section_json(sec: Section) -> dict:
    out = {"title": sec.title, "verdicts": sec.verdicts, "data": plain(sec.data)}
    if sec.children:
        out["children"] = {c.key: _section_json(c) for c in sec.children}
    return out


def summary(header: dict, sections: list[Section]) -> dict:
    """Every number of the report; ``answers`` first, the same answers the report opens with."""
    top, _ = _split_answers(sections)
    out = {"kaartlab_report": 1, **plain(header)}
    if top is not None:
        out["description"] = top.data.get("description", "")
        out["answers"] = plain(top.data["answers"])
    return {**out, "sections": {s.key: _section_json(s) for s in sections}}


def write_json(path: Path, header: dict, sections: list[Section]) -> None:
    path.write_text(json.dumps(summary(header, sections), indent=1, allow_nan=False) + "\n")


def aligns(t: Table) -> list[str]:
    """'l' for text columns (any cell starting with a letter, n/a aside), 'r' for numbers."""
    out = []
    for i in range(len(t.columns)):
        cells = [str(r[i]) for r in t.rows if i < len(r) and str(r[i]) and str(r[i]) not in ("n/a", "-")]
        out.append("l" if i == 0 or any(c[0].isalpha() for c in cells) else "r")
    return out


def _method_line(header: dict) -> str:
    opts = header.get("report_options") or {}
    name = {"holm": "Holm", "bh": "Benjamini-Hochberg"}.get(opts.get("correction", "holm"), "Holm")
    return (f"All intervals are 95%; every 'detectable' is decided after the {name} correction over all claims of "
            f"the report (see 'Claims and multiple comparisons').")


# -- markdown -----------------------------------------------------------------------------------
def _md_cell(s: str) -> str:
    return str(s).replace("|", "\\|").replace("\n", " ")


def md_table(t: Table) -> str:
    lines = [f"**{t.title}**", "", "| " + " | ".join(_md_cell(c) for c in t.columns) + " |",
             "|" + "|".join(":---" if a == "l" else "---:" for a in aligns(t)) + "|"]
    lines += ["| " + " | ".join(_md_cell(c) for c in row) + " |" for row in t.rows]
    if t.note:
        lines += ["", f"_{t.note}_"]
    return "\n".join(lines)


def _md_section(sec: Section) -> list[str]:
    out = ["#" * sec.level + f" {sec.title}", ""]
    if sec.verdicts:
        out += [f"- {v}" for v in sec.verdicts] + [""]
    for t in sec.tables:
        out += [md_table(t), ""]
    if sec.figures:
        out += ["_Figures (in report.html): " + "; ".join(f.title for f in sec.figures) + "._", ""]
    if sec.notes:
        out += ["<details><summary>How these numbers are made</summary>", ""]
        out += [f"- {n}" for n in sec.notes] + ["", "</details>", ""]
    for c in sec.children:
        out += _md_section(c)
    return out


def write_markdown(path: Path, header: dict, header_table: Table, sections: list[Section]) -> None:
    top, rest = _split_answers(sections)
    lines = [f"# kaartlab report: {header['dataset']['study']}", ""]
    lines += _answers_md(top) if top else []
    lines += [f"Dataset `{header['dataset']['path']}`, fingerprint `{header['dataset']['fingerprint']}`, "
              f"seed {header['dataset']['seed']}. {_method_line(header)}", "", md_table(header_table), ""]
    for sec in rest:
        lines += _md_section(sec)
    path.write_text("\n".join(lines).rstrip() + "\n")


# -- html ---------------------------------------------------------------------------------------
def _e(s) -> str:
    return html.escape(str(s), quote=True)


def _html_cell(cell) -> str:
    """Keep a number and its interval each on one line, allowing a break between them."""
    cell = str(cell)
    if " (" in cell and cell.endswith(")"):
        value, interval = cell.split(" (", 1)
        return f'<span class="nw">{_e(value)}</span> <span class="nw">({_e(interval)}</span>'
    return _e(cell) if len(cell) > 24 else f'<span class="nw">{_e(cell)}</span>'


FOLD_ROWS = 12  # longer tables start folded in report.html (report.md and summary.json show them whole)


def html_table(t: Table) -> str:
    al = aligns(t)
    cls = lambda i: ' class="l"' if i < len(al) and al[i] == "l" else ""  # noqa: E731
    head = "".join(f"<th{cls(i)}>{_e(c)}</th>" for i, c in enumerate(t.columns))
    body = "".join("<tr>" + "".join(f"<td{cls(i)}>{_html_cell(c)}</td>" for i, c in enumerate(row)) + "</tr>"
                   for row in t.rows)
    note = f'<p class="tnote">{_e(t.note)}</p>' if t.note else ""
    table = (f'<div class="tablewrap"><table><caption>{_e(t.title)}</caption><thead><tr>{head}</tr></thead>'
             f"<tbody>{body}</tbody></table></div>{note}")
    if folded(t):
        rows = f"{len(t.rows)} row{'' if len(t.rows) == 1 else 's'}"
        return f'<details class="fold"><summary>{_e(t.title)} ({rows})</summary>{table}</details>'
    return table


def folded(t: Table) -> bool:
    """A long table, or secondary detail, is looked up, not scrolled past: folded in report.html."""
    return t.fold or len(t.rows) > FOLD_ROWS


def html_figure(f) -> str:
    """The picture (its title is drawn in it; the caption repeats it for screen readers and search);
    a secondary figure folded behind its title."""
    data = base64.b64encode(f.png).decode("ascii")
    fig = (f'<figure><img alt="{_e(f.alt)}" src="data:image/png;base64,{data}">'
           f"<figcaption>{_e(f.title)}</figcaption></figure>")
    return f'<details class="fold"><summary>Figure: {_e(f.title)}</summary>{fig}</details>' if f.fold else fig


def _html_section(sec: Section) -> str:
    parts = [f'<section id="{_e(sec.key)}"><h{sec.level}>{_e(sec.title)}</h{sec.level}>']
    if sec.verdicts:
        parts.append('<div class="verdicts"><ul>' + "".join(f"<li>{_e(v)}</li>" for v in sec.verdicts) + "</ul></div>")
    parts += [html_figure(f) for f in sec.figures if not f.fold]
    parts += [html_table(t) for t in sec.tables if not folded(t)]
    # what is folded sits side by side under the open evidence, each on its own line once opened
    folds = [html_table(t) for t in sec.tables if folded(t)] + [html_figure(f) for f in sec.figures if f.fold]
    if sec.notes:
        folds.append("<details><summary>How these numbers are made</summary><ul>"
                     + "".join(f"<li>{_e(n)}</li>" for n in sec.notes) + "</ul></details>")
    if folds:
        parts.append('<div class="folds">' + "".join(folds) + "</div>")
    parts += [_html_section(c) for c in sec.children]
    parts.append("</section>")
    return "\n".join(parts)


def _answers_html(sec: Section) -> str:
    """The top of the report: the study's description, then one answer per question with a link to
    its evidence."""
    desc = sec.data.get("description") or ""
    items = "".join(
        f'<li><span class="verdict">{_e(a.headline)}</span> {_e(a.sentence)} '
        f'<a class="evidence" href="#{_e(a.link)}">evidence &rarr;</a></li>' for a in sec.answers)
    notes = "".join(f'<p class="note">{_e(n)}</p>' for n in sec.notes)
    return (f'<section id="answers"><h2>{_e(sec.title)}</h2>'
            + (f'<p class="description">{_e(desc)}</p>' if desc else "")
            + f"<ol>{items}</ol>{notes}</section>")


def _answers_md(sec: Section) -> list[str]:
    desc = sec.data.get("description") or ""
    out = [f"## {sec.title}", ""] + ([f"_{desc}_", ""] if desc else [])
    out += [f"{i}. **{a.headline}** {a.sentence} ([evidence](#{a.link}))"
            for i, a in enumerate(sec.answers, 1)]
    return out + [""] + [f"> {n}" for n in sec.notes] + ([""] if sec.notes else [])


def _toc(sections: list[Section]) -> str:
    def items(secs):
        return "".join(f'<li><a href="#{_e(s.key)}">{_e(s.title)}</a>'
                       + (f"<ul>{items(s.children)}</ul>" if s.children else "") + "</li>" for s in secs)
    return f"<nav><ul>{items(sections)}</ul></nav>"


def _split_answers(sections: list[Section]) -> tuple[Section | None, list[Section]]:
    if sections and sections[0].key == "answers":
        return sections[0], sections[1:]
    return None, sections


def write_html(path: Path, header: dict, header_table: Table, sections: list[Section]) -> None:
    top, sections = _split_answers(sections)
    d = header["dataset"]
    prov = header.get("provenance") or {}
    prov_text = ", ".join(f"{k} {v}" for k, v in prov.items() if isinstance(v, (str, int, float)) and v)
    doc = f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>kaartlab report: {_e(d['study'])}</title>
<style>{CSS}</style></head>
<body><main>
<h1>kaartlab report: {_e(d['study'])}</h1>
{_answers_html(top) if top else ''}
<h2 id="study">The study</h2>
<p class="meta">Dataset <code>{_e(d['path'])}</code>, fingerprint <code>{_e(d['fingerprint'])}</code>,
seed {_e(d['seed'])}. {_e(_method_line(header))} {_e(prov_text)}</p>
{html_table(header_table)}
{_toc(sections)}
{''.join(_html_section(s) for s in sections)}
</main></body></html>
"""
    path.write_text(doc, encoding="utf-8")
