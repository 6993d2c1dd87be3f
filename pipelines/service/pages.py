"""The service's HTML pages: the catalogue, a study's page (its spec, live progress, then its
answers and report), the submit form and the side-by-side view of two studies.

Styled with the reports' own stylesheet (reports/render.CSS) and a few rules of their own, so a
study's page and its report read alike. Pages take the plain dicts the API returns (app.py); the
only script polls a study's progress fragment while it runs.
"""
from __future__ import annotations

import functools
import html
import math

SERVICE_CSS = """
header.top{background:#1d2125;color:#fff}
header.top .in{max-width:1100px;margin:0 auto;padding:.55em 2em;display:flex;align-items:center;gap:1.6em}
header.top a{color:#e6edf3;text-decoration:none;font-size:.95em}header.top a:hover{text-decoration:underline}
header.top a.brand{font-weight:700;font-size:1.1em;color:#fff;margin-right:.4em}
header.top a.on{color:#fff;border-bottom:2px solid #58a6ff;padding-bottom:.1em}
header.top .who{margin-left:auto;font-size:.85em;color:#9da7b1}
a{color:#0b5cad}
.lead{color:#3d444d;margin:.2em 0 1em}
.badge{display:inline-block;border-radius:1em;padding:.05em .65em;font-size:.8em;font-weight:600;white-space:nowrap;border:1px solid}
.s-queued{background:#f0f2f4;color:#3d444d;border-color:#d0d7de}
.s-running,.s-stopping{background:#ddf4ff;color:#0b5cad;border-color:#9cd1ff}
.s-done{background:#eef6ee;color:#2d7d46;border-color:#a6d8b1}
.s-stopped,.s-incomplete{background:#fff8c5;color:#7d4e00;border-color:#e8d27a}
.s-failed{background:#ffebe9;color:#b42318;border-color:#f5b5ae}
table.cat{width:100%}table.cat td{vertical-align:top}table.cat td.desc{color:#3d444d;max-width:26em}
.bar{background:#eaeef2;border-radius:3px;height:.55em;min-width:6em;overflow:hidden;margin-top:.25em}
.bar>span{display:block;height:100%;background:#0b5cad}.bar.done>span{background:#2d7d46}
.small{font-size:.82em;color:#57606a}
.panel{background:#fff;border:1px solid #d0d7de;border-radius:4px;padding:.7em 1.2em;margin:.8em 0 1.2em}
.panel h2{margin-top:.2em}
.actions{display:flex;gap:.6em;align-items:center;margin:.6em 0}
button,.button{font:inherit;font-size:.92em;background:#0b5cad;color:#fff;border:1px solid #0b5cad;border-radius:4px;
 padding:.35em 1em;cursor:pointer;text-decoration:none;display:inline-block}
button.secondary,.button.secondary{background:#fff;color:#0b5cad}
button.danger{background:#fff;color:#b42318;border-color:#b42318}
textarea{width:100%;box-sizing:border-box;font-family:ui-monospace,"DejaVu Sans Mono",monospace;font-size:.85em;
 border:1px solid #d0d7de;border-radius:4px;padding:.6em;background:#fff}
input[type=number],input[type=password],select{font:inherit;padding:.25em .4em;border:1px solid #d0d7de;border-radius:4px;background:#fff}
label{font-weight:600;font-size:.92em}
.field{margin:.8em 0}.field .small{font-weight:400}
.error{background:#ffebe9;border-left:4px solid #b42318;padding:.55em 1em;margin:.8em 0;font-family:ui-monospace,"DejaVu Sans Mono",monospace;
 font-size:.85em;white-space:pre-wrap;word-break:break-word}
.ok{background:#eef6ee;border-left:4px solid #2d7d46;padding:.5em 1em;margin:.8em 0}
pre.src{background:#fff;border:1px solid #d0d7de;padding:.6em;font-size:.8em;overflow:auto;max-height:28em}
pre.log{background:#1d2125;color:#e6edf3;padding:.6em;font-size:.78em;overflow:auto;max-height:22em}
td svg{display:block}
.cols{display:grid;grid-template-columns:1fr 1fr;gap:1.2em}.cols>div{min-width:0}
@media (max-width:800px){.cols{grid-template-columns:1fr}header.top .in{padding:.55em 1em;gap:1em}main{padding:1em}}
.cols #answers{margin-top:.4em}.cols caption{white-space:nowrap}
dl.kv{display:grid;grid-template-columns:max-content 1fr;gap:.2em 1em;margin:.4em 0;font-size:.9em}dl.kv dt{color:#57606a}
dl.kv dd{margin:0}
"""

