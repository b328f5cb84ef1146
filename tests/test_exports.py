"""The public surface: schedcheck.model and schedcheck.impl expose exactly the contract's names,
and every implementation class has its model's public methods (so each can be checked as a
target, and a model can stand in for an implementation)."""

from __future__ import annotations

import inspect

import pytest
import schedcheck.impl as impl
import schedcheck.model as model

from schedcheck import contract

CONTRACT_NAMES = {
    "DEAD",
    "TERMINAL",
    "Cause",
    "Claim",
    "ClosedError",
    "ConflictError",
    "CycleError",
    "NotStartedError",
    "Outcome",
    "Reply",
    "SchedulerError",
    "TaskInfo",
    "TaskState",
    "UnknownDependencyError",
    "UnknownTaskError",
    "WheelFullError",
}

SCHEDULER_METHODS = {
    "submit",
    "start",
    "ready",
    "complete",
    "fail",
    "cancel",
    "close",
    "info",
    "cancel_requested",
}
SCHEDULER_EXTENSIONS = {"retry", "add_dependency"}
WHEEL_METHODS = {
    "schedule",
    "schedule_after",
    "cancel",
    "advance",
    "pending",
    "lag_ticks",
    "callback_errors",
}


def public_methods(cls: type) -> set[str]:
    return {
        name
        for name, member in inspect.getmembers(cls)
        if not name.startswith("_") and callable(member)
    }


def test_model_exports_exactly_the_contract_names_and_the_two_models() -> None:
    assert set(model.__all__) == CONTRACT_NAMES | {"Scheduler", "TimingWheel", "Handle"}
    for name in model.__all__:
        assert hasattr(model, name), name


def test_impl_exports_the_contract_names_and_the_bundled_classes() -> None:
    bundled = {
        "Scheduler", "HashedTimingWheel", "HierarchicalTimingWheel", "WheelTimer", "run", "Runner"
    }
    assert set(impl.__all__) == CONTRACT_NAMES | bundled
    for name in impl.__all__:
        assert hasattr(impl, name), name


def test_contract_vocabulary_is_reexported_as_the_same_objects() -> None:
    for name in CONTRACT_NAMES:
        assert getattr(model, name) is getattr(contract, name)
        assert getattr(impl, name) is getattr(contract, name)


def test_every_error_but_type_and_value_errors_derives_from_scheduler_error() -> None:
    for name in ("ClosedError", "NotStartedError", "UnknownTaskError", "ConflictError",
                 "UnknownDependencyError", "CycleError"):
        assert issubclass(getattr(contract, name), contract.SchedulerError), name


@pytest.mark.parametrize("cls", [model.Scheduler, impl.Scheduler], ids=["model", "impl"])
def test_scheduler_classes_have_the_contract_methods_and_extensions(cls: type) -> None:
    assert SCHEDULER_METHODS | SCHEDULER_EXTENSIONS <= public_methods(cls)


def test_impl_scheduler_has_every_public_method_of_the_model() -> None:
    assert public_methods(model.Scheduler) <= public_methods(impl.Scheduler)


@pytest.mark.parametrize(
    "cls",
    [model.TimingWheel, impl.HashedTimingWheel, impl.HierarchicalTimingWheel],
    ids=["model", "hashed", "hierarchical"],
)
def test_wheel_classes_have_the_contract_methods(cls: type) -> None:
    assert WHEEL_METHODS <= public_methods(cls)


@pytest.mark.parametrize("cls", [impl.HashedTimingWheel, impl.HierarchicalTimingWheel],
                         ids=["hashed", "hierarchical"])
def test_impl_wheels_have_every_public_method_of_the_model(cls: type) -> None:
    assert public_methods(model.TimingWheel) <= public_methods(cls)


def test_errors_pickle_with_their_data() -> None:
    import pickle

    errors = [
        contract.CycleError(["a", "b", "a"]),
        contract.UnknownDependencyError("t", ["x", "y"]),
        contract.UnknownTaskError("t"),
        contract.ConflictError("t", 2),
        contract.WheelFullError(3, 3),
    ]
    for exc in errors:
        back = pickle.loads(pickle.dumps(exc))
        assert type(back) is type(exc)
        assert str(back) == str(exc)
        assert vars(back) == vars(exc)
