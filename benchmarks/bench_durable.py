"""The durable scheduler's claim throughput with many worker processes, one run, ratios against
a baseline measured in the same run.

Workload: N independent tasks (2,000; ``--quick``: 400) in one store; W worker processes (1, 4,
16), each a loop of ``claim (batch tasks) -> complete each`` until the store is empty. Claims
per second are counted from the moment every worker is connected (a barrier) to the last
completion. GC stays on. Columns:

* ``sqlite NORMAL`` / ``sqlite FULL`` -- DurableScheduler on one SQLite file (WAL,
  ``synchronous`` NORMAL or FULL), ``BEGIN IMMEDIATE`` per call. FULL flushes the disk at
  every commit: its runs take a tenth of the tasks (a rate, not a total);
* ``postgresql`` -- DurableScheduler on a throwaway local PostgreSQL cluster, every changing
  call one transaction under one advisory lock, taken SHARED by the claim and the applied
  completion (the limit kept by slot rows they lock) and EXCLUSIVE by every other changing
  call. The cluster runs with fsync off: each commit's
  disk flush costs both designs the same and, on this kind of disk, hides everything else;
* ``skip-locked`` -- the BASELINE: a plain PostgreSQL job queue on the same cluster, a claim is
  ``SELECT ... FOR UPDATE SKIP LOCKED LIMIT batch`` + ``UPDATE state = 'running'`` in one
  transaction, a completion one ``UPDATE`` (no leases, no fencing, no dependencies, no limit).

PostgreSQL at 4 workers, unbatched, is then run three more times, each durable run right after
a baseline run, with the CPU seconds per claim of the workers and their server processes (on 2
cores that bounds the rate; it moves much less than the rate when other jobs share the machine).

Batched runs claim 64 per ``ready()``; the durable worker reports the batch with
``complete_many`` (SQLite: one transaction; PostgreSQL: one server-side call), the baseline
completes each with one ``UPDATE`` (what a SKIP LOCKED queue's worker does per job).

The exact limit: the throughput runs set ``max_concurrency`` to what the workers can hold
(W x batch: the baseline has no limit, so a binding one would compare waiting with working);
after each claim the worker reads ``count(RUNNING)`` and the largest value seen is printed next
to the limit. The last line runs 16 workers against a limit of 4 -- binding -- with the durable
scheduler and with the baseline plus the usual ``count(running) < limit`` check inside its SKIP
LOCKED claim (READ COMMITTED): two claimers that both read a free slot both take it, so the
baseline goes over its limit; the durable scheduler cannot. A worker that finds nothing free
backs off 1 ms (both designs).

    .venv/bin/python benchmarks/bench_durable.py [--quick] [--tasks N]
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import statistics
import sys
import tempfile
import time
from typing import Any

from schedcheck.impl.durable import DurableScheduler
from schedcheck.impl.durable._store import PostgresStore, open_store

from schedcheck.pg_temp import ClusterUnavailable, TempCluster

WORKERS = (1, 4, 16)
LEASE = 300.0

_BASELINE_SCHEMA = """
DROP TABLE IF EXISTS jobs;
CREATE TABLE jobs (id BIGINT PRIMARY KEY, state TEXT NOT NULL);
CREATE INDEX jobs_ready ON jobs (state, id);
"""


def _cpu(server: int | None) -> float:
    """CPU seconds this process and its server process (``server``, a PostgreSQL backend on
    this machine) used so far; the server's from /proc/PID/schedstat (Linux; NaN elsewhere)."""
    total = time.process_time()
    if server is not None:
        try:
            with open(f"/proc/{server}/schedstat") as fh:
                total += int(fh.read().split()[0]) / 1e9
        except (OSError, ValueError, IndexError):
            return float("nan")
    return total


def _durable_worker(url: str, limit: int, batch: int, go: Any, out: Any) -> None:
    s = DurableScheduler(url, limit, LEASE)
    claimed, peak = 0, 0
    me = s.store.db.info.backend_pid if isinstance(s.store, PostgresStore) else None
    go.wait()
    cpu = _cpu(me)
    while True:
        claims = s.ready(batch)
        if not claims:
            counts = s.counts()
            if not counts.get("READY") and not counts.get("RUNNING"):
                break
            time.sleep(0.001)  # nothing free: back off, as a worker's poll does
            continue
        claimed += len(claims)
        running = s.store.rows("SELECT COUNT(*) FROM dtask WHERE state = 'RUNNING'")
        peak = max(peak, int(running[0][0]))
        if batch > 1:  # the batch's reports at once
            s.complete_many([(c.task_id, c.generation, c.token) for c in claims])
        else:
            for c in claims:
                s.complete(c.task_id, c.generation, token=c.token)
    out.put((claimed, peak, time.perf_counter(), _cpu(me) - cpu))
    s.disconnect()


