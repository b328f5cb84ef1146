"""The pytest API with ``exec=``: the suites as test classes of an implementation in another
language (here JavaScript through the Node shim)."""

from __future__ import annotations

import pytest
from hypothesis import settings

from schedcheck import wheel_suite
from tests.languages.helpers import need, node_command
from tests.processes import children

PINNED = settings(max_examples=10, derandomize=True, database=None, deadline=None)


def test_a_suite_class_of_a_javascript_wheel_passes(request: pytest.FixtureRequest) -> None:
    need("node")
    suite = wheel_suite(exec=node_command("wheel.js", "HashedWheel"), settings=PINNED)
    assert suite.machine is not None
    assert children() == []  # the probe's child is gone once the class is made
    suite().test_behaves_like_the_model(request)
    assert children() == []  # and each test's once it ends


def test_a_suite_class_of_a_javascript_mistake_fails_with_its_steps(
        request: pytest.FixtureRequest) -> None:
    need("node")
    suite = wheel_suite(exec=node_command("wheel.js", "RoundlessWheel"), settings=PINNED)
    with pytest.raises(pytest.fail.Exception) as failed:
        suite().test_behaves_like_the_model(request)
    assert "first divergence" in str(failed.value)
    assert "exec:node" in str(failed.value)
    assert children() == []


def test_a_factory_and_exec_together_are_refused() -> None:
    with pytest.raises(TypeError, match="not both"):
        wheel_suite(object, exec="node x")
