"""A fixed worker pool around a scheduler: claim, run, report (contract rules 3-6 and 8).

``run(scheduler, workers=N, timeout=None)`` runs a scheduler to the end and returns a
:class:`RunReport`; :class:`Runner` does the same in the background until ``shutdown()``.

How it works. One *dispatcher* thread owns the claiming: it asks ``scheduler.ready(limit=free
workers)`` and hands each claim to a ``concurrent.futures.ThreadPoolExecutor`` of ``workers``
threads. A worker calls ``claim.fn(token)`` (``fn=None`` is a no-op that succeeds) and reports
``complete(id, g)`` or, if the function raised, ``fail(id, g, error)`` -- always with the
claim's generation, so a report that arrives after a resubmit is STALE and harmless. The
:class:`CancelToken` reflects ``scheduler.cancel_requested(id, g)``: cancellation of a running
task is cooperative (rule 6); the function polls the token and exits by raising (any
exception: the fail() is then reported as CANCELLED by the scheduler).

Waiting. The dispatcher sleeps on one ``threading.Condition`` (``self._cv``) that is notified
on every completion, on ``submit()`` through the runner, and on ``shutdown()``; it never polls.
It is idle when nothing is in flight and the last ready() returned nothing: ``run()`` stops
there (nothing READY, nothing RUNNING here, so no PENDING task can become READY).

Locks. ``_cv`` guards the runner's own fields (in-flight claims, results, flags). The
scheduler's lock is taken only inside scheduler calls, which are never made while ``_cv`` is
held, and no task function runs under either lock.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Protocol

from schedcheck.contract import Claim, Outcome, Reply, TaskState, require_int

__all__ = ["CancelToken", "RunReport", "Runner", "run"]


class _Scheduler(Protocol):
    def start(self) -> None: ...
    def ready(self, limit: int | None = None) -> list[Claim]: ...
    def complete(self, task_id: Any, generation: int) -> Reply: ...
    def fail(self, task_id: Any, generation: int, error: Any = None) -> Reply: ...
    def close(self) -> list[Any]: ...
    def cancel_requested(self, task_id: Any, generation: int) -> bool: ...
    def submit(self, task_id: Any, deps: Any = (), fn: Any = None, **kw: Any) -> int: ...


class CancelToken:
    """Handed to a task function: poll ``cancelled`` (or ``is_set()``) and exit early."""

    __slots__ = ("_scheduler", "generation", "task_id")

    def __init__(self, scheduler: _Scheduler, task_id: Any, generation: int) -> None:
        self._scheduler = scheduler
        self.task_id = task_id
        self.generation = generation

    @property
    def cancelled(self) -> bool:
        """True iff a cancel was requested for this claim (``scheduler.cancel_requested``)."""
        return self._scheduler.cancel_requested(self.task_id, self.generation)

    def is_set(self) -> bool:
        return self.cancelled

    def __repr__(self) -> str:
        return f"<CancelToken {self.task_id!r} g{self.generation} cancelled={self.cancelled}>"


@dataclass
class RunReport:
    """What a run did, in the order the reports reached the scheduler."""

    succeeded: list[tuple[Any, int]] = field(default_factory=list)  #: complete() APPLIED
    failed: list[tuple[Any, int, BaseException]] = field(default_factory=list)  #: -> FAILED
    cancelled: list[tuple[Any, int]] = field(default_factory=list)  #: fail() confirmed a cancel
    ignored: list[tuple[Any, int, Reply]] = field(default_factory=list)  #: STALE etc.
    still_running: list[tuple[Any, int]] = field(default_factory=list)  #: at timeout/shutdown
    claims: int = 0  #: claims handed to workers
    timed_out: bool = False
    started_at: float = 0.0  #: the runner's clock when it started
    finished_at: float | None = None  #: the runner's clock when it stopped (None: running)


class Runner:
    """A background worker pool for one scheduler. ``start()``, then ``shutdown(timeout)``."""

    def __init__(self, scheduler: _Scheduler, workers: int, *,
                 clock: Callable[[], float] = time.monotonic, _stop_when_idle: bool = False
                 ) -> None:
        self.scheduler = scheduler
        self.workers = require_int(workers, "workers", minimum=1)
        self._clock = clock
        self._cv = threading.Condition()
        self._inflight: dict[tuple[Any, int], Claim] = {}  # claimed, not yet reported
        self._report = RunReport()
        self._stopping = False  # no more claims
        self._idle = False  # nothing in flight and nothing claimable at the last look
        self._wakeups = 0  # bumped on every notify: the dispatcher's "something changed"
        self._stop_when_idle = _stop_when_idle
        self._pool: ThreadPoolExecutor | None = None
        self._thread: threading.Thread | None = None

    # ---- public --------------------------------------------------------------------------
    def start(self) -> Runner:
        """Start the scheduler (a no-op if started) and the dispatcher thread."""
        if self._thread is not None:
            raise RuntimeError("this Runner was already started; create a new one")
        self.scheduler.start()
        self._report.started_at = self._clock()
        self._pool = ThreadPoolExecutor(self.workers, thread_name_prefix="schedcheck-worker")
        self._thread = threading.Thread(target=self._dispatch, name="schedcheck-dispatcher",
                                        daemon=True)
        self._thread.start()
        return self

    def submit(self, task_id: Any, deps: Any = (), fn: Any = None, **kw: Any) -> int:
        """``scheduler.submit`` and wake the dispatcher (a task submitted behind the runner's
        back is picked up at the next completion)."""
        g = self.scheduler.submit(task_id, deps, fn, **kw)
        self._poke()
        return g

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Block until nothing is in flight and nothing is claimable; False on timeout."""
        with self._cv:
            return self._cv.wait_for(lambda: self._idle or self._stopping, timeout)

    def shutdown(self, timeout: float | None = None) -> list[tuple[Any, int]]:
        """Reject new work (``scheduler.close()``), stop claiming, wait up to ``timeout`` seconds
        for the running functions, and return the claims (id, generation) still running."""
        self.scheduler.close()
        left = self._stop(timeout)
        return left

    def _stop(self, timeout: float | None) -> list[tuple[Any, int]]:
        with self._cv:
            self._stopping = True
            self._bump()
        if self._thread is not None:
            self._thread.join()  # no claim is added after this
        with self._cv:
            self._cv.wait_for(lambda: not self._inflight, self._remaining(timeout))
            left = list(self._inflight)
            self._report.still_running = left
            self._report.finished_at = self._clock()
        if self._pool is not None:
            self._pool.shutdown(wait=not left, cancel_futures=True)
        return left

    @property
    def report(self) -> RunReport:
        """A copy of what the workers reported so far."""
        with self._cv:
            r = self._report
            return RunReport(list(r.succeeded), list(r.failed), list(r.cancelled),
                             list(r.ignored), list(r.still_running), r.claims, r.timed_out,
                             r.started_at, r.finished_at)

    # ---- internals -----------------------------------------------------------------------
    def _remaining(self, timeout: float | None) -> float | None:
        return None if timeout is None else max(0.0, timeout)

    def _bump(self) -> None:
        self._wakeups += 1
        self._cv.notify_all()

    def _poke(self) -> None:
        with self._cv:
            self._idle = False
            self._bump()

    def _dispatch(self) -> None:
        assert self._pool is not None
        while True:
            with self._cv:
                if self._stopping:
                    return
                free = self.workers - len(self._inflight)
                seen = self._wakeups
            claims = self.scheduler.ready(limit=free) if free > 0 else []
            with self._cv:
                for c in claims:
                    self._inflight[(c.task_id, c.generation)] = c
                self._report.claims += len(claims)
                for c in claims:
                    self._pool.submit(self._execute, c)
                # idle only if nothing changed since ready() was asked: a completion that
                # landed meanwhile may have made a task READY (a lost wakeup otherwise)
                if not claims and not self._inflight and self._wakeups == seen:
                    self._idle = True
                    self._cv.notify_all()
                    if self._stop_when_idle:
                        self._stopping = True
                        return
                if claims and len(self._inflight) < self.workers:
                    continue  # maybe more to claim right away
                self._cv.wait_for(self._changed_since(seen))

    def _changed_since(self, seen: int) -> Callable[[], bool]:
        return lambda: self._wakeups != seen or self._stopping

    def _execute(self, claim: Claim) -> None:
        """A worker: run the function, report with the claim's generation (rules 4-6)."""
        task_id, g, fn = claim.task_id, claim.generation, claim.fn
        error: BaseException | None = None
        try:
            if fn is not None:
                fn(CancelToken(self.scheduler, task_id, g))
        except BaseException as exc:  # the task's own failure, reported: an unreported
            error = exc  # claim would hold its slot and stall the run forever
        reply = (self.scheduler.complete(task_id, g) if error is None
                 else self.scheduler.fail(task_id, g, error))
        with self._cv:
            r = self._report
            if reply.outcome is not Outcome.APPLIED:
                r.ignored.append((task_id, g, reply))
            elif reply.state is TaskState.SUCCEEDED:
                r.succeeded.append((task_id, g))
            elif reply.state is TaskState.CANCELLED:
                r.cancelled.append((task_id, g))
            else:
                assert error is not None
                r.failed.append((task_id, g, error))
            self._inflight.pop((task_id, g), None)
            self._idle = False
            self._bump()


def run(scheduler: _Scheduler, workers: int = 4, timeout: float | None = None, *,
        clock: Callable[[], float] = time.monotonic) -> RunReport:
    """Run ``scheduler`` with ``workers`` threads until nothing is left to run (or ``timeout``
    seconds pass: then ``timed_out`` is set and ``still_running`` lists the claims whose
    functions had not returned; they keep running and report when they do). Does not close
    the scheduler."""
    runner = Runner(scheduler, workers, clock=clock, _stop_when_idle=True)
    runner.start()
    finished = runner.wait_idle(timeout)
    left = runner._stop(0.0)
    with runner._cv:
        r = runner._report
        return RunReport(list(r.succeeded), list(r.failed), list(r.cancelled), list(r.ignored),
                         left, r.claims, not finished or bool(left), r.started_at,
                         r.finished_at)
