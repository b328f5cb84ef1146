"""`schedcheck verify` writes the report folder: index.html (self-contained, inline SVG),
report.json, one folder per suite run and the zoo's counterexamples.

Kept small (few examples, two zoo entries, no lemmas or concurrent rounds): the full verify is
the main job, not a test; what is tested here is what it writes and its exit status.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from schedcheck.report import render

SCHEDCHECK = str(Path(sys.executable).with_name("schedcheck"))
ZOO = ("wheel-forgotten-rounds", "wheel-negative-modulo")


def test_verify_writes_a_self_contained_index_with_pictures(tmp_path: Path) -> None:
    run = subprocess.run(
        [SCHEDCHECK, "verify", "--out", "report", "--examples", "8", "--skip", "prove",
         "threads", "--no-shrink", "--zoo-only", *ZOO],
        cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    out = tmp_path / "report"
    page = (out / "index.html").read_text()
    assert "<script" not in page and "<link" not in page and "<style>" in page
    if render.dot_available():
        assert page.count("<svg") >= 2 and "<?xml" not in page
    for name in ZOO:
        assert name in page
        assert (out / "zoo" / name / "replay.py").exists()
    assert "Report cards" in page and "schedcheck.impl:HierarchicalTimingWheel" in page
    assert "skipped on request: the z3 lemmas" in page
    data = json.loads((out / "report.json").read_text())
    assert data["ok"] is True
    assert [s["target"] for s in data["suites"]] == [
        "schedcheck.impl:Scheduler", "schedcheck.impl:HashedTimingWheel",
        "schedcheck.impl:HierarchicalTimingWheel"]
    assert data["zoo"]["killed"] == 2 and data["zoo"]["total"] == 2
    assert (out / "scheduler-impl" / "card.txt").exists()
    assert "OK: report written to" in run.stdout


def test_verify_with_an_unknown_zoo_entry_is_unusable(tmp_path: Path) -> None:
    run = subprocess.run([SCHEDCHECK, "verify", "--out", "r", "--skip", "suites", "prove",
                          "--zoo-only", "no-such-mutant"],
                         cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert run.returncode == 2
    assert "no mutant named 'no-such-mutant'" in run.stderr
