"""The two stores of the durable scheduler behind one small interface: a connection that runs
``?``-parameter SQL and one transaction per call (``with store.transaction(): ...``).

* :class:`SqliteStore` -- ``sqlite:///path/to/file`` (or ``sqlite://`` / ``sqlite:///:memory:``
  for a private in-memory store): WAL journal, ``synchronous`` NORMAL or FULL
  (``?synchronous=FULL``), every transaction ``BEGIN IMMEDIATE`` (the write lock is taken
  first, so two processes never both read a free slot and then both write it), a busy timeout
  so that waiting processes queue instead of failing.
* :class:`PostgresStore` -- ``postgresql://...`` (psycopg 3): every changing transaction first
  takes one transaction-scoped advisory lock (``pg_advisory_xact_lock``), so a claim reads
  ``limit - count(RUNNING)`` with no other claimer between the read and the write; the tables
  live in a schema of their own (``?schema=name``, default ``schedcheck``).

Task ids are stored as text (:func:`encode_id`/:func:`decode_id`): str, int, float, bytes,
None, bool and tuples of those keep their type across processes.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import re
import signal
import sqlite3
from collections.abc import Iterator, Sequence
from typing import Any, Protocol
from urllib.parse import parse_qs, urlsplit, urlunsplit

__all__ = ["PostgresStore", "SqliteStore", "Store", "decode_id", "encode_id", "open_store"]

SCHEMA = """
CREATE TABLE IF NOT EXISTS dtask (
    id TEXT PRIMARY KEY, seq BIGINT NOT NULL, gen BIGINT NOT NULL, state TEXT NOT NULL,
    deps TEXT NOT NULL, fn TEXT, requested INTEGER NOT NULL DEFAULT 0,
    cause_kind TEXT, cause_id TEXT, cause_gen BIGINT, error TEXT,
    token BIGINT, expires DOUBLE PRECISION, attempts INTEGER NOT NULL DEFAULT 0);
CREATE INDEX IF NOT EXISTS dtask_by_state ON dtask (state, seq);
CREATE TABLE IF NOT EXISTS dedge (dep TEXT NOT NULL, dependent TEXT NOT NULL,
    PRIMARY KEY (dep, dependent));
CREATE INDEX IF NOT EXISTS dedge_by_dependent ON dedge (dependent);
CREATE TABLE IF NOT EXISTS dmeta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""

#: the advisory lock every changing Postgres transaction takes (one per schema: see below)
_LOCK_BASE = 0x5C4ED0


def encode_id(value: Any) -> str:
    """A task id as text that keeps its type (``TypeError`` for a type no store can keep)."""
    return json.dumps(_tag(value), separators=(",", ":"))


def _tag(value: Any) -> Any:
    if value is None:
        return ["n"]
    if isinstance(value, bool):
        return ["b", value]
    if isinstance(value, int):
        return ["i", value]
    if isinstance(value, str):
        return ["s", value]
    if isinstance(value, float):
        return ["f", value]
    if isinstance(value, bytes):
        return ["y", value.hex()]
    if isinstance(value, tuple):
        return ["t", [_tag(v) for v in value]]
    raise TypeError(f"a durable task id must be str, int, float, bytes, bool, None or a tuple "
                    f"of those (it is stored as data), got {type(value).__name__} {value!r}; "
                    "use a string key for this task")


def decode_id(text: str) -> Any:
    return _untag(json.loads(text))


def _untag(tag: list[Any]) -> Any:
    kind = tag[0]
    if kind == "n":
        return None
    if kind == "y":
        return bytes.fromhex(tag[1])
    if kind == "t":
        return tuple(_untag(t) for t in tag[1])
    return tag[1]


