"""Timing wheels against heaps: one process, one run, ratios against a baseline run here.

Workload (the seed's "many approximate timers"): N timers (1,000,000; ``--quick``: 100,000)
with delays uniform over 60,000 ticks, a fraction cancelled (0%, 50%, 90%) after all are
scheduled, then the clock advanced one tick at a time until every timer has fired. Each
structure is timed from the first schedule to the last fire (schedule + cancel + advance):

* ``hashed``        -- HashedTimingWheel(tick=1, wheel_size=65,536): one rotation covers the
                       span, so no rounds (sized for the workload, as one would in production);
* ``hashed-4096``   -- HashedTimingWheel with 4,096 buckets: ~15 rounds per timer, each bucket
                       walked once per rotation (the seed's structure under pressure);
* ``hierarchical``  -- HierarchicalTimingWheel(tick=1, wheel_size=64): levels that cascade;
* ``heap-objects``  -- the BASELINE: an asyncio-style heap of handle objects ordered by a
                       Python ``__lt__``, lazy cancellation, rebuilt when over half is cancelled
                       (asyncio's ``_MIN_CANCELLED_TIMER_HANDLES_FRACTION``);
* ``heap-tuples``   -- ``heapq`` of ``(when, seq, handle)`` tuples (C comparisons), lazy cancel;
* ``sched``         -- ``sched.scheduler`` at N/10 timers (its ``cancel`` is ``list.remove`` +
                       ``heapify``: O(n)); with cancellations, the cancel cost is measured on
                       200 cancels and extrapolated (printed as such).

Under each table, two *floors* bound what any pure-Python structure can reach on this workload:
they schedule and cancel like the others but fire nothing (their ``advance`` does no work), so
"baseline seconds / floor seconds" is the most a structure of that kind could show here:

* ``floor``             -- ``schedule`` makes a two-field handle (deadline, callback) and keeps
                           it in a list; ``cancel`` drops the callback: no lock, no order;
* ``floor, lock+fields``-- the same with what a wheel's handle must carry besides (its owner,
                           seq, due tick and rounds) and one ``threading.Lock`` around each call,
                           as a thread-safe wheel takes.

Next to each time: the peak memory per timer, from ``tracemalloc`` over a separate run of the
same workload (50% cancelled; tracemalloc slows every allocation, so it is never the timed run),
the floors' too (they keep every handle, as every structure does once all are scheduled).

Then the cost of ONE tick of the wheels with 1,000,000 timers parked in another bucket vs the
same with 1,000 (target <= 1.2): the best per-tick time over several rotations of the ticks
that do not visit the parked bucket, the two wheels alternating rotation by rotation.

Under each table, where the time went: the CPU seconds of each phase of the same timed run
(schedule, cancel, advance), the part of them spent in the cyclic collector (``gc.callbacks``)
and its full passes.

Under each table and the memory figures, the wheels side by side with the lock+fields floor,
as a fraction of it: "floor seconds / wheel seconds" (1.0: as fast as the least work a
thread-safe wheel with handle objects must do; the goal is >= 0.9 at 50% and 90% cancelled,
and at 90% ahead of the baseline heap), and "wheel bytes / floor bytes" per timer (goal
<= 1.1; the goals are for the default 1,000,000 timers: with ``--quick`` the 60,000 ticks'
calls weigh ten times as much per timer). At the end, the same fractions from ``--repeat``
runs (default 3) of the floor, the two wheels and the heap alternating, each structure's best:
on a shared machine one run of each is off by up to a third, and alternating gives every
structure the same chances.

Ratios are "baseline seconds / this structure's seconds" (> 1: faster than the baseline).
The garbage collector is ON while timing, as in every real program, for every structure alike
(each run starts from a ``gc.collect()``). ``--no-gc`` adds a column timed with the collector
off, for comparison only. Times are CPU seconds of this process; absolute seconds are
printed for context only.
"""

from __future__ import annotations

import argparse
import gc
import heapq
import random
import sched
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

from _measure import peak_bytes
from schedcheck.impl import HashedTimingWheel, HierarchicalTimingWheel

SPAN = 60_000
FRACTIONS = (0.0, 0.5, 0.9)
#: asyncio's constants: rebuild the heap when over this fraction is cancelled (and > 100)
_MIN_SCHEDULED_TIMER_HANDLES = 100
_MIN_CANCELLED_TIMER_HANDLES_FRACTION = 0.5


