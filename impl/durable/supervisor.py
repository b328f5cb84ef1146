"""The supervisor of ``python -m schedcheck.impl.durable.worker --workers N``: it starts N
single-worker processes and keeps the pool alive.

A worker that dies -- a signal, ``os._exit`` inside a task, an error that ended its loop -- is
reported on stderr (its pid, the cause, the task it held and when that task's lease lets the
next claim reclaim it) and a new worker is started in its place, at most ``--max-restarts``
per ``--restart-window`` seconds (past that the pool is stopped: exit 5). The task it held is
reported failed with that cause (``fail(..., retry=True)``, fenced by the claim's token, so a
task that was reclaimed meanwhile is not touched): the store retries it after a backoff while
it has attempts left, and a task that kills every worker that runs it ends FAILED with the
cause after ``max_attempts`` -- not by starving the pool. A worker that exits 3 (the store
cannot be used) or 2 stops the pool with that code: a new worker would fail the same way.
SIGTERM/SIGINT is passed on to every worker (each finishes the task in hand), then the
supervisor waits for them. Exit codes: :data:`schedcheck.impl.durable.worker.EXIT`.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from typing import Any

from schedcheck.impl.durable._exits import EXIT, SignalStop
from schedcheck.impl.durable._store import decode_id
from schedcheck.impl.durable.scheduler import DurableScheduler

__all__ = ["describe_exit", "supervise"]

#: what a worker's exit code means, beside death by a signal
_CODES = {EXIT["store"]: "the store cannot be used",
          EXIT["crash"]: "an unexpected error ended its loop (its message is above)",
          EXIT["usage"]: "a bad command line"}


def describe_exit(code: int) -> str:
    """A worker's exit status in words: ``killed by SIGKILL``, ``exit code 7``, ..."""
    if code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    meaning = _CODES.get(code)
    return f"exit code {code}" + (f" ({meaning})" if meaning else
                                  " (os._exit or sys.exit outside a task?)")


def _say(text: str) -> None:
    os.write(2, f"supervisor: {text}\n".encode())  # one write: safe beside a signal handler


class _Pool:
    def __init__(self, args: argparse.Namespace, rest: list[str], folder: str) -> None:
        self.args, self.rest, self.folder = args, rest, folder
        self.procs: dict[int, tuple[subprocess.Popen[bytes], str]] = {}
        self.restarts: collections.deque[float] = collections.deque()
        self.deaths = 0
        self.serial = 0

    def start(self) -> subprocess.Popen[bytes]:
        self.serial += 1
        held = os.path.join(self.folder, f"worker-{self.serial}.json")
        proc = subprocess.Popen([sys.executable, "-m", "schedcheck.impl.durable.worker",
                                 *self.rest, "--workers", "1", "--held-file", held])
        self.procs[proc.pid] = (proc, held)
        return proc

    def live(self) -> list[subprocess.Popen[bytes]]:
        return [p for p, _ in self.procs.values() if p.poll() is None]

    def may_restart(self) -> bool:
        now = time.monotonic()
        while self.restarts and now - self.restarts[0] > self.args.restart_window:
            self.restarts.popleft()
        if len(self.restarts) >= self.args.max_restarts:
            return False
        self.restarts.append(now)
        return True


def _held(path: str) -> list[dict[str, Any]]:
    with contextlib.suppress(OSError, ValueError), open(path) as inp:
        return list(json.load(inp).get("held", []))
    return []


def _when(expires: float) -> str:
    left = expires - time.time()
    stamp = time.strftime("%H:%M:%S", time.localtime(expires))
    return (f"its lease ends at {stamp} (in {left:.1f} s): the next claim after that "
            "reclaims it" if left > 0 else f"its lease ended at {stamp}: the next claim "
            "reclaims it")


