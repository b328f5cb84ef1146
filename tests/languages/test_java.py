"""Java targets through ``--exec`` and the Java shim (``schedcheck/shims/Shim.java``, compiled
with the implementation by ``javac``): a correct hashed wheel and scheduler pass; a wheel that
forgets its rounds and a scheduler that ignores generations are caught with a reduced
counterexample whose replay.py fails at the printed step, and passes when pointed at the
correct one with ``--exec``."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.languages.helpers import HERE, SHIMS, need, run_check


@pytest.fixture(scope="module")
def build(tmp_path_factory: pytest.TempPathFactory) -> Path:
    need("javac")
    need("java")
    out = tmp_path_factory.mktemp("java-build")
    sources = [SHIMS / "Shim.java", *sorted((HERE / "java").glob("*.java"))]
    subprocess.run(["javac", "-d", str(out), *map(str, sources)], check=True, timeout=180)
    return out


def java(build: Path, cls: str) -> str:
    return f"java -cp {build} Shim {cls}"


@pytest.mark.parametrize(("system", "cls", "clauses"), [
    ("wheel", "HashedWheel", {"W1", "W2", "W3", "W4", "W5", "W6"}),
    ("scheduler", "ListScheduler", {"S1", "S2", "S4", "S7", "S9"}),
])
def test_a_correct_java_implementation_passes(tmp_path: Path, build: Path, system: str,
                                              cls: str, clauses: set[str]) -> None:
    status, report = run_check(system, java(build, cls), tmp_path)
    assert status == 0, report.get("card")
    held = {c["id"] for c in report["clauses"] if c["verdict"] == "held"}
    assert clauses <= held


@pytest.mark.parametrize(("system", "buggy", "correct", "clauses"), [
    ("wheel", "RoundlessWheel", "HashedWheel", {"W-INV-EARLY", "W2"}),
    ("scheduler", "LateCallbackScheduler", "ListScheduler", {"S4", "S5", "S6"}),
])
def test_a_java_mistake_is_caught_and_replayed(tmp_path: Path, build: Path, system: str,
                                               buggy: str, correct: str,
                                               clauses: set[str]) -> None:
    status, report = run_check(system, java(build, buggy), tmp_path)
    assert status == 1
    cx = report["counterexample"]
    assert cx["clause"] in clauses
    diverging = next(st["index"] for st in cx["steps"] if st["diverged"])
    assert len(cx["steps"]) <= 4
    assert cx["replay_check"] == f"verified: fails at step {diverging} as shown"
    again = subprocess.run([sys.executable, "-I", "replay.py"], cwd=tmp_path,
                           capture_output=True, text=True, timeout=120, check=False)
    assert f"AssertionError: step {diverging} " in again.stderr
    fixed = subprocess.run([sys.executable, "-I", "replay.py", "--exec",
                            java(build, correct)], cwd=tmp_path, capture_output=True,
                           text=True, timeout=120, check=False)
    assert fixed.returncode == 0, fixed.stderr
