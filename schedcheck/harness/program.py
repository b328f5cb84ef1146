"""The atomic program of a suite run: one :class:`Op` per call the machine made on both sides.

A suite's rules are often compound (a worker's round, a whole graph, a classic scenario); the
calls they make go through a few *atomic* methods of the machine (the scheduler's ``_submit``,
``start``, ``_ready``, ``_callback`` ...; the wheel's ``_schedule``, ``_advance``,
``cancel_timer`` ...), each decorated with :func:`atomic`. The outermost atomic call of a step
is appended to the machine's :class:`Program` with its arguments (frozen by the machine's
``freeze_op``: copies of lists and dicts, handles replaced by names), so the program can be
replayed on a fresh machine one atomic step at a time -- which is what the delta-debugging
pass of ``schedcheck.harness.minimize`` does: no compound rule survives it.

This module imports nothing of the suites; ``common.SuiteMachine`` owns a Program.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from schedcheck.harness import guard, supervisor

__all__ = ["GenerationOf", "Op", "Program", "TimerName", "atomic", "generation_of"]

F = TypeVar("F", bound=Callable[..., Any])


@dataclass(frozen=True)
class TimerName:
    """A reference to the timer (or other object) a program step created, by the name the
    recording run gave it; the replay maps it to the object its own run created."""

    name: str


@dataclass(frozen=True)
class GenerationOf:
    """A callback's generation as the program records it: ``offset`` from the generation its
    task had when the call was made (0: the current one; -1: the one before, a late report).
    A replay with fewer resubmits before it then still reports the current generation -- a
    literal number would turn into another generation's (a stale) report."""

    offset: int

    def __repr__(self) -> str:
        return "current" if self.offset == 0 else f"current{self.offset:+d}"


def generation_of(gen: Any, current: int | None) -> Any:
    """``gen`` as a program records it: relative to the task's ``current`` generation when it
    is that one or the one before (see :class:`GenerationOf`), else as it is."""
    if (current is None or isinstance(gen, bool) or not isinstance(gen, int)
            or gen - current not in (0, -1)):
        return gen
    return GenerationOf(gen - current)


@dataclass
class Op:
    """One atomic call: ``machine.<name>(*args, **kwargs)``; ``made`` names what it created
    (the wheel's timers), in order, so that later ops can refer to them."""

    name: str
    args: tuple[Any, ...]
    kwargs: dict[str, Any]
    made: tuple[str, ...] = ()

    def describe(self) -> str:
        shown = [repr(a) for a in self.args] + [f"{k}={v!r}" for k, v in self.kwargs.items()]
        return f"{self.name}({', '.join(shown)})"


@dataclass
class Program:
    """The atomic calls of one run, in order (only the outermost atomic call is recorded)."""

    ops: list[Op] = field(default_factory=list)
    depth: int = 0


def atomic(fn: F) -> F:
    """Record calls of the decorated machine method in ``self.program`` (when the machine has
    one and no atomic call is already under way)."""
    name = fn.__name__

    @functools.wraps(fn)
    def wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
        program: Program | None = getattr(self, "program", None)
        if program is None or program.depth:
            return fn(self, *args, **kwargs)
        frozen_args, frozen_kwargs = self.freeze_op(name, args, kwargs)
        op = Op(name, frozen_args, frozen_kwargs)
        guard.step_aside(name, op.describe)  # it misbehaved in an earlier child
        program.ops.append(op)
        at = len(program.ops) - 1
        if supervisor.active():
            supervisor.send("op", at, op)
        before = self.made_names()
        program.depth += 1
        try:
            return fn(self, *args, **kwargs)
        finally:
            program.depth -= 1
            after = self.made_names()
            op.made = tuple(after[len(before):])
            if op.made and supervisor.active():
                supervisor.send("made", at, op.made)

    return wrapper  # type: ignore[return-value]
