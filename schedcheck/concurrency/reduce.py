"""Bounded reduction of a failing concurrent round, on its recorded schedule.

:func:`reduce_bounded` takes a :class:`~schedcheck.concurrency.cases.Case` that fails and
tries smaller ones -- fewer preemptions, fewer threads (a lane dropped, or merged into
another), fewer operations, fewer setup calls, smaller switch points, then smaller numbers (the
constructor's sizes, delays, deadlines and limits, by the candidates the sequential reduction
uses: ``delta.smaller_ints``) -- each run once under the
recorded schedule (adjusted to the smaller case), never re-explored: a candidate is kept iff
it still fails. Every candidate is smaller than the case it came from, so the search ends; a
budget of its own bounds it anyway:

* ``seconds`` of wall time, checked before each candidate;
* ``memory_mb`` of resident memory grown since the start (the linearizability check of a
  large round is the expensive part);
* ``max_tries`` candidate runs.

The :class:`Reduction` says what it did and, when a budget stopped it, which one -- for the
report card: ``reduced for 20 s: 31 -> 9 steps (stopped at its 20 s budget)``.
"""

from __future__ import annotations

import os
import resource
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from typing import Any

from schedcheck.concurrency.cases import Case, SetupDiverged, fails_serially, run_case
from schedcheck.concurrency.rounds import RoundOutcome
from schedcheck.contract import SchedcheckInternalError
from schedcheck.harness.delta import smaller_ints

__all__ = ["DEFAULT_MEMORY_MB", "DEFAULT_SECONDS", "Reduction", "case_size", "reduce_bounded"]

#: The default budget of one reduction: wall seconds, and memory grown (MB).
DEFAULT_SECONDS = 20.0
DEFAULT_MEMORY_MB = 400.0
#: Steps one candidate run may take (the baton's budget; a real failure needs far fewer).
CANDIDATE_STEPS = 20_000


def case_size(case: Case) -> int:
    """The steps of the counterexample a case prints: setup calls, operations, the replay."""
    return len(case.setup) + case.operations + 1


def _preemptions(case: Case) -> int:
    return len(case.schedule) // 3


@dataclass
class Reduction:
    case: Case
    outcome: RoundOutcome
    before: int  #: steps (``case_size``) of the case given
    after: int  #: steps of the case kept
    threads: tuple[int, int]  #: (before, after)
    preemptions: tuple[int, int]  #: (before, after)
    seconds: float
    tried: int  #: candidates run
    stopped: str = ""  #: "" when no smaller candidate fails; else the budget that stopped it
    budget_seconds: float = DEFAULT_SECONDS

    @property
    def complete(self) -> bool:
        return not self.stopped

    def text(self) -> str:
        """One line for the card, e.g. ``reduced for 20 s: 31 -> 9 steps (stopped at ...)``."""
        line = (f"reduced for {self.seconds:.1f} s: {self.before} -> {self.after} steps, "
                f"{self.threads[0]} -> {self.threads[1]} threads, {self.preemptions[0]} -> "
                f"{self.preemptions[1]} preemptions, {self.tried} candidates replayed on the "
                "recorded schedule")
        if self.stopped:
            return (f"{line} (stopped early at its {self.stopped}; a smaller round may still "
                    "fail)")
        return f"{line} (no smaller candidate fails)"


def _rss_mb() -> float:
    """Resident memory now (Linux ``/proc``), else the peak so far."""
    try:
        with open("/proc/self/statm", encoding="ascii") as f:
            pages = int(f.read().split()[1])
        return pages * os.sysconf("SC_PAGE_SIZE") / 2**20
    except (OSError, ValueError, IndexError):
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _triples(schedule: list[int]) -> list[list[int]]:
    return [schedule[i:i + 3] for i in range(0, len(schedule) - 2, 3)]


def _flat(triples: list[list[int]]) -> list[int]:
    return [x for t in triples for x in t]


def _without_lane(case: Case, lane: int) -> Case:
    kept = [[t[0] - (t[0] > lane), t[1], t[2]] for t in _triples(case.schedule) if t[0] != lane]
    return replace(case, threads=case.threads[:lane] + case.threads[lane + 1:],
                   names=case.names[:lane] + case.names[lane + 1:], schedule=_flat(kept))


