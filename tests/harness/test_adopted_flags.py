"""Keep going adopts the target's state after a set-aside divergence; a flag the contract
keeps past its generation's run (``cancel_requested`` of a RUNNING task that then ended) is
adopted as the target reports it, never reset -- else a later, correct ``cancel_requested()``
reads as a broken S6 on a target whose cancel is right."""

from __future__ import annotations

from typing import Any

from schedcheck.impl import Scheduler

from schedcheck.harness import minimize
from schedcheck.harness.program import Op
from schedcheck.harness.result import RunResult
from schedcheck.systems import get


class OlderCallbackApplied(Scheduler):
    """A late ``complete()``/``fail()`` quoting an older generation is applied to the current
    one instead of being STALE (one mistake, of S4 and S5; cancel is untouched)."""

    def _current(self, task_id: Any, generation: Any) -> Any:
        try:
            now = self.info(task_id).generation
        except Exception:
            return generation
        if isinstance(generation, int) and not isinstance(generation, bool) and (
                1 <= generation < now):
            return now
        return generation

    def complete(self, task_id: Any, generation: Any) -> Any:
        return super().complete(task_id, self._current(task_id, generation))

    def fail(self, task_id: Any, generation: Any, error: Any = None) -> Any:
        return super().fail(task_id, self._current(task_id, generation), error)


def _report(kind: str, tid: str, gen: Any) -> Op:
    return Op("_callback", (kind, tid, gen),
              {"thread": "w1", "error": None, "late": False,
               "words": f"worker 1: {kind} {tid!r} generation {gen}"})


def _submit(tid: str) -> Op:
    return Op("_submit", (tid, (), None), {})


# 'b' is cancelled while RUNNING (requested), then its fail() ends it CANCELLED: its flag
# stays true. A late fail() of 'a' g1 after a resubmit is applied to g2 -- the set-aside
# mistake -- and the run goes on from the target's state; then b's flag is asked.
PROGRAM = [Op("_build", (2,), {}), _submit("a"), Op("start", (), {}),
           Op("_ready", ("w1", None), {}), _report("complete", "a", 1), _submit("b"),
           Op("_ready", ("w1", 1), {}), _report("cancel", "b", 1), _submit("a"),
           _report("fail", "b", 1), _report("fail", "a", 1),
           _report("cancel_requested", "b", 1)]


def test_a_cancel_request_that_outlived_its_run_is_adopted_as_the_target_says() -> None:
    machine = get("scheduler").make_machine(
        OlderCallbackApplied, result=RunResult.fresh("scheduler", "OlderCallbackApplied"))
    first, _ = minimize._in_test_context(lambda: minimize.replay(machine, PROGRAM))
    assert first is not None and first.clause == "S5", first and first.message  # the mistake
    machine.set_aside = frozenset({"S5"})  # keep going, as the next round does
    cx, replayed = minimize._in_test_context(lambda: minimize.replay(machine, PROGRAM))
    assert len(replayed) == len(PROGRAM)  # the run went on past the set-aside step
    assert cx is None, (cx.clause, cx.message)
