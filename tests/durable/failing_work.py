"""Task functions that misbehave, run inside the worker processes of
``test_worker_failures`` (``--fn tests.durable.failing_work:run``). Task ``exit`` calls
``sys.exit(0)``; task ``hang`` (its first run) tells the FIFO ``FAIL_DIR/pid`` its pid
and waits to be killed; task ``doom`` ends its process with ``os._exit(7)`` every time it runs;
task ``flaky`` raises on its first two runs; every other task appends its id to
``FAIL_DIR/effects``. ``with_ctx`` records the context a worker passes."""

from __future__ import annotations

import json
import os
import sys
import time
from typing import Any


def _first(marker: str) -> bool:
    """True once per ``marker`` (an ``O_EXCL`` file), whichever process asks first."""
    try:
        os.close(os.open(os.path.join(os.environ["FAIL_DIR"], marker),
                         os.O_CREAT | os.O_EXCL))
    except FileExistsError:
        return False
    return True


def _note(name: str, text: str) -> int:
    """Append a line to ``FAIL_DIR/name``; how many lines it has now."""
    path = os.path.join(os.environ["FAIL_DIR"], name)
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
    os.write(fd, f"{text}\n".encode())
    os.close(fd)
    with open(path) as inp:
        return len(inp.read().splitlines())


def run(task_id: Any) -> str:
    if task_id == "exit":
        sys.exit(0)
    if task_id == "doom":
        _note("doomed", str(os.getpid()))
        os._exit(7)
    if task_id == "hang" and _first("hung"):  # the test kills this process from outside
        with open(os.path.join(os.environ["FAIL_DIR"], "pid"), "w") as fifo:
            fifo.write(str(os.getpid()))
        while True:
            time.sleep(60)
    if task_id == "flaky" and _note("flaky", str(os.getpid())) <= 2:
        raise ConnectionError("the service said 503")
    _note("effects", str(task_id))
    return f"done {task_id}"


def with_ctx(task_id: Any, ctx: Any) -> None:
    assert ctx.renew() and not ctx.lost
    _note("ctx", json.dumps([task_id, ctx.task_id, ctx.generation, ctx.token, ctx.attempt]))


def slow(task_id: Any) -> None:
    """Run for a second, noting the start and the end on the machine's monotonic clock (one
    for every process; a worker's skewed ``time.time`` does not move it)."""
    _note("runs", f"begin {task_id} {os.getpid()} {time.monotonic()}")
    time.sleep(1.0)
    _note("runs", f"end {task_id} {os.getpid()} {time.monotonic()}")
