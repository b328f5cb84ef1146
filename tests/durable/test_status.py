"""The status command: a store's progress and every task's state, attempts, lease, retry,
error and result, read by another process."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from schedcheck.impl.durable import DurableScheduler

ROOT = Path(__file__).resolve().parents[2]


def _status(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "schedcheck.impl.durable", "status", *args],
                          cwd=ROOT, capture_output=True, text=True, timeout=60, check=False)


def _store(path: Path) -> str:
    url = f"sqlite:///{path}"
    s = DurableScheduler(url, 3, 30.0, create=True, retry_backoff=600.0)
    for t, deps in {"ok": [], "bad": [], "later": ["bad"], "flaky": [], "busy": []}.items():
        s.submit(t, deps)
    s.start()
    claims = {c.task_id: c for c in s.ready()}
    s.complete("ok", claims["ok"].generation, token=claims["ok"].token, result={"rows": 3})
    s.fail("bad", claims["bad"].generation, "ValueError: no such row",
           token=claims["bad"].token)
    c = claims["flaky"]
    s.fail("flaky", c.generation, "ConnectionError: 503", token=c.token, retry=True)
    (busy,) = s.ready()
    assert busy.task_id == "busy"  # held: RUNNING with a lease
    s.disconnect()
    return url


def test_status_lists_progress_states_attempts_leases_errors_and_results(
        tmp_path: Path) -> None:
    url = _store(tmp_path / "tasks.db")
    out = _status(url)
    assert out.returncode == 0, out.stderr
    text = out.stdout
    assert "progress: 1 of 5 tasks SUCCEEDED (20%), 1 RUNNING, 1 READY, 1 FAILED, 1 BLOCKED" \
        in text, text
    lines = {ln.split()[0]: ln for ln in text.splitlines()[3:]}
    assert "error: ValueError: no such row" in lines["'bad'"]
    assert "result: {\"rows\": 3}" in lines["'ok'"]
    assert "failed: 'bad' generation 1" in lines["'later'"]
    assert "token" in lines["'busy'"] and "lease ends in" in lines["'busy'"]
    flaky_line = lines["'flaky'"]
    assert "retry in" in flaky_line and "last error: ConnectionError: 503" in flaky_line
    snap = json.loads(_status(url, "--json").stdout)
    flaky = next(t for t in snap["tasks"] if t["id"] == "flaky")
    assert (flaky["state"], flaky["generation"], flaky["attempts"]) == ("READY", 2, 1)
    assert 300.0 <= flaky["retry_in"] <= 600.0  # the first wait: half fixed, half jitter
    assert snap["done"] == 1 and snap["total"] == 5 and snap["max_concurrency"] == 3


def test_status_of_a_missing_store_says_so_and_exits_3(tmp_path: Path) -> None:
    out = _status(f"sqlite:///{tmp_path}/typo.db")
    assert out.returncode == 3 and "no SQLite store at" in out.stderr
    assert "Traceback" not in out.stderr and not (tmp_path / "typo.db").exists()


def test_status_of_a_file_no_scheduler_was_opened_on_says_so(tmp_path: Path) -> None:
    (tmp_path / "empty.db").touch()
    out = _status(f"sqlite:///{tmp_path}/empty.db")
    assert out.returncode == 3 and "holds no scheduler yet" in out.stderr, out.stderr
