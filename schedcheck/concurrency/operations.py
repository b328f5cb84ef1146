"""Each system's operations, as one table: name -> how a lane resolves it, how it runs on the
target and on the model, how it is described, drawn and replayed.

An operation in a thread program is a tuple, printable and replayable: its name, then its
arguments (``("complete", ("mine", 0))``, ``("schedule", 3)``). A lane *resolves* it when it
reaches it, against the round's state (which task ``("mine", 0)`` is, which deadline ``3`` is
from the round's now) into a *call* -- what the history records and what both sides run
(``("complete", "a", 1)``). A resolution may be :data:`SKIP` (the ref names nothing).

Everything that runs operations looks them up here -- the rounds (``rounds``), the replayable
cases and their sequential setup (``cases``), the hunt's and the suites' strategies (``hunt``,
``mixins``), real-thread stress (``stress``) -- so a new operation is one :class:`Op` in a
table below, plus whatever the target and the model need (the suite's ledger replay, for a
wheel operation that changes the ledger).

Nothing here imports Hypothesis, the model or the harness (but its clause table) at import
time.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from schedcheck.harness import clauses as c
from schedcheck.targets import adapt

if TYPE_CHECKING:
    from hypothesis.strategies import SearchStrategy

Call = tuple[Any, ...]
PartT = TypeVar("PartT")

SKIP: Call = ("skip",)


def error_response(exc: BaseException) -> tuple[str, str]:
    """The normalised response of a call that raised: ``("raise", <contract error name>)``."""
    return ("raise", adapt.error_name(exc))


def noop() -> None:
    return None


# --------------------------------------------------------------------------------------------
# What an operation may use
# --------------------------------------------------------------------------------------------


class SchedulerLanes(Protocol):
    """The round state a scheduler lane resolves against (``rounds.SchedulerRound``)."""

    generations: dict[Any, int]
    deps: dict[Any, tuple[Any, ...]]
    running: list[Any]
    lanes: list[str]
    claims: dict[str, list[tuple[Any, int]]]


class WheelLanes(Protocol):
    """The round state a wheel lane resolves against (``rounds.WheelRound``)."""

    now: int
    handles: dict[str, Any]
    mine: dict[str, list[str]]
    prefix: str
    callbacks: dict[str, Any]


class WheelModelSide(Protocol):
    """The wheel's sequential spec (``rounds.WheelSpec``): the model and handle name -> seq."""

    model: Any
    names: dict[str, int]
    callbacks: dict[str, Any]


class SchedulerWorker(Protocol):
    """What a stress worker knows (``stress``): its claims, the task pool and its deps."""

    mine: list[tuple[Any, int]]
    pool: int
    deps: dict[Any, tuple[Any, ...]]


class WheelWorker(Protocol):
    """What a wheel stress worker knows: the tick (deadlines are drawn in ticks)."""

    tick: int


class WheelReplay(Protocol):
    """Where a suite replays one linearization of a wheel round (its ledger)."""

    def scheduled(self, label: str, deadline: int) -> None: ...
    def cancelled(self, label: str, stopped: bool) -> None: ...
    def advanced(self, now: int, fired: list[str]) -> None: ...


@dataclass(frozen=True)
class DrawContext:
    """What a strategy for an operation's arguments may depend on."""

    ids: Sequence[Any] = ()  #: scheduler: the task ids there are
    names: Sequence[str] = ()  #: wheel: the live handle names
    span: int = 0  #: wheel: the largest deadline offset drawn


