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
import inspect
import json
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from schedcheck.impl.durable._exits import EXIT, SignalStop
from schedcheck.impl.durable._records import Unresolved
from schedcheck.impl.durable._store import (
    StoreError,
    connection_lost,
    encode_id,
    permanent_error,
)
from schedcheck.impl.durable.scheduler import DurableClaim, DurableScheduler, Renewal

from schedcheck.contract import Reply

__all__ = ["EXIT", "SignalStop", "TaskContext", "WorkerStats", "load_callable", "main",
           "run_worker"]

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
    try:
        obj: Any = importlib.import_module(module)
        for part in qual.split("."):
            obj = getattr(obj, part)
    except Exception as exc:  # an import can raise anything: say which and why
        raise ValueError(f"--fn {name!r} cannot be imported: {type(exc).__name__}: {exc}") \
            from None
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
    instead of dying with it -- ``poll`` seconds, then twice as long each time up to 5 s, and
    for ``give_up`` seconds at most (then :class:`StoreError`)."""

    def __init__(self, make: Callable[[], DurableScheduler], wait: Callable[[float], bool],
                 poll: float, stats: WorkerStats, give_up: float = 300.0) -> None:
        self.make, self.wait, self.poll, self.stats = make, wait, poll, stats
        self.give_up = give_up
        self.sched: DurableScheduler | None = None
        self.failures = 0  #: connection attempts failed in a row

    def call(self, what: Callable[[DurableScheduler], _T]) -> _T:
        """``what(scheduler)``; on a lost connection, connect again and call it again. A stop
        request ends the waiting: the error is raised."""
        since: float | None = None
        while True:
            try:
                if self.sched is None:
                    self.sched = self.make()
                out = what(self.sched)
                self.failures = 0
                return out
            except Exception as exc:
                if permanent_error(exc) and not isinstance(exc, StoreError):
                    raise StoreError(f"the store refused this worker: {exc}") from exc
                if not connection_lost(exc):
                    raise
                first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
                since = time.monotonic() if since is None else since
                if time.monotonic() - since > self.give_up:
                    raise StoreError(f"no answer from the store for {self.give_up:g} s "
                                     f"(--give-up): {first}") from exc
                delay = min(self.poll * 2 ** min(self.failures, 20), 5.0)
                if self.sched is not None:
                    self.stats.reconnects += 1
                    print(f"worker {os.getpid()}: the connection to the store was lost "
                          f"({first}); connecting again", file=sys.stderr, flush=True)
                else:
                    self.failures += 1
                    if self.failures & (self.failures - 1) == 0:  # 1, 2, 4, ...: not each try
                        print(f"worker {os.getpid()}: cannot connect to the store ({first}); "
                              f"trying again in {delay:.2g} s (attempt {self.failures})",
                              file=sys.stderr, flush=True)
                self.close()
                if self.wait(delay):
                    raise

    def close(self) -> None:
        if self.sched is not None:
            sched, self.sched = self.sched, None
            with contextlib.suppress(Exception):  # the connection is broken already
                sched.disconnect()


class _Heartbeat(threading.Thread):
    """Renews the leases this worker holds, on a connection of its own; a renewal the store
    refuses (STALE, REJECTED) marks that claim lost."""

    def __init__(self, make: Callable[[], DurableScheduler], every: float, poll: float,
                 history: _History, stats: WorkerStats) -> None:
        super().__init__(daemon=True)
        self.make, self.every, self.poll = make, every, poll
        self.history, self.stats = history, stats
        self.held: dict[Any, DurableClaim] = {}
        self.lost: set[tuple[int, int]] = set()  #: (generation, token) of claims lost
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
                    self.note(c, r)
        except Exception as exc:  # the main loop goes on; the lease runs out and is reclaimed
            print(f"worker {os.getpid()}: renewals stopped: {type(exc).__name__}: {exc}",
                  file=sys.stderr, flush=True)
        finally:
            link.close()

    def note(self, c: DurableClaim, r: Renewal) -> None:
        if r.expires is not None:
            self.stats.renewed += 1
            self.history.write("renew", task=c.task_id, gen=c.generation, token=c.token,
                               expires=r.expires)
        else:
            with self.lock:
                self.lost.add((c.generation, c.token))


@dataclass
class TaskContext:
    """What a task function that takes a ``ctx`` keyword is given: its claim, and a way to
    keep or check its lease. Pass ``token`` to the systems the task writes to: they can refuse
    a token lower than one they have seen (specs/durable.md section 2)."""

    task_id: Any
    generation: int
    token: int  #: the claim's fencing token: larger for every later claim of the store
    attempt: int  #: this claim's number since the task's submit (1 for the first)
    expires: float  #: the lease's end on the store's clock, as of the last renewal
    _renew: Callable[[], Renewal] = field(repr=False)
    _lost: Callable[[], bool] = field(repr=False)

    def renew(self) -> bool:
        """Extend the lease now (the worker also renews every third of the lease); False:
        the lease was lost -- another worker may run this task, stop and do not write."""
        r = self._renew()
        if r.expires is None:
            return False
        self.expires = r.expires
        return True

    @property
    def lost(self) -> bool:
        """True once a renewal was refused: the task was reclaimed (or cancelled and
        reclaimed); its report will be STALE."""
        return self._lost()


def _takes_ctx(fn: Callable[..., Any]) -> bool:
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False
    p = params.get("ctx")
    return p is not None and p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD)


class _Held:
    """The claim this worker holds, in a small file its supervisor reads when the worker
    dies (which task it held, and when that lease ends)."""

    def __init__(self, path: str | None) -> None:
        self.path = path

    def write(self, claims: list[DurableClaim], lease: float) -> None:
        if self.path is None:
            return
        data = [{"task": encode_id(c.task_id), "repr": repr(c.task_id), "gen": c.generation,
                 "token": c.token, "expires": c.expires, "lease": lease} for c in claims]
        tmp = f"{self.path}.tmp"
        with open(tmp, "w") as out:
            json.dump({"pid": os.getpid(), "held": data}, out)
        os.replace(tmp, self.path)


def run_worker(url: str, *, max_concurrency: int, lease_seconds: float,
               fn: Callable[..., Any] | None = None, batch: int = 1, poll: float = 0.05,
               history: str | None = None, exit_when_idle: bool = False,
               max_attempts: int = 5, stop: threading.Event | SignalStop | None = None,
               crash_after_statements: int | None = None, create: bool = False,
               give_up: float = 300.0, held_file: str | None = None,
               retry: bool = True, retry_backoff: float = 1.0) -> WorkerStats:
    """Run one worker until ``stop`` is set (or, with ``exit_when_idle``, nothing is left).
    ``retry``: a task that raises is reported with ``fail(..., retry=True)`` (L8)."""
    stop = stop or threading.Event()
    stats = WorkerStats()
    log = _History(history)
    held = _Held(held_file)

    def make() -> DurableScheduler:
        return DurableScheduler(url, max_concurrency, lease_seconds, max_attempts=max_attempts,
                                retry_backoff=retry_backoff, create=create)

    link = _Link(make, stop.wait, poll, stats, give_up)
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
            held.write(claims, lease_seconds)
            for c in claims:
                stats.claimed += 1
                log.write("claim", task=c.task_id, gen=c.generation, token=c.token,
                          start=c.expires - lease_seconds, expires=c.expires)
                with beat.lock:
                    beat.held[c.task_id] = c
            for i, c in enumerate(claims):  # a stop request lets the claimed tasks finish
                _run_one(link, c, fn, log, stats, beat, retry)
                with beat.lock:
                    beat.held.pop(c.task_id, None)
                held.write(claims[i + 1:], lease_seconds)
    finally:
        beat.done.set()
        beat.join()
        link.close()
    return stats


def _renew(sched: DurableScheduler, claim: DurableClaim) -> Renewal:
    return sched.renew(claim.task_id, claim.generation, claim.token)


def _context(link: _Link, c: DurableClaim, beat: _Heartbeat) -> TaskContext:
    def renew() -> Renewal:
        r = link.call(functools.partial(_renew, claim=c))
        beat.note(c, r)
        return r

    def lost() -> bool:
        with beat.lock:
            return (c.generation, c.token) in beat.lost

    attempt = link.call(lambda s: s.info(c.task_id)).attempts
    return TaskContext(c.task_id, c.generation, c.token, attempt, c.expires, renew, lost)


def _run_one(link: _Link, c: DurableClaim, fn: Callable[..., Any] | None,
             log: _History, stats: WorkerStats, beat: _Heartbeat, retry: bool) -> None:
    error: BaseException | None = None
    result: Any = None
    target, args = (c.fn, ()) if c.fn is not None else (fn, (c.task_id,))
    # a function that cannot be found will not be found by the next attempt either
    retry = retry and target is not None and not isinstance(target, Unresolved)
    try:
        if target is None:  # nothing to run: never "done" without running
            raise LookupError(f"task {c.task_id!r} was submitted without a function and this "
                              "worker has no --fn: nothing to run")
        kwargs = {"ctx": _context(link, c, beat)} if _takes_ctx(target) else {}
        result = target(*args, **kwargs)
    except SystemExit as exc:  # the task must not end its worker with the task RUNNING
        error = RuntimeError(f"the task called sys.exit({exc.code!r}); a task cannot end "
                             "its worker")
    except Exception as exc:
        error = exc
    op = "complete" if error is None else "fail"

    def report(sched: DurableScheduler) -> Reply:
        # each attempt is recorded: one cut short by a lost connection may have committed
        log.write("report-begin", task=c.task_id, gen=c.generation, token=c.token, op=op,
                  t=time.time())
        if error is None:
            return sched.complete(c.task_id, c.generation, token=c.token,
                                  result=_storable(result))
        return sched.fail(c.task_id, c.generation, _describe(error), token=c.token,
                          retry=retry)

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


def _describe(error: BaseException) -> str:
    return f"{type(error).__name__}: {error}"


def _storable(result: Any) -> Any:
    """A result kept as JSON when it is, else its repr (None: nothing to keep)."""
    if result is None:
        return None
    try:
        json.dumps(result)
    except (TypeError, ValueError):
        return repr(result)
    return result


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m schedcheck.impl.durable.worker",
        description="Run N worker processes against a durable scheduler store.",
        epilog="exit codes: 0 stopped or idle; 1 workers died on the way (each reported and "
               "replaced); 2 bad command line; 3 the store cannot be used; 4 an unexpected "
               "error ended a worker; 5 workers died faster than the restart rate allows")
    p.add_argument("url", help="sqlite:///path/to/file.db or postgresql://user@host/db")
    p.add_argument("--workers", type=int, default=1, help="worker processes (default 1)")
    p.add_argument("--max-concurrency", type=int, required=True,
                   help="the store's global limit (the value it was created with)")
    p.add_argument("--lease", type=float, default=30.0, help="lease seconds (default 30)")
    p.add_argument("--max-attempts", type=int, default=5,
                   help="claims per task before it is FAILED (a task's own value wins)")
    p.add_argument("--no-retry", action="store_true",
                   help="a task that raises is FAILED at once (default: retried with backoff "
                        "while it has attempts left)")
    p.add_argument("--retry-backoff", type=float, default=1.0,
                   help="seconds before the first retry, doubled each time (default 1)")
    p.add_argument("--batch", type=int, default=1, help="claims per ready() call")
    p.add_argument("--poll", type=float, default=0.05, help="seconds between empty claims")
    p.add_argument("--fn", help="module:callable run with the task id when a claim has no fn")
    p.add_argument("--history", help="append each worker's events (JSON lines) to this file")
    p.add_argument("--exit-when-idle", action="store_true",
                   help="stop once no task is PENDING, READY or RUNNING")
    p.add_argument("--create", action="store_true",
                   help="make the SQLite store if its file does not exist (else refused)")
    p.add_argument("--give-up", type=float, default=300.0,
                   help="seconds without an answer from the store before a worker exits 3 "
                        "(default 300)")
    p.add_argument("--max-restarts", type=int, default=10,
                   help="replace at most this many dead workers per --restart-window")
    p.add_argument("--restart-window", type=float, default=60.0, help="seconds (default 60)")
    p.add_argument("--crash-after-statements", type=int, default=None,
                   help="fault injection: SIGKILL this process just before its Nth statement")
    p.add_argument("--clock-skew", type=float, default=0.0, help=argparse.SUPPRESS)
    p.add_argument("--held-file", default=None, help=argparse.SUPPRESS)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.workers < 1:
        print("--workers must be >= 1", file=sys.stderr)
        return EXIT["usage"]
    try:
        fn = load_callable(args.fn) if args.fn else None
    except ValueError as exc:
        print(f"worker: {exc}", file=sys.stderr)
        return EXIT["usage"]
    if args.workers > 1:
        from schedcheck.impl.durable.supervisor import supervise
        return supervise(args, list(argv if argv is not None else sys.argv[1:]))
    if args.clock_skew:  # fault injection: this process's clock is off by that much
        real = time.time
        time.time = lambda: real() + args.clock_skew
    stop = SignalStop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    me = f"worker {os.getpid()}"
    try:
        stats = run_worker(args.url, max_concurrency=args.max_concurrency,
                           lease_seconds=args.lease, fn=fn, batch=args.batch, poll=args.poll,
                           history=args.history, exit_when_idle=args.exit_when_idle,
                           max_attempts=args.max_attempts, stop=stop,
                           crash_after_statements=args.crash_after_statements,
                           create=args.create, give_up=args.give_up,
                           held_file=args.held_file, retry=not args.no_retry,
                           retry_backoff=args.retry_backoff)
    except (StoreError, ValueError) as exc:  # ValueError: another limit than the store's
        print(f"{me}: the store cannot be used: {exc}", file=sys.stderr, flush=True)
        return EXIT["store"]
    except Exception as exc:  # one line, not a traceback: what ended it
        print(f"{me}: stopped by an unexpected error: {type(exc).__name__}: {exc}",
              file=sys.stderr, flush=True)
        return EXIT["crash"]
    line = json.dumps({"pid": os.getpid(), "claimed": stats.claimed,
                       "completed": stats.completed, "failed": stats.failed,
                       "stale": stats.stale, "renewed": stats.renewed,
                       "reconnects": stats.reconnects}) + "\n"
    # one write of the whole line: the workers of one supervisor share its stdout, and
    # print() writes the text and its newline apart (two lines could run into one)
    sys.stdout.flush()
    os.write(sys.stdout.fileno(), line.encode())
    return EXIT["ok"]


if __name__ == "__main__":
    raise SystemExit(main())
