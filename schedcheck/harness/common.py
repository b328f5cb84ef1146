"""Infrastructure shared by the differential suites (scheduler/suite.py, wheel/suite.py).

A suite is a Hypothesis ``RuleBasedStateMachine`` that drives the reference model and a target
side by side. Everything that is not specific to one system lives here or in the two modules
this one re-exports:
* ``outcomes`` -- :class:`Observed` (one call's normalised value or error name),
  :func:`observe` / :func:`observe_model`, :func:`call_code`, :class:`Ref`, :func:`check_expr`;
* ``scaling`` -- :func:`measure_scaling` / :class:`ScalingResult`, the ``*-COST`` clauses.

Defined here:
* ``recorder`` -- :class:`Recorder`, the trace: one :class:`~schedcheck.harness.result.Step`
  per call.
* :class:`SuiteMachine` -- the base class of both suites' machines. It owns the recorder
  (``self.trace``), the run's :class:`~schedcheck.harness.result.RunResult` (``self.result``),
  clause accounting (:meth:`SuiteMachine.exercise`), comparison (:meth:`SuiteMachine.expect`,
  and :meth:`SuiteMachine.compare_call`: one call made on both sides and compared) and
  divergence (:meth:`SuiteMachine.diverge`): the first divergence becomes a
  :class:`~schedcheck.harness.result.Counterexample` and raises :class:`Divergence` (an
  ``AssertionError``) whose message tells the story and lists the program so far.
* :func:`run_suite` -- the driver: ``run_state_machine_as_test`` with counting, a progress
  callback, and the final (shrunk) run's trace as the counterexample, with Hypothesis's own
  printed program (a profile's settings: ``schedcheck.profiles.suite_settings``).

Replay convention for ``Step.check`` (the replay script's contract): each step's ``code`` runs
inside ``try: <code> except Exception as e: _raised = e else: _raised = None``; ``check`` is
then a Python expression over the step's names, ``_raised`` and the helpers of
``schedcheck.targets.adapt`` (``norm_reply``, ``norm_claims``, ``norm_info``, ``error_name``...),
true iff the target did what the model did. Examples::

    _raised is None and norm_reply(reply_3) == ('APPLIED', 'SUCCEEDED')
    _raised is not None and error_name(_raised) == 'CycleError'

Nothing here imports ``schedcheck.impl``: the suites are the same code for the bundled
implementations and for a stranger's.
"""

from __future__ import annotations

import time
import unittest
from collections.abc import Callable, Iterable, Mapping
from typing import Any, ClassVar, TypeVar

import hypothesis
from hypothesis import errors as hypothesis_errors
from hypothesis.control import current_build_context
from hypothesis.stateful import RuleBasedStateMachine, run_state_machine_as_test

from schedcheck import contract
from schedcheck.harness import digests, guard, supervisor
from schedcheck.harness.outcomes import (
    CRASHED,
    Observed,
    Ref,
    call_code,
    check_expr,
    observe,
    observe_model,
)
from schedcheck.harness.program import Op, Program
from schedcheck.harness.recorder import Recorder
from schedcheck.harness.result import Counterexample, RunResult, Step, kind_of
from schedcheck.harness.scaling import ScalingResult, ScalingTimeout, measure_scaling

digests.install()

__all__ = [
    "Divergence",
    "Observed",
    "OutOfBudget",
    "Progress",
    "Recorder",
    "Ref",
    "RunContext",
    "ScalingResult",
    "ScalingTimeout",
    "SuiteMachine",
    "call_code",
    "check_expr",
    "machine_in",
    "measure_scaling",
    "observe",
    "observe_model",
    "run_suite",
]

#: How a crash of a target call reads in a step's ``actual`` (``outcomes.observe``).
CRASHES = tuple("raises " + name for name in CRASHED)

#: ``progress(examples_done, steps, failures)`` -- called after every example (machine run).
Progress = Callable[[int, int, int], None]


# --------------------------------------------------------------------------------------------
# The machine base class and its run context
# --------------------------------------------------------------------------------------------


