"""A producer queue in front of a single tick thread (the wheel text's step 4, first sentence).

Producers never touch the buckets. ``schedule`` and ``cancel`` append a request to a queue that
only the tick thread drains, right before it advances the wheel, so the bucket structure has
one owner and needs no lock contended by producers.

* :class:`QueuedWheel` -- the contract's wheel interface (``schedule``, ``schedule_after``,
  ``cancel``, ``advance``, ``pending``, ``lag_ticks``, ``callback_errors``) over an inner wheel
  (``HashedTimingWheel`` by default). A producer's ``schedule`` checks its arguments, creates a
  :class:`Ticket` and queues it; ``advance`` drains the queue into the inner wheel (in queue
  order, so schedule order and due ticks are those of a direct call: nothing advances between
  a request and its drain) and then advances it.
* :class:`QueuedWheelTimer` -- the real-time service: one tick thread that drains and advances
  on a clock of :mod:`schedcheck.impl.wheel.driver` (``MonotonicClock`` or ``FakeClock``) and offers
  fired callbacks to a ``BoundedExecutor``.

Cancel. A ticket's state (pending, fired, cancelled) lives in the ticket and flips under one
small lock that guards nothing else (no bucket, no queue). ``cancel`` flips pending ->
cancelled and queues the unlink; the tick thread flips pending -> fired for each timer the
inner wheel returns and drops the ones a cancel won: the flag is set before the unlink and
re-checked after the detach (specs/wheel.md rule 4), with the unlink done later by the owner.
So each ticket has exactly one outcome (WI5), whichever thread gets there first.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Any

from schedcheck.impl.wheel.driver import (
    BoundedExecutor,
    Metrics,
    MonotonicClock,
    OverloadError,
    refuse_from_tick_thread,
)
from schedcheck.impl.wheel.hashed import HashedTimingWheel

from schedcheck.contract import WheelFullError, require_int

__all__ = ["QueuedWheel", "QueuedWheelTimer", "Ticket"]

logger = logging.getLogger("schedcheck.queued_driver")

_PENDING, _FIRED, _CANCELLED = 0, 1, 2


class Ticket:
    """What ``QueuedWheel.schedule`` returns: the producer's handle of a queued timer."""

    __slots__ = ("_inner", "_owner", "_state", "callback", "deadline", "seq")

    def __init__(self, owner: QueuedWheel, seq: int, deadline: int,
                 callback: Callable[[], Any]) -> None:
        self._owner = owner
        self._state = _PENDING
        self._inner: Any = None  #: the inner wheel's handle once drained
        self.seq = seq
        self.deadline = deadline
        self.callback = callback

    @property
    def fired(self) -> bool:
        return self._state == _FIRED

    @property
    def cancelled(self) -> bool:
        return self._state == _CANCELLED

    def __repr__(self) -> str:
        state = ("pending", "fired", "cancelled")[self._state]
        return f"<Ticket #{self.seq} deadline={self.deadline} {state}>"


