"""Each catalogued scheduler mutant really is wrong: a tiny hand-written scenario on which it
and the production scheduler answer differently (the suite's job is to find such scenarios on
its own: tests/zoo/test_scheduler_zoo.py)."""

from __future__ import annotations

from typing import Any

import pytest

from schedcheck import impl
from schedcheck.contract import CycleError, Outcome, TaskState
from schedcheck.zoo import scheduler_mutants as zm
from schedcheck.zoo.catalogue import all_mutants

P, R, RUN = TaskState.PENDING, TaskState.READY, TaskState.RUNNING
OK, FAIL, BLK, CAN = (
    TaskState.SUCCEEDED, TaskState.FAILED, TaskState.BLOCKED, TaskState.CANCELLED,
)


def both(cls: type) -> tuple[Any, Any]:
    return impl.Scheduler(2), cls(2)


def test_every_scheduler_mutant_is_registered_with_a_stated_mistake() -> None:
    ours = {m.name: m for m in all_mutants() if m.factory.__module__ == zm.__name__}
    assert len(ours) == len(zm.__all__) == 18
    assert {m.factory.__name__ for m in ours.values()} == set(zm.__all__)
    for m in ours.values():
        assert m.system == "scheduler" and len(m.mistake) > 40
    assert sum(m.source.startswith("seed 000") for m in ours.values()) == 10


def test_no_generation_check_applies_a_late_callback_to_the_new_generation() -> None:
    good, bad = both(zm.NoGenerationCheckScheduler)
    for s in (good, bad):
        s.submit("a")
        s.start()
        s.ready()
        s.fail("a", 1)
        s.submit("a")
        s.ready()
    assert good.complete("a", 1).outcome is Outcome.STALE
    assert bad.complete("a", 1).outcome is Outcome.APPLIED  # generation 2 SUCCEEDED by g1
    assert bad.info("a").state is OK and good.info("a").state is RUN


def test_failure_as_success_releases_the_dependents() -> None:
    good, bad = both(zm.FailureAsSuccessScheduler)
    for s in (good, bad):
        s.submit("a")
        s.submit("b", ["a"])
        s.start()
        s.ready()
        assert s.fail("a", 1).state is FAIL
    assert good.info("b").state is BLK
    assert bad.info("b").state is R


def test_boolean_cycle_gives_no_path() -> None:
    good, bad = both(zm.BooleanCycleScheduler)
    for s in (good, bad):
        s.submit("a", ["b"])
        s.submit("b", ["a"])
    with pytest.raises(CycleError) as g:
        good.start()
    with pytest.raises(CycleError) as b:
        bad.start()
    assert len(g.value.cycle) == 3 and b.value.cycle == []


def test_double_release_lets_a_join_run_after_one_of_its_two_deps() -> None:
    good, bad = both(zm.DoubleReleaseScheduler)
    for s in (good, bad):
        s.submit("a")
        s.submit("z")
        s.submit("j", ["a", "z"])
        s.start()
        s.ready(limit=1)
        s.complete("a", 1)
        assert s.complete("a", 1).outcome is Outcome.DUPLICATE
    assert good.info("j").state is P
    assert bad.info("j").state is R


def test_stale_edges_let_the_old_dependency_release_the_new_version() -> None:
    good, bad = both(zm.StaleEdgesScheduler)
    for s in (good, bad):
        s.submit("a")
        s.submit("x")
        s.submit("b", ["a"])
        s.start()
        s.submit("b", ["x"])
        s.ready(limit=1)  # a
        s.complete("a", 1)
    assert good.info("b").state is P
    assert bad.info("b").state is R


def test_ready_over_free_slots_runs_more_than_max_concurrency() -> None:
    good, bad = both(zm.ReadyOverFreeSlotsScheduler)
    for s in (good, bad):
        for t in "abcd":
            s.submit(t)
        s.start()
        assert len(s.ready()) == 2
    assert len(good.ready()) == 0
    assert len(bad.ready()) == 2


def test_limit_skips_max_concurrency_claims_what_the_caller_asks() -> None:
    good, bad = both(zm.LimitSkipsMaxConcurrencyScheduler)
    for s in (good, bad):
        for t in "abcd":
            s.submit(t)
        s.start()
    assert len(good.ready(limit=3)) == 2
    assert len(bad.ready(limit=3)) == 3


def test_blocked_cause_overwritten_names_the_last_failure() -> None:
    good, bad = both(zm.BlockedCauseOverwrittenScheduler)
    for s in (good, bad):
        s.submit("a")
        s.submit("b")
        s.submit("c", ["a", "b"])
        s.start()
        s.ready()
        s.fail("a", 1)
        s.fail("b", 1)
    assert good.info("c").cause.task_id == "a"
    assert bad.info("c").cause.task_id == "b"


def test_forced_cancel_ends_a_running_task_at_once() -> None:
    good, bad = both(zm.ForcedCancelScheduler)
    for s in (good, bad):
        s.submit("a")
        s.start()
        s.ready()
    assert good.cancel("a").outcome is Outcome.REQUESTED
    assert bad.cancel("a").outcome is Outcome.APPLIED
    assert good.complete("a", 1).state is OK
    assert bad.complete("a", 1).outcome is Outcome.REJECTED


