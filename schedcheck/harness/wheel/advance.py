"""The wheel suite's ``advance`` rules: time moves, timers fire, and every firing is checked.

:class:`AdvanceRules` is the base of :class:`~schedcheck.harness.wheel.suite.WheelMachine`
(which adds the schedule, cancel, malformed-argument and executor rules and the invariant).
Its rules draw a ``now`` -- the same again, one unit, a fraction of a tick, one tick, a tick
boundary, many ticks, to a timer's deadline, just past the earliest due timer, earlier (a
malformed argument), a stall -- or walk tick by tick (a driver keeping up), or drain a
backlog with the same ``now`` (specs/wheel.md decision 4). Each ``advance`` is compared with
the model (the handle names fired, in order) and checked against the ledger: never early,
at most once, at most a tick late when keeping up; in tolerance mode only the invariants.
"""

from __future__ import annotations

from typing import Any

from hypothesis import event
from hypothesis import strategies as st
from hypothesis.stateful import precondition, rule

from schedcheck.harness.common import Observed, call_code, check_expr, observe, observe_model
from schedcheck.harness.program import atomic
from schedcheck.harness.wheel.checks import WheelChecks
from schedcheck.harness.wheel.draws import ADVANCE_KINDS, MAX_JUMP_TICKS
from schedcheck.harness.wheel.ledger import FIRED, same_up_to_unordered_ties

__all__ = ["AdvanceRules"]


