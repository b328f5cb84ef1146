"""The pytest API: ``schedcheck check`` as a test of your own implementation.

::

    from schedcheck import scheduler_suite, wheel_suite

    TestMyScheduler = scheduler_suite(MyScheduler)              # cls(max_concurrency)
    TestMyWheel = wheel_suite(MyWheel, examples=200, seed=7)    # cls(tick, wheel_size, **o)
    TestJsWheel = wheel_suite(exec="node shim.js wheel.js Wheel")   # any language

Each call returns a new class (pytest collects it under the name you bind it to) with:

* ``machine`` -- the suite's ``RuleBasedStateMachine`` for the target (the same one
  ``schedcheck check`` runs), or None when the target cannot even be built;
* ``test_behaves_like_the_model`` -- first the examples Hypothesis's example database saved
  for this target are replayed; then ``schedcheck check``'s own search runs
  (``pipeline.check``: the core and contract levels, its phases, ``budget`` seconds -- check's
  default -- or ``examples``; ``seed``, else pytest's ``--hypothesis-seed``, else a random
  one; ``keep_going=True`` lists every broken clause, each with its own counterexample). The
  same seed and budget find what ``schedcheck check`` finds. A failure fails the test with
  check's card, the steps of each counterexample (model and implementation side by side at
  the first divergence), the folder holding ``replay.py``, the pictures, ``report.json`` and
  ``index.html`` (under pytest's temporary directory), and the ``schedcheck check`` command
  that searches again;
* ``test_cost_grows_linearly`` -- the scaling clause (``*-COST``): the same workload at n and 8n
  in one process, compared as a per-item cost ratio, never as seconds; a failure names the
  clause and its figures.

``settings`` (a ``hypothesis.settings``) instead makes ``test_behaves_like_the_model``
Hypothesis's own state-machine test of ``machine`` with those settings: pytest's Hypothesis
options work on it, and a failure is saved in the example database and replayed first on the
next run. ``schedcheck fuzz`` campaigns (``--schedcheck-db``, ``--schedcheck-replay-only``)
always run it that way; HypoFuzz fuzzes ``machine``. The database key is
:func:`database_key` of the system and :func:`target_key` (``module:qualified name`` of the
factory, ``file:qualified name`` for a class loaded from ``file.py``): the same for every
door. ``schedcheck check --db DB`` replays what is saved there first. The counterexamples of
check's search (``check --db``, and this test's default search) are kept there too, as their
reduced programs (``schedcheck.saved``), and replayed first by every door.

Building the class builds the machine, which imports the harness and calls the target's
constructor a few times (its optional parts are probed).
"""

from __future__ import annotations

import os
import random
import unittest
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from schedcheck.saved import database_key, target_key

__all__ = ["Search", "database_key", "scheduler_suite", "suite_machine", "target_key",
           "wheel_suite"]


def _name(factory: Callable[..., Any]) -> str:
    label = getattr(factory, "__qualname__", None) or repr(factory)
    module = getattr(factory, "__module__", "") or ""
    return f"{module}:{label}" if module else label


def suite_machine(system: str, factory: Callable[..., Any], *, name: str = "",
                  tolerance: bool = False, result: Any = None) -> type[Any]:
    """The suite's state machine for ``factory``, keyed in the example database by the
    system, :func:`target_key` and ``tolerance`` (so two targets never replay each other's
    failures, and every door -- the pytest API, its plugin, ``fuzz`` -- uses one key per
    target; ``name`` is only what reports call it). ``result`` (a ``RunResult``) receives
    what the target does not support."""
    from schedcheck import pipeline, systems

    options: dict[str, Any] = {"tolerance": True} if tolerance else {}
    machine: type[Any]
    if system == "scheduler" and pipeline.core_only(system, factory):
        from schedcheck.harness.scheduler.core import make_core_machine

        machine = make_core_machine(factory, result=result)  # an adapter: the core level
    else:
        machine = systems.get(system).make_machine(factory, result=result, **options)
    machine._hypothesis_internal_add_digest = database_key(  # read by Hypothesis's digest
        system, target_key(factory), tolerance=tolerance)
    return machine


