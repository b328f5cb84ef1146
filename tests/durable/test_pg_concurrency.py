"""Claims and completions side by side on PostgreSQL (they hold the store's advisory lock
SHARED): a claim never waits for another one and never takes a slot another claim holds, even
uncommitted; two completions of the two dependencies of one task release it, whichever commits
first; and threads claiming and completing a graph against a limit of 2 keep it, lose no
release and finish everything. Interleavings are forced with open transactions on two
connections; a call in another thread is awaited until it returned or its server process
waits for a lock (pg_stat_activity), never for a time."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import psycopg
from schedcheck.impl.durable import DurableScheduler
from schedcheck.impl.durable._store import PostgresStore

from schedcheck.contract import Outcome, TaskState

LEASE = 300.0
POLLS = 200_000  #: pg_stat_activity reads before giving up on a call that neither ends nor waits


def _fresh(pg_url: str, schema: str) -> str:
    store = PostgresStore(pg_url, schema=schema)
    store.reset()
    store.close()
    return f"{pg_url}?schema={schema}"


class _Call(threading.Thread):
    """``fn()`` in a thread of its own; ``settle`` returns once it ended or its server process
    (``pid``) waits for a lock: True for "waiting"."""

    def __init__(self, fn: Callable[[], Any], pid: int, watch: psycopg.Connection[Any]) -> None:
        super().__init__(daemon=True)
        self.fn, self.pid, self.watch = fn, pid, watch
        self.result: Any = None
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            self.result = self.fn()
        except BaseException as exc:
            self.error = exc

    def settle(self) -> bool:
        self.start()
        for _ in range(POLLS):
            if not self.is_alive():
                return False
            row = self.watch.execute("SELECT wait_event_type FROM pg_stat_activity WHERE "
                                     "pid = %s", (self.pid,)).fetchone()
            if row is not None and row[0] == "Lock":
                return True
        raise AssertionError("the call neither returned nor waited for a lock")

    def outcome(self) -> Any:
        self.join()
        if self.error is not None:
            raise self.error
        return self.result


def _pg(s: DurableScheduler) -> PostgresStore:
    assert isinstance(s.store, PostgresStore)
    return s.store


def test_a_claim_skips_the_slot_of_an_uncommitted_claim_without_waiting(pg_url: str) -> None:
    url = _fresh(pg_url, "skipslot")
    one, two = DurableScheduler(url, 1, LEASE), DurableScheduler(url, 1, LEASE)
    for t in ("x", "y"):
        one.submit(t)
    one.start()
    with psycopg.connect(pg_url, autocommit=True) as watch:
        _pg(one).db.execute("BEGIN")
        assert [c.task_id for c in one.ready()] == ["x"]  # slot 1 taken, not committed yet
        call = _Call(two.ready, _pg(two).db.info.backend_pid, watch)
        waited = call.settle()
        _pg(one).db.execute("COMMIT")
        assert call.outcome() == [] and not waited  # skipped the locked slot, at once
    assert two.ready() == []  # committed: the one slot is held
    assert one.complete("x", 1).outcome is Outcome.APPLIED
    assert [c.task_id for c in two.ready()] == ["y"]
    two.check_invariants()


def test_two_completions_release_their_common_dependent(pg_url: str) -> None:
    """``c`` needs ``a`` and ``b``; ``a`` is completed in a transaction left open, ``b``'s
    completion runs meanwhile: it must wait for ``a``'s (both lock ``c``), then see ``a``
    SUCCEEDED and release ``c``. Without that lock each would see the other's dependency
    unfinished, and ``c`` would stay PENDING for ever."""
    url = _fresh(pg_url, "release")
    one, two = DurableScheduler(url, 2, LEASE), DurableScheduler(url, 2, LEASE)
    one.submit("a")
    one.submit("b")
    one.submit("c", ["a", "b"])
    one.start()
    a, b = one.ready()
    with psycopg.connect(pg_url, autocommit=True) as watch:
        _pg(one).db.execute("BEGIN")
        assert one.complete("a", a.generation, token=a.token).outcome is Outcome.APPLIED
        call = _Call(lambda: two.complete("b", b.generation, token=b.token),
                     _pg(two).db.info.backend_pid, watch)
        call.settle()
        _pg(one).db.execute("COMMIT")
        assert call.outcome().outcome is Outcome.APPLIED
    assert one.state_of("c") is TaskState.READY
    one.check_invariants()


def test_a_renewal_beside_a_completion_sees_it(pg_url: str) -> None:
    """A renewal holds the lock shared too: it locks the task's row before it decides, so a
    completion left open makes it wait, and then it answers REJECTED -- it never writes an
    expiry into the SUCCEEDED row (L1). A renewal of another task does not wait."""
    url = _fresh(pg_url, "renew")
    one, two = DurableScheduler(url, 2, LEASE), DurableScheduler(url, 2, LEASE)
    one.submit("a")
    one.submit("b")
    one.start()
    a, b = one.ready()
    with psycopg.connect(pg_url, autocommit=True) as watch:
        _pg(one).db.execute("BEGIN")
        assert one.complete("a", a.generation, token=a.token).outcome is Outcome.APPLIED
        other = _Call(lambda: two.renew("b", b.generation, b.token),
                      _pg(two).db.info.backend_pid, watch)
        assert other.settle() is False and other.outcome().outcome is Outcome.APPLIED
        call = _Call(lambda: two.renew("a", a.generation, a.token),
                     _pg(two).db.info.backend_pid, watch)
        assert call.settle() is True  # waits for the completion's row lock
        _pg(one).db.execute("COMMIT")
        assert call.outcome().outcome is Outcome.REJECTED
    assert one.info("a").expires is None
    one.check_invariants()


def test_threads_keep_the_limit_and_finish_a_graph(pg_url: str) -> None:
    """Four threads, each with its own connection, claim one task at a time and complete it,
    against a limit of 2, over five layers of six tasks (each needs two of the layer before):
    after every claim a thread counts RUNNING; every task is claimed once and SUCCEEDED."""
    url = _fresh(pg_url, "threads")
    setup = DurableScheduler(url, 2, LEASE)
    layers = [[f"l{i}t{j}" for j in range(6)] for i in range(5)]
    for i, layer in enumerate(layers):
        for j, task in enumerate(layer):
            setup.submit(task, [] if i == 0 else [layers[i - 1][j], layers[i - 1][(j + 1) % 6]])
    setup.start()
    claims: list[Any] = []
    peaks: list[int] = []
    errors: list[BaseException] = []

    def work() -> None:
        s = DurableScheduler(url, 2, LEASE)
        try:
            while True:
                got = s.ready(1)
                if not got:
                    left = s.counts()
                    if not left.get("PENDING") and not left.get("READY") and \
                            not left.get("RUNNING"):
                        return
                    continue
                claims.extend(c.task_id for c in got)
                peaks.append(int(s.store.rows(
                    "SELECT COUNT(*) FROM dtask WHERE state = 'RUNNING'")[0][0]))
                for c in got:
                    assert s.complete(c.task_id, c.generation, token=c.token).outcome \
                        is Outcome.APPLIED
        except BaseException as exc:
            errors.append(exc)
        finally:
            s.disconnect()

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert sorted(claims) == sorted(t for layer in layers for t in layer)
    assert max(peaks) <= 2
    assert set(setup.counts()) == {"SUCCEEDED"}
    setup.check_invariants()
