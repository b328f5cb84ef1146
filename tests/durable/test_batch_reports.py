"""``complete_many`` when a report in the batch raises (specs/scheduler.md, "Batch paths"): the
reports before it stay applied -- committed in the store -- and the rest untouched, on SQLite
and PostgreSQL alike, with the error ``complete`` raises; a claim handed in as it is keeps its
fencing token; and the batch stays one transaction."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from schedcheck.impl.durable import DurableScheduler

from schedcheck.contract import Claim, Outcome, Reply, TaskState, UnknownTaskError
from schedcheck.harness.leases.suite import ManualClock

APPLIED = Reply(Outcome.APPLIED, TaskState.SUCCEEDED)


@pytest.fixture(params=("sqlite", "postgresql"))
def fresh(request: pytest.FixtureRequest) -> Callable[[], DurableScheduler]:
    """A new scheduler (limit 3, a clock that stands still) on the parameter's store."""
    clock = ManualClock()
    if request.param == "sqlite":
        return lambda: DurableScheduler("sqlite://", 3, 10.0, clock=clock)
    pool = request.getfixturevalue("pg_pool")
    return lambda: pool(lambda st: DurableScheduler(st, 3, 10.0, clock=clock))


def _claimed(s: DurableScheduler) -> dict[Any, Any]:
    """a and b RUNNING, c (after a) PENDING: the claims by id."""
    for t, deps in (("a", ()), ("b", ()), ("c", ("a",))):
        s.submit(t, deps)
    s.start()
    return {c.task_id: c for c in s.ready()}


def _states(s: DurableScheduler) -> dict[Any, TaskState]:
    return {t: s.info(t).state for t in s.task_ids()}


#: a reports a, then the report that raises, then b would report b
AFTER_A = {"a": TaskState.SUCCEEDED, "b": TaskState.RUNNING, "c": TaskState.READY}


def test_an_unknown_id_raises_after_the_reports_before_it_applied(
        fresh: Callable[[], DurableScheduler]) -> None:
    s = fresh()
    a, b = _claimed(s).values()
    with pytest.raises(UnknownTaskError):
        s.complete_many([("a", a.generation), ("a", a.generation), ("x", 1),
                         ("b", b.generation)])
    assert _states(s) == AFTER_A  # a committed (c released), b untouched
    s.check_invariants()
    assert s.complete_many([("b", b.generation)]) == [APPLIED]


#: reports that complete() refuses before it reads the store, with the error it raises
BAD = {
    "a generation that is not an int": (("b", "1"), TypeError),
    "a bool generation": (("b", True), TypeError),
    "an unhashable id": ((["b"], 1), TypeError),
    "an id no store can keep": ((frozenset({"b"}), 1), TypeError),
    "a token that is not an int": (("b", 1, "t"), TypeError),
}


@pytest.mark.parametrize("bad", list(BAD))
def test_a_report_complete_refuses_raises_after_the_reports_before_it_applied(
        fresh: Callable[[], DurableScheduler], bad: str) -> None:
    report, error = BAD[bad]
    s = fresh()
    a, b = _claimed(s).values()
    with pytest.raises(error):  # what complete() raises for the same report
        s.complete(*report)
    with pytest.raises(error):
        s.complete_many([("a", a.generation), report, ("b", b.generation)])
    assert _states(s) == AFTER_A
    s.check_invariants()


def test_a_malformed_report_or_a_failing_iterable_stops_the_batch_there(
        fresh: Callable[[], DurableScheduler]) -> None:
    s = fresh()
    a, b = _claimed(s).values()
    with pytest.raises(ValueError):
        s.complete_many([("a", a.generation), ("b",), ("b", b.generation)])
    assert _states(s) == AFTER_A

    def reports() -> Iterator[tuple[Any, int]]:
        yield "b", b.generation
        raise RuntimeError("the reports ran out")

    with pytest.raises(RuntimeError, match="ran out"):
        s.complete_many(reports())
    assert s.info("b").state is TaskState.SUCCEEDED


def test_a_claim_handed_in_as_it_is_is_fenced_by_its_token(
        fresh: Callable[[], DurableScheduler]) -> None:
    s = fresh()
    a, b = _claimed(s).values()
    # a DurableClaim's third field is fn, not the token: the token must still fence it
    assert s.complete_many([a._replace(token=a.token + 5), b]) == [
        Reply(Outcome.STALE, TaskState.RUNNING), APPLIED]
    # the contract's Claim has a callable third field and no token
    assert s.complete_many([Claim("a", a.generation, print)]) == [APPLIED]
    assert _states(s) == {"a": TaskState.SUCCEEDED, "b": TaskState.SUCCEEDED,
                          "c": TaskState.READY}


class _Counted:
    """Counts the transactions a store opens."""

    def __init__(self, s: DurableScheduler) -> None:
        self.n = 0
        inner = s.store.transaction

        @contextlib.contextmanager
        def counted(**kw: Any) -> Iterator[None]:
            self.n += 1
            with inner(**kw):
                yield

        s.store.transaction = counted  # type: ignore[method-assign]


def test_a_batch_is_one_transaction_even_when_a_report_raises(
        fresh: Callable[[], DurableScheduler]) -> None:
    s = fresh()
    a, b = _claimed(s).values()
    seen = _Counted(s)
    with pytest.raises(UnknownTaskError):
        s.complete_many([("a", a.generation), ("b", b.generation, b.token + 1), ("x", 1)])
    # (PostgreSQL: a applied by the server-side call, a statement of its own; the rest one
    # transaction)
    assert seen.n == 1
    assert _states(s) == AFTER_A
    before, statements = seen.n, s.store.statements
    assert s.complete_many([("b", b.generation, b.token)]) == [APPLIED]
    if s.store.kind == "sqlite":  # a batch that applies in full: one transaction
        assert seen.n - before == 1
    else:  # one server-side call
        assert (seen.n - before, s.store.statements - statements) == (0, 1)