STATUS_HELP = {"queued": "waiting for a free slot", "running": "playing", "stopping": "stopping: finished batches are kept",
               "stopped": "stopped: resumes where it left off", "done": "done: report written",
               "failed": "failed", "incomplete": "incomplete: some batches are missing"}
ACTIVE = ("queued", "running", "stopping")


def e(text) -> str:
    return html.escape("" if text is None else str(text), quote=True)


def badge(status: str) -> str:
    return f'<span class="badge s-{e(status)}" title="{e(STATUS_HELP.get(status, ""))}">{e(status)}</span>'


def when(stamp: str | None) -> str:
    if not stamp:
        return ""
    return e(stamp.replace("T", " ").replace("+00:00", " UTC"))


def count(n) -> str:
    return f"{int(n or 0):,}"


@functools.cache
def report_css() -> str:
    """The reports' stylesheet (imported on the first page: `reports` takes seconds to import)."""
    from reports.render import CSS

    return CSS


def layout(title: str, body: str, active: str = "", user: str = "", refresh_script: str = "") -> str:
    nav = "".join(f'<a href="{href}"{" class=on" if key == active else ""}>{label}</a>'
                  for key, href, label in (("studies", "/", "Studies"), ("submit", "/submit", "Submit a study"),
                                           ("compare", "/compare", "Compare"), ("api", "/api", "API")))
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{e(title)} - kaartlab</title>
<style>{report_css()}{SERVICE_CSS}</style></head>
<body><header class="top"><div class="in"><a class="brand" href="/">kaartlab</a>{nav}<span class="who">{f'{e(user)} &middot; <a href="/logout">log out</a>' if user else ''}</span></div></header>
<main>
{body}
</main>{refresh_script}</body></html>
"""


# -- the catalogue ----------------------------------------------------------------------------------------

def progress_bar(p: dict, status: str) -> str:
    frac = max(0.0, min(1.0, float(p.get("fraction") or 0)))
    if status == "done":
        frac = 1.0
    return f'<div class="bar{" done" if status == "done" else ""}"><span style="width:{100 * frac:.1f}%"></span></div>'


def games_cell(s: dict) -> str:
    p = s.get("progress") or {}
    played, planned = p.get("games", 0), p.get("planned", 0)
    text = count(played)
    if planned and (played < planned and s["status"] != "done"):
        text += f' <span class="small">of {"up to " if p.get("up_to") else ""}{count(planned)}</span>'
    return f"{text}{progress_bar(p, s['status']) if s['status'] in ACTIVE else ''}"


def catalogue(studies: list[dict], user: str = "") -> str:
    if not studies:
        rows = ('<tr><td class="l" colspan="6">No studies yet. <a href="/submit">Submit a study file</a>, '
                'or <code>POST /api/studies</code>.</td></tr>')
    else:
        rows = "".join(
            f'<tr><td class="l"><a href="/studies/{e(s["id"])}"><b>{e(s["name"])}</b></a>'
            + (f'<div class="small">id {e(s["id"])}</div>' if s["id"] != s["name"] else "")
            + f'</td><td class="l desc">{e(s.get("description") or "")}</td>'
            f'<td class="l">{e(", ".join(s.get("games") or []))}</td>'
            f'<td class="l">{badge(s["status"])}'
            + (f'<div class="small">priority {s["priority"]}</div>' if s.get("priority") else "")
            + f'</td><td>{games_cell(s)}</td>'
            f'<td class="l small nw">{when(s.get("finished") or s.get("started") or s.get("submitted") or s.get("when"))}</td></tr>'
            for s in studies)
    active = sum(1 for s in studies if s["status"] in ACTIVE)
    body = f"""<h1>Studies</h1>
