"""What the wheel suite draws: wheel configurations, deadlines, delays and advances.

* :data:`TICKS`, :data:`WHEEL_SIZES`, :data:`STARTS` and :func:`configs` -- the constructor
  arguments of one example, drawing only the optional arguments the target accepts
  (``wheel.fixtures.probe``); :func:`record_unsupported` writes the parts it lacks into the
  run's result as "not supported";
* :data:`DEADLINE_KINDS`, :data:`DELAY_KINDS`, :data:`ADVANCE_KINDS` -- the kinds of value
  the rules of ``wheel_suite.WheelMachine`` turn into numbers against the ledger's clock;
  :data:`HUGE` a deadline far beyond 2**40; :data:`MAX_JUMP_TICKS` the longest ``advance``.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from schedcheck.harness.clauses import W1, W5, W_T4
from schedcheck.harness.result import RunResult
from schedcheck.harness.wheel.fixtures import EXECUTOR_POLICIES, Support

__all__ = [
    "ADVANCE_KINDS",
    "DEADLINE_KINDS",
    "DELAY_KINDS",
    "HUGE",
    "MAX_JUMP_TICKS",
    "STARTS",
    "TICKS",
    "WHEEL_SIZES",
    "configs",
    "placement",
    "record_unsupported",
]

TICKS = (1, 2, 3, 4, 5, 8, 10, 16)
WHEEL_SIZES = (1, 2, 3, 4, 5, 7, 8, 16, 64)
STARTS = (0, 1, -1, 7, -13, 100, 2**41 + 3, -(2**41))
HUGE = 2**40
DEADLINE_KINDS = ("past", "now", "cursor", "soon", "soon", "in_rotation", "one_rotation",
                  "rotations", "same_bucket", "boundary", "huge")
DELAY_KINDS = ("negative", "zero", "small", "rotation", "rotations", "huge")
ADVANCE_KINDS = ("same", "plus_one", "fraction", "one_tick", "boundary", "many", "many",
                 "next_due", "next_due", "to_deadline",
                 "earlier", "stall")
#: The longest advance the suite makes, in ticks ("stall" draws up to 10 * W + 1000).
MAX_JUMP_TICKS = 2000


def configs(support: Support) -> st.SearchStrategy[dict[str, Any]]:
    opt: dict[str, st.SearchStrategy[Any]] = {}
    if "start" in support.args:
        opt["start"] = st.sampled_from(STARTS)
    if "max_catchup_ticks" in support.args:
        # None is drawn half the time: a budget or a cap narrows what the other rules reach
        opt["max_catchup_ticks"] = st.sampled_from((None,) * 5 + (1, 2, 3, 5, 100))
    if "max_pending" in support.args:
        opt["max_pending"] = st.sampled_from((None,) * 6 + (0, 1, 2, 3, 5, 8))
    if "executor" in support.args:
        opt["executor"] = st.sampled_from((None, *EXECUTOR_POLICIES))
    return st.fixed_dictionaries({"tick": st.sampled_from(TICKS),
                                  "wheel_size": st.sampled_from(WHEEL_SIZES),
                                  "options": st.fixed_dictionaries(opt)})


def record_unsupported(result: RunResult, support: Support) -> None:
    clause_of = {"max_catchup_ticks": W1, "lag_ticks": W1, "max_pending": W5,
                 "executor": W_T4, "callback_errors": W_T4}
    for part in support.missing:
        if part not in result.unsupported:
            result.unsupported.append(part)
        if part in clause_of:
            result.unsupported_clause(clause_of[part], part)
    caps = support.caps
    how = "declared" if support.declared else "probed"
    for part in caps.missing():
        if part not in result.unsupported:
            result.unsupported.append(f"{part} ({how})")
    if caps.max_delay is not None:  # deadlines far ahead (many rotations) are part of W-T1
        result.unsupported_clause("W-T1", f"delays beyond {caps.max_delay} (a bounded "
                                          f"horizon, {how})")
    if not caps.validates_args:
        result.unsupported_clause("W6", f"TypeError/ValueError for malformed arguments ({how})")
    if not caps.counts_pending:
        result.unsupported_clause("W-INV-PENDING", f"its own count of pending timers ({how})")
    if not caps.due_ticks:
        for cid in ("W2", "W3", "W-T1"):
            result.unsupported_clause(cid, f"the contract's exact due ticks: it fires at the "
                                           f"deadline itself ({how})")
    if caps.handles != "checked":
        result.unsupported_clause("W4", f"refusing another wheel's handle: a handle cancels "
                                        f"itself ({how})")
    if caps.early_by is not None:
        result.unsupported_clause("W-INV-EARLY", f"never firing early: it may fire up to "
                                                 f"{caps.early_by} units early by design ({how})")
    if caps.cancel == "none":
        result.unsupported_clause("W4", f"cancel() saying whether it stopped the timer: it "
                                        f"returns None ({how})")
    if caps.cancel == "missing":
        for cid in ("W4", "W-T3"):
            result.unsupported_clause(cid, f"cancel() ({how})")


def placement(ledger: Any, value: Any, *, after: bool) -> str:
    """Where a timer scheduled with ``value`` (a deadline, or with ``after`` a delay) lands,
    in words, from the ledger's now, cursor, tick and wheel size as they are now."""
    if not isinstance(value, int) or isinstance(value, bool):
        return f"a malformed {'delay' if after else 'deadline'}"
    now, tick, size = ledger.now, ledger.tick, ledger.wheel_size
    deadline = now + value if after else value
    if after and value < 0:
        return "a negative delay: due at the next tick processed"
    if after and value == 0:
        return "a zero delay"
    if deadline < now:
        return "a deadline already passed: due at the next tick processed"
    if deadline - now >= HUGE:
        return "a huge deadline"
    ahead = -(-deadline // tick) - ledger.cursor
    if ahead < size:
        return "within this rotation"
    if ahead < 2 * size:
        return "one rotation away"
    return f"{ahead // size} rotations away"