def _baseline_worker(url: str, limit: int | None, batch: int, go: Any, out: Any) -> None:
    import psycopg
    db = psycopg.connect(url, autocommit=True)
    claimed, peak = 0, 0
    me = db.info.backend_pid
    go.wait()
    cpu = _cpu(me)
    while True:
        with db.transaction():
            room = batch
            if limit is not None:  # the usual check: not exact under concurrency
                row = db.execute("SELECT COUNT(*) FROM jobs WHERE state = 'running'").fetchone()
                room = min(batch, limit - int(row[0] if row else 0))
            ids = [] if room <= 0 else [r[0] for r in db.execute(
                "SELECT id FROM jobs WHERE state = 'ready' ORDER BY id LIMIT %s "
                "FOR UPDATE SKIP LOCKED", (room,)).fetchall()]
            if ids:
                db.execute("UPDATE jobs SET state = 'running' WHERE id = ANY(%s)", (ids,))
        if not ids:
            left = db.execute("SELECT COUNT(*) FROM jobs WHERE state <> 'done'").fetchone()
            if not left or not left[0]:
                break
            time.sleep(0.001)
            continue
        claimed += len(ids)
        row = db.execute("SELECT COUNT(*) FROM jobs WHERE state = 'running'").fetchone()
        peak = max(peak, int(row[0]) if row else 0)
        for i in ids:
            db.execute("UPDATE jobs SET state = 'done' WHERE id = %s", (i,))
    out.put((claimed, peak, time.perf_counter(), _cpu(me) - cpu))
    db.close()


def _run(target: Any, args: tuple[Any, ...], workers: int,
         tasks: int) -> tuple[float, int, float]:
    """Start ``workers`` processes, release them together; (claims/s, peak RUNNING seen, CPU
    seconds per claim of the workers and their server processes)."""
    ctx = mp.get_context("fork")
    go, out = ctx.Event(), ctx.Queue()
    procs = [ctx.Process(target=target, args=(*args, go, out)) for _ in range(workers)]
    for p in procs:
        p.start()
    time.sleep(0.5 + 0.05 * workers)  # let every worker connect before the clock starts
    start = time.perf_counter()
    go.set()
    results = [out.get(timeout=600) for _ in procs]
    for p in procs:
        p.join()
    claimed = sum(r[0] for r in results)
    if claimed != tasks:
        raise RuntimeError(f"{claimed} claims for {tasks} tasks: a task was lost or doubled")
    end = max(r[2] for r in results)
    return claimed / (end - start), max(r[1] for r in results), sum(r[3] for r in results) / tasks


def _fill_durable(url: str, limit: int, tasks: int) -> None:
    store = open_store(url, create=True)
    if isinstance(store, PostgresStore):
        store.reset()  # one schema, reused: empty it (and its stored limit)
    s = DurableScheduler(store, limit, LEASE)
    for i in range(tasks):
        s.submit(i)
    s.start()
    store.close()


def _fill_baseline(url: str, tasks: int) -> None:
    import psycopg
    with psycopg.connect(url, autocommit=True) as db:
        for stmt in _BASELINE_SCHEMA.split(";"):
            if stmt.strip():
                db.execute(stmt)  # type: ignore[call-overload]
        with db.cursor() as cur:
            cur.executemany("INSERT INTO jobs VALUES (%s, 'ready')", [(i,) for i in range(tasks)])


def durable(url: str, workers: int, tasks: int, batch: int = 1,
            limit: int | None = None) -> tuple[float, int, int, float]:
    """(claims/s, peak RUNNING, the limit, CPU seconds per claim)."""
    limit = limit or workers * batch
    _fill_durable(url, limit, tasks)
    rate, peak, cpu = _run(_durable_worker, (url, limit, batch), workers, tasks)
    return rate, peak, limit, cpu


def baseline(url: str, workers: int, tasks: int, batch: int = 1,
             limit: int | None = None) -> tuple[float, int, float]:
    """(claims/s, peak RUNNING, CPU seconds per claim)."""
    _fill_baseline(url, tasks)
    return _run(_baseline_worker, (url, limit, batch), workers, tasks)


