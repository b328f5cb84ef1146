"""A timer coarser than a tick, with a declared ``resolution``, is late by at most that much
after its deadline -- or after the instant it was scheduled, when its deadline had already
passed (specs/wheel.md WI3): a timer scheduled with a negative delay cannot fire before it
exists, so its lateness is not counted from the past deadline."""

from __future__ import annotations

import itertools
from typing import Any

from schedcheck.harness.wheel.suite import run_wheel_suite
from schedcheck.targets.adapters import WheelAdapter, WheelCapabilities

UNIT = 5
_KEYS = itertools.count()  # unique across wheels: a foreign handle never names one of ours


class NextSlotRing(WheelAdapter):
    """A ring of UNIT-unit slots that never files a timer into the slot about to expire (the
    classic "insert at least one slot ahead"): up to two slots late, as declared."""

    capabilities = WheelCapabilities(cancel="raises", validates_args=False, due_ticks=False,
                                     resolution=2 * UNIT)
    extra_slots = 0

    def build(self, tick: int, wheel_size: int) -> None:
        self.slots: dict[int, dict[int, Any]] = {}
        self.turned = 0  # slots 0 .. turned - 1 have expired

    def add(self, deadline: int, fire: Any) -> tuple[int, int]:
        slot = max(-(-deadline // UNIT), self.turned + 1) + self.extra_slots
        key = next(_KEYS)
        self.slots.setdefault(slot, {})[key] = fire
        return slot, key

    def remove(self, token: tuple[int, int]) -> None:
        del self.slots[token[0]][token[1]]  # KeyError once it has fired

    def run_until(self, now: int) -> None:
        while self.turned <= now // UNIT:
            for fire in self.slots.pop(self.turned, {}).values():
                fire()
            self.turned += 1

    def count(self) -> int:
        return sum(len(s) for s in self.slots.values())


class ThreeSlotsLate(NextSlotRing):
    """The same ring filing every timer three slots further: later than it declares."""

    extra_slots = 3


def _verdicts(adapter: type) -> dict[str, str]:
    result = run_wheel_suite(adapter, examples=60, seed=1, shrink=False)
    return {cid: s.verdict for cid, s in result.stats.items()}


def test_a_past_deadline_is_late_from_the_instant_it_was_scheduled() -> None:
    verdicts = _verdicts(NextSlotRing)
    assert [c for c, v in verdicts.items() if v == "broken"] == []
    assert verdicts["W-INV-LATE"] == verdicts["W-INV-EARLY"] == "held"


def test_later_than_the_declared_resolution_is_still_broken() -> None:
    assert _verdicts(ThreeSlotsLate)["W-INV-LATE"] == "broken"
