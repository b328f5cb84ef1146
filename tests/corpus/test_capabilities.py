"""Design differences an adapter declares: each turns its clause into "not supported" or
"partly exercised" with the declared reason -- and without the declaration the same target
gets a counterexample, so each test below can fail. Small stand-ins for real designs (fixed
seeds, counted examples)."""

from __future__ import annotations

import sched
from typing import Any

from schedcheck import profiles
from schedcheck.harness.scheduler.core import run_core_suite
from schedcheck.harness.wheel.suite import run_wheel_suite
from schedcheck.targets.adapters import SchedulerAdapter, SchedulerCapabilities, WheelCapabilities
from tests.corpus.graphlib2_rust import Graphlib2
from tests.corpus.sched_stdlib import StdlibSched


def _verdicts(result: Any) -> dict[str, str]:
    return {cid: s.verdict for cid, s in result.stats.items()}


def _broken(result: Any) -> list[str]:
    return [c for c, v in _verdicts(result).items() if v == "broken"]


class Workflow(SchedulerAdapter):
    """A workflow engine's central scheduler, in miniature: a task is DONE when anyone says
    so (ran or not), DONE replaces FAILED (a retry that succeeded), no cycle detection, and
    a cycle error that is a RuntimeError saying so (when ``checks`` is set)."""

    checks = False

    def build(self) -> None:
        self.deps: dict[Any, tuple[Any, ...]] = {}
        self.status: dict[Any, str] = {}

    def add(self, task_id: Any, deps: tuple[Any, ...]) -> None:
        self.deps[task_id] = deps
        self.status[task_id] = "PENDING"
        for dep in deps:
            self.status.setdefault(dep, "PENDING")
            self.deps.setdefault(dep, ())

    def start_graph(self) -> None:
        if self.checks and self._cyclic():
            raise RuntimeError("Cycle detected in the workflow graph")

    def _cyclic(self) -> bool:
        """A depth-first search with its own stack (a deep chain is no trouble)."""
        state: dict[Any, int] = {}  # 1: on the current path, 2: done
        for root in list(self.deps):
            if root in state:
                continue
            state[root] = 1
            stack = [(root, iter(self.deps[root]))]
            while stack:
                node, deps = stack[-1]
                for dep in deps:
                    if state.get(dep) == 1:
                        return True
                    if dep not in state:
                        state[dep] = 1
                        stack.append((dep, iter(self.deps[dep])))
                        break
                else:
                    state[node] = 2
                    stack.pop()
        return False

    def take(self) -> list[Any]:
        out = [t for t, s in self.status.items() if s == "PENDING"
               and all(self.status[d] == "DONE" for d in self.deps[t])]
        for t in out:
            self.status[t] = "RUNNING"
        return out

    def finish(self, task_id: Any) -> None:
        self.status[task_id] = "DONE"

    def fail_task(self, task_id: Any) -> None:
        self.status[task_id] = "FAILED"


class DeclaredWorkflow(Workflow):
    capabilities = SchedulerCapabilities(
        generations=False, cancel=False, close=False, info=False, claim_order="any",
        validates_args=False, unknown_deps=False, limit=False, detects_cycles=False,
        accepts_unclaimed_done=True, done_after_failed=True)


class UndeclaredWorkflow(Workflow):
    capabilities = SchedulerCapabilities(
        generations=False, cancel=False, close=False, info=False, claim_order="any",
        validates_args=False, unknown_deps=False, limit=False)


class CyclesOnlyDeclared(Workflow):
    capabilities = SchedulerCapabilities(
        generations=False, cancel=False, close=False, info=False, claim_order="any",
        validates_args=False, unknown_deps=False, limit=False, detects_cycles=False)


def test_a_workflow_scheduler_declares_its_design_and_gets_no_false_alarm() -> None:
    result = run_core_suite(DeclaredWorkflow, examples=150, seed=1, shrink=False)
    verdicts = _verdicts(result)
    assert _broken(result) == []
    assert verdicts["S-ORACLE-CYCLE"] == "not supported"
    assert verdicts["S4"] == "partly exercised" and verdicts["S5"] == "partly exercised"
    assert "cycle detection" in result.stats["S-ORACLE-CYCLE"].missing
    assert "nobody ran" in result.stats["S4"].missing


def test_the_same_workflow_scheduler_undeclared_is_caught() -> None:
    """Each run stops at its first counterexample: the cycle first, then (cycles declared)
    a success for a task nobody ran or after a failure."""
    assert _broken(run_core_suite(UndeclaredWorkflow, examples=150, seed=1,
                                  shrink=False)) == ["S-ORACLE-CYCLE"]
    assert _broken(run_core_suite(CyclesOnlyDeclared, examples=150, seed=1,
                                  shrink=False))[0] in ("S4", "S5")


