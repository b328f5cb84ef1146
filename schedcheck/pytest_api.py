"""The pytest API: the differential suites as test classes for your own implementation.

::

    from schedcheck import scheduler_suite, wheel_suite

    TestMyScheduler = scheduler_suite(MyScheduler)              # cls(max_concurrency)
    TestMyWheel = wheel_suite(MyWheel, settings=settings(max_examples=500))

Each call returns a new class (pytest collects it under the name you bind it to) with:

* ``test_behaves_like_the_model`` -- the whole differential suite (the same one
  ``schedcheck check`` runs). ``settings`` (a ``hypothesis.settings``) overrides the profile's
  (``SCHEDCHECK_PROFILE``; ``max_examples`` and ``stateful_step_count`` are what matter). On a
  counterexample the test fails with the same plain-words steps as ``steps.txt`` -- model and
  implementation side by side at the first divergence -- and the path of the folder holding
  ``replay.py``, the pictures and ``report.json`` (under pytest's ``tmp_path``);
* ``test_cost_grows_linearly`` -- the scaling clause (``*-COST``): the same workload at n and 8n
  in one process, compared as a per-item cost ratio, never as seconds.

The harness is imported when a test runs, not when the class is made, so collecting a test
module stays cheap.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

__all__ = ["scheduler_suite", "wheel_suite"]


def _fail_with(result: Any, out: Path, name: str) -> None:
    import pytest

    from schedcheck.report.card import card_text
    from schedcheck.report.steps import steps_text
    from schedcheck.report.writer import write_run

    written = write_run(result, out, target_spec=name, cwd=os.getcwd())
    cx = result.counterexample
    text = steps_text(cx, target=name) if cx is not None else card_text(result)
    pytest.fail(
        f"{text}\nreplay, pictures and report.json: {out}\n"
        + "files: " + ", ".join(written.rel(p) for p in written.files),
        pytrace=False,
    )


def _suite(system: str, factory: Callable[..., Any], settings: Any,
           options: dict[str, Any] | None = None) -> type:
    label = getattr(factory, "__qualname__", None) or repr(factory)
    module = getattr(factory, "__module__", "") or ""
    name = f"{module}:{label}" if module else label

    def test_behaves_like_the_model(self: Any, tmp_path: Path) -> None:
        from schedcheck import pipeline

        result = pipeline.check(system, factory, target_name=name, settings=settings,
                                cost=False, **(options or {}))
        if not result.ok:
            _fail_with(result, tmp_path / f"schedcheck-{system}", name)

    def test_cost_grows_linearly(self: Any) -> None:
        from schedcheck import pipeline, systems

        result = pipeline.check(system, factory, target_name=name, suite=False)
        cost = systems.get(system).cost_clause
        assert result.ok, "; ".join(n for n in result.notes if n.startswith(cost)) or cost

    doc = (f"schedcheck's {system} suite against {name} (see schedcheck.pytest_api).")
    return type(
        f"{system.capitalize()}Suite",
        (),
        {
            "__doc__": doc,
            "__test__": True,
            "factory": staticmethod(factory),
            "test_behaves_like_the_model": test_behaves_like_the_model,
            "test_cost_grows_linearly": test_cost_grows_linearly,
        },
    )


def scheduler_suite(factory: Callable[..., Any], settings: Any = None) -> type:
    """A pytest test class running the scheduler suite against ``factory(max_concurrency)``."""
    return _suite("scheduler", factory, settings)


def wheel_suite(factory: Callable[..., Any], settings: Any = None, *,
                tolerance: bool = False) -> type:
    """A pytest test class running the wheel suite against ``factory(tick, wheel_size, **o)``.

    ``tolerance=True`` checks only the invariants (never early, never twice, never after a
    cancel, never lost), for a wheel whose due ticks differ from the contract's by design."""
    return _suite("wheel", factory, settings, {"tolerance": True} if tolerance else None)
