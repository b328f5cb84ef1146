"""What the worker and its supervisor share: the exit codes and a stop flag a signal handler
may set."""

from __future__ import annotations

import time

__all__ = ["EXIT", "SignalStop"]

#: the exit codes of a worker and of the supervisor (docs/durable-worker.md)
EXIT = {
    "ok": 0,  # stopped (signal) or idle; no worker died
    "deaths": 1,  # the pool ended, but workers died on the way (each reported, replaced)
    "usage": 2,  # a bad command line, or --fn that cannot be imported
    "store": 3,  # the store cannot be used (missing/damaged file, refused URL, other limit,
    #              no answer for --give-up seconds)
    "crash": 4,  # an unexpected error ended the worker (its message is printed)
    "restarts": 5,  # workers died faster than the restart rate allows: the pool was stopped
}


class SignalStop:
    """A stop flag a signal handler may set: no lock is taken (``threading.Event.set`` from a
    handler can deadlock when the signal lands while the main thread holds the event's lock
    inside ``wait``); ``wait`` sleeps, which a signal cuts short once the flag is set."""

    def __init__(self) -> None:
        self.flag = False

    def set(self) -> None:
        self.flag = True

    def is_set(self) -> bool:
        return self.flag

    def wait(self, timeout: float) -> bool:
        if not self.flag:
            time.sleep(timeout)
        return self.flag
