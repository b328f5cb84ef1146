"""A scheduler with a batch form whose mistake only a batch shows, for the replay tests."""

from __future__ import annotations

from typing import Any

from schedcheck.impl import Scheduler


class BatchIgnoresGenerations(Scheduler):
    """``complete_many()`` completes each named task that runs, whatever generation its claim
    quotes: a stale or never-handed-out generation is applied where ``complete()`` one by
    one says STALE."""

    def complete_many(self, claims: Any) -> Any:
        known = set(self.task_ids())
        current = [(t, self.info(t).generation) if t in known else (t, g) for t, g in claims]
        return super().complete_many(current)
