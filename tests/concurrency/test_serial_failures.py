"""A round that fails with no interleaving -- its threads one after another, in some order --
shows a sequential mistake, not a race: the rounds never report it as a linearizability
counterexample (the sequential rules report it under its own clause). A real race, which
needs a preemption, is still one."""

from __future__ import annotations

from typing import Any

from schedcheck import pipeline
from schedcheck.concurrency.cases import fails_serially
from schedcheck.zoo import race_mutants as rm
from tests.concurrency.test_reduce import _failing
from tests.harness.test_set_aside_queries import KeepsCancelledTimers


class CancelledStillFire(KeepsCancelledTimers):
    """cancel() says True, and the timer fires all the same (the mark is never read)."""

    def advance(self, now: int) -> list[Any]:
        for bucket in self.buckets:
            for timer in bucket:
                timer.cancelled = False
        return super().advance(now)


def test_a_sequential_mistake_is_no_race() -> None:
    for seed in (1, 2):
        result = pipeline.run_rounds("wheel", CancelledStillFire, examples=150, seed=seed,
                                     set_aside=frozenset({"W-INV-ONCE", "W-INV-PENDING",
                                                          "W4", "W-MEM"}))
        cx = result.counterexample
        assert cx is None or cx.clause != "W-LIN", (seed, cx and cx.message)


def test_a_race_needs_an_interleaving_and_is_still_found() -> None:
    case, _outcome = _failing()
    assert not fails_serially(rm.UnlockedDecrementScheduler, case)
    found = pipeline.run_rounds("scheduler", rm.UnlockedDecrementScheduler, examples=100,
                                seed=0)
    assert found.counterexample is not None and found.counterexample.clause == "S-LIN"


def test_calls_one_at_a_time_in_the_failing_order_count_as_sequential() -> None:
    """cancel h0 | schedule | cancel h0 again: a stale handle that needs the second lane's call
    between the first lane's two -- no lane order reaches it, one call at a time in the order
    the failing run made them does."""
    from types import SimpleNamespace

    from schedcheck.concurrency.cases import invocation_order, sequential_runs

    threads = [[("cancel", "h0"), ("cancel", "h0")], [("schedule", 0)]]
    names = ["t0", "t1"]
    ran = SimpleNamespace(history=SimpleNamespace(operations=[
        SimpleNamespace(lane="t0", invoked=1), SimpleNamespace(lane="t1", invoked=3),
        SimpleNamespace(lane="t0", invoked=5)]))
    merged = [("cancel", "h0"), ("schedule", 0), ("cancel", "h0")]
    assert invocation_order(threads, names, ran) == merged  # type: ignore[arg-type]
    runs = list(sequential_runs(threads, names, ran))  # type: ignore[arg-type]
    assert ([merged], ["serial"]) in runs and len(runs) == 3  # two lane orders, then this
    # a lane's own references ("mine", "claimed") cannot be merged into one lane
    own = [[("cancel", ("mine", 0))], [("schedule", 0)]]
    assert invocation_order(own, names, ran) is None  # type: ignore[arg-type]
