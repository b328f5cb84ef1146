"""Cost clauses that see the work: a timed ratio beside the counted one (work done in C), and
S-COST for every target, adapters included. The timed ratios here run on a fake clock that
the workloads advance themselves: the verdicts come from counted work, never from the
machine's speed."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from schedcheck.impl import HashedTimingWheel

from schedcheck import profiles
from schedcheck.harness import scaling
from schedcheck.harness.result import BROKEN, HELD
from schedcheck.harness.wheel import cost as wheel_cost
from schedcheck.pipeline import check
from schedcheck.systems import get
from tests.shapes import dispatchers


class FakeClock:
    """A clock that moves only when a workload says it worked."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now

    def work(self, units: float) -> None:
        self.now += units


def test_the_timed_ratio_compares_medians_of_the_same_number_of_items() -> None:
    clock = FakeClock()
    ratio, small, large = scaling.timed_ratio(lambda: clock.work(8), lambda: clock.work(64),
                                              samples=5, clock=clock)
    assert (ratio, small, large) == (8.0, 8.0, 64.0)


def test_a_burst_of_load_in_one_take_is_taken_again_and_growth_in_every_take_is_kept() -> None:
    clock = FakeClock()
    runs = 0

    def small() -> None:
        clock.work(8)

    def large_under_a_burst() -> None:  # the first take's runs are slowed by another process
        nonlocal runs
        runs += 1
        clock.work(64 if runs <= 4 else 8)  # warm-up + 3 samples of the first take

    assert scaling.timed_ratio(small, large_under_a_burst, samples=3, takes=1,
                               clock=clock)[0] == 8.0  # one take alone: the burst reads as growth
    runs = 0
    ratio, _, _ = scaling.timed_ratio(small, large_under_a_burst, samples=3, clock=clock)
    assert ratio == 1.0 and runs == 8  # taken again once, the lowest kept
    growing, _, _ = scaling.timed_ratio(small, lambda: clock.work(64), samples=3, clock=clock)
    assert growing == 8.0  # high in every take: it stays high


def _workload(clock: FakeClock, per_item: Callable[[int], float]) -> Callable[..., None]:
    def run(size: int, give_up: Any = None) -> None:
        items = []
        for i in range(size):  # the same Python steps per item at any size
            items.append(i)
        clock.work(size * per_item(size))  # what C does: per item, a cost of the size or not
    return run


def test_work_done_in_c_breaks_the_cost_clause_the_count_cannot_see() -> None:
    clock = FakeClock()
    found = scaling.measure_scaling(_workload(clock, lambda size: size), n=16, timed=True,
                                    clock=clock)
    assert found.verdict == BROKEN and found.timed == pytest.approx(8.0)
    assert found.steps_large / found.steps_small / 8 <= 3  # the count: linear, it held
    assert "timed (work in C included)" in found.text


def test_linear_work_in_c_holds_timed_as_counted() -> None:
    clock = FakeClock()
    found = scaling.measure_scaling(_workload(clock, lambda size: 1.0), n=16, timed=True,
                                    clock=clock)
    assert found.verdict == HELD and found.timed == pytest.approx(1.0)
    assert scaling.TIMED_THRESHOLD < 8 / 2  # a ratio of factor 8 is far above it


def test_a_wheel_whose_cancel_searches_in_c_breaks_w_cost(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The counted ratios of a list-searching cancel hold (one C call); the timed one, here
    reported as 8 (what a C-level list.remove measures at 8 times the timers), breaks it."""
    seen: list[int] = []

    def timed(small: Callable[[], object], large: Callable[[], object],
              **_: Any) -> tuple[float, float, float]:
        small(), large()
        seen.append(1)
        return 8.0, 0.001, 0.008

    monkeypatch.setattr(wheel_cost, "timed_ratio", timed)
    found = wheel_cost.check_wheel_scaling(HashedTimingWheel, n=200)
    assert seen and found.verdict == BROKEN and found.timed == 8.0
    assert "timed (work in C included)" in found.text


def test_s_cost_runs_for_an_adapter_at_the_core_level() -> None:
    lines: list[str] = []
    with profiles.seed_only_draws():
        result = check("scheduler", dispatchers.CountingDispatcherReportsOnce, examples=30,
                       seed=1, profile="ci", levels=True, level="core", status=lines.append,
                       cost_n=32)
    stat = result.stats[get("scheduler").cost_clause]
    assert stat.exercised > 0, (stat.verdict, stat.reason, lines)
    assert any("a timed run at n and 8n" in line for line in lines), lines
