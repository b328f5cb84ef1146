"""What only the production scheduler has: indexes, the lazy heap, ghosts, metrics, the lock."""

from __future__ import annotations

import itertools
import threading
from typing import Any

import pytest
from schedcheck.impl import Scheduler
from schedcheck.impl.scheduler._support import slots
from schedcheck.impl.scheduler import _core as core_mod
from schedcheck.impl.scheduler import _support as impl_mod

from schedcheck.contract import CycleError, Outcome, TaskState

P, R, RUN, OK = TaskState.PENDING, TaskState.READY, TaskState.RUNNING, TaskState.SUCCEEDED


def test_ready_queue_compacts_stale_entries() -> None:
    """Reaches the compaction branch of Scheduler._compact (named in its docstring)."""
    s = Scheduler(1)
    n = 500
    for i in range(n):
        s.submit(i)
    s.start()
    for i in range(n - 1):  # every cancel leaves a dead entry behind
        s.cancel(i)
        s.check_invariants()  # asserts stale <= live + _SLACK after every call
    m = s.metrics()
    assert m.compactions >= 1
    assert m.heap_entries <= 1 + impl_mod._SLACK + 1
    assert [c.task_id for c in s.ready()] == [n - 1]


def test_a_ready_pending_ready_move_reuses_its_heap_entry() -> None:
    s = Scheduler(5)
    s.submit("a")
    s.submit("b", ["a"])
    s.start()
    s.ready()
    s.complete("a", 1)
    s.submit("a")  # b: READY -> PENDING, its entry stays (stale)
    assert s.metrics().stale_entries == 1
    s.ready()
    s.complete("a", 2)  # b: READY again, the same entry is live again
    m = s.metrics()
    assert (m.heap_entries, m.stale_entries) == (1, 0)
    s.check_invariants()


def test_a_chain_of_200k_submitted_backwards_starts_without_recursion() -> None:
    n = 200_000
    s = Scheduler(1)
    for i in range(n):  # every dep is named before it is submitted: the full search runs
        s.submit(i, [i + 1] if i + 1 < n else [])
    s.start()
    assert [c.task_id for c in s.ready()] == [n - 1]


def test_a_cycle_200k_long_is_reported_whole() -> None:
    n = 200_000
    s = Scheduler(1)
    for i in range(n):
        s.submit(i, [(i + 1) % n])
    with pytest.raises(CycleError) as e:
        s.start()
    cycle = e.value.cycle
    assert len(cycle) == n + 1 and cycle[0] == cycle[-1]
    assert all(dep == (task + 1) % n for dep, task in itertools.pairwise(cycle))


def test_start_skips_the_cycle_search_when_every_edge_points_back(monkeypatch: Any) -> None:
    def boom(self: Any) -> None:
        raise AssertionError("the full search ran")

    monkeypatch.setattr(Scheduler, "_find_cycle", boom)
    s = Scheduler(1)
    for i in range(100):
        s.submit(i, [i - 1] if i else [])
    s.start()  # submitted in topological order: acyclic by construction
    t = Scheduler(1)
    t.submit("b", ["a"])
    t.submit("a")
    with pytest.raises(AssertionError, match="the full search ran"):
        t.start()


def test_the_incremental_cycle_check_searches_only_from_the_new_edges(monkeypatch: Any) -> None:
    s = Scheduler(1)
    for i in range(1000):
        s.submit(i, [i - 1] if i else [])
    s.submit("x")
    s.start()
    visited: list[int] = []
    real = core_mod.slots

    def spy(buf: Any) -> Any:  # every dependents buffer the search reads
        visited.append(len(real(buf)))
        return real(buf)

    monkeypatch.setattr(core_mod, "slots", spy)
    with pytest.raises(CycleError) as e:
        s.submit(998, [999])
    assert e.value.cycle == [998, 999, 998]
    assert visited == [1]  # the search started at 998 and found 999 at once


def test_ghosts_are_dropped_when_nothing_names_them_any_more() -> None:
    s = Scheduler(1)
    s.submit("a", ["nope", "nope2"])
    s.check_invariants()
    assert set(s._ghosts) == {"nope", "nope2"}
    s.submit("a", ["b"])
    assert set(s._ghosts) == {"b"}
    s.submit("b")
    assert not s._ghosts
    s.check_invariants()
    s.start()


def test_metrics_count_states_callbacks_and_durations_with_the_given_clock() -> None:
    now = [0.0]
    s = Scheduler(2, clock=lambda: now[0])
    s.submit("a")
    s.submit("b", ["a"])
    s.start()
    now[0] = 2.0
    s.ready()
    now[0] = 5.0
    s.complete("a", 1)
    s.complete("a", 1)
    s.complete("a", 7)
    s.cancel("b")
    m = s.metrics()
    assert m.states == {"SUCCEEDED": 1, "CANCELLED": 1}
    assert (m.claims, m.duplicate_callbacks, m.stale_callbacks, m.blocked) == (1, 1, 1, 0)
    assert (m.ready_wait_count, m.ready_wait_total, m.ready_wait_max) == (1, 2.0, 2.0)
    assert (m.run_count, m.run_total, m.run_max) == (1, 3.0, 3.0)


