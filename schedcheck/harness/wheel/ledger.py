"""The wheel suite's ledger: every timer of one run, as the contract and as the target see it.

The reference model (``schedcheck.model.TimingWheel``) is the oracle the target is compared
with. The ledger is a second, independent reading of the same rules, kept by the harness for
three jobs the model's public surface cannot do:

* it cross-checks the model (a disagreement is ``SchedcheckInternalError``: a bug in
  schedcheck, never a counterexample);
* it knows each timer's contract *due tick*, *bucket* and *rounds*, so counterexamples get a
  picture of the wheel (``snapshot()``, computed from the contract, since a stranger's wheel has
  no visible buckets) and tolerance mode can say "timer h_3 (deadline 17) fired at tick 5,
  contract due tick 4";
* it keeps the *target's* view of each timer (``t_state``), which the invariants (never early,
  at most once, never after a cancel, ``pending()`` = live) are checked against -- in tolerance
  mode these are the only checks.

Rules (specs/wheel.md sections 1 and 3, decision 2): the cursor starts at ``start // tick``;
``advance(now)`` processes ticks ``cursor .. now // tick``, at most ``budget`` of them; a
timer's due tick is ``max(ceil(deadline / tick), cursor)``; fired handles come ordered by (due
tick, schedule order). O(live timers) per advance: this is a test oracle, not a wheel.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["Ledger", "TimerRecord"]

LIVE = "live"
FIRED = "fired"
CANCELLED = "cancelled"


def ceil_div(a: int, b: int) -> int:
    """``ceil(a / b)`` in integers (specs/wheel.md section 1)."""
    return -(-a // b)


@dataclass
class TimerRecord:
    """One successful ``schedule``: its contract fate and its fate in the target."""

    name: str  #: ``h_<seq>``: the seq-th successful schedule of the run
    seq: int
    deadline: int
    callback: str  #: the callback's name, ``cb_<k>``
    raises: bool  #: whether the callback raises when run
    due_tick: int  #: max(ceil(deadline / tick), cursor at schedule) -- rule 2
    scheduled_at: int = 0  #: the last ``now`` when it was scheduled (WI3 counts from here too)
    state: str = LIVE  #: the contract's (model's) view: live | fired | cancelled
    at_tick: int | None = None  #: fired: its due tick; cancelled: the cursor at cancel
    t_state: str = LIVE  #: the target's view (differs from ``state`` only in tolerance mode)
    t_ticks: tuple[int, int] | None = None  #: ticks the target's firing advance processed
    #: names of the timers whose ``schedule`` calls overlapped this one's in a concurrent round:
    #: which of them was scheduled first is not observable, so neither is their tie order
    unordered: frozenset[str] = frozenset()


def same_up_to_unordered_ties(expected: list[TimerRecord], names: list[str]) -> bool:
    """Whether ``names`` is ``expected`` with, at most, timers of one due tick reordered among
    themselves where their ``schedule`` calls overlapped (:attr:`TimerRecord.unordered`): a
    linearization may have put either first, and nothing after the round tells which."""
    if len(expected) != len(names):
        return False
    for rec, name in zip(expected, names):
        if rec.name == name:
            continue
        other = next((r for r in expected if r.name == name), None)
        if other is None or other.due_tick != rec.due_tick or name not in rec.unordered:
            return False
    return sorted(names) == sorted(r.name for r in expected)


class Ledger:
    """Cursor, last ``now`` and timers of one run, by the contract's rules."""

    def __init__(
        self,
        tick: int,
        wheel_size: int,
        start: int,
        budget: int | None,
        max_pending: int | None,
    ) -> None:
        self.tick = tick
        self.wheel_size = wheel_size
        self.budget = budget
        self.max_pending = max_pending
        self.cursor = start // tick  #: the next tick to process (rule 1)
        self.now = start  #: the last now seen
        self.timers: list[TimerRecord] = []
        self.cancel_log: list[tuple[int, str]] = []  #: (cursor at cancel, name)

    # ------------------------------------------------------------------ queries

    def live(self) -> list[TimerRecord]:
        return [r for r in self.timers if r.state == LIVE]

    def t_live(self) -> list[TimerRecord]:
        return [r for r in self.timers if r.t_state == LIVE]

    def lag(self) -> int:
        """Ticks ``<= now // tick`` not processed yet (rule 1; 1 on a fresh wheel)."""
        return self.now // self.tick + 1 - self.cursor

    def full(self, live_count: int) -> bool:
        return self.max_pending is not None and live_count >= self.max_pending

    def due_tick(self, deadline: int) -> int:
        return max(ceil_div(deadline, self.tick), self.cursor)

    def window(self, now: int) -> tuple[int, int]:
        """The ticks ``advance(now)`` processes: ``(first, last)``; empty when last < first."""
        last = now // self.tick
        if self.budget is not None:
            last = min(last, self.cursor + self.budget - 1)
        return self.cursor, last

    # ------------------------------------------------------------------ transitions

    def schedule(self, deadline: int, callback: str, raises: bool) -> TimerRecord:
        seq = len(self.timers)
        rec = TimerRecord(
            name=f"h_{seq}",
            seq=seq,
            deadline=deadline,
            callback=callback,
            raises=raises,
            due_tick=self.due_tick(deadline),
            scheduled_at=self.now,
        )
        self.timers.append(rec)
        return rec

    def cancel(self, rec: TimerRecord) -> bool:
        if rec.state != LIVE:
            return False
        rec.state = CANCELLED
        rec.at_tick = self.cursor
        self.cancel_log.append((self.cursor, rec.name))
        return True

    def advance(self, now: int) -> list[TimerRecord]:
        """Apply ``advance(now)`` (``now >= self.now``); return the records fired, in order."""
        if now < self.now:
            raise ValueError("ledger.advance went back in time (the harness checks first)")
        self.now = now
        first, last = self.window(now)
        if last < first:
            return []
        fired = sorted(
            (r for r in self.timers if r.state == LIVE and r.due_tick <= last),
            key=lambda r: (r.due_tick, r.seq),
        )
        for rec in fired:
            rec.state = FIRED
            rec.at_tick = rec.due_tick
        self.cursor = last + 1
        return fired

    # ------------------------------------------------------------------ pictures

    def snapshot(self) -> dict[str, Any]:
        """The wheel as the contract sees it (specs/wheel.md WI4: the informative buckets)."""
        w = self.wheel_size
        timers = [
            {
                "name": r.name,
                "deadline": r.deadline,
                "callback": r.callback,
                "due_tick": r.due_tick,
                "bucket": r.due_tick % w,
                "rounds": (r.due_tick - self.cursor) // w,
                "state": r.state,
                "target_state": r.t_state,
            }
            for r in self.timers
        ]
        events: dict[int, dict[str, list[str]]] = {}
        for r in self.timers:
            if r.state == FIRED and r.at_tick is not None:
                events.setdefault(r.at_tick, {"fired": [], "cancelled": []})["fired"].append(
                    r.name
                )
        for at, name in self.cancel_log:
            events.setdefault(at, {"fired": [], "cancelled": []})["cancelled"].append(name)
        timeline = [
            {"tick": k, "fired": v["fired"], "cancelled": v["cancelled"]}
            for k, v in sorted(events.items())
        ]
        return {
            "tick": self.cursor,
            "tick_size": self.tick,
            "wheel_size": w,
            "now": self.now,
            "lag_ticks": self.lag(),
            "max_catchup_ticks": self.budget,
            "max_pending": self.max_pending,
            "timers": timers,
            "timeline": timeline,
        }
