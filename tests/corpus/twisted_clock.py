"""Twisted's ``task.Clock``: the deterministic clock behind its reactor's callLater."""

from twisted.internet.task import Clock

from schedcheck.targets.adapters import WheelAdapter, WheelCapabilities


class TwistedClock(WheelAdapter):
    # DelayedCall.cancel() raises AlreadyCalled/AlreadyCancelled; a call cancels itself
    capabilities = WheelCapabilities(cancel="raises", handles="self", validates_args=False,
                                     due_ticks=False)

    def build(self, tick, wheel_size):
        self.clock = Clock()

    def add(self, deadline, fire):
        return self.clock.callLater(deadline - self.clock.seconds(), fire)

    def remove(self, token):
        token.cancel()

    def run_until(self, now):
        self.clock.advance(now - self.clock.seconds())

    def count(self):
        return len(self.clock.getDelayedCalls())
