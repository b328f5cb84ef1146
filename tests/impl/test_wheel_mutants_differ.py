"""Each catalogued wheel mutant misbehaves on a small hand-written scenario where the shipped
hashed (or hierarchical) wheel and the model agree -- so every mutant is a real mistake, and
the scenario shows which."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import pytest
from schedcheck.impl.wheel._buckets import _BucketArray

from schedcheck import impl, model
from schedcheck.zoo import wheel_mutants as wm
from schedcheck.zoo.catalogue import all_mutants


def noop() -> None:
    pass


def fired_at(wheel: Any, deadlines: list[int], until: int, *, step: int = 1, start: int = 0
             ) -> dict[int, int]:
    """Schedule one timer per deadline, advance by ``step`` up to ``until``; seq -> fire time."""
    hs = [wheel.schedule(d, noop) for d in deadlines]
    out: dict[int, int] = {}
    for now in range(start, until + 1, step):
        for h in wheel.advance(now):
            out[h.seq] = now
    assert len(hs) == len(deadlines)
    return out


def both(scenario: Callable[[Any], Any], mutant: type, good: type = impl.HashedTimingWheel
         ) -> tuple[Any, Any, Any]:
    return scenario(model.TimingWheel), scenario(good), scenario(mutant)


def test_every_wheel_mutant_is_registered_once_with_a_known_clause() -> None:
    from schedcheck.harness.clauses import WHEEL_CLAUSES

    ids = {c.id for c in WHEEL_CLAUSES}
    wheel = [m for m in all_mutants() if m.system == "wheel" and not m.name.startswith("race-")]
    assert len(wheel) == 15
    for m in wheel:
        assert m.expected_clause in ids, m
        assert m.factory(1, 4).pending() == 0


def test_wall_clock_schedule_after_ignores_the_wheels_own_time() -> None:
    def run(cls: Any) -> int:
        w = cls(1, 8)
        w.advance(100)
        return int(w.schedule_after(5, noop).deadline)

    m, good, bad = both(run, wm.WallClockWheel)
    assert m == good == 105
    assert bad >= int(time.time())


def test_forgotten_rounds_fire_on_the_first_rotation() -> None:
    m, good, bad = both(lambda cls: fired_at(cls(1, 8), [19], 30), wm.ForgottenRoundsWheel)
    assert m == good == {0: 19}
    assert bad == {0: 3}


def test_a_not_yet_due_timer_in_the_current_bucket_fires_a_rotation_early() -> None:
    m, good, bad = both(lambda cls: fired_at(cls(1, 8), [8, 24], 30), wm.FiresNotYetDueWheel)
    assert m == good == {0: 8, 1: 24}
    assert bad == {0: 0, 1: 16}


def test_a_not_yet_due_timer_in_the_current_bucket_is_dropped() -> None:
    def run(cls: Any) -> tuple[dict[int, int], int]:
        w = cls(1, 8)
        return fired_at(w, [8, 3], 30), w.pending()

    m, good, bad = both(run, wm.DropsNotYetDueWheel)
    assert m == good == ({1: 3, 0: 8}, 0)
    assert bad == ({1: 3}, 1)  # lost, yet still counted


def test_inline_callbacks_run_on_the_advancing_thread() -> None:
    class Recorder:
        def __init__(self) -> None:
            self.fns: list[Callable[[], Any]] = []

        def submit(self, fn: Callable[[], Any], /) -> None:
            self.fns.append(fn)

    def run(cls: Any) -> tuple[int, list[int]]:
        ex = Recorder()
        threads: list[int] = []
        w = cls(1, 8, executor=ex)
        w.schedule(0, lambda: threads.append(threading.get_ident()))
        w.advance(0)
        return len(ex.fns), threads

    m, good, bad = both(run, wm.InlineCallbacksWheel)
    assert m == good == (1, [])
    assert bad == (0, [threading.get_ident()])


class CountingArray(_BucketArray):
    """Counts every node the wheel reads out of its buckets."""

    touched = 0

    def iter_bucket(self, index: int) -> list[Any]:
        nodes = super().iter_bucket(index)
        CountingArray.touched += len(nodes)
        return nodes

    def take(self, index: int) -> list[Any]:
        nodes = super().take(index)
        CountingArray.touched += len(nodes)
        return nodes


@pytest.mark.parametrize(("base", "expected"), [(wm.ScanAllTimersWheel, 7 * 100),
                                                (impl.HashedTimingWheel, 0)],
                         ids=["mutant", "hashed"])
def test_scan_all_timers_touches_every_timer_on_every_tick(base: Any, expected: int) -> None:
    class Counting(base):  # type: ignore[misc,valid-type]
        def _init_buckets(self) -> None:
            super()._init_buckets()
            self._buckets = CountingArray(self._wheel_size)

    w = Counting(1, 8, start=1)
    for _ in range(100):
        w.schedule(1000, noop)  # parked in bucket 0, far away
    CountingArray.touched = 0
    for now in range(1, 8):  # every tick of the rotation but bucket 0's
        assert w.advance(now) == []
    assert CountingArray.touched == expected
    assert w.pending() == 100


def test_missed_ticks_are_skipped_by_a_single_jump() -> None:
    m, good, bad = both(lambda cls: fired_at(cls(1, 8), [3, 5], 20, step=10),
                        wm.MissedTicksIgnoredWheel)
    assert m == good == {0: 10, 1: 10}
    assert bad == {}  # both skipped; they would come round a rotation late


def test_negative_delay_taken_modulo_lands_in_a_future_bucket() -> None:
    def run(cls: Any) -> tuple[int, list[int]]:
        w = cls(1, 8)
        w.advance(10)
        h = w.schedule(7, noop)  # three ticks in the past
        fired = [now for now in range(11, 20) for _ in w.advance(now)]
        return h.due_tick, fired

    m, good, bad = both(run, wm.NegativeModuloWheel)
    assert m == good == (11, [11])
    assert bad == (15, [15])  # 7 - 11 = -4, and -4 % 8 == 4 ticks in the future


def test_rounds_from_the_absolute_tick_fire_late_once_the_cursor_moved() -> None:
    def run(cls: Any) -> dict[int, int]:
        w = cls(1, 8, start=100)
        return {h.seq: now for h in [w.schedule(103, noop)] for now in range(100, 140)
                if h in w.advance(now)}

    m, good, bad = both(run, wm.AbsoluteRoundsWheel)
    assert m == good == {0: 103}
    assert bad == {}  # 12 rounds to go instead of 0


def test_floor_due_tick_fires_before_the_deadline() -> None:
    def run(cls: Any) -> list[int]:
        w = cls(10, 8)
        w.schedule(15, noop)
        return [now for now in range(0, 30, 5) for _ in w.advance(now)]

    m, good, bad = both(run, wm.FloorDueTickWheel)
    assert m == good == [20]
    assert bad == [10]


def test_hierarchical_level_too_high_waits_a_rotation_of_that_level() -> None:
    def run(cls: Any) -> dict[int, int]:
        w = cls(1, 4)
        w.advance(1)
        return fired_at(w, [3], 40, start=1)

    m, good, bad = both(run, wm.CascadeLevelTooHighWheel, good=impl.HierarchicalTimingWheel)
    assert m == good == {0: 3}
    assert bad[0] > 3


@pytest.mark.parametrize("budget", [1, 2])
def test_budget_counting_only_non_empty_ticks_runs_past_the_window(budget: int) -> None:
    def run(cls: Any) -> tuple[list[int], int]:
        w = cls(1, 8, max_catchup_ticks=budget)
        h = w.schedule(5, noop)
        fired = w.advance(6)
        return [x.seq for x in fired if x is h], w.lag_ticks()

    m, good, bad = both(run, wm.BudgetCountsNonEmptyWheel)
    assert m == good == ([], 7 - budget)
    assert bad[0] == [0]


def test_fired_marked_cancelled_reads_both_flags() -> None:
    def run(cls: Any) -> tuple[bool, bool, bool]:
        w = cls(1, 8)
        h = w.schedule(1, noop)
        w.advance(2)
        return w.cancel(h), h.fired, h.cancelled

    m, good, bad = both(run, wm.FiredMarkedCancelledWheel)
    assert m == good == (False, True, False)
    assert bad == (False, True, True)


def test_shells_never_compacted_outnumber_the_pending_timers() -> None:
    from schedcheck.harness.wheel.memory import entries_held, entry_bound

    def run(cls: Any) -> int | None:
        w = cls(1, 8)
        hs = [w.schedule(100 + i, noop) for i in range(6)]
        w.advance(1)
        for h in hs:
            assert w.cancel(h)
        return entries_held(w, hs)

    good, bad = run(impl.HashedTimingWheel), run(wm.ShellsNeverCompactedWheel)
    assert good is not None and good <= entry_bound(0)
    assert bad == 6


def test_stall_tick_by_tick_fires_the_same_timers() -> None:
    def run(cls: Any) -> dict[int, int]:
        return fired_at(cls(1, 8), [3, 40, 41, 200], 1000, step=250)

    m, good, bad = both(run, wm.StallTickByTickWheel)
    assert m == good == bad  # right answers: only the cost differs (W-COST's stall ratio)
