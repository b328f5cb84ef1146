"""The two stores of the durable scheduler behind one small interface: a connection that runs
``?``-parameter SQL and one transaction per call (``with store.transaction(): ...``).

* :class:`SqliteStore` -- ``sqlite:///path/to/file`` (or ``sqlite://`` / ``sqlite:///:memory:``
  for a private in-memory store): WAL journal, ``synchronous`` NORMAL or FULL
  (``?synchronous=FULL``), every transaction ``BEGIN IMMEDIATE`` (the write lock is taken
  first, so two processes never both read a free slot and then both write it), a busy timeout
  so that waiting processes queue instead of failing.
* :class:`PostgresStore` -- ``postgresql://...`` (psycopg 3): every changing transaction first
  takes one transaction-scoped advisory lock. The claim and the applied completion (server-side
  functions, one round trip each: ``_pgsql``) and the renewal take it SHARED and run side by
  side, the limit kept exact by slot rows a claim locks ``FOR UPDATE SKIP LOCKED``; every other
  changing call takes it EXCLUSIVE (``pg_advisory_xact_lock``) and runs alone. Tokens come
  from a sequence. The tables live in a schema of their own (``?schema=name``, default
  ``schedcheck``).

Both stores keep the limit as ``max_concurrency`` rows of ``dslot``: a RUNNING task holds one
(``dtask.slot``, unique), every transition out of RUNNING frees it (sets it NULL).

Task ids are stored as text (:func:`encode_id`/:func:`decode_id`): str, int, float, bytes,
None, bool and tuples of those keep their type across processes, except that ids Python holds
equal are one key (``True``, ``1`` and ``1.0`` are the int ``1``), as in the model.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import re
import signal
import sqlite3
import sys
from collections.abc import Iterator, Sequence
from typing import Any, Protocol
from urllib.parse import parse_qs, urlsplit, urlunsplit

from schedcheck.impl.durable._pgsql import FUNCTIONS

__all__ = ["PostgresStore", "SqliteStore", "Store", "StoreError", "connection_lost",
           "decode_id", "encode_id", "open_store", "permanent_error"]


class StoreError(RuntimeError):
    """The store cannot be used and waiting will not help: a SQLite file that is missing or
    damaged (named in the message), a PostgreSQL server that refused the session for good
    (authentication, unknown database, unknown host: its own message quoted)."""

SCHEMA = """
CREATE TABLE IF NOT EXISTS dtask (
    id TEXT PRIMARY KEY, seq BIGINT NOT NULL, gen BIGINT NOT NULL, state TEXT NOT NULL,
    deps TEXT NOT NULL, fn TEXT, requested INTEGER NOT NULL DEFAULT 0,
    cause_kind TEXT, cause_id TEXT, cause_gen BIGINT, error TEXT,
    token BIGINT, expires DOUBLE PRECISION, attempts INTEGER NOT NULL DEFAULT 0, slot BIGINT,
    not_before DOUBLE PRECISION, max_attempts INTEGER, result TEXT);
CREATE INDEX IF NOT EXISTS dtask_by_state ON dtask (state, seq);
CREATE TABLE IF NOT EXISTS dedge (dep TEXT NOT NULL, dependent TEXT NOT NULL,
    PRIMARY KEY (dep, dependent));
