"""The timing wheel's catalogued mistakes: the shipped wheels with ONE mistake put back each.

Each mutant subclasses ``HashedTimingWheel`` (or ``HierarchicalTimingWheel``) and overrides a
single step, so the mistake is exactly the diff. The first eight are the seed's "common
mistakes" (seed 004); the rest are extras a careful reviewer has seen in real wheels.
``tests/impl/test_wheel_mutants_differ.py`` shows each one misbehaving on a hand-written
scenario; the zoo (``schedcheck zoo``) checks that the differential suite or the scaling
clause catches each.

The race "cancel flag not re-checked after detach" lives in ``race_mutants`` (it needs two
threads); the hashed wheel's re-check is ``_still_live(node)``.
"""

from __future__ import annotations

import time
from typing import Any

from schedcheck.contract import require_int
from schedcheck.harness.clauses import W1, W2, W3, W4, W_COST, W_INV_EARLY, W_INV_ONCE, W_MEM
from schedcheck.impl.wheel._buckets import _BucketArray
from schedcheck.impl.wheel._common import Callback, Handle, ceil_div
from schedcheck.impl.wheel.hashed import HashedTimingWheel
from schedcheck.impl.wheel.hierarchical import HierarchicalTimingWheel
from schedcheck.zoo.mutant import mutant

__all__ = [
    "AbsoluteRoundsWheel",
    "BudgetCountsNonEmptyWheel",
    "CascadeLevelTooHighWheel",
    "DropsNotYetDueWheel",
    "FiredMarkedCancelledWheel",
    "FiresNotYetDueWheel",
    "FloorDueTickWheel",
    "ForgottenRoundsWheel",
    "InlineCallbacksWheel",
    "MissedTicksIgnoredWheel",
    "NegativeModuloWheel",
    "ScanAllTimersWheel",
    "ShellsNeverCompactedWheel",
    "StallTickByTickWheel",
    "WallClockWheel",
]

_SEED = "seed 004: common mistakes"
_EXTRA = "extra (not in the interview texts)"


@mutant(name="wheel-wall-clock", system="wheel", clause=W2, source=_SEED,
        mistake="Using wall-clock time for relative delays: schedule_after counts from "
                "time.time() instead of the last now the wheel saw")
class WallClockWheel(HashedTimingWheel):
    """schedule_after counts from the wall clock, not from the last ``now`` the wheel saw."""

    def schedule_after(self, delay: int, callback: Callback) -> Handle:
        require_int(delay, "delay")
        return self.schedule(int(time.time()) + delay, callback)  # MUTANT: wall-clock time


@mutant(name="wheel-forgotten-rounds", system="wheel", clause=W_INV_EARLY, source=_SEED,
        mistake="Forgetting remainingRounds, so a task fires on the first rotation")
class ForgottenRoundsWheel(HashedTimingWheel):
    """Remaining rounds are never recorded: a timer fires the first time its bucket comes up."""

    def _rounds_for(self, due: int) -> int:
        return 0  # MUTANT: (due - cursor) // W forgotten


@mutant(name="wheel-fires-not-yet-due", system="wheel", clause=W_INV_EARLY, source=_SEED,
        mistake="Executing a not-yet-due task in the current bucket: a timer one rotation away "
                "fires when its bucket is under the cursor")
class FiresNotYetDueWheel(HashedTimingWheel):
    """A node one rotation away, found in the bucket under the cursor, is fired now."""

    def _process_tick(self, k: int, out: list[Handle]) -> None:
        index = k % self._wheel_size
        for node in self._buckets.detach(index):
            if not self._still_live(node):
                continue
            if node._rounds > 1:  # MUTANT: "> 0" -- rounds == 1 means "next time round"
                node._rounds -= 1
                self._buckets.append(index, node)
            else:
                self._fire(node, out)


@mutant(name="wheel-drops-not-yet-due", system="wheel", clause=W2, also=(W1,), source=_SEED,
        mistake="Silently dropping a not-yet-due task in the current bucket: the bucket is "
                "detached and its nodes with rounds left are never re-linked")
