"""Infrastructure shared by the differential suites (scheduler_suite.py, wheel_suite.py).

A suite is a Hypothesis ``RuleBasedStateMachine`` that drives the reference model and a target
side by side. Everything that is not specific to one system lives here:

* :class:`Observed` -- the "outcome" of one call, compared between model and target: either
  the *normalised* return value (``schedcheck.adapt``) or the contract name of the exception
  (``adapt.error_name``). The original exception rides along (``exc``) but is not compared.
  :func:`observe` calls a target method; :func:`observe_model` calls the model and turns an
  exception that is not a contract error into ``SchedcheckInternalError`` (a model bug is never
  a counterexample against the target).
* :class:`Recorder` -- the trace: a list of :class:`~schedcheck.harness.result.Step`, one per
  call, with code lines ``name = target.method(k=v)`` and plain words; results get names such
  as ``claim_0`` or ``h_1`` (:meth:`Recorder.fresh_name`) that later lines reuse (wrap them in
  :class:`Ref` so they print as the name, not as a value).
* :class:`SuiteMachine` -- the base class of both suites' machines. It owns the recorder
  (``self.trace``), the run's :class:`~schedcheck.harness.result.RunResult` (``self.result``),
  clause accounting (:meth:`SuiteMachine.exercise`), comparison (:meth:`SuiteMachine.expect`)
  and divergence (:meth:`SuiteMachine.diverge`): the first divergence becomes a
  :class:`~schedcheck.harness.result.Counterexample` and raises :class:`Divergence` (an
  ``AssertionError``) whose message tells the story and lists the program so far.
* :func:`run_suite` -- the driver: ``run_state_machine_as_test`` with example/step counting, a
  progress callback ``progress(examples_done, steps, failures)``, and the FINAL (shrunk) run's
  trace as the counterexample (Hypothesis replays the minimal failing example last, with
  ``current_build_context().is_final`` set), plus Hypothesis's own printed program (the
  exception notes) in ``Counterexample.hypothesis_program``.
* :func:`suite_settings` -- a profile's settings with ``examples`` overridden.
* :func:`measure_scaling` / :class:`ScalingResult` -- the ``*-COST`` clauses: the same
  workload at n and factor*n in one process, compared as a per-item cost RATIO (min of a few
  repetitions, garbage collector paused), never as absolute seconds.

Replay convention for ``Step.check`` (the replay script's contract): each step's ``code`` runs
inside ``try: <code> except Exception as e: _raised = e else: _raised = None``; ``check`` is
then a Python expression over the step's names, ``_raised`` and the helpers of
``schedcheck.adapt`` (``norm_reply``, ``norm_claims``, ``norm_info``, ``error_name``...), true
iff the target did what the model did. Examples::

    _raised is None and norm_reply(reply_3) == ('APPLIED', 'SUCCEEDED')
    _raised is not None and error_name(_raised) == 'CycleError'

Nothing here imports ``schedcheck.impl``: the suites are the same code for the bundled
implementations and for a stranger's.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, cast

import hypothesis
from hypothesis import errors as hypothesis_errors
from hypothesis.control import current_build_context
from hypothesis.stateful import RuleBasedStateMachine, run_state_machine_as_test

from schedcheck import adapt, contract
from schedcheck.harness.result import BROKEN, HELD, Counterexample, RunResult, Step

__all__ = [
    "Divergence",
    "Observed",
    "Progress",
    "Recorder",
    "Ref",
    "RunContext",
    "ScalingResult",
    "ScalingTimeout",
    "SuiteMachine",
    "call_code",
    "check_expr",
    "measure_scaling",
    "observe",
    "observe_model",
    "run_suite",
    "suite_settings",
]

#: ``progress(examples_done, steps, failures)`` -- called after every example (machine run).
Progress = Callable[[int, int, int], None]

#: Exceptions a model may raise: the contract's errors. Anything else is a model bug.
_MODEL_ERRORS: frozenset[str] = frozenset(adapt.CONTRACT_ERRORS)


# --------------------------------------------------------------------------------------------
# Observed outcomes
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Observed:
    """What one call did: a normalised ``value``, or the contract name of its ``error``.

    Two outcomes are equal iff both returned equal normalised values or both raised errors of
    the same contract name. ``exc`` (the exception object, e.g. a ``CycleError`` whose
    ``.cycle`` a suite inspects) is carried but never compared.
    """

    value: Any = None
    error: str | None = None
    exc: BaseException | None = field(default=None, compare=False, repr=False)

    @property
    def ok(self) -> bool:
        return self.error is None

    def __repr__(self) -> str:
        if self.error is not None:
            return f"raises {self.error}"
        return repr(self.value)

    def describe(self) -> str:
        """Like ``repr`` but with the exception's message, for stories."""
        if self.error is not None and self.exc is not None:
            return f"raises {self.error}({self.exc})"
        return repr(self)