CREATE INDEX IF NOT EXISTS dedge_by_dependent ON dedge (dependent);
CREATE TABLE IF NOT EXISTS dmeta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS dslot (slot BIGINT PRIMARY KEY);
"""

#: columns added since the first stores were written: (name, type), added when missing
_LATER_COLUMNS = (("slot", "BIGINT"), ("not_before", "DOUBLE PRECISION"),
                  ("max_attempts", "INTEGER"), ("result", "TEXT"))

#: after SCHEMA and the ``slot`` column of a store written before slots were kept
_SLOT_INDEX = "CREATE UNIQUE INDEX IF NOT EXISTS dtask_by_slot ON dtask (slot)"

#: the advisory lock every changing Postgres transaction takes (one per schema: see below)
_LOCK_BASE = 0x5C4ED0


def encode_id(value: Any) -> str:
    """A task id as text that keeps its type (``TypeError`` for a type no store can keep).

    Ids that Python holds equal (and hash-equal) are one task, as the model's dict makes them:
    ``True``, ``1`` and ``1.0`` are stored as ``1`` (``False``, ``0``, ``0.0`` and ``-0.0`` as
    ``0``), inside tuples too; such an id reads back as the int."""
    return json.dumps(_tag(value), separators=(",", ":"))


def _tag(value: Any) -> Any:
    if value is None:
        return ["n"]
    if isinstance(value, int):  # bool included: True == 1 and hash(True) == hash(1)
        return ["i", int(value)]
    if isinstance(value, str):
        return ["s", value]
    if isinstance(value, float):
        if value.is_integer():  # 2.0 == 2: one dict key, one task
            return ["i", int(value)]
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
    #: SQL for the store's token counter: every token handed out is at most this (invariant L2)
    token_counter: str
    #: appended to a SELECT of one task's row: lock it until the transaction ends
    row_lock: str

    def transaction(self, *, changing: bool = True,
                    shared: bool = False) -> contextlib.AbstractContextManager[None]:
        """One transaction; ``shared``: a changing call that may run beside the claims and
        completions (it locks the rows it changes)."""
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
    token_counter = "(SELECT CAST(value AS BIGINT) FROM dmeta WHERE key = 'token')"
    row_lock = ""  # the write lock, taken by BEGIN IMMEDIATE, holds every row

    def __init__(self, path: str, *, synchronous: str = "NORMAL", url: str = "",
                 create: bool = False) -> None:
        if synchronous.upper() not in ("OFF", "NORMAL", "FULL", "EXTRA"):
            raise ValueError(f"synchronous={synchronous!r}: choose NORMAL or FULL")
        self.url = url or f"sqlite:///{path}"
        self.path = path
        if path != ":memory:" and not create and not os.path.exists(path):
            raise StoreError(f"no SQLite store at {os.path.abspath(path)!r} (from {self.url!r}); "
                             "a new store is made only when asked: DurableScheduler(url, ..., "
                             "create=True), or --create on the command line")
        self.db = sqlite3.connect(path, isolation_level=None, timeout=60.0,
                                  check_same_thread=False)
        self.statements = 0  #: statements run so far
        self.crash_after: int | None = None  #: fault injection: SIGKILL before statement N
        with self._checked():
            if path != ":memory:":
                self.db.execute("PRAGMA journal_mode=WAL")
                # a damaged file or index would answer wrongly (no READY task, for ever):
                # integrity_check also compares every index with its table (quick_check
                # does not); about 0.2 s per 100,000 tasks, once per connection
                bad = [str(r[0]) for r in
                       self.db.execute("PRAGMA integrity_check(3)").fetchall()]
                if bad != ["ok"]:
                    raise sqlite3.DatabaseError("; ".join(bad[:3]))
            self.db.execute(f"PRAGMA synchronous={synchronous.upper()}")
            with self.transaction():
                for stmt in SCHEMA.split(";"):
                    if stmt.strip():
                        self.db.execute(stmt)
                have = {r[1] for r in self.db.execute("PRAGMA table_info(dtask)")}
                for name, kind in _LATER_COLUMNS:  # a store written by an older version
                    if name not in have:
                        self.db.execute(f"ALTER TABLE dtask ADD COLUMN {name} {kind}")
                self.db.execute(_SLOT_INDEX)

    @contextlib.contextmanager
    def _checked(self) -> Iterator[None]:
        """A damaged file (not a database, a malformed page or index) as a
        :class:`StoreError` naming the file."""
        try:
            yield
        except sqlite3.DatabaseError as exc:
            if isinstance(exc, sqlite3.OperationalError) and "locked" in str(exc):
                raise
            self.db.close()
            raise StoreError(f"the SQLite store {os.path.abspath(self.path)!r} is damaged "
                             f"({exc}); restore it from a backup") from exc

    @contextlib.contextmanager
    def transaction(self, *, changing: bool = True, shared: bool = False) -> Iterator[None]:
        self.db.execute("BEGIN IMMEDIATE" if changing else "BEGIN")
        try:
            yield
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")

    def execute(self, sql: str, args: Sequence[Any] = ()) -> int:
        _count(self)
        with self._damage():
            return self.db.execute(sql, tuple(args)).rowcount

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        with self._damage():
            self.db.executemany(sql, [tuple(r) for r in rows])

    def rows(self, sql: str, args: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        _count(self)
        with self._damage():
            return [tuple(r) for r in self.db.execute(sql, tuple(args)).fetchall()]

    @contextlib.contextmanager
    def _damage(self) -> Iterator[None]:
        """A page found damaged while working: :class:`StoreError` naming the file."""
        try:
            yield
        except sqlite3.DatabaseError as exc:
            if type(exc) is sqlite3.DatabaseError or "malformed" in str(exc):
                raise StoreError(f"the SQLite store {os.path.abspath(self.path)!r} is damaged "
                                 f"({exc}); restore it from a backup") from exc
            raise

    def close(self) -> None:
        self.db.close()


_PLACEHOLDER = re.compile(r"\?")

class PostgresStore:
    """One psycopg 3 connection; the tables in schema ``schema``."""

    kind = "postgresql"
    token_counter = "(SELECT last_value FROM dtoken)"
    row_lock = " FOR UPDATE"

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
        try:
            self.db = psycopg.connect(url, autocommit=True, connect_timeout=10)
        except psycopg.Error as exc:  # ProgrammingError: a malformed URL
            if permanent_error(exc) or isinstance(exc, psycopg.ProgrammingError):
                raise StoreError(f"PostgreSQL refused {_safe(url)}: {_first_line(exc)}") from exc
            raise
        self.statements = 0
        self.crash_after: int | None = None
        #: fault injection: SIGKILL the server process of this connection (the store process)
        #: just before statement N, once; the server then ends every other session and recovers
        self.kill_server_after: int | None = None
        self._lock = _LOCK_BASE ^ (hash_text(schema) & 0xFFFFFF)
        self.db.execute(f"CREATE SCHEMA IF NOT EXISTS {schema}")
        self.db.execute(f"SET search_path TO {schema}")
        # The store's statements reach a few rows through indexes. Between two vacuums those
        # indexes are full of entries of rows that left the state looked for: a plain index
        # scan stops early and marks them dead for the next scan, a bitmap scan visits them all
        # at every call. And no parameter changes a statement's best plan, but the planner
        # would re-plan several of them at every call (an array or a LIMIT as a parameter makes
        # the generic plan look dearer than it is): one plan each, kept.
        self.db.execute("SET enable_bitmapscan = off")
        self.db.execute("SET plan_cache_mode = force_generic_plan")
        with self.transaction():
            for stmt in SCHEMA.split(";"):
                if stmt.strip():
                    self.db.execute(stmt)
            self.db.execute("CREATE SEQUENCE IF NOT EXISTS dtoken")
            for name, kind in _LATER_COLUMNS:  # a store written by an older version
                self.db.execute(f"ALTER TABLE dtask ADD COLUMN IF NOT EXISTS {name} {kind}")
            self.db.execute(_SLOT_INDEX)
            for function in FUNCTIONS:
                self.db.execute(function)

    @contextlib.contextmanager
    def transaction(self, *, changing: bool = True, shared: bool = False) -> Iterator[None]:
        """A changing transaction holds the advisory lock EXCLUSIVE (no claim or completion of
        the shared-lock functions runs beside it), or SHARED with ``shared`` (a renewal: it
        locks the one row it changes)."""
        # BEGIN and the lock in one round trip (no parameters: the simple query protocol)
        lock = "pg_advisory_xact_lock_shared" if shared else "pg_advisory_xact_lock"
        begin = f"BEGIN; SELECT {lock}({int(self._lock)})" if changing else "BEGIN"
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

    def server_now(self) -> float:
        """The server's clock (seconds since the epoch), read now: the one clock of every
        process that shares this store (specs/durable.md L6)."""
        _count(self)
        row = self.db.execute("SELECT extract(epoch FROM clock_timestamp())::float8").fetchone()
        assert row is not None
        return float(row[0])

    def tokens(self, n: int) -> list[int]:
        """The next ``n`` fencing tokens, ascending (from the sequence ``dtoken``)."""
        _count(self)
        rows = self.db.execute("SELECT nextval('dtoken') FROM generate_series(1, %s)",
                               (n,)).fetchall()
        return sorted(int(r[0]) for r in rows)

    def complete_fast(self, key: str, gen: int, token: int | None) -> bool:
        """Rule 4's APPLIED case in one round trip (``dcomplete`` in ``_pgsql``); False: not
        that case, decide the reply the ordinary way."""
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

    def claim_fast(self, limit: int | None, now: float | None, lease: float,
                   max_concurrency: int) -> list[tuple[Any, ...]] | None:
        """Rule 3 in one round trip when nothing is to be reclaimed (``dclaim_at`` in
        ``_pgsql``): the claimed (id, gen, fn, token, expires) rows, in token order; None:
        take the ordinary path. ``now`` None: the server's clock, read once the claim holds
        its lock."""
        _count(self)
        rows = self.db.execute("SELECT * FROM dclaim_at(%s, %s, %s, %s, %s)",
                               (limit, now, lease, max_concurrency, self._lock)).fetchall()
        if rows and rows[0][0] is None:
            return None
        return sorted((tuple(r) for r in rows), key=lambda r: int(r[3]))

    def reset(self) -> None:
        """Delete every row of this store (its tables stay) and start its tokens again at 1: a
        fresh, empty scheduler."""
        with self.transaction():
            for table in ("dedge", "dtask", "dmeta", "dslot"):
                self.db.execute(f"DELETE FROM {table}")
            self.db.execute("ALTER SEQUENCE dtoken RESTART")

    def drop(self) -> None:
        """Remove this store's schema and every row in it."""
        self.db.execute(f"DROP SCHEMA IF EXISTS {self.schema} CASCADE")

    def close(self) -> None:
        self.db.close()


