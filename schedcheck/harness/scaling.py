"""Scaling, the ``*-COST`` clauses: the same workload at n and factor*n in one process.

:func:`measure_scaling` compares the per-item cost of the two sizes as a RATIO, and the cost is
*counted*, not timed: the Python steps (calls and lines) the target executes
(``opcount.StepCounter``), so the verdict is the same on an idle machine and under load, run
after run. :class:`ScalingResult` holds the verdict. Imported through
``schedcheck.harness.common`` as well.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass

from schedcheck.harness.opcount import StepCounter
from schedcheck.harness.result import BROKEN, HELD

__all__ = ["ScalingResult", "ScalingTimeout", "cost_ratio", "measure_scaling"]


@dataclass
class ScalingResult:
    """Per-item cost at ``factor * n`` divided by per-item cost at ``n`` (1.0 = linear)."""

    ratio: float
    verdict: str  #: HELD or BROKEN (result.py's verdict strings)
    text: str  #: one paragraph for the report
    n: int = 0
    factor: int = 0
    threshold: float = 0.0
    steps_small: float = 0.0  #: Python steps of the whole workload at n
    steps_large: float = 0.0  #: Python steps of the whole workload at factor * n (a lower
    #: bound when the workload gave up)

    @property
    def ok(self) -> bool:
        return self.verdict == HELD


class ScalingTimeout(Exception):
    """Raised by a workload that gave up once its step budget was spent (see
    measure_scaling)."""


def cost_ratio(small: float, large: float) -> float:
    """The cost at the large size over the cost at the small one (infinite when the small one
    cost nothing)."""
    return large / small if small > 0 else float("inf")


def _counted(workload: Callable[..., object], size: int, budget: int | None = None) -> int:
    """Python steps of ``workload(size)`` (``workload(size, over)`` when ``budget`` is given,
    ``over()`` true once the budget is spent; on ScalingTimeout the steps so far, a lower
    bound of the true count)."""
    with StepCounter(budget) as counter:
        if budget is None:
            workload(size)
        else:
            with contextlib.suppress(ScalingTimeout):
                workload(size, lambda: counter.over)
    return counter.steps


def measure_scaling(
    workload: Callable[..., object],
    *,
    n: int,
    factor: int = 8,
    threshold: float = 3.0,
    repetitions: int = 1,
    what: str = "item",
    give_up_ratio: float | None = None,
) -> ScalingResult:
    """Count the Python steps of ``workload(n)`` and ``workload(factor * n)`` (after an
    uncounted warm-up at n; the fewest of ``repetitions`` each) and compare the cost per
    ``what`` as a ratio against ``threshold``.

    A linear workload has a ratio near 1; a per-item cost that grows with n (a scan of every
    task per completion) has a ratio near ``factor``. ``threshold`` sits between the two.

    ``give_up_ratio``: when set, the large runs are called as ``workload(size, over)`` and may
    raise :class:`ScalingTimeout` once ``over()`` is true -- the per-item ratio then exceeds
    ``give_up_ratio`` for sure and the ratio is a lower bound (a quadratic target at 8n would
    otherwise take minutes).
    """
    if n < 1 or factor < 2 or repetitions < 1:
        raise ValueError(f"need n >= 1, factor >= 2, repetitions >= 1; got {n}, {factor}, "
                         f"{repetitions}")
    workload(n)  # warm-up: imports and first-use paths are not part of the cost
    small = min(_counted(workload, n) for _ in range(repetitions))
    budget = None if give_up_ratio is None else int(small * factor * give_up_ratio)
    large = min(_counted(workload, n * factor, budget) for _ in range(repetitions))
    per_small = small / n
    per_large = large / (n * factor)
    ratio = cost_ratio(per_small, per_large)
    bound = ">= " if budget is not None and large > budget else ""
    verdict = HELD if ratio <= threshold else BROKEN
    text = (
        f"cost per {what}: {per_small:.1f} Python steps at n={n}, {bound}{per_large:.1f} at "
        f"n={n * factor} -- ratio {bound}{ratio:.2f} (linear ~1, a scan per {what} "
        f"~{factor}; threshold {threshold}; steps are counted, not timed): {verdict}"
    )
    return ScalingResult(
        ratio=ratio,
        verdict=verdict,
        text=text,
        n=n,
        factor=factor,
        threshold=threshold,
        steps_small=small,
        steps_large=large,
    )