def test_check_invariants_tells_the_story_of_a_corrupted_count() -> None:
    s = Scheduler(1)
    s.submit("a")
    s.submit("b", ["a"])
    s._wait[s._slot["b"]] = 0
    with pytest.raises(AssertionError, match=r"'b' g1 :: waiting=0, recount 1"):
        s.check_invariants()


def test_check_invariants_catches_a_missing_reverse_edge() -> None:
    s = Scheduler(1)
    s.submit("a")
    s.submit("b", ["a"])
    s._out[s._slot["a"]] = None
    story = "'b' g1 :: reverse edges from 'a' do not match its deps"
    with pytest.raises(AssertionError, match=story):
        s.check_invariants()


class RecordingLock:
    """A lock that counts acquisitions and knows whether it is held."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.acquired = 0
        self.held = False

    def __enter__(self) -> RecordingLock:
        self._lock.acquire()
        self.acquired += 1
        self.held = True
        return self

    def __exit__(self, *exc: object) -> None:
        self.held = False
        self._lock.release()


PUBLIC_CALLS = [
    ("submit", lambda s: s.submit("c", ["a"])),
    ("start", lambda s: s.start()),
    ("ready", lambda s: s.ready()),
    ("complete", lambda s: s.complete("a", 1)),
    ("fail", lambda s: s.fail("a", 1)),
    ("cancel", lambda s: s.cancel("b")),
    ("cancel_requested", lambda s: s.cancel_requested("a", 1)),
    ("info", lambda s: s.info("a")),
    ("close", lambda s: s.close()),
    ("add_dependency", lambda s: s.add_dependency("b", "a")),
    ("retry", lambda s: s.retry("a")),
    ("task_ids", lambda s: s.task_ids()),
    ("deps_of", lambda s: s.deps_of("b")),
    ("snapshot", lambda s: s.snapshot()),
    ("metrics", lambda s: s.metrics()),
    ("check_invariants", lambda s: s.check_invariants()),
]


@pytest.mark.parametrize(("name", "call"), PUBLIC_CALLS, ids=[n for n, _ in PUBLIC_CALLS])
def test_every_public_method_takes_the_injected_lock(name: str, call: Any) -> None:
    locks: list[RecordingLock] = []

    def factory() -> RecordingLock:
        locks.append(RecordingLock())
        return locks[-1]

    s = Scheduler(2, lock_factory=factory)
    s.submit("a")
    s.submit("b", ["a"])
    s.start()
    lock = locks[0]
    before = lock.acquired
    call(s)
    assert lock.acquired > before, f"{name}() did not take the lock"
    assert not lock.held


def test_a_repeated_dep_on_the_fast_path_is_linked_per_occurrence_and_released_once() -> None:
    s = Scheduler(3)
    s.submit("a")
    s.submit("b", ["a", "a"])
    assert s._wait[s._slot["b"]] == 2 and s.deps_of("b") == ("a",)
    s.start()
    s.ready()
    assert s.complete("a", 1).outcome is Outcome.APPLIED
    assert s.info("b").state is R
    s.submit("a")  # b goes back to PENDING, counting both occurrences again
    assert s.info("b").state is P and s._wait[s._slot["b"]] == 2
    s.check_invariants()


def test_two_threads_claiming_at_once_never_exceed_max_concurrency() -> None:
    s = Scheduler(3)
    for i in range(300):
        s.submit(i)
    s.start()
    barrier = threading.Barrier(2)
    got: list[list[Any]] = [[], []]

    def worker(k: int) -> None:
        barrier.wait()
        while True:
            claims = s.ready(limit=1)
            if not claims:
                if s.metrics().states.get("READY", 0) == 0:
                    return
                continue
            got[k].extend(c.task_id for c in claims)
            assert s.metrics().states.get("RUNNING", 0) <= 3
            s.complete(claims[0].task_id, 1)

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(got[0] + got[1]) == list(range(300))
    s.check_invariants()


def test_retry_of_a_failed_hub_resubmits_its_blocked_dependents_in_one_pass() -> None:
    s = Scheduler(1)
    s.submit("hub")
    for i in range(3000):
        s.submit(i, ["hub", "hub"] if i % 2 else ["hub"])
    s.start()
    s.ready()
    s.fail("hub", 1)
    calls: list[int] = []
    real = Scheduler._unlink_all

    def spy(self: Any, recs: Any) -> None:
        calls.append(len(recs))
        real(self, recs)

    Scheduler._unlink_all = spy  # type: ignore[method-assign]
    try:
        assert len(s.retry("hub")) == 3001
    finally:
        Scheduler._unlink_all = real  # type: ignore[method-assign]
    assert calls == [3001]
    assert len(slots(s._out[s._slot["hub"]])) == 3000  # the retried deps are de-duplicated
    s.check_invariants()
    s.ready()
    s.complete("hub", 2)
    assert s.metrics().states == {"SUCCEEDED": 1, "READY": 3000}


def test_copy_is_equal_independent_and_has_its_own_lock() -> None:
    s = Scheduler(2)
    s.submit("b", ["a"])
    s.submit("a")
    s.submit("c", ["a"], optional=["b"])
    c = s.copy()
    assert c == s and c._lock is not s._lock
    s.start()
    c.start()
    s.ready()
    assert c != s
    c.ready()
    assert c == s
    c.complete("a", 1)
    assert s.info("a").state is RUN and c.info("b").state is R
    c.check_invariants()
    s.check_invariants()
