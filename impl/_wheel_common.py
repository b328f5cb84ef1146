"""What the hashed and the hierarchical wheel share: Handle (= list node), bucket arrays with an
occupancy bitmap, argument validation, the lock discipline and executor dispatch.

Handle and node are one object (as Netty's ``HashedWheelTimeout``): the handle a caller holds
*is* the intrusive doubly-linked-list node, so ``cancel`` unlinks in O(1) with no lookup and no
second allocation per timer. Its list pointers and bucket fields are private; the public
surface is ``deadline``, ``callback``, ``cancelled``, ``fired`` (plus ``due_tick``, ``seq`` and
``rounds`` for the harness). Handles compare by identity and have no public constructor.

``_BucketArray`` is ``size`` circular lists, each headed by a sentinel, and an occupancy map:
a ``bytearray`` with one byte per bucket, 1 iff the bucket is non-empty. ``append``/``unlink``
are O(1) (the byte flips only when a bucket turns empty/non-empty; no allocation, unlike a
big-int bitmap, which measured ~3x slower per append); ``distance_to_next(i)`` is
``bytearray.find(1, i)``, a C ``memchr`` -- O(distance) but at tens of buckets per ns, so
skipping all 65,536 buckets of a wheel costs about a microsecond. This is the "occupancy
bitmap" that lets a long stall skip empty buckets.

``_WheelBase`` holds everything outside the bucket structure. Its lock (``lock_factory()``,
one per wheel) guards every field but ``_errors``; each public call takes it once. Fired
handles are collected under the lock and submitted to the executor *after* releasing it, so
no callback and no ``executor.submit`` ever runs under the wheel lock. ``_errors`` has its own
leaf lock (executor threads bump it when a callback raises; it is never held while taking the
wheel lock).

Overridable steps (the zoo's mutants and the concurrency engineer's race mutants replace one
each): ``_due_tick_for`` (rule 2), ``_still_live`` (rule 4's re-check after a bucket is
detached), ``_window_end`` (rule 1's budget), ``_process`` (the subclass's tick loop),
``_dispatch`` (rule 3's executor hand-off).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any, Protocol

from schedcheck.contract import WheelFullError, require_int

logger = logging.getLogger("schedcheck.wheel")

Callback = Callable[[], Any]


class Executor(Protocol):
    """Anything with ``submit(fn)`` (``concurrent.futures.Executor`` qualifies)."""

    def submit(self, fn: Callable[[], Any], /) -> Any: ...


LockLike = AbstractContextManager[Any]


def ceil_div(a: int, b: int) -> int:
    """``ceil(a / b)`` in integers (contract Part 2: ``-(-a // b)``)."""
    return -(-a // b)


class _Node:
    """A doubly-linked-list link; a bucket's sentinel is a bare ``_Node``."""

    __slots__ = ("_next", "_prev")

    _prev: _Node
    _next: _Node


class Handle(_Node):
    """One timer and its bucket node. No public constructor: ``wheel.schedule`` makes them."""

    __slots__ = (
        "_bucket",
        "_callback",
        "_cancelled",
        "_deadline",
        "_due",
        "_fired",
        "_home",
        "_owner",
        "_rounds",
        "_seq",
    )

    _owner: object  #: the wheel that made it
    _seq: int  #: scheduling sequence (ties in a tick fire in ascending seq)
    _deadline: int
    _callback: Callback
    _due: int  #: due tick, max(ceil(deadline / tick), cursor at schedule) (rule 2)
    _rounds: int  #: hashed wheel: rotations left, == (due - cursor) // W while linked
    _home: _BucketArray | None  #: the array holding it, None iff not linked
    _bucket: int  #: its index in ``_home`` (meaningless while ``_home`` is None)
    _fired: bool
    _cancelled: bool

    def __init__(self, *args: object, **kwargs: object) -> None:
        raise TypeError(
            "Handle has no public constructor; get one from wheel.schedule(deadline, callback)"
        )

    @classmethod
    def _create(
        cls, owner: object, seq: int, deadline: int, callback: Callback, due: int
    ) -> Handle:
        self = object.__new__(cls)
        self._owner = owner
        self._seq = seq
        self._deadline = deadline
        self._callback = callback
        self._due = due
        self._rounds = 0
        self._home = None
        self._bucket = -1
        self._fired = False
        self._cancelled = False
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
        return self._due

    @property
    def seq(self) -> int:
        return self._seq

    @property
    def rounds(self) -> int:
        """Remaining rotations of the hashed wheel (the seed's ``remainingRounds``)."""
        return self._rounds

    def __repr__(self) -> str:
        state = "fired" if self._fired else "cancelled" if self._cancelled else "pending"
        return f"<Handle seq={self._seq} deadline={self._deadline} due={self._due} {state}>"


_new_handle = object.__new__


class _BucketArray:
    """``size`` intrusive circular lists, each headed by a sentinel, and an occupancy map."""

    __slots__ = ("heads", "occ", "size")

    def __init__(self, size: int) -> None:
        self.size = size
        self.heads: list[_Node] = []
        for _ in range(size):
            sentinel = _Node()
            sentinel._prev = sentinel._next = sentinel
            self.heads.append(sentinel)
        self.occ = bytearray(size)  #: occ[i] == 1 iff bucket i is not empty

    def append(self, index: int, node: Handle) -> None:
        head = self.heads[index]
        tail = head._prev
        node._prev = tail
        node._next = head
        tail._next = head._prev = node
        node._home = self
        node._bucket = index
        if tail is head:
            self.occ[index] = 1

    def unlink(self, node: Handle) -> None:
        prev, nxt = node._prev, node._next
        prev._next = nxt
        nxt._prev = prev
        node._home = None
        if prev is nxt:  # only the sentinel is left (a two-cycle without it cannot exist)
            self.occ[node._bucket] = 0

    def detach(self, index: int) -> list[Any]:
        """Empty bucket ``index`` and return its nodes in list order (O(bucket))."""
        head = self.heads[index]
        nodes: list[Any] = []
        node: Any = head._next
        while node is not head:
            node._home = None
            nodes.append(node)
            node = node._next
        head._prev = head._next = head
        self.occ[index] = 0
        return nodes

    def iter_bucket(self, index: int) -> list[Handle]:
        head = self.heads[index]
        out: list[Any] = []
        node: Any = head._next
        while node is not head:
            out.append(node)
            node = node._next
        return out

    def distance_to_next(self, i: int) -> int:
        """Circular distance from ``i`` to the next non-empty bucket (0 if ``i`` is), or -1.
        ``bytearray.find`` is a C ``memchr``: O(distance) at tens of buckets per ns."""
        occ = self.occ
        f = occ.find(1, i)
        if f >= 0:
            return f - i
        f = occ.find(1, 0, i)
        return -1 if f < 0 else f + self.size - i

    def check(self) -> int:
        """Assert links and occupancy agree; return the number of linked nodes."""
        total = 0
        for i, head in enumerate(self.heads):
            n = 0
            node = head._next
            while node is not head:
                assert node._next._prev is node, f"broken link after {node!r} in bucket {i}"
                assert isinstance(node, Handle) and node._home is self and node._bucket == i, (
                    f"{node!r} is in bucket {i} but records bucket {getattr(node, '_bucket', '?')}"
                )
                n += 1
                node = node._next
            assert self.occ[i] == (n > 0), f"occupancy byte {i} disagrees with {n} nodes"
            total += n
        return total


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
        self._cursor = start // self._tick  #: next tick to process (rule 1)
        self._now = start  #: the last now seen (rule 1)
        self._next_seq = 0
        self._pending = 0  #: linked timers == pending() (rule 6's recount in check_invariants)
        self._errors = 0  #: callback errors and rejected submissions (guarded by _errors_lock)
        self._errors_lock = threading.Lock()
        self._init_buckets()

    # -- hooks for subclasses ----------------------------------------------------------------

    def _init_buckets(self) -> None:
        raise NotImplementedError

    def _insert(self, node: Handle) -> None:  # lock held
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
        return not node._cancelled and not node._fired

    def _window_end(self, now_tick: int) -> int:
        """Rule 1: the last tick this call may process (the budget counts every tick)."""
        if self._max_catchup_ticks is None:
            return now_tick
        return min(now_tick, self._cursor + self._max_catchup_ticks - 1)

    def _fire(self, node: Handle, out: list[Handle]) -> None:
        node._fired = True  # rule 3: marked before any callback runs
        self._pending -= 1
        out.append(node)

    # -- the contract's calls ----------------------------------------------------------------

    def schedule(self, deadline: int, callback: Callback) -> Handle:
        if deadline.__class__ is not int:  # fast path; bool and int subclasses go the long way
            require_int(deadline, "deadline")
        if not callable(callback):
            self._require_callable(callback)
        with self._lock:
            return self._new_timer(deadline, callback)

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
        if self._max_pending is not None and self._pending >= self._max_pending:
            raise WheelFullError(self._pending, self._max_pending)  # rule 5
        node = _new_handle(Handle)  # Handle._create, inlined: this is the hot path
        node._owner = self
        node._seq = self._next_seq
        node._deadline = deadline
        node._callback = callback
        node._due = self._due_tick_for(deadline)
        node._rounds = 0
        node._home = None
        node._bucket = -1
        node._fired = node._cancelled = False
        self._next_seq += 1
        self._pending += 1
        self._insert(node)
        return node

    def cancel(self, handle: Handle) -> bool:
        if handle.__class__ is not Handle and not isinstance(handle, Handle):
            raise TypeError(
                f"cancel() takes a Handle returned by schedule(), not {type(handle).__name__}"
            )
        with self._lock:
            if handle._owner is not self or handle._fired or handle._cancelled:
                return False
            handle._cancelled = True  # rule 4: the flag first, then the unlink
            home = handle._home
            if home is not None:  # _BucketArray.unlink, inlined
                prev, nxt = handle._prev, handle._next
                prev._next = nxt
                nxt._prev = prev
                handle._home = None
                if prev is nxt:
                    home.occ[handle._bucket] = 0
            self._pending -= 1
            return True

    def advance(self, now: int) -> list[Handle]:
        require_int(now, "now")
        fired: list[Handle] = []
        with self._lock:
            if now < self._now:
                raise ValueError(
                    f"advance({now}) goes back in time: the last now was {self._now}; "
                    "time only moves forward -- pass a now >= the last one"
                )
            self._now = now
            last = self._window_end(now // self._tick)
            if last >= self._cursor:
                self._cursor = self._process(self._cursor, last, fired)
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
            return self._next_event(self._cursor) if self._pending else None

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
        callback = node.callback

        def run() -> None:
            try:
                callback()
            except Exception:
                logger.exception("timer callback %r (seq %d) raised", callback, node.seq)
                self._count_error()

        return run

    # -- copies and checks -------------------------------------------------------------------

    def _linked(self) -> list[Handle]:  # lock held; subclasses list every linked node
        raise NotImplementedError

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
            twin._errors = self.callback_errors()
            for node in sorted(self._linked(), key=lambda n: n._seq):
                clone = Handle._create(twin, node._seq, node._deadline, node._callback, node._due)
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
            linked = self._check_structure()
            assert linked == self._pending, (
                f"pending() says {self._pending} but {linked} timers are linked"
            )

    def _check_node(self, node: Handle) -> None:
        assert node._owner is self and not node._fired and not node._cancelled, (
            f"{node!r} is linked but not live"
        )
        assert node._due >= self._cursor, f"{node!r} is linked behind the cursor {self._cursor}"
        assert node._due >= ceil_div(node._deadline, self._tick), f"{node!r} is due too early"