@dataclass(frozen=True)
class Op:
    """One operation of a system (see the module comment)."""

    name: str
    words: str  #: what it does, in a few words (``describe``)
    #: (lane state, lane name, operation) -> the call both sides run, or :data:`SKIP`
    resolve: Callable[[Any, str, Call], Call]
    #: (target, call, lane state, lane name) -> the raw response (may raise)
    on_target: Callable[[Any, Call, Any, str], Any]
    #: (model side, call) -> the normalised response (may raise)
    on_model: Callable[[Any, Call], Any]
    #: (lane state, call, raw) -> the normalised response, after the run
    normalise: Callable[[Any, Call, Any], Any] = lambda _lanes, _call, raw: raw
    #: (draw context) -> strategies for the arguments; None: never drawn into a lane
    args: Callable[[DrawContext], tuple[SearchStrategy[Any], ...]] | None = None
    #: operations with the same branch are drawn as one branch (their names sampled)
    branch: str = ""
    in_suite: bool = True  #: drawn by the suites' rounds too (not only the standalone hunt)
    #: non-empty: drawn only in the hunt's stage of that name, which runs after the plain
    #: stages (so a new operation leaves the plain stages' draws, and their finds, as they were)
    stage: str = ""
    claims: bool = False  #: the response lists (id, generation) claims
    makes_handle: bool = False  #: the call creates a handle named by its label (call[1])
    #: (object, call, setup state) for a sequential setup call; None: not a setup call
    setup: Callable[[Any, Call, SetupState], None] | None = None
    #: real-thread stress: (the worker's state, its random source) -> the operation a worker
    #: runs when it picks this kind (see :attr:`OpTable.stress_mix`)
    stress: Callable[[Any, random.Random], Call] | None = None
    #: (where to replay, call, normalised response) -- the suite's ledger after a wheel round
    replay: Callable[[WheelReplay, Call, Any], None] | None = None

    def describe(self, call: Call) -> str:
        return f"{self.words}: {call!r}"


@dataclass
class SetupState:
    """What sequential setup calls leave behind (wheel: handles by name, the last now)."""

    handles: dict[str, Any] = field(default_factory=dict)
    now: int = 0


@dataclass(frozen=True)
class OpTable:
    """One system's operations, and what else the concurrency package needs of the system:
    its linearizability clause, its reference model, and the parts the package's modules
    register for it (:meth:`provides`: the round mixin, the hunt's case strategy, the case
    runner, the stress runner), so that none of them tests the system's name."""

    system: str
    ops: tuple[Op, ...]
    lin_clause: str  #: the clause a non-linearizable history breaks
    #: ``model(*args, **options)`` -> the reference model, built as the target is
    model: Callable[..., Any]
    #: real-thread stress: the kinds a worker picks from (repeats weigh), in draw order
    stress_mix: tuple[str, ...] = ()
    parts: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    def provides(self, kind: str) -> Callable[[PartT], PartT]:
        """A decorator: register the decorated class or function as this system's ``kind``."""
        def register(part: PartT) -> PartT:
            self.parts[kind] = part
            return part

        return register

    def part(self, kind: str) -> Any:
        """What was registered as ``kind`` (see :meth:`provides`)."""
        try:
            return self.parts[kind]
        except KeyError:
            raise ValueError(f"the {self.system} has no {kind!r} registered; known: "
                             f"{', '.join(self.parts) or 'none'}") from None

    def __getitem__(self, name: str) -> Op:
        for op in self.ops:
            if op.name == name:
                return op
        raise ValueError(f"unknown {self.system} operation {name!r}; known: "
                         f"{', '.join(o.name for o in self.ops)}")

    def __iter__(self) -> Iterator[Op]:
        return iter(self.ops)

    def names(self) -> tuple[str, ...]:
        return tuple(op.name for op in self.ops)

    def stages(self) -> tuple[str, ...]:
        """The hunt's extra stages, in table order (see :attr:`Op.stage`)."""
        return tuple(dict.fromkeys(op.stage for op in self.ops if op.stage))

    def lane_ops(self, ctx: DrawContext, *, suite: bool = False,
                 stage: str = "") -> SearchStrategy[Call]:
        """One drawn lane operation: a branch per drawn operation (or shared branch)."""
        from hypothesis import strategies as st

        branches: dict[str, list[Op]] = {}
        for op in self.ops:
            if op.args is None or (suite and not op.in_suite) or op.stage not in ("", stage):
                continue
            branches.setdefault(op.branch or op.name, []).append(op)
        parts = []
        for ops in branches.values():
            head = (st.just(ops[0].name) if len(ops) == 1
                    else st.sampled_from([o.name for o in ops]))
            assert ops[0].args is not None
            parts.append(st.tuples(head, *ops[0].args(ctx)))
        return st.one_of(*parts)

    def stress_op(self, kind: str, worker: Any, rng: random.Random) -> Call:
        op = self[kind]
        if op.stress is None:
            raise ValueError(f"{kind!r} is in the {self.system}'s stress mix but has no stress")
        return op.stress(worker, rng)

    def run_setup(self, obj: Any, calls: Sequence[Call], state: SetupState) -> None:
        for call in calls:
            op = self[call[0]]
            if op.setup is None:
                raise ValueError(f"{call!r} is not a setup call of the {self.system}")
            op.setup(obj, call, state)


