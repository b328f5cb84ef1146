"""The producer-queue wheel: the same wheel suite as the bundled wheels, on the queue's core and
on the threaded timer (through a fake-clock adapter); a queue drained in the wrong order is
caught; producers on several threads only queue, and every ticket has exactly one outcome."""

from __future__ import annotations

import gc
import threading
import weakref
from typing import Any

import pytest
from schedcheck.impl.wheel.driver import BoundedExecutor, FakeClock
from schedcheck.impl.wheel.queued_driver import QueuedWheel, QueuedWheelTimer, Ticket

from schedcheck.contract import require_int
from schedcheck.harness.result import HELD
from schedcheck.harness.wheel.suite import run_wheel_suite
from tests.counts import quarter_and_whole

EXACT = ("W1", "W2", "W3", "W4", "W5", "W6", "W-INV-EARLY", "W-INV-ONCE", "W-INV-LATE",
         "W-INV-PENDING", "W-T1", "W-T2", "W-T3", "W-T4")


@quarter_and_whole("the whole count of the wheel suite through the queued driver: 27 s")
def test_the_queued_wheel_holds_every_clause_of_the_wheel_suite(examples: int) -> None:
    result = run_wheel_suite(QueuedWheel, target_name="QueuedWheel", seed=1, examples=examples)
    assert result.counterexample is None, result.counterexample.message
    verdicts = {cid: s.verdict for cid, s in result.stats.items()}
    assert {c: verdicts[c] for c in EXACT} == dict.fromkeys(EXACT, HELD)
    assert result.unsupported == []


class NewestFirstQueuedWheel(QueuedWheel):
    """Drains the producer queue as a stack: timers due on one tick fire out of order."""

    def drain(self) -> int:
        self._requests.reverse()
        return super().drain()


def test_a_queue_drained_newest_first_is_caught_by_the_suite() -> None:
    # the ci profile's example budget whatever the environment's profile: the quicker dev
    # profile stops, at this seed, before the first program that reorders a tick
    result = run_wheel_suite(NewestFirstQueuedWheel, seed=1, shrink=False, profile="ci")
    assert result.counterexample is not None
    assert result.counterexample.clause in {"W-T2", "W5", "W-T1", "W2", "W3"}  # an order


class ThreadedQueuedTimer:
    """The threaded timer behind the contract's interface: time is a FakeClock that
    ``advance`` moves; the tick thread reacts (``wait_idle``) and the executor (no workers)
    runs the fired callbacks here, so ``advance`` returns what fired, in firing order.

    The service processes the instant it starts at (its tick thread's first pass), while the
    contract's fresh wheel has not processed its start tick yet (``lag_ticks()`` is 1): a
    timer scheduled before the first ``advance`` with a deadline at or before ``start`` is
    due at the start tick. So the service starts one tick earlier -- its cursor is then the
    contract's ``start // tick`` -- and the last ``now`` (``start`` until the first
    ``advance``) is kept here. The tick thread is stopped when the adapter is collected."""

    def __init__(self, tick: int, wheel_size: int, *, start: int = 0,
                 max_pending: int | None = None) -> None:
        legal = all(isinstance(v, int) and not isinstance(v, bool) for v in (tick, start))
        self.clock = FakeClock(start - tick if legal and tick > 0 else start)
        self.executor = BoundedExecutor(workers=0, capacity=1 << 20)
        self.timer = QueuedWheelTimer(tick, wheel_size, clock=self.clock,
                                      executor=self.executor, max_pending=max_pending)
        weakref.finalize(self, _release, self.timer, self.clock)
        self.last_now = start
        self.fired: list[Ticket] = []  #: cleared, never replaced: the callbacks hold it
        self.clock.wait_idle()

    def schedule(self, deadline: int, callback: Any) -> Ticket:
        box: list[Ticket] = []
        if not callable(callback):  # the timer checks it; wrapping would hide it
            return self.timer.schedule(deadline, callback)
        fired = self.fired  # not self: the tick thread must not keep the adapter alive
        ticket = self.timer.schedule(deadline, lambda: fired.append(box[0]))
        box.append(ticket)
        return ticket

    def schedule_after(self, delay: int, callback: Any) -> Ticket:
        require_int(delay, "delay")
        return self.schedule(self.last_now + delay, callback)

    def cancel(self, handle: Any) -> bool:
        return self.timer.cancel(handle)

    def advance(self, now: int) -> list[Ticket]:
        require_int(now, "now")
        if now < self.last_now:  # the clock may still be a tick behind start: checked here
            raise ValueError(f"advance({now}) is earlier than the last now {self.last_now}")
        self.clock.set(now)
        self.last_now = now
        self.clock.wait_idle()
        self.executor.run_queued()
        fired = list(self.fired)
        self.fired.clear()
        return fired

    def pending(self) -> int:
        return self.timer.pending()


