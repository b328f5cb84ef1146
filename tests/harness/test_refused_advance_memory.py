"""The wheel's memory bound (W-MEM) is read after an advance the wheel *accepted*. A wheel
with a producer queue (``impl.wheel.queued_driver.QueuedWheel``) keeps a cancel request in its
queue until its tick thread drains it, at the next advance; an advance refused for a bad
argument changes nothing (W6), so it need not drain either, and reading the bound after it
was a false alarm of the checker's own (found when a shorter run of the queued wheel's test
drew schedule, cancel, advance(now=-13.0))."""

from __future__ import annotations

from schedcheck.impl.wheel.queued_driver import QueuedWheel

from schedcheck.harness import minimize
from schedcheck.harness.program import Op, TimerName
from schedcheck.harness.result import RunResult
from schedcheck.systems import get
from tests.harness.wheel_targets import SeedWheel


def _replay(factory: type, *advance_to: object, delay: int = 0) -> object:
    machine = get("wheel").make_machine(factory, result=RunResult.fresh("wheel", "w"))
    ops = [Op("_build", (1, 8, {}), {}),
           Op("_schedule", (delay, False), {"after": True, "words": f"schedule_after({delay})"},
              made=("h_0",)),
           Op("cancel_timer", (TimerName("h_0"),), {}),
           *(Op("_advance", (now,), {"words": f"advance to {now!r}"}) for now in advance_to)]
    cx, played = minimize._in_test_context(lambda: minimize.replay(machine, ops))
    assert len(played) == len(ops), played  # every step ran
    return cx


def test_a_refused_advance_reads_no_memory_bound_on_a_queued_wheel() -> None:
    assert _replay(QueuedWheel, -13.0) is None  # TypeError, as the model raises: no drain
    assert _replay(QueuedWheel, -13.0, 1) is None  # the next accepted advance drains it


def test_an_accepted_advance_still_reads_the_bound() -> None:
    # the seed's plan keeps its cancelled handle in its bucket until the cursor comes round
    cx = _replay(SeedWheel, 1, delay=100)
    assert cx is not None and cx.clause == "W-MEM", cx
