"""The controller's overhead: operations per second under the baton against free threads.

One workload, run twice in the same process: ``threads`` threads each doing ``per_thread``
complete/ready cycles on a fresh ``impl.Scheduler`` -- once on free threads with real locks,
once under the baton with cooperative locks and an empty schedule (no preemption: the
cheapest controlled run). Reported as a ratio against the free run, never as absolute time.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from schedcheck.concurrency import baton, primitives


@dataclass
class Overhead:
    operations: int
    free_ops_per_second: float
    controlled_ops_per_second: float  #: no preemption: each thread keeps the baton
    switching_ops_per_second: float  #: a preemption at every switch point (worst case)

    @property
    def slowdown(self) -> float:
        """How many times slower a controlled run is (free / controlled)."""
        return self.free_ops_per_second / self.controlled_ops_per_second

    @property
    def text(self) -> str:
        switching = self.free_ops_per_second / self.switching_ops_per_second
        return (f"controller overhead: {self.controlled_ops_per_second:,.0f} ops/s under the "
                f"baton without preemptions ({self.slowdown:.1f}x slower than "
                f"{self.free_ops_per_second:,.0f} ops/s on free threads), "
                f"{self.switching_ops_per_second:,.0f} ops/s switching at every point "
                f"({switching:.1f}x slower); {self.operations} operations each")


def _workload(factory: Callable[..., Any], threads: int, per_thread: int,
              lock_factory: Callable[[], Any]) -> tuple[Any, list[Callable[[], None]]]:
    target = factory(threads, lock_factory=lock_factory)
    for i in range(threads * per_thread):
        target.submit(i)
    target.start()

    def worker() -> None:
        for _ in range(per_thread):
            for claim in target.ready(limit=1):
                target.complete(claim[0], claim[1])

    return target, [worker] * threads


def measure_overhead(threads: int = 2, per_thread: int = 2_000) -> Overhead:
    from schedcheck import impl

    operations = 2 * threads * per_thread
    _target, programs = _workload(impl.Scheduler, threads, per_thread, threading.Lock)
    started = time.perf_counter()
    workers = [threading.Thread(target=p) for p in programs]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    free = time.perf_counter() - started
    _target, programs = _workload(impl.Scheduler, threads, per_thread, primitives.Lock)
    started = time.perf_counter()
    baton.run(programs, [], max_steps=10 * operations + 100)
    controlled = time.perf_counter() - started
    _target, programs = _workload(impl.Scheduler, threads, per_thread, primitives.Lock)
    points = 8 * per_thread  # an upper bound on each lane's switch points
    every = [x for k in range(points) for lane in range(threads) for x in (lane, k, 0)]
    started = time.perf_counter()
    baton.run(programs, every, max_steps=10 * operations + 100)
    switching = time.perf_counter() - started
    return Overhead(operations, operations / free, operations / controlled,
                    operations / switching)
