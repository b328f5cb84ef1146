"""Concurrent rounds: 2-3 thread programs run under the baton, then checked against the model.

A *round* starts from a quiescent state (model and target agree), runs each lane's short list
of operations on the target under one schedule (``baton``), records the history, and ends at a
quiescent point where

1. the history must be linearizable against the model (``linearizability.check``), carrying
   every model state a linearization can end in;
2. the target's observable state (``info()`` of every task; ``pending()`` and every handle's
   ``fired``/``cancelled``) must equal the observation of one of those states -- that state is
   the model's state for the rest of the run (so several fitting linearizations are
   disambiguated by the target itself, never guessed);
3. the run must not deadlock, livelock, or raise anything but a contract error.

Operations are tuples, printable and replayable, each looked up in its system's table
(``operations``). Scheduler: ``("ready", limit)``, ``("complete"|"fail"|"cancel", ref)``,
``("submit", id)`` (a resubmit with the same deps), ``("close",)``, where ``ref`` is a task id
(its generation at the start of the round), ``("claimed",)`` (the task RUNNING at the start
that this lane owns: lane i owns the i-th, in id order) or ``("mine", j)`` (the j-th claim of
this lane's latest ready()); a ref that names nothing skips the operation. Wheel:
``("schedule", offset)`` (deadline = round's now + offset), ``("cancel", ref)`` with ``ref`` a
handle name (``"h0"``...) or ``("mine", j)``, ``("advance", dt)`` (now = round's now + dt,
taken by the "tick" lane), ``("pending",)``.

A call resolved at invocation time is what the history holds (``("complete", "a", 1)``), so the
linearizability search needs no lane-local state. Wheel handles are named by the operation
that made them; the spec carries the name -> model seq map in its state.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any

from schedcheck.concurrency import baton
from schedcheck.concurrency.history import History, Operation
from schedcheck.concurrency.linearizability import OK, UNKNOWN, LinResult, check
from schedcheck.concurrency.operations import (
    SCHEDULER,
    SKIP,
    WHEEL,
    OpTable,
)
from schedcheck.concurrency.operations import error_response as _err
from schedcheck.concurrency.operations import noop as _noop
from schedcheck.targets import adapt

Program = list[tuple[Any, ...]]

__all__ = [
    "SKIP",
    "Program",
    "RoundOutcome",
    "SchedulerRound",
    "SchedulerSpec",
    "WheelRound",
    "WheelSpec",
    "_noop",
    "concurrent_round",
    "describe_round",
    "explain",
    "perform_scheduler",
    "round_snapshot",
    "run_round",
]


def _on_model(table: OpTable, spec: Any, call: tuple[Any, ...]) -> Any:
    op = table[call[0]]  # an unknown name is a harness error, raised
    try:
        return op.on_model(spec, call)
    except Exception as exc:
        return _err(exc)


def _on_target(table: OpTable, target: Any, call: tuple[Any, ...], lanes: Any,
               lane: str) -> Any:
    op = table[call[0]]
    try:
        return op.on_target(target, call, lanes, lane)
    except Exception as exc:
        return _err(exc)


# --------------------------------------------------------------------------------------------
# Scheduler
# --------------------------------------------------------------------------------------------


class SchedulerSpec:
    """The sequential spec of the scheduler for the linearizability search (wraps the model)."""

    def __init__(self, model: Any) -> None:
        self.model = model

    def copy(self) -> SchedulerSpec:
        return SchedulerSpec(self.model.copy())

    def key(self) -> Hashable:
        snap: Hashable = self.model.snapshot()
        return snap

    def apply(self, call: tuple[Any, ...]) -> Any:
        return _on_model(SCHEDULER, self, call)


def perform_scheduler(obj: Any, call: tuple[Any, ...]) -> Any:
    """Run one resolved call on a scheduler (model or target); the normalised response."""
    return _on_target(SCHEDULER, obj, call, None, "")


@dataclass
class SchedulerRound:
    """Lane-side resolution of scheduler programs (one per round)."""

    generations: dict[Any, int]  #: task id -> current generation at the round's start
    deps: dict[Any, tuple[Any, ...]]  #: task id -> deps (for resubmits)
    running: list[Any] = field(default_factory=list)  #: RUNNING at the start, by submission
    lanes: list[str] = field(default_factory=list)  #: lane names, in order
    claims: dict[str, list[tuple[Any, int]]] = field(default_factory=dict)
    handles: dict[str, Any] = field(default_factory=dict)  #: none: the scheduler has no handles
    #: what the quiescent comparison looks at
    mismatch: str = "state {observed!r} matches none of the states the model can be in: {wanted!r}"

    @classmethod
    def at(cls, sched: Any, lanes: list[str]) -> SchedulerRound:
        """The round starting from ``sched``'s state (the model, or a target with task_ids)."""
        ids = list(sched.task_ids()) if hasattr(sched, "task_ids") else []
        infos = {t: sched.info(t) for t in ids}
        return cls(generations={t: infos[t].generation for t in ids},
                   deps={t: tuple(sched.deps_of(t)) for t in ids},
                   running=[t for t in ids if adapt.norm_name(infos[t].state) == "RUNNING"],
                   lanes=lanes)

    def resolve(self, lane: str, op: tuple[Any, ...]) -> tuple[Any, ...]:
        return SCHEDULER[op[0]].resolve(self, lane, op)

    def normalise(self, call: tuple[Any, ...], raw: Any) -> Any:
        return raw  # perform already normalised it

    def observe_target(self, target: Any) -> Any:
        return observe_scheduler(target, list(self.generations))

    def observe_spec(self, spec: SchedulerSpec) -> Any:
        return observe_scheduler(spec.model, list(self.generations))

    def perform(self, target: Any, lane: str, call: tuple[Any, ...]) -> Any:
        response = _on_target(SCHEDULER, target, call, self, lane)
        if SCHEDULER[call[0]].claims and isinstance(response, list):
            self.claims[lane] = [(c[0], c[1]) for c in response]
        return response


