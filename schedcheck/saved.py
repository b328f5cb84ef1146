"""Counterexamples of ``check``'s search, kept in the example database so that every door
replays them first.

Hypothesis keeps a failing example as the choices that drew it, and replays them on the same
test: the pytest API's and ``fuzz``'s failures are kept that way, under the target's key
(:func:`schedcheck.pytest_api.database_key`). ``check``'s search draws from other machines (its
phases: scenarios, swarm, long programs, graph shapes), whose choices would draw another
program on the suite's own machine. So a counterexample of ``check`` (or of the pytest API's
default search, which is ``check``'s) is kept as its reduced program -- the atomic calls that
``replay.py`` shows -- under the same key with :data:`SUFFIX`, with the level that found it.

:func:`replay` plays each kept program on a fresh machine of its level, as delta debugging
replays a candidate: one that fails again is a counterexample (of whatever clause it breaks
now); one that runs to its end and breaks nothing is deleted (the bug it showed was fixed); one
the machine cannot run (a target that lost a method) is left alone.
"""

from __future__ import annotations

import functools
import pickle
from collections.abc import Callable
from typing import Any

from schedcheck.harness.result import Counterexample, RunResult

__all__ = ["SUFFIX", "keep", "key", "replay", "save"]

#: What follows the target's database key for its kept programs.
SUFFIX = b" check-programs"
#: The layout of one kept entry (``pickle`` of ``(FORMAT, level, clause, program)``).
FORMAT = 1


def key(system: str, factory: Callable[..., Any], *, tolerance: bool = False) -> bytes:
    """Where ``factory``'s kept programs are: the key every door shares, and :data:`SUFFIX`."""
    from schedcheck.pytest_api import database_key, target_key

    return database_key(system, target_key(factory), tolerance=tolerance) + SUFFIX


def save(database: Any, system: str, factory: Callable[..., Any], result: RunResult, *,
         tolerance: bool = False) -> int:
    """Keep each counterexample of ``result`` whose level and program are known in
    ``database`` (a Hypothesis ``ExampleDatabase``); how many were kept."""
    where = key(system, factory, tolerance=tolerance)
    kept = 0
    for cx in result.all_counterexamples():
        if cx.program and cx.level:
            database.save(where, pickle.dumps((FORMAT, cx.level, cx.clause, cx.program)))
            kept += 1
    return kept


def keep(where: str, system: str, factory: Callable[..., Any], result: RunResult, *,
         tolerance: bool = False) -> str:
    """:func:`save` into the database at ``where`` (a directory or a Redis URL, as ``check
    --db`` takes it); the note for the card."""
    from schedcheck import fuzz

    try:
        kept = save(fuzz.open_database(where), system, factory, result, tolerance=tolerance)
    except (ValueError, OSError) as exc:
        return f"the counterexamples were not kept in the example database {where}: {exc}"
    if not kept:
        return (f"no counterexample could be kept in the example database {where} (their "
                "programs hold values that cannot be pickled)")
    return (f"{kept} counterexample(s) kept in the example database {where}: a check, pytest "
            "API test or fuzz campaign given it replays them first")


def replay(database: Any, system: str, factory: Callable[..., Any], name: str, *,
           tolerance: bool = False) -> RunResult | None:
    """Each program ``database`` keeps for ``factory``, played on a fresh machine of its level:
    a RunResult whose counterexamples are those that fail again, or None when none does."""
    from schedcheck.harness.minimize import _in_test_context
    from schedcheck.harness.minimize import replay as play

    where = key(system, factory, tolerance=tolerance)
    result = RunResult.fresh(system, name)
    found: list[Counterexample] = []
    for entry in list(database.fetch(where)):
        try:
            version, level, _clause, blob = pickle.loads(entry)
            program = pickle.loads(blob)
        except Exception:
            continue  # written by another release: left alone
        if version != FORMAT:
            continue
        machine = _machine(system, factory, level, tolerance=tolerance, result=result)
        if machine is None:
            continue
        cx, ran = _in_test_context(functools.partial(play, machine, program))
        result.examples += 1
        result.steps += len(ran)
        if cx is not None:
            cx.level, cx.program = level, blob
            found.append(cx)
        elif ran:  # played to its end and broke nothing: the mistake is gone
            database.delete(where, entry)
    if not found:
        return None
    result.counterexample = found[0]
    result.counterexamples = found
    for cx in found:
        result.break_(cx.clause)
    result.notes.append(f"{len(found)} of the {result.examples} program(s) that check's search "
                        "kept in the example database failed again (the card counts only "
                        "their replays)")
    return result


def _machine(system: str, factory: Callable[..., Any], level: str, *, tolerance: bool,
             result: RunResult) -> type[Any] | None:
    """A machine of ``level`` for ``factory`` (None when it cannot be built)."""
    from schedcheck import systems

    try:
        if level == "core":
            return systems.core_machine(system, factory, result=result)
        options: dict[str, Any] = {"tolerance": True} if tolerance else {}
        return systems.get(system).make_machine(factory, result=result, **options)
    except Exception:
        return None