def _fail_held(args: argparse.Namespace, held: list[dict[str, Any]], cause: str) -> str:
    """Report each held claim failed with the cause (fenced by its token): the store retries
    it while it has attempts left (L8). What became of each, in words."""
    out = []
    try:
        s = DurableScheduler(args.url, args.max_concurrency, args.lease,
                             max_attempts=args.max_attempts, retry_backoff=args.retry_backoff)
    except Exception as exc:  # the lease still runs out: the next claim reclaims the task
        s, trouble = None, f"{type(exc).__name__}: {exc}"
    for h in held:
        name = f"task {h['repr']} (generation {h['gen']}, token {h['token']})"
        try:
            if s is None:
                raise RuntimeError(trouble)
            task = decode_id(h["task"])
            reply = s.fail(task, h["gen"], f"its worker died: {cause}", token=h["token"],
                           retry=not args.no_retry)
            if reply.outcome.name != "APPLIED":  # reported, reclaimed or cancelled already
                info = s.info(task)
                out.append(f"{name}, already over for that claim (the store answered "
                           f"{reply.outcome.name}: now generation {info.generation}, "
                           f"{info.state.name})")
                continue
            info = s.info(task)
            then = ("" if info.not_before is None else
                    f", claimable again in {max(info.not_before - time.time(), 0):.1f} s")
            out.append(f"{name}, failed with that cause: now {info.state.name} after "
                       f"{info.attempts} attempt(s){then}")
        except Exception as exc:  # said; the lease still ends and the next claim reclaims it
            out.append(f"{name}, not recorded ({exc}): {_when(h['expires'])}")
    if s is not None:
        s.disconnect()
    return "; it held " + "; ".join(out)


def supervise(args: argparse.Namespace, argv: list[str]) -> int:
    """Start ``--workers`` single-worker processes and keep them alive (see the module)."""
    rest = [a for i, a in enumerate(argv) if not (a.startswith("--workers") or (
        i > 0 and argv[i - 1] == "--workers"))]
    stop = SignalStop()
    code = EXIT["ok"]

    with tempfile.TemporaryDirectory(prefix="schedcheck-workers-") as folder:
        pool = _Pool(args, rest, folder)

        def forward(signum: int, _frame: Any) -> None:
            first = not stop.is_set()
            stop.set()
            live = pool.live()
            for p in live:
                p.send_signal(signal.SIGTERM)
            if first:
                os.write(2, f"stopping: {len(live)} worker(s) finish the task in hand, then "
                            "exit\n".encode())

        for sig in (signal.SIGTERM, signal.SIGINT):  # before the first worker starts
            signal.signal(sig, forward)
        for _ in range(args.workers):
            if stop.is_set():
                break
            pool.start()
            if stop.is_set():  # the signal came while that worker was being started
                forward(signal.SIGTERM, None)
        if not stop.is_set():
            _say(f"started {len(pool.procs)} workers, pids {' '.join(map(str, pool.procs))}; "
                 f"a dead one is reported and replaced (at most {args.max_restarts} per "
                 f"{args.restart_window:g} s)")
        while pool.live():
            stop.wait(0.05)
            for pid, (proc, held_file) in list(pool.procs.items()):
                status = proc.poll()
                if status is None:
                    continue
                del pool.procs[pid]
                clean = (0, -signal.SIGTERM) if stop.is_set() else (0,)
                if status in clean:
                    continue
                if status in (EXIT["store"], EXIT["usage"]):  # a new worker would do the same
                    _say(f"worker {pid} ended: {describe_exit(status)}; stopping the pool")
                    code = status
                    forward(signal.SIGTERM, None)
                    continue
                pool.deaths += 1
                cause = f"worker {pid} {describe_exit(status)}"
                held = _held(held_file)
                restart = not stop.is_set() and pool.may_restart()
                if not stop.is_set() and not restart:
                    # the others are told to stop before the dead worker's task is given
                    # back: else one of them can claim it and die too before it hears
                    forward(signal.SIGTERM, None)
                    stopping = True
                else:
                    stopping = False
                what = _fail_held(args, held, describe_exit(status)) if held else \
                    "; it held no task"
                if stop.is_set() and not stopping:
                    _say(f"{cause}{what}")
                elif restart:
                    new = pool.start()
                    _say(f"{cause}{what}; started worker {new.pid} in its place (restart "
                         f"{len(pool.restarts)} of at most {args.max_restarts} per "
                         f"{args.restart_window:g} s)")
                else:
                    _say(f"{cause}{what}; workers died {args.max_restarts} times within "
                         f"{args.restart_window:g} s: stopping the pool")
                    code = EXIT["restarts"]
    if code == EXIT["ok"] and pool.deaths:
        return EXIT["deaths"]
    return code
