"""A sketch of a scheduler whose graph lives on disk (specs/large-graphs.md): SQLite tables of
tasks (state, generation, the count of dependencies not yet succeeded, a lease) and of edges
indexed by dependency (the reverse edges), with nothing per task kept in memory.

What each call touches: ``submit`` inserts one task row and its edges; ``start`` checks
unknown dependencies with one anti-join and cycles with Kahn's algorithm paged ``window``
rows at a time (a temporary table holds the copied indegrees, so memory is one page), then
marks the tasks with no dependencies READY; ``ready`` is an index range scan of READY tasks
in submission order and one *conditional write* per claim (``... WHERE gen = ? AND state =
'READY'``: two claimers cannot both win); ``complete`` is a conditional write and one update
of the dependents found through the reverse-edge index; ``fail``/``cancel`` block the
descendants with one recursive query. A claim carries a lease: ``expire_leases(now)`` gives an
expired claim a new generation and makes it READY again, so a late report from the old worker
is STALE -- at-least-once execution, never two accepted reports for one generation.

The scope of the sketch: the graph is frozen at ``start()`` (no resubmit, no close, no
optional edges); task functions are not stored (a worker resolves them by id or type), so a
claim's ``fn`` is None. ``disconnect()`` closes the file (no ``close()`` of the contract's
kind). Task ids are any value SQLite stores as itself (int, str, bytes).
Not thread-safe on one object (one connection); several processes share the file through
SQLite's own locking, each call one transaction.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Hashable, Iterable
from typing import Any

from schedcheck.contract import (
    Cause,
    Claim,
    CycleError,
    NotStartedError,
    Outcome,
    Reply,
    TaskInfo,
    TaskState,
    UnknownDependencyError,
    UnknownTaskError,
    require_int,
)

__all__ = ["DiskScheduler"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS task (
    id PRIMARY KEY, seq INTEGER NOT NULL, gen INTEGER NOT NULL, state TEXT NOT NULL,
    waiting INTEGER NOT NULL DEFAULT 0, lease REAL, requested INTEGER NOT NULL DEFAULT 0,
    cause_kind TEXT, cause_id, cause_gen INTEGER);
CREATE INDEX IF NOT EXISTS task_by_state ON task (state, seq);
CREATE TABLE IF NOT EXISTS edge (dep, dependent, PRIMARY KEY (dep, dependent)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS edge_by_dependent ON edge (dependent, dep);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value);
"""

#: the descendants of one task, through the reverse edges (a recursive query, no memory)
_DESCENDANTS = """
WITH RECURSIVE down(x) AS (
    SELECT dependent FROM edge WHERE dep = ?
    UNION SELECT e.dependent FROM edge e JOIN down ON e.dep = down.x)
SELECT x FROM down"""

_S = TaskState


def _named(name: str) -> TaskState:
    return TaskState[name]


