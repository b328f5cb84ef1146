"""The checker's own speed: what the lockstep, the thread controller and the reduction cost.

Three measures, each a ratio against a baseline run in the same process (times are CPU
seconds of this process for the single-threaded parts, wall seconds for the threaded one;
absolute figures are printed for context only). The garbage collector stays on.

1. **The lockstep's overhead.** The differential suites (``harness.scheduler_suite``,
   ``harness.wheel_suite``) drive the model and the implementation side by side and compare
   every reply and state after every step. The baseline is a plain Hypothesis
   ``RuleBasedStateMachine`` that drives the same implementation (``impl.Scheduler``,
   ``impl.HashedTimingWheel``) with the same kinds of calls, the same number of examples and
   the same settings (profile ``ci``: at most 40 rules per example), and checks nothing.
   Reported: examples and steps per second of each, and the suite's slowdown (plain / suite)
   per step and per example (a suite's example is longer: its compound rules make several
   calls, each a step).
2. **The thread controller's cost per switch.** One workload (two threads doing ready/complete
   cycles on an ``impl.Scheduler``, as ``concurrency.overhead``) run on free threads with
   real locks (the baseline), then under the baton with a preemption offered at every switch
   point. Reported: the controlled run's extra seconds per switch it made, in microseconds
   and in free-run operations (how many whole operations one switch costs).
3. **Reduction time per counterexample step.** The budgeted search finds a zoo mutant's
   first counterexample (``wheel-drops-not-yet-due``: a timer with rounds left is lost), then
   ``harness.minimize`` reduces it by delta debugging. Reported: seconds of reduction per
   step of the counterexample as found and per replay, and the reduction's time against the
   search's that found it.

4. **The process protocol's cost.** The same differential suite (same seed, examples and
   profile) against a JavaScript wheel and scheduler behind ``--exec`` (the Node shim,
   ``tests/languages/js/``: one child process serving every example) and against the bundled
   Python ones in this process. Reported: lockstep steps per wall second of each, and per
   CPU second (this process's and the child's together: on a shared machine the wall rate
   measures the queue for the cores as much as the protocol, and the CPU rate is what the
   two processes, which never run at once, reach on idle cores), and the ratio of each; the
   goal is a floor in steps per CPU second of the ``--exec`` run (skipped when ``node`` is
   not installed).

Each measure has a goal, set from the first measurements (printed with the figures); every
goal is a ratio, so it holds on a slower or busier machine as well. About a minute in all.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import shutil
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import hypothesis
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule, run_state_machine_as_test

from schedcheck import impl, profiles
from schedcheck.concurrency import baton, primitives
from schedcheck.harness import minimize as reduce
from schedcheck.harness.scheduler.suite import run_scheduler_suite
from schedcheck.harness.wheel.suite import run_wheel_suite
from schedcheck.zoo.wheel_mutants import DropsNotYetDueWheel

#: goals, set from the first measurements on the 2-core machine (README, Measured): each
#: about one and a half times the worst of them, so that a change that makes the checker
#: measurably slower misses one
LOCKSTEP_GOAL = 5.0  #: the suite at most this many times slower per step than the plain run
EXAMPLES_GOAL = 9.0  #: ... and per example (the suite's examples also make compound calls)
SWITCH_GOAL = 50.0  #: one controlled switch costs at most this many free-run operations
REDUCTION_GOAL = 3.5  #: the reduction takes at most this many times the search's time
EXEC_GOAL = 2_000.0  #: lockstep steps per second of a JavaScript target behind --exec

PROFILE = "ci"


# ------------------------------------------------------------------------------ plain machines


class _Counts:
    examples = 0
    steps = 0


class PlainWheel(RuleBasedStateMachine):
    """The wheel's calls with no model and no comparison: the baseline of the lockstep."""

    def __init__(self) -> None:
        super().__init__()
        self.wheel = impl.HashedTimingWheel(1, 8)
        self.handles: list[Any] = []
        self.now = 0
        _Counts.examples += 1

    @rule(delay=st.integers(-3, 40))
    def schedule(self, delay: int) -> None:
        _Counts.steps += 1
        self.handles.append(self.wheel.schedule(self.now + delay, _noop))

    @rule(data=st.data())
    def cancel(self, data: st.DataObject) -> None:
        _Counts.steps += 1
        if self.handles:
            self.wheel.cancel(data.draw(st.sampled_from(self.handles)))

    @rule(by=st.integers(0, 12))
    def advance(self, by: int) -> None:
        _Counts.steps += 1
        self.now += by
        self.wheel.advance(self.now)

    @invariant()
    def pending(self) -> None:
        self.wheel.pending()


