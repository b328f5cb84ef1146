"""An operation the target refuses with NotImplementedError is "not supported" at every level,
as a missing method is: never a counterexample, never "broken"."""

from __future__ import annotations

from typing import Any

import pytest

from schedcheck import impl, pipeline, systems
from schedcheck.harness.result import BROKEN, NOT_SUPPORTED
from schedcheck.levels import missing_operations, refused_operations


class NoFailNoCancel(impl.Scheduler):
    """A scheduler that has fail() and cancel() in name only (a standard-library design)."""

    def fail(self, task_id: Any, generation: int, error: Any = None) -> Any:
        raise NotImplementedError("this scheduler cannot fail a task")

    def cancel(self, task_id: Any, generation: int | None = None) -> Any:
        raise NotImplementedError("this scheduler cannot cancel a task")


class NoScheduleAfter(impl.HashedTimingWheel):
    def schedule_after(self, delay: int, callback: Any) -> Any:
        raise NotImplementedError


def test_a_refused_operation_is_found_by_one_ordinary_call() -> None:
    sched = systems.get("scheduler")
    assert refused_operations(sched, NoFailNoCancel, sched.operations) == ["fail", "cancel"]
    assert refused_operations(sched, impl.Scheduler, sched.operations) == []
    wheel = systems.get("wheel")
    assert missing_operations(wheel, NoScheduleAfter, wheel.operations) == ["schedule_after"]
    assert missing_operations(wheel, impl.HashedTimingWheel, wheel.operations) == []


@pytest.mark.parametrize(("system", "factory", "words"), [
    ("scheduler", NoFailNoCancel, "fail(), cancel() raising NotImplementedError"),
    ("wheel", NoScheduleAfter, "schedule_after() raising NotImplementedError"),
])
def test_both_levels_call_a_refused_operation_not_supported_never_broken(
        system: str, factory: Any, words: str) -> None:
    result = pipeline.check(system, factory, target_name=factory.__name__, examples=30,
                            seed=3, cost=False, levels=True)
    assert result.all_counterexamples() == [], [cx.clause for cx in result.all_counterexamples()]
    assert not [cid for cid, s in result.stats.items() if s.verdict == BROKEN]
    contract = next(p for p in result.levels if p.level == "contract")
    assert all(s.verdict == NOT_SUPPORTED for s in contract.stats.values())
    assert any(words in n for n in result.notes), result.notes
    if system == "scheduler":  # the core level too: its clauses of fail and cancel
        core = next(p for p in result.levels if p.level == "core")
        assert core.stats["S5"].verdict == NOT_SUPPORTED
        assert "NotImplementedError" in core.stats["S5"].reason


def test_the_contract_level_alone_says_not_supported() -> None:
    result = pipeline.check("scheduler", NoFailNoCancel, target_name="NoFailNoCancel",
                            examples=10, seed=3, cost=False, levels=True, level="contract")
    assert result.ok and result.all_counterexamples() == []
    assert result.stats["S5"].verdict == NOT_SUPPORTED
    assert "fail(), cancel() (it raises NotImplementedError)" in result.stats["S5"].reason
