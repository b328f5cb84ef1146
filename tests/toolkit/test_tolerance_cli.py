"""`schedcheck check wheel --tolerance`: a wheel that follows the seed's pseudocode (ticks counted
from `now`, so sometimes a tick later than the contract) fails the exact check but passes the
tolerance check, which lists the timers whose due tick differs."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

TARGETS = Path(__file__).parent.parent / "harness" / "wheel_targets.py"
CLI = [sys.executable, "-m", "schedcheck.cli"]


def run_check(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*CLI, "check", *args], cwd=cwd, capture_output=True, text=True, timeout=600
    )


def test_the_seed_formula_wheel_fails_the_exact_check_and_passes_the_tolerance_check(
    tmp_path: Path,
) -> None:
    target = f"{TARGETS}:SeedWheel"
    exact = run_check("wheel", target, "--seed", "3", "--no-cost", "--no-shrink", "--first",
                      "--out", str(tmp_path / "exact"), "--json", cwd=tmp_path)
    assert exact.returncode == 1, exact.stdout[-2000:] + exact.stderr[-2000:]

    tolerant = run_check("wheel", target, "--seed", "3", "--no-cost", "--tolerance",
                         "--examples", "60",
                         "--out", str(tmp_path / "tolerant"), "--json", cwd=tmp_path)
    assert tolerant.returncode == 0, tolerant.stdout[-2000:] + tolerant.stderr[-2000:]
    report = json.loads((tmp_path / "tolerant" / "report.json").read_text())
    assert report["ok"] is True
    assert any("contract due tick" in note for note in report["notes"]), report["notes"]
    verdicts = {c["id"]: c["verdict"] for c in report["clauses"]}
    assert verdicts["W-INV-EARLY"] == "held" and verdicts["W-INV-ONCE"] == "held"
    assert verdicts["W2"] == "not reached"  # exact due ticks are not compared in tolerance


def test_tolerance_is_refused_for_the_scheduler_with_exit_2(tmp_path: Path) -> None:
    run = run_check("scheduler", "schedcheck.model:Scheduler", "--tolerance", cwd=tmp_path)
    assert run.returncode == 2
    assert "--tolerance applies to wheels only" in run.stderr + run.stdout