<p class="lead">{len(studies)} stud{"y" if len(studies) == 1 else "ies"} in this runs directory{f", {active} queued or running" if active else ""}.
Submit a study file to queue it; each study's page shows its progress and then its report.</p>
<div class="actions"><a class="button" href="/submit">Submit a study</a><a class="button secondary" href="/compare">Compare two studies</a></div>
<div class="tablewrap"><table class="cat"><thead><tr><th class="l">study</th><th class="l">question</th><th class="l">game</th>
<th class="l">status</th><th>games played</th><th class="l">when</th></tr></thead><tbody>{rows}</tbody></table></div>
"""
    script = ('<script>setTimeout(function(){location.reload()},4000)</script>' if active else "")
    return layout("Studies", body, "studies", user, script)


# -- a study ----------------------------------------------------------------------------------------------

def interval_svg(i: dict, width: int = 260, height: int = 26) -> str:
    """The interval (dark) over its target half-width (light band) around the estimate: the dark bar
    shrinks towards the band as games land. A dashed line marks zero when it is in view."""
    value, hw, target = i["value"], i["half_width"], i["target"]
    if not all(math.isfinite(x) for x in (value, hw, target)):
        return ""
    span = max(hw, target, 1e-12) * 1.25
    lo, hi = value - span, value + span

    def x(v):
        return 6 + (width - 12) * (v - lo) / (hi - lo)

    mid = height / 2
    zero = (f'<line x1="{x(0):.1f}" y1="2" x2="{x(0):.1f}" y2="{height - 2}" stroke="#57606a" stroke-dasharray="2,2"/>'
            if lo < 0 < hi else "")
    colour = "#2d7d46" if i.get("reached") else "#0b5cad"
    return (f'<svg width="{width}" height="{height}" role="img" aria-label="{e(i["name"])}: '
            f'{value:.4g} +- {hw:.3g}, target +- {target:.3g}">'
            f'<rect x="{x(value - target):.1f}" y="{mid - 7}" width="{x(value + target) - x(value - target):.1f}" height="14" '
            f'fill="#d8e8f6"/>{zero}'
            f'<line x1="{x(value - hw):.1f}" y1="{mid}" x2="{x(value + hw):.1f}" y2="{mid}" stroke="{colour}" stroke-width="4"/>'
            f'<circle cx="{x(value):.1f}" cy="{mid}" r="4" fill="#fff" stroke="{colour}" stroke-width="2"/></svg>')


def width(v: float) -> str:
    """A half-width with three significant digits and no exponent (0.000320, 0.00398, 1.25)."""
    if not math.isfinite(v):
        return "n/a"
    if v == 0:
        return "0"
    decimals = max(0, 2 - math.floor(math.log10(abs(v))))
    return f"{v:.{decimals}f}"


def number(v: float) -> str:
    if not math.isfinite(v):
        return "n/a"
    return f"{v:+.4f}" if abs(v) < 10 else f"{v:,.2f}"


def intervals_html(live: dict | None, final: bool = False) -> str:
    if not live:
        return ""
    rows = live.get("intervals") or []
    note = live.get("note") or ""
    if not rows:
        return f'<p class="small">{e(note or "Intervals appear once the first batch of every arm is in.")}</p>'
    kind = ("anytime-valid confidence sequence" if live.get("kind") == "sequence" else "fixed-n interval")
    body = "".join(
        f'<tr><td class="l">{e(i["name"])}</td><td>{number(i["value"])}</td>'
        f'<td class="l">{interval_svg(i)}</td><td>&plusmn;{width(i["half_width"])}</td>'
        f'<td>&plusmn;{width(i["target"])}</td><td>{"yes" if i.get("reached") else "not yet"}</td><td>{count(i["games"])}</td></tr>'
        for i in rows)
    return (f'<div class="tablewrap"><table><caption>{"Intervals on every game played" if final else "Current intervals"} ({e(kind)}, '
            f'{live.get("confidence", 0.95):.0%})</caption><thead><tr><th class="l">interval</th><th>estimate</th>'
            f'<th class="l">interval (dark) and target (band)</th><th>half-width</th><th>target</th><th>reached</th>'
            f'<th>games</th></tr></thead><tbody>{body}</tbody></table></div><p class="tnote">{e(note)}</p>')


def progress_fragment(s: dict) -> str:
    """The live part of a study's page, fetched again every two seconds while the study is active."""
    p = s.get("progress") or {}
    arms = "".join(
        f'<tr><td class="l">{e(a["name"])}</td><td class="l">{e(a.get("game") or "")}</td><td>{count(a["games"])}</td>'
        f'<td>{"up to " if p.get("up_to") else ""}{count(a["planned"])}</td>'
        f'<td class="l">{progress_bar({"fraction": (a["games"] / a["planned"]) if a["planned"] else 0}, s["status"])}</td></tr>'
        for a in p.get("arms") or [])
    message = f'<p class="small">{e(s["message"])}</p>' if s.get("message") and s["status"] != "failed" else ""
    total = (f'{count(p.get("games"))} of {"up to " if p.get("up_to") else ""}{count(p.get("planned"))} games'
             if p.get("planned") else "no games yet")
    return (f'<div id="live" data-status="{e(s["status"])}"><p>{badge(s["status"])} <b>{total}</b> '
            f'<span class="small">{e(STATUS_HELP.get(s["status"], ""))}</span></p>{message}'
            + (f'<div class="tablewrap"><table><caption>Games per arm (from the batch records)</caption><thead><tr>'
               f'<th class="l">arm</th><th class="l">game</th><th>played</th><th>planned</th><th class="l">progress</th></tr></thead>'
               f'<tbody>{arms}</tbody></table></div>' if arms else "")
            + intervals_html(s.get("intervals"), s["status"] not in ACTIVE) + "</div>")


