"""Adapters of small designs that declare what they do by design (capabilities)."""

from __future__ import annotations

import graphlib
from typing import Any, ClassVar

from schedcheck.targets.adapters import SchedulerAdapter, SchedulerCapabilities

_BASE = {"generations": False, "fail": False, "cancel": False, "close": False, "info": False,
         "claim_order": "any", "validates_args": False, "unknown_deps": False,
         "limit": False, "claims_only": True}


class CountingDispatcher(SchedulerAdapter):
    """A dispatcher that counts each task's unfinished dependencies and lowers the count of
    every dependent on each report -- a second report of one task lowers them again. Its own
    driver reports each task once and only what it handed out, but it declares only
    ``claims_only``."""

    capabilities: ClassVar[SchedulerCapabilities] = SchedulerCapabilities(**_BASE)

    def build(self) -> None:
        self.deps: dict[Any, tuple[Any, ...]] = {}
        self.waiting: dict[Any, int] = {}
        self.handed: set[Any] = set()

    def add(self, task_id: Any, deps: tuple[Any, ...]) -> None:
        self.deps[task_id] = tuple(dict.fromkeys(deps))

    def start_graph(self) -> None:
        graphlib.TopologicalSorter(self.deps).prepare()  # graphlib.CycleError
        for deps in list(self.deps.values()):
            for d in deps:
                self.deps.setdefault(d, ())
        self.waiting = {t: len(ds) for t, ds in self.deps.items()}

    def take(self) -> list[Any]:
        now = [t for t, n in self.waiting.items() if n <= 0 and t not in self.handed]
        self.handed.update(now)
        return now

    def finish(self, task_id: Any) -> None:
        for t, ds in self.deps.items():
            if task_id in ds:
                self.waiting[t] -= 1


class CountingDispatcherReportsOnce(CountingDispatcher):
    """The same dispatcher, declaring what its driver does: each task reported once."""

    capabilities: ClassVar[SchedulerCapabilities] = SchedulerCapabilities(
        **_BASE, reports_once=True)


class RescanningDispatcher(CountingDispatcherReportsOnce):
    """A design that rescans every task on each call and says so: ``cost="linear"``."""

    capabilities: ClassVar[SchedulerCapabilities] = SchedulerCapabilities(
        **_BASE, reports_once=True, cost="linear")
