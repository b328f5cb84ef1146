"""Which graded item owns a timer the learner's wheel fired at the wrong time, or lost: the
rules :func:`disagreement` (``schedcheck.practice.wheel_items``) applies to the timer a step
shows wrong, so that each miss is shown under the item whose rule it broke.

A deadline already past when it was scheduled belongs to ``W-T1``; a timer due inside the
ticks an advance catches up to ``W-M7`` (or ``W-M3`` for one with rounds left); one fired a
rotation or more early to ``W-M2`` or ``W-M3`` by how early; a long delay to ``W-F4``; a
relative delay to ``W-M1``. ``"A|B"`` names items either of which may own it (the one that
found it, else A).
"""

from __future__ import annotations

__all__ = ["Timers", "early_by", "most_telling"]


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
