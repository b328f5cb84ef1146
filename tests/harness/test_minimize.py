"""The delta-debugging pass over a failing run's atomic program (``harness/minimize.py``).

The program below is where step removal alone gets stuck on a scheduler whose resubmit keeps
the old version's reverse edges (the zoo's ``sched-stale-edges-on-resubmit``): 12 steps that
break rule 7, of which no step and no task can go on its own. Dropping the dependency of the
resubmit ``b(c)`` alone does not fail (the second ``ready()`` then claims ``b``), nor does
removing task ``c`` alone (``b(c)`` goes with it); the two together do, in 8 steps.
"""

from __future__ import annotations

from typing import Any

from schedcheck.harness import minimize
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


def test_the_reduction_of_a_hang_stops_after_a_few_replays_that_hang(monkeypatch: Any) -> None:
    """Each replay that reproduces a hang waits out the whole step limit, so the reduction
    counts them and stops at ``MAX_HUNG_REPLAYS``, saying so, with the shortest program it
    reached (here a wheel whose cancel never returns, a step limit of 50 ms, a bound of 2)."""
    from schedcheck.impl import HashedTimingWheel

    from schedcheck.harness import guard
    from schedcheck.harness.wheel.suite import run_wheel_suite

    class CancelNeverReturns(HashedTimingWheel):
        def cancel(self, handle: Any) -> bool:
            while True:
                pass

    def hangs(**options: Any) -> tuple[int, Any]:
        before = guard.timeouts()
        with guard.step_limit(0.05):
            result = run_wheel_suite(CancelNeverReturns, seed=3, profile="ci", budget=5,
                                     **options)
        return guard.timeouts() - before, result

    in_search, _ = hangs(shrink=False)  # the search's own, without a reduction
    monkeypatch.setattr(minimize, "MAX_HUNG_REPLAYS", 2)
    total, result = hangs()
    cx = result.counterexample
    assert cx is not None and "Hang[no reply within 0.05 s]" in cx.message, result.notes
    assert any("stopped after 2 replays that hung" in note for note in result.notes), (
        result.notes)
    assert total - in_search == 2


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
    from schedcheck.harness import guard

    machine = get("wheel").make_machine(_WalkingWheel)
    bool_now = Op("_advance", (True,), {"words": "advance with a bool now"})
    start = -2**40
    legal = [Op("_advance", (start + 10 * i,), {"words": "advance"}) for i in (1, 2, 3, 4)]
    far = [Op("_build", (10, 5, {"start": start}), {}), *legal, bool_now]
    with guard.step_limit(0.2), guard.guarded():
        cx, _ = minimize._in_test_context(lambda: minimize.replay(machine, far))
        assert cx is not None and cx.clause == "W6" and "Hang" in cx.message  # it hangs
        before = guard.timeouts()
        reduced = minimize.minimize(machine, far, cx)
        hung = guard.timeouts() - before
    assert reduced is not None
    # the times moved towards 0 first: the advance no longer hangs, and W6 still breaks
    assert "start" not in reduced.counterexample.setup, reduced.counterexample.setup
    assert "Hang" not in reduced.counterexample.message
    assert len(reduced.counterexample.steps) == 1
    assert hung == 1, hung  # the first replay alone (each hang waits out the step limit)


def test_numbers_that_cannot_move_alone_go_down_together() -> None:
    """Three delays whose failure needs their order and closeness (as three timers that must
    share a bucket): each number alone can only creep down by one; halved together they drop
    fast, then the one-at-a-time pass finishes."""
    tried: list[int] = []

    def delays(ops: list[Op]) -> list[int]:
        return [op.args[0] for op in ops if op.name == "_schedule"]

    def fails(ops: list[Op]) -> bool:
        tried.append(1)
        a, b, c = delays(ops) if len(delays(ops)) == 3 else (0, 0, 0)
        return 1 <= a < b < c <= a + 20

    program = [Op("_build", (1, 56, {}), {}),
               *(Op("_schedule", (d, False), {"after": True, "words": f"a timer in {d}"})
                 for d in (595, 603, 615))]
    reduced = minimize.reduce_ops(program, fails)
    assert fails(reduced)
    assert max(delays(reduced)) <= 16, delays(reduced)
    assert reduced[0].args[1] < 56  # the wheel's size went down with them
    assert reduced[1].kwargs["words"] == f"a timer in {delays(reduced)[0]}"
    assert len(tried) < 300, len(tried)  # one at a time alone: one replay per step down
