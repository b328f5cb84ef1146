"""TimeWheel (PyPI) counts a delay from the current whole second, so a timer fires early.

A 0.4 s timer scheduled at 0.8 s into a second fires when the next second starts, 0.2 s after
it was scheduled. The loop reads int(time.time()); here time is a fake clock.
Run: python tests/corpus/bugs/timewheel_fires_early.py
"""

import contextlib
import types

import timeWheel.threadTimeWheel as twmod

BASE = 1_000_000_000
fired = []
loop = twmod.TimeLoop()
loop._TimeLoop__isPool = False


def at(seconds):
    """One pass of the wheel's loop at the given clock reading (its loop never returns)."""
    reads = iter([BASE + seconds] * 2)
    twmod.time = types.SimpleNamespace(time=lambda: next(reads))
    with contextlib.suppress(StopIteration):
        loop.run()


at(0.0)
at(0.8)
loop.insertTask(lambda: fired.append("timer due at 1.2 s"), 1)  # 0.4 s, rounded up to 1 s
at(1.0)
print(f"at 1.0 s fired: {fired}")
assert fired, "not reproduced"