def _release(timer: QueuedWheelTimer, clock: FakeClock) -> None:
    """Let a collected adapter's tick thread end (no join: the collector may run anywhere,
    the tick thread included): the stop flag, then a wake so the thread sees it."""
    timer._stopping = True
    clock.wake()


def test_the_threaded_queued_timer_holds_the_wheel_suite_through_a_fake_clock() -> None:
    result = run_wheel_suite(ThreadedQueuedTimer, target_name="ThreadedQueuedTimer", seed=2,
                             examples=40)
    assert result.counterexample is None, result.counterexample.message
    verdicts = {cid: s.verdict for cid, s in result.stats.items()}
    for cid in ("W2", "W4", "W5", "W-INV-EARLY", "W-INV-ONCE", "W-INV-LATE", "W-INV-PENDING",
                "W-T1", "W-T2", "W-T3"):
        assert verdicts[cid] == HELD, (cid, verdicts[cid])
    # every example's adapter, once collected, lets its tick thread end: none is left behind
    # in this process (they would run, and drop cyclic garbage, during later tests)
    gc.collect()
    for thread in [t for t in threading.enumerate() if t.name == "queued-wheel-tick"]:
        thread.join(timeout=10)
    assert not [t for t in threading.enumerate() if t.name == "queued-wheel-tick"]


def test_producers_on_four_threads_only_queue_and_each_ticket_has_one_outcome() -> None:
    clock = FakeClock(0)
    executor = BoundedExecutor(workers=0, capacity=1 << 16)
    timer = QueuedWheelTimer(10, 8, clock=clock, executor=executor)
    ran: list[int] = []
    outcomes: dict[int, bool] = {}
    lock = threading.Lock()
    barrier = threading.Barrier(4)

    def producer(p: int) -> None:
        barrier.wait()
        for i in range(200):
            n = p * 1000 + i
            ticket = timer.schedule(10 + (n * 7) % 300, lambda n=n: ran.append(n))
            if i % 3 == 0:
                with lock:
                    outcomes[n] = timer.cancel(ticket)
            else:
                with lock:
                    outcomes[n] = False

    threads = [threading.Thread(target=producer, args=(p,)) for p in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    clock.wait_idle()
    for now in range(0, 400, 10):
        clock.set(now)
        clock.wait_idle()
    executor.run_queued()
    m = timer.metrics()
    assert timer.stop() == []
    cancelled = {n for n, c in outcomes.items() if c}
    assert len(cancelled) == 4 * 67  # every cancel was of a pending timer, so each won
    assert sorted(ran) == sorted(set(outcomes) - cancelled)  # the rest fired, each once
    assert m.scheduled == 800 and m.cancelled == len(cancelled) and m.fired == len(ran)
    assert m.request_queue == 0 and m.max_request_queue >= 1
    assert m.ticks_scanned == 40  # ticks 0..39, one bucket visit each


def test_a_cancel_that_loses_to_the_tick_thread_is_refused_and_one_that_wins_never_runs(
        ) -> None:
    wheel = QueuedWheel(10, 4)
    won = wheel.schedule(15, lambda: None)
    assert wheel.cancel(won) and not wheel.cancel(won)  # decided at once, unlinked later
    late = wheel.schedule(15, lambda: None)
    assert wheel.queued() == 3  # two schedules and one unlink, nothing applied yet
    assert wheel.advance(20) == [late] and late.fired and not won.fired
    assert not wheel.cancel(late) and wheel.pending() == 0
    with pytest.raises(TypeError, match="Ticket"):
        wheel.cancel(object())  # type: ignore[arg-type]
    assert QueuedWheel(10, 4).cancel(late) is False  # another wheel's ticket


class InlineExecutor(BoundedExecutor):
    """Runs each callback at once on the thread that offers it: the tick thread."""

    def offer(self, fn: Any, priority: int = 0) -> bool:
        fn()
        return True


def test_stop_from_the_tick_thread_is_refused_and_the_timer_stops_from_another() -> None:
    clock = FakeClock(0)
    timer = QueuedWheelTimer(10, 8, clock=clock, executor=InlineExecutor(workers=0))
    errors: list[BaseException] = []
    ran_on: list[threading.Thread] = []

    def stop_inline() -> None:
        ran_on.append(threading.current_thread())
        try:
            timer.stop()
        except RuntimeError as exc:
            errors.append(exc)

    timer.schedule(10, stop_inline)
    clock.wait_idle()
    clock.set(10)
    clock.wait_idle()
    assert len(ran_on) == 1 and ran_on[0] is not threading.current_thread()
    assert len(errors) == 1 and "called from the wheel's tick thread" in str(errors[0])
    assert timer.stop() == []  # from this thread it joins the tick thread and returns