def test_one_shot_sort_leaves_the_dependents_of_a_failure_pending_for_ever() -> None:
    good, bad = both(zm.OneShotSortScheduler)
    for s in (good, bad):
        s.submit("a")
        s.submit("b", ["a"])
        s.submit("c")
        s.submit("d", ["c"])
        s.start()
        s.ready()
        assert s.fail("a", 1).state is FAIL
        assert s.cancel("c").outcome is Outcome.REQUESTED
        assert s.fail("c", 1).state is CAN
    assert good.info("b").state is BLK and good.info("d").state is BLK
    assert bad.info("b").state is P and bad.info("d").state is P  # nothing will release them
    assert bad.ready() == []


def test_retry_reusing_failed_keeps_the_generation_so_the_old_run_still_counts() -> None:
    good, bad = both(zm.RetryReusesFailedScheduler)
    for s in (good, bad):
        s.submit("a")
        s.start()
        s.ready()
        s.fail("a", 1)
    assert good.submit("a") == 2
    assert bad.submit("a") == 1  # FAILED moved back to READY under generation 1
    for s in (good, bad):
        s.ready()
    assert good.fail("a", 1).outcome is Outcome.STALE  # the failed run's late report
    assert bad.fail("a", 1).outcome is Outcome.APPLIED  # ... ends the retry
    assert bad.retry("a") == {"a": 1} and good.info("a").state is RUN


def test_close_drops_pending_tasks_without_a_cause() -> None:
    good, bad = both(zm.CloseDropsPendingScheduler)
    for s in (good, bad):
        s.submit("a")
        s.submit("b", ["a"])
    assert good.close() == ["a", "b"]
    assert bad.close() == []
    assert good.info("b").state is CAN and bad.info("b").state is P


def test_rescan_all_gives_the_same_answers_but_touches_every_task() -> None:
    good, bad = both(zm.RescanAllScheduler)
    for s in (good, bad):
        s.submit("a")
        s.submit("b", ["a"])
        s.submit("c", ["a", "b"])
        s.start()
        s.ready()
        s.complete("a", 1)
        s.ready()
        s.complete("b", 1)
    assert good.snapshot() == bad.snapshot()
    # the cost difference is the scaling clause's to measure (S-COST); here only the count of
    # records visited: a completion in a chain of n visits all n records in the mutant
    visits = 0

    class Counting(list):  # type: ignore[type-arg]
        def __iter__(self) -> Any:
            nonlocal visits
            visits += len(self)
            return super().__iter__()

    m = zm.RescanAllScheduler(1)
    for i in range(50):
        m.submit(i, [i - 1] if i else [])
    m.start()
    m._order = Counting(m._order)
    while claims := m.ready():
        m.complete(claims[0].task_id, claims[0].generation)
    assert visits == 50 * 50


def test_reversed_cycle_names_each_element_a_dependent_of_the_next() -> None:
    good, bad = both(zm.ReversedCycleScheduler)
    cycles = []
    for s in (good, bad):
        s.submit("a", ["c"])
        s.submit("b", ["a"])
        s.submit("c", ["b"])
        with pytest.raises(CycleError) as caught:
            s.start()
        cycles.append(list(caught.value.cycle))
    assert cycles[1] == cycles[0][::-1]  # [a, c, b, a]: 'a' is no dependency of 'c'
    assert cycles[0] in (["a", "b", "c", "a"], ["b", "c", "a", "b"], ["c", "a", "b", "c"])


def _running_dependent(s: Any) -> None:
    """a SUCCEEDED, j (needs a) RUNNING, b (needs j) PENDING; then a resubmitted and cancelled."""
    s.submit("a")
    s.submit("j", ["a"])
    s.submit("b", ["j"])
    s.start()
    s.ready()
    s.complete("a", 1)
    s.ready()
    s.submit("a")
    s.cancel("a")


def test_blocking_through_a_running_task_blocks_what_depends_on_it() -> None:
    good, bad = both(zm.BlocksThroughRunningScheduler)
    for s in (good, bad):
        _running_dependent(s)
        assert s.info("j").state is RUN
    assert good.info("b").state is P
    assert bad.info("b").state is BLK


def test_a_second_cancel_of_a_running_task_is_requested_again() -> None:
    good, bad = both(zm.CancelRunningTwiceScheduler)
    for s in (good, bad):
        s.submit("a")
        s.start()
        s.ready()
        assert s.cancel("a").outcome is Outcome.REQUESTED
    assert good.cancel("a").outcome is Outcome.DUPLICATE
    assert bad.cancel("a").outcome is Outcome.REQUESTED


def test_a_new_generation_on_a_dead_dependency_stays_pending() -> None:
    good, bad = both(zm.PendingOnDeadDependencyScheduler)
    for s in (good, bad):
        s.submit("a")
        s.start()
        s.ready()
        s.fail("a", 1)
        s.submit("b", ["a"])
    assert good.info("b").state is BLK
    assert bad.info("b").state is P


def test_a_broken_complete_many_raises_where_complete_applies() -> None:
    good, bad = both(zm.BrokenCompleteManyScheduler)
    for s in (good, bad):
        s.submit("a")
        s.start()
    claims = [(c.task_id, c.generation) for c in good.ready()]
    assert [r.outcome for r in good.complete_many(claims)] == [Outcome.APPLIED]
    bad.ready()
    with pytest.raises(NameError):
        bad.complete_many(claims)
