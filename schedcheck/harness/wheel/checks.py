"""The wheel suite's checks: what a target must do, step by step, apart from the rules.

:class:`WheelChecks` is the base of :class:`~schedcheck.harness.wheel.suite.WheelMachine`. It
holds the per-run state (the model, the target, the :class:`~schedcheck.harness.wheel.ledger.
Ledger`, the handle maps, each side's executor and callbacks) and every comparison the rules
make: ``pending()``/``lag_ticks()`` against the model, the fired handles (never early, at most
once, never after a successful cancel), which clause a wrong ``advance`` result breaks, the
executor's submissions and the threads callbacks run on, and each handle's attributes.

Clause attribution of a wrong ``advance`` result (first that applies):

* a handle no ``schedule`` returned, fired twice, or after ``cancel`` returned True: W-INV-ONCE;
* a deadline later than the last tick processed (by the contract's window and by the target's
  own ``lag_ticks``): W-INV-EARLY;
* the target's ``lag_ticks`` shows another window of ticks processed: W1;
* a timer the contract fires is missing, or an extra one fired: W2; same timers, other
  order: W3. In tolerance mode a timer more than a tick behind its contract due tick:
  W-INV-LATE.

A model that disagrees with the ledger is a bug in schedcheck (``SchedcheckInternalError``).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, NoReturn

import hypothesis

from schedcheck import contract
from schedcheck.harness import guard, supervisor
from schedcheck.harness.common import Observed, SuiteMachine, call_code, observe
from schedcheck.harness.outcomes import observe_each
from schedcheck.harness.result import Step
from schedcheck.harness.wheel.fixtures import Callback, CallLog, RecordingExecutor, Support
from schedcheck.harness.wheel.ledger import CANCELLED, FIRED, Ledger, TimerRecord, ceil_div
from schedcheck.harness.wheel.memory import entries_held, entry_bound, exempt

__all__ = ["TOLERANCE_NOTES", "Side", "WheelChecks", "factory_code", "strict_bool"]

#: The seed's interviewer points each contract clause also exercises (clauses.py W-T*).
SEED_POINT = {"W1": "W-T2", "W2": "W-T1", "W3": "W-T4", "W4": "W-T3", "W5": "W-T4"}
#: Clauses whose checks, in tolerance mode, leave the machine consistent when ignored.
CONTINUABLE = frozenset({"W-INV-EARLY", "W-INV-ONCE", "W-INV-LATE", "W-INV-PENDING", "W4",
                         "W-MEM"})
#: Tolerance-mode notes kept per run (the rest are counted in one summary note).
MAX_NOTES = 12


def factory_code(*args: Any, assign: str | None = None, **kwargs: Any) -> str:
    """``[assign = ]factory(4, 8, k=v)`` -- how a counterexample builds a wheel."""
    return call_code("__call__", *args, assign=assign, obj="factory", **kwargs).replace(
        "factory.__call__(", "factory(")


def strict_bool(value: Any) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"cancel() must return a bool, got {type(value).__name__} {value!r}")
    return value



def _read(handle_attr: tuple[Any, str]) -> Any:
    return getattr(*handle_attr)


class Side:
    """One side's executor and callbacks (the model's or the target's)."""

    def __init__(self, policy: str | None) -> None:
        self.log = CallLog()
        self.executor = RecordingExecutor(policy) if policy else None
        self.seen_calls = 0  #: callback calls already checked
        self.seen_submissions = 0  #: submissions already accounted to an advance
        self.queue: list[str] = []  #: accepted submissions not run yet: callback names
        self.errors = 0  #: what callback_errors() must say: rejections + raising callbacks run


class _Tolerance:
    """Off-tick firings seen in tolerance mode, per run (kept apart from the machine)."""

    def __init__(self) -> None:
        self.notes: list[str] = []
        self.count = 0


#: keyed by ``id(RunResult)``; run_wheel_suite pops its entry into ``RunResult.notes``
TOLERANCE_NOTES: dict[int, _Tolerance] = {}


