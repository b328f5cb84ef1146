"""A durable scheduler for many worker processes: the contract of specs/scheduler.md in a
database (SQLite embedded by default, PostgreSQL for many machines), with leases, fencing and
reclaim of expired leases (specs/durable.md); ``worker`` runs worker processes against it
(docs/durable-worker.md), ``python -m schedcheck.impl.durable status URL`` shows a store."""

from schedcheck.impl.durable._store import StoreError
from schedcheck.impl.durable.scheduler import (
    DurableClaim,
    DurableDetails,
    DurableScheduler,
    Renewal,
)

__all__ = ["DurableClaim", "DurableDetails", "DurableScheduler", "Renewal", "StoreError"]
