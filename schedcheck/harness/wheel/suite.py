"""The timing wheel's differential suite: the model and a target driven in lockstep.

A Hypothesis ``RuleBasedStateMachine`` (:func:`make_wheel_machine`) builds, per example, the
reference model (``schedcheck.model.TimingWheel``) and the target with the same drawn
parameters -- tick and wheel sizes 1, 2, odd and powers of two, ``start`` (negative and huge
included), with and without ``max_catchup_ticks`` (1 and 2 included), ``max_pending`` (0
included) and an executor (recording, rejecting or flaky; see ``wheel.fixtures``; the values
drawn are in ``wheel.draws``) -- drawing only the optional arguments the target accepts
(contract Part 3, :func:`wheel.fixtures.probe`).
Its rules reach, often: deadlines in the past, at the current instant, on tick boundaries,
inside one rotation, exactly one rotation away, many rotations away and beyond 2**40, several
timers in one bucket with different rounds; ``schedule_after`` with negative, zero and
positive delays; ``cancel`` before, at and after the due tick, twice, of a fired handle, of
another wheel's handle and of a non-handle; ``advance`` by zero, one unit, a fraction of a
tick, one tick, many ticks, to a timer's deadline, with the same ``now`` again (draining a
backlog) and with an earlier ``now``; ``max_pending`` reached; malformed arguments everywhere.
No ``advance`` jumps more than ``MAX_JUMP_TICKS`` ticks, so a wheel that walks empty ticks
one by one is slow here rather than hung (the contract's "a stall costs O(non-empty buckets)"
is not measured by this suite; W-COST measures the per-tick cost against the timer count).

Every call is compared (Part 3 matching, ``common.observe``): ``advance`` results as lists of
handle names (``["h_0", "h_2"]``), ``cancel`` results, errors by name; after every step the
invariant compares ``pending()``, ``lag_ticks()``, ``callback_errors()`` and each handle's
``fired``/``cancelled``/``deadline``, and checks the executor: each fired callback submitted
once, in firing order, never run on the thread that calls ``advance`` (the callbacks log
their thread). A harness-side :class:`~schedcheck.harness.wheel.ledger.Ledger` re-derives the
contract independently and cross-checks the model (disagreement: ``SchedcheckInternalError``).

Tolerance mode (``tolerance=True``): no exact comparison of ``advance`` results, ``lag_ticks``
or ``pending`` with the model; only the invariants (never early, at most once, never after a
successful cancel, ``pending()`` = the target's own live timers, executor behaviour) plus
"no live timer is more than one tick behind its contract due tick" (so a timer whose deadline
is <= processed time - tick has fired) -- and ``RunResult.notes`` lists timers that fired at
another tick than the contract's due tick. W2 and the firing order stay "not exercised".

Driving: :func:`run_wheel_suite` (``common.run_suite``: no example database, ``seed`` fixes
the search; ``shrink=False`` keeps the first failing run, as the zoo does).

Counterexamples (``common.SuiteMachine.diverge``): ``setup`` is ``target = factory(...)``;
``snapshot`` is the contract's picture of the wheel from the ledger (``tick``, ``tick_size``,
``wheel_size``, ``timers`` with due tick, bucket, rounds and state, ``timeline``) plus, for the
replay script: ``preamble`` -- lines to run before ``setup`` (they import
``wheel.fixtures.RecordingExecutor``/``make_callback`` and define ``executor``, ``cb_0``...,
and ``other``/``foreign`` when another wheel's handle is used) -- ``callbacks`` (name -> "ok" or
"raises") and ``executor`` (policy or None). Drain steps read ``executor.run_pending()``.

Mixins (``extra_bases``, e.g. a concurrent round) may use: ``self.model``, ``self.target``,
``self.ledger`` (cursor, now, ``timers``: :class:`TimerRecord` per name), ``self.t_handles`` /
``self.m_handles`` (name -> target / model handle), ``self.trace`` (the ``Recorder``),
``self.result``, ``self.exercise(...)``, ``self.diverge(...)``, ``self.executor``, and
``self.new_callback(raises)`` -> ``(name, target_cb, model_cb)``, and -- to report calls made
outside the rules, in linearization order -- ``self.note_schedule``, ``self.note_cancel`` and
``self.note_advance`` (``wheel.checks``), which keep the ledger and executor accounting in step.
Nothing here imports ``schedcheck.impl``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hypothesis import event
from hypothesis import strategies as st
from hypothesis.stateful import initialize, invariant, precondition, rule

from schedcheck import contract
from schedcheck.harness import guard
from schedcheck.harness.clauses import W_MEM
from schedcheck.harness.common import (
    Observed,
    Progress,
    Ref,
    RunContext,
    ScalingResult,
    call_code,
    check_expr,
    observe,
    observe_model,
)
from schedcheck.harness.minimize import run_reduced
from schedcheck.harness.program import atomic
from schedcheck.harness.result import RunResult
from schedcheck.harness.search import explore
from schedcheck.harness.wheel.advance import AdvanceRules
from schedcheck.harness.wheel.cancel import WheelCancels
from schedcheck.harness.wheel.checks import TOLERANCE_NOTES, Side, factory_code
from schedcheck.harness.wheel.cost import check_wheel_scaling
from schedcheck.harness.wheel.draws import (
    DEADLINE_KINDS,
    DELAY_KINDS,
    HUGE,
    configs,
    placement,
    record_unsupported,
)
from schedcheck.harness.wheel.fixtures import probe
from schedcheck.harness.wheel.ledger import Ledger
from schedcheck.harness.wheel.memory import EXEMPT, exempt
from schedcheck.profiles import unshrunk_settings

__all__ = [
    "ScalingResult",
    "WheelMachine",
    "check_wheel_scaling",
    "make_wheel_machine",
    "run_wheel_suite",
]


class WheelMachine(AdvanceRules, WheelCancels):
    """The differential machine; :func:`make_wheel_machine` binds it to a factory. Its
    ``advance`` rules are in :class:`~schedcheck.harness.wheel.advance.AdvanceRules`, its
    ``cancel`` calls in :class:`~schedcheck.harness.wheel.cancel.WheelCancels`."""

    # ---------------------------------------------------------------- construction

    @atomic
    def _build(self, tick: int, wheel_size: int, options: dict[str, Any]) -> None:
        policy = options.pop("executor", None)
        options = {k: v for k, v in options.items() if v is not None}  # None: the default
        self.options = options
        self.t_side, self.m_side = Side(policy), Side(policy)
        self.executor = self.t_side.executor
        self.announce_preamble()
        t_opts, m_opts = dict(options), dict(options)
        if policy:
            t_opts["executor"], m_opts["executor"] = self.t_side.executor, self.m_side.executor
        shown = {**options, **({"executor": Ref("executor")} if policy else {})}
        self.trace.setup = factory_code(tick, wheel_size, assign="target", **shown)
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

    # ---------------------------------------------------------------- schedule

    def _within_horizon(self, deadline: int) -> int:
        """A deadline no further than the target's declared or probed horizon."""
        horizon = self.support.caps.max_delay
        return deadline if horizon is None else min(deadline, self.ledger.now + horizon)

    def _deadline(self, kind: str, a: int, m: int, r: int) -> int:
        led = self.ledger
        span = led.tick * led.wheel_size
        base = led.cursor * led.tick
        live = led.live()
        return self._within_horizon({
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
        }[kind])

    @atomic
    def _schedule(self, value: Any, raises: bool, *, after: bool, words: str,
                  callback: Any = None, placed: bool = False) -> None:
        """``placed``: ``words`` get where the timer lands, worked out now from the value and
        the wheel's state -- so a reduced program, whose values and earlier steps changed,
        still says what is true of each step (a delay of 0 is never "negative")."""
        led = self.ledger
        if placed:
            words = f"{words} ({placement(led, value, after=after)})"
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
        before = None if m.ok else self.counts()  # a refusal must leave them as they are
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
            self.fulls += 1
            self._ex("W5", "W-T4")
            event("schedule: wheel full")
        if not t.ok:
            self.counts_unchanged(before)  # errors never change state (W6)
            return
        deadline = led.now + value if after else value
        rec = led.schedule(deadline, name, raises)
        self.bind_handles(rec, t_handle, m_handle)
        rounds = (rec.due_tick - led.cursor) // led.wheel_size
        event(f"schedule: rounds {'0' if rounds == 0 else '1' if rounds == 1 else '>1'}")
        # tolerance mode never compares due ticks exactly: W2 stays "not exercised" there
        self._ex(*(() if self.tolerance else ("W2",)), "W-T1", *(("W-T2",) if rounds else ()))

    @rule(kind=st.sampled_from(DEADLINE_KINDS), a=st.integers(-2, 2), m=st.integers(1, 4),
          r=st.integers(0, 10**6), raises=st.sampled_from((False, False, False, True)))
    def schedule(self, kind: str, a: int, m: int, r: int, raises: bool) -> None:
        event(f"deadline: {kind}")
        deadline = self._deadline(kind, a, m, r)
        self._schedule(deadline, raises, after=False,
                       words=f"schedule a timer at {deadline}", placed=True)

    @rule(go=st.integers(0, 31), k=st.sampled_from((128, 200)),
          kind=st.sampled_from(("now", "soon", "in_rotation", "rotations")),
          r=st.integers(0, 10**6))
    def schedule_burst(self, go: int, k: int, kind: str, r: int) -> None:
        """k >= 128 timers at one deadline in one step, at most once per example (drawn one
        time in 32): real code meets bursts that no timer-by-timer program reaches (a
        lock taken per due timer, a recursion as deep as the timers due at one instant)."""
        if go or getattr(self, "_burst", False):
            return
        self._burst = True
        deadline = self._deadline(kind, 0, 1, r)
        event(f"burst of {k} at one deadline")
        for _ in range(k):
            self._schedule(deadline, False, after=False,
                           words=f"schedule a timer at {deadline} (in a burst at one deadline)")
            if self.ledger.full(len(self.ledger.t_live() if self.tolerance
                                    else self.ledger.live())):
                break

    @precondition(lambda self: self.support.caps.cancel != "missing")
    @rule(k=st.integers(3, 5), m=st.integers(1, 3), r=st.integers(0, 10**6))
    def timeouts(self, k: int, m: int, r: int) -> None:
        """A request's timeouts: ``k`` timers some rotations away; a tick later all of them
        cancelled again when the request completes, and the next tick -- how most timers of a
        real wheel end, and what piles up as cancelled shells in a wheel that never drops
        them (W-MEM)."""
        made = []
        for j in range(k):
            before = len(self.ledger.timers)
            deadline = self._deadline("rotations", 0, m, r + j)
            self._schedule(deadline, False, after=False,
                           words=f"a request's timeout: a timer at {deadline}")
            if len(self.ledger.timers) > before:
                made.append(self.ledger.timers[-1])
        self._advance(self.ledger.now + self.ledger.tick, words="a tick passes")
        for rec in made:
            self.cancel_timer(rec)
        self._advance(self.ledger.now + self.ledger.tick, words="the next tick")

    @rule(k=st.integers(2, 3), r=st.integers(0, 10**6))
    def long_pause(self, k: int, r: int) -> None:
        """The seed's long pause (a collector pause, a suspended machine): ``k`` timers one
        rotation apart each, the latest first and nearest the cursor in the ring (so the ring
        order is the reverse of the due order), then one advance past all of them: a
        catch-up longer than a rotation still fires by due tick, ties in schedule order."""
        led = self.ledger
        span, base = led.tick * led.wheel_size, led.cursor * led.tick
        for j in range(k, 0, -1):
            deadline = self._within_horizon(base + j * span + ((k - j) + r) % led.wheel_size
                                            * led.tick)
            self._schedule(deadline, False, after=False, words=f"schedule a timer at "
                           f"{deadline} before a long pause", placed=True)
        now = base + (k + 1) * span + r % span
        # the drawn kind in parentheses, as the advance rule names its own ("(stall)"): a
        # reduced number keeps the words true
        self._advance(now, words=f"advance to {now} (long pause)")

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
        horizon = self.support.caps.max_delay
        if horizon is not None:
            delay = min(delay, horizon)
        event(f"delay: {kind}")
        self._schedule(delay, raises, after=True, words=f"schedule_after({delay})", placed=True)

    @precondition(lambda self: self.support.caps.validates_args)
    @rule(which=st.integers(0, 14))
    def malformed(self, which: int) -> None:
        """Malformed arguments (rule 6): TypeError/ValueError, before WheelFullError (rule 5),
        and nothing changes. One rule for all, so well-formed calls keep most of the steps."""
        if which >= 7:
            self._construct_malformed(which - 7)
            return
        if which >= 5:
            now: Any = True if which == 5 else float(self.ledger.now)
            event("malformed: advance")
            self._advance(now, words=f"advance with a {type(now).__name__} now")
            return
        value, callback, after = ((True, None, False), (1.5, None, False), ("3", None, False),
                                  (self.ledger.now, "not callable", False),
                                  (False, None, True))[which]
        event("malformed: schedule")
        self._schedule(value, False, after=after, callback=callback,
                       words="schedule with a malformed " + (
                           "callback" if callback else type(value).__name__))
        self._ex("W6")

    # ---------------------------------------------------------------- cancel
    @precondition(lambda self: self.support.caps.cancel != "missing")
    @rule(i=st.integers(0, 200),
          which=st.sampled_from(("handle",) * 3 + ("pending",) * 3
                                + ("every", "foreign", "object")))
    def cancel(self, i: int, which: str) -> None:
        """cancel() of a timer (any: before, at or after its due tick, again; or one still
        pending, so that a program cancels often enough to reach a wheel's cleanup of
        cancelled timers; or every pending one, as a client dropping all its timeouts: the
        shells then outnumber the pending timers), of another wheel's handle or of a
        non-handle (``wheel.cancel``)."""
        caps = self.support.caps
        if which == "foreign" and caps.handles != "checked":
            which = "handle"  # a handle that cancels itself: another wheel's is not ours
        if which == "object" and not caps.validates_args:
            which = "handle"
        if which == "every":
            for rec in self.ledger.live():
                self.cancel_timer(rec)
            return
        if which == "pending":
            pending = self.ledger.live()
            if pending:
                self.cancel_timer(pending[i % len(pending)])
                return
            which = "handle"
        if which != "handle":
            self.cancel_other(which)
        elif self.ledger.timers:
            self.cancel_timer(self.ledger.timers[i % len(self.ledger.timers)])

    # ---------------------------------------------------------------- executor and construction

    @precondition(lambda self: self.executor is not None)
    @rule()
    @atomic
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

    @atomic
    def _construct_malformed(self, which: int) -> None:
        cases: list[tuple[tuple[Any, ...], dict[str, Any], str | None]] = [
            ((0, 4), {}, None), ((True, 4), {}, None), ((4, 0), {}, None),
            ((4, 2.0), {}, None), ((4, 4), {"start": True}, "start"),
            ((4, 4), {"max_catchup_ticks": 0}, "max_catchup_ticks"),
            ((4, 4), {"max_pending": -1}, "max_pending"),
            ((4, 4), {"max_pending": 1.0}, "max_pending"),
        ]
        args, kwargs, needs = cases[which]
        if needs is not None and needs not in self.support.args:
            args, kwargs = cases[which % 4][:2]
        event("malformed: constructor")
        code = factory_code(*args, **kwargs)
        step = self.trace.add(code, "build a wheel with a malformed argument")
        expected = observe_model(self.model_factory, *args, **kwargs)
        got = observe(self.factory, *args, **kwargs)
        built = Observed(value="wheel")
        self.expect("W6", step, expected if not expected.ok else built,
                    got if not got.ok else built, check=check_expr(expected, None))
        self._ex("W6")

    @classmethod
    def after_run(cls, result: RunResult) -> None:
        """Tolerance mode: say what was not compared, and list the off-tick firings."""
        if not cls.tolerance:
            return
        result.notes.append("tolerance mode: advance results, lag_ticks() and due ticks were "
                            "not compared with the model; only the invariants were checked")
        tol = TOLERANCE_NOTES.pop(id(result), None)
        if tol is not None:
            result.notes.extend(tol.notes)
            if tol.count > len(tol.notes):
                result.notes.append(f"... {tol.count} firings in all were off the contract's "
                                    "due tick")

    # ---------------------------------------------------------------- the invariant

    @invariant()
    def agrees_with_the_model(self) -> None:
        if self.target is None:
            return
        self._check_callbacks()
        self._check_counts("W-INV-PENDING", "W1")
        if self.support.caps.counts_pending:  # else nothing of the target was read
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
        self._check_memory()
        check = getattr(self.model, "check_invariants", None)
        if check is not None:
            try:
                check()
            except AssertionError as exc:  # never mistaken for a counterexample
                raise contract.SchedcheckInternalError(
                    f"the reference model broke its own invariant: {exc}") from exc


