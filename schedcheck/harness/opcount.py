"""A deterministic cost measure for the ``*-COST`` clauses: Python steps executed.

:class:`StepCounter` counts, while it is active on the calling thread, every function call and
every line executed by Python code *outside* ``schedcheck/harness`` (the workload drivers that
call the target are not counted; the target, its helpers and the standard library's Python code
are). The same calls on the same inputs execute the same steps (up to a few in 100,000 where a
target reads its clock or iterates objects in address order), so a cost ratio between two sizes
is the same on an idle machine and under load -- unlike wall-clock time, which let a rescanning
scheduler pass once at ratio 2.84 against a threshold of 3 on a loaded machine.

What it does not see: work inside C code (a builtin ``sorted`` or ``min`` over every task
counts as one call) and work on other threads. A target whose per-item cost hides in C is
therefore judged by its Python-level steps only; the bundled implementations and the zoo's
cost mutants do their work in Python.

The garbage collector is not the target's work either, and a collection lands wherever the
allocations of the whole process put it, running its callbacks (``gc.callbacks``: Hypothesis
keeps one that times each collection) and the finalizers of garbage that earlier code left.
So a counter freezes every object that exists when it starts (``gc.freeze``: earlier
garbage included, which is then neither collected nor finalized inside the block), collects
once (nothing is left to look at: this only resets the collector's counts, so the
collections inside the block fall where the block's own allocations put them), and sets the
callbacks aside while it is active; the collector stays on, as users run, and sees only what
the block allocates. On exit the objects are unfrozen again (unless something froze objects
before the counter did: a supervised child freezes what it inherited, and keeps it so). The
same block counts the same steps whatever ran before it. A full collection of a large
process takes a third of a second; a collection of the block's own objects takes
microseconds.

Tracing makes the counted code several times slower; the clauses keep the sizes small (the
count, not the time, is judged).
"""

from __future__ import annotations

import gc
import sys
from pathlib import Path
from types import FrameType, TracebackType
from typing import Any

__all__ = ["StepCounter"]

_HARNESS = str(Path(__file__).resolve().parent)


class StepCounter:
    """``with StepCounter() as c: ...`` -- ``c.steps`` is the number of calls and lines run
    outside the harness inside the block. ``limit``: once exceeded, :attr:`over` is true (a
    workload polls it to give up early; nothing is interrupted)."""

    def __init__(self, limit: int | None = None) -> None:
        self.steps = 0
        self.limit = limit
        self._previous: Any = None
        self._callbacks: list[Any] = []
        self._skip: dict[str, bool] = {}
        self._thaw = False

    @property
    def over(self) -> bool:
        return self.limit is not None and self.steps > self.limit

    def _skipped(self, filename: str) -> bool:
        known = self._skip.get(filename)
        if known is None:
            try:
                known = str(Path(filename).resolve()).startswith(_HARNESS)
            except (OSError, ValueError):
                known = False
            self._skip[filename] = known
        return known

    def _call(self, frame: FrameType, event: str, arg: Any) -> Any:
        if event != "call" or self._skipped(frame.f_code.co_filename):
            return None
        self.steps += 1
        return self._line

    def _line(self, frame: FrameType, event: str, arg: Any) -> Any:
        if event == "line":
            self.steps += 1
        return self._line

    def __enter__(self) -> StepCounter:
        self._callbacks = gc.callbacks[:]
        gc.callbacks.clear()
        self._thaw = gc.get_freeze_count() == 0
        gc.freeze()  # earlier code's objects, its garbage too, are out of the collector's sight
        gc.collect()  # nothing left to collect: resets the collector's counts
        self._previous = sys.gettrace()
        sys.settrace(self._call)
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        sys.settrace(self._previous)
        if self._thaw:
            gc.unfreeze()
        added = [cb for cb in gc.callbacks if cb not in self._callbacks]
        gc.callbacks[:] = self._callbacks + added
