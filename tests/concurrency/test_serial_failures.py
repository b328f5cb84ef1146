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
