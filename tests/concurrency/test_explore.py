"""Exhaustive bounded-preemption exploration and the fixed scenario catalogue."""

from __future__ import annotations

from typing import Any

from schedcheck.concurrency import baton
from schedcheck.concurrency import primitives as P
from schedcheck.concurrency.explore import catalogue, explore, run_exhaustive
from schedcheck.zoo import race_mutants as rm


def counter_run(schedule: list[int]) -> tuple[baton.RunOutcome, bool, int]:
    lock = P.Lock()
    box = [0]

    def increment() -> None:
        with lock:
            seen = box[0]
        with lock:
            box[0] = seen + 1

    out = baton.run([increment, increment], schedule)
    return out, box[0] == 2, box[0]


def test_bound_zero_runs_exactly_the_schedule_without_preemptions() -> None:
    result = explore(counter_run, bound=0)
    assert result.schedules == 1 and result.complete and result.failing is None


def test_the_lost_update_is_found_at_bound_one_with_a_single_preemption() -> None:
    result = explore(counter_run, bound=2)
    assert result.failing is not None
    assert len(result.failing) == 3  # one (lane, k, skip) triple
    assert result.failure == 1
    assert counter_run(result.failing)[2] == 1


def test_every_schedule_within_the_bound_is_distinct() -> None:
    seen: list[list[tuple[str, str]]] = []

    def record(schedule: list[int]) -> tuple[baton.RunOutcome, bool, None]:
        out, _ok, _value = counter_run(schedule)
        seen.append(out.trace)
        return out, True, None

    result = explore(record, bound=2, stop_at_first=False)
    assert result.complete and result.schedules == len(seen)
    assert len({tuple(t) for t in seen}) == len(seen)


def test_the_correct_implementations_have_no_violation_within_bound_two() -> None:
    results = run_exhaustive(bound=2)
    assert {r.name for r in results} == {s.name for s in catalogue()}
    for r in results:
        assert r.complete and r.violation is None, r.text
        assert r.schedules[0] == 1 and r.schedules[2] > r.schedules[1] > 1
        assert "no violation within bound 2" in r.text


def test_each_racy_mutant_is_caught_by_some_catalogue_scenario() -> None:
    mutants: dict[str, list[tuple[str, Any]]] = {
        "scheduler": [("claim", rm.ClaimCheckThenWriteScheduler),
                      ("decrement", rm.UnlockedDecrementScheduler)],
        "wheel": [("cancel", rm.CancelNoRecheckWheel), ("max_pending", rm.SplitMaxPendingWheel)],
    }
    results = run_exhaustive(bound=2, targets=mutants)
    caught = {r.target for r in results if r.violation}
    assert caught == {"claim", "decrement", "cancel", "max_pending"}
    for r in results:
        if r.violation:
            assert r.failing_schedule is not None and len(r.failing_schedule) <= 6
