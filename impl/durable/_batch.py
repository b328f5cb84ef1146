"""``complete_many``: several completions in one transaction (a worker that claimed a batch
reports it at once), as ``DurableScheduler.complete_many`` documents."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from schedcheck.impl.durable._records import DurableClaim
from schedcheck.impl.durable._store import PostgresStore, encode_id

from schedcheck.contract import (
    Claim,
    Outcome,
    Reply,
    TaskState,
    UnknownTaskError,
    require_hashable,
    require_int,
)

__all__ = ["complete_many"]


def complete_many(sched: Any, reports: Iterable[Sequence[Any]]) -> list[Reply]:
    """The replies of ``sched.complete_many(reports)`` (``sched`` a ``DurableScheduler``),
    rule 4 for several reports in one transaction (a worker that claimed a batch reports it
    at once): each a ``DurableClaim`` (fenced by its token), a ``Claim``, or a sequence
    ``(task_id, generation[, token])``; each reply is what ``complete`` would answer at
    that point, in order. An error, as ``complete`` raises it (an unknown id, a generation
    that is not an int, ...), leaves the reports before it applied -- they are committed
    -- and the rest untouched (specs/scheduler.md, "Batch paths"); an error of the store
    itself rolls back the transaction it happens in.

    On PostgreSQL a batch that applies in full is one server-side call; from the first
    report that does not apply (decided as ``complete`` decides it) the rest is one more
    transaction, in which each further run of APPLIED reports is again one call."""
    todo, error = _reports(reports)
    replies: list[Reply] = []
    pg = sched.store if isinstance(sched.store, PostgresStore) else None
    if pg is not None and todo:
        replies += _applied(pg, todo)
    if len(replies) < len(todo):
        with sched.store.transaction():
            while len(replies) < len(todo):
                task_id, key, g, tok = todo[len(replies)]
                row = sched._row(key)
                if row is None:  # complete() raises here: the reports before it stand
                    error = UnknownTaskError(task_id)
                    break
                replies.append(sched._apply_row("complete", task_id, row, g, tok, None))
                if pg is not None and len(replies) < len(todo):
                    replies += _applied(pg, todo[len(replies):])
    if error is not None:
        raise error
    return replies


#: one report of ``complete_many``, checked: (task id, its stored key, generation, token)
_Report = tuple[Any, str, int, int | None]


def _reports(reports: Iterable[Sequence[Any]]) -> tuple[list[_Report], Exception | None]:
    """The reports of a batch, checked as ``complete`` checks its arguments, up to the first
    that raises: (the checked ones before it, that error or None)."""
    out: list[_Report] = []
    try:
        for report in reports:
            if isinstance(report, DurableClaim):  # its third field is fn: the token is later
                t, g, tok = report.task_id, report.generation, report.token
            elif isinstance(report, Claim):  # the contract's claim: no token
                t, g, tok = report.task_id, report.generation, None
            else:
                t, g, *rest = report
                tok = None if not rest else rest[0]
            gen = require_int(g, "generation")
            require_hashable(t, "task_id")
            out.append((t, encode_id(t), gen, None if tok is None else require_int(tok, "token")))
    except Exception as exc:  # complete() of this report would raise it: the rest is not tried
        return out, exc
    return out, None


def _applied(store: PostgresStore, todo: list[_Report]) -> list[Reply]:
    """The leading run of ``todo`` that applies, applied in one server-side call (its own
    transaction, or the caller's when one is open)."""
    done = store.complete_many_fast([(k, g, tok) for _, k, g, tok in todo])
    return [Reply(Outcome.APPLIED, TaskState.SUCCEEDED)] * sum(done)