def observe_scheduler(obj: Any, ids: Sequence[Any]) -> tuple[Any, ...]:
    """The quiescent observation: every task's normalised info."""
    out: list[Any] = []
    for task_id in ids:
        try:
            out.append(adapt.norm_info(obj.info(task_id)))
        except Exception as exc:
            out.append(_err(exc))
    return tuple(out)


# --------------------------------------------------------------------------------------------
# Wheel
# --------------------------------------------------------------------------------------------


class WheelSpec:
    """The wheel's sequential spec: the model plus handle name -> model seq."""

    def __init__(self, model: Any, names: dict[str, int],
                 callbacks: dict[str, Any] | None = None) -> None:
        self.model = model
        self.names = names
        self.callbacks = callbacks or {}  #: label -> the model-side callback (suite mixin)

    def copy(self) -> WheelSpec:
        return WheelSpec(self.model.copy(), dict(self.names), self.callbacks)

    def key(self) -> Hashable:
        return (self.model.snapshot(), tuple(sorted(self.names.items())))

    def apply(self, call: tuple[Any, ...]) -> Any:
        return _on_model(WHEEL, self, call)


@dataclass
class WheelRound:
    """Lane-side resolution of wheel programs; handles are named by the op that made them."""

    now: int  #: the last now at the round's start
    handles: dict[str, Any]  #: name -> target handle (setup handles, then the round's own)
    mine: dict[str, list[str]] = field(default_factory=dict)
    prefix: str = ""  #: prepended to the round's handle names (stress: one per round)
    callbacks: dict[str, Any] = field(default_factory=dict)  #: label -> target callback
    mismatch: str = ("pending()/flags {observed!r} match none of the model's possible states "
                     "{wanted!r}")

    def resolve(self, lane: str, op: tuple[Any, ...]) -> tuple[Any, ...]:
        return WHEEL[op[0]].resolve(self, lane, op)

    def observe_target(self, target: Any) -> Any:
        return observe_wheel_target(target, self.handles)

    def observe_spec(self, spec: WheelSpec) -> Any:
        return observe_wheel_spec(spec, list(self.handles))

    def perform(self, target: Any, lane: str, call: tuple[Any, ...]) -> Any:
        """Raw response; handle objects are named after the run (:meth:`normalise`)."""
        return _on_target(WHEEL, target, call, self, lane)

    def normalise(self, call: tuple[Any, ...], raw: Any) -> Any:
        if isinstance(raw, tuple) and raw[:1] == ("raise",):
            return raw
        return WHEEL[call[0]].normalise(self, call, raw)


