"""The production wheels' insides: explicit rounds, levels, occupancy skipping, the lock
discipline, copies and next_event_tick. Costs are checked by counting the nodes a wheel
touches, never by timing (the benchmark and W-COST measure time)."""

from __future__ import annotations

import ast
import gc
import subprocess
import sys
import threading
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from schedcheck.impl import HashedTimingWheel, HierarchicalTimingWheel
from schedcheck.impl.wheel._buckets import _BucketArray

WHEELS = [HashedTimingWheel, HierarchicalTimingWheel]
IDS = ["hashed", "hierarchical"]
ROOT = Path(__file__).resolve().parents[2]


def noop() -> None:
    pass


class CountingArray(_BucketArray):
    """Counts the nodes a wheel detaches from its buckets (its per-tick work)."""

    touched = 0

    def take(self, index: int) -> list[Any]:
        nodes = super().take(index)
        CountingArray.touched += len(nodes)
        return nodes


def counting(cls: Any) -> Any:
    class Counting(cls):  # type: ignore[misc,valid-type]
        def _init_buckets(self) -> None:
            super()._init_buckets()
            if hasattr(self, "_levels"):
                self._levels = [CountingArray(self._base)]
            else:
                self._buckets = CountingArray(self._wheel_size)

        def _level_for(self, delta: int) -> int:  # new levels count too
            level = super()._level_for(delta)
            self._levels = [a if isinstance(a, CountingArray)
                            else CountingArray(self._base) for a in self._levels]
            return level

    return Counting


# ------------------------------------------------------------------------------ hashed wheel


def test_hashed_rounds_are_remaining_rotations_relative_to_the_cursor() -> None:
    w = HashedTimingWheel(1, 8)
    a, b, c = (w.schedule(d, noop) for d in (3, 11, 19))
    assert [h.rounds for h in (a, b, c)] == [0, 1, 2]
    assert w.advance(3) == [a]  # bucket 3 visited: b and c lose a round each
    assert [b.rounds, c.rounds] == [0, 1]
    w.check_invariants()


def test_hashed_check_invariants_catches_wrong_rounds() -> None:
    w = HashedTimingWheel(1, 8)
    h = w.schedule(19, noop)
    h._rounds = 0
    with pytest.raises(AssertionError, match="has rounds 0, expected 2"):
        w.check_invariants()


def test_hashed_check_invariants_catches_a_pending_count_off_by_one() -> None:
    w = HashedTimingWheel(1, 8)
    w.schedule(19, noop)
    w._pending += 1
    with pytest.raises(AssertionError, match="pending\\(\\) says 2 but 1 timers are linked"):
        w.check_invariants()


@pytest.mark.parametrize("cls", WHEELS, ids=IDS)
def test_ticks_that_miss_the_parked_bucket_touch_no_timer(cls: Any) -> None:
    w = counting(cls)(1, 16, start=1)
    for _ in range(5000):
        w.schedule(16 * 1000, noop)  # bucket 0 / a high level, far away
    CountingArray.touched = 0
    for now in range(1, 16):
        assert w.advance(now) == []
    assert CountingArray.touched == 0
    w.check_invariants()


@pytest.mark.parametrize("cls", WHEELS, ids=IDS)
def test_a_long_stall_over_few_far_timers_touches_few_nodes(cls: Any) -> None:
    w = counting(cls)(1, 4)
    hs = [w.schedule(d, noop) for d in (3 * 10**6, 10**6, 2 * 10**6 + 1)]
    CountingArray.touched = 0
    assert w.advance(4 * 10**6) == [hs[1], hs[2], hs[0]]
    # hashed: one O(n) rebase per skipped stretch, then a rotation; hierarchical: one
    # cascade per level -- never O(T / W) visits
    assert CountingArray.touched <= 3 * 12
    w.check_invariants()


# ------------------------------------------------------------------------------ hierarchical


