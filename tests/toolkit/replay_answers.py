"""Interview answers with one known mistake each, written without schedcheck (standard
library only), for the replay tests: a replay of their counterexamples must not import
schedcheck either."""

from __future__ import annotations

import heapq
from typing import Any


class CycleError(Exception):
    pass


class DoubleReleaseScheduler:
    """Kahn's algorithm with a heap ready queue. Mistake: ``complete()`` of a task already
    SUCCEEDED releases its dependents again (a duplicate callback frees a join early)."""

    def __init__(self, max_concurrency: int) -> None:
        self.mc = max_concurrency
        self.deps: dict[Any, tuple[Any, ...]] = {}
        self.dependents: dict[Any, list[Any]] = {}
        self.waiting: dict[Any, int] = {}
        self.state: dict[Any, str] = {}
        self.order: dict[Any, int] = {}
        self.heap: list[tuple[int, Any]] = []
        self.running = 0

    def submit(self, tid: Any, deps: Any, fn: Any = None) -> None:
        self.order[tid] = len(self.order)
        self.deps[tid] = tuple(deps)
        self.state[tid] = "PENDING"

    def start(self) -> None:
        color: dict[Any, int] = {}

        def visit(t: Any, path: list[Any]) -> None:
            color[t] = 1
            for d in self.deps.get(t, ()):
                if color.get(d) == 1:
                    raise CycleError(f"cycle {[*path, d]}")
                if d not in color:
                    visit(d, [*path, d])
            color[t] = 2

        for t in list(self.deps):
            if t not in color:
                visit(t, [t])
        for t, ds in self.deps.items():
            self.waiting[t] = len(set(ds))
            for d in set(ds):
                self.dependents.setdefault(d, []).append(t)
            if not ds:
                self.state[t] = "READY"
                heapq.heappush(self.heap, (self.order[t], t))

    def ready(self, limit: int | None = None) -> list[tuple[Any, int]]:
        out = []
        while self.heap and self.running < self.mc and (limit is None or len(out) < limit):
            _, t = heapq.heappop(self.heap)
            self.state[t] = "RUNNING"
            self.running += 1
            out.append((t, 1))
        return out

    def complete(self, tid: Any, generation: int = 1) -> tuple[str, str]:
        if self.state.get(tid) == "RUNNING":
            self.running -= 1
        elif self.state.get(tid) != "SUCCEEDED":
            return ("REJECTED", self.state.get(tid, "PENDING"))
        self.state[tid] = "SUCCEEDED"
        for d in self.dependents.get(tid, []):  # the mistake: no "already SUCCEEDED" check
            self.waiting[d] -= 1
            if self.waiting[d] == 0:
                self.state[d] = "READY"
                heapq.heappush(self.heap, (self.order[d], d))
        return ("APPLIED", "SUCCEEDED")


class _Handle:
    def __init__(self, deadline: int, callback: Any) -> None:
        self.deadline, self.callback = deadline, callback
        self.fired = self.cancelled = False


class EarlyWheel:
    """A hashed wheel of ``wheel_size`` buckets of ``tick`` time units. Mistake: a timer goes
    in bucket ``deadline // tick`` (rounded down) with no rounds, so a timer more than one
    rotation away fires a rotation early, and one inside the first tick fires at once."""

    def __init__(self, tick: int, wheel_size: int, *, start: int = 0) -> None:
        self.tick, self.size = tick, wheel_size
        self.buckets: list[list[_Handle]] = [[] for _ in range(wheel_size)]
        self.now_tick = start // tick
        self.count = 0

    def schedule(self, deadline: int, callback: Any) -> _Handle:
        h = _Handle(deadline, callback)
        self.buckets[(deadline // self.tick) % self.size].append(h)
        self.count += 1
        return h

    def schedule_after(self, delay: int, callback: Any) -> _Handle:
        return self.schedule(self.now_tick * self.tick + delay, callback)

    def cancel(self, handle: _Handle) -> bool:
        if handle.fired or handle.cancelled:
            return False
        handle.cancelled = True
        self.count -= 1
        return True

    def advance(self, now: int) -> list[_Handle]:
        if now // self.tick < self.now_tick:
            raise ValueError("time went backwards")
        fired: list[_Handle] = []
        while self.now_tick <= now // self.tick:
            bucket = self.buckets[self.now_tick % self.size]
            for h in list(bucket):
                bucket.remove(h)
                if not h.cancelled:
                    h.fired = True
                    self.count -= 1
                    fired.append(h)
            self.now_tick += 1
        self.now_tick -= 1  # the current tick is processed again next time
        return fired

    def pending(self) -> int:
        return self.count


class HangsOnDuplicateScheduler(DoubleReleaseScheduler):
    """Mistake: a second ``complete()`` of a task that succeeded spins for a worker that never
    comes instead of answering, so a duplicate callback hangs the caller (the release
    itself is right here: the duplicate never gets that far)."""

    def complete(self, tid: Any, generation: int = 1) -> tuple[str, str]:
        while self.state.get(tid) == "SUCCEEDED":
            pass
        return super().complete(tid, generation)
