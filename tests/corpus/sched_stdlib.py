"""The standard library's ``sched.scheduler`` (a heap of events) on a fake clock."""

import sched

from schedcheck.targets.adapters import WheelAdapter, WheelCapabilities


class StdlibSched(WheelAdapter):
    capabilities = WheelCapabilities(cancel="raises", validates_args=False, due_ticks=False)

    def build(self, tick, wheel_size):
        self.clock = 0
        self.inner = sched.scheduler(lambda: self.clock, lambda _: None)

    def add(self, deadline, fire):
        return self.inner.enterabs(deadline, 0, fire)

    def remove(self, token):
        self.inner.cancel(token)  # ValueError when no longer queued

    def run_until(self, now):
        self.clock = now
        self.inner.run(blocking=False)

    def count(self):
        return len(self.inner.queue)
