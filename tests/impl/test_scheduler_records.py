"""The scheduler's records are lists of their dependents: they must still behave as identities."""

from __future__ import annotations

from schedcheck.impl import Scheduler

from schedcheck.contract import Outcome, TaskState


def test_resubmit_unlinks_its_own_reverse_edge_not_an_equal_looking_sibling() -> None:
    # x and y both depend on h and have no dependents: as plain lists they would be equal,
    # and list.remove(y) would unlink x.
    s = Scheduler(3)
    s.submit("h")
    s.submit("x", ["h"])
    s.submit("y", ["h"])
    s.submit("y", [])
    assert [r.task_id for r in s._tasks["h"].dependents] == ["x"]
    s.check_invariants()
    s.start()
    assert sorted(c.task_id for c in s.ready()) == ["h", "y"]
    assert s.complete("h", 1).outcome is Outcome.APPLIED
    assert [c.task_id for c in s.ready()] == ["x"]
    s.check_invariants()


def test_a_record_without_dependents_is_still_found_as_a_dependency() -> None:
    # A record's truth value is "has dependents": lookups must not treat it as missing.
    s = Scheduler(1)
    s.submit("a")
    s.submit("b", ["a"])
    s.submit("b", ["a"])  # resubmit: the old edge from a is found and unlinked
    s.check_invariants()
    assert s.deps_of("b") == ("a",)
    assert len(s._tasks["a"].dependents) == 1


def test_records_compare_and_hash_by_identity_and_print_briefly() -> None:
    s = Scheduler(1)
    s.submit("a")
    s.submit("b")
    a, b = s._tasks["a"], s._tasks["b"]
    assert list(a) == list(b) == [] and a != b and (a == b) is False
    assert len({a, b}) == 2
    assert repr(a) == "<_Rec 'a' g1 READY>"
    assert a.state is TaskState.READY


def test_copy_clones_the_reverse_edges_into_the_new_records() -> None:
    s = Scheduler(2)
    s.submit("a")
    s.submit("b", ["a"])
    c = s.copy()
    ca, cb = c._tasks["a"], c._tasks["b"]
    assert list(ca) == [cb] and ca[0] is cb and ca is not s._tasks["a"]
    c.check_invariants()
    c.start()
    assert [x.task_id for x in c.ready()] == ["a"]
    c.complete("a", 1)
    assert [x.task_id for x in c.ready()] == ["b"]
    assert s.info("b").state is TaskState.PENDING  # the original is untouched
