"""Racy copies of the production implementations: each is correct sequentially.

Every mutant here passes the sequential suites -- one thread never sees the gap -- and is
found only by a concurrent round under the baton (``schedcheck.concurrency.hunt``), shrunk to
at most 2 threads, 3 operations and 2 preemptions, and replayed 10 of 10 times
(tests/concurrency/test_race_mutants.py). They subclass the shipped classes and override one
method each, so the mistake is the diff and nothing else.

* ``race-claim-check-then-write``: ready() reads the ready queue in one critical section and
  marks the claims RUNNING in a second one -- two workers claim the same generation.
* ``race-complete-decrement-unlocked``: complete() marks SUCCEEDED under the lock, then
  decrements each dependent's outstanding count with a read and a write in two separate
  critical sections -- two completing dependencies lose a decrement, the dependent never runs.
* ``race-close-snapshot-then-cancel``: close() picks the PENDING/READY tasks in one critical
  section and cancels them in a second one -- a ready() in the gap claims a task that close
  then marks CANCELLED under the worker.
* ``race-wheel-cancel-no-recheck``: advance() detaches the bucket, releases the lock to walk
  it, and fires every detached node without re-checking its cancelled flag -- a cancel that
  lands in the gap returns True and the timer fires anyway (rule 4 broken).
* ``race-wheel-max-pending-split``: schedule() checks ``max_pending`` in one critical section
  and inserts in another -- two producers both pass the check and overfill the wheel.
"""

from __future__ import annotations

from typing import Any

from schedcheck.contract import (
    Cause,
    Claim,
    NotStartedError,
    Outcome,
    Reply,
    TaskState,
    WheelFullError,
    require_int,
)
from schedcheck.harness.clauses import S_LIN, W_LIN
from schedcheck.impl.scheduler._support import CAN, FAIL, OK, RUN, P, R, slots
from schedcheck.impl.scheduler.indegree import Scheduler
from schedcheck.impl.wheel._common import Handle
from schedcheck.impl.wheel.hashed import HashedTimingWheel
from schedcheck.zoo.mutant import mutant

__all__ = [
    "CancelNoRecheckWheel",
    "ClaimCheckThenWriteScheduler",
    "CloseSnapshotThenCancelScheduler",
    "SplitMaxPendingWheel",
    "UnlockedDecrementScheduler",
]

_OK = TaskState.SUCCEEDED


@mutant(name="race-claim-check-then-write", system="scheduler", clause=S_LIN, kind="race",
        source="seed 000: common mistakes (claim checked outside the critical section)",
        mistake="ready() checks which tasks are READY in one critical section and marks them "
                "RUNNING in another: two workers claim the same generation")
class ClaimCheckThenWriteScheduler(Scheduler):
    """ready() picks the READY tasks in one critical section and claims them in another."""

    def ready(self, limit: int | None = None) -> list[Claim]:
        if limit is not None:
            require_int(limit, "limit", minimum=0)
        with self._lock:  # MUTANT: the check ...
            if not self._started:
                raise NotStartedError("ready() before start(): call start() first")
            if self._closed:
                return []
            n = self.max_concurrency - self._running
            if limit is not None:
                n = min(n, limit)
            st = self._st
            ready = sorted((s for s in self._order if st[s] == R),
                           key=self._stamp.__getitem__)[:max(n, 0)]
        out: list[Claim] = []
        for s in ready:
            with self._lock:  # ... and the write, with no re-check that s is still READY
                if st[s] == R:
                    self._stale += 1  # its queue entry is dead now (keeps the books right)
                st[s] = RUN
                self._running += 1
                dead = tuple(self._id[d] for d in self._opt.get(s, ()) if st[d] >= FAIL)
                if dead:
                    self._ofail[s] = dead
                out.append(Claim(self._id[s], self._gen[s], self._fn[s]))
        return out


@mutant(name="race-complete-decrement-unlocked", system="scheduler", clause=S_LIN, kind="race",
        source="seed 000: what the interviewer tests (concurrent completions)",
        mistake="complete() decrements each dependent's outstanding count outside the lock: two "
                "dependencies completing together lose a decrement and the dependent never runs")
