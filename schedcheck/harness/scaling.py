"""Scaling, the ``*-COST`` clauses: the same workload at n and factor*n in one process.

:func:`measure_scaling` compares the per-item cost of the two sizes as a RATIO (min of a few
repetitions, garbage collector paused during each timed run so that a generational collection
in the middle of one size does not skew it), never as absolute seconds; :class:`ScalingResult`
holds the verdict. Imported through ``schedcheck.harness.common`` as well.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable
from dataclasses import dataclass

from schedcheck.harness.result import BROKEN, HELD

__all__ = ["ScalingResult", "ScalingTimeout", "measure_scaling"]


@dataclass
class ScalingResult:
    """Per-item cost at ``factor * n`` divided by per-item cost at ``n`` (1.0 = linear)."""

    ratio: float
    verdict: str  #: HELD or BROKEN (result.py's verdict strings)
    text: str  #: one paragraph for the report
    n: int = 0
    factor: int = 0
    threshold: float = 0.0
    seconds_small: float = 0.0  #: best of the repetitions, whole workload at n
    seconds_large: float = 0.0  #: best of the repetitions, whole workload at factor * n

    @property
    def ok(self) -> bool:
        return self.verdict == HELD


class ScalingTimeout(Exception):
    """Raised by a deadline-aware workload that passed its deadline (see measure_scaling)."""


def _timed(workload: Callable[..., object], size: int, budget: float | None = None) -> float:
    """Seconds for ``workload(size)`` (``workload(size, deadline)`` when ``budget`` is given;
    on ScalingTimeout the budget itself is returned, a lower bound of the true time)."""
    gc.collect()
    was_enabled = gc.isenabled()
    gc.disable()  # a generational collection in the middle of one size skews the ratio
    try:
        started = time.perf_counter()
        if budget is None:
            workload(size)
        else:
            try:
                workload(size, started + budget)
            except ScalingTimeout:
                return budget
        return time.perf_counter() - started
    finally:
        if was_enabled:
            gc.enable()


def measure_scaling(
    workload: Callable[..., object],
    *,
    n: int,
    factor: int = 8,
    threshold: float = 3.0,
    repetitions: int = 3,
    what: str = "item",
    give_up_ratio: float | None = None,
) -> ScalingResult:
    """Time ``workload(n)`` and ``workload(factor * n)`` (best of ``repetitions`` each, after a
    warm-up at n) and compare the cost per ``what`` as a ratio against ``threshold``.

    A linear workload has a ratio near 1; a per-item cost that grows with n (a scan of every
    task per completion) has a ratio near ``factor``. ``threshold`` sits between the two
    with a wide margin, so a noisy machine does not flip the verdict.

    ``give_up_ratio``: when set, the large runs are called as ``workload(size, deadline)``
    (``deadline`` on ``time.perf_counter``) and may raise :class:`ScalingTimeout` once the
    per-item ratio is sure to exceed ``give_up_ratio``; the ratio is then a lower bound
    (a quadratic target at 8n would otherwise take minutes).
    """
    if n < 1 or factor < 2 or repetitions < 1:
        raise ValueError(f"need n >= 1, factor >= 2, repetitions >= 1; got {n}, {factor}, "
                         f"{repetitions}")
    _timed(workload, n)  # warm-up: imports, caches, allocator
    small = min(_timed(workload, n) for _ in range(repetitions))
    budget = None if give_up_ratio is None else small * factor * give_up_ratio
    larges = []
    for _ in range(repetitions):
        larges.append(_timed(workload, n * factor, budget))
        if budget is not None and larges[-1] >= budget:
            break  # timed out: more repetitions would only time out again
    large = min(larges)
    per_small = small / n
    per_large = large / (n * factor)
    ratio = per_large / per_small if per_small > 0 else float("inf")
    bound = ">= " if budget is not None and large >= budget else ""
    verdict = HELD if ratio <= threshold else BROKEN
    text = (
        f"cost per {what}: {per_small * 1e6:.2f} us at n={n}, {bound}{per_large * 1e6:.2f} us "
        f"at n={n * factor} -- ratio {bound}{ratio:.2f} (linear ~1, a scan per {what} "
        f"~{factor}; threshold {threshold}): {verdict}"
    )
    return ScalingResult(
        ratio=ratio,
        verdict=verdict,
        text=text,
        n=n,
        factor=factor,
        threshold=threshold,
        seconds_small=small,
        seconds_large=large,
    )
