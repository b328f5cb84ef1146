"""What supervision costs per example: the scheduler suite in-process and in a supervised child.

``schedcheck check`` runs the target in a child process the checker can kill
(``schedcheck.harness.supervisor``): every call of the target is marked on a shared page
(two stores) and every step's line, clause and atomic operation goes to the parent on a
pipe. This measures what that costs on the bundled scheduler: the differential suite
(``harness.scheduler_suite``, profile ``ci``, the same seed and number of examples) run in
this process (the baseline) and in a supervised child started from this process, taking
turns, the garbage collector on. Wall seconds (the child's CPU is not this process's):
reported are examples per second of each, the ratio (supervised / in-process) and the
extra milliseconds per example, the fork and the result's trip back included.
"""

from __future__ import annotations

import argparse
import statistics
import time

from schedcheck import impl
from schedcheck.harness import guard
from schedcheck.harness.result import RunResult
from schedcheck.harness.scheduler.suite import run_scheduler_suite
from schedcheck.harness.supervisor import run_supervised

#: The goal, set from the first measurements: supervision costs at most this factor.
GOAL_RATIO = 1.5


def _suite(examples: int, seed: int) -> RunResult:
    return run_scheduler_suite(impl.Scheduler, examples=examples, seed=seed, profile="ci",
                               shrink=False)


def _in_process(examples: int, seed: int) -> tuple[float, int]:
    started = time.perf_counter()
    result = _suite(examples, seed)
    return time.perf_counter() - started, result.examples


def _supervised(examples: int, seed: int) -> tuple[float, int]:
    started = time.perf_counter()
    got = run_supervised(lambda: _suite(examples, seed), step_seconds=guard.STEP_SECONDS)
    seconds = time.perf_counter() - started
    assert got.kind == "returned" and not got.error, got
    return seconds, got.value.examples


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=150)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    _in_process(10, args.seed)  # imports and caches warm, for both
    plain: list[float] = []
    watched: list[float] = []
    counts = set()
    for _ in range(args.rounds):
        seconds, n = _in_process(args.examples, args.seed)
        plain.append(seconds)
        counts.add(n)
        seconds, n = _supervised(args.examples, args.seed)
        watched.append(seconds)
        counts.add(n)
    assert len(counts) == 1, f"the runs made different numbers of examples: {counts}"
    n = counts.pop()
    a, b = statistics.median(plain), statistics.median(watched)
    ratio = b / a
    print(f"scheduler suite, {n} examples per run, {args.rounds} runs each, medians:")
    print(f"  in-process: {a:.2f} s, {n / a:.0f} examples/s")
    print(f"  supervised: {b:.2f} s, {n / b:.0f} examples/s")
    print(f"  ratio supervised / in-process: {ratio:.3f} "
          f"({(b - a) / n * 1000:+.2f} ms per example); goal <= {GOAL_RATIO}: "
          f"{'met' if ratio <= GOAL_RATIO else 'NOT met'}")


if __name__ == "__main__":
    main()
