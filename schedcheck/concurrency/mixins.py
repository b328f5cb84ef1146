"""The "concurrent round" rule, mixed into the differential suites' state machines.

:func:`concurrency_bases` returns the mixin for a system and a target. The mixin

* swaps the machine's ``factory`` (at class creation, ``__init_subclass__``) for one that
  builds the target with cooperative primitives -- through ``lock_factory`` when the
  constructor takes one, else inside ``patching.patched()`` -- so the baton sees every lock;
* adds one rule, ``concurrent_round``: 2-3 lanes of 1-3 operations drawn from the model's
  current tasks, a schedule drawn by Hypothesis (so shrinking removes preemptions,
  operations and lanes with the rest of the program) -- or, when the target has ``copy()``,
  the first schedule within one preemption that fails on a copy -- run on the *same* target
  the sequential rules drive, then checked (``rounds.run_round``: linearizability, the
  quiescent state). On success the machine's model becomes the state the target's
  observations select, and the suite's ``@invariant`` compares everything as after any rule;
  on failure the machine diverges on ``S-LIN`` with the thread programs, the schedule and --
  for a deadlock -- the wait-for edges and cycle in the counterexample;
* unless the failure is no race: before a round runs, the target (with the handles it gave
  out) is deep-copied when it can be; a round that fails is run again on that copy with no
  preemption at all, and if it fails that way too, the mistake is a sequential one -- which
  the sequential rules report under its own clause (and a keep-going run has set aside) --
  so the round is no counterexample of linearizability: the example ends there, uncounted.

The step printed for a round is one replayable line,
``concurrent_round(target, 'scheduler', threads=[...], schedule=[...], names=[...])``, and the
setup line builds the target through ``controlled(factory, ...)``, so the replay script
reproduces the exact interleaving.

The wheel's suite keeps an independent ledger and handle maps: after a round its mixin
replays one linearization that ends in the selected state into the ledger (schedule, cancel,
advance, in that order), binds the round's new handles, and re-maps every model handle to the
selected model copy. Its rounds run only without an executor and outside tolerance mode.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from typing import Any, ClassVar, Protocol, cast

import hypothesis
from hypothesis import strategies as st
from hypothesis.stateful import precondition, rule

from schedcheck.concurrency import patching
from schedcheck.concurrency.cases import build as _build
from schedcheck.concurrency.cases import fails_without_overlap
from schedcheck.concurrency.explore import explore
from schedcheck.concurrency.operations import SCHEDULER, WHEEL, DrawContext, table
from schedcheck.concurrency.rounds import (
    SchedulerSpec,
    WheelSpec,
    describe_round,
    explain,
    round_snapshot,
    run_round,
)
from schedcheck.harness.common import Recorder
from schedcheck.harness.result import Step


class SuiteMachineView(Protocol):
    """What a round mixin uses of any suite machine (``harness.common.SuiteMachine``)."""

    target: Any
    model: Any
    trace: Recorder
    program: Any  #: the atomic calls recorded (``harness.program.Program``), or None

    def exercise(self, *clause_ids: str) -> None: ...
    def diverge(self, clause: str, message: str, *, step: Step | None = ...,
                snapshot: Mapping[str, Any] | None = ...) -> None: ...


class SchedulerSuiteMachine(SuiteMachineView, Protocol):
    """What the scheduler's round mixin uses of ``scheduler.suite.SchedulerMachine``."""

    max_concurrency: int
    claimed: set[tuple[Any, int]]
    last_clause: str
    last_words: str

    @property
    def m(self) -> Any: ...

    def model_adopted(self) -> None: ...


class WheelSuiteMachine(SuiteMachineView, Protocol):
    """What the wheel's round mixin uses of ``wheel_suite.WheelMachine``."""

    ledger: Any
    t_handles: dict[str, Any]
    m_handles: dict[str, Any]

    def new_callback(self, raises: bool) -> tuple[str, Any, Any]: ...
    def note_schedule(self, deadline: int, callback: str, raises: bool, t_handle: Any,
                      m_handle: Any) -> Any: ...
    def note_cancel(self, name: str, stopped: bool) -> None: ...
    def note_advance(self, now: int, t_fired: list[Any]) -> Any: ...
    def rebind_model(self, model: Any, handles: dict[str, Any]) -> None: ...


