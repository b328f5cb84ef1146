"""Exhaustive bounded-preemption exploration (CHESS-style) of one small concurrent round.

Every schedule with at most ``bound`` preemptions is run exactly once. A run reports its
*choice points* in order (``baton.ChoicePoint``: a lane at its k-th switch point with rivals
that could take the baton). A child schedule adds one triple ``(lane, k, skip)`` at a choice
point strictly after the parent's last added one, for every rival -- so each schedule's
preemptions are in time order and no schedule is produced twice. Forced choices (the lane
blocked or ended, and two or more rivals could go next) branch too but do not count toward
the bound. The search is breadth-first by preemption count, so the first failure found has
the fewest preemptions.

Cost: the number of schedules is O((points x rivals)^bound) -- a few dozen to a few hundred for
2 threads x 3 operations at bound 2; ``max_runs`` caps it (the result then says "capped",
never "no violation").
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from schedcheck.concurrency.baton import RunOutcome


@dataclass
class ExploreResult:
    schedules: int  #: schedules run
    bound: int
    complete: bool  #: every schedule within the bound was run (not capped, not stopped early)
    failing: list[int] | None = None  #: the first failing schedule (fewest preemptions)
    failure: Any = None  #: what ``run`` returned for it


def explore(
    run: Callable[[list[int]], tuple[RunOutcome, bool, Any]],
    *,
    bound: int = 2,
    max_runs: int = 10_000,
    stop_at_first: bool = True,
) -> ExploreResult:
    """``run(schedule) -> (baton outcome, ok, payload)``; explore every schedule within
    ``bound``. The payload of the first failing run is returned as ``failure``."""
    # queue entries: (schedule, preemptions used, index in the parent's choice points after
    # which new triples may go)
    queue: deque[tuple[list[int], int, int]] = deque([([], 0, -1)])
    runs = 0
    first_failure: tuple[list[int], Any] | None = None
    while queue:
        if runs >= max_runs:
            return ExploreResult(runs, bound, False, *(first_failure or (None, None)))
        schedule, used, after = queue.popleft()
        outcome, ok, payload = run(schedule)
        runs += 1
        if not ok:
            if first_failure is None:
                first_failure = (schedule, payload)
            if stop_at_first:
                return ExploreResult(runs, bound, False, schedule, payload)
        for i, point in enumerate(outcome.points):
            if i <= after:
                continue
            cost = 0 if point.forced else 1
            if used + cost > bound:
                continue
            skips = range(1, point.rivals) if point.forced else range(point.rivals)
            for skip in skips:
                queue.append(([*schedule, point.lane, point.k, skip], used + cost, i))
    failing, failure = first_failure or (None, None)
    return ExploreResult(runs, bound, failing is None, failing, failure)


# --------------------------------------------------------------------------------------------
# The fixed catalogue of small scenarios (every schedule up to the preemption bound)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Scenario:
    name: str
    system: str
    words: str
    case: Any  #: a ``cases.Case`` without a schedule


def catalogue() -> list[Scenario]:
    """Two threads x at most 3 operations each, both systems."""
    from schedcheck.concurrency.cases import Case

    def sched(setup: list[tuple[Any, ...]], threads: list[list[tuple[Any, ...]]],
              mc: int = 2) -> Case:
        return Case("scheduler", (mc,), {}, setup, threads, ["t0", "t1"])

    abc = [("submit", "a", ()), ("submit", "b", ()), ("submit", "c", ("a",)), ("start",)]
    diamond = [("submit", "a", ()), ("submit", "b", ()), ("submit", "c", ("a", "b")),
               ("start",), ("ready", None)]
    return [
        Scenario("last-slot", "scheduler",
                 "two workers claiming the last slot (max_concurrency 2, one task running)",
                 sched([*abc, ("ready", 1)], [[("ready", 1), ("complete", ("mine", 0))],
                                               [("ready", 1), ("complete", ("mine", 0))]])),
        Scenario("complete-vs-cancel", "scheduler", "complete racing cancel of a running task",
                 sched([*abc, ("ready", 1)], [[("complete", "a"), ("ready", None)],
                                               [("cancel", "a"), ("fail", "a")]])),
        Scenario("duplicate-complete", "scheduler",
                 "duplicate complete of one claim from two workers",
                 sched([*abc, ("ready", 1)], [[("complete", "a"), ("ready", 1)],
                                               [("complete", "a"), ("ready", 1)]])),
        Scenario("diamond-completions", "scheduler",
                 "two workers completing both dependencies of one task",
                 sched(diamond, [[("complete", ("claimed",)), ("ready", 1)],
                                 [("complete", ("claimed",)), ("ready", 1)]])),
        Scenario("schedule-vs-tick", "wheel", "schedule racing the tick that fires it",
                 Case("wheel", (1, 4), {}, [], [[("schedule", 1), ("cancel", ("mine", 0))],
                                                [("advance", 1), ("advance", 2)]],
                      ["t0", "tick"])),
        Scenario("cancel-vs-tick", "wheel", "cancel racing the tick that would fire the timer",
                 Case("wheel", (1, 4), {}, [("schedule", "h0", 1), ("schedule", "h1", 5)],
                      [[("cancel", "h0"), ("cancel", "h1"), ("pending",)],
                       [("advance", 1), ("advance", 5)]], ["t0", "tick"])),
        Scenario("max-pending-producers", "wheel", "two producers filling max_pending",
                 Case("wheel", (1, 4), {"max_pending": 2}, [("schedule", "h0", 3)],
                      [[("schedule", 1), ("pending",)], [("schedule", 2), ("cancel", "h0")]],
                      ["t0", "t1"])),
    ]


@dataclass
class ScenarioResult:
    name: str
    system: str
    words: str
    target: str
    bound: int
    schedules: dict[int, int]  #: preemption bound -> schedules run within it (cumulative)
    complete: bool  #: every schedule within ``bound`` ran
    violation: str | None = None  #: the failure, with its schedule, if any
    failing_schedule: list[int] | None = None

    @property
    def text(self) -> str:
        counts = ", ".join(f"bound {b}: {n}" for b, n in sorted(self.schedules.items()))
        if self.violation:
            return f"{self.name} ({self.target}): VIOLATION -- {self.violation}"
        if not self.complete:
            return f"{self.name} ({self.target}): capped, not exhausted ({counts})"
        return (f"{self.name} ({self.target}): no violation within bound {self.bound} "
                f"({counts} schedules)")


def run_exhaustive(
    scenario_names: list[str] | None = None,
    bound: int = 2,
    *,
    targets: dict[str, list[tuple[str, Any]]] | None = None,
    max_runs: int = 20_000,
) -> list[ScenarioResult]:
    """Every schedule within ``bound`` preemptions of each catalogue scenario, per target
    (default: the bundled scheduler and both wheels). Counts are per bound, cumulative."""
    from dataclasses import replace

    from schedcheck import impl
    from schedcheck.concurrency.cases import run_case

    chosen = targets or {
        "scheduler": [("impl.Scheduler", impl.Scheduler)],
        "wheel": [("impl.HashedTimingWheel", impl.HashedTimingWheel),
                  ("impl.HierarchicalTimingWheel", impl.HierarchicalTimingWheel)],
    }
    known = {s.name: s for s in catalogue()}
    names = scenario_names or list(known)
    for name in names:
        if name not in known:
            raise ValueError(f"unknown scenario {name!r}; known: {sorted(known)}")
    results: list[ScenarioResult] = []
    for name in names:
        scenario = known[name]
        for label, factory in chosen.get(scenario.system, []):

            def judge(schedule: list[int], f: Any = factory, c: Any = scenario.case
                      ) -> tuple[RunOutcome, bool, Any]:
                outcome = run_case(f, replace(c, schedule=schedule))
                return outcome.run, outcome.ok, outcome

            counts: dict[int, int] = {}
            result = ScenarioResult(name, scenario.system, scenario.words, label, bound, counts,
                                    True)
            for b in range(bound + 1):
                found = explore(judge, bound=b, max_runs=max_runs)
                counts[b] = found.schedules
                if found.failing is not None:
                    result.violation = (f"{found.failure.verdict}: {found.failure.message} "
                                        f"(schedule {found.failing})")
                    result.failing_schedule = found.failing
                    result.complete = False
                    break
                if not found.complete:
                    result.complete = False
                    break
            results.append(result)
    return results
