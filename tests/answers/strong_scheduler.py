"""A strong scheduler answer (contract-shaped), written for these tests, with two subtle bugs.

Indegree counts, reverse edges, a ready heap in submission order, generations, cooperative
cancel, close, the contract's errors. The two mistakes are listed in ``answers.py``:

* a second ``cancel`` of a RUNNING task answers REQUESTED again (the table says DUPLICATE);
* ``start()`` reports the cycle walked along the reverse edges, so each element is a
  *dependent* of the next instead of a dependency.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Hashable, Iterable
from typing import Any

from schedcheck.contract import (
    Cause,
    Claim,
    ClosedError,
    ConflictError,
    CycleError,
    NotStartedError,
    Outcome,
    Reply,
    TaskInfo,
    TaskState,
    UnknownDependencyError,
    UnknownTaskError,
)

P, R, RUN = TaskState.PENDING, TaskState.READY, TaskState.RUNNING
OK, FAILED, BLK, CAN = (TaskState.SUCCEEDED, TaskState.FAILED, TaskState.BLOCKED,
                        TaskState.CANCELLED)
DEAD = (FAILED, BLK, CAN)


def _int(value: Any, name: str, minimum: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int, not {type(value).__name__}")
    if minimum is not None and value < minimum:
        raise ValueError(f"{name} must be >= {minimum}")
    return value


class _Task:
    __slots__ = ("cause", "deps", "fn", "gen", "requested", "seq", "state", "task_id",
                 "waiting")

    def __init__(self, task_id: Any) -> None:
        self.task_id = task_id
        self.gen = 0
        self.seq = 0
        self.deps: tuple[Any, ...] = ()
        self.fn: Callable[..., Any] | None = None
        self.state = P
        self.cause: Cause | None = None
        self.requested = False
        self.waiting = 0


class Scheduler:
    def __init__(self, max_concurrency: int) -> None:
        self.max_concurrency = _int(max_concurrency, "max_concurrency", 0)
        self.tasks: dict[Any, _Task] = {}
        self.dependents: dict[Any, list[Any]] = {}
        self.heap: list[tuple[int, Any]] = []
        self.seq = 0
        self.running = 0
        self.started = self.closed = False

    # -- helpers ----------------------------------------------------------------------------
    def _get(self, task_id: Any) -> _Task:
        hash(task_id)
        t = self.tasks.get(task_id)
        if t is None:
            raise UnknownTaskError(task_id)
        return t

    def _make_ready(self, t: _Task) -> None:
        t.state = R
        heapq.heappush(self.heap, (t.seq, t.task_id))

    def _block(self, root: Any, cause: Cause) -> None:
        stack = [root]
        while stack:
            for d in self.dependents.get(stack.pop(), ()):
                dt = self.tasks[d]
                if dt.state in (P, R):
                    dt.state, dt.cause = BLK, cause
                    stack.append(d)

    def _cycle(self, roots: Iterable[Any], extra: dict[Any, tuple[Any, ...]]) -> list[Any] | None:
        def deps(x: Any) -> tuple[Any, ...]:
            ds = extra[x] if x in extra else self.tasks[x].deps
            return tuple(d for d in ds if d in self.tasks or d in extra)

        colour: dict[Any, int] = {}
        for root in roots:
            if root in colour:
                continue
            stack, iters = [root], [iter(deps(root))]
            colour[root] = 1
            while iters:
                nxt = next(iters[-1], None)
                if nxt is None:
                    colour[stack.pop()] = 2
                    iters.pop()
                elif colour.get(nxt) == 1:
                    i = stack.index(nxt)
                    return [nxt, *stack[i + 1:], nxt]  # walked dependent -> dependency
                elif nxt not in colour:
                    colour[nxt] = 1
                    stack.append(nxt)
                    iters.append(iter(deps(nxt)))
        return None

    # -- the contract -----------------------------------------------------------------------
    def submit(self, task_id: Hashable, deps: Iterable[Hashable] = (),
               fn: Callable[..., Any] | None = None) -> int:
        hash(task_id)
        if deps is None or isinstance(deps, (str, bytes)) or not isinstance(deps, Iterable):
            raise TypeError("deps must be an iterable of task ids")
        clean = tuple(dict.fromkeys(deps))
        for d in clean:
            hash(d)
        if fn is not None and not callable(fn):
            raise TypeError("fn must be callable or None")
        if self.closed:
            raise ClosedError(f"cannot submit {task_id!r}: closed")
        old = self.tasks.get(task_id)
        if old is not None and old.state is RUN:
            raise ConflictError(task_id, old.gen)
        if self.started:
            missing = [d for d in clean if d not in self.tasks and d != task_id]
            if missing:
                raise UnknownDependencyError(task_id, missing)
            cycle = self._cycle([task_id], {task_id: clean})
            if cycle is not None:
                raise CycleError(cycle)
        t = old or _Task(task_id)
        if old is not None:
            for d in old.deps:
                self.dependents[d].remove(task_id)
            if old.state is OK:  # its dependents wait for the new generation again
                for d in self.dependents.get(task_id, ()):
                    dt = self.tasks[d]
                    if dt.state in (P, R):
                        dt.waiting += 1
                        dt.state = P
        self.tasks[task_id] = t
        self.seq += 1
        t.gen += 1
        t.seq, t.deps, t.fn = self.seq, clean, fn
        t.state, t.cause, t.requested = P, None, False
        for d in clean:
            self.dependents.setdefault(d, []).append(task_id)
        t.waiting = sum(1 for d in clean if d not in self.tasks or self.tasks[d].state is not OK)
        for d in clean:
            dt = self.tasks.get(d)
            if dt is not None and dt.state in DEAD:
                t.state = BLK
                t.cause = Cause("failed", d, dt.gen) if dt.state is FAILED else dt.cause
                self._block(task_id, t.cause)  # type: ignore[arg-type]
                break
        else:
            if t.waiting == 0:
                self._make_ready(t)
        return t.gen

    def start(self) -> None:
        if self.closed and not self.started:
            raise ClosedError("closed before start()")
        if self.started:
            return
        for t in sorted(self.tasks.values(), key=lambda t: t.seq):
            missing = [d for d in t.deps if d not in self.tasks]
            if missing:
                raise UnknownDependencyError(t.task_id, missing)
        order = [t.task_id for t in sorted(self.tasks.values(), key=lambda t: t.seq)]
        cycle = self._cycle(order, {})
        if cycle is not None:
            raise CycleError(cycle)
        self.started = True

    def ready(self, limit: int | None = None) -> list[Claim]:
        if limit is not None:
            _int(limit, "limit", 0)
        if not self.started:
            raise NotStartedError("ready() before start()")
        if self.closed:
            return []
        n = self.max_concurrency - self.running
        if limit is not None:
            n = min(n, limit)
        out: list[Claim] = []
        while self.heap and len(out) < n:
            seq, task_id = heapq.heappop(self.heap)
            t = self.tasks[task_id]
            if t.seq != seq or t.state is not R:
                continue  # an entry of an older generation or a task no longer READY
            t.state = RUN
            self.running += 1
            out.append(Claim(task_id, t.gen, t.fn))
        return out

    def _current(self, task_id: Any, generation: Any) -> tuple[_Task, Reply | None]:
        if generation is not None:
            _int(generation, "generation")
        t = self._get(task_id)
        if generation is not None and generation != t.gen:
            return t, Reply(Outcome.STALE, t.state)
        return t, None

    def complete(self, task_id: Hashable, generation: int) -> Reply:
        _int(generation, "generation")
        t, stale = self._current(task_id, generation)
        if stale:
            return stale
        if t.state is OK:
            return Reply(Outcome.DUPLICATE, OK)
        if t.state is not RUN:
            return Reply(Outcome.REJECTED, t.state)
        t.state = OK
        self.running -= 1
        for d in self.dependents.get(task_id, ()):
            dt = self.tasks[d]
            if dt.state is P:
                dt.waiting -= 1
                if dt.waiting == 0:
                    self._make_ready(dt)
        return Reply(Outcome.APPLIED, OK)

    def fail(self, task_id: Hashable, generation: int, error: Any = None) -> Reply:
        _int(generation, "generation")
        t, stale = self._current(task_id, generation)
        if stale:
            return stale
        if t.state in (FAILED, CAN):
            return Reply(Outcome.DUPLICATE, t.state)
        if t.state is not RUN:
            return Reply(Outcome.REJECTED, t.state)
        self.running -= 1
        if t.requested:
            t.state, t.cause = CAN, Cause("cancelled", task_id, t.gen)
        else:
            t.state = FAILED
        self._block(task_id, t.cause or Cause("failed", task_id, t.gen))
        return Reply(Outcome.APPLIED, t.state)

    def cancel(self, task_id: Hashable, generation: int | None = None) -> Reply:
        t, stale = self._current(task_id, generation)
        if stale:
            return stale
        if t.state in (P, R):
            t.state, t.cause = CAN, Cause("cancelled", task_id, t.gen)
            self._block(task_id, t.cause)
            return Reply(Outcome.APPLIED, CAN)
        if t.state is RUN:
            t.requested = True  # asked again: still "requested"
            return Reply(Outcome.REQUESTED, RUN)
        return Reply(Outcome.DUPLICATE if t.state is CAN else Outcome.REJECTED, t.state)

    def cancel_requested(self, task_id: Hashable, generation: int) -> bool:
        _int(generation, "generation")
        t = self._get(task_id)
        return generation == t.gen and t.requested

    def close(self) -> list[Any]:
        if self.closed:
            return []
        self.closed = True
        hit = sorted((t for t in self.tasks.values() if t.state in (P, R)), key=lambda t: t.seq)
        for t in hit:
            t.state, t.cause = CAN, Cause("shutdown", t.task_id, t.gen)
        return [t.task_id for t in hit]

    def info(self, task_id: Hashable) -> TaskInfo:
        t = self._get(task_id)
        return TaskInfo(task_id, t.gen, t.state, t.cause)
