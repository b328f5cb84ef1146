"""The reference model's own promises: copies, snapshots, equality, handles by seq, its
invariant check, and the decisions (D1-D9) its docstring records."""

from __future__ import annotations

import copy

import pytest
from schedcheck.model import Handle, TimingWheel


def noop() -> None:
    pass


def busy_wheel() -> TimingWheel:
    w = TimingWheel(5, 4, start=-12, max_catchup_ticks=3, max_pending=10)
    for d in (-30, 0, 7, 40, 41, 200):
        w.schedule(d, noop)
    w.cancel(w._handle(3))
    w.advance(20)
    return w


def test_copy_is_equal_and_independent() -> None:
    w = busy_wheel()
    twin = w.copy()
    assert twin == w
    assert twin.snapshot() == w.snapshot()
    while twin.advance(500) or twin.lag_ticks():  # budget 3: drain the backlog
        pass
    assert twin != w
    assert w.pending() == 4 and twin.pending() == 0
    w.check_invariants()
    twin.check_invariants()


def test_deepcopy_is_a_copy() -> None:
    w = busy_wheel()
    assert copy.deepcopy(w) == w


def test_copied_handles_are_the_copys_own_and_map_by_seq() -> None:
    w = busy_wheel()
    twin = w.copy()
    original = w._handle(5)
    mirrored = twin._handle(5)
    assert mirrored is not original
    assert (mirrored.seq, mirrored.deadline, mirrored.due_tick) == (5, 200, 40)
    assert twin.cancel(original) is False  # D8: another wheel's handle
    assert twin.cancel(mirrored) is True
    assert not original.cancelled


def test_equality_ignores_callbacks_but_not_timers() -> None:
    a, b = TimingWheel(1, 4), TimingWheel(1, 4)
    a.schedule(3, noop)
    b.schedule(3, print)
    assert a == b  # D9: callbacks are not compared
    b.schedule(4, noop)
    assert a != b
    assert a != "not a wheel"


def test_wheels_are_unhashable_because_they_are_mutable() -> None:
    with pytest.raises(TypeError):
        hash(TimingWheel(1, 4))


def test_handle_for_an_unknown_seq_is_a_key_error() -> None:
    with pytest.raises(KeyError):
        TimingWheel(1, 4)._handle(0)


def test_wheel_size_does_not_change_any_answer() -> None:
    runs = []
    for size in (1, 3, 64):
        w = TimingWheel(3, size, max_catchup_ticks=2)
        hs = [w.schedule(d, noop) for d in (1, 9, 9, 31, -4)]
        out = [[hs.index(h) for h in w.advance(now)] for now in (0, 10, 10, 40, 40, 40)]
        runs.append((out, w.lag_ticks(), w.pending()))
    assert runs[0] == runs[1] == runs[2]


def test_check_invariants_catches_a_live_timer_behind_the_cursor() -> None:
    w = TimingWheel(1, 4)
    h = w.schedule(5, noop)
    w.advance(3)
    h._due_tick = h._deadline = 2  # corrupt on purpose
    with pytest.raises(AssertionError, match="behind the cursor"):
        w.check_invariants()


def test_check_invariants_catches_a_fired_and_cancelled_handle() -> None:
    w = TimingWheel(1, 4)
    h = w.schedule(0, noop)
    w.advance(0)
    h._cancelled = True
    with pytest.raises(AssertionError, match="both fired and cancelled"):
        w.check_invariants()


def test_errors_take_no_sequence_number() -> None:
    w = TimingWheel(1, 4, max_pending=1)
    w.schedule(1, noop)
    with pytest.raises(Exception, match="wheel is full"):
        w.schedule(2, noop)
    w.advance(1)
    assert w.schedule(2, noop).seq == 1


def test_the_executor_is_called_after_every_handle_is_marked_fired() -> None:
    seen: list[list[bool]] = []
    w: TimingWheel

    class Peeking:
        def submit(self, fn: object, /) -> None:
            seen.append([h.fired for h in hs])

    w = TimingWheel(1, 4, executor=Peeking())
    hs = [w.schedule(d, noop) for d in (0, 1, 2)]
    w.advance(2)
    assert seen == [[True, True, True]] * 3  # D3: the whole window first, then submissions


def test_a_keyboard_interrupt_from_a_callback_is_not_swallowed() -> None:
    fns = []

    class Keeping:
        def submit(self, fn: object, /) -> None:
            fns.append(fn)

    def interrupt() -> None:
        raise KeyboardInterrupt

    w = TimingWheel(1, 4, executor=Keeping())
    w.schedule(0, interrupt)
    w.advance(0)
    with pytest.raises(KeyboardInterrupt):
        fns[0]()
    assert w.callback_errors() == 0


def test_handle_repr_says_its_state() -> None:
    w = TimingWheel(10, 4)
    h = w.schedule(15, noop)
    assert repr(h) == "<Handle seq=0 deadline=15 due=2 pending>"
    w.cancel(h)
    assert repr(h).endswith("cancelled>")
    assert isinstance(h, Handle)


def test_check_invariants_catches_a_stale_due_tick_index() -> None:
    w = TimingWheel(1, 4)
    h = w.schedule(5, noop)
    w._by_due[6] = {h.seq}  # corrupt on purpose: a second entry for the same timer
    with pytest.raises(AssertionError, match="due-tick index"):
        w.check_invariants()


def test_a_long_advance_and_a_short_one_fire_the_same_timers() -> None:
    # the index is walked by tick for a short window and by key for a long one
    a, b = TimingWheel(1, 4), TimingWheel(1, 4)
    for w in (a, b):
        for d in (3, 3, 900, 50_000, 7):
            w.schedule(d, noop)
    long_run = [h.seq for h in a.advance(60_000)]
    short_run = [h.seq for now in range(0, 60_001, 7) for h in b.advance(now)]
    assert long_run == short_run == [0, 1, 4, 2, 3]
