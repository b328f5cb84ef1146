"""The crash tests' judge must be able to say no: histories with each kind of violation."""

from __future__ import annotations

from typing import Any

from schedcheck.harness.leases.history import check_history


def claim(task: str, gen: int, token: int, start: float, pid: int = 1,
          lease: float = 10.0) -> dict[str, Any]:
    return {"ev": "claim", "task": task, "gen": gen, "token": token, "start": start,
            "expires": start + lease, "pid": pid}


def report(task: str, gen: int, token: int, t: float, outcome: str = "APPLIED",
           pid: int = 1) -> list[dict[str, Any]]:
    base = {"task": task, "gen": gen, "token": token, "op": "complete", "pid": pid}
    return [{"ev": "report-begin", **base, "t": t},
            {"ev": "report", **base, "t": t + 0.001, "outcome": outcome}]


def rules(events: list[dict[str, Any]], final: dict[str, str]) -> list[str]:
    return sorted({v.rule for v in check_history(events, final)})


def test_a_crash_and_a_reclaim_after_expiry_is_a_valid_history() -> None:
    events = [claim("a", 1, 1, 0.0, pid=1), claim("b", 1, 2, 0.0, pid=2),
              *report("b", 1, 2, 1.0, pid=2),
              claim("a", 2, 3, 10.5, pid=2), *report("a", 2, 3, 11.0, pid=2)]
    assert check_history(events, {"a": "SUCCEEDED", "b": "SUCCEEDED"}) == []


def test_a_renewed_lease_moves_the_earliest_reclaim() -> None:
    renew = {"ev": "renew", "task": "a", "gen": 1, "token": 1, "expires": 25.0, "pid": 1}
    early = [claim("a", 1, 1, 0.0), renew, claim("a", 2, 2, 15.0, pid=2),
             *report("a", 2, 2, 16.0, pid=2)]
    assert rules(early, {"a": "SUCCEEDED"}) == ["H3"]


def test_two_live_claims_of_one_task_are_found() -> None:
    events = [claim("a", 1, 1, 0.0), claim("a", 2, 2, 5.0, pid=2),
              *report("a", 2, 2, 6.0, pid=2)]
    assert rules(events, {"a": "SUCCEEDED"}) == ["H3"]


def test_a_completion_by_a_fenced_worker_is_found() -> None:
    events = [claim("a", 1, 1, 0.0), claim("a", 2, 2, 11.0, pid=2),
              *report("a", 1, 1, 12.0), *report("a", 2, 2, 13.0, outcome="STALE", pid=2)]
    assert rules(events, {"a": "SUCCEEDED"}) == ["H4"]


def test_lost_and_doubly_applied_tasks_are_found() -> None:
    never = [claim("a", 1, 1, 0.0), *report("a", 1, 1, 1.0)]
    assert rules(never, {"a": "SUCCEEDED", "b": "READY"}) == ["H1", "H2"]
    twice = [claim("a", 1, 1, 0.0), *report("a", 1, 1, 1.0),
             claim("a", 2, 2, 11.0), *report("a", 2, 2, 12.0)]
    assert rules(twice, {"a": "SUCCEEDED"}) == ["H2"]
    silent = [claim("a", 1, 1, 0.0)]  # SUCCEEDED with no report at all
    assert rules(silent, {"a": "SUCCEEDED"}) == ["H2"]
    cut = [claim("a", 1, 1, 0.0), report("a", 1, 1, 1.0)[0]]  # died after sending it
    assert check_history(cut, {"a": "SUCCEEDED"}) == []
