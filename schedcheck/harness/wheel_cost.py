"""W-COST: a processed tick costs O(1 + timers in the visited bucket), never O(all timers).

The workload (specs/wheel.md section 5): a wheel with ``tick=1`` and ``wheel_size=64`` holds
``n`` timers *parked* in one bucket far away -- all due at tick ``64 * 10**6 + 63``, so in a
hashed wheel they sit in bucket 63 with a million rounds to go, and in a hierarchical wheel in
an upper level that does not cascade for a long time. Then, rotation after rotation, the wheel
is advanced one tick at a time through the 63 ticks that do *not* visit bucket 63; only those
calls are timed (bucket 63's tick, which may legitimately cost O(n) in a hashed wheel that
decrements rounds, is advanced outside the clock).

The same is done with ``factor * n`` parked timers on a second wheel, alternating the two
wheels rotation by rotation; the per-tick cost of each, in Python steps executed
(``opcount.StepCounter``: counted, so the same on a loaded machine as on an idle one), is
compared as a ratio. A wheel whose tick is O(1) gives a ratio near 1; one that scans every
timer on every tick (the seed's "common mistake") gives a ratio near ``factor``. The threshold
(3 for factor 8) sits far from both.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from schedcheck.harness.common import ScalingResult
from schedcheck.harness.opcount import StepCounter
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
    """Python steps per tick over the ticks of ``rotation`` that skip the parked bucket."""
    base = rotation * WHEEL_SIZE
    with StepCounter() as counter:
        for k in range(base, base + WHEEL_SIZE - 1):
            wheel.advance(k)
    wheel.advance(base + WHEEL_SIZE - 1)  # the parked bucket's tick: not counted
    return counter.steps / (WHEEL_SIZE - 1)


def check_wheel_scaling(
    factory: Callable[..., Any],
    *,
    n: int = 2_000,
    factor: int = 8,
    repetitions: int = 1,
    threshold: float = 3.0,
) -> ScalingResult:
    """Per-tick cost with ``factor * n`` parked timers over the cost with ``n`` (W-COST), in
    Python steps executed (``opcount``); the fewest of ``repetitions`` rotations each."""
    if n < 1 or factor < 2 or repetitions < 1:
        raise ValueError(f"need n >= 1, factor >= 2, repetitions >= 1; got n={n}, "
                         f"factor={factor}, repetitions={repetitions}")
    small, large = _build(factory, n), _build(factory, n * factor)
    _rotation(small, 0)  # warm-up: first-touch paths
    _rotation(large, 0)
    best_small = best_large = float("inf")
    for rotation in range(1, repetitions + 1):
        best_small = min(best_small, _rotation(small, rotation))
        best_large = min(best_large, _rotation(large, rotation))
    ratio = best_large / best_small if best_small > 0 else float("inf")
    verdict = HELD if ratio <= threshold else BROKEN
    text = (
        f"cost per tick away from the parked bucket: {best_small:.1f} Python steps with {n} "
        f"timers parked, {best_large:.1f} with {n * factor} -- ratio {ratio:.2f} "
        f"(O(1 + bucket) ~1; a scan of every timer per tick ~{factor}; threshold "
        f"{threshold}; steps are counted, not timed): {verdict}"
    )
    return ScalingResult(ratio=ratio, verdict=verdict, text=text, n=n, factor=factor,
                         threshold=threshold, steps_small=best_small, steps_large=best_large)
