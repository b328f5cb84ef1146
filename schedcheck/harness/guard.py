"""Guards against the target: a time limit per call and a memory ceiling per run.

A target that hangs, or that allocates memory in proportion to a delay, must end the run
with a verdict, not stall it or take the machine down:

* :func:`call_limited` -- ``fn(*args)`` with a wall-clock limit (``SIGALRM`` through
  ``setitimer``; only on the main thread, elsewhere the call is plain). Past the limit the
  call is interrupted with :class:`StepTimeout`, a ``BaseException`` so that a target's own
  ``except Exception`` cannot swallow it. ``observe`` turns it into the error name
  ``Hang[...]``: a verdict against the call that hung.
* :func:`memory_ceiling` -- while active, the process's address space may grow by at most
  ``extra`` bytes (``RLIMIT_AS``), so a runaway allocation raises ``MemoryError`` in the
  target instead of waking the kernel's out-of-memory killer. The previous limit comes back
  on exit.

Both are active only inside :func:`guarded` (the suites' driver enters it); elsewhere calls
are not touched. The limit is generous (:data:`STEP_SECONDS`): it catches hangs, it never
judges speed.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Callable, Iterator
from typing import Any

__all__ = ["STEP_SECONDS", "StepTimeout", "call_limited", "guarded", "memory_ceiling",
           "step_limit", "step_seconds", "timeouts"]

#: The longest a single call of the target may take before it counts as a hang.
STEP_SECONDS = 10.0
#: How much the address space may grow during a guarded run (bytes).
MEMORY_HEADROOM = 4 << 30

_state = {"seconds": 0.0, "timeouts": 0}
_default = {"seconds": STEP_SECONDS}


def step_seconds() -> float:
    """The step time limit :func:`guarded` uses (``STEP_SECONDS`` unless :func:`step_limit`)."""
    return _default["seconds"]


@contextlib.contextmanager
def step_limit(seconds: float | None) -> Iterator[None]:
    """Within the block, guarded runs allow ``seconds`` per call (None: unchanged)."""
    if seconds is None:
        yield
        return
    if seconds <= 0:
        raise ValueError(f"a step time limit must be positive, not {seconds!r}")
    previous = _default["seconds"]
    _default["seconds"] = seconds
    try:
        yield
    finally:
        _default["seconds"] = previous


class StepTimeout(BaseException):
    """A call of the target did not return within the step time limit."""


def timeouts() -> int:
    """How many calls the step time limit has interrupted in this process so far (each one
    waited out the whole limit)."""
    return int(_state["timeouts"])


def _alarm(signum: int, frame: Any) -> None:
    raise StepTimeout()


def call_limited(fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Any:
    """``fn(*args, **kwargs)``, interrupted with :class:`StepTimeout` past the limit.

    The alarm repeats (every tenth of the limit, at least a second apart) until the call
    ends: a ``StepTimeout`` raised where Python cannot propagate it (in a garbage-collector
    callback, say, which reports it as unraisable and goes on) is raised again later, once
    the report of the first is done, so a hang always ends."""
    seconds = _state["seconds"]
    if not seconds or threading.current_thread() is not threading.main_thread():
        return fn(*args, **kwargs)
    signal.setitimer(signal.ITIMER_REAL, seconds, max(seconds / 10, 1.0))
    try:
        return fn(*args, **kwargs)
    except StepTimeout:
        _state["timeouts"] += 1
        raise
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


def _vm_size() -> int | None:
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmSize:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        return None
    return None


@contextlib.contextmanager
def memory_ceiling(extra: int = MEMORY_HEADROOM) -> Iterator[None]:
    """Cap the address space at its current size plus ``extra`` bytes (where supported)."""
    try:
        import resource
    except ImportError:  # not a POSIX system: no ceiling
        yield
        return
    size = _vm_size()
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    limit = None if size is None else size + extra
    if limit is None or (soft != resource.RLIM_INFINITY and soft <= limit):
        yield
        return
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


@contextlib.contextmanager
def guarded(seconds: float | None = None, memory: bool = True) -> Iterator[None]:
    """Within the block, target calls made through :func:`call_limited` have a time limit
    (``seconds``, default :func:`step_seconds`) and the process a memory ceiling. Nested use
    keeps the outer settings."""
    seconds = seconds or step_seconds()
    if _state["seconds"] or threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGALRM, _alarm)
    _state["seconds"] = seconds
    try:
        with memory_ceiling() if memory else contextlib.nullcontext():
            yield
    finally:
        _state["seconds"] = 0.0
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
