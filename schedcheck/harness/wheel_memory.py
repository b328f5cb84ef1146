"""W-MEM: the wheel's memory bound, read from the outside after every call.

specs/wheel.md ("Costs", decision 8) bounds what a wheel keeps: after any call it holds at most
:func:`entry_bound` ``(pending)`` timer entries, cancelled shells included -- a wheel that
cancels lazily must compact before the shells pile up. The bound is read through
:func:`entry_bound` alone, so restating it in the spec is a one-line change here.

No target is asked to count its own entries. :func:`entries_held` counts the distinct handles
(objects a ``schedule`` returned) still reachable from the wheel object, walking the
references of its attributes and containers (``gc.get_referents``) without entering the
objects the harness handed it (executor, callbacks), code (functions, methods, classes,
modules: what they reach is not the wheel's) or the handles themselves. A handle kept in two
containers (a bucket and an index) counts once; an entry that does not reference its handle is
not seen (the bound is then checked on what is seen). A walk that meets more than
:data:`MAX_WALK` objects gives up (``None``: not measured), so a target that references a
large foreign structure costs nothing and is never judged on it. A wheel that declares it
keeps every timer (:data:`EXEMPT`, as the reference model does) is not checked.
"""

from __future__ import annotations

import gc
import types
from collections.abc import Iterable
from typing import Any

__all__ = ["EXEMPT", "MAX_WALK", "entries_held", "entry_bound", "exempt"]

#: A wheel class (or factory) with this attribute true declares that it keeps every timer it
#: made (the reference model does, by seq): W-MEM is then "not supported", never broken.
EXEMPT = "keeps_every_timer"

#: Objects one walk may visit before it gives up (a wheel of the suite holds a few hundred).
MAX_WALK = 20_000

#: Referents never entered: code and namespaces, whose references are not the wheel's data.
_OPAQUE = (type, types.ModuleType, types.FunctionType, types.MethodType,
           types.BuiltinFunctionType, types.CodeType, types.FrameType)


def entry_bound(pending: int) -> int:
    """The most timer entries a wheel may hold with ``pending`` timers pending, after a call
    (specs/wheel.md "Memory bound": ``2 x pending``; two entries of slack for a wheel that frees a
    fired or cancelled timer one call late)."""
    return 2 * pending + 2


def exempt(obj: Any) -> bool:
    """Whether ``obj`` (a wheel or its factory) declares :data:`EXEMPT`."""
    return getattr(obj, EXEMPT, False) is True


def entries_held(wheel: Any, handles: Iterable[Any], *, skip: Iterable[Any] = ()) -> int | None:
    """How many of ``handles`` are reachable from ``wheel`` through its data (see the module
    docstring), or None if the walk gave up. ``skip``: objects not to enter (the executor, the
    callbacks given to the wheel)."""
    wanted = {id(h) for h in handles}
    stop = {id(x) for x in skip} | {id(wheel)}
    seen: set[int] = set(stop)
    found: set[int] = set()
    todo = [x for x in gc.get_referents(wheel) if not isinstance(x, type)]
    visited = 0
    while todo:
        obj = todo.pop()
        key = id(obj)
        if key in seen:
            continue
        seen.add(key)
        if key in wanted:
            found.add(key)
            continue  # a handle's own references are not the wheel's entries
        if isinstance(obj, _OPAQUE) or not gc.is_tracked(obj):
            continue
        visited += 1
        if visited > MAX_WALK:
            return None
        todo.extend(gc.get_referents(obj))
    return len(found)
