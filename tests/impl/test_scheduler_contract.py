"""specs/scheduler.md, rule by rule, on both the reference model and the production scheduler.

Every test body runs on ``schedcheck.model.Scheduler`` and ``schedcheck.impl.Scheduler``
(the ``S`` fixture) and calls ``check_invariants()`` at the end (the ``make`` helper keeps
every scheduler it built and checks each at teardown).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import pytest

from schedcheck.contract import (
    Cause,
    ClosedError,
    ConflictError,
    CycleError,
    NotStartedError,
    Outcome,
    Reply,
    TaskState,
    UnknownDependencyError,
    UnknownTaskError,
)

P, R, RUN = TaskState.PENDING, TaskState.READY, TaskState.RUNNING
OK, FAIL, BLK, CAN = (
    TaskState.SUCCEEDED, TaskState.FAILED, TaskState.BLOCKED, TaskState.CANCELLED,
)
A, RQ, DUP, ST, REJ = (Outcome.APPLIED, Outcome.REQUESTED, Outcome.DUPLICATE, Outcome.STALE,
                       Outcome.REJECTED)

Factory = Callable[..., Any]


def state(s: Any, task_id: Any) -> TaskState:
    st: TaskState = s.info(task_id).state
    return st


def claim_ids(claims: list[Any]) -> list[Any]:
    return [c.task_id for c in claims]


def diamond(make: Factory, n: int = 10) -> Any:
    s = make(n)
    s.submit("a")
    s.submit("b", ["a"])
    s.submit("c", ["a"])
    s.submit("d", ["b", "c"])
    s.start()
    return s


# ---- rule 1: submit ------------------------------------------------------------------------

def test_a_task_without_deps_is_ready_and_one_with_deps_pending(make: Factory) -> None:
    s = make()
    assert s.submit("a") == 1
    assert s.submit("b", ["a"]) == 1
    assert s.info("a") == ("a", 1, R, None)
    assert s.info("b") == ("b", 1, P, None)


def test_repeated_deps_count_once(make: Factory) -> None:
    s = make()
    s.submit("a")
    s.submit("b", ["a", "a", "a"])
    s.start()
    s.ready(limit=1)
    assert s.complete("a", 1) == Reply(A, OK)
    assert state(s, "b") is R
    assert s.deps_of("b") == ("a",)


def test_deps_may_be_any_iterable_of_hashables(make: Factory) -> None:
    s = make()
    s.submit("a")
    s.submit("b", (x for x in ["a"]))
    s.submit("c", {"a": 1}.keys())
    s.submit("d", frozenset({"b"}))
    assert [s.deps_of(t) for t in "bcd"] == [("a",), ("a",), ("b",)]


def test_deps_may_name_ids_not_submitted_yet_before_start(make: Factory) -> None:
    s = make()
    s.submit("b", ["a"])
    s.submit("a")
    s.start()
    assert claim_ids(s.ready()) == ["a"]


def test_a_task_submitted_after_a_dead_dependency_is_blocked_by_it(make: Factory) -> None:
    s = make()
    s.submit("a")
    s.submit("x")
    s.cancel("a")
    s.cancel("x")
    s.submit("b", ["x", "a"])
    assert s.info("b") == ("b", 1, BLK, Cause("cancelled", "x", 1))


def test_blocked_at_submit_takes_the_root_cause_of_a_blocked_dependency(make: Factory) -> None:
    s = make()
    s.submit("a")
    s.submit("b", ["a"])
    s.start()
    s.ready()
    s.fail("a", 1, RuntimeError("disk"))
    s.submit("c", ["b"])
    assert s.info("c").cause == Cause("failed", "a", 1)


# ---- rule 2: start -------------------------------------------------------------------------

def test_start_reports_the_first_task_with_missing_deps_in_deps_order(make: Factory) -> None:
    s = make()
    s.submit("a")
    s.submit("x", ["q", "a", "p"])
    s.submit("y", ["z"])
    before = s.snapshot()
    with pytest.raises(UnknownDependencyError, match=r"'x' depends on \['q', 'p'\]") as e:
        s.start()
    assert (e.value.task_id, e.value.missing) == ("x", ["q", "p"])
    assert s.snapshot() == before


def test_a_self_dependency_is_the_cycle_a_a(make: Factory) -> None:
    s = make()
    s.submit("a", ["a"])
    with pytest.raises(CycleError, match="dependency cycle 'a' -> 'a'") as e:
        s.start()
    assert e.value.cycle == ["a", "a"]


def assert_real_cycle(s: Any, cycle: list[Any]) -> None:
    assert len(cycle) >= 2 and cycle[0] == cycle[-1]
    assert len(set(cycle[:-1])) == len(cycle) - 1
    for dep, task in itertools.pairwise(cycle):
        assert dep in s.deps_of(task), f"{dep!r} is not a dependency of {task!r}"


def test_start_reports_a_real_cycle_and_changes_nothing(make: Factory) -> None:
    s = make()
    s.submit("ok")
    s.submit("x", ["ok", "z"])
    s.submit("y", ["x"])
    s.submit("z", ["y"])
    before = s.snapshot()
    with pytest.raises(CycleError) as e:
        s.start()
    assert_real_cycle(s, e.value.cycle)
    assert set(e.value.cycle) == {"x", "y", "z"}
    assert s.snapshot() == before
    with pytest.raises(NotStartedError):
        s.ready()


def test_a_failed_start_can_be_fixed_and_retried(make: Factory) -> None:
    s = make()
    s.submit("a", ["b"])
    s.submit("b", ["a"])
    with pytest.raises(CycleError):
        s.start()
    s.submit("b")
    s.start()
    s.start()  # a second start() is a no-op
    assert claim_ids(s.ready()) == ["b"]


# ---- rule 3: ready -------------------------------------------------------------------------

def test_ready_claims_in_submission_sequence_up_to_the_free_slots(make: Factory) -> None:
    s = make(2)
    for t in "cab":
        s.submit(t)
    s.start()
    first = s.ready()
    assert claim_ids(first) == ["c", "a"]
    assert [c.generation for c in first] == [1, 1]
    assert s.ready() == []
    s.complete("c", 1)
    assert claim_ids(s.ready(limit=5)) == ["b"]


def test_ready_with_limit_zero_or_max_concurrency_zero_claims_nothing(make: Factory) -> None:
    s = make(0)
    s.submit("a")
    s.start()
    assert s.ready() == []
    t = make(3)
    t.submit("a")
    t.start()
    assert t.ready(limit=0) == []
    assert state(t, "a") is R


def test_a_claim_carries_the_function(make: Factory) -> None:
    s = make()

    def job(token: object) -> None:
        return None

    s.submit("a", fn=job)
    s.start()
    [claim] = s.ready()
    assert claim == ("a", 1, job)
    assert state(s, "a") is RUN


# ---- rule 4: complete ----------------------------------------------------------------------

def test_a_diamond_releases_the_join_after_both_branches(make: Factory) -> None:
    s = diamond(make)
    assert claim_ids(s.ready()) == ["a"]
    assert s.complete("a", 1) == Reply(A, OK)
    assert claim_ids(s.ready()) == ["b", "c"]
    s.complete("b", 1)
    assert state(s, "d") is P
    s.complete("c", 1)
    assert state(s, "d") is R


def test_complete_of_old_or_newer_generation_is_stale(make: Factory) -> None:
    s = make()
    s.submit("a")
    s.start()
    s.ready()
    s.complete("a", 1)
    s.submit("a")
    assert s.complete("a", 1) == Reply(ST, R)
    assert s.complete("a", 3) == Reply(ST, R)
    assert s.complete("a", 2) == Reply(REJ, R)


def test_a_second_complete_is_duplicate_and_releases_nothing(make: Factory) -> None:
    s = make()
    s.submit("a")
    s.submit("z")
    s.submit("b", ["a", "z"])
    s.start()
    s.ready()
    assert s.complete("a", 1) == Reply(A, OK)
    assert s.complete("a", 1) == Reply(DUP, OK)
    assert state(s, "b") is P


# ---- rule 5: fail --------------------------------------------------------------------------

def test_failure_blocks_everything_downstream_with_the_root_cause(make: Factory) -> None:
    s = make()
    s.submit("a")
    s.submit("b", ["a"])
    s.submit("c", ["b"])
    s.submit("other")
    s.start()
    s.ready()
    err = RuntimeError("boom")
    assert s.fail("a", 1, err) == Reply(A, FAIL)
    assert s.info("c") == ("c", 1, BLK, Cause("failed", "a", 1))
    assert s.info("a").error is err
    assert state(s, "other") is RUN
    assert s.fail("a", 1) == Reply(DUP, FAIL)
    assert s.complete("a", 1) == Reply(REJ, FAIL)


def test_propagation_stops_at_running_tasks_and_the_first_cause_wins(make: Factory) -> None:
    s = make()
    s.submit("a")
    s.submit("b")
    s.submit("c", ["a", "b"])
    s.start()
    s.ready()
    s.fail("a", 1)
    s.fail("b", 1)
    assert s.info("c").cause == Cause("failed", "a", 1)


# ---- rule 6: cancel ------------------------------------------------------------------------

def test_cancel_of_a_pending_task_blocks_its_dependents(make: Factory) -> None:
    s = diamond(make)
    assert s.cancel("b", 1) == Reply(A, CAN)
    assert s.info("b").cause == Cause("cancelled", "b", 1)
    assert s.info("d") == ("d", 1, BLK, Cause("cancelled", "b", 1))
    assert s.cancel("b") == Reply(DUP, CAN)
    assert s.cancel("d") == Reply(REJ, BLK)
    assert s.cancel("b", 2) == Reply(ST, CAN)


def test_cancel_of_a_running_task_is_a_request_and_complete_still_wins(make: Factory) -> None:
    s = diamond(make)
    s.ready()
    assert s.cancel("a") == Reply(RQ, RUN)
    assert s.cancel("a", 1) == Reply(DUP, RUN)
    assert s.cancel_requested("a", 1) is True
    assert s.cancel_requested("a", 2) is False
    assert s.complete("a", 1) == Reply(A, OK)
    assert s.cancel_requested("a", 1) is True
    assert s.cancel("a") == Reply(REJ, OK)


def test_fail_after_a_cancel_request_confirms_the_cancel(make: Factory) -> None:
    s = diamond(make)
    s.ready()
    s.cancel("a")
    err = KeyboardInterrupt()
    assert s.fail("a", 1, err) == Reply(A, CAN)
    assert s.info("a") == ("a", 1, CAN, Cause("cancelled", "a", 1))
    assert s.info("a").error is err
    assert s.info("d").cause == Cause("cancelled", "a", 1)
    assert s.fail("a", 1) == Reply(DUP, CAN)


def test_cancel_before_start_is_allowed(make: Factory) -> None:
    s = make()
    s.submit("a")
    s.submit("b", ["a"])
    assert s.cancel("a") == Reply(A, CAN)
    assert state(s, "b") is BLK
    s.start()
    assert s.ready() == []


# ---- rule 7: resubmit ----------------------------------------------------------------------

def test_resubmit_of_a_running_task_is_a_conflict_and_changes_nothing(make: Factory) -> None:
    s = make()
    s.submit("a")
    s.start()
    s.ready()
    before = s.snapshot()
    with pytest.raises(ConflictError, match="cannot resubmit 'a': generation 1 is RUNNING"):
        s.submit("a")
    assert s.snapshot() == before


def test_a_ready_dependent_goes_back_to_pending_and_keeps_its_sequence(make: Factory) -> None:
    s = make()
    s.submit("a")
    s.submit("b", ["a"])
    s.submit("c")
    s.start()
    assert claim_ids(s.ready(limit=1)) == ["a"]
    s.complete("a", 1)
    assert state(s, "b") is R
    assert s.submit("a") == 2  # a's new generation: b counts it as outstanding again
    assert state(s, "b") is P
    s.submit("d")  # READY now, stamped after b
    assert claim_ids(s.ready(limit=2)) == ["c", "a"]
    s.complete("a", 2)
    assert claim_ids(s.ready()) == ["b", "d"]  # b kept the stamp of its generation


def test_resubmit_after_start_is_validated_as_it_arrives(make: Factory) -> None:
    s = make()
    s.submit("a")
    s.submit("b", ["a"])
    s.start()
    before = s.snapshot()
    with pytest.raises(UnknownDependencyError, match=r"'a' depends on \['nope'\]"):
        s.submit("a", ["nope", "b"])
    with pytest.raises(CycleError) as e:
        s.submit("a", ["b"])
    assert e.value.cycle in (["a", "b", "a"], ["b", "a", "b"])
    with pytest.raises(CycleError):
        s.submit("a", ["a"])
    assert s.snapshot() == before
    assert s.submit("new", ["b"]) == 1  # brand-new ids are accepted after start


def test_resubmit_removes_the_old_edges(make: Factory) -> None:
    s = make()
    s.submit("a")
    s.submit("x")
    s.submit("b", ["a"])
    s.start()
    s.submit("b", ["x"])
    s.ready()
    s.complete("a", 1)
    assert state(s, "b") is P
    s.complete("x", 1)
    assert state(s, "b") is R


def test_resubmit_with_a_dead_dependency_blocks_its_dependents(make: Factory) -> None:
    s = make()
    s.submit("bad")
    s.submit("a")
    s.submit("b", ["a"])
    s.start()
    s.cancel("bad")
    s.submit("a", ["bad"])
    assert s.info("a") == ("a", 2, BLK, Cause("cancelled", "bad", 1))
    assert s.info("b") == ("b", 1, BLK, Cause("cancelled", "bad", 1))


# ---- rule 8: close -------------------------------------------------------------------------

def test_close_cancels_pending_and_ready_in_submission_sequence(make: Factory) -> None:
    s = make(1)
    s.submit("a")
    s.submit("b", ["a"])
    s.submit("c")
    s.start()
    s.ready()
    s.submit("b", ["a"])  # b's new generation is stamped last
    assert s.close() == ["c", "b"]
    assert s.info("b") == ("b", 2, CAN, Cause("shutdown", "b", 2))
    assert s.ready() == []
    assert s.complete("a", 1) == Reply(A, OK)
    assert s.close() == []
    with pytest.raises(ClosedError, match="cannot submit 'z': the scheduler is closed"):
        s.submit("z")


def test_close_before_start_works_and_start_then_refuses(make: Factory) -> None:
    s = make()
    s.submit("a")
    assert s.close() == ["a"]
    with pytest.raises(ClosedError, match="closed before it started"):
        s.start()
    with pytest.raises(NotStartedError):
        s.ready()


# ---- rule 9: errors ------------------------------------------------------------------------

def _started(make: Factory) -> Any:
    s = make(1)
    s.submit("a")
    s.submit("b", ["a"])
    s.start()
    s.ready()
    return s


def _closed(make: Factory) -> Any:
    s = _started(make)
    s.close()
    return s


BAD_CALLS: list[tuple[str, Callable[[Factory], Any], Callable[[Any], Any], type, str]] = [
    ("unhashable task id", _started, lambda s: s.submit(["x"]),
     TypeError, "task_id must be hashable"),
    ("deps given as a str", _started, lambda s: s.submit("c", "ab"),
     TypeError, "iterable of task ids"),
    ("deps given as bytes", _started, lambda s: s.submit("c", b"ab"),
     TypeError, "iterable of task ids"),
    ("deps None", _started, lambda s: s.submit("c", None), TypeError, "iterable of task ids"),
    ("deps not iterable", _started, lambda s: s.submit("c", 3), TypeError, "iterable of task ids"),
    ("unhashable dep", _started, lambda s: s.submit("c", [["a"]]),
     TypeError, "dependency of 'c' must be hashable"),
    ("non-callable fn", _started, lambda s: s.submit("c", fn=3),
     TypeError, "fn of 'c' must be callable"),
    ("optional given as a str", _started, lambda s: s.submit("c", optional="a"),
     TypeError, "optional of 'c'"),
    ("dep both required and optional", _started, lambda s: s.submit("c", ["a"], optional=["a"]),
     ValueError, "both a required and an optional"),
    ("bool limit", _started, lambda s: s.ready(True), TypeError, "limit must be an int"),
    ("float limit", _started, lambda s: s.ready(1.0), TypeError, "limit must be an int"),
    ("negative limit", _started, lambda s: s.ready(-1), ValueError, "limit must be >= 0"),
    ("bool generation to complete", _started, lambda s: s.complete("a", True),
     TypeError, "generation must be an int"),
    ("str generation to fail", _started, lambda s: s.fail("a", "1"),
     TypeError, "generation must be an int"),
    ("bool generation to cancel", _started, lambda s: s.cancel("a", False),
     TypeError, "generation must be an int"),
    ("float generation to cancel_requested", _started, lambda s: s.cancel_requested("a", 1.0),
     TypeError, "generation must be an int"),
    ("unknown id to complete", _started, lambda s: s.complete("zz", 1),
     UnknownTaskError, "'zz' was never submitted"),
    ("unknown id to fail", _started, lambda s: s.fail("zz", 1),
     UnknownTaskError, "never submitted"),
    ("unknown id to cancel", _started, lambda s: s.cancel("zz"),
     UnknownTaskError, "never submitted"),
    ("unknown id to info", _started, lambda s: s.info("zz"), UnknownTaskError, "never submitted"),
    ("unknown id to cancel_requested", _started, lambda s: s.cancel_requested("zz", 1),
     UnknownTaskError, "never submitted"),
    ("unknown id to add_dependency", _started, lambda s: s.add_dependency("zz", "a"),
     UnknownTaskError, "never submitted"),
    ("unknown id to retry", _started, lambda s: s.retry("zz"), UnknownTaskError, "never submitted"),
    ("unknown dep after start", _started, lambda s: s.submit("c", ["a", "q"]),
     UnknownDependencyError, r"\['q'\]"),
    ("resubmit of a running task", _started, lambda s: s.submit("a"),
     ConflictError, "generation 1 is RUNNING"),
    ("submit after close", _closed, lambda s: s.submit("c"), ClosedError, "closed"),
    ("add_dependency after close", _closed, lambda s: s.add_dependency("b", "a"),
     ClosedError, "closed"),
    ("retry after close", _closed, lambda s: s.retry("a"), ClosedError, "closed"),
    ("malformed before closed", _closed, lambda s: s.submit("c", "ab"), TypeError, "iterable"),
    ("malformed before unknown", _started, lambda s: s.complete("zz", True),
     TypeError, "generation"),
    ("closed before conflict", _closed, lambda s: s.submit("a"), ClosedError, "closed"),
    ("conflict before unknown dep", _started, lambda s: s.submit("a", ["q"]),
     ConflictError, "RUNNING"),
    ("ready before start", lambda make: make(1), lambda s: s.ready(),
     NotStartedError, r"call start\(\) first"),
]


@pytest.mark.parametrize(("what", "setup", "call", "error", "match"), BAD_CALLS,
                         ids=[c[0] for c in BAD_CALLS])
def test_a_malformed_call_raises_and_changes_nothing(
        make: Factory, what: str, setup: Callable[[Factory], Any], call: Callable[[Any], Any],
        error: type, match: str) -> None:
    s = setup(make)
    before = s.snapshot()
    with pytest.raises(error, match=match):
        call(s)
    assert s.snapshot() == before, what


@pytest.mark.parametrize(("value", "error"), [(-1, ValueError), (True, TypeError),
                                              (2.0, TypeError), ("2", TypeError)])
def test_max_concurrency_must_be_an_int_at_least_zero(make: Factory, value: Any,
                                                      error: type) -> None:
    with pytest.raises(error, match="max_concurrency must be"):
        make(value)
