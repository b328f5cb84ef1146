"""SuiteMachine.compare_call, the one record-and-compare sequence both suites use: each side
gets its own copy of list arguments, the clause-specific checks run before the plain
comparison, and a mismatch diverges on the clause with the replay check of the model's reply."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis.stateful import rule

from schedcheck.harness.common import Divergence, SuiteMachine


class _Machine(SuiteMachine):
    system = "scheduler"

    @rule()
    def nothing(self) -> None:  # Hypothesis refuses a machine without rules
        """Never run: the tests call compare_call directly."""


def _machine() -> _Machine:
    machine = _Machine()
    machine.trace.setup = "target = factory(1)"
    return machine


def test_each_side_gets_its_own_copy_of_a_list_argument() -> None:
    seen: list[list[str]] = []

    def model(deps: list[str]) -> int:
        seen.append(deps)
        return len(deps)

    def target(deps: list[str]) -> int:
        deps.append("intruder")  # a target that mutates its argument
        return len(deps) - 1

    machine = _machine()
    deps = ["a", "b"]
    step = machine.trace.add("gen_0 = target.submit(deps=['a', 'b'])", "submit")
    got = machine.compare_call("S1", step, model, target, kwargs={"deps": deps}, name="gen_0")
    assert got.value == 2
    assert seen == [["a", "b"]]
    assert deps == ["a", "b"]
    assert step.check == "_raised is None and gen_0 == 2"
    assert machine.result.stats["S1"].exercised == 1


def test_a_mismatch_diverges_on_the_clause_after_the_checks_ran() -> None:
    order: list[str] = []

    def checks(step: Any, expected: Any, actual: Any) -> None:
        order.append(f"checks saw {expected!r} / {actual!r}")

    machine = _machine()
    step = machine.trace.add("target.start()", "start scheduling")
    with pytest.raises(Divergence) as info:
        machine.compare_call("S2", step, lambda: None, _raise_value_error, checks=checks)
    assert order == ["checks saw None / raises ValueError"]
    cx = info.value.counterexample
    assert cx.clause == "S2"
    assert step.diverged
    assert (step.expected, step.actual) == ("None", "raises ValueError")
    assert step.check == "_raised is None"


def test_target_args_and_target_norm_apply_to_the_target_alone() -> None:
    machine = _machine()
    step = machine.trace.add("target.cancel(foreign)", "cancel another wheel's handle")
    calls: list[tuple[str, Any]] = []

    def model(handle: Any) -> bool:
        calls.append(("model", handle))
        return False

    def target(handle: Any) -> Any:
        calls.append(("target", handle))
        return 0  # not a bool: the target's normaliser refuses it

    def strict_bool(value: Any) -> bool:
        if not isinstance(value, bool):
            raise TypeError("not a bool")
        return value

    with pytest.raises(Divergence):
        machine.compare_call("S6", step, model, target, "m-handle", target_args=("t-handle",),
                             target_norm=strict_bool)
    assert calls == [("model", "m-handle"), ("target", "t-handle")]
    assert step.actual.startswith("raises MalformedReply[strict_bool: TypeError")


def _raise_value_error() -> None:
    raise ValueError("no")