__all__ = ["SchedulerRoundMixin", "WheelRoundMixin", "concurrency_bases", "describe_bases"]


def concurrency_bases(system: str, factory: Callable[..., Any]) -> tuple[type, ...]:
    """The mixin(s) adding concurrent rounds to ``system``'s suite machine for ``factory``
    (ValueError naming the systems for an unknown one)."""
    return (table(system).part("round mixin"),)


def describe_bases(system: str, factory: Callable[..., Any]) -> str:
    """How the rounds reach the target's primitives, in one sentence for the report."""
    how = ("its lock_factory" if patching.patchable(factory)
           else "threading/queue patched while it is built")
    mixin = table(system).part("round mixin")
    return f"{system}: {mixin.where}; primitives through {how}"


@SCHEDULER.provides("round mixin")
class SchedulerRoundMixin:
    """Adds ``concurrent_round`` to ``scheduler.suite.SchedulerMachine`` (see module doc)."""

    where: ClassVar[str] = "concurrent rounds inside the suite"

    _uncontrolled_factory: ClassVar[Callable[..., Any] | None] = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        raw = cls.__dict__.get("factory")
        if raw is None:
            return
        original = raw.__func__ if isinstance(raw, staticmethod) else raw
        cls._uncontrolled_factory = original

        def controlled(*args: Any, **options: Any) -> Any:
            return _build(original, args, options)

        controlled.__qualname__ = getattr(original, "__qualname__", "factory")
        cls.factory = staticmethod(controlled)  # type: ignore[attr-defined]

    @precondition(lambda self: self.model is not None and self._started())
    @rule(data=st.data())
    def concurrent_round(self, data: st.DataObject) -> None:
        machine = cast(SchedulerSuiteMachine, self)
        ids = list(machine.m.task_ids())
        if not ids:
            return
        # a round is not an atomic call: a replay of the recorded calls without it would
        # not reach this state, so this example's failures are not reduced by replaying them
        machine.program = None
        lane_op = SCHEDULER.lane_ops(DrawContext(ids=ids), suite=True)
        threads = data.draw(st.lists(st.lists(lane_op, min_size=1, max_size=3),
                                     min_size=2, max_size=3), label="threads")
        names = [f"t{i}" for i in range(len(threads))]
        bound = 6 * max(len(ops) for ops in threads) + 2
        triple = st.tuples(st.integers(0, len(threads) - 1), st.integers(0, bound),
                           st.integers(0, 2))
        schedule = [x for t in data.draw(st.lists(triple, max_size=4), label="schedule")
                    for x in t]
        spec = SchedulerSpec(machine.m)
        if callable(getattr(machine.target, "copy", None)):
            # Try every schedule within one preemption on copies of the target first; a
            # failing one is what the real round runs (the verdict is the real run's).
            def trial(sch: list[int]) -> tuple[Any, bool, Any]:
                out = run_round("scheduler", machine.target.copy(), spec, threads, sch,
                                names=names)
                return out.run, out.ok, out

            sweep = explore(trial, bound=1, max_runs=16)
            if sweep.failing is not None:
                schedule = sweep.failing
        mc = machine.max_concurrency
        machine.trace.setup = (
            "from schedcheck.concurrency import concurrent_round, controlled; "
            f"target = controlled(factory, {mc!r})"
        )
        round_name = machine.trace.fresh_name("round")
        code = (f"{round_name} = concurrent_round(target, 'scheduler', threads={threads!r}, "
                f"schedule={schedule!r}, names={names!r})")
        words = "concurrent round:\n" + describe_round(threads, schedule, names)
        step = machine.trace.add(code, words, clause="S-LIN", thread="+".join(names))
        twin = _twin(machine.target, {}, spec)
        outcome = run_round("scheduler", machine.target, spec, threads, schedule, names=names)
        if not outcome.ok and twin is not None and _fails_serially(
                twin, threads, names, outcome, lambda target, _handles, model_side, lanes, order:
                run_round("scheduler", target, model_side, lanes, [], names=order)):
            hypothesis.reject()  # a sequential mistake: no race (see the module docstring)
        machine.exercise("S-LIN", "S-T6")
        machine.last_clause, machine.last_words = "S-LIN", "a concurrent round"
        for op in outcome.history.operations:
            if SCHEDULER[op.call[0]].claims and isinstance(op.response, list):
                for claim in op.response:
                    key = (claim[0], claim[1])
                    if key in machine.claimed:
                        machine.exercise("S-CLAIM-ONCE")
                    machine.claimed.add(key)
        if outcome.ok:
            machine.model = outcome.final_spec.model
            machine.model_adopted()
            step.expected = step.actual = "linearizable"
            return
        _report_round(machine, "S-LIN", step, outcome, threads, names, schedule)


