"""``graphlib2`` from PyPI: a Rust implementation of graphlib's TopologicalSorter."""

import graphlib2

from schedcheck.targets.adapters import SchedulerAdapter


class Graphlib2(SchedulerAdapter):
    def build(self):
        self.inner = graphlib2.TopologicalSorter()

    def add(self, task_id, deps):
        self.inner.add(task_id, *deps)

    def start_graph(self):
        self.inner.prepare()

    def take(self):
        return self.inner.get_ready()

    def finish(self, task_id):
        self.inner.done(task_id)
