"""Counterexamples of ``check``'s search, kept in the example database so that every door
replays them first.

Hypothesis keeps a failing example as the choices that drew it, and replays them on the same
test: the pytest API's and ``fuzz``'s failures are kept that way, under the target's key
(:func:`database_key`). ``check``'s search draws from other machines (its
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
import re
from collections.abc import Callable
from typing import Any

from schedcheck.harness.result import Counterexample, RunResult

__all__ = ["REDIS_SCHEMES", "SUFFIX", "database_key", "keep", "key", "open_database",
           "replay", "save", "target_key"]

#: the URL schemes of a Redis example database (anything else is a directory)
REDIS_SCHEMES = ("redis://", "rediss://", "unix://")

#: What follows the target's database key for its kept programs.
SUFFIX = b" check-programs"
#: The layout of one kept entry (``pickle`` of ``(FORMAT, level, clause, program)``).
FORMAT = 1


#: the module name ``schedcheck.targets`` gives a class loaded from path/to/file.py
_FILE_MODULE = re.compile(r"^_schedcheck_target_(?P<stem>.+)_[0-9a-f]{10}$")


def target_key(factory: Callable[..., Any]) -> str:
    """The target's name in the example database: ``module:qualified name``, where a class
    loaded from ``path/to/file.py`` has the module ``file`` (whatever its content, so that an
    edited file still replays its saved failures first). ``mine.py:Scheduler`` given to
    ``fuzz`` and ``from mine import Scheduler`` in a test file have the same key."""
    label = getattr(factory, "__qualname__", None) or repr(factory)
    module = getattr(factory, "__module__", "") or ""
    found = _FILE_MODULE.match(module)
    if found:
        module = found.group("stem")
    return f"{module}:{label}" if module else label


def database_key(system: str, name: str, *, tolerance: bool = False) -> bytes:
    """What distinguishes one target's suite from another's in the example database."""
    return f"schedcheck {system} {name}{' tolerance' if tolerance else ''}".encode()


def open_database(where: str) -> Any:
    """Hypothesis's own database for ``where``: a ``RedisExampleDatabase`` for a Redis URL
    (``redis://HOST:PORT/N``), else a ``DirectoryBasedExampleDatabase`` at that path.
    ValueError (saying what to do) when Redis is not installed or does not answer."""
    from hypothesis.database import DirectoryBasedExampleDatabase

    if not where.startswith(REDIS_SCHEMES):
        return DirectoryBasedExampleDatabase(where)
    try:
        import redis
        from hypothesis.extra.redis import RedisExampleDatabase
    except ImportError as exc:
        raise ValueError(f"a Redis database ({where}) needs the redis client: "
                         "pip install 'schedcheck[fuzz]'") from exc
    client = redis.Redis.from_url(where)
    try:
        client.ping()
    except redis.RedisError as exc:
        raise ValueError(f"the Redis server at {where} does not answer ({exc}); start it, or "
                         "give a directory instead") from exc
    return RedisExampleDatabase(client)


def key(system: str, factory: Callable[..., Any], *, tolerance: bool = False) -> bytes:
    """Where ``factory``'s kept programs are: the key every door shares, and :data:`SUFFIX`."""
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
    try:
        kept = save(open_database(where), system, factory, result, tolerance=tolerance)
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
