"""The lease rules of specs/durable.md, call by call, on the SQLite store with a fake clock;
two scheduler objects on one file share one exact limit; the SQL invariant queries say no to
a corrupted store."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from schedcheck.impl.durable import DurableScheduler

from schedcheck.contract import Cause, Outcome, TaskState
from schedcheck.harness.leases.suite import ManualClock


def _one(clock: ManualClock, **kw: int) -> DurableScheduler:
    s = DurableScheduler("sqlite://", 1, 10.0, clock=clock, **kw)
    s.submit("a")
    s.submit("b", ["a"])
    s.start()
    return s


def test_an_expired_lease_is_reclaimed_by_the_next_claim_and_the_old_worker_is_fenced() -> None:
    clock = ManualClock()
    s = _one(clock)
    (old,) = s.ready()
    assert (old.generation, old.token, old.expires) == (1, 1, 10.0)
    clock.now = 10.0
    assert s.ready() == []  # L2: not expired at exactly its expiry
    clock.now = 10.5
    (new,) = s.ready()  # the reclaim happens inside this claim
    assert (new.task_id, new.generation, new.token) == ("a", 2, 2)
    assert s.info("a").attempts == 2
    assert s.complete("a", old.generation, token=old.token).outcome is Outcome.STALE
    assert s.renew("a", old.generation, old.token).outcome is Outcome.STALE
    assert s.complete("a", new.generation, token=old.token).outcome is Outcome.STALE  # forged
    assert s.complete("a", new.generation, token=new.token).outcome is Outcome.APPLIED
    assert s.state_of("b") is TaskState.READY


def test_a_renewed_lease_is_not_reclaimed() -> None:
    clock = ManualClock()
    s = _one(clock)
    (c,) = s.ready()
    clock.now = 8.0
    assert s.renew("a", c.generation, c.token).expires == 18.0
    clock.now = 15.0
    assert s.ready() == [] and s.info("a").generation == 1
    assert s.complete("a", c.generation, token=c.token).outcome is Outcome.APPLIED


def test_out_of_attempts_the_task_fails_and_blocks_its_dependents() -> None:
    clock = ManualClock()
    s = _one(clock, max_attempts=2)
    s.ready()
    clock.now = 11.0
    s.ready()
    clock.now = 22.0
    assert s.ready() == []
    a = s.info("a")
    assert (a.generation, a.state, a.attempts, a.error) == (
        3, TaskState.FAILED, 2, "lease expired 2 times")
    assert s.info("b").cause == Cause("failed", "a", 3)


def test_a_requested_cancel_is_confirmed_by_the_reclaim() -> None:
    clock = ManualClock()
    s = _one(clock)
    assert len(s.ready()) == 1
    assert s.cancel("a").outcome is Outcome.REQUESTED
    clock.now = 11.0
    s.ready()
    assert s.info("a")[:4] == ("a", 2, TaskState.CANCELLED, Cause("cancelled", "a", 2))
    assert s.info("b").state is TaskState.BLOCKED


def test_two_processes_on_one_file_share_one_exact_limit(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path}/shared.db"
    first = DurableScheduler(url, 2, 30.0, create=True)
    for i in range(6):
        first.submit(i)
    first.start()
    second = DurableScheduler(url, 2, 30.0)
    got = first.ready(1) + second.ready() + first.ready()
    assert [c.task_id for c in got] == [0, 1] and [c.token for c in got] == [1, 2]
    with pytest.raises(ValueError, match="max_concurrency=2"):
        DurableScheduler(url, 3, 30.0)  # the limit is the store's, not a process's


@pytest.mark.parametrize(("corrupt", "rule"), [
    ("UPDATE dtask SET state = 'RUNNING', token = 7, expires = 1, attempts = 1", "I3"),
    ("UPDATE dtask SET state = 'READY' WHERE id = '[\"s\",\"b\"]'", "I2"),
    ("UPDATE dtask SET token = NULL WHERE state = 'RUNNING'", "L1"),
])
def test_the_sql_invariants_find_a_corrupted_store(corrupt: str, rule: str) -> None:
    s = _one(ManualClock())
    s.ready()
    s.check_invariants()
    s.store.execute(corrupt)
    with pytest.raises(AssertionError, match=rule):
        s.check_invariants()


def test_a_batch_of_reports_answers_as_single_reports_would() -> None:
    clock = ManualClock()
    batch = DurableScheduler("sqlite://", 3, 10.0, clock=clock)
    single = DurableScheduler("sqlite://", 3, 10.0, clock=clock)
    for s in (batch, single):
        for t, deps in (("a", ()), ("b", ()), ("c", ("a", "b"))):
            s.submit(t, deps)
        s.start()
    a, b = batch.ready()
    single.ready()
    reports = [("a", a.generation, a.token), ("b", b.generation, b.token + 5),
               ("a", a.generation, a.token), ("b", b.generation, None)]
    got = batch.complete_many(reports)
    assert got == [single.complete(t, g, token=k) for t, g, k in reports]
    assert [r.outcome for r in got] == [Outcome.APPLIED, Outcome.STALE, Outcome.DUPLICATE,
                                        Outcome.APPLIED]
    assert batch.info("c").state is TaskState.READY
    batch.check_invariants()


def test_a_batch_of_reports_on_postgresql_answers_as_single_reports_would(pg_pool: Any) -> None:
    clock = ManualClock()
    batch = pg_pool(lambda st: DurableScheduler(st, 3, 10.0, clock=clock))
    single = DurableScheduler("sqlite://", 3, 10.0, clock=clock)
    for s in (batch, single):
        for t, deps in (("a", ()), ("b", ()), ("c", ("a", "b"))):
            s.submit(t, deps)
        s.start()
    a, b = batch.ready()
    single.ready()
    reports = [("a", a.generation, a.token), ("b", b.generation, b.token + 5),
               ("a", a.generation, a.token), ("b", b.generation, None)]
    got = batch.complete_many(reports)
    assert got == [single.complete(t, g, token=k) for t, g, k in reports]
    assert batch.info("c").state is TaskState.READY
    batch.check_invariants()
