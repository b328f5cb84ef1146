"""The zoo's kill matrix, rendered: a rich table, plain text, and its part of ``report.json``.

The rows (:class:`~schedcheck.zoo.run.KillRow`) come from ``schedcheck.zoo.run``; this module
only renders them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.table import Table
from rich.text import Text

if TYPE_CHECKING:
    from schedcheck.zoo.run import KillRow

__all__ = ["kill_matrix_table", "kill_matrix_text", "zoo_json"]


def zoo_json(rows: list[KillRow]) -> dict[str, Any]:
    return {
        "ok": all(r.killed for r in rows),
        "killed": sum(r.killed for r in rows),
        "total": len(rows),
        "mutants": [r.to_json() for r in rows],
    }


def _verdict(row: KillRow) -> str:
    if not row.killed:
        return "SURVIVED"
    return "killed" if row.expected else f"killed (expected {row.mutant.expected_clause})"


def kill_matrix_table(rows: list[KillRow]) -> Table:
    table = Table(title="the zoo: every catalogued mistake and the check that catches it",
                  title_justify="left")
    for col in ("mutant", "the mistake", "verdict", "clause", "examples", "seconds"):
        table.add_column(col, no_wrap=col not in ("the mistake",),
                         justify="right" if col in ("examples", "seconds") else "left")
    for r in rows:
        style = "green" if r.expected else ("yellow" if r.killed else "bold red")
        table.add_row(r.mutant.name, r.mutant.mistake, Text(_verdict(r), style=style),
                      r.clause or "-", str(r.examples), f"{r.seconds:.1f}")
    killed = sum(r.killed for r in rows)
    table.caption = f"{killed}/{len(rows)} killed"
    return table


def kill_matrix_text(rows: list[KillRow]) -> str:
    """Plain text, one line per mutant; the mistake is the last column, in full."""
    lines = ["the zoo: every catalogued mistake and the check that catches it",
             f"  {'mutant':<34} {'verdict':<10} {'clause':<14} {'examples':>8} {'seconds':>8}"
             "  the mistake"]
    for r in rows:
        verdict = "killed" if r.killed else "SURVIVED"
        mistake = r.mutant.mistake
        lines.append(f"{'  ' if r.killed else '!!'}{r.mutant.name:<34} {verdict:<10} "
                     f"{(r.clause or '-'):<14} {r.examples:>8} {r.seconds:>8.1f}  {mistake}")
        if r.killed and not r.expected:
            lines.append(f"  {'':<34} (the catalogue expected {r.mutant.expected_clause})")
        if r.note and not r.killed:
            lines.append(f"  {'':<34} {r.note}")
    lines.append(f"{sum(r.killed for r in rows)}/{len(rows)} killed")
    return "\n".join(lines)