class CycleByMessage(UndeclaredWorkflow):
    checks = True

    def finish(self, task_id: Any) -> None:
        if self.status.get(task_id) != "RUNNING":
            raise ValueError(f"{task_id!r} is not running")
        self.status[task_id] = "DONE"

    def fail_task(self, task_id: Any) -> None:
        if self.status.get(task_id) != "RUNNING":
            raise ValueError(f"{task_id!r} is not running")
        self.status[task_id] = "FAILED"


def test_a_cycle_error_is_recognised_by_its_message_and_says_so() -> None:
    result = run_core_suite(CycleByMessage, examples=100, seed=1, shrink=False)
    assert _broken(result) == []
    assert _verdicts(result)["S-ORACLE-CYCLE"] == "held"
    assert any(n.startswith("cycle errors recognised by message: RuntimeError")
               for n in result.notes)


class CycleByDeclaredClass(CycleByMessage):
    capabilities = SchedulerCapabilities(
        generations=False, cancel=False, close=False, info=False, claim_order="any",
        validates_args=False, unknown_deps=False, limit=False, cycle_error=KeyError)


def test_a_declared_cycle_error_class_replaces_the_default_recognition() -> None:
    """RuntimeError is not the declared KeyError: every cycle is then missed."""
    assert "S-ORACLE-CYCLE" in _broken(run_core_suite(CycleByDeclaredClass, examples=100,
                                                      seed=1, shrink=False))
    assert SchedulerCapabilities(cycle_error=lambda e: "loop" in str(e)).cycle_reported(
        RuntimeError("a loop")) == "declared"
    assert SchedulerCapabilities().cycle_reported(type("GraphCycle", (Exception,), {})()) \
        == "by class"


class ClaimsOnlyGraphlib2(Graphlib2):
    capabilities = SchedulerCapabilities(
        generations=False, fail=False, cancel=False, close=False, info=False,
        claim_order="any", validates_args=False, unknown_deps=False, limit=False,
        claims_only=True)


def test_claims_only_sends_no_report_for_a_task_never_handed_out() -> None:
    """graphlib2 accepts done() for a task it never handed out (a bug its own driver never
    meets): declared claims_only, that report is never sent, and the rest holds."""
    assert _broken(run_core_suite(Graphlib2, examples=100, seed=1, shrink=False)) == ["S4"]
    result = run_core_suite(ClaimsOnlyGraphlib2, examples=100, seed=1, shrink=False)
    assert _broken(result) == []
    assert _verdicts(result)["S4"] == "partly exercised"


class CancelNotImplemented(CycleByMessage):
    """Declares cancel (the default), but the library has none: NotImplementedError."""

    capabilities = SchedulerCapabilities(
        generations=False, fail=False, close=False, info=False, claim_order="any",
        validates_args=False, unknown_deps=False, limit=False)

    def cancel_task(self, task_id: Any) -> None:
        raise NotImplementedError("this library has no cancel")


def test_an_operation_refused_as_unsupported_leaves_the_model_untouched() -> None:
    result = run_core_suite(CancelNotImplemented, examples=100, seed=1, shrink=False)
    assert _broken(result) == []
    assert _verdicts(result)["S6"] == "not supported"
    assert "NotImplementedError" in result.stats["S6"].missing


class RoundsDown(StdlibSched):
    """A heap that fires a timer at its deadline rounded down to an even instant: up to one
    unit early, as a wheel that rounds a bucket's expiry down does."""

    capabilities = WheelCapabilities(cancel="raises", validates_args=False, due_ticks=False)
    late = 0

    def add(self, deadline: int, fire: Any) -> Any:
        return self.inner.enterabs(deadline - deadline % 2 - self.late, 0, fire)


class DeclaresEarlyBy(RoundsDown):
    capabilities = WheelCapabilities(cancel="raises", validates_args=False, due_ticks=False,
                                     early_by=1)


class EarlierThanDeclared(DeclaresEarlyBy):
    late = 1  # up to two units early, one declared


def test_early_by_is_a_declared_tolerance_and_still_bounds_early_firing() -> None:
    # the draws of seed 2 alone, whichever modules the tests before imported (Hypothesis mixes
    # constants of every imported local module into its draws); seeds 0 and 7 never advance
    # to exactly two units before an odd deadline in 60 such examples, which the firing two
    # units early needs, seed 2 does at once (seeds 0-7 tried with the wheel's rules of now)
    with profiles.seed_only_draws():
        assert "W-INV-EARLY" in _broken(run_wheel_suite(RoundsDown, examples=60, seed=2,
                                                        shrink=False))
        result = run_wheel_suite(DeclaresEarlyBy, examples=60, seed=2, shrink=False)
        assert _broken(result) == []
        assert _verdicts(result)["W-INV-EARLY"] == "partly exercised"
        assert "1 units early" in result.stats["W-INV-EARLY"].missing
        assert "W-INV-EARLY" in _broken(run_wheel_suite(EarlierThanDeclared, examples=60,
                                                        seed=2, shrink=False))
    assert sched.scheduler  # the stand-ins are built on the standard library's heap