POLL = """<script>
(function(){var live=document.getElementById('live');if(!live)return;
var active=['queued','running','stopping'];if(active.indexOf(live.dataset.status)<0)return;
function poll(){fetch(location.pathname+'/progress',{credentials:'same-origin'}).then(function(r){return r.text()}).then(function(t){
var d=document.createElement('div');d.innerHTML=t;var n=d.firstElementChild;if(!n)return;
if(n.dataset.status!==live.dataset.status){location.reload();return}
document.getElementById('live').replaceWith(n);setTimeout(poll,2000)}).catch(function(){setTimeout(poll,4000)})}
setTimeout(poll,2000)})();
</script>"""


def headline(a: dict) -> str:
    """An answer's headline as the report words it (reports/answers.Answer.headline): the text
    before its sentence."""
    text, sentence = a.get("text") or "", a.get("sentence") or ""
    if sentence and text.endswith(sentence):
        return text[: len(text) - len(sentence)].strip()
    return f"{a.get('title', '')}: {a.get('verdict', '')}."


def answers_html(summary: dict | None, study_id: str) -> str:
    if not summary:
        return ""
    answers = summary.get("answers") or []
    items = "".join(f'<li><span class="verdict">{e(headline(a))}</span> {e(a.get("sentence"))} '
                    f'<a class="evidence" href="/studies/{e(study_id)}/report#{e(a.get("evidence") or "")}">evidence &rarr;</a></li>'
                    for a in answers)
    desc = summary.get("description") or ""
    return ('<section id="answers"><h2>Answers</h2>' + (f'<p class="description">{e(desc)}</p>' if desc else "")
            + f'<ol>{items}</ol></section>')


