"""The durable scheduler's records and helpers: the claim, renewal and details types, the
row as read from the store, the complete/fail/cancel table, the SQL fragments the scheduler
shares, and the small pure helpers (function names, dependency parsing, the cycle walk)."""

from __future__ import annotations

import importlib
import json
from collections.abc import Callable, Iterable
from typing import Any, NamedTuple

from schedcheck.impl.durable._store import decode_id

from schedcheck.contract import (
    DEAD,
    Cause,
    LeaseDetails,
    Outcome,
    TaskState,
    require_hashable,
)

__all__ = ["DurableClaim", "DurableDetails", "Renewal"]

_S = TaskState
P, R, RUN = "PENDING", "READY", "RUNNING"
OK, FAILED, BLK, CAN = "SUCCEEDED", "FAILED", "BLOCKED", "CANCELLED"
_DEAD_NAMES = tuple(s.name for s in DEAD)
_COLS = ("id, seq, gen, state, deps, fn, requested, cause_kind, cause_id, cause_gen, error, "
         "token, expires, attempts, slot, not_before, max_attempts, result")

#: complete/fail/cancel: (call, state, cancel requested) -> (outcome, next state); a key that is
#: not here is REJECTED (the same table as the reference model's TRANSITIONS)
_TABLE: dict[tuple[str, str, bool], tuple[Outcome, str]] = {
    ("complete", RUN, False): (Outcome.APPLIED, OK),
    ("complete", RUN, True): (Outcome.APPLIED, OK),
    ("complete", OK, False): (Outcome.DUPLICATE, OK),
    ("complete", OK, True): (Outcome.DUPLICATE, OK),
    ("fail", RUN, False): (Outcome.APPLIED, FAILED),
    ("fail", RUN, True): (Outcome.APPLIED, CAN),
    ("fail", FAILED, False): (Outcome.DUPLICATE, FAILED),
    ("fail", CAN, False): (Outcome.DUPLICATE, CAN),
    ("fail", CAN, True): (Outcome.DUPLICATE, CAN),
    ("cancel", P, False): (Outcome.APPLIED, CAN),
    ("cancel", R, False): (Outcome.APPLIED, CAN),
    ("cancel", RUN, False): (Outcome.REQUESTED, RUN),
    ("cancel", RUN, True): (Outcome.DUPLICATE, RUN),
    ("cancel", CAN, False): (Outcome.DUPLICATE, CAN),
    ("cancel", CAN, True): (Outcome.DUPLICATE, CAN),
}

#: every PENDING/READY task reachable from ``?`` through dependents (rules 5-7)
_BLOCK = f"""
WITH RECURSIVE down(x) AS (
    SELECT e.dependent FROM dedge e JOIN dtask t ON t.id = e.dependent
     WHERE e.dep = ? AND t.state IN ('{P}', '{R}')
    UNION
    SELECT e.dependent FROM dedge e JOIN down ON e.dep = down.x
      JOIN dtask t ON t.id = e.dependent WHERE t.state IN ('{P}', '{R}'))
UPDATE dtask SET state = '{BLK}', cause_kind = ?, cause_id = ?, cause_gen = ?
 WHERE id IN (SELECT x FROM down)"""

#: "some dependency of dtask.id has not SUCCEEDED" (a missing one counts)
_OUTSTANDING = f"""EXISTS (SELECT 1 FROM dedge e LEFT JOIN dtask d ON d.id = e.dep
    WHERE e.dependent = dtask.id AND (d.state IS NULL OR d.state <> '{OK}'))"""


class DurableClaim(NamedTuple):
    """A claim with its lease: report it with the same generation (and token)."""

    task_id: Any
    generation: int
    fn: Callable[..., Any] | None
    token: int  #: the fencing token: larger for every later claim of the store
    expires: float  #: the lease ends at this clock reading unless renewed


class Renewal(NamedTuple):
    """The answer of ``renew``: APPLIED with the new expiry, else STALE/REJECTED."""

    outcome: Outcome
    state: TaskState
    expires: float | None


#: ``info()``'s record: the contract's lease details (schedcheck.contract.LeaseDetails)
DurableDetails = LeaseDetails


#: the longest wait between two attempts of a task (seconds), before jitter
MAX_BACKOFF = 3600.0


def retry_delay(base: float, attempts: int, token: int) -> float:
    """L8: the wait before a task that failed its ``attempts``-th claim (held with fencing
    ``token``) may be claimed again: ``base * 2**(attempts-1)`` (at most ``MAX_BACKOFF``),
    half of it fixed and half jitter drawn from the token -- tasks that failed together (their
    tokens differ) spread out, and the model computes the same wait."""
    delay = min(base * 2.0 ** max(attempts - 1, 0), MAX_BACKOFF)
    jitter = ((token * 2654435761) % 4294967296) / 4294967296
    return delay / 2 + delay / 2 * jitter


