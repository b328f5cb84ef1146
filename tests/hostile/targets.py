"""Hostile targets: the bundled scheduler and wheel with one call that misbehaves.

Each class is the bundled implementation with one method replaced: ``complete`` (scheduler)
or ``advance`` (wheel) never returns (a pure-Python loop, a lock nobody releases), ends the
process (``os._exit(0)``, a segfault through ``ctypes``), allocates without bound, recurses
without bound, or leaves a non-daemon thread that never ends (and loses the call). The check
must end with a verdict on each (``test_verdicts.py``).
"""

from __future__ import annotations

import ctypes
import os
import threading
from typing import Any

from schedcheck.impl import HashedTimingWheel, Scheduler


def _spin() -> None:
    while True:
        pass


def _lock() -> None:
    lock = threading.Lock()
    lock.acquire()
    lock.acquire()  # nobody releases it


def _exit() -> None:
    os._exit(0)


def _segfault() -> None:
    ctypes.string_at(0)


def _memory() -> None:
    hog = []
    while True:
        hog.append(bytearray(1 << 20))


def _recurse(depth: int = 0) -> int:
    return _recurse(depth + 1) + 1


def _stray_thread() -> None:
    never = threading.Event()
    threading.Thread(target=never.wait, name="stray", daemon=False).start()


#: kind -> what the misbehaving call does
BEHAVIOURS = {"spin": _spin, "lock": _lock, "exit": _exit, "segfault": _segfault,
              "memory": _memory, "recursion": _recurse, "thread": _stray_thread}


def _scheduler(kind: str) -> type[Scheduler]:
    behave = BEHAVIOURS[kind]

    class Hostile(Scheduler):
        def complete(self, task_id: Any, generation: int) -> Any:
            behave()
            if kind == "thread":  # the call is handed to a thread that never runs it
                return "ok"
            return super().complete(task_id, generation)

    Hostile.__name__ = Hostile.__qualname__ = f"{kind.title()}Scheduler"
    return Hostile


def _wheel(kind: str) -> type[HashedTimingWheel]:
    behave = BEHAVIOURS[kind]

    class Hostile(HashedTimingWheel):
        def advance(self, now: int) -> Any:
            # a long advance misbehaves (a short one works)
            if isinstance(now, int) and now > self._now + 3:
                behave()
                if kind == "thread":
                    return []
            return super().advance(now)

    Hostile.__name__ = Hostile.__qualname__ = f"{kind.title()}Wheel"
    return Hostile


SpinScheduler = _scheduler("spin")
LockScheduler = _scheduler("lock")
ExitScheduler = _scheduler("exit")
SegfaultScheduler = _scheduler("segfault")
MemoryScheduler = _scheduler("memory")
RecursionScheduler = _scheduler("recursion")
ThreadScheduler = _scheduler("thread")
SpinWheel = _wheel("spin")
LockWheel = _wheel("lock")
ExitWheel = _wheel("exit")
SegfaultWheel = _wheel("segfault")
MemoryWheel = _wheel("memory")
RecursionWheel = _wheel("recursion")
ThreadWheel = _wheel("thread")


class ThreadOnCancelWheel(HashedTimingWheel):
    """Every cancel() leaves a non-daemon thread that never ends: cancel is among the calls the
    checker makes to learn what a wheel can do, so the misbehaviour reaches every stage."""

    def cancel(self, handle: Any) -> Any:
        _stray_thread()
        return super().cancel(handle)


class SelfLoopScheduler(Scheduler):
    """Two mistakes: after ``start()``, ``submit('f', ...)`` of ``'f'`` depending on itself
    never returns (a lock nobody releases), and ``ready(0)`` hands out tasks as ``ready()``
    does. Every example needs ``submit``: the second mistake is found only if ``submit`` is
    still called after the first misbehaved."""

    started = False

    def start(self) -> Any:
        out = super().start()
        self.started = True
        return out

    def submit(self, task_id: Any, deps: Any = (), fn: Any = None, **options: Any) -> Any:
        if not isinstance(deps, (str, bytes)):
            deps = list(deps)
            if self.started and task_id == "f" and task_id in deps:
                _lock()
        return super().submit(task_id, deps, fn, **options)

    def ready(self, limit: int | None = None) -> Any:
        return super().ready(None if limit == 0 else limit)