def study_page(s: dict, user: str = "", can_write: bool = True) -> str:
    sid = e(s["id"])
    actions = []
    if s["status"] in ("queued", "running") and can_write:
        actions.append(f'<form method="post" action="/studies/{sid}/stop"><button class="danger" type="submit">Stop</button></form>')
    if s["status"] in ("stopped", "failed") and s.get("source") == "service" and can_write:
        actions.append(f'<form method="post" action="/studies/{sid}/resume"><button type="submit">Resume</button></form>')
    if s.get("report_url"):
        label = "Open the report" if s["status"] == "done" else "Open its last report"
        actions.append(f'<a class="button" href="{e(s["report_url"])}">{label}</a>')
        actions.append(f'<a class="button secondary" href="/compare?a={sid}">Compare with another study</a>')
    error = (f'<div class="error">kaartlab: error: {e(s["message"])}</div>' if s["status"] == "failed" and s.get("message") else "")
    spec = s.get("spec") or {}
    arms = "".join(f'<tr><td class="l">{e(a["name"])}</td><td class="l">{e(a["describe"])}</td></tr>'
                   for a in spec.get("arms") or [])
    facts = "".join(f"<dt>{e(k)}</dt><dd>{v}</dd>" for k, v in (
        ("id", f"<code>{sid}</code>"), ("game", e(", ".join(s.get("games") or []))),
        ("seed", e(spec.get("seed", ""))), ("batch size", count(spec.get("batch_size"))) if spec.get("batch_size") else ("", ""),
        ("priority", e(s.get("priority", 0))), ("submitted", when(s.get("submitted"))),
        ("started", when(s.get("started"))), ("finished", when(s.get("finished"))),
        ("dataset", f"<code>{e(s.get('dataset', ''))}</code>")) if k and v)
    source = (f'<details><summary>The study file ({e(spec.get("filename") or "study.toml")})</summary>'
              f'<pre class="src">{e(spec["toml"])}</pre></details>' if spec.get("toml") else "")
    log = (f'<details><summary>Output of its runs</summary><pre class="log">{e(s["log"])}</pre></details>'
           if s.get("log") else "")
    body = f"""<h1>{e(s["name"])} {badge(s["status"])}</h1>
{f'<p class="lead">{e(s["description"])}</p>' if s.get("description") else ''}
<div class="actions">{"".join(actions)}</div>
{error}
{answers_html(s.get("summary"), s["id"]) if s["status"] == "done" else ""}
<div class="panel"><h2>Progress</h2>{progress_fragment(s)}</div>
<div class="panel"><h2>The study</h2><dl class="kv">{facts}</dl>
{f'<div class="tablewrap"><table><caption>Arms</caption><thead><tr><th class="l">arm</th><th class="l">game, seats, players and rules</th></tr></thead><tbody>{arms}</tbody></table></div>' if arms else ''}
{source}{log}</div>
"""
    return layout(s["name"], body, "studies", user, POLL)


# -- the form ---------------------------------------------------------------------------------------------

def submit_page(text: str = "", error: str = "", user: str = "", token_needed: bool = False,
                priority: int = 0, limit: int = 0) -> str:
    err = f'<div class="error" role="alert">kaartlab: error: {e(error)}</div>' if error else ""
    token = ('<div class="field"><label for="token">Token</label> <input type="password" id="token" name="token" size="30" '
             'autocomplete="current-password"> <span class="small">this service needs its token to queue a study '
             '(or <a href="/login">log in</a> once)</span></div>' if token_needed else "")
    body = f"""<h1>Submit a study</h1>
<p class="lead">Paste a study file or upload one (the format of <code>examples/*.toml</code>; <code>kaartlab games</code> lists
games, rules, players and measures). It is checked exactly as <code>kaartlab study FILE</code> checks it before anything runs;
a valid study is queued and its page shows its progress.</p>
{err}
<form method="post" action="/submit" enctype="multipart/form-data" class="panel">
<div class="field"><label for="toml">Study file</label>
<textarea id="toml" name="toml" rows="18" spellcheck="false" placeholder='name = "my-study"&#10;description = "Does the first player win too often?"&#10;games = 100_000&#10;&#10;[[arm]]&#10;name = "base"&#10;game = "knutten"&#10;players = 4&#10;policy = "cautious"'>{e(text)}</textarea></div>
<div class="field"><label for="file">or upload a file</label> <input type="file" id="file" name="file" accept=".toml,text/plain">
<span class="small">at most {limit // 1024:,} KiB</span></div>
<div class="field"><label for="priority">Priority</label> <input type="number" id="priority" name="priority" value="{int(priority)}" min="-100" max="100">
<span class="small">higher runs first; equal priorities in submission order</span></div>
{token}
<div class="actions"><button type="submit" id="submit">Check and queue</button><a class="button secondary" href="/">Cancel</a></div>
</form>
"""
    return layout("Submit a study", body, "submit", user)


