"""The delta-debugging pass over a failing run's atomic program (``harness/minimize.py``).

The program below is where step removal alone gets stuck on a scheduler whose resubmit keeps
the old version's reverse edges (the zoo's ``sched-stale-edges-on-resubmit``): 12 steps that
break rule 7, of which no step and no task can go on its own. Dropping the dependency of the
resubmit ``b(c)`` alone does not fail (the second ``ready()`` then claims ``b``), nor does
removing task ``c`` alone (``b(c)`` goes with it); the two together do, in 8 steps.
"""

from __future__ import annotations

from typing import Any

from schedcheck.harness import delta, minimize
from schedcheck.harness.clauses import S7
from schedcheck.harness.program import Op
from schedcheck.harness.result import RunResult
from schedcheck.systems import get
from schedcheck.zoo.catalogue import all_mutants


def _done(tid: str, gen: int) -> Op:
    return Op("_callback", ("complete", tid, gen),
              {"thread": "w1", "error": None, "late": False,
               "words": f"worker 1: complete {tid!r} generation {gen}"})


def _submit(tid: str, *deps: str) -> Op:
    return Op("_submit", (tid, deps, None), {})


STUCK = [Op("_build", (5,), {}), _submit("a"), _submit("b", "a"), Op("start", (), {}),
         Op("_ready", ("w1", None), {}), _done("a", 1), _submit("c"), _submit("b", "c"),
         _submit("c"), Op("_ready", ("w1", None), {}), _done("c", 2), _submit("a")]


def _machine() -> Any:
    mutant = next(m for m in all_mutants() if m.name == "sched-stale-edges-on-resubmit")
    return get("scheduler").make_machine(mutant.factory,
                                         result=RunResult.fresh("scheduler", mutant.name))


def test_a_ready_step_made_the_claims_it_handed_out() -> None:
    machine = _machine()
    _, played = minimize._in_test_context(lambda: minimize.replay(machine, STUCK))
    readies = [op.made for op in played if op.name == "_ready"]
    assert readies == [("a",), ("c",)]


def test_a_dropped_dependency_goes_with_its_task() -> None:
    machine = _machine()
    cx, _ = minimize._in_test_context(lambda: minimize.replay(machine, STUCK))
    assert cx is not None and cx.clause == S7
    reduced = minimize.minimize(machine, STUCK, cx)
    assert reduced is not None
    assert reduced.counterexample.clause == S7
    codes = [s.code for s in reduced.counterexample.steps]
    assert len(codes) <= 8, codes
    assert not any("'c'" in code for code in codes), codes
    # the reduced program breaks the clause again when replayed on its own
    again, _ = minimize._in_test_context(lambda: minimize.replay(machine, reduced.program))
    assert again is not None and again.clause == S7


def test_the_reduction_of_a_hang_runs_each_candidate_in_a_fresh_process() -> None:
    """A call that hangs stops the supervised child (``schedcheck.supervised``): its example
    is reduced by running each candidate in a fresh child with the step limit, under the
    reduction's own time limit, and the hang is reported once (a wheel whose cancel never
    returns while two timers are pending, a step limit of 0.2 s)."""
    from schedcheck.impl import HashedTimingWheel

    from schedcheck import supervised

    class CancelNeverReturns(HashedTimingWheel):
        def cancel(self, handle: Any) -> bool:
            while self.pending() >= 2:  # (the capability probe cancels its only timer)
                pass
            return bool(super().cancel(handle))

    result = supervised.check("wheel", CancelNeverReturns, step_seconds=0.2, seed=3,
                              profile="ci", budget=3, levels=True, level="contract",
                              cost=False)
    hangs = [cx for cx in result.all_counterexamples()
             if "did not return within 0.2 s" in cx.message]
    assert len(hangs) == 1, result.notes
    assert "each in a fresh process" in hangs[0].message
    assert hangs[0].steps[-1].actual == "raises Hang[did not return within 0.2 s]"
    assert "cancel(" in hangs[0].steps[-1].code


class _WalkingWheel:
    """Accepts a bool ``now`` (a W6 mistake) and walks every tick from its start to ``now``:
    started far below 0, ``advance(True)`` walks for hours -- a hang that only the distance
    makes."""

    def __init__(self, tick: int, wheel_size: int, start: int = 0) -> None:
        self.tick, self.cursor, self.now = tick, start // tick, start

    def schedule(self, deadline: int, callback: Any) -> Any:
        raise NotImplementedError  # the program below schedules nothing

    schedule_after = cancel = schedule

    def advance(self, now: int) -> list[Any]:
        while self.cursor <= now // self.tick:
            self.cursor += 1
        self.now = now
        return []

    def pending(self) -> int:
        return 0


def test_a_hang_that_comes_from_the_distance_is_reduced_near_zero() -> None:
    """A hang found far from 0 (the child stopped at the call) is reduced in fresh children;
    the times move towards 0 until the advance no longer hangs while W6 still breaks: that
    smaller counterexample of the same clause is the one reported."""
    from schedcheck import misbehaviour
    from schedcheck.harness.supervisor import Outcome

    bool_now = Op("_advance", (True,), {"words": "advance with a bool now"})
    start = -2**40
    legal = [Op("_advance", (start + 10 * i,), {"words": "advance"}) for i in (1, 2, 3, 4)]
    far = [Op("_build", (10, 5, {"start": start}), {}), *legal, bool_now]
    hung = Outcome("hung", method="advance", example=[
        ("step", "target = factory(10, 5, start=-1099511627776)", 0, "target.advance(True)",
         "advance with a bool now", None, "W6"),
        *(("op", i, op) for i, op in enumerate(far))])
    cx = misbehaviour.reduced(get("wheel"), _WalkingWheel, hung, 0.2, 256, {}, None)
    assert cx.unreduced is not None, cx.message  # the hang came back, then was reduced
    assert cx.clause == "W6"
    assert "start" not in cx.setup, cx.setup
    assert "Hang" not in cx.message
    assert len(cx.steps) == 1


def test_the_number_passes_leave_a_graph_shape_alone() -> None:
    """A shape's size is bisected (smaller_shapes) and its seed names the graph drawn: the
    passes that make numbers smaller never try another one (each try replays the whole shape:
    a chain of 1,249 tasks was tried at 1,248, 1,247 ... one replay each)."""
    shape = Op(delta.SHAPE_OP, ("deep chain", 1249, 7), {})
    program = [Op("_build", (3,), {}), shape, Op("_ready", ("w1", 40), {})]
    tried: list[list[Op]] = []

    def fails(ops: list[Op]) -> bool:
        tried.append(ops)
        return True

    for number_pass in (delta._simplify, delta._scaled_down, delta._lowered_together):
        number_pass(list(program), fails)
    assert tried, "no pass tried anything: the program has other numbers to move"
    assert all(shape in ops for ops in tried), [ops for ops in tried if shape not in ops][:1]
