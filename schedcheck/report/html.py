"""``index.html`` of ``schedcheck verify`` (its shared pieces, and the page of a
``schedcheck check --out`` folder, are in ``page``): one self-contained page (CSS in the
page, pictures as inline SVG, no scripts, no network) that shows a newcomer what the toolkit
proves and catches:

1. the verdict and what ran (and what was not available or skipped);
2. one report card per suite run (verdict per clause, steps that exercised it, notes such as
   the scaling ratio);
3. the z3 lemmas (name, statement, bound, verdict, seconds; a counterexample as a small
   table of z3's values or calls, the model's replay folded below it);
4. the zoo's kill matrix;
5. for two or three killed zoo entries (different systems and clauses preferred), the
   plain-words steps and the counterexample pictures inline; and the counterexample of any
   suite that failed.

Everything from a target or a lemma is HTML-escaped; the SVG comes from ``dot`` (our DOT source,
whose labels are escaped in ``render.py``) with its XML prolog stripped.
"""

from __future__ import annotations

import re
import time
from typing import TYPE_CHECKING, Any

from schedcheck.harness.result import RunResult
from schedcheck.report.page import CAPTIONS, card_html, check_html, inline_svg, legend, page
from schedcheck.report.page import esc as _e
from schedcheck.report.render import pictures, render_svg
from schedcheck.report.steps import steps_text

if TYPE_CHECKING:
    from schedcheck.report.verify import VerifyReport

__all__ = ["check_html", "choose_showcase", "index_html", "inline_svg"]  # the last two: page's



_ASSIGNMENT = re.compile(r"^\s*([A-Za-z_][\w\[\]]*)\s*=\s*(.+?)\s*$")
_REPLAYED = "-- replayed in schedcheck.model --"


def _witness_html(text: str) -> str:
    """z3's counterexample as a small table -- ``name = value`` pairs as rows, a trace of
    calls as (call, state after) rows -- and the model's replay in a ``<pre>`` below."""
    found, _, replay = text.partition(_REPLAYED)
    lines = [ln for ln in found.splitlines() if ln.strip()]
    head = lines[0] if lines else ""
    title = ""
    if head.startswith("[") and "]" in head:  # "[N=2, 2 calls then ...] first call"
        title, _, rest = head[1:].partition("]")
        lines[0] = rest.strip()
    entries: list[tuple[bool, str, str]] = []  # (an assignment?, left, right)
    for line in lines:
        code, _, comment = line.partition("#")
        pairs = [_ASSIGNMENT.match(part) for part in code.split(", ")] if not comment else []
        if pairs and all(pairs):
            entries += [(True, m.group(1), m.group(2)) for m in pairs if m is not None]
        else:
            entries.append((False, code.strip(), comment.strip().removeprefix("->").strip()))
    assignments = all(is_pair for is_pair, _, _ in entries)
    rows = [(a, b) if assignments or not is_pair else (f"{a} = {b}", "")
            for is_pair, a, b in entries]
    heads = ("name", "value") if assignments else ("call", "state after")
    body = "".join(f"<tr><td><code>{_e(a)}</code></td><td><code>{_e(b)}</code></td></tr>"
                   for a, b in rows)
    table = (f"<table class='witness'><tr><th>{heads[0]}</th><th>{heads[1]}</th></tr>"
             f"{body}</table>")
    caption = f"<br><small>{_e(title)}</small>" if title else ""
    replayed = (f"<details><summary>replayed in the executable model</summary>"
                f"<pre>{_e(replay.strip())}</pre></details>" if replay.strip() else "")
    return caption + table + replayed


def _lemmas_html(lemmas: list[Any]) -> str:
    """One row per lemma: its statement, the bound it was checked within, the verdict and the
    seconds; a counterexample (a refuted mutation, or a lemma that failed) as a small table
    in a row of its own below."""
    from schedcheck.report.verify import lemma_ok

    rows = []
    for lem in lemmas:
        status = str(getattr(lem, "status", "?"))
        cls = "v-held" if lemma_ok(lem) else "v-broken"
        bound = getattr(lem, "bounded_n", None)
        why = getattr(lem, "why_bounded", "") or ""
        kind = str(getattr(lem, "kind", ""))
        cx = getattr(lem, "counterexample", None)
        if kind == "mutation":
            shown_bound = "a witness" if bound is None else f"a witness with N = {bound} tasks"
        else:
            shown_bound = "every value" if bound is None else f"N &le; {bound} tasks"
        rows.append(
            f"<tr><td><code>{_e(getattr(lem, 'name', '?'))}</code><br>"
            f"<small>{_e(getattr(lem, 'system', ''))} {_e(kind)}</small></td>"
            f"<td>{_e(getattr(lem, 'says', ''))}</td>"
            f"<td>{shown_bound}" + (f"<br><small>{_e(why)}</small>" if why else "")
            + f'</td><td class="{cls}">{_e(status)}</td>'
            f'<td class="num">{float(getattr(lem, "seconds", 0.0) or 0.0):.2f}</td></tr>')
        if cx:
            what = "the mistake, as z3 found it" if kind == "mutation" else "counterexample"
            rows.append(f'<tr class="witness-row"><td></td><td colspan="4"><small>{what}'
                        f"</small>{_witness_html(str(cx))}</td></tr>")
    return ("<table><tr><th>lemma</th><th>statement</th><th>bound</th><th>verdict</th>"
            f"<th>seconds</th></tr>{''.join(rows)}</table>")


