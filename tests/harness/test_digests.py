"""The memo in front of Hypothesis's machine digest: the same digest as Hypothesis's own, one
computation per machine class, and nothing changed for anything else."""

from __future__ import annotations

from typing import Any

import hypothesis.stateful as stateful
from hypothesis.internal.reflection import function_digest
from hypothesis.stateful import RuleBasedStateMachine, rule

from schedcheck.harness import common, digests  # common installs the memo


class Machine(RuleBasedStateMachine):
    @rule()
    def step(self) -> None:
        pass


def _bound(ctx: object) -> type:
    """As ``common.run_suite`` binds a machine class to one run."""
    return type(Machine.__name__, (Machine,),
                {"_ctx": ctx, "__module__": Machine.__module__,
                 "__qualname__": Machine.__qualname__})


def test_a_bound_machine_keeps_hypothesis_digest_computed_once(monkeypatch: Any) -> None:
    assert common.run_suite  # the module that installs the memo is imported
    memoized = vars(stateful)["function_digest"]
    assert isinstance(memoized, digests._Memoized)
    original = memoized.original
    assert original is function_digest
    calls: list[object] = []

    def counted(function: object) -> bytes:
        calls.append(function)
        return original(function)

    monkeypatch.setattr(digests, "_memo", {})
    fresh = digests._Memoized(counted)
    first, second = _bound(object()), _bound(object())
    assert fresh(first) == fresh(second) == function_digest(first) == function_digest(Machine)
    assert calls == [first]


def test_anything_else_goes_to_hypothesis_every_time() -> None:
    calls: list[object] = []

    def counted(function: object) -> bytes:
        calls.append(function)
        return function_digest(function)

    fresh = digests._Memoized(counted)
    assert fresh(Machine) == fresh(Machine) == function_digest(Machine)
    assert calls == [Machine, Machine]
    digests.install()  # idempotent: the installed memo is not wrapped again
    installed = vars(stateful)["function_digest"]
    assert isinstance(installed, digests._Memoized) and installed.original is function_digest
