"""The crash tests' task function, run inside worker processes (``--fn
tests.durable.crash_work:work``). The task named by ``CRASH_DOOM`` kills its own process with
SIGKILL in the middle of its first run (an ``O_EXCL`` marker file makes that happen exactly
once, whichever worker claims it); the task named by ``CRASH_KILL_STORE`` kills the PostgreSQL
server process of a connection it opens to ``CRASH_STORE_URL`` (once: the server then ends
every session and recovers); every run appends ``task pid`` to ``CRASH_DIR/effects``, the
side effect at-least-once execution may repeat."""

from __future__ import annotations

import contextlib
import os
import signal
from typing import Any


def work(task_id: Any) -> None:
    folder = os.environ["CRASH_DIR"]
    fd = os.open(os.path.join(folder, "effects"), os.O_WRONLY | os.O_APPEND | os.O_CREAT)
    os.write(fd, f"{task_id} {os.getpid()}\n".encode())
    os.close(fd)
    if task_id == os.environ.get("CRASH_KILL_STORE") and _first(folder, "store-killed"):
        import psycopg
        url = os.environ["CRASH_STORE_URL"]
        witness = psycopg.connect(url, autocommit=True)
        db = psycopg.connect(url, autocommit=True)
        os.kill(db.info.backend_pid, signal.SIGKILL)
        db.close()
        # the server ends every session after a crash: once it has ended the witness's, the
        # worker running this task reports on a lost connection too, however loaded the
        # machine (without the wait its report could reach its old session first)
        with contextlib.suppress(psycopg.Error):
            witness.execute("SELECT pg_sleep(60)")  # ends when the server ends the session
        witness.close()
    if task_id == os.environ.get("CRASH_DOOM") and _first(folder, "doomed"):
        os.kill(os.getpid(), signal.SIGKILL)  # mid-task: the claim is held, nothing reported


def _first(folder: str, marker: str) -> bool:
    """True once per ``marker`` (an ``O_EXCL`` file), whichever process asks first."""
    try:
        os.close(os.open(os.path.join(folder, marker), os.O_CREAT | os.O_EXCL))
    except FileExistsError:
        return False
    return True


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


def chaos(task_id: Any) -> None:
    """The chaos run's task: note the run in ``CRASH_DIR/effects`` (``task pid``), then work
    for 30 ms (a kill often lands inside a task)."""
    import time
    fd = os.open(os.path.join(os.environ["CRASH_DIR"], "effects"),
                 os.O_WRONLY | os.O_APPEND | os.O_CREAT)
    os.write(fd, f"{task_id} {os.getpid()}\n".encode())
    os.close(fd)
    time.sleep(0.03)
