"""The durable scheduler's invariants as SQL queries over its store, each naming the rule it
checks (specs/scheduler.md I0..I6, specs/durable.md L1..L7). A query returns the offending
rows; :func:`check_store` raises ``AssertionError`` naming the rule and the first rows found.
The same queries run on SQLite and PostgreSQL."""

from __future__ import annotations

from typing import Any

from schedcheck.impl.durable._store import PostgresStore, SqliteStore

__all__ = ["QUERIES", "check_store"]

_PR = "('PENDING', 'READY')"
_DEAD = "('FAILED', 'BLOCKED', 'CANCELLED')"

#: (rule, what must hold, a query returning the rows that break it); ``:mc``/``:ma`` are
#: max_concurrency and max_attempts, ``:counter`` the store's token counter
QUERIES: tuple[tuple[str, str, str], ...] = (
    ("I3", "RUNNING tasks <= max_concurrency",
     "SELECT COUNT(*) FROM dtask WHERE state = 'RUNNING' HAVING COUNT(*) > :mc"),
    ("I0", "only CANCELLED/BLOCKED carry a cause",
     "SELECT id, state FROM dtask WHERE (cause_kind IS NULL) = "
     "(state IN ('CANCELLED', 'BLOCKED'))"),
    ("I0", "a CANCELLED task's cause names itself and its generation",
     "SELECT id FROM dtask WHERE state = 'CANCELLED' AND NOT (cause_id = id AND "
     "cause_gen = gen AND cause_kind IN ('cancelled', 'shutdown'))"),
    ("I0", "a cancel request only on RUNNING/SUCCEEDED/CANCELLED",
     "SELECT id, state FROM dtask WHERE requested <> 0 AND state NOT IN "
     "('RUNNING', 'SUCCEEDED', 'CANCELLED')"),
    ("I0", "nothing RUNNING before start()",
     "SELECT id FROM dtask WHERE state = 'RUNNING' AND NOT EXISTS "
     "(SELECT 1 FROM dmeta WHERE key = 'started' AND value = '1')"),
    ("I0", "nothing PENDING/READY after close()",
     f"SELECT id FROM dtask WHERE state IN {_PR} AND EXISTS "
     "(SELECT 1 FROM dmeta WHERE key = 'closed' AND value = '1')"),
    ("I2", "a PENDING/READY task is READY iff every dependency SUCCEEDED",
     f"SELECT t.id, t.state FROM dtask t WHERE t.state IN {_PR} AND (t.state = 'READY') = "
     "EXISTS (SELECT 1 FROM dedge e LEFT JOIN dtask d ON d.id = e.dep WHERE "
     "e.dependent = t.id AND (d.state IS NULL OR d.state <> 'SUCCEEDED'))"),
    ("I5", "no PENDING/READY task has a dead dependency",
     f"SELECT t.id, d.id FROM dtask t JOIN dedge e ON e.dependent = t.id "
     f"JOIN dtask d ON d.id = e.dep WHERE t.state IN {_PR} AND d.state IN {_DEAD}"),
    ("I6", "a BLOCKED task's cause is a failed/cancelled root at a generation it had",
     "SELECT t.id FROM dtask t LEFT JOIN dtask r ON r.id = t.cause_id WHERE "
     "t.state = 'BLOCKED' AND (t.cause_kind NOT IN ('failed', 'cancelled') OR r.id IS NULL "
     "OR t.cause_gen > r.gen OR (t.cause_gen = r.gen AND r.state <> CASE t.cause_kind "
     "WHEN 'failed' THEN 'FAILED' ELSE 'CANCELLED' END))"),
    ("L1", "a RUNNING task holds a lease (token, expiry, attempts >= 1); no other task does",
     "SELECT id, state FROM dtask WHERE (state = 'RUNNING') <> (token IS NOT NULL AND "
     "expires IS NOT NULL) OR (state = 'RUNNING' AND attempts < 1)"),
    ("L1", "no two RUNNING tasks hold the same fencing token",
     "SELECT token FROM dtask WHERE token IS NOT NULL GROUP BY token HAVING COUNT(*) > 1"),
    ("L2", "every token handed out is at most the store's token counter",
     "SELECT id FROM dtask WHERE token IS NOT NULL AND token > :counter"),
    ("L7", "the store holds max_concurrency slots",
     "SELECT COUNT(*) FROM dslot HAVING COUNT(*) <> :mc"),
    ("L7", "a RUNNING task holds one of the store's slots; no other task holds one",
     "SELECT t.id, t.state, t.slot FROM dtask t LEFT JOIN dslot s ON s.slot = t.slot WHERE "
     "(t.state = 'RUNNING') <> (t.slot IS NOT NULL) OR (t.slot IS NOT NULL AND "
     "s.slot IS NULL)"),
    ("L7", "no two tasks hold one slot",
     "SELECT slot FROM dtask WHERE slot IS NOT NULL GROUP BY slot HAVING COUNT(*) > 1"),
    ("L4", "no task has more claims since its submit than max_attempts (its own or the "
     "store's)", "SELECT id, attempts FROM dtask WHERE attempts > COALESCE(max_attempts, :ma)"),
    ("L8", "a RUNNING task does not wait for a retry (its claim cleared not_before)",
     "SELECT id FROM dtask WHERE state = 'RUNNING' AND not_before IS NOT NULL"),
    ("S", "every edge belongs to a task",
     "SELECT e.dependent FROM dedge e LEFT JOIN dtask t ON t.id = e.dependent "
     "WHERE t.id IS NULL"),
)


def check_store(store: SqliteStore | PostgresStore, max_concurrency: int,
                max_attempts: int) -> None:
    """Run every query of :data:`QUERIES`; ``AssertionError`` at the first that finds rows."""
    queries = [(rule, words, sql.replace(":mc", str(int(max_concurrency))).replace(
        ":ma", str(int(max_attempts))).replace(":counter", store.token_counter))
        for rule, words, sql in QUERIES]
    # one round trip when everything holds: the count of offending rows of every query
    counts = " UNION ALL ".join(f"SELECT {i} AS q, (SELECT COUNT(*) FROM ({sql}) AS x{i}) AS n"
                                for i, (_, _, sql) in enumerate(queries))
    broken = [int(i) for i, n in store.rows(counts) if n]
    for i in sorted(broken):
        rule, words, sql = queries[i]
        found: list[Any] = store.rows(sql)
        if found:
            raise AssertionError(f"{rule} broken in the store ({words}): {found[:3]!r}; the "
                                 "rows named break it -- look at the last call that changed them")
