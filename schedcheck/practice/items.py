"""Every graded item of both systems, and :func:`grade` -- one answer, one card.

``grade("wheel", MyWheel)`` runs every item of the wheel on ``MyWheel`` (contract-shaped, or
with ``seed_shaped=True`` written in the interview text's names, see
:mod:`schedcheck.practice.shapes`) and returns a :class:`~schedcheck.practice.grading.Card`;
:func:`~schedcheck.practice.grading.render_card` prints it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from schedcheck import systems
from schedcheck.practice.grading import Card, Item, grade_items
from schedcheck.practice.shapes import seed_shaped_scheduler, seed_shaped_wheel

__all__ = ["SYSTEMS", "grade", "guess_system", "item_ids", "items_for"]

SYSTEMS = systems.names()


def _scheduler_items() -> tuple[Item, ...]:
    from schedcheck.practice.scheduler_items import ITEMS

    return ITEMS


def _wheel_items() -> tuple[Item, ...]:
    from schedcheck.practice.wheel_items import ITEMS

    return ITEMS


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
    """Grade ``cls`` item by item; every item runs whatever the others found."""
    items = items_for(system)
    if seed_shaped:
        factory = _SEED_SHAPED[system](cls)
    else:
        factory = cls
    return grade_items(items, factory, system=system, name=name or getattr(cls, "__name__", "?"),
                       cost=cost)
