"""The worker pool: run() to the end, Runner with shutdown(timeout), cooperative cancellation.

Task functions are driven by threading.Event/Barrier; nothing sleeps."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from schedcheck.impl import Runner, Scheduler, run
from schedcheck.impl.scheduler.runner import CancelToken

from schedcheck.contract import Cause, TaskState

OK, BLK, CAN, RUN = (TaskState.SUCCEEDED, TaskState.BLOCKED, TaskState.CANCELLED,
                     TaskState.RUNNING)


def blocking_job() -> tuple[threading.Event, threading.Event, Any]:
    """A task function that sets ``started`` when it runs, then waits for ``release``."""
    started, release = threading.Event(), threading.Event()

    def job(token: CancelToken) -> None:
        started.set()
        release.wait()

    return started, release, job


def test_run_executes_a_graph_in_dependency_order_and_blocks_after_a_failure() -> None:
    s = Scheduler(4)
    order: list[str] = []
    lock = threading.Lock()

    def job(name: str) -> Any:
        def fn(token: CancelToken) -> None:
            with lock:
                order.append(name)
        return fn

    def boom(token: CancelToken) -> None:
        raise ValueError("no disk")

    s.submit("a", fn=job("a"))
    s.submit("b", ["a"], fn=job("b"))
    s.submit("c", ["a"], fn=job("c"))
    s.submit("d", ["b", "c"], fn=job("d"))
    s.submit("x", fn=boom)
    s.submit("y", ["x"], fn=job("y"))
    report = run(s, workers=3)
    assert order[0] == "a" and order[-1] == "d" and set(order) == {"a", "b", "c", "d"}
    assert sorted(report.succeeded) == [("a", 1), ("b", 1), ("c", 1), ("d", 1)]
    [(tid, g, err)] = report.failed
    assert (tid, g, str(err)) == ("x", 1, "no disk")
    assert s.info("y") == ("y", 1, BLK, Cause("failed", "x", 1))
    assert (report.claims, report.timed_out, report.still_running) == (5, False, [])
    s.check_invariants()


def test_run_never_runs_more_functions_than_workers_at_once() -> None:
    s = Scheduler(100)
    inside = 0
    peak = 0
    lock = threading.Lock()
    barrier = threading.Barrier(2)  # the first two functions meet: both workers are busy

    def fn(token: CancelToken) -> None:
        nonlocal inside, peak
        with lock:
            inside += 1
            peak = max(peak, inside)
            first_two = peak <= 2 and barrier.n_waiting < 2 and not barrier.broken
        if first_two and token.task_id in (0, 1):
            barrier.wait()
        with lock:
            inside -= 1

    for i in range(20):
        s.submit(i, fn=fn)
    report = run(s, workers=2)
    assert len(report.succeeded) == 20
    assert peak == 2


def test_a_function_polls_its_token_and_a_cancel_request_ends_it_as_cancelled() -> None:
    s = Scheduler(2)
    started, go = threading.Event(), threading.Event()
    seen: list[bool] = []

    def long_job(token: CancelToken) -> None:
        started.set()
        go.wait()
        seen.append(token.cancelled)
        if token.is_set():
            raise RuntimeError("stopping early")

    s.submit("long", fn=long_job)
    s.submit("after", ["long"])
    runner = Runner(s, 2).start()
    started.wait()
    assert s.cancel("long").state is RUN  # REQUESTED: the function still holds its slot
    go.set()
    assert runner.wait_idle(timeout=30)
    assert seen == [True]
    assert runner.report.cancelled == [("long", 1)]
    assert s.info("after").cause == Cause("cancelled", "long", 1)
    assert runner.shutdown(timeout=5) == []


def test_shutdown_closes_the_scheduler_and_returns_the_functions_still_running() -> None:
    s = Scheduler(4)
    started, release, stuck = blocking_job()

    s.submit("stuck", fn=stuck)
    s.submit("next", ["stuck"])
    runner = Runner(s, 2).start()
    started.wait()
    left = runner.shutdown(timeout=0)
    assert left == [("stuck", 1)]
    assert s.info("next").cause == Cause("shutdown", "next", 1)
    release.set()


def test_shutdown_waits_for_running_functions_to_finish() -> None:
    s = Scheduler(4)
    started, release, job = blocking_job()

    s.submit("a", fn=job)
    runner = Runner(s, 1).start()
    started.wait()
    done: list[Any] = []
    t = threading.Thread(target=lambda: done.append(runner.shutdown(timeout=60)))
    t.start()
    release.set()
    t.join()
    assert done == [[]]
    assert s.info("a").state is OK


def test_run_with_a_timeout_reports_what_is_still_running() -> None:
    s = Scheduler(2)
    _started, release, slow = blocking_job()

    s.submit("slow", fn=slow)
    report = run(s, workers=1, timeout=0)
    assert report.timed_out
    assert report.still_running in ([("slow", 1)], [])
    release.set()


def test_a_task_submitted_through_the_runner_wakes_the_dispatcher() -> None:
    s = Scheduler(2)
    ran = threading.Event()
    runner = Runner(s, 2).start()
    assert runner.wait_idle(timeout=30)
    runner.submit("late", fn=lambda token: ran.set())
    assert ran.wait(timeout=30)
    assert runner.wait_idle(timeout=30)
    assert runner.report.succeeded == [("late", 1)]
    runner.shutdown(timeout=5)


def test_a_late_report_after_a_resubmit_is_ignored_as_stale() -> None:
    s = Scheduler(2)
    started, release, job = blocking_job()

    s.submit("a", fn=job)
    runner = Runner(s, 1).start()
    started.wait()
    s.fail("a", 1, RuntimeError("the supervisor gave up"))  # someone else reported it
    s.submit("a")  # generation 2 (fn None)
    release.set()
    assert runner.wait_idle(timeout=30)
    report = runner.report
    assert [(t, g, r.outcome.name) for t, g, r in report.ignored] == [("a", 1, "STALE")]
    assert ("a", 2) in report.succeeded
    runner.shutdown(timeout=5)


def test_no_task_function_runs_under_the_scheduler_lock() -> None:
    held = threading.local()
    problems: list[str] = []

    class Watched:
        def __init__(self) -> None:
            self._lock = threading.Lock()
            self.owner: int | None = None

        def __enter__(self) -> Watched:
            self._lock.acquire()
            self.owner = threading.get_ident()
            return self

        def __exit__(self, *exc: object) -> None:
            self.owner = None
            self._lock.release()

    locks: list[Watched] = []

    def factory() -> Watched:
        locks.append(Watched())
        return locks[-1]

    s = Scheduler(3, lock_factory=factory)

    def fn(token: CancelToken) -> None:
        if locks[0].owner == threading.get_ident():
            problems.append("fn ran under the scheduler lock")
        held.ok = token.cancelled is False

    for i in range(10):
        s.submit(i, [i - 1] if i else [], fn=fn)
    report = run(s, workers=3)
    assert len(report.succeeded) == 10 and problems == []


def test_workers_must_be_a_positive_int() -> None:
    with pytest.raises(ValueError, match="workers must be >= 1"):
        Runner(Scheduler(1), 0)
    with pytest.raises(TypeError, match="workers must be an int"):
        Runner(Scheduler(1), True)


def test_the_report_is_stamped_with_the_runner_clock() -> None:
    ticks = iter([10.0, 25.0])
    s = Scheduler(1)
    s.submit("a")
    report = run(s, workers=1, clock=lambda: next(ticks))
    assert (report.started_at, report.finished_at) == (10.0, 25.0)
    assert report.succeeded == [("a", 1)]


def test_a_function_that_raises_a_base_exception_is_still_reported_as_failed() -> None:
    s = Scheduler(1)

    def quit_(token: CancelToken) -> None:
        raise SystemExit(3)

    s.submit("a", fn=quit_)
    s.submit("b", ["a"])
    report = run(s, workers=1)
    assert [(t, g, type(e)) for t, g, e in report.failed] == [("a", 1, SystemExit)]
    assert s.info("b").cause == Cause("failed", "a", 1)


def test_a_completion_while_ready_comes_back_empty_is_not_lost() -> None:
    """ready() returns nothing while the one running task still runs; before the dispatcher
    looks at what is in flight, that task completes and releases the next. The runner must
    look again, not stop as idle with a READY task left (a lost wakeup)."""
    inner = Scheduler(2)
    runners: list[Runner] = []
    asked = threading.Event()  # the dispatcher's ready() has come back empty once

    class LateEmptyReady:
        def __getattr__(self, name: str) -> Any:
            return getattr(inner, name)

        def ready(self, limit: Any = None) -> Any:
            got = inner.ready(limit=limit)
            running = [t for t in inner.task_ids()
                       if inner.info(t).state is TaskState.RUNNING]
            if not got and running and runners:
                asked.set()
                r = runners[0]
                with r._cv:  # the completion lands between this reply and the dispatcher's look
                    r._cv.wait_for(lambda: not r._inflight, timeout=10)
            return got

    def fn(token: CancelToken) -> None:
        asked.wait(10)  # the first task runs until the dispatcher has asked in vain

    for i in range(3):
        inner.submit(i, [i - 1] if i else [], fn=fn)
    runner = Runner(LateEmptyReady(), 2, _stop_when_idle=True)
    runners.append(runner)
    runner.start()
    assert runner.wait_idle(30)
    assert [t for t, _ in runner.report.succeeded] == [0, 1, 2], runner.report