class _Row(NamedTuple):
    id: str
    seq: int
    gen: int
    state: str
    deps: str
    fn: str | None
    requested: int
    cause_kind: str | None
    cause_id: str | None
    cause_gen: int | None
    error: str | None
    token: int | None
    expires: float | None
    attempts: int
    slot: int | None  #: the limit's slot a RUNNING generation holds (specs/durable.md L7)
    not_before: float | None  #: a retried task is not claimed before this time (L8)
    max_attempts: int | None  #: this task's own limit of claims (None: the store's)
    result: str | None  #: JSON of the value its applied completion reported (L8)

    def cause(self) -> Cause | None:
        if self.cause_kind is None or self.cause_id is None or self.cause_gen is None:
            return None
        return Cause(self.cause_kind, decode_id(self.cause_id), int(self.cause_gen))

    def dep_keys(self) -> list[str]:
        return list(json.loads(self.deps))


def _fn_name(fn: Callable[..., Any] | str | None) -> str | None:
    """The name a task's function is stored under: ``module:qualname`` (another process imports
    it by that name). A function no other process can import (a lambda, a nested function, one
    of the submitting script's ``__main__``) is stored by that name too: a worker elsewhere
    then fails the task with the import error -- never runs nothing and calls it done."""
    if fn is None:
        return None
    if isinstance(fn, str):
        return fn
    module = getattr(fn, "__module__", None) or "?"
    qual = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None) or repr(fn)
    return f"{module}:{qual}"


def check_fn_name(name: str) -> Callable[..., Any]:
    """A function named ``module:callable`` at submit: the callable, or ``ValueError`` saying
    why it cannot be imported (the task is refused then, not failed later)."""
    fn = _resolve(name)
    if isinstance(fn, Unresolved):
        raise ValueError(fn.reason)
    assert fn is not None
    return fn


class Unresolved:
    """The function of a claim this process cannot import: calling it raises ``LookupError``
    with the reason, so the worker FAILS the task with that error."""

    def __init__(self, name: str, reason: str) -> None:
        self.name, self.reason = name, reason

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise LookupError(self.reason)

    def __repr__(self) -> str:
        return f"<unresolved task function {self.name!r}>"


def _resolve(name: str | None) -> Callable[..., Any] | None:
    """The callable named ``module:qualname``; None for a task without a function; an
    :class:`Unresolved` (which raises when called) when it cannot be imported here."""
    if not name:
        return None
    module, _, qual = name.partition(":")
    if not module or not qual:
        return Unresolved(name, f"task function {name!r}: write module:callable, e.g. "
                                "mypkg.jobs:run")
    try:
        obj: Any = importlib.import_module(module)
        for part in qual.split("."):
            obj = getattr(obj, part)
    except Exception as exc:  # an import can raise anything; the task fails with it
        hint = ""
        if module == "__main__" or "<" in qual:
            hint = (" (a function of the submitting script or a nested one can only run in "
                    "that process: put it in an importable module)")
        return Unresolved(name, f"cannot import task function {name!r}: "
                                f"{type(exc).__name__}: {exc}{hint}")
    if not callable(obj):
        return Unresolved(name, f"task function {name!r} is not callable: {obj!r}")
    return obj  # type: ignore[no-any-return]


def _find_cycle(roots: Iterable[str], edges: Callable[[str], list[str]]) -> list[str] | None:
    """Three-colour DFS; ``[v, ..., v]`` with each element a dependency of the next."""
    colour: dict[str, int] = {}
    for root in roots:
        if root in colour:
            continue
        stack, iters = [root], [iter(edges(root))]
        colour[root] = 1
        while iters:
            nxt = next(iters[-1], None)
            if nxt is None:
                colour[stack.pop()] = 2
                iters.pop()
            elif colour.get(nxt) == 1:
                i = stack.index(nxt)
                return [nxt, *reversed(stack[i:])]
            elif nxt not in colour:
                colour[nxt] = 1
                stack.append(nxt)
                iters.append(iter(edges(nxt)))
    return None


def _parse_deps(value: object, task_id: Any) -> list[Any]:
    if value is None or isinstance(value, (str, bytes, bytearray)) or not isinstance(
            value, Iterable):
        raise TypeError(f"deps of {task_id!r} must be an iterable of task ids (not str, bytes "
                        f"or None), got {type(value).__name__} {value!r}; write deps=[...]")
    out: dict[Any, None] = {}
    for dep in value:
        require_hashable(dep, f"a dependency of {task_id!r}")
        out.setdefault(dep, None)
    return list(out)


def _encode_error(error: Any) -> str | None:
    if error is None:
        return None
    try:
        return json.dumps(error)
    except (TypeError, ValueError):
        return json.dumps(repr(error))
