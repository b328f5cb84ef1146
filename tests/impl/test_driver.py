"""WheelTimer under a fake clock and a controllable executor: never sleeps, never races.

``FakeClock.wait_idle()`` returns once the tick thread has reacted to the latest clock move and
blocked again; an executor with ``workers=0`` runs nothing until ``run_queued()``."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest
from schedcheck.impl import HashedTimingWheel, HierarchicalTimingWheel, WheelTimer
from schedcheck.impl.wheel.driver import BoundedExecutor, FakeClock, OverloadError

from schedcheck import model

TICK = 10


class LoggingClock(FakeClock):
    """Records every deadline the tick thread sleeps until."""

    def __init__(self) -> None:
        super().__init__(0)
        self.sleeps: list[int | None] = []

    def sleep_until(self, deadline_ns: int | None) -> None:
        self.sleeps.append(deadline_ns)
        super().sleep_until(deadline_ns)


class RecordingWheel(HashedTimingWheel):
    """Records how many handles each advance fired and the lag after it."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.steps: list[tuple[int, int]] = []
        self.hook: Any = None

    def advance(self, now: int) -> list[Any]:
        if self.hook is not None:
            self.hook()
        fired = super().advance(now)
        self.steps.append((len(fired), self.lag_ticks()))
        return fired


@pytest.fixture
def clock() -> LoggingClock:
    return LoggingClock()


@pytest.fixture
def timers() -> Iterator[list[WheelTimer]]:
    made: list[WheelTimer] = []
    yield made
    for t in made:
        t.stop()


def make(timers: list[WheelTimer], clock: FakeClock, **kwargs: Any) -> WheelTimer:
    kwargs.setdefault("executor", BoundedExecutor(0, 64))
    t = WheelTimer(TICK, 8, clock=clock, **kwargs)
    timers.append(t)
    clock.wait_idle()
    return t


def test_a_timer_runs_on_the_executor_once_the_clock_reaches_its_deadline(
    clock: LoggingClock, timers: list[WheelTimer]
) -> None:
    ex = BoundedExecutor(0, 8)
    t = make(timers, clock, executor=ex)
    ran: list[str] = []
    t.schedule(35, lambda: ran.append("a"))
    clock.wait_idle()
    clock.set(34)
    clock.wait_idle()
    assert ex.run_queued() == 0
    clock.set(40)
    clock.wait_idle()
    assert ex.run_queued() == 1
    assert ran == ["a"]
    m = t.metrics()
    assert (m.scheduled, m.fired, m.lateness) == (1, 1, {3: 1})  # 5 ns late: [4, 8)


@pytest.mark.parametrize(
    ("factory", "first_wake", "second_wake"),
    [(HashedTimingWheel, 40, 120), (HierarchicalTimingWheel, 4480, 4960)],
    ids=["hashed", "hierarchical"],
)
def test_the_tick_thread_sleeps_until_the_next_expiry_not_every_tick(
    clock: LoggingClock, timers: list[WheelTimer], factory: Any, first_wake: int,
    second_wake: int,
) -> None:
    t = make(timers, clock, wheel_factory=factory)
    assert clock.sleeps == [None]  # nothing pending: sleep until woken
    t.schedule(5000, lambda: None)  # due tick 500, bucket 4 of 8
    clock.wait_idle()
    # hashed: the timer's bucket comes round at ticks 4, 12, ... (once per rotation);
    # hierarchical: the cascades of its level-2 slot (tick 448) and level-1 slot (496)
    assert clock.sleeps[-1] == first_wake
    clock.set(first_wake)
    clock.wait_idle()
    assert clock.sleeps[-1] == second_wake


def test_a_sooner_schedule_wakes_the_sleeping_tick_thread(
    clock: LoggingClock, timers: list[WheelTimer]
) -> None:
    t = make(timers, clock, wheel_factory=HierarchicalTimingWheel)
    t.schedule(100_000, lambda: None)
    clock.wait_idle()
    far = clock.sleeps[-1]
    assert far is not None and far > 1000
    t.schedule(25, lambda: None)
    clock.wait_idle()
    assert clock.sleeps[-1] == 30  # due tick 3


