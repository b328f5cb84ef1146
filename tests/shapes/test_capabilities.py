"""Capabilities a design declares: ``reports_once`` (no duplicate reports are sent) and
``cost="linear"`` (the cost clause is "not claimed", with the reason)."""

from __future__ import annotations

from schedcheck import profiles
from schedcheck.harness.result import BROKEN, NOT_SUPPORTED, PARTLY, RunResult
from schedcheck.harness.scheduler.core import run_core_suite
from schedcheck.levels import cost_not_claimed
from schedcheck.pipeline import check
from schedcheck.systems import get
from schedcheck.targets.adapters import LINEAR_COST, WheelAdapter, WheelCapabilities
from tests.shapes import dispatchers


def _core(factory: object) -> RunResult:
    # seed 1 reaches a join released by a duplicate report within 300 examples
    with profiles.seed_only_draws():
        return run_core_suite(factory, examples=300, seed=1, profile="ci")  # type: ignore[arg-type]


def test_a_duplicate_report_breaks_a_dispatcher_that_does_not_declare_reports_once() -> None:
    result = _core(dispatchers.CountingDispatcher)
    cx = result.counterexample
    assert cx is not None and cx.clause == "S4", result.notes
    assert "duplicate complete()" in cx.message, cx.message


def test_no_duplicate_report_is_sent_to_a_dispatcher_that_reports_once() -> None:
    result = _core(dispatchers.CountingDispatcherReportsOnce)
    assert result.counterexample is None, result.notes
    stat = result.stats["S4"]
    assert stat.verdict in (PARTLY, NOT_SUPPORTED) and stat.verdict != BROKEN
    assert "reports each task once" in stat.missing or "reports each task once" in " ".join(
        result.unsupported)
    assert any("reports each task once" in part for part in result.unsupported)
    assert result.stats["S-CLAIM-DEPS"].exercised > 0  # the rest is still checked


def test_a_linear_design_has_its_cost_clause_not_claimed_with_the_reason() -> None:
    entry = get("scheduler")
    result = RunResult.fresh("scheduler", "rescanning")
    assert cost_not_claimed(entry, dispatchers.RescanningDispatcher, result)
    stat = result.stats[entry.cost_clause]
    assert stat.verdict == NOT_SUPPORTED
    assert stat.reason.startswith("not claimed: the target declares cost='linear'")
    assert stat.missing == LINEAR_COST
    plain = RunResult.fresh("scheduler", "counting")
    assert not cost_not_claimed(entry, dispatchers.CountingDispatcherReportsOnce, plain)
    assert plain.stats[entry.cost_clause].supported


def test_a_list_of_periodic_jobs_declared_linear_gets_w_cost_not_claimed() -> None:
    class JobList(WheelAdapter):
        capabilities = WheelCapabilities(cost="linear")

    entry = get("wheel")
    result = RunResult.fresh("wheel", "jobs")
    assert cost_not_claimed(entry, JobList, result)
    assert result.stats[entry.cost_clause].verdict == NOT_SUPPORTED
    assert "not claimed" in result.stats[entry.cost_clause].reason
    assert any("cost='linear'" in m for m in WheelCapabilities(cost="linear").missing())


def test_the_check_says_not_claimed_and_never_measures_a_linear_design() -> None:
    lines: list[str] = []
    with profiles.seed_only_draws():
        result = check("scheduler", dispatchers.RescanningDispatcher, examples=40, seed=0,
                       profile="ci", levels=True, level="core", status=lines.append)
    stat = result.stats[get("scheduler").cost_clause]
    assert stat.verdict == NOT_SUPPORTED and stat.reason.startswith("not claimed"), stat.reason
    assert any("not claimed" in line for line in lines), lines
    assert not any("a timed run" in line for line in lines), lines
