"""What the scheduler suite draws and hands to a target, and how it reads the replies.

* the id alphabet :data:`IDS` (six letters, so resubmits are frequent) and the logical
  :data:`WORKERS` that hold claims;
* :data:`noop` -- the ``fn`` handed to ``submit`` (its repr is ``noop``: the replay script
  defines ``def noop(): return None``), :data:`MALFORMED_SUBMITS` and the forms ``deps`` is
  given in (:func:`deps_form`: tuple, list or a one-shot iterable);
* :class:`ClaimRef` -- a claim held by a worker, replayed later (also when stale);
* :class:`Support` / :func:`probe_support` -- which optional parts of the contract a target has;
* the readers of replies (:func:`as_int`, :func:`as_list`, :func:`as_dict`,
  :func:`optional_failed`), :func:`blame` (rule 9 owns some errors whatever the call) and
  :func:`event_label` (Hypothesis's statistics).

Nothing here imports ``schedcheck.impl``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from schedcheck.harness.clauses import S9
from schedcheck.harness.outcomes import Observed

__all__ = [
    "BIG",
    "DEAD",
    "IDS",
    "MALFORMED_SUBMITS",
    "TERMINAL",
    "WORKERS",
    "ClaimRef",
    "Support",
    "as_dict",
    "as_int",
    "as_list",
    "as_sent",
    "blame",
    "deps_form",
    "event_label",
    "noop",
    "optional_failed",
    "probe_support",
    "well_formed",
]

#: The id alphabet: small, so that resubmits (collisions) are frequent.
IDS: tuple[str, ...] = ("a", "b", "c", "d", "e", "f")
WORKERS: tuple[str, ...] = ("w1", "w2", "w3")
#: Errors that rule 9 owns whatever the call (malformed arguments, lifecycle, unknown ids).
_RULE9 = frozenset({"TypeError", "ValueError", "ClosedError", "NotStartedError",
                    "UnknownTaskError"})
DEAD = frozenset({"FAILED", "BLOCKED", "CANCELLED"})
TERMINAL = DEAD | {"SUCCEEDED"}
#: "unbounded" concurrency for the graphlib oracle
BIG = 1000


class _Noop:
    """The ``fn`` handed to submit; its repr is ``noop`` so counterexample lines read
    ``fn=noop`` (the replay defines ``def noop(): return None``)."""

    def __call__(self) -> None:
        return None

    def __repr__(self) -> str:
        return "noop"


noop = _Noop()


class _Malformed:
    """A non-callable, hashable ``fn`` with a short repr for counterexample lines."""

    def __repr__(self) -> str:
        return "5"


@dataclass(frozen=True)
class ClaimRef:
    """A claim handed to a worker: replayed later (complete/fail/cancel), also when stale."""

    task_id: Any
    generation: int
    worker: str
    name: str  #: ``claim_3[1]``: the ready() result and the index in it

    def __repr__(self) -> str:
        return f"{self.name}<{self.task_id!r} g{self.generation} {self.worker}>"


@dataclass(frozen=True)
class Support:
    """Which optional parts of the contract the target has (probed once per factory)."""

    optional: bool
    add_dependency: bool
    retry: bool
    check_invariants: bool
    #: the batch forms of the contract's calls the target has (``BATCH_METHODS``)
    batch: frozenset[str] = frozenset()


#: Public batch forms of the contract's calls a scheduler may offer; each one the target has is
#: checked against the same calls one by one (``scheduler.deep_rules``).
BATCH_METHODS = ("ready_pairs", "complete_many")


def probe_support(factory: Callable[[int], Any]) -> Support:
    """Probe a throwaway instance: methods by attribute, ``optional=`` by a TypeError-free call."""
    try:
        probe = factory(1)
    except Exception:
        return Support(False, False, False, False)
    optional = True
    try:
        probe.submit("__probe__", (), None, optional=())
    except TypeError:
        optional = False
    except Exception:  # it accepted the keyword, then disliked something else
        optional = True
    return Support(
        optional=optional,
        add_dependency=callable(getattr(probe, "add_dependency", None)),
        retry=callable(getattr(probe, "retry", None)),
        check_invariants=callable(getattr(probe, "check_invariants", None)),
        batch=frozenset(m for m in BATCH_METHODS if callable(getattr(probe, m, None))),
    )


def as_sent(generation: Any) -> Any:
    """A generation as a worker sends it back, read from a message, a row or a queue: equal to
    the one the scheduler handed out, not the same object (a comparison with ``is`` holds below
    257 only, where CPython keeps one object for each small int)."""
    return int(str(generation)) if type(generation) is int else generation


def as_int(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"expected an int generation, got {type(value).__name__} {value!r}")
    return value


def as_list(value: Any) -> list[Any]:
    return list(value)


def as_dict(value: Any) -> dict[Any, int]:
    return {k: as_int(v) for k, v in dict(value).items()}


def blame(clause: str, *outcomes: Observed) -> str:
    """Rule 9 owns malformed arguments, lifecycle errors and unknown ids, whatever the call."""
    if any(o.error in _RULE9 for o in outcomes):
        return S9
    return clause


MALFORMED_SUBMITS: tuple[tuple[str, Any, Any, Any], ...] = (
    ("an unhashable task id", ["x"], (), None),
    ("deps given as a str", "a", "bc", None),
    ("deps given as bytes", "a", b"bc", None),
    ("deps None", "a", None, None),
    ("an unhashable dependency", "a", [["b"]], None),
    ("a non-callable fn", "a", (), _Malformed()),
)


def optional_failed(info: Any) -> frozenset[Any] | None:
    value = getattr(info, "optional_failed", None)
    return None if value is None else frozenset(value)


def event_label(code: str, exp: Observed) -> str:
    """A low-cardinality label for Hypothesis's statistics: ``complete -> APPLIED``."""
    method = code.split("(", 1)[0].rsplit(".", 1)[-1]
    if not exp.ok:
        what = str(exp.error)
    elif isinstance(exp.value, tuple) and len(exp.value) == 2 and isinstance(exp.value[0], str):
        what = exp.value[0]
    elif isinstance(exp.value, (list, dict)):
        what = f"{min(len(exp.value), 3)}{'+' if len(exp.value) >= 3 else ''} items"
    else:
        what = "ok"
    return f"{method} -> {what}"


def well_formed(value: Any) -> bool:
    return isinstance(value, tuple) and len(value) == 4


def deps_form(deps: list[str], form: str) -> Any:
    if form == "list":
        return list(deps)
    if form == "iter":
        return _Reiterable(deps)
    return tuple(deps)


class _Reiterable:
    """An iterable that is not a list/tuple (a fresh iterator each time), printed as a list."""

    def __init__(self, items: Iterable[Any]) -> None:
        self.items = list(items)

    def __iter__(self) -> Any:
        return iter(self.items)

    def __repr__(self) -> str:
        return f"iter({self.items!r})"
