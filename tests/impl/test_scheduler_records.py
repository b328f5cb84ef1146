"""The scheduler's per-slot columns: reverse edges as packed slots, ghosts, copies, batches."""

from __future__ import annotations

import gc

import pytest
from schedcheck.impl import Scheduler
from schedcheck.impl.scheduler._support import slots

from schedcheck.contract import Claim, Outcome, TaskState


def _dependents(s: Scheduler, task_id: str) -> list[str]:
    return [s._id[d] for d in slots(s._out[s._slot[task_id]])]


def test_resubmit_unlinks_its_own_reverse_edge_not_a_sibling() -> None:
    s = Scheduler(3)
    s.submit("h")
    s.submit("x", ["h"])
    s.submit("y", ["h"])
    s.submit("y", [])
    assert _dependents(s, "h") == ["x"]
    s.check_invariants()
    s.start()
    assert sorted(c.task_id for c in s.ready()) == ["h", "y"]
    assert s.complete("h", 1).outcome is Outcome.APPLIED
    assert [c.task_id for c in s.ready()] == ["x"]
    s.check_invariants()


def test_a_resubmit_with_the_same_dep_keeps_exactly_one_reverse_edge() -> None:
    s = Scheduler(1)
    s.submit("a")
    s.submit("b", ["a"])
    s.submit("b", ["a"])  # resubmit: the old edge from a is found and unlinked
    s.check_invariants()
    assert s.deps_of("b") == ("a",)
    assert _dependents(s, "a") == ["b"]


def test_a_ghost_that_loses_its_last_edge_is_forgotten() -> None:
    s = Scheduler(1)
    s.submit("b", ["later"])
    assert "later" in s._ghosts and _dependents(s, "later") == ["b"]
    s.submit("b", [])
    assert "later" not in s._ghosts and "later" not in s._slot
    s.check_invariants()
    s.start()  # no unknown dependency is left
    assert [c.task_id for c in s.ready()] == ["b"]


def test_a_submitted_graph_holds_no_tracked_object_per_task() -> None:
    # The point of the columns: ints, bytearrays and (after a collection) tuples of ids are
    # not tracked by the cyclic collector, so its passes do not grow with the tasks.
    s = Scheduler(10)
    for i in range(1000):
        s.submit(i, [i - 1, i - 2] if i > 1 else [])
    gc.collect()
    tracked = [v for name in ("_out", "_deps", "_id", "_st") for v in getattr(s, name)
               if gc.is_tracked(v)]
    assert tracked == []
    queue = [*s._heap, *s._incoming]  # bare int keys: no index object beside them
    assert queue and not any(map(gc.is_tracked, queue))


def test_copy_copies_the_buffers_and_the_rare_fields() -> None:
    s = Scheduler(2)
    s.submit("a")
    s.submit("b", ["a"])
    s.submit("c", optional=["a"])
    c = s.copy()
    assert c._out[c._slot["a"]] == s._out[s._slot["a"]]
    assert c._out[c._slot["a"]] is not s._out[s._slot["a"]]
    assert c._oout is not s._oout and c._oout == s._oout
    c.check_invariants()
    c.start()
    assert [x.task_id for x in c.ready()] == ["a"]
    c.complete("a", 1)
    assert sorted(x.task_id for x in c.ready()) == ["b", "c"]
    assert s.info("b").state is TaskState.PENDING  # the original is untouched
    s.check_invariants()


def test_batch_paths_are_the_same_calls_one_by_one() -> None:
    def build() -> Scheduler:
        s = Scheduler(3)
        s.submit("a")
        s.submit("b")
        s.submit("c", ["a", "b"])
        s.start()
        return s

    one, many = build(), build()
    claims = one.ready()
    assert all(type(c) is Claim for c in claims)
    pairs = many.ready_pairs()
    assert pairs == [(c.task_id, c.generation) for c in claims]
    assert all(type(p) is tuple for p in pairs)
    replies = [one.complete(*c[:2]) for c in [*claims, claims[0], ("a", 7)]]
    assert many.complete_many([*pairs, pairs[0], ("a", 7)]) == replies
    assert [r.outcome for r in replies] == [Outcome.APPLIED, Outcome.APPLIED,
                                            Outcome.DUPLICATE, Outcome.STALE]
    assert one.snapshot() == many.snapshot()
    assert many.ready_pairs() == [("c", 1)]
    many.check_invariants()


def test_the_observed_scheduler_sees_every_claim_of_a_batch() -> None:
    from schedcheck.impl.scheduler.observability import ObservedScheduler

    s = ObservedScheduler(4)
    s.submit("a")
    s.submit("b", ["a"])
    s.start()
    pairs = s.ready_pairs()
    assert pairs == [("a", 1)]
    assert [r.outcome for r in s.complete_many(pairs)] == [Outcome.APPLIED]
    assert s.ready_pairs() == [("b", 1)]
    obs = s.observed()
    assert obs.propagation_edges == 1 and sum(c.claims for c in obs.segments.values()) == 2


def test_a_batch_of_running_claims_completes_as_one_call_each() -> None:
    # complete_many() of distinct RUNNING claims takes the batch path (C loops, one walk of
    # the joined dependents); anything else falls back to one complete() per claim.
    now = [0.5]

    def build() -> Scheduler:
        s = Scheduler(10, clock=lambda: now[0])
        for i in range(8):
            s.submit(i, [j for j in range(i) if (i * j) % 3 == 1])
        s.start()
        return s

    one, many = build(), build()
    while True:
        a, b = one.ready_pairs(), many.ready_pairs()
        assert a == b
        if not a:
            break
        now[0] = now[0] * 1.7 + 0.1  # the claims ran for a while
        assert [one.complete(*c) for c in a] == many.complete_many(a)
        assert one.snapshot() == many.snapshot() and vars(one.metrics()) == vars(many.metrics())
        many.check_invariants()
    again = many.complete_many([(0, 1), (0, 1), (1, 1)])  # not RUNNING: call by call
    assert [r.outcome for r in again] == [Outcome.DUPLICATE] * 3
    with pytest.raises(TypeError, match="generation must be an int"):
        many.complete_many([(2, True)])


def test_a_batch_completion_mixes_an_int_clock_with_float_claim_times() -> None:
    # a clock may return a float at the claim and an int at the completion (a fake clock
    # moved by whole seconds after a fractional start): the batch sums the run times as
    # one complete() per claim would, instead of failing on int.__sub__(float)
    now: list[float] = [0.25]
    s = Scheduler(4, clock=lambda: now[0])
    for i in range(3):
        s.submit(i, [])
    s.start()
    pairs = s.ready_pairs()
    now[0] = 2
    assert [r.outcome for r in s.complete_many(pairs)] == [Outcome.APPLIED] * 3
    m = s.metrics()
    assert (m.run_count, m.run_total, m.run_max) == (3, 5.25, 1.75)
