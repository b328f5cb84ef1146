"""A real implementation from Debian's Java packages, written by other people, checked through
a thin Java adapter (tests/corpus/java/) and the Java shim: JGraphT (libjgrapht0.8-java, which
scripts/setup installs) behind the core scheduler contract gets its verdict (a fixed seed, a
fixed number of examples), and the same adapter with one planted mistake is caught, so the
verdict is the check's and not the adapter's silence."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.languages.helpers import SHIMS, need, run_check

JAVA = Path(__file__).resolve().parent / "java"
#: where Debian's package puts the library
JGRAPHT = Path("/usr/share/java/jgrapht0.8.jar")
#: the adapter's planted mistake: complete() of a task leaves its vertex (and so its edges)
#: in the graph, so its dependants are never released -- a lost wake-up
LOST_WAKEUP = ("graph.removeVertex(taskId);  // false for a vertex already gone",
               "graph.containsVertex(taskId);  // the planted mistake: nothing is removed")


@pytest.fixture(scope="module")
def build(tmp_path_factory: pytest.TempPathFactory) -> Path:
    need("javac")
    need("java")
    if not JGRAPHT.exists():
        pytest.skip(f"JGraphT is not installed ({JGRAPHT} is missing): scripts/setup installs "
                    "Debian's libjgrapht0.8-java")
    out = tmp_path_factory.mktemp("jgrapht-build")
    source = (JAVA / "JGraphTScheduler.java").read_text(encoding="utf-8")
    assert LOST_WAKEUP[0] in source
    planted = out / "planted" / "JGraphTScheduler.java"
    planted.parent.mkdir()
    planted.write_text(source.replace(*LOST_WAKEUP), encoding="utf-8")
    for into, adapter in ((out / "real", JAVA / "JGraphTScheduler.java"),
                          (out / "planted-build", planted)):
        subprocess.run(["javac", "-cp", str(JGRAPHT), "-d", str(into), str(SHIMS / "Shim.java"),
                        str(adapter)], check=True, timeout=180)
    return out


def _check(build: Path, folder: str, out: Path) -> dict[str, str]:
    command = f"java -cp {build / folder}:{JGRAPHT} Shim JGraphTScheduler"
    status, report = run_check("scheduler", command, out, "--level", "core", "--examples", "100",
                               "--seed", "0")
    verdicts: dict[str, str] = {c["id"]: c["verdict"] for c in report["clauses"]}
    assert status == (1 if "broken" in verdicts.values() else 0), report.get("card")
    return verdicts


def test_jgrapht_behind_the_core_contract_holds(build: Path, tmp_path: Path) -> None:
    verdicts = _check(build, "real", tmp_path / "out")
    assert {verdicts[c] for c in ("S-CLAIM-ONCE", "S-CLAIM-DEPS", "S-ORACLE-CYCLE")} == {"held"}
    assert verdicts["S5"] == verdicts["S6"] == "not supported"  # no fail(), no cancel()
    assert "broken" not in verdicts.values()


def test_the_same_adapter_with_a_lost_wakeup_is_caught(build: Path, tmp_path: Path) -> None:
    verdicts = _check(build, "planted-build", tmp_path / "out")
    assert verdicts["S4"] == "broken", verdicts