class Divergence(AssertionError):
    """The target disagreed with the model (or broke an invariant). Carries the counterexample."""

    def __init__(self, message: str, counterexample: Counterexample) -> None:
        super().__init__(message)
        self.counterexample = counterexample


class OutOfBudget(BaseException):
    """Raised when a machine is built after its run's deadline (``RunContext.deadline``): ends
    the Hypothesis run at once (a BaseException, so neither Hypothesis nor a target keeps
    going)."""


class RunContext:
    """Shared by every machine instance of one suite run: counts and the failures seen."""

    def __init__(self, result: RunResult, progress: Progress | None = None,
                 deadline: float | None = None, most: int | None = None) -> None:
        self.result = result
        #: on ``time.monotonic``: no machine is built after it (:class:`OutOfBudget`)
        self.deadline = deadline
        #: no machine is built once this many ran (:class:`OutOfBudget`): examples that end
        #: at a clause set aside are rejected, and Hypothesis would draw up to a thousand
        #: others in their place
        self.most = most
        self.progress = progress
        self.examples = 0
        self.steps = 0
        self.failures = 0
        #: the counterexample of the latest failing run (shrinking runs included)
        self.last: Counterexample | None = None
        #: the counterexample of the final replay of the minimal example (is_final)
        self.final: Counterexample | None = None
        #: the atomic programs (``program.Op``) of ``last`` and ``final``
        self.last_program: list[Op] = []
        self.final_program: list[Op] = []

    def spent(self) -> str | None:
        """Why no further machine may be built (the deadline passed, or ``most`` machines
        ran), or None. The count never stops a run once an example failed: Hypothesis then
        plays it again to report it."""
        if self.deadline is not None and time.monotonic() > self.deadline:
            return f"the run's budget was spent after {self.examples} examples"
        if self.most is not None and self.examples >= self.most and not self.failures:
            return f"the run's {self.most} examples were spent"
        return None

    def finish(self, machine: SuiteMachine) -> None:
        self.examples += 1
        self.steps += len(machine.trace)
        self.result.examples = self.examples
        self.result.steps = self.steps
        if self.progress is not None:
            self.progress(self.examples, self.steps, self.failures)

    def failed(self, cx: Counterexample, program: list[Op] | None = None) -> None:
        self.failures += 1
        self.last = cx
        self.last_program = list(program or [])
        # every clause that broke in some example is broken, whichever one is shrunk
        self.result.seen_broken.setdefault(cx.clause, cx)
        self.result.break_(cx.clause)
        if _is_final():
            self.final = cx
            self.final_program = self.last_program
            self.result.counterexample = cx
            self.result.break_(cx.clause)


def _is_final() -> bool:
    try:
        return bool(current_build_context().is_final)
    except hypothesis_errors.InvalidArgument:  # not inside a Hypothesis test
        return False


SuiteMachineT = TypeVar("SuiteMachineT", bound="SuiteMachine")
#: the context the next machine built by :func:`machine_in` reports to
_next_context: list[RunContext] = []