def _scenarios_html(scenarios: list[Any]) -> str:
    rows = []
    for s in scenarios:
        violation = getattr(s, "violation", None)
        complete = bool(getattr(s, "complete", False))
        if violation:
            verdict, cls = f"VIOLATION: {violation}", "v-broken"
        elif complete:
            verdict, cls = f"no violation within bound {getattr(s, 'bound', '?')}", "v-held"
        else:
            verdict, cls = "capped, not exhausted", "v-unknown"
        counts = ", ".join(f"{n} within {b}" for b, n in
                           sorted(dict(getattr(s, "schedules", {}) or {}).items()))
        rows.append(f"<tr><td><code>{_e(getattr(s, 'name', '?'))}</code></td>"
                    f"<td><code>{_e(getattr(s, 'target', ''))}</code></td>"
                    f"<td>{_e(getattr(s, 'words', ''))}</td><td>{_e(counts)}</td>"
                    f'<td class="{cls}">{_e(verdict)}</td></tr>')
    return ("<table><tr><th>scenario</th><th>target</th><th>what races</th>"
            f"<th>schedules (preemption bound)</th><th>verdict</th></tr>{''.join(rows)}</table>")


def _zoo_html(rows: list[Any]) -> str:
    out = []
    for r in rows:
        m = r.mutant
        verdict = "killed" if r.killed else "SURVIVED"
        cls = "v-held" if r.killed else "v-broken"
        expected = "" if r.expected or not r.killed else \
            f"<br><small>expected {_e(m.expected_clause)}</small>"
        link = f' (<a href="zoo/{_e(m.name)}/steps.txt">steps</a>)' if r.result is not None \
            and r.result.counterexample is not None else ""
        out.append(
            f"<tr><td><code>{_e(m.name)}</code>{link}</td><td>{_e(m.system)}</td>"
            f"<td>{_e(m.kind)}</td><td>{_e(m.mistake)}<br><small>{_e(m.source)}</small></td>"
            f'<td class="{cls}">{verdict}</td><td><code>{_e(r.clause or "-")}</code>{expected}'
            f'</td><td class="num">{r.examples}</td><td class="num">{r.seconds:.1f}</td></tr>')
    return ("<table><tr><th>mutant</th><th>system</th><th>kind</th><th>the mistake</th>"
            "<th>verdict</th><th>caught by</th><th>examples</th><th>seconds</th></tr>"
            f"{''.join(out)}</table>")


def choose_showcase(rows: list[Any], k: int = 3) -> list[Any]:
    """Up to ``k`` killed entries with a counterexample: one scheduler mistake, one wheel
    mistake and one race first, then distinct clauses, preferring short counterexamples
    (they read best)."""
    with_cx = [r for r in rows if r.killed and r.result is not None
               and r.result.counterexample is not None]
    with_cx.sort(key=lambda r: len(r.result.counterexample.steps))
    chosen: list[Any] = []
    seen: set[tuple[str, str]] = set()
    kinds: set[tuple[str, str]] = set()
    for r in with_cx:  # first one per (system, sequential) and one race
        kind = ("race", "") if r.mutant.kind == "race" else (r.mutant.system, r.mutant.kind)
        if kind not in kinds and len(chosen) < k:
            chosen.append(r)
            kinds.add(kind)
            seen.add((r.mutant.system, r.clause))
    for r in with_cx:
        if len(chosen) >= k:
            break
        if r not in chosen and (r.mutant.system, r.clause) not in seen:
            chosen.append(r)
            seen.add((r.mutant.system, r.clause))
    return chosen[:k]


def counterexample_html(result: RunResult, heading: str, target: str) -> str:
    cx = result.counterexample
    if cx is None:
        return ""
    anchor = re.sub(r"[^A-Za-z0-9]+", "-", target.removeprefix("zoo:")).strip("-")
    parts = [f'<h3 id="{_e(anchor)}">{heading}</h3>',
             f"<pre>{_e(steps_text(cx, target=target))}</pre>"]
    for name, g in pictures(cx).items():
        svg = render_svg(g)
        caption = CAPTIONS.get(name, name)
        body = inline_svg(svg) if svg else f"<pre>{_e(g.source)}</pre>"
        parts.append(f"<figure><figcaption>{_e(caption)}</figcaption>{body}</figure>")
    return "\n".join(parts)