class QueuedWheel:
    """The wheel behind a producer queue; ``advance`` is the tick thread's call."""

    def __init__(self, tick: int, wheel_size: int, *, start: int = 0,
                 max_catchup_ticks: int | None = None, max_pending: int | None = None,
                 executor: Any = None,
                 wheel_factory: Callable[..., Any] = HashedTimingWheel) -> None:
        options: dict[str, Any] = {"start": start}
        if max_catchup_ticks is not None:
            options["max_catchup_ticks"] = max_catchup_ticks
        self._inner = wheel_factory(tick, wheel_size, **options)  # checks tick, size, start
        if max_pending is not None:
            require_int(max_pending, "max_pending", minimum=0)
        if executor is not None and not callable(getattr(executor, "submit", None)):
            raise TypeError(
                f"executor must have a submit(fn) method, got {type(executor).__name__}")
        self._max_pending = max_pending
        self._executor = executor
        self._tick = tick
        self._requests: deque[Ticket] = deque()  #: schedules and cancels, in request order
        self._linked: dict[int, Ticket] = {}  #: inner handle's seq -> ticket (tick thread only)
        self._state_lock = threading.Lock()  #: ticket states, the counters, _now for producers
        self._pending = 0
        self._seq = 0
        self._now = start  #: the last now given to advance (schedule_after counts from it)
        self._errors = 0
        self.max_queue = 0  #: the deepest the request queue has been (a metric)

    # -- producers (any thread) ---------------------------------------------------------------

    def schedule(self, deadline: int, callback: Callable[[], Any]) -> Ticket:
        require_int(deadline, "deadline")
        return self._queue_timer(lambda now: deadline, callback)

    def schedule_after(self, delay: int, callback: Callable[[], Any]) -> Ticket:
        require_int(delay, "delay")
        return self._queue_timer(lambda now: now + delay, callback)

    def _queue_timer(self, deadline_of: Callable[[int], int],
                     callback: Callable[[], Any]) -> Ticket:
        if not callable(callback):
            raise TypeError(
                f"callback must be callable, not {type(callback).__name__} ({callback!r})")
        with self._state_lock:
            if self._max_pending is not None and self._pending >= self._max_pending:
                raise WheelFullError(self._pending, self._max_pending)
            ticket = Ticket(self, self._seq, deadline_of(self._now), callback)
            self._seq += 1
            self._pending += 1
            self._requests.append(ticket)  # under the lock: queue order is seq order
            self.max_queue = max(self.max_queue, len(self._requests))
        return ticket

    def cancel(self, handle: Ticket) -> bool:
        if not isinstance(handle, Ticket):
            raise TypeError(
                f"cancel() takes a Ticket returned by schedule(), not {type(handle).__name__}")
        with self._state_lock:
            if handle._owner is not self or handle._state != _PENDING:
                return False
            handle._state = _CANCELLED  # the flag first; the tick thread unlinks it later
            self._pending -= 1
            self._requests.append(handle)
            self.max_queue = max(self.max_queue, len(self._requests))
        return True

    def pending(self) -> int:
        with self._state_lock:
            return self._pending

    def queued(self) -> int:
        """Requests waiting for the tick thread (the producer queue's depth)."""
        return len(self._requests)

    def callback_errors(self) -> int:
        with self._state_lock:
            return self._errors

    # -- the tick thread ----------------------------------------------------------------------

    def drain(self) -> int:
        """Apply every queued request to the inner wheel, in order; how many were applied."""
        inner, requests, count = self._inner, self._requests, 0
        while requests:
            ticket = requests.popleft()
            count += 1
            if ticket._inner is None:  # a schedule request
                if ticket._state == _CANCELLED:  # cancelled while queued: never linked
                    ticket._inner = False
                    continue
                ticket._inner = handle = inner.schedule(ticket.deadline, ticket.callback)
                self._linked[handle.seq] = ticket
            elif (ticket._inner is not False and ticket._state == _CANCELLED
                  and inner.cancel(ticket._inner)):  # an unlink (False: it fired meanwhile)
                del self._linked[ticket._inner.seq]
        return count

    def advance(self, now: int) -> list[Ticket]:
        """Drain the queue, advance the inner wheel to ``now``; the tickets that fired."""
        require_int(now, "now")
        self.drain()
        fired_inner = self._inner.advance(now)  # ValueError for an earlier now: nothing changed
        fired: list[Ticket] = []
        linked = self._linked
        with self._state_lock:
            self._now = now
            for handle in fired_inner:
                ticket = linked.pop(handle.seq)
                if ticket._state == _PENDING:  # the re-check: a cancel may have won
                    ticket._state = _FIRED
                    self._pending -= 1
                    fired.append(ticket)
        if self._executor is not None:
            self._dispatch(fired)
        return fired

    def lag_ticks(self) -> int:
        return int(self._inner.lag_ticks())

    def next_event_tick(self) -> int | None:
        """The tick thread's next wake-up: now while requests wait, else the inner wheel's."""
        if self._requests:
            return self._now // self._tick
        tick = self._inner.next_event_tick()
        return None if tick is None else int(tick)

    def _count_error(self) -> None:
        with self._state_lock:
            self._errors += 1

    def _dispatch(self, fired: list[Ticket]) -> None:
        """Submit each fired callback once, in firing order; count raises and rejections."""
        for ticket in fired:
            try:
                self._executor.submit(self._runner(ticket))
            except Exception:
                logger.exception("executor rejected timer callback %r", ticket.callback)
                self._count_error()

    def _runner(self, ticket: Ticket) -> Callable[[], None]:
        def run() -> None:
            try:
                ticket.callback()
            except Exception:
                logger.exception("timer callback %r raised", ticket.callback)
                self._count_error()

        return run

    def close(self) -> list[Ticket]:
        """Drain, then cancel every pending timer; the cancelled tickets in schedule order."""
        self.drain()
        with self._state_lock:
            live = sorted((t for t in self._linked.values() if t._state == _PENDING),
                          key=lambda t: t.seq)
            for ticket in live:
                ticket._state = _CANCELLED
                self._pending -= 1
        for ticket in live:
            self._inner.cancel(ticket._inner)
            del self._linked[ticket._inner.seq]
        return live


