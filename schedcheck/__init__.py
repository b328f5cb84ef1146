"""schedcheck: verified answers to the dependency-aware scheduler and timing wheel questions.

Public entry points:

* ``schedcheck.model.Scheduler`` / ``schedcheck.model.TimingWheel`` -- the reference models;
* ``schedcheck.impl`` -- the production implementations (``Scheduler``, ``HashedTimingWheel``,
  ``HierarchicalTimingWheel``, ``WheelTimer``);
* ``scheduler_suite(factory)`` / ``wheel_suite(factory)`` -- a pytest test class running the
  differential suite against your own implementation;
* the ``schedcheck`` command (``check``, ``prove``, ``zoo``, ``verify``).
"""

from __future__ import annotations

from typing import Any

__all__ = ["scheduler_suite", "wheel_suite"]
__version__ = "0.1.0"


def __getattr__(name: str) -> Any:
    # Lazy, so that ``import schedcheck.model`` does not pull in Hypothesis and the harness.
    if name in __all__:
        from schedcheck import pytest_api

        return getattr(pytest_api, name)
    raise AttributeError(f"module 'schedcheck' has no attribute {name!r}")
