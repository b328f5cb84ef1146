"""The baton: a deterministic controller of real threads, one runnable at a time.

Every managed thread is a real OS thread that waits at its own *gate* (a raw ``_thread``
lock, which no patching can reach) until the thread holding the
baton hands it over. The baton moves only at *switch points*: the start and end of an
operation, every acquire/release of a cooperative lock, every condition/event/semaphore/queue
operation, a thread start or join, and explicit :func:`checkpoint` calls. Between two switch
points exactly one managed thread runs, so the interleaving is a pure function of the schedule
(the GIL may switch OS threads, but every other managed thread is parked on its gate).

A thread that would block (a lock held by a paused thread, an unset event, an empty queue) is
marked *blocked on X* and the baton passes on, so the controller never deadlocks on a lock held
by a paused thread. When nobody is runnable, a thread blocked *with a timeout* times out (time
passes only when everyone is idle); if none has a timeout, the run is a **deadlock**, reported
with the wait-for edges and the cycle that networkx finds among them. A step bound catches
livelock.

Schedules (what Hypothesis draws and shrinks). A schedule is a flat list of ints read as
triples ``(lane, k, skip)``: "when lane ``lane`` reaches its own ``k``-th switch point, hand the
baton to the ``skip``-th other runnable lane, counting round-robin after it". Every list is
valid (a triple whose point is never reached, or whose lane has no rival then, does nothing;
a trailing partial triple is ignored), and the empty list means "keep the current thread
until it blocks or ends" -- zero preemptions. Keying each preemption to a lane and its own
k-th point means that deleting one triple does not shift the others, so Hypothesis's
shrinker moves toward fewer preemptions and lower lanes without scrambling the rest. When the
current lane blocks or ends, the next lane is the round-robin one after it, or the one the
triple at that point names (a forced switch is not a preemption).

Cost: two raw-lock operations per switch that changes lanes; none when the lane keeps the
baton. Locks: the controller's fields are touched only by the baton holder (a single writer at
any time); ``_GLOBAL`` (a real lock) serialises whole runs, one controller active per process.
"""

from __future__ import annotations

import _thread
import contextlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from schedcheck.contract import SchedcheckInternalError

# Real primitives from ``_thread``, which nobody patches (threading.Event and threading.Thread
# look up Condition/Event in threading's globals at call time, so they are not safe here).
_RealLock = _thread.allocate_lock
_real_local = _thread._local


class Gate:
    """A one-shot wake-up on a raw lock: ``open()`` lets one ``wait()`` through, then recloses."""

    def __init__(self) -> None:
        self._lock = _thread.allocate_lock()
        self._lock.acquire()

    def open(self) -> None:
        with contextlib.suppress(RuntimeError):  # already open (an abort wakes everybody)
            self._lock.release()

    def wait(self, timeout: float = -1) -> bool:
        return bool(self._lock.acquire(True, timeout))


def start_real_thread(fn: Callable[[], Any]) -> Gate:
    """Run ``fn`` on a raw OS thread; the returned gate opens when it has returned."""
    done = Gate()

    def body() -> None:
        try:
            fn()
        finally:
            done.open()

    _thread.start_new_thread(body, ())
    return done

#: Safety net for joins (never used as synchronisation): a run that does not hand the baton
#: back within this many seconds is an internal error, not a verdict on the target.
SAFETY_TIMEOUT = 60.0
#: Default livelock bound: switch points per run.
DEFAULT_MAX_STEPS = 20_000

_GLOBAL = _RealLock()
_local = _real_local()
_ACTIVE: Controller | None = None


class _Aborted(BaseException):
    """Unwinds a managed thread after a deadlock, a livelock or a failure elsewhere."""


@dataclass
class Lane:
    """One managed thread."""

    name: str  #: "t0", "t1", "tick", or "t0.1" for a thread started by t0
    index: int  #: position in the controller's lane list (the schedule's ``lane``)
    fn: Callable[[], Any]
    gate: Gate = field(default_factory=Gate)
    status: str = "new"  #: "runnable", "blocked", "done"
    blocked_on: object | None = None
    waits: str = ""  #: the stable name of what it is blocked on (for reports)
    timeout_ok: bool = False  #: blocked with a timeout: may time out when nobody can run
    timed_out: bool = False
    k: int = 0  #: switch points this lane has passed
    result: Any = None
    error: BaseException | None = None
    exited: Gate | None = None  #: opens when the OS thread has returned


