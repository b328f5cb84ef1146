"""Ties between timers whose schedule calls overlapped in a concurrent round: either order.

A round's linearization puts one of two overlapping ``schedule`` calls first; nothing the
target shows after the round says which, so the tie order of the two timers at firing is
either (the bundled hashed wheel was blamed for W3 under ``--threads`` before this)."""

from schedcheck.concurrency.history import Operation
from schedcheck.concurrency.mixins import _mark_unordered
from schedcheck.harness.wheel.ledger import TimerRecord, same_up_to_unordered_ties


def _rec(seq: int, due: int) -> TimerRecord:
    return TimerRecord(name=f"h_{seq}", seq=seq, deadline=due, callback=f"cb_{seq}",
                       raises=False, due_tick=due)


def _op(i: int, label: str, invoked: int, returned: int) -> Operation:
    return Operation(id=i, lane=f"t{i}", call=("schedule", label, 10), invoked=invoked,
                     returned=returned, response="handle")


def test_overlapping_schedules_may_fire_in_either_order_at_one_tick() -> None:
    a, b, c = _rec(2, 33), _rec(3, 33), _rec(4, 33)
    _mark_unordered([_op(0, "t0.h0", 1, 5), _op(1, "t1.h0", 2, 6)], {"t0.h0": a, "t1.h0": b})
    assert a.unordered == {"h_3"} and b.unordered == {"h_2"} and not c.unordered
    assert same_up_to_unordered_ties([a, b, c], ["h_3", "h_2", "h_4"])
    assert not same_up_to_unordered_ties([a, b, c], ["h_4", "h_2", "h_3"])  # c had no overlap


def test_calls_one_after_the_other_keep_their_order() -> None:
    a, b = _rec(2, 33), _rec(3, 33)
    _mark_unordered([_op(0, "t0.h0", 1, 2), _op(1, "t1.h0", 3, 4)], {"t0.h0": a, "t1.h0": b})
    assert not a.unordered and not b.unordered
    assert not same_up_to_unordered_ties([a, b], ["h_3", "h_2"])


def test_overlap_never_excuses_another_due_tick_or_a_missing_timer() -> None:
    a, b = _rec(2, 33), _rec(3, 34)
    a.unordered, b.unordered = frozenset({"h_3"}), frozenset({"h_2"})
    assert not same_up_to_unordered_ties([a, b], ["h_3", "h_2"])  # due tick order is fixed
    assert not same_up_to_unordered_ties([a, b], ["h_2"])
    assert not same_up_to_unordered_ties([a, b], ["h_2", "h_2"])
