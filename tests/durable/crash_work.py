"""The crash tests' task function, run inside worker processes (``--fn
tests.durable.crash_work:work``). The task named by ``CRASH_DOOM`` kills its own process with
SIGKILL in the middle of its first run (an ``O_EXCL`` marker file makes that happen exactly
once, whichever worker claims it); every run appends ``task pid`` to ``CRASH_DIR/effects``, the
side effect at-least-once execution may repeat."""

from __future__ import annotations

import os
import signal
from typing import Any


def work(task_id: Any) -> None:
    folder = os.environ["CRASH_DIR"]
    fd = os.open(os.path.join(folder, "effects"), os.O_WRONLY | os.O_APPEND | os.O_CREAT)
    os.write(fd, f"{task_id} {os.getpid()}\n".encode())
    os.close(fd)
    if task_id == os.environ.get("CRASH_DOOM"):
        try:
            os.close(os.open(os.path.join(folder, "doomed"), os.O_CREAT | os.O_EXCL))
        except FileExistsError:
            return
        os.kill(os.getpid(), signal.SIGKILL)  # mid-task: the claim is held, nothing reported


def hold(task_id: Any) -> None:
    """Task ``x``: say "started" through the FIFO ``CRASH_DIR/started``, then wait for a line
    on ``CRASH_DIR/go`` (the graceful-stop test signals the worker while this task runs).
    Any other task returns at once."""
    if task_id != "x":
        return
    folder = os.environ["CRASH_DIR"]
    with open(os.path.join(folder, "started"), "w") as out:
        out.write(str(task_id))
    with open(os.path.join(folder, "go")) as inp:
        inp.read()