def _cb() -> None:
    return None


# ------------------------------------------------------------------------------ heap baselines


class TimerHandle:
    """asyncio's TimerHandle, reduced: ordered by (when, seq) through a Python __lt__."""

    __slots__ = ("callback", "cancelled", "seq", "when")

    def __init__(self, when: int, seq: int, callback: Callable[[], None]) -> None:
        self.when = when
        self.seq = seq
        self.callback = callback
        self.cancelled = False

    def __lt__(self, other: TimerHandle) -> bool:
        if self.when != other.when:
            return self.when < other.when
        return self.seq < other.seq


class ObjectHeapTimers:
    """asyncio's event-loop timer queue: lazy cancellation, rebuild past half cancelled."""

    def __init__(self) -> None:
        self.heap: list[TimerHandle] = []
        self.seq = 0
        self.cancelled = 0

    def schedule(self, when: int, callback: Callable[[], None]) -> TimerHandle:
        h = TimerHandle(when, self.seq, callback)
        self.seq += 1
        heapq.heappush(self.heap, h)
        return h

    def cancel(self, h: TimerHandle) -> None:
        if h.cancelled:
            return
        h.cancelled = True
        self.cancelled += 1
        if (len(self.heap) > _MIN_SCHEDULED_TIMER_HANDLES
                and self.cancelled / len(self.heap) > _MIN_CANCELLED_TIMER_HANDLES_FRACTION):
            self.heap = [x for x in self.heap if not x.cancelled]
            heapq.heapify(self.heap)
            self.cancelled = 0

    def advance(self, now: int) -> list[TimerHandle]:
        out = []
        heap = self.heap
        while heap and heap[0].when <= now:
            h = heapq.heappop(heap)
            if h.cancelled:
                self.cancelled -= 1
                continue
            out.append(h)
        return out


class TupleHeapTimers:
    """heapq of (when, seq, handle) tuples: C-level comparisons, lazy cancellation."""

    def __init__(self) -> None:
        self.heap: list[tuple[int, int, list[Any]]] = []
        self.seq = 0
        self.cancelled = 0

    def schedule(self, when: int, callback: Callable[[], None]) -> list[Any]:
        h: list[Any] = [callback, False]
        heapq.heappush(self.heap, (when, self.seq, h))
        self.seq += 1
        return h

    def cancel(self, h: list[Any]) -> None:
        if not h[1]:
            h[1] = True
            self.cancelled += 1
            if len(self.heap) > 100 and self.cancelled * 2 > len(self.heap):
                self.heap = [e for e in self.heap if not e[2][1]]
                heapq.heapify(self.heap)
                self.cancelled = 0

    def advance(self, now: int) -> list[list[Any]]:
        out = []
        heap = self.heap
        while heap and heap[0][0] <= now:
            _, _, h = heapq.heappop(heap)
            if h[1]:
                self.cancelled -= 1
                continue
            out.append(h)
        return out


# ------------------------------------------------------------------------------ floors

_new = object.__new__


class _BareHandle:
    __slots__ = ("callback", "deadline")


class _WheelShapedHandle:
    __slots__ = ("callback", "deadline", "due", "owner", "rounds", "seq")


class FloorTimers:
    """Not a timer structure: the least one that returns a handle object must do. ``schedule``
    makes the handle and keeps it, ``cancel`` drops its callback, nothing ever fires."""

    def __init__(self) -> None:
        self.kept: list[_BareHandle] = []

    def schedule(self, when: int, callback: Callable[[], None]) -> _BareHandle:
        h = _new(_BareHandle)
        h.deadline = when
        h.callback = callback
        self.kept.append(h)
        return h

    def cancel(self, h: _BareHandle) -> bool:
        if h.callback is None:
            return False
        h.callback = None
        return True

    def advance(self, now: int) -> tuple[()]:
        return ()


class LockedFloorTimers(FloorTimers):
    """``FloorTimers`` with a thread-safe wheel's costs: one lock around every call, and the
    handle fields a wheel needs besides deadline and callback (owner, seq, due tick, rounds)."""

    def __init__(self) -> None:
        super().__init__()
        self.lock = threading.Lock()
        self.token = object()
        self.seq = 0

    def schedule(self, when: int, callback: Callable[[], None]) -> _WheelShapedHandle:
        with self.lock:
            h = _new(_WheelShapedHandle)
            h.owner = self.token
            h.seq = self.seq
            h.deadline = h.due = when
            h.callback = callback
            h.rounds = 0
            self.seq += 1
            self.kept.append(h)  # type: ignore[arg-type]
            return h

    def cancel(self, h: Any) -> bool:
        with self.lock:
            if h.owner is not self.token or h.callback is None:
                return False
            h.callback = None
            return True


