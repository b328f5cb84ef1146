"""The scheduler suite, unchanged, against the durable scheduler on SQLite (in memory and a
file) and PostgreSQL; the lease suite (time passing, renewal, reclaim, fencing) against the
lease model on the same stores, with the SQL invariant queries after every step; and the lease
suite finding the classic lease bugs planted in subclasses."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from schedcheck.impl.durable import DurableScheduler

from schedcheck.harness.leases.suite import run_lease_suite
from schedcheck.harness.result import HELD, NOT_REACHED
from schedcheck.harness.scheduler.suite import run_scheduler_suite
from tests.durable.conftest import StorePool

#: every clause the scheduler suite has, except the extensions the durable scheduler does not
#: offer (optional edges, add_dependency, retry) and what no suite run can reach
CLAUSES = ("S1", "S2", "S3", "S4", "S5", "S6", "S7", "S8", "S9", "S-INV", "S-CLAIM-ONCE",
           "S-CLAIM-DEPS", "S-TERMINAL", "S-ORACLE-CYCLE", "S-ORACLE-TOPO", "S-T1", "S-T3",
           "S-T4", "S-T5", "S-T6")
#: held by every run, short ones included
CORE = ("S1", "S2", "S3", "S4", "S7", "S9", "S-INV", "S-CLAIM-ONCE", "S-TERMINAL")
#: a file commits to disk and PostgreSQL answers each statement over a socket: those runs take
#: this many examples (the SQL is the same text as the in-memory store's, which runs the
#: profile's full count)
STORE_EXAMPLES = 30
#: the in-memory store in every run (the nightly run takes the profile's full count)
MEMORY_EXAMPLES = 60
#: PostgreSQL: fewer still (each call is several round trips to the server)
PG_EXAMPLES = 20


def _frozen() -> float:
    return 0.0  # the scheduler suite has no time: no lease ever expires


def _held(factory: Callable[[int], Any], name: str, examples: int | None = None) -> None:
    result = run_scheduler_suite(factory, target_name=name, seed=0, examples=examples)
    assert result.ok, result.counterexample and (
        result.counterexample.message + "\n" + result.counterexample.hypothesis_program)
    verdicts = {c: result.stats[c].verdict for c in CLAUSES}
    if examples is None:  # the profile's full run reaches every clause
        assert verdicts == dict.fromkeys(CLAUSES, HELD)
    else:  # a shorter run may not reach some (close(), say), but breaks none
        assert set(verdicts.values()) <= {HELD, NOT_REACHED}, verdicts
        assert all(verdicts[c] == HELD for c in CORE), verdicts
    assert {"retry()", "add_dependency()"} <= set(result.unsupported)


def test_the_scheduler_suite_holds_on_sqlite_in_memory() -> None:
    _held(lambda mc: DurableScheduler("sqlite://", mc, 30.0, clock=_frozen), "durable:memory",
          examples=MEMORY_EXAMPLES)


@pytest.mark.nightly(reason="the profile's full count on SQLite takes over a minute; every "
                     "run checks the same SQL with fewer examples")
def test_the_scheduler_suite_holds_on_sqlite_in_memory_every_clause_reached() -> None:
    _held(lambda mc: DurableScheduler("sqlite://", mc, 30.0, clock=_frozen), "durable:memory")


def test_the_scheduler_suite_holds_on_a_sqlite_file(sqlite_files: Callable[[], str]) -> None:
    _held(lambda mc: DurableScheduler(sqlite_files(), mc, 30.0, clock=_frozen),
          "durable:file", examples=STORE_EXAMPLES)


def test_the_scheduler_suite_holds_on_postgresql(pg_pool: StorePool) -> None:
    _held(lambda mc: pg_pool(lambda s: DurableScheduler(s, mc, 30.0, clock=_frozen)),
          "durable:postgresql", examples=PG_EXAMPLES)


def test_the_lease_rules_hold_on_sqlite_in_memory() -> None:
    run_lease_suite(lambda mc, lease, clock, attempts: DurableScheduler(
        "sqlite://", mc, lease, clock=clock, max_attempts=attempts), seed=0)


def test_the_lease_rules_hold_on_a_sqlite_file(sqlite_files: Callable[[], str]) -> None:
    run_lease_suite(lambda mc, lease, clock, attempts: DurableScheduler(
        sqlite_files(), mc, lease, clock=clock, max_attempts=attempts), seed=1,
        examples=STORE_EXAMPLES)


def test_the_lease_rules_hold_on_postgresql(pg_pool: StorePool) -> None:
    run_lease_suite(lambda mc, lease, clock, attempts: pg_pool(lambda s: DurableScheduler(
        s, mc, lease, clock=clock, max_attempts=attempts)), seed=2, examples=PG_EXAMPLES)


class UnfencedComplete(DurableScheduler):
    """The bug of most job queues: a completion is not checked against the current claim."""

    def complete(self, task_id: Any, generation: int, token: int | None = None,
                 **kw: Any) -> Any:
        return super().complete(task_id, generation, **kw)


class NoReclaim(DurableScheduler):
    """Recovery left to someone's cron: an expired lease is never taken back."""

    def _reclaim(self, now: float) -> None:
        return None


class RenewAnyClaim(DurableScheduler):
    """A renewal that does not check whose claim it renews."""

    def renew(self, task_id: Any, generation: int, token: int) -> Any:
        held = self.info(task_id).token
        return super().renew(task_id, generation, token if held is None else held)


@pytest.mark.parametrize("planted", [UnfencedComplete, NoReclaim, RenewAnyClaim])
def test_the_lease_suite_finds_a_planted_lease_bug(planted: type[DurableScheduler]) -> None:
    with pytest.raises(AssertionError, match="lease model says"):
        run_lease_suite(lambda mc, lease, clock, attempts: planted(
            "sqlite://", mc, lease, clock=clock, max_attempts=attempts), seed=0, shrink=False)


class RetryAtOnce(DurableScheduler):
    """A retry without its backoff: the failed task is claimable again at once."""

    def _retry(self, row: Any, error: Any) -> Any:
        reply = super()._retry(row, error)
        self.store.execute("UPDATE dtask SET not_before = NULL WHERE id = ?", (row.id,))
        return reply


class RetryForever(DurableScheduler):
    """A retry that never runs out of attempts."""

    def _retries(self, row: Any, g: int | None, tok: int | None) -> bool:
        return super()._retries(row._replace(attempts=0), g, tok)


@pytest.mark.parametrize("planted", [RetryAtOnce, RetryForever])
def test_the_lease_suite_finds_a_planted_retry_bug(planted: type[DurableScheduler]) -> None:
    with pytest.raises(AssertionError, match="lease model says"):
        run_lease_suite(lambda mc, lease, clock, attempts: planted(
            "sqlite://", mc, lease, clock=clock, max_attempts=attempts), seed=0, shrink=False,
            examples=300, profile="ci")
