"""What the benchmarks share: tracemalloc's peak memory over one run."""

from __future__ import annotations

import gc
import tracemalloc
from collections.abc import Callable
from typing import Any


def peak_bytes(fn: Callable[..., Any], *args: Any) -> int:
    """tracemalloc's peak over ``fn(*args)``, above what was allocated before it started
    (tracemalloc slows every allocation: never use the run it traces for timing)."""
    gc.collect()
    tracemalloc.start()
    try:
        base, _ = tracemalloc.get_traced_memory()
        fn(*args)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return peak - base
