"""Every written ``replay.py`` is run before it is shown: does it fail where the card says?

:func:`check_replay` runs a script the way its reader will -- ``python3 -I replay.py`` from
the folder it was written to (the system ``python3``, not schedcheck's virtual environment;
``-I`` so that neither the current folder nor ``PYTHONPATH`` helps it) -- under a time limit
of its own, and reads how it ended:

* an ``AssertionError`` whose message starts ``step N`` at the counterexample's diverging
  step: **verified** ("fails at step N as shown");
* the same at another step, exit 0 ("did not reproduce"), another exception (a script that
  cannot run), or no end within the limit: **not verified**, and the text says which.

The writer (``schedcheck.report.writer``) stores the text on the counterexample
(``Counterexample.replay_check``): the card, ``steps.txt``, ``report.json`` and the HTML
page show it, and a reduced replay that does not verify gets the unreduced program written
beside it.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

__all__ = ["ReplayCheck", "check_replay", "replay_python"]

_FAILED_AT = re.compile(r"^AssertionError: step (-?\d+) ", re.MULTILINE)
#: Seconds a replay may take beyond its steps' own limits (start-up, imports).
SLACK_SECONDS = 30.0


@dataclass(frozen=True)
class ReplayCheck:
    verified: bool
    failed_at: int | None  #: the step the script failed at, if it failed with a step
    text: str  #: what the card prints after "replay "

    def __str__(self) -> str:
        return self.text


def replay_python() -> str:
    """The interpreter a reader runs the replay with: the system ``python3`` (this one if
    there is none on the PATH)."""
    return shutil.which("python3") or sys.executable


def check_replay(script: Path, diverging: int | None, *, step_seconds: float,
                 steps: int) -> ReplayCheck:
    """Run ``script`` (``python3 -I``, from its folder) and compare where it failed with
    ``diverging`` (the step the card shows)."""
    limit = step_seconds * 2 + SLACK_SECONDS + 0.01 * steps
    try:
        done = subprocess.run([replay_python(), "-I", script.name], cwd=script.parent,
                              capture_output=True, text=True, timeout=limit,
                              stdin=subprocess.DEVNULL, check=False)
    except subprocess.TimeoutExpired:
        return ReplayCheck(False, None, f"NOT verified: it did not end within {limit:g} s")
    found = _FAILED_AT.findall(done.stderr)
    if done.returncode == 0:
        return ReplayCheck(False, None, "NOT verified: it ran to the end without failing "
                           "(the failure did not reproduce)")
    if not found:
        last = done.stderr.strip().splitlines()[-1:] or [f"exit status {done.returncode}"]
        return ReplayCheck(False, None, f"NOT verified: it stopped with {last[0][:200]}")
    at = int(found[-1])
    if diverging is not None and at != diverging:
        return ReplayCheck(False, at, f"NOT verified: it fails at step {at}, not at step "
                           f"{diverging} as shown")
    return ReplayCheck(True, at, f"verified: fails at step {at} as shown")
