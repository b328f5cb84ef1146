"""Heap or wheel? Which one wins at which cancel fraction and horizon, from one run.

The wheel text's follow-up: "choose by error tolerance and the operation mix, never claim the
wheel is always faster". The mix here: N timers with delays uniform over a horizon of H ticks,
a fraction f of them cancelled after all are scheduled, then the clock advanced one tick at a
time (a fixed tick, as in the text) until every timer fired. A hashed wheel of W buckets visits
one bucket per tick and every linked node once per rotation it waits (its remaining rounds), so
its work grows like H + N * H / W; a heap pays about log N comparisons per push and per pop, and
a lazily cancelled entry (asyncio's way) is still popped. So the wheel wins while the horizon
is short next to W (or many timers are cancelled, which unlinks them for good), and the heap
wins past a crossover horizon that grows with the cancelled fraction.

Two tables, one process:

* ``measured`` -- seconds (garbage collector on, from a fresh ``gc.collect()``) of the bundled
  ``HashedTimingWheel(1, W)`` against the asyncio-style heap of ``bench_wheel.py``, printed as
  ratios heap/wheel (> 1: the wheel is faster) and the crossover horizon per fraction;
* ``counted`` -- the same grid on two small counting structures (:class:`CountingWheel`, the
  text's rounds-per-rotation wheel; :class:`CountingHeap`, heapq with lazy cancel and
  asyncio's rebuild rule) whose operations are counted: bucket visits + node visits + unlinks
  against comparisons + peeks. ``tests/impl/test_crossover.py`` asserts the crossover's
  direction from these counts (never from wall-clock).

``python benchmarks/bench_crossover.py [--quick]`` (``--quick``: fewer timers, shorter grid).

One run (20,000 timers, W = 256, 2-core machine under load), heap/wheel:

    measured   horizon    256   1,024   4,096  16,384  65,536
      f=0.0              1.49    1.07    0.42    0.12    0.04   heap wins from 4,096 ticks
      f=0.5              1.56    1.29    0.75    0.33    0.10   heap wins from 4,096 ticks
      f=0.9              0.75    0.54    0.60    0.29    0.08   heap wins from 256 ticks
    counted
      f=0.0              8.56    4.87    1.80    0.53    0.15   heap wins from 16,384 ticks
      f=0.5              8.82    6.36    3.02    1.00    0.31   heap wins from 65,536 ticks
      f=0.9              4.48    4.11    3.09    1.62    0.66   heap wins from 65,536 ticks

Both say: the wheel wins short horizons and loses long ones (every rotation a timer waits is
one more visit); half cancelled helps the wheel at every horizon (the lazy heap still pops the
dead entries); at 90% asyncio's rebuild drops them in one pass and the wheel's lead shrinks.
They differ in where: a Python-level wheel ``schedule``/``cancel``/``advance`` costs several
heap comparisons (the counted model weighs each as one operation), so the measured crossover
comes earlier, and at 90% cancelled, with 2,000 live timers, the heap wins the whole grid.
"""

from __future__ import annotations

import argparse
import gc
import heapq
import random
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

FRACTIONS = (0.0, 0.5, 0.9)


def workload(n: int, horizon: int, fraction: float, seed: int = 7
             ) -> tuple[list[int], list[int]]:
    """Delays uniform over 1..horizon and the indexes of the timers to cancel (fixed seed)."""
    rng = random.Random(seed)
    delays = [rng.randrange(1, horizon + 1) for _ in range(n)]
    order = list(range(n))
    rng.shuffle(order)
    return delays, order[: int(n * fraction)]


# ------------------------------------------------------------------------ counted structures


