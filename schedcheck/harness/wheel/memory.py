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

from typing import Any

# the walk lives with the replay's runtime (standard library only), so that a replay.py
# counts the entries exactly as the check did
from schedcheck.report.replay_runtime import MAX_WALK, entries_held

__all__ = ["EXEMPT", "MAX_WALK", "entries_held", "entry_bound", "exempt"]

#: A wheel class (or factory) with this attribute true declares that it keeps every timer it
#: made (the reference model does, by seq): W-MEM is then "not supported", never broken.
EXEMPT = "keeps_every_timer"

def entry_bound(pending: int) -> int:
    """The most timer entries a wheel may hold with ``pending`` timers pending, after a call
    (specs/wheel.md "Memory bound": ``2 x pending + c`` with ``c = 0``: a wheel with nothing
    pending holds nothing)."""
    return 2 * pending


def exempt(obj: Any) -> bool:
    """Whether ``obj`` (a wheel or its factory) declares :data:`EXEMPT`."""
    return getattr(obj, EXEMPT, False) is True