class QueuedWheelTimer:
    """A real-time timer service whose producers only queue: one tick thread owns the wheel.

    The clock and the executor are :mod:`schedcheck.impl.wheel.driver`'s (``FakeClock`` in tests).
    ``schedule``/``cancel`` take only the tickets' small state lock and wake the tick thread;
    the tick thread drains the queue, advances, and offers fired callbacks to the executor.
    ``metrics()`` is the driver's :class:`~schedcheck.impl.wheel.driver.Metrics`, with the request
    queue's depth.
    """

    def __init__(self, tick_ns: int = 1_000_000, wheel_size: int = 512, *, clock: Any = None,
                 wheel_factory: Callable[..., Any] = HashedTimingWheel,
                 max_catchup_ticks: int = 64, max_pending: int | None = None,
                 executor: BoundedExecutor | None = None, workers: int = 2,
                 queue_size: int = 1024, overload: str = "reject") -> None:
        self._clock = clock if clock is not None else MonotonicClock()
        self._tick_ns = tick_ns
        self._executor = executor if executor is not None else BoundedExecutor(
            workers, queue_size, overload)
        self._wheel = QueuedWheel(tick_ns, wheel_size, start=self._clock.now_ns(),
                                  max_catchup_ticks=max_catchup_ticks, max_pending=max_pending,
                                  wheel_factory=wheel_factory)
        self._lock = threading.Lock()  #: the metrics and the flags (never the wheel)
        self._metrics = Metrics()
        self._last_now = self._clock.now_ns()
        self._stopping = False
        self._thread = threading.Thread(target=self._loop, name="queued-wheel-tick",
                                        daemon=True)
        self._thread.start()

    # -- producers ------------------------------------------------------------------------------

    def schedule(self, deadline_ns: int, callback: Callable[[], Any]) -> Ticket:
        if self._stopping:
            raise RuntimeError("QueuedWheelTimer is stopped; create a new one to schedule timers")
        ticket = self._wheel.schedule(deadline_ns, callback)
        with self._lock:
            self._metrics.scheduled += 1
        self._clock.wake()
        return ticket

    def schedule_after(self, delay_ns: int, callback: Callable[[], Any]) -> Ticket:
        return self.schedule(self._clock.now_ns() + delay_ns, callback)

    def cancel(self, ticket: Ticket) -> bool:
        done = self._wheel.cancel(ticket)
        if done:
            with self._lock:
                self._metrics.cancelled += 1
            self._clock.wake()  # the unlink is the tick thread's
        return done

    def pending(self) -> int:
        return self._wheel.pending()

    def metrics(self) -> Metrics:
        with self._lock:
            m = Metrics(**{**vars(self._metrics), "lateness": dict(self._metrics.lateness)})
        m.request_queue = self._wheel.queued()
        m.max_request_queue = self._wheel.max_queue
        m.executor_queue = self._executor.queued()
        m.callback_failures = self._executor.failures
        m.rejected += self._executor.rejected
        m.dropped = self._executor.dropped
        return m

    def stop(self, timeout: float | None = None) -> list[Ticket]:
        """Stop the tick thread; cancel and return the timers that never fired. Refused from
        the tick thread, which cannot join itself."""
        refuse_from_tick_thread(self._thread)
        with self._lock:
            if self._stopping:
                return []
            self._stopping = True
        self._clock.wake()
        self._thread.join(timeout)
        unfired = self._wheel.close()
        self._executor.shutdown(timeout)
        return unfired

    # -- the tick thread ------------------------------------------------------------------------

    def _loop(self) -> None:
        while not self._stopping:
            now = max(self._clock.now_ns(), self._last_now)  # never go back
            moved = now // self._tick_ns - self._last_now // self._tick_ns
            self._last_now = now
            lag_before = self._wheel.lag_ticks() + moved  # the wheel's lag counts to its now
            started = time.perf_counter_ns()
            fired = self._wheel.advance(now)
            scan_ns = time.perf_counter_ns() - started
            behind = self._wheel.lag_ticks()
            with self._lock:
                m = self._metrics
                m.fired += len(fired)
                m.scan_ns += scan_ns
                m.ticks_scanned += lag_before - behind  # the cursor's move
                m.lag_ticks = behind
                m.max_lag_ticks = max(m.max_lag_ticks, lag_before)
            for ticket in fired:
                self._record_lateness(now - ticket.deadline)
                try:
                    self._executor.offer(ticket.callback)
                except OverloadError:
                    logger.warning("executor refused timer callback %r", ticket.callback)
            if behind > 0:
                continue
            tick = self._wheel.next_event_tick()
            self._clock.sleep_until(None if tick is None else tick * self._tick_ns)

    def _record_lateness(self, lateness: int) -> None:
        bucket = lateness.bit_length() if lateness > 0 else 0
        with self._lock:
            self._metrics.lateness[bucket] = self._metrics.lateness.get(bucket, 0) + 1

