"""Which stages of a check run, and what the card says of those that do not: a method that
misbehaved keeps the concurrent rounds from running, a wheel declared inexact gets the
tolerance-mode checks only, an adapter graded at the core level still has its cost measured."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from schedcheck.harness.result import RunResult
from schedcheck.systems import System

__all__ = ["core_graded", "declares_inexact", "misbehaved", "rounds_unsupported"]


def misbehaved(entry: System, result: RunResult) -> bool:
    """Whether a method misbehaved in an earlier supervised child (it is set aside): the
    concurrent rounds, whose threads call it with nothing to stop them, are then not run,
    and their clauses say why."""
    from schedcheck.harness import guard

    methods = guard.methods_aside()
    if not methods:
        return False
    why = (f"not run: {', '.join(m + '()' for m in sorted(methods))} misbehaved (the rounds' "
           "threads would call it with nothing to stop them)")
    for cid in (entry.lin_clause, entry.interleaving_clause):
        if not result.stats[cid].why:
            result.stats[cid].why = why
    return True


def core_graded(result: RunResult | None) -> bool:
    """The core level ran (an adapter without the contract's surface): its cost clause is
    measured all the same -- the workload needs only submit, start, ready and complete."""
    return result is not None and any(p.level == "core" and p.examples > 0
                                      for p in result.levels)


def declares_inexact(entry: System, factory: Callable[..., Any]) -> bool:
    """A wheel whose declared capabilities have no exact due ticks (it fires at the deadline
    itself, or early by a declared bound): only tolerance-mode checks apply to it."""
    from schedcheck.targets.adapters import WheelCapabilities, capabilities_of

    caps = capabilities_of(factory)
    return (entry.has_tolerance and isinstance(caps, WheelCapabilities)
            and (not caps.due_ticks or caps.early_by is not None))


def rounds_unsupported(entry: System, result: RunResult, *, declared: bool = False) -> None:
    """Under ``--tolerance`` the concurrent rounds are not run: their linearizability check
    replays each history on the exact model, whose due ticks a tolerance-mode target does
    not share by design."""
    why = ("the concurrent rounds check linearizability against the exact model, whose due "
           "ticks this target does not share " + (
               "(its declared capabilities)" if declared else
               "(--tolerance); run them without --tolerance"))
    for cid in (entry.lin_clause, entry.interleaving_clause):
        result.unsupported_clause(cid, why)
        result.stats[cid].why = f"concurrent rounds not run: {why}"
    result.unsupported.append("concurrent rounds under --tolerance (exact model only)")