def suite_settings(explicit: Any = None) -> Any:
    """``explicit``, or the loaded Hypothesis profile (database, verbosity, phases ...) with the
    example and step counts of ``SCHEDCHECK_PROFILE``."""
    if explicit is not None:
        return explicit
    import hypothesis

    from schedcheck.profiles import suite_settings as profile_settings

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


@dataclass(frozen=True)
class Search:
    """How the pytest API searches: as ``schedcheck check`` does (``pipeline.check``)."""

    budget: float | None = None  #: seconds; None: check's default unless ``examples``
    examples: int | None = None  #: a count of examples instead of a time budget
    seed: int | None = None  #: None: pytest's ``--hypothesis-seed``, else a random one
    keep_going: bool = False  #: every broken clause with its own counterexample


def _campaign(request: Any) -> bool:
    """A ``schedcheck fuzz`` run (``--schedcheck-db``/``--schedcheck-replay-only``): there
    the suite is Hypothesis's own state-machine test, saving to the shared database."""
    config = getattr(request, "config", None)
    return bool(_option(config, "schedcheck_db") or _option(config, "schedcheck_replay_only"))


def _option(config: Any, name: str) -> Any:
    if config is None:  # a request made outside a pytest run (HypoFuzz, a direct call)
        return None
    try:
        return config.getoption(name)
    except ValueError:  # the option's plugin is not loaded
        return None


def _seed(request: Any, search: Search) -> int:
    if search.seed is not None:
        return search.seed
    given = _option(getattr(request, "config", None), "hypothesis_seed")
    if given is not None:
        try:
            return int(given)
        except ValueError:
            return int.from_bytes(str(given).encode()[:8].ljust(8, b"\0"), "big")
    return random.randrange(1 << 32)


def _check_search(request: Any, system: str, factory: Callable[..., Any], name: str, *,
                  tolerance: bool, search: Search | None, database: Any = None) -> None:
    """``schedcheck check``'s search (both levels, keep-going when asked; its budget or
    examples and seed); a failure fails the test with check's card, steps, the path of the
    report folder (``replay.py``, pictures, ``report.json``, ``index.html``) and the command
    that searches again. With an example ``database``, the counterexamples an earlier search
    kept there (``schedcheck.saved``: check's, this test's, a campaign's) are replayed first,
    and this search's are kept there."""
    import functools

    import pytest

    from schedcheck import pipeline, saved, supervised
    from schedcheck.levels import DEFAULT_BUDGET
    from schedcheck.report.card import card_text
    from schedcheck.report.steps import steps_text
    from schedcheck.report.writer import write_run

    search = search or Search()
    seed = _seed(request, search)
    budget = search.budget
    if budget is None and search.examples is None:
        budget = DEFAULT_BUDGET
    try:
        # the target runs in a supervised child: a call that hangs, crashes or exits is a
        # counterexample, and nothing of the target outlives it in this session
        result = supervised.check(
            system, factory, target_name=name, examples=search.examples, seed=seed,
            budget=budget, tolerance=tolerance, cost=False, levels=True,
            first=not search.keep_going,
            database=None if database is None else str(getattr(database, "path", database)),
            replay_saved=None if database is None else functools.partial(
                saved.replay, database, system, factory, name, tolerance=tolerance))
    except pipeline.Unusable as exc:
        pytest.fail(f"target {name!r} is unusable: {exc}", pytrace=False)
    if result.seed is None:
        result.seed = seed
    if result.ok:
        return
    if database is not None:
        try:
            saved.save(database, system, factory, result, tolerance=tolerance)
        except Exception as exc:  # the card matters more than keeping it: say so on it
            result.notes.append(f"the counterexamples were not kept in the example database "
                                f"({type(exc).__name__}: {exc})")
    again = f"schedcheck check {system} {name} --seed {seed}"
    again += (f" --examples {search.examples}" if search.examples is not None
              else f" --budget {budget:g}")
    again += "".join(flag for flag, on in ((" --first", not search.keep_going),
                                           (" --tolerance", tolerance), (" --no-cost", True))
                     if on)
    out = request.getfixturevalue("tmp_path_factory").mktemp(f"schedcheck-{system}")
    written = write_run(result, out, target_spec=name, cwd=os.getcwd(), command=again)
    shown = [steps_text(cx, target=name) for cx in result.all_counterexamples()]
    pytest.fail(
        card_text(result) + "\n\n" + "\n\n".join(shown)
        + f"\n\nreplay, pictures and report.json: {out}\n"
        + f"replay it: python3 {out / 'replay.py'}\n"
        + f"search again: {again}\n"
        + "files: " + ", ".join(written.rel(p) for p in written.files),
        pytrace=False,
    )


