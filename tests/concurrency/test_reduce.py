"""The bounded race reduction: it keeps a failing round, never grows it, and stops at each of
its budgets -- decided by counted candidates and an injected clock, never by wall time."""

from __future__ import annotations

from dataclasses import replace
from itertools import count

import pytest

from schedcheck.concurrency.cases import Case, run_case
from schedcheck.concurrency.reduce import candidates, case_size, reduce_bounded
from schedcheck.concurrency.rounds import RoundOutcome
from schedcheck.zoo import race_mutants as rm

# A round the unlocked decrement fails: a diamond whose two dependencies complete together,
# with one extra operation and an extra preemption to reduce away.
DIAMOND = Case("scheduler", (2,), {},
               [("submit", "a", ()), ("submit", "b", ()), ("submit", "c", ("a", "b")),
                ("start",), ("ready", None)],
               [[("complete", "a"), ("info", "c")], [("complete", "b")]], ["t0", "t1"])


def _failing() -> tuple[Case, RoundOutcome]:
    """The diamond under the first schedule within one preemption that fails."""
    from schedcheck.concurrency.explore import explore

    def judge(schedule: list[int]) -> tuple[object, bool, object]:
        outcome = run_case(rm.UnlockedDecrementScheduler, Case(**{**DIAMOND.__dict__,
                                                                   "schedule": schedule}))
        return outcome.run, outcome.ok, outcome

    found = explore(judge, bound=2, max_runs=500)
    assert found.failing is not None, "the unlocked decrement should fail the diamond"
    case = Case(**{**DIAMOND.__dict__, "schedule": found.failing})
    assert isinstance(found.failure, RoundOutcome)
    assert found.failure.verdict == "violation", found.failure.message  # a race, not an error
    return case, found.failure


def test_reduction_keeps_a_failing_round_and_never_grows_it() -> None:
    case, outcome = _failing()
    reduced = reduce_bounded(rm.UnlockedDecrementScheduler, case, outcome)
    assert reduced.complete and reduced.stopped == ""
    assert reduced.after <= reduced.before == case_size(case)
    assert reduced.after == case_size(reduced.case)
    assert reduced.case.operations < case.operations  # the info() call is not needed
    assert not run_case(rm.UnlockedDecrementScheduler, reduced.case).ok
    assert "no smaller candidate fails" in reduced.text()


def test_reduction_stops_at_its_time_budget_and_says_so() -> None:
    case, outcome = _failing()
    ticks = count(0, 10)  # every look at the clock: 10 s later
    reduced = reduce_bounded(rm.UnlockedDecrementScheduler, case, outcome, seconds=25,
                             clock=lambda: float(next(ticks)))
    assert reduced.stopped == "25 s budget"
    assert reduced.tried <= 2
    assert "stopped early at its 25 s budget" in reduced.text()
    assert not reduced.outcome.ok


def test_reduction_stops_at_its_memory_budget() -> None:
    case, outcome = _failing()
    grown = count(0, 300)  # 300 MB more at every look
    reduced = reduce_bounded(rm.UnlockedDecrementScheduler, case, outcome, memory_mb=500,
                             memory=lambda: float(next(grown)))
    assert reduced.stopped == "500 MB memory budget"
    assert reduced.tried <= 1


def test_reduction_stops_at_its_candidate_budget() -> None:
    case, outcome = _failing()
    reduced = reduce_bounded(rm.UnlockedDecrementScheduler, case, outcome, max_tries=1)
    assert reduced.tried == 1
    assert reduced.stopped == "1 candidate budget"


@pytest.mark.parametrize("lane", [0, 1])
def test_dropping_a_lane_drops_its_preemptions_and_renumbers_the_rest(lane: int) -> None:
    case = Case("scheduler", (2,), {}, [("start",)], [[("ready", None)], [("ready", None)],
                                                       [("ready", None)]],
                ["t0", "t1", "t2"], schedule=[0, 1, 0, 1, 2, 0, 2, 3, 1])
    smaller = [c for c in candidates(case) if len(c.threads) == 2 and c.operations == 2]
    dropped = smaller[lane]
    lanes = [t[0] for t in (dropped.schedule[i:i + 3]
                            for i in range(0, len(dropped.schedule), 3))]
    assert len(dropped.schedule) == 6  # the dropped lane's one preemption is gone
    assert all(0 <= x < 2 for x in lanes)


def test_reduction_makes_numbers_smaller_as_the_sequential_one_does() -> None:
    """A limit of 7 where the race needs 2 claims at once: the reduction lowers the
    constructor's number with the sequential reduction's candidates, and no further."""
    case, outcome = _failing()
    wide = replace(case, args=(7,))
    again = run_case(rm.UnlockedDecrementScheduler, wide)
    assert again.verdict == outcome.verdict  # the same race under the same schedule
    reduced = reduce_bounded(rm.UnlockedDecrementScheduler, wide, again)
    assert reduced.case.args == (2,)  # both dependencies must run at once
    assert run_case(rm.UnlockedDecrementScheduler, reduced.case).verdict == outcome.verdict


def test_a_ready_limit_never_goes_below_one() -> None:
    case = Case("scheduler", (3,), {}, [("start",), ("ready", 2)], [[("ready", 1)]], ["t0"])
    limits = [c.setup[1][1] for c in candidates(case) if len(c.setup) == 2]
    limits += [c.threads[0][0][1] for c in candidates(case) if c.threads and c.threads[0]]
    assert 1 in limits and all(limit >= 1 for limit in limits)
