"""A strong hashed-wheel answer (contract-shaped), written for these tests, with two subtle bugs.

Buckets of nodes with remaining rounds, handles with ``fired``/``cancelled``, an executor
that gets each fired callback after the window, bounded catch-up, ``max_pending``. The two
mistakes are listed in ``answers.py``:

* a deadline already in the past goes to bucket ``ceil(deadline / tick) % W``, an arbitrary
  bucket behind the cursor, instead of the cursor: it fires up to ``W - 1`` ticks late;
* the remaining rounds are ``(due - cursor - 1) // W``: a timer exactly a whole number of
  rotations away fires one rotation early.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from schedcheck.contract import WheelFullError


def _int(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int, not {type(value).__name__}")
    return value


class Timer:
    __slots__ = ("bucket", "callback", "cancelled", "deadline", "due", "fired", "owner",
                 "rounds")

    def __init__(self, owner: TimingWheel, deadline: int, callback: Callable[[], Any]) -> None:
        self.owner, self.deadline, self.callback = owner, deadline, callback
        self.fired = self.cancelled = False
        self.due = self.rounds = self.bucket = 0


class TimingWheel:
    def __init__(self, tick: int, wheel_size: int, *, start: int = 0,
                 max_catchup_ticks: int | None = None, max_pending: int | None = None,
                 executor: Any = None) -> None:
        self.tick = _int(tick, "tick")
        self.size = _int(wheel_size, "wheel_size")
        if tick < 1 or wheel_size < 1:
            raise ValueError("tick and wheel_size must be >= 1")
        self.now = _int(start, "start")
        self.cursor = start // tick
        if max_catchup_ticks is not None and _int(max_catchup_ticks, "max_catchup_ticks") < 1:
            raise ValueError("max_catchup_ticks must be >= 1")
        if max_pending is not None and _int(max_pending, "max_pending") < 0:
            raise ValueError("max_pending must be >= 0")
        self.max_catchup, self.max_pending, self.executor = (max_catchup_ticks, max_pending,
                                                             executor)
        self.buckets: list[list[Timer]] = [[] for _ in range(wheel_size)]
        self.live = 0
        self.errors = 0

    def schedule(self, deadline: int, callback: Callable[[], Any]) -> Timer:
        _int(deadline, "deadline")
        if not callable(callback):
            raise TypeError("callback must be callable")
        if self.max_pending is not None and self.live >= self.max_pending:
            raise WheelFullError(self.live, self.max_pending)
        t = Timer(self, deadline, callback)
        due = -(-deadline // self.tick)
        t.due = max(due, self.cursor)
        t.rounds = max((t.due - self.cursor - 1) // self.size, 0)
        t.bucket = due % self.size
        self.buckets[t.bucket].append(t)
        self.live += 1
        return t

    def schedule_after(self, delay: int, callback: Callable[[], Any]) -> Timer:
        return self.schedule(self.now + _int(delay, "delay"), callback)

    def cancel(self, handle: Timer) -> bool:
        if not isinstance(handle, Timer):
            raise TypeError(f"not a timer handle: {handle!r}")
        if handle.owner is not self or handle.fired or handle.cancelled:
            return False
        handle.cancelled = True
        self.buckets[handle.bucket].remove(handle)
        self.live -= 1
        return True

    def advance(self, now: int) -> list[Timer]:
        _int(now, "now")
        if now < self.now:
            raise ValueError(f"advance({now}) goes back in time (last now {self.now})")
        self.now = now
        last = now // self.tick
        if self.max_catchup is not None:
            last = min(last, self.cursor + self.max_catchup - 1)
        fired: list[Timer] = []
        while self.cursor <= last:
            bucket = self.buckets[self.cursor % self.size]
            keep = []
            for t in bucket:
                if t.cancelled:
                    continue
                if t.rounds > 0:
                    t.rounds -= 1
                    keep.append(t)
                else:
                    t.fired = True
                    self.live -= 1
                    fired.append(t)
            bucket[:] = keep
            self.cursor += 1
        if self.executor is not None:
            for t in fired:
                self._submit(t.callback)
        return fired

    def _submit(self, callback: Callable[[], Any]) -> None:
        def run() -> None:
            try:
                callback()
            except Exception:
                self.errors += 1
        try:
            self.executor.submit(run)
        except Exception:
            self.errors += 1

    def pending(self) -> int:
        return self.live

    def lag_ticks(self) -> int:
        return self.now // self.tick + 1 - self.cursor

    def callback_errors(self) -> int:
        return self.errors
