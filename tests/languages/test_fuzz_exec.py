"""``schedcheck fuzz --exec``: a campaign (the default engine, check's search) against a
JavaScript wheel (its workers and the pytest plugin build the target from ``exec:COMMAND``)
stops at the first failure with the reduced, verified report."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.languages.helpers import need, node_command


def test_a_fuzz_campaign_finds_a_javascript_mistake(tmp_path: Path) -> None:
    need("node")
    done = subprocess.run(
        [sys.executable, "-m", "schedcheck.cli", "fuzz", "wheel", "--exec",
         node_command("wheel.js", "RoundlessWheel"), "--db",
         str(tmp_path / "db"), "--out", str(tmp_path / "out")],
        cwd=tmp_path, capture_output=True, text=True, timeout=300, check=False)
    out = done.stdout + done.stderr
    assert done.returncode == 1, out
    assert "<== first divergence" in out
    assert "verified: fails at step" in out
    reports = list((tmp_path / "out" / "report").glob("*/replay.py"))
    assert reports, out
