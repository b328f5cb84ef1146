"""The standard library's ``graphlib.TopologicalSorter``, used as a task scheduler."""

import graphlib

from schedcheck.targets.adapters import SchedulerAdapter


class StdlibGraphlib(SchedulerAdapter):
    # the base's capabilities: no generations, fail, cancel, close or info; any claim order

    def build(self):
        self.inner = graphlib.TopologicalSorter()

    def add(self, task_id, deps):
        self.inner.add(task_id, *deps)

    def start_graph(self):
        self.inner.prepare()  # graphlib.CycleError

    def take(self):
        return self.inner.get_ready()

    def finish(self, task_id):
        self.inner.done(task_id)  # ValueError for a duplicate or an unclaimed task
