"""State codes, reverse-edge buffers, metrics and argument parsing of impl/scheduler/indegree.py.

Split out of impl/scheduler/indegree.py to keep the scheduler's own module about its algorithm.
Nothing here takes a lock: the scheduler's methods hold ``Scheduler._lock`` around every use.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable
from dataclasses import dataclass, field
from struct import Struct
from typing import Any

from schedcheck.contract import Outcome, Reply, TaskState, require_hashable

__all__ = ["SchedulerMetrics"]

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


#: States as small ints, in the order of the contract's table, so that the tests are ranges:
#: PENDING/READY is ``st <= R``, terminal ``st >= OK``, dead ``st >= FAIL``. A ghost (an id
#: named as a dependency, never submitted) is ``GHOST``: not SUCCEEDED, not terminal.
GHOST, P, R, RUN, OK, FAIL, BLK, CAN = -1, 0, 1, 2, 3, 4, 5, 6
#: int -> TaskState (``STATE[st]``; index -1 is never read: ghosts are not tasks).
STATE: tuple[TaskState, ...] = (
    TaskState.PENDING, TaskState.READY, TaskState.RUNNING, TaskState.SUCCEEDED,
    TaskState.FAILED, TaskState.BLOCKED, TaskState.CANCELLED,
)
#: Every possible Reply by (outcome, state code), built once (the hot paths allocate none).
_REPLY = {(o, i): Reply(o, s) for o in Outcome for i, s in enumerate(STATE)}
#: One slot, packed as a native unsigned int: ``buf += PACK(slot)`` links a reverse edge.
PACK = Struct("I").pack
#: A queue key is ``stamp << KEY_SHIFT | slot`` (slots are 32-bit, see PACK): keys order as
#: their stamps, and ``key & SLOT_MASK`` is the slot, so the queue needs no stamp -> slot map.
KEY_SHIFT = 32
SLOT_MASK = (1 << KEY_SHIFT) - 1


_NO_SLOTS = memoryview(b"").cast("I")


def slots(buf: bytearray | None) -> memoryview:
    """The slots packed in ``buf`` (a reverse-edge buffer, or None), as a sequence of ints."""
    return memoryview(buf).cast("I") if buf else _NO_SLOTS


def packed(values: Iterable[int]) -> bytearray:
    """A reverse-edge buffer holding ``values`` in order."""
    return bytearray(array("I", values).tobytes())


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
