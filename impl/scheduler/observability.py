"""The scheduler's observability signals that ``Scheduler.metrics()`` does not count itself.

The scheduler text's follow-up names: cycle count, blocked count, ready wait, run duration,
claim conflicts, lease expiry, duplicate callbacks and per-edge propagation latency, segmented
by task type and tenant, with graph configuration errors told apart from function failures.
``Scheduler.metrics()`` has the blocked count, ready wait, run duration, stale (conflicting)
and duplicate callbacks, and per-state counts (running, failed, ...). This module adds the
rest around the same scheduler, without touching it:

* :class:`ObservedScheduler` -- a :class:`~schedcheck.impl.scheduler.indegree.Scheduler` whose
  ``observed()`` returns :class:`ObservedMetrics`: the scheduler's own metrics plus cycles
  reported by ``start()``, graph configuration errors (cycles and unknown dependencies) apart
  from function failures (``fail()`` applied), per-edge propagation latency (each edge a
  ``complete()`` released, timed on the scheduler's clock from the call to the release) and
  counters per segment (``segment(task_id)``: a task type, a tenant).

Lease expiry has no counter: this scheduler is one process and holds no leases (a lease
belongs to a claim store shared by processes, see specs/large-graphs.md).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from schedcheck.impl.scheduler.indegree import Scheduler, SchedulerMetrics

from schedcheck.contract import (
    Claim,
    CycleError,
    Outcome,
    Reply,
    TaskState,
    UnknownDependencyError,
)

__all__ = ["ObservedMetrics", "ObservedScheduler", "SegmentCounts"]


@dataclass
class SegmentCounts:
    claims: int = 0
    succeeded: int = 0
    failed: int = 0


@dataclass
class ObservedMetrics:
    scheduler: SchedulerMetrics  #: the scheduler's own counters
    cycles: int = 0  #: start() calls that reported a cycle
    config_errors: int = 0  #: start() refusals: cycles and unknown dependencies
    function_failures: int = 0  #: fail() calls that made a generation FAILED
    propagation_edges: int = 0  #: edges a complete() released
    propagation_total: float = 0.0  #: their latencies summed (clock units)
    propagation_max: float = 0.0
    segments: dict[str, SegmentCounts] = field(default_factory=dict)


class ObservedScheduler(Scheduler):
    """A Scheduler that also counts the signals of :class:`ObservedMetrics`."""

    def __init__(self, max_concurrency: int, *, segment: Callable[[Any], str] = lambda t: "",
                 clock: Callable[[], float] = time.monotonic, **kwargs: Any) -> None:
        super().__init__(max_concurrency, clock=clock, **kwargs)
        self._segment = segment
        self._obs_clock = clock
        self._obs = ObservedMetrics(SchedulerMetrics())
        self._dependents: dict[Any, list[Any]] = {}  #: required reverse edges, as submitted
        self._obs_lock = threading.Lock()  #: guards the counters here (not the scheduler)

    def submit(self, task_id: Hashable, deps: Iterable[Hashable] = (), fn: Any = None,
               **kwargs: Any) -> int:
        deps = tuple(deps)
        generation = super().submit(task_id, deps, fn, **kwargs)
        with self._obs_lock:
            for dep in dict.fromkeys(deps):
                self._dependents.setdefault(dep, []).append(task_id)
        return generation

    def start(self) -> None:
        try:
            super().start()
        except CycleError:
            with self._obs_lock:
                self._obs.cycles += 1
                self._obs.config_errors += 1
            raise
        except UnknownDependencyError:
            with self._obs_lock:
                self._obs.config_errors += 1
            raise

    def ready(self, limit: int | None = None) -> list[Claim]:
        claims = super().ready(limit)
        with self._obs_lock:
            for claim in claims:
                self._seg(claim.task_id).claims += 1
        return claims

    def ready_pairs(self, limit: int | None = None) -> list[tuple[Any, int]]:
        return [(c.task_id, c.generation) for c in self.ready(limit)]  # counted by ready()

    def complete_many(self, claims: Iterable[Sequence[Any]]) -> list[Reply]:
        """One complete() per claim, so that each is observed (no single-lock batch here)."""
        return [self.complete(c[0], c[1]) for c in claims]

    def complete(self, task_id: Hashable, generation: int) -> Reply:
        started = self._obs_clock()
        with self._obs_lock:
            dependents = list(self._dependents.get(task_id, ()))
        waiting = [d for d in dependents if self.info(d).state is TaskState.PENDING]
        reply = super().complete(task_id, generation)
        if reply.outcome is not Outcome.APPLIED:
            return reply
        # READY now and PENDING before the call: released by it (another thread's complete
        # of a second dependency may share the credit; exact for one caller)
        released = [d for d in waiting if self.info(d).state is TaskState.READY]
        latency = self._obs_clock() - started
        with self._obs_lock:
            self._seg(task_id).succeeded += 1
            obs = self._obs
            obs.propagation_edges += len(released)
            obs.propagation_total += latency * len(released)
            if released:
                obs.propagation_max = max(obs.propagation_max, latency)
        return reply

    def fail(self, task_id: Hashable, generation: int, error: Any = None) -> Reply:
        reply = super().fail(task_id, generation, error)
        if reply.outcome is Outcome.APPLIED and reply.state is TaskState.FAILED:
            with self._obs_lock:
                self._obs.function_failures += 1
                self._seg(task_id).failed += 1
        return reply

    def _seg(self, task_id: Any) -> SegmentCounts:  # _obs_lock held
        return self._obs.segments.setdefault(self._segment(task_id), SegmentCounts())

    def observed(self) -> ObservedMetrics:
        """A copy: the scheduler's metrics and the signals counted here."""
        base = self.metrics()
        with self._obs_lock:
            obs = self._obs
            return ObservedMetrics(
                base, obs.cycles, obs.config_errors, obs.function_failures,
                obs.propagation_edges, obs.propagation_total, obs.propagation_max,
                {k: SegmentCounts(**vars(v)) for k, v in obs.segments.items()})
