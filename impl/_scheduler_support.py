"""Records, metrics and argument parsing of impl/scheduler.py.

Split out of impl/scheduler.py to keep the scheduler's own module about its algorithm. Nothing
here takes a lock: the scheduler's methods hold ``Scheduler._lock`` around every use.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from schedcheck.contract import Cause, TaskState, require_hashable

__all__ = ["SchedulerMetrics"]

P, R, RUN = TaskState.PENDING, TaskState.READY, TaskState.RUNNING
OK, BLK, CAN = TaskState.SUCCEEDED, TaskState.BLOCKED, TaskState.CANCELLED
PR = (P, R)
#: Extra stale heap entries tolerated beyond the live ones before compaction.
_SLACK = 64


@dataclass
class SchedulerMetrics:
    """What metrics() reports (the seed's observability signals). Durations in clock units."""

    states: dict[str, int] = field(default_factory=dict)  #: current generations per state
    claims: int = 0  #: runs handed out by ready()
    stale_callbacks: int = 0  #: complete/fail/cancel naming an old (or future) generation
    duplicate_callbacks: int = 0  #: DUPLICATE replies
    rejected_callbacks: int = 0  #: REJECTED replies
    blocked: int = 0  #: generations made BLOCKED (by submit, propagation or add_dependency)
    ready_wait_count: int = 0  #: claims with a measured READY -> RUNNING wait
    ready_wait_total: float = 0.0
    ready_wait_max: float = 0.0
    run_count: int = 0  #: complete/fail APPLIED with a measured RUNNING duration
    run_total: float = 0.0
    run_max: float = 0.0
    heap_entries: int = 0  #: ready-queue entries, stale ones included
    stale_entries: int = 0
    compactions: int = 0  #: times the ready queue was rebuilt


class _Rec(list["_Rec"]):
    """A task's record. The record *is* the list of its required dependents (the reverse
    edges, once per occurrence in each dependent's deps): one GC-tracked object per task
    instead of a record plus a list, which halves the objects the cyclic collector walks on
    every full pass and saves a pointer hop per edge. Identity semantics are restored
    (``==`` is ``is``, hashable by id) so that ``list.remove``/``count``/``in`` and dict keys
    see records, never their contents; a record is never truth-tested for existence (its
    truth value is "has dependents"). ``dependents`` remains as an alias of the record."""

    __slots__ = ("cause", "deps", "error", "fn", "gen", "odependents", "opt",
                 "optional_failed", "requested", "seq", "state", "t", "task_id", "waiting")
    __hash__ = object.__hash__  # type: ignore[assignment]
    __eq__ = object.__eq__
    __ne__ = object.__ne__

    def __init__(self, task_id: Any) -> None:  # list.__init__ not called: starts empty
        self.task_id = task_id  #: the id
        self.gen = 0  #: current generation; 0 for a ghost (named as a dep, never submitted)
        self.seq = 0  #: submission stamp of the current generation (model D1)
        #: ids of the required deps, in order (a fast-path submit keeps repeats: see above)
        self.deps: tuple[Any, ...] = ()
        self.opt: tuple[_Rec, ...] = ()  #: optional deps, disjoint from deps
        self.fn: Callable[..., Any] | None = None
        self.state = P  #: TaskState of the current generation (a ghost stays PENDING)
        self.cause: Cause | None = None  #: not None iff CANCELLED or BLOCKED
        self.error: Any = None  #: what fail() received
        self.requested = False  #: a cancel was requested while this generation ran
        self.optional_failed: tuple[Any, ...] = ()  #: frozen at the claim (model D6)
        self.waiting = 0  #: outstanding deps; exact while PENDING/READY, 0 iff READY
        self.odependents: dict[_Rec, None] | None = None  #: dependents by optional edges
        self.t = 0.0  #: clock when it became READY, then when it was claimed

    @property
    def dependents(self) -> list[_Rec]:
        """Records whose current deps include self, once per occurrence: the record itself."""
        return self

    @dependents.setter
    def dependents(self, value: Iterable[_Rec]) -> None:
        self[:] = value

    def __repr__(self) -> str:  # not list's: that would print the graph reachable from it
        return f"<_Rec {self.task_id!r} g{self.gen} {self.state.name}>"


def _clone(rec: _Rec) -> _Rec:
    c = _Rec.__new__(_Rec)
    for f in _Rec.__slots__:
        setattr(c, f, getattr(rec, f))
    c.extend(rec)
    return c


def _ids(recs: Iterable[_Rec]) -> tuple[Any, ...]:
    """The ids of ``recs`` in order, repeats dropped (a fast-path submit keeps repeats)."""
    return tuple(dict.fromkeys(r.task_id for r in recs))


def _uniq(ids: Iterable[Any]) -> tuple[Any, ...]:
    """``ids`` in order, repeats dropped."""
    return tuple(dict.fromkeys(ids))


def _bad_deps(value: object, name: str, task_id: Any) -> TypeError:
    return TypeError(
        f"{name} of {task_id!r} must be an iterable of task ids (not str, bytes or None), "
        f"got {type(value).__name__} {value!r}; write {name}=[...]")


def _parse(value: Any, name: str, task_id: Any) -> tuple[Any, ...]:
    """Rule 1: any iterable of hashables except str/bytes/None; repeats count once."""
    cls = value.__class__
    if (cls is tuple or cls is list) and len(value) < 2:
        if value:
            try:
                hash(value[0])
            except TypeError:
                require_hashable(value[0], f"a dependency of {task_id!r}")
        return tuple(value)
    if value is None or isinstance(value, (str, bytes, bytearray)):
        raise _bad_deps(value, name, task_id)
    if value.__class__ is not list and value.__class__ is not tuple:
        if not isinstance(value, Iterable):
            raise _bad_deps(value, name, task_id)
        value = list(value)
    try:
        return tuple(dict.fromkeys(value))
    except TypeError:
        for dep in value:
            require_hashable(dep, f"a dependency of {task_id!r}")
        raise
