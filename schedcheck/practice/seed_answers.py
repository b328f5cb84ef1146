"""Answers written straight from the interview texts, in their own names (seed-shaped).

``SeedWheel`` is the wheel text's pseudocode, line for line (``schedule``/``advance``), with
the ``cancel`` its prose describes (set the flag, unlink the node). It is what a learner who
copies the text gets; the grader must list exactly what it gets wrong.
"""

from __future__ import annotations

import math
from typing import Any


class _Node:
    def __init__(self, callback: Any, deadline: int) -> None:
        self.callback, self.deadline = callback, deadline
        self.rounds = 0
        self.bucket = 0
        self.cancelled = False
        self.handle = self


class SeedWheel:
    def __init__(self, tick_duration: int, wheel_size: int, executor: Any = None) -> None:
        self.tick_duration, self.wheel_size = tick_duration, wheel_size
        self.executor = executor
        self.buckets: list[list[_Node]] = [[] for _ in range(wheel_size)]
        self.current_tick = 0
        self.now = 0

    def schedule(self, task: Any, deadline: int) -> Any:
        node = task if isinstance(task, _Node) else _Node(task, deadline)
        ticks = math.ceil((deadline - self.now) / self.tick_duration)
        ticks = max(ticks, 0)
        node.rounds = ticks // self.wheel_size
        node.bucket = (self.current_tick + ticks) % self.wheel_size
        self.buckets[node.bucket].append(node)
        return node.handle

    def cancel(self, handle: Any) -> None:
        handle.cancelled = True
        bucket = self.buckets[handle.bucket]
        if handle in bucket:
            bucket.remove(handle)

    def advance(self, now: int) -> None:
        self.now = now
        while self.current_tick <= now // self.tick_duration:
            bucket = self.buckets[self.current_tick % self.wheel_size]
            detached, bucket[:] = list(bucket), []
            for node in detached:
                if node.cancelled:
                    continue
                if node.rounds > 0:
                    node.rounds -= 1
                    bucket.append(node)
                elif node.deadline <= now:
                    self.executor.submit(node.callback)
                else:
                    self.schedule(node, node.deadline)
            self.current_tick += 1


class ConflictError(Exception):
    """The text's "return a conflict" for a RUNNING version that is resubmitted."""


class UnknownDependency(Exception):
    """The text's error for a dependency that was never submitted."""


class CycleError(Exception):
    def __init__(self, cycle: list[Any]) -> None:
        super().__init__(" -> ".join(map(str, cycle)))
        self.cycle = cycle