def _count(store: Any) -> None:
    """Count a statement; with ``crash_after`` set (fault injection for the crash tests), the
    process kills itself with SIGKILL just before that statement -- inside a transaction; with
    ``kill_server_after`` (PostgreSQL) it kills the server process it talks to instead: the
    statement then fails with ``psycopg.OperationalError``."""
    store.statements += 1
    if store.crash_after is not None and store.statements >= store.crash_after:
        os.kill(os.getpid(), signal.SIGKILL)
    kill = getattr(store, "kill_server_after", None)
    if kill is not None and store.statements >= kill:
        store.kill_server_after = None
        os.kill(store.db.info.backend_pid, signal.SIGKILL)


def connection_lost(exc: BaseException) -> bool:
    """Whether ``exc`` says the store's server went away or refused the session (a PostgreSQL
    server that was killed or restarted, or is still recovering): the transaction in flight was
    rolled back or, if its commit had been written, stands -- a new connection can go on."""
    psycopg = sys.modules.get("psycopg")
    return (psycopg is not None and isinstance(exc, psycopg.OperationalError)
            and not permanent_error(exc))


#: what a PostgreSQL server (or libpq) says when waiting cannot help: a wrong role or
#: password, an unknown database or host, a refused address. A server down, starting,
#: recovering or shutting down is not among them: a worker waits for it.
_PERMANENT = ("authentication failed", "does not exist", "could not translate host name",
              "no pg_hba.conf entry", "name or service not known", "invalid dsn",
              "invalid connection option", "permission denied", "no password supplied")


