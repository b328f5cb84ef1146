"""WheelTimer: the real-time shell around a timing wheel (specs/wheel.md decisions 4-7).

Pieces, each small:

* ``Clock`` -- ``now_ns()``, ``sleep_until(deadline_ns | None)`` (may return early) and
  ``wake()``. ``MonotonicClock`` is ``time.monotonic_ns()`` plus an ``Event`` to wait on;
  ``FakeClock`` is test time on a ``Condition`` (CPython's test_sched ``Timer`` idea): its time
  moves only when a test calls ``advance``/``set``, and ``wait_idle`` lets the test wait until
  the tick thread has gone back to sleep -- so tests never sleep and never race.
* ``BoundedExecutor`` -- ``workers`` threads and a queue of at most ``capacity`` callbacks, with
  an overload policy fixed at construction: ``"reject"`` (``OverloadError``, counted),
  ``"drop-lowest-priority"`` (the lowest-priority callback -- queued or new -- is dropped and
  counted) or ``"defer"`` (the offer is refused; the driver keeps the callback in an overflow
  list and retries it on the next tick, counted). Nothing is ever lost silently. With
  ``workers=0`` nothing runs until the caller calls ``run_queued()`` -- the tests' controllable
  executor. Callback exceptions are caught, logged and counted.
* ``WheelTimer`` -- one tick thread: read the clock, ``wheel.advance(now)`` (the wheel keeps the
  ``max_catchup_ticks`` budget, so a stall is caught up in bounded steps, releasing the lock
  between steps so schedule/cancel are never starved), record lag and lateness, hand the fired
  callbacks to the executor (outside every lock), then sleep until the next possible expiry
  (the wheel's ``next_event_tick()``; a wheel without it is polled every tick while timers are
  pending) -- or not at all while a backlog or deferred callbacks remain. A ``schedule`` sooner
  than the planned wake-up wakes the thread early.

Time: wheel time *is* the clock's ns timeline (``start = clock.now_ns()``, ``tick = tick_ns``);
``schedule(deadline_ns)`` takes an absolute instant on that clock, ``schedule_after(delay_ns)``
counts from ``clock.now_ns()`` (not from the tick thread's last ``now``, which may be stale).

Locking: ``_lock`` guards the live-timer map, the deferred list, the metrics and every call
into the wheel (so ``live`` and the wheel agree); the wheel's own lock nests inside it. No
callback and no ``executor.offer`` runs under it. The executor has its own ``Condition``.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from schedcheck.impl.wheel.hashed import HashedTimingWheel

__all__ = [
    "OVERLOAD_POLICIES",
    "BoundedExecutor",
    "FakeClock",
    "Metrics",
    "MonotonicClock",
    "OverloadError",
    "WheelTimer",
]

logger = logging.getLogger("schedcheck.driver")

#: The overload policies of BoundedExecutor (the seed: reject, drop by priority, or defer).
OVERLOAD_POLICIES = ("reject", "drop-lowest-priority", "defer")



def refuse_from_tick_thread(tick_thread: threading.Thread) -> None:
    """``stop()`` joins the tick thread, which cannot join itself: refuse it there."""
    if threading.current_thread() is tick_thread:
        raise RuntimeError(
            "stop() called from the wheel's tick thread (a callback run inline?); "
            "call it from another thread -- callbacks run on the executor"
        )

class OverloadError(RuntimeError):
    """The executor's queue is full and its policy is ``"reject"``."""


# ------------------------------------------------------------------------------------ clocks


class MonotonicClock:
    """``time.monotonic_ns()``; ``sleep_until`` waits on an Event that ``wake()`` sets."""

    def __init__(self) -> None:
        self._wake = threading.Event()

    def now_ns(self) -> int:
        return time.monotonic_ns()

    def sleep_until(self, deadline_ns: int | None) -> None:
        timeout = None if deadline_ns is None else max(0, deadline_ns - time.monotonic_ns()) / 1e9
        self._wake.wait(timeout)
        self._wake.clear()

    def wake(self) -> None:
        self._wake.set()