def index_html(report: VerifyReport) -> str:
    tiles = []
    for s in report.suites:
        cls = "ok" if s.result.ok else "bad"
        tiles.append(f'<div class="tile"><small>{_e(s.result.system)}</small>'
                     f'<b class="{cls}">{"held" if s.result.ok else "BROKEN"}</b>'
                     f"<code>{_e(s.result.target)}</code></div>")
    if report.lemmas is not None:
        proved = sum(1 for lem in report.lemmas if _ok_lemma(lem))
        cls = "ok" if report.lemmas_ok else "bad"
        tiles.append(f'<div class="tile"><small>z3 lemmas</small><b class="{cls}">'
                     f"{proved}/{len(report.lemmas)} as expected</b>"
                     "<small>lemmas proved, mutations refuted</small></div>")
    if report.scenarios is not None:
        fine = sum(1 for s in report.scenarios if getattr(s, "violation", None) is None)
        cls = "ok" if report.scenarios_ok else "bad"
        tiles.append(f'<div class="tile"><small>exhaustive scenarios</small><b class="{cls}">'
                     f"{fine}/{len(report.scenarios)} clean</b>"
                     "<small>every schedule, &le; 2 preemptions</small></div>")
    if report.zoo is not None:
        killed = sum(1 for r in report.zoo if r.killed)
        cls = "ok" if report.zoo_ok else "bad"
        tiles.append(f'<div class="tile"><small>the zoo</small><b class="{cls}">'
                     f"{killed}/{len(report.zoo)} killed</b></div>")
    verdict = ('<b class="ok">everything held, every lemma proved, every mutant killed</b>'
               if report.ok else '<b class="bad">something failed -- see below</b>')
    missing = "".join(f'<li class="warn">{_e(u)}</li>'
                      for u in report.unavailable)
    missing += "".join(f'<li class="warn">skipped on request: {_e(u)}</li>'
                       for u in report.skipped)
    body = [
        "<h1>schedcheck verify</h1>",
        '<p class="lede">The dependency-aware task scheduler and the hashed timing wheel, '
        "checked against their reference models by differential stateful testing "
        "(Hypothesis), with scaling clauses, concurrent rounds, z3 lemmas and a zoo of the "
        "mistakes interview answers make. "
        f"Generated {_e(time.strftime('%Y-%m-%d %H:%M:%S %Z'))} in {report.seconds:.0f}s.</p>",
        f"<p>{verdict}</p>", f'<div class="tiles">{"".join(tiles)}</div>',
        f"<ul>{missing}</ul>" if missing else "",
    ]
    if report.zoo:
        show = ([r for r in report.zoo if r.mutant.name in report.showcase]
                if report.showcase else choose_showcase(report.zoo))
        if show:
            body.append("<h2>What it catches: counterexamples from the zoo</h2>")
            body.append('<p class="lede">Each is the shrunk failing run of a catalogued mistake, '
                        "as <code>schedcheck check</code> writes it: the steps in plain words "
                        "with the model and the implementation side by side, and the pictures. "
                        "Every zoo entry's folder also holds a runnable "
                        "<code>replay.py</code>.</p>")
            body.append(legend())
            for r in show:
                body.append(counterexample_html(
                    r.result, f"<code>{_e(r.mutant.name)}</code> &mdash; {_e(r.mutant.mistake)}",
                    f"zoo:{r.mutant.name}"))
    if report.suites:
        body.append("<h2>Report cards</h2>")
        body.append('<p class="lede">One row per clause: the contract\'s rules, the invariants '
                    "checked after every step, the oracles, the seed's points of what the "
                    "interviewer tests, cost and linearizability. A clause no step reached says "
                    "<em>not reached</em>, never <em>held</em>.</p>")
        for s in report.suites:
            body.append(card_html(s.result))
            if s.result.counterexample is not None:
                body.append(counterexample_html(s.result, "its counterexample", s.result.target))
    if report.scenarios is not None:
        body.append("<h2>Exhaustive small concurrent scenarios</h2>")
        body.append('<p class="lede">Two threads, a few operations each, under the '
                    "controlled scheduler: every schedule up to the preemption bound is run and "
                    "its history checked for linearizability against the model.</p>")
        body.append(_scenarios_html(report.scenarios))
    if report.lemmas is not None:
        body.append("<h2>The z3 lemmas</h2>")
        body.append(_lemmas_html(report.lemmas))
    if report.zoo is not None:
        body.append("<h2>The zoo: every catalogued mistake and the check that catches it</h2>")
        body.append(_zoo_html(report.zoo))
    return page("schedcheck verify", body)


def _ok_lemma(lem: Any) -> bool:
    from schedcheck.report.verify import lemma_ok

    return lemma_ok(lem)
