"""The durable scheduler: the contract of specs/scheduler.md kept in a database shared by many
worker processes, plus leases (specs/durable.md).

Every call is one transaction (SQLite ``BEGIN IMMEDIATE``; PostgreSQL a transaction under one
advisory lock: SHARED for the claim and the applied completion, which run side by side as
server-side functions, and for the renewal; EXCLUSIVE for every other changing call). The
exact concurrency limit holds across processes through ``max_concurrency`` slots: a claim
takes free slots (on PostgreSQL it locks their rows ``FOR UPDATE SKIP LOCKED`` and then checks
them again, so two claimers never take one) and makes a task RUNNING only with a slot of its
own; every transition out of RUNNING frees it in the same statement (specs/durable.md L7).
Nothing of the graph is kept in memory between calls; each call reads only the rows it needs
through the primary key, the ``(state, seq)`` index and the reverse-edge index (``start()``
reads the whole graph once for its cycle check).

Leases (specs/durable.md L1..L7): ``ready()`` grants each claim a *fencing token* (one counter
per store -- on PostgreSQL a sequence -- so a later claim always has a larger token) and an
expiry ``now + lease_seconds``; ``renew(id, generation, token)`` extends it. The next
``ready()`` after a lease expired first *reclaims* it: the task gets a new generation, READY
again (or PENDING/BLOCKED as rule 1 says), FAILED once ``max_attempts`` claims have expired,
CANCELLED if a cancel was requested. The old worker's ``complete``/``fail`` then names an old
generation and gets STALE -- never APPLIED. Execution is at-least-once: the old worker may
still be running when the new one starts.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable, Hashable, Iterable, Sequence
from typing import Any

from schedcheck.impl.durable._batch import complete_many
from schedcheck.impl.durable._records import (
    _BLOCK,
    _COLS,
    _DEAD_NAMES,
    _OUTSTANDING,
    _TABLE,
    BLK,
    CAN,
    FAILED,
    OK,
    RUN,
    DurableClaim,
    DurableDetails,
    P,
    R,
    Renewal,
    _encode_error,
    _find_cycle,
    _fn_name,
    _parse_deps,
    _resolve,
    _Row,
    check_fn_name,
    retry_delay,
)
from schedcheck.impl.durable._store import (
    PostgresStore,
    SqliteStore,
    decode_id,
    encode_id,
    open_store,
)

from schedcheck.contract import (
    Cause,
    ClosedError,
    ConflictError,
    CycleError,
    NotStartedError,
    Outcome,
    Reply,
    TaskState,
    UnknownDependencyError,
    UnknownTaskError,
    require_hashable,
    require_int,
)

__all__ = ["DurableClaim", "DurableDetails", "DurableScheduler", "Renewal"]

class DurableScheduler:
    """The scheduler contract over ``sqlite:///file`` (default, embedded), ``sqlite://`` (in
    memory) or ``postgresql://...`` (psycopg 3), with leases.

    The lease clock is read once per changing call, inside its transaction: on PostgreSQL the
    server's (``clock_timestamp()``, so the workers' own clocks never matter), on SQLite this
    machine's ``time.time`` (every process shares it: one machine). ``clock`` replaces it
    (tests move time by hand); every process sharing a store must then use that same clock.
    ``max_attempts`` claims of one submit may expire before the task is FAILED. A SQLite file
    that does not exist is made only with ``create=True``. One object per thread; share the
    store.
    """

    def __init__(self, url: str | SqliteStore | PostgresStore = "sqlite://",
                 max_concurrency: int = 1,
                 lease_seconds: float = 30.0, *, clock: Callable[[], float] | None = None,
                 max_attempts: int = 5, retry_backoff: float = 1.0,
                 create: bool = False) -> None:
        self.max_concurrency = require_int(max_concurrency, "max_concurrency", minimum=0)
        if isinstance(lease_seconds, bool) or not isinstance(lease_seconds, (int, float)):
            raise TypeError(f"lease_seconds must be a number of seconds, got "
                            f"{type(lease_seconds).__name__} {lease_seconds!r}")
        if not (lease_seconds > 0 and math.isfinite(lease_seconds)):
            raise ValueError(f"lease_seconds must be > 0 and finite, got {lease_seconds!r}")
        self.lease_seconds = float(lease_seconds)
        self.max_attempts = require_int(max_attempts, "max_attempts", minimum=1)
        if isinstance(retry_backoff, bool) or not isinstance(retry_backoff, (int, float)) or \
                not (retry_backoff >= 0 and math.isfinite(retry_backoff)):
            raise ValueError(f"retry_backoff must be >= 0 seconds, got {retry_backoff!r}")
        self.retry_backoff = float(retry_backoff)
        self.clock = clock
        # an open store is shared as it is (tests reuse one connection for many schedulers)
        self._owns_store = not isinstance(url, (SqliteStore, PostgresStore))
        self.store = (url if isinstance(url, (SqliteStore, PostgresStore))
                      else open_store(url, create=create))
        self.url = self.store.url
        #: the functions submitted by this process (a claim of them runs the object itself)
        self._fns: dict[str, Callable[..., Any] | None] = {}
        with self.store.transaction():
            stored = self._meta("max_concurrency")
            if stored is None:
                self._set_meta("max_concurrency", str(self.max_concurrency))
            if stored is None or int(stored) == self.max_concurrency:
                self._ensure_slots()
        if stored is not None and int(stored) != self.max_concurrency:
            self.disconnect()
            raise ValueError(f"the store {self.url!r} was created with max_concurrency="
                             f"{stored}; open it with that value (the limit is global)")

    # ---- helpers (inside a transaction) --------------------------------------------------

    def _now(self) -> float:
        """The lease clock (L6): ``clock`` when given, else the server's on PostgreSQL and
        ``time.time`` on SQLite."""
        if self.clock is not None:
            return float(self.clock())
        if isinstance(self.store, PostgresStore):
            return self.store.server_now()
        return time.time()

    def _ensure_slots(self) -> None:
        """``max_concurrency`` slot rows (L7), one held by each RUNNING task: a new store, or
        one written before slots were kept, gets them here."""
        if int(self.store.rows("SELECT COUNT(*) FROM dslot")[0][0]) == self.max_concurrency:
            return
        self.store.execute("DELETE FROM dslot")
        self.store.execute("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n "
                           "WHERE i < ?) INSERT INTO dslot (slot) SELECT i FROM n WHERE i <= ?",
                           (self.max_concurrency, self.max_concurrency))
        running = self.store.rows(f"SELECT id FROM dtask WHERE state = '{RUN}' ORDER BY seq")
        self.store.executemany("UPDATE dtask SET slot = ? WHERE id = ?",
                               [(i, k) for i, (k,) in enumerate(running, 1)])

    def _tokens(self, metas: dict[str, str], n: int) -> list[int]:
        """The next ``n`` fencing tokens, ascending (L2)."""
        if isinstance(self.store, PostgresStore):
            return self.store.tokens(n)
        first = self._next("token", metas, n)
        return list(range(first, first + n))

    def _meta(self, key: str) -> str | None:
        rows = self.store.rows("SELECT value FROM dmeta WHERE key = ?", (key,))
        return None if not rows else str(rows[0][0])

    def _set_meta(self, key: str, value: str) -> None:
        self.store.execute("INSERT INTO dmeta (key, value) VALUES (?, ?) ON CONFLICT (key) "
                           "DO UPDATE SET value = excluded.value", (key, value))

    def _metas(self) -> dict[str, str]:
        """Every meta value in one read (flags ``started``/``closed``, counters)."""
        return {str(k): str(v) for k, v in self.store.rows("SELECT key, value FROM dmeta")}

    def _flag(self, key: str) -> bool:
        return self._meta(key) == "1"

    def _next(self, key: str, metas: dict[str, str], n: int = 1) -> int:
        """Advance the counter ``key`` (read in ``metas``) by ``n``; its first new value."""
        last = int(metas.get(key) or 0)
        self._set_meta(key, str(last + n))
        return last + 1

    def _row(self, key: str) -> _Row | None:
        rows = self.store.rows(f"SELECT {_COLS} FROM dtask WHERE id = ?", (key,))
        return None if not rows else _Row(*rows[0])

    def _get(self, task_id: object) -> _Row:
        require_hashable(task_id, "task_id")
        row = self._row(encode_id(task_id))
        if row is None:
            raise UnknownTaskError(task_id)
        return row

    def _blocking_cause(self, deps: list[str]) -> Cause | None:
        """Rule 1: the cause from the first dead dependency in deps order."""
        for d in deps:
            row = self._row(d)
            if row is not None and row.state in _DEAD_NAMES:
                if row.state == FAILED:
                    return Cause("failed", decode_id(d), int(row.gen))
                return row.cause()
        return None

    def _block_from(self, key: str, cause: Cause) -> None:
        self.store.execute(_BLOCK, (key, cause.kind, encode_id(cause.task_id),
                                    cause.generation))

    def _settle(self, key: str) -> None:
        """A PENDING/READY task is READY iff every dependency SUCCEEDED (rules 1, 4, 7)."""
        self.store.execute(f"UPDATE dtask SET state = CASE WHEN {_OUTSTANDING} THEN '{P}' "
                           f"ELSE '{R}' END WHERE id = ? AND state IN ('{P}', '{R}')", (key,))

    def _decide(self, key: str, deps: list[str]) -> None:
        """A fresh generation: BLOCKED by a dead dependency (and its dependents with it), else
        READY/PENDING."""
        cause = self._blocking_cause(deps)
        if cause is not None:
            self.store.execute("UPDATE dtask SET state = ?, cause_kind = ?, cause_id = ?, "
                               "cause_gen = ? WHERE id = ?",
                               (BLK, cause.kind, encode_id(cause.task_id), cause.generation,
                                key))
            self._block_from(key, cause)
        else:
            self._settle(key)

    def _deps_of(self, key: str) -> list[str]:
        row = self._row(key)
        return [] if row is None else row.dep_keys()

    # ---- rule 1 / 7: submit --------------------------------------------------------------

    def submit(self, task_id: Hashable, deps: Iterable[Hashable] = (),
               fn: Callable[..., Any] | str | None = None, *,
               max_attempts: int | None = None) -> int:
        """Rule 1 (rule 7 for a known id): the new generation. ``fn`` is stored by its import
        name ``module:qualname`` (another process imports it by that name; this process keeps
        the object too); a name given as a str (``"mypkg.jobs:run"``) must import now, else
        ``ValueError`` and nothing is submitted. ``max_attempts``: this task's own limit of
        claims per submit (L8; default the store's)."""
        require_hashable(task_id, "task_id")
        if max_attempts is not None:
            require_int(max_attempts, "max_attempts", minimum=1)
        dep_ids = _parse_deps(deps, task_id)
        if isinstance(fn, str):
            try:
                check_fn_name(fn)
            except ValueError as exc:
                raise ValueError(f"cannot submit {task_id!r}: {exc}") from None
        elif fn is not None and not callable(fn):
            raise TypeError(f"fn of {task_id!r} must be callable, a 'module:callable' name "
                            f"or None, got {type(fn).__name__} {fn!r}")
        key = encode_id(task_id)
        dep_keys = [encode_id(d) for d in dep_ids]
        with self.store.transaction():
            metas = self._metas()
            if metas.get("closed") == "1":
                raise ClosedError(f"cannot submit {task_id!r}: the scheduler is closed")
            old = self._row(key)
            if old is not None and old.state == RUN:
                raise ConflictError(task_id, int(old.gen))
            if metas.get("started") == "1":
                self._validate_edges(task_id, key, dep_ids, dep_keys)
            seq = self._next("seq", metas)
            gen = 1 if old is None else int(old.gen) + 1
            deps_json = json.dumps(dep_keys)
            name = _fn_name(fn)
            if old is None:
                self.store.execute(
                    "INSERT INTO dtask (id, seq, gen, state, deps, fn, max_attempts) VALUES "
                    "(?, ?, ?, ?, ?, ?, ?)", (key, seq, gen, P, deps_json, name, max_attempts))
            else:
                self.store.execute(
                    "UPDATE dtask SET seq = ?, gen = ?, state = ?, deps = ?, fn = ?, "
                    "requested = 0, cause_kind = NULL, cause_id = NULL, cause_gen = NULL, "
                    "error = NULL, token = NULL, expires = NULL, attempts = 0, not_before = NULL, "
                    "max_attempts = ?, result = NULL WHERE id = ?",
                    (seq, gen, P, deps_json, name, max_attempts, key))
                self.store.execute("DELETE FROM dedge WHERE dependent = ?", (key,))
            self.store.executemany("INSERT INTO dedge (dep, dependent) VALUES (?, ?)",
                                   [(d, key) for d in dep_keys])
            self._decide(key, dep_keys)
            # the new generation has not SUCCEEDED: READY dependents wait again (rule 7)
            self.store.execute(f"UPDATE dtask SET state = '{P}' WHERE state = '{R}' AND id IN "
                               "(SELECT dependent FROM dedge WHERE dep = ?)", (key,))
        self._fns[key] = None if isinstance(fn, str) else fn
        return gen

    def _validate_edges(self, task_id: Any, key: str, dep_ids: list[Any],
                        dep_keys: list[str]) -> None:
        """Rule 7 after start: known dependencies (or itself) and no cycle through the new
        edges (a depth-first walk that reads only the rows it reaches)."""
        missing = [d for d, k in zip(dep_ids, dep_keys)
                   if k != key and self._row(k) is None]
        if missing:
            raise UnknownDependencyError(task_id, missing)

        def edges(x: str) -> list[str]:
            ds = dep_keys if x == key else self._deps_of(x)
            return [d for d in ds if d == key or self._row(d) is not None]

        cycle = _find_cycle([key], edges)
        if cycle is not None:
            raise CycleError([decode_id(k) for k in cycle])

    # ---- rule 2: start -------------------------------------------------------------------

    def start(self) -> None:
        """Rule 2: unknown dependencies (first task in submission sequence), then cycles."""
        with self.store.transaction():
            if self._flag("started"):
                return
            if self._flag("closed"):
                raise ClosedError("cannot start(): the scheduler was closed before it started")
            rows = self.store.rows(
                "SELECT t.id, t.deps FROM dtask t WHERE EXISTS (SELECT 1 FROM dedge e LEFT "
                "JOIN dtask d ON d.id = e.dep WHERE e.dependent = t.id AND d.id IS NULL) "
                "ORDER BY t.seq LIMIT 1")
            if rows:
                key, deps = rows[0]
                missing = [decode_id(d) for d in json.loads(deps) if self._row(d) is None]
                raise UnknownDependencyError(decode_id(key), missing)
            graph = {k: json.loads(d) for k, d in
                     self.store.rows("SELECT id, deps FROM dtask ORDER BY seq")}
            cycle = _find_cycle(list(graph), lambda x: list(graph[x]))
            if cycle is not None:
                raise CycleError([decode_id(k) for k in cycle])
            self._set_meta("started", "1")

    # ---- rule 3 and the leases: ready / renew --------------------------------------------

    def ready(self, limit: int | None = None) -> list[DurableClaim]:
        """Rule 3 with leases: first reclaim every expired lease (L4), then claim READY tasks in
        submission sequence up to the free slots (and ``limit``), each with a fencing token
        and an expiry ``now + lease_seconds``."""
        if limit is not None:
            require_int(limit, "limit", minimum=0)
        if isinstance(self.store, PostgresStore):  # one round trip when nothing expired
            now = None if self.clock is None else float(self.clock())
            fast = self.store.claim_fast(limit, now, self.lease_seconds, self.max_concurrency)
            if fast is not None:
                return [DurableClaim(decode_id(k), int(g), self._fns.get(k) or _resolve(name),
                                     int(tok), float(exp)) for k, g, name, tok, exp in fast]
        with self.store.transaction():
            metas = self._metas()
            if metas.get("started") != "1":
                raise NotStartedError("ready() before start(): call start() first")
            if metas.get("closed") == "1":
                return []
            now = self._now()
            self._reclaim(now)
            n = self.max_concurrency if limit is None else min(limit, self.max_concurrency)
            if n <= 0:
                return []
            # the free slots: max_concurrency - count(RUNNING) of them (L7)
            slots = [int(s) for (s,) in self.store.rows(
                "SELECT s.slot FROM dslot s WHERE NOT EXISTS (SELECT 1 FROM dtask t WHERE "
                "t.slot = s.slot) ORDER BY s.slot LIMIT ?", (n,))]
            if not slots:
                return []
            # a retried task waits for its not_before (L8)
            rows = self.store.rows(f"SELECT id, gen, fn FROM dtask WHERE state = '{R}' AND "
                                   "(not_before IS NULL OR not_before <= ?) ORDER BY seq LIMIT ?",
                                   (now, len(slots)))
            if not rows:
                return []
            tokens = self._tokens(metas, len(rows))
            expires = now + self.lease_seconds
            self.store.executemany(
                f"UPDATE dtask SET state = '{RUN}', token = ?, expires = ?, slot = ?, "
                f"attempts = attempts + 1, not_before = NULL WHERE id = ? AND state = '{R}'",
                [(tok, expires, slot, key) for tok, slot, (key, _, _) in
                 zip(tokens, slots, rows)])
            return [DurableClaim(decode_id(key), int(gen), self._fns.get(key) or _resolve(name),
                                 tok, expires) for tok, (key, gen, name) in zip(tokens, rows)]

    def _reclaim(self, now: float) -> None:
        """L4: every RUNNING generation whose lease ended before ``now`` becomes a new
        generation, in submission sequence: CANCELLED if a cancel was requested, FAILED after
        ``max_attempts`` expired claims, else decided by rule 1 (READY when its dependencies
        still hold). The stamp is kept: a reclaimed task goes back to its place in the queue."""
        rows = self.store.rows(f"SELECT id, gen, requested, attempts, deps, max_attempts FROM "
                               f"dtask WHERE state = '{RUN}' AND expires < ? ORDER BY seq",
                               (now,))
        for key, gen, requested, attempts, deps, most in rows:
            new = int(gen) + 1
            base = ("UPDATE dtask SET gen = ?, state = ?, requested = 0, token = NULL, "
                    "expires = NULL, slot = NULL, error = ?, cause_kind = ?, cause_id = ?, "
                    "cause_gen = ? WHERE id = ?")
            if requested:
                self.store.execute(base, (new, CAN, None, "cancelled", key, new, key))
                self._block_from(key, Cause("cancelled", decode_id(key), new))
            elif int(attempts) >= (self.max_attempts if most is None else int(most)):
                error = json.dumps(f"lease expired {attempts} times")
                self.store.execute(base, (new, FAILED, error, None, None, None, key))
                self._block_from(key, Cause("failed", decode_id(key), new))
            else:
                self.store.execute(base, (new, P, None, None, None, None, key))
                self._decide(key, json.loads(deps))

    def renew(self, task_id: Hashable, generation: int, token: int) -> Renewal:
        """L3: extend a held lease to ``now + lease_seconds``. STALE when the generation is not
        current or the token is not the current claim's; REJECTED when the generation is no
        longer RUNNING. A lease that expired but was not reclaimed yet can still be renewed
        (nobody else holds the task)."""
        g = require_int(generation, "generation")
        tok = require_int(token, "token")
        require_hashable(task_id, "task_id")
        # beside claims and completions (they never move a RUNNING task's lease; a completion
        # of this task waits for the row lock, or is waited for); a reclaim runs alone
        with self.store.transaction(shared=True):
            rows = self.store.rows(f"SELECT {_COLS} FROM dtask WHERE id = ?"
                                   f"{self.store.row_lock}", (encode_id(task_id),))
            if not rows:
                raise UnknownTaskError(task_id)
            row = _Row(*rows[0])
            state = TaskState[row.state]
            if g != row.gen or (row.state == RUN and tok != row.token):
                return Renewal(Outcome.STALE, state, None)
            if row.state != RUN:
                return Renewal(Outcome.REJECTED, state, None)
            expires = self._now() + self.lease_seconds
            self.store.execute("UPDATE dtask SET expires = ? WHERE id = ?", (expires, row.id))
            return Renewal(Outcome.APPLIED, state, expires)

    # ---- rules 4-6: the table, fenced ----------------------------------------------------

    def _apply(self, call: str, task_id: Hashable, generation: int | None,
               token: int | None = None, error: Any = None, *, retry: bool = False,
               result: Any = None) -> Reply:
        g = None if generation is None else require_int(generation, "generation")
        tok = None if token is None else require_int(token, "token")
        with self.store.transaction():
            row = self._get(task_id)
            if retry and self._retries(row, g, tok):
                return self._retry(row, error)
            return self._apply_row(call, task_id, row, g, tok, error, result)

    def _retries(self, row: _Row, g: int | None, tok: int | None) -> bool:
        """L8: a fail with ``retry`` of the current claim (its generation; its token when
        given), no cancel requested, attempts left, not closed."""
        most = self.max_attempts if row.max_attempts is None else int(row.max_attempts)
        return (row.state == RUN and g == row.gen and not row.requested
                and (tok is None or tok == row.token) and int(row.attempts) < most
                and not self._flag("closed"))  # after close() nothing is claimed again

    def _retry(self, row: _Row, error: Any) -> Reply:
        """L8: the failed claim ends, the task gets a new generation decided by rule 1 and
        waits ``retry_delay`` before a claim may take it; the error stays visible."""
        assert row.token is not None
        not_before = self._now() + retry_delay(self.retry_backoff, int(row.attempts),
                                               int(row.token))
        self.store.execute(
            "UPDATE dtask SET gen = ?, state = ?, requested = 0, token = NULL, expires = NULL, "
            "slot = NULL, error = ?, cause_kind = NULL, cause_id = NULL, cause_gen = NULL, "
            "not_before = ? WHERE id = ?",
            (int(row.gen) + 1, P, _encode_error(error), not_before, row.id))
        self._decide(row.id, row.dep_keys())
        return Reply(Outcome.APPLIED, TaskState[str(self._row(row.id).state)])  # type: ignore[union-attr]

    def _apply_here(self, call: str, task_id: Hashable, g: int | None, tok: int | None,
                    error: Any) -> Reply:
        """The table of rules 4-6, fenced (L5), inside the caller's transaction."""
        return self._apply_row(call, task_id, self._get(task_id), g, tok, error)

    def _apply_row(self, call: str, task_id: Hashable, row: _Row, g: int | None,
                   tok: int | None, error: Any, result: Any = None) -> Reply:
        """``_apply_here`` once the task's row is read (the writes; nothing here raises an
        error of the contract)."""
        if g is not None and g != row.gen:
            return Reply(Outcome.STALE, TaskState[row.state])
        if tok is not None and row.state == RUN and tok != row.token:
            return Reply(Outcome.STALE, TaskState[row.state])  # L5: fenced
        hit = _TABLE.get((call, row.state, bool(row.requested)))
        if hit is None:
            return Reply(Outcome.REJECTED, TaskState[row.state])
        outcome, nxt = hit
        key, gen = row.id, int(row.gen)
        if outcome is Outcome.REQUESTED:
            self.store.execute("UPDATE dtask SET requested = 1 WHERE id = ?", (key,))
        elif outcome is Outcome.APPLIED:
            cause = Cause("cancelled", task_id, gen) if nxt == CAN else None
            self.store.execute(
                "UPDATE dtask SET state = ?, token = NULL, expires = NULL, slot = NULL, "
                "cause_kind = ?, cause_id = ?, cause_gen = ?, error = ?, result = ? WHERE id = ?",
                (nxt, None if cause is None else "cancelled",
                 None if cause is None else key, None if cause is None else gen,
                 _encode_error(error) if call == "fail" else row.error,
                 _encode_error(result) if nxt == OK else row.result, key))
            if nxt == OK:
                self.store.execute(
                    f"UPDATE dtask SET state = '{R}' WHERE state = '{P}' AND id IN "
                    f"(SELECT dependent FROM dedge WHERE dep = ?) AND NOT {_OUTSTANDING}",
                    (key,))
            else:
                self._block_from(key, cause or Cause("failed", task_id, gen))
        return Reply(outcome, TaskState[nxt])

    def complete(self, task_id: Hashable, generation: int, token: int | None = None, *,
                 result: Any = None) -> Reply:
        """Rule 4, fenced (L5): with ``token``, a claim that is not the current one is STALE.
        ``result`` (JSON, else its repr) is kept with the task and shown by ``info()`` (L8).
        On PostgreSQL the APPLIED case without a result is one server-side call; any other
        case takes the ordinary path (a later transaction: the call takes effect there)."""
        g = require_int(generation, "generation")
        if result is not None:
            return self._apply("complete", task_id, g, token, result=result)
        if isinstance(self.store, PostgresStore) and (token is None or (
                isinstance(token, int) and not isinstance(token, bool))):
            require_hashable(task_id, "task_id")
            if self.store.complete_fast(encode_id(task_id), g, token):
                return Reply(Outcome.APPLIED, TaskState.SUCCEEDED)
        return self._apply("complete", task_id, g, token)

    def complete_many(self, reports: Iterable[Sequence[Any]]) -> list[Reply]:
        """Rule 4 for several reports in one transaction, each a ``DurableClaim`` (fenced by
        its token), a ``Claim`` or ``(task_id, generation[, token])``; each reply is what
        ``complete`` would answer at that point (the details: ``_batch.complete_many``)."""
        return complete_many(self, reports)

    def fail(self, task_id: Hashable, generation: int, error: Any = None,
             token: int | None = None, *, retry: bool = False) -> Reply:
        """Rule 5, fenced as complete is. With ``retry`` (L8), a task with attempts left gets
        a new generation that waits a backoff (``info().not_before``) instead: the reply is
        APPLIED with that generation's state (READY, PENDING or BLOCKED)."""
        return self._apply("fail", task_id, require_int(generation, "generation"), token,
                           error, retry=retry)

    def cancel(self, task_id: Hashable, generation: int | None = None) -> Reply:
        """Rule 6: PENDING/READY -> CANCELLED; RUNNING -> a request (cooperative)."""
        return self._apply("cancel", task_id, generation)

    def cancel_requested(self, task_id: Hashable, generation: int) -> bool:
        g = require_int(generation, "generation")
        row = self._get(task_id)
        return g == row.gen and bool(row.requested)

    # ---- rule 8: close -------------------------------------------------------------------

    def close(self) -> list[Any]:
        """Rule 8: PENDING/READY -> CANCELLED (shutdown), in submission sequence; RUNNING
        tasks may still report."""
        with self.store.transaction():
            if self._flag("closed"):
                return []
            self._set_meta("closed", "1")
            rows = self.store.rows(f"SELECT id FROM dtask WHERE state IN ('{P}', '{R}') "
                                   "ORDER BY seq")
            self.store.execute(f"UPDATE dtask SET state = '{CAN}', cause_kind = 'shutdown', "
                               f"cause_id = id, cause_gen = gen WHERE state IN ('{P}', '{R}')")
        return [decode_id(k) for (k,) in rows]

    # ---- reading -------------------------------------------------------------------------

    def info(self, task_id: Hashable) -> DurableDetails:
        row = self._get(task_id)
        out = DurableDetails(decode_id(row.id), int(row.gen), TaskState[row.state], row.cause())
        out.error = None if row.error is None else json.loads(row.error)
        out.optional_failed = ()
        out.attempts = int(row.attempts)
        out.token = None if row.token is None else int(row.token)
        out.expires = None if row.expires is None else float(row.expires)
        waiting = row.state in (P, R) and row.not_before is not None
        out.not_before = float(row.not_before) if waiting else None  # type: ignore[arg-type]
        out.result = None if row.result is None or row.state != OK else json.loads(row.result)
        return out

    def state_of(self, task_id: Hashable) -> TaskState:
        return self.info(task_id).state

    def task_ids(self) -> list[Any]:
        """Every id, in the order of its current submission stamp."""
        return [decode_id(k) for (k,) in self.store.rows("SELECT id FROM dtask ORDER BY seq")]

    def counts(self) -> dict[str, int]:
        """How many tasks are in each state."""
        return {s: int(n) for s, n in
                self.store.rows("SELECT state, COUNT(*) FROM dtask GROUP BY state")}

    def check_invariants(self) -> None:
        """The invariants of specs/scheduler.md section 4 and the lease rules of
        specs/durable.md as SQL queries over the store (see ``invariants``)."""
        from schedcheck.impl.durable.invariants import check_store
        check_store(self.store, self.max_concurrency, self.max_attempts)

    def disconnect(self) -> None:
        """Close this object's connection (the store keeps every row); a store handed in
        open stays open for its owner."""
        if self._owns_store:
            self.store.close()

    def __repr__(self) -> str:
        return (f"<DurableScheduler {self.url} max_concurrency={self.max_concurrency} "
                f"lease_seconds={self.lease_seconds}>")
