"""Small wheels for the wheel suite's own tests: one correct but late, others broken.

* :class:`SeedWheel` -- the seed's pseudocode (``ticks = ceil((deadline - now) / tick)``
  counted from the last ``now``, bucket ``(cursor + ticks) % W``, rounds ``ticks // W``): never
  early, but up to one tick later than the contract's due tick. It takes no ``start`` (with an
  unaligned ``start`` the formula would fire *early* on a fresh wheel) and no other optional
  argument, and has ``lag_ticks`` but no ``callback_errors``.
* :class:`ForgetfulWheel` -- the same, forgetting ``remainingRounds`` (seed: common mistakes):
  a timer fires on the first visit of its bucket.
* Model subclasses that break one rule each: :class:`DoubleCancelWheel` (cancel of a cancelled
  handle is True again), :class:`SyncCallbackWheel` (runs callbacks on the advancing thread);
  and :class:`ScanningWheel` (right answers, but every tick walks every timer: W-COST);
  :class:`SearchingCancelWheel` (cancel first looks for its timer among the live ones:
  W-COST) and
  :class:`RaisingCancelWheel` (no cancel yet: W-COST judges the ticks alone).
"""

from __future__ import annotations

import contextlib
from typing import Any

from schedcheck.model import Handle, TimingWheel

from schedcheck.contract import require_int


class SeedHandle:
    def __init__(self, owner: SeedWheel, deadline: int, callback: Any, rounds: int) -> None:
        self.owner = owner
        self.deadline = deadline
        self.callback = callback
        self.rounds = rounds
        self.fired = False
        self.cancelled = False


class SeedWheel:
    forget_rounds = False

    def __init__(self, tick: int, wheel_size: int) -> None:
        self.tick = require_int(tick, "tick", minimum=1)
        self.size = require_int(wheel_size, "wheel_size", minimum=1)
        self.cursor = 0
        self.now = 0
        self.buckets: list[list[SeedHandle]] = [[] for _ in range(wheel_size)]
        self.live = 0

    def schedule(self, deadline: int, callback: Any) -> SeedHandle:
        require_int(deadline, "deadline")
        if not callable(callback):
            raise TypeError("callback must be callable")
        ticks = max(-(-(deadline - self.now) // self.tick), 0)
        handle = SeedHandle(self, deadline, callback, ticks // self.size)
        self.buckets[(self.cursor + ticks) % self.size].append(handle)
        self.live += 1
        return handle

    def schedule_after(self, delay: int, callback: Any) -> SeedHandle:
        require_int(delay, "delay")
        return self.schedule(self.now + delay, callback)

    def cancel(self, handle: Any) -> bool:
        if not isinstance(handle, SeedHandle):
            raise TypeError("not a handle")
        if handle.owner is not self or handle.fired or handle.cancelled:
            return False
        handle.cancelled = True
        self.live -= 1
        return True

    def advance(self, now: int) -> list[SeedHandle]:
        require_int(now, "now")
        if now < self.now:
            raise ValueError("time goes forward")
        self.now = now
        fired: list[SeedHandle] = []
        while self.cursor <= now // self.tick:
            index = self.cursor % self.size
            keep = []
            for handle in self.buckets[index]:
                if handle.cancelled:
                    continue
                if handle.rounds > 0 and not self.forget_rounds:
                    handle.rounds -= 1
                    keep.append(handle)
                else:
                    handle.fired = True
                    self.live -= 1
                    fired.append(handle)
            self.buckets[index] = keep
            self.cursor += 1
        return fired

    def pending(self) -> int:
        return self.live

    def lag_ticks(self) -> int:
        return self.now // self.tick + 1 - self.cursor


class ForgetfulWheel(SeedWheel):
    forget_rounds = True


class DoubleCancelWheel(TimingWheel):
    def cancel(self, handle: Handle) -> bool:
        stopped = super().cancel(handle)
        return True if isinstance(handle, Handle) and handle.cancelled else stopped


class SyncCallbackWheel(TimingWheel):
    def advance(self, now: int) -> list[Handle]:
        fired = super().advance(now)
        for handle in fired:
            with contextlib.suppress(Exception):
                handle.callback()
        return fired


class SearchingCancelWheel(TimingWheel):
    """Right answers, but ``cancel`` first looks for its timer among the live ones, in Python,
    instead of going through the handle alone (the seed: "a handle points at the node, so
    cancel needs no search"): W-COST must flag it."""

    def cancel(self, handle: Handle) -> bool:
        for live in list(self._live.values()):
            if live is handle:
                break
        return super().cancel(handle)


class RaisingCancelWheel(SeedWheel):
    """A wheel whose ``cancel`` is not there yet: it raises. W-COST still judges its ticks."""

    def cancel(self, handle: Any) -> bool:
        raise NotImplementedError("cancel is not written yet")


class ScanningWheel(SeedWheel):
    """Right answers by the contract's due tick, but every processed tick walks every live
    timer (the seed's "scan a fixed array of every task"): W-COST must flag it."""

    def schedule(self, deadline: int, callback: Any) -> SeedHandle:
        require_int(deadline, "deadline")
        handle = SeedHandle(self, deadline, callback, 0)
        handle.rounds = max(-(-deadline // self.tick), self.cursor)  # here: the due tick
        self.buckets[0].append(handle)
        self.live += 1
        return handle

    def advance(self, now: int) -> list[SeedHandle]:
        require_int(now, "now")
        if now < self.now:
            raise ValueError("time goes forward")
        self.now = now
        fired: list[SeedHandle] = []
        while self.cursor <= now // self.tick:
            keep = []
            for handle in self.buckets[0]:  # MISTAKE: all timers, every tick
                if handle.cancelled:
                    continue
                if handle.rounds <= self.cursor:
                    handle.fired = True
                    self.live -= 1
                    fired.append(handle)
                else:
                    keep.append(handle)
            self.buckets[0] = keep
            self.cursor += 1
        return fired


class NoBackpressureWheel(TimingWheel):
    """max_pending accepted and ignored: schedule never raises WheelFullError (rule 5)."""

    def __init__(self, tick: int, wheel_size: int, **options: Any) -> None:
        TimingWheel(tick, wheel_size, **options)  # the arguments are still validated
        super().__init__(tick, wheel_size, **{**options, "max_pending": None})


class PendingCountsCancelledWheel(TimingWheel):
    """pending() still counts cancelled timers."""

    cancels = 0

    def cancel(self, handle: Handle) -> bool:
        stopped = super().cancel(handle)
        self.cancels += stopped
        return stopped

    def pending(self) -> int:
        return super().pending() + self.cancels


class LagOffByOneWheel(TimingWheel):
    """lag_ticks() forgets the tick of now itself."""

    def lag_ticks(self) -> int:
        return max(0, super().lag_ticks() - 1)


class SilentCallbackErrorsWheel(TimingWheel):
    """Callback errors are swallowed without being counted."""

    def callback_errors(self) -> int:
        return 0


class ErrorChangesStateWheel(TimingWheel):
    """advance() with an earlier now raises ValueError, but only after scheduling a timer."""

    def advance(self, now: int) -> list[Handle]:
        try:
            return super().advance(now)
        except ValueError:
            self.schedule_after(1, print)
            raise
