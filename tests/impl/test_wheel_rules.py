"""Hand-written scenarios for each rule of specs/wheel.md, one body for the model and both
wheels (parametrized): due ticks, rotations, tie order (also after a cascade), the catch-up
budget, lag, executor semantics, cancel and max_pending."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest

from schedcheck import impl, model
from schedcheck.contract import WheelFullError

WHEELS = [model.TimingWheel, impl.HashedTimingWheel, impl.HierarchicalTimingWheel]
IDS = ["model", "hashed", "hierarchical"]

pytestmark = pytest.mark.parametrize("cls", WHEELS, ids=IDS)


def noop() -> None:
    pass


def seqs(handles: list[Any]) -> list[int]:
    return [h.seq for h in handles]


class RecordingExecutor:
    """Records each submitted fn with the submitting thread; runs nothing until run()."""

    def __init__(self) -> None:
        self.fns: list[Callable[[], Any]] = []
        self.threads: list[int] = []

    def submit(self, fn: Callable[[], Any], /) -> None:
        self.fns.append(fn)
        self.threads.append(threading.get_ident())

    def run(self) -> None:
        worker = threading.Thread(target=lambda: [fn() for fn in self.fns])
        worker.start()
        worker.join()


class RejectingExecutor:
    def __init__(self) -> None:
        self.attempts = 0

    def submit(self, fn: Callable[[], Any], /) -> None:
        self.attempts += 1
        raise RuntimeError("queue full")


# ------------------------------------------------------------------ rule 1: cursor, lag, budget


def test_fresh_wheel_has_one_tick_of_lag_and_advance_start_processes_it(cls: Any) -> None:
    w = cls(10, 8, start=25)
    assert w.lag_ticks() == 1
    h = w.schedule(20, noop)  # deadline in the past: due at the cursor, tick 2
    assert h.due_tick == 2
    assert w.advance(25) == [h]
    assert w.lag_ticks() == 0


def test_advance_to_an_earlier_now_is_a_value_error_and_changes_nothing(cls: Any) -> None:
    w = cls(10, 8)
    w.schedule(100, noop)
    w.advance(50)
    before = w.snapshot()
    with pytest.raises(ValueError, match=r"advance\(49\) goes back in time: the last now was 50"):
        w.advance(49)
    assert w.snapshot() == before
    assert w.lag_ticks() == 0


def test_backlog_is_drained_by_repeated_advance_with_the_same_now(cls: Any) -> None:
    w = cls(1, 4, max_catchup_ticks=2)
    hs = [w.schedule(t, noop) for t in range(6)]
    assert w.advance(5) == hs[0:2]
    assert w.lag_ticks() == 4
    assert w.advance(5) == hs[2:4]
    assert w.advance(5) == hs[4:6]
    assert w.lag_ticks() == 0
    assert w.advance(5) == []


def test_budget_counts_empty_ticks_too(cls: Any) -> None:
    w = cls(1, 4, max_catchup_ticks=2)
    h = w.schedule(5, noop)
    assert w.advance(5) == []  # ticks 0, 1
    assert w.advance(5) == []  # ticks 2, 3
    assert w.lag_ticks() == 2
    assert w.advance(5) == [h]  # ticks 4, 5


def test_a_tick_is_never_split_by_the_budget(cls: Any) -> None:
    w = cls(1, 4, max_catchup_ticks=1)
    hs = [w.schedule(0, noop) for _ in range(5)]
    assert w.advance(3) == hs


def test_lag_ticks_counts_unprocessed_ticks_up_to_the_last_now(cls: Any) -> None:
    w = cls(10, 4, start=-35, max_catchup_ticks=3)
    assert w.lag_ticks() == 1  # tick -4
    w.advance(44)  # ticks -4..4 pending: 9; processes 3
    assert w.lag_ticks() == 6


# ------------------------------------------------------------------ rule 2: due tick


@pytest.mark.parametrize(
    ("tick", "start", "deadline", "due"),
    [
        (10, 0, 0, 0),
        (10, 0, 1, 1),
        (10, 0, 10, 1),
        (10, 0, 11, 2),
        (10, 0, -1, 0),  # past: the cursor
        (10, -100, -15, -1),  # ceil(-1.5) == -1
        (10, -100, -20, -2),
        (10, -100, -25, -2),
        (10, -100, -101, -10),  # past: the cursor
        (7, 3, 1000, 143),
    ],
)
def test_due_tick_is_the_ceiling_of_the_deadline_or_the_cursor(
    cls: Any, tick: int, start: int, deadline: int, due: int
) -> None:
    w = cls(tick, 4, start=start)
    h = w.schedule(deadline, noop)
    assert h.due_tick == due
    if due * tick - 1 >= start:
        assert w.advance(due * tick - 1) == []
    assert w.advance(max(due * tick, start)) == [h]
    assert h.fired


def test_timer_exactly_one_rotation_ahead_waits_a_full_turn(cls: Any) -> None:
    w = cls(1, 8)
    h = w.schedule(8, noop)  # same bucket as tick 0
    assert w.advance(0) == []
    assert w.advance(7) == []
    assert w.advance(8) == [h]


def test_timer_many_rotations_ahead_fires_on_its_tick_only(cls: Any) -> None:
    w = cls(1, 8)
    h = w.schedule(8 * 5 + 3, noop)
    for now in range(43):
        assert w.advance(now) == [], now
    assert w.advance(43) == [h]


def test_same_bucket_different_rounds_fire_one_rotation_apart(cls: Any) -> None:
    w = cls(1, 8)
    hs = {d: w.schedule(d, noop) for d in (19, 3, 11)}
    fired_at = {}
    for now in range(25):
        for h in w.advance(now):
            fired_at[h.deadline] = now
    assert fired_at == {3: 3, 11: 11, 19: 19}
    assert all(h.fired for h in hs.values())


def test_schedule_after_counts_from_the_last_now_and_a_negative_delay_is_past(cls: Any) -> None:
    w = cls(10, 4)
    w.advance(95)
    later = w.schedule_after(10, noop)
    past = w.schedule_after(-500, noop)
    assert later.deadline == 105
    assert later.due_tick == 11
    assert past.due_tick == 10  # the cursor
    assert w.advance(100) == [past]
    assert w.advance(110) == [later]


def test_past_deadline_during_a_backlog_is_due_at_the_cursor(cls: Any) -> None:
    w = cls(1, 4, max_catchup_ticks=2)
    a = w.schedule(3, noop)
    w.advance(9)  # processes ticks 0, 1; cursor 2
    b = w.schedule(-50, noop)
    assert b.due_tick == 2
    assert w.advance(9) == [b, a]


# ------------------------------------------------------------------ rule 3: order, executor


def test_ties_fire_in_schedule_order_not_deadline_order(cls: Any) -> None:
    w = cls(10, 4)
    a = w.schedule(19, noop)
    b = w.schedule(11, noop)
    c = w.schedule(20, noop)
    d = w.schedule(30, noop)
    assert w.advance(30) == [a, b, c, d]


def test_ties_keep_schedule_order_after_a_cascade(cls: Any) -> None:
    w = cls(1, 4)
    far = w.schedule(37, noop)  # a high level in the hierarchical wheel
    w.advance(35)
    near = w.schedule(37, noop)  # straight into level 0
    mid = w.schedule(36, noop)
    assert w.advance(40) == [mid, far, near]
    assert [far.seq, near.seq] == [0, 1]


def test_fired_handles_are_marked_before_advance_returns(cls: Any) -> None:
    w = cls(1, 4)
    h = w.schedule(1, noop)
    assert not h.fired and not h.cancelled
    w.advance(1)
    assert h.fired and not h.cancelled


def test_without_an_executor_no_callback_runs_and_errors_stay_zero(cls: Any) -> None:
    calls = []

    def boom() -> None:
        calls.append(1)
        raise RuntimeError("boom")

    w = cls(1, 4)
    h = w.schedule(0, boom)
    assert w.advance(0) == [h]
    assert calls == []
    assert h.callback is boom
    assert w.callback_errors() == 0


def test_executor_gets_each_callback_once_in_firing_order_off_the_advancing_thread(
    cls: Any,
) -> None:
    ex = RecordingExecutor()
    calls: list[tuple[str, int]] = []

    def cb(name: str) -> Callable[[], None]:
        return lambda: calls.append((name, threading.get_ident()))

    w = cls(1, 4, executor=ex)
    w.schedule(2, cb("late"))
    w.schedule(1, cb("early"))
    w.schedule(1, cb("early2"))
    fired = w.advance(2)
    assert seqs(fired) == [1, 2, 0]
    assert calls == []  # submitted, not run
    assert len(ex.fns) == 3
    ex.run()
    assert [name for name, _ in calls] == ["early", "early2", "late"]
    assert threading.get_ident() not in {thread for _, thread in calls}
    assert w.callback_errors() == 0


def test_raising_callbacks_are_counted_and_the_rest_still_run(cls: Any) -> None:
    ex = RecordingExecutor()
    ran = []

    def boom() -> None:
        raise RuntimeError("boom")

    w = cls(1, 4, executor=ex)
    w.schedule(0, boom)
    w.schedule(0, lambda: ran.append("ok"))
    w.schedule(0, boom)
    assert len(w.advance(0)) == 3
    ex.run()
    assert ran == ["ok"]
    assert w.callback_errors() == 2


def test_rejected_submissions_are_counted_and_advance_returns_every_fired_handle(
    cls: Any,
) -> None:
    ex = RejectingExecutor()
    w = cls(1, 4, executor=ex)
    hs = [w.schedule(d, noop) for d in (0, 1, 1)]
    assert w.advance(1) == hs
    assert ex.attempts == 3
    assert w.callback_errors() == 3
    assert w.pending() == 0


# ------------------------------------------------------------------ rule 4: cancel


def test_cancel_returns_true_once_and_the_timer_never_fires(cls: Any) -> None:
    w = cls(1, 4)
    h = w.schedule(2, noop)
    assert w.cancel(h) is True
    assert w.cancel(h) is False
    assert h.cancelled and not h.fired
    assert w.advance(10) == []
    assert w.pending() == 0


def test_cancel_of_a_fired_handle_is_false(cls: Any) -> None:
    w = cls(1, 4)
    h = w.schedule(0, noop)
    w.advance(0)
    assert w.cancel(h) is False
    assert h.fired and not h.cancelled


def test_cancel_of_a_handle_from_another_wheel_is_false_and_changes_nothing(cls: Any) -> None:
    w, other = cls(1, 4), cls(1, 4)
    h = other.schedule(3, noop)
    w.schedule(3, noop)
    before = w.snapshot()
    assert w.cancel(h) is False
    assert w.snapshot() == before
    assert not h.cancelled
    assert other.advance(3) == [h]


def test_cancel_of_a_timer_waiting_in_a_backlog_is_true(cls: Any) -> None:
    w = cls(1, 4, max_catchup_ticks=1)
    h = w.schedule(3, noop)
    w.advance(10)
    assert w.cancel(h) is True
    for _ in range(11):
        assert w.advance(10) == []


@pytest.mark.parametrize("bad", [None, 1, "h", object()])
def test_cancel_of_something_not_a_handle_is_a_type_error(cls: Any, bad: object) -> None:
    w = cls(1, 4)
    with pytest.raises(TypeError, match="cancel\\(\\) takes a Handle"):
        w.cancel(bad)


# ------------------------------------------------------------------ rule 5: max_pending


def test_max_pending_raises_wheel_full_and_counts_the_backlog(cls: Any) -> None:
    w = cls(1, 4, max_pending=2, max_catchup_ticks=1)
    a = w.schedule(5, noop)
    w.schedule(5, noop)
    before = w.snapshot()
    with pytest.raises(WheelFullError, match="2 timers pending, max_pending=2") as info:
        w.schedule(6, noop)
    assert (info.value.pending, info.value.max_pending) == (2, 2)
    assert w.snapshot() == before
    w.advance(10)  # backlog: the timers are overdue but not fired
    with pytest.raises(WheelFullError):
        w.schedule_after(1, noop)
    assert w.cancel(a)
    w.schedule(6, noop)
    assert w.pending() == 2


def test_malformed_arguments_are_reported_before_wheel_full(cls: Any) -> None:
    w = cls(1, 4, max_pending=0)
    with pytest.raises(TypeError, match="deadline must be an int"):
        w.schedule(1.5, noop)
    with pytest.raises(TypeError, match="callback must be callable"):
        w.schedule(1, None)
    with pytest.raises(WheelFullError):
        w.schedule(1, noop)


def test_pending_counts_live_timers(cls: Any) -> None:
    w = cls(1, 4)
    hs = [w.schedule(d, noop) for d in (1, 2, 3, 100)]
    assert w.pending() == 4
    w.cancel(hs[1])
    w.advance(3)
    assert w.pending() == 1
    w.check_invariants()


def test_ties_keep_schedule_order_whatever_levels_they_came_down(cls: Any) -> None:
    """Every way two timers due at the same tick can be filed -- the first at tick ``t1``, the
    second at ``t2``, one or both far enough to start on a higher level, the clock advanced
    tick by tick or at once -- fires them in schedule order (a hierarchical wheel that
    cascades its levels highest first, or appends a cascade behind newer timers, fails)."""
    for size in (2, 3):
        for t1 in range(12):
            for t2 in range(t1, 12):
                for due in range(t2 + 1, 20):
                    for step in (False, True):
                        w = cls(1, size)
                        w.advance(t1)
                        first = w.schedule(due, noop)
                        w.advance(t2)
                        second = w.schedule(due, noop)
                        fired = []
                        for now in range(t2, due + 1) if step else [due]:
                            fired += w.advance(now)
                        assert fired == [first, second], (size, t1, t2, due, step)