def _suite(system: str, factory: Callable[..., Any], settings: Any, *, name: str = "",
           tolerance: bool = False, search: Search | None = None) -> type:
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

    def hypothesis_run(self: Any, request: Any, chosen: Any) -> bool:
        """The suite's state machine under Hypothesis with ``chosen`` settings (its example
        database included); False when there was nothing to run (an empty database and no
        generate phase). A failure fails the test with the reduced counterexample."""
        from hypothesis.statistics import collector, note_statistics

        from schedcheck.harness.common import RunContext, run_suite
        from schedcheck.harness.minimize import reduce_found
        from schedcheck.harness.result import RunResult
        from schedcheck.supervised import run_in_child

        heard: list[Any] = []  # Hypothesis's statistics of the run, for pytest's report

        def run() -> RunResult:
            result = RunResult.fresh(system, name)
            fresh = suite_machine(system, factory, name=name, tolerance=tolerance,
                                  result=result)
            ctx = RunContext(result)
            listener: Any = heard.append if collector.value is not None else None
            with collector.with_value(listener):
                run_suite(fresh, result, chosen, keep_database=True, context=ctx)
            result.hypothesis_statistics = heard
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
            for stats in result.hypothesis_statistics:
                note_statistics(stats)  # what the child's run told Hypothesis's collector
        except unittest.SkipTest:
            return False
        if not result.ok:
            out = request.getfixturevalue("tmp_path_factory").mktemp(f"schedcheck-{system}")
            _fail_with(result, out, name)
        return True

    def kept_run(request: Any, database: Any) -> bool:
        """The programs check's search kept in ``database`` for this target
        (``schedcheck.saved``), replayed in a supervised child; False when there is none. One
        that fails again fails the test with its card."""
        from schedcheck import saved
        from schedcheck.harness.result import RunResult
        from schedcheck.supervised import run_in_child

        if not list(database.fetch(saved.key(system, factory, tolerance=tolerance))):
            return False

        def run() -> RunResult:
            again = saved.replay(database, system, factory, name, tolerance=tolerance)
            return again if again is not None else RunResult.fresh(system, name)

        result = run_in_child(system, factory, run, target_name=name)
        if not result.ok:
            out = request.getfixturevalue("tmp_path_factory").mktemp(f"schedcheck-{system}")
            _fail_with(result, out, name)
        return True

    # ``request``, not ``tmp_path_factory``: HypoFuzz sets up a test's fixtures outside a
    # pytest run, where the temporary directory does not exist; it is made only on a failure
    def test_behaves_like_the_model(self: Any, request: Any) -> None:
        try:
            _behaves_like_the_model(self, request)
        finally:
            _idle(factory)

    def _behaves_like_the_model(self: Any, request: Any) -> None:
        import pytest
        from hypothesis import Phase

        if unusable is not None:
            pytest.fail(f"target {name!r} is unusable: {unusable}", pytrace=False)
        chosen = self.settings
        if settings is not None or _campaign(request):  # Hypothesis's own search, as asked
            replay_only = Phase.generate not in chosen.phases
            if _option(getattr(request, "config", None), "schedcheck_check_search") and (
                    not replay_only):  # a campaign's worker of the engine "check"
                _check_search(request, system, factory, name, tolerance=tolerance,
                              search=search, database=chosen.database)
                return
            ran = hypothesis_run(self, request, chosen)
            if replay_only and chosen.database is not None:  # and what check's search kept
                ran = kept_run(request, chosen.database) or ran
            if not ran and replay_only:
                pytest.skip(f"nothing to replay: the example database holds no example of "
                            f"the {system} suite against {name}")
            return
        # what the example database saved for this target is replayed first
        if chosen.database is not None:
            reuse = [p for p in (Phase.explicit, Phase.reuse) if p in chosen.phases]
            if reuse:
                import hypothesis

                hypothesis_run(self, request, hypothesis.settings(chosen, phases=reuse))
        if Phase.generate not in chosen.phases:
            return
        _check_search(request, system, factory, name, tolerance=tolerance, search=search,
                      database=chosen.database)

    if machine is not None:  # what Hypothesis's pytest plugin and HypoFuzz look for
        test_behaves_like_the_model.is_hypothesis_test = True  # type: ignore[attr-defined]
        test_behaves_like_the_model._hypothesis_state_machine_class = machine  # type: ignore[attr-defined]

    def test_cost_grows_linearly(self: Any) -> None:
        try:
            _cost_grows_linearly()
        finally:
            _idle(factory)

    def _cost_grows_linearly() -> None:
        import pytest

        from schedcheck import supervised, systems
        from schedcheck.report.card import card_text

        if unusable is not None:
            pytest.fail(f"target {name!r} is unusable: {unusable}", pytrace=False)
        try:
            result = supervised.check(system, factory, target_name=name, suite=False)
        except pipeline.Unusable as exc:
            pytest.fail(f"target {name!r} is unusable: {exc}", pytrace=False)
        if not result.ok:
            cost = systems.get(system).cost_clause
            said = [n for n in result.notes if n.startswith(cost)]
            pytest.fail(f"{cost} broken: the cost per item grew with the size\n"
                        + "".join(f"{n}\n" for n in said) + card_text(result), pytrace=False)

    _idle(factory)  # the probe's child: each test starts its own
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