class FakeClock:
    """Test time: moves only on ``advance``/``set``; every move or ``wake`` ends a sleep.

    ``sleep_until`` returns when the time reaches the deadline, when the time moves at all,
    or on ``wake()`` (early returns are allowed by the ``Clock`` protocol). ``wait_idle()``
    blocks the test until the sleeper has entered ``sleep_until`` after the last move and is
    blocked there, i.e. the tick thread has finished reacting to it.
    """

    def __init__(self, start_ns: int = 0, *, guard_s: float = 10.0) -> None:
        self._cv = threading.Condition()
        self._now = start_ns
        self._moves = 0  #: how many advance/set/wake calls so far
        self._woken = False  #: wake() called since the last sleep_until returned
        self._sleeping_since: int | None = None  #: _moves when the sleeper blocked, or None
        self._guard_s = guard_s  #: a wait_idle that takes longer than this is a test bug

    def now_ns(self) -> int:
        with self._cv:
            return self._now

    def sleep_until(self, deadline_ns: int | None) -> None:
        with self._cv:
            entry = self._moves
            while (
                not self._woken
                and self._moves == entry
                and (deadline_ns is None or self._now < deadline_ns)
            ):
                self._sleeping_since = entry
                self._cv.notify_all()
                self._cv.wait()
            self._sleeping_since = None
            self._woken = False

    def wake(self) -> None:
        with self._cv:
            self._woken = True  # level-triggered: a wake before the sleep is not lost
            self._moves += 1
            self._cv.notify_all()

    def advance(self, delta_ns: int) -> None:
        self.set(self.now_ns() + delta_ns)

    def set(self, now_ns: int) -> None:
        with self._cv:
            if now_ns < self._now:
                raise ValueError(f"a monotonic clock cannot go back from {self._now} to {now_ns}")
            self._now = now_ns
            self._moves += 1
            self._cv.notify_all()

    def wait_idle(self) -> None:
        """Wait until the sleeper blocks again after the latest move (AssertionError after
        ``guard_s`` seconds: the tick thread is stuck or was never started)."""
        with self._cv:
            ok = self._cv.wait_for(
                lambda: self._sleeping_since is not None and self._sleeping_since == self._moves,
                timeout=self._guard_s,
            )
        assert ok, "the tick thread did not go back to sleep"


# ---------------------------------------------------------------------------------- executor


@dataclass(order=True)
class _Task:
    priority: int
    seq: int  # ties: a later task is dropped first
    fn: Callable[[], None] = field(compare=False)


