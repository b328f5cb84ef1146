"""More real implementations, each with its declared design: an event loop's timer heap, a
simulation's event heap, a workflow engine's central scheduler, a data library's local
scheduler. Each gets its expected verdict (fixed seeds, counted examples); undeclared, the
design differences would be counterexamples, which the last tests show."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from schedcheck.harness.scheduler.core import run_core_suite
from schedcheck.harness.wheel.cost import check_wheel_scaling
from schedcheck.harness.wheel.suite import run_wheel_suite
from schedcheck.targets.adapters import SchedulerCapabilities
from tests.corpus.dask_local import DaskLocal
from tests.corpus.kombu_timer import KombuTimer
from tests.corpus.luigi_central import LuigiCentral
from tests.corpus.simpy_events import SimPyTimers
from tests.corpus.test_corpus import _code_lines


def _verdicts(result: Any) -> dict[str, str]:
    return {cid: s.verdict for cid, s in result.stats.items()}


@pytest.mark.parametrize("adapter", [KombuTimer, SimPyTimers], ids=lambda a: a.__name__)
def test_timer_heaps_hold_every_checked_clause(adapter: type) -> None:
    result = run_wheel_suite(adapter, examples=60, seed=1, shrink=False)
    verdicts = _verdicts(result)
    assert [c for c, v in verdicts.items() if v == "broken"] == []
    assert verdicts["W-INV-EARLY"] == verdicts["W-INV-ONCE"] == "held"
    assert verdicts["W2"] == "not supported"  # fires at the deadline itself, by design
    assert check_wheel_scaling(adapter, n=500).verdict == "held"


def test_luigi_declares_a_workflow_design() -> None:
    result = run_core_suite(LuigiCentral, examples=100, seed=1, shrink=False)
    verdicts = _verdicts(result)
    assert [c for c, v in verdicts.items() if v == "broken"] == []
    assert verdicts["S-ORACLE-CYCLE"] == "not supported"
    assert verdicts["S4"] == verdicts["S5"] == "partly exercised"
    assert verdicts["S-CLAIM-DEPS"] == "held"


def test_dask_recognises_cycles_by_message_and_reports_only_its_claims() -> None:
    result = run_core_suite(DaskLocal, examples=100, seed=1, shrink=False)
    verdicts = _verdicts(result)
    assert [c for c, v in verdicts.items() if v == "broken"] == []
    assert verdicts["S-ORACLE-CYCLE"] == verdicts["S-CLAIM-DEPS"] == "held"
    assert verdicts["S4"] == "partly exercised"
    assert any("recognised by message: RuntimeError(Cycle detected" in n for n in result.notes)


_BARE = {"generations": False, "cancel": False, "close": False, "info": False,
         "claim_order": "any", "validates_args": False, "unknown_deps": False,
         "limit": False}


def test_without_their_declarations_the_designs_are_counterexamples() -> None:
    luigi = type("Luigi", (LuigiCentral,), {"capabilities": SchedulerCapabilities(**_BARE)})
    dask = type("Dask", (DaskLocal,), {"capabilities": SchedulerCapabilities(
        fail=False, **_BARE)})
    assert run_core_suite(luigi, examples=100, seed=1, shrink=False).counterexample.clause \
        == "S-ORACLE-CYCLE"  # no cycle detection
    assert run_core_suite(dask, examples=100, seed=1, shrink=False).counterexample.clause \
        == "S4"  # finish_task of a key it never started


@pytest.mark.parametrize("name", ["kombu_timer", "simpy_events", "luigi_central",
                                  "dask_local"])
def test_each_new_corpus_adapter_is_at_most_25_lines_of_code(name: str) -> None:
    lines = _code_lines(Path(__file__).with_name(f"{name}.py"))
    assert 5 <= lines <= 25, f"{name}.py has {lines} lines of code"