FLOORS: list[tuple[str, Callable[[], Any]]] = [
    ("floor", FloorTimers),
    ("floor, lock+fields", LockedFloorTimers),
]
#: the floor the wheels are measured against, and the goals
LOCK_FLOOR = "floor, lock+fields"
WHEELS = ("hashed", "hierarchical")
TIME_GOAL = 0.9  #: floor seconds / wheel seconds, at 50% and 90% cancelled
MEMORY_GOAL = 1.1  #: wheel bytes / floor bytes per timer


# ------------------------------------------------------------------------------ the runs


def workload(n: int, fraction: float, seed: int = 42) -> tuple[list[int], list[int]]:
    rng = random.Random(seed)
    delays = [rng.randrange(1, SPAN + 1) for _ in range(n)]
    order = list(range(n))
    rng.shuffle(order)
    return delays, order[: int(n * fraction)]


def timed(fn: Callable[..., int], *args: Any, collector: bool = True,
          **kwargs: Any) -> tuple[float, int]:
    """CPU seconds of ``fn(*args)`` (``time.process_time``: other processes on a shared
    machine inflate wall time, not ours) from a fresh ``gc.collect()``; the collector stays
    on unless ``collector`` is False (the ``--no-gc`` column)."""
    gc.collect()
    if not collector:
        gc.disable()
    try:
        start = time.process_time()
        fired = fn(*args, **kwargs)
        return time.process_time() - start, fired
    finally:
        gc.enable()


class CollectorClock:
    """CPU seconds spent in the cyclic collector (``gc.callbacks``), and its passes."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self.passes = 0
        self.full = 0
        self._started = 0.0

    def __call__(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._started = time.process_time()
        else:
            self.seconds += time.process_time() - self._started
            self.passes += 1
            self.full += info["generation"] == 2

    def __enter__(self) -> CollectorClock:
        gc.callbacks.append(self)
        return self

    def __exit__(self, *exc: object) -> None:
        gc.callbacks.remove(self)


#: a phase of run_structure: (name, CPU seconds, collector seconds, full collector passes)
Phase = tuple[str, float, float, int]


def run_structure(make: Callable[[], Any], delays: list[int], cancels: list[int],
                  phases: list[Phase] | None = None) -> int:
    """Schedule every timer, cancel ``cancels``, advance tick by tick; the timers fired.
    With ``phases``, appends each phase's CPU and collector seconds (marks between phases)."""
    with CollectorClock() as collector:
        marks: list[tuple[float, float, int]] = []

        def mark() -> None:
            marks.append((time.process_time(), collector.seconds, collector.full))

        mark()
        timers = make()
        handles = [timers.schedule(d, _cb) for d in delays]
        mark()
        for i in cancels:
            timers.cancel(handles[i])
        mark()
        fired = 0
        advance = timers.advance
        for now in range(1, SPAN + 1):
            fired += len(advance(now))
        mark()
    if phases is not None:
        for name, (t0, g0, f0), (t1, g1, f1) in zip(("schedule", "cancel", "advance"), marks,
                                                    marks[1:]):
            phases.append((name, t1 - t0, g1 - g0, f1 - f0))
    return fired


def run_sched(delays: list[int], cancels: list[int]) -> tuple[float, int, str]:
    """sched.scheduler on a fake clock. Seconds = schedule + cancels + run; with many cancels
    the per-cancel cost is measured on 200 and multiplied (the rest are removed untimed)."""
    clock = [0]
    s = sched.scheduler(lambda: clock[0], lambda d: None)
    fired = [0]

    def cb() -> None:
        fired[0] += 1

    gc.collect()
    start = time.process_time()
    events = [s.enterabs(d, 0, cb) for d in delays]
    t_schedule = time.process_time() - start
    sample, rest = cancels[:200], cancels[200:]
    start = time.process_time()
    for i in sample:
        s.cancel(events[i])
    t_cancel = (time.process_time() - start) / max(1, len(sample)) * len(cancels)
    if rest:  # untimed: one O(n) rebuild instead of len(rest) O(n) cancels
        gone = {id(events[i]) for i in rest}
        queue = s._queue  # type: ignore[attr-defined]
        queue[:] = [e for e in queue if id(e) not in gone]
        heapq.heapify(queue)
    start = time.process_time()
    for now in range(1, SPAN + 1):
        clock[0] = now
        s.run(blocking=False)
    t_run = time.process_time() - start
    note = f" (cancel cost extrapolated from {len(sample)} cancels)" if rest else ""
    return t_schedule + t_cancel + t_run, fired[0], note


