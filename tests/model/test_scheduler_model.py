"""The reference model itself: its transition table, its decisions D1-D10, its helpers.

Contract behaviour shared with the production scheduler is tested on both classes in
tests/impl/test_scheduler_contract.py; this file holds what is the model's own."""

from __future__ import annotations

from typing import Any

import pytest
from schedcheck.model import Scheduler
from schedcheck.model.scheduler import TRANSITIONS, TaskDetails, find_cycle

from schedcheck import impl
from schedcheck.contract import (
    Cause,
    ClosedError,
    NotStartedError,
    Outcome,
    Reply,
    TaskInfo,
    TaskState,
    UnknownTaskError,
)

P, R, RUN = TaskState.PENDING, TaskState.READY, TaskState.RUNNING
OK, FAIL, BLK, CAN = (
    TaskState.SUCCEEDED, TaskState.FAILED, TaskState.BLOCKED, TaskState.CANCELLED,
)


def scheduler_in(state: TaskState, requested: bool = False, cls: Any = Scheduler) -> Any:
    """A started scheduler whose task 'a' (generation 1) is in ``state``."""
    s = cls(1)
    s.submit("root")
    s.submit("a", ["root"] if state in (P, BLK) else [])
    s.start()
    if state is BLK:
        s.cancel("root")
    elif state is CAN and not requested:
        s.cancel("a")
    elif state is not P and state is not R:
        assert [c.task_id for c in s.ready(limit=1)] == ["root"]
        s.complete("root", 1)
        assert [c.task_id for c in s.ready()] == ["a"]
        if requested:
            s.cancel("a")
        if state is OK:
            s.complete("a", 1)
        elif state in (FAIL, CAN):
            s.fail("a", 1)
    assert s.info("a").state is state and s.cancel_requested("a", 1) is requested
    return s


KEYS = [(call, st, req) for call in ("complete", "fail", "cancel") for st in TaskState
        for req in (False, True)
        if not req or st in (RUN, OK, CAN)]


@pytest.mark.parametrize("cls", [Scheduler, impl.Scheduler], ids=["model", "impl"])
@pytest.mark.parametrize(("call", "st", "req"), KEYS, ids=[f"{c}-{s.name}-{r}" for c, s, r in KEYS])
def test_every_call_on_every_state_follows_the_transition_table(call: str, st: TaskState,
                                                                 req: bool, cls: Any) -> None:
    s = scheduler_in(st, req, cls)
    reply = getattr(s, call)("a", 1)
    outcome, nxt = TRANSITIONS.get((call, st, req), (Outcome.REJECTED, st))
    assert reply == Reply(outcome, nxt)
    assert s.info("a").state is nxt
    s.check_invariants()


def test_the_table_has_exactly_the_pairs_of_rules_4_to_6() -> None:
    applied = {(c, s) for (c, s, _), (o, _) in TRANSITIONS.items() if o is Outcome.APPLIED}
    assert applied == {("complete", RUN), ("fail", RUN), ("cancel", P), ("cancel", R)}
    assert TRANSITIONS["fail", RUN, True] == (Outcome.APPLIED, CAN)
    assert TRANSITIONS["cancel", RUN, False] == (Outcome.REQUESTED, RUN)


def test_info_is_a_taskinfo_with_the_extra_attributes() -> None:
    s = Scheduler(1)
    s.submit("a")
    info = s.info("a")
    assert isinstance(info, TaskInfo) and isinstance(info, TaskDetails)
    assert info == TaskInfo("a", 1, R, None) == ("a", 1, R, None)
    assert (info.error, info.optional_failed) == (None, ())


def test_d2_ready_of_a_closed_never_started_scheduler_is_not_started() -> None:
    s = Scheduler(1)
    s.close()
    with pytest.raises(NotStartedError):
        s.ready()
    with pytest.raises(ClosedError):
        s.start()


def test_d3_complete_before_start_is_rejected() -> None:
    s = Scheduler(1)
    s.submit("a")
    assert s.complete("a", 1) == Reply(Outcome.REJECTED, R)


def test_d4_generation_zero_or_negative_is_stale_not_an_error() -> None:
    s = Scheduler(1)
    s.submit("a")
    assert s.cancel("a", 0) == Reply(Outcome.STALE, R)
    assert s.complete("a", -3) == Reply(Outcome.STALE, R)


def test_d5_cancel_requested_of_an_unknown_id_raises() -> None:
    with pytest.raises(UnknownTaskError):
        Scheduler(1).cancel_requested("x", 1)


def test_d9_retry_orders_by_dependency_so_the_subtree_is_not_reblocked() -> None:
    s = Scheduler(5)
    s.submit("leaf", ["root"])  # stamped before its root
    s.submit("root")
    s.start()
    s.ready()
    s.fail("root", 1)
    assert s.retry("root") == {"leaf": 2, "root": 2}  # ascending old stamp
    assert s.info("leaf").state is P and s.info("root").state is R


def test_copy_is_equal_and_independent() -> None:
    s = Scheduler(2)
    s.submit("a")
    s.submit("b", ["a"])
    c = s.copy()
    assert c == s and c.snapshot() == s.snapshot()
    s.start()
    assert c != s
    c.start()
    assert c == s
    c.cancel("a")
    assert s.info("a").state is R


def test_check_invariants_names_the_task_and_its_dead_dependency() -> None:
    s = Scheduler(1)
    s.submit("a")
    s.submit("b", ["a"])
    s.cancel("a")
    s._tasks["b"].state = P  # corrupt: a PENDING task with a dead dependency
    s._tasks["b"].cause = None
    story = r"'b' g1 :: PENDING with dead dep 'a' g1 \(CANCELLED\)"
    with pytest.raises(AssertionError, match=story):
        s.check_invariants()


def test_find_cycle_follows_dependencies() -> None:
    deps = {"a": ["b"], "b": ["c"], "c": ["a"], "d": []}
    cycle = find_cycle(["d", "a"], lambda x: deps[x])
    assert cycle == ["a", "c", "b", "a"]
    assert find_cycle(["d"], lambda x: deps[x]) is None


def test_blocked_cause_names_the_root_even_through_a_chain() -> None:
    s = Scheduler(1)
    s.submit("a")
    s.submit("b", ["a"])
    s.submit("c", ["b"])
    s.start()
    s.ready()
    s.fail("a", 1)
    assert s.info("c").cause == Cause("failed", "a", 1)
    assert s.info("c").cause.kind != "blocked"


def test_the_production_scheduler_has_every_public_method_of_the_model() -> None:
    public = {n for n in dir(Scheduler) if not n.startswith("_")}
    assert public <= {n for n in dir(impl.Scheduler) if not n.startswith("_")}
    assert {"submit", "start", "ready", "complete", "fail", "cancel", "close", "info",
            "cancel_requested", "add_dependency", "retry", "check_invariants", "snapshot",
            "copy", "task_ids", "deps_of", "optional_of"} <= public
