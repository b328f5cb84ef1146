"""The worker command line: N processes against one store, and a graceful stop -- SIGTERM
while a task runs lets it finish and be reported, and nothing new is claimed."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

from schedcheck.impl.durable import DurableScheduler
from schedcheck.impl.durable.worker import main

ROOT = Path(__file__).resolve().parents[2]


def _env(folder: Path) -> dict[str, str]:
    return {**os.environ, "CRASH_DIR": str(folder),
            "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}


def test_sigterm_lets_the_task_in_hand_finish_and_claims_nothing_more(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path}/stop.db"
    s = DurableScheduler(url, 1, 30.0, create=True)
    for t in ("x", "y", "z"):
        s.submit(t)
    s.start()
    os.mkfifo(tmp_path / "started")
    os.mkfifo(tmp_path / "go")
    sup = subprocess.Popen([sys.executable, "-m", "schedcheck.impl.durable.worker", url,
                            "--workers", "2", "--max-concurrency", "1",
                            "--fn", "tests.durable.crash_work:hold"],
                           env=_env(tmp_path), cwd=ROOT, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE)
    with open(tmp_path / "started") as fifo:
        running = fifo.read()  # a worker is inside task `running` now
    sup.send_signal(signal.SIGTERM)
    assert sup.stderr is not None
    # the supervisor has passed the signal on (the workers have it) before the task may end:
    # else the worker in hand could finish, claim and run the next before its signal lands
    line = sup.stderr.readline().decode()
    if line.startswith("supervisor: started 2 workers"):  # the supervisor's first word
        line = sup.stderr.readline().decode()
    assert line.startswith("stopping: 2 worker(s)"), line
    with open(tmp_path / "go", "w") as fifo:
        fifo.write("go")
    out, err = sup.communicate(timeout=60)  # both pipes drained: nothing blocks on them
    assert sup.returncode == 0, err.decode()
    stats = [json.loads(line) for line in out.decode().splitlines()]
    # x finished and was reported; a claim already in flight when the signal landed (inside
    # the other worker's ready()) is finished too -- at most one -- and nothing after it
    states = {t: s.info(t).state.name for t in ("x", "y", "z")}
    assert running == "x" and states["x"] == "SUCCEEDED"
    assert sorted(states.values()).count("READY") >= 1, states
    assert sum(st["completed"] for st in stats) == 3 - list(states.values()).count("READY")


def test_the_command_line_refuses_what_it_cannot_run(capsys: object) -> None:
    assert main(["sqlite://", "--workers", "0", "--max-concurrency", "1"]) == 2