def per_tick(factory: Callable[..., Any], parked: int, size: int = 512) -> Any:
    wheel = factory(1, size)
    far = size * 1_000  # bucket 0 of the hashed wheel, a high level of the hierarchical one
    for _ in range(parked):
        wheel.schedule(far, _cb)
    return wheel


def tick_cost(wheels: list[Any], size: int, rotations: int) -> list[float]:
    """Best seconds per tick of each wheel over ``rotations``, alternating wheels (collector
    on, as everywhere here)."""
    best = [float("inf")] * len(wheels)
    gc.collect()
    for r in range(rotations):
        for i, wheel in enumerate(wheels):
            base = r * size
            start = time.perf_counter()
            for k in range(base + 1, base + size):  # not tick base: the parked bucket
                wheel.advance(k)
            best[i] = min(best[i], (time.perf_counter() - start) / (size - 1))
            wheel.advance(base + size)  # the parked bucket's tick, untimed
    return best


def side_by_side(n: int, repeat: int) -> None:
    """The goals' figures: the lock+fields floor, the two wheels and the heap, ``repeat``
    rounds alternating, each one's best seconds (collector on)."""
    contenders: list[tuple[str, Callable[[], Any]]] = [
        (LOCK_FLOOR, LockedFloorTimers),
        ("hashed", lambda: HashedTimingWheel(1, 65_536)),
        ("hierarchical", lambda: HierarchicalTimingWheel(1, 64)),
        ("heap-objects", ObjectHeapTimers),
    ]
    print(f"\nthe wheels against {LOCK_FLOOR}: best of {repeat} alternating runs each "
          f"(floor s / wheel s; goal >= {TIME_GOAL} at 50% and 90%, and at 90% ahead of "
          "heap-objects)")
    for fraction in (0.5, 0.9):
        delays, cancels = workload(n, fraction)
        best = {name: float("inf") for name, _ in contenders}
        for _ in range(repeat):
            for name, make in contenders:
                seconds, _ = timed(run_structure, make, delays, cancels)
                best[name] = min(best[name], seconds)
        floor = best[LOCK_FLOOR]
        cells = []
        for name in WHEELS:
            share = floor / best[name]
            mark = "met" if share >= TIME_GOAL and (
                fraction < 0.9 or best[name] < best["heap-objects"]) else "not met"
            versus_heap = best["heap-objects"] / best[name]
            cells.append(f"{name} {share:.2f} [{mark}] ({best[name]:.2f} s; "
                         f"x{versus_heap:.2f} the heap's speed)")
        print(f"  {int(fraction * 100)}% cancelled: {LOCK_FLOOR} {floor:.2f} s = 1.00   "
              + "   ".join(cells))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="100,000 timers instead of 1M")
    parser.add_argument("--repeat", type=int, default=3,
                        help="alternating runs of the floor and the wheels (default 3)")
    parser.add_argument("--no-gc", action="store_true",
                        help="also time every run with the garbage collector off (extra column)")
    args = parser.parse_args(argv)
    n = 100_000 if args.quick else 1_000_000
    structures: list[tuple[str, Callable[[], Any]]] = [
        ("heap-objects", ObjectHeapTimers),
        ("hashed", lambda: HashedTimingWheel(1, 65_536)),
        ("hashed-4096", lambda: HashedTimingWheel(1, 4_096)),
        ("hierarchical", lambda: HierarchicalTimingWheel(1, 64)),
        ("heap-tuples", TupleHeapTimers),
    ]
    print(f"python {sys.version.split()[0]}; {n:,} timers, delays uniform over {SPAN:,} "
          "ticks, advanced tick by tick; baseline = heap-objects (asyncio-style); "
          "garbage collector on")
    delays, cancels = workload(n, 0.5)
    print("\npeak memory per timer (tracemalloc, 50% cancelled run, not timed)")
    memory: dict[str, float] = {}
    for name, make in structures + FLOORS:  # a floor keeps every handle: its peak is theirs
        memory[name] = peak_bytes(run_structure, make, delays, cancels) / n
        ratio = memory[name] / memory["heap-objects"]
        print(f"  {name:<20} {memory[name]:6.0f} bytes   x{ratio:5.2f} of baseline")
    floor_bytes = memory[LOCK_FLOOR]
    print(f"  wheels / {LOCK_FLOOR} ({floor_bytes:.0f} bytes; goal <= {MEMORY_GOAL}): "
          + "   ".join(f"{name} {memory[name] / floor_bytes:.2f}" for name in WHEELS))
    for fraction in FRACTIONS:
        delays, cancels = workload(n, fraction)
        expected = n - len(cancels)
        print(f"\n{int(fraction * 100)}% cancelled ({expected:,} fire)")
        baseline = None
        baseline_off = None
        breakdown: dict[str, list[Phase]] = {}
        times: dict[str, float] = {}
        for name, make in structures:
            breakdown[name] = []
            seconds, fired = timed(run_structure, make, delays, cancels,
                                   phases=breakdown[name])
            times[name] = seconds
            assert fired == expected, (name, fired, expected)
            baseline = baseline or seconds
            line = (f"  {name:<14} {seconds:8.2f} s   x{baseline / seconds:5.2f} vs baseline   "
                    f"{memory[name]:4.0f} bytes/timer")
            if args.no_gc:
                off, fired = timed(run_structure, make, delays, cancels, collector=False)
                assert fired == expected, (name, fired, expected)
                baseline_off = baseline_off or off
                line += f"   | gc off {off:6.2f} s x{baseline_off / off:5.2f}"
            print(line)
        print("  floors (schedule + cancel, nothing fires): the most any such structure could "
              "show here")
        floor_seconds = {}
        for name, make in FLOORS:
            seconds, _ = timed(run_structure, make, delays, cancels)
            floor_seconds[name] = seconds
            print(f"    {name:<20} {seconds:6.2f} s   at most x{baseline / seconds:5.2f}")
        floor = floor_seconds[LOCK_FLOOR]
        goal = f"goal >= {TIME_GOAL}" + (", and ahead of heap-objects" if fraction >= 0.9 else "")
        print(f"  side by side with {LOCK_FLOOR} ({floor:.2f} s = 1.00), floor s / wheel s "
              f"({goal if fraction >= 0.5 else 'no goal'}):")
        print("    " + "   ".join(
            f"{name} {floor / times[name]:.2f}" + (
                f" (x{baseline / times[name]:.2f} vs heap)" if fraction >= 0.9 else "")
            for name in WHEELS))
        print("  where the time went (CPU s, of which in the cyclic collector; full passes):")
        for name, phases in breakdown.items():
            print(f"    {name:<14} " + "   ".join(
                f"{phase} {cpu:5.2f} (gc {in_gc:4.2f}, {full} full)"
                for phase, cpu, in_gc, full in phases))
        small = n // 10
        sd, sc = workload(small, fraction)
        heap_small, _ = timed(run_structure, ObjectHeapTimers, sd, sc)
        wheel_small, _ = timed(run_structure, structures[1][1], sd, sc)
        seconds, fired, note = run_sched(sd, sc)
        assert fired == small - len(sc), ("sched", fired)
        print(f"  at {small:,} timers: heap-objects {heap_small:.2f} s, hashed "
              f"{wheel_small:.2f} s (x{heap_small / wheel_small:.2f}), sched {seconds:.2f} s "
              f"(x{heap_small / seconds:.2g}){note}")

    side_by_side(n, args.repeat)

    print("\none tick with timers parked in another bucket (best per-tick time, 512 buckets)")
    rotations = 3 if args.quick else 5
    for name, factory in (("hashed", HashedTimingWheel),
                          ("hierarchical", HierarchicalTimingWheel)):
        few, many = per_tick(factory, 1_000), per_tick(factory, 1_000_000)
        t_few, t_many = tick_cost([few, many], 512, rotations)
        print(f"  {name:<14} 1,000 parked {t_few * 1e6:6.2f} us/tick, 1,000,000 parked "
              f"{t_many * 1e6:6.2f} us/tick: ratio {t_many / t_few:.2f} (target <= 1.2)")
        del few, many
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
