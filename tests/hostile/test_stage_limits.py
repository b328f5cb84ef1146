"""Progress lines name the limit of the stage that runs, not the search's budget; driven by a
fake clock, and by the supervised check's own stage watch."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from schedcheck.progress import Ticker
from schedcheck.supervised import ROUNDS_SECONDS, _Watch


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_the_scaling_stage_names_its_own_limit_not_the_budget() -> None:
    clock, lines = Clock(), []
    ticker = Ticker(lines.append, every=4.0, budget=25.0, clock=clock)
    ticker.say("scaling clause S-COST")
    ticker.limit(30.0)
    clock.now += 40.0
    line = ticker.heartbeat()
    assert line is not None and "40 s in this stage of its 30 s limit" in line
    assert "budget" not in line
    ticker.limit(None)
    clock.now += 5.0
    line = ticker.heartbeat()
    assert line is not None and "of a 25 s budget" in line


def test_the_watch_follows_the_stages_and_their_deadlines() -> None:
    heard: list[tuple[float | None, str]] = []
    opened: list[str] = []

    @contextmanager
    def bar(label: str, total: int | None) -> Iterator[Any]:
        opened.append(label)
        yield None

    watch = _Watch(bar, None, lambda seconds, what: heard.append((seconds, what)), 5.0, 135.0)
    assert watch.deadline() == 135.0  # the levels: the budget plus the margin
    watch.handle(("bar", "scheduler mine.py:S", None))
    watch.handle(("bar_end",))
    watch.handle(("bar", "scheduler mine.py:S (scaling clause)", None))
    scaling = watch.deadline()
    assert scaling is not None and scaling == watch.stage_started + 35.0  # float: no subtraction
    watch.handle(("bar_end",))
    watch.handle(("bar", "scheduler mine.py:S (concurrent rounds)", 10))
    rounds = watch.deadline()
    assert rounds is not None and rounds == watch.stage_started + ROUNDS_SECONDS
    watch.close()
    assert heard == [(30.0, "limit"), (ROUNDS_SECONDS, "limit")]
    assert opened == ["scheduler mine.py:S", "scheduler mine.py:S (scaling clause)",
                      "scheduler mine.py:S (concurrent rounds)"]
