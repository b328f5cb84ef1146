"""One clock: a worker whose clock runs 3 s ahead, beside a worker on time, with a lease of
2 s. On PostgreSQL the lease times are the server's, so no run of a task overlaps another run
of it; on SQLite (one machine, one clock: specs/durable.md L6) the same skew makes the fast
worker take over live leases -- the control that shows the skew was really injected."""

from __future__ import annotations

import os
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

from schedcheck.impl.durable import DurableScheduler

from schedcheck.harness.leases.history import check_history, read_history

ROOT = Path(__file__).resolve().parents[2]
TASKS = [f"t{i}" for i in range(6)]


def _overlaps(folder: Path) -> int:
    """Pairs of runs of one task that were going at the same moment (monotonic clock)."""
    runs: dict[tuple[str, str], list[float]] = defaultdict(list)
    for line in (folder / "runs").read_text().splitlines():
        _, task, pid, t = line.split()
        runs[(task, pid)].append(float(t))
    spans: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for (task, _), times in runs.items():
        spans[task].append((min(times), max(times)))
    return sum(1 for s in spans.values() for i, a in enumerate(s) for b in s[i + 1:]
               if a[0] < b[1] and b[0] < a[1])


def _skewed_run(url: str, folder: Path) -> DurableScheduler:
    s = DurableScheduler(url, 2, 2.0, create=True)
    for t in TASKS:
        s.submit(t)
    s.start()
    env = {**os.environ, "FAIL_DIR": str(folder),
           "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    base = [sys.executable, "-m", "schedcheck.impl.durable.worker", url,
            "--max-concurrency", "2", "--lease", "2", "--poll", "0.01", "--exit-when-idle",
            "--fn", "tests.durable.failing_work:slow"]
    procs = [subprocess.Popen([*base, "--history", str(folder / f"h{i}.jsonl"), *skew],
                              env=env, cwd=ROOT, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE)
             for i, skew in enumerate([[], ["--clock-skew", "3"]])]
    for p in procs:
        _, err = p.communicate(timeout=120)
        assert p.returncode == 0, err.decode()[-800:]
    return s


def test_a_skewed_worker_clock_overlaps_no_runs_on_postgresql(tmp_path: Path,
                                                              pg_url: str) -> None:
    url = pg_url + ("&" if "?" in pg_url else "?") + "schema=clock_skew"
    s = _skewed_run(url, tmp_path)
    try:
        assert _overlaps(tmp_path) == 0
        final = {t: s.info(t).state.name for t in TASKS}
        assert set(final.values()) == {"SUCCEEDED"}
        assert all(s.info(t).attempts == 1 for t in TASKS)  # no lease was ever taken over
        events = read_history(sorted(str(p) for p in tmp_path.glob("h*.jsonl")))
        assert check_history(events, final) == []
    finally:
        s.store.drop()
        s.disconnect()


def test_the_same_skew_on_sqlite_overlaps_runs_one_machine_one_clock(tmp_path: Path) -> None:
    s = _skewed_run(f"sqlite:///{tmp_path}/skew.db", tmp_path)
    assert _overlaps(tmp_path) > 0  # the fast worker reclaimed leases that were live
    assert sum(s.info(t).attempts for t in TASKS) > len(TASKS)
