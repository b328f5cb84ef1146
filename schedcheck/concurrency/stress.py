"""Real threads, real preemption: stress for targets the controller cannot see into.

Eight OS threads (by default) hammer the target with its ordinary primitives -- no baton, the
GIL and the OS decide the interleaving. The run is cut into short *rounds* between barriers
(each thread does ``per_round`` operations, then all wait), and every round's history is
checked for linearizability against the model (``linearizability.check``), followed by the
quiescent comparison of ``rounds.run_round`` (the target's observable state must be one the
model can be in). At the end, the global invariants of the whole run:

* scheduler -- no (id, generation) claimed twice; after a single-threaded drain (claim and
  complete everything, then ``close()``) every task is in exactly one terminal state;
* wheel -- after advancing far past every deadline, every timer fired exactly once or was
  cancelled exactly once (``cancel`` returned True), none lost, ``pending() == 0``.

Histories under real threads are stamped with a shared counter taken just before the call
and just after it returns (``history.History``): intervals can only grow, so a violation is
real, never an artefact of the stamping. A round whose search runs out of budget counts as
``unknown``, never as a pass. Bounded by ``operations`` and by ``deadline_seconds``; it stops
by itself (joins use timeouts as safety nets only; the barrier is the synchronisation).
"""

from __future__ import annotations

import random
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from schedcheck.concurrency.history import History
from schedcheck.concurrency.linearizability import OK, UNKNOWN, check
from schedcheck.concurrency.operations import SCHEDULER, SKIP, WHEEL, table
from schedcheck.concurrency.rounds import (
    SchedulerSpec,
    WheelRound,
    WheelSpec,
    _noop,
    observe_scheduler,
    observe_wheel_spec,
    observe_wheel_target,
    perform_scheduler,
)
from schedcheck.harness.result import Counterexample, Step
from schedcheck.targets import adapt

POOL = 12  #: scheduler task ids 0..POOL-1 (resubmitted over and over)
#: Model states carried from one round to the next at most (beyond: the run stops, unknown).
MAX_CANDIDATES = 64
JOIN_TIMEOUT = 120.0  #: safety net only


@dataclass
class StressResult:
    system: str
    threads: int
    operations: int = 0
    rounds: int = 0
    unknown_rounds: int = 0
    seconds: float = 0.0
    violations: list[str] = field(default_factory=list)
    history_text: str = ""  #: the first violating round's history
    seed: int | None = None
    stopped: str = ""  #: why the run stopped early without a verdict (a search out of budget)
    #: the time budget that ended the run before its operations were done (None: not hit)
    out_of_time: float | None = None

    @property
    def verdict(self) -> str:
        """"held", "broken" or "unknown" (result.py's verdict strings)."""
        if self.violations:
            return "broken"
        return "unknown" if self.stopped else "held"

    @property
    def ok(self) -> bool:
        return not self.violations

    @property
    def ops_per_second(self) -> float:
        return self.operations / self.seconds if self.seconds > 0 else 0.0

    @property
    def text(self) -> str:
        verdict = "no violation" if self.ok else f"VIOLATION: {self.violations[0]}"
        unknown = (f"; STOPPED EARLY, linearizability unknown: {self.stopped}"
                   if self.stopped else "")
        budget = (f", ended by its {self.out_of_time:g} s budget"
                  if self.out_of_time is not None else "")
        return (f"{self.threads} real threads, {self.operations} operations in {self.rounds} "
                f"rounds ({self.ops_per_second:,.0f} ops/s checked{budget}){unknown}: "
                f"{verdict}")

    def counterexample(self) -> Counterexample | None:
        if self.ok:
            return None
        clause = table(self.system).lin_clause
        steps = [Step(0, "# real-thread stress round (not replayable: the OS chose the "
                         "interleaving)", "history of the violating round",
                      actual=self.history_text, diverged=True, clause=clause)]
        return Counterexample(system=self.system, clause=clause, message=self.violations[0],
                              steps=steps, setup="# schedcheck stress", seed=self.seed,
                              snapshot={"history": self.history_text})


