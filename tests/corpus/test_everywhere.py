"""Every corpus adapter is accepted wherever a target is: the pytest API (and so the plugin,
which builds the same classes, and ``fuzz``, whose workers run them) and the construction
probe that ``check`` and ``fuzz`` gate on. The buggy ones fail their test class with a
counterexample, never with "unusable"."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import Phase, settings

from schedcheck import pipeline, scheduler_suite, stages, wheel_suite
from tests.corpus.asyncio_loop import AsyncioTimers
from tests.corpus.dask_local import DaskLocal
from tests.corpus.graphlib2_rust import Graphlib2
from tests.corpus.graphlib_stdlib import StdlibGraphlib
from tests.corpus.kombu_timer import KombuTimer
from tests.corpus.luigi_central import LuigiCentral
from tests.corpus.sched_stdlib import StdlibSched
from tests.corpus.simpy_events import SimPyTimers
from tests.corpus.timewheel_pypi import PyPITimeWheel
from tests.corpus.twisted_clock import TwistedClock

FAST = settings(max_examples=15, stateful_step_count=20, derandomize=True, deadline=None,
                database=None, phases=[Phase.explicit, Phase.generate])
#: (adapter, its pytest class passes)
TARGETS = [
    ("wheel", StdlibSched, True), ("wheel", AsyncioTimers, True), ("wheel", TwistedClock, True),
    ("wheel", KombuTimer, True), ("wheel", SimPyTimers, True),
    ("wheel", PyPITimeWheel, False),  # fires early: a counterexample
    ("scheduler", StdlibGraphlib, True), ("scheduler", LuigiCentral, True),
    ("scheduler", DaskLocal, True),
]


class _Request:
    """Just enough of pytest's ``request`` for a failing suite to write its report."""

    def __init__(self, factory: Any) -> None:
        self.factory = factory

    def getfixturevalue(self, name: str) -> Any:
        return self.factory


@pytest.mark.parametrize(("system", "adapter", "passes"), TARGETS,
                         ids=[t[1].__name__ for t in TARGETS])
def test_the_pytest_api_runs_every_corpus_adapter(system: str, adapter: type, passes: bool,
                                                  tmp_path_factory: Any) -> None:
    assert pipeline.probe_construct(system, adapter) is None
    make = wheel_suite if system == "wheel" else scheduler_suite
    suite = make(adapter, settings=FAST)()
    assert suite.machine is not None
    if passes:
        suite.test_behaves_like_the_model(_Request(tmp_path_factory))
    else:
        suite = make(adapter, settings=settings(FAST, max_examples=60))()
        with pytest.raises(pytest.fail.Exception, match="W-INV-EARLY"):
            suite.test_behaves_like_the_model(_Request(tmp_path_factory))


def test_a_buggy_scheduler_adapter_fails_its_class_with_the_clause(
        tmp_path_factory: Any) -> None:
    assert pipeline.core_only("scheduler", Graphlib2)
    suite = scheduler_suite(Graphlib2, budget=10, seed=1)()  # check's search, fixed by the seed
    with pytest.raises(pytest.fail.Exception, match="S4"):
        suite.test_behaves_like_the_model(_Request(tmp_path_factory))


def test_grade_marks_what_an_adapter_declares_it_lacks_not_graded() -> None:
    """`schedcheck grade` on an adapter: an item that needs a method it lacks or argument
    checks it declares it does not make is not graded ("--"), never failed; the rest is."""
    from schedcheck.practice.grading import FAIL, NOT_ATTEMPTED, PASS, grade_items
    from schedcheck.practice.items import grade, items_for

    card = grade("wheel", StdlibSched, cost=False, name="sched")
    status = {r.item.id: r.status for r in card.results}
    assert status["W-polish-3"] == status["W-polish-4"] == NOT_ATTEMPTED
    assert FAIL not in status.values() and PASS in status.values()
    timewheel = {r.item.id: r for r in grade("wheel", PyPITimeWheel, cost=False,
                                             name="timewheel").results}
    assert timewheel["W-T3"].status == NOT_ATTEMPTED  # it declares no cancel()
    assert timewheel["W-T3"].note == "the class declares it lacks cancel()"
    # graded without the list of items known to need cancel(), the item's programs run into
    # the missing cancel() and the card says so in the same words
    met = {r.item.id: r for r in grade_items(items_for("wheel"), PyPITimeWheel, system="wheel",
                                             name="timewheel", cost=False).results}
    assert met["W-T3"].status == NOT_ATTEMPTED
    assert met["W-T3"].note == timewheel["W-T3"].note

    class FiresEarly(StdlibSched):
        def add(self, deadline: int, fire: Any) -> Any:
            return self.inner.enterabs(deadline - 5, 0, fire)

    # a declared design never hides a real mistake
    early = grade("wheel", FiresEarly, cost=False, name="early").failed
    assert {"W-M2", "W-T2"} & set(early), early  # never early: shown under the item it broke

    class InnerSlip(StdlibSched):
        def run_until(self, now: int) -> None:
            self.inner.run_pending(now)  # no such method on sched.scheduler

    # an AttributeError from the implementation is a miss, not a part the adapter lacks
    slipped = grade("wheel", InnerSlip, cost=False, name="slip")
    failed = [r for r in slipped.results if r.status == FAIL]
    assert failed and all("run_pending" in r.miss.message for r in failed if r.miss)
    assert all("run_pending" not in r.note for r in slipped.results)


@pytest.mark.parametrize("adapter", [StdlibSched, SimPyTimers], ids=lambda a: a.__name__)
def test_the_real_thread_stress_accepts_an_inexact_adapter(adapter: type) -> None:
    """Under real threads, a heap that fires at the deadline itself is compared with the
    firing order within one advance as a set (its order there is a design difference), and
    one that declares no cancel() is never sent one."""
    from schedcheck.concurrency.stress import run_stress

    result = run_stress("wheel", adapter, threads=4, operations=3_000, seed=1, any_order=True)
    assert result.ok, result.violations[:1]
    assert stages.declares_inexact(pipeline.get("wheel"), adapter)


def test_a_crash_of_the_checker_exits_2_without_a_traceback(
        monkeypatch: Any, capsys: Any, tmp_path: Any) -> None:
    """Exit 1 means "counterexample found": a checker crash (here a TypeError planted in the
    pipeline) is exit 2 with one line naming it, never a traceback."""
    from schedcheck import cli

    def crash(*args: Any, **kwargs: Any) -> Any:
        raise TypeError("planted")

    monkeypatch.setattr(pipeline, "check", crash)
    code = cli.main(["check", "wheel", "tests/corpus/sched_stdlib.py:StdlibSched",
                     "--examples", "1", "--out", str(tmp_path)])
    err = capsys.readouterr().err
    assert code == 2 and "internal error" in err and "TypeError: planted" in err
    assert "Traceback" not in err