def _twin(target: Any, handles: dict[str, Any], spec: Any) -> tuple[Any, Any, Any] | None:
    """A deep copy of the target together with the handles it gave out (one copy: each
    handle maps to its copy), and a copy of the model side; None when the target cannot be
    copied."""
    try:
        twin, twin_handles = copy.deepcopy((target, handles))
    except Exception:  # locks, files, C objects: no serial check for this target
        return None
    return twin, twin_handles, spec.copy()


def _fails_serially(twin: tuple[Any, Any, Any], threads: list[Any], names: list[str],
                    outcome: Any,
                    run: Callable[[Any, Any, Any, list[Any], list[str]], Any]) -> bool:
    """``cases.fails_without_overlap``, each run on a fresh copy of the state taken before
    the round (``twin``)."""
    def failed(lanes: list[Any], order: list[str]) -> bool:
        (target, handles), model_side = copy.deepcopy(twin[:2]), twin[2].copy()
        try:
            return not run(target, handles, model_side, lanes, order).ok
        except Exception:
            return False  # the copy does not run: no verdict from it, the round's own stands

    return fails_without_overlap(failed, threads, names, outcome)


def _report_round(machine: Any, clause: str, step: Any, outcome: Any, threads: Any,
                  names: Any, schedule: Any) -> None:
    """A round that is not linearizable (or deadlocked): diverge on ``clause`` with the
    history, the wait-for cycle when there is one, and the schedule that replays it."""
    step.expected, step.actual = "linearizable", outcome.verdict
    # what the replay tests again: the round under the same schedule gives the same history
    # (the verdict needs the model's state at this point, which the replay does not have)
    round_name = step.code.split(" = ", 1)[0].strip()
    if round_name.isidentifier():
        step.observed = (f"_raised is None and {round_name}.describe() == "
                         f"{outcome.history.describe()!r}")
    snapshot: dict[str, Any] = {"threads": threads, "names": names,
                                "history": outcome.history.describe(),
                                **round_snapshot(outcome)}
    if outcome.run.deadlock:
        snapshot["wait_for"] = outcome.run.wait_for
        snapshot["cycle"] = outcome.run.cycle
    try:
        machine.diverge(clause, explain(outcome), step=step, snapshot=snapshot)
    except AssertionError as exc:
        cx = getattr(exc, "counterexample", None)
        if cx is not None:
            cx.schedule = list(schedule)
        raise