class Store(Protocol):
    """What the scheduler needs of a store."""

    kind: str
    url: str

    def transaction(self, *, changing: bool = True) -> contextlib.AbstractContextManager[None]:
        ...

    def execute(self, sql: str, args: Sequence[Any] = ()) -> int:
        """Run one statement; the number of rows it changed."""
        ...

    def rows(self, sql: str, args: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        ...

    def close(self) -> None:
        ...


class SqliteStore:
    """One SQLite connection (not shared between threads: one scheduler object per thread or
    process; the file is shared)."""

    kind = "sqlite"

    def __init__(self, path: str, *, synchronous: str = "NORMAL", url: str = "") -> None:
        if synchronous.upper() not in ("OFF", "NORMAL", "FULL", "EXTRA"):
            raise ValueError(f"synchronous={synchronous!r}: choose NORMAL or FULL")
        self.url = url or f"sqlite:///{path}"
        self.path = path
        self.db = sqlite3.connect(path, isolation_level=None, timeout=60.0,
                                  check_same_thread=False)
        self.statements = 0  #: statements run so far
        self.crash_after: int | None = None  #: fault injection: SIGKILL before statement N
        if path != ":memory:":
            self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute(f"PRAGMA synchronous={synchronous.upper()}")
        with self.transaction():
            for stmt in SCHEMA.split(";"):
                if stmt.strip():
                    self.db.execute(stmt)

    @contextlib.contextmanager
    def transaction(self, *, changing: bool = True) -> Iterator[None]:
        self.db.execute("BEGIN IMMEDIATE" if changing else "BEGIN")
        try:
            yield
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")

    def execute(self, sql: str, args: Sequence[Any] = ()) -> int:
        _count(self)
        return self.db.execute(sql, tuple(args)).rowcount

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        self.db.executemany(sql, [tuple(r) for r in rows])

    def rows(self, sql: str, args: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        _count(self)
        return [tuple(r) for r in self.db.execute(sql, tuple(args)).fetchall()]

    def close(self) -> None:
        self.db.close()


_PLACEHOLDER = re.compile(r"\?")

#: rule 4's APPLIED case as one server-side call (the lock is then held for no client round
#: trip): RUNNING generation ``g`` (with token ``tok`` when given) -> SUCCEEDED, then each
#: PENDING dependent with nothing outstanding -> READY. NULL when that case does not apply: the
#: caller then decides the reply (STALE, DUPLICATE, REJECTED) the ordinary way.
_PG_COMPLETE = """
CREATE OR REPLACE FUNCTION dcomplete(k TEXT, g BIGINT, tok BIGINT, lockkey BIGINT)
RETURNS TEXT LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_advisory_xact_lock(lockkey);
    UPDATE dtask SET state = 'SUCCEEDED', token = NULL, expires = NULL
     WHERE id = k AND gen = g AND state = 'RUNNING' AND (tok IS NULL OR token = tok);
    IF NOT FOUND THEN
        RETURN NULL;
    END IF;
    UPDATE dtask SET state = 'READY' WHERE state = 'PENDING'
       AND id IN (SELECT dependent FROM dedge WHERE dep = k)
       AND NOT EXISTS (SELECT 1 FROM dedge e LEFT JOIN dtask d ON d.id = e.dep
                        WHERE e.dependent = dtask.id
                          AND (d.state IS NULL OR d.state <> 'SUCCEEDED'));
    RETURN 'APPLIED';
END $$"""

#: ``dcomplete`` for several reports under one lock, in order: 'APPLIED' for each, up to the
#: first that is not that case (NULL, last): the caller decides it and sends the rest again
_PG_COMPLETE_MANY = """
CREATE OR REPLACE FUNCTION dcomplete_many(ks TEXT[], gs BIGINT[], toks BIGINT[], lockkey BIGINT)
RETURNS TEXT[] LANGUAGE plpgsql AS $$
DECLARE
    out TEXT[] := '{}';
BEGIN
    PERFORM pg_advisory_xact_lock(lockkey);
    FOR i IN 1 .. COALESCE(array_length(ks, 1), 0) LOOP
        UPDATE dtask SET state = 'SUCCEEDED', token = NULL, expires = NULL
         WHERE id = ks[i] AND gen = gs[i] AND state = 'RUNNING'
           AND (toks[i] IS NULL OR token = toks[i]);
        IF FOUND THEN
            UPDATE dtask SET state = 'READY' WHERE state = 'PENDING'
               AND id IN (SELECT dependent FROM dedge WHERE dep = ks[i])
               AND NOT EXISTS (SELECT 1 FROM dedge e LEFT JOIN dtask d ON d.id = e.dep
                                WHERE e.dependent = dtask.id
                                  AND (d.state IS NULL OR d.state <> 'SUCCEEDED'));
            out := out || 'APPLIED'::TEXT;
        ELSE
            RETURN out || NULL::TEXT;  -- the caller decides this one, then sends the rest
        END IF;
    END LOOP;
    RETURN out;
END $$"""

#: rule 3's claim as one server-side call when nothing is to be reclaimed: the free slots
#: (``mc - count(RUNNING)``, at most ``lim``), READY tasks in submission sequence made RUNNING
#: with the next tokens. One row with a NULL id when the ordinary path must decide (not
#: started, closed, or an expired lease to reclaim first).
_PG_CLAIM = """
CREATE OR REPLACE FUNCTION dclaim(lim BIGINT, tnow DOUBLE PRECISION, lease DOUBLE PRECISION,
                                  mc BIGINT, lockkey BIGINT)
RETURNS TABLE (rid TEXT, rgen BIGINT, rfn TEXT, rtoken BIGINT) LANGUAGE plpgsql AS $$
DECLARE
    n BIGINT;
    base BIGINT;
    got BIGINT;
BEGIN
    PERFORM pg_advisory_xact_lock(lockkey);
    IF NOT EXISTS (SELECT 1 FROM dmeta m WHERE m.key = 'started' AND m.value = '1')
       OR EXISTS (SELECT 1 FROM dmeta m WHERE m.key = 'closed' AND m.value = '1')
       OR EXISTS (SELECT 1 FROM dtask t WHERE t.state = 'RUNNING' AND t.expires < tnow) THEN
        rid := NULL;
        RETURN NEXT;
        RETURN;
    END IF;
    n := mc - (SELECT COUNT(*) FROM dtask t WHERE t.state = 'RUNNING');
    IF lim IS NOT NULL AND lim < n THEN
        n := lim;
    END IF;
    IF n <= 0 THEN
        RETURN;
    END IF;
    base := COALESCE((SELECT m.value::BIGINT FROM dmeta m WHERE m.key = 'token'), 0);
    RETURN QUERY
    WITH pick AS (
        SELECT t.id AS pid, ROW_NUMBER() OVER (ORDER BY t.seq) AS i FROM dtask t
         WHERE t.state = 'READY' ORDER BY t.seq LIMIT n),
    upd AS (
        UPDATE dtask t SET state = 'RUNNING', token = base + p.i, expires = tnow + lease,
               attempts = t.attempts + 1
          FROM pick p WHERE t.id = p.pid
        RETURNING t.id, t.gen, t.fn, t.token)
    SELECT u.id, u.gen, u.fn, u.token FROM upd u ORDER BY u.token;
    GET DIAGNOSTICS got = ROW_COUNT;
    IF got > 0 THEN
        INSERT INTO dmeta (key, value) VALUES ('token', (base + got)::TEXT)
            ON CONFLICT (key) DO UPDATE SET value = excluded.value;
    END IF;
END $$"""


class PostgresStore:
    """One psycopg 3 connection; the tables in schema ``schema``."""

    kind = "postgresql"

    def __init__(self, url: str, *, schema: str = "schedcheck") -> None:
        try:
            import psycopg
        except ImportError as exc:  # pragma: no cover - depends on the environment
            raise RuntimeError("a postgresql:// store needs psycopg 3: pip install "
                               "'psycopg[binary]'") from exc
        if not re.fullmatch(r"[a-z_][a-z0-9_]{0,40}", schema):
            raise ValueError(f"schema={schema!r}: use lower-case letters, digits and _")
        self.url = url
        self.schema = schema
        self.db = psycopg.connect(url, autocommit=True)
        self.statements = 0
        self.crash_after: int | None = None
        self._lock = _LOCK_BASE ^ (hash_text(schema) & 0xFFFFFF)
        self.db.execute(f"CREATE SCHEMA IF NOT EXISTS {schema}")
        self.db.execute(f"SET search_path TO {schema}")
        with self.transaction():
            for stmt in SCHEMA.split(";"):
                if stmt.strip():
                    self.db.execute(stmt)
            self.db.execute(_PG_COMPLETE)
            self.db.execute(_PG_CLAIM)
            self.db.execute(_PG_COMPLETE_MANY)

    @contextlib.contextmanager
    def transaction(self, *, changing: bool = True) -> Iterator[None]:
        # BEGIN and the lock in one round trip (no parameters: the simple query protocol)
        begin = f"BEGIN; SELECT pg_advisory_xact_lock({int(self._lock)})" if changing \
            else "BEGIN"
        self.db.execute(begin)
        try:
            yield
        except BaseException:
            if not self.db.closed:
                self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")

    @staticmethod
    @functools.lru_cache(maxsize=256)
    def _sql(sql: str) -> str:
        return _PLACEHOLDER.sub("%s", sql)

    def execute(self, sql: str, args: Sequence[Any] = ()) -> int:
        _count(self)
        return self.db.execute(self._sql(sql), tuple(args)).rowcount

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        with self.db.cursor() as cur:
            cur.executemany(self._sql(sql), [tuple(r) for r in rows])

    def rows(self, sql: str, args: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        _count(self)
        cur = self.db.execute(self._sql(sql), tuple(args))
        return [tuple(r) for r in cur.fetchall()]

    def complete_fast(self, key: str, gen: int, token: int | None) -> bool:
        """Rule 4's APPLIED case in one round trip (see ``_PG_COMPLETE``); False: not that
        case, decide the reply the ordinary way."""
        _count(self)
        row = self.db.execute("SELECT dcomplete(%s, %s, %s, %s)",
                              (key, gen, token, self._lock)).fetchone()
        return row is not None and row[0] == "APPLIED"

    def complete_many_fast(self, items: list[tuple[str, int, int | None]]) -> list[bool]:
        """``complete_fast`` for several reports in one round trip: True for each APPLIED one,
        up to the first that was not (False, last; the rest were not tried)."""
        _count(self)
        row = self.db.execute("SELECT dcomplete_many(%s, %s, %s, %s)",
                              ([k for k, _, _ in items], [g for _, g, _ in items],
                               [t for _, _, t in items], self._lock)).fetchone()
        return [v == "APPLIED" for v in (row[0] if row else [])]

    def claim_fast(self, limit: int | None, now: float, lease: float,
                   max_concurrency: int) -> list[tuple[Any, ...]] | None:
        """Rule 3 in one round trip when nothing is to be reclaimed (see ``_PG_CLAIM``):
        the claimed (id, gen, fn, token) rows; None: take the ordinary path."""
        _count(self)
        rows = self.db.execute("SELECT * FROM dclaim(%s, %s, %s, %s, %s)",
                               (limit, now, lease, max_concurrency, self._lock)).fetchall()
        if rows and rows[0][0] is None:
            return None
        return [tuple(r) for r in rows]

    def reset(self) -> None:
        """Delete every row of this store (its tables stay): a fresh, empty scheduler."""
        with self.transaction():
            for table in ("dedge", "dtask", "dmeta"):
                self.db.execute(f"DELETE FROM {table}")

    def drop(self) -> None:
        """Remove this store's schema and every row in it."""
        self.db.execute(f"DROP SCHEMA IF EXISTS {self.schema} CASCADE")

    def close(self) -> None:
        self.db.close()


def _count(store: Any) -> None:
    """Count a statement; with ``crash_after`` set (fault injection for the crash tests), the
    process kills itself with SIGKILL just before that statement -- inside a transaction."""
    store.statements += 1
    if store.crash_after is not None and store.statements >= store.crash_after:
        os.kill(os.getpid(), signal.SIGKILL)


def hash_text(text: str) -> int:
    """A stable small hash (Python's ``hash`` of a str changes between processes)."""
    h = 0
    for ch in text.encode():
        h = (h * 131 + ch) & 0xFFFFFFFF
    return h


def open_store(url: str) -> SqliteStore | PostgresStore:
    """``sqlite:///file`` / ``sqlite://`` (in memory) / ``postgresql://...``; query
    parameters: ``synchronous=NORMAL|FULL`` (SQLite), ``schema=name`` (PostgreSQL)."""
    if not isinstance(url, str):
        raise TypeError(f"url must be a str such as 'sqlite:///tasks.db', got "
                        f"{type(url).__name__} {url!r}")
    parts = urlsplit(url)
    query = {k: v[-1] for k, v in parse_qs(parts.query).items()}
    if parts.scheme == "sqlite":
        path = parts.path[1:] if parts.path.startswith("/") else parts.path
        return SqliteStore(path or ":memory:", synchronous=query.get("synchronous", "NORMAL"),
                           url=url)
    if parts.scheme in ("postgresql", "postgres"):
        schema = query.pop("schema", "schedcheck")
        rest = "&".join(f"{k}={v}" for k, v in query.items())
        plain = urlunsplit((parts.scheme, parts.netloc, parts.path, rest, parts.fragment))
        return PostgresStore(plain, schema=schema)
    raise ValueError(f"unknown store {url!r}: use sqlite:///path/to/file.db, sqlite:// (in "
                     "memory) or postgresql://user@host:port/db")
