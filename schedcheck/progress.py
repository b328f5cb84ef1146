"""Never silent: what is running, how far it got, for how long -- on stderr.

A :class:`Ticker` sits between the commands (``verify``, ``check``, ``zoo``) and the stages
they run. Everything the stages say goes through it (:meth:`Ticker.say`, :meth:`Ticker.detail`,
the per-stage progress of :meth:`Ticker.bar`), so it knows the current stage, its target, the
examples and steps so far and the stage's budget. A heartbeat thread prints one line --
``still running: zoo 31/40 race-complete-decrement-unlocked (concurrent rounds): examples
120/500, steps 3,411, 34 s`` -- whenever nothing was printed for ``every`` seconds, so a long
stage (a reduction, the z3 lemmas, writing the pictures) never looks hung.

On a terminal a stage with a rich progress bar (``console.progress_display``) shows its elapsed
time itself, so the heartbeat stays quiet while a bar is up; when stderr is not a terminal
every line is plain text (``schedcheck: ...``), flushed, for logs and pipes.

:meth:`Ticker.heartbeat` computes the line from an injectable clock: tests drive it with a fake
clock instead of sleeping. :func:`timed` records each stage's seconds (and when its first
failure came) for :func:`time_note`, the card's ``time:`` line of ``check``.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Any

__all__ = ["HEARTBEAT_SECONDS", "Ticker", "nested", "time_note", "timed"]

#: Silence longer than this gets a heartbeat line (the promise is: never more than 5 s).
HEARTBEAT_SECONDS = 3.0

Progress = Callable[[int, int, int], None]
BarFactory = Callable[[str, int | None], AbstractContextManager[Progress | None]]


class Ticker:
    """The current stage and its counters, and a heartbeat when nothing else is printed.

    ``write(line)`` prints one line (the CLI's status printer); ``inner`` is the terminal's
    bar factory (or None: plain lines only). ``budget`` (seconds) is shown next to the
    elapsed time of the stages that share it (``check``'s search)."""

    def __init__(self, write: Callable[[str], None], *, inner: BarFactory | None = None,
                 every: float = HEARTBEAT_SECONDS, budget: float | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._write = write
        self._inner = inner
        self.every = every
        self.budget = budget
        self._clock = clock
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.started = clock()
        self.last_output = self.started
        self.stage = ""  #: the last status line (what is running)
        self.item = ""  #: the last detail line (the mutant, the lemma ...)
        self.label = ""  #: the current bar's label, "" between bars
        self.stage_started = self.started
        self.examples = 0
        self.total: int | None = None
        self.steps = 0
        self.failures = 0
        self.bar_shown = False  #: a terminal bar is up and shows its own elapsed time
        self.beats = 0
        #: the current stage's own limit (seconds) when it is not the budget, else None
        self.stage_seconds: float | None = None

    # -- what the stages call ----------------------------------------------------------------

    def say(self, line: str) -> None:
        """A stage starts: print ``line`` and remember it as the current stage."""
        with self._lock:
            self.stage, self.item = line, ""
            self.stage_started = self._clock()
            self._reset_counts()
        self._emit(line)

    def detail(self, line: str) -> None:
        """An item inside a stage (a mutant, a lemma): printed, and named by the heartbeat."""
        with self._lock:
            self.item = line
            self.stage_started = self._clock()
            self._reset_counts()
        self._emit(f"  {line}")

    def bar(self, label: str, total: int | None) -> AbstractContextManager[Progress | None]:
        """A ``pipeline.ProgressFactory``: counts the stage's examples for the heartbeat and
        forwards them to the terminal's bar, if any."""
        return self._bar(label, total)

    @contextmanager
    def _bar(self, label: str, total: int | None) -> Iterator[Progress | None]:
        inner = self._inner(label, total) if self._inner is not None else None
        with self._lock:
            saved = (self.label, self.stage_started)
            self.label = label
            self.stage_started = self._clock()
            self._reset_counts()
            self.total = total
        try:
            if inner is None:
                yield self.update
                return
            with inner as forward:
                self.bar_shown = forward is not None

                def both(examples: int, steps: int, failures: int) -> None:
                    self.update(examples, steps, failures)
                    if forward is not None:
                        forward(examples, steps, failures)

                yield both
        finally:
            with self._lock:
                self.bar_shown = False
                self.label, self.stage_started = saved
                self.last_output = self._clock()

    def limit(self, seconds: float | None, what: str = "limit") -> None:
        """The stage now running has its own limit of ``seconds`` (None: the budget's)."""
        with self._lock:
            self.stage_seconds = seconds

    def update(self, examples: int, steps: int, failures: int) -> None:
        """The progress callback: examples, steps, failures so far in the current stage."""
        with self._lock:
            self.examples, self.steps, self.failures = examples, steps, failures

    # -- the heartbeat -------------------------------------------------------------------

    def heartbeat(self) -> str | None:
        """The line to print now, or None (something was printed recently, or a terminal bar
        shows the elapsed time). Printing it counts as output."""
        now = self._clock()
        with self._lock:
            if self.bar_shown or now - self.last_output < self.every:
                return None
            self.last_output = now
            self.beats += 1
            return self._line(now)

    def _line(self, now: float) -> str:
        where = self.item or self.stage or "schedcheck"
        if self.label and not set(self.label.replace("(", " ").replace(")", " ").split()) <= set(
                where.replace("(", " ").replace(")", " ").split()):
            where = f"{where} -- {self.label}"
        parts = []
        if self.examples or self.total:
            total = f"/{self.total}" if self.total else ""
            parts.append(f"examples {self.examples}{total}")
        if self.steps:
            parts.append(f"steps {self.steps:,}")
        if self.failures:
            parts.append(f"failures {self.failures}")
        spent = now - self.stage_started
        budget = (f" of its {self.stage_seconds:g} s limit" if self.stage_seconds is not None
                  else f" of a {self.budget:g} s budget" if self.budget is not None else "")
        parts.append(f"{spent:.0f} s in this stage{budget}, {now - self.started:.0f} s in all")
        return f"still running: {where}: {', '.join(parts)}"

    def __enter__(self) -> Ticker:
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name="schedcheck-heartbeat",
                                        daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None

    def _run(self) -> None:
        while not self._stop.wait(min(0.5, self.every / 4)):
            line = self.heartbeat()
            if line is not None:
                self._write(line)

    # -- helpers -----------------------------------------------------------------------------

    def _emit(self, line: str) -> None:
        with self._lock:
            self.last_output = self._clock()
        self._write(line)

    def _reset_counts(self) -> None:
        self.examples = self.steps = self.failures = 0
        self.total = None


def timed(show: BarFactory,
          spent: list[tuple[str, float, float | None]]) -> BarFactory:
    """``show``, also recording (label, seconds, seconds to the first failure) per stage."""
    @contextmanager
    def timed(label: str, total: int | None) -> Iterator[Progress | None]:
        started = time.perf_counter()
        first: list[float] = []
        with show(label, total) as inner:
            def progress(examples: int, steps: int, failures: int) -> None:
                if failures and not first:
                    first.append(time.perf_counter() - started)
                if inner is not None:
                    inner(examples, steps, failures)

            try:
                yield progress
            finally:
                spent.append((label, time.perf_counter() - started,
                              first[0] if first else None))

    return timed


def time_note(spent: list[tuple[str, float, float | None]], budget: float | None,
              label: str = "") -> str:
    """Where a check's time went, one line for the card: each stage's seconds, the search's
    budget and when its first counterexample came (the rest of a budget grades the other
    clauses: the check keeps going unless ``--first``)."""
    parts = []
    for stage, seconds, first in spent:
        name = stage.removeprefix(label).strip().strip("()") or "the levels' search"
        text = f"{name} {seconds:.1f} s"
        if budget is not None and name == "the levels' search":
            text += (f" of its {budget:g} s budget" if seconds <= budget else
                     f" for a {budget:g} s budget (the search stops at its budget; the "
                     "example under way and the reductions finish after it)")
        if first is not None:
            text += (f", the first counterexample after {first:.1f} s (the rest grades the "
                     "other clauses; --first stops there)")
        parts.append(text)
    total = sum(seconds for _, seconds, _ in spent)
    return f"time: {'; '.join(parts)}; {total:.1f} s in all"


def nested(outer: Any, label: str, total: int | None) -> AbstractContextManager[Any]:
    """``outer(label, total)`` when a bar factory is given, else a context yielding None."""
    if outer is None:
        return _none()
    result: AbstractContextManager[Any] = outer(label, total)
    return result


@contextmanager
def _none() -> Iterator[None]:
    yield None
