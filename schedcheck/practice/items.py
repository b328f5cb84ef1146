"""Every graded item of both systems, and :func:`grade` -- one answer, one card.

``grade("wheel", MyWheel)`` runs every item of the wheel on ``MyWheel`` (contract-shaped, or
with ``seed_shaped=True`` written in the interview text's names, see
:mod:`schedcheck.practice.shapes`) and returns a :class:`~schedcheck.practice.grading.Card`;
:func:`~schedcheck.practice.grading.render_card` prints it.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

from schedcheck import systems
from schedcheck.practice.grading import Card, Item, declared_lack, grade_items
from schedcheck.practice.shapes import seed_shaped_scheduler, seed_shaped_wheel
from schedcheck.targets.adapters import SchedulerCapabilities, WheelCapabilities, capabilities_of

__all__ = ["SYSTEMS", "grade", "guess_system", "item_ids", "items_for", "lacking_items"]

SYSTEMS = systems.names()


@cache
def _scheduler_items() -> tuple[Item, ...]:
    from schedcheck.practice.constructor import constructor_item
    from schedcheck.practice.scheduler_items import ITEMS

    return (*ITEMS, constructor_item("scheduler", 5))


@cache
def _wheel_items() -> tuple[Item, ...]:
    from schedcheck.practice.constructor import constructor_item
    from schedcheck.practice.wheel_items import ITEMS

    return (*ITEMS, constructor_item("wheel", 5))


#: Each system's graded items (loaded on first use) and its seed-shaped adapter.
_ITEMS: dict[str, Callable[[], tuple[Item, ...]]] = {"scheduler": _scheduler_items,
                                                     "wheel": _wheel_items}
_SEED_SHAPED: dict[str, Callable[[Any], Any]] = {"scheduler": seed_shaped_scheduler,
                                                 "wheel": seed_shaped_wheel}


def items_for(system: str) -> tuple[Item, ...]:
    return _ITEMS[systems.get(system).name]()


def item_ids() -> set[str]:
    return {it.id for system in SYSTEMS for it in items_for(system)}


def guess_system(cls: Any) -> str | None:
    """'wheel' for a class with advance() and schedule(), 'scheduler' for submit() and
    ready(), None otherwise."""
    if callable(getattr(cls, "advance", None)) and callable(getattr(cls, "schedule", None)):
        return "wheel"
    if callable(getattr(cls, "submit", None)) and callable(getattr(cls, "ready", None)):
        return "scheduler"
    return None


def grade(system: str, cls: Any, *, seed_shaped: bool = False, cost: bool = True,
          name: str = "") -> Card:
    """Grade ``cls`` item by item; every item runs whatever the others found. Items that need
    a part the class declares it lacks (its ``capabilities``, the same
    ``SchedulerCapabilities``/``WheelCapabilities`` that ``schedcheck check`` reads) are not
    attempted."""
    items = items_for(system)
    if seed_shaped:
        factory = _SEED_SHAPED[system](cls)
    else:
        factory = cls
    return grade_items(items, factory, system=system, name=name or getattr(cls, "__name__", "?"),
                       cost=cost, lacking=lacking_items(cls))


def lacking_items(cls: Any) -> dict[str, str]:
    """Item id -> what the class declares it lacks, for the items that need that part."""
    caps = capabilities_of(cls)
    out: dict[str, str] = {}

    def lack(ids: tuple[str, ...], what: str) -> None:
        for item_id in ids:
            out.setdefault(item_id, declared_lack(what))

    if getattr(cls, "runs_elsewhere", False):  # an --exec target: its steps are not countable
        for item in (*items_for("scheduler"), *items_for("wheel")):
            if item.cost:
                out.setdefault(item.id, "the target runs in another process: its cost (Python "
                                        "steps counted here) cannot be measured")

    if isinstance(caps, WheelCapabilities):
        if not caps.validates_args:
            lack(("W-polish-1", "W-polish-3", "W-polish-4", "W-polish-5"), "validates_args")
        if caps.cancel == "missing":
            lack(("W-T3", "W-M4", "W-F3", "W-polish-1", "W-polish-2"), "cancel")
        elif caps.cancel != "bool":
            lack(("W-F3", "W-polish-2"), "a cancel() answering True/False")
        if caps.handles != "checked":
            lack(("W-polish-2",), "refusing another wheel's handle")
        if not caps.due_ticks:
            lack(("W-T1", "W-F2"), "the contract's exact due ticks")
        if caps.max_delay is not None:
            lack(("W-F4",), f"delays beyond {caps.max_delay}")
    elif isinstance(caps, SchedulerCapabilities):
        if not caps.generations:
            lack(("S-T5", "S-T6", "S-M4", "S-M8"), "generations")
        if not caps.fail:
            lack(("S-T1", "S-T4", "S-M1", "S-M5", "S-M8", "S-M4", "S-T6"), "fail")
        if not caps.cancel:
            lack(("S-T1", "S-T4", "S-M1", "S-M6", "S-F4"), "cancel")
        if not caps.close:
            lack(("S-polish-4",), "close")
        if not caps.validates_args:
            lack(("S-polish-1", "S-polish-2", "S-polish-5"), "validates_args")
        if not caps.unknown_deps:
            lack(("S-polish-4",), "UnknownDependencyError")
        if not caps.info:
            lack(tuple(it.id for it in items_for("scheduler") if it.check is not None
                       and not it.cost), "info")
    return out
