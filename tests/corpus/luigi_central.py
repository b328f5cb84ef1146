"""Luigi's central scheduler (PyPI ``luigi``, ``luigi.scheduler.Scheduler``): one worker asks
``get_work`` for the next task and reports DONE or FAILED with ``add_task``. By design it
takes DONE for any task (ran or not, failed before or not) and has no cycle detection."""

from luigi.scheduler import Scheduler

from schedcheck.targets.adapters import SchedulerAdapter, SchedulerCapabilities


class LuigiCentral(SchedulerAdapter):
    capabilities = SchedulerCapabilities(
        generations=False, cancel=False, close=False, info=False, claim_order="any",
        validates_args=False, unknown_deps=False, limit=False, detects_cycles=False,
        accepts_unclaimed_done=True, done_after_failed=True)

    def build(self):
        self.inner = Scheduler()

    def add(self, task_id, deps):
        self.inner.add_task(task_id=task_id, deps=list(deps), worker="w")

    def start_graph(self):
        pass  # every task added is scheduled as soon as its deps are DONE

    def take(self):  # the worker asks until nothing more is runnable now
        while (got := self.inner.get_work(worker="w").get("task_id")) is not None:
            yield got

    def finish(self, task_id):
        self.inner.add_task(task_id=task_id, status="DONE", worker="w")

    def fail_task(self, task_id):
        self.inner.add_task(task_id=task_id, status="FAILED", worker="w")