class BoundedExecutor:
    """``workers`` threads, a queue of at most ``capacity`` tasks, and one overload policy."""

    def __init__(self, workers: int = 2, capacity: int = 1024, policy: str = "reject") -> None:
        if policy not in OVERLOAD_POLICIES:
            raise ValueError(f"policy must be one of {OVERLOAD_POLICIES}, got {policy!r}")
        if isinstance(workers, bool) or not isinstance(workers, int) or workers < 0:
            raise ValueError(f"workers must be an int >= 0, got {workers!r}")
        if isinstance(capacity, bool) or not isinstance(capacity, int) or capacity < 1:
            raise ValueError(f"capacity must be an int >= 1, got {capacity!r}")
        self.policy = policy
        self.capacity = capacity
        self._cv = threading.Condition()
        self._queue: deque[_Task] = deque()
        self._seq = 0
        self._closed = False
        self.rejected = 0  #: offers refused with OverloadError ("reject")
        self.dropped = 0  #: tasks dropped by priority ("drop-lowest-priority")
        self.refused = 0  #: offers refused for later retry ("defer")
        self.failures = 0  #: callbacks that raised
        self.completed = 0  #: callbacks that returned
        self._threads = [
            threading.Thread(target=self._work, name=f"wheel-worker-{i}", daemon=True)
            for i in range(workers)
        ]
        for thread in self._threads:
            thread.start()

    def offer(self, fn: Callable[[], None], priority: int = 0) -> bool:
        """Queue ``fn``; False means "deferred, offer it again later" (policy ``"defer"``)."""
        with self._cv:
            if self._closed:
                raise OverloadError("executor is shut down; no new callbacks are accepted")
            task = _Task(priority, self._seq, fn)
            self._seq += 1
            if len(self._queue) >= self.capacity:
                if self.policy == "reject":
                    self.rejected += 1
                    raise OverloadError(
                        f"executor queue is full ({self.capacity} callbacks waiting); "
                        "add workers, raise capacity, or choose another overload policy"
                    )
                if self.policy == "defer":
                    self.refused += 1
                    return False
                lowest = min(self._queue)
                self.dropped += 1
                if lowest.priority >= priority:
                    logger.warning("dropped callback %r (priority %d): queue full", fn, priority)
                    return True  # the new one is the lowest: it is the one dropped
                self._queue.remove(lowest)
                logger.warning("dropped queued callback %r (priority %d) for one of priority %d",
                               lowest.fn, lowest.priority, priority)
            self._queue.append(task)
            self._cv.notify()
            return True

    def queued(self) -> int:
        with self._cv:
            return len(self._queue)

    def _run(self, task: _Task) -> None:
        try:
            task.fn()
        except Exception:
            logger.exception("timer callback %r raised", task.fn)
            with self._cv:
                self.failures += 1
        else:
            with self._cv:
                self.completed += 1

    def _work(self) -> None:
        while True:
            with self._cv:
                while not self._queue and not self._closed:
                    self._cv.wait()
                if not self._queue:
                    return
                task = self._queue.popleft()
            self._run(task)

    def run_queued(self) -> int:
        """Run every queued task on the calling thread, in order (``workers=0`` executors)."""
        count = 0
        while True:
            with self._cv:
                if not self._queue:
                    return count
                task = self._queue.popleft()
            self._run(task)
            count += 1

    def shutdown(self, timeout: float | None = None) -> None:
        """Refuse new offers; workers finish the queue and exit; join them (not the caller)."""
        with self._cv:
            self._closed = True
            self._cv.notify_all()
        me = threading.current_thread()
        for thread in self._threads:
            if thread is not me:
                thread.join(timeout)


# ------------------------------------------------------------------------------------ driver


@dataclass
class Metrics:
    """A snapshot of the driver's counters (``WheelTimer.metrics()``)."""

    scheduled: int = 0
    fired: int = 0
    cancelled: int = 0  #: cancel() calls that returned True
    rejected: int = 0  #: callbacks the executor refused ("reject"; also offers after stop)
    dropped: int = 0  #: callbacks dropped by priority
    deferred: int = 0  #: offers refused and kept for the next tick ("defer")
    deferred_waiting: int = 0  #: callbacks in the overflow list now
    callback_failures: int = 0
    catchup_ticks: int = 0  #: ticks processed beyond one per tick-thread step (missed ticks)
    lag_ticks: int = 0  #: ticks still behind after the last step
    max_lag_ticks: int = 0  #: the largest lag seen before a step
    clock_regressions: int = 0  #: clock readings below the previous one (held, not applied)
    ticks_scanned: int = 0  #: ticks (buckets) the wheel processed
    scan_ns: int = 0  #: time spent inside wheel.advance (bucket scans), perf_counter ns
    executor_queue: int = 0  #: callbacks waiting in the executor's queue now
    request_queue: int = 0  #: schedule/cancel requests waiting for the tick thread (queued)
    max_request_queue: int = 0  #: the deepest the request queue has been (queued driver)
    #: lateness (fire time - deadline, ns) by power-of-two bucket: key b counts lateness in
    #: [2**(b-1), 2**b) ns; key 0 counts lateness <= 0
    lateness: dict[int, int] = field(default_factory=dict)


