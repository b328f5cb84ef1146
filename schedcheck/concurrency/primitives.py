"""Cooperative stand-ins for threading's primitives and ``queue.Queue``, driven by the baton.

Each has the standard library's interface (the parts real code uses) and the same semantics,
but an operation that would block marks the calling lane "blocked on <this object>" and passes
the baton (``Controller.block``), and every acquire/release/wait/notify/set/put/get is a switch
point. They hold no real lock: under a controlled run only the baton holder touches them.

Outside a controlled run (the main thread setting up, a sequential suite step) they behave as
the real primitives would for a single thread; an unmanaged thread that would *block* raises
``SchedcheckInternalError`` (nobody could ever wake it).

Timeouts: a lane blocked with a timeout is woken by the resource like any other, and times out
only when no lane at all can run (virtual time passes only when everybody is idle).

``holders()`` names the lanes a blocked waiter waits for (lock owners, the joined thread), which
is what the deadlock report's wait-for graph is built from.
"""

from __future__ import annotations

import collections
import queue as _queue
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from schedcheck.concurrency import baton
from schedcheck.concurrency.baton import Lane
from schedcheck.contract import SchedcheckInternalError

__all__ = [
    "BoundedSemaphore", "Condition", "Event", "Lock", "Queue", "RLock", "Semaphore", "Thread",
]

_counter = 0


def _label(kind: str) -> str:
    global _counter
    _counter += 1
    return f"{kind}#{_counter}"


def _me() -> Lane | None:
    return baton.current_lane()


def _switch(what: str, obj: object) -> None:
    ctl = baton.active()
    if ctl is not None and _me() is not None:
        ctl.switch(f"{what} {ctl.name_of(obj)}")


def _block(obj: object, timeout: float | None) -> bool:
    """Block the calling lane on ``obj``; False when it timed out."""
    ctl = baton.active()
    if ctl is None or _me() is None:
        raise SchedcheckInternalError(
            f"{baton._describe(obj)} would block a thread the controller does not manage; "
            "cooperative primitives are for controlled runs (schedcheck.concurrency.baton)"
        )
    return ctl.block(obj, timeout_ok=timeout is not None and timeout >= 0)


def _wake(obj: object) -> None:
    ctl = baton.active()
    if ctl is not None:
        ctl._wake(obj)


class Lock:
    """``threading.Lock``: acquire/release are switch points; a held lock blocks the lane."""

    def __init__(self) -> None:
        self.label = _label("Lock")
        self._locked = False
        self._owner: Lane | None = None

    def holders(self) -> list[Lane]:
        return [self._owner] if self._owner is not None else []

    def acquire(self, blocking: bool = True, timeout: float = -1) -> bool:
        _switch("acquire", self)
        while self._locked:
            if not blocking or not _block(self, timeout if timeout >= 0 else None):
                return False
        self._locked = True
        self._owner = _me()
        return True

    def release(self) -> None:
        if not self._locked:
            raise RuntimeError(f"release of unlocked {self.label}")
        self._locked = False
        self._owner = None
        _wake(self)
        _switch("release", self)

    def locked(self) -> bool:
        return self._locked

    __enter__ = acquire

    def __exit__(self, *exc: object) -> None:
        self.release()

    # Condition's private protocol.
    def _is_owned(self) -> bool:
        return self._locked

    def _release_save(self) -> Any:
        self.release()
        return None

    def _acquire_restore(self, state: Any) -> None:
        self.acquire()


class RLock(Lock):
    """``threading.RLock``: re-entrant per lane; only the outermost release switches."""

    def __init__(self) -> None:
        super().__init__()
        self.label = _label("RLock")
        self._count = 0
        self._unmanaged_owner = False

    def _mine(self) -> bool:
        me = _me()
        return self._locked and (self._owner is me) and (me is not None or self._unmanaged_owner)

    def acquire(self, blocking: bool = True, timeout: float = -1) -> bool:
        if self._mine():
            self._count += 1
            return True
        if not super().acquire(blocking, timeout):
            return False
        self._count = 1
        self._unmanaged_owner = _me() is None
        return True

    __enter__ = acquire

    def release(self) -> None:
        if not self._mine():
            raise RuntimeError(f"cannot release un-acquired {self.label}")
        self._count -= 1
        if self._count == 0:
            super().release()

    def _is_owned(self) -> bool:
        return self._mine()

    def _release_save(self) -> Any:
        count = self._count
        self._count = 1
        self.release()
        return count

    def _acquire_restore(self, state: Any) -> None:
        self.acquire()
        self._count = int(state)


class _Waiter:
    def __init__(self, label: str) -> None:
        self.label = label
        self.notified = False


class Condition:
    """``threading.Condition`` over a cooperative lock (an RLock by default)."""

    def __init__(self, lock: Any = None) -> None:
        self.label = _label("Condition")
        self._lock: Any = RLock() if lock is None else lock
        self._waiters: collections.deque[_Waiter] = collections.deque()
        self.acquire = self._lock.acquire
        self.release = self._lock.release

    def __enter__(self) -> bool:
        return bool(self._lock.acquire())

    def __exit__(self, *exc: object) -> None:
        self._lock.release()

    def _owned(self) -> bool:
        owned = getattr(self._lock, "_is_owned", None)
        return bool(owned()) if owned is not None else True

    def wait(self, timeout: float | None = None) -> bool:
        if not self._owned():
            raise RuntimeError(f"cannot wait on un-acquired {self.label}")
        waiter = _Waiter(f"{self.label}.wait")
        self._waiters.append(waiter)
        restore: Callable[[], Any]
        if hasattr(self._lock, "_release_save"):
            saved = self._lock._release_save()

            def restore() -> Any:
                return self._lock._acquire_restore(saved)
        else:
            self._lock.release()
            restore = self._lock.acquire
        try:
            while not waiter.notified:
                if not _block(waiter, timeout):
                    break
        finally:
            if not waiter.notified and waiter in self._waiters:
                self._waiters.remove(waiter)
            restore()
        return waiter.notified

    def wait_for(self, predicate: Callable[[], Any], timeout: float | None = None) -> Any:
        result = predicate()
        while not result:
            if not self.wait(timeout) and timeout is not None:
                return predicate()
            result = predicate()
        return result

    def notify(self, n: int = 1) -> None:
        if not self._owned():
            raise RuntimeError(f"cannot notify on un-acquired {self.label}")
        for _ in range(min(n, len(self._waiters))):
            waiter = self._waiters.popleft()
            waiter.notified = True
            _wake(waiter)
        _switch("notify", self)

    def notify_all(self) -> None:
        self.notify(len(self._waiters))

    notifyAll = notify_all


