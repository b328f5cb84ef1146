"""Which graded item owns a timer the learner's wheel fired at the wrong time, or lost: the
rules :func:`disagreement` (``schedcheck.practice.wheel_items``) applies to the timer a step
shows wrong, so that each miss is shown under the item whose rule it broke.

A deadline already past when it was scheduled belongs to ``W-T1``; a timer due inside the
ticks an advance catches up to ``W-M7`` (or ``W-M3`` for one with rounds left); one fired a
rotation or more early to ``W-M2`` or ``W-M3`` by how early; a long delay to ``W-F4``; a
relative delay to ``W-M1``. ``"A|B"`` names items either of which may own it (the one that
found it, else A). A timer more than a rotation away that is late, not lost, is named by how
late it fires when the wheel is advanced on (:func:`late_owner`).
"""

from __future__ import annotations

from typing import Any

from schedcheck.harness import guard

__all__ = ["LOST", "Timers", "early_by", "late_owner", "most_telling"]

#: Owners of a timer not fired in time that may be late rather than lost (:func:`late_owner`)
LOST = ("W-M3", "W-F4|W-M3")


class Timers:
    """What the grader knows of each timer, by schedule order: its deadline, how it was
    scheduled, and the model's due tick and cursor at that moment (for :meth:`owner`)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.deadline: list[int] = []
        self.relative: list[bool] = []
        self.past: list[bool] = []
        self.due: list[int] = []
        self.distance: list[int] = []  #: due tick - cursor when scheduled

    def add(self, deadline: int, relative: bool, last_now: int, due: int, cursor: int) -> None:
        self.deadline.append(deadline)
        self.relative.append(relative)
        self.past.append(deadline < last_now)
        self.due.append(due)
        self.distance.append(due - cursor)

    def describe(self, k: int) -> str:
        """What timer ``k`` is, for a message: its deadline and due tick, and why it is
        special (a deadline already passed, more than a rotation away, relative)."""
        extra = ("a deadline already passed when it was scheduled: due at the next tick "
                 "processed" if self.past[k] else
                 f"{self.distance[k]} ticks away: more than a rotation of {self.size}"
                 if self.distance[k] >= self.size else
                 "scheduled with schedule_after" if self.relative[k] else "")
        return (f" (h{k}: deadline {self.deadline[k]}, due tick {self.due[k]}"
                f"{'; ' + extra if extra else ''})")

    def owner(self, k: int, *, early: bool, skipped: range,
              early_by: tuple[int, int] = (0, 0)) -> str:
        """The item whose rule timer ``k`` broke by firing at the wrong time (when early:
        ``early_by`` the least and the most ticks before its due tick it can have fired,
        as one advance processes several ticks)."""
        if self.past[k]:
            return "W-T1"  # a deadline already passed is due at the next tick processed
        if self.due[k] in skipped and not early:
            # due inside a stall: the missed ticks must be processed -- or, for a timer more
            # than a rotation away, a node with rounds left dropped from its bucket
            return "W-M7|W-M3" if self.distance[k] >= self.size else "W-M7"
        if self.distance[k] >= self.size and early:
            # Rounds lost fire a timer at the first visit of its bucket: as many rotations
            # early as it had rounds. A not-yet-due node fired from the bucket under the
            # cursor fires one rotation early, whatever its rounds. Two rotations early or
            # more is the first; one rotation early with two rounds or more, the second;
            # with one round the two look the same from outside.
            least, most = early_by
            if least >= 2 * self.size:
                return "W-M2"
            if least <= self.size <= most:  # one rotation early
                return "W-M3" if self.distance[k] >= 2 * self.size and most < 2 * self.size \
                    else "W-M2|W-M3"
            if most < self.size:  # early by less than a rotation: the due tick itself
                return "W-T2|W-F4" if self.distance[k] >= 8 * self.size else "W-T2"
            return "W-M2|W-M3"
        if self.distance[k] >= 8 * self.size:
            return "W-F4|W-M3"  # lost: a long delay, or any node with rounds left dropped
        if self.distance[k] >= self.size:
            return "W-M3"
        if self.relative[k]:
            return "W-M1"
        return "W-T2" if early else "W-T1"


def early_by(timers: Timers, k: int, ticks: tuple[int, int]) -> tuple[int, int]:
    """How early timer ``k`` fired, in ticks, at least and at most, in an advance that
    processed the ticks ``ticks[0]..ticks[1]``."""
    first, last = ticks
    return timers.due[k] - last, timers.due[k] - min(first, last)


def most_telling(timers: Timers, early: list[int], ticks: tuple[int, int],
                  skipped: range) -> int:
    """Of the timers one advance fired early, the first whose owner is one item (not
    "either of two"): it tells which mistake the class made; else the first."""
    for k in early:
        if "|" not in timers.owner(k, early=True, skipped=skipped,
                                   early_by=early_by(timers, k, ticks)):
            return k
    return early[0]


def late_owner(timers: Timers, k: int, now: int, tick: int, wheel: Any, handles: list[Any],
               ran: list[int]) -> tuple[str, str] | None:
    """For timer ``k``, not fired by ``now`` though due: advance ``wheel`` on, a tick at a
    time, up to a rotation past its due tick, and name the item by how late it fires --
    ``(owner, words)`` -- or None when that says nothing. One tick late with a deadline on a
    tick boundary: "the first tick at or after the deadline" read as "the next tick after it"
    (``W-T1``); one rotation late: a round too many (``W-M2``), not a node dropped from its
    bucket (``W-M3``). Called once the verdict is decided: the probe only names the mistake.
    ``ran``: the indices of the callbacks run so far (a wheel that runs them itself)."""
    due, size = timers.due[k], timers.size
    try:
        with guard.no_logging():
            for at in range(now // tick + 1, due + size + 1):
                before = len(ran)
                got = wheel.advance(at * tick) or ()
                if any(h is handles[k] for h in got) or k in ran[before:]:
                    break
            else:
                return None
    except Exception:  # the wheel's own failure is another item's (its verdict stands)
        return None
    words = f"; advanced on, it fires at now={at * tick}, "
    if at == due + 1 and timers.deadline[k] % tick == 0:
        return "W-T1", words + "a tick late: a deadline on a tick boundary is due at that tick"
    if at == due + size:
        return "W-M2", words + "a rotation late: a round too many"
    return None
