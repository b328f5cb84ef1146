"""What a command prints while it runs, on stderr: a rich progress bar and dim status lines on
a terminal, plain flushed lines otherwise (so that a log shows what is running instead of
looking hung)."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

__all__ = ["detail_printer", "err_console", "heartbeat", "progress_display", "status_printer"]

ProgressFn = Callable[[int, int, int], None]


def err_console() -> Console:
    return Console(stderr=True, highlight=False)


@contextmanager
def progress_display(label: str, total: int | None, enabled: bool) -> Iterator[ProgressFn | None]:
    """A rich progress line ``examples n/N · steps s · failures f`` while the block runs, or
    nothing (``None``) when ``enabled`` is false (not a terminal, or ``--json``)."""
    if not enabled:
        yield None
        return
    console = err_console()
    columns = (TextColumn("[bold]{task.description}"), BarColumn(),
               TextColumn("examples {task.completed:.0f}/{task.total:.0f}"),
               TextColumn("steps {task.fields[steps]}"),
               TextColumn("failures [red]{task.fields[failures]}"), TimeElapsedColumn())
    with Progress(*columns, console=console, transient=True) as bar:
        task = bar.add_task(label, total=total or 100, steps=0, failures=0)

        def update(examples: int, steps: int, failures: int) -> None:
            if total is not None and examples > total:
                bar.update(task, total=examples)
            bar.update(task, completed=examples, steps=steps, failures=failures)

        yield update


def status_printer(terminal: bool) -> Callable[[str], None]:
    """One line on stderr as each phase starts: dim rich text on a terminal, a plain flushed
    line otherwise (so that a log shows what is running instead of looking hung)."""
    if not terminal:
        def plain(line: str) -> None:
            sys.stderr.write(f"schedcheck: {line}\n")
            sys.stderr.flush()

        return plain
    console = err_console()

    def status(line: str) -> None:
        console.print(f"[dim]{line}[/]", highlight=False, markup=True)

    return status


def heartbeat(write: Callable[[str], None], terminal: bool,
            budget: float | None = None) -> Any:
    """The heartbeat (``schedcheck.progress.Ticker``) of a command: its status lines go to
    ``write``; on a terminal each stage also gets a rich bar."""
    from schedcheck.progress import Ticker

    def bar(label: str, total: int | None) -> Any:
        shown = f"{label} (budget {budget:g} s)" if budget is not None else label
        return progress_display(shown, total, True)

    return Ticker(write, inner=bar if terminal else None, budget=budget)


def detail_printer(terminal: bool) -> Callable[[str], None] | None:
    """One line per item inside a phase (a mutant, a lemma): on a terminal only."""
    if not terminal:
        return None
    console = err_console()

    def detail(line: str) -> None:
        console.print(f"[dim]  {line}[/]", highlight=False, markup=True)

    return detail
