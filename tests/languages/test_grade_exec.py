"""``schedcheck grade --exec``: an answer in JavaScript graded item by item, as for Python; its
cost items are not attempted (its steps run in another process and cannot be counted)."""

from __future__ import annotations

import pytest

from schedcheck.cli import main
from tests.languages.helpers import need, node_command


@pytest.fixture(autouse=True)
def node() -> None:
    need("node")


def test_a_correct_javascript_wheel_holds_every_graded_item(
        capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["grade", "--system", "wheel", "--exec",
                   node_command("wheel.js", "HashedWheel")])
    out = capsys.readouterr().out
    assert status == 0, out
    assert "0 failed" in out
    assert "W-M6" in out and "runs in another process" in out


@pytest.mark.parametrize(("system", "module", "cls", "item"), [
    ("wheel", "wheel.js", "RoundlessWheel", "W-M2"),
    ("scheduler", "scheduler.js", "LateCallbackScheduler", "S-M4"),
])
def test_a_javascript_mistake_fails_its_item(capsys: pytest.CaptureFixture[str], system: str,
                                             module: str, cls: str, item: str) -> None:
    status = main(["grade", "--system", system, "--exec", node_command(module, cls)])
    out = capsys.readouterr().out
    assert status == 1
    assert f"[FAIL] {item}" in out


def test_grade_exec_needs_the_system(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["grade", "--exec", node_command("wheel.js", "HashedWheel")]) == 2
    assert "needs --system" in capsys.readouterr().err
