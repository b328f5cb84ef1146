"""A read-only query that only repeats a divergence already set aside (keep going) is no step
of the next counterexample: a wheel whose pending() is wrong and that never drops cancelled
timers gets a memory counterexample without a "count the pending timers" after every cancel."""

from __future__ import annotations

from typing import Any

from schedcheck.harness.wheel.suite import run_wheel_suite


class _Timer:
    def __init__(self, deadline: int, callback: Any, due: int) -> None:
        self.deadline, self.callback, self.due = deadline, callback, due
        self.fired = self.cancelled = False


class KeepsCancelledTimers:
    """Cancel only marks a timer; the tick skips marked ones but never unlinks them, and
    pending() counts every timer still linked."""

    def __init__(self, tick: int, wheel_size: int, start: int = 0) -> None:
        if not isinstance(tick, int) or isinstance(tick, bool) or tick < 1:
            raise ValueError("tick")
        if not isinstance(wheel_size, int) or isinstance(wheel_size, bool) or wheel_size < 1:
            raise ValueError("wheel_size")
        self.tick, self.size, self.cursor, self.now = tick, wheel_size, start // tick, start
        self.buckets: list[list[_Timer]] = [[] for _ in range(wheel_size)]

    def schedule(self, deadline: int, callback: Any) -> _Timer:
        if not isinstance(deadline, int) or isinstance(deadline, bool):
            raise TypeError("deadline")
        if not callable(callback):
            raise TypeError("callback")
        timer = _Timer(deadline, callback, max(-(-deadline // self.tick), self.cursor))
        self.buckets[timer.due % self.size].append(timer)
        return timer

    def schedule_after(self, delay: int, callback: Any) -> _Timer:
        if not isinstance(delay, int) or isinstance(delay, bool):
            raise TypeError("delay")
        return self.schedule(self.now + delay, callback)

    def cancel(self, timer: Any) -> bool:
        if not isinstance(timer, _Timer):
            raise TypeError("handle")
        if timer.fired or timer.cancelled or timer not in self.buckets[timer.due % self.size]:
            return False
        timer.cancelled = True
        return True

    def advance(self, now: int) -> list[_Timer]:
        if not isinstance(now, int) or isinstance(now, bool):
            raise TypeError("now")
        if now < self.now:
            raise ValueError("now")
        self.now, fired = now, []
        while self.cursor <= now // self.tick:
            bucket = self.buckets[self.cursor % self.size]
            for timer in [t for t in bucket if t.due == self.cursor and not t.cancelled]:
                bucket.remove(timer)
                timer.fired = True
                fired.append(timer)
            self.cursor += 1
        return fired

    def pending(self) -> int:
        return sum(len(b) for b in self.buckets)


def test_a_set_aside_query_is_not_a_step_of_the_next_counterexample() -> None:
    result = run_wheel_suite(KeepsCancelledTimers, examples=300, seed=1,
                             set_aside=frozenset({"W-INV-PENDING"}))
    cx = result.counterexample
    assert cx is not None and cx.clause == "W-MEM", (cx and cx.clause, result.notes)
    words = [st.words for st in cx.steps]
    assert not any("count the pending timers" in w for w in words), words
    assert len(cx.steps) <= 8, words


def test_a_count_already_wrong_is_not_blamed_on_a_refused_call() -> None:
    """W6 (errors change nothing) compares the target's counts with its own from before the
    refused call: a pending() that was already wrong (W-INV-PENDING, set aside) is no W6."""
    from schedcheck.harness import minimize
    from schedcheck.harness.program import Op, TimerName
    from schedcheck.systems import get

    program = [Op("_build", (1, 1, {}), {}),
               Op("_schedule", (0, False), {"after": False, "words": "a timer at 0"},
                  made=("h_0",)),
               Op("cancel_timer", (TimerName("h_0"),), {}),
               Op("_advance", (True,), {"words": "advance with a bool now"})]
    machine = get("wheel").make_machine(KeepsCancelledTimers)
    first, _ = minimize._in_test_context(lambda: minimize.replay(machine, program))
    assert first is not None and first.clause == "W-INV-PENDING", first and first.message
    # (this wheel never drops its cancelled shells either: W-MEM, set aside as well)
    machine.set_aside = frozenset({"W-INV-PENDING", "W-MEM"})
    again, replayed = minimize._in_test_context(lambda: minimize.replay(machine, program))
    assert len(replayed) == len(program)
    assert again is None, (again.clause, again.message)
