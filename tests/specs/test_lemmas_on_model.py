"""Every lemma of specs/ as a Hypothesis invariant of the executable model.

The scheduler predicates are the very functions z3 proves (``sched_state.INVARIANTS`` /
``STEP_INVARIANTS``, evaluated with Python ops on ``view_of_model``); the wheel checks use the
same formulas as ``lemmas_wheel`` (``contract_due``, ``hashed_fire_tick``, ``seed_due``) on the
model's due ticks. So the encoding, the model and this test cannot drift apart silently.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import Phase, given, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)
from schedcheck.model import Scheduler, TimingWheel
from schedcheck.specs.lemmas_wheel import (
    contract_due,
    first_visit,
    hashed_fire_tick,
    hier_cascade_tick,
    hier_level,
    seed_due,
)
from schedcheck.specs.sched_replay import (
    encode_call,
    mutated_scheduler,
    record_claims,
    view_of_model,
)
from schedcheck.specs.sched_state import INVARIANTS, PY, STEP_INVARIANTS, Call

from schedcheck.contract import SchedulerError

IDS = ["t0", "t1", "t2", "t3"]
ids_st = st.integers(0, len(IDS) - 1)


class SchedulerLemmas(RuleBasedStateMachine):
    """I0..I6 after every call; I7..I9 across every call, on schedcheck.model.Scheduler."""

    factory: Any = Scheduler

    @initialize(max_concurrency=st.sampled_from([1, 2, 3, 0]))
    def make(self, max_concurrency: int) -> None:
        self.s = self.factory(max_concurrency)
        self.ghost: dict[tuple[Any, int], bool] = {}
        self.checked_steps = 0

    def _view(self) -> Any:
        return view_of_model(self.s, IDS, self.ghost, getattr(self.s, "shadow", None))

    def _do(self, call: Call, fn: Any) -> Any:
        pre = self._view()
        snap = self.s.snapshot()
        try:
            out = fn()
        except SchedulerError:
            assert self.s.snapshot() == snap, "an error changed the model's state"
            return None
        post = self._view()
        self.after_call(call, out, pre, post)
        for iid, says, pred in STEP_INVARIANTS:
            assert pred(pre, post, call, PY), f"{iid} broken by {call}: {says}"
        self.checked_steps += 1
        return out

    def after_call(self, call: Call, out: Any, pre: Any, post: Any) -> None:
        """A hook: the differential machine below runs the same call through the encoding."""

    def _gen(self, k: int, delta: int) -> int:
        t = self.s._tasks.get(IDS[k])
        return (t.generation if t else 1) + delta

    @rule(k=ids_st, deps=st.sets(ids_st, max_size=3), wild=st.integers(0, 9))
    def submit(self, k: int, deps: set[int], wild: int) -> None:
        # mostly known deps (so that start() succeeds), now and then unknown ones or itself
        chosen = [IDS[j] for j in sorted(deps) if wild == 0 or (IDS[j] in self.s._tasks
                                                                and j != k)]
        self._do(Call("submit", k), lambda: self.s.submit(IDS[k], chosen))

    @rule()
    def start(self) -> None:
        self._do(Call("start"), self.s.start)

    @precondition(lambda self: self.s._started)
    @rule(limit=st.none() | st.integers(0, 3))
    def ready(self, limit: int | None) -> None:
        self._do(Call("claim"), lambda: self._claim(limit))

    def _known(self, pick: int) -> int:
        # callbacks mostly name a RUNNING task (as workers do), else any submitted one
        tasks = self.s._tasks
        known = [i for i, tid in enumerate(IDS) if tid in tasks]
        busy = [i for i in known if tasks[IDS[i]].state.name == "RUNNING"]
        pool = busy if busy and pick % 4 else known
        return pool[pick % len(pool)]

    @precondition(lambda self: self.s._started)
    @rule(report=st.sampled_from(["complete", "fail", "cancel, then fail", "cancel, then "
                                  "complete", "keep running"]))
    def worker(self, report: str) -> None:
        """A worker's whole turn: claim one task, then report with its generation."""
        claims = self._do(Call("claim"), lambda: self._claim(1))
        if not claims:
            return
        c = claims[0]
        k = IDS.index(c.task_id)
        self.state_invariants_hold()
        if report.startswith("cancel"):
            self._do(Call("cancel", k, c.generation, True),
                     lambda: self.s.cancel(c.task_id, c.generation))
            self.state_invariants_hold()
        if report.endswith("complete"):
            self._do(Call("complete", k, c.generation),
                     lambda: self.s.complete(c.task_id, c.generation))
        elif report.endswith("fail"):
            self._do(Call("fail", k, c.generation), lambda: self.s.fail(c.task_id, c.generation))

    def _claim(self, limit: int | None) -> Any:
        claims = self.s.ready(limit)
        record_claims(self.s, claims, self.ghost)
        return claims

    @precondition(lambda self: bool(self.s._tasks))
    @rule(pick=st.integers(0, 7), delta=st.sampled_from([0, 0, 0, -1, 1]))
    def complete(self, pick: int, delta: int) -> None:
        k = self._known(pick)
        g = self._gen(k, delta)
        self._do(Call("complete", k, g), lambda: self.s.complete(IDS[k], g))

    @precondition(lambda self: bool(self.s._tasks))
    @rule(pick=st.integers(0, 7), delta=st.sampled_from([0, 0, 0, -1, 1]))
    def fail(self, pick: int, delta: int) -> None:
        k = self._known(pick)
        g = self._gen(k, delta)
        self._do(Call("fail", k, g), lambda: self.s.fail(IDS[k], g))

    @precondition(lambda self: bool(self.s._tasks))
    @rule(pick=st.integers(0, 7), delta=st.none() | st.sampled_from([0, -1, 1]))
    def cancel(self, pick: int, delta: int | None) -> None:
        k = self._known(pick)
        g = None if delta is None else self._gen(k, delta)
        self._do(Call("cancel", k, g if g is not None else 0, g is not None),
                 lambda: self.s.cancel(IDS[k], g))

    @rule(now=st.integers(0, 5))
    def close(self, now: int) -> None:
        if now == 0:  # rarely: everything after a close is a short tail
            self._do(Call("close"), self.s.close)

    @invariant()
    def state_invariants_hold(self) -> None:
        v = self._view()
        for iid, says, pred in INVARIANTS:
            assert pred(v, PY), f"{iid} broken: {says}; {self.s!r}"


