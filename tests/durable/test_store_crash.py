"""The store process killed (PostgreSQL; the server gets SIGKILL, as ``kill -9`` does):

* between the statements of a transaction -- the server process serving a claim is killed
  just before one of the claim's statements, counted from the claim's start, some of them after
  the claim already reclaimed an expired lease; the server recovers from its WAL (the cluster is
  stopped at once and started again) and the store is as if the call had never been made;
* while worker processes run -- a task kills the server under them; every session ends
  wherever it was, the workers connect again once the server has recovered and finish the
  work, and the history checker judges the recorded claims and reports.

SQLite has no store process: the process holding the write transaction is the one killed
(``test_crash.py``: a worker killed before one of its statements, and a claim killed before its
first, a middle or its last statement)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import psycopg
import pytest
from schedcheck.impl.durable import DurableScheduler
from schedcheck.impl.durable._store import PostgresStore

from schedcheck.contract import Outcome, TaskState
from schedcheck.harness.leases.history import check_history, read_history
from schedcheck.harness.leases.suite import ManualClock
from schedcheck.pg_temp import TempCluster
from tests.durable.test_crash import GRAPH, ROOT

LEASE = 10.0


def _fresh(server: str, schema: str) -> str:
    store = PostgresStore(server, schema=schema)
    store.reset()
    store.close()
    return f"{server}?schema={schema}"


def _expired_claim(url: str, clock: ManualClock) -> tuple[DurableScheduler, int]:
    """A store where ``a`` was claimed (its token returned) and its lease has expired: the next
    claim reclaims it (new generation, READY) and claims it again."""
    s = DurableScheduler(url, 1, LEASE, clock=clock, create=True)
    s.submit("a")
    s.submit("b", ["a"])
    s.start()
    (claim,) = s.ready()
    clock.now = LEASE + 1.0
    return s, claim.token


def _statements_of_a_reclaiming_claim(url: str) -> int:
    twin, _ = _expired_claim(url, ManualClock())
    before = twin.store.statements
    assert [c.generation for c in twin.ready()] == [2]  # the reclaim, then the claim
    twin.disconnect()
    return twin.store.statements - before


@pytest.mark.parametrize("which", ["first", "middle", "last"])
def test_a_store_killed_inside_a_transaction_leaves_no_trace(pg_crashable: TempCluster,
                                                             which: str) -> None:
    """Statement 1 of the claim is the one-round-trip claim (its own transaction; it answers
    "take the ordinary path": a lease expired); from statement 2 on the ordinary transaction
    runs under the exclusive lock: the flags, the expired leases, the reclaim's writes, the
    free slots, the READY tasks, the tokens. The server is killed before statement 2 (inside
    the transaction, nothing written), a middle one, or the last (the reclaim written)."""
    total = _statements_of_a_reclaiming_claim(_fresh(pg_crashable.url, "killtwin"))
    assert total >= 5, total
    at = {"first": 2, "middle": (2 + total) // 2, "last": total}[which]
    url = _fresh(pg_crashable.url, "killed")
    clock = ManualClock()
    s, token = _expired_claim(url, clock)
    assert isinstance(s.store, PostgresStore)
    s.store.kill_server_after = s.store.statements + at
    with pytest.raises(psycopg.OperationalError):
        s.ready()
    assert s.store.kill_server_after is None  # the kill happened, before statement `at`
    pg_crashable.restart()  # no shutdown checkpoint: the server recovers from its WAL
    again = DurableScheduler(url, 1, LEASE, clock=clock)
    again.check_invariants()
    a = again.info("a")
    assert (a.generation, a.state, a.attempts, a.token) == (1, TaskState.RUNNING, 1, token)
    (new,) = again.ready()  # now the reclaim and the claim happen, once
    assert new.generation == 2 and new.token > token and again.info("a").attempts == 2
    assert again.complete("a", 1, token=token).outcome is Outcome.STALE
    assert again.complete("a", 2, token=new.token).outcome is Outcome.APPLIED
    assert again.state_of("b") is TaskState.READY
    again.check_invariants()
    again.disconnect()


def test_workers_outlive_their_killed_store(pg_crashable: TempCluster, tmp_path: Path) -> None:
    """Three worker processes; task t5 kills the server's process serving a connection of its
    own with SIGKILL, the server then ends every session wherever it was (claims, reports,
    renewals in flight) and recovers. The workers lose their connections, connect again and
    go on; the history of claims and reports is then judged as in test_crash.py."""
    url = _fresh(pg_crashable.url, "storekill")
    s = DurableScheduler(url, 2, 1.0)
    for task, deps in GRAPH.items():
        s.submit(task, deps)
    s.start()
    s.disconnect()
    env = {**os.environ, "CRASH_DIR": str(tmp_path), "CRASH_KILL_STORE": "t5",
           "CRASH_STORE_URL": pg_crashable.url,
           "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    procs = [subprocess.Popen([sys.executable, "-m", "schedcheck.impl.durable.worker", url,
                               "--max-concurrency", "2", "--lease", "1.0", "--poll", "0.02",
                               "--fn", "tests.durable.crash_work:work", "--exit-when-idle",
                               "--history", str(tmp_path / f"h{i}.jsonl")],
                              env=env, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
             for i in range(3)]
    outs = [p.communicate(timeout=120) for p in procs]
    codes = [p.returncode for p in procs]
    assert codes == [0, 0, 0], (codes, [err.decode()[-800:] for _, err in outs])
    assert (tmp_path / "store-killed").exists()
    stats = {p.pid: json.loads(out.decode().splitlines()[-1]) for p, (out, _) in zip(procs, outs)}
    errors = {p.pid: err.decode() for p, (_, err) in zip(procs, outs)}
    runs = (tmp_path / "effects").read_text().split()
    killer = int(runs[runs.index("t5") + 1])
    # the worker that ran t5 held its claim across the crash: its report found the connection
    # gone, and it connected again (a worker started after the crash may have lost nothing)
    assert stats[killer]["reconnects"] >= 1, stats
    assert "connection to the store was lost" in errors[killer], errors[killer][-800:]
    after = DurableScheduler(url, 2, 1.0)
    after.check_invariants()
    final = {t: after.info(t).state.name for t in GRAPH}
    after.disconnect()
    events = read_history(sorted(str(p) for p in tmp_path.glob("h*.jsonl")))
    violations = check_history(events, final)
    assert violations == [], "\n".join(map(str, violations))
