"""What the hashed and the hierarchical wheel share: Handle, bucket arrays with an occupancy
map (both in ``_wheel_buckets``, re-exported here), argument validation, the lock discipline
and executor dispatch.

Memory layout, chosen so that CPython frees every fired or cancelled timer by reference
counting alone and a timer costs few objects:

* A bucket is a plain ``list`` of handles (or ``None`` while empty); a handle holds no
  reference to any container, to another handle or to its wheel (it holds the wheel's
  *token*, a plain ``object()``, to know whose it is), so no handle is ever part of a reference
  cycle: a dropped wheel, pending timers and all, is freed by reference counting too. A
  handle's bucket follows from its due tick; it is one ``__slots__`` object, the only
  per-timer object besides its seq.
* ``schedule`` appends the handle to one queue, ``_incoming`` (O(1)); the next ``advance``
  files the whole queue into the buckets (``_admit_incoming``, one pass, before any tick is
  processed), as Netty's HashedWheelTimer moves its pending timeouts into buckets at the next
  tick. Why: a schedule into one of 65,536 buckets picked at random misses the cache on that
  bucket's list, and while many timers are scheduled at once the collector's full passes then
  walk the new handles in bucket order, i.e. at random in memory; through the queue they walk
  them in the order they were made, as they do a heap's. The cursor only moves in
  ``advance``, after the queue is filed, so a queued timer's due tick and rounds (set by
  ``schedule``) are exact when it is filed, and its seq is above every seq already in a
  bucket, so the buckets stay in seq order. A timer scheduled through the overridable steps
  (``_new_timer``: ``schedule_after``, or a subclass that replaces a step) files the queue
  first and then goes straight to its bucket.
* ``cancel`` is *lazy* (as asyncio's timer heap and Netty's timer): it sets the state and
  drops the callback reference at once (whatever the callback holds is freed then, if nothing
  else holds it), and the handle stays where it is as a *cancelled shell* (the handle object
  and its seq), counted in its bucket's shell count (``_BucketArray.marked``; the admission
  queue has its own, ``_queued_marked``). The shell goes when the cursor next takes that
  bucket (the walk drops it), when the queue is filed, or when the shells pass half of their
  bucket's (or the queue's) entries: that bucket alone is then rebuilt without them
  (O(bucket), each entry dropped once, so O(1) amortized per cancel). So after every call no
  bucket holds more shells than pending timers, and the wheel holds at most
  ``2 * pending()`` handles (``stored_entries()``). ``cancel`` finds the timer's bucket from
  the handle: a queued timer's owner is the wheel's *queue token* (``_queue_token``; filing
  sets it to the wheel's token), else the subclass's ``_mark_shell`` finds the bucket (the
  hashed wheel's is ``due % W``; the hierarchical one stores the level on the handle). Both
  are read from fields ``cancel`` reads anyway: no other object (the seq, an int of its own)
  is touched, which at a million timers is a cache miss per cancel.
* Firing takes a bucket out of its array whole (``take``: the array slot becomes ``None``)
  and walks that one list once, dropping the shells, firing what is due and re-linking the
  rest. A bucket whose shell count is 0 and whose timers are all due (the hashed wheel counts
  the timers with rounds left per bucket, ``_later``; a level-0 bucket of the hierarchical
  wheel holds only timers due at its tick) fires whole: no handle is read to decide.

Handles have no public constructor; the public surface is ``deadline``, ``callback``,
``cancelled``, ``fired`` (plus ``due_tick``, ``seq`` and ``rounds`` for the harness). Handles
compare by identity.

``_BucketArray`` is ``size`` such buckets and an occupancy map: a ``bytearray`` with one byte
per bucket, 1 iff the bucket holds a list. A list whose timers were all cancelled stays
marked until a probe meets it (``distance_to_next`` drops it then, so the map never sends the
cursor to an empty bucket twice). ``distance_to_next(i)`` is ``bytearray.find(1, i)``, a C
``memchr`` -- O(distance) at tens of buckets per ns, so skipping all 65,536 buckets of a wheel
costs about a microsecond.

Race safety (the contract's exactly-once rule under interleaving): ``cancel`` is a single
state change (pending -> cancelled; there is no unlink to order it against). A tick takes its
bucket out of the array *before* deciding anything about its handles, then re-checks each
handle's state (``_still_live``, inlined on the default path) as it walks them. A walk that ran
outside the wheel lock would therefore still be safe: a cancel landing between the take and
the walk only sets the state, and the re-check skips that handle -- so exactly one of "cancel
returned True" and "fired" happens. (A bucket fired whole skips the re-check: its shell count,
read with the take in one critical section, said it holds none; a walk moved outside the lock
must keep the re-check, as the default ``_still_live`` path does.) The bundled wheels hold the
one wheel lock for both (each state change is then a single atomic step); the race zoo's
``CancelNoRecheckWheel`` walks outside the lock without the re-check and is caught.

``_WheelBase`` holds everything outside the bucket structure. Its lock (``lock_factory()``,
one per wheel) guards every field but ``_errors``; each public call takes it once. Fired
handles are collected under the lock and submitted to the executor *after* releasing it, so
no callback and no ``executor.submit`` ever runs under the wheel lock. ``_errors`` has its own
leaf lock (executor threads bump it when a callback raises; it is never held while taking the
wheel lock).

Overridable steps (the zoo's mutants and the concurrency engineer's race mutants replace one
each): ``_due_tick_for`` (rule 2), ``_still_live`` (rule 4's re-check after a bucket is
detached), ``_window_end`` (rule 1's budget), ``_process`` (the subclass's tick loop),
``_dispatch`` (rule 3's executor hand-off). The default rule-2 and budget steps are also
written inline on the hot paths; a subclass that overrides one of them is detected at
construction (``_overrides``) and always goes through its override.

``schedule`` is one Python frame on its default path (rule 2, the handle and the append to
the queue, written out); the subclass's ``_admit`` files the queue with its default placement
written out: the hashed wheel into its one bucket array (the rounds were set by ``schedule``),
the hierarchical one into level 0 for timers less than a rotation away and through
``_place_high`` into a higher level for the rest. ``_new_timer`` is the same step
through the overridable ones; a wheel whose class replaces ``_due_tick_for``, ``_new_timer``,
``_insert`` or the subclass's placement steps schedules through it (and never queues).
"""

