"""Counterexamples with the essential steps only: delta debugging over the atomic program.

The search (``schedcheck.harness.search``) stops at the first failing run, unshrunk. That
run's atomic program (``program.Op``: one call made on both sides, no compound rule) is
reduced here by replaying it on a fresh machine -- the model and the target built again, every
reply and every state compared after every step, exactly as in the suite -- with parts of it
removed, keeping a removal whenever the replay still breaks the same clause:

1.-3. the passes of ``schedcheck.harness.delta`` (:func:`~schedcheck.harness.delta.reduce_ops`):
   whole tasks removed, ddmin over the steps and contiguous runs, times and numbers moved
   towards 0 together, then each argument made simpler;
4. a program still longer than ``shorter.SHORT`` steps: the search run again with a few rule
   steps per example (``shorter``); a shorter failing run of the same clause it finds is
   reduced too, and the shorter result kept;
5. ids renamed small, in order of first use (``'a'``, ``'b'`` ...); a wheel's handles and
   callbacks are named by the replay itself.

The counterexample returned is the last replay's: its code lines, checks and pictures come
from a real run of the reduced program. Each replay is a plain call sequence (a few
milliseconds); :data:`MAX_REPLAYS` and :data:`BUDGET_SECONDS` bound the work, and
:data:`MAX_HUNG_REPLAYS` the replays that hang (each waits out the step time limit).
Nothing here imports ``schedcheck.impl``.
"""

from __future__ import annotations

import pickle
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import hypothesis
from hypothesis import HealthCheck, Phase
from hypothesis import strategies as st

from schedcheck.harness import guard, shorter
from schedcheck.harness.common import (
    Divergence,
    Progress,
    RunContext,
    SuiteMachine,
    machine_in,
    run_suite,
)
from schedcheck.harness.delta import SHAPE_OP, reduce_ops, small_ids
from schedcheck.harness.program import Op, TimerName
from schedcheck.harness.result import Counterexample, RunResult

__all__ = ["BUDGET_SECONDS", "MAX_HUNG_REPLAYS", "MAX_REPLAYS", "Minimized", "minimize",
           "not_minimized", "reduce_found", "reduce_ops", "replay", "run_reduced"]

#: Most replays one minimisation may make (each is one run of a short program).
MAX_REPLAYS = 3000
#: Most replays of one minimisation that may hang. Each waits out the step time limit
#: (``guard.STEP_SECONDS``, 10 s), so without a bound a hanging target's reduction could take
#: hours; after this many it stops, and the counterexample is the shortest reached by then.
MAX_HUNG_REPLAYS = 6
#: Seconds one minimisation may spend by default; past it, the shortest program reached so far
#: is the counterexample (the note says the reduction stopped at its budget).
BUDGET_SECONDS = 20.0


@dataclass
class Minimized:
    counterexample: Counterexample
    program: list[Op]
    replays: int
    before: int  #: steps of the counterexample before the reduction
    stopped: str = ""  #: why the reduction stopped at a limit before it was done ("" if done)


def replay(machine_class: type[SuiteMachine], ops: list[Op]) -> tuple[Counterexample | None,
                                                                     list[Op]]:
    """Run ``ops`` on a fresh machine of ``machine_class`` (invariants after every op); the
    counterexample of the first divergence (or None) and the program as replayed. Must run in
    a Hypothesis test context (:func:`minimize` provides one)."""
    ctx = RunContext(RunResult.fresh(machine_class.system, ""))
    machine = machine_in(machine_class, ctx)
    program = machine.program
    assert program is not None
    names: dict[str, str] = {}
    try:
        for op in ops:
            renamed = replace(op, args=tuple(TimerName(names.get(a.name, "?" + a.name))
                                             if isinstance(a, TimerName) else a
                                             for a in op.args))
            thawed = machine.thaw_op(renamed)
            if thawed is None:
                continue
            args, kwargs = thawed
            at = len(program.ops)
            try:
                getattr(machine, op.name)(*args, **kwargs)
            finally:
                if len(program.ops) > at:
                    names.update(zip(op.made, program.ops[at].made))
            for inv in machine.invariants:
                if all(pre(machine) for pre in inv.preconditions):
                    inv.function(machine)
    except Divergence as exc:
        return exc.counterexample, list(program.ops)
    except Exception:
        return None, []  # a program this machine cannot run (not a counterexample)
    return None, list(program.ops)