def candidates(case: Case) -> Iterator[Case]:
    """Smaller cases, most promising first; each on the recorded schedule (adjusted)."""
    triples = _triples(case.schedule)
    for i in range(len(triples)):  # fewer preemptions
        yield replace(case, schedule=_flat(triples[:i] + triples[i + 1:]))
    if len(case.threads) > 1:  # fewer threads
        for lane in range(len(case.threads)):
            yield _without_lane(case, lane)
    if len(case.threads) > 2:  # merge lane j after lane i: fewer threads, the same calls
        for j in range(len(case.threads)):
            for i in range(len(case.threads)):
                if i != j and (case.names[j] == "tick") == (case.names[i] == "tick"):
                    merged = [list(p) for p in case.threads]
                    merged[i] = merged[i] + merged[j]
                    yield _without_lane(replace(case, threads=merged), j)
    for i, ops in enumerate(case.threads):  # fewer operations
        if len(ops) > 1:
            for j in range(len(ops)):
                threads = [list(p) for p in case.threads]
                del threads[i][j]
                yield replace(case, threads=threads)
    for i, call in enumerate(case.setup):  # fewer setup calls ("start" stays)
        if call[:1] != ("start",):
            yield replace(case, setup=case.setup[:i] + case.setup[i + 1:])
    for i, t in enumerate(triples):  # earlier switch points, fewer skips (same count)
        for smaller in ([t[0], t[1] - 1, t[2]], [t[0], t[1], 0]):
            if smaller != t and min(smaller) >= 0:
                yield replace(case, schedule=_flat([*triples[:i], smaller, *triples[i + 1:]]))
    yield from _smaller_numbers(case)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


#: Calls whose int arguments are counts that must stay >= 1 (a ``ready(limit=0)`` is a
#: malformed-argument case of its own, not the race being reduced).
_COUNTS = ("ready",)


def _with_smaller_ints(call: tuple[Any, ...], first: int) -> Iterator[tuple[Any, ...]]:
    """``call`` with one of its int arguments (from index ``first``) made smaller."""
    least = 1 if call[:1] and call[0] in _COUNTS else None
    for i in range(first, len(call)):
        if _is_int(call[i]):
            for c in smaller_ints(call[i]):
                if least is None or c >= least:
                    yield (*call[:i], c, *call[i + 1:])


def _numbers(case: Case) -> int:
    """The size of a case's numbers: the sum of their magnitudes."""
    calls = [case.args, *case.setup, *(op for ops in case.threads for op in ops)]
    return sum(abs(v) for call in calls for v in call if _is_int(v))


def _smaller_numbers(case: Case) -> Iterator[Case]:
    """The case with one number made smaller: a constructor size (never below 1), an
    argument of a setup call or of a thread's operation. Options (a ``max_pending``) stay:
    a smaller one tells another story (refusals), not the same race."""
    for args in _with_smaller_ints(case.args, 0):
        if all(not _is_int(v) or v >= 1 for v in args):
            yield replace(case, args=args)
    for i, call in enumerate(case.setup):
        for smaller in _with_smaller_ints(call, 1):
            yield replace(case, setup=[*case.setup[:i], smaller, *case.setup[i + 1:]])
    for lane, ops in enumerate(case.threads):
        for j, op in enumerate(ops):
            for smaller in _with_smaller_ints(op, 1):
                threads = [list(p) for p in case.threads]
                threads[lane][j] = smaller
                yield replace(case, threads=threads)


def _smaller(a: Case, b: Case) -> bool:
    """a is strictly smaller than b (the order every candidate descends in)."""
    def key(c: Case) -> tuple[int, int, int, int, int]:
        return (case_size(c), len(c.threads), _preemptions(c), sum(c.schedule), _numbers(c))

    return key(a) < key(b)


def reduce_bounded(
    factory: Callable[..., Any],
    case: Case,
    outcome: RoundOutcome,
    *,
    seconds: float = DEFAULT_SECONDS,
    memory_mb: float = DEFAULT_MEMORY_MB,
    max_tries: int = 2_000,
    clock: Callable[[], float] = time.monotonic,
    memory: Callable[[], float] = _rss_mb,
    progress: Callable[[int, int], None] | None = None,
) -> Reduction:
    """Greedy reduction of a failing ``case`` within the budget (see the module docstring).
    ``progress(tried, steps)`` is called after each candidate."""
    started = clock()
    base_memory = memory()
    before = (case_size(case), len(case.threads), _preemptions(case))
    tried = 0
    stopped = ""
    improved = True
    while improved and not stopped:
        improved = False
        for candidate in candidates(case):
            if tried >= max_tries:
                stopped = f"{max_tries} candidate budget"
            elif clock() - started >= seconds:
                stopped = f"{seconds:g} s budget"
            elif memory() - base_memory >= memory_mb:
                stopped = f"{memory_mb:g} MB memory budget"
            if stopped:
                break
            if not _smaller(candidate, case):
                continue
            tried += 1
            try:
                again = run_case(factory, candidate, budget=CANDIDATE_STEPS)
            except (SetupDiverged, SchedcheckInternalError):
                continue
            finally:
                if progress is not None:
                    progress(tried, case_size(case))
            # still fails, the same way, and still needs an interleaving to fail
            if again.verdict == outcome.verdict and not fails_serially(factory, candidate,
                                                                        again):
                case, outcome = candidate, again
                improved = True
                break
    return Reduction(case, outcome, before[0], case_size(case), (before[1], len(case.threads)),
                     (before[2], _preemptions(case)), clock() - started, tried, stopped,
                     seconds)