class DropsNotYetDueWheel(HashedTimingWheel):
    """The bucket under the cursor is detached and only its due nodes survive: not-yet-due
    nodes are silently dropped (never fired, still counted as pending; a later long pause,
    which looks for the next occupied bucket among the ones counted, then raises: W1)."""

    def _process_tick(self, k: int, out: list[Handle]) -> None:
        index = k % self._wheel_size
        for node in self._buckets.detach(index):
            if not self._still_live(node):
                continue
            if node._rounds == 0:
                self._fire(node, out)
            # MUTANT: rounds > 0 -- not re-linked, silently lost


@mutant(name="wheel-inline-callbacks", system="wheel", clause=W3, source=_SEED,
        mistake="Running user callbacks synchronously on the tick thread although an executor "
                "was given")
class InlineCallbacksWheel(HashedTimingWheel):
    """With an executor, callbacks still run on the thread that calls advance()."""

    def _dispatch(self, fired: list[Handle]) -> None:
        for node in fired:
            self._runner(node)()  # MUTANT: called inline instead of executor.submit


@mutant(name="wheel-scan-all-timers", system="wheel", clause=W_COST, kind="cost", source=_SEED,
        mistake="Scanning a fixed array of every task on every tick, losing sparse efficiency")
class ScanAllTimersWheel(HashedTimingWheel):
    """Every tick walks every timer (a flat array scan), empty ticks included: correct
    answers, O(all timers) per tick."""

    def _process(self, first: int, last: int, out: list[Handle]) -> int:
        for k in range(first, last + 1):
            for index in range(self._wheel_size):  # MUTANT: scan every bucket, every tick
                for node in self._buckets.iter_bucket(index):
                    if node._due == k and node._rounds != 0:  # never true: the scan's check
                        raise AssertionError(f"{node!r} due at {k} with rounds left")
            self._process_tick(k, out)
        return last + 1


@mutant(name="wheel-missed-ticks-ignored", system="wheel", clause=W2, source=_SEED,
        mistake="Ignoring missed ticks: advance processes only the tick of now, skipping the "
                "ones in between")
class MissedTicksIgnoredWheel(HashedTimingWheel):
    """advance() processes only the tick of ``now``: the ticks in between are skipped."""

    def _process(self, first: int, last: int, out: list[Handle]) -> int:
        if self._buckets.occ[last % self._wheel_size]:
            self._process_tick(last, out)  # MUTANT: first..last-1 never visited
        return last + 1


@mutant(name="wheel-negative-modulo", system="wheel", clause=W2, source=_SEED,
        mistake="A deadline earlier than now converted with negative modulo into an arbitrary "
                "future bucket instead of 'the next available tick'")
class NegativeModuloWheel(HashedTimingWheel):
    """A past deadline's negative tick offset is taken modulo the wheel size: it lands in a
    future bucket instead of the current one."""

    def _due_tick_for(self, deadline: int) -> int:
        ticks = ceil_div(deadline, self._tick) - self._cursor
        return self._cursor + ticks % self._wheel_size if ticks < 0 else self._cursor + ticks


@mutant(name="wheel-absolute-rounds", system="wheel", clause=W2, source=_EXTRA,
        mistake="Rounds computed from the absolute tick (due // W) instead of from the cursor")
class AbsoluteRoundsWheel(HashedTimingWheel):
    """Rounds are computed from the absolute due tick instead of from the cursor."""

    def _rounds_for(self, due: int) -> int:
        return due // self._wheel_size  # MUTANT: (due - cursor) // W


@mutant(name="wheel-floor-due-tick", system="wheel", clause=W_INV_EARLY, source=_EXTRA,
        mistake="Off by one: the due tick is floor(deadline / tick) instead of the ceiling")
