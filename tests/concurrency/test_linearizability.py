"""The Wing-Gong/Lowe checker on a register and a FIFO queue with known answers."""

from __future__ import annotations

from typing import Any

from schedcheck.concurrency.history import History
from schedcheck.concurrency.linearizability import OK, UNKNOWN, VIOLATION, check


class Register:
    def __init__(self, value: int = 0) -> None:
        self.value = value

    def copy(self) -> Register:
        return Register(self.value)

    def key(self) -> int:
        return self.value

    def apply(self, call: tuple[Any, ...]) -> Any:
        if call[0] == "write":
            self.value = call[1]
            return None
        if call[0] == "cas":
            if self.value == call[1]:
                self.value = call[2]
                return True
            return False
        return self.value


class FifoQueue:
    def __init__(self, items: tuple[int, ...] = ()) -> None:
        self.items = items

    def copy(self) -> FifoQueue:
        return FifoQueue(self.items)

    def key(self) -> tuple[int, ...]:
        return self.items

    def apply(self, call: tuple[Any, ...]) -> Any:
        if call[0] == "enq":
            self.items = (*self.items, call[1])
            return None
        if not self.items:
            return "empty"
        head, self.items = self.items[0], self.items[1:]
        return head


def build(spec: list[tuple[str, tuple[Any, ...], Any, int, int | None]]) -> History:
    """(lane, call, response, invoked, returned) rows -> a History with those times."""
    history = History()
    for lane, call, response, invoked, returned in spec:
        op = history.invoke(lane, call)
        op.invoked = invoked
        op.response = response
        op.returned = returned
    return history


def test_overlapping_write_and_read_of_the_new_value_is_linearizable() -> None:
    h = build([("t0", ("write", 1), None, 1, 4), ("t1", ("read",), 1, 2, 3)])
    result = check(h, Register())
    assert result.verdict == OK
    assert [s.value for s in result.final_states] == [1]


def test_a_read_of_a_value_never_written_is_not_linearizable() -> None:
    h = build([("t0", ("write", 1), None, 1, 2), ("t1", ("read",), 2, 3, 4)])
    result = check(h, Register())
    assert result.verdict == VIOLATION
    assert result.failed is not None and result.failed.lane == "t1"
    assert result.model_would_answer == [1]
    assert "t1: ('read',) -> 2" in result.message


def test_a_stale_read_after_the_write_returned_is_not_linearizable() -> None:
    h = build([
        ("t0", ("write", 1), None, 1, 2),
        ("t1", ("write", 2), None, 3, 4),
        ("t0", ("read",), 1, 5, 6),
    ])
    result = check(h, Register())
    assert result.verdict == VIOLATION
    assert [op.call for op in result.longest] == [("write", 1), ("write", 2)]


def test_two_successful_cas_from_the_same_value_are_not_linearizable() -> None:
    h = build([("t0", ("cas", 0, 1), True, 1, 4), ("t1", ("cas", 0, 2), True, 2, 3)])
    assert check(h, Register()).verdict == VIOLATION


def test_concurrent_writes_carry_both_possible_final_states() -> None:
    h = build([("t0", ("write", 1), None, 1, 4), ("t1", ("write", 2), None, 2, 3)])
    result = check(h, Register())
    assert result.verdict == OK
    assert sorted(s.value for s in result.final_states) == [1, 2]


def test_queue_dequeues_in_an_order_consistent_with_overlapping_enqueues() -> None:
    ok = build([
        ("t0", ("enq", 1), None, 1, 5),
        ("t1", ("enq", 2), None, 2, 3),
        ("t2", ("deq",), 2, 4, 6),
        ("t2", ("deq",), 1, 7, 8),
    ])
    assert check(ok, FifoQueue()).verdict == OK
    bad = build([
        ("t0", ("enq", 1), None, 1, 2),
        ("t1", ("enq", 2), None, 3, 4),
        ("t2", ("deq",), 2, 5, 6),
    ])
    result = check(bad, FifoQueue())
    assert result.verdict == VIOLATION and result.model_would_answer == [1]


def test_an_operation_that_never_returned_may_take_effect_or_not() -> None:
    h = build([("t0", ("write", 1), None, 1, None), ("t1", ("read",), 1, 2, 3)])
    assert check(h, Register()).verdict == OK
    h2 = build([("t0", ("write", 1), None, 1, None), ("t1", ("read",), 0, 2, 3)])
    assert check(h2, Register()).verdict == OK


def test_a_search_out_of_budget_says_unknown_never_ok() -> None:
    rows = [(f"t{i}", ("write", i), None, 1 + i, 100 + i) for i in range(8)]
    rows.append(("t9", ("read",), 99, 50, 60))
    result = check(build(rows), Register(), budget=20)
    assert result.verdict == UNKNOWN
    assert "unknown (not a pass)" in result.message


def test_partitioned_keys_are_checked_independently() -> None:
    h = build([
        ("t0", ("write", 1), None, 1, 4),
        ("t1", ("read",), 1, 2, 3),
    ])
    result = check(h, Register(), partition=lambda op: op.lane)
    # Each lane alone: t1's read of 1 from a fresh register is impossible.
    assert result.verdict == VIOLATION