def machine_in(machine_class: type[SuiteMachineT], ctx: RunContext) -> SuiteMachineT:
    """A fresh machine of ``machine_class`` that reports to ``ctx``, without a subclass bound
    to it: Hypothesis keeps every machine class it meets for the life of the process (its
    rules, looked up once a class), so a class per replay would be a leak and a lookup each."""
    _next_context[:] = [ctx]
    try:
        return machine_class()
    finally:
        _next_context.clear()


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
    #: clauses whose oracle is set aside for this run (keep-going grading, or another level's
    #: clauses): their divergences are not counterexamples (see :meth:`diverge`)
    set_aside: ClassVar[frozenset[str]] = frozenset()
    #: the other level's clauses (the core level runs with the contract's set aside): set
    #: aside too, except for a call that hung or ran out of memory -- a crash is never ignored
    level_aside: ClassVar[frozenset[str]] = frozenset()

    def can_continue(self, clause: str) -> bool:
        """Whether this machine stays consistent when a divergence of ``clause`` is ignored
        (its bookkeeping follows the target's own answers). Default: no -- the example ends
        (rejected) at a set-aside divergence."""
        return False

    def __init__(self) -> None:
        super().__init__()
        ctx = _next_context.pop() if _next_context else type(self)._ctx
        if ctx is None:
            ctx = RunContext(RunResult.fresh(self.system, ""))
            type(self)._ctx = ctx
        spent = ctx.spent()
        if spent is not None:
            raise OutOfBudget(spent)
        self.ctx: RunContext = ctx
        self.result: RunResult = ctx.result
        self.trace = Recorder()
        if supervisor.active():
            supervisor.example_started()
        #: the atomic calls of this run (``program.atomic``), replayable by ``minimize``
        self.program: Program | None = Program()
        self._finished = False

    # -- the atomic program (see ``program.py``) ----------------------------------------------

    def freeze_op(self, name: str, args: tuple[Any, ...],
                  kwargs: dict[str, Any]) -> tuple[tuple[Any, ...], dict[str, Any]]:
        """What an atomic call records: copies of list and dict arguments (override to name
        handles instead of keeping them)."""
        return (tuple(_copied(a) for a in args),
                {k: _copied(v) for k, v in kwargs.items()})

    def thaw_op(self, op: Op) -> tuple[tuple[Any, ...], dict[str, Any]] | None:
        """The arguments to replay ``op`` with on this machine, or None when it refers to
        something this run did not create (the op is then skipped)."""
        return tuple(_copied(a) for a in op.args), {k: _copied(v) for k, v in op.kwargs.items()}

    @classmethod
    def after_run(cls, result: RunResult) -> None:
        """Called once after a whole run (every example) with its result: notes to add."""

    def made_names(self) -> list[str]:
        """Names of the objects created so far that later ops may refer to (the wheel's
        timers); an atomic op records those it created."""
        return []

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

    def compare(
        self,
        clause: str,
        step: Step,
        expected: Observed,
        actual: Observed,
        *,
        check: str | None = None,
        also: Iterable[str] = (),
        story: str = "",
    ) -> None:
        """The comparison :meth:`compare_call` ends with: :meth:`expect`, unless a suite
        blames some outcomes on another clause (the scheduler suite does)."""
        self.expect(clause, step, expected, actual, check=check, also=also, story=story)

    def compare_call(
        self,
        clause: str,
        step: Step,
        model_fn: Callable[..., Any],
        target_fn: Callable[..., Any],
        /,
        *args: Any,
        kwargs: Mapping[str, Any] | None = None,
        target_args: tuple[Any, ...] | None = None,
        name: str | None = None,
        norm: Callable[[Any], Any] | None = None,
        norm_name: str | None = None,
        target_norm: Callable[[Any], Any] | None = None,
        checks: Callable[[Step, Observed, Observed], None] | None = None,
        also: Iterable[str] = (),
        story: str = "",
    ) -> Observed:
        """One call made on both sides and compared; returns the model's outcome.

        Calls ``model_fn(*args, **kwargs)`` (:func:`observe_model`) and ``target_fn`` with the
        same arguments (``target_args`` instead of ``args`` when the target's differ, e.g. its
        own handle) -- each side with its own shallow copy of list-valued keyword arguments, so
        a target that mutates a ``deps`` list cannot change what the model saw. ``norm``
        normalises both replies (``target_norm``, when given, the target's alone). Then
        ``checks(step, expected, actual)`` runs, if given (the checks of specific clauses, so
        that a counterexample names them before the plain comparison does), and finally
        :meth:`compare` on ``clause`` with the replay check ``check_expr(expected, name,
        norm_name)`` (``name``: the variable the step's code assigned).
        """
        kw = dict(kwargs or {})
        if supervisor.active():
            supervisor.send("clause", clause)
        expected = observe_model(model_fn, *args, norm=norm, **_own_lists(kw))
        actual = observe(target_fn, *(args if target_args is None else target_args),
                         norm=target_norm if target_norm is not None else norm,
                         **_own_lists(kw))
        if checks is not None:
            checks(step, expected, actual)
        self.compare(clause, step, expected, actual, check=check_expr(expected, name, norm_name),
                     also=also, story=story)
        return expected

    def diverge(
        self,
        clause: str,
        message: str,
        *,
        step: Step | None = None,
        snapshot: Mapping[str, Any] | None = None,
        again: str | None = None,
    ) -> None:
        """Record the counterexample of this run and raise :class:`Divergence`.

        ``step`` (default: the last recorded step) is marked as the diverging one; ``again``
        is the replay's test of a breach its reply does not show (``Step.again``). A clause
        in :attr:`set_aside` is no counterexample: the call returns when the machine
        :meth:`can_continue` past it, else the example ends as invalid (``hypothesis.reject``)
        -- either way the other clauses keep being checked.
        """
        crashed = step is not None and step.actual.startswith(CRASHES)
        at_step = step if step is not None else (self.trace.steps[-1] if self.trace.steps
                                                 else None)
        kind = kind_of(at_step)
        # keep going past one kind of a clause's mistakes (``clause|kind``) to find another
        known = bool(kind) and f"{clause}|{kind}" in self.set_aside
        if (clause in self.set_aside or known or clause in guard.clauses_aside
                or (clause in self.level_aside and not crashed)):
            if self.can_continue(clause):
                at = step if step is not None else (self.trace.steps[-1]
                                                    if self.trace.steps else None)
                if at is not None and clause not in at.aside.split(","):
                    at.aside = ",".join(filter(None, [*at.aside.split(","), clause]))
                return
            hypothesis.reject()
        if step is None:
            if not self.trace.steps:
                self.trace.add("# (before any call)", "before any call")
            step = self.trace.steps[-1]
        step.diverged = True
        step.clause = clause
        if again is not None:
            step.again = again
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
            step_seconds=guard.step_seconds(),
            kind=kind,
        )
        self.ctx.failed(cx, self.program.ops if self.program is not None else None)
        raise Divergence(
            f"[{clause}] {message}\n\nprogram so far:\n{self.trace.program()}", cx
        )

    def teardown(self) -> None:
        if not self._finished:
            self._finished = True
            self.ctx.finish(self)
            if supervisor.active():
                supervisor.example_ended()


