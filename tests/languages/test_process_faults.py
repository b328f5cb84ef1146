"""A child process that misbehaves is a verdict against the call, never a traceback: text on
stdout is a protocol error naming the line, an endless loop a hang, an exit a crash (with the
end of its stderr); a command that cannot serve is unusable (exit status 2)."""

from __future__ import annotations

from pathlib import Path

import pytest

from schedcheck.cli import main
from tests.languages.helpers import need, node_command, run_check


@pytest.fixture(autouse=True)
def node() -> None:
    need("node")


@pytest.mark.parametrize(("cls", "verdict", "words", "shrink"), [
    ("ChattyWheel", "raises ProtocolError[", "is not JSON", True),
    # each replay of a hang waits out the step limit: the first failing run is shown as found
    ("HangingWheel", "raises Hang[", "no reply within", False),
    ("CrashingWheel", "raises Crash[", "out of luck", True),
])
def test_a_misbehaving_child_is_a_verdict_naming_the_call(
        tmp_path: Path, cls: str, verdict: str, words: str, shrink: bool) -> None:
    status, report = run_check("wheel", node_command("misbehaving.js", cls), tmp_path,
                               "--level", "core", "--step-seconds", "1", "--first",
                               *(() if shrink else ("--no-shrink",)))
    assert status == 1
    cx = report["counterexample"]
    step = next(st for st in cx["steps"] if st["diverged"])
    assert step["code"].startswith("fired_") and ".advance(" in step["code"]
    assert step["actual"].startswith(verdict), step["actual"]
    assert words in step["actual"]
    assert cx["replay_check"].startswith("verified"), cx["replay_check"]


def test_the_child_is_restarted_after_a_fault_and_the_search_goes_on(tmp_path: Path) -> None:
    # keep going: every example after the crash needs a fresh process, and gets one
    status, report = run_check("wheel", node_command("misbehaving.js", "CrashingWheel"),
                               tmp_path, "--level", "core")
    assert status == 1
    assert report["examples"] >= 15
    held = {c["id"] for c in report["clauses"] if c["verdict"] == "held"}
    assert "W-INV-PENDING" in held


@pytest.mark.parametrize(("command", "words"), [
    ("no-such-program-here --serve", "cannot start"),
    ("node -e \"console.log('hello')\"", "handshake"),
    ("node -e \"process.exit(4)\"", "exited with status 4"),
])
def test_a_command_that_cannot_serve_is_unusable(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str, words: str) -> None:
    status = main(["check", "wheel", "--exec", command, "--out", str(tmp_path),
                   "--examples", "1", "--no-cost"])
    assert status == 2
    err = capsys.readouterr().err
    assert words in err and "Traceback" not in err


def test_target_and_exec_together_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "wheel", "schedcheck.impl:HashedTimingWheel", "--exec", "node x"]) == 2
    assert "not both" in capsys.readouterr().err
