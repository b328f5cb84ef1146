"""The reference model of the durable scheduler's leases (specs/durable.md, rules L1..L7): the
scheduler model of specs/scheduler.md plus a clock that only moves when told (``advance``),
one lease per RUNNING generation, renewal, fencing by token, and reclaim of expired leases
inside the next claim. Slow and explicit on purpose, like the scheduler model it extends.

Decisions (copied to specs/durable.md):

* LD1 A fencing token is one counter per store: every claim takes the next value, so a later
  claim always holds a larger token (L2).
* LD2 A lease has expired when ``now > expires`` (strictly); until the next ``ready()``
  reclaims it, its holder may still renew or report (nobody else holds the task).
* LD3 Reclaim runs at the start of every ``ready()`` after ``start()`` and before ``close()``
  -- ``ready(0)`` included -- over the expired RUNNING tasks in submission sequence, and keeps
  each task's stamp (it goes back to its old place in the queue).
* LD4 ``attempts`` counts the claims since the task's last submit (a resubmit resets it);
  reclaim does not reset it.
* LD5 (L8) ``fail(..., retry=True)`` of the current claim of a task with attempts left (its
  own ``max_attempts`` from submit, else the store's) and no cancel requested does not end
  the task: it gets a new generation decided by rule 1 (as a reclaim does), keeps the error
  in ``info().error``, and waits: ``ready()`` skips it while ``now < not_before``, where
  ``not_before = now + retry_delay(retry_backoff, attempts, token)`` (:func:`retry_delay`);
  it keeps its place in the queue. Out of attempts, cancel requested, or after ``close()``
  (nothing new is claimed then): rule 5 as usual.
  ``complete(..., result=x)`` keeps ``x`` for ``info().result`` while the task is SUCCEEDED.
  ``not_before`` shows only on a PENDING/READY task; a claim or a resubmit clears it.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from typing import Any, NamedTuple

from schedcheck.model.scheduler import Scheduler, _Task

from schedcheck.contract import (
    Cause,
    LeaseDetails,
    Outcome,
    Reply,
    TaskState,
    require_int,
)

__all__ = ["RECLAIM", "LeaseClaim", "LeasedScheduler", "Renewal", "retry_delay"]

RUN, CAN, FAIL, P = (TaskState.RUNNING, TaskState.CANCELLED, TaskState.FAILED,
                     TaskState.PENDING)

#: L4: what reclaiming an expired lease makes of the task's new generation, keyed by
#: (a cancel was requested while it ran, ``attempts >= max_attempts``); None: rule 1 decides
#: (READY when its dependencies still hold, PENDING or BLOCKED otherwise)
RECLAIM: dict[tuple[bool, bool], TaskState | None] = {
    (True, False): CAN,  # the presumed-dead worker confirms the cancel, as fail() would
    (True, True): CAN,
    (False, True): FAIL,  # out of attempts: the dependents are BLOCKED with cause "failed"
    (False, False): None,
}


def retry_delay(base: float, attempts: int, token: int) -> float:
    """LD5: the wait after a failed ``attempts``-th claim held with ``token``: the exponential
    ``base * 2**(attempts-1)`` (at most an hour), half fixed, half jitter drawn from the
    token (tasks that failed together hold different tokens: they spread out)."""
    delay = min(base * 2.0 ** max(attempts - 1, 0), 3600.0)
    jitter = ((token * 2654435761) % 4294967296) / 4294967296
    return delay / 2 + delay / 2 * jitter


class LeaseClaim(NamedTuple):
    task_id: Any
    generation: int
    fn: Callable[..., Any] | None
    token: int
    expires: float


class Renewal(NamedTuple):
    outcome: Outcome
    state: TaskState
    expires: float | None


class LeasedScheduler(Scheduler):
    """The scheduler model with leases; time is ``now`` and moves only by :meth:`advance`."""

    def __init__(self, max_concurrency: int, lease_seconds: float = 30.0, *,
                 max_attempts: int = 5, now: float = 0.0, retry_backoff: float = 1.0) -> None:
        super().__init__(max_concurrency)
        self.lease_seconds = float(lease_seconds)
        self.max_attempts = require_int(max_attempts, "max_attempts", minimum=1)
        self.retry_backoff = float(retry_backoff)
        self._most: dict[Any, int] = {}  # LD5: a task's own max_attempts
        self._not_before: dict[Any, float] = {}  # LD5: a retried task waits until then
        self._result: dict[Any, Any] = {}  # LD5: what its completion reported
        self.now = float(now)
        self._token = 0  # LD1: the last token handed out
        self._lease: dict[Any, tuple[int, float]] = {}  # RUNNING id -> (token, expires)
        self._attempts: dict[Any, int] = {}

    # ---- L6: time passes -----------------------------------------------------------------
    def advance(self, seconds: float) -> None:
        """L6: the clock moves forward (never back); nothing else changes until a call."""
        if seconds < 0:
            raise ValueError(f"time only moves forward: advance({seconds!r})")
        self.now += seconds

    def _sync(self) -> None:
        """L1: only a RUNNING generation holds a lease."""
        for tid in [t for t in self._lease if self._tasks[t].state is not RUN]:
            del self._lease[tid]

    # ---- rules 1, 7 with L4's attempt count -------------------------------------------------
    def submit(self, task_id: Hashable, deps: Iterable[Hashable] = (),
               fn: Callable[..., Any] | None = None, *,
               optional: Iterable[Hashable] = (), max_attempts: int | None = None) -> int:
        if max_attempts is not None:
            require_int(max_attempts, "max_attempts", minimum=1)
        gen = super().submit(task_id, deps, fn, optional=optional)
        self._attempts[task_id] = 0  # LD4
        self._most.pop(task_id, None)
        if max_attempts is not None:
            self._most[task_id] = max_attempts
        self._not_before.pop(task_id, None)
        self._result.pop(task_id, None)
        self._sync()
        return gen

    # ---- rule 3 with L1-L4 ---------------------------------------------------------------
    def ready(self, limit: int | None = None) -> list[LeaseClaim]:  # type: ignore[override]
        """L4 then rule 3: reclaim every expired lease, then claim; each claim gets the next
        token (L2) and a lease until ``now + lease_seconds`` (L1)."""
        if limit is not None:
            require_int(limit, "limit", minimum=0)
        if self._started and not self._closed:
            self._reclaim()
        # LD5: a retried task waiting for its not_before is not claimed (PENDING for this
        # claim only: it keeps its state and its place in the queue)
        waiting = [t for t in self._tasks.values() if t.state is TaskState.READY
                   and self.now < self._not_before.get(t.task_id, self.now)]
        for t in waiting:
            t.state = P
        try:
            claims = super().ready(limit)
        finally:
            for t in waiting:
                t.state = TaskState.READY
        out = []
        for c in claims:
            self._not_before.pop(c.task_id, None)
            self._token += 1
            expires = self.now + self.lease_seconds
            self._lease[c.task_id] = (self._token, expires)
            self._attempts[c.task_id] = self._attempts.get(c.task_id, 0) + 1
            out.append(LeaseClaim(c.task_id, c.generation, c.fn, self._token, expires))
        return out

    def _reclaim(self) -> None:
        """L4 (LD3): each expired RUNNING generation, in submission sequence, becomes a new
        generation as :data:`RECLAIM` says; the old holder's reports are then STALE (I8)."""
        expired = sorted((self._tasks[tid] for tid, (_, exp) in self._lease.items()
                          if self.now > exp), key=lambda t: t.seq)
        for t in expired:
            del self._lease[t.task_id]
            attempts = self._attempts.get(t.task_id, 0)
            most = self._most.get(t.task_id, self.max_attempts)
            t.generation += 1
            t.cause, t.error, t.optional_failed = None, None, ()
            nxt = RECLAIM[(t.requested, attempts >= most)]
            t.requested = False
            if nxt is CAN:
                t.state, t.cause = CAN, Cause("cancelled", t.task_id, t.generation)
                self._block_from(t.task_id, t.cause)
            elif nxt is FAIL:
                t.state, t.error = FAIL, f"lease expired {attempts} times"
                self._block_from(t.task_id, Cause("failed", t.task_id, t.generation))
            else:
                t.state = P
                self._decide(t)
        self._settle()

    # ---- L3: renew -----------------------------------------------------------------------
    def renew(self, task_id: Hashable, generation: int, token: int) -> Renewal:
        """L3: STALE for another generation or another claim's token, REJECTED when the
        generation no longer runs, else the lease now ends at ``now + lease_seconds``."""
        g = require_int(generation, "generation")
        tok = require_int(token, "token")
        t = self._get(task_id)
        if g != t.generation or (t.state is RUN and tok != self._lease[task_id][0]):
            return Renewal(Outcome.STALE, t.state, None)
        if t.state is not RUN:
            return Renewal(Outcome.REJECTED, t.state, None)
        expires = self.now + self.lease_seconds
        self._lease[task_id] = (tok, expires)
        return Renewal(Outcome.APPLIED, t.state, expires)

    # ---- L5: fenced reports --------------------------------------------------------------
    def _fenced(self, task_id: Hashable, generation: int, token: int | None) -> _Task | None:
        """L5: the task when ``token`` names a claim that is not the current one."""
        if token is None:
            return None
        require_int(token, "token")
        t = self._get(task_id)
        if generation == t.generation and t.state is RUN and token != self._lease[task_id][0]:
            return t
        return None

    def complete(self, task_id: Hashable, generation: int,
                 token: int | None = None, *, result: Any = None) -> Reply:
        g = require_int(generation, "generation")
        fenced = self._fenced(task_id, g, token)
        if fenced is not None:
            return Reply(Outcome.STALE, fenced.state)
        reply = super().complete(task_id, g)
        if reply.outcome is Outcome.APPLIED:
            self._result[task_id] = result  # LD5
        self._sync()
        return reply

    def fail(self, task_id: Hashable, generation: int, error: Any = None,
             token: int | None = None, *, retry: bool = False) -> Reply:
        g = require_int(generation, "generation")
        fenced = self._fenced(task_id, g, token)
        if fenced is not None:
            return Reply(Outcome.STALE, fenced.state)
        t = self._get(task_id)
        attempts = self._attempts.get(task_id, 0)
        if (retry and not self._closed and g == t.generation and t.state is RUN
                and not t.requested and attempts < self._most.get(task_id, self.max_attempts)):
            return self._retry(t, error, attempts)
        reply = super().fail(task_id, g, error)
        self._sync()
        return reply

    def _retry(self, t: _Task, error: Any, attempts: int) -> Reply:
        """LD5: a new generation decided by rule 1, waiting ``retry_delay`` before a claim."""
        token, _ = self._lease.pop(t.task_id)
        t.generation += 1
        t.cause, t.error, t.optional_failed, t.requested = None, error, (), False
        t.state = P
        self._decide(t)
        self._settle()
        self._not_before[t.task_id] = self.now + retry_delay(self.retry_backoff, attempts,
                                                             token)
        return Reply(Outcome.APPLIED, t.state)

    def cancel(self, task_id: Hashable, generation: int | None = None) -> Reply:
        reply = super().cancel(task_id, generation)
        self._sync()
        return reply

    def close(self) -> list[Any]:
        out = super().close()
        self._sync()
        return out

    # ---- reading -------------------------------------------------------------------------
    def info(self, task_id: Hashable) -> LeaseDetails:
        """D6's details plus the lease: ``attempts``, ``token``, ``expires``; L8's
        ``not_before`` and ``result``."""
        base = super().info(task_id)
        out = LeaseDetails(*base)
        out.error, out.optional_failed = base.error, base.optional_failed
        token, expires = self._lease.get(task_id, (None, None))
        out.attempts = self._attempts.get(task_id, 0)
        out.token = token
        out.expires = expires
        waits = out.state in (P, TaskState.READY) and task_id in self._not_before
        out.not_before = self._not_before[task_id] if waits else None
        done = out.state is TaskState.SUCCEEDED
        out.result = self._result.get(task_id) if done else None
        return out

    def check_invariants(self) -> None:
        """Section 4's invariants and L1 (a lease iff RUNNING, tokens distinct, none above
        the counter) and L4 (attempts <= max_attempts)."""
        super().check_invariants()
        running = {tid for tid, t in self._tasks.items() if t.state is RUN}
        assert running == set(self._lease), f"L1: RUNNING {running} but leases {self._lease}"
        tokens = [tok for tok, _ in self._lease.values()]
        assert len(set(tokens)) == len(tokens), f"L1: one token held twice {tokens}"
        assert all(tok <= self._token for tok in tokens), "L2: a token above the counter"
        for tid, n in self._attempts.items():
            most = self._most.get(tid, self.max_attempts)
            assert n <= most, f"L4: {tid!r} claimed {n} > max_attempts ({most}) times"
