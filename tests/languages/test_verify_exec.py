"""``schedcheck verify --exec SYSTEM COMMAND``: implementations in other languages join the main
job's report beside the bundled ones, each in a folder of its own with check's files; a
command that cannot serve is refused before anything runs (exit 2, nothing written)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from schedcheck.cli import main
from tests.languages.helpers import need, node_command

#: the suites only (the zoo, lemmas and thread rounds have tests of their own), pinned
PINNED = ["--skip", "threads", "prove", "zoo", "--examples", "15", "--seed", "3"]


@pytest.fixture(autouse=True)
def node() -> None:
    need("node")


def test_a_correct_and_a_broken_javascript_target_are_reported_beside_the_bundled(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "report"
    wheel = node_command("wheel.js", "HashedWheel")
    late = node_command("scheduler.js", "LateCallbackScheduler")
    status = main(["verify", *PINNED, "--out", str(out), "--exec", "wheel", wheel,
                   "--exec", "scheduler", late])
    shown = capsys.readouterr().out
    assert status == 1, shown  # the broken scheduler fails the job
    report = json.loads((out / "report.json").read_text())
    by_target = {s["target"]: s for s in report["suites"]}
    assert by_target["schedcheck.impl:Scheduler"]["ok"]
    correct = next(s for t, s in by_target.items() if "HashedWheel" in t)
    broken = next(s for t, s in by_target.items() if "LateCallbackScheduler" in t)
    assert correct["ok"] and correct["system"] == "wheel" and correct["steps"] > 100
    assert not broken["ok"]
    cx = broken["counterexample"]
    assert cx["clause"] in {"S4", "S5", "S6"}
    assert cx["replay_check"].startswith("verified: fails at step")
    assert (out / "wheel-exec" / "report.json").exists()
    assert any((out / "scheduler-exec").rglob("replay.py"))
    assert "LateCallbackScheduler" in (out / "index.html").read_text()
    assert "COUNTEREXAMPLE FOUND" in shown


def test_a_command_that_cannot_serve_is_refused_before_anything_runs(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "report"
    status = main(["verify", *PINNED, "--out", str(out), "--exec", "wheel",
                   f"node {tmp_path / 'missing.js'}"])
    err = capsys.readouterr().err
    assert status == 2
    assert "is unusable" in err and "handshake" in err
    assert not out.exists()
    assert main(["verify", *PINNED, "--out", str(out), "--exec", "clock", "node x"]) == 2
    assert "the system is one of scheduler, wheel" in capsys.readouterr().err