class _Search:
    """The reduction of one program against one clause, counting replays."""

    def __init__(self, machine_class: type[SuiteMachine], clause: str,
                 budget_seconds: float, kind: str = "") -> None:
        self.machine_class = machine_class
        self.clause = clause
        #: the kind of mistake to keep, when the run looks past other kinds of this clause
        #: (keep-going grading set them aside): the reduction must not slide back to one
        self.kind = kind if any(a.startswith(f"{clause}|")
                                for a in machine_class.set_aside) else ""
        self.replays = 0
        self.best: Counterexample | None = None
        self.best_program: list[Op] = []
        self.timeouts_before = guard.timeouts()
        self.stopped = ""
        self.budget = budget_seconds
        self.ends = time.monotonic() + budget_seconds

    def fails(self, ops: list[Op]) -> bool:
        hung = guard.timeouts() - self.timeouts_before
        if self.replays >= MAX_REPLAYS:
            self.stopped = f"stopped at the limit of {MAX_REPLAYS} replays"
            return False
        if self.best is not None and time.monotonic() > self.ends:
            self.stopped = f"stopped at its time budget of {self.budget:g} s"
            return False
        if hung >= MAX_HUNG_REPLAYS:
            self.stopped = (f"stopped after {hung} replays that hung (each waits out the "
                            f"{guard.step_seconds():g} s step limit)")
            return False
        self.replays += 1
        cx, played = replay(self.machine_class, ops)
        if cx is None or cx.clause != self.clause or (self.kind and cx.kind != self.kind):
            return False
        self.best, self.best_program = cx, played
        return True


def _in_test_context(fn: Callable[[], Any]) -> Any:
    """Call ``fn`` once inside a Hypothesis test (the suites call ``event`` and ``target``)."""
    box: list[Any] = []

    @hypothesis.settings(max_examples=1, database=None, phases=[Phase.generate],
                         deadline=None, suppress_health_check=list(HealthCheck))
    @hypothesis.given(st.just(None))
    def run(_: None) -> None:
        if not box:
            try:
                box.append((fn(), None))
            except BaseException as exc:  # handed back outside Hypothesis
                box.append((None, exc))

    run()
    value, exc = box[0]
    if exc is not None:
        raise exc
    return value


def minimize(machine_class: type[SuiteMachine], program: list[Op],
             counterexample: Counterexample, *,
             budget_seconds: float | None = None) -> Minimized | None:
    """The failing ``program`` reduced to the steps it needs to break the clause of
    ``counterexample``; None if replaying it on a fresh target did not reproduce that clause,
    twice (a target that behaves differently for the same calls: the search's counterexample
    then stands). ``budget_seconds`` (default :data:`BUDGET_SECONDS`) bounds the reduction;
    when it runs out, the shortest program reached so far is the result and ``stopped``
    says so."""
    search = _Search(machine_class, counterexample.clause,
                     BUDGET_SECONDS if budget_seconds is None else budget_seconds,
                     counterexample.kind)

    def run() -> Minimized | None:
        if not program or not (search.fails(program) or search.fails(program)):
            return None
        ops = reduce_ops(search.best_program, search.fails)
        renamed = small_ids(ops)
        if renamed is not ops:
            search.fails(renamed)
        assert search.best is not None
        return Minimized(search.best, search.best_program, search.replays,
                         len(counterexample.steps), search.stopped)

    with guard.no_logging(), guard.guarded():
        result: Minimized | None = _in_test_context(run)
    return result


def run_reduced(machine_class: type[SuiteMachine], result: RunResult,
                settings: hypothesis.settings, progress: Progress | None = None, *,
                seed: int | None = None, reduce: bool = True) -> RunResult:
    """``common.run_suite`` of ``machine_class``, then (``reduce``) its counterexample reduced
    by :func:`reduce_found`, as the budgeted search does."""
    ctx = RunContext(result, progress)
    run_suite(machine_class, result, settings, progress, seed=seed, context=ctx)
    if reduce and result.counterexample is not None:
        reduce_found(machine_class, result, ctx.final_program or ctx.last_program)
    return result