class WheelChecks(SuiteMachine):
    """Per-run state and the checks; the rules live in ``wheel_suite.WheelMachine``."""

    system = "wheel"
    factory: Callable[..., Any]
    model_factory: Callable[..., Any]
    support: Support = Support()
    tolerance: bool = False

    def __init__(self) -> None:
        super().__init__()
        self.model: Any = None
        self.target: Any = None
        self.ledger = Ledger(1, 1, 0, None, None)
        self.t_handles: dict[str, Any] = {}
        self._plain_handles: set[type] = set()  # handle classes whose attributes are stored
        self.m_handles: dict[str, Any] = {}
        self._t_ids: dict[int, TimerRecord] = {}
        self._m_ids: dict[int, TimerRecord] = {}
        self.t_side = Side(None)
        self.m_side = Side(None)
        self.executor: RecordingExecutor | None = None
        self.callbacks: dict[str, str] = {}
        self.options: dict[str, Any] = {}
        self.home = threading.get_ident()
        self._foreign: tuple[Any, Any, Any] | None = None
        self._preamble_extra: list[str] = []
        self.most_excess = 0  # most entries held beyond 2 x pending (a hypothesis.target score)
        self._reading = False  # a read-only query is being judged (see _query_diverges)
        #: an advance() ran since the memory bound was last read (see _check_memory)
        self.advanced = False

    def new_callback(self, raises: bool) -> tuple[str, Callback, Callback]:
        name = f"cb_{len(self.callbacks)}"
        self.callbacks[name] = "raises" if raises else "ok"
        self.announce_preamble()
        return (name, Callback(name, raises, self.t_side.log),
                Callback(name, raises, self.m_side.log))

    def preamble(self) -> list[str]:
        """The lines a replay runs before its steps: the executor and the named callbacks."""
        policy = self.executor.policy if self.executor else None
        preamble = ["from schedcheck.harness.wheel.fixtures import RecordingExecutor, "
                    "make_callback"]
        if policy:
            preamble.append(f"executor = RecordingExecutor({policy!r})")
        preamble += [f"{n} = make_callback({n!r}{', raises=True' if kind == 'raises' else ''})"
                     for n, kind in self.callbacks.items()]
        return preamble + self._preamble_extra

    def announce_preamble(self) -> None:
        """In a supervised child, the preamble as it now stands goes to the parent: a call that
        ends the child leaves a counterexample whose replay needs it."""
        if supervisor.active():
            supervisor.send("preamble", self.preamble())

    def snapshot(self) -> dict[str, Any]:
        snap = self.ledger.snapshot()
        snap.update(preamble=self.preamble(), callbacks=dict(self.callbacks),
                    executor=self.executor.policy if self.executor else None)
        return snap

    # ---------------------------------------------------------------- helpers

    def _internal(self, what: str) -> None:
        raise contract.SchedcheckInternalError(
            f"the reference model and the harness ledger disagree: {what}; this is a bug in "
            f"schedcheck, not in the target\nprogram so far:\n{self.trace.program()}")

    def _ex(self, *clauses: str) -> None:
        self.exercise(*clauses, *{SEED_POINT[c] for c in clauses if c in SEED_POINT})

    def _query_step(self, code: str, words: str, expected: Any, actual: Any) -> Step:
        step = self.trace.add(code, words)
        step.expected, step.actual = repr(expected), repr(actual)
        return step

    def _compare_query(self, clause: str, code: str, words: str, expected: Any,
                       got: Observed, story: str) -> None:
        if got.ok and got.value == expected and type(got.value) is type(expected):
            return
        name = code.split(".")[-1].split("(")[0]
        step = self._query_step(f"{name}_now = {code}", words, expected, got)
        step.check = f"_raised is None and {name}_now == {expected!r}"
        self._query_diverges(clause, f"{story}: `{code}` is {got.describe()}, expected "
                             f"{expected!r}", step)

    def _query_diverges(self, clause: str, message: str, step: Step) -> None:
        """A read-only query (a count, a handle's attribute, the entries held) answered wrong:
        neither side's state changed, so past a set-aside clause the run goes on
        (:meth:`can_continue`)."""
        self._reading = True
        try:
            self.diverge(clause, message, step=step)
        finally:
            self._reading = False
        # here only when the clause is set aside and the run goes on: like a query that
        # answered right, it is no step of this run's counterexample (nor of its replay)
        if self.trace.steps and self.trace.steps[-1] is step:
            self.trace.steps.pop()

    def counts(self) -> dict[str, Observed]:
        """The target's own counts now (``pending()``, ``lag_ticks()`` where it has them),
        read before a call the model refuses."""
        out = {}
        if self.support.caps.counts_pending:
            out["pending"] = observe(self.target.pending)
        if "lag_ticks" in self.support.methods and not self.tolerance:
            out["lag_ticks"] = observe(self.target.lag_ticks)
        return out

    def counts_unchanged(self, before: dict[str, Observed] | None) -> None:
        """W6 after a refused call: the target's counts are what they were before it (the
        target against itself -- a count that was already wrong is W-INV-PENDING's or W1's
        business, checked after every rule). Without a reading from before (the model
        accepted the call the target refused), the counts against the model."""
        if before is None:
            self._check_counts("W6", "W6")
            return
        for method, was in before.items():
            if was.ok:
                self._compare_query("W6", f"target.{method}()", f"read {method}() again",
                                    was.value, observe(getattr(self.target, method)),
                                    f"a refused call must change nothing: {method}() was "
                                    f"{was.value!r} before it")

    def _check_counts(self, clause_pending: str, clause_lag: str) -> None:
        """pending() and lag_ticks() against the model (exact) or the target's own ledger."""
        if not self.support.caps.counts_pending:
            return  # pending() is the adapter's own count: nothing of the target to check
        if not self.tolerance:
            m_pending = self.model.pending()
            if m_pending != len(self.ledger.live()):
                self._internal(f"model pending() {m_pending} != live {len(self.ledger.live())}")
            expected = m_pending
        else:
            expected = len(self.ledger.t_live())
        self._compare_query(clause_pending, "target.pending()", "count the pending timers",
                            expected, observe(self.target.pending),
                            "pending() must count the timers neither fired nor cancelled")
        if "lag_ticks" in self.support.methods and not self.tolerance:
            m_lag = self.model.lag_ticks()
            if m_lag != self.ledger.lag():
                self._internal(f"model lag_ticks() {m_lag} != ledger {self.ledger.lag()}")
            self._compare_query(clause_lag, "target.lag_ticks()", "read the lag", m_lag,
                                observe(self.target.lag_ticks),
                                "lag_ticks() counts ticks <= now // tick not yet processed")

    def bind_handles(self, rec: TimerRecord, t_handle: Any, m_handle: Any) -> None:
        """Map ``rec.name`` to the target's and the model's handle (mixins scheduling timers
        call ``rec = self.ledger.schedule(...)`` and then this)."""
        self.t_handles[rec.name] = t_handle
        self._t_ids[id(t_handle)] = rec
        if m_handle is not None:  # None in tolerance mode: the model is not driven
            self.m_handles[rec.name] = m_handle
            self._m_ids[id(m_handle)] = rec

    def rebind_model(self, model: Any, handles: dict[str, Any]) -> None:
        """The model is now ``model`` (a copy a concurrent round selected); ``handles`` maps
        each timer name to its handle in it, and replaces every earlier model handle."""
        self.model = model
        self.m_handles.clear()
        self._m_ids.clear()
        by_name = {r.name: r for r in self.ledger.timers}
        for name, handle in handles.items():
            self.m_handles[name] = handle
            self._m_ids[id(handle)] = by_name[name]

    # -- for mixins (concurrent rounds): apply calls made outside the rules, in linearization
    # order, so that the ledger, the handle maps and the executor accounting stay in step.
    # Each assumes the target's outcome was already judged (e.g. by a linearizability check).

    def note_schedule(self, deadline: int, callback: str, raises: bool, t_handle: Any,
                      m_handle: Any) -> TimerRecord:
        """A successful ``schedule(deadline, <callback>)`` (``callback``: its ``cb_<k>`` name
        from :meth:`new_callback`)."""
        rec = self.ledger.schedule(deadline, callback, raises)
        self.bind_handles(rec, t_handle, m_handle)
        return rec

    def note_cancel(self, name: str, stopped: bool) -> None:
        """``cancel(<name>)`` returned ``stopped`` on the target (and the model agreed)."""
        rec = next(r for r in self.ledger.timers if r.name == name)
        self.ledger.cancel(rec)
        if stopped:
            rec.t_state = CANCELLED

    def note_advance(self, now: int, t_fired: list[Any]) -> list[TimerRecord]:
        """``advance(now)`` returned ``t_fired`` (the target's handles, already judged)."""
        fired = self.ledger.advance(now)
        recs = [self._t_ids[id(h)] for h in t_fired]
        for rec in recs:
            rec.t_state = FIRED
            rec.t_ticks = (rec.due_tick, rec.due_tick)
        self._after_fire(self.trace.steps[-1] if self.trace.steps else self.trace.add(
            "# (concurrent round)", "a concurrent round"), recs, fired)
        return fired

    def can_continue(self, clause: str) -> bool:
        """In tolerance mode the ledger follows the target's own answers, so an invariant set
        aside (keep-going grading, or the core level) leaves every other check sound; and a
        wrong answer to a read-only query changes neither side, in either mode."""
        return self._reading or (self.tolerance and clause in CONTINUABLE)

    def _fail(self, clause: str, message: str, step: Step | None = None) -> NoReturn:
        self.diverge(clause, message, step=step)
        hypothesis.reject()  # set aside, and this check cannot go on past it: end the example

    def _classify(self, step: Step, words: str, names: list[str], t_names: list[str],
                  window: tuple[int, int], t_reported: int) -> NoReturn:
        """Which clause a wrong (but not early, not repeated) advance result breaks."""
        first, last = window
        processed = last if last >= first else first - 1
        missing = [n for n in names if n not in t_names]
        extra = [n for n in t_names if n not in names]
        if t_reported != processed:
            clause = "W1"  # it processed another window of ticks (budget, missed ticks)
        elif missing:
            # the due tick is wrong (late): W2. (W-INV-LATE, "within a tick of its deadline",
            # is weaker than the exact due tick; it breaks only in tolerance mode.)
            clause = "W2"
        else:
            clause = "W2" if extra else "W3"
        what = (f"did not fire {missing}" if missing else f"fired {extra} too"
                if extra else "fired them in another order")
        # the kind of mistake: two wrong lists differ in the window (a catch-up of several
        # ticks, or one tick) and why the timers were due (a deadline already past or not)
        step.detail = ("not fired in a catch-up of several ticks" if missing and last > first
                       else f"not fired: {self._why_due(missing[0])}" if missing
                       else f"fired too: {self._why_due(extra[0])}" if extra
                       else self._why_order(names, t_names, last - first + 1))
        self._fail(clause, f"{words}: `{step.code}` processes ticks {first}..{last}: the "
                   f"contract fires {names} (by due tick, ties in schedule order); the "
                   f"target {what}: {t_names}"
                   + (f"; by its lag_ticks() it processed up to tick {t_reported}"
                      if t_reported != processed else ""), step)

    def _why_order(self, names: list[str], t_names: list[str], ticks: int) -> str:
        """How the same timers came in another order: ties of one due tick out of schedule
        order, or a later due tick first (after a pause of more than a rotation or not)."""
        first = next((i for i, (e, a) in enumerate(zip(names, t_names)) if e != a), None)
        if first is None:  # one list a prefix of the other (a timer listed twice)
            return "another order"
        expected, got = self._record(names[first]), self._record(t_names[first])
        if expected is not None and got is not None and expected.due_tick == got.due_tick:
            return "another order: timers due at one tick not in schedule order"
        pause = ticks > self.ledger.wheel_size
        return "another order: a later due tick first" + (
            ", after a pause of more than a rotation" if pause else "")

    def _record(self, name: str) -> TimerRecord | None:
        return next((r for r in self.ledger.timers if r.name == name), None)

    def _why_due(self, name: str) -> str:
        """Why the contract has timer ``name`` due when it is, in words without numbers."""
        led = self.ledger
        rec = self._record(name)
        if rec is None:
            return "a timer no schedule() returned"
        if ceil_div(rec.deadline, led.tick) < rec.due_tick:
            return "its deadline had passed when it was scheduled"
        # (not split by rotations: one mistake of the catch-up loses timers of every distance)
        return "its deadline was ahead when it was scheduled"

    def _check_fired(self, step: Step, now: int, t_recs: list[TimerRecord | None],
                     t_names: list[str], t_last: int, *, at_now: bool = False) -> None:
        """Never twice, never after a cancel, never early. Early means: after the last
        processed tick's instant (exact mode), or after ``now`` itself (``at_now``: tolerance
        mode, where a timer may fire at its deadline rather than at its due tick)."""
        tick = self.ledger.tick
        early = self.support.caps.early_by or 0  # a declared bound on early firing
        for i, rec in enumerate(t_recs):
            if rec is None:
                self._fail("W-INV-ONCE", f"advance(now={now}) returned {t_names[i]}, which "
                           "no schedule() of this wheel returned", step)
            if rec.name in t_names[:i]:
                self.diverge("W-INV-ONCE", f"{rec.name} appears twice in one advance result",
                             step=step)
            if rec.t_state == FIRED:
                self.diverge("W-INV-ONCE", f"{rec.name} fired again: it already fired during "
                             f"ticks {rec.t_ticks}", step=step)
            if rec.t_state == CANCELLED:
                # the invariant, and the contract's cancel rule (exactly one of: cancel
                # returned True, or the timer fires): with the invariant already reported
                # (set aside), the same breach is the cancel rule's
                clause = "W4" if "W-INV-ONCE" in self.set_aside else "W-INV-ONCE"
                self.diverge(clause, f"{rec.name} fired although cancel({rec.name}) "
                             "returned True earlier: a cancelled timer never fires", step=step)
            if at_now and rec.deadline > now + early:
                self.diverge("W-INV-EARLY", f"{rec.name} (deadline {rec.deadline}) fired in "
                             f"advance(now={now}): before its deadline"
                             + (f", by more than its declared early_by={early}" if early
                                else ""), step=step)
            if not at_now and rec.deadline > t_last * tick + early:
                self.diverge("W-INV-EARLY", f"{rec.name} (deadline {rec.deadline}) fired in "
                             f"advance(now={now}), whose last processed tick is {t_last} "
                             f"(instant {t_last * tick}): before its deadline; its contract due"
                             f" tick is {rec.due_tick} (tick {tick}, wheel_size "
                             f"{self.ledger.wheel_size})", step=step)

    def _check_eventually(self, step: Step, now: int, t_last: int) -> None:
        """Tolerance: a live timer is at most one tick later than its contract due tick."""
        tick = self.ledger.tick
        resolution = self.support.caps.resolution
        if resolution is None:  # a declared early bound is a tolerance both ways
            resolution = self.support.caps.early_by
        for rec in self.ledger.t_live():
            if resolution is not None:  # coarser than a tick: late by at most its resolution
                # WI3: counted from the deadline, or from the instant it was scheduled when
                # that is later (a deadline in the past cannot fire before its schedule)
                since = max(rec.deadline, rec.scheduled_at)
                if t_last * tick >= since + resolution + tick:
                    late_from = (f"its deadline {rec.deadline}" if since == rec.deadline else
                                 f"the instant it was scheduled, {since} (its deadline "
                                 f"{rec.deadline} had passed)")
                    self.diverge("W-INV-LATE", f"{rec.name} is still pending after advance("
                                 f"now={now}) processed tick {t_last} (instant {t_last * tick}"
                                 f"): later than {late_from} by more than its declared "
                                 f"resolution of {resolution} units", step=step,
                                 again=_still_pending(rec.name))
                continue
            if rec.due_tick <= t_last - 1:
                self.diverge("W-INV-LATE", f"{rec.name} (deadline {rec.deadline}, contract "
                             f"due tick {rec.due_tick}) is still pending after advance(now="
                             f"{now}) processed tick {t_last} (instant {t_last * tick}): more "
                             "than one tick later than the contract allows, even in "
                             "tolerance mode", step=step, again=_still_pending(rec.name))

    def _note_off_tick(self, rec: TimerRecord) -> None:
        tol = TOLERANCE_NOTES.setdefault(id(self.result), _Tolerance())
        tol.count += 1
        if len(tol.notes) < MAX_NOTES:
            assert rec.t_ticks is not None
            a, b = rec.t_ticks
            at = f"at tick {b}" if a == b else f"while processing ticks {a}..{b}"
            tol.notes.append(f"{self.trace.setup}: timer {rec.name} (deadline {rec.deadline}) "
                             f"fired {at}, contract due tick {rec.due_tick}")

    def _after_fire(self, step: Step, t_recs: list[TimerRecord],
                    m_recs: list[TimerRecord]) -> None:
        """Executor bookkeeping: each fired callback submitted once, in firing order (rule 3)."""
        for side, recs in ((self.t_side, t_recs), (self.m_side, m_recs)):
            ex = side.executor
            if ex is None:
                continue
            new = len(ex.submitted) - side.seen_submissions
            if new != len(recs):
                if side is self.m_side:
                    self._internal(f"the model fired {len(recs)} timers, submitted {new}")
                self.diverge("W3", f"advance fired {len(recs)} timers but submitted {new} "
                             "callbacks to the executor: each fired callback is submitted "
                             "exactly once, in firing order (rule 3)", step=step,
                             again=f"len(executor.submitted) == {len(ex.submitted)}")
                hypothesis.reject()
            for k, rec in enumerate(recs):
                if ex.accepts(side.seen_submissions + k):
                    side.queue.append(rec.callback)
                else:
                    side.errors += 1
            side.seen_submissions = len(ex.submitted)
        if self.t_side.executor is not None and t_recs:
            self._ex("W3", "W-T4")

    def _check_callbacks(self) -> None:
        side = self.t_side
        calls = side.log.since(side.seen_calls)
        for name, thread in calls:
            if side.executor is None:
                self.diverge("W3", f"callback {name} was called by the wheel, which has no "
                             "executor: without one, advance never calls a callback -- the "
                             "caller runs handle.callback (rule 3)",
                             again=f"len({name}.log.calls) > 0")
            if thread == self.home or guard.on_step_thread(thread):
                self.diverge("W3", f"callback {name} ran on the thread that calls advance(): "
                             "callbacks go to the executor and never run on the tick thread "
                             "(rule 3; seed: callback isolation)",
                             again=f"any(t == threading.get_ident() for _, t in {name}.log.calls)")
        if side.executor is not None and len(side.executor.submitted) != side.seen_submissions:
            self.diverge("W3", "the target submitted callbacks to the executor outside "
                         "advance(): only a fired timer's callback is submitted (rule 3)",
                         again=f"len(executor.submitted) != {side.seen_submissions}")

    def _check_handles(self) -> None:
        if self._handles_agree():
            return
        attrs = ("fired", "cancelled", "deadline")
        # every handle's three attributes in one guarded batch (one hand-off per step), or
        # read here when each is a stored attribute, which runs no code of the target
        pairs = [(self.t_handles[rec.name], attr) for rec in self.ledger.timers for attr in attrs]
        if all(guard.plain_attribute(h, a) and hasattr(h, a) for h, a in pairs):
            reads = iter([Observed(value=getattr(h, a)) for h, a in pairs])
        else:
            reads = iter(observe_each(_read, pairs))
        for rec in self.ledger.timers:
            if not self.tolerance:
                mh = self.m_handles[rec.name]
                if (mh.fired, mh.cancelled) != (rec.state == FIRED, rec.state == CANCELLED):
                    self._internal(f"model handle {rec.name} {mh!r} vs ledger {rec.state}")
            got_attrs = {attr: next(reads) for attr in attrs}
            self._check_flags(rec.name, got_attrs["fired"], got_attrs["cancelled"])
            for attr, expected, clause in (
                ("fired", rec.t_state == FIRED, "W4"),
                ("cancelled", rec.t_state == CANCELLED, "W4"),
                ("deadline", rec.deadline, "W2"),
            ):
                got = got_attrs[attr]
                self._compare_query(clause, f"{rec.name}.{attr}", f"read {rec.name}.{attr}",
                                    expected, got, f"{rec.name} is {rec.t_state}")

    def _handles_agree(self) -> bool:
        """The common case of :meth:`_check_handles` in one pass: every handle's three
        attributes stored (reading them runs no code of the target) and each as the ledger
        says. The W-INV-ONCE reads are counted as the full check counts them; anything else
        (a property, a missing attribute, one value wrong) goes to the full check, which
        reports it."""
        timers = self.ledger.timers
        handles, plain = self.t_handles, self._plain_handles
        model = None if self.tolerance else self.m_handles
        for rec in timers:
            handle = handles[rec.name]
            klass = type(handle)
            if klass not in plain:
                if not all(guard.plain_attribute(handle, a)
                           for a in ("fired", "cancelled", "deadline")):
                    return False
                plain.add(klass)
            fired = getattr(handle, "fired", _MISSING)
            cancelled = getattr(handle, "cancelled", _MISSING)
            deadline = getattr(handle, "deadline", _MISSING)
            state = rec.t_state
            if (fired is not (state == FIRED) or cancelled is not (state == CANCELLED)
                    or type(deadline) is not type(rec.deadline) or deadline != rec.deadline):
                return False
            if model is not None:
                mh = model[rec.name]
                if (mh.fired, mh.cancelled) != (rec.state == FIRED, rec.state == CANCELLED):
                    return False  # the full check reports the harness's own mistake
        if timers:
            self.result.exercise("W-INV-ONCE", len(timers))
        return True

    def _check_memory(self) -> None:
        """W-MEM: the wheel references at most ``entry_bound(pending)`` of the handles it
        returned (``wheel.memory``), pending counted by the ledger's view of the target. Read
        after a rule that advanced the wheel: a wheel with a producer queue holds a cancelled
        request until its tick thread drains the queue, at the next advance."""
        advanced, self.advanced = self.advanced, False
        if not advanced or not self.t_handles or self.tolerance or exempt(self.target):
            return  # tolerance mode: a design of its own, held to the invariants only
        held = entries_held(self.target, self.t_handles.values(),
                            skip=(self.t_side.executor, self.executor, self.t_side.log))
        if held is None:
            return  # the walk gave up: not measured
        pending = len(self.ledger.t_live())
        self.most_excess = max(self.most_excess, held - 2 * pending)
        self._ex("W-MEM")
        if held > entry_bound(pending):
            names = ", ".join(self.t_handles)
            skip = ", skip=[executor]" if self.t_side.executor is not None else ""
            step = self._query_step(f"held_now = entries_held(target, [{names}]{skip})",
                                    "count the timer entries the wheel still holds",
                                    f"at most {entry_bound(pending)} entries",
                                    f"{held} entries")
            step.check = (f"_raised is None and held_now is not None "
                          f"and held_now <= {entry_bound(pending)}")
            # the replay sees the mistake again where the count is over the bound again
            step.observed = (f"_raised is None and held_now is not None "
                             f"and held_now > {entry_bound(pending)}")
            self._query_diverges(
                "W-MEM", f"the wheel still references {held} of the timers it returned with "
                f"{pending} pending; it may hold at most {entry_bound(pending)} (2 x pending, "
                "cancelled shells included): cancelled or fired timers are kept instead "
                "of dropped or compacted (specs/wheel.md, Costs)", step)

    def _check_flags(self, name: str, fired: Observed, cancelled: Observed) -> None:
        """W-INV-ONCE on the handle itself: it never reads ``fired`` and ``cancelled`` both
        true -- a timer fired or was cancelled, never both (a core invariant, whatever the
        design: checked wherever the handle has the two flags)."""
        if not (fired.ok and cancelled.ok):
            return
        self._ex("W-INV-ONCE")
        if fired.value is True and cancelled.value is True:
            step = self._query_step(f"flags_now = ({name}.fired, {name}.cancelled)",
                                    f"read {name}'s flags", "not both True", (True, True))
            step.check = "_raised is None and flags_now != (True, True)"
            step.observed = "_raised is None and flags_now == (True, True)"
            self._query_diverges("W-INV-ONCE", f"{name} reads fired=True and cancelled=True "
                                 "at once: a timer either fired or was cancelled, never both "
                                 "(rule 4)", step)


_MISSING = object()


def _still_pending(handle: str) -> str:
    """The replay's test that the timer ``handle`` (its variable) is still pending: neither
    ``fired`` nor ``cancelled`` (the handle's attributes, read as the suite reads them)."""
    return (f"not getattr({handle}, 'fired', True) and "
            f"not getattr({handle}, 'cancelled', False)")