def observe_wheel_target(target: Any, handles: dict[str, Any]) -> tuple[Any, ...]:
    flags = tuple(
        (name, bool(h.fired), bool(h.cancelled)) for name, h in sorted(handles.items())
    )
    return (int(target.pending()), flags)


def observe_wheel_spec(spec: WheelSpec, names: Sequence[str]) -> tuple[Any, ...]:
    flags = []
    for name in sorted(names):
        seq = spec.names.get(name)
        if seq is None:
            flags.append((name, False, False))
            continue
        h = spec.model._handle(seq)
        flags.append((name, bool(h.fired), bool(h.cancelled)))
    return (int(spec.model.pending()), tuple(flags))


# --------------------------------------------------------------------------------------------
# Running a round
# --------------------------------------------------------------------------------------------


@dataclass
class RoundOutcome:
    run: baton.RunOutcome
    history: History
    lin: LinResult[Any]
    verdict: str  #: "ok", "violation", "deadlock", "livelock", "error", "unknown"
    message: str
    final_spec: Any = None  #: the spec state matching the target's quiescent observation
    final_path: list[Operation] = field(default_factory=list)  #: a linearization ending there
    handles: dict[str, Any] = field(default_factory=dict)  #: wheel: name -> target handle

    @property
    def ok(self) -> bool:
        return self.verdict == OK


def _scheduler_round(at: Any, lanes: list[str], _now: int, _handles: Any,
                     _callbacks: Any) -> SchedulerRound:
    return SchedulerRound.at(at, lanes)


def _wheel_round(_at: Any, _lanes: list[str], now: int, handles: dict[str, Any] | None,
                 callbacks: dict[str, Any] | None) -> WheelRound:
    return WheelRound(now=now, handles=dict(handles or {}), callbacks=dict(callbacks or {}))


#: system -> (the scheduler/model it starts from, lanes, now, setup handles, callbacks) ->
#: the round's lane-side state
_RESOLVERS: dict[str, Callable[..., Any]] = {"scheduler": _scheduler_round,
                                             "wheel": _wheel_round}


def _lane_program(
    resolver: Any, target: Any, history: History, lane: str, ops: Program
) -> Callable[[], None]:
    def body() -> None:
        for op in ops:
            baton.checkpoint(f"begin {op[0]}")
            call = resolver.resolve(lane, op)
            if call == SKIP:
                continue
            record = history.invoke(lane, call)
            raw = resolver.perform(target, lane, call)
            history.respond(record, raw)
            baton.checkpoint(f"end {op[0]}")

    return body


def run_round(
    system: str,
    target: Any,
    spec: Any,
    threads: Sequence[Program],
    schedule: Sequence[int],
    *,
    names: Sequence[str] | None = None,
    setup_handles: dict[str, Any] | None = None,
    target_callbacks: dict[str, Any] | None = None,
    now: int = 0,
    budget: int = 50_000,
    max_steps: int = 5_000,
) -> RoundOutcome:
    """Run one concurrent round on ``target`` and check it against ``spec`` (not modified).

    ``spec`` is a :class:`SchedulerSpec` or a :class:`WheelSpec` in the state the target is
    in; ``setup_handles`` (wheel) maps the spec's handle names to the target's handles.
    """
    history = History()
    lane_names = list(names) if names else [f"t{i}" for i in range(len(threads))]
    resolver = _RESOLVERS[system](spec.model, lane_names, now, setup_handles, target_callbacks)
    programs = [
        _lane_program(resolver, target, history, lane, list(ops))
        for lane, ops in zip(lane_names, threads, strict=True)
    ]
    run = baton.run(programs, schedule, names=lane_names, max_steps=max_steps)
    for op in history.operations:
        if op.returned is not None:
            op.response = resolver.normalise(op.call, op.response)

    def outcome(verdict: str, message: str, lin: LinResult[Any] | None = None,
                final: Any = None) -> RoundOutcome:
        out = RoundOutcome(run, history, lin or LinResult(UNKNOWN), verdict, message, final)
        if lin is not None and final is not None:
            out.final_path = lin.final_paths[lin.final_states.index(final)]
        out.handles = resolver.handles
        return out

    if run.deadlock:
        return outcome("deadlock", run.describe_failure())
    if run.livelock:
        return outcome("livelock", run.describe_failure())
    if run.errors:
        lane, exc = next(iter(run.errors.items()))
        return outcome("error", f"{lane} raised {type(exc).__name__}: {exc}")
    lin = check(history, spec, budget=budget)
    if lin.verdict != OK:
        return outcome(lin.verdict, lin.message, lin)
    # The quiescent point: the target's observable state picks the linearization's end state.
    observed = resolver.observe_target(target)
    fits = [s for s in lin.final_states if resolver.observe_spec(s) == observed]
    if not fits:
        wanted = [resolver.observe_spec(s) for s in lin.final_states]
        return outcome(
            "violation",
            "after the round every call's answer fits a linearization, but the target's "
            + resolver.mismatch.format(observed=observed, wanted=wanted),
            lin,
        )
    return outcome(OK, "", lin, fits[0])


