"""What one call did, and how a trace writes it down (shared by both differential suites).

* :class:`Observed` -- the "outcome" of one call, compared between model and target: either
  the *normalised* return value (``schedcheck.targets.adapt``) or the contract name of the exception
  (``adapt.error_name``). The original exception rides along (``exc``) but is not compared.
  :func:`observe` calls a target method; :func:`observe_model` calls the model and turns an
  exception that is not a contract error into ``SchedcheckInternalError`` (a model bug is never
  a counterexample against the target).
* :func:`call_code` -- one code line ``name = target.method(k=v)``; :class:`Ref` -- a name bound
  by an earlier line (``claim_0``, ``h_1``) that prints as the name, not as a value;
  :func:`check_expr` -- the replay check of a step (the convention is described in
  ``schedcheck.harness.common``).

Imported through ``schedcheck.harness.common`` as well, which re-exports every public name.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from schedcheck import contract
from schedcheck.harness import guard
from schedcheck.targets import adapt

__all__ = [
    "CRASHED",
    "Observed",
    "Ref",
    "call_code",
    "check_expr",
    "observe",
    "observe_each",
    "observe_model",
]

#: How an error name starts when the call crashed rather than answered: a hang, memory, or a
#: child process (``--exec``) that exited or broke the protocol.
CRASHED: tuple[str, ...] = ("Hang[", "OutOfMemory[", "Crash[", "Exit[", "StrayThreads[",
                            "ProtocolError[")

#: Exceptions a model may raise: the contract's errors. Anything else is a model bug.
_MODEL_ERRORS: frozenset[str] = frozenset(adapt.CONTRACT_ERRORS)


# --------------------------------------------------------------------------------------------
# Observed outcomes
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Observed:
    """What one call did: a normalised ``value``, or the contract name of its ``error``.

    Two outcomes are equal iff both returned equal normalised values or both raised errors of
    the same contract name. ``exc`` (the exception object, e.g. a ``CycleError`` whose
    ``.cycle`` a suite inspects) is carried but never compared.
    """

    value: Any = None
    error: str | None = None
    exc: BaseException | None = field(default=None, compare=False, repr=False)

    @property
    def ok(self) -> bool:
        return self.error is None

    def __repr__(self) -> str:
        if self.error is not None:
            return f"raises {self.error}"
        return adapt.shown_repr(self.value)

    def describe(self) -> str:
        """Like ``repr`` but with the exception's message, for stories."""
        if self.error is not None and self.exc is not None:
            return f"raises {self.error}({self.exc})"
        return repr(self)


def _error_name(exc: BaseException) -> str:
    """``adapt.error_name``, with a fast path for schedcheck's own classes (the common case:
    every contract class is named as its contract error)."""
    if type(exc).__module__ == "schedcheck.contract":
        return type(exc).__name__
    return adapt.error_name(exc)


def _malformed(exc: BaseException, norm: Callable[[Any], Any], raw: Any) -> Observed:
    name = getattr(norm, "__name__", "normalise")
    return Observed(
        error=f"MalformedReply[{name}: {type(exc).__name__}: {exc}; got {raw!r}]", exc=exc
    )


def observe(
    fn: Callable[..., Any],
    /,
    *args: Any,
    norm: Callable[[Any], Any] | None = None,
    **kwargs: Any,
) -> Observed:
    """Call ``fn(*args, **kwargs)`` on the target; return its normalised value or error name.

    A reply that ``norm`` cannot read (say, a ``Reply`` without ``outcome``) becomes an error
    named ``MalformedReply[...]``, which differs from anything the model says -- so it is a
    counterexample, not a crash of the harness.
    """
    try:
        raw = guard.call_limited(fn, *args, **kwargs)
    except guard.StepTimeout as exc:  # a hang is a verdict against this call
        return Observed(error=f"Hang[no reply within {guard.step_seconds():g} s]", exc=exc)
    except guard.SetAside:  # an operation that misbehaved before: the example is rejected
        raise
    except MemoryError as exc:  # a crash under the memory ceiling, never a refusal
        exc = exc.with_traceback(None)  # its frames hold what the target allocated
        return Observed(error=f"OutOfMemory[MemoryError{': ' + str(exc) if str(exc) else ''}]",
                        exc=exc)
    except Exception as exc:
        return Observed(error=_error_name(exc), exc=exc)
    if norm is None:
        return Observed(value=raw)
    try:
        return Observed(value=norm(raw))
    except Exception as exc:
        return _malformed(exc, norm, raw)