class SeedScheduler:
    """The scheduler text's answer as a learner writes it from the text: its pseudocode
    (``submit`` with ``remainingDeps``, ``dependents`` and a ready queue) and its steps --
    Kahn/DFS before scheduling, claims up to the free slots, callbacks checked against the
    generation ("return a conflict"), failure and cancellation blocking the descendants,
    cooperative cancel, retries as new generations. Nothing more: no argument checks, the
    text's own error names, no ``ready()`` limit."""

    def __init__(self, max_concurrency: int) -> None:
        self.max_concurrency = max_concurrency
        self.tasks: dict[Any, dict[str, Any]] = {}
        self.dependents: dict[Any, list[Any]] = {}
        self.seq = 0
        self.running = 0
        self.started = self.closed = False

    def submit(self, task_id: Any, deps: Any, fn: Any = None) -> int:
        if self.closed:
            raise RuntimeError("closed")
        old = self.tasks.get(task_id)
        if old is not None and old["state"] == "running":
            raise ConflictError(task_id)
        if old is not None:
            for d in old["deps"]:
                self.dependents[d].remove(task_id)
            if old["state"] == "succeeded":
                for t in self.dependents.get(task_id, []):
                    if self.tasks[t]["state"] in ("pending", "ready"):
                        self.tasks[t]["state"] = "pending"
                        self.tasks[t]["remaining"] += 1
        deps = list(dict.fromkeys(deps))  # validateUniqueDependencies
        self.seq += 1
        task = {"deps": deps, "fn": fn, "gen": (old["gen"] + 1) if old else 1,
                "seq": self.seq, "state": "pending", "requested": False,
                "remaining": sum(1 for d in deps if self._state(d) != "succeeded")}
        self.tasks[task_id] = task
        for d in deps:  # registerEdges
            self.dependents.setdefault(d, []).append(task_id)
        if any(self._state(d) in ("failed", "blocked", "cancelled") for d in deps):
            task["state"] = "blocked"
            self._block(task_id)
        elif task["remaining"] == 0:
            task["state"] = "ready"
        return int(task["gen"])

    def _state(self, task_id: Any) -> str:
        t = self.tasks.get(task_id)
        return "pending" if t is None else str(t["state"])

    def start(self) -> None:
        for task_id, t in self.tasks.items():
            for d in t["deps"]:
                if d not in self.tasks:
                    raise UnknownDependency(f"{task_id!r} depends on unknown {d!r}")
        color: dict[Any, int] = {}
        parent: dict[Any, Any] = {}

        def dfs(u: Any) -> list[Any] | None:
            color[u] = 1
            for v in self.tasks[u]["deps"]:
                if color.get(v, 0) == 1:  # grey to grey: rebuild through the parents
                    path, x = [v], u
                    while x != v:
                        path.append(x)
                        x = parent[x]
                    return [*path, v]
                if color.get(v, 0) == 0:
                    parent[v] = u
                    found = dfs(v)
                    if found:
                        return found
            color[u] = 2
            return None

        for u in self.tasks:
            if color.get(u, 0) == 0:
                cycle = dfs(u)
                if cycle:
                    raise CycleError(cycle)
        self.started = True

    def ready(self) -> list[tuple[Any, int]]:
        if self.closed:
            return []
        free = self.max_concurrency - self.running
        out: list[tuple[Any, int]] = []
        for task_id, t in sorted(self.tasks.items(), key=lambda kv: kv[1]["seq"]):
            if len(out) >= free:
                break
            if t["state"] == "ready":
                t["state"] = "running"
                out.append((task_id, t["gen"]))
        self.running += len(out)
        return out

    def complete(self, task_id: Any, generation: int) -> tuple[str, str]:
        t = self.tasks[task_id]
        if generation != t["gen"]:
            return ("conflict", t["state"])
        if t["state"] == "succeeded":
            return ("duplicate", "succeeded")
        if t["state"] != "running":
            return ("rejected", t["state"])
        t["state"] = "succeeded"
        self.running -= 1
        for d in self.dependents.get(task_id, []):
            dt = self.tasks[d]
            if dt["state"] == "pending":
                dt["remaining"] -= 1
                if dt["remaining"] == 0:
                    dt["state"] = "ready"
        return ("applied", "succeeded")

    def fail(self, task_id: Any, generation: int) -> tuple[str, str]:
        t = self.tasks[task_id]
        if generation != t["gen"]:
            return ("conflict", t["state"])
        if t["state"] in ("failed", "cancelled"):
            return ("duplicate", t["state"])
        if t["state"] != "running":
            return ("rejected", t["state"])
        t["state"] = "cancelled" if t["requested"] else "failed"
        self.running -= 1
        self._block(task_id)
        return ("applied", t["state"])

    def cancel(self, task_id: Any) -> tuple[str, str]:
        t = self.tasks[task_id]
        if t["state"] in ("pending", "ready"):
            t["state"] = "cancelled"
            self._block(task_id)
            return ("applied", "cancelled")
        if t["state"] == "running":
            if t["requested"]:
                return ("duplicate", "running")
            t["requested"] = True
            return ("requested", "running")
        return ("duplicate" if t["state"] == "cancelled" else "rejected", t["state"])

    def _block(self, root: Any) -> None:
        stack = [root]
        while stack:
            for d in self.dependents.get(stack.pop(), []):
                if self.tasks[d]["state"] in ("pending", "ready"):
                    self.tasks[d]["state"] = "blocked"
                    stack.append(d)

    def close(self) -> None:
        self.closed = True
        for t in self.tasks.values():
            if t["state"] in ("pending", "ready"):
                t["state"] = "cancelled"

    def state(self, task_id: Any) -> str:
        if task_id not in self.tasks:
            raise KeyError(task_id)  # the text names no error for an unknown id
        return self._state(task_id)
