"""Always a verdict: ``check`` with the target in a supervised child process.

:func:`check` runs :func:`schedcheck.pipeline.check` -- the search exactly as in-process -- in a
child the checker can kill (``schedcheck.harness.supervisor``). When a call of the target does
not return within the step limit, or the child dies during one (a signal such as
``SIGSEGV``, an exit status such as ``os._exit(0)``'s, the memory limit), the child's whole
process group is killed and:

1. the example under way becomes the counterexample of the clause the call was compared for,
   its last step the call that misbehaved ("did not return within 1 s", "the process was
   killed by SIGSEGV", ...);
2. it is reduced by delta debugging (``schedcheck.harness.delta``) over its atomic program,
   each candidate run in a fresh supervised child with the step limit, under
   :data:`REDUCE_SECONDS` and the check's deadline;
3. the search starts again in a new child, that clause set aside (keep going) and the step
   under way never made again (an example that would make it, the same call with the same
   arguments, is rejected); the method is still called with other arguments, within
   :data:`REPEAT_SECONDS`. When it misbehaves again, on another step, that step is set aside
   too without a second counterexample, and after :data:`MAX_REPEATS` misbehaving steps the
   method itself is never called again (each example that would call it is rejected). So a
   ``submit`` that hangs on one shape of graph does not end the search of every other
   clause, which all need ``submit``.

The check ends by its budget plus :data:`MARGIN_SECONDS` (the levels' search), the scaling
clause by :data:`schedcheck.pipeline.SCALING_SECONDS` more; each stage's progress line names
its own limit. Nothing of the target is left running when :func:`check` returns.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from typing import Any

from schedcheck.harness import guard, supervisor
from schedcheck.harness.result import Counterexample, RunResult
from schedcheck.harness.supervisor import DEFAULT_MEMORY_MIB, Outcome, run_supervised
from schedcheck.misbehaviour import (
    REDUCE_SECONDS,
    misbehaviour_counterexample,
    reduced,
    step_under_way,
)
from schedcheck.systems import System
from schedcheck.targets.preflight import LogCapture
from schedcheck.targets.preflight import system_of as _system

__all__ = ["DEFAULT_MEMORY_MIB", "MARGIN_SECONDS", "MAX_REPEATS", "MAX_RESTARTS",
           "REDUCE_SECONDS", "REPEAT_SECONDS", "check", "misbehaviour_counterexample"]

#: How long past its budget a check may take (the example under way when the budget ends,
#: the reductions, a restart after a misbehaving call). The scaling clause comes on top,
#: with its own limit.
MARGIN_SECONDS = 30.0
#: Most misbehaving operations one check reports (each ends a child, and the search starts
#: again without that step, then without that operation: :data:`MAX_REPEATS`).
MAX_RESTARTS = 6
#: How many steps of one method may misbehave before the method is set aside as a whole
#: (the first is the counterexample; later ones end a child and set their step aside).
MAX_REPEATS = 5
#: The step limit of a method once it has misbehaved (at most the check's own limit).
REPEAT_SECONDS = 0.5
#: The longest the concurrent rounds (``--threads``) may take in all: a safety net for a
#: target whose threads deadlock where the rounds' controller cannot see it.
ROUNDS_SECONDS = 300.0
#: Below this many seconds of budget left the search does not start again after a
#: misbehaving call: the clauses it did not reach say so.
MIN_RESTART_SECONDS = 1.0
#: After a misbehaving call the search starts again with at least this share of the budget
#: (the time the call and its reduction took comes out of the margin).
RESTART_SHARE = 0.5
#: Seconds of the margin kept for what follows the last search (its example under way,
#: the report).
RESERVE_SECONDS = 8.0

Limit = Callable[[float | None, str], None]


def check(
    system: System | str,
    factory: Callable[..., Any],
    *,
    step_seconds: float | None = None,
    memory_mib: int = DEFAULT_MEMORY_MIB,
    budget: float | None = None,
    bar: Any = None,
    status: Callable[[str], None] | None = None,
    stage_limit: Limit | None = None,
    target_name: str = "",
    database: str | None = None,
    replay_saved: Callable[[], RunResult | None] | None = None,
    **options: Any,
) -> RunResult:
    """:func:`schedcheck.pipeline.check` in a supervised child, with the same arguments
    (``bar``, ``status``: as there; ``stage_limit(seconds, what)`` hears each stage's limit),
    and ``memory_mib``: how far the child's private memory may grow. A call that misbehaves
    is a counterexample (see the module docstring). ``replay_saved`` (``fuzz.replay_saved``
    bound to the target and ``database``, a directory or a Redis URL): what the pytest API
    or ``fuzz`` saved there for this target is replayed first, in a supervised child of
    its own; a saved failure that fails again is a counterexample of
    its clause beside the search's. Raises what ``pipeline.check`` raises (``Unusable``,
    ``ValueError``), as text where the original cannot cross processes."""
    from schedcheck import pipeline

    entry = _system(system)
    seconds = step_seconds or guard.step_seconds()
    started = time.monotonic()
    saved, saved_note = (_replayed(entry, factory, target_name or _name(factory),
                                   str(database), replay_saved, seconds, memory_mib)
                         if replay_saved is not None else (None, ""))
    hard = None if budget is None else started + budget + MARGIN_SECONDS
    found: list[Counterexample] = []
    banned: list[str] = []
    steps_aside: list[tuple[str, str]] = []  #: (op name, description) of misbehaving steps
    misbehaved: dict[str, int] = {}  #: method -> how many of its steps misbehaved
    probes: list[str] = []  #: methods that misbehaved when the check probed, outside examples
    notes: list[str] = []
    watch = _Watch(bar, status, stage_limit, budget, hard)
    result: RunResult | None = None
    while result is None:
        left = _left(budget, started, hard, restarted=bool(found or probes))
        aside_methods, aside_clauses = list(banned), [cx.clause for cx in found]
        aside_probes, aside_steps = list(probes), list(steps_aside)
        shorter = {m: min(seconds, REPEAT_SECONDS) for m in misbehaved}

        def child(left: float | None = left, methods: list[str] = aside_methods,
                  clauses: list[str] = aside_clauses, probed: list[str] = aside_probes,
                  steps: list[tuple[str, str]] = aside_steps,
                  limits: dict[str, float] = shorter) -> Any:
            guard.set_aside(methods, clauses, probed, steps)
            supervisor.shorten(limits)
            logs = [h for h in logging.getLogger().handlers if isinstance(h, LogCapture)]
            run = pipeline.check(entry, factory, target_name=target_name, budget=left,
                                 bar=_child_bar, status=_child_say, step_seconds=seconds,
                                 **options)
            return run, [(h.lines, h.count) for h in logs]

        watch.answered.clear()
        outcome = run_supervised(child, step_seconds=seconds, deadline=watch.deadline,
                                 memory_mib=memory_mib, on_message=watch.handle)
        watch.close()
        if outcome.kind == "returned":
            result = _returned(outcome)
        elif outcome.kind == "overtime" and watch.stage == "levels" and outcome.method:
            # a call under way when the check's deadline came: it has not returned for
            # longer than the rest of the check could wait, a hang as any other
            cx = misbehaviour_counterexample(entry, outcome, seconds, memory_mib)
            found.append(cx)
            notes.append(f"{cx.clause}: {outcome.method}() was still running at the "
                         "check's deadline")
            result = watch.checkpoint or RunResult.fresh(entry.name,
                                                         target_name or _name(factory))
        elif outcome.kind == "overtime" or watch.stage != "levels":
            result = _cut_short(entry, watch, outcome, target_name or _name(factory),
                                seconds, memory_mib)
        elif not any(m[0] == "step" for m in outcome.example) and len(probes) < MAX_RESTARTS:
            # not in an example: the check's own probe of the target's capabilities, where a
            # call that does not come back counts as a refusal (the examples judge it)
            probes.append(outcome.method or "?")
            notes.append(f"{outcome.method or 'a call'}() "
                         f"{outcome.describe(seconds, memory_mib)} when the check probed the "
                         "target's capabilities (outside an example): counted there as a "
                         "refusal; the search started again")
        else:
            method = outcome.method or "?"
            repeat = method in misbehaved
            misbehaved[method] = misbehaved.get(method, 0) + 1
            step = step_under_way(outcome)
            if not repeat:
                if stage_limit is not None:
                    stage_limit(REDUCE_SECONDS, "limit")
                cx = reduced(entry, factory, outcome, seconds, memory_mib, options, hard,
                              say=status)
                if stage_limit is not None:
                    stage_limit(None, "")
                cx.seed = options.get("seed")
                found.append(cx)
            # a method that misbehaved again before it answered once in this child misbehaves
            # whatever its arguments: no use trying its other steps one by one
            whole = (step is None or misbehaved[method] >= MAX_REPEATS
                     or (repeat and method not in watch.answered))
            if step is None or whole:
                banned.append(method)
            else:
                steps_aside.append(step)
            restarts = sum(misbehaved.values())
            why = ("--first stops at the first counterexample" if options.get("first")
                   else f"{MAX_RESTARTS} operations misbehaved" if len(found) >= MAX_RESTARTS
                   else f"{restarts} steps misbehaved"
                   if restarts >= MAX_RESTARTS * MAX_REPEATS
                   else "the budget was spent" if _left(budget, started, hard, True) == 0.0
                   else "")
            went_on = ("" if why else
                       f" and the search went on without calling {method}() again" if whole
                       else " and the search went on without that step (the same call with "
                            f"the same arguments); {method}() is still called with other "
                            f"arguments, each call within {min(seconds, REPEAT_SECONDS):g} s")
            if not repeat:
                notes.append(f"{cx.clause}: {method}() "
                             f"{outcome.describe(seconds, memory_mib)}; the process was "
                             f"stopped{went_on}")
            if why:
                result = watch.checkpoint or RunResult.fresh(entry.name,
                                                             target_name or _name(factory))
                notes.append("the search did not start again after the last misbehaving "
                             f"call: {why}")
    for method, times in misbehaved.items():
        if times > 1:
            notes.append(f"{method}() misbehaved again on {times - 1} other "
                         f"step{'s' if times > 2 else ''} (each within "
                         f"{min(seconds, REPEAT_SECONDS):g} s): each time the process was "
                         "stopped and the search went on without that step"
                         + (f"; after {times}, without {method}()" if method in banned
                            else ""))
    if found or probes:
        spent = time.monotonic() - started
        processes = sum(misbehaved.values()) + len(probes) + 1
        notes.append(f"time in all: {spent:.1f} s, {processes} processes "
                     "(the search starts again after each misbehaving call, with what is "
                     "left of the budget" + (f"; the check stops by {budget:g} s + a "
                                             f"{MARGIN_SECONDS:g} s margin)" if budget else ")"))
    if saved is not None and saved.clause in {cx.clause for cx in
                                               [*found, *result.all_counterexamples()]}:
        saved_note += f"; the search broke {saved.clause} too, and its counterexample is shown"
        saved = None
    _fold(result, found, notes)
    if saved is not None:
        _fold(result, [saved], [], why="a failure saved in the example database fails again")
    if saved_note:
        result.notes.insert(0, saved_note)
    result.notes.append(f"the target ran in a supervised process: each call within "
                        f"{seconds:g} s (--step-seconds), at most {memory_mib} MiB more memory "
                        "(--memory-limit)")
    return result


def _left(budget: float | None, started: float, hard: float | None,
          restarted: bool) -> float | None:
    """The budget of the next child's search: what is left of ``budget``; after a
    misbehaving call at least :data:`RESTART_SHARE` of it, as far as the deadline ``hard``
    allows with :data:`RESERVE_SECONDS` kept for the card (0.0: no time to start again)."""
    if budget is None or hard is None or not restarted:
        return budget
    now = time.monotonic()
    left = budget - (now - started)
    if restarted:
        left = min(max(left, budget * RESTART_SHARE), hard - RESERVE_SECONDS - now)
    return round(left, 1) if left >= MIN_RESTART_SECONDS else 0.0


def _name(factory: Callable[..., Any]) -> str:
    return str(getattr(factory, "__qualname__", "") or "")


# ---------------------------------------------------------------------------------------------
# The child's side of the progress display
# ---------------------------------------------------------------------------------------------


@contextmanager
def _child_bar(label: str, total: int | None) -> Iterator[Callable[[int, int, int], None]]:
    supervisor.send("bar", label, total)

    def progress(examples: int, steps: int, failures: int) -> None:
        supervisor.send("progress", examples, steps, failures)

    try:
        yield progress
    finally:
        supervisor.send("bar_end")


def _child_say(line: str) -> None:
    supervisor.send("say", line)


@dataclass
class _Watch:
    """The parent's side: forwards the child's status lines and progress to the real
    display, follows the stage (and its deadline), keeps the last checkpoint."""

    bar: Any
    status: Callable[[str], None] | None
    stage_limit: Limit | None
    budget: float | None
    hard: float | None
    stage: str = "levels"
    stage_started: float = field(default_factory=time.monotonic)
    checkpoint: RunResult | None = None
    bars: list[tuple[ExitStack, Any]] = field(default_factory=list)
    #: methods that misbehaved before and answered in the current child at least once
    answered: set[str] = field(default_factory=set)

    def deadline(self) -> float | None:
        from schedcheck.pipeline import SCALING_SECONDS

        if self.stage == "scaling":
            return self.stage_started + (SCALING_SECONDS + 5.0)
        if self.stage == "rounds":
            return self.stage_started + ROUNDS_SECONDS
        return self.hard

    def handle(self, message: tuple[Any, ...]) -> None:
        kind = message[0]
        if kind == "say" and self.status is not None:
            self.status(message[1])
        elif kind == "bar":
            self._stage(message[1])
            stack = ExitStack()
            progress = stack.enter_context(self.bar(message[1], message[2])) if self.bar else None
            self.bars.append((stack, progress))
        elif kind == "progress" and self.bars and self.bars[-1][1] is not None:
            self.bars[-1][1](*message[1:])
        elif kind == "bar_end" and self.bars:
            self.bars.pop()[0].close()
        elif kind == "checkpoint":
            self.checkpoint = message[1]
        elif kind == "answered":
            self.answered.add(message[1])

    def _stage(self, label: str) -> None:
        from schedcheck.pipeline import SCALING_SECONDS

        stage = ("scaling" if "(scaling clause)" in label else
                 "rounds" if "(concurrent rounds)" in label or "(real threads)" in label else
                 "levels")
        if stage == self.stage:
            return
        self.stage, self.stage_started = stage, time.monotonic()
        if self.stage_limit is not None:
            if stage == "scaling":
                self.stage_limit(SCALING_SECONDS, "limit")
            elif stage == "rounds":
                self.stage_limit(ROUNDS_SECONDS, "limit")
            else:
                self.stage_limit(None, "")

    def close(self) -> None:
        while self.bars:
            self.bars.pop()[0].close()


def _returned(outcome: Outcome) -> RunResult:
    """The child's RunResult (its log records added to this process's captures), or what
    it raised, raised here."""
    if outcome.error:
        from schedcheck import pipeline
        from schedcheck.contract import SchedcheckInternalError

        exc = outcome.value
        if isinstance(exc, pipeline.Unusable | ValueError | SchedcheckInternalError):
            raise exc
        raise SchedcheckInternalError(outcome.error)
    result, logs = outcome.value
    mine = [h for h in logging.getLogger().handlers if isinstance(h, LogCapture)]
    for handler, (lines, count) in zip(mine, logs, strict=False):
        handler.lines += lines[:max(0, handler.limit - len(handler.lines))]
        handler.count += count
    assert isinstance(result, RunResult)
    return result


def _cut_short(entry: System, watch: _Watch, outcome: Outcome, name: str, seconds: float,
               memory_mib: int) -> RunResult:
    """A stage stopped at its deadline, or a stage after the levels whose call misbehaved:
    the last checkpoint, its unfinished stage saying why."""
    from schedcheck.pipeline import SCALING_SECONDS

    result = watch.checkpoint or RunResult.fresh(entry.name, name)
    limit = {"scaling": SCALING_SECONDS, "rounds": ROUNDS_SECONDS}.get(watch.stage)
    what = (f"did not finish within its limit of {limit:g} s" if limit is not None
            and outcome.kind == "overtime" else
            "did not finish within the budget" if outcome.kind == "overtime" else
            f"stopped: {outcome.method or 'a call'}() {outcome.describe(seconds, memory_mib)}")
    if watch.stage == "scaling":
        result.stats[entry.cost_clause].why = f"not reached: the timed run {what}"
    elif watch.stage == "levels":
        result.notes.append(f"the levels' search {what} plus {MARGIN_SECONDS:g} s; the "
                            "clauses it did not reach say so")
        for stat in result.stats.values():
            if not stat.exercised and not stat.why:
                stat.why = "not reached: the check was stopped at its deadline"
    else:
        result.notes.append(f"the {watch.stage} stage {what}")
    return result


# ---------------------------------------------------------------------------------------------
# A misbehaving call as a counterexample
# ---------------------------------------------------------------------------------------------

def _fold(result: RunResult, found: list[Counterexample], notes: list[str], *,
          why: str = "a call misbehaved") -> None:
    """The misbehaviour counterexamples into ``result``: first in line, their clauses
    broken in every section of the card (``why``: what broke them)."""
    for cx in found:
        for part in [result, *result.levels]:
            stat = part.stats.get(cx.clause)
            if stat is None:
                continue
            stat.broken = True
            stat.exercised = max(stat.exercised, 1)
            stat.why = f"{why} (folder {cx.clause}/)"
    if found:
        others = [cx for cx in result.all_counterexamples()
                  if cx.clause not in {f.clause for f in found}]
        result.counterexample = found[0]
        result.counterexamples = [*found, *others]
        result.seen_broken.update({cx.clause: cx for cx in found})
    result.notes[:0] = notes


def _replayed(entry: System, factory: Callable[..., Any], name: str, database: str,
              replay_saved: Callable[[], RunResult | None], seconds: float,
              memory_mib: int) -> tuple[Counterexample | None, str]:
    """What ``database`` saved for the target, replayed in a supervised child: (its
    counterexample when a saved failure fails again, reduced; a note for the card)."""
    def run() -> RunResult:
        got = replay_saved()
        return got if got is not None else RunResult.fresh(entry.name, name)

    try:
        got = run_in_child(entry, factory, run, target_name=name, step_seconds=seconds,
                           memory_mib=memory_mib)
    except Exception as exc:
        return None, (f"the example database {database} could not be replayed "
                      f"({type(exc).__name__}: {exc}); the search went on without it")
    cx = got.counterexample
    if cx is None:
        return None, (f"the example database {database}: nothing saved for this target fails "
                      "(replayed first)")
    return cx, (f"{cx.clause}: a failure saved in the example database {database} (by an "
                "earlier check, the pytest API or fuzz) was replayed first and fails again "
                f"(folder {cx.clause}/)")


def run_in_child(system: System | str, factory: Callable[..., Any],
                 run: Callable[[], RunResult], *, target_name: str = "",
                 step_seconds: float | None = None, memory_mib: int = DEFAULT_MEMORY_MIB,
                 shrink: bool = True) -> RunResult:
    """``run()`` (a suite run against ``factory`` returning its RunResult) in a supervised
    child: the pytest API's test and a fuzz worker use it. A call that misbehaves makes a
    RunResult whose counterexample it is (reduced unless ``shrink=False``); what ``run``
    raises is raised here (as an internal error when it cannot cross processes)."""
    from schedcheck.contract import SchedcheckInternalError

    entry = _system(system)
    seconds = step_seconds or guard.step_seconds()
    outcome = run_supervised(run, step_seconds=seconds, memory_mib=memory_mib)
    if outcome.kind == "returned":
        if outcome.error:
            if isinstance(outcome.value, BaseException):
                raise outcome.value
            raise SchedcheckInternalError(outcome.error)
        assert isinstance(outcome.value, RunResult)
        return outcome.value
    result = RunResult.fresh(entry.name, target_name or _name(factory))
    if outcome.misbehaved:
        cx = reduced(entry, factory, outcome, seconds, memory_mib, {"shrink": shrink}, None)
        _fold(result, [cx], [f"{cx.clause}: {outcome.method or 'a call'}() "
                              f"{outcome.describe(seconds, memory_mib)}"])
    return result