# --------------------------------------------------------------------------------------------
# Scheduler
# --------------------------------------------------------------------------------------------


def _sched_ref(lanes: SchedulerLanes, lane: str, op: Call) -> Call:
    """complete/fail/cancel: a task id, ``("claimed",)`` or ``("mine", j)``."""
    name, ref = op[0], op[1]
    if isinstance(ref, tuple) and ref[:1] == ("claimed",):
        # The task the setup handed to this lane: lane i owns the i-th RUNNING one.
        index = lanes.lanes.index(lane) if lane in lanes.lanes else 0
        if index >= len(lanes.running):
            return SKIP
        task = lanes.running[index]
        return (name, task, lanes.generations[task])
    if isinstance(ref, tuple) and ref[:1] == ("mine",):
        mine = lanes.claims.get(lane, [])
        if ref[1] >= len(mine):
            return SKIP
        task, gen = mine[ref[1]]
        return (name, task, gen)
    return (name, ref, lanes.generations.get(ref, 1))


def _sched_call(fn: Callable[[Any, Call], Any]) -> tuple[Callable[[Any, Call, Any, str], Any],
                                                        Callable[[Any, Call], Any]]:
    """The same call on the target and on the model (the spec wraps the model)."""
    return (lambda target, call, _lanes, _lane: fn(target, call),
            lambda spec, call: fn(spec.model, call))


def _reply(obj: Any, call: Call) -> Any:
    return adapt.norm_reply(getattr(obj, call[0])(call[1], call[2]))


def _sched_refs(ctx: DrawContext) -> tuple[SearchStrategy[Any], ...]:
    from hypothesis import strategies as st

    return (st.one_of(st.just(("claimed",)), st.just(("mine", 0)), st.sampled_from(ctx.ids)),)


def _sched_setup_submit(obj: Any, call: Call, _state: SetupState) -> None:
    obj.submit(call[1], call[2])


def _sched_setup_ready(obj: Any, call: Call, _state: SetupState) -> None:
    obj.ready(limit=call[1])


def _sched_setup_cancel(obj: Any, call: Call, _state: SetupState) -> None:
    obj.cancel(call[1])


def _sched_ready(obj: Any, call: Call) -> Any:
    return adapt.norm_claims(obj.ready(limit=call[1]))


def _limits(_ctx: DrawContext) -> tuple[SearchStrategy[Any], ...]:
    from hypothesis import strategies as st

    return (st.sampled_from([1, None, 2]),)


def _ids(ctx: DrawContext) -> tuple[SearchStrategy[Any], ...]:
    from hypothesis import strategies as st

    return (st.sampled_from(ctx.ids),)


def _none(_ctx: DrawContext) -> tuple[SearchStrategy[Any], ...]:
    return ()


_complete = _sched_call(_reply)
_ready = _sched_call(_sched_ready)
_submit = _sched_call(lambda obj, call: int(obj.submit(call[1], call[2])))
_info = _sched_call(lambda obj, call: adapt.norm_info(obj.info(call[1])))
_close = _sched_call(lambda obj, call: list(obj.close()))


def _stress_ready(_w: SchedulerWorker, rng: random.Random) -> Call:
    return ("ready", rng.choice([1, 2, None]))


