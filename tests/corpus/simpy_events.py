"""SimPy (PyPI ``simpy``): a discrete-event simulation loop over a heap of events in virtual
time. A timer is a ``Timeout`` event whose callback fires it; SimPy has no way to cancel one."""

import simpy

from schedcheck.targets.adapters import WheelAdapter, WheelCapabilities


class SimPyTimers(WheelAdapter):
    capabilities = WheelCapabilities(cancel="missing", validates_args=False, due_ticks=False,
                                     counts_pending=False)

    def build(self, tick, wheel_size):
        self.env = simpy.Environment()

    def add(self, deadline, fire):  # a delay from its clock; a past deadline is due now
        event = self.env.timeout(max(0, deadline - self.env.now))
        event.callbacks.append(lambda _event: fire())
        return event

    def run_until(self, now):  # every event due at or before now, in the heap's order
        while self.env.peek() <= now:
            self.env.step()