def make_wheel_machine(
    factory: Callable[..., Any],
    *,
    result: RunResult | None = None,
    tolerance: bool = False,
    extra_bases: tuple[type, ...] = (),
    model_factory: Callable[..., Any] | None = None,
) -> type[WheelMachine]:
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
    record_unsupported(result, support)
    drawn = configs(support)
    # a timer that fires at the deadline itself has no due ticks to compare: invariants only
    tolerance = tolerance or not support.caps.due_ticks or support.caps.early_by is not None
    if getattr(factory, "runs_elsewhere", False):  # a child process: no objects to walk here
        result.unsupported_clause(W_MEM, "a memory that can be walked (it runs in another "
                                         "process)")
    elif exempt(factory):
        result.unsupported_clause(W_MEM, f"a bound on the timers it keeps ({EXEMPT})")
    elif tolerance:
        result.unsupported_clause(W_MEM, "the contract's memory bound (tolerance mode checks "
                                         "the invariants only)")

    def setup(self: WheelMachine, config: dict[str, Any]) -> None:
        self._build(config["tick"], config["wheel_size"], dict(config["options"]))

    namespace: dict[str, Any] = {
        "factory": staticmethod(factory),
        "model_factory": staticmethod(model_factory),
        "support": support,
        "tolerance": tolerance,
        "_ctx": RunContext(result),
        "setup": initialize(config=drawn)(setup),
    }
    bases = (*extra_bases, WheelMachine)
    machine: type[WheelMachine] = type("WheelSuite", bases, namespace)
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
    set_aside: frozenset[str] = frozenset(),
    level_aside: frozenset[str] = frozenset(),
    budget: float | None = None,
    phased: bool = False,
) -> RunResult:
    """Run the suite against ``factory``; a counterexample lands in ``RunResult.counterexample``.

    ``shrink=False`` keeps the first failing run as found (no Hypothesis shrink phase): a kill
    then costs a fraction of a second instead of the tens of seconds shrinking may take, at
    the price of a longer program (the zoo's choice). ``set_aside``: clauses whose oracle is
    set aside (``SuiteMachine.set_aside``; keep-going grading), ``level_aside`` the other level's
    clauses (the core level), set aside except for a crash. A ``budget`` (seconds) runs the
    budgeted search (``harness.search``) instead of one fixed run; so do ``examples`` with
    ``phased`` (seed-only mode).

    Raises ``SchedcheckInternalError`` for a bug in schedcheck and
    ``wheel.fixtures.TargetUnusable`` (a ``ValueError``) when ``factory(1, 1)`` cannot build a
    wheel at all.
    """
    result = RunResult.fresh("wheel", target_name or getattr(factory, "__qualname__", "target"))
    machine = make_wheel_machine(factory, result=result, tolerance=tolerance,
                                 extra_bases=extra_bases, model_factory=model_factory)
    machine.set_aside, machine.level_aside = frozenset(set_aside), frozenset(level_aside)
    searched = explore(machine, result, budget=budget, examples=examples, seed=seed,
                       profile=profile, progress=progress, shrink=shrink, phased=phased)
    if searched is not None:
        return searched
    # one reduction, delta debugging over the atomic program (see scheduler.suite)
    settings = unshrunk_settings(examples, profile, False)
    with guard.no_logging():
        run_reduced(machine, result, settings, progress, seed=seed, reduce=shrink)
    if result.counterexample is not None and not shrink:
        result.notes.append("not shrunk: the counterexample is the first failing run found")
    machine.after_run(result)
    return result
