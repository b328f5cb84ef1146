"""Interview answers with generation mistakes the core level must catch (each wraps the
bundled scheduler and changes one thing)."""

from __future__ import annotations

from typing import Any

from schedcheck.impl import Scheduler


class ApplyStaleReports(Scheduler):
    """complete()/fail() ignore the generation they are given: a late worker of the run
    before a resubmit ends the current run."""

    def complete(self, task_id: Any, generation: int) -> Any:
        return super().complete(task_id, self._current(task_id, generation))

    def fail(self, task_id: Any, generation: int, error: Any = None) -> Any:
        return super().fail(task_id, self._current(task_id, generation), error)

    def _current(self, task_id: Any, generation: int) -> int:
        try:
            return int(self.info(task_id).generation)
        except Exception:
            return generation


class OneGenerationStaleReports(ApplyStaleReports):
    """As :class:`ApplyStaleReports`, and every run is handed out as generation 1: a
    resubmitted task is claimed as ``('a', 1)`` again."""

    def submit(self, task_id: Any, deps: Any = (), fn: Any = None, **kwargs: Any) -> int:
        super().submit(task_id, deps, fn, **kwargs)
        return 1

    def ready(self, limit: int | None = None) -> list[Any]:
        return [(c.task_id, 1, c.fn) for c in super().ready(limit)]
