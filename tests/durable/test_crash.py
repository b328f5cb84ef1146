"""Crash tests with real processes: worker processes share one store; one is killed with
SIGKILL in the middle of a task, another just before one of its SQL statements (inside a
transaction). The survivors must reclaim the dead worker's lease and finish everything. The
history checker (schedcheck.harness.leases.history) then judges the recorded claims, renewals
and reports with the store's final states: every task ran at least once, never two live claims
of one task at once, no completion by a fenced worker, nothing lost."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from schedcheck.impl.durable import DurableScheduler

from schedcheck.harness.leases.history import check_history, read_history

ROOT = Path(__file__).resolve().parents[2]
LEASE = 1.0  # seconds: the survivors wait this long for the dead worker's claim
GRAPH = {"t0": [], "t1": [], "t2": [], "t3": [], "t4": ["t0"], "t5": ["t0", "t1"],
         "t6": ["t3"], "t7": ["t5", "t6"], "t8": [], "t9": ["t7"]}


def _crash_run(url: str, folder: Path) -> None:
    s = DurableScheduler(url, 2, LEASE, create=True)
    for task, deps in GRAPH.items():
        s.submit(task, deps)
    s.start()
    s.disconnect()
    env = {**os.environ, "CRASH_DIR": str(folder), "CRASH_DOOM": "t3",
           "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    base = [sys.executable, "-m", "schedcheck.impl.durable.worker", url,
            "--max-concurrency", "2", "--lease", str(LEASE), "--poll", "0.02",
            "--fn", "tests.durable.crash_work:work", "--exit-when-idle"]
    extra = [[], [], ["--crash-after-statements", "30"]]
    procs = [subprocess.Popen([*base, "--history", str(folder / f"h{i}.jsonl"), *more],
                              env=env, cwd=ROOT, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE) for i, more in enumerate(extra)]
    codes = [p.wait(timeout=120) for p in procs]
    errors = [p.stderr.read().decode()[-500:] for p in procs if p.stderr]
    # both crashes happened: the doomed task killed whoever ran it, the third died mid-SQL
    assert (folder / "doomed").exists()
    assert codes.count(-signal.SIGKILL) == 2 or (
        codes[2] == -signal.SIGKILL and codes.count(-signal.SIGKILL) == 1), (codes, errors)
    assert codes.count(0) >= 1, (codes, errors)
    after = DurableScheduler(url, 2, LEASE)
    after.check_invariants()
    final = {t: after.info(t).state.name for t in GRAPH}
    assert after.info("t3").attempts >= 2  # the doomed claim expired and was reclaimed
    after.disconnect()
    events = read_history(sorted(str(p) for p in folder.glob("h*.jsonl")))
    violations = check_history(events, final)
    assert violations == [], "\n".join(map(str, violations))
    runs = (folder / "effects").read_text().split()
    assert runs[::2].count("t3") >= 2  # at least once: the killed run and the one that finished


def test_killed_workers_lose_nothing_on_a_sqlite_file(tmp_path: Path) -> None:
    _crash_run(f"sqlite:///{tmp_path}/crash.db", tmp_path)


def test_killed_workers_lose_nothing_on_postgresql(pg_url: str, tmp_path: Path) -> None:
    _crash_run(f"{pg_url}?schema=crash", tmp_path)


def _statements_of_one_claim() -> int:
    twin = DurableScheduler("sqlite://", 1, LEASE)
    twin.submit("a")
    twin.start()
    before = twin.store.statements
    assert len(twin.ready()) == 1
    return twin.store.statements - before


@pytest.mark.parametrize("which", ["first", "middle", "last"])
def test_a_process_killed_inside_a_transaction_leaves_no_trace(tmp_path: Path,
                                                               which: str) -> None:
    """SIGKILL just before the first, a middle or the last statement of a claim (inside
    BEGIN IMMEDIATE; the last is the RUNNING write, after the token counter moved): the store
    is as if the call never happened, and the next process claims normally."""
    total = _statements_of_one_claim()
    after = {"first": 1, "middle": total // 2, "last": total}[which]
    url = f"sqlite:///{tmp_path}/tx.db"
    s = DurableScheduler(url, 1, LEASE, create=True)
    s.submit("a")
    s.start()
    s.disconnect()
    code = (f"from schedcheck.impl.durable import DurableScheduler as D\n"
            f"s = D({url!r}, 1, {LEASE})\n"
            f"s.store.crash_after = s.store.statements + {after}\n"
            f"s.ready()\n")
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          timeout=60, check=False)
    assert proc.returncode == -signal.SIGKILL, proc.stderr.decode()[-500:]
    again = DurableScheduler(url, 1, LEASE)
    again.check_invariants()
    assert again.info("a").state.name == "READY" and again.info("a").attempts == 0
    assert [(c.task_id, c.generation, c.token) for c in again.ready()] == [("a", 1, 1)]
