"""W-COST parks its timers far away, each at its own deadline: a timer queue that groups
timers by deadline and scans every group on every tick is caught, where one shared deadline
would fold the scan into one entry. Steps are counted, never timed."""

from __future__ import annotations

from typing import Any

from schedcheck.harness.result import BROKEN, HELD
from schedcheck.harness.wheel.cost import (
    STALL_TICKS,
    WHEEL_SIZE,
    check_wheel_scaling,
    parked_tick,
    stall_parked_tick,
)


class _Handle:
    def __init__(self, deadline: int, callback: Any) -> None:
        self.deadline, self.callback = deadline, callback
        self.fired = self.cancelled = False


class DeadlineGroups:
    """Timers grouped by due tick (one per deadline here); every tick looks at every group
    (O(distinct deadlines))."""

    def __init__(self, tick: int, wheel_size: int) -> None:
        self.tick, self.now = tick, 0  # now: the last tick processed
        self.groups: dict[int, list[_Handle]] = {}

    def _due(self, deadline: int) -> int:
        return -(-deadline // self.tick)

    def schedule(self, deadline: int, callback: Any) -> _Handle:
        handle = _Handle(deadline, callback)
        self.groups.setdefault(self._due(deadline), []).append(handle)
        return handle

    def cancel(self, handle: _Handle) -> bool:
        group = self.groups.get(self._due(handle.deadline), [])
        if handle.fired or handle.cancelled or handle not in group:
            return False
        group.remove(handle)
        handle.cancelled = True
        return True

    def advance(self, now: int) -> list[_Handle]:
        fired: list[_Handle] = []
        for t in range(self.now + 1, now // self.tick + 1):
            for due in list(self.groups):
                if due <= t:
                    for handle in self.groups.pop(due):
                        handle.fired = True
                        fired.append(handle)
        self.now = max(self.now, now // self.tick)
        return fired

    def pending(self) -> int:
        return sum(len(g) for g in self.groups.values())


class WindowOrDeadlines(DeadlineGroups):
    """An index from due tick to timers whose ``advance`` walks the window's ticks when they
    are fewer than its distinct deadlines, else sorts every deadline: O(min(T, deadlines)) per
    stall of T ticks -- a step per tick while the deadlines outnumber the ticks."""

    def advance(self, now: int) -> list[_Handle]:
        last = now // self.tick
        first, self.now = self.now + 1, max(self.now, last)
        if last - first < len(self.groups):
            ticks = [t for t in range(first, last + 1) if t in self.groups]
        else:
            ticks = sorted(t for t in self.groups if t <= last)
        fired = [handle for t in ticks for handle in self.groups.pop(t)]
        for handle in fired:
            handle.fired = True
        return fired


def test_parked_timers_are_far_distinct_and_in_one_bucket() -> None:
    ticks = [parked_tick(i) for i in range(100)]
    assert len(set(ticks)) == 100
    assert {t % WHEEL_SIZE for t in ticks} == {WHEEL_SIZE - 1}
    assert min(ticks) >= 4 * WHEEL_SIZE and max(ticks) > 64**4  # beyond four 64-slot levels


def test_the_stall_is_measured_over_ticks_where_nothing_is_due() -> None:
    ticks = [stall_parked_tick(i) for i in range(5_000)]
    assert len(set(ticks)) == len(ticks)
    assert {t % WHEEL_SIZE for t in ticks} == {WHEEL_SIZE - 1}
    # the stall runs from WHEEL_SIZE - 1 over STALL_TICKS and then factor (8) times as many
    assert min(ticks) > WHEEL_SIZE - 1 + 9 * STALL_TICKS
    # unlike the timers parked a few rotations away, which fall due during such a stall
    assert min(parked_tick(i) for i in range(100)) < 9 * STALL_TICKS


def test_a_stall_that_walks_its_ticks_while_deadlines_outnumber_them_breaks_w_cost() -> None:
    result = check_wheel_scaling(WindowOrDeadlines, n=5_000)
    assert result.verdict == BROKEN, result.text
    # its one-tick advances cost O(1): the stall alone breaks the clause
    assert "with 40000 -- ratio 1.00 (O(1 + bucket)" in result.text, result.text
    assert result.ratio > 4, result.text


def test_a_queue_that_scans_every_deadline_per_tick_breaks_w_cost() -> None:
    result = check_wheel_scaling(DeadlineGroups, n=200)
    assert result.verdict == BROKEN, result.text
    assert result.ratio > 5


def test_the_bundled_wheel_holds_w_cost_with_far_parked_timers() -> None:
    from schedcheck.impl import HashedTimingWheel

    result = check_wheel_scaling(HashedTimingWheel, n=200)
    assert result.verdict == HELD, result.text
