"""The baton on tiny hand-written racy programs: lost update, deadlock, determinism."""

from __future__ import annotations

import threading

import pytest
from hypothesis import given
from hypothesis import strategies as st

from schedcheck.concurrency import baton
from schedcheck.concurrency import primitives as P
from schedcheck.concurrency.patching import patched


class Counter:
    """check-then-act across two critical sections: read under the lock, write under it again."""

    def __init__(self) -> None:
        self.lock = P.Lock()
        self.value = 0

    def increment(self) -> None:
        with self.lock:
            seen = self.value
        with self.lock:
            self.value = seen + 1


def run_counter(schedule: list[int]) -> tuple[int, baton.RunOutcome]:
    counter = Counter()
    out = baton.run([counter.increment, counter.increment], schedule)
    return counter.value, out


def test_without_preemption_the_counter_is_correct() -> None:
    value, out = run_counter([])
    assert value == 2
    assert out.preemptions == 0
    assert [lane for lane, _ in out.trace][:1] == ["t0"]


def test_a_preemption_between_the_two_critical_sections_loses_an_update() -> None:
    # t0's switch points: 0 acquire, 1 release, 2 acquire ... preempt after the first release.
    value, out = run_counter([0, 1, 0])
    assert value == 1
    assert out.preemptions == 1


FAILING: list[list[int]] = []


@given(st.lists(st.integers(0, 6), max_size=12))
def _search(schedule: list[int]) -> None:
    value, _ = run_counter(schedule)
    if value != 2:
        FAILING.append(schedule)
    assert value == 2


def test_hypothesis_finds_the_lost_update_and_shrinks_it_to_one_preemption() -> None:
    FAILING.clear()
    with pytest.raises(AssertionError):
        _search()
    shrunk = FAILING[-1]  # the last failing call is the shrunk example Hypothesis reports
    assert len(shrunk) <= 3
    value, out = run_counter(shrunk)
    assert value == 1 and out.preemptions == 1


def test_one_schedule_gives_one_trace_ten_times_out_of_ten() -> None:
    schedule = [0, 1, 0, 1, 1, 0, 0, 3, 0]
    first_value, first = run_counter(schedule)
    for _ in range(10):
        value, again = run_counter(schedule)
        assert value == first_value
        assert again.trace == first.trace
        assert again.signature() == first.signature()


def test_locks_taken_in_opposite_orders_deadlock_with_the_wait_for_cycle() -> None:
    a, b = P.Lock(), P.Lock()

    def ab() -> None:
        with a, b:
            pass

    def ba() -> None:
        with b, a:
            pass

    ok = baton.run([ab, ba], [])
    assert not ok.deadlock
    # t0 takes a (points 0 acquire a), then is preempted before acquiring b (point 1).
    out = baton.run([ab, ba], [0, 1, 0])
    assert out.deadlock
    assert sorted(map(tuple, out.wait_for)) == [("t0", "t1"), ("t1", "t0")]
    assert out.cycle[0] == out.cycle[-1] and set(out.cycle) == {"t0", "t1"}
    assert "deadlock" in out.describe_failure() and "t0" in out.describe_failure()


def test_an_exception_in_a_lane_is_its_result_not_a_crash() -> None:
    def boom() -> None:
        raise KeyError("x")

    out = baton.run([boom, lambda: 7], [])
    assert isinstance(out.errors["t0"], KeyError)
    assert out.lanes[1].result == 7


def test_condition_and_queue_hand_items_between_lanes() -> None:
    q = P.Queue(maxsize=1)
    got: list[int] = []

    def producer() -> None:
        for i in range(3):
            q.put(i)

    def consumer() -> None:
        for _ in range(3):
            got.append(q.get())

    for schedule in ([], [0, 0, 0], [1, 0, 0, 0, 1, 0], [0, 2, 0, 1, 1, 0]):
        got.clear()
        out = baton.run([producer, consumer], schedule)
        assert not out.deadlock and got == [0, 1, 2]


def test_an_event_nobody_sets_is_a_deadlock_without_a_cycle() -> None:
    e = P.Event()
    out = baton.run([e.wait], [])
    assert out.deadlock and out.cycle == []
    assert "lost wake-up" in out.describe_failure()


def test_a_timed_wait_times_out_only_when_nobody_can_run() -> None:
    e = P.Event()
    cond = P.Condition()
    seen: list[bool] = []

    def waiter() -> None:
        seen.append(e.wait(timeout=5))
        with cond:
            seen.append(cond.wait(timeout=1))

    def setter() -> None:
        e.set()

    out = baton.run([waiter, setter], [])
    assert not out.deadlock
    assert seen == [True, False]


def test_patched_threading_makes_a_strangers_threads_managed_lanes() -> None:
    with patched() as names:
        assert "threading.Lock" in names
        lock = threading.Lock()
        box = {"n": 0}

        def worker() -> None:
            with lock:
                seen = box["n"]
            with lock:
                box["n"] = seen + 1

        def main() -> None:
            threads = [threading.Thread(target=worker) for _ in range(2)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()

        out = baton.run([main], [])
        assert box["n"] == 2 and len(out.lanes) == 3
    assert threading.Lock is baton._RealLock and threading.Event is not P.Event


def test_a_livelock_is_caught_by_the_step_bound() -> None:
    lock = P.Lock()

    def spin() -> None:
        while True:
            with lock:
                pass

    out = baton.run([spin], [], max_steps=100)
    assert out.livelock and "livelock" in out.describe_failure()