class WheelTimer:
    """A real-time timer service: a tick thread driving a wheel, callbacks on an executor."""

    def __init__(
        self,
        tick_ns: int = 1_000_000,
        wheel_size: int = 512,
        *,
        clock: Any = None,
        wheel_factory: Callable[..., Any] = HashedTimingWheel,
        max_catchup_ticks: int = 64,
        max_pending: int | None = None,
        executor: BoundedExecutor | None = None,
        workers: int = 2,
        queue_size: int = 1024,
        overload: str = "reject",
    ) -> None:
        self._clock = clock if clock is not None else MonotonicClock()
        self._tick_ns = tick_ns
        self._executor = executor if executor is not None else BoundedExecutor(
            workers, queue_size, overload
        )
        options: dict[str, Any] = {"start": self._clock.now_ns(),
                                   "max_catchup_ticks": max_catchup_ticks}
        if max_pending is not None:
            options["max_pending"] = max_pending
        self._wheel = wheel_factory(tick_ns, wheel_size, **options)
        self._last_now = options["start"]  #: the last clock reading given to advance
        self._last_now_tick = options["start"] // tick_ns  #: the tick of the last advance's now
        self._lock = threading.Lock()
        self._live: dict[Any, int] = {}  #: unfired, uncancelled handle -> priority
        self._deferred: deque[tuple[Callable[[], None], int]] = deque()
        self._metrics = Metrics()
        self._planned_wake_ns: int | None = None  #: when the tick thread means to wake
        self._stopping = False  #: stop() was called: no new timers, the thread exits
        self._crashed: BaseException | None = None  #: what killed the tick thread, if anything
        self._thread = threading.Thread(target=self._run, name="wheel-tick", daemon=True)
        self._thread.start()

    # -- any thread -------------------------------------------------------------------------

    def schedule(self, deadline_ns: int, callback: Callable[[], Any], *, priority: int = 0
                 ) -> Any:
        """Run ``callback`` on the executor once, not before ``deadline_ns`` (clock time)."""
        with self._lock:
            if self._stopping:
                raise RuntimeError("WheelTimer is stopped; create a new one to schedule timers")
            if self._crashed is not None:
                raise RuntimeError(
                    f"WheelTimer's tick thread died ({self._crashed!r}); timers cannot fire: "
                    "stop() it and create a new one"
                ) from self._crashed
            handle = self._wheel.schedule(deadline_ns, callback)
            self._live[handle] = priority
            self._metrics.scheduled += 1
            wake = self._planned_wake_ns is None or deadline_ns < self._planned_wake_ns
        if wake:
            self._clock.wake()
        return handle

    def schedule_after(self, delay_ns: int, callback: Callable[[], Any], *, priority: int = 0
                       ) -> Any:
        return self.schedule(self._clock.now_ns() + delay_ns, callback, priority=priority)

    def cancel(self, handle: Any) -> bool:
        with self._lock:
            done = bool(self._wheel.cancel(handle))
            if done:
                self._live.pop(handle, None)
                self._metrics.cancelled += 1
            return done

    def pending(self) -> int:
        with self._lock:
            return len(self._live)

    def metrics(self) -> Metrics:
        with self._lock:
            m = Metrics(**{**vars(self._metrics), "lateness": dict(self._metrics.lateness)})
            m.deferred_waiting = len(self._deferred)
        m.callback_failures = self._executor.failures
        m.rejected += self._executor.rejected
        m.dropped = self._executor.dropped
        m.executor_queue = self._executor.queued()
        return m

    def stop(self, timeout: float | None = None) -> list[Any]:
        """Stop the tick thread; cancel and return the timers that never fired (in schedule
        order). Queued callbacks still run; deferred ones are abandoned (logged). Idempotent:
        a second call returns []. Refused from the tick thread, which cannot join itself."""
        refuse_from_tick_thread(self._thread)
        with self._lock:
            if self._stopping:
                return []
            self._stopping = True
        self._clock.wake()
        self._thread.join(timeout)
        with self._lock:
            unfired = sorted(self._live, key=lambda h: h.seq)
            for handle in unfired:
                self._wheel.cancel(handle)
            self._live.clear()
            if self._deferred:
                logger.warning("stop(): %d deferred callbacks abandoned", len(self._deferred))
                self._deferred.clear()
        self._executor.shutdown(timeout)
        return unfired

    # -- the tick thread --------------------------------------------------------------------

    def _run(self) -> None:
        try:
            self._loop()
        except BaseException as exc:  # a bug in the wheel or the clock: say so, loudly
            logger.exception("the wheel's tick thread died; timers will not fire")
            with self._lock:
                self._crashed = exc
            raise

    def _loop(self) -> None:
        while True:
            with self._lock:
                if self._stopping:
                    return
            now = self._clock.now_ns()
            if now < self._last_now:  # a clock that is not monotonic: never go back
                logger.warning("clock went back from %d to %d ns; holding at %d",
                               self._last_now, now, self._last_now)
                with self._lock:
                    self._metrics.clock_regressions += 1
                now = self._last_now
            self._last_now = now
            ready, behind = self._step(now)
            self._dispatch(ready, now)
            if behind:
                continue  # catch up in bounded steps, the lock released between them
            with self._lock:
                if self._stopping:
                    return
                wake = self._next_wake_ns()
                self._planned_wake_ns = wake
            self._clock.sleep_until(wake)

    def _step(self, now: int) -> tuple[list[tuple[Callable[[], None], int, int | None]], bool]:
        """One bounded advance: (callbacks to offer, with priority and deadline; still behind)."""
        with self._lock:
            m = self._metrics
            # the wheel's lag counts to its last now; add the ticks the clock moved since
            lag_before = self._wheel.lag_ticks() + now // self._tick_ns - self._last_now_tick
            self._last_now_tick = now // self._tick_ns
            m.max_lag_ticks = max(m.max_lag_ticks, lag_before)
            started = time.perf_counter_ns()
            fired = self._wheel.advance(now)
            m.scan_ns += time.perf_counter_ns() - started
            lag_after = self._wheel.lag_ticks()
            m.ticks_scanned += lag_before - lag_after
            m.lag_ticks = lag_after
            m.catchup_ticks += max(0, lag_before - lag_after - 1)
            m.fired += len(fired)
            ready: list[tuple[Callable[[], None], int, int | None]] = [
                (fn, p, None) for fn, p in self._deferred
            ]
            self._deferred.clear()
            ready += [(h.callback, self._live.pop(h, 0), h.deadline) for h in fired]
        return ready, lag_after > 0

    def _dispatch(self, ready: list[tuple[Callable[[], None], int, int | None]], now: int
                  ) -> None:
        """Offer each callback to the executor, outside the lock; never silent on refusal."""
        late: list[tuple[Callable[[], None], int]] = []
        for fn, priority, deadline in ready:
            if deadline is not None:
                self._record_lateness(now - deadline)
            try:
                if not self._executor.offer(fn, priority):
                    late.append((fn, priority))
            except OverloadError:
                logger.warning("executor refused timer callback %r", fn)
        if late:
            with self._lock:
                self._metrics.deferred += len(late)
                self._deferred.extend(late)

    def _record_lateness(self, lateness: int) -> None:
        bucket = lateness.bit_length() if lateness > 0 else 0
        with self._lock:
            self._metrics.lateness[bucket] = self._metrics.lateness.get(bucket, 0) + 1

    def _next_wake_ns(self) -> int | None:
        """Lock held. The next instant a timer may fire; None if nothing is pending."""
        if self._deferred:
            return (self._wheel_now_tick() + 1) * self._tick_ns
        if not self._live:
            return None
        next_event = getattr(self._wheel, "next_event_tick", None)
        tick = next_event() if next_event is not None else None
        if tick is None:
            tick = self._wheel_now_tick() + 1  # a wheel without next_event_tick: poll
        return int(tick) * self._tick_ns

    def _wheel_now_tick(self) -> int:
        return int(self._clock.now_ns()) // self._tick_ns