def _error_name(exc: BaseException) -> str:
    """``adapt.error_name``, with a fast path for schedcheck's own classes (the common case:
    every contract class is named as its contract error)."""
    if type(exc).__module__ == "schedcheck.contract":
        return type(exc).__name__
    return adapt.error_name(exc)


def _malformed(exc: BaseException, norm: Callable[[Any], Any], raw: Any) -> Observed:
    name = getattr(norm, "__name__", "normalise")
    return Observed(
        error=f"MalformedReply[{name}: {type(exc).__name__}: {exc}; got {raw!r}]", exc=exc
    )


def observe(
    fn: Callable[..., Any],
    /,
    *args: Any,
    norm: Callable[[Any], Any] | None = None,
    **kwargs: Any,
) -> Observed:
    """Call ``fn(*args, **kwargs)`` on the target; return its normalised value or error name.

    A reply that ``norm`` cannot read (say, a ``Reply`` without ``outcome``) becomes an error
    named ``MalformedReply[...]``, which differs from anything the model says -- so it is a
    counterexample, not a crash of the harness.
    """
    try:
        raw = fn(*args, **kwargs)
    except Exception as exc:
        return Observed(error=_error_name(exc), exc=exc)
    if norm is None:
        return Observed(value=raw)
    try:
        return Observed(value=norm(raw))
    except Exception as exc:
        return _malformed(exc, norm, raw)


def observe_model(
    fn: Callable[..., Any],
    /,
    *args: Any,
    norm: Callable[[Any], Any] | None = None,
    **kwargs: Any,
) -> Observed:
    """Like :func:`observe`, for the reference model: a non-contract exception is a bug in
    schedcheck (``SchedcheckInternalError``), never an expected outcome."""
    try:
        raw = fn(*args, **kwargs)
    except Exception as exc:
        name = _error_name(exc)
        if name not in _MODEL_ERRORS:
            raise contract.SchedcheckInternalError(
                f"the reference model raised {type(exc).__name__}: {exc} in "
                f"{getattr(fn, '__qualname__', fn)!s}{_fmt_args(args, kwargs)}; "
                "this is a bug in schedcheck, not in the target"
            ) from exc
        return Observed(error=name, exc=exc)
    if norm is None:
        return Observed(value=raw)
    return Observed(value=norm(raw))


# --------------------------------------------------------------------------------------------
# The trace
# --------------------------------------------------------------------------------------------