class _Controlled:
    """Swaps the machine's factory for one that builds with cooperative primitives."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        raw = cls.__dict__.get("factory")
        if raw is None:
            return
        original = raw.__func__ if isinstance(raw, staticmethod) else raw

        def controlled(*args: Any, **options: Any) -> Any:
            return _build(original, args, options)

        controlled.__qualname__ = getattr(original, "__qualname__", "factory")
        cls.factory = staticmethod(controlled)  # type: ignore[attr-defined]


@WHEEL.provides("round mixin")
class WheelRoundMixin(_Controlled):
    """Adds ``concurrent_round`` to ``wheel_suite.WheelMachine`` (see module doc)."""

    where: ClassVar[str] = ("concurrent rounds inside the suite (without an executor, exact "
                            "mode)")

    @precondition(lambda self: self.target is not None and self.executor is None
                  and not self.tolerance)
    @rule(data=st.data())
    def concurrent_round(self, data: st.DataObject) -> None:
        machine = cast(WheelSuiteMachine, self)
        # a round is not an atomic call: a replay of the recorded calls without it would
        # not reach this state, so this example's failures are not reduced by replaying them
        machine.program = None
        led = machine.ledger
        live = [r.name for r in led.live()]
        span = 2 * led.tick * led.wheel_size + 2
        op = WHEEL.lane_ops(DrawContext(names=live, span=span), suite=True)
        threads = data.draw(st.lists(st.lists(op, min_size=1, max_size=3), min_size=1,
                                     max_size=2), label="workers")
        names = [f"t{i}" for i in range(len(threads))]
        if data.draw(st.booleans(), label="tick lane") or len(threads) == 1:
            # Advances that reach a live timer's deadline make cancel-vs-tick races likely.
            reach = sorted({max(0, r.deadline - led.now) for r in led.live()
                            if r.deadline - led.now <= 4 * span})
            dt = st.one_of(st.sampled_from(reach), st.integers(0, span)) if reach else \
                st.integers(0, span)
            dts = sorted(data.draw(st.lists(dt, min_size=1, max_size=2), label="advances"))
            at = data.draw(st.integers(0, len(threads)), label="tick lane position")
            threads.insert(at, [("advance", dt) for dt in dts])
            names.insert(at, "tick")
        bound = 6 * max(len(ops) for ops in threads) + 2
        triple = st.tuples(st.integers(0, len(threads) - 1), st.integers(0, bound),
                           st.integers(0, 2))
        schedule = [x for t in data.draw(st.lists(triple, max_size=4), label="schedule")
                    for x in t]
        # A fresh callback per schedule call, named as the suite names them.
        t_cbs: dict[str, Any] = {}
        m_cbs: dict[str, Any] = {}
        cb_names: dict[str, str] = {}
        for lane, ops in zip(names, threads, strict=True):
            for j in range(sum(1 for o in ops if WHEEL[o[0]].makes_handle)):
                cb, t_cb, m_cb = machine.new_callback(False)
                label = f"{lane}.h{j}"
                t_cbs[label], m_cbs[label], cb_names[label] = t_cb, m_cb, cb
        spec = WheelSpec(machine.model,
                         {n: h.seq for n, h in machine.m_handles.items()}, m_cbs)
        setup = {n: machine.t_handles[n] for n in machine.t_handles}
        if callable(getattr(machine.target, "copy", None)) and hasattr(machine.target, "_linked"):
            # Our wheels: try every schedule within one preemption on copies first (a copy's
            # live handles are found by seq); a failing one is what the real round runs.
            def trial(sch: list[int]) -> tuple[Any, bool, Any]:
                twin = machine.target.copy()
                by_seq = {h.seq: h for h in twin._linked()}
                handles = {n: by_seq.get(getattr(h, "seq", None), h) for n, h in setup.items()}
                out = run_round("wheel", twin, spec, threads, sch, names=names,
                                setup_handles=handles, target_callbacks=t_cbs, now=led.now)
                return out.run, out.ok, out

            sweep = explore(trial, bound=1, max_runs=16)
            if sweep.failing is not None:
                schedule = sweep.failing
        if not machine.trace.setup.startswith("from schedcheck.concurrency"):
            machine.trace.setup = (
                "from schedcheck.concurrency import concurrent_round, controlled; "
                + machine.trace.setup.replace("target = factory(", "target = controlled(factory, ")
            )
        round_name = machine.trace.fresh_name("round")
        handles_code = "{" + ", ".join(f"{n!r}: {n}" for n in live) + "}"
        cbs_code = "{" + ", ".join(f"{k!r}: {v}" for k, v in cb_names.items()) + "}"
        code = (f"{round_name} = concurrent_round(target, 'wheel', threads={threads!r}, "
                f"schedule={schedule!r}, names={names!r}, now={led.now!r}, "
                f"handles={handles_code}, callbacks={cbs_code})")
        words = "concurrent round:\n" + describe_round(threads, schedule, names)
        step = machine.trace.add(code, words, clause="W-LIN", thread="+".join(names))
        twin = _twin(machine.target, setup, spec)
        outcome = run_round("wheel", machine.target, spec, threads, schedule, names=names,
                            setup_handles=setup, target_callbacks=t_cbs, now=led.now)
        if not outcome.ok and twin is not None and _fails_serially(
                twin, threads, names, outcome, lambda target, handles, model_side, lanes, order:
                run_round("wheel", target, model_side, lanes, [], names=order,
                          setup_handles=handles, target_callbacks=t_cbs, now=led.now)):
            hypothesis.reject()  # a sequential mistake: no race (see the module docstring)
        machine.exercise("W-LIN", "W-T4", "W4")
        if not outcome.ok:
            _report_round(machine, "W-LIN", step, outcome, threads, names, schedule)
        step.expected = step.actual = "linearizable"
        final = outcome.final_spec
        # The ledger follows one linearization that ends in the selected state (through the
        # suite's note_* helpers, which keep its handle maps and accounting in step).
        replay = _LedgerReplay(machine, outcome.handles, cb_names, round_name)
        for done in outcome.final_path:
            if isinstance(done.response, tuple) and done.response[:1] == ("raise",):
                continue  # errors never change state (W6)
            note = WHEEL[done.call[0]].replay
            if note is not None:
                note(replay, done.call, done.response)
        _mark_unordered(outcome.history.operations, replay.records)
        if replay.bindings:  # later steps name the round's timers as the suite does: h_<seq>
            step.code = "; ".join([step.code, *replay.bindings])
        # Every model handle now lives in the selected copy of the model.
        rebound: dict[str, Any] = {}
        for label_or_name, rec in replay.records.items():
            seq = final.names.get(label_or_name)
            if seq is None or rec.name in rebound:
                continue
            rebound[rec.name] = final.model._handle(seq)
        machine.rebind_model(final.model, rebound)


def _mark_unordered(operations: list[Any], records: Mapping[str, Any]) -> None:
    """Timers whose ``schedule`` calls overlapped in the round (neither returned before the
    other was invoked) have no observable order: the linearization the ledger followed put one
    first, the target may have put the other, and their tie order at firing is either."""
    made = [op for op in operations
            if op.call[0] == "schedule" and op.returned is not None and op.call[1] in records]
    for a in made:
        for b in made:
            if a is b or a.returned < b.invoked or b.returned < a.invoked:
                continue
            rec = records[a.call[1]]
            rec.unordered = rec.unordered | {records[b.call[1]].name}


class _LedgerReplay:
    """Replays one linearization of a wheel round into the suite's ledger (through the
    suite's ``note_*`` helpers, which keep its handle maps and accounting in step)."""

    def __init__(self, machine: WheelSuiteMachine, handles: dict[str, Any],
                 cb_names: dict[str, str], round_name: str) -> None:
        self.machine = machine
        self.handles = handles  #: label -> the target's handle (the round's and setup's)
        self.cb_names = cb_names
        self.round_name = round_name
        self.records: dict[str, Any] = {r.name: r for r in machine.ledger.timers}
        self.bindings: list[str] = []

    def scheduled(self, label: str, deadline: int) -> None:
        rec = self.machine.note_schedule(deadline, self.cb_names[label], False,
                                         self.handles[label], None)
        self.records[label] = rec
        self.bindings.append(f"{rec.name} = {self.round_name}.meta['handles'][{label!r}]")

    def cancelled(self, label: str, stopped: bool) -> None:
        self.machine.note_cancel(self.records[label].name, stopped)

    def advanced(self, now: int, fired: list[str]) -> None:
        self.machine.note_advance(now, [self.handles[n] for n in fired])
