"""JavaScript targets through ``--exec`` and the Node shim (``schedcheck/shims/shim.js``): a
correct scheduler and wheel pass; a scheduler that ignores generations and a wheel that forgets
its rounds are caught with a reduced counterexample whose replay.py fails at the printed step,
and the same replay passes when pointed at the correct implementation with ``--exec``."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.languages.helpers import need, node_command, run_check

pytestmark = pytest.mark.usefixtures("node")


@pytest.fixture
def node() -> None:
    need("node")


def _replay(folder: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-I", "replay.py", *extra], cwd=folder,
                          capture_output=True, text=True, timeout=120, check=False)


def test_a_correct_javascript_wheel_passes(tmp_path: Path) -> None:
    status, report = run_check("wheel", node_command("wheel.js", "HashedWheel"), tmp_path)
    assert status == 0, report.get("card")
    assert report["steps"] > 500
    held = {c["id"] for c in report["clauses"] if c["verdict"] == "held"}
    assert {"W1", "W2", "W3", "W4", "W-INV-EARLY"} <= held


def test_a_correct_javascript_scheduler_passes(tmp_path: Path) -> None:
    status, report = run_check("scheduler", node_command("scheduler.js", "Scheduler"), tmp_path)
    assert status == 0, report.get("card")
    held = {c["id"] for c in report["clauses"] if c["verdict"] == "held"}
    assert {"S1", "S4", "S7", "S9"} <= held


@pytest.mark.parametrize(("system", "module", "buggy", "correct", "clauses"), [
    ("wheel", "wheel.js", "RoundlessWheel", "HashedWheel", {"W-INV-EARLY", "W2"}),
    ("scheduler", "scheduler.js", "LateCallbackScheduler", "Scheduler", {"S4", "S5", "S6"}),
])
def test_a_javascript_mistake_is_caught_and_its_replay_fails_at_the_printed_step(
        tmp_path: Path, system: str, module: str, buggy: str, correct: str,
        clauses: set[str]) -> None:
    status, report = run_check(system, node_command(module, buggy), tmp_path)
    assert status == 1
    cx = report["counterexample"]
    assert cx["clause"] in clauses
    diverging = next(st["index"] for st in cx["steps"] if st["diverged"])
    assert len(cx["steps"]) <= 4  # reduced to the steps it needs
    assert cx["replay_check"] == f"verified: fails at step {diverging} as shown"
    again = _replay(tmp_path)
    assert again.returncode == 1
    assert f"AssertionError: step {diverging} " in again.stderr
    fixed = _replay(tmp_path, "--exec", node_command(module, correct))
    assert fixed.returncode == 0, fixed.stderr
    assert "did not reproduce" in fixed.stdout
