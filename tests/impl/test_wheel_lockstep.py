"""The model, the hashed wheel and the hierarchical wheel driven in lockstep by Hypothesis,
with every wheel's check_invariants() after each step (the structural checks the
differential suite cannot see: rounds, bucket placement, occupancy, level windows).

The full contract suite (schedcheck.harness.wheel.suite) checks the contract against any
target; this one is the implementations' own white-box companion."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from schedcheck import impl, model


def noop() -> None:
    pass


class Lockstep(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.wheels: list[Any] = []
        self.handles: list[list[Any]] = []
        self.now = 0

    @initialize(
        tick=st.integers(1, 7),
        size=st.sampled_from([1, 2, 3, 8, 63, 64, 65, 300]),
        start=st.integers(-100, 100),
        budget=st.sampled_from([None, 1, 2, 5]),
    )
    def build(self, tick: int, size: int, start: int, budget: int | None) -> None:
        self.tick, self.size, self.now = tick, size, start
        self.wheels = [cls(tick, size, start=start, max_catchup_ticks=budget)
                       for cls in (model.TimingWheel, impl.HashedTimingWheel,
                                   impl.HierarchicalTimingWheel)]

    def same(self, results: list[Any]) -> Any:
        assert results[1:] == results[:-1], results
        return results[0]

    @rule(offset=st.integers(-50, 50), rotations=st.sampled_from([0, 0, 1, 2, 7, 1000]))
    def schedule(self, offset: int, rotations: int) -> None:
        deadline = self.now + offset + rotations * self.tick * self.size
        hs = [w.schedule(deadline, noop) for w in self.wheels]
        self.same([(h.seq, h.deadline, h.due_tick) for h in hs])
        self.handles.append(hs)

    @rule(delay=st.integers(-30, 3000))
    def schedule_after(self, delay: int) -> None:
        hs = [w.schedule_after(delay, noop) for w in self.wheels]
        self.same([(h.seq, h.deadline, h.due_tick) for h in hs])
        self.handles.append(hs)

    @precondition(lambda self: self.handles)
    @rule(i=st.integers(0, 10**6))
    def cancel(self, i: int) -> None:
        hs = self.handles[i % len(self.handles)]
        self.same([w.cancel(h) for w, h in zip(self.wheels, hs)])

    @rule(step=st.sampled_from([0, 1, 2, 5, 13, 64, 500, 10**4]), jitter=st.integers(0, 6))
    def advance(self, step: int, jitter: int) -> None:
        self.now += step * self.tick + jitter
        self.same([[h.seq for h in w.advance(self.now)] for w in self.wheels])

    @invariant()
    def agree_and_hold_their_invariants(self) -> None:
        if not self.wheels:
            return
        self.same([(w.pending(), w.lag_ticks(), w.callback_errors()) for w in self.wheels])
        for w in self.wheels:
            w.check_invariants()
        for hs in self.handles:
            self.same([(h.fired, h.cancelled) for h in hs])


TestLockstep = Lockstep.TestCase
