"""Part 3 of the contract: how a stranger's answers are compared with the model's.

Everything a target returns goes through :func:`norm` before it is compared, so that
``TaskState.READY``, ``"ready"`` and ``"READY"`` are the same, and a ``Reply`` may be any object
with ``outcome``/``state`` attributes or a plain ``(outcome, state)`` tuple. Errors are
compared by :func:`error_name`: an instance of schedcheck's class of that name, or a class
named the same; ``TypeError``/``ValueError`` as themselves.

The normalised forms are plain tuples, strings and ints, so they print as Python literals in a
counterexample and compare with ``==``.

Standard library only: every ``replay.py`` carries a copy of this module, so that a replay reads
replies exactly as the check did without importing schedcheck.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Iterable
from typing import Any

__all__ = [
    "CONTRACT_ERRORS",
    "error_name",
    "norm_cause",
    "norm_claim",
    "norm_claims",
    "norm_info",
    "norm_name",
    "norm_reply",
    "shown_repr",
]

#: The error names of the contract, in rule 9's order of precedence (then the wheel's).
CONTRACT_ERRORS: tuple[str, ...] = (
    "TypeError",
    "ValueError",
    "ClosedError",
    "NotStartedError",
    "UnknownTaskError",
    "ConflictError",
    "UnknownDependencyError",
    "CycleError",
    "WheelFullError",
)

NormCause = tuple[str, Any, int]
NormClaim = tuple[Any, int]
NormReply = tuple[str, str]
NormInfo = tuple[Any, int, str, NormCause | None]


def norm_name(value: Any) -> str:
    """A state, outcome or cause kind as an upper-case name: ``TaskState.READY`` -> ``"READY"``.

    Accepts enums (by ``.name``), strings (``"ready"``, ``"TaskState.READY"``) and anything
    with a ``name`` attribute. Raises ``TypeError`` for anything else.
    """
    if type(value) is str:  # the common case first (an enum, even a str one, is not a str)
        return value.rsplit(".", 1)[-1].upper()
    if isinstance(value, enum.Enum):
        return value.name.upper()
    if isinstance(value, str):
        return value.rsplit(".", 1)[-1].upper()
    name = getattr(value, "name", None)
    if isinstance(name, str):
        return name.upper()
    raise TypeError(f"expected a state/outcome name, got {type(value).__name__} {value!r}")


_MISSING = object()


def _field(obj: Any, name: str, index: int) -> Any:
    found = getattr(obj, name, _MISSING)
    if found is not _MISSING:
        return found
    if isinstance(obj, tuple):
        return obj[index]
    raise TypeError(f"{type(obj).__name__} {obj!r} has no attribute {name!r} and is not a tuple")


def norm_cause(cause: Any) -> NormCause | None:
    """``Cause(kind, task_id, generation)`` -> ``("CANCELLED", task_id, generation)``."""
    if cause is None:
        return None
    return (
        norm_name(_field(cause, "kind", 0)),
        _field(cause, "task_id", 1),
        int(_field(cause, "generation", 2)),
    )


def norm_reply(reply: Any) -> NormReply:
    """``Reply(outcome, state)`` -> ``("APPLIED", "SUCCEEDED")``."""
    return (norm_name(_field(reply, "outcome", 0)), norm_name(_field(reply, "state", 1)))


def norm_claim(claim: Any) -> NormClaim:
    """``Claim(task_id, generation, fn)`` -> ``(task_id, generation)`` (fn is not compared)."""
    return (_field(claim, "task_id", 0), int(_field(claim, "generation", 1)))


def norm_claims(claims: Iterable[Any]) -> list[NormClaim]:
    return [norm_claim(c) for c in claims]


def norm_info(info: Any) -> NormInfo:
    """``TaskInfo`` -> ``(task_id, generation, "STATE", cause)``; extra attributes ignored."""
    return (
        _field(info, "task_id", 0),
        int(_field(info, "generation", 1)),
        norm_name(_field(info, "state", 2)),
        norm_cause(_field(info, "cause", 3)),
    )


def error_name(exc: BaseException) -> str:
    """The contract name an exception stands for, or its own class name if none fits.

    ``TypeError``/``ValueError`` are matched as themselves *after* the contract's own names,
    so a stranger's ``class UnknownTaskError(KeyError)`` counts as ``UnknownTaskError``.
    """
    verdict = getattr(exc, "schedcheck_verdict", None)
    if isinstance(verdict, str):  # a child process that hung, crashed or broke the protocol
        return verdict
    names = {klass.__name__ for klass in type(exc).__mro__}
    for name in CONTRACT_ERRORS[2:]:
        if name in names:  # schedcheck.contract's classes are named so too
            return name
    if isinstance(exc, TypeError):
        return "TypeError"
    if isinstance(exc, ValueError):
        return "ValueError"
    return type(exc).__name__


_DEFAULT_REPR = re.compile(r"<(?:[\w.<>]+\.)?(\w+) object\sat\s0x[0-9a-fA-F]+>")


def shown_repr(value: Any) -> str:
    """``repr(value)`` with each default object repr shortened to its class,
    ``<TimerHandle object>``: the module a checked file was loaded as and the address say
    nothing to a reader, and differ from run to run (a replay compares what it prints)."""
    text = repr(value)
    if "0x" not in text:
        return text
    return _DEFAULT_REPR.sub(r"<\1 object>", text)

