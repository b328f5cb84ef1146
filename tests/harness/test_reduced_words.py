"""A reduced counterexample tells each step with the numbers it runs: when the reduction makes
an ``advance``'s ``now`` smaller, the step's words say the new ``now`` too."""

from __future__ import annotations

import re
from typing import Any

from schedcheck.harness import minimize
from schedcheck.harness.program import Op
from schedcheck.harness.result import RunResult
from schedcheck.systems import get


class SkipsMissedTicks:
    """A wheel that, after a stall, jumps to the present and processes only that tick: the
    timers of the missed ticks wait another rotation (here: forever)."""

    def __init__(self, tick: int, wheel_size: int, start: int = 0) -> None:
        self.tick, self.cursor, self.now = tick, start // tick, start
        self.due: dict[int, list[Any]] = {}

    def schedule(self, deadline: int, callback: Any) -> Any:
        handle = type("Handle", (), {})()
        handle.deadline, handle.callback, handle.fired, handle.cancelled = (
            deadline, callback, False, False)
        self.due.setdefault(max(-(-deadline // self.tick), self.cursor), []).append(handle)
        return handle

    def schedule_after(self, delay: int, callback: Any) -> Any:
        return self.schedule(self.now + delay, callback)

    def cancel(self, handle: Any) -> bool:
        return False

    def advance(self, now: int) -> list[Any]:
        self.now = now
        if now // self.tick - self.cursor > 1:
            self.cursor = now // self.tick  # fell behind: catch up to the present
        fired = []
        while self.cursor <= now // self.tick:
            fired += self.due.pop(self.cursor, [])
            self.cursor += 1
        for handle in fired:
            handle.fired = True
        return fired

    def pending(self) -> int:
        return sum(len(v) for v in self.due.values())


def _schedule(deadline: int) -> Op:
    return Op("_schedule", (deadline, False),
              {"after": False, "words": f"schedule a timer at {deadline}"})


def test_the_words_of_a_reduced_advance_name_its_reduced_now() -> None:
    machine = get("wheel").make_machine(SkipsMissedTicks,
                                        result=RunResult.fresh("wheel", "SkipsMissedTicks"))
    # the suite's own rule records the stall (advance to 539), as a search would
    ops = [Op("_build", (1, 1, {}), {}), _schedule(1), Op("advance", ("stall", 529, 0), {})]
    cx, played = minimize._in_test_context(lambda: minimize.replay(machine, ops))
    assert cx is not None
    assert "advance to 539 (stall)" in [st.words for st in cx.steps]
    reduced = minimize.minimize(machine, played, cx)
    assert reduced is not None
    advances = [st for st in reduced.counterexample.steps if ".advance(" in st.code]
    assert advances
    for st in advances:
        now = re.search(r"now=(-?\d+)", st.code)
        assert now is not None and int(now.group(1)) < 539, st.code  # it was reduced
        assert re.findall(r"-?\d+", st.words)[:1] == [now.group(1)], (st.words, st.code)
