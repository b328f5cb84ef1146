"""HashedTimingWheel: the seed's hashed timing wheel (``specs/wheel.md``), thread-safe.

Data structure. ``wheel_size`` buckets, each a plain list of handles (see ``_wheel_common``:
no handle references a container or another handle, so a fired or cancelled timer is freed by
reference counting alone; a cancel drops the callback at once and leaves the handle in its
bucket as a *cancelled shell* until the bucket is next taken or is over half shells). A timer
with due tick ``d`` (rule 2) sits in bucket ``d % W`` with ``rounds == (d - cursor) // W``:
the seed's ``remainingRounds``, stored explicitly and decremented each time the cursor visits
its bucket.

Invariant (checked by ``check_invariants``): for every linked node
``rounds == (due - cursor) // W`` -- the visit of tick ``k`` (``k % W == d % W``, ``k < d``)
lowers ``(d - k) // W`` by exactly one, and the cursor passing any other bucket leaves it
unchanged, so the stored rounds and the formula agree.

Processing tick ``k`` takes bucket ``k % W`` out whole and walks that list once: a cancelled
shell is dropped (``_still_live``, rule 4's re-check, inlined), a node with ``rounds > 0`` is
decremented and re-linked (in walk order, so a bucket stays in ascending seq: ties fire in
schedule order, rule 3), else it fires. The re-check is what makes a walk outside the lock
safe (a cancel between the take and the walk only sets the state); the race argument is in
``_wheel_common``, and the race zoo's ``CancelNoRecheckWheel`` walks outside the lock without
it.

Costs against "Costs": ``schedule``/``cancel`` O(1) (an append to the queue the next
``advance`` files, ``_admit``: O(1) per timer there; a state change through the handle, plus
the amortized O(1) rebuild of a bucket over half shells; the occupancy byte flips when a
bucket gets its first timer). A bucket with no shell and no timer with rounds left (``_later``)
fires whole: no handle is read to decide.
A processed tick O(1 + its bucket, cancelled shells included). An ``advance`` over T ticks
jumps from one non-empty bucket to the next with the occupancy map (``bytearray.find``, a C
memchr), so it costs O(non-empty buckets visited + timers fired) plus
a memchr over the skipped bytes (~1 us for 65,536 buckets), not O(T) Python steps; an
``advance`` of one tick (a driver keeping up) reads one occupancy byte and returns. A timer
many rotations away is visited once per rotation (that is what rounds are) while the wheel
keeps up; when one ``advance`` spans more than a rotation, ``_skip_rotations`` walks all
linked nodes once, finds the earliest due tick ``m`` and jumps the rotations before it
(rebasing every node's rounds to the new cursor), so a long stall costs O(n + fired) instead
of O(T/W * n). (The hierarchical wheel needs no such step.)
Empty ticks still use the ``max_catchup_ticks`` budget (rule 1).

Departures from the model: a cancelled handle's ``callback`` is None (cancel drops it; the
model keeps it -- specs/wheel.md decision 8). The model sorts each due tick's timers by seq;
here the bucket order already is the firing order.

Locking: one ``lock_factory()`` lock guards all state (``_WheelBase``); callbacks and
``executor.submit`` run after it is released.
"""

from __future__ import annotations

from schedcheck.impl.wheel._buckets import _BucketArray
from schedcheck.impl.wheel._common import Handle, _WheelBase

__all__ = ["HashedTimingWheel"]


