"""W-COST: a processed tick costs O(1 + timers in the visited bucket), never O(all timers);
``schedule`` and ``cancel`` cost O(1), never O(the timers in the wheel or in the bucket).

Every deadline lies inside a tick, never on its boundary (:func:`deadline_of`): a wheel that
rounds a deadline to "the next tick after it" where the contract says "the first tick at or
after it" files it where the contract does, so that the workload measures what it says --
that rounding mistake is the exactness clause's, not a reason to count a tick the cost does
not mean to.

The workload (specs/wheel.md section 5): a wheel with ``tick=2`` and ``wheel_size=64`` holds
``n`` timers *parked* in one bucket far away, each at its own deadline -- half of them a few
rotations away and beyond (rotation 4, 5, 6, ...), half beyond every level of a hierarchical
wheel (a million rotations and more), all in bucket 63: in a hashed wheel they sit in bucket
63 with rounds to go, in a hierarchical wheel in upper levels that do not cascade during the
measured rotation, and a queue that groups timers by deadline cannot fold them into one
entry. Then, rotation after rotation, the wheel
is advanced one tick at a time through the 63 ticks that do *not* visit bucket 63; only those
calls are timed (bucket 63's tick, which may legitimately cost O(n) in a hashed wheel that
decrements rounds, is advanced outside the clock).

The same is done with ``factor * n`` parked timers on a second wheel, alternating the two
wheels rotation by rotation; the per-tick cost of each, in Python steps executed
(``opcount.StepCounter``: counted, so the same on a loaded machine as on an idle one), is
compared as a ratio. A wheel whose tick is O(1) gives a ratio near 1; one that scans every
timer on every tick (the seed's "common mistake") gives a ratio near ``factor``. The threshold
(3 for factor 8) sits far from both.

A long stall must not cost a step per tick either (specs/wheel.md section 5: an ``advance``
over T ticks costs O(non-empty buckets visited + timers fired), not O(T)): on a third wheel
holding ``n`` timers parked in bucket 63 beyond every level, each at its own deadline
(:func:`stall_parked_tick`), one ``advance`` over :data:`STALL_TICKS` empty ticks and then one
over ``factor`` times as many are counted; a wheel that walks the stall tick by tick, or that
walks the stall's ticks whenever they are fewer than its distinct deadlines, gives a ratio near
``factor``, a wheel that jumps to its next non-empty bucket (and over rotations in which
nothing is due) about 1. The stall needs a wheel of its own: on the small wheel, the parked
timers a few rotations away fall due one per rotation from rotation 4 on, so a stall there
fires a timer and (in a hashed wheel) walks the parked bucket every rotation -- work that
rightly grows with the stall.

Then, on each wheel, :data:`CALLS` more timers are scheduled into the parked bucket and
cancelled again, and the Python steps per ``schedule`` and per ``cancel`` are compared the same
way: a cancel that searches its bucket for the timer (the seed's "the handle points at the
node, so cancel needs no search") or a wheel that tidies all its timers at every cancel gives a
ratio near ``factor``. (Work done in C, a ``list.remove`` say, executes no Python step: this
clause sees the Python-level mistakes only.) A call that raises here (a target with no
``cancel``, say) is not measured, the text says why, and the rest keeps its verdict.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from schedcheck.harness.common import ScalingResult
from schedcheck.harness.opcount import StepCounter
from schedcheck.harness.result import BROKEN, HELD
from schedcheck.harness.scaling import (
    TIMED_SAMPLES,
    TIMED_TAKES,
    TIMED_THRESHOLD,
    cost_ratio,
    timed_ratio,
)

__all__ = ["TICK", "check_wheel_scaling", "deadline_of", "parked_tick", "stall_parked_tick"]

TICK = 2
WHEEL_SIZE = 64
#: The parked timers' due tick: bucket WHEEL_SIZE - 1, a million rotations away.
PARKED_TICK = WHEEL_SIZE * 10**6 + WHEEL_SIZE - 1
#: The stall measured: one ``advance`` over this many ticks, then one over ``factor`` times as
#: many (16 rotations, then 128), on a wheel whose timers stay parked throughout.
STALL_TICKS = WHEEL_SIZE * 16
#: Timers scheduled and cancelled again on each wheel to count the calls' steps (far fewer
#: than the parked ones: no wheel has reason to tidy up after so few cancels)
CALLS = 64
#: Rounds of CALLS schedules and cancels in one timed sample (``_churn``).
CHURNS = 4


def _noop() -> None:
    return None


def parked_tick(i: int) -> int:
    """The due tick of the ``i``-th parked timer: bucket WHEEL_SIZE - 1, distinct per timer;
    even ``i`` a few rotations away and beyond, odd ``i`` beyond every level."""
    rotations = 4 + i // 2 if i % 2 == 0 else 10**6 + i // 2
    return rotations * WHEEL_SIZE + WHEEL_SIZE - 1


def stall_parked_tick(i: int) -> int:
    """The due tick of the ``i``-th timer parked on the stall's wheel: the ``i``-th of the
    parked timers beyond every level (bucket WHEEL_SIZE - 1, distinct per timer), so that no
    tick of the stall is due."""
    return parked_tick(2 * i + 1)


def deadline_of(due: int) -> int:
    """A deadline due at tick ``due`` whichever way a wheel rounds it up: inside the tick
    before it (``ceil(d / tick)`` and ``d // tick + 1`` agree), never on a boundary."""
    return due * TICK - 1


def _build(factory: Callable[..., Any], size: int,
           due: Callable[[int], int] = parked_tick) -> Any:
    wheel = factory(TICK, WHEEL_SIZE)
    for i in range(size):
        wheel.schedule(deadline_of(due(i)), _noop)
    return wheel


def _rotation(wheel: Any, rotation: int) -> float:
    """Python steps per tick over the ticks of ``rotation`` that skip the parked bucket."""
    base = rotation * WHEEL_SIZE
    with StepCounter() as counter:
        for k in range(base, base + WHEEL_SIZE - 1):
            wheel.advance(k * TICK)
    wheel.advance((base + WHEEL_SIZE - 1) * TICK)  # the parked bucket's tick: not counted
    return counter.steps / (WHEEL_SIZE - 1)


def _stalls(wheel: Any, now: int, factor: int) -> tuple[float, float]:
    """Python steps of one ``advance`` over :data:`STALL_TICKS` empty ticks from tick ``now``,
    and of one over ``factor`` times as many (``wheel``'s timers must all be due after both)."""
    with StepCounter() as short:
        wheel.advance((now + STALL_TICKS) * TICK)
    with StepCounter() as long:
        wheel.advance((now + STALL_TICKS + factor * STALL_TICKS) * TICK)
    return float(short.steps), float(long.steps)


def _schedules(wheel: Any) -> tuple[float, list[Any]]:
    """Python steps per ``schedule`` of :data:`CALLS` timers parked with the others, and
    their handles."""
    with StepCounter() as counter:
        handles = [wheel.schedule(deadline_of(PARKED_TICK), _noop) for _ in range(CALLS)]
    return counter.steps / CALLS, handles


def _cancels(wheel: Any, handles: list[Any]) -> float:
    """Python steps per ``cancel`` of ``handles``."""
    with StepCounter() as counter:
        for handle in handles:
            wheel.cancel(handle)
    return counter.steps / len(handles)


def _calls(small: Any, large: Any, factor: int,
           threshold: float) -> tuple[list[float], str, float | None]:
    """The ratios of the steps per ``schedule`` and per ``cancel`` (large over small wheel,
    after a warm-up of each), their words, and -- when the counted ratios hold -- the timed
    ratio of the same calls (``scaling.timed_ratio``: a search done in C shows there); a
    call that raises is not measured, and the words say why."""
    ratios: list[float] = []
    try:
        handles = [_schedules(wheel)[1] for wheel in (small, large)]  # warm-up
        (s_small, h_small), (s_large, h_large) = _schedules(small), _schedules(large)
    except Exception as exc:
        return ratios, f"schedule and cancel not measured: {_raised(exc)}", None
    ratios.append(cost_ratio(s_small, s_large))
    words = f"per schedule {s_small:.1f} and {s_large:.1f} steps -- ratio {ratios[0]:.2f}"
    try:
        for wheel, warm in zip((small, large), handles):
            _cancels(wheel, warm)
        c_small, c_large = _cancels(small, h_small), _cancels(large, h_large)
    except Exception as exc:
        return ratios, f"{words}; cancel not measured: {_raised(exc)}", None
    ratios.append(cost_ratio(c_small, c_large))
    words += (f"; per cancel {c_small:.1f} and {c_large:.1f} -- ratio {ratios[1]:.2f} (O(1) "
              f"~1; a search among the timers ~{factor})")
    if max(ratios) > threshold:
        return ratios, words, None
    try:  # what the count cannot see: a search done in C (list.remove over every timer)
        timed, t_small, t_large = timed_ratio(lambda: _churn(small), lambda: _churn(large))
    except Exception as exc:
        return ratios, f"{words}; not timed: {_raised(exc)}", None
    return ratios, (f"{words}; timed (work in C included), {CALLS * CHURNS} schedules and "
                    f"cancels {t_small * 1000:.2f} ms and {t_large * 1000:.2f} ms (medians of "
                    f"{TIMED_SAMPLES}, collector on, the lowest of up to {TIMED_TAKES} takes) -- "
                    f"ratio {timed:.2f} (threshold {TIMED_THRESHOLD:g}, set from measured "
                    "noise)"), timed


def _churn(wheel: Any) -> None:
    """Schedule :data:`CALLS` timers parked with the others and cancel them, :data:`CHURNS`
    times (timed by ``_calls``: the same calls on the small and the large wheel)."""
    for _ in range(CHURNS):
        for handle in [wheel.schedule(deadline_of(PARKED_TICK), _noop) for _ in range(CALLS)]:
            wheel.cancel(handle)


def _raised(exc: Exception) -> str:
    return type(exc).__name__ + (f": {exc}" if str(exc) else "")


def check_wheel_scaling(
    factory: Callable[..., Any],
    *,
    n: int = 2_000,
    factor: int = 8,
    repetitions: int = 1,
    threshold: float = 3.0,
) -> ScalingResult:
    """Per-tick cost with ``factor * n`` parked timers over the cost with ``n`` (W-COST), in
    Python steps executed (``opcount``), the fewest of ``repetitions`` rotations each; then the
    same for ``schedule`` and ``cancel``, and a stall of k ticks against one of ``factor * k``.
    ``ratio`` is the largest of the four."""
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
    ratio = cost_ratio(best_small, best_large)
    text = (
        f"cost per tick away from the parked bucket: {best_small:.1f} Python steps with {n} "
        f"timers parked, {best_large:.1f} with {n * factor} -- ratio {ratio:.2f} "
        f"(O(1 + bucket) ~1; a scan of every timer per tick ~{factor}"
    )
    stalled = _build(factory, n, stall_parked_tick)
    stalled.advance((WHEEL_SIZE - 1) * TICK)  # warm-up: first-touch paths, filing the timers
    stall_short, stall_long = _stalls(stalled, WHEEL_SIZE - 1, factor)
    stall = cost_ratio(stall_short, stall_long)
    ratio = max(ratio, stall)
    text += (f"); with {n} timers parked beyond every level, one advance over "
             f"{STALL_TICKS} empty ticks {stall_short:.0f} steps, over "
             f"{factor * STALL_TICKS} {stall_long:.0f} -- ratio {stall:.2f} (O(non-empty "
             f"buckets visited + fired) ~1; a step per tick ~{factor}")
    ratios, words, timed = _calls(small, large, factor, threshold)
    ratio = max(ratio, *ratios)
    text += (f"); {words}; threshold {threshold} for each counted ratio")
    verdict = HELD if ratio <= threshold and (timed is None or timed <= TIMED_THRESHOLD) \
        else BROKEN
    text += f": {verdict}"
    return ScalingResult(ratio=max(ratio, timed or 0.0), verdict=verdict, text=text, n=n,
                         factor=factor, threshold=threshold, steps_small=best_small,
                         steps_large=best_large, timed=timed)
