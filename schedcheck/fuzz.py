"""Campaigns: the suites fuzzed for a long time by HypoFuzz, on many cores and machines.

Draft: the database helpers the pytest plugin uses.
"""

from __future__ import annotations

from typing import Any

__all__ = ["load_database_profile", "open_database"]

REDIS_SCHEMES = ("redis://", "rediss://", "unix://")


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


def load_database_profile(where: str | None, *, replay_only: bool = False) -> None:
    """Load a Hypothesis profile over the current one with the database at ``where`` and, with
    ``replay_only``, no generation of new examples (only the saved ones, then shrinking)."""
    import hypothesis

    changes: dict[str, Any] = {}
    if where:
        changes["database"] = open_database(where)
    if replay_only:
        keep = (hypothesis.Phase.explicit, hypothesis.Phase.reuse, hypothesis.Phase.shrink)
        changes["phases"] = [p for p in hypothesis.settings.default.phases if p in keep]
    hypothesis.settings.register_profile("schedcheck-campaign",
                                         parent=hypothesis.settings.default, **changes)
    hypothesis.settings.load_profile("schedcheck-campaign")