def _stress_cancel(w: SchedulerWorker, rng: random.Random) -> Call:
    return ("cancel", rng.randrange(w.pool), None)


def _stress_report(kind: str) -> Callable[[SchedulerWorker, random.Random], Call]:
    """complete/fail one of the worker's claims; a worker holding none cancels instead."""
    def build(w: SchedulerWorker, rng: random.Random) -> Call:
        if not w.mine:
            return _stress_cancel(w, rng)
        task, gen = w.mine.pop(rng.randrange(len(w.mine)))
        return (kind, task, gen)

    return build


def _stress_submit(w: SchedulerWorker, rng: random.Random) -> Call:
    task = rng.randrange(w.pool)
    return ("submit", task, w.deps[task])


def _no_resolve(_lanes: Any, _lane: str, op: Call) -> Call:
    return op


def _not_in_rounds(*_args: Any) -> Any:
    raise ValueError("a setup-only operation runs in no round")


# Draw order (and so Hypothesis's branch choice) is the table order: callbacks on claimed work
# are what workers mostly do, so complete gets its own branch and cancel/fail share one.
def _scheduler_model(*args: Any, **_options: Any) -> Any:
    from schedcheck import model

    return model.Scheduler(*args)


def _wheel_model(*args: Any, **options: Any) -> Any:
    from schedcheck import model

    return model.TimingWheel(*args, **options)


SCHEDULER = OpTable("scheduler", lin_clause=c.S_LIN, model=_scheduler_model, ops=(
    Op("complete", "complete a claim", _sched_ref, *_complete, args=_sched_refs,
       stress=_stress_report("complete")),
    Op("ready", "claim READY tasks", lambda _l, _n, op: ("ready", op[1]), *_ready,
       args=_limits, claims=True, setup=_sched_setup_ready, stress=_stress_ready),
    Op("cancel", "cancel (or request it)", _sched_ref, *_complete, args=_sched_refs,
       branch="cancel-fail", setup=_sched_setup_cancel, stress=_stress_cancel),
    Op("fail", "report a failure", _sched_ref, *_complete, args=_sched_refs,
       branch="cancel-fail", stress=_stress_report("fail")),
    # No resubmits inside a suite's round: the submission order of two overlapping
    # resubmits is not observable at the quiescent point, and a suite carries one model
    # state, not a set (the standalone hunt and stress, which carry sets, race them).
    Op("submit", "resubmit with the same deps",
       lambda lanes, _n, op: ("submit", op[1], lanes.deps.get(op[1], ())), *_submit,
       args=_ids, in_suite=False, setup=_sched_setup_submit, stress=_stress_submit),
    # A shutdown racing claims and callbacks (rule 8, D3): PENDING/READY -> CANCELLED.
    Op("close", "close the scheduler", lambda _l, _n, _op: ("close",), *_close, args=_none,
       in_suite=False, stage="shutdown"),
    Op("info", "look at a task", _no_resolve, *_info),
    Op("start", "start", _no_resolve, _not_in_rounds, _not_in_rounds,
       setup=lambda obj, _call, _s: obj.start()),
), stress_mix=("ready", "complete", "complete", "fail", "cancel", "submit"))


# --------------------------------------------------------------------------------------------
# Wheel
# --------------------------------------------------------------------------------------------


def _w_schedule_resolve(lanes: WheelLanes, lane: str, op: Call) -> Call:
    label = f"{lanes.prefix}{lane}.h{len(lanes.mine.get(lane, []))}"
    return ("schedule", label, lanes.now + op[1])


def _w_schedule_target(target: Any, call: Call, lanes: WheelLanes, lane: str) -> Any:
    handle = target.schedule(call[2], lanes.callbacks.get(call[1], noop))
    lanes.handles[call[1]] = handle
    lanes.mine.setdefault(lane, []).append(call[1])
    return handle


def _w_schedule_model(spec: WheelModelSide, call: Call) -> Any:
    handle = spec.model.schedule(call[2], spec.callbacks.get(call[1], noop))
    spec.names[call[1]] = handle.seq
    return "handle"


