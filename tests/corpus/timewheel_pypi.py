"""``TimeWheel`` from PyPI (``timeWheel.threadTimeWheel.TimeLoop``): a wheel of one-second
slots read from ``int(time.time())`` by a busy thread. Here its ``run()`` loop is driven on a
fake clock (a unit is a tenth of a second), one pass per second, on the caller's thread."""

import time
import types

import timeWheel.threadTimeWheel as twmod

from schedcheck.targets.adapters import WheelAdapter, WheelCapabilities

_BASE = int(time.time())  # its class reads the real clock once, at import


class PyPITimeWheel(WheelAdapter):
    capabilities = WheelCapabilities(cancel="missing", validates_args=False, due_ticks=False,
                                     counts_pending=False, resolution=10)

    def build(self, tick, wheel_size):
        self.inner = twmod.TimeLoop()
        self.inner._TimeLoop__isPool = False  # call tasks itself (start() would set this)
        self.run_until(0)  # a started thread reads the clock at once

    def add(self, deadline, fire):  # whole seconds, rounded up: never a shorter delay
        self.inner.insertTask(fire, max(0, -(-(deadline - self.last_now) // 10)))

    def run_until(self, now):
        for second in range(self.last_now // 10, now // 10 + 1):
            reads = iter([_BASE + second] * 3)  # a few passes at that second, then stop
            twmod.time = types.SimpleNamespace(time=lambda r=reads: next(r))
            try:
                self.inner.run()
            except StopIteration:
                pass
            finally:
                twmod.time = time