def test_a_stalled_tick_thread_catches_up_in_bounded_steps_and_reports_the_lag(
    clock: LoggingClock, timers: list[WheelTimer]
) -> None:
    wheels: list[RecordingWheel] = []

    def factory(*args: Any, **kwargs: Any) -> RecordingWheel:
        wheels.append(RecordingWheel(*args, **kwargs))
        return wheels[-1]

    ex = BoundedExecutor(0, 64)
    t = make(timers, clock, executor=ex, wheel_factory=factory, max_catchup_ticks=4)
    for k in range(1, 21):
        t.schedule(k * TICK, lambda: None)
    clock.wait_idle()
    start = len(wheels[0].steps)
    clock.set(20 * TICK)  # the thread "stalled" through 20 ticks
    clock.wait_idle()
    steps = wheels[0].steps[start:]
    assert [fired for fired, _ in steps] == [4, 4, 4, 4, 4]
    assert [lag for _, lag in steps] == [16, 12, 8, 4, 0]
    m = t.metrics()
    assert (m.max_lag_ticks, m.catchup_ticks, m.lag_ticks, m.fired) == (20, 15, 0, 20)
    assert ex.run_queued() == 20


def test_reject_policy_counts_refused_callbacks(
    clock: LoggingClock, timers: list[WheelTimer]
) -> None:
    ex = BoundedExecutor(0, 1, "reject")
    t = make(timers, clock, executor=ex)
    ran: list[int] = []
    for i in range(3):
        t.schedule(TICK, lambda i=i: ran.append(i))
    clock.wait_idle()
    clock.set(TICK)
    clock.wait_idle()
    assert ex.run_queued() == 1
    assert ran == [0]
    assert t.metrics().rejected == 2
    with pytest.raises(OverloadError, match="queue is full"):
        ex.offer(lambda: None)
        ex.offer(lambda: None)


def test_drop_lowest_priority_keeps_the_most_important_callbacks(
    clock: LoggingClock, timers: list[WheelTimer]
) -> None:
    ex = BoundedExecutor(0, 2, "drop-lowest-priority")
    t = make(timers, clock, executor=ex)
    ran: list[int] = []
    for priority in (1, 5, 3, 0):
        t.schedule(TICK, lambda p=priority: ran.append(p), priority=priority)
    clock.wait_idle()
    clock.set(TICK)
    clock.wait_idle()
    ex.run_queued()
    assert sorted(ran) == [3, 5]
    assert t.metrics().dropped == 2


def test_defer_policy_retries_on_the_next_tick(
    clock: LoggingClock, timers: list[WheelTimer]
) -> None:
    ex = BoundedExecutor(0, 1, "defer")
    t = make(timers, clock, executor=ex)
    ran: list[str] = []
    t.schedule(TICK, lambda: ran.append("a"))
    t.schedule(TICK, lambda: ran.append("b"))
    clock.wait_idle()
    clock.set(TICK)
    clock.wait_idle()
    m = t.metrics()
    assert (m.deferred, m.deferred_waiting) == (1, 1)
    assert clock.sleeps[-1] == 2 * TICK  # wakes next tick to retry
    ex.run_queued()
    assert ran == ["a"]
    clock.set(2 * TICK)
    clock.wait_idle()
    ex.run_queued()
    assert ran == ["a", "b"]
    assert t.metrics().deferred_waiting == 0


def test_a_raising_callback_is_logged_and_counted_and_others_still_run(
    clock: LoggingClock, timers: list[WheelTimer], caplog: pytest.LogCaptureFixture
) -> None:
    ex = BoundedExecutor(1, 8)  # a real worker thread
    t = make(timers, clock, executor=ex)
    done = threading.Event()

    def boom() -> None:
        raise RuntimeError("boom")

    t.schedule(TICK, boom)
    t.schedule(TICK, done.set)
    clock.wait_idle()
    clock.set(TICK)
    clock.wait_idle()
    assert done.wait(10)
    ex.shutdown()  # joins the worker: its counters are final
    assert t.metrics().callback_failures == 1
    assert "raised" in caplog.text


def test_stop_returns_the_unfired_timers_and_is_idempotent(
    clock: LoggingClock, timers: list[WheelTimer]
) -> None:
    t = make(timers, clock)
    a = t.schedule(TICK, lambda: None)
    b = t.schedule(50 * TICK, lambda: None)
    c = t.schedule(60 * TICK, lambda: None)
    t.cancel(c)
    clock.wait_idle()
    clock.set(TICK)
    clock.wait_idle()
    assert a.fired
    assert t.stop() == [b]
    assert t.stop() == []
    assert t.cancel(b) is False
    with pytest.raises(RuntimeError, match="WheelTimer is stopped"):
        t.schedule(100, lambda: None)