class FloorDueTickWheel(HashedTimingWheel):
    """The due tick is rounded down (floor) instead of up: a timer fires up to a tick early."""

    def _due_tick_for(self, deadline: int) -> int:
        return max(deadline // self._tick, self._cursor)  # MUTANT: ceil


@mutant(name="wheel-hier-level-too-high", system="wheel", clause=W2, source=_EXTRA,
        mistake="Hierarchical cascade off by one level: a timer is placed one level too high "
                "and waits a full rotation of that level")
class CascadeLevelTooHighWheel(HierarchicalTimingWheel):
    """The level test compares the delay with a level's slot width instead of its span:
    every timer goes one level too high, and one whose slot has already started waits a full
    rotation of that level before it cascades."""

    def _level_for(self, delta: int) -> int:
        level = 0
        while delta >= self._spans[level]:  # MUTANT: "* self._base" missing
            level += 1
            if level == len(self._levels):
                self._levels.append(_BucketArray(self._base))
                self._spans.append(self._spans[-1] * self._base)
        return level


@mutant(name="wheel-budget-nonempty-ticks", system="wheel", clause=W1, source=_EXTRA,
        mistake="max_catchup_ticks counts only the non-empty ticks visited, not every tick")
class BudgetCountsNonEmptyWheel(HashedTimingWheel):
    """max_catchup_ticks counts only the non-empty buckets visited, not every tick."""

    def _window_end(self, now_tick: int) -> int:
        return now_tick  # MUTANT: the budget is applied in _process, to visits only

    def _process(self, first: int, last: int, out: list[Handle]) -> int:
        budget = self._max_catchup_ticks
        k = first
        while k <= last:
            distance = self._buckets.distance_to_next(k % self._wheel_size)
            if distance < 0 or k + distance > last:
                break
            if budget is not None:
                if budget == 0:
                    return k
                budget -= 1
            k += distance
            self._process_tick(k, out)
            k += 1
        return last + 1


@mutant(name="wheel-fired-marked-cancelled", system="wheel", clause=W_INV_ONCE, also=(W4,),
        source=_EXTRA,
        mistake="cancel() of a handle that already fired returns False but marks it "
                "cancelled: the handle then reads fired=True and cancelled=True at once")
class FiredMarkedCancelledWheel(HashedTimingWheel):
    """A late cancel drops the fired handle's callback, and `cancelled` reads that."""

    def cancel(self, handle: Handle) -> bool:
        stopped = super().cancel(handle)
        if not stopped and isinstance(handle, Handle) and handle._owner is None:
            handle._callback = None  # MUTANT: a fired handle now reads cancelled too
        return stopped


@mutant(name="wheel-stall-tick-by-tick", system="wheel", clause=W_COST, kind="cost",
        source=_EXTRA,
        mistake="advance() visits every tick of a stall one by one (no occupancy skip, no "
                "rotation jump): answers stay right, but a stall of k ticks costs O(k) "
                "Python steps, so a long stall hangs the driver")
class StallTickByTickWheel(HashedTimingWheel):
    """Every tick between the cursor and now is looked at, empty or not."""

    def _process(self, first: int, last: int, out: list[Handle]) -> int:
        occ, size = self._buckets.occ, self._wheel_size
        for k in range(first, last + 1):  # MUTANT: O(ticks), not O(non-empty buckets)
            if occ[k % size]:
                self._process_tick(k, out)
        return last + 1


@mutant(name="wheel-shells-never-compacted", system="wheel", clause=W_MEM, source=_EXTRA,
        mistake="lazy cancel without compaction: a cancelled timer's shell stays in its bucket "
                "until the cursor takes that bucket, so a wheel whose timers were cancelled "
                "keeps every shell (far more than 2 x pending entries, with nothing "
                "pending)")
class ShellsNeverCompactedWheel(HashedTimingWheel):
    """Cancelled shells are only dropped when their bucket is processed."""

    def _mark_shell(self, node: Any) -> None:
        # counted, so the walk still skips it, but never compacted
        self._buckets.marked[node._due % self._wheel_size] += 1  # MUTANT: not _buckets.mark