class EncodingMatchesModel(SchedulerLemmas):
    """Every call the model accepts, run through the z3 transition from the same concrete
    state, yields the model's next state: the encoding neither rejects what the model does
    nor does anything else (the mutation replays rely on this)."""

    def after_call(self, call: Call, out: Any, pre: Any, post: Any) -> None:
        if not hasattr(self, "enc"):
            self.enc = pre  # the first call starts from the model's (empty) state
        calls: list[dict[str, Any]]
        if call.op == "claim":
            calls = [{"name": "claim", "k": IDS.index(c.task_id)} for c in out]
        elif call.op == "submit":
            deps = self.s._tasks[IDS[call.k]].deps
            calls = [{"name": "submit", "k": call.k, "deps": tuple(IDS.index(d) for d in deps)}]
        elif call.op in ("complete", "fail", "cancel"):
            calls = [{"name": call.op, "k": call.k, "g": call.g, "given": bool(call.given)
                      if call.op == "cancel" else False}]
        else:
            calls = [{"name": call.op}]
        for c in calls:
            nxt = encode_call(self.enc, **c)
            assert nxt is not None, f"the encoding rejects {c} that the model accepted"
            self.enc = nxt
        for i in range(len(IDS)):
            got = (post.exists[i], post.state[i], post.gen[i], post.seq[i], post.dep[i],
                   post.ck[i], post.req[i])
            enc = (self.enc.exists[i], self.enc.state[i], self.enc.gen[i], self.enc.seq[i],
                   self.enc.dep[i], self.enc.ck[i], self.enc.req[i])
            assert got == enc, f"after {calls}: {IDS[i]} model {got} != encoding {enc}"
            if post.ck[i]:
                assert (post.ct[i], post.cg[i]) == (self.enc.ct[i], self.enc.cg[i])
            if post.exists[i] and post.state[i] in (0, 1):
                assert post.out[i] == self.enc.out[i], f"{IDS[i]}: outstanding differs"
            if post.exists[i] and post.state[i] in (2, 3):
                assert post.cok[i] == self.enc.cok[i]
        assert (post.started, post.closed, post.counter) == (
            self.enc.started, self.enc.closed, self.enc.counter)


