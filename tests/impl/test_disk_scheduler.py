"""The on-disk scheduler sketch of specs/large-graphs.md: the scheduler suite's core level
holds on it (small graphs, against networkx and the harness's own record), its cycle check
pages through the graph, an expired lease gives a new generation whose old report is STALE,
and a reopened file goes on where the last process stopped."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from schedcheck.impl.scheduler.disk import DiskScheduler

from schedcheck.contract import Cause, CycleError, Outcome, TaskState, UnknownDependencyError
from schedcheck.harness.result import HELD
from schedcheck.harness.scheduler.core import CORE_CLAUSES, run_core_suite
from schedcheck.targets.adapters import SchedulerCapabilities

EXAMPLES = 200  # enough for fail and cancel to be drawn on a claimed task (S5, S6)


class PagedDisk(DiskScheduler):
    """One row per page: every page boundary of the cycle check is crossed."""

    capabilities = SchedulerCapabilities(generations=False, close=False,
                                         validates_args=False)

    def __init__(self, max_concurrency: int) -> None:
        super().__init__(max_concurrency, window=1)


def test_the_core_level_of_the_scheduler_suite_holds() -> None:
    result = run_core_suite(PagedDisk, target_name="DiskScheduler", seed=3, examples=EXAMPLES)
    assert result.counterexample is None, result.counterexample.message
    verdicts = {c: result.stats[c].verdict for c in CORE_CLAUSES}
    assert verdicts == dict.fromkeys(CORE_CLAUSES, HELD)


def test_failure_and_cancel_block_every_descendant_with_the_roots_cause() -> None:
    s = DiskScheduler(1)
    for task, deps in (("a", ()), ("b", ("a",)), ("c", ("b",)), ("x", ()), ("y", ("x",)),
                       ("free", ())):
        s.submit(task, deps)
    s.start()
    (a,) = s.ready()
    assert s.fail("a", a.generation).outcome is Outcome.APPLIED
    assert s.cancel("x").outcome is Outcome.APPLIED
    blocked = {t: s.info(t).cause for t in ("b", "c", "y")}
    assert blocked == {"b": Cause("failed", "a", 1), "c": Cause("failed", "a", 1),
                       "y": Cause("cancelled", "x", 1)}
    assert {s.state_of(t) for t in blocked} == {TaskState.BLOCKED}
    assert [c.task_id for c in s.ready()] == ["free"]  # the unrelated branch goes on


def test_the_cycle_and_unknown_dependency_are_reported_with_their_data() -> None:
    s = DiskScheduler(2, window=1)
    for task, deps in (("a", ()), ("b", ("a", "d")), ("c", ("b",)), ("d", ("c",))):
        s.submit(task, deps)
    with pytest.raises(CycleError) as err:
        s.start()
    cycle = err.value.cycle
    assert cycle[0] == cycle[-1] and sorted(cycle[:-1]) == ["b", "c", "d"]
    deps = {"b": {"a", "d"}, "c": {"b"}, "d": {"c"}}
    assert all(x in deps[y] for x, y in itertools.pairwise(cycle))  # each a dependency of the next
    u = DiskScheduler(1)
    u.submit("x", ["ghost"])
    with pytest.raises(UnknownDependencyError) as unknown:
        u.start()
    assert (unknown.value.task_id, unknown.value.missing) == ("x", ["ghost"])


def test_an_expired_lease_is_a_new_generation_and_the_old_report_is_stale() -> None:
    s = DiskScheduler(1, lease=10.0)
    s.submit("a")
    s.submit("b", ["a"])
    s.start()
    (old,) = s.ready(now=0.0)
    assert s.expire_leases(5.0) == []  # still held
    assert s.expire_leases(11.0) == [old]
    (new,) = s.ready(now=11.0)
    assert new.task_id == "a" and new.generation == old.generation + 1
    assert s.complete("a", old.generation).outcome is Outcome.STALE  # the slow first worker
    assert s.complete("a", new.generation).outcome is Outcome.APPLIED
    assert s.state_of("b") is TaskState.READY  # released once


def test_a_reopened_file_goes_on_where_the_last_process_stopped(tmp_path: Path) -> None:
    path = str(tmp_path / "graph.sqlite")
    first = DiskScheduler(1, path)
    for i in range(5):
        first.submit(i, [i - 1] if i else [])
    first.start()
    (claim,) = first.ready()
    first.complete(claim.task_id, claim.generation)
    first.disconnect()
    second = DiskScheduler(1, path)  # a new process: nothing of the graph in memory
    assert [c.task_id for c in second.ready()] == [1]
    assert second.info(0).state is TaskState.SUCCEEDED and second.state_of(4) is TaskState.PENDING
