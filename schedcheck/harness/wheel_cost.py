"""W-COST: a processed tick costs O(1 + timers in the visited bucket), never O(all timers).

The workload (contract Part 2, "Costs"): a wheel with ``tick=1`` and ``wheel_size=64`` holds
``n`` timers *parked* in one bucket far away -- all due at tick ``64 * 10**6 + 63``, so in a
hashed wheel they sit in bucket 63 with a million rounds to go, and in a hierarchical wheel in
an upper level that does not cascade for a long time. Then, rotation after rotation, the wheel
is advanced one tick at a time through the 63 ticks that do *not* visit bucket 63; only those
calls are timed (bucket 63's tick, which may legitimately cost O(n) in a hashed wheel that
decrements rounds, is advanced outside the clock).

The same is done with ``factor * n`` parked timers on a second wheel, alternating the two
wheels rotation by rotation so that machine noise hits both alike; the best (minimum) per-tick
time of each is compared as a ratio. A wheel whose tick is O(1) gives a ratio near 1; one
that scans every timer on every tick (the seed's "common mistake") gives a ratio near
``factor``. The threshold (3 for factor 8) sits far from both. Absolute times are reported
but never judged.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable
from typing import Any

from schedcheck.harness.common import ScalingResult
from schedcheck.harness.result import BROKEN, HELD

__all__ = ["check_wheel_scaling"]

WHEEL_SIZE = 64
#: The parked timers' due tick: bucket WHEEL_SIZE - 1, a million rotations away.
PARKED_TICK = WHEEL_SIZE * 10**6 + WHEEL_SIZE - 1


def _noop() -> None:
    return None


def _build(factory: Callable[..., Any], size: int) -> Any:
    wheel = factory(1, WHEEL_SIZE)
    for _ in range(size):
        wheel.schedule(PARKED_TICK, _noop)
    return wheel


def _rotation(wheel: Any, rotation: int) -> float:
    """Seconds per tick over the ticks of ``rotation`` that skip the parked bucket."""
    base = rotation * WHEEL_SIZE
    gc_was = gc.isenabled()
    gc.disable()
    try:
        started = time.perf_counter()
        for k in range(base, base + WHEEL_SIZE - 1):
            wheel.advance(k)
        elapsed = time.perf_counter() - started
    finally:
        if gc_was:
            gc.enable()
    wheel.advance(base + WHEEL_SIZE - 1)  # the parked bucket's tick: not timed
    return elapsed / (WHEEL_SIZE - 1)


def check_wheel_scaling(
    factory: Callable[..., Any],
    *,
    n: int = 20_000,
    factor: int = 8,
    repetitions: int = 5,
    threshold: float = 3.0,
) -> ScalingResult:
    """Per-tick cost with ``factor * n`` parked timers over the cost with ``n`` (W-COST)."""
    if n < 1 or factor < 2 or repetitions < 1:
        raise ValueError(f"need n >= 1, factor >= 2, repetitions >= 1; got n={n}, "
                         f"factor={factor}, repetitions={repetitions}")
    small, large = _build(factory, n), _build(factory, n * factor)
    _rotation(small, 0)  # warm-up: caches, allocator, first-touch paths
    _rotation(large, 0)
    best_small = best_large = float("inf")
    for rotation in range(1, repetitions + 1):
        best_small = min(best_small, _rotation(small, rotation))
        best_large = min(best_large, _rotation(large, rotation))
    ratio = best_large / best_small if best_small > 0 else float("inf")
    verdict = HELD if ratio <= threshold else BROKEN
    text = (
        f"cost per tick away from the parked bucket: {best_small * 1e6:.2f} us with {n} "
        f"timers parked, {best_large * 1e6:.2f} us with {n * factor} -- ratio {ratio:.2f} "
        f"(O(1 + bucket) ~1; a scan of every timer per tick ~{factor}; threshold "
        f"{threshold}): {verdict}"
    )
    return ScalingResult(ratio=ratio, verdict=verdict, text=text, n=n, factor=factor,
                         threshold=threshold, seconds_small=best_small,
                         seconds_large=best_large)
