"""The counted cost measure of the *-COST clauses: deterministic, and blind to the harness."""

from __future__ import annotations

import gc

from schedcheck.harness.opcount import StepCounter
from schedcheck.harness.scheduler.oracles import check_scheduler_scaling, layered_deps


def _loop(n: int) -> int:
    total = 0
    for i in range(n):
        total += i
    return total


def test_a_python_loop_costs_steps_in_proportion_to_its_length() -> None:
    counts = []
    for n in (100, 200, 400):
        with StepCounter() as counter:
            _loop(n)
        counts.append(counter.steps)
    assert counts[1] - counts[0] == counts[2] - counts[1] - (counts[1] - counts[0])
    assert 2 * 100 <= counts[1] - counts[0] <= 3 * 100 + 5


def test_the_same_calls_cost_nearly_the_same_steps_every_time() -> None:
    # not exactly: the bundled scheduler reads its clock and keys some sets by object, so a
    # few steps in 100,000 differ between runs -- three orders of magnitude below the margin
    # between a linear target (ratio ~1) and the threshold (3)
    from schedcheck.impl import Scheduler

    first = check_scheduler_scaling(Scheduler)
    second = check_scheduler_scaling(Scheduler)
    assert abs(first.steps_large - second.steps_large) <= first.steps_large / 1000

    def counted(r: object) -> float:  # the counted ratio (``ratio`` may be the timed one)
        return (r.steps_large / r.factor) / r.steps_small  # type: ignore[attr-defined]

    assert abs(counted(first) - counted(second)) <= 0.01
    assert counted(first) < 1.5


def test_code_of_the_harness_is_not_counted() -> None:
    with StepCounter() as counter:
        layered_deps(500)  # schedcheck/harness: the workload's own driver
    assert counter.steps == 0


class _Finalized:
    """Garbage of earlier code: a cycle whose finalizer is Python code."""

    def __init__(self) -> None:
        self.me = self

    def __del__(self) -> None:
        self.me = None


def test_a_garbage_collector_callback_is_not_counted_and_stays_registered() -> None:
    heard: list[str] = []

    def timing(phase: str, info: dict[str, int]) -> None:  # like Hypothesis's gc timer
        heard.append(phase)

    gc.callbacks.append(timing)
    try:
        for _ in range(50):
            _Finalized()  # left for the collector
        with StepCounter() as counter:
            gc.collect()  # a collection lands inside the block
        assert counter.steps == 0 and heard == []
        assert gc.isenabled()
        assert timing in gc.callbacks
        gc.collect()
        assert heard == ["start", "stop"]
    finally:
        gc.callbacks.remove(timing)


def test_the_counter_reports_when_it_is_over_its_limit() -> None:
    with StepCounter(limit=50) as counter:
        _loop(10)
        under = counter.over
        _loop(100)
    assert not under and counter.over