def reduce_found(machine_class: type[SuiteMachine], result: RunResult,
                 program: list[Op]) -> None:
    """Reduce ``result``'s counterexample (found by a run of ``machine_class`` whose atomic
    program is ``program``) and put the reduced one in its place, the unreduced one kept on
    it; notes say what happened. Every search and suite run ends here."""
    cx = result.counterexample
    assert cx is not None
    reduced = minimize(machine_class, program, cx) if program else None
    if reduced is None:
        cx.program = pickled(program)
        result.notes.append(not_minimized(cx, program))
        return
    note = (f"minimized by delta debugging from {reduced.before} to "
            f"{len(reduced.counterexample.steps)} steps ({reduced.replays} replays"
            + (f"; {reduced.stopped})" if reduced.stopped else ")"))
    last = reduced.counterexample.steps[-1].actual if reduced.counterexample.steps else ""
    note += _shape_note(program, reduced.program, reduced.stopped,
                        recursion="RecursionError" in str(last))
    if len(reduced.counterexample.steps) > shorter.SHORT and not _has_shape(reduced.program):
        again = _shorter(machine_class, cx, reduced)
        if again is not None:
            reduced, note = again
    new = reduced.counterexample
    new.seed = cx.seed
    new.hypothesis_program = ""
    new.unreduced = cx
    new.program = pickled(reduced.program)
    result.counterexample = new
    result.break_(new.clause)
    result.notes.append(note)


def pickled(program: list[Op]) -> bytes:
    """``program`` as the example database keeps it (``harness.saved``); b"" when one of its
    arguments cannot be pickled (it is then not kept)."""
    try:
        return pickle.dumps(program)
    except Exception:
        return b""


def _has_shape(program: list[Op]) -> bool:
    return any(op.name == SHAPE_OP for op in program)


def _shape_note(before: list[Op], after: list[Op], stopped: str, *,
                recursion: bool = False) -> str:
    """What the reduction made of the graph shapes in the program: "; the shape 'deep chain'
    went from 2,000 tasks to 1,003: the mistake needs a chain ~1,003 deep"."""
    from schedcheck.harness.scheduler import shapes

    sizes = [op.args[:2] for op in before if op.name == SHAPE_OP]
    kept = [op.args[:2] for op in after if op.name == SHAPE_OP]
    parts = []
    for (name, size), (_, now) in zip(sizes, kept):
        if name in shapes.SHAPES:
            if now == size:
                parts.append(f"the shape '{name}' stays at {shapes.sized(name, size)}")
                continue
            bound = (f"fails at {now:,}, passes at {now - 1:,}" if not stopped and now > 1
                     else f"fails at {now:,}; the reduction stopped early, so fewer may do")
            parts.append(f"the shape '{name}' went from {shapes.sized(name, size)} to {now:,} "
                         f"({bound}): "
                         f"the mistake needs {shapes.describe(name, now)}"
                         + (f" (RecursionError: recursion at depth ~{now:,})" if recursion
                            else ""))
    for name, size in sizes[len(kept):]:
        parts.append(f"the shape '{name}' of {shapes.sized(name, size)} was not needed")
    return "".join(f"; {p}" for p in parts)


def _shorter(machine_class: type[SuiteMachine], cx: Counterexample,
             reduced: Minimized) -> tuple[Minimized, str] | None:
    """A shorter reduction than ``reduced`` from the search with few steps (``shorter``) and
    its note, or None when that search finds none."""
    found = shorter.search_shorter(machine_class, cx.clause, seed=cx.seed)
    if found is None:
        return None
    again = minimize(machine_class, found.program, found.counterexample)
    if again is None or len(again.counterexample.steps) >= len(reduced.counterexample.steps):
        return None
    return again, (
        f"minimized by delta debugging to {len(again.counterexample.steps)} steps: the failing "
        f"run went from {reduced.before} to {len(reduced.counterexample.steps)} steps, then a "
        f"search with at most {found.steps} rule steps per example broke {cx.clause} in a run "
        f"of {again.before} steps, which went to {len(again.counterexample.steps)} "
        f"({again.replays} replays)")


def not_minimized(cx: Counterexample, program: list[Op]) -> str:
    """The note of a counterexample that stands unreduced: why, as it happened."""
    if not program:
        return (f"not minimized: this run recorded no replayable program for {cx.clause}; "
                "the counterexample is the failing run as found")
    return (f"not minimized: the failing run's {len(program)} calls, replayed twice on a "
            f"fresh target, did not break {cx.clause} again either time (the target answered "
            "the same calls differently: it depends on something besides them)")