@dataclass(frozen=True)
class Decision:
    """A point where the baton could go to more than one lane, and where it went."""

    lane: str
    k: int
    point: str
    runnable: tuple[str, ...]  #: lanes that could run (the current one first, if it could)
    chosen: str
    preemption: bool  #: the current lane could have continued but the baton moved


@dataclass(frozen=True)
class ChoicePoint:
    """A switch point where another lane could have taken the baton (``explore`` branches).

    ``forced``: the lane blocked or ended, so choosing among ``rivals`` is not a preemption.
    """

    lane: int
    k: int
    rivals: int
    forced: bool


@dataclass
class RunOutcome:
    """Everything one controlled run produced."""

    schedule: list[int]
    lanes: list[Lane]
    trace: list[tuple[str, str]]  #: (lane, switch point) in the order they happened
    decisions: list[Decision]
    points: list[ChoicePoint] = field(default_factory=list)
    deadlock: bool = False
    livelock: bool = False
    wait_for: list[list[str]] = field(default_factory=list)
    cycle: list[str] = field(default_factory=list)
    blocked: list[str] = field(default_factory=list)  #: "t0 waits on Lock1" at the deadlock

    @property
    def preemptions(self) -> int:
        return sum(1 for d in self.decisions if d.preemption)

    @property
    def errors(self) -> dict[str, BaseException]:
        return {lane.name: lane.error for lane in self.lanes if lane.error is not None}

    def signature(self) -> list[tuple[str, int, tuple[str, ...], str]]:
        """What must be equal between two replays of one schedule (runnable sets included)."""
        return [(d.lane, d.k, d.runnable, d.chosen) for d in self.decisions]

    def describe_failure(self) -> str:
        if self.deadlock:
            blocked = ", ".join(self.blocked)
            cycle = " -> ".join(self.cycle) if self.cycle else "no cycle (a lost wake-up)"
            return f"deadlock: no thread can run ({blocked}); wait-for cycle: {cycle}"
        if self.livelock:
            return f"livelock: more than {len(self.trace)} switch points without finishing"
        return ""


def parse_schedule(schedule: Sequence[int]) -> dict[tuple[int, int], int]:
    """The triples of a flat schedule list, keyed by (lane, k); the first triple wins."""
    triples: dict[tuple[int, int], int] = {}
    for i in range(0, len(schedule) - 2, 3):
        lane, k, skip = schedule[i], schedule[i + 1], schedule[i + 2]
        triples.setdefault((lane, k), skip)
    return triples


def active() -> Controller | None:
    return _ACTIVE


def current_lane() -> Lane | None:
    """The managed lane running this code, or None (the main thread, an unmanaged thread)."""
    ctl = _ACTIVE
    lane: Lane | None = getattr(_local, "lane", None)
    if ctl is None or lane is None or getattr(_local, "controller", None) is not ctl:
        return None
    return lane


def checkpoint(name: str = "checkpoint") -> None:
    """An explicit switch point; a no-op outside a controlled run."""
    ctl = _ACTIVE
    if ctl is not None:
        ctl.switch(name)


def _describe(obj: object) -> str:
    label = getattr(obj, "label", None)
    if isinstance(label, str):
        return label
    return type(obj).__name__


