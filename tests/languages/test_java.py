"""Java targets through ``--exec`` and the Java shim (``schedcheck/shims/Shim.java``, compiled
with the implementation by ``javac``): a correct hashed wheel passes; one that forgets its
rounds is caught with a reduced counterexample whose replay.py fails at the printed step, and
passes when pointed at the correct wheel with ``--exec``."""

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


def test_a_correct_java_wheel_passes(tmp_path: Path, build: Path) -> None:
    status, report = run_check("wheel", java(build, "HashedWheel"), tmp_path)
    assert status == 0, report.get("card")
    held = {c["id"] for c in report["clauses"] if c["verdict"] == "held"}
    assert {"W1", "W2", "W3", "W4", "W5", "W6"} <= held


def test_a_java_wheel_that_forgets_its_rounds_is_caught_and_replayed(
        tmp_path: Path, build: Path) -> None:
    status, report = run_check("wheel", java(build, "RoundlessWheel"), tmp_path)
    assert status == 1
    cx = report["counterexample"]
    assert cx["clause"] in ("W-INV-EARLY", "W2")
    diverging = next(st["index"] for st in cx["steps"] if st["diverged"])
    assert len(cx["steps"]) <= 4
    assert cx["replay_check"] == f"verified: fails at step {diverging} as shown"
    again = subprocess.run([sys.executable, "-I", "replay.py"], cwd=tmp_path,
                           capture_output=True, text=True, timeout=120, check=False)
    assert f"AssertionError: step {diverging} " in again.stderr
    fixed = subprocess.run([sys.executable, "-I", "replay.py", "--exec",
                            java(build, "HashedWheel")], cwd=tmp_path, capture_output=True,
                           text=True, timeout=120, check=False)
    assert fixed.returncode == 0, fixed.stderr
