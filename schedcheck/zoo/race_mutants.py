"""Racy copies of the production implementations (issue 4): each is correct sequentially.

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
* ``race-wheel-cancel-no-recheck``: advance() detaches the bucket, releases the lock to walk
  it, and fires every detached node without re-checking its cancelled flag -- a cancel that
  lands in the gap returns True and the timer fires anyway (rule 4 broken).
* ``race-wheel-max-pending-split``: schedule() checks ``max_pending`` in one critical section
  and inserts in another -- two producers both pass the check and overfill the wheel.
"""

from __future__ import annotations

from typing import Any

from schedcheck.contract import WheelFullError, require_int
from schedcheck.impl._wheel_common import Handle
from schedcheck.impl.hashed_wheel import HashedTimingWheel
from schedcheck.zoo.catalogue import Mutant, register

__all__ = ["CancelNoRecheckWheel", "SplitMaxPendingWheel"]


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
            node = Handle._create(self, self._next_seq, deadline, callback,
                                  self._due_tick_for(deadline))
            self._next_seq += 1
            self._pending += 1
            self._insert(node)
            return node


register(Mutant(
    name="race-wheel-cancel-no-recheck",
    system="wheel",
    mistake="cancel racing the tick: the bucket is detached and walked outside the lock and "
            "the walk does not re-check the cancelled flag, so a cancelled timer still fires",
    source="seed 004: common mistakes (cancel vs tick race); issue 4",
    expected_clause="W-LIN",
    factory=CancelNoRecheckWheel,
    kind="race",
))
register(Mutant(
    name="race-wheel-max-pending-split",
    system="wheel",
    mistake="max_pending is checked in one critical section and the timer inserted in "
            "another: two producers both pass the check and overfill the wheel",
    source="issue 4: racy copies",
    expected_clause="W-LIN",
    factory=SplitMaxPendingWheel,
    kind="race",
))
