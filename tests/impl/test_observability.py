"""Every observability signal the interview texts name exists in the metrics and moves.

Each row: the text's own words (checked against specs/seeds/), where the signal is read, and
a scenario that must move it from its value before. The scheduler's signals are read from
``Scheduler.metrics()`` where it counts them and from ``ObservedScheduler.observed()`` for the
rest; the wheel's from ``WheelTimer.metrics()`` and ``QueuedWheelTimer.metrics()`` alike."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from schedcheck.impl.scheduler.observability import ObservedMetrics, ObservedScheduler
from schedcheck.impl.wheel.driver import BoundedExecutor, FakeClock, Metrics, WheelTimer
from schedcheck.impl.wheel.queued_driver import QueuedWheelTimer

from schedcheck.contract import CycleError, UnknownDependencyError

SEEDS = Path(__file__).resolve().parents[2] / "specs" / "seeds"


def _ready_queue(o: ObservedMetrics) -> int:
    return o.scheduler.heap_entries - o.scheduler.stale_entries


#: the scheduler text's words -> how to read the signal from ObservedScheduler.observed()
SCHEDULER_SIGNALS: dict[str, Callable[[ObservedMetrics], Any]] = {
    "jumlah siklus": lambda o: o.cycles,
    "jumlah terblokir": lambda o: o.scheduler.blocked,
    "waktu tunggu siap jalan": lambda o: (o.scheduler.ready_wait_count,
                                          o.scheduler.ready_wait_total),
    "durasi eksekusi": lambda o: (o.scheduler.run_count, o.scheduler.run_total),
    "konflik klaim": lambda o: o.scheduler.stale_callbacks,
    "callback duplikat": lambda o: o.scheduler.duplicate_callbacks,
    "latensi propagasi per edge": lambda o: (o.propagation_edges, o.propagation_total),
    "tipe tugas dan tenant": lambda o: sorted((k, v.claims) for k, v in o.segments.items()),
    "kesalahan konfigurasi graf": lambda o: o.config_errors,
    "kegagalan fungsi": lambda o: o.function_failures,
    "antrean siap jalan": _ready_queue,
    "hanya tugas running yang mengonsumsi slot": lambda o: o.scheduler.states.get("RUNNING", 0),
}

#: the wheel text's words -> how to read the signal from a driver's Metrics
WHEEL_SIGNALS: dict[str, Callable[[Metrics], Any]] = {
    "penundaan kedaluwarsa": lambda m: sorted(m.lateness.items()),
    "waktu pemindaian bucket": lambda m: (m.ticks_scanned, m.scan_ns),
    "pembatalan": lambda m: m.cancelled,
    "panjang antrean executor": lambda m: m.executor_queue,
    "kegagalan callback": lambda m: m.callback_failures,
    "catat penundaan": lambda m: m.max_lag_ticks,
}


def test_every_signal_is_named_in_its_text() -> None:
    sched = " ".join((SEEDS / "scheduler.txt").read_text("utf-8").split())
    wheel = " ".join((SEEDS / "wheel.txt").read_text("utf-8").split())
    assert [w for w in SCHEDULER_SIGNALS if w not in sched] == []
    assert [w for w in WHEEL_SIGNALS if w not in wheel] == []


def _moved(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    return [name for name in before if before[name] == after[name]]


def test_every_scheduler_signal_exists_and_moves() -> None:
    now = [0.0]
    s = ObservedScheduler(2, clock=lambda: now[0], segment=lambda t: t.split("/")[0])
    for task, deps in (("etl/a", ()), ("etl/b", ("etl/a",)), ("web/c", ()),
                       ("web/d", ("web/c",)), ("web/e", ())):
        s.submit(task, deps)
    s.start()
    before = {w: read(s.observed()) for w, read in SCHEDULER_SIGNALS.items()}
    now[0] = 3.0
    claims = {c.task_id: c.generation for c in s.ready()}  # etl/a, web/c (2 slots)
    mid = {w: read(s.observed()) for w, read in SCHEDULER_SIGNALS.items()}
    assert mid["hanya tugas running yang mengonsumsi slot"] == 2
    now[0] = 5.0
    s.complete("etl/a", claims["etl/a"])  # releases etl/b: one edge
    s.complete("etl/a", claims["etl/a"])  # duplicate
    s.complete("etl/a", claims["etl/a"] + 7)  # another generation: a conflicting callback
    s.fail("web/c", claims["web/c"], RuntimeError("boom"))  # a function failure; web/d blocked
    after = {w: read(s.observed()) for w, read in SCHEDULER_SIGNALS.items()}
    still = _moved(before, after)
    # RUNNING went up and back down (checked at mid); the graph was fine: no cycle, no error
    assert sorted(still) == ["hanya tugas running yang mengonsumsi slot", "jumlah siklus",
                             "kesalahan konfigurasi graf"], still
    for graph, cycles in (({"x": ("y",), "y": ("x",)}, 1), ({"x": ("never-submitted",)}, 0)):
        bad = ObservedScheduler(1)
        for task, deps in graph.items():
            bad.submit(task, deps)
        with pytest.raises((CycleError, UnknownDependencyError)):
            bad.start()
        assert (bad.observed().cycles, bad.observed().config_errors) == (cycles, 1)
        assert bad.observed().function_failures == 0  # told apart from function failures
    o = s.observed()
    assert o.function_failures == 1
    assert o.propagation_edges == 1 and o.propagation_total == 0.0  # fake clock: no time
    assert {k: v.claims for k, v in o.segments.items()} == {"etl": 1, "web": 1}
    assert o.scheduler.blocked == 1 and o.scheduler.ready_wait_total == 2 * 3.0


def test_a_release_that_takes_time_is_the_edges_latency() -> None:
    now = [0.0]

    def tick() -> float:
        now[0] += 1.0
        return now[0]

    s = ObservedScheduler(1, clock=tick)
    s.submit("a")
    s.submit("b", ["a"])
    s.submit("c", ["a"])
    s.start()
    (claim,) = s.ready()
    s.complete(claim.task_id, claim.generation)
    o = s.observed()
    assert o.propagation_edges == 2 and o.propagation_total > 0 and o.propagation_max > 0


def _wheel_scenario(make: Callable[[FakeClock, BoundedExecutor], Any]) -> tuple[
        dict[str, Any], dict[str, Any]]:
    clock = FakeClock(0)
    executor = BoundedExecutor(workers=0, capacity=64)
    timer = make(clock, executor)
    clock.wait_idle()
    before = {w: read(timer.metrics()) for w, read in WHEEL_SIGNALS.items()}

    def boom() -> None:
        raise RuntimeError("callback failure")

    timer.schedule(10, lambda: None)
    timer.schedule(12, boom)
    timer.cancel(timer.schedule(15, lambda: None))
    clock.wait_idle()
    clock.set(95)  # a stall: nine ticks at once, the deadlines long past
    clock.wait_idle()
    queued = timer.metrics().executor_queue
    executor.run_queued()
    after = {w: read(timer.metrics()) for w, read in WHEEL_SIGNALS.items()}
    after["panjang antrean executor"] = queued  # read while the callbacks waited
    timer.stop()
    return before, after


@pytest.mark.parametrize("make", [
    lambda clock, ex: WheelTimer(10, 8, clock=clock, executor=ex, max_catchup_ticks=4),
    lambda clock, ex: QueuedWheelTimer(10, 8, clock=clock, executor=ex, max_catchup_ticks=4),
], ids=["WheelTimer", "QueuedWheelTimer"])
def test_every_wheel_signal_exists_and_moves(make: Callable[..., Any]) -> None:
    before, after = _wheel_scenario(make)
    assert _moved(before, after) == []
    assert after["panjang antrean executor"] == 2 and after["kegagalan callback"] == 1
    assert after["catat penundaan"] >= 9  # the stall's ticks were seen before catching up
    assert after["waktu pemindaian bucket"][0] == 10  # ticks 0..9, each bucket visited once
