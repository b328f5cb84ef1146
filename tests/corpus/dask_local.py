"""Dask's local scheduler state machine (PyPI ``dask``, ``dask.local``): the bookkeeping that
``get_async`` drives -- a graph started with ``start_state_from_dask``, ready keys taken from
``state["ready"]``, each finished with ``finish_task``. Its driver reports only the keys it
started, so the adapter declares ``claims_only``; a cycle is ``RuntimeError("Cycle
detected ...")``, recognised by its message."""

from dask.local import finish_task, start_state_from_dask
from dask.order import order

from schedcheck.targets.adapters import SchedulerAdapter, SchedulerCapabilities


def _task(*_args):
    return None


class DaskLocal(SchedulerAdapter):
    capabilities = SchedulerCapabilities(
        generations=False, fail=False, cancel=False, close=False, info=False,
        claim_order="any", validates_args=False, unknown_deps=False, limit=False,
        claims_only=True)

    def build(self):
        self.dsk = {}

    def add(self, task_id, deps):
        self.dsk[task_id] = (_task, *deps)

    def start_graph(self):
        self.sortkey = order(self.dsk).get
        self.state = start_state_from_dask(self.dsk, sortkey=self.sortkey)

    def take(self):  # what get_async would start now
        ready, self.state["ready"] = self.state["ready"], []
        self.state["running"].update(ready)
        return ready

    def finish(self, task_id):  # get_async caches the result first, then finishes the key
        self.state["cache"][task_id] = None
        finish_task(self.dsk, task_id, self.state, {}, self.sortkey)