class DiskScheduler:
    """The contract's core calls over a SQLite file (``":memory:"`` works too, for tests)."""

    def __init__(self, max_concurrency: int, path: str = ":memory:", *, window: int = 1000,
                 lease: float = 60.0) -> None:
        self.max_concurrency = require_int(max_concurrency, "max_concurrency", minimum=0)
        self.window = require_int(window, "window", minimum=1)
        self.lease = lease
        self._db = sqlite3.connect(path, isolation_level=None)  # explicit transactions
        self._db.executescript(_SCHEMA)

    # -- helpers ------------------------------------------------------------------------------

    def _one(self, sql: str, *args: Any) -> Any:
        row = self._db.execute(sql, args).fetchone()
        return None if row is None else row[0]

    def _started(self) -> bool:
        return bool(self._one("SELECT value FROM meta WHERE key = 'started'"))

    def _row(self, task_id: Any) -> tuple[Any, ...]:
        row = self._db.execute(
            "SELECT gen, state, requested, cause_kind, cause_id, cause_gen FROM task "
            "WHERE id = ?", (task_id,)).fetchone()
        if row is None:
            raise UnknownTaskError(task_id)
        return tuple(row)

    def _txn(self) -> Any:
        db = self._db

        class _Txn:
            def __enter__(self) -> None:
                db.execute("BEGIN IMMEDIATE")

            def __exit__(self, kind: Any, *rest: Any) -> None:
                db.execute("ROLLBACK" if kind else "COMMIT")

        return _Txn()

    # -- the graph ----------------------------------------------------------------------------

    def submit(self, task_id: Hashable, deps: Iterable[Hashable] = (), fn: Any = None) -> int:
        """Add a task before ``start()`` (the graph is frozen there); its generation, 1."""
        deps = list(deps)
        with self._txn():
            if self._started():
                raise ValueError(f"cannot submit {task_id!r}: this sketch freezes the graph "
                                 "at start(); build a new graph version instead")
            if self._one("SELECT 1 FROM task WHERE id = ?", task_id):
                raise ValueError(f"{task_id!r} was already submitted (no resubmit here)")
            seq = self._one("SELECT COALESCE(MAX(seq), 0) + 1 FROM task")
            self._db.execute("INSERT INTO task (id, seq, gen, state) VALUES (?, ?, 1, ?)",
                             (task_id, seq, _S.PENDING.name))
            self._db.executemany("INSERT OR IGNORE INTO edge VALUES (?, ?)",
                                 [(d, task_id) for d in deps])
        return 1

    def start(self) -> None:
        """Check the graph (unknown dependencies, then cycles, paged) and release the roots."""
        db = self._db
        with self._txn():
            if self._started():
                return
            row = db.execute("SELECT dependent, dep FROM edge WHERE dep NOT IN "
                             "(SELECT id FROM task) LIMIT 1").fetchone()
            if row is not None:
                missing = [r[0] for r in db.execute(
                    "SELECT dep FROM edge WHERE dependent = ? AND dep NOT IN "
                    "(SELECT id FROM task)", (row[0],))]
                raise UnknownDependencyError(row[0], missing)
            db.execute("UPDATE task SET waiting = "
                       "(SELECT COUNT(*) FROM edge WHERE dependent = task.id)")
            cycle = self._find_cycle()
            if cycle is not None:
                raise CycleError(cycle)
            db.execute("UPDATE task SET state = ? WHERE waiting = 0", (_S.READY.name,))
            db.execute("INSERT INTO meta VALUES ('started', 1)")

    def _find_cycle(self) -> list[Any] | None:
        """Kahn's algorithm over a temporary copy of the indegrees, ``window`` nodes a page;
        a node left over lies on or behind a cycle: walk its remaining dependencies back to a
        repeat (memory: one page, then the cycle's length)."""
        db = self._db
        db.execute("CREATE TEMP TABLE IF NOT EXISTS kahn (id PRIMARY KEY, n INTEGER)")
        db.execute("DELETE FROM kahn")
        db.execute("INSERT INTO kahn SELECT id, waiting FROM task")
        db.execute("CREATE INDEX IF NOT EXISTS temp.kahn_n ON kahn (n)")
        while True:
            page = [r[0] for r in db.execute("SELECT id FROM kahn WHERE n = 0 LIMIT ?",
                                             (self.window,))]
            if not page:
                break
            for node in page:
                db.execute("DELETE FROM kahn WHERE id = ?", (node,))
                db.execute("UPDATE kahn SET n = n - 1 WHERE id IN "
                           "(SELECT dependent FROM edge WHERE dep = ?)", (node,))
        node = self._one("SELECT id FROM kahn LIMIT 1")
        if node is None:
            return None
        path: list[Any] = []
        seen: dict[Any, int] = {}
        while node not in seen:  # every remaining node has a remaining dependency
            seen[node] = len(path)
            path.append(node)
            node = self._one("SELECT dep FROM edge WHERE dependent = ? AND dep IN "
                             "(SELECT id FROM kahn) LIMIT 1", node)
        loop = path[seen[node]:]  # each is a dependent of the next: reverse for dep order
        loop.reverse()
        return [*loop, loop[0]]

    # -- claims and reports -------------------------------------------------------------------

    def ready(self, limit: int | None = None, *, now: float = 0.0) -> list[Claim]:
        """Claim up to the free slots (and ``limit``), in submission order; each claim is a
        conditional write with a lease until ``now + lease``."""
        if limit is not None:
            require_int(limit, "limit", minimum=0)
        with self._txn():
            if not self._started():
                raise NotStartedError("call start() before ready()")
            running = self._one("SELECT COUNT(*) FROM task WHERE state = ?", _S.RUNNING.name)
            free = self.max_concurrency - running
            if limit is not None:
                free = min(free, limit)
            if free <= 0:
                return []
            rows = self._db.execute("SELECT id, gen FROM task WHERE state = ? ORDER BY seq "
                                    "LIMIT ?", (_S.READY.name, free)).fetchall()
            claims = []
            for task_id, gen in rows:
                won = self._db.execute(
                    "UPDATE task SET state = ?, lease = ? WHERE id = ? AND gen = ? AND state = ?",
                    (_S.RUNNING.name, now + self.lease, task_id, gen, _S.READY.name)).rowcount
                if won:
                    claims.append(Claim(task_id, gen, None))
            return claims

    def _refusal(self, task_id: Any, generation: int, wanted: TaskState) -> Reply:
        gen, state, *_ = self._row(task_id)
        current = _named(state)
        if generation != gen:
            return Reply(Outcome.STALE, current)
        return Reply(Outcome.DUPLICATE if current is wanted else Outcome.REJECTED, current)

    def complete(self, task_id: Hashable, generation: int) -> Reply:
        with self._txn():
            done = self._db.execute(
                "UPDATE task SET state = ?, lease = NULL WHERE id = ? AND gen = ? AND state = ?",
                (_S.SUCCEEDED.name, task_id, generation, _S.RUNNING.name)).rowcount
            if not done:
                return self._refusal(task_id, generation, _S.SUCCEEDED)
            below = "id IN (SELECT dependent FROM edge WHERE dep = ?)"
            self._db.execute(f"UPDATE task SET waiting = waiting - 1 WHERE state = ? AND {below}",
                             (_S.PENDING.name, task_id))
            self._db.execute(f"UPDATE task SET state = ? WHERE state = ? AND waiting = 0 AND "
                             f"{below}", (_S.READY.name, _S.PENDING.name, task_id))
            return Reply(Outcome.APPLIED, _S.SUCCEEDED)

    def fail(self, task_id: Hashable, generation: int, error: Any = None) -> Reply:
        with self._txn():
            gen, _, requested, *_ = self._row(task_id)
            final = _S.CANCELLED if requested else _S.FAILED
            done = self._db.execute(
                "UPDATE task SET state = ?, lease = NULL WHERE id = ? AND gen = ? AND state = ?",
                (final.name, task_id, generation, _S.RUNNING.name)).rowcount
            if not done:
                return self._refusal(task_id, generation, final)
            kind = "cancelled" if requested else "failed"
            if requested:
                self._db.execute("UPDATE task SET cause_kind = ?, cause_id = ?, cause_gen = ? "
                                 "WHERE id = ?", (kind, task_id, gen, task_id))
            self._block(task_id, Cause(kind, task_id, gen))
            return Reply(Outcome.APPLIED, final)

    def cancel(self, task_id: Hashable, generation: int | None = None) -> Reply:
        """PENDING/READY: CANCELLED and the descendants BLOCKED; RUNNING: a cooperative
        request (the function confirms by failing)."""
        with self._txn():
            gen, state, requested, *_ = self._row(task_id)
            current = _named(state)
            if generation is not None and generation != gen:
                return Reply(Outcome.STALE, current)
            if current in (_S.PENDING, _S.READY):
                cause = Cause("cancelled", task_id, gen)
                self._db.execute("UPDATE task SET state = ?, cause_kind = ?, cause_id = ?, "
                                 "cause_gen = ? WHERE id = ?",
                                 (_S.CANCELLED.name, *cause, task_id))
                self._block(task_id, cause)
                return Reply(Outcome.APPLIED, _S.CANCELLED)
            if current is _S.RUNNING:
                if requested:
                    return Reply(Outcome.DUPLICATE, current)
                self._db.execute("UPDATE task SET requested = 1 WHERE id = ?", (task_id,))
                return Reply(Outcome.REQUESTED, current)
            return Reply(Outcome.DUPLICATE if current is _S.CANCELLED else Outcome.REJECTED,
                         current)

    def _block(self, root: Any, cause: Cause) -> None:
        self._db.execute(
            f"UPDATE task SET state = ?, cause_kind = ?, cause_id = ?, cause_gen = ? "
            f"WHERE state IN (?, ?) AND id IN ({_DESCENDANTS})",
            (_S.BLOCKED.name, *cause, _S.PENDING.name, _S.READY.name, root))

    def expire_leases(self, now: float) -> list[Claim]:
        """Every RUNNING claim whose lease ended before ``now`` becomes READY again as a new
        generation (the old worker's report is then STALE); the expired claims."""
        with self._txn():
            rows = self._db.execute("SELECT id, gen FROM task WHERE state = ? AND lease < ?",
                                    (_S.RUNNING.name, now)).fetchall()
            self._db.execute("UPDATE task SET state = ?, gen = gen + 1, lease = NULL, "
                             "requested = 0 WHERE state = ? AND lease < ?",
                             (_S.READY.name, _S.RUNNING.name, now))
        return [Claim(task_id, gen, None) for task_id, gen in rows]

    # -- reading ------------------------------------------------------------------------------

    def info(self, task_id: Hashable) -> TaskInfo:
        gen, state, _, kind, cid, cgen = self._row(task_id)
        cause = None if kind is None else Cause(kind, cid, cgen)
        return TaskInfo(task_id, gen, _named(state), cause)

    def state_of(self, task_id: Hashable) -> TaskState:
        return self.info(task_id).state

    def disconnect(self) -> None:
        """Close the connection (the file keeps every row: reopen it to go on)."""
        self._db.close()
