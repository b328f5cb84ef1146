"""The pytest API: the differential suites as Hypothesis tests of your own implementation.

::

    from schedcheck import scheduler_suite, wheel_suite

    TestMyScheduler = scheduler_suite(MyScheduler)              # cls(max_concurrency)
    TestMyWheel = wheel_suite(MyWheel, settings=settings(max_examples=500))

Each call returns a new class (pytest collects it under the name you bind it to) with:

* ``machine`` -- the suite's ``RuleBasedStateMachine`` for the target (the same one
  ``schedcheck check`` runs), or None when the target cannot even be built;
* ``test_behaves_like_the_model`` -- a Hypothesis state-machine test of ``machine``: pytest's
  Hypothesis options work on it (``--hypothesis-seed``, ``--hypothesis-show-statistics``,
  ``--hypothesis-profile``, ``--hypothesis-verbosity``), and so does the example database:
  a failure is saved and replayed first on the next run, and a shared database
  (``hypothesis.extra.redis``) shares it between machines. HypoFuzz sees it as a state
  machine and fuzzes it (``schedcheck fuzz``). On a counterexample the test fails with the
  same plain-words steps as ``steps.txt`` -- model and implementation side by side at the
  first divergence -- and the path of the folder holding ``replay.py``, the pictures and
  ``report.json`` (under pytest's temporary directory). Hypothesis shrinks the failure first
  (the example database keeps that); then it is reduced by the same delta debugging as
  ``schedcheck check`` (``schedcheck.harness.minimize``), and ``replay.py`` is run before
  the failure is shown (the steps say whether it fails where they do);
* ``test_cost_grows_linearly`` -- the scaling clause (``*-COST``): the same workload at n and 8n
  in one process, compared as a per-item cost ratio, never as seconds.

``settings`` (a ``hypothesis.settings``) replaces the suite's. Without it, the number of
examples and steps comes from ``SCHEDCHECK_PROFILE`` (``schedcheck.profiles``) and everything
else -- the database above all -- from Hypothesis's loaded profile, read when the test runs.
The database key is a digest of the suite's code, the system and ``name`` (default:
``module:qualified name`` of the factory): keep the name to keep the saved failures.

Building the class builds the machine, which imports the harness and calls the target's
constructor a few times (its optional parts are probed).
"""

from __future__ import annotations

import os
import unittest
from collections.abc import Callable
from typing import Any

__all__ = ["database_key", "scheduler_suite", "suite_machine", "wheel_suite"]


def _name(factory: Callable[..., Any]) -> str:
    label = getattr(factory, "__qualname__", None) or repr(factory)
    module = getattr(factory, "__module__", "") or ""
    return f"{module}:{label}" if module else label


def suite_machine(system: str, factory: Callable[..., Any], *, name: str = "",
                  tolerance: bool = False, result: Any = None) -> type[Any]:
    """The suite's state machine for ``factory``, keyed in the example database by the
    system, ``name`` and ``tolerance`` (so two targets never replay each other's failures).
    ``result`` (a ``RunResult``) receives what the target does not support."""
    from schedcheck import pipeline, systems

    options: dict[str, Any] = {"tolerance": True} if tolerance else {}
    machine: type[Any]
    if system == "scheduler" and pipeline.core_only(system, factory):
        from schedcheck.harness.scheduler.core import make_core_machine

        machine = make_core_machine(factory, result=result)  # an adapter: the core level
    else:
        machine = systems.get(system).make_machine(factory, result=result, **options)
    machine._hypothesis_internal_add_digest = database_key(  # read by Hypothesis's digest
        system, name or _name(factory), tolerance=tolerance)
    return machine


def database_key(system: str, name: str, *, tolerance: bool = False) -> bytes:
    """What distinguishes one target's suite from another's in the example database."""
    return f"schedcheck {system} {name}{' tolerance' if tolerance else ''}".encode()


def suite_settings(explicit: Any = None) -> Any:
    """``explicit``, or the loaded Hypothesis profile (database, verbosity, phases ...) with the
    example and step counts of ``SCHEDCHECK_PROFILE``."""
    if explicit is not None:
        return explicit
    import hypothesis

    from schedcheck.harness.common import suite_settings as profile_settings

    counts = profile_settings()
    default = hypothesis.settings()  # the loaded profile
    suppressed = {*default.suppress_health_check, *counts.suppress_health_check}
    return hypothesis.settings(default, max_examples=counts.max_examples,
                               stateful_step_count=counts.stateful_step_count,
                               deadline=counts.deadline,
                               suppress_health_check=sorted(suppressed, key=lambda h: h.value))


def _fail_with(result: Any, out: Any, name: str) -> None:
    import pytest

    from schedcheck.report.card import card_text
    from schedcheck.report.steps import steps_text
    from schedcheck.report.writer import write_run

    written = write_run(result, out, target_spec=name, cwd=os.getcwd())
    cx = result.counterexample
    text = steps_text(cx, target=name) if cx is not None else card_text(result)
    found = cx.unreduced if cx is not None and cx.unreduced is not None else cx
    hypothesis_says = found.hypothesis_program if found is not None else ""
    reduction = [n for n in result.notes if "minimized" in n.split(":", 1)[0]]
    pytest.fail(
        f"{text}\n" + "".join(f"{n}\n" for n in reduction)
        + f"replay, pictures and report.json: {out}\n"
        + "files: " + ", ".join(written.rel(p) for p in written.files)
        + (f"\n\nHypothesis's failing example, before the reduction (what the example database "
           f"keeps):\n{hypothesis_says}" if hypothesis_says else ""),
        pytrace=False,
    )


