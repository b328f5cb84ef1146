"""The reference model of the timing wheel (specs/wheel.md sections 1-4, decisions 1-7).

The contract in its plainest form: the live timers sit in one dict keyed by their scheduling
sequence, and processing a window of ticks fires exactly the live timers whose due tick lies in
the window, ordered by (due tick, sequence). There are no buckets and no rounds here:
``wheel_size`` is validated and otherwise ignored, because the contract makes every observable
answer independent of it. Simple rather than fast -- its one concession is an index from due
tick to seqs, its due ticks also kept sorted, so that a tick costs O(its timers), a stall
O(its due ticks and timers) rather than a step per tick, and the model, checked as a target,
passes the W-COST clause too. Obviously right, cheap to copy (:meth:`TimingWheel.copy`,
:meth:`TimingWheel.snapshot`) and compared with ``==`` (snapshot equality). Single-threaded:
only the ``callback_errors`` counter, which executor threads bump, has a lock.

State (each field's invariant is checked by :meth:`TimingWheel.check_invariants`):

* ``_cursor`` -- the next tick to process (rule 1); starts at ``start // tick``;
* ``_now`` -- the last ``now`` seen (``start`` before the first ``advance``); ``cursor <=
  now // tick + 1``, so ``lag_ticks() == now // tick + 1 - cursor >= 0``;
* ``_live`` -- seq -> Handle for every timer neither fired nor cancelled; each has
  ``due_tick >= cursor`` (a due tick below the cursor would have been processed);
* ``_by_due`` -- due tick -> the seqs of the live timers due then (an index of ``_live``,
  so that a tick costs O(its timers) and the model passes the W-COST clause as a target);
* ``_due_ticks`` -- the keys of ``_by_due`` in ascending order (a stall takes the ones it
  covers from the front: bisect, in C, instead of a walk over the stall's ticks);
* ``_handles`` -- seq -> Handle for every timer ever scheduled (the harness maps by seq);
* ``_next_seq`` -- the next scheduling sequence; only a successful ``schedule`` takes one.

Decisions (where the contract is silent; copied into specs/wheel.md):

D1. ``cancel`` of a timer whose due tick has passed but which waits in a backlog (the
    ``max_catchup_ticks`` budget ran out before its tick) returns True: it has not fired, and
    now never will (rule 4 -- exactly one of cancel-True or fire).
D2. Without an executor the wheel stores each callback on its handle and never calls it:
    ``advance`` returns the fired handles and the caller runs ``handle.callback()``;
    ``callback_errors()`` is then always 0 (the caller sees its own exceptions).
D3. With an executor, ``executor.submit(fn)`` is called after the whole window is processed
    (all handles already marked fired), in firing order. ``fn()`` calls the callback; an
    exception from it is logged (logger ``schedcheck.wheel``) and counted when ``fn`` runs
    (possibly later, on an executor thread); an exception from ``submit`` itself (a
    rejection) is logged and counted at once. Only ``Exception`` is caught, never
    ``BaseException`` (KeyboardInterrupt, SystemExit propagate).
D4. A deadline far in the past is due at the cursor (rule 2): the next tick processed fires it,
    also while a backlog waits -- it then fires *before* backlog timers of later ticks.
D5. ``schedule_after(delay, cb)`` is ``schedule(last_now + delay, cb)``; the handle's
    ``deadline`` is that absolute instant.
D6. Validation order: the deadline/delay, then the callback, then ``max_pending``
    (rule 5: malformed arguments before ``WheelFullError``). ``cancel`` checks the type
    first: a non-Handle is ``TypeError``, whatever wheel it comes from.
D7. ``advance(now)`` with ``now`` equal to the last ``now`` is legal (it drains a backlog);
    ``advance`` with nothing due returns ``[]``.
D8. Handles compare and hash by identity. ``copy()`` gives the copy its *own* Handle objects
    with the same seq, deadline, callback and flags; a handle of the original passed to the
    copy's ``cancel`` is "a handle from another wheel" (False). The harness maps handles by
    seq (:meth:`TimingWheel._handle`).
D9. Callbacks are never compared: ``snapshot()`` holds seqs, deadlines, due ticks and flags,
    not callbacks (a copy shares the callback objects; ``==`` ignores them).
D10. ``wheel_size`` never changes an answer (the model ignores it; the implementations agree
    for every size, 1 included -- the hierarchical wheel then uses 2 buckets per level).
"""

