"""A call of the target that misbehaved in a supervised child, as a counterexample.

:func:`misbehaviour_counterexample` turns the example under way when the child hung, crashed,
exited, ran out of memory or left threads behind (``supervisor.Outcome``) into a
counterexample whose last step is that call; :func:`reduced` reduces it by delta debugging,
each candidate program run in a fresh supervised child; :func:`step_under_way` names the
atomic step under way (what ``schedcheck.supervised`` sets aside in the next child).
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from typing import Any

from schedcheck.harness.program import Op
from schedcheck.harness.result import Counterexample, RunResult, Step
from schedcheck.harness.supervisor import Outcome, run_supervised
from schedcheck.systems import System

__all__ = ["REDUCE_SECONDS", "misbehaviour_counterexample", "reduced", "step_under_way"]

#: The longest one reduction of a misbehaving example may take.
REDUCE_SECONDS = 10.0

#: How a misbehaving call reads as a step's outcome (``raises KIND[...]``).
_KINDS = {"hung": "Hang", "overtime": "Hang", "memory": "OutOfMemory", "signal": "Crash",
          "exited": "Exit", "threads": "StrayThreads"}


def misbehaviour_counterexample(entry: System, outcome: Outcome, step_seconds: float,
                                memory_mib: int) -> Counterexample:
    """The example under way when the child misbehaved, as a counterexample: its steps as
    the recorder wrote them, the last one the call that misbehaved."""
    steps: list[Step] = []
    setup = ""
    clause: str | None = None
    preamble: list[str] = []  #: the test doubles the steps use (the wheel's callbacks)
    for message in outcome.example:
        if message[0] == "preamble":
            preamble = list(message[1])
        elif message[0] == "step":
            setup, _index, code, words, thread, step_clause = message[1:]
            steps.append(Step(len(steps), code, words, thread=thread, clause=step_clause))
            clause = step_clause
        elif message[0] == "clause":
            clause = message[1]
    method = outcome.method or "a method"
    if not steps or method not in steps[-1].code:
        steps.append(Step(len(steps), f"target.{method}(...)  # a call made by the check",
                          f"the check calls {method}()"))
    last = steps[-1]
    what = outcome.describe(step_seconds, memory_mib)
    last.diverged = True
    last.clause = clause = clause or last.clause or _clause_of(entry, method)
    last.expected = "a reply (a value or a contract error)"
    # what a replay requires of the step: any reply will do (a fixed target passes it)
    last.check = "_raised is None or error_name(_raised) in CONTRACT_ERRORS"
    last.actual = f"raises {_KINDS.get(outcome.kind, 'Crash')}[{what}]"
    story = (f"{last.words}: `{last.code}` {what} -- every call of the contract returns a "
               "value or raises; the check stopped the process there")
    return Counterexample(system=entry.name, clause=clause, message=story, steps=steps,
                          setup=setup or "target = factory(...)",
                          snapshot={"preamble": preamble} if preamble else {},
                          step_seconds=step_seconds)


def _clause_of(entry: System, method: str) -> str:
    """The first clause whose title names ``method`` (``cancel`` -> W4), else the first."""
    named = re.compile(rf"\b{re.escape(method)}\b")
    for clause in entry.clauses:
        if named.search(clause.title):
            return clause.id
    return entry.clauses[0].id


def _program(outcome: Outcome) -> list[Op] | None:
    """The atomic program of the example under way (None if a part of it did not arrive)."""
    ops: dict[int, Op] = {}
    for message in outcome.example:
        if message[0] == "op":
            ops[message[1]] = message[2]
        elif message[0] == "made" and message[1] in ops:
            ops[message[1]].made = tuple(message[2])
        elif message[0] == "lost":
            return None
    if not ops or sorted(ops) != list(range(len(ops))):
        return None
    return [ops[i] for i in range(len(ops))]


def step_under_way(outcome: Outcome) -> tuple[str, str] | None:
    """The atomic step (name, description) under way when the child misbehaved: the last
    one its example recorded (None if there is none, or a part did not arrive)."""
    program = _program(outcome)
    if not program:
        return None
    return program[-1].name, program[-1].describe()


def _same(a: Outcome, b: Outcome) -> bool:
    return a.kind == b.kind and a.method == b.method and (
        a.kind not in ("signal", "exited") or a.code == b.code)


def reduced(entry: System, factory: Callable[..., Any], outcome: Outcome, seconds: float,
             memory_mib: int, options: dict[str, Any], hard: float | None,
             say: Callable[[str], None] | None = None) -> Counterexample:
    """The misbehaving example reduced by delta debugging, each candidate program run in a
    fresh supervised child; the unreduced counterexample when it has no program or no
    candidate misbehaves the same way."""
    from schedcheck.harness.delta import reduce_ops

    found = misbehaviour_counterexample(entry, outcome, seconds, memory_mib)
    program = _program(outcome)
    if not program or not options.get("shrink", True):
        return found
    ends = time.monotonic() + REDUCE_SECONDS
    if hard is not None:  # never more than a third of what is left before the deadline
        ends = min(ends, time.monotonic() + (hard - time.monotonic()) / 3)
    if say is not None:
        say(f"{found.clause}: {outcome.method or 'a call'}() "
            f"{outcome.describe(seconds, memory_mib)}; reducing the example (at most "
            f"{max(0.0, ends - time.monotonic()):.0f} s, each candidate in a fresh process)")
    from schedcheck.harness.minimize import _in_test_context, replay

    best: list[Outcome] = []
    runs = [0]
    machine_options = {"tolerance": True} if options.get("tolerance") else {}

    def fails(ops: list[Op]) -> bool:
        if time.monotonic() > ends:
            return False
        runs[0] += 1

        def candidate() -> Counterexample | None:
            # built in the child: making a machine probes what the target can do, and that
            # runs target code, which must never run in the checker's own process
            machine = entry.make_machine(factory, result=RunResult.fresh(entry.name, ""),
                                         **machine_options)
            cx: Counterexample | None = _in_test_context(lambda: replay(machine, ops))[0]
            return cx

        got = run_supervised(candidate, step_seconds=seconds, deadline=lambda: ends,
                             memory_mib=memory_mib)
        if _same(got, outcome):
            best[:] = [got]
            return True
        # a smaller program that breaks the same clause without misbehaving (a hang that
        # came from a long distance, whose numbers moved towards 0) is a smaller
        # counterexample of that clause; never the first run, which must misbehave again
        if (best and got.kind == "returned" and isinstance(got.value, Counterexample)
                and got.value.clause == found.clause):
            best[:] = [got]
            return True
        return False

    if not fails(program):
        return found
    reduce_ops(program, fails)
    last = best[0]
    reduced = (last.value if last.kind == "returned" else
               misbehaviour_counterexample(entry, last, seconds, memory_mib))
    reduced.unreduced = found
    stopped = "; stopped at its time limit" if time.monotonic() > ends else ""
    reduced.message += (f" (reduced from {len(found.steps)} to {len(reduced.steps)} steps by "
                        f"{runs[0]} runs, each in a fresh process{stopped})")
    return reduced
