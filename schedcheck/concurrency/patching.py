"""Swap threading's primitives for the baton's cooperative ones, for a stranger's code.

Our implementations take their lock through ``lock_factory``; a stranger's code calls
``threading.Lock()`` and friends directly. :func:`patched` replaces, for the duration of a
``with`` block, ``threading.Lock/RLock/Condition/Event/Semaphore/BoundedSemaphore/Thread`` and
``queue.Queue`` with :mod:`schedcheck.concurrency.primitives`, in the ``threading`` and ``queue``
modules *and* in the namespaces of the given modules (a module that did
``from threading import Lock`` holds its own reference). Construct the target inside the block:
a primitive built before the patch is real, and the controller cannot see it -- a run that
blocks on it is reported as a lost baton (``SchedcheckInternalError``), never as a verdict.

The originals are restored on exit, also when the block raises.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from types import ModuleType
from typing import Any

from schedcheck.concurrency import primitives

_REPLACEMENTS: dict[str, Any] = {
    "Lock": primitives.Lock,
    "RLock": primitives.RLock,
    "Condition": primitives.Condition,
    "Event": primitives.Event,
    "Semaphore": primitives.Semaphore,
    "BoundedSemaphore": primitives.BoundedSemaphore,
    "Thread": primitives.Thread,
}


@contextmanager
def patched(modules: Iterable[ModuleType] = ()) -> Iterator[list[str]]:
    """Replace the primitives; yields the list of names replaced (``"threading.Lock"``, ...)."""
    saved: list[tuple[Any, str, Any]] = []
    replaced: list[str] = []

    def swap(owner: Any, name: str, new: Any) -> None:
        saved.append((owner, name, getattr(owner, name)))
        setattr(owner, name, new)
        replaced.append(f"{getattr(owner, '__name__', owner)}.{name}")

    real = {name: getattr(threading, name) for name in _REPLACEMENTS}
    real_queue = queue.Queue
    try:
        for name, new in _REPLACEMENTS.items():
            swap(threading, name, new)
        swap(queue, "Queue", primitives.Queue)
        for module in modules:
            for attr, value in list(vars(module).items()):
                for name, new in _REPLACEMENTS.items():
                    if value is real[name]:
                        swap(module, attr, new)
                if value is real_queue:
                    swap(module, attr, primitives.Queue)
                if value is threading:
                    continue
        yield replaced
    finally:
        for owner, name, old in reversed(saved):
            setattr(owner, name, old)


def patchable(obj: Any) -> bool:
    """True when ``obj`` (a class or factory) takes a ``lock_factory`` keyword (our impls)."""
    import inspect

    try:
        params = inspect.signature(obj).parameters
    except (TypeError, ValueError):
        return False
    return "lock_factory" in params
