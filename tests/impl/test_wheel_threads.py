"""Real threads against both wheels: producers schedule and cancel while one thread advances.

Whatever the interleaving, rule 4 holds for every handle -- exactly one of "a cancel returned
True" or "it appeared in exactly one advance result" -- and the books balance at the end.
(Controlled interleavings, shrinking and linearizability are schedcheck.concurrency's job;
this is the plain stress test a reviewer would ask for first. No sleeps: the threads start
together on a Barrier and the advancer runs until the producers are done.)"""

from __future__ import annotations

import random
import sys
import threading
from collections import Counter
from typing import Any

import pytest
from schedcheck.impl import HashedTimingWheel, HierarchicalTimingWheel


def noop() -> None:
    pass


@pytest.mark.parametrize("cls", [HashedTimingWheel, HierarchicalTimingWheel],
                         ids=["hashed", "hierarchical"])
def test_cancel_racing_the_tick_gives_each_handle_exactly_one_outcome(cls: Any) -> None:
    wheel = cls(1, 16, max_catchup_ticks=8)
    producers = 4
    per_producer = 2000
    barrier = threading.Barrier(producers + 1)
    done = threading.Event()
    handles: list[list[Any]] = [[] for _ in range(producers)]
    cancelled: list[list[Any]] = [[] for _ in range(producers)]
    fired: list[Any] = []
    now = [0]

    def produce(i: int) -> None:
        rng = random.Random(i)
        barrier.wait()
        for _ in range(per_producer):
            h = wheel.schedule_after(rng.randrange(-2, 40), noop)
            handles[i].append(h)
            if rng.random() < 0.5:
                victim = rng.choice(handles[i])
                if wheel.cancel(victim):
                    cancelled[i].append(victim)

    def advance() -> None:
        barrier.wait()
        while not done.is_set():
            now[0] += 1
            fired.extend(wheel.advance(now[0]))

    threads = [threading.Thread(target=produce, args=(i,)) for i in range(producers)]
    ticker = threading.Thread(target=advance)
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as CPython allows: more interleavings
    try:
        for t in [*threads, ticker]:
            t.start()
        for t in threads:
            t.join()
        done.set()
        ticker.join()
    finally:
        sys.setswitchinterval(interval)
    for _ in range(100):  # drain what is left (delays < 40 ticks, budget 8 per call)
        now[0] += 1
        fired.extend(wheel.advance(now[0]))
    assert wheel.pending() == 0

    everything = [h for hs in handles for h in hs]
    stopped = [h for cs in cancelled for h in cs]
    times_fired = Counter(id(h) for h in fired)
    assert len(everything) == producers * per_producer
    assert all(n == 1 for n in times_fired.values())
    assert len(set(map(id, stopped))) == len(stopped)
    assert set(times_fired).isdisjoint(map(id, stopped))
    assert len(times_fired) + len(stopped) == len(everything)
    assert all(h.fired != h.cancelled for h in everything)
    assert all(h.deadline <= h.due_tick for h in fired)  # tick 1: never early
    wheel.check_invariants()