class CountingWheel:
    """The text's hashed wheel (rounds per node, one bucket per tick), counting its work:
    one op per bucket visit, per node visited in a bucket, and per cancel (the unlink)."""

    def __init__(self, wheel_size: int) -> None:
        self.size = wheel_size
        self.buckets: list[dict[int, list[int]]] = [{} for _ in range(wheel_size)]
        self.cursor = 0
        self.ops = 0
        self._seq = 0

    def schedule(self, delay: int) -> tuple[int, int]:
        due = self.cursor + delay
        seq = self._seq
        self._seq += 1
        self.buckets[due % self.size][seq] = [(due - self.cursor) // self.size]
        self.ops += 1
        return due % self.size, seq

    def cancel(self, handle: tuple[int, int]) -> None:
        index, seq = handle
        del self.buckets[index][seq]  # O(1) through the handle
        self.ops += 1

    def tick(self) -> int:
        bucket = self.buckets[self.cursor % self.size]
        self.ops += 1 + len(bucket)
        fired = [seq for seq, rounds in bucket.items() if rounds[0] == 0]
        for seq in fired:
            del bucket[seq]
        for rounds in bucket.values():
            rounds[0] -= 1
        self.cursor += 1
        return len(fired)


class _Key:
    __slots__ = ("cancelled", "counter", "seq", "when")

    def __init__(self, when: int, seq: int, counter: list[int]) -> None:
        self.when, self.seq, self.counter, self.cancelled = when, seq, counter, False

    def __lt__(self, other: _Key) -> bool:
        self.counter[0] += 1
        return (self.when, self.seq) < (other.when, other.seq)


class CountingHeap:
    """heapq of deadline keys, asyncio's lazy cancel (rebuild when over half is cancelled),
    counting every comparison, one op per cancel flag and one peek per tick."""

    def __init__(self) -> None:
        self.heap: list[_Key] = []
        self.counter = [0]
        self.now = 0
        self.cancelled = 0
        self._seq = 0

    @property
    def ops(self) -> int:
        return self.counter[0]

    def schedule(self, delay: int) -> _Key:
        key = _Key(self.now + delay, self._seq, self.counter)
        self._seq += 1
        self.counter[0] += 1
        heapq.heappush(self.heap, key)
        return key

    def cancel(self, key: _Key) -> None:
        key.cancelled = True
        self.cancelled += 1
        self.counter[0] += 1
        if len(self.heap) > 100 and self.cancelled * 2 > len(self.heap):
            self.counter[0] += len(self.heap)  # the filtering pass
            self.heap = [k for k in self.heap if not k.cancelled]
            heapq.heapify(self.heap)
            self.cancelled = 0

    def tick(self) -> int:
        self.now += 1
        fired = 0
        heap = self.heap
        self.counter[0] += 1  # the peek at heap[0]
        while heap and heap[0].when <= self.now:
            key = heapq.heappop(heap)
            self.counter[0] += 1
            if key.cancelled:
                self.cancelled -= 1
            else:
                fired += 1
        return fired


def counted_ops(n: int, horizon: int, fraction: float, wheel_size: int) -> tuple[int, int]:
    """(wheel ops, heap ops) for one point of the grid; both fire the same timers."""
    delays, cancels = workload(n, horizon, fraction)
    wheel, heap = CountingWheel(wheel_size), CountingHeap()
    for structure in (wheel, heap):
        handles: list[Any] = [structure.schedule(d) for d in delays]
        for i in cancels:
            structure.cancel(handles[i])
        fired = sum(structure.tick() for _ in range(horizon + 1))
        assert fired == n - len(cancels), (type(structure).__name__, fired)
    return wheel.ops, heap.ops


def crossover(horizons: Sequence[int], wheel_wins: Sequence[bool]) -> int | None:
    """The first horizon from which the heap wins at every longer horizon (None: never)."""
    for i, h in enumerate(horizons):
        if not any(wheel_wins[i:]):
            return h
    return None


# ---------------------------------------------------------------------------------- measured


def _measure(make: Callable[[], Any], delays: list[int], cancels: list[int],
             horizon: int) -> float:
    gc.collect()
    start = time.perf_counter()
    timers = make()
    handles = [timers.schedule(d, _cb) for d in delays]
    for i in cancels:
        timers.cancel(handles[i])
    advance = timers.advance
    fired = 0
    for now in range(1, horizon + 1):
        fired += len(advance(now))
    seconds = time.perf_counter() - start
    assert fired == len(delays) - len(cancels), fired
    return seconds


def _cb() -> None:
    return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer timers, a shorter grid")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(Path(__file__).parent))
    from bench_wheel import ObjectHeapTimers
    from schedcheck.impl import HashedTimingWheel

    n = 5_000 if args.quick else 20_000
    wheel_size = 256
    horizons = [wheel_size * m for m in ((1, 4, 16, 64) if args.quick else (1, 4, 16, 64, 256))]
    print(f"python {sys.version.split()[0]}; {n:,} timers, delays uniform over the horizon, "
          f"advanced tick by tick; HashedTimingWheel(1, {wheel_size}) against the asyncio-style "
          "heap (bench_wheel.ObjectHeapTimers); garbage collector on")
    print("\nmeasured: heap seconds / wheel seconds (> 1: the wheel wins)")
    print("  horizon " + "".join(f"{h:>10,}" for h in horizons) + "   crossover")
    for fraction in FRACTIONS:
        ratios = []
        for h in horizons:
            delays, cancels = workload(n, h, fraction)
            t_heap = t_wheel = float("inf")
            for _ in range(3):  # best of three, the two alternating
                t_heap = min(t_heap, _measure(ObjectHeapTimers, delays, cancels, h))
                t_wheel = min(t_wheel, _measure(lambda: HashedTimingWheel(1, wheel_size),
                                                delays, cancels, h))
            ratios.append(t_heap / t_wheel)
        at = crossover(horizons, [r > 1 for r in ratios])
        print(f"  f={fraction:.1f}  " + "".join(f"{r:>10.2f}" for r in ratios)
              + (f"   heap wins from {at:,} ticks" if at else "   the wheel wins everywhere"))
    print("\ncounted: heap ops / wheel ops (> 1: the wheel does less work)")
    print("  horizon " + "".join(f"{h:>10,}" for h in horizons) + "   crossover")
    for fraction in FRACTIONS:
        ops = [counted_ops(n, h, fraction, wheel_size) for h in horizons]
        at = crossover(horizons, [w < hp for w, hp in ops])
        print(f"  f={fraction:.1f}  " + "".join(f"{hp / w:>10.2f}" for w, hp in ops)
              + (f"   heap wins from {at:,} ticks" if at else "   the wheel wins everywhere"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