def permanent_error(exc: BaseException) -> bool:
    """Whether a connection error is one that retrying cannot cure (see ``_PERMANENT``)."""
    if isinstance(exc, StoreError):
        return True
    psycopg = sys.modules.get("psycopg")
    if psycopg is None or not isinstance(exc, psycopg.Error):
        return False
    if not isinstance(exc, psycopg.OperationalError):
        return False
    text = str(exc).lower()
    if "starting up" in text or "shutting down" in text or "recovery" in text:
        return False
    return any(p in text for p in _PERMANENT)


def _first_line(exc: BaseException) -> str:
    lines = [ln.strip() for ln in str(exc).splitlines() if ln.strip()]
    fatal = [ln for ln in lines if "FATAL" in ln or "failed" in ln]
    return (fatal or lines or [type(exc).__name__])[-1]


def _safe(url: str) -> str:
    """The URL without its password."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.replace(f":{parts.password}@", ":***@")
    return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))


def hash_text(text: str) -> int:
    """A stable small hash (Python's ``hash`` of a str changes between processes)."""
    h = 0
    for ch in text.encode():
        h = (h * 131 + ch) & 0xFFFFFFFF
    return h


def open_store(url: str, *, create: bool = False) -> SqliteStore | PostgresStore:
    """``sqlite:///file`` / ``sqlite://`` (in memory) / ``postgresql://...``; query
    parameters: ``synchronous=NORMAL|FULL`` (SQLite), ``schema=name`` (PostgreSQL). A SQLite
    file that does not exist is made only with ``create`` (else :class:`StoreError`)."""
    if not isinstance(url, str):
        raise TypeError(f"url must be a str such as 'sqlite:///tasks.db', got "
                        f"{type(url).__name__} {url!r}")
    parts = urlsplit(url)
    query = {k: v[-1] for k, v in parse_qs(parts.query).items()}
    if parts.scheme == "sqlite":
        path = parts.path[1:] if parts.path.startswith("/") else parts.path
        return SqliteStore(path or ":memory:", synchronous=query.get("synchronous", "NORMAL"),
                           url=url, create=create)
    if parts.scheme in ("postgresql", "postgres"):
        schema = query.pop("schema", "schedcheck")
        rest = "&".join(f"{k}={v}" for k, v in query.items())
        plain = urlunsplit((parts.scheme, parts.netloc, parts.path, rest, parts.fragment))
        return PostgresStore(plain, schema=schema)
    raise ValueError(f"unknown store {url!r}: use sqlite:///path/to/file.db, sqlite:// (in "
                     "memory) or postgresql://user@host:port/db")
