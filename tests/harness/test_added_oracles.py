"""The oracles that had no check of their own, each against its zoo mutant and the bundled code.

Each test drives the one check directly (a machine step, a measurement, one short fixed-seed
run), so that together they cost a few seconds: the zoo tests (tests/zoo) show the same
mutants killed by the whole suite and the search.
"""

from __future__ import annotations

from typing import Any

import pytest
from schedcheck.impl import HashedTimingWheel, HierarchicalTimingWheel, Scheduler
from schedcheck.model import TimingWheel

from schedcheck import systems
from schedcheck.harness.clauses import S4, S6, S_INV, W2, W4, W_INV_ONCE
from schedcheck.harness.result import BROKEN, HELD
from schedcheck.harness.scheduler.checks import SchedulerChecks
from schedcheck.harness.scheduler.core import make_core_machine
from schedcheck.harness.scheduler.fixtures import probe_support
from schedcheck.harness.scheduler.suite import run_scheduler_suite
from schedcheck.harness.wheel.checks import WheelChecks
from schedcheck.harness.wheel.cost import TICK, _stalls, deadline_of
from schedcheck.harness.wheel.memory import entries_held, entry_bound, exempt
from schedcheck.harness.wheel.suite import run_wheel_suite
from schedcheck.levels import grade
from schedcheck.zoo import scheduler_mutants as sm
from schedcheck.zoo import wheel_mutants as wm
from tests.harness.wheel_targets import SeedWheel

CYCLE = {"a": ("c",), "b": ("a",), "c": ("b",)}  # [a, b, c, a]: each a dependency of the next


def _noop() -> None:
    return None


# ---- the core level's cycle path -------------------------------------------------------------


def test_the_core_level_checks_the_orientation_of_the_reported_cycle() -> None:
    machine: Any = make_core_machine(sm.ReversedCycleScheduler)()
    with pytest.raises(AssertionError, match=r"S-ORACLE-CYCLE.*claims 'a' is a dependency of 'c'"):
        machine.build(mc=1, graph=dict(CYCLE))


def test_the_core_level_accepts_the_bundled_schedulers_cycle() -> None:
    machine: Any = make_core_machine(Scheduler)()
    machine.build(mc=1, graph=dict(CYCLE))
    assert machine.result.stats["S-ORACLE-CYCLE"].exercised == 1
    assert not machine.result.stats["S-ORACLE-CYCLE"].broken


# ---- the batch paths ------------------------------------------------------------------------


def test_the_batch_forms_of_the_bundled_scheduler_are_probed_and_hold() -> None:
    assert probe_support(Scheduler).batch == {"ready_pairs", "complete_many"}
    result = run_scheduler_suite(Scheduler, examples=40, seed=0, shrink=False)
    assert result.counterexample is None


def test_a_broken_complete_many_is_caught() -> None:
    result = run_scheduler_suite(sm.BrokenCompleteManyScheduler, examples=40, seed=0,
                                 shrink=False)
    assert result.counterexample is not None
    assert "complete_many" in result.counterexample.message


# ---- the wheel's memory bound ---------------------------------------------------------------


@pytest.mark.parametrize("cls", [HashedTimingWheel, HierarchicalTimingWheel])
def test_the_bundled_wheels_keep_no_more_entries_than_the_bound(cls: Any) -> None:
    wheel = cls(1, 8)
    handles = [wheel.schedule(1000 + i, _noop) for i in range(10)]
    for handle in handles:
        wheel.cancel(handle)
    held = entries_held(wheel, handles)
    assert held is not None and held <= entry_bound(0)
    live = [wheel.schedule(5, _noop) for _ in range(3)]
    wheel.advance(3)
    assert entries_held(wheel, handles + live) == 3  # the pending ones, found


def test_a_wheel_that_never_compacts_is_over_the_bound() -> None:
    wheel = wm.ShellsNeverCompactedWheel(1, 8)
    handles = [wheel.schedule(1000 + i, _noop) for i in range(10)]
    wheel.advance(1)
    for handle in handles:
        wheel.cancel(handle)
    held = entries_held(wheel, handles)
    assert held == 10 and held > entry_bound(wheel.pending())


def test_the_seeds_plan_keeps_its_cancelled_handles_over_the_bound() -> None:
    wheel = SeedWheel(1, 8)
    handles = [wheel.schedule(1000 + i, _noop) for i in range(5)]
    for handle in handles:
        wheel.cancel(handle)
    assert entries_held(wheel, handles) == 5 > entry_bound(0)


def test_the_model_declares_that_it_keeps_every_timer() -> None:
    assert exempt(TimingWheel) and not exempt(HashedTimingWheel)


# ---- a long stall's cost --------------------------------------------------------------------


def _parked(cls: Any) -> Any:
    wheel = cls(TICK, 64)
    for _ in range(50):
        wheel.schedule(deadline_of(64 * 10**6 + 63), _noop)
    wheel.advance(63 * TICK)
    return wheel


def test_a_stall_costs_the_bundled_wheels_no_step_per_tick() -> None:
    for cls in (HashedTimingWheel, HierarchicalTimingWheel):
        short, long = _stalls(_parked(cls), 63, 8)
        assert long <= 1.5 * short, (cls.__name__, short, long)


def test_a_stall_walked_tick_by_tick_costs_a_step_per_tick() -> None:
    short, long = _stalls(_parked(wm.StallTickByTickWheel), 63, 8)
    assert long >= 6 * short


# ---- keep going past a set-aside clause -----------------------------------------------------


def test_past_a_set_aside_divergence_the_run_follows_the_target(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The second cancel of a RUNNING task answers REQUESTED again: with S6 set aside, the
    examples go on from the target's state (nothing else is broken) instead of ending."""
    adopted: list[bool] = []
    adopt = SchedulerChecks._adopt_target

    def counted(self: SchedulerChecks) -> bool:
        adopted.append(adopt(self))
        return adopted[-1]

    monkeypatch.setattr(SchedulerChecks, "_adopt_target", counted)
    result = run_scheduler_suite(sm.CancelRunningTwiceScheduler, examples=60, seed=0,
                                 shrink=False, set_aside=frozenset({S6}))
    assert result.counterexample is None
    assert result.stats[S4].verdict == HELD
    assert adopted and all(adopted)  # each divergence of S6 was followed, none ended a run


def test_keep_going_finds_both_mistakes_of_a_two_bug_scheduler() -> None:
    two = type("TwoBugs", (sm.CancelRunningTwiceScheduler,
                           sm.PendingOnDeadDependencyScheduler), {})
    result = grade(systems.get("scheduler"), two, level="contract", examples=60, seed=0,
                   shrink=False)
    broken = {cid for cid, stat in result.stats.items() if stat.verdict == BROKEN}
    assert broken == {S6, S_INV}


def test_past_a_wrong_query_answer_the_wheel_run_goes_on(monkeypatch: pytest.MonkeyPatch) -> None:
    """A handle that reads fired and cancelled at once is a wrong answer to a read-only query:
    with its clauses set aside, the contract-level run goes on (neither side changed)."""
    answers: list[bool] = []
    decide = WheelChecks.can_continue

    def counted(self: WheelChecks, clause: str) -> bool:
        answers.append(decide(self, clause))
        return answers[-1]

    monkeypatch.setattr(WheelChecks, "can_continue", counted)
    result = run_wheel_suite(wm.FiredMarkedCancelledWheel, examples=40, seed=0, shrink=False,
                             set_aside=frozenset({W4, W_INV_ONCE}))
    assert result.counterexample is None
    assert answers and all(answers)
    assert result.stats[W2].verdict == HELD