class Ref:
    """A name bound by an earlier step (``claim_0``, ``h_1``, ``claim_0[1]``); its repr is the
    name, so code lines mention the variable instead of the value."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name

    def __getitem__(self, index: int) -> Ref:
        return Ref(f"{self.name}[{index}]")


def _fmt_args(args: Sequence[Any], kwargs: Mapping[str, Any]) -> str:
    parts = [repr(a) for a in args] + [f"{k}={v!r}" for k, v in kwargs.items()]
    return "(" + ", ".join(parts) + ")"


def call_code(
    method: str,
    *args: Any,
    assign: str | None = None,
    obj: str = "target",
    **kwargs: Any,
) -> str:
    """One code line: ``[assign = ]obj.method(arg, k=v)`` (values shown by ``repr``)."""
    call = f"{obj}.{method}{_fmt_args(args, kwargs)}"
    return f"{assign} = {call}" if assign else call


def check_expr(expected: Observed, name: str | None, norm: str | None = None) -> str:
    """The replay ``check`` for a step whose model outcome is ``expected`` (see module doc).

    ``name`` is the variable the step's code assigned (``None`` if it assigned nothing);
    ``norm`` the ``schedcheck.adapt`` function that normalises it (``None``: compare as is).
    """
    if not expected.ok:
        return f"_raised is not None and error_name(_raised) == {expected.error!r}"
    if name is None:
        return "_raised is None"
    value = f"{norm}({name})" if norm else name
    return f"_raised is None and {value} == {expected.value!r}"


class Recorder:
    """The steps of one run, in order, with fresh result names per prefix."""

    def __init__(self, setup: str = "") -> None:
        self.setup = setup
        self.steps: list[Step] = []
        self._counters: dict[str, int] = {}

    def fresh_name(self, prefix: str) -> str:
        """``claim_0``, ``claim_1``, ... (one counter per prefix, like Hypothesis's bundles)."""
        n = self._counters.get(prefix, 0)
        self._counters[prefix] = n + 1
        return f"{prefix}_{n}"

    def add(
        self,
        code: str,
        words: str,
        *,
        thread: str | None = None,
        clause: str | None = None,
        expected: str = "",
        actual: str = "",
        check: str | None = None,
    ) -> Step:
        step = Step(
            index=len(self.steps),
            code=code,
            words=words,
            expected=expected,
            actual=actual,
            thread=thread,
            clause=clause,
            check=check,
        )
        self.steps.append(step)
        return step

    def program(self) -> str:
        """The run as text: the setup line, then one line per step; the diverging line carries
        a comment with both replies."""
        lines = [self.setup] if self.setup else []
        for step in self.steps:
            line = step.code
            if step.thread:
                line = f"{line}  # [{step.thread}]"
            if step.diverged:
                line = f"{line}  # <-- DIVERGES: model {step.expected}, target {step.actual}"
            lines.append(line)
        return "\n".join(lines)

    def __len__(self) -> int:
        return len(self.steps)


# --------------------------------------------------------------------------------------------
# The machine base class and its run context
# --------------------------------------------------------------------------------------------


class Divergence(AssertionError):
    """The target disagreed with the model (or broke an invariant). Carries the counterexample."""

    def __init__(self, message: str, counterexample: Counterexample) -> None:
        super().__init__(message)
        self.counterexample = counterexample


class RunContext:
    """Shared by every machine instance of one suite run: counts and the failures seen."""

    def __init__(self, result: RunResult, progress: Progress | None = None) -> None:
        self.result = result
        self.progress = progress
        self.examples = 0
        self.steps = 0
        self.failures = 0
        #: the counterexample of the latest failing run (shrinking runs included)
        self.last: Counterexample | None = None
        #: the counterexample of the final replay of the minimal example (is_final)
        self.final: Counterexample | None = None

    def finish(self, machine: SuiteMachine) -> None:
        self.examples += 1
        self.steps += len(machine.trace)
        self.result.examples = self.examples
        self.result.steps = self.steps
        if self.progress is not None:
            self.progress(self.examples, self.steps, self.failures)

    def failed(self, cx: Counterexample) -> None:
        self.failures += 1
        self.last = cx
        if _is_final():
            self.final = cx
            self.result.counterexample = cx
            self.result.break_(cx.clause)


def _is_final() -> bool:
    try:
        return bool(current_build_context().is_final)
    except hypothesis_errors.InvalidArgument:  # not inside a Hypothesis test
        return False


class SuiteMachine(RuleBasedStateMachine):
    """Base of the differential machines. Attributes a mixin may rely on:

    * ``self.trace`` -- the :class:`Recorder` of this run;
    * ``self.result`` -- the suite's :class:`RunResult` (clause accounting);
    * ``self.ctx`` -- the :class:`RunContext` (counts, failures).

    Subclasses set ``system`` ("scheduler"/"wheel"), override :meth:`snapshot` for pictures,
    set ``self.trace.setup`` (``"target = factory(2)"``) when they build the target, and call
    ``super().teardown()`` if they override ``teardown``.
    """

    system: ClassVar[str] = ""
    #: bound by :func:`run_suite` (a subclass per run) or by the suite's ``make_*_machine``
    _ctx: ClassVar[RunContext | None] = None

    def __init__(self) -> None:
        super().__init__()
        ctx = type(self)._ctx
        if ctx is None:
            ctx = RunContext(RunResult.fresh(self.system, ""))
            type(self)._ctx = ctx
        self.ctx: RunContext = ctx
        self.result: RunResult = ctx.result
        self.trace = Recorder()
        self._finished = False

    # -- clause accounting ------------------------------------------------------------------

    def exercise(self, *clause_ids: str) -> None:
        """Count one exercise of each clause (unknown ids are a harness bug)."""
        for cid in clause_ids:
            if cid not in self.result.stats:
                raise contract.SchedcheckInternalError(
                    f"unknown clause id {cid!r} for system {self.result.system!r}"
                )
            self.result.exercise(cid)

    # -- comparison --------------------------------------------------------------------------

    def snapshot(self) -> dict[str, Any]:
        """Raw material for pictures of the counterexample (override per system)."""
        return {}

    def expect(
        self,
        clause: str,
        step: Step,
        expected: Observed,
        actual: Observed,
        *,
        check: str | None = None,
        story: str = "",
        also: Iterable[str] = (),
    ) -> None:
        """Record both outcomes on ``step``; diverge (clause ``clause``) if they differ.

        ``also`` names further clauses exercised by the comparison; ``story`` is prepended to
        the divergence message.
        """
        step.expected = repr(expected)
        step.actual = repr(actual)
        if check is not None:
            step.check = check
        if step.clause is None:
            step.clause = clause
        self.exercise(clause, *also)
        if expected != actual:
            detail = (
                f"{step.words}: `{step.code}` -- the model says {expected.describe()}, "
                f"the target says {actual.describe()}"
            )
            self.diverge(clause, f"{story}{': ' if story else ''}{detail}", step=step)

    def diverge(
        self,
        clause: str,
        message: str,
        *,
        step: Step | None = None,
        snapshot: Mapping[str, Any] | None = None,
    ) -> None:
        """Record the counterexample of this run and raise :class:`Divergence`.

        ``step`` (default: the last recorded step) is marked as the diverging one. Never
        returns.
        """
        if step is None:
            if not self.trace.steps:
                self.trace.add("# (before any call)", "before any call")
            step = self.trace.steps[-1]
        step.diverged = True
        step.clause = clause
        snap = dict(self.snapshot())
        if snapshot:
            snap.update(snapshot)
        cx = Counterexample(
            system=self.system or self.result.system,
            clause=clause,
            message=message,
            steps=list(self.trace.steps),
            setup=self.trace.setup,
            seed=self.result.seed,
            snapshot=snap,
        )
        self.ctx.failed(cx)
        raise Divergence(
            f"[{clause}] {message}\n\nprogram so far:\n{self.trace.program()}", cx
        )

    def teardown(self) -> None:
        if not self._finished:
            self._finished = True
            self.ctx.finish(self)


# --------------------------------------------------------------------------------------------
# The driver
# --------------------------------------------------------------------------------------------


def suite_settings(
    *, examples: int | None = None, profile: str | None = None
) -> hypothesis.settings:
    """The settings of ``profile`` (default: ``SCHEDCHECK_PROFILE``), ``examples`` overriding
    ``max_examples``. Does not change Hypothesis's loaded profile."""
    from schedcheck import profiles

    profiles.register()
    base = hypothesis.settings.get_profile(profile or profiles.default_profile())
    if examples is not None:
        base = hypothesis.settings(base, max_examples=examples)
    return base


def _notes(exc: BaseException) -> str:
    notes = getattr(exc, "__notes__", None) or []
    return "\n".join(str(n) for n in notes)


def run_suite(
    machine_class: type[SuiteMachine],
    result: RunResult,
    settings: hypothesis.settings,
    progress: Progress | None = None,
    *,
    seed: int | None = None,
) -> RunResult:
    """Run ``machine_class`` under ``settings``; fill and return ``result``.

    A counterexample never raises: it lands in ``result.counterexample`` (the final, shrunk
    run's trace, with Hypothesis's printed program) and its clause is marked broken. A bug in
    the harness or the model raises ``SchedcheckInternalError``. The example database is not
    used (runs are reproducible from the seed alone); ``seed`` fixes Hypothesis's randomness.
    """
    ctx = RunContext(result, progress)
    bound = type(
        machine_class.__name__,
        (machine_class,),
        {"_ctx": ctx, "__module__": machine_class.__module__,
         "__qualname__": machine_class.__qualname__},
    )

    def factory() -> SuiteMachine:
        machine: SuiteMachine = bound()
        return machine

    if seed is not None:
        factory._hypothesis_internal_use_seed = seed  # type: ignore[attr-defined]
        result.seed = seed
    run_settings = hypothesis.settings(
        settings, database=None, report_multiple_bugs=False
    )
    started = time.perf_counter()
    try:
        # ``factory`` builds the machine (Hypothesis calls it); its annotation asks for the class
        run_state_machine_as_test(cast(Any, factory), settings=run_settings)
    except contract.SchedcheckInternalError:
        raise
    except hypothesis_errors.FlakyFailure as exc:
        # The failure did not reproduce when replayed: the target is nondeterministic.
        cx = ctx.final or ctx.last
        if cx is None:
            raise contract.SchedcheckInternalError(
                f"Hypothesis reported a flaky failure without a recorded divergence: {exc!r}"
            ) from exc
        internal = [e for e in exc.exceptions if isinstance(e, contract.SchedcheckInternalError)]
        if internal:
            raise internal[0] from exc
        cx.hypothesis_program = _notes(exc)
        cx.message += (
            " (FLAKY: this failure did not reproduce on replay; the target behaves "
            "nondeterministically for the same calls)"
        )
        _settle(result, cx)
    except (AssertionError, hypothesis_errors.Flaky) as exc:
        cx = ctx.final or ctx.last
        if cx is None:
            raise contract.SchedcheckInternalError(
                f"the suite failed without recording a divergence: {type(exc).__name__}: {exc}"
            ) from exc
        cx.hypothesis_program = _notes(exc)
        _settle(result, cx)
    except hypothesis_errors.HypothesisException as exc:
        raise contract.SchedcheckInternalError(
            f"Hypothesis could not run the {result.system} suite: {type(exc).__name__}: {exc}"
        ) from exc
    except Exception as exc:
        raise contract.SchedcheckInternalError(
            f"the {result.system} suite crashed (a bug in schedcheck): "
            f"{type(exc).__name__}: {exc}\n{_notes(exc)}"
        ) from exc
    finally:
        result.seconds += time.perf_counter() - started
    return result


def _settle(result: RunResult, cx: Counterexample) -> None:
    result.counterexample = cx
    result.break_(cx.clause)


# --------------------------------------------------------------------------------------------
# Scaling (the *-COST clauses)
# --------------------------------------------------------------------------------------------


@dataclass
class ScalingResult:
    """Per-item cost at ``factor * n`` divided by per-item cost at ``n`` (1.0 = linear)."""

    ratio: float
    verdict: str  #: HELD or BROKEN (result.py's verdict strings)
    text: str  #: one paragraph for the report
    n: int = 0
    factor: int = 0
    threshold: float = 0.0
    seconds_small: float = 0.0  #: best of the repetitions, whole workload at n
    seconds_large: float = 0.0  #: best of the repetitions, whole workload at factor * n

    @property
    def ok(self) -> bool:
        return self.verdict == HELD


class ScalingTimeout(Exception):
    """Raised by a deadline-aware workload that passed its deadline (see measure_scaling)."""


def _timed(workload: Callable[..., object], size: int, budget: float | None = None) -> float:
    """Seconds for ``workload(size)`` (``workload(size, deadline)`` when ``budget`` is given;
    on ScalingTimeout the budget itself is returned, a lower bound of the true time)."""
    gc.collect()
    was_enabled = gc.isenabled()
    gc.disable()  # a generational collection in the middle of one size skews the ratio
    try:
        started = time.perf_counter()
        if budget is None:
            workload(size)
        else:
            try:
                workload(size, started + budget)
            except ScalingTimeout:
                return budget
        return time.perf_counter() - started
    finally:
        if was_enabled:
            gc.enable()


def measure_scaling(
    workload: Callable[..., object],
    *,
    n: int,
    factor: int = 8,
    threshold: float = 3.0,
    repetitions: int = 3,
    what: str = "item",
    give_up_ratio: float | None = None,
) -> ScalingResult:
    """Time ``workload(n)`` and ``workload(factor * n)`` (best of ``repetitions`` each, after a
    warm-up at n) and compare the cost per ``what`` as a ratio against ``threshold``.

    A linear workload has a ratio near 1; a per-item cost that grows with n (a scan of every
    task per completion) has a ratio near ``factor``. ``threshold`` sits between the two
    with a wide margin, so a noisy machine does not flip the verdict.

    ``give_up_ratio``: when set, the large runs are called as ``workload(size, deadline)``
    (``deadline`` on ``time.perf_counter``) and may raise :class:`ScalingTimeout` once the
    per-item ratio is sure to exceed ``give_up_ratio``; the ratio is then a lower bound
    (a quadratic target at 8n would otherwise take minutes).
    """
    if n < 1 or factor < 2 or repetitions < 1:
        raise ValueError(f"need n >= 1, factor >= 2, repetitions >= 1; got {n}, {factor}, "
                         f"{repetitions}")
    _timed(workload, n)  # warm-up: imports, caches, allocator
    small = min(_timed(workload, n) for _ in range(repetitions))
    budget = None if give_up_ratio is None else small * factor * give_up_ratio
    larges = []
    for _ in range(repetitions):
        larges.append(_timed(workload, n * factor, budget))
        if budget is not None and larges[-1] >= budget:
            break  # timed out: more repetitions would only time out again
    large = min(larges)
    per_small = small / n
    per_large = large / (n * factor)
    ratio = per_large / per_small if per_small > 0 else float("inf")
    bound = ">= " if budget is not None and large >= budget else ""
    verdict = HELD if ratio <= threshold else BROKEN
    text = (
        f"cost per {what}: {per_small * 1e6:.2f} us at n={n}, {bound}{per_large * 1e6:.2f} us "
        f"at n={n * factor} -- ratio {bound}{ratio:.2f} (linear ~1, a scan per {what} "
        f"~{factor}; threshold {threshold}): {verdict}"
    )
    return ScalingResult(
        ratio=ratio,
        verdict=verdict,
        text=text,
        n=n,
        factor=factor,
        threshold=threshold,
        seconds_small=small,
        seconds_large=large,
    )
