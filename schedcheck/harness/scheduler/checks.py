"""The scheduler suite's checks: per-run state and every comparison apart from the rules.

:class:`SchedulerChecks` is the base of :class:`~schedcheck.harness.scheduler.suite.
SchedulerMachine` (which holds the rules). It keeps the per-run state (the model, the target,
the ids mentioned, the claims handed out, the terminal generations seen) and makes the checks
on the *target's* answers that come before the equality with the model, so that a report names
the specific clause:

* S-CLAIM-ONCE -- no (id, generation) claimed twice; RUNNING <= max_concurrency;
* S-CLAIM-DEPS -- a claimed task had every required dependency SUCCEEDED and every optional
  one terminal when it was claimed (dependencies from the model-side graph);
* S-TERMINAL   -- a terminal generation never changes state (nor its cause);
* S-INV        -- no PENDING/READY task with a dead required dependency; BLOCKED carries a
  root cause of kind failed/cancelled whose generation is FAILED/CANCELLED;
* S-ORACLE-CYCLE -- networkx (``scheduler.oracles``) decides whether a CycleError is due, and a
  reported ``.cycle`` must be a real simple cycle of the submitted graph;
* UnknownDependencyError's ``task_id``/``missing``, fixed by the contract.

After every step :meth:`SchedulerChecks.compare_infos` compares ``info()`` of every id
mentioned (one unknown id too: both sides must raise UnknownTaskError), runs the model's
``check_invariants()`` and the target's if it has one. One call is made and compared by
:meth:`SchedulerChecks._call` (the shared ``SuiteMachine.compare_call``, with rule 9's blame).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, ClassVar

import hypothesis

from schedcheck import contract
from schedcheck.harness.clauses import (
    S1,
    S2,
    S9,
    S_CLAIM_DEPS,
    S_CLAIM_ONCE,
    S_INV,
    S_ORACLE_CYCLE,
    S_ORACLE_TOPO,
    S_T1,
    S_T4,
    S_TERMINAL,
    S_X_OPTIONAL,
)
from schedcheck.harness.common import SuiteMachine
from schedcheck.harness.outcomes import (
    Observed,
    call_code,
    check_expr,
    observe,
    observe_each,
    observe_model,
)
from schedcheck.harness.program import GenerationOf, Op, generation_of
from schedcheck.harness.result import Step
from schedcheck.harness.scheduler import oracles as oracles
from schedcheck.harness.scheduler.fixtures import (
    DEAD,
    IDS,
    TERMINAL,
    WORKERS,
    Support,
    blame,
    event_label,
    optional_failed,
    well_formed,
)
from schedcheck.model import Scheduler as ModelScheduler
from schedcheck.targets import adapt

__all__ = ["NOT_CONTINUABLE", "SchedulerChecks"]

#: Clauses past whose set-aside divergence a run never goes on: start()'s (whether the target
#: started is not observable) and the oracles that drive programs of their own.
NOT_CONTINUABLE = frozenset({S2, S_ORACLE_CYCLE, S_ORACLE_TOPO})
#: The state names ``info()`` may report.
STATES = frozenset(s.name for s in contract.TaskState)


#: The states a generation can be in once it was claimed (RUNNING, or ended from it): the only
#: ones a cancel request can belong to.
_MAY_HAVE_RUN = frozenset({"RUNNING", "SUCCEEDED", "FAILED", "CANCELLED"})


class SchedulerChecks(SuiteMachine):
    """Per-run state and the checks; the rules live in ``scheduler.suite.SchedulerMachine``.

    Attributes a mixin (the concurrent rounds) may rely on:

    * ``self.model`` -- the reference ``schedcheck.model.Scheduler`` (None before ``build``);
      ``self.m`` the same, asserted built;
    * ``self.target`` -- the target instance, built by ``self.factory(max_concurrency)``;
    * ``self.max_concurrency`` -- the value both were built with;
    * ``self.trace`` / ``self.result`` / ``self.ctx`` -- see :class:`SuiteMachine`;
    * ``self.universe`` -- every id mentioned so far (info() is compared for each);
    * ``self.claimed`` -- every (id, generation) claimed so far (by any worker), added by
      ``self.claim``; the ids claimed are what a ``ready()`` step made (``made_names``);
    * ``self.last_clause`` / ``self.last_words`` -- what the last call was (for the story);
    * ``self.expect(clause, step, expected, actual)`` / ``self.diverge(...)`` -- comparison;
    * ``self.compare_infos()`` -- the per-step state comparison and invariants (a mixin calls
      it after its own round; the ``@invariant`` calls it after every rule).
    """

    system: ClassVar[str] = "scheduler"
    factory: ClassVar[Callable[[int], Any]]
    support: ClassVar[Support] = Support(False, False, False, False)
    #: a classic scenario every run starts from (``scheduler.scenarios``), or None: drawn
    start_state: ClassVar[str | None] = None
    #: mixed into the seed of a graph shape (``scheduler.shapes``): the search's chunk seed
    shape_salt: ClassVar[int] = 0

    def __init__(self) -> None:
        super().__init__()
        self.model: ModelScheduler | None = None
        self.target: Any = None
        self.max_concurrency = 0
        self.universe: dict[Any, None] = dict.fromkeys(IDS)
        self.claimed: set[tuple[Any, int]] = set()
        self._claim_ids: list[str] = []  # the ids of those claims, in order (made_names)
        self.reported: set[tuple[Any, int]] = set()  # claims already given a complete/fail
        #: (id, generation) -> (state, cause) once terminal: neither may change again
        self.terminal_seen: dict[tuple[Any, int], tuple[str, Any]] = {}
        self.most_blocked = 0  # most BLOCKED tasks seen at once (a hypothesis.target score)
        self.resubmits = 0  # submits of a known id (a hypothesis.target score)
        self.stale = 0  # late or duplicate callbacks (a hypothesis.target score)
        self._dirty = False  # a call was made since the last compare_infos()
        #: a large shape is being played: it compares the states itself, every few calls
        self.bulk = False
        self.last_clause = S1
        self.last_words = "construction"
        self._holders: dict[str, set[tuple[Any, int]]] = {w: set() for w in WORKERS}
        #: the step whose divergence of a set-aside clause was continued past: its other
        #: comparisons are the same divergence (see :meth:`can_continue`)
        self._aside_step = -1

    # ---- keep going past a set-aside clause -------------------------------------------------

    def can_continue(self, clause: str) -> bool:
        """Past a divergence of a set-aside clause the run goes on from the *target's* state
        (:meth:`_adopt_target`) where the contract defines it; never past ``start()``'s (the
        target does not show whether it started) nor the oracles' own programs."""
        if clause in NOT_CONTINUABLE or self.model is None or self.target is None:
            return False
        if not self._adopt_target():
            return False
        # the rest of this step's comparison is the same divergence, already set aside
        self._aside_step = self.trace.steps[-1].index if self.trace.steps else -1
        return True

    def _adopt_target(self) -> bool:
        """Make the model's current generation of every id what the target's ``info()`` (and
        ``cancel_requested()`` for a RUNNING one) reports; False when the target knows other
        ids than the model, reports something malformed, or the adopted states are not a
        state the contract defines (the model's ``check_invariants()`` refuses them)."""
        known = set(self.m.task_ids())
        for tid in self.universe:
            got = observe(self.target.info, tid, norm=adapt.norm_info)
            if tid not in known:
                if got.ok:
                    return False  # a task the model does not have
                continue
            if not got.ok or not well_formed(got.value) or got.value[2] not in STATES:
                return False
            _, gen, state, cause = got.value
            # the flag outlives its generation's run (a cancel requested of a RUNNING task
            # stays true after it ended): the target's word while it runs and once it ran
            requested = False
            if state in _MAY_HAVE_RUN:
                asked = observe(self.target.cancel_requested, tid, gen, norm=bool)
                requested = bool(asked.value) if asked.ok else False
            try:
                adopted = None if cause is None else contract.Cause(
                    str(cause[0]).lower(), cause[1], int(cause[2]))
                self.m._adopt(tid, int(gen), contract.TaskState[state], adopted, requested)
            except (TypeError, ValueError, IndexError):
                return False
            if state in TERMINAL:  # seen to end, as compare_infos() would have recorded it
                self.terminal_seen.setdefault((tid, int(gen)), (state, cause))
        try:
            self.m.check_invariants()
        except AssertionError:
            return False  # no state of the contract: the example ends here
        self._dirty = False
        return True

    # ---- helpers ---------------------------------------------------------------------------

    @property
    def m(self) -> ModelScheduler:
        assert self.model is not None
        return self.model

    def claim(self, tid: Any, gen: int) -> None:
        """Record a claim ``ready()`` handed out (by the model's reply)."""
        self.claimed.add((tid, gen))
        if isinstance(tid, str):
            self._claim_ids.append(tid)

    def made_names(self) -> list[str]:
        """The ids claimed so far: a ``ready()`` step of the program *made* its claims, so
        the minimisation counts it as a step of the tasks it claimed."""
        return list(self._claim_ids)

    def _started(self) -> bool:
        return bool(getattr(self.m, "_started", False))

    def _step(self, code: str, words: str, clause: str, thread: str | None = None,
              *, compare_first: bool = True) -> Step:
        """Record the next call. The states are compared *before* it when the previous call
        has not been checked yet (compound rules: chains, graphs, worker rounds)."""
        if compare_first and self._dirty and not self.bulk:
            self.compare_infos()
        self._dirty = True
        self.last_clause = clause
        self.last_words = words
        return self.trace.add(code, words, clause=clause, thread=thread)

    def compare(self, clause: str, step: Step, expected: Observed, actual: Observed, *,
                check: str | None = None, also: Iterable[str] = (), story: str = "") -> None:
        """Compare; a mismatch is blamed on rule 9 when an error of its class is involved,
        else on ``clause``. Both ``clause`` and (for errors) S9 count as exercised."""
        hypothesis.event(event_label(step.code, expected))
        if step.index == self._aside_step:
            step.expected, step.actual = repr(expected), repr(actual)
            return  # this step diverged on a clause set aside; the run follows the target
        blamed = blame(clause, expected, actual)
        extra = (*also, *((clause,) if blamed != clause else ()),
                 *((S9,) if not expected.ok else ()))
        self.expect(blamed, step, expected, actual, check=check, also=tuple(dict.fromkeys(
            e for e in extra if e != blamed)), story=story)

    def _graph(self) -> dict[Any, tuple[Any, ...]]:
        """The model-side graph: every known id -> its required and optional deps."""
        return {t: tuple(self.m.deps_of(t)) + tuple(self.m.optional_of(t))
                for t in self.m.task_ids()}

    def snapshot(self) -> dict[str, Any]:
        if self.model is None or self.target is None:
            return {}
        def rows(obj: Any, model: bool) -> dict[str, Any]:
            out: dict[str, Any] = {}
            for tid in self.universe:
                o = (observe_model if model else observe)(obj.info, tid, norm=adapt.norm_info)
                if o.ok:
                    _, gen, state, cause = o.value
                    out[repr(tid)] = {"state": state, "generation": gen,
                                      "cause": list(cause) if cause else None}
            return out
        edges = [[repr(d), repr(t)] for t, ds in self._graph().items() for d in ds]
        return {"model": rows(self.model, True), "impl": rows(self.target, False),
                "edges": edges}

    def freeze_op(self, name: str, args: tuple[Any, ...],
                  kwargs: dict[str, Any]) -> tuple[tuple[Any, ...], dict[str, Any]]:
        """An atomic call as the program records it; the words of a submit or a callback are
        made again from its arguments, so that a replay with other ids tells the truth."""
        args, kwargs = super().freeze_op(name, args, kwargs)
        if name == "_submit":
            kwargs.pop("words", None)
        elif name == "_callback":
            op, tid, gen = args
            who = f"worker {kwargs['thread'][1:]}: " if kwargs.get("thread") else ""
            what = "the current generation" if gen is None else "generation {gen}"
            kwargs["words"] = f"{who}{op} {tid!r} {what}"
            args = (op, tid, generation_of(gen, self._generation(tid)))
        return args, kwargs

    def thaw_op(self, op: Op) -> tuple[tuple[Any, ...], dict[str, Any]] | None:
        thawed = super().thaw_op(op)
        if thawed is None or op.name != "_callback":
            return thawed
        (name, tid, gen), kwargs = thawed
        if isinstance(gen, GenerationOf):
            current = self._generation(tid)
            if current is None:
                return None  # the task is not there in this replay: nothing to report
            gen = current + gen.offset
        kwargs["words"] = kwargs["words"].replace("{gen}", repr(gen))
        return (name, tid, gen), kwargs

    def _generation(self, tid: Any) -> int | None:
        """The model's generation of ``tid`` now (None: no such task)."""
        got = observe_model(self.m.info, tid, norm=adapt.norm_info)
        return got.value[1] if got.ok else None

    # ---- one call, made on both sides ------------------------------------------------------

    def _call(
        self,
        op: str,
        *args: Any,
        clause: str,
        words: str,
        name: str | None = None,
        thread: str | None = None,
        kwargs: Mapping[str, Any] | None = None,
        norm: Callable[[Any], Any] | None = None,
        norm_name: str | None = None,
        target_norm: Callable[[Any], Any] | None = None,
        checks: Callable[[Step, Observed, Observed], None] | None = None,
        also: Iterable[str] = (),
    ) -> Observed:
        """Record ``[name = ]target.op(*args, **kwargs)`` (:meth:`_step`), call ``op`` on the
        model and on the target, run ``checks`` and compare (:meth:`compare`); returns the
        model's outcome. See ``SuiteMachine.compare_call`` for the other arguments."""
        kw = dict(kwargs or {})
        step = self._step(call_code(op, *args, assign=name, **kw), words, clause, thread)
        return self.compare_call(clause, step, getattr(self.m, op), getattr(self.target, op),
                                 *args, kwargs=kw, name=name, norm=norm, norm_name=norm_name,
                                 target_norm=target_norm, checks=checks, also=also)

    def _check_error_data(self, clause: str, step: Step, exp: Observed, act: Observed) -> None:
        """UnknownDependencyError: ``.task_id`` and ``.missing`` are fixed by rule 2/7."""
        if exp.error != "UnknownDependencyError" or act.error != "UnknownDependencyError":
            return
        want = (getattr(exp.exc, "task_id", None), list(getattr(exp.exc, "missing", [])))
        try:
            got = (getattr(act.exc, "task_id", "<missing>"),
                   list(getattr(act.exc, "missing", ["<missing>"])))
        except TypeError:
            got = (getattr(act.exc, "task_id", "<missing>"), ["<not a list>"])
        if want != got:
            step.expected = f"UnknownDependencyError(task_id={want[0]!r}, missing={want[1]!r})"
            step.actual = f"UnknownDependencyError(task_id={got[0]!r}, missing={got[1]!r})"
            # the replay's test: it raised the same error with the same fields again
            again = ("_raised is not None and error_name(_raised) == 'UnknownDependencyError'"
                     f" and repr((getattr(_raised, 'task_id', '<missing>'), "
                     f"list(getattr(_raised, 'missing', ['<missing>'])))) == {repr(got)!r}")
            self.diverge(clause, f"{step.words}: `{step.code}` raised UnknownDependencyError "
                         f"with task_id/missing {got!r}; the contract fixes {want!r} (the "
                         "first task in submission sequence, missing ids in deps order)",
                         step=step, again=again)

    def _check_cycle_oracle(self, step: Step, exp: Observed, act: Observed,
                            graph: dict[Any, tuple[Any, ...]], new_task: Any = None) -> None:
        """networkx decides whether a CycleError is due; a reported cycle must be real."""
        if exp.error not in (None, "CycleError"):
            return  # an error of higher precedence is due (rule 9): the replies decide
        self.exercise(S_ORACLE_CYCLE, S_T4)
        cyclic = oracles.has_cycle(graph)
        if (exp.error == "CycleError") != cyclic:
            raise contract.SchedcheckInternalError(
                f"the model {'raised' if exp.error else 'did not raise'} CycleError at "
                f"`{step.code}` but networkx says the graph {graph!r} is "
                f"{'cyclic' if cyclic else 'acyclic'}: a bug in the model")
        if act.error == "CycleError":
            cycle = getattr(act.exc, "cycle", None)
            problem = oracles.cycle_problem(cycle, graph)
            if problem is None and new_task is not None and new_task not in list(cycle or []):
                problem = (f".cycle {cycle!r} does not go through {new_task!r}: a cycle "
                           "closed by a submit after start() contains one of its new edges")
            if problem is not None:
                step.expected = "raises CycleError with a real cycle"
                step.actual = f"raises CycleError(cycle={cycle!r})"
                again = ("_raised is not None and error_name(_raised) == 'CycleError' and "
                         f"repr(getattr(_raised, 'cycle', None)) == {repr(cycle)!r}")
                self.diverge(S_ORACLE_CYCLE, f"{step.words}: `{step.code}`: {problem}",
                             step=step, snapshot={"cycle": [repr(x) for x in cycle or []]},
                             again=again)
        elif cyclic and act.error is None:
            step.expected, step.actual = "raises CycleError", repr(act)
            self.diverge(S_ORACLE_CYCLE, f"{step.words}: `{step.code}` did not raise "
                         f"CycleError, but the graph has a cycle (networkx)", step=step)

    def _check_claims(self, step: Step, claims: list[tuple[Any, int]], running: int) -> None:
        self.exercise(S_CLAIM_ONCE, S_CLAIM_DEPS)
        seen: set[tuple[Any, int]] = set()
        for c in claims:
            if c in self.claimed or c in seen:
                self.diverge(S_CLAIM_ONCE, f"{step.words}: `{step.code}` handed out "
                             f"{c[0]!r} generation {c[1]} again: each generation is claimed "
                             "at most once", step=step)
            seen.add(c)
        if running + len(claims) > self.max_concurrency:
            self.diverge(S_CLAIM_ONCE, f"{step.words}: `{step.code}` returned "
                         f"{len(claims)} claims with {running} already RUNNING, over "
                         f"max_concurrency={self.max_concurrency}", step=step)
        for tid, _gen in claims:
            if tid not in self.m.task_ids():
                continue  # an id the model never saw: the reply comparison reports it
            for dep in self.m.deps_of(tid):
                state = self.m.info(dep).state.name
                if state != "SUCCEEDED":
                    self.diverge(S_CLAIM_DEPS, f"{step.words}: `{step.code}` claimed "
                                 f"{tid!r} while its dependency {dep!r} is {state}", step=step)
            for dep in self.m.optional_of(tid):
                state = self.m.info(dep).state.name
                if state not in TERMINAL:
                    self.diverge(S_CLAIM_DEPS, f"{step.words}: `{step.code}` claimed "
                                 f"{tid!r} while its optional dependency {dep!r} is {state} "
                                 "(not terminal)", step=step)

    def _oracle_ok(self, step: Step, got: Observed) -> None:
        if not got.ok:
            step.expected, step.actual = "no error", repr(got)
            self.diverge(S_ORACLE_TOPO, f"`{step.code}` {got.describe()} on an acyclic "
                         "graph with every dependency submitted", step=step)

    def compare_infos(self) -> None:
        """Target-side invariants, then info() of every mentioned id against the model, then
        both sides' check_invariants()."""
        self._dirty = False
        known_ids = set(self.m.task_ids())
        # every known id, and one unknown id per step (both sides must raise UnknownTaskError)
        ids = [t for t in self.universe if t in known_ids]
        ids += [t for t in self.universe if t not in known_ids][:1]
        model_infos = {t: observe_model(self.m.info, t, norm=adapt.norm_info) for t in ids}
        target_infos = dict(zip(ids, observe_each(self.target.info, ids,
                                                  norm=adapt.norm_info), strict=True))
        known = [t for t, o in model_infos.items() if o.ok]
        blocked = sum(1 for o in model_infos.values() if o.ok and o.value[2] == "BLOCKED")
        self.most_blocked = max(self.most_blocked, blocked)
        if known:
            self.exercise(S_T1, S_INV, S_TERMINAL)
        self._target_invariants(target_infos)
        for tid, exp in model_infos.items():
            act = target_infos[tid]
            if exp != act:
                name = self.trace.fresh_name("info")
                step = self.trace.add(call_code("info", tid, assign=name),
                                      f"look at {tid!r}", clause=self.last_clause)
                self.expect(blame(self.last_clause, exp, act) if not exp.ok
                            else self.last_clause, step, exp, act,
                            check=check_expr(exp, name, "norm_info"),
                            story=f"after '{self.last_words}' the states differ")
        self._record_ended(model_infos)
        if self.support.optional:
            self._compare_optional_failed([t for t in ids if t in known_ids])
        try:
            self.m.check_invariants()
        except AssertionError as exc:
            raise contract.SchedcheckInternalError(
                f"the model broke its own invariant after '{self.last_words}': {exc}") from exc
        if self.support.check_invariants:
            got = observe(self.target.check_invariants)
            if not got.ok:
                step = self.trace.add(call_code("check_invariants"),
                                      "the target checks its own invariants", clause=S_INV)
                step.expected, step.actual = "None", got.describe()
                self.diverge(S_INV, f"after '{self.last_words}' the target's own "
                             f"check_invariants() {got.describe()}", step=step)

    def _compare_optional_failed(self, ids: list[Any]) -> None:
        """S-X-OPTIONAL: the optional dependencies recorded as dead (``optional_failed``), as
        a set, for tasks with optional edges -- when the target's info() has the attribute."""
        for tid in ids:
            if not self.m.optional_of(tid):
                continue
            exp = observe_model(self.m.info, tid, norm=optional_failed)
            act = observe(self.target.info, tid, norm=optional_failed)
            if act.ok and act.value is None:
                return  # the target does not record it: nothing to compare
            self.exercise(S_X_OPTIONAL)
            if exp != act:
                name = self.trace.fresh_name("info")
                step = self.trace.add(call_code("info", tid, assign=name),
                                      f"look at the optional dependencies of {tid!r} found "
                                      "dead", clause=S_X_OPTIONAL)
                self.expect(S_X_OPTIONAL, step, exp, act,
                            check=f"set({name}.optional_failed) == {exp.value!r}",
                            story=f"after '{self.last_words}', optional_failed differs")

    def _record_ended(self, model_infos: dict[Any, Observed]) -> None:
        """The terminal generations among the model's ``info()`` answers, as seen to end."""
        for o in model_infos.values():
            if o.ok:
                tid, gen, state, _ = o.value
                if state in TERMINAL:
                    self.terminal_seen[(tid, gen)] = (state, o.value[3])

    def model_adopted(self) -> None:
        """The model was replaced by a state reached without this machine's steps (a
        concurrent round's linearization): the generations that ended in it are seen to
        end, as :meth:`compare_infos` records them after a sequential step."""
        self._record_ended({t: observe_model(self.m.info, t, norm=adapt.norm_info)
                            for t in self.m.task_ids()})

    def _target_invariants(self, infos: dict[Any, Observed]) -> None:
        states = {t: o.value for t, o in infos.items() if o.ok and well_formed(o.value)}
        running = 0
        for tid, (_, gen, state, cause) in states.items():
            running += state == "RUNNING"
            seen = self.terminal_seen.get((tid, gen))
            if seen is not None and state != seen[0]:
                self._info_violation(S_TERMINAL, tid, infos[tid],
                                     f"{tid!r} generation {gen} was {seen[0]} and is now "
                                     f"{state}: a terminal generation never leaves its state")
            if seen is not None and cause != seen[1]:
                self._info_violation(S_TERMINAL, tid, infos[tid],
                                     f"{tid!r} generation {gen} is {state} with cause "
                                     f"{seen[1]!r}, now {cause!r}: a terminal generation keeps "
                                     "its cause (a BLOCKED one, the first propagation's)")
            if state in ("PENDING", "READY") and tid in self.m.task_ids():
                for dep in self.m.deps_of(tid):
                    d = states.get(dep)
                    if d is not None and d[2] in DEAD:
                        self._info_violation(S_INV, tid, infos[tid],
                                             f"{tid!r} is {state} while its dependency "
                                             f"{dep!r} is {d[2]}: it should be BLOCKED")
            if state == "BLOCKED":
                problem = self._blocked_problem(tid, cause, states)
                if problem:
                    self._info_violation(S_INV, tid, infos[tid], problem)
        if running > self.max_concurrency:
            self.exercise(S_CLAIM_ONCE)
            self._info_violation(S_CLAIM_ONCE, next(iter(states)), None,
                                 f"{running} tasks are RUNNING, over max_concurrency="
                                 f"{self.max_concurrency}")

    def _blocked_problem(self, tid: Any, cause: Any,
                         states: dict[Any, Any]) -> str | None:
        if cause is None or cause[0] not in ("FAILED", "CANCELLED"):
            return (f"{tid!r} is BLOCKED with cause {cause!r}; a BLOCKED task carries its "
                    "root's cause, of kind 'failed' or 'cancelled'")
        kind, root, g = cause
        now = states.get(root)
        seen = self.terminal_seen.get((root, g))
        root_state = now[2] if now is not None and now[1] == g else (seen and seen[0])
        if root_state != kind:
            return (f"{tid!r} is BLOCKED by {kind.lower()} {root!r} g{g}, but that generation "
                    f"is {root_state or 'not known to have ended'}")
        return None

    def _info_violation(self, clause: str, tid: Any, got: Observed | None, message: str) -> None:
        name = self.trace.fresh_name("info")
        step = self.trace.add(call_code("info", tid, assign=name), f"look at {tid!r}",
                              clause=clause)
        exp = observe_model(self.m.info, tid, norm=adapt.norm_info)
        step.expected, step.actual = repr(exp), repr(got) if got else ""
        step.check = check_expr(exp, name, "norm_info")
        self.diverge(clause, f"after '{self.last_words}': {message}", step=step)

    def teardown(self) -> None:
        if self.model is not None:
            # steer the search towards runs that claim much and block much (visible in
            # Hypothesis's statistics as target scores)
            hypothesis.target(float(len(self.claimed)), label="claims")
            hypothesis.target(float(self.most_blocked), label="blocked at once")
            hypothesis.target(float(self.resubmits), label="resubmits")
            hypothesis.target(float(self.stale), label="late or duplicate callbacks")
        super().teardown()
