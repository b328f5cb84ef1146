"""The wheel suite's cancels: of a timer, of another wheel's handle, of a non-handle.

:class:`WheelCancels` sits between :class:`~schedcheck.harness.wheel.checks.WheelChecks` (the
state and the checks) and :class:`~schedcheck.harness.wheel.suite.WheelMachine` (the rules):
the ``cancel`` rule picks what to cancel and calls one of the two atomic operations here
(``program.atomic``), so a recorded program names the timer it cancels (``TimerName``) and a
replay with fewer timers cancels the same one. Also here: the wheel's half of the atomic
program (which timers an operation created, handles frozen as names) and its
``hypothesis.target`` scores (full wheels, long stalls, cancels after the due tick, entries
held beyond the memory bound).
"""

from __future__ import annotations

from typing import Any

import hypothesis
from hypothesis import event

from schedcheck.harness.common import Observed, Ref, call_code, check_expr, observe, observe_model
from schedcheck.harness.outcomes import CRASHED
from schedcheck.harness.program import Op, TimerName, atomic
from schedcheck.harness.wheel.checks import WheelChecks, factory_code, strict_bool
from schedcheck.harness.wheel.fixtures import Callback, CallLog
from schedcheck.harness.wheel.ledger import CANCELLED, FIRED, LIVE, TimerRecord

__all__ = ["WheelCancels"]


class WheelCancels(WheelChecks):
    """cancel() in its three forms, the wheel's program hooks and its search scores."""

    def __init__(self) -> None:
        super().__init__()
        self.fulls = 0  # schedules refused by a full wheel (a hypothesis.target score)
        self.longest_stall = 0  # most ticks one advance() covered (a hypothesis.target score)
        self.late_cancels = 0  # cancels at or after the due tick, or again (likewise)

    # ---------------------------------------------------------------- the atomic program

    def freeze_op(self, name: str, args: tuple[Any, ...],
                  kwargs: dict[str, Any]) -> tuple[tuple[Any, ...], dict[str, Any]]:
        args, kwargs = super().freeze_op(name, args, kwargs)
        return tuple(TimerName(a.name) if isinstance(a, TimerRecord) else a
                     for a in args), kwargs

    def thaw_op(self, op: Op) -> tuple[tuple[Any, ...], dict[str, Any]] | None:
        thawed = super().thaw_op(op)
        if thawed is None:
            return None
        args, kwargs = thawed
        by_name = {r.name: r for r in self.ledger.timers}
        out = []
        for a in args:
            if isinstance(a, TimerName):
                if a.name not in by_name:
                    return None
                a = by_name[a.name]
            out.append(a)
        return tuple(out), kwargs

    def made_names(self) -> list[str]:
        return [r.name for r in self.ledger.timers]

    def teardown(self) -> None:
        if self.target is not None:
            hypothesis.target(float(self.fulls), label="full wheel")
            hypothesis.target(float(self.longest_stall), label="ticks in one advance")
            hypothesis.target(float(self.late_cancels), label="late cancels")
            hypothesis.target(float(self.most_excess), label="entries over 2 x pending")
        super().teardown()

    # ---------------------------------------------------------------- cancel

    def _foreign_handles(self) -> tuple[Any, Any, Any]:
        """Another wheel built like this one (same ``start``) and a timer on it, one tick after
        its start. Every call to it is guarded: a refusal is a verdict, never a crash."""
        if self._foreign is None:
            led = self.ledger
            cb = Callback("cb_foreign", False, CallLog())
            start = {"start": self.options["start"]} if "start" in self.options else {}
            when = self.options.get("start", 0) + led.tick
            self._preamble_extra = [
                factory_code(led.tick, led.wheel_size, assign="other", **start),
                f"foreign = other.schedule(deadline={when}, "
                "callback=make_callback('cb_foreign'))"]
            self.announce_preamble()
            built = observe(self.factory, led.tick, led.wheel_size, **start)
            step = self.trace.add(self._preamble_extra[0], "build a second wheel")
            if not built.ok:
                self._fail("W6", f"a second wheel cannot be built with legal arguments: "
                           f"`{self._preamble_extra[0]}` {built.describe()}", step)
            other = built.value
            m_other = self.model_factory(led.tick, led.wheel_size, **start)
            made = observe(other.schedule, when, cb)
            step = self.trace.add(self._preamble_extra[1], "schedule a timer on it")
            if not made.ok:
                self._fail("W6", f"scheduling on a fresh wheel one tick after its start "
                           f"failed: `{self._preamble_extra[1]}` {made.describe()}", step)
            self._foreign = (other, made.value, m_other.schedule(when, cb))
        return self._foreign

    def _cancel_reply(self, handle: Any, expected: Observed) -> Observed:
        """The target's cancel reply, read through its declared or probed cancel style: an
        exception is "not cancelled" for a wheel that raises; None stands for the expected
        reply for one that always returns None (its timers' later fate is still checked)."""
        style = self.support.caps.cancel
        got = observe(self.target.cancel, handle, norm=None if style == "none" else strict_bool)
        if style == "none" and got.ok and got.value is None:
            return Observed(value=expected.value)
        if (style == "raises" and got.error is not None and expected.value is False
                and not got.error.startswith(CRASHED)):
            return Observed(value=False)
        return got

    @atomic
    def cancel_timer(self, rec: TimerRecord) -> None:
        """cancel() of a timer this wheel handed out, live, fired or cancelled already."""
        led = self.ledger
        state = rec.t_state if self.tolerance else rec.state
        at = ("after" if state == FIRED else "again" if state == CANCELLED else
              "at" if rec.due_tick <= led.cursor else "before")
        self.late_cancels += at != "before"
        event(f"cancel: {at} the due tick")
        step = self.trace.add(call_code("cancel", Ref(rec.name)),
                              f"cancel {rec.name} ({at} its due tick {rec.due_tick})")
        if self.tolerance:
            expected = Observed(value=rec.t_state == LIVE)
            led.cancel(rec)
        else:
            expected = observe_model(self.model.cancel, self.m_handles[rec.name])
            if expected.value != led.cancel(rec):
                self._internal(f"cancel({rec.name}): model {expected!r}")
        got = self._cancel_reply(self.t_handles[rec.name], expected)
        self.expect("W4", step, expected, got, check=check_expr(expected, None),
                    story="rule 4: cancel is True iff it stopped a live timer")
        self._ex("W4", "W-T3")
        if got.value is True:
            rec.t_state = CANCELLED

    @atomic
    def cancel_other(self, which: str) -> None:
        """cancel() of something that is not a handle (``"object"``) or of another wheel's
        handle (``"foreign"``)."""
        if which == "object":
            event("cancel: not a handle")
            step = self.trace.add("target.cancel('h_0')", "cancel something that is not a handle")
            self.compare_call("W4", step, self.model.cancel, self.target.cancel, "h_0")
            self._ex("W4", "W6")
            return
        event("cancel: another wheel's handle")
        other, t_foreign, m_foreign = self._foreign_handles()
        step = self.trace.add("target.cancel(foreign)", "cancel a handle of another wheel")
        expected = observe_model(self.model.cancel, m_foreign)
        got = self._cancel_reply(t_foreign, expected)
        self.expect("W4", step, expected, got, check=check_expr(expected, None),
                    story="rule 4: a handle from another wheel is not ours to cancel")
        self._compare_query("W4", "other.pending()", "the other wheel still holds its timer", 1,
                            observe(other.pending), "cancel(foreign) must not touch other")
        self._ex("W4", "W-T3")