class Controller:
    """Runs thread programs under one schedule. Use :meth:`run`; one run per controller."""

    def __init__(self, schedule: Sequence[int] = (), *, max_steps: int = DEFAULT_MAX_STEPS):
        self.schedule = list(schedule)
        self._triples = parse_schedule(self.schedule)
        self.max_steps = max_steps
        self.lanes: list[Lane] = []
        self.trace: list[tuple[str, str]] = []
        self.decisions: list[Decision] = []
        self.points: list[ChoicePoint] = []
        self.current: Lane | None = None
        self.aborted = False
        self.deadlock = False
        self.livelock = False
        self._finished = Gate()
        self._used = False
        self._names = 0
        self._labels: dict[int, tuple[object, str]] = {}
        self._deadlock_report: tuple[list[list[str]], list[str]] = ([], [])
        self._blocked_at_end: list[str] = []

    def name_of(self, obj: object) -> str:
        """A name for ``obj`` stable across replays: its kind and order of first use."""
        entry = self._labels.get(id(obj))
        if entry is None or entry[0] is not obj:
            kind = getattr(obj, "kind", type(obj).__name__)
            entry = (obj, f"{kind}{len(self._labels)}")
            self._labels[id(obj)] = entry
        return entry[1]

    # -- running ---------------------------------------------------------------------------

    def run(
        self, programs: Sequence[Callable[[], Any]], names: Sequence[str] | None = None
    ) -> RunOutcome:
        """Run each program on its own managed thread, under this controller's schedule."""
        global _ACTIVE
        if self._used:
            raise SchedcheckInternalError("a Controller runs once; make a new one per run")
        self._used = True
        if not programs:
            return self._outcome()
        with _GLOBAL:
            _ACTIVE = self
            try:
                for i, program in enumerate(programs):
                    self._spawn(names[i] if names else f"t{i}", program)
                first = self.lanes[0]
                self.current = first
                first.gate.open()
                if not self._finished.wait(SAFETY_TIMEOUT):
                    self.aborted = True
                    self._wake_all()
                    raise SchedcheckInternalError(
                        f"controlled run did not finish within {SAFETY_TIMEOUT}s: the baton "
                        f"was lost (trace tail {self.trace[-5:]}); a primitive the controller "
                        "cannot see blocked a managed thread"
                    )
                for lane in self.lanes:
                    assert lane.exited is not None
                    lane.exited.wait(SAFETY_TIMEOUT)
            finally:
                _ACTIVE = None
        return self._outcome()

    def spawn(self, fn: Callable[[], Any], name: str | None = None) -> Lane:
        """Start a new managed lane from inside a run (``threading.Thread.start`` patched)."""
        parent = current_lane()
        if name is None:
            self._names += 1
            name = f"{parent.name if parent else 'x'}.{self._names}"
        lane = self._spawn(name, fn)
        self.switch(f"start {name}")
        return lane

    def _spawn(self, name: str, fn: Callable[[], Any]) -> Lane:
        lane = Lane(name=name, index=len(self.lanes), fn=fn, status="runnable")
        self.lanes.append(lane)
        lane.exited = start_real_thread(lambda: self._body(lane))
        return lane

    def _body(self, lane: Lane) -> None:
        _local.lane = lane
        _local.controller = self
        lane.gate.wait()
        try:
            if not self.aborted:
                lane.result = lane.fn()
        except _Aborted:
            pass
        except BaseException as exc:
            lane.error = exc
        finally:
            lane.status = "done"
            if not self.aborted:
                self._wake(lane)
                with contextlib.suppress(_Aborted):
                    self._pass_baton(lane, "end")
            _local.lane = None

    def _outcome(self) -> RunOutcome:
        out = RunOutcome(
            schedule=list(self.schedule),
            lanes=list(self.lanes),
            trace=list(self.trace),
            decisions=list(self.decisions),
            points=list(self.points),
            deadlock=self.deadlock,
            livelock=self.livelock,
        )
        if self.deadlock:
            out.wait_for, out.cycle = self._deadlock_report
            out.blocked = list(self._blocked_at_end)
        return out

    # -- switching -------------------------------------------------------------------------

    def switch(self, point: str) -> None:
        """A switch point of the calling lane (no-op for unmanaged threads)."""
        lane = current_lane()
        if lane is None or self.aborted:
            return
        k = self._step(lane, point)
        others = self._rivals(lane)
        if not others:
            return
        self.points.append(ChoicePoint(lane.index, k, len(others), False))
        skip = self._triples.get((lane.index, k))
        if skip is None:
            return
        target = others[skip % len(others)]
        self.decisions.append(
            Decision(lane.name, k, point, (lane.name, *(o.name for o in others)), target.name, True)
        )
        self._handoff(lane, target)

    def block(self, obj: object, *, timeout_ok: bool = False) -> bool:
        """Park the calling lane until ``obj`` wakes it. False if it timed out instead."""
        lane = current_lane()
        if lane is None:
            raise SchedcheckInternalError(
                f"an unmanaged thread would block on {_describe(obj)} during a controlled run; "
                "start threads through the patched threading.Thread or Controller.run"
            )
        if self.aborted:
            raise _Aborted
        lane.status = "blocked"
        lane.blocked_on = obj
        lane.waits = self.name_of(obj)
        lane.timeout_ok = timeout_ok
        lane.timed_out = False
        self._pass_baton(lane, f"block on {self.name_of(obj)}")
        lane.blocked_on = None
        return not lane.timed_out

    def _wake(self, obj: object) -> None:
        """Every lane blocked on ``obj`` becomes runnable (it re-checks its condition)."""
        for other in self.lanes:
            if other.status == "blocked" and other.blocked_on is obj:
                other.status = "runnable"

    def _step(self, lane: Lane, point: str) -> int:
        k = lane.k
        lane.k += 1
        self.trace.append((lane.name, point))
        if len(self.trace) > self.max_steps:
            self.livelock = True
            self._abort()
        return k

    def _rivals(self, lane: Lane) -> list[Lane]:
        """Runnable lanes other than ``lane``, round-robin after it."""
        n = len(self.lanes)
        order = [self.lanes[(lane.index + 1 + i) % n] for i in range(n - 1)]
        return [o for o in order if o.status == "runnable"]

    def _pass_baton(self, lane: Lane, point: str) -> None:
        """``lane`` cannot continue (blocked or done): hand the baton on, or finish the run."""
        k = self._step(lane, point)
        others = self._rivals(lane)
        if not others:
            timers = [o for o in self._order_after(lane) if o.status == "blocked" and o.timeout_ok]
            if lane.status == "blocked" and lane.timeout_ok:
                timers.append(lane)
            if timers:
                chosen = timers[0]
                chosen.status = "runnable"
                chosen.timed_out = True
                if chosen is lane:
                    return
                others = [chosen]
            elif any(o.status == "blocked" for o in self.lanes):
                self.deadlock = True
                self._deadlock_report = self._wait_for()
                self._blocked_at_end = [
                    f"{o.name} waits on {o.waits}" for o in self.lanes if o.status == "blocked"
                ]
                self._abort()
            else:
                self.current = None
                self._finished.open()
                return
        skip = self._triples.get((lane.index, k), 0)
        target = others[skip % len(others)]
        if len(others) > 1:
            self.points.append(ChoicePoint(lane.index, k, len(others), True))
            self.decisions.append(
                Decision(lane.name, k, point, tuple(o.name for o in others), target.name, False)
            )
        self._handoff(lane, target)

    def _order_after(self, lane: Lane) -> list[Lane]:
        n = len(self.lanes)
        return [self.lanes[(lane.index + 1 + i) % n] for i in range(n - 1)]

    def _handoff(self, lane: Lane, target: Lane) -> None:
        self.current = target
        target.gate.open()
        if lane.status == "done":
            return
        lane.gate.wait()
        if self.aborted:
            raise _Aborted

    def _abort(self) -> None:
        self.aborted = True
        self._wake_all()
        self._finished.open()
        raise _Aborted

    def _wake_all(self) -> None:
        for other in self.lanes:
            other.gate.open()

    # -- deadlock report -------------------------------------------------------------------

    def _wait_for(self) -> tuple[list[list[str]], list[str]]:
        edges: list[list[str]] = []
        for lane in self.lanes:
            if lane.status != "blocked":
                continue
            for holder in _holders(lane.blocked_on):
                edges.append([lane.name, holder.name])
        if not edges:
            return edges, []
        import networkx as nx  # only a deadlock needs it: importing the baton stays light

        graph: nx.DiGraph[str] = nx.DiGraph()
        graph.add_edges_from((a, b) for a, b in edges)
        try:
            found = nx.find_cycle(graph)
        except nx.NetworkXNoCycle:
            return edges, []
        cycle = [str(a) for a, _b, *_ in found]
        cycle.append(cycle[0])
        return edges, cycle


def _holders(obj: object) -> list[Lane]:
    holders = getattr(obj, "holders", None)
    if callable(holders):
        result: list[Lane] = holders()
        return result
    if isinstance(obj, Lane):
        return [obj]
    return []


def run(
    programs: Sequence[Callable[[], Any]],
    schedule: Sequence[int] = (),
    *,
    names: Sequence[str] | None = None,
    max_steps: int = DEFAULT_MAX_STEPS,
) -> RunOutcome:
    """Run ``programs`` on managed threads under ``schedule`` (see the module comment)."""
    return Controller(schedule, max_steps=max_steps).run(programs, names)