from __future__ import annotations

import logging
import threading
from bisect import bisect_left, bisect_right, insort
from collections.abc import Callable
from typing import Any, Protocol

from schedcheck.contract import WheelFullError, require_int

__all__ = ["Handle", "TimingWheel"]

logger = logging.getLogger("schedcheck.wheel")

Callback = Callable[[], Any]


class Executor(Protocol):
    """Anything with ``submit(fn)`` (``concurrent.futures.Executor`` qualifies)."""

    def submit(self, fn: Callable[[], Any], /) -> Any: ...


def _ceil_div(a: int, b: int) -> int:
    """``ceil(a / b)`` in integers: ``-(-a // b)`` (specs/wheel.md section 1)."""
    return -(-a // b)


class Handle:
    """One scheduled timer. No public constructor: only ``TimingWheel.schedule`` makes them.

    Compares with ``is`` (STYLE 5). ``deadline``/``callback`` never change; ``fired`` and
    ``cancelled`` are never both true, and once set stay set.
    """

    __slots__ = ("_callback", "_cancelled", "_deadline", "_due_tick", "_fired", "_owner", "_seq")

    _owner: TimingWheel
    _seq: int
    _deadline: int
    _callback: Callback
    _due_tick: int
    _fired: bool
    _cancelled: bool

    def __init__(self, *args: object, **kwargs: object) -> None:
        raise TypeError(
            "Handle has no public constructor; get one from wheel.schedule(deadline, callback)"
        )

    @classmethod
    def _create(
        cls, owner: TimingWheel, seq: int, deadline: int, callback: Callback, due_tick: int
    ) -> Handle:
        self = object.__new__(cls)
        self._owner = owner  #: the wheel that made it (cancel from another wheel is False)
        self._seq = seq  #: scheduling sequence: ties in a tick fire in ascending seq
        self._deadline = deadline  #: the absolute instant given (or last now + delay)
        self._callback = callback
        self._due_tick = due_tick  #: max(ceil(deadline / tick), cursor at schedule) (rule 2)
        self._fired = False  #: set by advance before any callback runs (rule 3)
        self._cancelled = False  #: set by the one cancel() that returned True (rule 4)
        return self

    @property
    def deadline(self) -> int:
        return self._deadline

    @property
    def callback(self) -> Callback:
        return self._callback

    @property
    def cancelled(self) -> bool:
        return self._cancelled

    @property
    def fired(self) -> bool:
        return self._fired

    @property
    def due_tick(self) -> int:
        return self._due_tick

    @property
    def seq(self) -> int:
        return self._seq

    def __repr__(self) -> str:
        state = "fired" if self._fired else "cancelled" if self._cancelled else "pending"
        return f"<Handle seq={self._seq} deadline={self._deadline} due={self._due_tick} {state}>"


class TimingWheel:
    """``TimingWheel(tick, wheel_size, *, start=0, max_catchup_ticks=None, max_pending=None,
    executor=None)`` -- the contract's wheel, with ``wheel_size`` only validated."""

    #: The model keeps every handle it made (``_handles``, by seq) and is not held to the
    #: Costs section's memory bound; the harness reads this (``harness.wheel.memory``).
    keeps_every_timer = True

    def __init__(
        self,
        tick: int,
        wheel_size: int,
        *,
        start: int = 0,
        max_catchup_ticks: int | None = None,
        max_pending: int | None = None,
        executor: Executor | None = None,
    ) -> None:
        self._tick = require_int(tick, "tick", minimum=1)
        self._wheel_size = require_int(wheel_size, "wheel_size", minimum=1)
        require_int(start, "start")
        if max_catchup_ticks is not None:
            require_int(max_catchup_ticks, "max_catchup_ticks", minimum=1)
        if max_pending is not None:
            require_int(max_pending, "max_pending", minimum=0)
        if executor is not None and not callable(getattr(executor, "submit", None)):
            raise TypeError(
                f"executor must have a submit(fn) method, got {type(executor).__name__}"
            )
        self._max_catchup_ticks = max_catchup_ticks
        self._max_pending = max_pending
        self._executor = executor
        self._cursor = start // self._tick  # rule 1
        self._now = start  # rule 1: the last now, until the first advance
        self._next_seq = 0
        self._live: dict[int, Handle] = {}
        self._by_due: dict[int, set[int]] = {}
        self._due_ticks: list[int] = []
        self._handles: dict[int, Handle] = {}
        self._errors = 0
        self._errors_lock = threading.Lock()

    # ---------------------------------------------------------------- calls of the contract

    def schedule(self, deadline: int, callback: Callback) -> Handle:
        """Fire ``callback`` once, not before ``deadline`` (rules 2 and 5)."""
        require_int(deadline, "deadline")
        return self._schedule(deadline, callback)

    def schedule_after(self, delay: int, callback: Callback) -> Handle:
        """``schedule(last_now + delay, callback)`` (D5); a negative delay is a past deadline."""
        require_int(delay, "delay")
        return self._schedule(self._now + delay, callback)

    def _schedule(self, deadline: int, callback: Callback) -> Handle:
        if not callable(callback):
            raise TypeError(
                f"callback must be callable, not {type(callback).__name__} ({callback!r})"
            )
        if self._max_pending is not None and len(self._live) >= self._max_pending:
            raise WheelFullError(len(self._live), self._max_pending)  # rule 5
        due = max(_ceil_div(deadline, self._tick), self._cursor)  # rule 2
        handle = Handle._create(self, self._next_seq, deadline, callback, due)
        self._next_seq += 1
        self._live[handle.seq] = handle
        seqs = self._by_due.get(due)
        if seqs is None:
            self._by_due[due] = seqs = set()
            insort(self._due_ticks, due)
        seqs.add(handle.seq)
        self._handles[handle.seq] = handle
        return handle

    def cancel(self, handle: Handle) -> bool:
        """True iff this call stopped a timer that had neither fired nor been cancelled (rule 4)."""
        if not isinstance(handle, Handle):
            raise TypeError(
                f"cancel() takes a Handle returned by schedule(), not {type(handle).__name__}"
            )
        if handle._owner is not self or self._live.get(handle.seq) is not handle:
            return False  # another wheel's, fired, or already cancelled
        handle._cancelled = True
        del self._live[handle.seq]
        self._unindex(handle)
        return True

    def _unindex(self, handle: Handle) -> None:
        seqs = self._by_due[handle.due_tick]
        seqs.discard(handle.seq)
        if not seqs:
            del self._by_due[handle.due_tick]
            del self._due_ticks[bisect_left(self._due_ticks, handle.due_tick)]

    def advance(self, now: int) -> list[Handle]:
        """Process ticks ``cursor .. now // tick`` (at most ``max_catchup_ticks``) (rules 1-3)."""
        require_int(now, "now")
        if now < self._now:
            raise ValueError(
                f"advance({now}) goes back in time: the last now was {self._now}; "
                "time only moves forward -- pass a now >= the last one"
            )
        self._now = now
        last = now // self._tick
        if self._max_catchup_ticks is not None:
            last = min(last, self._cursor + self._max_catchup_ticks - 1)  # rule 1: budget
        if last < self._cursor:
            return []
        # the live timers due in cursor..last (every live due tick is >= cursor): the front
        # of the sorted due ticks, taken out of the index whole
        end = bisect_right(self._due_ticks, last)
        ticks = self._due_ticks[:end]
        del self._due_ticks[:end]
        due = [self._live[seq] for k in ticks for seq in sorted(self._by_due.pop(k))]
        # rule 3: by due tick, ties in schedule (seq) order
        for handle in due:
            handle._fired = True  # rule 3: marked before any callback runs
            del self._live[handle.seq]
        self._cursor = last + 1
        if self._executor is not None:
            for handle in due:
                self._submit(handle)
        return due

    def pending(self) -> int:
        """Timers scheduled and neither fired nor cancelled, backlog included."""
        return len(self._live)

    def lag_ticks(self) -> int:
        """Ticks ``<= last_now // tick`` not yet processed (1 on a fresh wheel)."""
        return self._now // self._tick + 1 - self._cursor

    def callback_errors(self) -> int:
        """Callbacks that raised or submissions rejected, with an executor (D2, D3)."""
        with self._errors_lock:
            return self._errors

    # ---------------------------------------------------------------- executor (rule 3, D3)

    def _count_error(self) -> None:
        with self._errors_lock:
            self._errors += 1

    def _submit(self, handle: Handle) -> None:
        assert self._executor is not None
        callback = handle.callback

        def run() -> None:
            try:
                callback()
            except Exception:
                logger.exception("timer callback %r (seq %d) raised", callback, handle.seq)
                self._count_error()

        try:
            self._executor.submit(run)
        except Exception:
            logger.exception("executor rejected timer callback %r (seq %d)", callback, handle.seq)
            self._count_error()

    # ---------------------------------------------------------------- harness support

    def _handle(self, seq: int) -> Handle:
        """The handle this wheel made with scheduling sequence ``seq`` (D8). KeyError if none.

        Underscored so the model's public methods stay those an implementation also has."""
        return self._handles[seq]

    @property
    def cursor(self) -> int:
        """The next tick to process (rule 1)."""
        return self._cursor

    def snapshot(self) -> tuple[Any, ...]:
        """Every observable fact as a hashable tuple (callbacks excluded, D9)."""
        return (
            self._tick,
            self._wheel_size,
            self._max_catchup_ticks,
            self._max_pending,
            self._cursor,
            self._now,
            self._next_seq,
            self.callback_errors(),
            tuple(
                (h.seq, h.deadline, h.due_tick, h.fired, h.cancelled)
                for h in self._handles.values()
            ),
        )

    def __repr__(self) -> str:
        return (f"<TimingWheel tick={self._tick} wheel_size={self._wheel_size} "
                f"cursor={self._cursor} now={self._now} pending={len(self._live)}>")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, TimingWheel):
            return NotImplemented
        return self.snapshot() == other.snapshot()

    __hash__ = None  # type: ignore[assignment]  # mutable: equal now, different later

    def copy(self) -> TimingWheel:
        """An independent wheel in the same state, with its own handles (D8)."""
        twin = object.__new__(TimingWheel)
        twin.__dict__.update(self.__dict__)
        twin._errors_lock = threading.Lock()
        twin._errors = self.callback_errors()
        twin._handles = {}
        twin._live = {}
        twin._by_due = {k: set(seqs) for k, seqs in self._by_due.items()}
        twin._due_ticks = list(self._due_ticks)
        for seq, h in self._handles.items():
            new = Handle._create(twin, seq, h.deadline, h.callback, h.due_tick)
            new._fired, new._cancelled = h._fired, h._cancelled
            twin._handles[seq] = new
            if seq in self._live:
                twin._live[seq] = new
        return twin

    def __deepcopy__(self, memo: dict[int, Any]) -> TimingWheel:
        return self.copy()

    def check_invariants(self) -> None:
        """Assert every invariant listed in the module docstring; AssertionError says which."""
        assert self._cursor <= self._now // self._tick + 1, (
            f"cursor {self._cursor} is past now//tick + 1 = {self._now // self._tick + 1}"
        )
        expected_live = {
            s: h for s, h in self._handles.items() if not (h.fired or h.cancelled)
        }
        assert expected_live.keys() == self._live.keys(), (
            f"live timers {sorted(self._live)} != not fired/cancelled {sorted(expected_live)}"
        )
        for seq, h in self._handles.items():
            assert h.seq == seq and h._owner is self, f"{h!r} is filed under seq {seq}"
            assert not (h.fired and h.cancelled), f"{h!r} is both fired and cancelled"
            assert h.due_tick >= _ceil_div(h.deadline, self._tick), f"{h!r} is due too early"
            assert seq < self._next_seq, f"{h!r} has a seq not yet handed out"
            if seq in self._live:
                assert h.due_tick >= self._cursor, (
                    f"{h!r} is live but its due tick is behind the cursor {self._cursor}"
                )
        assert len(self._handles) == self._next_seq, (
            f"{len(self._handles)} handles but next seq is {self._next_seq}"
        )
        index: dict[int, set[int]] = {}
        for seq, h in self._live.items():
            index.setdefault(h.due_tick, set()).add(seq)
        assert index == self._by_due, f"due-tick index {self._by_due} != recomputed {index}"
        assert self._due_ticks == sorted(index), (
            f"sorted due ticks {self._due_ticks} != the index's, sorted {sorted(index)}"
        )
