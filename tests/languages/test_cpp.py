"""C++ wheels through ``--exec`` and the C++ shim (``schedcheck/shims/shim.hpp``, Debian's
nlohmann-json3-dev): a correct hashed wheel passes; the same file built with
``-DFORGETS_ROUNDS`` is caught with a reduced counterexample whose replay.py fails at the
printed step and passes with ``--exec`` pointing at the correct build."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.languages.helpers import HERE, SHIMS, need, run_check

HEADER = Path("/usr/include/nlohmann/json.hpp")


@pytest.fixture(scope="module")
def builds(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    need("g++")
    if not HEADER.exists():
        pytest.skip("Debian's nlohmann-json3-dev is not installed (scripts/setup installs it): "
                    "the C++ shim cannot be built here")
    out = tmp_path_factory.mktemp("cpp-build")
    made = {}
    for name, flags in (("correct", []), ("roundless", ["-DFORGETS_ROUNDS"])):
        made[name] = out / name
        subprocess.run(["g++", "-std=c++17", "-O1", *flags, "-I", str(SHIMS),
                        str(HERE / "cpp" / "hashed_wheel.cpp"), "-o", str(made[name])],
                       check=True, timeout=300)
    return made


def test_a_correct_cpp_wheel_passes(tmp_path: Path, builds: dict[str, Path]) -> None:
    status, report = run_check("wheel", str(builds["correct"]), tmp_path)
    assert status == 0, report.get("card")
    held = {c["id"] for c in report["clauses"] if c["verdict"] == "held"}
    assert {"W1", "W2", "W3", "W4", "W5", "W6"} <= held


def test_a_cpp_wheel_that_forgets_its_rounds_is_caught_and_replayed(
        tmp_path: Path, builds: dict[str, Path]) -> None:
    status, report = run_check("wheel", str(builds["roundless"]), tmp_path)
    assert status == 1
    cx = report["counterexample"]
    diverging = next(st["index"] for st in cx["steps"] if st["diverged"])
    assert cx["replay_check"] == f"verified: fails at step {diverging} as shown"
    fixed = subprocess.run([sys.executable, "-I", "replay.py", "--exec", str(builds["correct"])],
                           cwd=tmp_path, capture_output=True, text=True, timeout=120,
                           check=False)
    assert fixed.returncode == 0, fixed.stderr