def _copied(value: Any) -> Any:
    return list(value) if isinstance(value, list) else (
        dict(value) if isinstance(value, dict) else value)


def _own_lists(kwargs: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of a call's keyword arguments with a fresh copy of every list among them."""
    return {k: (list(v) if isinstance(v, list) else v) for k, v in kwargs.items()}


# --------------------------------------------------------------------------------------------
# The driver
# --------------------------------------------------------------------------------------------


def _notes(exc: BaseException) -> str:
    notes = getattr(exc, "__notes__", None) or []
    return "\n".join(str(n) for n in notes)


def _note_hangs(result: RunResult, hung: int) -> None:
    """A run in which calls hung says so: the steps after each were never made, so a
    verdict of the clauses they would have exercised rests on fewer steps."""
    if hung:
        result.notes.append(
            f"{hung} call{'s' if hung > 1 else ''} of the target hung (no reply within "
            f"{guard.step_seconds():g} s): {'each' if hung > 1 else 'its'} example was cut "
            "short there, so the verdicts rest on fewer steps than the run made")


def run_suite(
    machine_class: type[SuiteMachine],
    result: RunResult,
    settings: hypothesis.settings,
    progress: Progress | None = None,
    *,
    seed: int | None = None,
    keep_database: bool = False,
    context: RunContext | None = None,
) -> RunResult:
    """Run ``machine_class`` under ``settings``; fill and return ``result``.

    A counterexample never raises: it lands in ``result.counterexample`` (the final, shrunk
    run's trace, with Hypothesis's printed program) and its clause is marked broken. A bug in
    the harness or the model raises ``SchedcheckInternalError``. The example database is not
    used (runs are reproducible from the seed alone) unless ``keep_database`` (the pytest API:
    ``settings.database`` replays earlier failures first and stores new ones, under the
    machine's key); ``seed`` fixes Hypothesis's randomness. ``context`` (a RunContext on
    ``result``) lets the caller read the failing run's program (``minimize.run_reduced`` runs
    this and reduces the counterexample).
    """
    ctx = context if context is not None else RunContext(result, progress)
    # A subclass with the same name, module and qualified name: Hypothesis's database key of a
    # state machine is a digest of those (and of ``_hypothesis_internal_add_digest``), so the
    # bound class keeps the key of ``machine_class``.
    bound = type(
        machine_class.__name__,
        (machine_class,),
        {"_ctx": ctx, "__module__": machine_class.__module__,
         "__qualname__": machine_class.__qualname__},
    )
    if seed is not None:
        bound._hypothesis_internal_use_seed = seed  # type: ignore[attr-defined]
        result.seed = seed
    run_settings = hypothesis.settings(
        settings, report_multiple_bugs=False,
        # examples ended at a set-aside clause are rejected, which is not a filtering problem
        suppress_health_check=[*settings.suppress_health_check,
                               hypothesis.HealthCheck.filter_too_much],
    )
    if not keep_database:
        run_settings = hypothesis.settings(run_settings, database=None)
    started = time.perf_counter()
    hung_before = guard.timeouts()
    try:
        # ``factory`` builds the machine (Hypothesis calls it); its annotation asks for the class
        with guard.guarded():
            try:
                run_state_machine_as_test(bound, settings=run_settings)
            finally:
                _note_hangs(result, guard.timeouts() - hung_before)
    except (contract.SchedcheckInternalError, OutOfBudget):
        raise
    except hypothesis_errors.FlakyFailure as exc:
        _budget_spent(ctx, exc)
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
        _budget_spent(ctx, exc)
        cx = ctx.final or ctx.last
        if cx is None:
            raise contract.SchedcheckInternalError(
                f"the suite failed without recording a divergence: {type(exc).__name__}: {exc}"
            ) from exc
        cx.hypothesis_program = _notes(exc)
        _settle(result, cx)
    except unittest.SkipTest:  # no example to run (only the database's, and it has none)
        raise
    except hypothesis_errors.Unsatisfiable:
        # every example ended at a set-aside clause: what no example reached is "not reached"
        result.notes.append(f"{result.system}: every example stopped at a clause already "
                            "broken; the clauses behind it were not reached")
    except hypothesis_errors.HypothesisException as exc:
        _budget_spent(ctx, exc)
        raise contract.SchedcheckInternalError(
            f"Hypothesis could not run the {result.system} suite: {type(exc).__name__}: {exc}"
        ) from exc
    except Exception as exc:
        _budget_spent(ctx, exc)
        raise contract.SchedcheckInternalError(
            f"the {result.system} suite crashed (a bug in schedcheck): "
            f"{type(exc).__name__}: {exc}\n{_notes(exc)}"
        ) from exc
    finally:
        result.seconds += time.perf_counter() - started
    return result


def _budget_spent(ctx: RunContext, exc: BaseException) -> None:
    """Raise OutOfBudget if ``exc`` is what Hypothesis made of one (it may wrap the exception
    that ended the run in its own, e.g. a FlakyStrategyDefinition)."""
    if ctx.spent() is None:
        return
    todo: list[BaseException] = [exc]
    visited: set[int] = set()
    while todo:
        e = todo.pop()
        if id(e) in visited:
            continue
        visited.add(id(e))
        if isinstance(e, OutOfBudget):
            raise e
        todo += [x for x in (e.__cause__, e.__context__) if x is not None]
        todo += list(getattr(e, "exceptions", ()))


def _settle(result: RunResult, cx: Counterexample) -> None:
    result.counterexample = cx
    result.break_(cx.clause)
