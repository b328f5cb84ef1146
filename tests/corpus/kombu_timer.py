"""Kombu's event-loop timer (PyPI ``kombu``, ``kombu.asynchronous.timer.Timer``; Celery's
worker hub fires it): a heap of entries, iterated with the loop's clock -- here a fake one.
``Entry.cancel()`` returns None and cancels its own entry wherever it came from; ``len()``
counts cancelled entries until they are popped, so the count is the adapter's."""

from kombu.asynchronous.timer import Timer

from schedcheck.targets.adapters import WheelAdapter, WheelCapabilities


class KombuTimer(WheelAdapter):
    capabilities = WheelCapabilities(cancel="none", handles="self", validates_args=False,
                                     due_ticks=False, counts_pending=False)

    def build(self, tick, wheel_size):
        self.inner = Timer()

    def add(self, deadline, fire):
        return self.inner.call_at(deadline, fire)

    def remove(self, token):
        token.cancel()

    def run_until(self, now):  # what the hub's fire_timers does, with the clock at now
        for _delay, entry in self.inner.__iter__(nowfun=lambda: now):
            if entry is None:
                break
            self.inner.apply_entry(entry)
