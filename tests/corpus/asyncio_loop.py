"""The standard library's asyncio event loop timers (``call_at``) on a fake clock, no I/O."""

import asyncio

from schedcheck.targets.adapters import WheelAdapter, WheelCapabilities


class _Loop(asyncio.BaseEventLoop):
    clock = 0
    _selector = type("NoIO", (), {"select": lambda self, timeout: []})()

    def time(self):
        return self.clock

    def _process_events(self, events):
        pass


class AsyncioTimers(WheelAdapter):
    # TimerHandle.cancel() returns None and cancels its own handle wherever it came from
    capabilities = WheelCapabilities(cancel="none", handles="self", validates_args=False,
                                     due_ticks=False, counts_pending=False)

    def build(self, tick, wheel_size):
        self.loop = _Loop()

    def add(self, deadline, fire):
        return self.loop.call_at(deadline, fire)

    def remove(self, token):
        token.cancel()

    def run_until(self, now):
        self.loop.clock = now
        self.loop.call_soon(self.loop.stop)
        self.loop.run_forever()