def observe_each(fn: Callable[..., Any], args: list[Any], *,
                 norm: Callable[[Any], Any] | None = None) -> list[Observed]:
    """``[observe(fn, a, norm=norm) for a in args]`` in one guarded call: one hand-off to the
    step thread for the whole batch (the per-step reads of every task's state). If the batch
    hangs, the call that hung and the ones after it share its ``Hang`` outcome."""
    if guard.self_limited(fn):  # each call keeps its own limit: no hand-off at all
        return [observe(fn, arg, norm=norm) for arg in args]
    done: list[Observed] = []

    def run() -> None:
        for arg in args:
            done.append(observe(fn, arg, norm=norm))

    got = observe(run)
    out = list(done)[:len(args)]
    if not got.ok:
        out += [got] * (len(args) - len(out))
    return out


def observe_model(
    fn: Callable[..., Any],
    /,
    *args: Any,
    norm: Callable[[Any], Any] | None = None,
    **kwargs: Any,
) -> Observed:
    """Like :func:`observe`, for the reference model: a non-contract exception is a bug in
    schedcheck (``SchedcheckInternalError``), never an expected outcome."""
    try:
        raw = fn(*args, **kwargs)
    except Exception as exc:
        name = _error_name(exc)
        if name not in _MODEL_ERRORS:
            raise contract.SchedcheckInternalError(
                f"the reference model raised {type(exc).__name__}: {exc} in "
                f"{getattr(fn, '__qualname__', fn)!s}{_fmt_args(args, kwargs)}; "
                "this is a bug in schedcheck, not in the target"
            ) from exc
        return Observed(error=name, exc=exc)
    if norm is None:
        return Observed(value=raw)
    return Observed(value=norm(raw))


# --------------------------------------------------------------------------------------------
# Code lines of the trace
# --------------------------------------------------------------------------------------------


class Ref:
    """A name bound by an earlier step (``claim_0``, ``h_1``, ``claim_0[1]``); its repr is the
    name, so code lines mention the variable instead of the value."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name

    def __getitem__(self, index: int) -> Ref:
        return Ref(f"{self.name}[{index}]")


def _fmt_args(args: Sequence[Any], kwargs: Mapping[str, Any]) -> str:
    parts = [repr(a) for a in args] + [f"{k}={v!r}" for k, v in kwargs.items()]
    return "(" + ", ".join(parts) + ")"


def call_code(
    method: str,
    *args: Any,
    assign: str | None = None,
    obj: str = "target",
    **kwargs: Any,
) -> str:
    """One code line: ``[assign = ]obj.method(arg, k=v)`` (values shown by ``repr``)."""
    call = f"{obj}.{method}{_fmt_args(args, kwargs)}"
    return f"{assign} = {call}" if assign else call


def check_expr(expected: Observed, name: str | None, norm: str | None = None) -> str:
    """The replay ``check`` for a step whose model outcome is ``expected`` (see module doc).

    ``name`` is the variable the step's code assigned (``None`` if it assigned nothing);
    ``norm`` the ``schedcheck.targets.adapt`` function that normalises it (``None``: compare as is).
    """
    if not expected.ok:
        return f"_raised is not None and error_name(_raised) == {expected.error!r}"
    if name is None:
        return "_raised is None"
    value = f"{norm}({name})" if norm else name
    return f"_raised is None and {value} == {expected.value!r}"