class UnlockedDecrementScheduler(Scheduler):
    """complete() releases dependents with a read-modify-write outside the lock."""

    def complete(self, task_id: Any, generation: int) -> Reply:
        require_int(generation, "generation")
        with self._lock:
            s = self._slot.get(task_id)
            st = self._st
            if s is None or generation != self._gen[s] or st[s] != RUN:
                return self._complete_other(task_id, generation, s)
            st[s] = OK
            self._running -= 1
            self._opt_release(s)  # optional edges stay correct: the mistake is below
            dependents = slots(self._out[s]).tolist()
        for d in dependents:
            if st[d] == P:
                left = self._wait[d] - 1  # MUTANT: read outside the lock ...
                with self._lock:  # ... written back under it: a concurrent decrement is lost
                    self._wait[d] = left
                    if not left and st[d] == P:
                        self._t[d] = self._clock()
                        self._push(d)
        return Reply(Outcome.APPLIED, _OK)


@mutant(name="race-close-snapshot-then-cancel", system="scheduler", clause=S_LIN, kind="race",
        source="seed 000: shutdown while workers still claim and report (close racing ready)",
        mistake="close() picks the PENDING/READY tasks in one critical section and cancels them "
                "in another without re-checking: a ready() in the gap claims a task that close "
                "then marks CANCELLED under the worker")
class CloseSnapshotThenCancelScheduler(Scheduler):
    """close() chooses what to cancel in one critical section and cancels it in another."""

    def close(self) -> list[Any]:
        with self._lock:  # MUTANT: the tasks to cancel are chosen ...
            if self._closed:
                return []
            st = self._st
            hit = sorted((s for s in self._order if st[s] <= R), key=self._stamp.__getitem__)
        with self._lock:  # ... and cancelled in a second one, with no re-check of their state
            self._closed = True
            for s in hit:
                st[s] = CAN
                self._cause[s] = Cause("shutdown", self._id[s], self._gen[s])
            self._clear_queue()
            return [self._id[s] for s in hit]


@mutant(name="race-wheel-cancel-no-recheck", system="wheel", clause=W_LIN, kind="race",
        source="seed 004: common mistakes (cancel vs tick race)",
        mistake="cancel racing the tick: the bucket is detached and walked outside the lock and "
                "the walk does not re-check the cancelled flag, so a cancelled timer still "
                "fires")
class CancelNoRecheckWheel(HashedTimingWheel):
    """advance() walks the detached bucket in a second critical section, with no re-check."""

    def _process_tick(self, k: int, out: list[Handle]) -> None:
        index = k % self._wheel_size
        nodes = self._buckets.detach(index)
        lock: Any = self._lock
        lock.release()  # MUTANT: the walk runs in a second critical section ...
        lock.acquire()
        for node in nodes:  # ... and does not re-check node._cancelled (no _still_live)
            if node._rounds > 0:
                node._rounds -= 1
                self._buckets.append(index, node)
            else:
                self._fire(node, out)


@mutant(name="race-wheel-max-pending-split", system="wheel", clause=W_LIN, kind="race",
        source="extra (not in the interview texts): racy copies",
        mistake="max_pending is checked in one critical section and the timer inserted in "
                "another: two producers both pass the check and overfill the wheel")
class SplitMaxPendingWheel(HashedTimingWheel):
    """schedule() checks max_pending and inserts in two critical sections."""

    def schedule(self, deadline: int, callback: Any) -> Handle:
        require_int(deadline, "deadline")
        self._require_callable(callback)
        with self._lock:  # MUTANT: the check ...
            pending = self._pending
        if self._max_pending is not None and pending >= self._max_pending:
            raise WheelFullError(pending, self._max_pending)
        with self._lock:  # ... and the insert in separate critical sections
            node = Handle._create(self._token, self._next_seq, deadline, callback,
                                  self._due_tick_for(deadline))
            self._next_seq += 1
            self._pending += 1
            self._insert(node)
            return node
