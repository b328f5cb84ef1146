"""A newcomer's hashed wheel (contract-shaped): callbacks run inline, on the tick thread.

It keeps buckets and a cursor, but calls every due callback itself inside ``advance`` (with
or without an executor), forgets the remaining rounds, processes only the tick of ``now``
(missed ticks are skipped) and its ``cancel`` answers nothing. Listed in ``answers.py``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


class Handle:
    def __init__(self, deadline: int, callback: Callable[[], Any]) -> None:
        self.deadline, self.callback = deadline, callback
        self.cancelled = self.fired = False


class TimingWheel:
    def __init__(self, tick: int, wheel_size: int, executor: Any = None) -> None:
        self.tick, self.size = tick, wheel_size
        self.buckets: list[list[Handle]] = [[] for _ in range(wheel_size)]
        self.now = 0

    def schedule(self, deadline: int, callback: Callable[[], Any]) -> Handle:
        if isinstance(deadline, bool) or not isinstance(deadline, int):
            raise TypeError("deadline must be an int")
        if not callable(callback):
            raise TypeError("callback must be callable")
        h = Handle(deadline, callback)
        due = max(-(-deadline // self.tick), self.now // self.tick + 1)
        self.buckets[due % self.size].append(h)
        return h

    def schedule_after(self, delay: int, callback: Callable[[], Any]) -> Handle:
        return self.schedule(self.now + delay, callback)

    def cancel(self, handle: Handle) -> None:
        if not isinstance(handle, Handle):
            raise TypeError("not a handle")
        handle.cancelled = True

    def advance(self, now: int) -> list[Handle]:
        if now < self.now:
            raise ValueError("time goes forward")
        self.now = now
        bucket = self.buckets[(now // self.tick) % self.size]
        fired = [h for h in bucket if not h.cancelled]
        bucket.clear()
        for h in fired:
            h.fired = True
            h.callback()
        return fired

    def pending(self) -> int:
        return sum(1 for b in self.buckets for h in b if not h.cancelled)