def test_hierarchical_long_delays_use_few_levels_and_no_rounds() -> None:
    w = HierarchicalTimingWheel(1, 64)
    h = w.schedule(10**9, noop)
    assert w.advance(0) == []  # files it (schedule only queues it)
    assert len(w._levels) == 5  # 64**5 > 10**9 >= 64**4
    assert h.rounds == 0
    w.check_invariants()
    assert w.next_event_tick() == (10**9 // 64**4) * 64**4  # its level-4 slot cascades first


def test_hierarchical_with_one_bucket_uses_two_per_level() -> None:
    w = HierarchicalTimingWheel(1, 1)
    hs = [w.schedule(d, noop) for d in (5, 1, 1000)]
    assert w._base == 2
    assert w.advance(1000) == [hs[1], hs[0], hs[2]]


def test_hierarchical_check_invariants_catches_a_node_in_the_wrong_bucket() -> None:
    w = HierarchicalTimingWheel(1, 4)
    h = w.schedule(2, noop)
    assert w.advance(0) == []  # files it in its bucket (schedule only queues it)
    h._due = 3
    with pytest.raises(AssertionError, match="wrong bucket"):
        w.check_invariants()


# ------------------------------------------------------------------------------ both


@pytest.mark.parametrize("cls", WHEELS, ids=IDS)
def test_next_event_tick_is_a_lower_bound_of_the_next_fire(cls: Any) -> None:
    w = cls(1, 8)
    assert w.next_event_tick() is None
    h = w.schedule(100, noop)
    event = w.next_event_tick()
    assert event is not None and 0 < event <= 100
    assert w.advance(event - 1) == []
    while not h.fired:
        event = w.next_event_tick()
        assert event is not None and event <= 100
        w.advance(event)
    assert w.next_event_tick() is None


@pytest.mark.parametrize("cls", WHEELS, ids=IDS)
def test_copy_has_the_same_state_and_its_own_handles(cls: Any) -> None:
    w = cls(3, 4, start=-7, max_catchup_ticks=2, max_pending=5)
    hs = [w.schedule(d, noop) for d in (-20, 4, 50, 51)]
    w.cancel(hs[2])
    w.advance(30)
    twin = w.copy()
    assert twin.snapshot() == w.snapshot()
    assert twin.cancel(hs[3]) is False  # another wheel's handle
    assert [h.seq for h in w.advance(60)] == [h.seq for h in twin.advance(60)]
    twin.check_invariants()


class WatchedLock:
    """A lock that counts acquisitions and knows whether it is held."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.held = False
        self.acquired = 0

    def __enter__(self) -> WatchedLock:
        self._lock.acquire()
        self.held = True
        self.acquired += 1
        return self

    def __exit__(self, *exc: object) -> None:
        self.held = False
        self._lock.release()


@pytest.mark.parametrize("cls", WHEELS, ids=IDS)
def test_every_call_takes_the_one_lock_and_no_submission_runs_under_it(cls: Any) -> None:
    locks: list[WatchedLock] = []
    held_at_submit: list[bool] = []

    def factory() -> WatchedLock:
        locks.append(WatchedLock())
        return locks[-1]

    class Executor:
        def submit(self, fn: Callable[[], Any], /) -> None:
            held_at_submit.append(locks[0].held)
            fn()

    w = cls(1, 4, executor=Executor(), lock_factory=factory)
    assert len(locks) == 1
    calls: list[Callable[[], Any]] = [
        lambda: w.schedule(1, lambda: held_at_submit.append(locks[0].held)),
        lambda: w.schedule_after(2, noop),
        lambda: w.pending(),
        lambda: w.lag_ticks(),
        lambda: w.advance(5),
    ]
    for call in calls:
        before = locks[0].acquired
        call()
        assert locks[0].acquired == before + 1
    assert held_at_submit == [False, False, False]  # submit, callback, submit
    h = w.schedule(9, noop)
    before = locks[0].acquired
    assert w.cancel(h) is True
    assert locks[0].acquired == before + 1


def test_still_live_is_the_recheck_a_detached_walk_uses() -> None:
    checked: list[int] = []

    class Spy(HashedTimingWheel):
        def _still_live(self, node: Any) -> bool:
            checked.append(node.seq)
            return super()._still_live(node)

    w = Spy(1, 4)
    w.schedule(2, noop)
    w.schedule(2, noop)
    w.advance(2)
    assert checked == [0, 1]


def test_hierarchical_drops_empty_top_levels_after_a_huge_timer_goes() -> None:
    w = HierarchicalTimingWheel(1, 2)
    huge = w.schedule(10**30, noop)
    assert w.advance(0) == []  # files it (schedule only queues it)
    assert len(w._levels) == 100  # 2**100 > 10**30 >= 2**99
    assert w.cancel(huge)
    w.schedule(5, noop)
    assert len(w.advance(10)) == 1
    assert len(w._levels) == 1
    w.check_invariants()


def _wheel_garbage() -> list[str]:
    """The wheels' own objects (handles, buckets, wheels) that only the cyclic collector frees:
    the collector runs as it does for users, but with ``DEBUG_SAVEALL`` (set by the caller
    before the wheel was made) what it finds, whenever it ran, stays in ``gc.garbage``."""
    gc.collect()
    return sorted(type(o).__name__ for o in gc.garbage
                  if type(o).__module__.startswith("schedcheck.impl"))


def _fired_and_cancelled(cls: Any) -> list[str]:
    w = cls(1, 8)
    hs = [w.schedule(d, noop) for d in range(1, 200)]
    kept_cancelled, kept_fired = hs[150], hs[3]
    for h in hs[100:]:
        assert w.cancel(h)
    assert len(w.advance(300)) == 100
    assert w.pending() == 0
    del hs, h
    # held by the local name and getrefcount's argument only: no bucket, no neighbour
    assert sys.getrefcount(kept_cancelled) == 2
    assert sys.getrefcount(kept_fired) == 2
    del kept_cancelled, kept_fired
    found = _wheel_garbage()
    w.check_invariants()
    return found


def _dropped_with_pending(cls: Any) -> list[str]:
    w = cls(1, 8)
    payload = Payload()
    kept = w.schedule(5_000, payload)  # a higher level of the hierarchical wheel
    for d in range(1, 200):
        w.schedule(d, noop)
    watch_wheel, watch_payload = weakref.ref(w), weakref.ref(payload)
    del w, payload
    assert watch_wheel() is None  # freed at once: nothing but the name held it
    assert sys.getrefcount(kept) == 2 and watch_payload() is not None  # the holder's
    del kept
    assert watch_payload() is None
    return _wheel_garbage()


def _in_a_fresh_interpreter(body: Callable[[Any], list[str]], cls: Any) -> list[str]:
    """``body(cls)`` in a new Python process, the collector saving what it finds (it stays on,
    as for users: ``gc.DEBUG_SAVEALL`` keeps what a run of it found). Not in this one: a
    thread an earlier test left behind may drop cyclic garbage of its own meanwhile (CI runs
    counted 3,147 objects here, and once 884 of a queued wheel's)."""
    code = (f"import gc; from tests.impl import test_wheel_structure as t; "
            f"gc.collect(); gc.set_debug(gc.DEBUG_SAVEALL); "
            f"print(t.{body.__name__}(t.WHEELS[{WHEELS.index(cls)}]))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr
    found: list[str] = ast.literal_eval(done.stdout.strip())
    return found


@pytest.mark.parametrize("cls", WHEELS, ids=IDS)
def test_fired_and_cancelled_timers_are_freed_without_the_cyclic_collector(cls: Any) -> None:
    """No reference cycle per timer: once fired or cancelled, a handle is referenced only by
    its holder, and dropping every handle leaves nothing for ``gc.collect()`` to find."""
    assert _in_a_fresh_interpreter(_fired_and_cancelled, cls) == []


@pytest.mark.parametrize("cls", WHEELS, ids=IDS)
def test_a_dropped_wheel_with_pending_timers_is_freed_without_the_cyclic_collector(
        cls: Any) -> None:
    """A pending handle holds its wheel's token, not the wheel: the buckets' handles close no
    cycle through the wheel, so dropping it frees it (and them) by reference counting."""
    assert _in_a_fresh_interpreter(_dropped_with_pending, cls) == []


def _entries(wheel: Any) -> int:
    """Every handle the wheel holds (in its buckets or queued for one), shells included."""
    return len(wheel._incoming) + sum(len(bucket) for array in wheel._arrays()
                                      for bucket in array.occupied())


class Payload:
    """A callback whose lifetime a weak reference can watch."""

    def __call__(self) -> None:
        return None


@pytest.mark.parametrize("cls", WHEELS, ids=IDS)
def test_cancel_frees_the_callback_at_once_and_the_shell_at_the_bucket_visit(cls: Any) -> None:
    w = cls(1, 8)
    payload = Payload()
    watch = weakref.ref(payload)
    h = w.schedule(20, payload)
    other = w.schedule(20, noop)
    del payload
    assert w.cancel(h) and watch() is None  # the callback goes with the cancel
    assert h.callback is None and h.cancelled
    assert _entries(w) == 2  # the shell stays in its bucket (lazy cancellation) ...
    assert sys.getrefcount(h) == 3  # ... which holds it: local, argument, bucket
    w.check_invariants()
    assert w.advance(20) == [other]
    assert _entries(w) == 0 and sys.getrefcount(h) == 2  # ... until the bucket is processed
    w.check_invariants()


@pytest.mark.parametrize("cls", WHEELS, ids=IDS)
def test_queued_shells_passing_half_the_queue_are_dropped(cls: Any) -> None:
    w = cls(1, 8)
    hs = [w.schedule(10**6 + i, noop) for i in range(1000)]  # all queued for a bucket
    for h in hs[:500]:
        assert w.cancel(h)
    assert _entries(w) == w.stored_entries() == 1000  # 500 shells of 1000: not over half
    w.check_invariants()
    assert w.cancel(hs[500])  # 501 shells of 1000: the queue is rebuilt without them
    assert _entries(w) == w.stored_entries() == 499 and w._queued_marked == 0
    w.check_invariants()
    assert w.advance(10**6 + 999) == hs[501:]


@pytest.mark.parametrize("cls", WHEELS, ids=IDS)
def test_a_bucket_past_half_shells_is_rebuilt_alone(cls: Any) -> None:
    w = cls(1, 8)
    a = [w.schedule(3, noop) for _ in range(4)]  # one level-0 bucket
    b = [w.schedule(5, noop) for _ in range(4)]  # another
    w.advance(0)  # files them
    assert w.cancel(a[0]) and w.cancel(a[1]) and w.cancel(b[0])
    assert _entries(w) == 8  # 2 of 4 and 1 of 4: neither bucket is over half shells
    w.check_invariants()
    assert w.cancel(a[2])  # 3 of 4: that bucket alone is rebuilt
    assert _entries(w) == 5 and w.stored_entries() == 5
    w.check_invariants()
    assert w.advance(5) == [a[3], *b[1:]]
    assert _entries(w) == 0


@pytest.mark.parametrize("cls", WHEELS, ids=IDS)
def test_stored_entries_stay_within_twice_the_pending_timers(cls: Any) -> None:
    """specs/wheel.md section 5's bound, after every call of a fixed-seed random program that
    cancels most of what it schedules, with timers queued, filed, on higher levels and with
    rounds left."""
    import random

    rng = random.Random(7)
    w = cls(1, 8)
    live: list[Any] = []
    now = 0
    for _ in range(3000):
        roll = rng.random()
        if roll < 0.45:
            live.append(w.schedule(now + rng.randrange(-2, 300), noop))
        elif roll < 0.9 and live:
            assert w.cancel(live.pop(rng.randrange(len(live))))
        else:
            now += rng.randrange(0, 20)
            fired = w.advance(now)
            gone = set(fired)
            live = [h for h in live if h not in gone]
        assert w.stored_entries() <= 2 * w.pending(), (w.stored_entries(), w.pending())
    w.check_invariants()


def test_check_invariants_catches_uncounted_shells() -> None:
    w = HashedTimingWheel(1, 8)
    w.schedule(19, noop)
    w.cancel(w.schedule(19, noop))
    w._queued_marked = 0
    with pytest.raises(AssertionError, match="1 cancelled shells are queued for a bucket but 0"):
        w.check_invariants()
    w = HashedTimingWheel(1, 8)
    w.schedule(19, noop)
    h = w.schedule(19, noop)
    w.advance(0)  # filed in bucket 3
    w.cancel(h)
    w._buckets.marked[3] = 0
    with pytest.raises(AssertionError, match="bucket 3 holds 1 cancelled shells but counts 0"):
        w.check_invariants()


def test_check_invariants_catches_a_bucket_over_half_shells() -> None:
    w = HashedTimingWheel(1, 8)
    hs = [w.schedule(19, noop) for _ in range(3)]
    w.advance(0)
    for h in hs[:2]:  # the second cancel rebuilds the bucket; do its cancels by hand instead
        h._callback = None
        w._pending -= 1
    w._buckets.marked[3] = 2
    with pytest.raises(AssertionError, match="2 cancelled shells of 3 entries: over half"):
        w.check_invariants()


def test_hashed_bucket_with_rounds_left_is_walked_not_fired_whole() -> None:
    w = HashedTimingWheel(1, 8)
    now_ = w.schedule(3, noop)
    later = w.schedule(11, noop)  # same bucket, one rotation later
    w.advance(0)
    assert w._later[3] == 1
    w._later[3] = 0  # a miscount would fire the bucket whole, `later` a rotation early
    with pytest.raises(AssertionError, match="would fire whole too early"):
        w.check_invariants()
    w._later[3] = 1
    assert w.advance(3) == [now_] and w._later[3] == 0
    assert w.advance(11) == [later]


def test_hierarchical_check_invariants_catches_a_wrong_level_on_a_handle() -> None:
    w = HierarchicalTimingWheel(1, 4)
    h = w.schedule(9, noop)  # level 1
    w.advance(0)
    assert h._level == 1 and h.rounds == 0
    h._level = 0
    with pytest.raises(AssertionError, match="filed on level 1 but says level 0"):
        w.check_invariants()


@pytest.mark.parametrize("cls", WHEELS, ids=IDS)
def test_schedule_only_queues_and_the_next_advance_files_in_seq_order(cls: Any) -> None:
    """``schedule`` appends to one queue and touches no bucket; a timer that takes the long
    way (``schedule_after``) files the queue first, so every bucket stays in seq order."""
    w = cls(1, 8)
    a = w.schedule(3, noop)
    far = w.schedule(100, noop)  # a later rotation / a higher level
    assert w._incoming == [a, far] and _entries(w) == 2
    assert all(bucket is None for array in w._arrays() for bucket in array.lists)
    b = w.schedule_after(3, noop)  # files a and far first
    c = w.schedule(3, noop)
    assert w._incoming == [c]
    w.check_invariants()
    assert w.advance(3) == [a, b, c]  # ties in seq order
    assert w._incoming == [] and w.pending() == 1
    assert w.advance(100) == [far]
    w.check_invariants()