class Event:
    """``threading.Event``."""

    def __init__(self) -> None:
        self.label = _label("Event")
        self._flag = False

    def is_set(self) -> bool:
        return self._flag

    isSet = is_set

    def set(self) -> None:
        self._flag = True
        _wake(self)
        _switch("set", self)

    def clear(self) -> None:
        self._flag = False

    def wait(self, timeout: float | None = None) -> bool:
        _switch("wait", self)
        while not self._flag:
            if not _block(self, timeout):
                return self._flag
        return True


class Semaphore:
    """``threading.Semaphore``."""

    def __init__(self, value: int = 1) -> None:
        if value < 0:
            raise ValueError("semaphore initial value must be >= 0")
        self.label = _label(type(self).__name__)
        self._value = value

    def acquire(self, blocking: bool = True, timeout: float | None = None) -> bool:
        _switch("acquire", self)
        while self._value == 0:
            if not blocking or not _block(self, timeout):
                return False
        self._value -= 1
        return True

    __enter__ = acquire

    def release(self, n: int = 1) -> None:
        self._value += n
        _wake(self)
        _switch("release", self)

    def __exit__(self, *exc: object) -> None:
        self.release()


class BoundedSemaphore(Semaphore):
    def __init__(self, value: int = 1) -> None:
        super().__init__(value)
        self._initial = value

    def release(self, n: int = 1) -> None:
        if self._value + n > self._initial:
            raise ValueError(f"{self.label} released too many times")
        super().release(n)


class Queue:
    """``queue.Queue`` (FIFO): put/get block on full/empty; raises ``queue.Full/Empty``."""

    def __init__(self, maxsize: int = 0) -> None:
        self.label = _label("Queue")
        self.maxsize = maxsize
        self._items: collections.deque[Any] = collections.deque()
        self._unfinished = 0
        self._not_empty = _Waiter(f"{self.label}.not_empty")
        self._not_full = _Waiter(f"{self.label}.not_full")
        self._all_done = _Waiter(f"{self.label}.all_done")

    def qsize(self) -> int:
        return len(self._items)

    def empty(self) -> bool:
        return not self._items

    def full(self) -> bool:
        return 0 < self.maxsize <= len(self._items)

    def put(self, item: Any, block: bool = True, timeout: float | None = None) -> None:
        _switch("put", self)
        while self.full():
            if not block or not _block(self._not_full, timeout):
                raise _queue.Full
        self._items.append(item)
        self._unfinished += 1
        _wake(self._not_empty)

    def get(self, block: bool = True, timeout: float | None = None) -> Any:
        _switch("get", self)
        while not self._items:
            if not block or not _block(self._not_empty, timeout):
                raise _queue.Empty
        item = self._items.popleft()
        _wake(self._not_full)
        return item

    def put_nowait(self, item: Any) -> None:
        self.put(item, block=False)

    def get_nowait(self) -> Any:
        return self.get(block=False)

    def task_done(self) -> None:
        if self._unfinished <= 0:
            raise ValueError("task_done() called too many times")
        self._unfinished -= 1
        if self._unfinished == 0:
            _wake(self._all_done)

    def join(self) -> None:
        _switch("join", self)
        while self._unfinished:
            _block(self._all_done, None)


class Thread:
    """``threading.Thread``: inside a controlled run, ``start()`` makes a new managed lane.

    Outside a run it delegates to a real thread (nothing is controlled then).
    """

    def __init__(
        self,
        group: None = None,
        target: Callable[..., Any] | None = None,
        name: str | None = None,
        args: Iterable[Any] = (),
        kwargs: Mapping[str, Any] | None = None,
        *,
        daemon: bool | None = None,
    ) -> None:
        self._target = target
        self._args = tuple(args)
        self._kwargs = dict(kwargs or {})
        self.name = name or _label("Thread")
        self.daemon = bool(daemon)
        self._lane: Lane | None = None
        self._real: Any = None
        self.label = f"thread {self.name}"

    def run(self) -> None:
        if self._target is not None:
            self._target(*self._args, **self._kwargs)

    def start(self) -> None:
        ctl = baton.active()
        if ctl is not None and _me() is not None:
            self._lane = ctl.spawn(self.run)
            return
        self._real = baton.start_real_thread(self.run)

    def holders(self) -> list[Lane]:
        return [self._lane] if self._lane is not None and self._lane.status != "done" else []

    def join(self, timeout: float | None = None) -> None:
        if self._real is not None:
            if self._real.wait(-1 if timeout is None else timeout):
                self._real.open()  # joinable again
            return
        _switch("join", self)
        while self._lane is not None and self._lane.status != "done":
            if not _block(self._lane, timeout):
                return

    def is_alive(self) -> bool:
        if self._real is not None:
            if self._real.wait(0):
                self._real.open()
                return False
            return True
        return self._lane is not None and self._lane.status != "done"
