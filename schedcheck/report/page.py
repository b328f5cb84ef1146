"""The pieces every schedcheck HTML page shares -- the style sheet, escaping, inline SVG, the
report card as tables (``card_data``: the verdicts card.txt and report.json show) -- and the
page of a ``schedcheck check --out`` folder (:func:`check_html`). ``html`` builds the page of
``schedcheck verify`` from the same pieces. Nothing here imports the verify report, so the
writer of an out folder can use it."""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import Any

from schedcheck.harness.result import RunResult
from schedcheck.report.card import card_data, summary_line
from schedcheck.report.render import STATE_COLOURS
from schedcheck.report.steps import steps_text

__all__ = ["CAPTIONS", "CSS", "card_html", "check_html", "esc", "inline_svg", "legend", "page"]

CSS = """
body { font: 15px/1.45 -apple-system, 'Segoe UI', Helvetica, Arial, sans-serif; margin: 0;
       color: #1d1d1f; background: #fafafa; }
main { max-width: 1300px; margin: 0 auto; padding: 24px 32px 64px; }
h1 { font-size: 28px; margin: 0 0 4px; } h2 { margin-top: 40px; border-bottom: 2px solid #ddd; }
h3 { margin-top: 28px; }
.lede { color: #555; max-width: 900px; }
.tiles { display: flex; gap: 14px; flex-wrap: wrap; margin: 20px 0; }
.tile { background: white; border: 1px solid #ddd; border-radius: 10px; padding: 12px 18px;
        min-width: 190px; }
.tile b { display: block; font-size: 22px; }
.ok { color: #1a7f37; } .bad { color: #cf222e; } .warn { color: #9a6700; }
table { border-collapse: collapse; background: white; margin: 8px 0 16px; width: 100%; }
th, td { border: 1px solid #e1e1e1; padding: 4px 8px; text-align: left; vertical-align: top;
         font-size: 13px; }
th { background: #f3f3f3; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
.v-held { color: #1a7f37; font-weight: 600; } .v-broken { color: #cf222e; font-weight: 700; }
.v-not-supported { color: #9a6700; } .v-not-reached { color: #888; }
.v-partly-exercised { color: #1f6f8b; }
.v-unknown { color: #8250df; }
tr.broken td { background: #fff0f0; }
table.witness { margin: 4px 0; font-size: 90%; }
table.witness td, table.witness th { padding: 2px 8px; }
pre { background: #f6f8fa; border: 1px solid #e1e1e1; padding: 10px; overflow-x: auto;
      font-size: 12px; }
figure { margin: 12px 0 24px; background: white; border: 1px solid #e1e1e1; padding: 8px;
         overflow-x: auto; }
figure svg { max-width: 100%; height: auto; }
figcaption { font-size: 13px; color: #555; margin-bottom: 6px; }
.legend span { display: inline-block; padding: 1px 8px; margin: 2px; border: 1px solid #bbb;
               border-radius: 4px; font-size: 12px; }
.note { color: #555; font-size: 13px; }
"""


def esc(value: Any) -> str:
    return html.escape(value if isinstance(value, str) else str(value))


def inline_svg(svg: str) -> str:
    """``dot``'s SVG without the XML prolog/doctype/comments, ready to sit inside HTML."""
    start = svg.find("<svg")
    body = svg[start:] if start >= 0 else svg
    return re.sub(r"<!--.*?-->", "", body, flags=re.S)


def _verdict_cell(verdict: str) -> str:
    return f'<td class="v-{verdict.replace(" ", "-")}">{esc(verdict)}</td>'


