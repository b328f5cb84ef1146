"""Worker processes for the durable scheduler, and the command line that runs N of them.

One worker is a loop over one store: claim up to ``batch`` tasks (``ready``), run each claimed
function while a heartbeat thread renews its lease every third of ``lease_seconds``, report
with the claim's generation *and* fencing token (``complete``/``fail``), and when nothing is
READY wait ``poll`` seconds and claim again (that claim also reclaims expired leases: no cron
is needed). A worker outlives its store's server: when the connection is lost or cannot be
made (a PostgreSQL server killed, restarted, still recovering) it connects again, waiting
``poll`` seconds and then twice as long each time (up to 5 s), says so on stderr, and tries
the call in flight again -- a claim whose reply was lost is reclaimed once its lease ends, a
report that had committed answers DUPLICATE the second time. It gives up after ``give_up``
seconds without the store (exit 3), and at once when waiting cannot help: a missing or damaged
SQLite file, a PostgreSQL server that refuses the role, the database or the host.
SIGTERM/SIGINT stop it gracefully: the task in hand finishes and is reported, nothing new is
claimed. With ``exit_when_idle`` it stops once no task is PENDING, READY or RUNNING.

What runs: the claim's function when the task was submitted with one (called with no
arguments, as the contract's runner does), else ``--fn module:callable`` called with the task
id. A function that takes a ``ctx`` keyword also gets a :class:`TaskContext` (id, generation,
fencing token, attempt, ``renew()``, ``lost``). Nothing is marked done without running: a
task whose function this worker cannot import FAILS with the import error, and so does a task
submitted without a function when the worker has no ``--fn``. A task that raises -- or calls
``sys.exit`` -- FAILS with that error (``retry=True``: the store retries it after a backoff
while the task has attempts left, specs/durable.md L8).

``history`` (a file) receives one JSON line per event, written with one ``write`` to an
``O_APPEND`` descriptor so a ``kill -9`` never leaves half a line: ``claim`` (with the store's
claim time and expiry), ``renew``, ``report-begin`` and ``report`` (with the outcome). The crash
tests judge these with ``schedcheck.harness.leases.history``.

    python -m schedcheck.impl.durable.worker sqlite:///tasks.db --workers 4 \\
        --max-concurrency 4 --lease 30 --fn mypkg.jobs:run --exit-when-idle

Exit codes (of one worker and of the supervisor of ``--workers N``; docs/durable-worker.md):
0 stopped or idle, no worker died; 1 the pool ended but workers died on the way (each reported
and replaced); 2 a bad command line (or ``--fn`` that cannot be imported); 3 the store cannot
be used (missing or damaged file, refused URL, another ``--max-concurrency`` than the store's,
no answer for ``--give-up`` seconds); 4 an unexpected error ended a worker (its message is
printed); 5 workers died faster than ``--max-restarts`` per ``--restart-window`` allows.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import importlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from schedcheck.impl.durable._store import connection_lost
from schedcheck.impl.durable.scheduler import DurableClaim, DurableScheduler, Renewal

from schedcheck.contract import Reply

__all__ = ["SignalStop", "WorkerStats", "load_callable", "main", "run_worker"]

_IDLE = ("PENDING", "READY", "RUNNING")
_T = TypeVar("_T")


@dataclass
class WorkerStats:
    claimed: int = 0
    completed: int = 0
    failed: int = 0
    stale: int = 0  #: reports the store refused as STALE (this worker's lease had been lost)
    renewed: int = 0
    reconnects: int = 0  #: connections to the store lost (and made again) while working
    outcomes: list[str] = field(default_factory=list)


def load_callable(name: str) -> Callable[..., Any]:
    """``module:attr.attr`` -> the callable (ValueError saying what is wrong otherwise)."""
    module, _, qual = name.partition(":")
    if not module or not qual:
        raise ValueError(f"--fn {name!r}: write module:callable, e.g. mypkg.jobs:run")
    obj: Any = importlib.import_module(module)
    for part in qual.split("."):
        obj = getattr(obj, part)
    if not callable(obj):
        raise ValueError(f"--fn {name!r} is not callable")
    return obj  # type: ignore[no-any-return]


class _History:
    def __init__(self, path: str | None) -> None:
        self.fd = None if path is None else os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT,
                                                    0o644)
        self.pid = os.getpid()

    def write(self, event: str, **data: Any) -> None:
        if self.fd is not None:
            line = json.dumps({"ev": event, "pid": self.pid, **data}) + "\n"
            os.write(self.fd, line.encode())


class _Link:
    """A scheduler object on the store, made again whenever its connection is lost (a
    PostgreSQL server killed, restarted or still recovering): the worker waits for its store
    instead of dying with it."""

    def __init__(self, make: Callable[[], DurableScheduler], wait: Callable[[float], bool],
                 poll: float, stats: WorkerStats) -> None:
        self.make, self.wait, self.poll, self.stats = make, wait, poll, stats
        self.sched: DurableScheduler | None = None
        self.failures = 0  #: connection attempts failed in a row

    def call(self, what: Callable[[DurableScheduler], _T]) -> _T:
        """``what(scheduler)``; on a lost connection, connect again (every ``poll`` seconds
        until the store answers) and call it again. A stop request ends the waiting: the
        error is raised."""
        while True:
            try:
                if self.sched is None:
                    self.sched = self.make()
                out = what(self.sched)
                self.failures = 0
                return out
            except Exception as exc:
                if not connection_lost(exc):
                    raise
                first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
                if self.sched is not None:
                    self.stats.reconnects += 1
                    print(f"worker {os.getpid()}: the connection to the store was lost "
                          f"({first}); connecting again", file=sys.stderr, flush=True)
                else:
                    self.failures += 1
                    if self.failures & (self.failures - 1) == 0:  # 1, 2, 4, ...: not each try
                        print(f"worker {os.getpid()}: cannot connect to the store ({first}); "
                              f"trying again every {self.poll} s", file=sys.stderr, flush=True)
                self.close()
                if self.wait(self.poll):
                    raise

    def close(self) -> None:
        if self.sched is not None:
            sched, self.sched = self.sched, None
            with contextlib.suppress(Exception):  # the connection is broken already
                sched.disconnect()


class _Heartbeat(threading.Thread):
    """Renews the leases this worker holds, on a connection of its own."""

    def __init__(self, make: Callable[[], DurableScheduler], every: float, poll: float,
                 history: _History, stats: WorkerStats) -> None:
        super().__init__(daemon=True)
        self.make, self.every, self.poll = make, every, poll
        self.history, self.stats = history, stats
        self.held: dict[Any, DurableClaim] = {}
        self.lock = threading.Lock()
        self.done = threading.Event()

    def run(self) -> None:
        link = _Link(self.make, self.done.wait, self.poll, self.stats)
        try:
            while not self.done.wait(self.every):
                with self.lock:
                    held = list(self.held.values())
                for c in held:
                    r = link.call(functools.partial(_renew, claim=c))
                    if r.expires is not None:
                        self.stats.renewed += 1
                        self.history.write("renew", task=c.task_id, gen=c.generation,
                                           token=c.token, expires=r.expires)
        finally:
            link.close()


class SignalStop:
    """A stop flag a signal handler may set: no lock is taken (``threading.Event.set`` from a
    handler can deadlock when the signal lands while the main thread holds the event's lock
    inside ``wait``); ``wait`` sleeps, which a signal cuts short once the flag is set."""

    def __init__(self) -> None:
        self.flag = False

    def set(self) -> None:
        self.flag = True

    def is_set(self) -> bool:
        return self.flag

    def wait(self, timeout: float) -> bool:
        if not self.flag:
            time.sleep(timeout)
        return self.flag


def run_worker(url: str, *, max_concurrency: int, lease_seconds: float,
               fn: Callable[[Any], Any] | None = None, batch: int = 1, poll: float = 0.05,
               history: str | None = None, exit_when_idle: bool = False,
               max_attempts: int = 5, stop: threading.Event | SignalStop | None = None,
               crash_after_statements: int | None = None) -> WorkerStats:
    """Run one worker until ``stop`` is set (or, with ``exit_when_idle``, nothing is left)."""
    stop = stop or threading.Event()
    stats = WorkerStats()
    log = _History(history)

    def make() -> DurableScheduler:
        return DurableScheduler(url, max_concurrency, lease_seconds, max_attempts=max_attempts)

    link = _Link(make, stop.wait, poll, stats)
    link.call(lambda s: setattr(s.store, "crash_after", crash_after_statements))
    beat = _Heartbeat(make, lease_seconds / 3, poll, log, stats)
    beat.start()
    try:
        while not stop.is_set():
            claims = link.call(lambda s: s.ready(batch))
            if not claims:
                if exit_when_idle and not any(link.call(DurableScheduler.counts).get(s)
                                              for s in _IDLE):
                    break
                stop.wait(poll)
                continue
            for c in claims:
                stats.claimed += 1
                log.write("claim", task=c.task_id, gen=c.generation, token=c.token,
                          start=c.expires - lease_seconds, expires=c.expires)
                with beat.lock:
                    beat.held[c.task_id] = c
            for c in claims:  # a stop request lets the claimed tasks finish
                _run_one(link, c, fn, log, stats)
                with beat.lock:
                    beat.held.pop(c.task_id, None)
    finally:
        beat.done.set()
        beat.join()
        link.close()
    return stats


def _renew(sched: DurableScheduler, claim: DurableClaim) -> Renewal:
    return sched.renew(claim.task_id, claim.generation, claim.token)


def _run_one(link: _Link, c: DurableClaim, fn: Callable[[Any], Any] | None,
             log: _History, stats: WorkerStats) -> None:
    error: BaseException | None = None
    try:
        if c.fn is not None:
            c.fn()
        elif fn is not None:
            fn(c.task_id)
    except Exception as exc:
        error = exc
    op = "complete" if error is None else "fail"

    def report(sched: DurableScheduler) -> Reply:
        # each attempt is recorded: one cut short by a lost connection may have committed
        log.write("report-begin", task=c.task_id, gen=c.generation, token=c.token, op=op,
                  t=time.time())
        if error is None:
            return sched.complete(c.task_id, c.generation, token=c.token)
        return sched.fail(c.task_id, c.generation, repr(error), token=c.token)

    reply = link.call(report)
    log.write("report", task=c.task_id, gen=c.generation, token=c.token, op=op,
              outcome=reply.outcome.name, t=time.time())
    stats.outcomes.append(reply.outcome.name)
    if reply.outcome.name == "STALE":
        stats.stale += 1
    elif error is None:
        stats.completed += 1
    else:
        stats.failed += 1


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m schedcheck.impl.durable.worker",
        description="Run N worker processes against a durable scheduler store.")
    p.add_argument("url", help="sqlite:///path/to/file.db or postgresql://user@host/db")
    p.add_argument("--workers", type=int, default=1, help="worker processes (default 1)")
    p.add_argument("--max-concurrency", type=int, required=True,
                   help="the store's global limit (the value it was created with)")
    p.add_argument("--lease", type=float, default=30.0, help="lease seconds (default 30)")
    p.add_argument("--max-attempts", type=int, default=5)
    p.add_argument("--batch", type=int, default=1, help="claims per ready() call")
    p.add_argument("--poll", type=float, default=0.05, help="seconds between empty claims")
    p.add_argument("--fn", help="module:callable run with the task id when a claim has no fn")
    p.add_argument("--history", help="append each worker's events (JSON lines) to this file")
    p.add_argument("--exit-when-idle", action="store_true",
                   help="stop once no task is PENDING, READY or RUNNING")
    p.add_argument("--crash-after-statements", type=int, default=None,
                   help="fault injection: SIGKILL this process just before its Nth statement")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.workers < 1:
        print("--workers must be >= 1", file=sys.stderr)
        return 2
    if args.workers > 1:
        return _supervise(args, list(argv if argv is not None else sys.argv[1:]))
    stop = SignalStop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    fn = load_callable(args.fn) if args.fn else None
    stats = run_worker(args.url, max_concurrency=args.max_concurrency,
                       lease_seconds=args.lease, fn=fn, batch=args.batch, poll=args.poll,
                       history=args.history, exit_when_idle=args.exit_when_idle,
                       max_attempts=args.max_attempts, stop=stop,
                       crash_after_statements=args.crash_after_statements)
    line = json.dumps({"pid": os.getpid(), "claimed": stats.claimed,
                       "completed": stats.completed, "failed": stats.failed,
                       "stale": stats.stale, "renewed": stats.renewed,
                       "reconnects": stats.reconnects}) + "\n"
    # one write of the whole line: the workers of one supervisor share its stdout, and
    # print() writes the text and its newline apart (two lines could run into one)
    sys.stdout.flush()
    os.write(sys.stdout.fileno(), line.encode())
    return 0


def _supervise(args: argparse.Namespace, argv: list[str]) -> int:
    """Start ``--workers`` single-worker processes; SIGTERM/SIGINT is passed on to each
    (graceful: every worker reports the task in hand), then they are awaited."""
    rest = [a for i, a in enumerate(argv) if not (a.startswith("--workers") or (
        i > 0 and argv[i - 1] == "--workers"))]
    procs: list[subprocess.Popen[bytes]] = []
    stopping = False

    def forward(signum: int, _frame: Any) -> None:
        nonlocal stopping
        first = not stopping
        stopping = True
        live = [p for p in procs if p.poll() is None]
        for p in live:
            p.send_signal(signal.SIGTERM)
        if first:  # os.write: print() from a handler can meet a print in progress
            os.write(2, f"stopping: {len(live)} worker(s) finish the task in hand, then "
                        "exit\n".encode())

    for sig in (signal.SIGTERM, signal.SIGINT):  # before the first worker starts
        signal.signal(sig, forward)
    for _ in range(args.workers):
        if stopping:
            break
        procs.append(subprocess.Popen([sys.executable, "-m", "schedcheck.impl.durable.worker",
                                       *rest, "--workers", "1"]))
        if stopping:  # the signal came while that worker was being started
            forward(signal.SIGTERM, None)
    codes = [p.wait() for p in procs]
    # a worker stopped before it set its handler had claimed nothing: SIGTERM ended it cleanly
    clean = (0, -signal.SIGTERM) if stopping else (0,)
    return 0 if all(c in clean for c in codes) else 1


if __name__ == "__main__":
    raise SystemExit(main())
