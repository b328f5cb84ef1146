"""HierarchicalTimingWheel: Kafka/Linux-style levels that cascade (specs/wheel.md WI6, section 5).

Data structure. Levels ``0, 1, 2, ...``, each ``B = max(2, wheel_size)`` buckets (a level of
one bucket cannot subdivide anything, so ``wheel_size == 1`` uses two). Level ``l`` has slots
of ``B**l`` ticks and covers ``B**(l+1)`` ticks; a timer due at ``d`` with cursor ``c``
(``delta = d - c``) goes to level 0, bucket ``d % B``, when ``delta < B``, else to the lowest
level ``l`` with ``delta < B**(l+1)``, bucket ``(d // B**l) % B``. Levels are added on demand,
so any delay fits (no overflow list, no rounds: every node's rounds are 0).

Why a level's bucket holds one slot only: at placement the slot ``s = d // B**l`` satisfies
``s * B**l > c`` (the slot has not started: ``delta >= B**l``) and ``s <= c // B**l + B``;
as the cursor moves, the earliest slot is cascaded exactly when its first tick is processed.
So the live slots of level ``l`` always lie in ``[ceil(c / B**l), c // B**l + B]``, ``B``
consecutive values, one per bucket (``check_invariants`` asserts this window).

Processing tick ``k``: for every level ``l >= 1`` with ``k % B**l == 0``, lowest first, the
bucket of slot ``k // B**l`` is taken out and each pending node re-placed with cursor ``k``
(it lands on a lower level; cancelled shells are dropped), *in front of* what the lower
levels' buckets hold already. Then level 0's bucket ``k % B`` is taken out: every pending
node in it is due at ``k``, in schedule order, so the tick fires them as they stand (rule 3)
with no sort. Why the order holds: a timer is filed on level ``l`` when it is ``B**l`` ticks
or more away, on a lower level when it is nearer, and the cursor only moves forward; so of
two timers due at the same tick, the one that came down from a higher level was filed
(scheduled) first. Cascading lowest first puts the highest level's timers in front last, and
a level keeps the order its timers were filed in (``check_invariants`` asserts the seq order
of each due tick in every bucket).

Costs. ``schedule``/``cancel`` O(1) (an append to the queue the next ``advance`` files,
``_admit``, where the level choice is O(levels) = O(log_B delay); cancel is a state change,
plus the amortized O(1) rebuild of a bucket over half shells; the handle's level, the
``_rounds`` slot of a ``LevelHandle``, says which bucket). A tick costs O(1 + its bucket + the nodes
cascaded at it, cancelled shells included), and a cascade from level ``l`` also puts back the
occupied buckets of the levels below it (at most ``B`` each, once per ``B**l`` ticks: O(1)
amortized per tick); each timer is cascaded at most once per level, so a timer costs
O(levels) over its life instead of the hashed wheel's O(delay / W) visits.
Finding the next event probes every level, O(levels) = O(log_B of the longest pending delay):
empty top levels are dropped as soon as a probe sees them empty.
``advance`` over T ticks jumps to the next event (non-empty level-0 bucket or non-empty
cascading slot) with each level's occupancy bitmap: O(levels * events), not O(T).

Departures from the model: a cancelled handle's ``callback`` is None, as in the hashed wheel
(specs/wheel.md decision 8). Locking: as the hashed wheel (``_WheelBase``).
"""

from __future__ import annotations

from typing import Any

from schedcheck.impl.wheel._buckets import LevelHandle, _BucketArray
from schedcheck.impl.wheel._common import Handle, _WheelBase, ceil_div

__all__ = ["HierarchicalTimingWheel"]


