"""The core level reaches generations: resubmits after start, retries and stale reports of
older runs (``scheduler.core_generations``)."""

from __future__ import annotations

from schedcheck.impl import Scheduler

from schedcheck import profiles
from schedcheck.harness.result import RunResult
from schedcheck.harness.scheduler.core import run_core_suite
from tests.shapes import generations


def _core(factory: object, examples: int, seed: int = 0) -> RunResult:
    with profiles.seed_only_draws():
        return run_core_suite(factory, examples=examples, seed=seed, profile="ci")  # type: ignore[arg-type]


def test_a_resubmitted_task_handed_out_as_the_same_generation_fails_the_core_level() -> None:
    result = _core(generations.OneGenerationStaleReports, 300)
    cx = result.counterexample
    assert cx is not None and cx.clause == "S-CLAIM-ONCE", result.notes
    assert "(generation 1) was claimed twice" in cx.message
    codes = [step.code for step in cx.steps]
    assert sum(1 for code in codes if ".submit(" in code) >= 2, codes  # the resubmit
    assert len(codes) <= 8, codes


def test_a_stale_report_applied_to_the_current_run_fails_the_core_level() -> None:
    result = _core(generations.ApplyStaleReports, 300)
    cx = result.counterexample
    # S4 (a stale completion released a dependent) or S5 (a stale failure ended the new run)
    assert cx is not None and cx.clause in ("S4", "S5"), result.notes
    codes = [step.code for step in cx.steps]
    # a report quoting an older generation after the task moved on to a new run
    assert any("before its resubmit" in step.words for step in cx.steps), codes
    assert any(".retry(" in c or ".submit(" in c for c in codes), codes


def test_the_bundled_scheduler_holds_the_core_with_generations() -> None:
    result = _core(Scheduler, 300, seed=1)
    assert result.counterexample is None, result.notes
    assert result.stats["S4"].exercised > 0
