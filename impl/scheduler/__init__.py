"""The production task scheduler and what runs around it.

* ``indegree`` -- :class:`Scheduler`: indegree counts, reverse edges, a heap (the lock-held
  machinery in ``_core``, the extensions in ``_extras``, states and records in ``_support``);
* ``runner`` -- a fixed worker pool that claims, runs and reports (:func:`run`, :class:`Runner`);
* ``observability`` -- the follow-up's signals around the same scheduler;
* ``disk`` -- a sketch of a scheduler whose graph lives in SQLite (specs/large-graphs.md).
"""

from schedcheck.impl.scheduler.indegree import Scheduler
from schedcheck.impl.scheduler.runner import Runner, run

__all__ = ["Runner", "Scheduler", "run"]
