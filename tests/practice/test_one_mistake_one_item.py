"""grade: one mistake, one item. A mistake is shown under the item whose rule it broke; every
other item its program reaches is "blocked by" that item; an item whose own program can avoid
another item's mistake does so. Each of the wheel text's common mistakes has an item that
fails on it, the wheel running callbacks itself without an executor included."""

from __future__ import annotations

import contextlib
from typing import Any

import pytest

from schedcheck import impl
from schedcheck.practice.grading import BLOCKED, FAIL, PASS, render_card
from schedcheck.practice.items import grade
from schedcheck.zoo.catalogue import get


@pytest.mark.parametrize(("mutant", "item"), [
    ("wheel-forgotten-rounds", "W-M2"),
    ("wheel-fires-not-yet-due", "W-M3"),
    ("wheel-drops-not-yet-due", "W-M3"),
    ("wheel-inline-callbacks", "W-M5"),
    ("sched-one-shot-toposort", "S-M1"),
])
def test_one_catalogued_mistake_fails_exactly_its_own_item(mutant: str, item: str) -> None:
    m = get(mutant)
    card = grade(m.system, m.factory, cost=False)
    assert card.failed == [item], render_card(card)
    for r in card.results:
        if r.status == BLOCKED:
            assert r.note.startswith(f"blocked by {item}:"), (r.item.id, r.note)


def test_a_forgotten_remaining_rounds_blocks_w_m3_and_leaves_the_catch_up_item_alone() -> None:
    card = grade("wheel", get("wheel-forgotten-rounds").factory, cost=False)
    statuses = {r.item.id: r.status for r in card.results}
    assert statuses["W-M3"] == BLOCKED
    # the catch-up item's own program keeps every timer within a rotation: it holds
    assert statuses["W-F2"] == PASS, render_card(card)


class _CallsCallbacksItself(impl.HashedTimingWheel):
    """Without an executor, each fired callback is called by advance() itself."""

    def __init__(self, tick: int, wheel_size: int, **options: Any) -> None:
        super().__init__(tick, wheel_size, **options)
        self._own = options.get("executor") is None

    def advance(self, now: int) -> list[Any]:
        fired = super().advance(now)
        if self._own:
            for h in fired:
                h.callback()
        return fired


class _CallsThemContained(_CallsCallbacksItself):
    """The same, but a raising callback is caught: the window is never lost."""

    def advance(self, now: int) -> list[Any]:
        fired = impl.HashedTimingWheel.advance(self, now)
        for h in fired if self._own else ():
            with contextlib.suppress(Exception):  # contained, as an executor's would be
                h.callback()
        return fired


def test_a_wheel_running_callbacks_itself_loses_the_window_and_fails_w_m5() -> None:
    card = grade("wheel", _CallsCallbacksItself, cost=False)
    assert card.failed == ["W-M5"], render_card(card)
    result = next(r for r in card.results if r.item.id == "W-M5")
    assert result.status == FAIL and "inside the wheel" in result.miss.message  # type: ignore[union-attr]
    assert "callback_that_raises" in "\n".join(result.miss.steps)  # type: ignore[union-attr]
    # the same design with the failure contained loses nothing: no item fails
    assert grade("wheel", _CallsThemContained, cost=False).failed == []


class _FloatOptionTaken(impl.HashedTimingWheel):
    """A wheel that takes a float max_catchup_ticks (and a float wheel_size) without a word."""

    def __init__(self, tick: int, wheel_size: Any, **options: Any) -> None:
        if isinstance(options.get("max_catchup_ticks"), float):
            options["max_catchup_ticks"] = int(options["max_catchup_ticks"])
        super().__init__(tick, int(wheel_size), **options)


def test_grade_refuses_the_malformed_constructor_arguments_check_refuses() -> None:
    card = grade("wheel", _FloatOptionTaken, cost=False)
    assert card.failed == ["W-polish-5"], render_card(card)
    miss = next(r for r in card.results if r.item.id == "W-polish-5").miss
    assert miss is not None and miss.steps == ("YourWheel(4, 2.0)   # <- here",)
    assert "the model gives TypeError; yours no error" in miss.message
    # and check finds the same mistake in the same class (W6: arguments)
    from schedcheck import pipeline

    result = pipeline.check("wheel", _FloatOptionTaken, target_name="FloatOptionTaken",
                            examples=60, seed=2, cost=False, levels=True, level="contract")
    assert "W6" in [cx.clause for cx in result.all_counterexamples()]
    assert grade("wheel", impl.HashedTimingWheel, cost=False).failed == []
    assert grade("scheduler", impl.Scheduler, cost=False).failed == []


class _RoundsFromTheLastTick(impl.HashedTimingWheel):
    """Remaining rounds counted from the last tick processed, not from the cursor (the next
    one): after an advance, a timer due a rotation less one tick away waits a rotation more."""

    def _rounds_for(self, due: int) -> int:
        return (due - self._now // self._tick) // self._wheel_size


class _DueTheTickAfter(impl.HashedTimingWheel):
    """"The next tick after the deadline" (floor + 1), not the first tick at or after it: a
    deadline on a tick boundary fires a tick late."""

    def _due_tick_for(self, deadline: int) -> int:
        return max(deadline // self._tick + 1, self._cursor)


def test_a_timer_a_rotation_late_is_the_rounds_item_not_a_lost_node() -> None:
    """Advanced on, the late timer fires one rotation after its due tick: a round too many
    (W-M2), not a node dropped from the bucket under the cursor (W-M3)."""
    card = grade("wheel", _RoundsFromTheLastTick, cost=False)
    assert card.failed == ["W-M2"], render_card(card)
    result = next(r for r in card.results if r.item.id == "W-M2")
    assert "a rotation late: a round too many" in result.miss.message  # type: ignore[union-attr]


def test_a_boundary_deadline_a_tick_late_is_the_due_tick_item_alone() -> None:
    """Only W-T1 fails: the late timer is named by how late it fires, and the cost item's
    timers lie inside a tick (its workload measures ticks, not the rounding)."""
    card = grade("wheel", _DueTheTickAfter)
    assert card.failed == ["W-T1"], render_card(card)