def concurrent_round(
    target: Any,
    system: str,
    threads: Sequence[Sequence[tuple[Any, ...]]],
    schedule: Sequence[int],
    names: Sequence[str] | None = None,
    *,
    now: int = 0,
    handles: dict[str, Any] | None = None,
    callbacks: dict[str, Any] | None = None,
) -> History:
    """Replay one round on ``target`` (built by ``controlled``) under ``schedule``.

    Returns the history (``.describe()`` prints it, its responses read as the check reads
    them, so a failing round's replay compares it with the recorded one). The judgement needs
    the model's state at that point; the printed counterexample's message has it.
    """
    history = History()
    lane_names = list(names) if names else [f"t{i}" for i in range(len(threads))]
    resolver = _RESOLVERS[system](target, lane_names, now, handles, callbacks)
    programs = [_lane_program(resolver, target, history, lane, list(ops))
                for lane, ops in zip(lane_names, threads, strict=True)]
    baton.run(programs, schedule, names=lane_names)
    for op in history.operations:  # as run_round reads them
        if op.returned is not None:
            op.response = resolver.normalise(op.call, op.response)
    history.meta["handles"] = resolver.handles  # the wheel's, by name (the scheduler: none)
    return history


def describe_round(threads: Sequence[Program], schedule: Sequence[int],
                   names: Sequence[str] | None = None) -> str:
    lane_names = list(names) if names else [f"t{i}" for i in range(len(threads))]
    lines = [f"#   {lane}: {list(ops)!r}" for lane, ops in zip(lane_names, threads, strict=True)]
    lines.append(f"#   schedule: {list(schedule)!r}")
    return "\n".join(lines)


def round_snapshot(outcome: RoundOutcome) -> dict[str, Any]:
    """The round as pictures draw it (``schedcheck.report.render``): every operation with its
    lane, call, response and event times, and the switch points where the baton moved."""
    ops = [{"lane": op.lane, "call": repr(op.call), "invoked": op.invoked,
            "returned": op.returned,
            "response": "<no response>" if op.returned is None else repr(op.response)}
           for op in sorted(outcome.history.operations, key=lambda o: o.invoked)]
    switches = [{"lane": d.lane, "k": d.k, "point": d.point, "chosen": d.chosen,
                 "preemption": d.preemption}
                for d in outcome.run.decisions if d.chosen != d.lane]
    return {"round": ops, "switches": switches}


def explain(outcome: RoundOutcome) -> str:
    """The story of a failed round: the verdict, the history in order, the interleaving."""
    parts = [f"{outcome.verdict}: {outcome.message}", "history (event times):",
             outcome.history.describe()]
    preempt = [f"{d.lane}@{d.k} ({d.point}) -> {d.chosen}" for d in outcome.run.decisions
               if d.preemption]
    parts.append("preemptions: " + (", ".join(preempt) if preempt else "none"))
    return "\n".join(parts)
