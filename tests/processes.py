"""What this test process has running, read from Linux's /proc: a check must leave no child
process and no thread of the target behind."""

from __future__ import annotations

import os
from pathlib import Path


def children() -> list[str]:
    """The ids of this process's child processes (from /proc, every thread's list)."""
    pids: list[str] = []
    for task in os.listdir(f"/proc/{os.getpid()}/task"):
        try:
            pids += Path(f"/proc/{os.getpid()}/task/{task}/children").read_text().split()
        except OSError:
            continue
    return pids


def threads() -> int:
    """The number of this process's threads."""
    return len(os.listdir(f"/proc/{os.getpid()}/task"))