class HierarchicalTimingWheel(_WheelBase):
    """``HierarchicalTimingWheel(tick, wheel_size, *, start=0, max_catchup_ticks=None,
    max_pending=None, executor=None, lock_factory=threading.Lock)``."""

    _keeps_rounds = False  # levels instead of rounds
    _handle_class = LevelHandle  # its handles carry the level they are filed on

    def _init_buckets(self) -> None:
        self._base = max(2, self._wheel_size)
        self._levels: list[_BucketArray] = [_BucketArray(self._base)]
        self._spans: list[int] = [1]  #: _spans[l] == B ** l

    def _detect_overrides(self) -> bool:
        #: the default re-check is inlined unless a subclass replaces it
        self._plain_live = not self._overrides(HierarchicalTimingWheel, "_still_live")
        self._plain_place = not self._overrides(HierarchicalTimingWheel, "_level_for", "_place")
        return not self._plain_place or self._overrides(HierarchicalTimingWheel, "_insert")

    def _level_for(self, delta: int) -> int:
        """The lowest level whose range ``B**(l+1)`` exceeds ``delta`` (adds levels on demand)."""
        level = 0
        while delta >= self._spans[level] * self._base:
            level += 1
            if level == len(self._levels):
                self._levels.append(_BucketArray(self._base))
                self._spans.append(self._spans[-1] * self._base)
        return level

    def _place(self, node: Any, cursor: int) -> None:
        due = node._due
        if self._plain_place and due - cursor < self._base:  # level 0 (the cascades' hot path)
            node._level = 0
            self._levels[0].append(due % self._base, node)
            return
        level = self._level_for(due - cursor)
        node._level = level
        self._levels[level].append((due // self._spans[level]) % self._base, node)

    def _insert(self, node: Handle) -> None:
        self._place(node, self._cursor)

    def _bucket_of(self, level: int, due: int) -> int:
        return (due if level == 0 else due // self._spans[level]) % self._base

    def _mark_shell(self, node: Any) -> None:
        level = node._level
        self._levels[level].mark(self._bucket_of(level, node._due))

    def _place_high(self, node: Any, due: int, delta: int) -> None:
        """``_place`` with the default steps written out, for a timer ``delta >= B`` ticks
        away (schedule's and the cascades' path to a level >= 1: no call but the append)."""
        levels, spans, base = self._levels, self._spans, self._base
        to = 1
        while to < len(levels) and delta >= spans[to] * base:
            to += 1
        if to == len(levels):
            to = self._level_for(delta)  # adds the levels it needs
        node._level = to
        levels[to].append((due // spans[to]) % base, node)

    def _next_event(self, k: int) -> int | None:
        """The first tick >= k with a non-empty level-0 bucket or a non-empty cascade."""
        best: int | None = None
        top = 0  # the highest non-empty level
        for level, array in enumerate(self._levels):
            span = self._spans[level]
            slot = ceil_div(k, span)
            distance = array.distance_to_next(slot % self._base)
            if distance >= 0:
                top = level
                event = (slot + distance) * span
                if best is None or event < best:
                    best = event
        del self._levels[top + 1:], self._spans[top + 1:]  # empty top levels: O(levels) no more
        return best

    def _process(self, first: int, last: int, out: list[Handle]) -> int:
        if first == last and first % self._base:  # one tick that cascades nothing
            if self._levels[0].occ[first % self._base]:
                self._process_tick(first, out)
            return last + 1
        k = first
        while k <= last:
            event = self._next_event(k)
            if event is None or event > last:
                break
            self._process_tick(event, out)
            k = event + 1
        return last + 1

    def _inline_levels(self) -> tuple[Any, ...]:
        """What ``_place_all`` files inline: levels 1 and 2 as (lists, occupancy, the delta
        that ends the level), as far as they exist (an absent level's range is empty: a
        delta past the last one goes through ``_place_high``, which adds levels)."""
        levels, base = self._levels, self._base
        top = len(levels) - 1
        end1 = base * base if top >= 1 else base
        end2 = end1 * base if top >= 2 else end1
        array1, array2 = levels[min(1, top)], levels[min(2, top)]
        return array1.lists, array1.occ, end1, array2.lists, array2.occ, end2

    def _place_all(self, nodes: list[Any], cursor: int) -> None:
        """``_still_live`` and ``_place(node, cursor)`` for each of ``nodes`` with the default
        steps written out (one pass; no call per node, except to place one on level 3 or
        higher); cancelled shells are dropped. A cascade re-places a slot's nodes,
        ``_admit`` the timers ``schedule`` queued (with 64 buckets a level, levels 0 to 2
        cover 262,144 ticks: almost every timer is filed inline). A cascade's caller has
        swapped the lower levels' buckets out, so this only appends."""
        base = self._base
        levels = self._levels
        lists0, occ0 = levels[0].lists, levels[0].occ
        known = len(levels)
        lists1, occ1, end1, lists2, occ2, end2 = self._inline_levels()
        token = self._token
        for node in nodes:
            if node._callback is None:  # a cancelled shell, dropped here
                continue
            node._owner = token  # filed (a queued timer is the queue token's)
            due = node._due
            delta = due - cursor
            if delta < base:
                lists, occ, i = lists0, occ0, due % base
                node._level = 0
            elif delta < end1:
                lists, occ, i = lists1, occ1, (due // base) % base
                node._level = 1
            elif delta < end2:
                lists, occ, i = lists2, occ2, (due // end1) % base
                node._level = 2
            else:
                self._place_high(node, due, delta)
                if len(levels) != known:  # it added levels: file the next timers inline too
                    known = len(levels)
                    lists1, occ1, end1, lists2, occ2, end2 = self._inline_levels()
                continue
            bucket = lists[i]
            if bucket is None:
                lists[i] = [node]
                occ[i] = 1
            else:
                bucket.append(node)

    def _admit(self, nodes: list[Handle]) -> None:
        self._place_all(nodes, self._cursor)

    def _cascade(self, k: int) -> None:
        """Re-place, for every level ``l >= 1`` whose slot starts at ``k`` (lowest first), that
        slot's timers on the levels below, in front of what those hold already: they are the
        older timers of their due ticks (the module's docstring says why), so every bucket
        stays in schedule order per due tick and the tick fires level 0 without a sort."""
        top = 0
        levels, spans, base = self._levels, self._spans, self._base
        while top + 1 < len(levels) and k % spans[top + 1] == 0:
            top += 1
        for level in range(1, top + 1):
            array = levels[level]
            index = (k // spans[level]) % base
            if not array.occ[index]:
                continue
            nodes = array.take(index)
            below = levels[:level]
            taken = [lower.swap_out() for lower in below]
            if self._plain_place and self._plain_live:
                self._place_all(nodes, k)
            else:
                place = self._place
                for node in nodes:
                    if self._still_live(node):
                        place(node, k)
            for lower, (lists, occ, marked) in zip(below, taken):
                lower.put_behind(lists, occ, marked)

    def _process_tick(self, k: int, out: list[Handle]) -> None:
        if k % self._base == 0:  # only then can a slot of a level >= 1 start
            self._cascade(k)
        level0 = self._levels[0]
        index = k % self._base
        shells = level0.marked[index]  # counted under the lock: 0 means none to re-check
        due = level0.take(index)  # out of the array first, then re-checked
        if not self._plain_live:
            due = [n for n in due if self._still_live(n)]
        elif shells:  # _still_live, inlined
            due = [n for n in due if n._callback is not None]
        for node in due:  # all due at k, in seq order (_cascade); WI6: level 0 holds delta < B
            node._owner = None  # fired: rule 3, marked before any callback runs (_fire)
        out.extend(due)
        self._pending -= len(due)

    def _check_queued(self, node: Handle) -> None:
        self._check_node(node, queued=True)
        assert node.rounds == 0, f"{node!r} has rounds in a hierarchical wheel"

    def _arrays(self) -> list[_BucketArray]:
        return self._levels

    def _check_structure(self) -> int:
        linked = 0
        c = self._cursor
        for level, array in enumerate(self._levels):
            linked += array.check()[0]
            span = self._spans[level]
            for index in range(self._base):
                last_seq: dict[int, int] = {}  # due tick -> the seq of its last timer so far
                for node in array.iter_bucket(index):
                    self._check_node(node)
                    assert last_seq.get(node._due, -1) < node._seq, (
                        f"{node!r} stands behind a newer timer of its due tick in bucket "
                        f"{index} of level {level}: the tick would fire them out of order"
                    )
                    last_seq[node._due] = node._seq
                    slot = node._due // span
                    assert slot % self._base == index, f"{node!r} in wrong bucket {index}"
                    assert node.rounds == 0, f"{node!r} has rounds in a hierarchical wheel"
                    assert getattr(node, "_level", None) == level, (
                        f"{node!r} is filed on level {level} but says level "
                        f"{getattr(node, '_level', None)}: cancel would count its shell in "
                        "another bucket"
                    )
                    if level == 0:
                        assert node._due - c < self._base, f"{node!r} too far for level 0"
                    else:
                        assert ceil_div(c, span) <= slot <= c // span + self._base, (
                            f"{node!r} at level {level} has slot {slot} outside the window "
                            f"[{ceil_div(c, span)}, {c // span + self._base}]"
                        )
        return linked
