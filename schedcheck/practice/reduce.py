"""A graded item's failing program reduced by the suites' own delta debugging.

``grade`` runs short hand-written programs (``(call, args)`` steps after a constructor) on the
learner's class and on the model. When one diverges, it is reduced exactly as a suite's
counterexample is: :func:`schedcheck.harness.minimize.reduce_ops` -- each task's steps removed
together, ddmin over the steps, contiguous runs removed, a wheel's points in time moved towards
0 together, then every argument made simpler (a dependency or the optional ones dropped, every
int made smaller, the constructor's numbers too). For that, the program is spelled as the
suites' atomic ops for the length of the reduction (:func:`to_ops`; :func:`from_ops` turns it
back): the constructor is the pinned ``_build`` op, a submit is ``_submit``, a wheel's schedule
and advance are ``_schedule`` and ``_advance``; every other call keeps its name.

``fails(build, steps)`` replays a candidate and says whether it still breaks the same item's
rule; at most :data:`MAX_REPLAYS` candidates are tried per program (each is one short run on
fresh objects, a millisecond or so).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from schedcheck.harness.delta import reduce_ops
from schedcheck.harness.program import Op

__all__ = ["MAX_REPLAYS", "from_ops", "reduce_program", "to_ops"]

Step = tuple[str, tuple[Any, ...]]
#: Most candidates one reduction replays; past it, the shortest failing program so far stands.
MAX_REPLAYS = 2000


def to_ops(build: tuple[Any, ...], steps: list[Step]) -> list[Op]:
    """``build`` (the constructor's arguments) and ``steps`` as the suites' atomic ops."""
    ops = [Op("_build", tuple(build), {})]
    for call, args in steps:
        if call == "submit":
            ops.append(Op("_submit", (args[0], tuple(args[1]) if len(args) > 1 else ()), {}))
        elif call == "submit_opt":
            ops.append(Op("_submit", (args[0], tuple(args[1])), {"optional": tuple(args[2])}))
        elif call == "schedule":
            ops.append(Op("_schedule", tuple(args), {}))
        elif call == "after":
            ops.append(Op("_schedule", tuple(args), {"after": True}))
        elif call == "advance":
            ops.append(Op("_advance", tuple(args), {}))
        else:
            ops.append(Op(call, tuple(args), {}))
    return ops


def from_ops(ops: list[Op]) -> tuple[tuple[Any, ...], list[Step]]:
    """The inverse of :func:`to_ops`: ``(build, steps)``."""
    build: tuple[Any, ...] = ()
    steps: list[Step] = []
    for op in ops:
        if op.name == "_build":
            build = op.args
        elif op.name == "_submit" and op.kwargs.get("optional"):
            steps.append(("submit_opt", (op.args[0], list(op.args[1]),
                                         list(op.kwargs["optional"]))))
        elif op.name == "_submit":
            steps.append(("submit", (op.args[0], list(op.args[1]))))
        elif op.name == "_schedule":
            steps.append(("after" if op.kwargs.get("after") else "schedule", op.args))
        elif op.name == "_advance":
            steps.append(("advance", op.args))
        else:
            steps.append((op.name, op.args))
    return build, steps


def reduce_program(build: tuple[Any, ...], steps: list[Step],
                   fails: Callable[[tuple[Any, ...], list[Step]], bool]
                   ) -> tuple[tuple[Any, ...], list[Step]]:
    """``(build, steps)`` reduced while ``fails`` holds (it must hold for them)."""
    tried = 0

    def still(ops: list[Op]) -> bool:
        nonlocal tried
        if tried >= MAX_REPLAYS:
            return False
        tried += 1
        b, s = from_ops(ops)
        return bool(s) and fails(b, s)

    return from_ops(reduce_ops(to_ops(build, steps), still))
