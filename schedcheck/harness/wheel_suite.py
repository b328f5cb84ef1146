"""The timing wheel's differential suite: the model and a target driven in lockstep.

A Hypothesis ``RuleBasedStateMachine`` (:func:`make_wheel_machine`) builds, per example, the
reference model (``schedcheck.model.TimingWheel``) and the target with the same drawn
parameters -- tick and wheel sizes 1, 2, odd and powers of two, ``start`` (negative and huge
included), with and without ``max_catchup_ticks`` (1 and 2 included), ``max_pending`` (0
included) and an executor (recording, rejecting or flaky; see ``wheel_fixtures``) -- drawing
only the optional arguments the target accepts (contract Part 3, :func:`wheel_fixtures.probe`).
Its rules reach, often: deadlines in the past, at the current instant, on tick boundaries,
inside one rotation, exactly one rotation away, many rotations away and beyond 2**40, several
timers in one bucket with different rounds; ``schedule_after`` with negative, zero and
positive delays; ``cancel`` before, at and after the due tick, twice, of a fired handle, of
another wheel's handle and of a non-handle; ``advance`` by zero, one unit, a fraction of a
tick, one tick, many ticks, to a timer's deadline, with the same ``now`` again (draining a
backlog) and with an earlier ``now``; ``max_pending`` reached; malformed arguments everywhere.

Every call is compared (Part 3 matching, ``common.observe``): ``advance`` results as lists of
handle names (``["h_0", "h_2"]``), ``cancel`` results, errors by name; after every step the
invariant compares ``pending()``, ``lag_ticks()``, ``callback_errors()`` and each handle's
``fired``/``cancelled``/``deadline``, and checks the executor: each fired callback submitted
once, in firing order, never run on the thread that calls ``advance`` (the callbacks log
their thread). A harness-side :class:`~schedcheck.harness.wheel_ledger.Ledger` re-derives the
contract independently and cross-checks the model (disagreement: ``SchedcheckInternalError``).

Tolerance mode (``tolerance=True``): no exact comparison of ``advance`` results, ``lag_ticks``
or ``pending`` with the model; only the invariants (never early, at most once, never after a
successful cancel, ``pending()`` = the target's own live timers, executor behaviour) plus
"every live timer whose deadline is <= processed time - tick has fired" -- and
``RunResult.notes`` lists timers that fired at another tick than the contract's due tick.

Counterexamples (``common.SuiteMachine.diverge``): ``setup`` is ``target = factory(...)``;
``snapshot`` is the contract's picture of the wheel from the ledger (``tick``, ``tick_size``,
``wheel_size``, ``timers`` with due tick, bucket, rounds and state, ``timeline``) plus, for the
replay script: ``preamble`` -- lines to run before ``setup`` (they import
``wheel_fixtures.RecordingExecutor``/``make_callback`` and define ``executor``, ``cb_0``...,
and ``other``/``foreign`` when another wheel's handle is used) -- ``callbacks`` (name -> "ok" or
"raises") and ``executor`` (policy or None). Drain steps read ``executor.run_pending()``.

Mixins (``extra_bases``, e.g. a concurrent round) may use: ``self.model``, ``self.target``,
``self.ledger`` (cursor, now, ``timers``: :class:`TimerRecord` per name), ``self.t_handles`` /
``self.m_handles`` (name -> target / model handle), ``self.trace`` (the ``Recorder``),
``self.result``, ``self.exercise(...)``, ``self.diverge(...)``, ``self.executor``, and
``self.new_callback(raises)`` -> ``(name, target_cb, model_cb)`` and ``self.bind_handles``.
Nothing here imports ``schedcheck.impl``.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any, NoReturn

import hypothesis
from hypothesis import event
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from schedcheck import contract
from schedcheck.harness.common import (
    Observed,
    Progress,
    Ref,
    RunContext,
    ScalingResult,
    SuiteMachine,
    call_code,
    check_expr,
    observe,
    observe_model,
    run_suite,
    suite_settings,
)
from schedcheck.harness.result import RunResult, Step
from schedcheck.harness.wheel_cost import check_wheel_scaling
from schedcheck.harness.wheel_fixtures import (
    EXECUTOR_POLICIES,
    Callback,
    CallLog,
    RecordingExecutor,
    Support,
    probe,
)
from schedcheck.harness.wheel_ledger import CANCELLED, FIRED, LIVE, Ledger, TimerRecord

__all__ = [
    "ScalingResult",
    "WheelMachine",
    "check_wheel_scaling",
    "make_wheel_machine",
    "run_wheel_suite",
]

TICKS = (1, 2, 3, 4, 5, 8, 10, 16)
WHEEL_SIZES = (1, 2, 3, 4, 5, 7, 8, 16, 64)
STARTS = (0, 1, -1, 7, -13, 100, 2**41 + 3, -(2**41))
HUGE = 2**40
DEADLINE_KINDS = ("past", "now", "cursor", "soon", "in_rotation", "one_rotation", "rotations",
                  "same_bucket", "boundary", "huge")
DELAY_KINDS = ("negative", "zero", "small", "rotation", "rotations", "huge")
ADVANCE_KINDS = ("same", "plus_one", "fraction", "one_tick", "boundary", "many", "to_deadline",
                 "earlier", "stall")
#: The seed's interviewer points each contract clause also exercises (clauses.py W-T*).
SEED_POINT = {"W1": "W-T2", "W2": "W-T1", "W3": "W-T4", "W4": "W-T3", "W5": "W-T4"}
#: The longest advance the suite makes, in ticks ("stall" draws up to 10 * W + 1000).
MAX_JUMP_TICKS = 2000
#: Tolerance-mode notes kept per run (the rest are counted in one summary note).
MAX_NOTES = 12


def _factory_code(*args: Any, assign: str | None = None, **kwargs: Any) -> str:
    """``[assign = ]factory(4, 8, k=v)`` -- how a counterexample builds a wheel."""
    return call_code("__call__", *args, assign=assign, obj="factory", **kwargs).replace(
        "factory.__call__(", "factory(")


def _strict_bool(value: Any) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"cancel() must return a bool, got {type(value).__name__} {value!r}")
    return value


class _Side:
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
_TOLERANCE: dict[int, _Tolerance] = {}


class WheelMachine(SuiteMachine):
    """The differential machine; :func:`make_wheel_machine` binds it to a factory."""

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
        self.m_handles: dict[str, Any] = {}
        self._t_ids: dict[int, TimerRecord] = {}
        self._m_ids: dict[int, TimerRecord] = {}
        self.t_side = _Side(None)
        self.m_side = _Side(None)
        self.executor: RecordingExecutor | None = None
        self.callbacks: dict[str, str] = {}
        self.options: dict[str, Any] = {}
        self.home = threading.get_ident()
        self._foreign: tuple[Any, Any, Any] | None = None
        self._fired_total = 0  #: timers fired in this run (Hypothesis target: more firing)
        self._preamble_extra: list[str] = []

    # ---------------------------------------------------------------- construction

    def _build(self, tick: int, wheel_size: int, options: dict[str, Any]) -> None:
        policy = options.pop("executor", None)
        options = {k: v for k, v in options.items() if v is not None}  # None: the default
        self.options = options
        self.t_side, self.m_side = _Side(policy), _Side(policy)
        self.executor = self.t_side.executor
        t_opts, m_opts = dict(options), dict(options)
        if policy:
            t_opts["executor"], m_opts["executor"] = self.t_side.executor, self.m_side.executor
        shown = {**options, **({"executor": Ref("executor")} if policy else {})}
        self.trace.setup = _factory_code(tick, wheel_size, assign="target", **shown)
        self.model = self.model_factory(tick, wheel_size, **m_opts)
        self.ledger = Ledger(tick, wheel_size, options.get("start", 0),
                             options.get("max_catchup_ticks"), options.get("max_pending"))
        built = observe(type(self).factory, tick, wheel_size, **t_opts)
        if not built.ok:
            self.diverge("W6", f"the target cannot be built with legal arguments: "
                               f"`{self.trace.setup}` {built.describe()}")
        self.target = built.value
        event(f"config: executor={policy}, catchup={options.get('max_catchup_ticks')}, "
              f"max_pending={options.get('max_pending')}")

    def new_callback(self, raises: bool) -> tuple[str, Callback, Callback]:
        name = f"cb_{len(self.callbacks)}"
        self.callbacks[name] = "raises" if raises else "ok"
        return (name, Callback(name, raises, self.t_side.log),
                Callback(name, raises, self.m_side.log))

    def snapshot(self) -> dict[str, Any]:
        snap = self.ledger.snapshot()
        policy = self.executor.policy if self.executor else None
        preamble = ["from schedcheck.harness.wheel_fixtures import RecordingExecutor, "
                    "make_callback"]
        if policy:
            preamble.append(f"executor = RecordingExecutor({policy!r})")
        preamble += [f"{n} = make_callback({n!r}{', raises=True' if kind == 'raises' else ''})"
                     for n, kind in self.callbacks.items()]
        snap.update(preamble=preamble + self._preamble_extra, callbacks=dict(self.callbacks),
                    executor=policy)
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
        self.diverge(clause, f"{story}: `{code}` is {got.describe()}, expected {expected!r}",
                     step=step)

    def _check_counts(self, clause_pending: str, clause_lag: str) -> None:
        """pending() and lag_ticks() against the model (exact) or the target's own ledger."""
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

    def _fail(self, clause: str, message: str, step: Step | None = None) -> NoReturn:
        self.diverge(clause, message, step=step)
        raise contract.SchedcheckInternalError("diverge() returned")  # pragma: no cover

    # ---------------------------------------------------------------- schedule

    def _deadline(self, kind: str, a: int, m: int, r: int) -> int:
        led = self.ledger
        span = led.tick * led.wheel_size
        base = led.cursor * led.tick
        live = led.live()
        return {
            "past": led.now - 1 - r % (3 * span),
            "now": led.now + a,
            "cursor": base + a,
            "soon": base + r % (4 * led.tick),
            "in_rotation": base + r % span,
            "one_rotation": base + span + a,
            "rotations": base + m * span + r % span,
            "same_bucket": (live[r % len(live)].deadline if live else base) + m * span,
            "boundary": (led.cursor + r % (2 * led.wheel_size + 1)) * led.tick + a,
            "huge": base + HUGE + r,
        }[kind]

    def _schedule(self, value: Any, raises: bool, *, after: bool, words: str,
                  callback: Any = None) -> None:
        led = self.ledger
        name, t_cb, m_cb = self.new_callback(raises)
        t_arg, m_arg, shown = (t_cb, m_cb, Ref(name)) if callback is None else (
            callback, callback, callback)
        method, key = ("schedule_after", "delay") if after else ("schedule", "deadline")
        well_formed = isinstance(value, int) and not isinstance(value, bool) and callback is None
        if self.tolerance and well_formed:  # the model is not driven: the target's own count
            full = led.full(len(led.t_live()))
            m = Observed(error="WheelFullError") if full else Observed(value=None)
        else:
            m = observe_model(getattr(self.model, method), value, m_arg)
            full = well_formed and led.full(len(led.live()))
            if well_formed and (m.error == "WheelFullError") != full:
                self._internal(f"{method}({value!r}) with {len(led.live())} live timers: model "
                               f"says {m.describe()}, ledger max_pending={led.max_pending}")
        t = observe(getattr(self.target, method), **{key: value, "callback": t_arg})
        assign = f"h_{len(led.timers)}" if m.ok else None
        code = call_code(method, assign=assign, **{key: value, "callback": shown})
        step = self.trace.add(code, words)
        clause = "W5" if "WheelFullError" in (m.error, t.error) else "W6"
        m_handle, t_handle = m.value, t.value
        if m.ok and t.ok:
            if t.value is None:
                self._fail("W2", f"{words}: `{code}` returned None instead of a handle", step)
            m, t = Observed(value="handle"), Observed(value="handle")
        self.expect(clause, step, m, t, check=check_expr(m, None), also=("W-T1",))
        if full:
            self._ex("W5", "W-T4")
            event("schedule: wheel full")
        if not t.ok:
            self._check_counts("W6", "W6")  # errors never change state
            return
        deadline = led.now + value if after else value
        rec = led.schedule(deadline, name, raises)
        self.bind_handles(rec, t_handle, m_handle)
        rounds = (rec.due_tick - led.cursor) // led.wheel_size
        event(f"schedule: rounds {'0' if rounds == 0 else '1' if rounds == 1 else '>1'}")
        self._ex("W2", "W-T1", *(("W-T2",) if rounds else ()))

    @rule(kind=st.sampled_from(DEADLINE_KINDS), a=st.integers(-2, 2), m=st.integers(1, 4),
          r=st.integers(0, 10**6), raises=st.sampled_from((False, False, False, True)))
    def schedule(self, kind: str, a: int, m: int, r: int, raises: bool) -> None:
        event(f"deadline: {kind}")
        deadline = self._deadline(kind, a, m, r)
        self._schedule(deadline, raises, after=False, words=f"schedule a timer ({kind})")

    @rule(kind=st.sampled_from(DELAY_KINDS), a=st.integers(-2, 2), r=st.integers(0, 10**6),
          raises=st.sampled_from((False, False, False, True)))
    def schedule_after(self, kind: str, a: int, r: int, raises: bool) -> None:
        led = self.ledger
        span = led.tick * led.wheel_size
        delay = {
            "negative": -1 - r % (2 * span),
            "zero": 0,
            "small": 1 + r % (2 * led.tick),
            "rotation": span + a,
            "rotations": (2 + r % 4) * span + a,
            "huge": HUGE + r,
        }[kind]
        event(f"delay: {kind}")
        self._schedule(delay, raises, after=True, words=f"schedule_after ({kind} delay)")

    @rule(which=st.sampled_from(("bool", "float", "str", "callback", "after-bool")))
    def schedule_malformed(self, which: str) -> None:
        """Malformed arguments: TypeError, before WheelFullError (rule 5), nothing changes."""
        event(f"malformed schedule: {which}")
        bad: dict[str, tuple[Any, Any, bool]] = {
            "bool": (True, None, False), "float": (1.5, None, False), "str": ("3", None, False),
            "callback": (self.ledger.now, "not callable", False),
            "after-bool": (False, None, True),
        }
        value, callback, after = bad[which]
        self._schedule(value, False, after=after, words=f"schedule with a malformed {which}",
                       callback=callback)
        self._ex("W6")

    # ---------------------------------------------------------------- cancel

    def _foreign_handles(self) -> tuple[Any, Any, Any]:
        if self._foreign is None:
            led = self.ledger
            cb = Callback("cb_foreign", False, CallLog())
            other = self.factory(led.tick, led.wheel_size)
            m_other = self.model_factory(led.tick, led.wheel_size)
            self._foreign = (other, other.schedule(led.now + led.tick, cb),
                             m_other.schedule(led.now + led.tick, cb))
            self._preamble_extra = [
                _factory_code(led.tick, led.wheel_size, assign="other"),
                f"foreign = other.schedule(deadline={led.now + led.tick}, "
                "callback=make_callback('cb_foreign'))"]
        return self._foreign

    @rule(i=st.integers(0, 200), which=st.sampled_from(("handle",) * 5 + ("foreign", "object")))
    def cancel(self, i: int, which: str) -> None:
        led = self.ledger
        if which == "handle" and led.timers:
            rec = led.timers[i % len(led.timers)]
            state = rec.t_state if self.tolerance else rec.state
            at = ("after" if state == FIRED else "again" if state == CANCELLED else
                  "at" if rec.due_tick <= led.cursor else "before")
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
            got = observe(self.target.cancel, self.t_handles[rec.name], norm=_strict_bool)
            self.expect("W4", step, expected, got, check=check_expr(expected, None),
                        story="rule 4: cancel is True iff it stopped a live timer")
            self._ex("W4", "W-T3")
            if got.value is True:
                rec.t_state = CANCELLED
            return
        if which == "object":
            event("cancel: not a handle")
            step = self.trace.add("target.cancel('h_0')", "cancel something that is not a handle")
            expected = observe_model(self.model.cancel, "h_0")
            got = observe(self.target.cancel, "h_0")
            self.expect("W4", step, expected, got, check=check_expr(expected, None))
            self._ex("W4", "W6")
            return
        event("cancel: another wheel's handle")
        other, t_foreign, m_foreign = self._foreign_handles()
        step = self.trace.add("target.cancel(foreign)", "cancel a handle of another wheel")
        expected = observe_model(self.model.cancel, m_foreign)
        got = observe(self.target.cancel, t_foreign, norm=_strict_bool)
        self.expect("W4", step, expected, got, check=check_expr(expected, None),
                    story="rule 4: a handle from another wheel is not ours to cancel")
        self._compare_query("W4", "other.pending()", "the other wheel still holds its timer", 1,
                            observe(other.pending), "cancel(foreign) must not touch other")
        self._ex("W4", "W-T3")

    # ---------------------------------------------------------------- advance

    def _advance(self, now: Any, words: str) -> None:
        led, tick = self.ledger, self.ledger.tick
        name = self.trace.fresh_name("fired")
        step = self.trace.add(call_code("advance", assign=name, now=now), words)
        lag_before, prev_now, cursor_before = led.lag(), led.now, led.cursor
        m = observe_model(self.model.advance, now)
        t = observe(self.target.advance, now=now)
        if not m.ok:
            self.expect("W1" if m.error == "ValueError" else "W6", step, m, t,
                        check=check_expr(m, None), also=("W6",))
            self._check_counts("W6", "W6")  # errors never change state
            return
        first, last = led.window(now)
        fired = led.advance(now)
        names = [r.name for r in fired]
        if not self.tolerance:
            m_names = [self._m_ids[id(h)].name if id(h) in self._m_ids else repr(h)
                       for h in m.value]
            if m_names != names:
                self._internal(f"advance({now}): model fired {m_names}, ledger {names}")
        if not t.ok:
            self.expect("W1", step, m, t, check=check_expr(m, None))
        try:
            t_list = list(t.value)
        except TypeError:
            self._fail("W3", f"advance({now}) returned {t.value!r}, not a list of handles", step)
        t_recs = [self._t_ids.get(id(h)) for h in t_list]
        t_names = [r.name if r else f"<unknown {h!r}>" for r, h in zip(t_recs, t_list)]
        step.expected, step.actual = repr(names), repr(t_names)
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
        self._check_fired(step, now, t_recs, t_names, max(t_last, t_reported))
        recs = [r for r in t_recs if r is not None]
        keeping_up = lag_before == 0 and now // tick - prev_now // tick <= 1 and led.lag() == 0
        if not self.tolerance and t_names != names:
            self._classify(step, words, names, t_names, (first, last), t_reported)
        for rec in recs:
            rec.t_state = FIRED
            rec.t_ticks = (t_first, t_last)
            if self.tolerance and not (t_first <= rec.due_tick <= t_last):
                self._note_off_tick(rec)
        if self.tolerance:
            self._check_eventually(step, now, t_last)
        self._after_fire(step, recs, [] if self.tolerance else fired)
        self._fired_total += len(recs)
        self._ex("W1")
        if recs:
            self._ex("W2", "W3", "W-INV-EARLY", "W-INV-ONCE")
            if keeping_up or self.tolerance:
                self._ex("W-INV-LATE")
        if led.lag() > 0 and last >= first:
            self._ex("W-T2")
            event("advance: backlog left")
        event(f"advance: fired {min(len(recs), 3)}{'+' if len(recs) >= 3 else ''}")

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
        self._fail(clause, f"{words}: `{step.code}` processes ticks {first}..{last}: the "
                   f"contract fires {names} (by due tick, ties in schedule order); the "
                   f"target {what}: {t_names}"
                   + (f"; by its lag_ticks() it processed up to tick {t_reported}"
                      if t_reported != processed else ""), step)

    def _check_fired(self, step: Step, now: int, t_recs: list[TimerRecord | None],
                     t_names: list[str], t_last: int) -> None:
        tick = self.ledger.tick
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
                self.diverge("W-INV-ONCE", f"{rec.name} fired although cancel({rec.name}) "
                             "returned True earlier: a cancelled timer never fires", step=step)
            if rec.deadline > t_last * tick:
                self.diverge("W-INV-EARLY", f"{rec.name} (deadline {rec.deadline}) fired in "
                             f"advance(now={now}), whose last processed tick is {t_last} "
                             f"(instant {t_last * tick}): before its deadline; its contract due"
                             f" tick is {rec.due_tick} (tick {tick}, wheel_size "
                             f"{self.ledger.wheel_size})", step=step)

    def _check_eventually(self, step: Step, now: int, t_last: int) -> None:
        """Tolerance: a live timer is at most one tick later than its contract due tick."""
        tick = self.ledger.tick
        for rec in self.ledger.t_live():
            if rec.due_tick <= t_last - 1:
                self._fail("W-INV-LATE", f"{rec.name} (deadline {rec.deadline}, contract due "
                           f"tick {rec.due_tick}) is still pending after advance(now={now}) "
                           f"processed tick {t_last} (instant {t_last * tick}): more than one "
                           "tick later than the contract allows, even in tolerance mode", step)

    def _note_off_tick(self, rec: TimerRecord) -> None:
        tol = _TOLERANCE.setdefault(id(self.result), _Tolerance())
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
                self._fail("W3", f"advance fired {len(recs)} timers but submitted {new} "
                           "callbacks to the executor: each fired callback is submitted "
                           "exactly once, in firing order (rule 3)", step)
            for k, rec in enumerate(recs):
                if ex.accepts(side.seen_submissions + k):
                    side.queue.append(rec.callback)
                else:
                    side.errors += 1
            side.seen_submissions = len(ex.submitted)
        if self.t_side.executor is not None and t_recs:
            self._ex("W3", "W-T4")

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
            "earlier": led.now - 1 - x % (2 * t),
            "stall": led.now + (10 * w + x % 1000) * t,
        }[kind]
        event(f"advance: {kind}")
        self._advance(now, f"advance ({kind})")

    @rule(ticks=st.integers(1, 6), offset=st.integers(0, 10**6))
    def walk(self, ticks: int, offset: int) -> None:
        """A driver keeping up: one advance per tick (so "at most a tick late" applies)."""
        event("advance: walk tick by tick")
        t = self.ledger.tick
        for _ in range(ticks):
            now = (self.ledger.now // t + 1) * t + offset % t
            self._advance(now, "advance to the next tick (keeping up)")

    @precondition(lambda self: self.target is not None and self.ledger.lag() > 0)
    @rule()
    def drain_backlog(self) -> None:
        """The same ``now`` again: a budget-limited wheel works off its backlog (rule 1)."""
        event("advance: drain backlog")
        self._advance(self.ledger.now, "advance again with the same now (drain the backlog)")

    @rule(which=st.sampled_from(("bool", "float")))
    def advance_malformed(self, which: str) -> None:
        now: Any = True if which == "bool" else float(self.ledger.now)
        event(f"malformed advance: {which}")
        self._advance(now, f"advance with a {which} now")

    # ---------------------------------------------------------------- executor and construction

    @precondition(lambda self: self.executor is not None)
    @rule()
    def run_callbacks(self) -> None:
        """Run the executor's queue on its worker thread; order and error counts are checked."""
        assert self.executor is not None
        step = self.trace.add("executor.run_pending()", "the executor runs the submitted callbacks")
        start = len(self.t_side.log)
        self.executor.run_pending()
        assert self.m_side.executor is not None
        self.m_side.executor.run_pending()
        ran = [n for n, _ in self.t_side.log.since(start)]
        expected = self.t_side.queue
        step.expected, step.actual = repr(expected), repr(ran)
        if ran != expected:
            self.diverge("W3", "the executor ran callbacks " + repr(ran) + " but the accepted "
                         f"submissions, in firing order, were {expected}", step=step)
        for side in (self.t_side, self.m_side):
            side.errors += sum(1 for n in side.queue if self.callbacks.get(n) == "raises")
            side.queue = []
        self.t_side.seen_calls = len(self.t_side.log)
        self.m_side.seen_calls = len(self.m_side.log)
        event(f"executor: ran {min(len(ran), 2)}")
        self._ex("W3", "W-T4")

    @rule(which=st.integers(0, 7))
    def construct_malformed(self, which: int) -> None:
        cases: list[tuple[tuple[Any, ...], dict[str, Any], str | None]] = [
            ((0, 4), {}, None), ((True, 4), {}, None), ((4, 0), {}, None),
            ((4, 2.0), {}, None), ((4, 4), {"start": True}, "start"),
            ((4, 4), {"max_catchup_ticks": 0}, "max_catchup_ticks"),
            ((4, 4), {"max_pending": -1}, "max_pending"),
            ((4, 4), {"max_pending": 1.0}, "max_pending"),
        ]
        args, kwargs, needs = cases[which]
        if needs is not None and needs not in self.support.args:
            return
        code = _factory_code(*args, **kwargs)
        step = self.trace.add(code, "build a wheel with a malformed argument")
        expected = observe_model(self.model_factory, *args, **kwargs)
        got = observe(self.factory, *args, **kwargs)
        built = Observed(value="wheel")
        self.expect("W6", step, expected if not expected.ok else built,
                    got if not got.ok else built, check=check_expr(expected, None))
        self._ex("W6")

    # ---------------------------------------------------------------- the invariant

    @invariant()
    def agrees_with_the_model(self) -> None:
        if self.target is None:
            return
        self._check_callbacks()
        self._check_counts("W-INV-PENDING", "W1")
        self._ex("W-INV-PENDING")
        if "callback_errors" in self.support.methods and self.t_side.executor is not None:
            if not self.tolerance and self.model.callback_errors() != self.m_side.errors:
                self._internal(f"model callback_errors() {self.model.callback_errors()} != "
                               f"{self.m_side.errors}")
            self._compare_query("W3", "target.callback_errors()", "count the callback errors",
                                self.t_side.errors, observe(self.target.callback_errors),
                                "callback_errors() counts callbacks that raised and rejected "
                                "submissions (rule 3)")
        self._check_handles()
        check = getattr(self.model, "check_invariants", None)
        if check is not None:
            check()

    def teardown(self) -> None:
        if self.target is not None:
            # steer the search toward runs where many timers fire and the wheel is crowded
            hypothesis.target(float(self._fired_total), label="timers fired")
            hypothesis.target(float(len(self.ledger.timers)), label="timers scheduled")
        super().teardown()

    def _check_callbacks(self) -> None:
        side = self.t_side
        calls = side.log.since(side.seen_calls)
        for name, thread in calls:
            if side.executor is None:
                self.diverge("W3", f"callback {name} was called by the wheel, which has no "
                             "executor: without one, advance never calls a callback -- the "
                             "caller runs handle.callback (rule 3)")
            if thread == self.home:
                self.diverge("W3", f"callback {name} ran on the thread that calls advance(): "
                             "callbacks go to the executor and never run on the tick thread "
                             "(rule 3; seed: callback isolation)")
        if side.executor is not None and len(side.executor.submitted) != side.seen_submissions:
            self.diverge("W3", "the target submitted callbacks to the executor outside "
                         "advance(): only a fired timer's callback is submitted (rule 3)")

    def _check_handles(self) -> None:
        for rec in self.ledger.timers:
            handle = self.t_handles[rec.name]
            if not self.tolerance:
                mh = self.m_handles[rec.name]
                if (mh.fired, mh.cancelled) != (rec.state == FIRED, rec.state == CANCELLED):
                    self._internal(f"model handle {rec.name} {mh!r} vs ledger {rec.state}")
            for attr, expected, clause in (
                ("fired", rec.t_state == FIRED, "W4"),
                ("cancelled", rec.t_state == CANCELLED, "W4"),
                ("deadline", rec.deadline, "W2"),
            ):
                got = observe(getattr, handle, attr)
                self._compare_query(clause, f"{rec.name}.{attr}", f"read {rec.name}.{attr}",
                                    expected, got, f"{rec.name} is {rec.t_state}")


def _configs(support: Support) -> st.SearchStrategy[dict[str, Any]]:
    opt: dict[str, st.SearchStrategy[Any]] = {}
    if "start" in support.args:
        opt["start"] = st.sampled_from(STARTS)
    if "max_catchup_ticks" in support.args:
        opt["max_catchup_ticks"] = st.sampled_from((None, 1, 2, 3, 5, 100))
    if "max_pending" in support.args:
        opt["max_pending"] = st.sampled_from((None, 0, 1, 2, 3, 8))
    if "executor" in support.args:
        opt["executor"] = st.sampled_from((None, *EXECUTOR_POLICIES))
    return st.fixed_dictionaries({"tick": st.sampled_from(TICKS),
                                  "wheel_size": st.sampled_from(WHEEL_SIZES),
                                  "options": st.fixed_dictionaries(opt)})


def _unsupported(result: RunResult, support: Support) -> None:
    clause_of = {"max_catchup_ticks": "W1", "lag_ticks": "W1", "max_pending": "W5",
                 "executor": "W-T4", "callback_errors": "W-T4"}
    for part in support.missing:
        if part not in result.unsupported:
            result.unsupported.append(part)
        if part in clause_of:
            result.unsupported_clause(clause_of[part])


def make_wheel_machine(
    factory: Callable[..., Any],
    *,
    result: RunResult | None = None,
    tolerance: bool = False,
    extra_bases: tuple[type, ...] = (),
    model_factory: Callable[..., Any] | None = None,
) -> type[RuleBasedStateMachine]:
    """A machine class driving ``factory(tick, wheel_size, **options)`` against the model.

    ``result`` (default: a fresh one) receives clause counts and "not supported" verdicts;
    ``extra_bases`` are mixed in before :class:`WheelMachine` (see the module docstring for
    the attributes they may use); ``model_factory`` replaces the reference model (tests).
    """
    if model_factory is None:
        from schedcheck.model import TimingWheel

        model_factory = TimingWheel
    support = probe(factory)
    if result is None:
        result = RunResult.fresh("wheel", getattr(factory, "__qualname__", repr(factory)))
    _unsupported(result, support)
    configs = _configs(support)

    def setup(self: WheelMachine, config: dict[str, Any]) -> None:
        self._build(config["tick"], config["wheel_size"], dict(config["options"]))

    namespace: dict[str, Any] = {
        "factory": staticmethod(factory),
        "model_factory": staticmethod(model_factory),
        "support": support,
        "tolerance": tolerance,
        "_ctx": RunContext(result),
        "setup": initialize(config=configs)(setup),
    }
    bases = (*extra_bases, WheelMachine)
    machine: type[RuleBasedStateMachine] = type("WheelSuite", bases, namespace)
    return machine


def run_wheel_suite(
    factory: Callable[..., Any],
    *,
    target_name: str = "",
    examples: int | None = None,
    seed: int | None = None,
    profile: str | None = None,
    progress: Progress | None = None,
    tolerance: bool = False,
    extra_bases: tuple[type, ...] = (),
    model_factory: Callable[..., Any] | None = None,
    shrink: bool = True,
) -> RunResult:
    """Run the suite against ``factory``; a counterexample lands in ``RunResult.counterexample``.

    ``shrink=False`` keeps the first failing run as found (no Hypothesis shrink phase): a kill
    then costs a fraction of a second instead of the tens of seconds shrinking may take, at
    the price of a longer program (the zoo's choice).

    Raises ``SchedcheckInternalError`` for a bug in schedcheck and
    ``wheel_fixtures.TargetUnusable`` (a ``ValueError``) when ``factory(1, 1)`` cannot build a
    wheel at all.
    """
    result = RunResult.fresh("wheel", target_name or getattr(factory, "__qualname__", "target"))
    machine = make_wheel_machine(factory, result=result, tolerance=tolerance,
                                 extra_bases=extra_bases, model_factory=model_factory)
    settings = suite_settings(examples=examples, profile=profile)
    if not shrink:
        settings = hypothesis.settings(
            settings, phases=[p for p in settings.phases if p is not hypothesis.Phase.shrink])
    disabled = logging.root.manager.disable
    logging.disable(logging.CRITICAL)  # wheels log every callback error: thousands of lines
    try:
        run_suite(machine, result, settings, progress, seed=seed)  # type: ignore[arg-type]
    finally:
        logging.disable(disabled)
    if result.counterexample is not None and not shrink:
        result.notes.append("not shrunk: the counterexample is the first failing run found")
    if tolerance:
        result.notes.append("tolerance mode: advance results, lag_ticks() and due ticks were "
                            "not compared with the model; only the invariants were checked")
        tol = _TOLERANCE.pop(id(result), None)
        if tol is not None:
            result.notes.extend(tol.notes)
            if tol.count > len(tol.notes):
                result.notes.append(f"... {tol.count} firings in all were off the contract's "
                                    "due tick")
    return result
