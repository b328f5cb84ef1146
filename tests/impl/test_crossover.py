"""Heap or wheel: the crossover's direction, asserted from counted operations (never from
wall-clock). The counting structures and the grid are ``benchmarks/bench_crossover.py``'s,
whose measured table (seconds, one run) agrees with every direction asserted here."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

W = 64
HORIZONS = [W * m for m in (1, 4, 16, 64, 256)]
N = 2_000


def _bench() -> ModuleType:
    path = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_crossover.py"
    spec = importlib.util.spec_from_file_location("bench_crossover", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def grid() -> dict[float, list[float]]:
    """heap ops / wheel ops at each horizon, per cancelled fraction (> 1: the wheel wins)."""
    bench = _bench()
    out = {}
    for f in (0.0, 0.5, 0.9):
        ops = [bench.counted_ops(N, h, f, W) for h in HORIZONS]
        out[f] = [heap / wheel for wheel, heap in ops]
    return out


def test_the_wheel_wins_short_horizons_and_the_heap_long_ones(
        grid: dict[float, list[float]]) -> None:
    bench = _bench()
    for f, ratios in grid.items():
        assert ratios == sorted(ratios, reverse=True), (f, ratios)  # worse with every rotation
    assert grid[0.0][0] > 1 > grid[0.0][-1]
    assert bench.crossover(HORIZONS, [r > 1 for r in grid[0.0]]) == 64 * W  # 64 rotations


def test_lazy_cancellation_helps_the_wheel_until_the_heap_rebuilds(
        grid: dict[float, list[float]]) -> None:
    # half cancelled: the heap keeps popping dead entries, the wheel unlinked them
    assert all(half > none for half, none in zip(grid[0.5], grid[0.0]))
    # 90% cancelled: asyncio's rebuild drops the dead entries in one pass, so at one rotation
    # the wheel's lead shrinks again
    assert grid[0.9][0] < grid[0.5][0]


def test_crossover_is_none_when_the_wheel_wins_everywhere() -> None:
    bench = _bench()
    assert bench.crossover([1, 2, 3], [True, True, True]) is None
    assert bench.crossover([1, 2, 3], [True, False, True]) is None
    assert bench.crossover([1, 2, 3], [True, False, False]) == 2
