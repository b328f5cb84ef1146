"""The public vocabulary of the contract (specs/scheduler.md, specs/wheel.md).

Every name here is part of the surface that the reference models (``schedcheck.model``), the
production implementations (``schedcheck.impl``) and the checker agree on. Third-party
implementations do not import this module: the checker compares their states, outcomes and
errors *by name* (see ``schedcheck.targets.adapt``).

What is fixed and what is open:

* States, outcomes and ``Cause.kind`` are compared by name, case-insensitively.
* ``Claim``, ``Reply``, ``TaskInfo`` and ``Cause`` are named tuples, so a stranger's plain tuple
  in the same field order compares equal after normalisation.
* Every exception here is picklable (its data lives in attributes *and* in ``args``).
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Hashable, Sequence
from typing import Any, NamedTuple

__all__ = [
    "DEAD",
    "TERMINAL",
    "Cause",
    "Claim",
    "ClosedError",
    "ConflictError",
    "CycleError",
    "NotStartedError",
    "Outcome",
    "Reply",
    "SchedcheckInternalError",
    "SchedulerError",
    "TaskDetails",
    "TaskInfo",
    "TaskState",
    "UnknownDependencyError",
    "UnknownTaskError",
    "WheelError",
    "WheelFullError",
]

TaskId = Hashable


class TaskState(enum.Enum):
    """The state of one *generation* of a task (specs/scheduler.md section 2)."""

    PENDING = "PENDING"  #: some dependency has not SUCCEEDED yet, none is dead
    READY = "READY"  #: every dependency SUCCEEDED; waiting for a claim by ready()
    RUNNING = "RUNNING"  #: claimed by ready(); holds one of max_concurrency slots
    SUCCEEDED = "SUCCEEDED"  #: complete() was applied
    FAILED = "FAILED"  #: fail() was applied without a cancel request
    BLOCKED = "BLOCKED"  #: will never run: a required dependency cannot succeed
    CANCELLED = "CANCELLED"  #: cancel() before the claim, fail() after a request, or close()

    def __repr__(self) -> str:
        return f"TaskState.{self.name}"


#: A generation in a terminal state never leaves it.
TERMINAL: frozenset[TaskState] = frozenset(
    {TaskState.SUCCEEDED, TaskState.FAILED, TaskState.BLOCKED, TaskState.CANCELLED}
)
#: Dead: terminal and not SUCCEEDED -- dependents of a dead generation are BLOCKED.
DEAD: frozenset[TaskState] = frozenset(
    {TaskState.FAILED, TaskState.BLOCKED, TaskState.CANCELLED}
)


class Outcome(enum.Enum):
    """What a callback or cancel did (specs/scheduler.md section 3)."""

    APPLIED = "APPLIED"  #: the call changed state
    REQUESTED = "REQUESTED"  #: cancel of a RUNNING task was recorded
    DUPLICATE = "DUPLICATE"  #: already in the state this call would produce: no effect
    STALE = "STALE"  #: the generation named is not the current one: no effect
    REJECTED = "REJECTED"  #: not allowed from the current state: no effect

    def __repr__(self) -> str:
        return f"Outcome.{self.name}"


class Claim(NamedTuple):
    """One claimed run, as returned by ``ready()``: report it with the same generation."""

    task_id: Any
    generation: int
    fn: Callable[..., Any] | None


class Cause(NamedTuple):
    """Why a generation is CANCELLED or BLOCKED.

    ``kind`` is ``"cancelled"``, ``"shutdown"`` or ``"failed"`` -- never ``"blocked"``: a
    BLOCKED task carries the cause of the *root* failure or cancellation.
    """

    kind: str
    task_id: Any
    generation: int


class Reply(NamedTuple):
    """The answer of complete/fail/cancel. ``state`` is the *current* generation's state."""

    outcome: Outcome
    state: TaskState


class TaskInfo(NamedTuple):
    """The current generation of a task. The checker compares exactly these four fields."""

    task_id: Any
    generation: int
    state: TaskState
    cause: Cause | None


class TaskDetails(TaskInfo):
    """What ``info()`` returns: a TaskInfo (compares as the 4-tuple) with the extra attributes
    of decision D6 (specs/scheduler.md), which the checker compares separately."""

    error: Any = None  #: the ``error`` given to fail() for this generation
    optional_failed: tuple[Any, ...] = ()  #: optional deps found dead (D6)


class LeaseDetails(TaskDetails):
    """What a durable scheduler's ``info()`` returns (specs/durable.md): TaskDetails plus the
    lease -- ``attempts`` (claims since the last submit, reclaims included), ``token`` and
    ``expires`` (None unless RUNNING) -- and L8: ``not_before`` (a retried task waits until
    then; None unless PENDING/READY after a retry), ``result`` (what its completion reported;
    None unless SUCCEEDED)."""

    attempts: int = 0
    token: int | None = None
    expires: float | None = None
    not_before: float | None = None
    result: Any = None