def _again(pg: str, tasks: int, runs: int = 3) -> None:
    """PostgreSQL at 4 workers, unbatched, ``runs`` more times, each durable run right after a
    baseline run (a machine shared with other jobs moves single runs a lot), with the CPU each
    claim cost the workers and their server processes -- what bounds the rate on 2 cores."""
    ratios, cpus = [], []
    for _ in range(runs):
        rate_b, _, cpu_b = baseline(pg, 4, tasks)
        rate_d, _, _, cpu_d = durable(f"{pg}?schema=bench", 4, tasks)
        ratios.append(rate_d / rate_b)
        cpus.append((cpu_d, cpu_b))
    cpu_d, cpu_b = (statistics.median(c[i] for c in cpus) for i in (0, 1))
    print(f"postgresql, 4 workers, unbatched, {runs} more runs each after a baseline run: "
          + ", ".join(f"{r:.2f}x" for r in ratios)
          + f" (median {statistics.median(ratios):.2f}x); CPU per claim, workers and their "
          f"server processes: durable {cpu_d * 1e6:.0f} us, skip-locked {cpu_b * 1e6:.0f} us "
          f"({cpu_d / cpu_b:.2f}x)")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--tasks", type=int)
    args = ap.parse_args(argv)
    tasks = args.tasks or (400 if args.quick else 2000)
    folder = tempfile.mkdtemp(prefix="bench-durable-")
    try:
        cluster: TempCluster | None = TempCluster(fsync=False, max_connections=60)
        pg = cluster.__enter__() if cluster else None
    except ClusterUnavailable as exc:
        print(f"PostgreSQL unavailable ({exc}); its columns are skipped", file=sys.stderr)
        cluster, pg = None, None
    try:
        print(f"claims/second, {tasks} tasks, claim + complete per task, one run; ratio = "
              "column / skip-locked baseline at the same worker count")
        print(f"{'workers':>7} {'skip-locked':>12} {'postgresql':>18} {'sqlite NORMAL':>18} "
              f"{'sqlite FULL':>18}  limit kept (peak RUNNING / limit)")
        for w in WORKERS:
            base = baseline(pg, w, tasks)[0] if pg else float("nan")
            cols, kept = [], []
            for url, n in ([(f"{pg}?schema=bench", tasks)] if pg else []) + [
                    (f"sqlite:///{folder}/n{w}.db?synchronous=NORMAL", tasks),
                    (f"sqlite:///{folder}/f{w}.db?synchronous=FULL", max(16, tasks // 10))]:
                rate, peak, limit, _ = durable(url, w, n)
                cols.append(f"{rate:8.0f} ({rate / base:4.2f}x)")
                kept.append(f"{peak}/{limit}")
            if not pg:
                cols.insert(0, f"{'-':>18}")
            print(f"{w:>7} {base:12.0f} {cols[0]:>18} {cols[1]:>18} {cols[2]:>18}  "
                  + " ".join(kept))
        rate, peak, limit, _ = durable(f"sqlite:///{folder}/batch.db?synchronous=NORMAL", 4,
                                       tasks * 5, batch=64)
        print(f"\nsqlite NORMAL, 4 workers, ready(64) batches: {rate:.0f} claims/s "
              f"(peak RUNNING {peak} / limit {limit})")
        if pg:
            rate_b, _, _ = baseline(pg, 4, tasks * 5, batch=64)
            rate_d, peak_d, limit_d, _ = durable(f"{pg}?schema=bench", 4, tasks * 5, batch=64)
            print(f"postgresql, 4 workers, batches of 64: durable {rate_d:.0f} claims/s = "
                  f"{rate_d / rate_b:.2f}x skip-locked's {rate_b:.0f} (peak {peak_d}/{limit_d})")
            _again(pg, tasks)
            _, peak_b, _ = baseline(pg, 16, tasks, limit=4)
            _, peak_d, _, _ = durable(f"{pg}?schema=bench", 16, tasks, limit=4)
            print(f"\n16 workers, limit 4: durable peak RUNNING {peak_d}; skip-locked with a "
                  f"count check peak RUNNING {peak_b}"
                  + ("  <- over its limit" if peak_b > 4 else ""))
    finally:
        if cluster is not None:
            cluster.__exit__(None, None, None)
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    raise SystemExit(main())