class WheelLemmas(RuleBasedStateMachine):
    """WI1..WI5 on schedcheck.model.TimingWheel, with the lemma files' own formulas."""

    @initialize(tick=st.integers(1, 5), w=st.integers(1, 6), start=st.integers(-20, 20),
                catchup=st.none() | st.integers(1, 3))
    def make(self, tick: int, w: int, start: int, catchup: int | None) -> None:
        self.tick, self.w = tick, w
        self.wheel = TimingWheel(tick, w, start=start, max_catchup_ticks=catchup)
        self.now = start
        self.placed: dict[int, tuple[int, int, int, bool]] = {}  # seq -> cursor, now, due, lag0
        self.fired_checked = 0
        self.handles: dict[int, Any] = {}

    @rule(offset=st.integers(-15, 40))
    def schedule(self, offset: int) -> None:
        cursor, lag0 = self.wheel.cursor, self.wheel.lag_ticks() == 0
        h = self.wheel.schedule(self.now + offset, lambda: None)
        # WI1: the due tick is the contract's formula at the cursor of the schedule call
        assert h.due_tick == contract_due(h.deadline, self.tick, cursor)
        # WI4: the hashed wheel's bucket + rounds fire at exactly that tick
        assert hashed_fire_tick(h.due_tick, cursor, self.w) == h.due_tick
        assert first_visit(h.due_tick % self.w, cursor, self.w) >= cursor
        if lag0:
            # WI5: kept up, the seed's formula is never early and never before the contract
            sd = seed_due(h.deadline, self.now, self.tick, cursor)
            assert sd * self.tick >= h.deadline and sd >= h.due_tick
            if h.deadline >= self.now:
                assert sd * self.tick - h.deadline < 2 * self.tick
        self.placed[h.seq] = (cursor, self.now, h.due_tick, lag0)
        self.handles[h.seq] = h

    @precondition(lambda self: bool(self.handles))
    @rule(pick=st.integers(0, 30))
    def cancel(self, pick: int) -> None:
        seqs = sorted(self.handles)
        h = self.handles[seqs[pick % len(seqs)]]
        was_live = not (h.fired or h.cancelled)
        assert self.wheel.cancel(h) == was_live

    @rule(step=st.sampled_from([0, 1, 1, 1, 2, 3, 7, 25]))
    def advance(self, step: int) -> None:
        # step 1 from a kept-up wheel = the next tick boundary, exactly one tick processed:
        # the situation of a driver that calls advance at every boundary
        now = (self.now // self.tick + step) * self.tick if step else self.now
        one_boundary = step == 1 and self.wheel.lag_ticks() == 0
        fired = self.wheel.advance(now)
        for h in fired:
            _cursor, sched_now, due, lag0 = self.placed[h.seq]
            # WI2: never early -- the due tick is at or after the deadline, processed <= now
            assert due * self.tick >= h.deadline and due <= now // self.tick
            assert h.deadline <= now
            if one_boundary:
                assert due == now // self.tick
                # WI3: less than one tick late when the deadline's tick was still ahead
                if due == -(-h.deadline // self.tick):
                    assert now - h.deadline < self.tick
                # WI3: at most one tick after max(deadline, schedule time) when kept up
                if lag0:
                    assert now - max(h.deadline, sched_now) <= self.tick
            self.fired_checked += 1
        self.now = now

    @invariant()
    def live_timers_are_due_at_or_after_the_cursor(self) -> None:
        for seq, (_cursor, _now, due, _lag) in self.placed.items():
            h = self.handles[seq]
            if not (h.fired or h.cancelled):
                assert due >= self.wheel.cursor, "WI1: a live timer behind the cursor"
                assert due == h.due_tick


TestSchedulerLemmasOnModel = SchedulerLemmas.TestCase
TestWheelLemmasOnModel = WheelLemmas.TestCase
TestEncodingMatchesModel = EncodingMatchesModel.TestCase
# Every step of this machine builds and solves a z3 query: it is an expensive oracle, so it
# takes a quarter of the active profile's examples (50 under ci, 750 under thorough) -- the
# profile still decides, and the steps per example are the profile's own.
_active = settings()
TestEncodingMatchesModel.settings = settings(
    _active, max_examples=max(20, _active.max_examples // 4)
)


def test_the_scheduler_machine_checks_the_same_invariant_numbers_as_the_lemmas() -> None:
    from schedcheck.specs.lemmas_scheduler import LEMMAS

    ids = {iid for iid, _, _ in INVARIANTS} | {iid for iid, _, _ in STEP_INVARIANTS}
    rows = {lem.name.removeprefix("sched-").removesuffix("-anyN") for lem in LEMMAS
            if lem.name.startswith("sched-I")}
    assert rows == ids


@pytest.mark.parametrize("kind", ["no-generation", "fail-as-success", "no-limit"])
def test_the_same_predicates_catch_each_mutated_model(kind: str) -> None:
    cls = mutated_scheduler(kind)

    def armed(max_concurrency: int) -> Any:
        s = cls(max_concurrency)
        s.armed = True
        return s

    class Mutated(SchedulerLemmas):
        factory = staticmethod(armed)

    # a meta-test: the whole machine runs inside this test, so it sets its own budget (the
    # mistakes need 3-5 specific calls; a fixed seed and 200 examples find each of them; no
    # shrinking: only detection is asserted here)
    with pytest.raises(AssertionError, match=r"I\d broken"):
        run_state_machine_as_test(
            Mutated, settings=settings(max_examples=200, stateful_step_count=30, deadline=None,
                                       database=None, derandomize=True,
                                       phases=[Phase.generate]))


def test_i1_catches_a_duplicate_completion_that_releases_a_dependent_again() -> None:
    # the dup-complete mutant needs a diamond and a repeated callback: a fixed program
    s = mutated_scheduler("dup-complete")(2)
    ghost: dict[tuple[Any, int], bool] = {}
    s.submit("t0")
    s.submit("t1")
    s.submit("t2", ["t0", "t1"])
    s.start()
    record_claims(s, s.ready(limit=1), ghost)
    s.complete("t0", 1)
    v = view_of_model(s, IDS, ghost, s.shadow)
    assert all(pred(v, PY) for _, _, pred in INVARIANTS)
    s.armed = True
    s.complete("t0", 1)  # the duplicate: t2 loses its second outstanding dependency too
    v = view_of_model(s, IDS, ghost, s.shadow)
    broken = [iid for iid, _, pred in INVARIANTS if not pred(v, PY)]
    assert broken == ["I1"]
    assert s.info("t2").state.name == "READY" and s.info("t1").state.name == "READY"


@given(b=st.integers(2, 5), cursor=st.integers(-50, 50), delay=st.integers(0, 3000))
def test_the_hierarchical_cascade_formulas_fire_every_timer_at_its_due_tick(
        b: int, cursor: int, delay: int) -> None:
    # WI6 by induction on the level, executed: place, cascade at the slot's first tick,
    # re-place from there, until level 0 -- the lemma's conditions checked at each step
    due, c = cursor + delay, cursor
    levels = []
    while (level := hier_level(due - c, b)) > 0:
        span = b**level
        k = hier_cascade_tick(due, span)
        assert c < k <= due, "hier-slot-not-started"
        assert due - k < span, "hier-cascade-lands-lower"
        assert hier_level(due - k, b) < level
        levels.append(level)
        c = k
    assert due - c < b and first_visit(due % b, c, b) == due, "hier-level0-fires-at-due"
    assert levels == sorted(levels, reverse=True)