def details(task_id: Any, generation: int, state: TaskState, cause: Cause | None,
            error: Any, optional_failed: tuple[Any, ...]) -> TaskDetails:
    """A TaskDetails with its D6 attributes set."""
    info = TaskDetails(task_id, generation, state, cause)
    info.error = error
    info.optional_failed = optional_failed
    return info


# --------------------------------------------------------------------------------------------
# Errors. Each keeps its data in attributes and in ``args`` so that it pickles and compares.
# --------------------------------------------------------------------------------------------


class SchedulerError(Exception):
    """Base of every scheduler error except TypeError/ValueError (contract rule 9)."""


class ClosedError(SchedulerError):
    """The scheduler was closed: no new submits."""


class NotStartedError(SchedulerError):
    """``ready()`` was called before ``start()``."""


class UnknownTaskError(SchedulerError, KeyError):
    """A call named a task id that was never submitted. ``.task_id`` names it."""

    def __init__(self, task_id: Any, message: str | None = None) -> None:
        self.task_id = task_id
        self.message = message or (
            f"task {task_id!r} was never submitted; submit() it first"
        )
        super().__init__(task_id, self.message)

    def __str__(self) -> str:
        return self.message


class ConflictError(SchedulerError):
    """A resubmit while the current generation is RUNNING. ``.task_id``, ``.generation``."""

    def __init__(self, task_id: Any, generation: int, message: str | None = None) -> None:
        self.task_id = task_id
        self.generation = generation
        self.message = message or (
            f"cannot resubmit {task_id!r}: generation {generation} is RUNNING; "
            "complete() or fail() it first"
        )
        super().__init__(task_id, generation, self.message)

    def __str__(self) -> str:
        return self.message


class UnknownDependencyError(SchedulerError):
    """A dependency names an id that is not submitted. ``.task_id``; ``.missing`` in deps order."""

    def __init__(self, task_id: Any, missing: Sequence[Any], message: str | None = None) -> None:
        self.task_id = task_id
        self.missing = list(missing)
        self.message = message or (
            f"task {task_id!r} depends on {self.missing!r}, which "
            f"{'was' if len(self.missing) == 1 else 'were'} never submitted; "
            "submit them (or drop them from deps) first"
        )
        super().__init__(task_id, self.missing, self.message)

    def __str__(self) -> str:
        return self.message


class CycleError(SchedulerError):
    """The graph has a cycle. ``.cycle`` is ``[a, b, ..., a]``: each node is a dependency of
    the next (graphlib's convention), first == last, no other repeats; ``[a, a]`` for a
    self-dependency. *Which* cycle and its rotation are the implementation's choice."""

    def __init__(self, cycle: Sequence[Any], message: str | None = None) -> None:
        self.cycle = list(cycle)
        self.message = message or (
            "dependency cycle " + " -> ".join(repr(n) for n in self.cycle)
            + " (each is a dependency of the next); remove one of these edges"
        )
        super().__init__(self.cycle, self.message)

    def __str__(self) -> str:
        return self.message


class WheelError(Exception):
    """Base of the timing wheel's own errors."""


class WheelFullError(WheelError):
    """``schedule`` while ``pending() >= max_pending``: backpressure, never silent loss."""

    def __init__(self, pending: int, max_pending: int, message: str | None = None) -> None:
        self.pending = pending
        self.max_pending = max_pending
        self.message = message or (
            f"wheel is full: {pending} timers pending, max_pending={max_pending}; "
            "cancel timers, advance the wheel, or raise max_pending"
        )
        super().__init__(pending, max_pending, self.message)

    def __str__(self) -> str:
        return self.message


class SchedcheckInternalError(Exception):
    """A bug in schedcheck itself -- never a counterexample against the target."""


# --------------------------------------------------------------------------------------------
# Argument checks shared by the models and the implementations (contract: bool is never an int).
# --------------------------------------------------------------------------------------------


def require_int(value: object, name: str, *, minimum: int | None = None) -> int:
    """Return ``value`` if it is an ``int`` (not ``bool``) and ``>= minimum``.

    Raises ``TypeError`` for a non-int (``bool``, ``float`` and ``str`` included) and
    ``ValueError`` below ``minimum``. Messages name the argument and what was given.
    """
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int, not {type(value).__name__} ({value!r})")
    if minimum is not None and value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value!r}")
    return value


def require_hashable(value: object, name: str) -> None:
    """``TypeError`` unless ``hash(value)`` works."""
    try:
        hash(value)
    except TypeError:
        raise TypeError(
            f"{name} must be hashable, got unhashable {type(value).__name__} {value!r}"
        ) from None
