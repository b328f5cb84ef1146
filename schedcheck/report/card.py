"""The report card: one row per clause with its verdict, how many steps exercised it and why.

A graded check (``schedcheck.levels``) prints one section per level, core first: the core
level's own clauses as it judged them, then every clause as both levels together judged it
(the contract level's section). Rows come from ``RunResult.stats`` (the clause catalogue of
``schedcheck.harness.clauses``: contract rules, invariants, oracles, extensions, the seed's
"what the interviewer tests" points, cost and linearizability). The verdict is
``ClauseStat.verdict`` -- this module never upgrades one: a clause no step reached prints
"not reached", never "held".

Two renderings of the same rows: a rich ``Table`` for the terminal and plain text (for
``report.txt``, pytest failure messages and a terminal that is not a TTY).
"""

from __future__ import annotations

from typing import Any

from rich.table import Table
from rich.text import Text

from schedcheck.harness.result import (
    BROKEN,
    HELD,
    NOT_REACHED,
    NOT_SUPPORTED,
    PARTLY,
    UNKNOWN,
    ClauseStat,
    RunResult,
)
from schedcheck.systems import get

__all__ = ["STYLES", "card_data", "card_rows", "card_sections", "card_table", "card_text",
           "replay_checks", "summary_line"]

#: The order verdicts are counted in.
ORDER = (HELD, BROKEN, PARTLY, NOT_SUPPORTED, NOT_REACHED, UNKNOWN)
LEVEL_TITLES = {"core": "core level -- what every correct design holds",
                "contract": "contract level -- the full rules of specs/ (both levels merged)",
                "not run": "contract level -- not run (--level core): its clauses not reached"}

#: rich styles (and the HTML report's CSS classes use the same verdict names).
STYLES: dict[str, str] = {
    HELD: "green",
    BROKEN: "bold red",
    NOT_SUPPORTED: "yellow",
    PARTLY: "cyan",
    NOT_REACHED: "dim",
    UNKNOWN: "magenta",
}


def card_rows(result: RunResult) -> list[tuple[str, str, str, str, int]]:
    """``(clause id, title, source, verdict, steps)`` per clause, in catalogue order."""
    rows = []
    for stat in result.stats.values():
        rows.append(_row(stat))
    return rows


def _row(stat: ClauseStat) -> tuple[str, str, str, str, int]:
    return (stat.clause.id, stat.clause.title, stat.clause.source, stat.verdict, stat.exercised)


def card_sections(result: RunResult) -> list[tuple[str, list[ClauseStat]]]:
    """``(title, stats)`` per section: one untitled section for a plain run; for a graded
    check the core level's clauses, then (when the contract level was graded) every clause
    as the levels together judged it."""
    if not result.levels:
        return [("", list(result.stats.values()))]
    sections = []
    core = get(result.system).core_clauses
    for part in result.levels:
        if part.level == "core":  # its clauses, and any other a crash broke at this level
            shown = [s for cid, s in part.stats.items() if cid in core or s.verdict == BROKEN]
            sections.append((LEVEL_TITLES["core"], shown))
        else:
            sections.append((LEVEL_TITLES.get(part.level, part.level),
                             list(result.stats.values())))
    if all(part.level == "core" for part in result.levels):
        # the contract level was not run: its clauses are on the card too, as not reached
        seen = {s.clause.id for _title, stats in sections for s in stats}
        rest = [s for cid, s in result.stats.items() if cid not in seen]
        if rest:
            sections.append((LEVEL_TITLES["not run"], rest))
    return sections


#: Rows "not supported" (or "not reached") for one and the same reason are folded into one
#: line from this many.
FOLD = 4
_FOLDED_VERDICTS = (NOT_SUPPORTED, NOT_REACHED)


def _folded(stats: list[ClauseStat]
            ) -> tuple[list[ClauseStat], list[tuple[list[str], str, str]]]:
    """The rows to print one by one, and ``(clause ids, verdict, reason)`` per group of at
    least :data:`FOLD` clauses "not supported" (or "not reached") for the same reason, printed
    as one line."""
    by_reason: dict[tuple[str, str], list[str]] = {}
    for stat in stats:
        if stat.verdict in _FOLDED_VERDICTS:
            by_reason.setdefault((stat.verdict, stat.reason), []).append(stat.clause.id)
    groups = [(ids, verdict, reason) for (verdict, reason), ids in by_reason.items()
              if len(ids) >= FOLD]
    folded = {cid for ids, _v, _r in groups for cid in ids}
    return [s for s in stats if s.clause.id not in folded], groups