def test_stop_from_the_tick_thread_is_refused(
    clock: LoggingClock, timers: list[WheelTimer]
) -> None:
    wheels: list[RecordingWheel] = []
    errors: list[BaseException] = []

    def factory(*args: Any, **kwargs: Any) -> RecordingWheel:
        wheels.append(RecordingWheel(*args, **kwargs))
        return wheels[-1]

    t = make(timers, clock, wheel_factory=factory)

    def stop_inline() -> None:
        wheels[0].hook = None
        try:
            t.stop()
        except RuntimeError as exc:
            errors.append(exc)

    wheels[0].hook = stop_inline
    clock.set(TICK)
    clock.wait_idle()
    assert len(errors) == 1
    assert "called from the wheel's tick thread" in str(errors[0])


def test_schedule_and_cancel_from_many_threads(
    clock: LoggingClock, timers: list[WheelTimer]
) -> None:
    ex = BoundedExecutor(0, 10_000)
    t = make(timers, clock, executor=ex)
    counts = [0]
    lock = threading.Lock()

    def cb() -> None:
        with lock:
            counts[0] += 1

    cancelled = [0] * 4

    def client(i: int) -> None:
        hs = [t.schedule((j % 50 + 1) * TICK, cb) for j in range(200)]
        cancelled[i] = sum(t.cancel(h) for h in hs[::3])

    threads = [threading.Thread(target=client, args=(i,)) for i in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    clock.wait_idle()
    clock.set(60 * TICK)
    clock.wait_idle()
    ex.run_queued()
    assert counts[0] == 800 - sum(cancelled)
    assert sum(cancelled) == 4 * 67
    m = t.metrics()
    assert (m.scheduled, m.cancelled, m.fired) == (800, 268, 532)
    assert t.pending() == 0


def test_the_real_monotonic_clock_fires_a_due_timer() -> None:
    t = WheelTimer(1_000_000, 64, workers=1)
    fired = threading.Event()
    try:
        t.schedule_after(0, fired.set)
        assert fired.wait(10)
    finally:
        assert t.stop() == []


def test_a_wheel_without_next_event_tick_is_polled_once_per_tick(
    clock: LoggingClock, timers: list[WheelTimer]
) -> None:
    ex = BoundedExecutor(0, 8)
    t = make(timers, clock, executor=ex, wheel_factory=model.TimingWheel)
    assert clock.sleeps == [None]
    t.schedule(5 * TICK, lambda: None)
    clock.wait_idle()
    assert clock.sleeps[-1] == TICK  # the next tick: the model cannot say more
    clock.set(5 * TICK)
    clock.wait_idle()
    assert ex.run_queued() == 1
    assert clock.sleeps[-1] is None


class BackwardClock(FakeClock):
    """A clock that can go back (a wall clock after an NTP step), unlike FakeClock."""

    def set_back(self, now_ns: int) -> None:
        with self._cv:
            self._now = now_ns
            self._moves += 1
            self._cv.notify_all()


def test_a_clock_going_back_is_held_and_counted_not_fatal(timers: list[WheelTimer]) -> None:
    clock = BackwardClock(100)
    ex = BoundedExecutor(0, 8)
    t = make(timers, clock, executor=ex)
    t.schedule(120, lambda: None)
    clock.wait_idle()
    clock.set_back(50)
    clock.wait_idle()
    assert t.metrics().clock_regressions == 1
    clock.set(120)
    clock.wait_idle()
    assert ex.run_queued() == 1  # the tick thread survived


def test_a_dead_tick_thread_is_reported_not_silent(
    clock: LoggingClock, timers: list[WheelTimer], caplog: pytest.LogCaptureFixture
) -> None:
    wheels: list[RecordingWheel] = []

    def factory(*args: Any, **kwargs: Any) -> RecordingWheel:
        wheels.append(RecordingWheel(*args, **kwargs))
        return wheels[-1]

    t = make(timers, clock, wheel_factory=factory)

    def explode() -> None:
        raise ZeroDivisionError("a bug in the wheel")

    wheels[0].hook = explode
    done = threading.Event()
    original = threading.excepthook
    threading.excepthook = lambda args: done.set()  # the thread re-raises after logging
    try:
        clock.set(TICK)
        assert done.wait(10)
    finally:
        threading.excepthook = original
    assert "tick thread died" in caplog.text
    with pytest.raises(RuntimeError, match=r"tick thread died .*ZeroDivisionError"):
        t.schedule(5 * TICK, lambda: None)