def card_html(result: RunResult) -> str:
    """The card's sections and rows (``card_data``: the verdicts the card and report.json
    show), as tables."""
    tables = []
    for section in card_data(result):
        rows = []
        for row in section["rows"]:
            cls = ' class="broken"' if row["verdict"] == "broken" else ""
            why = row["reason"] + (f"; replay {row['replay']}" if row["replay"] else "")
            rows.append(f"<tr{cls}><td><code>{esc(row['id'])}</code></td><td>{esc(row['title'])}"
                        f"</td><td>{esc(row['source'])}</td>{_verdict_cell(row['verdict'])}"
                        f'<td class="num">{row["steps"]}</td><td>{esc(why)}</td></tr>')
        title = (f'<h4>{esc(section["section"])}: {esc(section["summary"])}</h4>'
                 if section["section"] else "")
        tables.append(f"{title}<table><tr><th>clause</th><th>what must hold</th><th>source</th>"
                      f"<th>verdict</th><th>steps</th><th>why</th></tr>{''.join(rows)}</table>")
    notes = "".join(f'<p class="note">{esc(n)}</p>' for n in result.notes)
    status = "ok" if result.ok else "bad"
    return (f'<h3 class="{status}">{esc(result.system)} &mdash; <code>{esc(result.target)}</code>'
            f"</h3><p>{esc(summary_line(result))}</p>{''.join(tables)}{notes}")


CAPTIONS = {"lanes": "the steps, one lane per worker/thread; the divergence in red",
             "tasks": "the task graph at the failing step: model and implementation",
             "ring": "the ring of buckets at the failing tick, as the model files the timers",
             "timeline": "the ticks processed: fired and cancelled",
             "cycle": "the reported cycle, checked against the graph with networkx",
             "deadlock": "the wait-for cycle"}


def check_html(result: RunResult, target: str, pictures_of: dict[str, list[Path]],
               folder_of: dict[str, str], cost: list[str] | None = None) -> str:
    """The ``index.html`` of a ``check --out`` folder: the card (``card_data``, as card.txt
    and report.json show it), then each counterexample -- its replay's verdict and a link to
    it (``folder_of``: clause -> the folder its files are in), its steps, and the pictures
    already written (``pictures_of``: clause -> files; the SVGs are inlined)."""
    body = [f"<h1>schedcheck check</h1>{card_html(result)}"]
    if result.all_counterexamples():
        body.append(legend())
    for number, cx in enumerate(result.all_counterexamples(), 1):
        key = cx.folder or cx.clause
        folder = folder_of.get(key, ".")
        where = "" if folder == "." else f"{folder}/"
        kind = f" ({esc(cx.kind)})" if cx.kind and key != cx.clause else ""
        body.append(f'<h2 id="{esc(key)}">counterexample {number}: {esc(cx.clause)}{kind}</h2>'
                    f'<p><a href="{esc(where)}replay.py"><code>{esc(where)}replay.py</code></a>'
                    f" &mdash; {esc(cx.replay_check or 'not run')}; steps in "
                    f'<a href="{esc(where)}steps.txt"><code>{esc(where)}steps.txt</code></a></p>'
                    f"<pre>{esc(steps_text(cx, target=target))}</pre>")
        for path in pictures_of.get(key, []):
            if path.suffix == ".svg":
                caption = CAPTIONS.get(path.stem, path.stem)
                body.append(f"<figure><figcaption>{esc(caption)}</figcaption>"
                            f"{inline_svg(path.read_text(encoding='utf-8'))}</figure>")
    if cost:  # a broken cost clause: its two runs, and the script that measures them again
        from schedcheck.report.cost import figures_text

        cid = result.cost_figures.get("clause", "")
        links = ", ".join(f'<a href="{esc(f)}"><code>{esc(f)}</code></a>' for f in cost)
        body.append(f'<h2 id="{esc(cid)}">broken: {esc(cid)}</h2><p>{links}</p>'
                    f"<pre>{esc(figures_text(result.cost_figures))}</pre>")
    return page(f"schedcheck check: {result.system} {result.target}", body)


def page(title: str, body: list[str]) -> str:
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{esc(title)}</title>"
            f"<style>{CSS}</style></head><body><main>\n" + "\n".join(body)
            + "\n</main></body></html>\n")


def legend() -> str:
    spans = "".join(f'<span style="background:{c}">{esc(s.lower())}</span>'
                    for s, c in STATE_COLOURS.items() if s != "ABSENT")
    return f'<p class="legend">task states: {spans}</p>'
