"""Fixtures of the durable scheduler's tests: a temporary PostgreSQL cluster for the session
(skipped with the reason when no server can start), and factories of fresh schedulers on
SQLite (in memory, or a new file) and on PostgreSQL (a pool of schemas, emptied for reuse)."""

from __future__ import annotations

import itertools
import os
import re
import weakref
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from schedcheck.impl.durable import DurableScheduler
from schedcheck.impl.durable._store import PostgresStore

from schedcheck.pg_temp import ClusterUnavailable, TempCluster


def _started(cluster: TempCluster) -> str:
    try:
        return cluster.__enter__()
    except ClusterUnavailable as exc:
        if os.environ.get("SCHEDCHECK_REQUIRE_POSTGRES"):
            raise
        pytest.skip(f"PostgreSQL could not start, so its tests cannot run: {exc}")


@pytest.fixture(scope="session")
def pg_url() -> Iterator[str]:
    """A private PostgreSQL server on 127.0.0.1 for this test session, removed afterwards."""
    cluster = TempCluster(fsync=False)
    url = _started(cluster)
    try:
        yield url
    finally:
        cluster.__exit__(None, None, None)


@pytest.fixture(scope="session")
def pg_crashable() -> Iterator[TempCluster]:
    """Another private PostgreSQL server, for the tests that kill its processes and restart
    it (the other tests' server is never disturbed)."""
    cluster = TempCluster(fsync=False)
    _started(cluster)
    try:
        yield cluster
    finally:
        cluster.__exit__(None, None, None)


class StorePool:
    """Schemas of one server, each reused once the scheduler built on it is gone (a suite
    builds a scheduler per example: a fresh schema each time would be slow)."""

    def __init__(self, url: str, prefix: str) -> None:
        self.url, self.prefix = url, prefix
        self.stores: list[tuple[PostgresStore, Any]] = []

    def __call__(self, build: Callable[[PostgresStore], DurableScheduler]) -> DurableScheduler:
        free = [i for i, (_, ref) in enumerate(self.stores) if ref() is None]
        if free:
            i = free[0]
        else:
            i = len(self.stores)
            self.stores.append((PostgresStore(self.url, schema=f"{self.prefix}{i}"),
                                lambda: None))
        store = self.stores[i][0]
        store.reset()
        made = build(store)
        self.stores[i] = (store, weakref.ref(made))
        return made

    def close(self) -> None:
        for store, _ in self.stores:
            store.drop()
            store.close()


@pytest.fixture
def pg_pool(pg_url: str, request: pytest.FixtureRequest) -> Iterator[StorePool]:
    pool = StorePool(pg_url, "t" + re.sub(r"[^a-z0-9_]", "_", request.node.name.lower())[:30]
                     + "_")
    yield pool
    pool.close()


@pytest.fixture
def sqlite_files(tmp_path: Path) -> Callable[[], str]:
    """A new SQLite file URL per call (an empty file: a store opened there is made new)."""
    counter = itertools.count()

    def fresh() -> str:
        path = tmp_path / f"store{next(counter)}.db"
        path.touch()
        return f"sqlite:///{path}"
    return fresh