def _idle(factory: Callable[..., Any]) -> None:
    """Shut down the child of an ``exec=`` target (it restarts at its next use): a child
    process kept between tests would outlive the test that needed it."""
    from schedcheck.targets.exec import ExecTarget

    if isinstance(factory, ExecTarget):
        factory.close()


def _exec_target(system: str, factory: Callable[..., Any] | None, command: str | None,
                 name: str) -> tuple[Callable[..., Any], str]:
    """``factory``, or the child process serving ``command`` (``specs/protocol.md``), and the
    name its reports and ``replay.py`` use (``exec:COMMAND`` for a command)."""
    if (factory is None) == (command is None):
        raise TypeError("give either a factory or exec='COMMAND', not "
                        + ("both" if command else "neither"))
    if command is None:
        assert factory is not None
        return factory, name
    from schedcheck.targets.exec import exec_factory, exec_spec

    return exec_factory(command, system), name or exec_spec(command)


def scheduler_suite(factory: Callable[..., Any] | None = None, settings: Any = None, *,
                    name: str = "", budget: float | None = None, examples: int | None = None,
                    seed: int | None = None, keep_going: bool = False,
                    exec: str | None = None) -> type:
    """A pytest test class running the scheduler suite against ``factory(max_concurrency)``,
    or against the implementation ``exec="COMMAND ..."`` serves (any language, through
    ``specs/protocol.md``; a child runs while the class is made and during each test, and
    is shut down after it): ``schedcheck check``'s
    search with its ``budget`` (seconds) or ``examples``, ``seed`` and ``keep_going`` (every
    broken clause, not only the first); ``settings`` instead runs the suite's state machine
    under Hypothesis with those settings."""
    target, name = _exec_target("scheduler", factory, exec, name)
    return _suite("scheduler", target, settings, name=name,
                  search=Search(budget, examples, seed, keep_going))


def wheel_suite(factory: Callable[..., Any] | None = None, settings: Any = None, *,
                tolerance: bool = False, name: str = "", budget: float | None = None,
                examples: int | None = None, seed: int | None = None,
                keep_going: bool = False, exec: str | None = None) -> type:
    """A pytest test class running the wheel suite against ``factory(tick, wheel_size, **o)``
    or the implementation ``exec="COMMAND ..."`` serves; ``budget``, ``examples``, ``seed``,
    ``keep_going`` and ``settings`` as for :func:`scheduler_suite`.

    ``tolerance=True`` checks only the invariants (never early, never twice, never after a
    cancel, never lost), for a wheel whose due ticks differ from the contract's by design."""
    target, name = _exec_target("wheel", factory, exec, name)
    return _suite("wheel", target, settings, name=name, tolerance=tolerance,
                  search=Search(budget, examples, seed, keep_going))