def _w_schedule_setup(obj: Any, call: Call, state: SetupState) -> None:
    state.handles[call[1]] = obj.schedule(call[2], noop)


def _w_cancel_resolve(lanes: WheelLanes, lane: str, op: Call) -> Call:
    ref = op[1]
    if isinstance(ref, tuple) and ref[:1] == ("mine",):
        mine = lanes.mine.get(lane, [])
        if ref[1] >= len(mine):
            return SKIP
        return ("cancel", mine[ref[1]])
    return ("cancel", ref)


def _w_cancel_model(spec: WheelModelSide, call: Call) -> Any:
    seq = spec.names.get(call[1])
    if seq is None:
        return False
    return bool(spec.model.cancel(spec.model._handle(seq)))


def _w_advance_model(spec: WheelModelSide, call: Call) -> Any:
    by_seq = {seq: n for n, seq in spec.names.items()}
    return [by_seq.get(h.seq, f"seq{h.seq}") for h in spec.model.advance(call[1])]


def _w_advance_normalise(lanes: WheelLanes, _call: Call, raw: Any) -> Any:
    by_id = {id(h): n for n, h in lanes.handles.items()}
    return [by_id.get(id(h), f"foreign {h!r}") for h in raw]


def _w_advance_setup(obj: Any, call: Call, state: SetupState) -> None:
    obj.advance(call[1])
    state.now = call[1]


def _w_offsets(ctx: DrawContext) -> tuple[SearchStrategy[Any], ...]:
    from hypothesis import strategies as st

    return (st.integers(0, ctx.span),)


def _w_refs(ctx: DrawContext) -> tuple[SearchStrategy[Any], ...]:
    from hypothesis import strategies as st

    if not ctx.names:
        return (st.just(("mine", 0)),)
    return (st.one_of(st.just(("mine", 0)), st.sampled_from(list(ctx.names))),)


# ``advance`` is the tick lane's alone (drawn apart, never into a worker lane).
WHEEL = OpTable("wheel", lin_clause=c.W_LIN, model=_wheel_model, ops=(
    Op("schedule", "schedule a timer", _w_schedule_resolve, _w_schedule_target,
       _w_schedule_model, normalise=lambda _l, _c, _raw: "handle", args=_w_offsets,
       makes_handle=True, setup=_w_schedule_setup,
       stress=lambda w, rng: ("schedule", rng.randrange(0, 12 * w.tick)),
       replay=lambda at, call, _resp: at.scheduled(call[1], call[2])),
    Op("cancel", "cancel a timer", _w_cancel_resolve,
       lambda target, call, lanes, _lane: bool(target.cancel(lanes.handles[call[1]])),
       _w_cancel_model, args=_w_refs,
       stress=lambda _w, rng: ("cancel", ("mine", rng.randrange(4))),
       replay=lambda at, call, resp: at.cancelled(call[1], bool(resp))),
    Op("advance", "advance the clock", lambda lanes, _n, op: ("advance", lanes.now + op[1]),
       lambda target, call, _lanes, _lane: list(target.advance(call[1])), _w_advance_model,
       normalise=_w_advance_normalise, setup=_w_advance_setup,
       replay=lambda at, call, resp: at.advanced(call[1], list(resp))),
    Op("pending", "count pending timers", lambda _l, _n, _op: ("pending",),
       lambda target, _call, _lanes, _lane: int(target.pending()),
       lambda spec, _call: int(spec.model.pending()), args=_none,
       stress=lambda _w, _rng: ("pending",)),
), stress_mix=("schedule", "schedule", "cancel", "pending"))


#: Each system's table, by name.
TABLES: dict[str, OpTable] = {t.system: t for t in (SCHEDULER, WHEEL)}


def table(system: str) -> OpTable:
    try:
        return TABLES[system]
    except KeyError:
        raise ValueError(f"unknown system {system!r}; expected one of "
                         f"{', '.join(map(repr, TABLES))}") from None
