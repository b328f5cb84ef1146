"""The wheel text's own plan, written line by line in its names (seed-shaped).

``TimingWheel(tick_duration, wheel_size, executor)``; ``schedule(task, deadline)`` and
``advance(now)`` are the text's pseudocode; ``schedule_after(task, delay)`` counts from the
wheel's own ``now``; ``cancel(handle)`` sets the flag and unlinks the node, as the text's
prose says. Its divergences from the contract are listed in ``answers.py``.
"""

from __future__ import annotations

import math
from typing import Any


class Node:
    def __init__(self, task: Any, deadline: int) -> None:
        self.task, self.deadline = task, deadline
        self.rounds = self.bucket = 0
        self.cancelled = self.fired = False
        self.handle = self


class TimingWheel:
    def __init__(self, tick_duration: int, wheel_size: int, executor: Any = None) -> None:
        self.tick_duration, self.wheel_size = tick_duration, wheel_size
        self.executor = executor
        self.buckets: list[list[Node]] = [[] for _ in range(wheel_size)]
        self.current_tick = 0
        self.now = 0

    def schedule(self, task: Any, deadline: int) -> Node:
        node = task if isinstance(task, Node) else Node(task, deadline)
        ticks = math.ceil((deadline - self.now) / self.tick_duration)
        ticks = max(ticks, 0)
        node.rounds = ticks // self.wheel_size
        node.bucket = (self.current_tick + ticks) % self.wheel_size
        self.buckets[node.bucket].append(node)
        return node.handle

    def schedule_after(self, task: Any, delay: int) -> Node:
        return self.schedule(task, self.now + delay)

    def cancel(self, handle: Node) -> None:
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
                    node.fired = True
                    self.executor.submit(node.task)
                else:
                    self.schedule(node, node.deadline)
            self.current_tick += 1
