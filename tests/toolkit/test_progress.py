"""The heartbeat: a line after every stretch of silence, naming the stage, its counts and its
elapsed time and budget; quiet while something else prints or a terminal bar is up. Driven by
a fake clock."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from schedcheck.progress import Ticker, time_note


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_silence_gets_a_heartbeat_naming_the_stage_and_its_counts() -> None:
    clock, lines = Clock(), []
    ticker = Ticker(lines.append, every=4.0, budget=25.0, clock=clock)
    ticker.say("zoo: 3 mutants")
    ticker.detail("zoo 2/3: race-x (race)")
    assert ticker.heartbeat() is None  # just printed
    with ticker.bar("scheduler zoo:race-x (concurrent rounds)", 500) as progress:
        assert progress is not None
        progress(120, 3411, 0)
        clock.now += 3.9
        assert ticker.heartbeat() is None
        clock.now += 0.2
        line = ticker.heartbeat()
        assert line is not None
        assert "zoo 2/3: race-x (race)" in line
        assert "concurrent rounds" in line
        assert "examples 120/500" in line and "steps 3,411" in line
        assert "of a 25 s budget" in line
        assert ticker.heartbeat() is None  # the heartbeat counts as output
        clock.now += 4.1
        assert ticker.heartbeat() is not None
    assert lines == ["zoo: 3 mutants", "  zoo 2/3: race-x (race)"]  # the thread is not started
    assert ticker.beats == 2


def test_a_terminal_bar_keeps_the_heartbeat_quiet() -> None:
    clock, shown = Clock(), []

    @contextmanager
    def bar(label: str, total: int | None) -> Iterator[object]:
        def forward(examples: int, steps: int, failures: int) -> None:
            shown.append(examples)

        yield forward

    ticker = Ticker(lambda line: None, inner=bar, every=4.0, clock=clock)
    with ticker.bar("suite", 10) as progress:
        assert progress is not None
        progress(3, 30, 0)
        clock.now += 60
        assert ticker.heartbeat() is None
    assert shown == [3]
    clock.now += 3.9  # the bar is gone: silence counts again from its end
    assert ticker.heartbeat() is None
    clock.now += 60
    assert ticker.heartbeat() is not None


def test_the_thread_writes_the_heartbeat_and_stops() -> None:
    lines: list[str] = []
    clock = Clock()
    ticker = Ticker(lines.append, every=0.0, clock=clock)
    with ticker:
        ticker.say("prove: the z3 lemmas")
        # the thread beats on its own at each wake (every=0), maybe once before the stage
        # was named: wait (a bounded number of wakes) for a beat that names it
        for _ in range(1000):
            clock.now += 1
            ticker._stop.wait(0.01)
            if any(line.startswith("still running: prove: the z3") for line in lines):
                break
    assert ticker.beats
    assert any(line.startswith("still running: prove: the z3 lemmas") for line in lines)


def test_the_time_note_says_where_a_check_spent_its_budget() -> None:
    from schedcheck.progress import timed

    spent: list[tuple[str, float, float | None]] = []

    @contextmanager
    def quiet(label: str, total: int | None) -> Iterator[None]:
        yield None

    show = timed(quiet, spent)
    with show("scheduler mine.py:S", None) as progress:
        assert progress is not None
        progress(3, 30, 0)
        progress(4, 41, 1)  # the first counterexample
        progress(9, 90, 1)
    with show("scheduler mine.py:S (scaling clause)", None):
        pass
    assert [(label, first is not None) for label, _, first in spent] == [
        ("scheduler mine.py:S", True), ("scheduler mine.py:S (scaling clause)", False)]
    note = time_note(spent, 25.0, "scheduler mine.py:S")
    assert note.startswith("time: the levels' search ")
    assert "of its 25 s budget, the first counterexample after" in note
    assert "--first stops there" in note
    assert "; scaling clause " in note and note.endswith(" s in all")


def test_a_search_past_its_budget_says_why_instead_of_a_fraction_over_one() -> None:
    note = time_note([("scheduler mine.py:S", 27.6, None)], 25.0, "scheduler mine.py:S")
    assert "27.6 s of its 25 s budget" not in note
    assert "27.6 s for a 25 s budget" in note and "finish after it" in note
    assert "3.0 s of its 25 s budget" in time_note([("x", 3.0, None)], 25.0, "x")
