"""What the store refuses, and says so: a SQLite path that does not exist (unless asked to
create it), a damaged file, a PostgreSQL URL the server refuses for good, a store opened with
another limit or a retry backoff that is not a finite number of seconds; ids Python holds
equal are one task, as in the model; a file store keeps a write-ahead log; a function that
cannot be imported is refused at submit (named there) or fails the task (never done without
running)."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest
from schedcheck.impl.durable import DurableScheduler
from schedcheck.impl.durable._store import StoreError, open_store
from schedcheck.model.leases import LeasedScheduler


def test_a_sqlite_path_that_does_not_exist_is_refused_unless_asked_to_create(
        tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path}/typo.db"
    with pytest.raises(StoreError, match=r"no SQLite store at .*typo\.db.*create=True"):
        DurableScheduler(url, 1)
    assert not (tmp_path / "typo.db").exists()  # nothing was made by the refused open
    DurableScheduler(url, 1, create=True).disconnect()
    DurableScheduler(url, 1).disconnect()  # it exists now


@pytest.mark.parametrize("damage", ["not a database", "a page overwritten",
                                    "an index that disagrees with its table"])
def test_a_damaged_sqlite_file_is_an_error_naming_the_file(tmp_path: Path, damage: str) -> None:
    path = tmp_path / "store.db"
    s = DurableScheduler(f"sqlite:///{path}", 2, create=True)
    for i in range(300):
        s.submit(f"task-{i:04}-" + "x" * 40)
    s.start()
    s.disconnect()
    if damage == "an index that disagrees with its table":  # well-formed pages, wrong keys
        db = sqlite3.connect(path, isolation_level=None)
        db.execute("PRAGMA writable_schema=ON")
        db.execute("UPDATE sqlite_master SET sql = replace(sql, '(state, seq)', '(state, gen)') "
                   "WHERE name = 'dtask_by_state'")
        db.close()
        assert sqlite3.connect(path).execute("PRAGMA quick_check").fetchall() == [("ok",)]
        with pytest.raises(StoreError, match=r"store\.db.* is damaged .*missing from index"):
            DurableScheduler(f"sqlite:///{path}", 2)
        return
    data = bytearray(path.read_bytes())
    if damage == "not a database":
        data[:16] = b"garbage garbage!"
    else:  # the second page on: the tables' and indexes' pages, the header kept
        data[4096:4096 * 4] = b"\xff" * (4096 * 3)
    path.write_bytes(bytes(data))
    for suffix in ("-wal", "-shm"):
        Path(str(path) + suffix).unlink(missing_ok=True)
    with pytest.raises(StoreError, match=r"SQLite store .*store\.db.* is damaged"):
        DurableScheduler(f"sqlite:///{path}", 2)


def _with(url: str, *, user: str | None = None, db: str | None = None) -> str:
    parts = urlsplit(url)
    host = parts.netloc.rpartition("@")[2]
    netloc = f"{user or parts.username}@{host}" if (user or parts.username) else host
    return urlunsplit((parts.scheme, netloc, "/" + (db or parts.path.lstrip("/")),
                       parts.query, parts.fragment))


@pytest.mark.parametrize(("wrong", "says"), [
    ("database", 'database "no_such_db" does not exist'),
    ("role", 'role "no_such_role" does not exist'),
])
def test_a_postgresql_url_the_server_refuses_fails_at_once_with_its_message(
        pg_url: str, wrong: str, says: str) -> None:
    url = _with(pg_url, db="no_such_db") if wrong == "database" else _with(
        pg_url, user="no_such_role")
    with pytest.raises(StoreError, match=says):
        DurableScheduler(url, 1)


def test_an_unknown_host_fails_at_once() -> None:
    with pytest.raises(StoreError, match="PostgreSQL refused"):
        DurableScheduler("postgresql://nobody@no-such-host.invalid/db", 1)


def test_a_postgresql_store_opened_with_another_limit_is_refused(pg_url: str) -> None:
    url = pg_url + ("&" if "?" in pg_url else "?") + "schema=limit_refused"
    first = DurableScheduler(url, 1, 30.0)
    first.store.reset()
    first.disconnect()
    first = DurableScheduler(url, 1, 30.0)
    for t in ("a", "b"):
        first.submit(t)
    first.start()
    with pytest.raises(ValueError, match="created with max_concurrency=1"):
        DurableScheduler(url, 2, 30.0)
    # the refused process claimed nothing: one task runs under the limit of 1
    assert [c.task_id for c in first.ready()] == ["a"]
    assert DurableScheduler(url, 1, 30.0).ready() == []
    first.store.drop()
    first.disconnect()


@pytest.mark.parametrize("alias", [True, 1.0])
def test_ids_python_holds_equal_are_one_task_as_in_the_model(alias: object) -> None:
    model = LeasedScheduler(2, 30.0)
    store = DurableScheduler("sqlite://", 2, 30.0, clock=lambda: 0.0)
    for s in (model, store):
        assert s.submit(1) == 1
        assert s.submit(alias) == 2  # a resubmit of the same task: generation 2
        assert s.submit((alias, "x")) == 1
        assert s.submit((1, "x")) == 2
        s.start()
    assert store.task_ids() == [1, (1, "x")]
    assert [c.task_id for c in store.ready()] == [c.task_id for c in model.ready()]
    assert store.info(alias).generation == model.info(alias).generation == 2


def test_a_function_named_at_submit_must_import_then(tmp_path: Path) -> None:
    s = DurableScheduler("sqlite://", 1)
    with pytest.raises(ValueError, match=r"cannot submit 'a': cannot import task function "
                                         r"'no_such_module:run'.*ModuleNotFoundError"):
        s.submit("a", fn="no_such_module:run")
    with pytest.raises(ValueError, match="'os:no_such_function'"):
        s.submit("a", fn="os:no_such_function")
    assert s.task_ids() == []  # nothing was submitted
    s.submit("b", fn="os:getcwd")
    s.start()
    (claim,) = s.ready()
    assert claim.fn is not None and claim.fn() == __import__("os").getcwd()


def test_a_function_another_process_cannot_import_fails_when_called(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path}/fns.db"
    submitter = DurableScheduler(url, 2, create=True)
    submitter.submit("nested", fn=lambda: None)
    submitter.start()
    worker = DurableScheduler(url, 2)  # another process's view: it imports by name
    claim = worker.ready(1)[0]
    assert claim.fn is not None
    with pytest.raises(LookupError, match=r"cannot import task function .*<lambda>.* only run "
                                          "in that process"):
        claim.fn()


def test_a_sqlite_file_store_keeps_a_write_ahead_log(tmp_path: Path) -> None:
    """Readers do not block the writer (workers in other processes read while one claims):
    a store in a file is in WAL mode; the in-memory store has no journal to choose."""
    store = open_store(f"sqlite:///{tmp_path / 'tasks.db'}", create=True)
    assert store.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    memory = open_store("sqlite://")
    assert memory.db.execute("PRAGMA journal_mode").fetchone()[0] == "memory"


@pytest.mark.parametrize("backoff", [-1, -0.5, float("inf"), float("nan"), float("-inf"), True])
def test_a_retry_backoff_that_is_not_a_finite_number_of_seconds_is_refused(
        backoff: object) -> None:
    with pytest.raises(ValueError, match="retry_backoff must be >= 0 seconds"):
        DurableScheduler("sqlite://", 1, 30.0, retry_backoff=backoff)  # type: ignore[arg-type]
