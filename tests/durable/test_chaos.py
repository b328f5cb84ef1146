"""The chaos run (nightly): worker processes on one store under load, SIGKILLed at random
moments (a seeded RNG picks which and when), and on PostgreSQL the whole server killed with
SIGKILL too (then started again: it recovers from its WAL). Killed workers are replaced.
Then the store and the workers' recorded histories are judged: nothing lost (every task
SUCCEEDED, H1/H2), never two live claims of a task (H3), no fenced report applied (H4), and
at most one duplicate execution per killed worker (each held one claim at a time).

    .venv/bin/pytest -p no:cacheprovider -q -m nightly tests/durable/test_chaos.py -s

prints the figures (tasks, kills, duplicate executions, lost)."""

from __future__ import annotations

import contextlib
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from schedcheck.impl.durable import DurableScheduler
from schedcheck.impl.durable._store import PostgresStore

from schedcheck.harness.leases.history import check_history, read_history
from schedcheck.pg_temp import TempCluster

ROOT = Path(__file__).resolve().parents[2]
TASKS = 150
WORKERS = 4
WORKER_KILLS = 10
SERVER_KILLS = 2


def _graph(rng: random.Random) -> dict[str, list[str]]:
    """A random DAG: each task depends on up to two earlier ones; submitted shuffled."""
    ids = [f"c{i:03}" for i in range(TASKS)]
    graph = {t: sorted(set(rng.sample(ids[:i], min(i, rng.randint(0, 2))))) for i, t in
             enumerate(ids)}
    order = list(ids)
    rng.shuffle(order)
    return {t: graph[t] for t in order}


def _server_pids(cluster: TempCluster) -> list[int]:
    """The postmaster and every process it started."""
    assert cluster.dir is not None
    with open(os.path.join(cluster.dir, "data", "postmaster.pid")) as fh:
        master = int(fh.readline())
    kids = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as fh:
                    ppid = int(fh.read().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            if ppid == master:
                kids.append(int(entry))
    return [master, *kids]


def _chaos(url: str, folder: Path, seed: int, cluster: TempCluster | None) -> dict[str, int]:
    rng = random.Random(seed)
    graph = _graph(rng)
    s = DurableScheduler(url, 3, 1.0, create=True, max_attempts=50)
    for task, deps in graph.items():
        s.submit(task, deps)
    s.start()
    s.disconnect()
    env = {**os.environ, "CRASH_DIR": str(folder),
           "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    serial = iter(range(10_000))

    def start() -> subprocess.Popen[bytes]:
        return subprocess.Popen(
            [sys.executable, "-m", "schedcheck.impl.durable.worker", url,
             "--max-concurrency", "3", "--lease", "1.0", "--poll", "0.02", "--max-attempts",
             "50", "--retry-backoff", "0", "--fn", "tests.durable.crash_work:chaos",
             "--exit-when-idle", "--history", str(folder / f"h{next(serial)}.jsonl")],
            env=env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    procs = [start() for _ in range(WORKERS)]
    kills = {"worker": 0, "server": 0}
    plan = ["worker"] * WORKER_KILLS + (["server"] * SERVER_KILLS if cluster else [])
    rng.shuffle(plan)
    for what in plan:
        time.sleep(rng.uniform(0.1, 0.5))  # load runs meanwhile: the kill lands anywhere
        if what == "worker":
            live = [p for p in procs if p.poll() is None]
            if not live:
                break
            victim = rng.choice(live)
            victim.send_signal(signal.SIGKILL)
            victim.wait()
            procs.remove(victim)
            procs.append(start())
        else:
            assert cluster is not None
            for pid in _server_pids(cluster):
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
            cluster.restart()  # recovers from its WAL; the workers connect again
        kills[what] += 1
    for p in procs:
        p.wait(timeout=180)
    after = DurableScheduler(url, 3, 1.0, max_attempts=50)
    after.check_invariants()
    final = {t: after.info(t).state.name for t in graph}
    after.disconnect()
    events = read_history(sorted(str(p) for p in folder.glob("h*.jsonl")))
    violations = check_history(events, final)
    assert violations == [], "\n".join(map(str, violations[:10]))
    runs = (folder / "effects").read_text().split()[::2]
    lost = sum(1 for st in final.values() if st != "SUCCEEDED")
    figures = {"tasks": TASKS, "worker_kills": kills["worker"], "server_kills": kills["server"],
               "runs": len(runs), "duplicates": len(runs) - len(set(runs)), "lost": lost}
    print(f"\nchaos {url.split(':')[0]} seed {seed}: {figures}")
    return figures


@pytest.mark.nightly
@pytest.mark.parametrize("seed", [0, 1])
def test_chaos_on_sqlite(tmp_path: Path, seed: int) -> None:
    got = _chaos(f"sqlite:///{tmp_path}/chaos.db", tmp_path, seed, None)
    assert got["lost"] == 0 and got["duplicates"] <= got["worker_kills"], got


@pytest.mark.nightly
@pytest.mark.parametrize("seed", [0, 1])
def test_chaos_on_postgresql(tmp_path: Path, seed: int, pg_crashable: TempCluster) -> None:
    store = PostgresStore(pg_crashable.url, schema=f"chaos{seed}")
    store.reset()
    store.close()
    got = _chaos(f"{pg_crashable.url}?schema=chaos{seed}", tmp_path, seed, pg_crashable)
    assert got["lost"] == 0, got
    # a worker killed, or cut off by the server's death, runs its claim again at most once
    assert got["duplicates"] <= got["worker_kills"] + WORKERS * got["server_kills"], got