def login_page(error: str = "", user: str = "", next_url: str = "/") -> str:
    err = f'<div class="error" role="alert">{e(error)}</div>' if error else ""
    body = f"""<h1>Log in</h1><p class="lead">This service asks for its token (the file given to
<code>kaartlab serve --token-file</code>). The browser keeps it in a cookie for this site only.</p>{err}
<form method="post" action="/login" class="panel"><input type="hidden" name="next" value="{e(next_url)}">
<div class="field"><label for="token">Token</label> <input type="password" id="token" name="token" size="40" autofocus></div>
<div class="actions"><button type="submit">Log in</button></div></form>"""
    return layout("Log in", body, "", user)


def message_page(title: str, text: str, user: str = "") -> str:
    return layout(title, f'<h1>{e(title)}</h1><div class="error">{e(text)}</div><p><a href="/">All studies</a></p>', "", user)


# -- two studies side by side ----------------------------------------------------------------------------

def compare_page(options: list[dict], a: dict | None, b: dict | None, user: str = "") -> str:
    def select(name, chosen):
        opts = "".join(f'<option value="{e(o["id"])}"{" selected" if chosen and o["id"] == chosen["id"] else ""}>'
                       f'{e(o["id"])} ({e(o["status"])})</option>' for o in options)
        return f'<select name="{name}" id="{name}"><option value="">choose a study</option>{opts}</select>'

    def column(s):
        if s is None:
            return '<div><p class="small">Choose a study above.</p></div>'
        p = s.get("progress") or {}
        arms = "".join(f'<tr><td class="l">{e(x["name"])}</td><td>{count(x["games"])}</td></tr>' for x in p.get("arms") or [])
        answers = (answers_html(s.get("summary"), s["id"]) if s["status"] == "done" else "") or (
            f'<p class="small">No answers yet ({e(s["status"])}).</p>')
        return (f'<div><h2><a href="/studies/{e(s["id"])}">{e(s["name"])}</a> {badge(s["status"])}</h2>'
                f'<p class="small">{e(", ".join(s.get("games") or []))}; {count(p.get("games"))} games; '
                f'{when(s.get("finished") or s.get("submitted") or s.get("when"))}</p>{answers}'
                f'<div class="tablewrap"><table><caption>Games per arm</caption><thead><tr><th class="l">arm</th><th>games</th></tr>'
                f'</thead><tbody>{arms}</tbody></table></div>'
                + (f'<p><a href="{e(s["report_url"])}">The full report &rarr;</a></p>' if s.get("report_url") else "")
                + "</div>")

    body = f"""<h1>Compare two studies</h1>
<p class="lead">Two studies' answers side by side, each as its report opens.</p>
<form method="get" action="/compare" class="actions"><label for="a">Left</label> {select("a", a)}
<label for="b">Right</label> {select("b", b)} <button type="submit" id="show">Show</button></form>
<div class="cols">{column(a)}{column(b)}</div>
"""
    return layout("Compare", body, "compare", user)


# -- the API, in words ----------------------------------------------------------------------------------

def api_page(schema: dict, user: str = "", base: str = "http://127.0.0.1:8000") -> str:
    """The routes of the OpenAPI schema (served at /openapi.json), without loading anything from
    another site (FastAPI's /docs fetches Swagger UI from a CDN)."""
    rows = []
    for path, methods in (schema.get("paths") or {}).items():
        for method, op in methods.items():
            rows.append(f'<tr><td class="l nw"><code>{e(method.upper())}</code></td><td class="l nw"><code>{e(path)}</code></td>'
                        f'<td class="l">{e(op.get("summary") or "")}</td></tr>')
    body = f"""<h1>API</h1>
<p class="lead">For scripts and CI. The schema is <a href="/openapi.json">/openapi.json</a> (OpenAPI {e(schema.get("openapi", ""))});
<a href="/docs">/docs</a> renders it where the browser reaches the web. Writes need <code>Authorization: Bearer TOKEN</code>
when the server has a token.</p>
<div class="tablewrap"><table><thead><tr><th class="l">method</th><th class="l">path</th><th class="l">what</th></tr></thead>
<tbody>{"".join(rows)}</tbody></table></div>
<h2>Example</h2>
<pre class="src">curl -sS -X POST --data-binary @examples/john-knut.toml -H 'Content-Type: application/toml' \\
     -H "Authorization: Bearer $(cat token)" {e(base)}/api/studies
curl -sS {e(base)}/api/studies/john-knut</pre>
"""
    return layout("API", body, "api", user)