from __future__ import annotations

import logging
import math
import threading
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any, Protocol

from schedcheck.impl.wheel._buckets import Callback as Callback
from schedcheck.impl.wheel._buckets import Handle as Handle
from schedcheck.impl.wheel._buckets import _BucketArray, live_only

from schedcheck.contract import WheelFullError, require_int

logger = logging.getLogger("schedcheck.wheel")



class Executor(Protocol):
    """Anything with ``submit(fn)`` (``concurrent.futures.Executor`` qualifies)."""

    def submit(self, fn: Callable[[], Any], /) -> Any: ...


LockLike = AbstractContextManager[Any]


def ceil_div(a: int, b: int) -> int:
    """``ceil(a / b)`` in integers (specs/wheel.md section 1: ``-(-a // b)``)."""
    return -(-a // b)


_new_handle = object.__new__
class _WheelBase:
    """Validation, lock, counters, cancel and advance's frame; subclasses own the buckets."""

    def __init__(
        self,
        tick: int,
        wheel_size: int,
        *,
        start: int = 0,
        max_catchup_ticks: int | None = None,
        max_pending: int | None = None,
        executor: Executor | None = None,
        lock_factory: Callable[[], LockLike] = threading.Lock,
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
        if not callable(lock_factory):
            raise TypeError("lock_factory must be callable, e.g. threading.Lock")
        self._max_catchup_ticks = max_catchup_ticks
        self._max_pending = max_pending
        self._executor = executor
        self._lock_factory = lock_factory
        self._lock = lock_factory()  #: guards every field below except _errors
        #: what a handle of this wheel holds as its owner: a plain ``object()`` (untracked by
        #: the collector, unique), not the wheel itself, so a pending handle does not refer to
        #: the wheel that holds it -- no cycle, and a dropped wheel is freed by refcounting
        self._token = object()
        #: the owner of a timer queued for a bucket (``_incoming``): filing sets it to
        #: ``_token``, so ``cancel`` tells a queued timer from a filed one by its owner
        self._queue_token = object()
        self._cursor = start // self._tick  #: next tick to process (rule 1)
        #: a timer due before this tick has no rotations to wait (``_far_for(cursor)``)
        self._far = self._far_for(self._cursor)
        self._now = start  #: the last now seen (rule 1)
        self._next_seq = 0
        self._pending = 0  #: pending timers == pending() (rule 6's recount in check_invariants)
        self._errors = 0  #: callback errors and rejected submissions (guarded by _errors_lock)
        self._errors_lock = threading.Lock()
        #: timers scheduled since the last advance, in seq order, not yet in a bucket (their
        #: due tick and rounds are set, for the cursor that is still current):
        #: ``schedule`` only appends here and ``_admit_incoming`` files them all, before the
        #: next tick is processed
        self._incoming: list[Handle] = []
        self._queued_marked = 0  #: the cancelled shells in ``_incoming``, exactly
        self._custom_window = self._overrides(_WheelBase, "_window_end")
        self._init_buckets()
        #: schedule's inlined path (the default rule-2 step, then the queue that ``_admit``
        #: files with the default placement) applies unless a subclass replaces one of the
        #: steps it stands for
        replaced = self._detect_overrides()
        self._inline = not (replaced or self._overrides(_WheelBase, "_due_tick_for", "_new_timer")
                            or max_pending is not None)  # rule 5's check: the long way

    def _far_for(self, cursor: int) -> float:
        """The first due tick a rotation or more from ``cursor``: ``cursor + W`` in a wheel
        that keeps rounds, never in one that does not (updated whenever the cursor moves)."""
        return cursor + self._wheel_size if self._keeps_rounds else math.inf

    def _overrides(self, base: type, *names: str) -> bool:
        """Whether this wheel's class replaces one of ``base``'s steps ``names``."""
        cls = type(self)
        return any(getattr(cls, name) is not getattr(base, name) for name in names)

    # -- hooks for subclasses ----------------------------------------------------------------

    #: whether a timer counts the rotations it waits (``_rounds``, set by ``schedule``): the
    #: hashed wheel; the hierarchical one has levels instead
    _keeps_rounds = True
    #: the class of this wheel's handles
    _handle_class: type[Handle] = Handle

    def _init_buckets(self) -> None:
        raise NotImplementedError

    def _detect_overrides(self) -> bool:
        """Note which of the subclass's default steps are inlined on its hot paths; True if
        one of the steps inlined in ``schedule`` is replaced."""
        return False

    def _insert(self, node: Handle) -> None:  # lock held
        raise NotImplementedError

    def _admit(self, nodes: list[Handle]) -> None:  # lock held
        """File ``nodes`` (pending timers the inline ``schedule`` queued, in seq order) into
        their buckets relative to the cursor, with the default steps; each one's owner
        becomes ``_token`` (filed)."""
        raise NotImplementedError

    def _admit_incoming(self) -> None:  # lock held
        """Move the queued timers into their buckets (the cursor has not moved since they
        were scheduled: only ``advance`` moves it, and it admits first); the queue's shells
        are dropped on the way."""
        nodes = self._incoming
        if nodes:
            self._incoming = []
            if self._queued_marked:
                nodes = live_only(nodes)
                self._queued_marked = 0
            self._admit(nodes)

    def _mark_shell(self, node: Handle) -> None:  # lock held
        """``node``, filed in a bucket, was just cancelled: count its shell there (the
        bucket's ``mark``, which drops the bucket's shells once they pass half of it)."""
        raise NotImplementedError

    def _place_high(self, node: Handle, due: int, delta: int) -> None:  # lock held
        """The hierarchical wheel's default placement on a level >= 1 (the path of its
        ``_admit`` and its cascades)."""
        raise NotImplementedError

    def _process(self, first: int, last: int, out: list[Handle]) -> int:  # lock held
        """Process ticks first..last (in order, firing into ``out``); return the new cursor."""
        raise NotImplementedError

    def _check_structure(self) -> int:  # lock held; returns linked node count
        raise NotImplementedError

    # -- overridable steps -------------------------------------------------------------------

    def _due_tick_for(self, deadline: int) -> int:
        """Rule 2: ``max(ceil(deadline / tick), cursor)`` (lock held)."""
        due = -(-deadline // self._tick)
        cursor = self._cursor
        return due if due > cursor else cursor

    def _still_live(self, node: Handle) -> bool:
        """Rule 4's re-check after a bucket is detached: skip a node cancelled meanwhile."""
        return node._callback is not None and node._owner is not None

    def _window_end(self, now_tick: int) -> int:
        """Rule 1: the last tick this call may process (the budget counts every tick)."""
        if self._max_catchup_ticks is None:
            return now_tick
        return min(now_tick, self._cursor + self._max_catchup_ticks - 1)

    def _fire(self, node: Handle, out: list[Handle]) -> None:
        node._owner = None  # rule 3: marked fired before any callback runs
        self._pending -= 1
        out.append(node)

    # -- the contract's calls ----------------------------------------------------------------

    def schedule(self, deadline: int, callback: Callback) -> Handle:
        if deadline.__class__ is not int:  # fast path; bool and int subclasses go the long way
            require_int(deadline, "deadline")
        if not callable(callback):
            self._require_callable(callback)
        with self._lock:
            if not self._inline:  # a replaced step, or max_pending to check (rule 5)
                return self._new_timer(deadline, callback)
            # _new_timer with the default steps written out: the hot path, in one frame
            cursor = self._cursor
            tick = self._tick
            due = deadline if tick == 1 else -(-deadline // tick)  # tick 1: no new int
            if due < cursor:
                due = cursor  # rule 2
            node = _new_handle(self._handle_class)
            node._owner = self._queue_token  # queued: filing makes it _token
            node._seq = seq = self._next_seq
            node._deadline = deadline
            node._callback = callback
            node._due = due
            # the hashed wheel's rotations left (rule 2's note); the cursor stays until admitted
            node._rounds = 0 if due < self._far else (due - cursor) // self._wheel_size
            self._next_seq = seq + 1
            self._pending += 1
            self._incoming.append(node)  # into a bucket at the next advance (_admit_incoming)
            return node

    def schedule_after(self, delay: int, callback: Callback) -> Handle:
        require_int(delay, "delay")
        self._require_callable(callback)
        with self._lock:  # the last now is read atomically with the schedule
            return self._new_timer(self._now + delay, callback)

    @staticmethod
    def _require_callable(callback: object) -> None:
        if not callable(callback):
            raise TypeError(
                f"callback must be callable, not {type(callback).__name__} ({callback!r})"
            )

    def _new_timer(self, deadline: int, callback: Callback) -> Handle:  # lock held
        """A new timer through the overridable steps (``schedule`` inlines the defaults)."""
        if self._max_pending is not None and self._pending >= self._max_pending:
            raise WheelFullError(self._pending, self._max_pending)  # rule 5
        node = self._handle_class._create(self._token, self._next_seq, deadline, callback,
                                          self._due_tick_for(deadline))
        self._next_seq += 1
        self._pending += 1
        self._admit_incoming()  # the timers queued before it go first: buckets stay in seq order
        self._insert(node)  # sets the rounds and links it
        return node

    def cancel(self, handle: Handle) -> bool:
        if handle.__class__ is not Handle and not isinstance(handle, Handle):
            raise TypeError(
                f"cancel() takes a Handle returned by schedule(), not {type(handle).__name__}"
            )
        with self._lock:
            owner = handle._owner
            if handle._callback is None:
                return False  # cancelled already
            if owner is self._queue_token:  # still queued for a bucket
                handle._callback = None  # rule 4: the whole cancel (the callback is freed
                # now; the shell goes at filing, or once the queue is over half shells)
                self._pending -= 1
                marked = self._queued_marked + 1
                if marked * 2 > len(self._incoming):  # over half shells: drop them
                    self._incoming = live_only(self._incoming)
                    marked = 0
                self._queued_marked = marked
                return True
            if owner is not self._token:
                return False  # fired (no owner) or another wheel's
            handle._callback = None  # rule 4, for a filed timer: the shell goes when its
            # bucket is taken, or once its bucket is over half shells
            self._pending -= 1
            self._mark_shell(handle)
            return True

    def advance(self, now: int) -> list[Handle]:
        if now.__class__ is not int:  # fast path; bool and int subclasses go the long way
            require_int(now, "now")
        fired: list[Handle] = []
        with self._lock:
            if now < self._now:
                raise ValueError(
                    f"advance({now}) goes back in time: the last now was {self._now}; "
                    "time only moves forward -- pass a now >= the last one"
                )
            self._now = now
            last = now // self._tick
            if self._max_catchup_ticks is not None or self._custom_window:
                last = self._window_end(last)
            if last >= self._cursor:
                self._admit_incoming()
                self._cursor = cursor = self._process(self._cursor, last, fired)
                self._far = self._far_for(cursor)
        if self._executor is not None and fired:
            self._dispatch(fired)  # outside the lock (rule 3)
        return fired

    def pending(self) -> int:
        with self._lock:
            return self._pending

    def lag_ticks(self) -> int:
        with self._lock:
            return self._now // self._tick + 1 - self._cursor

    def next_event_tick(self) -> int | None:
        """A lower bound of the next tick at which a pending timer may fire (None: no timers).
        Not part of the contract: the real-time driver sleeps until it."""
        with self._lock:
            if not self._pending:
                return None
            self._admit_incoming()
            return self._next_event(self._cursor)

    def _next_event(self, k: int) -> int | None:  # lock held
        raise NotImplementedError

    def callback_errors(self) -> int:
        with self._errors_lock:
            return self._errors

    # -- executor (rule 3) -------------------------------------------------------------------

    def _count_error(self) -> None:
        with self._errors_lock:
            self._errors += 1

    def _dispatch(self, fired: list[Handle]) -> None:
        """Submit each fired callback once, in firing order; count raises and rejections."""
        executor = self._executor
        assert executor is not None
        for node in fired:
            try:
                executor.submit(self._runner(node))
            except Exception:
                logger.exception("executor rejected timer callback %r (seq %d)",
                                 node.callback, node.seq)
                self._count_error()

    def _runner(self, node: Handle) -> Callable[[], None]:
        callback = node._callback
        assert callback is not None, f"{node!r} fired without a callback"  # only cancel drops it

        def run() -> None:
            try:
                callback()
            except Exception:
                logger.exception("timer callback %r (seq %d) raised", callback, node.seq)
                self._count_error()

        return run

    # -- copies and checks -------------------------------------------------------------------

    def _arrays(self) -> list[_BucketArray]:  # lock held
        """Every bucket array of the wheel (the subclass's levels)."""
        raise NotImplementedError

    def stored_entries(self) -> int:
        """The handles the wheel holds: pending timers and the cancelled shells not yet
        dropped (in a bucket or queued). specs/wheel.md section 5 bounds it: at most
        ``2 * pending()`` after every call. O(buckets) -- for tests and checkers."""
        with self._lock:
            return sum(array.entries() for array in self._arrays()) + len(self._incoming)

    def _linked(self) -> list[Handle]:  # lock held
        """Every pending timer (in a bucket or queued for admission), in no particular
        order."""
        buckets = [bucket for array in self._arrays() for bucket in array.occupied()]
        buckets.append(self._incoming)
        return [node for bucket in buckets for node in bucket if node._callback is not None]

    def snapshot(self) -> tuple[Any, ...]:
        """The observable state as a hashable tuple: options, cursor, last now, next seq,
        callback errors and ``(seq, deadline, due tick)`` of each pending timer, by seq.
        (Not the model's format: compare two snapshots of the same class.)"""
        with self._lock:
            live = sorted(self._linked(), key=lambda n: n._seq)
            return (
                self._tick,
                self._wheel_size,
                self._max_catchup_ticks,
                self._max_pending,
                self._cursor,
                self._now,
                self._next_seq,
                self.callback_errors(),
                tuple((n._seq, n._deadline, n._due) for n in live),
            )

    def copy(self) -> Any:
        """An independent wheel of the same class in the same state, with its own handles for
        the pending timers (same seq, deadline, callback, due tick); fired and cancelled
        handles are not carried over. O(pending) -- for tests and checkers, not hot paths."""
        with self._lock:
            twin = type(self)(
                self._tick,
                self._wheel_size,
                max_catchup_ticks=self._max_catchup_ticks,
                max_pending=self._max_pending,
                executor=self._executor,
                lock_factory=self._lock_factory,
            )
            twin._cursor, twin._now, twin._next_seq = self._cursor, self._now, self._next_seq
            twin._far = twin._far_for(twin._cursor)
            twin._errors = self.callback_errors()
            for node in sorted(self._linked(), key=lambda n: n._seq):
                clone = twin._handle_class._create(twin._token, node._seq, node._deadline,
                                                   node._callback, node._due)
                twin._pending += 1
                twin._insert(clone)
            return twin

    def __repr__(self) -> str:
        return (f"<{type(self).__name__} tick={self._tick} wheel_size={self._wheel_size} "
                f"cursor={self._cursor} now={self._now} pending={self._pending}>")

    def check_invariants(self) -> None:
        """Assert bucket/due-tick agreement, occupancy and the pending() recount."""
        with self._lock:
            assert self._cursor <= self._now // self._tick + 1, (
                f"cursor {self._cursor} is past now//tick + 1"
            )
            assert self._far == self._far_for(self._cursor), (
                f"the first tick a rotation away is {self._far}, expected "
                f"{self._far_for(self._cursor)} at cursor {self._cursor}: schedule would set "
                "wrong rounds"
            )
            linked = self._check_structure()
            queued = [node for node in self._incoming if node._callback is not None]
            for node in queued:
                self._check_queued(node)
            assert [n._seq for n in self._incoming] == sorted(n._seq for n in self._incoming), (
                "the timers queued for a bucket are out of seq order"
            )
            assert linked + len(queued) == self._pending, (
                f"pending() says {self._pending} but {linked + len(queued)} timers are linked "
                f"({len(queued)} of them queued for a bucket)"
            )
            for array in self._arrays():  # each bucket's shell count, and at most half shells
                array.check()
            shells = len(self._incoming) - len(queued)
            assert shells == self._queued_marked, (
                f"{shells} cancelled shells are queued for a bucket but {self._queued_marked} "
                "counted"
            )
            assert shells * 2 <= len(self._incoming), (
                f"{shells} of the {len(self._incoming)} timers queued for a bucket are "
                "cancelled shells: over half, the queue should have been rebuilt without them"
            )
            assert all(n._owner is self._queue_token for n in self._incoming), (
                "a timer queued for a bucket is not owned by the queue token: cancel would "
                "look for it in a bucket"
            )

    def _check_queued(self, node: Handle) -> None:
        """A pending timer queued for a bucket (the subclass adds its rounds check)."""
        self._check_node(node, queued=True)

    def _check_node(self, node: Handle, *, queued: bool = False) -> None:
        owner = self._queue_token if queued else self._token
        assert node._owner is owner and node._callback is not None, (
            f"{node!r} is {'queued for a bucket' if queued else 'linked'} but not live"
        )
        assert node._due >= self._cursor, f"{node!r} is linked behind the cursor {self._cursor}"
        assert node._due >= ceil_div(node._deadline, self._tick), f"{node!r} is due too early"
