"""The scheduler's extensions (retry, optional deps, add_dependency) and the queries, on both
the reference model and the production scheduler (the ``make`` fixture of conftest.py runs
each body on both and checks every scheduler it built at teardown)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from schedcheck import impl, model
from schedcheck.contract import Cause, CycleError, Outcome, Reply, TaskState, UnknownDependencyError

P, R = TaskState.PENDING, TaskState.READY
BLK = TaskState.BLOCKED
A, DUP, REJ = Outcome.APPLIED, Outcome.DUPLICATE, Outcome.REJECTED

Factory = Callable[..., Any]


def state(s: Any, task_id: Any) -> TaskState:
    st: TaskState = s.info(task_id).state
    return st


# ---- extensions ----------------------------------------------------------------------------

def test_retry_resubmits_the_dead_task_and_its_blocked_subtree(make: Factory) -> None:
    s = make()
    s.submit("a")
    s.submit("b", ["a"])
    s.submit("c", ["b"])
    s.submit("side")
    s.start()
    s.ready()
    s.fail("a", 1)
    assert s.retry("a") == {"a": 2, "b": 2, "c": 2}
    assert [s.info(t)[1:3] for t in "abc"] == [(2, R), (2, P), (2, P)]
    assert s.retry("side") == {}


def test_retry_without_cascade_leaves_the_subtree_blocked(make: Factory) -> None:
    s = make()
    s.submit("a")
    s.submit("b", ["a"])
    s.start()
    s.ready()
    s.fail("a", 1)
    assert s.retry("a", cascade=False) == {"a": 2}
    assert state(s, "b") is BLK


def test_optional_deps_wait_for_any_terminal_state_and_record_failures(make: Factory) -> None:
    s = make()
    s.submit("req")
    s.submit("opt")
    s.submit("t", ["req"], optional=["opt"])
    s.start()
    s.ready()
    s.complete("req", 1)
    assert state(s, "t") is P
    s.fail("opt", 1)
    assert state(s, "t") is R
    assert s.info("t").optional_failed == ("opt",)
    s.ready()
    s.submit("opt")
    assert s.info("t").optional_failed == ("opt",)  # frozen when t was claimed
    assert s.optional_of("t") == ("opt",)


def test_add_dependency_follows_the_pending_rules(make: Factory) -> None:
    s = make()
    s.submit("a")
    s.submit("b")
    s.submit("c", ["a"])
    s.submit("dead")
    s.start()
    s.cancel("dead")
    assert s.add_dependency("c", "b") == Reply(A, P)
    assert s.add_dependency("c", "b") == Reply(DUP, P)
    assert s.add_dependency("a", "b") == Reply(REJ, R)
    with pytest.raises(CycleError):
        s.add_dependency("c", "c")
    with pytest.raises(UnknownDependencyError):
        s.add_dependency("c", "nope")
    assert s.add_dependency("c", "dead") == Reply(A, BLK)
    assert s.info("c").cause == Cause("cancelled", "dead", 1)
    assert s.deps_of("c") == ("a", "b", "dead")


def test_add_dependency_that_closes_a_cycle_is_refused(make: Factory) -> None:
    s = make()
    s.submit("a")
    s.submit("x", ["a"])
    s.submit("b", ["x"])
    s.submit("c", ["b"])
    s.start()
    before = s.snapshot()
    with pytest.raises(CycleError) as e:
        s.add_dependency("x", "c")
    assert e.value.cycle == ["x", "b", "c", "x"]
    assert s.snapshot() == before


def test_task_ids_are_in_order_of_first_submit(make: Factory) -> None:
    s = make()
    s.submit("b", ["a"])
    s.submit("a")
    s.submit("b")
    assert s.task_ids() == ["b", "a"]


def test_the_same_calls_give_the_same_snapshot_on_model_and_impl() -> None:
    def script(s: Any) -> list[Any]:
        out = [s.submit("a"), s.submit("b", ["a", "a"]), s.submit("c", ["b"], optional=["x"]),
               s.submit("x"), s.start(), s.ready(limit=1), s.complete("a", 1), s.ready(),
               s.cancel("x"), s.fail("b", 1, "err"), s.retry("b"), s.submit("a"), s.close()]
        return [[tuple(c[:2]) for c in o] if isinstance(o, list) else o for o in out]

    m, i = model.Scheduler(3), impl.Scheduler(3)
    assert script(m) == script(i)
    assert m.snapshot() == i.snapshot()
    assert [m.info(t) for t in m.task_ids()] == [i.info(t) for t in i.task_ids()]