def card_data(result: RunResult) -> list[dict[str, Any]]:
    """The card as data, section by section, row by row, exactly as :func:`card_text` and
    :func:`card_table` print it: the one source of the verdicts that ``report.json``
    (``"card"``) and the HTML page show too."""
    replays = replay_checks(result)
    out = []
    for title, stats in card_sections(result):
        rows = []
        for stat in stats:
            verdict = stat.verdict
            rows.append({"id": stat.clause.id, "title": stat.clause.title,
                         "source": stat.clause.source, "verdict": verdict,
                         "steps": stat.exercised,
                         "reason": "" if verdict == HELD else stat.reason,
                         "replay": replays.get(stat.clause.id, "") if verdict == BROKEN
                         else ""})
        out.append({"section": title, "summary": verdict_counts(stats), "rows": rows})
    return out


def replay_checks(result: RunResult) -> dict[str, str]:
    """What running each counterexample's replay.py showed, by clause ("" if it has not run)."""
    return {cx.clause: cx.replay_check for cx in result.all_counterexamples()}


def verdict_counts(stats: list[ClauseStat]) -> str:
    counts: dict[str, int] = {}
    for stat in stats:
        counts[stat.verdict] = counts.get(stat.verdict, 0) + 1
    return ", ".join(f"{counts[v]} {v}" for v in ORDER if counts.get(v))


def summary_line(result: RunResult) -> str:
    shown = [s for _title, stats in card_sections(result) for s in stats]
    if result.levels:  # each clause once: its last (merged) row
        shown = list({s.clause.id: s for s in shown}.values())
    broken = len(result.all_counterexamples())
    status = ("OK" if result.ok else "COUNTEREXAMPLE FOUND" if broken <= 1
              else f"{broken} COUNTEREXAMPLES FOUND")
    return (
        f"{result.system} {result.target}: {status} -- {verdict_counts(shown) or 'no clauses'}; "
        f"{result.examples} examples, {result.steps} steps, {result.seconds:.1f}s"
        + (f", seed {result.seed}" if result.seed is not None else "")
    )


def card_table(result: RunResult) -> Table:
    table = Table(title=f"report card: {result.system} {result.target}", title_justify="left")
    table.add_column("clause", no_wrap=True)
    table.add_column("what must hold")
    table.add_column("source", style="dim")
    table.add_column("verdict", no_wrap=True)
    table.add_column("steps", justify="right")
    table.add_column("why", style="dim")
    replays = replay_checks(result)
    for title, stats in card_sections(result):
        if title:
            table.add_section()
            table.add_row(Text(title, style="bold"), "", "", Text(verdict_counts(stats)), "", "")
        rows, groups = _folded(stats)
        for stat in rows:
            cid, what, source, verdict, steps = _row(stat)
            why = "" if verdict == HELD else stat.reason
            if verdict == BROKEN and replays.get(cid):
                why += f"; replay {replays[cid]}"
            table.add_row(cid, what, source, Text(verdict, style=STYLES.get(verdict, "")),
                          str(steps), why)
        for ids, verdict, reason in groups:
            table.add_row(f"{len(ids)} clauses", ", ".join(ids), "",
                          Text(verdict, style=STYLES[verdict]), "0", reason)
    table.caption = summary_line(result)
    return table


def card_text(result: RunResult, *, width: int = 100) -> str:
    """The card as plain text (no colour), fixed columns."""
    lines = [f"report card: {result.system} {result.target}"]
    replays = replay_checks(result)
    header = f"  {'clause':<15} {'verdict':<16} {'steps':>7}  what must hold"
    for title, stats in card_sections(result):
        if title:
            lines.append(f"{title}: {verdict_counts(stats)}")
        lines.append(header)
        lines.append("  " + "-" * (len(header) - 2))
        rows, groups = _folded(stats)
        for stat in rows:
            cid, what, _source, verdict, steps = _row(stat)
            mark = "!!" if verdict == BROKEN else "  "
            room = max(20, width - 46)
            short = what if len(what) <= room else what[: room - 3] + "..."
            lines.append(f"{mark}{cid:<15} {verdict:<16} {steps:>7}  {short}")
            if verdict != HELD and stat.reason:
                lines.append(f"{'':<43}why: {stat.reason}")
            if verdict == BROKEN and replays.get(cid):
                lines.append(f"{'':<43}replay: {replays[cid]}")
        for ids, verdict, reason in groups:
            lines.append(f"  {len(ids)} clauses {verdict}: {', '.join(ids)}")
            lines.append(f"{'':<43}why: {reason}")
    lines.append(summary_line(result))
    return "\n".join(lines)
