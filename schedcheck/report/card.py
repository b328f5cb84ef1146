"""The report card: one row per clause with its verdict and how many steps exercised it.

Rows come from ``RunResult.stats`` (the clause catalogue of ``schedcheck.harness.clauses``:
contract rules, invariants, oracles, extensions, the seed's "what the interviewer tests" points,
cost and linearizability). The verdict is ``ClauseStat.verdict`` -- this module never upgrades
one: a clause no step reached prints "not exercised", never "held".

Two renderings of the same rows: a rich ``Table`` for the terminal and plain text (for
``report.txt``, pytest failure messages and a terminal that is not a TTY).
"""

from __future__ import annotations

from rich.table import Table
from rich.text import Text

from schedcheck.harness.result import (
    BROKEN,
    HELD,
    NOT_EXERCISED,
    NOT_SUPPORTED,
    UNKNOWN,
    ClauseStat,
    RunResult,
)

__all__ = ["STYLES", "card_rows", "card_table", "card_text", "summary_line"]

#: rich styles (and the HTML report's CSS classes use the same verdict names).
STYLES: dict[str, str] = {
    HELD: "green",
    BROKEN: "bold red",
    NOT_SUPPORTED: "yellow",
    NOT_EXERCISED: "dim",
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


def summary_line(result: RunResult) -> str:
    counts: dict[str, int] = {}
    for *_, verdict, _steps in card_rows(result):
        counts[verdict] = counts.get(verdict, 0) + 1
    parts = [f"{counts[v]} {v}" for v in (HELD, BROKEN, NOT_SUPPORTED, NOT_EXERCISED, UNKNOWN)
             if counts.get(v)]
    status = "OK" if result.ok else "COUNTEREXAMPLE FOUND"
    return (
        f"{result.system} {result.target}: {status} -- {', '.join(parts) or 'no clauses'}; "
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
    for cid, title, source, verdict, steps in card_rows(result):
        table.add_row(cid, title, source, Text(verdict, style=STYLES.get(verdict, "")), str(steps))
    table.caption = summary_line(result)
    return table


def card_text(result: RunResult, *, width: int = 100) -> str:
    """The card as plain text (no colour), fixed columns."""
    lines = [f"report card: {result.system} {result.target}"]
    header = f"  {'clause':<15} {'verdict':<14} {'steps':>7}  what must hold"
    lines.append(header)
    lines.append("  " + "-" * (len(header) - 2))
    for cid, title, _source, verdict, steps in card_rows(result):
        mark = "!!" if verdict == BROKEN else "  "
        room = max(20, width - 44)
        short = title if len(title) <= room else title[: room - 3] + "..."
        lines.append(f"{mark}{cid:<15} {verdict:<14} {steps:>7}  {short}")
    lines.append(summary_line(result))
    return "\n".join(lines)