def _suite(system: str, factory: Callable[..., Any], settings: Any, *, name: str = "",
           tolerance: bool = False) -> type:
    from schedcheck import pipeline
    from schedcheck.systems import get as get_system

    name = name or _name(factory)
    core = pipeline.core_only(system, factory)
    unusable = pipeline.probe_construct(
        system, factory,
        operations=get_system(system).core_operations if core else None)
    machine: type[Any] | None = None
    if unusable is None:
        try:
            machine = suite_machine(system, factory, name=name, tolerance=tolerance)
        except Exception as exc:  # reported by the test, not as a collection error
            unusable = f"{type(exc).__name__}: {exc}"

    # ``request``, not ``tmp_path_factory``: HypoFuzz sets up a test's fixtures outside a
    # pytest run, where the temporary directory does not exist; it is made only on a failure
    def test_behaves_like_the_model(self: Any, request: Any) -> None:
        import pytest
        from hypothesis import Phase

        from schedcheck.harness.common import RunContext, run_suite
        from schedcheck.harness.minimize import reduce_found
        from schedcheck.harness.result import RunResult
        from schedcheck.supervised import run_in_child

        if unusable is not None:
            pytest.fail(f"target {name!r} is unusable: {unusable}", pytrace=False)
        chosen = self.settings

        from hypothesis.statistics import collector, note_statistics

        heard: list[Any] = []  # Hypothesis's statistics of the run, for pytest's report

        def run() -> RunResult:
            result = RunResult.fresh(system, name)
            fresh = suite_machine(system, factory, name=name, tolerance=tolerance,
                                  result=result)
            ctx = RunContext(result)
            listener: Any = heard.append if collector.value is not None else None
            with collector.with_value(listener):
                run_suite(fresh, result, chosen, keep_database=True, context=ctx)
            result.hypothesis_statistics = heard  # type: ignore[attr-defined]
            if result.counterexample is not None:
                # the one reduction every stage shares: delta debugging over the failing
                # run's atomic program (Hypothesis's shrinker ran first, as the database
                # needs it); its replays run inside Hypothesis tests of their own, whose
                # statistics must not replace this test's in pytest's report
                with collector.with_value(None):
                    reduce_found(fresh, result, ctx.final_program or ctx.last_program)
            return result

        # the target runs in a supervised child: a call that hangs, crashes or exits is a
        # failure of this test, and nothing of the target outlives it in this session
        try:
            result = run_in_child(system, factory, run, target_name=name)
            for stats in getattr(result, "hypothesis_statistics", ()):
                note_statistics(stats)  # what the child's run told Hypothesis's collector
        except unittest.SkipTest:
            if Phase.generate in chosen.phases:
                raise
            pytest.skip(f"nothing to replay: the example database holds no example of the "
                        f"{system} suite against {name}")
        if not result.ok:
            out = request.getfixturevalue("tmp_path_factory").mktemp(f"schedcheck-{system}")
            _fail_with(result, out, name)

    if machine is not None:  # what Hypothesis's pytest plugin and HypoFuzz look for
        test_behaves_like_the_model.is_hypothesis_test = True  # type: ignore[attr-defined]
        test_behaves_like_the_model._hypothesis_state_machine_class = machine  # type: ignore[attr-defined]

    def test_cost_grows_linearly(self: Any) -> None:
        from schedcheck import supervised, systems

        result = supervised.check(system, factory, target_name=name, suite=False)
        cost = systems.get(system).cost_clause
        assert result.ok, "; ".join(n for n in result.notes if n.startswith(cost)) or cost

    doc = f"schedcheck's {system} suite against {name} (see schedcheck.pytest_api)."
    return type(
        f"{system.capitalize()}Suite",
        (),
        {
            "__doc__": doc,
            "__test__": True,
            "factory": staticmethod(factory),
            "machine": machine,
            "settings": property(lambda self: suite_settings(settings)),
            "test_behaves_like_the_model": test_behaves_like_the_model,
            "test_cost_grows_linearly": test_cost_grows_linearly,
        },
    )


def scheduler_suite(factory: Callable[..., Any], settings: Any = None, *,
                    name: str = "") -> type:
    """A pytest test class running the scheduler suite against ``factory(max_concurrency)``."""
    return _suite("scheduler", factory, settings, name=name)


def wheel_suite(factory: Callable[..., Any], settings: Any = None, *,
                tolerance: bool = False, name: str = "") -> type:
    """A pytest test class running the wheel suite against ``factory(tick, wheel_size, **o)``.

    ``tolerance=True`` checks only the invariants (never early, never twice, never after a
    cancel, never lost), for a wheel whose due ticks differ from the contract's by design."""
    return _suite("wheel", factory, settings, name=name, tolerance=tolerance)

