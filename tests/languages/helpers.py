"""Shared by the language tests: run ``schedcheck check ... --exec`` in this process, pinned."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from schedcheck.cli import main

HERE = Path(__file__).resolve().parent
SHIMS = HERE.parents[1] / "schedcheck" / "shims"

#: every run of these tests: a fixed seed, a fixed number of examples, no scaling clause
PINNED = ["--seed", "3", "--examples", "15", "--no-cost", "--profile", "ci"]


def need(tool: str) -> None:
    if shutil.which(tool) is None:
        pytest.skip(f"{tool} is not installed: the {tool} examples cannot run here")


def node_command(module: str, cls: str) -> str:
    return f"node {SHIMS / 'shim.js'} {HERE / 'js' / module} {cls}"


def run_check(system: str, command: str, out: Path, *extra: str) -> tuple[int, dict[str, Any]]:
    """``schedcheck check SYSTEM --exec COMMAND`` (pinned) -> (exit status, report.json)."""
    status = main(["check", system, "--exec", command, "--out", str(out), *PINNED, *extra])
    report = out / "report.json"
    return status, (json.loads(report.read_text()) if report.exists() else {})
