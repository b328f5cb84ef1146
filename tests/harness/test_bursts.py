"""Bursts: the suites reach what real code breaks on -- many timers due at one instant, a
wide fan-out and fan-in submitted in one step -- which no element-by-element program of a
few steps reaches. Fixed seeds, counted examples; a hang is cut by a short step limit."""

from __future__ import annotations

import threading
from typing import Any

from schedcheck.impl import HashedTimingWheel
from schedcheck.model import Scheduler

from schedcheck import profiles
from schedcheck.harness import guard
from schedcheck.harness.scheduler.core import run_core_suite
from schedcheck.harness.wheel.suite import run_wheel_suite


class DeadlocksOnABurst(HashedTimingWheel):
    """Takes its own (non-reentrant) lock a second time when more than 100 timers are due at
    one instant, as a virtual-time scheduler did: a deadlock (here one that gives up after
    5 s, so that no thread outlives the test). It counts the
    wheel's own pending timers (keeping a list of every handle would break W-MEM first)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.lock = threading.Lock()

    def advance(self, now: int) -> Any:
        with self._lock:
            live = self._linked()
        if max((sum(1 for h in live if h.deadline == d) for d in {h.deadline for h in live
                                                                    if h.deadline <= now}),
               default=0) > 100:
            with self.lock:  # waits on itself: 5 s, far past the test's 0.2 s step limit (a
                # wait without end would outlive the test on its abandoned thread)
                if self.lock.acquire(timeout=5.0):
                    self.lock.release()
        return super().advance(now)


def test_a_wheel_that_deadlocks_on_a_burst_gets_a_hang_verdict() -> None:
    # a burst is drawn one time in 32: the seed is one whose search reaches a burst and an
    # advance past it, the same in every process (the ci profile's steps, draws from the seed
    # alone)
    with guard.step_limit(0.2), profiles.seed_only_draws():
        result = run_wheel_suite(DeadlocksOnABurst, examples=EXAMPLES, seed=3, shrink=False,
                                 profile="ci")
    cx = result.counterexample
    assert cx is not None and "Hang[no reply within 0.2 s]" in cx.message, result.notes
    assert any("hung" in note for note in result.notes)


class LosesPastAHundred(Scheduler):
    """Keeps at most 100 ready tasks (a fixed buffer): the rest of a wide fan-out are lost."""

    def ready(self, limit: int | None = None) -> Any:
        if sum(1 for t in self.task_ids() if self.info(t).state.name == "READY") > 100:
            return []
        return super().ready(limit)


def test_a_scheduler_that_loses_a_wide_fan_out_is_caught() -> None:
    # a wide fan-out needs a drawn graph wide enough: seed 8 is one whose search draws one
    # (seeds 8, 9 and 11 of 0-11 do, with the core level's draws of this release: the wide
    # graphs' draw is shared with the deep chains)
    with profiles.seed_only_draws():  # the ci profile's steps, draws from the seed alone
        result = run_core_suite(LosesPastAHundred, examples=EXAMPLES, seed=8, shrink=False,
                                profile="ci")
    assert result.counterexample is not None and result.counterexample.clause == "S4"
    assert "lost" in result.counterexample.message


EXAMPLES = 100