def _run_threads(n: int, body: Callable[[int], None]) -> list[BaseException]:
    errors: list[BaseException] = []

    def wrap(i: int) -> None:
        try:
            body(i)
        except BaseException as exc:  # reported, never swallowed
            errors.append(exc)

    threads = [threading.Thread(target=wrap, args=(i,), daemon=True) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(JOIN_TIMEOUT)
    return errors


def run_stress(
    system: str,
    factory: Callable[..., Any],
    *,
    threads: int = 8,
    operations: int = 100_000,
    seed: int | None = None,
    progress: Callable[[int, int, int], None] | None = None,
    per_round: int = 10,
    deadline_seconds: float = 600.0,
    budget: int = 20_000,
    switch_interval: float | None = None,
    any_order: bool = False,
) -> StressResult:
    """Hammer ``factory``'s target with ``threads`` real threads; see the module comment.

    ``switch_interval`` (seconds; None leaves it alone) shortens the interpreter's thread
    switch interval for the run, so that the OS preempts inside the target far more often
    than the default 5 ms allows; it is restored afterwards. ``any_order`` (wheels in
    tolerance mode): the timers one ``advance`` fires are compared as a set, since the order
    within a tick is then a design difference.
    """
    table(system)  # ValueError naming the systems for an unknown one
    old_interval = sys.getswitchinterval()
    if switch_interval is not None:
        sys.setswitchinterval(switch_interval)
    try:
        return _stress(system, factory, threads, operations, seed, progress, per_round,
                       deadline_seconds, budget, any_order)
    finally:
        sys.setswitchinterval(old_interval)


def _stress(
    system: str,
    factory: Callable[..., Any],
    threads: int,
    operations: int,
    seed: int | None,
    progress: Callable[[int, int, int], None] | None,
    per_round: int,
    deadline_seconds: float,
    budget: int,
    any_order: bool = False,
) -> StressResult:
    rng = random.Random(seed)
    result = StressResult(system, threads, seed=seed)
    started = time.perf_counter()
    runner = table(system).part("stress")
    state = runner(factory, threads, rng)
    if any_order:
        state.any_order = True
    while result.operations < operations and result.ok:
        if time.perf_counter() - started > deadline_seconds:
            result.out_of_time = deadline_seconds
            break
        history = History()
        plans = [state.plan(i, per_round, rng) for i in range(threads)]
        barrier = threading.Barrier(threads)

        def body(i: int, plans: list[Any] = plans, history: History = history,
                 barrier: threading.Barrier = barrier) -> None:
            barrier.wait(JOIN_TIMEOUT)
            state.work(i, plans[i], history)

        errors = _run_threads(threads, body)
        if errors:
            result.violations.append(f"a thread raised {type(errors[0]).__name__}: {errors[0]}")
            break
        result.rounds += 1
        result.operations += len(history.operations)
        verdict, message = state.judge(history, budget)
        if verdict == UNKNOWN:
            verdict, message = state.judge(history, budget * 10)
        if verdict == UNKNOWN:
            # The model's state after this round is unknown, so no later round can be judged:
            # stop, and say so (never a pass for the rounds not checked).
            result.unknown_rounds += 1
            result.stopped = message
            break
        if verdict != OK:
            result.violations.append(message)
            result.history_text = history.describe()
        if progress is not None:
            progress(result.rounds, result.operations, len(result.violations))
    if result.ok and not result.stopped:
        problem = state.finish()
        if problem:
            result.violations.append(problem)
    result.seconds = time.perf_counter() - started
    return result


@SCHEDULER.provides("stress")
class _SchedulerStress:
    def __init__(self, factory: Callable[..., Any], threads: int, rng: random.Random) -> None:
        from schedcheck import model

        self.target = factory(4)
        first: Any = model.Scheduler(4)
        self.models: list[Any] = [first]
        self.deps: dict[int, tuple[int, ...]] = {}
        for i in range(POOL):
            deps = tuple(sorted(rng.sample(range(i), k=min(i, rng.randint(0, 2)))))
            self.deps[i] = deps
            self.target.submit(i, deps)
            first.submit(i, deps)
        self.target.start()
        first.start()
        self.claims: list[list[tuple[Any, int]]] = [[] for _ in range(threads)]
        self.claimed: set[tuple[Any, int]] = set()
        self.twice: list[tuple[Any, int]] = []
        self.lock = threading.Lock()

    def plan(self, lane: int, n: int, rng: random.Random) -> list[tuple[str, int]]:
        kinds = rng.choices(list(SCHEDULER.stress_mix), k=n)
        return [(kind, rng.randrange(1 << 30)) for kind in kinds]

    def work(self, lane: int, plan: list[tuple[str, int]], history: History) -> None:
        rng = random.Random(plan[0][1] if plan else lane)
        mine = self.claims[lane]
        worker = _Worker(mine, POOL, self.deps)
        for kind, _ in plan:
            call = SCHEDULER.stress_op(kind, worker, rng)
            op = history.invoke(f"t{lane}", call)
            response = perform_scheduler(self.target, call)
            history.respond(op, response)
            if SCHEDULER[call[0]].claims and isinstance(response, list):
                got = [(c[0], c[1]) for c in response]
                mine.extend(got)
                with self.lock:
                    for claim in got:
                        if claim in self.claimed:
                            self.twice.append(claim)
                        self.claimed.add(claim)

    def judge(self, history: History, budget: int) -> tuple[str, str]:
        specs = [SchedulerSpec(m) for m in self.models]
        lin = check(history, specs[0], alternatives=specs[1:], budget=budget)
        if lin.verdict != OK:
            return lin.verdict, lin.message
        ids = list(range(POOL))
        seen = observe_scheduler(self.target, ids)
        fits = [s for s in lin.final_states if observe_scheduler(s.model, ids) == seen]
        if not fits:
            return "violation", (f"the target's state after the round {seen!r} matches none "
                                 "of the model's possible states")
        if len(fits) > MAX_CANDIDATES:
            return UNKNOWN, (f"{len(fits)} model states fit the target after this round "
                             f"(more than {MAX_CANDIDATES} carried forward)")
        # Every fitting state goes forward: their differences (the submission order of two
        # overlapping resubmits) show only in later rounds.
        unique: dict[Any, Any] = {}
        for f in fits:
            canonical = _canonical(f.model)
            unique.setdefault(canonical.snapshot(), canonical)
        self.models = list(unique.values())
        if self.twice:
            return "violation", f"claimed twice: {self.twice[:3]!r}"
        return OK, ""

    def finish(self) -> str:
        if self.twice:
            return f"(id, generation) claimed twice: {self.twice[:3]!r}"
        for mine in self.claims:  # single-threaded drain
            for task, gen in mine:
                self.target.complete(task, gen)
        while True:
            got = self.target.ready()
            if not got:
                break
            for claim in got:
                c = adapt.norm_claim(claim)
                self.target.complete(c[0], c[1])
        self.target.close()
        terminal = {"SUCCEEDED", "FAILED", "BLOCKED", "CANCELLED"}
        for task in range(POOL):
            state = adapt.norm_info(self.target.info(task))[2]
            if state not in terminal:
                return f"after the drain and close(), task {task} is {state}, not terminal"
        return ""


def _canonical(model: Any) -> Any:
    """The model with its submission stamps reduced to what the future can observe: only the
    relative order of PENDING/READY generations decides anything later (ready() order), so
    they are renumbered 1..k in that order, every other generation gets 0, and the counter
    continues at k. Two states that differ only in forgotten stamps become equal."""
    out = model.copy()
    waiting = sorted((t for t in out._tasks.values()
                      if adapt.norm_name(t.state) in ("PENDING", "READY")),
                     key=lambda t: t.seq)
    rank = {id(t): i + 1 for i, t in enumerate(waiting)}
    for t in out._tasks.values():
        t.seq = rank.get(id(t), 0)
    out._seq = len(waiting)
    return out


@dataclass
class _Worker:
    """One scheduler stress worker's view (``operations.SchedulerWorker``)."""

    mine: list[tuple[Any, int]]
    pool: int
    deps: dict[Any, tuple[Any, ...]]


class _AnyOrderSpec(WheelSpec):
    """The wheel's spec when the order within one ``advance`` is a design difference."""

    def copy(self) -> WheelSpec:
        return _AnyOrderSpec(self.model.copy(), dict(self.names), self.callbacks)

    def apply(self, call: tuple[Any, ...]) -> Any:
        got = super().apply(call)
        return sorted(got) if call[0] == "advance" and isinstance(got, list) else got


@WHEEL.provides("stress")
class _WheelStress:
    TICK = 2
    tick = TICK  #: ``operations.WheelWorker``
    any_order = False  #: compare the timers one advance fires as a set (tolerance mode)

    def __init__(self, factory: Callable[..., Any], threads: int, rng: random.Random) -> None:
        from schedcheck import model

        self.target = factory(self.TICK, 8)
        self.specs = [WheelSpec(model.TimingWheel(self.TICK, 8), {})]
        self.now = 0
        self.handles: dict[str, Any] = {}  #: the live ones
        self.all_handles: dict[str, Any] = {}  #: fired or cancelled
        self.mine: list[list[str]] = [[] for _ in range(threads)]
        self.rounds = 0
        self.cancelled_true: set[str] = set()
        self.fired: dict[str, int] = {}
        self.lock = threading.Lock()
        self.resolver: WheelRound | None = None
        from schedcheck.targets.adapters import WheelCapabilities, capabilities_of

        caps = capabilities_of(factory)
        #: a target that declares no cancel() is never sent one
        self.mix = [k for k in WHEEL.stress_mix if k != "cancel" or not (
            isinstance(caps, WheelCapabilities) and caps.cancel == "missing")]

    def plan(self, lane: int, n: int, rng: random.Random) -> list[tuple[Any, ...]]:
        if lane == 0:  # the tick thread
            return [("advance", self.TICK * (k + 1)) for k in range(n)]
        ops: list[tuple[Any, ...]] = []
        for _ in range(n):
            ops.append(WHEEL.stress_op(rng.choice(self.mix), self, rng))
        return ops

    def work(self, lane: int, plan: list[tuple[Any, ...]], history: History) -> None:
        resolver = self._round()
        name = "tick" if lane == 0 else f"t{lane}"
        for op in plan:
            call = resolver.resolve(name, op)
            if call == SKIP:
                continue
            record = history.invoke(name, call)
            raw = resolver.perform(self.target, name, call)
            history.respond(record, raw)

    def _round(self) -> WheelRound:
        with self.lock:
            if self.resolver is None:
                self.rounds += 1
                self.resolver = WheelRound(now=self.now, handles=dict(self.handles),
                                           prefix=f"r{self.rounds}.")
            return self.resolver

    def judge(self, history: History, budget: int) -> tuple[str, str]:
        if "normalised" not in history.meta:
            self._normalise(history)
        if self.any_order:
            self.specs = [_AnyOrderSpec(s.model, s.names, s.callbacks) for s in self.specs]
        lin = check(history, self.specs[0], alternatives=self.specs[1:], budget=budget)
        if lin.verdict != OK:
            return lin.verdict, lin.message
        seen = observe_wheel_target(self.target, self.handles)
        fits = [s for s in lin.final_states if observe_wheel_spec(s, list(self.handles)) == seen]
        if not fits:
            return "violation", (f"the target's pending()/flags {seen!r} match none of the "
                                 "model's possible states")
        if len(fits) > MAX_CANDIDATES:
            return UNKNOWN, (f"{len(fits)} model states fit the target after this round "
                             f"(more than {MAX_CANDIDATES} carried forward)")
        # Every fitting state goes forward: the order of two overlapping schedules of the
        # same due tick shows only when they fire.
        live = self._live_names(fits[0])
        unique: dict[Any, WheelSpec] = {}
        for f in fits:  # compaction forgets what no later round can observe: dedupe after it
            compact = self._compact(f)
            unique.setdefault(compact.key(), compact)
        self.specs = list(unique.values())
        for name in list(self.handles):
            if name not in live:
                self.all_handles[name] = self.handles.pop(name)
        return OK, ""

    @staticmethod
    def _live_names(spec: WheelSpec) -> set[str]:
        m = spec.model
        return {n for n, seq in spec.names.items()
                if not (m._handle(seq).fired or m._handle(seq).cancelled)}

    def _normalise(self, history: History) -> None:
        history.meta["normalised"] = True
        resolver = self._round()
        self.resolver = None
        for op in history.operations:
            if op.returned is not None:
                op.response = resolver.normalise(op.call, op.response)
                if op.call[0] == "advance":
                    if self.any_order and isinstance(op.response, list):
                        op.response = sorted(op.response)
                    self.now = max(self.now, op.call[1])
                    for name in op.response:
                        self.fired[name] = self.fired.get(name, 0) + 1
                if op.call[0] == "cancel" and op.response is True:
                    self.cancelled_true.add(op.call[1])
        self.handles.update(resolver.handles)

    def _compact(self, spec: WheelSpec) -> WheelSpec:
        """Keep the model small over 100,000 operations: a fresh model at the same cursor and
        now, holding only the live timers, in their scheduling order (so ties still break the
        same way). Fired and cancelled handles leave the round's view (``finish`` keeps their
        counts)."""
        from schedcheck import model

        old = spec.model
        # (due tick, seq): firing order depends only on this, so two states that differ in
        # the scheduling order of timers due at different ticks compact to the same state.
        live = sorted((old._handle(seq).due_tick, seq, name) for name, seq in spec.names.items()
                      if not (old._handle(seq).fired or old._handle(seq).cancelled))
        fresh = model.TimingWheel(self.TICK, 8, start=self.now)
        fresh.advance(self.now)
        names: dict[str, int] = {}
        for _due, seq, name in live:
            names[name] = fresh.schedule(old._handle(seq).deadline, _noop).seq
        assert fresh.cursor == old.cursor and fresh.pending() == old.pending()
        return WheelSpec(fresh, names)

    def finish(self) -> str:
        fired = self.target.advance(self.now + 100 * self.TICK)
        self.all_handles.update(self.handles)
        by_id = {id(h): n for n, h in self.all_handles.items()}
        for h in fired:
            name = by_id.get(id(h), "?")
            self.fired[name] = self.fired.get(name, 0) + 1
        twice = [n for n, k in self.fired.items() if k > 1]
        both = sorted(set(self.fired) & self.cancelled_true)
        lost = [n for n in self.all_handles
                if n not in self.fired and n not in self.cancelled_true]
        if twice or both or lost or self.target.pending() != 0:
            return (f"timers fired twice {twice[:3]}, fired after a successful cancel "
                    f"{both[:3]}, lost {lost[:3]}, pending() = {self.target.pending()}")
        return ""


__all__ = ["StressResult", "run_stress"]
