"""Every public import the manual, the specs and the notebooks promise still works after the
reorganisation by system: the re-exports of ``schedcheck``, ``schedcheck.impl``,
``schedcheck.model``, ``schedcheck.adapters`` and ``schedcheck.contract``, the command's entry
point, the pytest plugin, and the target strings ``schedcheck check`` is given."""

from __future__ import annotations

import importlib
import importlib.metadata
import importlib.util
import inspect

import pytest

from schedcheck.targets import load_target

#: (module, name) pairs a user imports, as the manual, the specs and the notebooks write them
PUBLIC = [
    ("schedcheck", "scheduler_suite"),
    ("schedcheck", "wheel_suite"),
    ("schedcheck.impl", "Scheduler"),
    ("schedcheck.impl", "HashedTimingWheel"),
    ("schedcheck.impl", "HierarchicalTimingWheel"),
    ("schedcheck.impl", "WheelTimer"),
    ("schedcheck.impl", "run"),
    ("schedcheck.impl", "Runner"),
    ("schedcheck.model", "Scheduler"),
    ("schedcheck.model", "TimingWheel"),
    ("schedcheck.model", "Handle"),
    ("schedcheck.model.leases", "LeasedScheduler"),
    ("schedcheck.adapters", "SchedulerAdapter"),
    ("schedcheck.adapters", "WheelAdapter"),
    ("schedcheck.adapters", "SchedulerCapabilities"),
    ("schedcheck.adapters", "WheelCapabilities"),
    ("schedcheck.adapters", "capabilities_of"),
    ("schedcheck.impl.durable", "DurableScheduler"),
    ("schedcheck.impl.scheduler.disk", "DiskScheduler"),
    ("schedcheck.impl.scheduler.observability", "ObservedScheduler"),
    ("schedcheck.impl.wheel.driver", "BoundedExecutor"),
    ("schedcheck.impl.wheel.driver", "FakeClock"),
    ("schedcheck.impl.wheel.queued_driver", "QueuedWheel"),
    ("schedcheck.concurrency", "run_exhaustive"),
    ("schedcheck.concurrency", "run_stress"),
    ("schedcheck.practice.seed_answers", "SeedScheduler"),
    ("schedcheck.practice.seed_answers", "SeedWheel"),
    ("schedcheck.practice.seed_map", "load_seed_map"),
    ("schedcheck.practice.workbook", "check"),
    ("schedcheck.zoo.catalogue", "get"),
    ("schedcheck.specs.prove", "run_all"),
    ("schedcheck.targets", "load_target"),
    ("schedcheck.cli", "main"),
]

#: the modules a user runs with ``python -m``
RUNNABLE_MODULES = ["schedcheck.impl.durable.worker", "schedcheck.specs.prove",
                    "schedcheck.practice.notebooks"]


@pytest.mark.parametrize(("module", "name"), PUBLIC, ids=[f"{m}.{n}" for m, n in PUBLIC])
def test_the_public_name_imports(module: str, name: str) -> None:
    value = getattr(importlib.import_module(module), name)
    assert value is not None


def test_every_contract_name_imports_from_the_contract_model_and_impl_as_one_object() -> None:
    contract = importlib.import_module("schedcheck.contract")
    model = importlib.import_module("schedcheck.model")
    impl = importlib.import_module("schedcheck.impl")
    assert contract.__all__, "schedcheck.contract names its public vocabulary"
    for name in contract.__all__:
        ours = getattr(contract, name)
        for home in (model, impl):
            if name in home.__all__:
                assert getattr(home, name) is ours, f"{home.__name__}.{name}"
    for name in ("TaskState", "Outcome", "Claim", "CycleError", "WheelFullError"):
        assert getattr(impl, name) is getattr(contract, name)


def test_schedcheck_adapters_is_the_targets_adapters_under_its_public_name() -> None:
    public = importlib.import_module("schedcheck.adapters")
    home = importlib.import_module("schedcheck.targets.adapters")
    assert set(public.__all__) == set(home.__all__)
    for name in public.__all__:
        assert getattr(public, name) is getattr(home, name), name


@pytest.mark.parametrize("module", RUNNABLE_MODULES)
def test_the_module_a_user_runs_with_python_m_is_importable(module: str) -> None:
    assert importlib.util.find_spec(module) is not None, module


def test_the_command_and_the_pytest_plugin_are_installed_entry_points() -> None:
    eps = importlib.metadata.entry_points()
    command = {ep.name: ep.value for ep in eps.select(group="console_scripts")}
    assert command.get("schedcheck") == "schedcheck.cli:main"
    plugins = {ep.name: ep for ep in eps.select(group="pytest11")}
    assert plugins["schedcheck"].value == "schedcheck.pytest_plugin"
    plugin = plugins["schedcheck"].load()
    assert callable(plugin.pytest_addoption)
    main = eps.select(group="console_scripts")["schedcheck"].load()
    assert main is importlib.import_module("schedcheck.cli").main


@pytest.mark.parametrize(("spec", "expected"), [
    ("schedcheck.impl:Scheduler", "Scheduler"),
    ("schedcheck.impl:HashedTimingWheel", "HashedTimingWheel"),
    ("schedcheck.impl:HierarchicalTimingWheel", "HierarchicalTimingWheel"),
    ("schedcheck.model:Scheduler", "Scheduler"),
    ("schedcheck.model:TimingWheel", "TimingWheel"),
])
def test_a_module_target_string_loads_the_public_class(spec: str, expected: str) -> None:
    module, attr = spec.split(":")
    target = load_target(spec)
    assert target.factory is getattr(importlib.import_module(module), attr)
    assert inspect.isclass(target.factory) and target.factory.__name__ == expected


def test_the_suites_build_test_classes_for_the_bundled_implementations() -> None:
    from schedcheck.impl import HashedTimingWheel, Scheduler

    from schedcheck import scheduler_suite, wheel_suite

    for suite, cls in ((scheduler_suite, Scheduler), (wheel_suite, HashedTimingWheel)):
        test_class = suite(cls)
        assert inspect.isclass(test_class)
        assert callable(test_class.test_behaves_like_the_model)