class PlainScheduler(RuleBasedStateMachine):
    """The scheduler's calls with no model and no comparison: the baseline of the lockstep."""

    def __init__(self) -> None:
        super().__init__()
        self.target = impl.Scheduler(2)
        self.claims: list[Any] = []
        _Counts.examples += 1

    @rule(tid=st.sampled_from("abcdef"), deps=st.lists(st.sampled_from("abcdef"), max_size=2))
    def submit(self, tid: str, deps: list[str]) -> None:
        _Counts.steps += 1
        _call(self.target.submit, tid, [d for d in deps if d != tid])

    @rule()
    def start(self) -> None:
        _Counts.steps += 1
        _call(self.target.start)

    @rule(limit=st.integers(1, 3))
    def ready(self, limit: int) -> None:
        _Counts.steps += 1
        self.claims.extend(_call(self.target.ready, limit=limit) or ())

    @rule(data=st.data())
    def complete(self, data: st.DataObject) -> None:
        _Counts.steps += 1
        if self.claims:
            claim = self.claims.pop(data.draw(st.integers(0, len(self.claims) - 1)))
            _call(self.target.complete, claim[0], claim[1])


def _call(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """The call's reply, or None when it raises: a contract error is an outcome like any
    reply here, and nothing is checked."""
    with contextlib.suppress(Exception):
        return fn(*args, **kwargs)
    return None


def _noop() -> None:
    return None


def _plain_run(machine: type[RuleBasedStateMachine], examples: int) -> tuple[float, int, int]:
    """CPU seconds, examples and steps of a plain run with the suite profile's settings."""
    base = profiles.load(PROFILE)
    settings = hypothesis.settings(base, max_examples=examples, database=None)
    _Counts.examples = _Counts.steps = 0
    started = time.process_time()
    run_state_machine_as_test(machine, settings=settings)
    return time.process_time() - started, _Counts.examples, _Counts.steps


def lockstep(examples: int) -> list[tuple[str, float, float]]:
    """Per system: (name, slowdown per step, slowdown per example), printed as they
    come."""
    rows = []
    runs: list[tuple[str, Callable[[], Any], type[RuleBasedStateMachine]]] = [
        ("wheel", lambda: run_wheel_suite(impl.HashedTimingWheel, examples=examples, seed=0,
                                          profile=PROFILE), PlainWheel),
        ("scheduler", lambda: run_scheduler_suite(impl.Scheduler, examples=examples, seed=0,
                                                  profile=PROFILE), PlainScheduler),
    ]
    for name, suite, plain in runs:
        started = time.process_time()
        result = suite()
        suite_seconds = time.process_time() - started
        assert result.counterexample is None, f"the bundled {name} broke its suite"
        plain_seconds, plain_examples, plain_steps = _plain_run(plain, examples)
        suite_rate = result.steps / suite_seconds
        plain_rate = plain_steps / plain_seconds
        suite_examples = result.examples / suite_seconds
        plain_examples_rate = plain_examples / plain_seconds
        per_step = plain_rate / suite_rate
        per_example = plain_examples_rate / suite_examples
        print(f"  {name:<10} suite {suite_examples:6.1f} examples/s ({result.steps:,} steps, "
              f"{suite_rate:6,.0f}/s)   plain {plain_examples_rate:6.1f} examples/s "
              f"({plain_steps:,} steps, {plain_rate:6,.0f}/s)", flush=True)
        print(f"  {'':<10} lockstep slowdown x{per_step:.1f} per step (goal <= "
              f"{LOCKSTEP_GOAL:g}), x{per_example:.1f} per example (goal <= "
              f"{EXAMPLES_GOAL:g})", flush=True)
        rows.append((name, per_step, per_example))
    return rows


# ------------------------------------------------------------------------------ controller


def _workload(lock_factory: Callable[[], Any], threads: int,
              per_thread: int) -> list[Callable[[], None]]:
    target = impl.Scheduler(threads, lock_factory=lock_factory)
    for i in range(threads * per_thread):
        target.submit(i)
    target.start()

    def worker() -> None:
        for _ in range(per_thread):
            for claim in target.ready(limit=1):
                target.complete(claim[0], claim[1])

    return [worker] * threads


def _free_run(threads: int, per_thread: int) -> float:
    programs = _workload(threading.Lock, threads, per_thread)
    started = time.perf_counter()
    workers = [threading.Thread(target=p) for p in programs]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    return time.perf_counter() - started


def _switching_run(threads: int, per_thread: int) -> tuple[float, Any]:
    operations = 2 * threads * per_thread
    programs = _workload(primitives.Lock, threads, per_thread)
    points = 8 * per_thread  # an upper bound on each lane's switch points
    every = [x for k in range(points) for lane in range(threads) for x in (lane, k, 0)]
    started = time.perf_counter()
    outcome = baton.run(programs, every, max_steps=10 * operations + 100)
    return time.perf_counter() - started, outcome


def controller(threads: int = 2, per_thread: int = 1_000,
               repeat: int = 3) -> tuple[float, float]:
    """(microseconds per switch, free-run operations per switch), from the best of
    ``repeat`` runs of each (wall time: a switch is a hand-over between OS threads)."""
    operations = 2 * threads * per_thread
    free = min(_free_run(threads, per_thread) for _ in range(2 * repeat))
    runs = [_switching_run(threads, per_thread) for _ in range(repeat)]
    switching, outcome = min(runs, key=lambda run: run[0])
    switches = len(outcome.trace)
    per_switch = (switching - free) / switches
    per_operation = free / operations
    print(f"  free threads {operations:,} operations in {free:.3f} s "
          f"({per_operation * 1e6:.1f} us each); controlled, a preemption offered at every "
          f"point: {switching:.2f} s, {switches:,} switch points passed "
          f"({outcome.preemptions:,} preemptions); best of {2 * repeat} and {repeat} runs",
          flush=True)
    print(f"  cost per switch {per_switch * 1e6:.0f} us = x{per_switch / per_operation:.0f} a "
          f"free operation (goal <= {SWITCH_GOAL:g})", flush=True)
    return per_switch * 1e6, per_switch / per_operation


# ------------------------------------------------------------------------------ reduction


def reduction(budget: float) -> tuple[float, float]:
    """(reduction seconds per step as found, reduction seconds / search seconds)."""
    timings: list[tuple[float, Any]] = []
    original = reduce.minimize

    def timed_minimize(*args: Any, **kwargs: Any) -> Any:
        started = time.process_time()
        reduced = original(*args, **kwargs)
        timings.append((time.process_time() - started, reduced))
        return reduced

    reduce.minimize = timed_minimize  # measured, not changed: the search calls it by name
    started = time.process_time()
    try:
        result = run_wheel_suite(DropsNotYetDueWheel, seed=0, profile=PROFILE, budget=budget)
    finally:
        reduce.minimize = original
    total = time.process_time() - started
    assert result.counterexample is not None and timings, "the mutant survived the search"
    seconds, reduced = timings[0]
    assert reduced is not None, "the counterexample did not replay"
    search = total - seconds
    before, after = reduced.before, len(reduced.counterexample.steps)
    print(f"  wheel-drops-not-yet-due: found in {search:.2f} s with {before} steps; reduced "
          f"to {after} steps in {seconds:.2f} s ({reduced.replays} replays, "
          f"{seconds / reduced.replays * 1e3:.1f} ms each)", flush=True)
    print(f"  {seconds / before * 1e3:.1f} ms of reduction per step as found; reduction / "
          f"search x{seconds / search:.2f} (goal <= {REDUCTION_GOAL:g})", flush=True)
    return seconds / before, seconds / search


# ------------------------------------------------------------------------------ --exec


def _node(module: str, cls: str) -> str:
    root = Path(__file__).resolve().parents[1]
    return (f"node {root / 'schedcheck' / 'shims' / 'shim.js'} "
            f"{root / 'tests' / 'languages' / 'js' / module} {cls}")


def _children_cpu() -> float:
    import resource

    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def exec_speed(examples: int) -> list[tuple[str, float, float]]:
    """Per system: (name, --exec steps per CPU second, in-process / --exec ratio of it)."""
    from schedcheck.targets.exec import close_all, exec_factory

    rows = []
    runs: list[tuple[str, Callable[..., Any], Any, str, str]] = [
        ("wheel", run_wheel_suite, impl.HashedTimingWheel, "wheel.js", "HashedWheel"),
        ("scheduler", run_scheduler_suite, impl.Scheduler, "scheduler.js", "Scheduler"),
    ]
    for name, run, bundled, module, cls in runs:
        rates: list[tuple[float, float]] = []
        for target in (bundled, (module, cls)):
            children, cpu, wall = _children_cpu(), time.process_time(), time.perf_counter()
            if isinstance(target, tuple):  # the child starts inside the measured time
                target = exec_factory(_node(*target), name)
            result = run(target, examples=examples, seed=0, profile=PROFILE)
            close_all()  # the child ends and is reaped: its CPU time is counted
            wall = time.perf_counter() - wall
            cpu = time.process_time() - cpu + _children_cpu() - children
            assert result.counterexample is None, f"the {name} broke its suite"
            rates.append((result.steps / wall, result.steps / cpu))
        (here_wall, here_cpu), (there_wall, there_cpu) = rates
        print(f"  {name:<10} in-process {here_wall:6,.0f} steps/s wall, {here_cpu:6,.0f} per "
              f"CPU s   --exec (node) {there_wall:6,.0f} steps/s wall, {there_cpu:6,.0f} per "
              f"CPU s (goal >= {EXEC_GOAL:,.0f})", flush=True)
        print(f"  {'':<10} in-process / --exec: x{here_wall / there_wall:.2f} wall, "
              f"x{here_cpu / there_cpu:.2f} CPU", flush=True)
        rows.append((name, there_cpu, here_cpu / there_cpu))
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--examples", type=int, default=100,
                        help="examples per suite and per plain run (default 100)")
    parser.add_argument("--only", choices=("lockstep", "controller", "reduction", "exec"),
                        help="run one measure only")
    args = parser.parse_args(argv)
    if args.only == "exec":
        logging.disable(logging.CRITICAL)
        if shutil.which("node") is None:
            print("node is not installed: the --exec measure is skipped")
            return 0
        print(f"--exec: the differential suite against a JavaScript target (profile "
              f"{PROFILE}, {args.examples} examples, wall seconds)")
        rows_exec = exec_speed(args.examples)
        met_exec = [rate >= EXEC_GOAL for _, rate, _ in rows_exec]
        print(f"\ngoals met: {sum(met_exec)} of {len(met_exec)}")
        return 0
    logging.disable(logging.CRITICAL)  # the wheels log callback errors the suites provoke
    print(f"the checker's own speed (profile {PROFILE}, {args.examples} examples per run; "
          "ratios against a baseline run here)")
    print("\nlockstep: the differential suite against a plain RuleBasedStateMachine on the "
          "same implementation")
    rows = lockstep(args.examples)
    print("\nthread controller: a preemption offered at every switch point against free "
          "threads")
    _, ops_per_switch = controller()
    print("\nreduction (delta debugging) of a zoo mutant's first counterexample")
    _, share = reduction(budget=20.0)
    met = [goal for _, per_step, per_example in rows
           for goal in (per_step <= LOCKSTEP_GOAL, per_example <= EXAMPLES_GOAL)]
    met += [ops_per_switch <= SWITCH_GOAL, share <= REDUCTION_GOAL]
    if shutil.which("node") is not None:
        print("\n--exec: the same suite against a JavaScript target behind the process "
              "protocol (wall seconds)")
        met += [rate >= EXEC_GOAL for _, rate, _ in exec_speed(args.examples)]
    print(f"\ngoals met: {sum(met)} of {len(met)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