class AdvanceRules(WheelChecks):
    """The ``advance`` rules (see the module comment); the checks are ``WheelChecks``'."""

    longest_stall: int  #: most ticks one advance() covered (set by WheelCancels.__init__)

    @atomic
    def _advance(self, now: Any, *, words: str) -> None:
        # ``words`` is a keyword so that the reduction, which makes ``now`` smaller, tells the
        # step with the new number (it rewrites an op's ``words`` keyword)
        led, tick = self.ledger, self.ledger.tick
        name = self.trace.fresh_name("fired")
        step = self.trace.add(call_code("advance", assign=name, now=now), words)
        lag_before, prev_now, cursor_before = led.lag(), led.now, led.cursor
        m = observe_model(self.model.advance, now)
        before = None if m.ok else self.counts()  # a refusal must leave them as they are
        t = observe(self.target.advance, now=now)
        if not m.ok:
            self.expect("W1" if m.error == "ValueError" else "W6", step, m, t,
                        check=check_expr(m, None), also=("W6",))
            self.counts_unchanged(before)  # errors never change state (W6)
            return  # a refused advance need not drain a producer queue: no memory bound read
        self.advanced = True  # the memory bound is read after the rule (W-MEM)
        first, last = led.window(now)
        self.longest_stall = max(self.longest_stall, now // tick - prev_now // tick)
        fired = led.advance(now)
        names = [r.name for r in fired]
        if not self.tolerance:
            m_names = [self._m_ids[id(h)].name if id(h) in self._m_ids else repr(h)
                       for h in m.value]
            if m_names != names:
                self._internal(f"advance({now}): model fired {m_names}, ledger {names}")
        if not t.ok:  # a legal advance raised: it processes no ticks at all (rule 1)
            self.expect("W1", step, Observed(value=names), t,
                        check="_raised is None", story="rule 1: advance(now) with now >= the "
                        "last now processes the due ticks")
        try:
            t_list = list(t.value)
        except Exception:
            self._fail("W3", f"advance({now}) returned {t.value!r}, not a list of handles", step)
        t_recs = [self._t_ids.get(id(h)) for h in t_list]
        t_names = [r.name if r else f"<unknown {h!r}>" for r, h in zip(t_recs, t_list)]
        step.expected, step.actual = repr(names), repr(t_names)
        # what the target fired, as a replay can test it again: the same handles in order
        step.observed = (f"_raised is None and [id(h) for h in {name}] == "
                         f"[id(h) for h in [{', '.join(t_names)}]]"
                         if all(t_recs) else
                         f"_raised is None and len(list({name})) == {len(t_list)}")
        if not self.tolerance:
            step.check = (f"_raised is None and [id(h) for h in {name}] == "
                          f"[id(h) for h in [{', '.join(names)}]]")
        # the target's processed window as it reports it (lag_ticks), when it can
        t_last = last if last >= first else first - 1
        t_reported = t_last
        if "lag_ticks" in self.support.methods:
            lag = observe(self.target.lag_ticks)
            if lag.ok and isinstance(lag.value, int) and 0 <= lag.value:
                t_reported = now // tick - lag.value
        if self.tolerance:
            t_last = t_reported
        t_first = cursor_before
        # "early" only if before the deadline by the contract's window AND the target's own
        self._check_fired(step, now, t_recs, t_names, max(t_last, t_reported),
                          at_now=self.tolerance)
        recs = [r for r in t_recs if r is not None]
        keeping_up = lag_before == 0 and now // tick - prev_now // tick <= 1 and led.lag() == 0
        if not self.tolerance and t_names != names and same_up_to_unordered_ties(fired, t_names):
            # ties between timers scheduled by overlapping calls: either order is a linearization
            step.check = step.observed
            names = t_names
            fired = sorted(fired, key=lambda r: t_names.index(r.name))
        if not self.tolerance and t_names != names:
            self._classify(step, words, names, t_names, (first, last), t_reported)
        elif t_names != names and not step.aside:
            # tolerance mode: the target fired other timers than the contract's due ticks
            # (W2), as allowed; from here on what it holds is its own, so a replay on another
            # implementation compares no reply after this step (only the divergence again)
            step.aside = "W2"
        for rec in recs:
            rec.t_state = FIRED
            rec.t_ticks = (t_first, t_last)
            if self.tolerance and self.support.caps.due_ticks and not (
                    t_first <= rec.due_tick <= t_last):
                self._note_off_tick(rec)
        if self.tolerance:
            self._check_eventually(step, now, t_last)
        self._after_fire(step, recs, [] if self.tolerance else fired)
        self._ex("W1")
        if recs:
            self._ex(*(() if self.tolerance else ("W2", "W3")), "W-INV-EARLY", "W-INV-ONCE")
            if keeping_up or self.tolerance:
                self._ex("W-INV-LATE")
        if led.lag() > 0 and last >= first:
            self._ex("W-T2")
            event("advance: backlog left")
        event(f"advance: fired {min(len(recs), 3)}{'+' if len(recs) >= 3 else ''}")

    @rule(kind=st.sampled_from(ADVANCE_KINDS), x=st.integers(0, 10**6),
          a=st.integers(-1, 1))
    def advance(self, kind: str, x: int, a: int) -> None:
        led = self.ledger
        t, w = led.tick, led.wheel_size
        # jumps stay within MAX_JUMP_TICKS, so a wheel that walks empty ticks one by one is
        # slow here rather than hung (skipping empty ticks is measured elsewhere, not here)
        horizon = led.now + MAX_JUMP_TICKS * t
        live = [r for r in (led.t_live() if self.tolerance else led.live())
                if r.deadline <= horizon]
        now = {
            "same": led.now,
            "plus_one": led.now + 1,
            "fraction": led.now + x % t,
            "one_tick": led.now + t,
            "boundary": (led.now // t + 1) * t,
            "many": led.now + (2 + x % (3 * w)) * t,
            "to_deadline": max(led.now, live[x % len(live)].deadline + a) if live else led.now,
            # just past the earliest due timer, several ticks at once: missed ticks fire
            "next_due": max(led.now, min((r.due_tick for r in live), default=led.cursor) * t
                            + (x % 3) * t + a),
            "earlier": led.now - 1 - x % (2 * t),
            "stall": led.now + (10 * w + x % 1000) * t,
        }[kind]
        if kind == "earlier" and not self.support.caps.validates_args:
            now = led.now  # an earlier now is a malformed argument it does not refuse
        event(f"advance: {kind}")
        self._advance(now, words=f"advance to {now} ({kind})")

    @rule(ticks=st.integers(1, 6), offset=st.integers(0, 10**6))
    def walk(self, ticks: int, offset: int) -> None:
        """A driver keeping up: one advance per tick (so "at most a tick late" applies)."""
        event("advance: walk tick by tick")
        t = self.ledger.tick
        for _ in range(ticks):
            now = (self.ledger.now // t + 1) * t + offset % t
            self._advance(now, words=f"advance to {now}, the next tick (keeping up)")

    @precondition(lambda self: self.target is not None and self.ledger.lag() > 0)
    @rule()
    def drain_backlog(self) -> None:
        """The same ``now`` again: a budget-limited wheel works off its backlog (rule 1)."""
        event("advance: drain backlog")
        now = self.ledger.now
        self._advance(now, words=f"advance to {now} (no later: process the ticks still "
                      "behind)")
