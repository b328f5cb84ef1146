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