class HashedTimingWheel(_WheelBase):
    """``HashedTimingWheel(tick, wheel_size, *, start=0, max_catchup_ticks=None,
    max_pending=None, executor=None, lock_factory=threading.Lock)``."""

    def _init_buckets(self) -> None:
        self._buckets = _BucketArray(self._wheel_size)
        #: _later[i] >= the timers in bucket i with rounds left (counted when filed; a walk
        #: of the bucket recounts it): at 0, with no shell counted, the bucket fires whole
        self._later: list[int] = [0] * self._wheel_size

    def _detect_overrides(self) -> bool:
        #: the default re-check is inlined unless a subclass replaces it
        self._plain_live = not self._overrides(HashedTimingWheel, "_still_live")
        return self._overrides(HashedTimingWheel, "_rounds_for", "_insert")

    def _rounds_for(self, due: int) -> int:
        """Remaining rotations of a timer due at ``due`` (rule 2's informative note)."""
        return (due - self._cursor) // self._wheel_size

    def _insert(self, node: Handle) -> None:
        node._rounds = self._rounds_for(node._due)
        index = node._due % self._wheel_size
        self._buckets.append(index, node)
        if node._rounds:
            self._later[index] += 1

    def _mark_shell(self, node: Handle) -> None:
        self._buckets.mark(node._due % self._wheel_size)

    def _admit(self, nodes: list[Handle]) -> None:
        """``_insert`` for each of ``nodes`` with the default steps written out (one pass, no
        call per node)."""
        size = self._wheel_size
        lists, occ, later = self._buckets.lists, self._buckets.occ, self._later
        far = self._cursor + size  # a timer due at or after it has rounds left
        token = self._token
        for node in nodes:
            node._owner = token  # filed (queued, it was the queue token's)
            due = node._due  # its rounds were set by schedule, at this cursor
            index = due % size
            bucket = lists[index]  # _BucketArray.append, written out (as in the cascade)
            if bucket is None:
                lists[index] = [node]
                occ[index] = 1
            else:
                bucket.append(node)
            if due >= far:
                later[index] += 1

    def _process(self, first: int, last: int, out: list[Handle]) -> int:
        """Visit the non-empty buckets of ticks first..last in order (bitmap skip), jumping
        whole rotations in which nothing is due (``_skip_rotations``)."""
        size = self._wheel_size
        if first == last:  # one tick (a driver keeping up): one occupancy byte decides
            if self._buckets.occ[first % size]:
                self._process_tick(first, out)
            return last + 1
        k = first
        check_at = first
        while k <= last:
            if k >= check_at and last - k >= size and self._pending:
                k = self._skip_rotations(k, last)
                check_at = k + size  # at most one O(n) check per rotation walked plainly
                if k > last:
                    break
            distance = self._buckets.distance_to_next(k % size)
            if distance < 0 or k + distance > last:
                break
            k += distance
            self._process_tick(k, out)
            k += 1
        return last + 1

    def _next_event(self, k: int) -> int | None:
        distance = self._buckets.distance_to_next(k % self._wheel_size)
        return None if distance < 0 else k + distance

    def _skip_rotations(self, k: int, last: int) -> int:
        """Where a window ``k..last`` spanning a full rotation may resume: with ``m`` the
        earliest due tick linked, the ticks ``k .. m - W`` only decrement rounds, so jump to
        ``m - W + 1`` (or past ``last`` if ``m > last``) and recompute every node's rounds for
        the new cursor. O(n) once per rotation walked, so at most doubling the plain walk's
        O(n) per rotation -- and a long stall over far timers costs O(n), not O(T/W * n)."""
        size = self._wheel_size
        nodes = self._linked()
        m = min(node._due for node in nodes)
        if m <= last:
            if m - k < size:
                return k  # something is due within a rotation: walk plainly
            resume = m - size + 1
        else:
            resume = last + 1
        for node in nodes:
            node._rounds = (node._due - resume) // size
        return resume

    def _process_tick(self, k: int, out: list[Handle]) -> None:
        """The seed's loop body: detach bucket k % W, skip cancelled, re-link rounds > 0."""
        index = k % self._wheel_size
        buckets = self._buckets
        later = self._later
        whole = not buckets.marked[index] and not later[index] and self._plain_live
        bucket = buckets.take(index)  # out of the array first: the walk below re-checks
        if whole:  # no shell, no rounds left (both counted under the lock): all fire
            for node in bucket:
                node._owner = None  # fired: rule 3, marked before any callback runs (_fire)
            out += bucket
            self._pending -= len(bucket)
            return
        if not self._plain_live:
            bucket = [node for node in bucket if self._still_live(node)]
        kept: list[Handle] = []
        fire = out.append
        fired = len(out)
        waiting = 0  # the kept timers with rounds left after this visit
        for node in bucket:
            if node._callback is None:  # _still_live, inlined: a cancelled shell, dropped
                continue
            rounds = node._rounds
            if rounds:
                node._rounds = rounds - 1
                kept.append(node)
                if rounds > 1:
                    waiting += 1
            else:
                node._owner = None  # fired: rule 3, marked before any callback runs (_fire)
                fire(node)
        later[index] = waiting
        if kept:  # re-linked in walk order: the bucket stays in ascending seq
            buckets.lists[index] = kept
            buckets.occ[index] = 1
        self._pending -= len(out) - fired

    def _check_queued(self, node: Handle) -> None:
        self._check_node(node, queued=True)
        self._check_rounds(node)

    def _check_rounds(self, node: Handle) -> None:
        assert node._rounds == (node._due - self._cursor) // self._wheel_size, (
            f"{node!r} has rounds {node._rounds}, expected "
            f"{(node._due - self._cursor) // self._wheel_size} at cursor {self._cursor}"
        )

    def _arrays(self) -> list[_BucketArray]:
        return [self._buckets]

    def _check_structure(self) -> int:
        linked = self._buckets.check()[0]
        for index in range(self._wheel_size):
            waiting = sum(1 for node in self._buckets.iter_bucket(index) if node._rounds)
            assert waiting <= self._later[index], (
                f"bucket {index} holds {waiting} timers with rounds left but counts "
                f"{self._later[index]}: it would fire whole too early"
            )
            previous = -1
            for node in self._buckets.iter_bucket(index):
                self._check_node(node)
                assert node._due % self._wheel_size == index, (
                    f"{node!r} is in bucket {index}, expected {node._due % self._wheel_size}"
                )
                self._check_rounds(node)
                assert node._seq > previous, f"bucket {index} is out of seq order at {node!r}"
                previous = node._seq
        return linked
