"""The scheduler's differential stateful suite: the model and a target in lockstep.

A Hypothesis ``RuleBasedStateMachine`` (:class:`SchedulerMachine`) drives
``schedcheck.model.Scheduler`` and a target built by ``factory(max_concurrency)`` with the same
calls, and compares every return value and every raised error after the contract's
normalisation (``schedcheck.targets.adapt``: states and outcomes by name, Reply/Claim/TaskInfo as
attributes or tuples, errors by class name). The suite is split along its seams:

* ``scheduler.fixtures`` -- what is drawn and handed to a target (ids, workers, ``noop``, malformed
  arguments, :class:`ClaimRef`), :func:`probe_support`, and the readers of replies;
* ``scheduler.checks`` -- :class:`~schedcheck.harness.scheduler.checks.SchedulerChecks`, the base of
  the machine: per-run state, one call made on both sides and compared, the clause-specific
  checks on the target's answers (S-CLAIM-ONCE, S-CLAIM-DEPS, S-TERMINAL, S-INV) and the
  per-step comparison of ``info()``;
* ``scheduler.deep_rules`` -- a dependency killed under a RUNNING dependent; the batch forms;
* ``scheduler.scenarios`` -- the classic adversarial templates, name -> function;
* ``scheduler.oracles`` -- what does not come from the model: networkx's cycle verdict and the
  validity of a reported ``.cycle`` (any cycle, any rotation), graphlib's ``get_ready()`` groups
  (the ``ready()`` batches of an unbounded scheduler on a random DAG where every task
  succeeds), and the S-COST workload and measurement (:func:`check_scheduler_scaling`);
* this module -- the machine's rules and the public entry points.

Rules reach, often: random graphs over six letters (frequent resubmits), chains, diamonds,
self-dependencies, cycles, unknown dependencies, up to three workers calling ``ready(limit)``
in any interleaving, callbacks in any order, duplicate and late callbacks from old claims
(the ``claims`` bundle), cancels and their confirm, resubmits, ``retry(cascade)``,
``add_dependency`` and optional edges when the target has them (probed once per factory;
unsupported clauses are "not supported", never held), ``close()`` at any point, and
max_concurrency 0, 1 and larger. Two build presets in five start with a classic scenario.

Counterexample code lines call the target with the contract's signatures and literal ids
and generations (claims are ``claim_N``; ``fn=noop`` is ``def noop(): return None`` in the
replay). Nothing here imports ``schedcheck.impl``.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

from hypothesis import strategies as st
from hypothesis.stateful import (
    Bundle,
    initialize,
    invariant,
    multiple,
    precondition,
    rule,
)

from schedcheck import contract
from schedcheck.harness.clauses import (
    S1,
    S2,
    S3,
    S4,
    S5,
    S6,
    S7,
    S8,
    S9,
    S_T1,
    S_T3,
    S_T4,
    S_T5,
    S_T6,
    S_X_ADDDEP,
    S_X_OPTIONAL,
    S_X_RETRY,
)
from schedcheck.harness.common import (
    Observed,
    Progress,
    RunContext,
    ScalingResult,
    check_expr,
    observe,
)
from schedcheck.harness.minimize import run_reduced
from schedcheck.harness.program import atomic
from schedcheck.harness.result import RunResult, Step
from schedcheck.harness.scheduler import shapes
from schedcheck.harness.scheduler.fixtures import (
    BIG,
    IDS,
    MALFORMED_SUBMITS,
    WORKERS,
    ClaimRef,
    Support,
    as_dict,
    as_int,
    as_list,
    as_sent,
    deps_form,
    noop,
    probe_support,
)
from schedcheck.harness.scheduler.oracles import check_scheduler_scaling
from schedcheck.harness.scheduler.scenarios import SCENARIOS, Play, template
from schedcheck.harness.scheduler.topo_rule import TopoOracleRule
from schedcheck.harness.search import explore
from schedcheck.model import Scheduler as ModelScheduler
from schedcheck.profiles import unshrunk_settings
from schedcheck.targets import adapt

__all__ = [
    "IDS",
    "ScalingResult",
    "SchedulerMachine",
    "Support",
    "check_scheduler_scaling",
    "make_scheduler_machine",
    "noop",
    "probe_support",
    "run_scheduler_suite",
]


class SchedulerMachine(TopoOracleRule):
    """The differential machine: the rules (the state and the checks are in
    :class:`~schedcheck.harness.scheduler.checks.SchedulerChecks`, whose docstring lists what a
    mixin may rely on); :func:`make_scheduler_machine` binds it to a factory."""

    claims = Bundle("claims")
    tasks = Bundle("tasks")

    # ---- construction ------------------------------------------------------------------------

    @initialize(target=claims, mc=st.sampled_from((0, 1, 1, 2, 2, 3, 5, BIG)),
                preset=st.sampled_from(("scenario", "started graph", "empty", "started graph",
                                        "scenario")),
                order=st.permutations(IDS),
                picks=st.lists(st.lists(st.integers(0, 5), max_size=2), min_size=len(IDS),
                               max_size=len(IDS)),
                scenario=st.sampled_from(tuple(SCENARIOS)))
    def build(self, mc: int, preset: str, order: list[str], picks: list[list[int]],
              scenario: str) -> Any:
        """Build both sides; most runs begin with a started acyclic graph or one of the
        classic adversarial scenarios, so that claims and callbacks are reachable from the
        first rule (the others reach start() and its unknown dependencies and cycles). A
        machine with a ``start_state`` (the search's directed phase) always plays it."""
        shaped = shapes.parse(self.start_state)
        if shaped is not None:  # the search's shapes phase: a large or shuffled graph
            self._build(mc or BIG)
            done = self.ctx.examples  # this run's, not the class's (a replay has its own)
            seed = shapes.shape_seed(order, picks, self.shape_salt, done)
            return multiple(*self._shape(*shaped, seed))
        if self.start_state is not None:
            preset, scenario = "scenario", self.start_state
        self._build(mc)
        if preset == "started graph":
            self.submit_dag(order, picks, True)
        elif preset == "scenario":
            return multiple(*self._play(scenario, order))
        return multiple()

    @atomic
    def _build(self, mc: int) -> None:
        self.max_concurrency = mc
        self.model = ModelScheduler(mc)
        self.trace.setup = f"target = factory({mc})"
        built = observe(type(self).factory, mc)
        if not built.ok:
            self.diverge(S9, f"the target could not be built: factory({mc}) "
                               f"{built.describe()}")
        self.target = built.value

    @atomic
    def _construct_malformed(self, arg: Any) -> None:
        step = self._step(f"factory({arg!r})", f"build a scheduler with max_concurrency={arg!r}",
                          S9)
        self.compare_call(S9, step, ModelScheduler, type(self).factory, arg)

    # ---- submit (rules 1, 7) -------------------------------------------------------------

    @atomic
    def _submit(self, tid: Any, deps: Any, fn: Any, *, optional: Any = None,
                words: str = "", thread: str | None = None) -> Observed:
        kwargs: dict[str, Any] = {"deps": deps}
        if fn is not None:
            kwargs["fn"] = fn
        if optional is not None:
            kwargs["optional"] = optional
        try:
            known = tid in self.universe and tid in self.m.task_ids()
        except TypeError:
            known = False
        clause = S7 if known else S1
        self.resubmits += known

        def checks(step: Step, exp: Observed, act: Observed) -> None:
            self.exercise(S_T1, *((S_T5,) if known else ()),
                          *((S_X_OPTIONAL,) if optional is not None else ()))
            self._check_error_data(clause, step, exp, act)
            if exp.error == "CycleError" or act.error == "CycleError":
                # the model's graph now: as before the call, or with tid's new edges (which
                # the proposal puts in anyway); read here, not before every submit (O(V))
                proposed = self._graph()
                proposed[tid] = tuple(deps) + tuple(optional or ())
                self._check_cycle_oracle(step, exp, act, proposed, new_task=tid)

        exp = self._call("submit", tid, kwargs=kwargs, clause=clause,
                         name=self.trace.fresh_name("gen"),
                         words=words or f"submit {tid!r} depending on {deps!r}", thread=thread,
                         target_norm=as_int, checks=checks)
        if exp.ok:
            with contextlib.suppress(TypeError):
                self.universe.setdefault(tid, None)
        return exp

    @rule(target=tasks, tid=st.sampled_from(IDS),
          deps=st.lists(st.sampled_from(IDS), max_size=3),
          form=st.sampled_from(("tuple", "list", "iter")), with_fn=st.booleans())
    def submit(self, tid: str, deps: list[str], form: str, with_fn: bool) -> str:
        self._submit(tid, deps_form(deps, form), noop if with_fn else None)
        return tid

    @rule(tid=st.sampled_from(IDS), others=st.lists(st.sampled_from(IDS), max_size=1))
    def submit_self_dependency(self, tid: str, others: list[str]) -> None:
        deps = (tid, *others)
        self._submit(tid, deps, None, words=f"submit {tid!r} depending on itself")

    @rule(kind=st.sampled_from(("construct", "submit", "ready")), index=st.integers(0, 5))
    def malformed(self, kind: str, index: int) -> None:
        """Malformed arguments (rule 9's first class): TypeError/ValueError, nothing changes."""
        if kind == "construct":
            self._construct_malformed((-1, True, 1.5, "2")[index % 4])
        elif kind == "submit":
            words, tid, deps, fn = MALFORMED_SUBMITS[index % len(MALFORMED_SUBMITS)]
            self._submit(tid, deps, fn, words=f"submit with {words}")
        else:
            self._ready("w1", (-1, True, 1.5)[index % 3])

    @rule(order=st.permutations(IDS),
          picks=st.lists(st.lists(st.integers(0, 5), max_size=2), min_size=len(IDS),
                         max_size=len(IDS)),
          then_start=st.sampled_from((True, True, False)))
    def submit_dag(self, order: list[str], picks: list[list[int]], then_start: bool) -> None:
        """Every id, in ``order``, each depending on up to two earlier ones: an acyclic graph
        where shared dependencies, diamonds and two-dependency joins are common; then
        (usually) start()."""
        deps: dict[str, list[str]] = {}
        for i, tid in enumerate(order):
            deps[tid] = list(dict.fromkeys(order[j % i] for j in picks[i])) if i else []
        for tid in order:
            self._submit(tid, tuple(deps[tid]), None,
                         words=f"graph: submit {tid!r} depending on {deps[tid]!r}")
        if then_start:
            self.start()

    @rule(order=st.permutations(IDS), length=st.integers(2, len(IDS)),
          diamond=st.booleans())
    def submit_chain(self, order: list[str], length: int, diamond: bool) -> None:
        """A chain order[0] <- order[1] <- ...; with ``diamond``, order[2] also depends on
        order[0] and a last task joins two branches."""
        ids = order[:length]
        for i, tid in enumerate(ids):
            deps: tuple[str, ...] = tuple(ids[i - 1:i])
            if diamond and i == 2:
                deps = (ids[0],)
            if diamond and i == 3:
                deps = (ids[1], ids[2])
            if not self._submit(tid, deps, None,
                                words=f"chain: submit {tid!r} depending on {list(deps)!r}").ok:
                return

    @precondition(lambda self: self.support.optional)
    @rule(tid=st.sampled_from(IDS), deps=st.lists(st.sampled_from(IDS), max_size=2),
          optional=st.lists(st.sampled_from(IDS), min_size=1, max_size=2))
    def submit_optional(self, tid: str, deps: list[str], optional: list[str]) -> None:
        self._submit(tid, tuple(deps), None, optional=tuple(optional),
                     words=f"submit {tid!r} depending on {deps!r}, optionally on {optional!r}")

    # ---- start (rule 2) ------------------------------------------------------------------

    @rule()
    @atomic
    def start(self) -> None:
        graph = self._graph()

        def checks(step: Step, exp: Observed, act: Observed) -> None:
            self._check_error_data(S2, step, exp, act)
            all_known = all(d in graph for ds in graph.values() for d in ds)
            if all_known and exp.error in (None, "CycleError") and not getattr(
                    self.m, "_closed", False):
                self._check_cycle_oracle(step, exp, act, graph)

        self._call("start", clause=S2, words="start scheduling", checks=checks)

    # ---- ready (rule 3) ------------------------------------------------------------------

    @rule(target=claims, worker=st.sampled_from(WORKERS),
          limit=st.one_of(st.none(), st.integers(0, 3)))
    def ready(self, worker: str, limit: int | None) -> Any:
        return self._ready(worker, limit)

    @precondition(lambda self: self._started())
    @rule(target=claims, worker=st.sampled_from(WORKERS), limit=st.integers(1, 2))
    def ready_after_start(self, worker: str, limit: int) -> Any:
        """ready() again, once started: claims are what the callbacks need, so they get a
        second rule (Hypothesis picks rules uniformly)."""
        return self._ready(worker, limit)

    @precondition(lambda self: self._started())
    @rule(target=claims, worker=st.sampled_from(WORKERS), limit=st.integers(1, 3),
          plan=st.lists(st.sampled_from(("complete", "complete", "fail", "hold", "cancel",
                                         "twice")), min_size=3, max_size=3))
    def work(self, worker: str, limit: int, plan: list[str]) -> Any:
        """A worker's round: claim up to ``limit`` tasks, then report each at once as
        ``plan`` says (complete, complete twice, fail, cancel-then-fail: the cooperative
        confirm) or hold it for a later rule; every claim joins the bundle, so later callbacks
        on it are late or duplicates."""
        got = self._ready(worker, limit)
        for ref, what in zip(got.values, plan):
            if what == "hold":
                continue
            if what == "twice":  # a duplicate callback at once (a retried RPC)
                self.report(ref, "complete", None)
                what = "complete"
            if what == "cancel":
                self._callback("cancel", ref.task_id, ref.generation, thread=worker,
                               words=f"cancel {ref.name} ({ref.task_id!r} g{ref.generation}) "
                                     "while it runs")
                what = "fail"
            self.report(ref, what, None)
        return got  # every claim stays replayable: later callbacks are late or duplicates

    @atomic
    def _ready(self, worker: str, limit: Any) -> Any:
        kwargs = {} if limit is None else {"limit": limit}
        words = (f"worker {worker[1:]} claims " +
                 ("every READY task it may" if limit is None else f"up to {limit!r} tasks"))
        running_before = sum(1 for t in self.m.task_ids()
                             if self.m.info(t).state is contract.TaskState.RUNNING)

        def checks(step: Step, exp: Observed, act: Observed) -> None:
            self.exercise(S_T5)
            if sum(1 for held in self._holders.values() if held) > 1:
                self.exercise(S_T6)
            if act.ok:
                step.expected, step.actual = repr(exp), repr(act)
                step.check = check_expr(exp, name, "norm_claims")
                self._check_claims(step, act.value, running_before)

        name = self.trace.fresh_name("claim")
        exp = self._call("ready", kwargs=kwargs, clause=S3, words=words, thread=worker,
                         name=name, norm=adapt.norm_claims, norm_name="norm_claims",
                         checks=checks)
        if not exp.ok:
            return multiple()
        refs = []
        for i, (tid, gen) in enumerate(exp.value):
            if self._not_claimed(tid, gen):
                continue  # a set-aside reply: the model adopted the target's unclaimed task
            self.claim(tid, gen)
            self._holders[worker].add((tid, gen))
            refs.append(ClaimRef(tid, gen, worker, f"{name}[{i}]"))
        return multiple(*refs)

    def _not_claimed(self, tid: Any, gen: int) -> bool:
        """Whether the model, after the call, holds ``(tid, gen)`` as never claimed (it
        adopted the target's state past a set-aside ``ready()`` that did not claim it)."""
        try:
            info = self.m.info(tid)
        except Exception:
            return False
        return info.generation == gen and info.state in (
            contract.TaskState.PENDING, contract.TaskState.READY, contract.TaskState.BLOCKED)

    # ---- classic scenarios (the seed's "what the interviewer tests") ---------------------

    @rule(target=claims, scenario=st.sampled_from(tuple(SCENARIOS)),
          order=st.permutations(IDS))
    def classic(self, scenario: str, order: list[str]) -> Any:
        """One small adversarial template with drawn ids (``scheduler.scenarios``); its claims join
        the bundle, so later callbacks on them are late or duplicates."""
        return multiple(*self._play(scenario, order))

    def _play(self, kind: str, ids: list[str]) -> list[ClaimRef]:
        play = Play(self, kind)
        template(kind)(play, ids)
        return play.refs

    @atomic
    def _shape(self, name: str, size: int, seed: int) -> list[ClaimRef]:
        """Shape ``name`` of ``size`` tasks drawn from ``seed`` (``scheduler.shapes``), one
        step of the program: the reduction replays it whole, at smaller sizes."""
        play = Play(self, f"{name} of {size}")
        self.bulk = True
        try:
            shapes.play(play, name, size, seed)
        finally:
            self.bulk = False
        if self._dirty:
            self.compare_infos()
        return play.refs

    # ---- callbacks (rules 4-6) -----------------------------------------------------------

    @atomic
    def _callback(self, op: str, tid: Any, gen: Any, *, words: str, thread: str | None = None,
                  error: Any = None, late: bool = False) -> Observed:
        clause = {"complete": S4, "fail": S5, "cancel": S6,
                  "cancel_requested": S6}[op]
        args: tuple[Any, ...] = ((tid,) if gen is None and op == "cancel"
                                 else (tid, as_sent(gen)))
        kwargs = {"error": error} if error is not None else {}
        flag = op == "cancel_requested"
        norm: Callable[[Any], Any] = bool if flag else adapt.norm_reply

        def checks(step: Step, exp: Observed, act: Observed) -> None:
            if late or (exp.ok and isinstance(exp.value, tuple)
                        and exp.value[0] in ("STALE", "DUPLICATE")):
                self.exercise(S_T6)  # a late or duplicate callback
                self.stale += 1

        return self._call(op, *args, kwargs=kwargs, clause=clause, words=words, thread=thread,
                          name=self.trace.fresh_name("flag" if flag else "reply"), norm=norm,
                          norm_name=None if flag else "norm_reply", checks=checks,
                          also={"complete": (S_T3,), "fail": (S_T4,),
                                "cancel": (S_T4,)}.get(op, ()))

    @rule(claim=claims, op=st.sampled_from(("complete", "complete", "fail")),
          error=st.sampled_from((None, "boom")))
    def report(self, claim: ClaimRef, op: str, error: str | None) -> None:
        key = (claim.task_id, claim.generation)
        late = key in self.reported or claim.generation != self.m.info(claim.task_id).generation
        what = "late " if late else ""
        self._callback(op, claim.task_id, claim.generation, thread=claim.worker,
                       error=error if op == "fail" else None, late=late,
                       words=f"worker {claim.worker[1:]} reports {claim.name} "
                             f"({claim.task_id!r} g{claim.generation}) {what}"
                             f"{'complete' if op == 'complete' else 'failed'}")
        self.reported.add(key)
        self._holders[claim.worker].discard(key)

    @rule(claim=claims, with_generation=st.booleans())
    def cancel_claim(self, claim: ClaimRef, with_generation: bool) -> None:
        gen = claim.generation if with_generation else None
        self._callback("cancel", claim.task_id, gen, thread=claim.worker,
                       late=claim.generation != self.m.info(claim.task_id).generation,
                       words=f"cancel {claim.name} ({claim.task_id!r}"
                             f"{f' g{gen}' if gen else ', current generation'})")

    @rule(claim=claims)
    def cancel_requested(self, claim: ClaimRef) -> None:
        self._callback("cancel_requested", claim.task_id, claim.generation, thread=claim.worker,
                       words=f"worker {claim.worker[1:]} polls whether {claim.name} "
                             f"({claim.task_id!r} g{claim.generation}) should stop")

    @rule(op=st.sampled_from(("complete", "fail", "cancel", "cancel_requested")),
          tid=st.sampled_from((*IDS, ["x"])),
          gen=st.sampled_from((1, 1, 2, 2, 3, 0, -1, True, None)))
    def callback(self, op: str, tid: Any, gen: Any) -> None:
        """Callbacks with any id and generation: unknown ids, stale and future generations,
        a bool generation, None (cancel only: the current generation)."""
        if gen is None and op != "cancel":
            gen = 1
        self._callback(op, tid, gen, words=f"{op} {tid!r} generation {gen!r}")

    @rule(tid=tasks)
    def cancel(self, tid: str) -> None:
        self._callback("cancel", tid, None, words=f"cancel the current generation of {tid!r}")

    @rule(tids=st.lists(st.sampled_from(IDS), min_size=2, max_size=3, unique=True))
    def cancel_several(self, tids: list[str]) -> None:
        """Cancel several tasks in a row: propagation meets tasks that are already BLOCKED
        (they keep the first cause) and shared dependents of two cancelled roots."""
        for tid in tids:
            self._callback("cancel", tid, None,
                           words=f"cancel the current generation of {tid!r}")

    # ---- close (rule 8) ------------------------------------------------------------------

    @rule(now=st.sampled_from((False, False, False, False, True)))
    def close(self, now: bool) -> None:
        """close() at any point -- but only one draw in five, so that most runs get to
        schedule something first (every draw from a prepared starting state)."""
        if now or self.start_state is not None:
            self._close()

    @atomic
    def _close(self) -> None:
        self._call("close", clause=S8, words="close the scheduler",
                   name=self.trace.fresh_name("closed"), norm=as_list)

    # ---- extensions ----------------------------------------------------------------------

    @precondition(lambda self: self.support.add_dependency)
    @rule(tid=tasks, dep=st.sampled_from(IDS))
    @atomic
    def add_dependency(self, tid: str, dep: str) -> None:
        graph = self._graph()

        def checks(step: Step, exp: Observed, act: Observed) -> None:
            self._check_error_data(S_X_ADDDEP, step, exp, act)
            if self._started() and (exp.error == "CycleError" or act.error == "CycleError"):
                graph[tid] = (*graph.get(tid, ()), dep)
                self._check_cycle_oracle(step, exp, act, graph, new_task=tid)

        self._call("add_dependency", tid, dep, clause=S_X_ADDDEP,
                   words=f"add the dependency {dep!r} to {tid!r}",
                   name=self.trace.fresh_name("reply"), norm=adapt.norm_reply,
                   norm_name="norm_reply", checks=checks)

    @precondition(lambda self: self.support.retry)
    @rule(tid=tasks, cascade=st.booleans())
    @atomic
    def retry(self, tid: str, cascade: bool) -> None:
        self._call("retry", tid, kwargs={"cascade": cascade}, clause=S_X_RETRY,
                   words=f"retry {tid!r}{' and its blocked subtree' if cascade else ''}",
                   name=self.trace.fresh_name("retried"), norm=as_dict, norm_name="dict")

    # ---- after every step ------------------------------------------------------------------

    @invariant()
    def states_agree(self) -> None:
        if self.model is not None and self.target is not None and self._dirty:
            self.compare_infos()


# --------------------------------------------------------------------------------------------
# Public entry points
# --------------------------------------------------------------------------------------------


def make_scheduler_machine(
    factory: Callable[[int], Any],
    *,
    result: RunResult | None = None,
    extra_bases: tuple[type, ...] = (),
) -> type[SchedulerMachine]:
    """A machine class checking ``factory(max_concurrency)`` against the model.

    ``extra_bases`` are mixed in first (their rules join the machine's). Optional parts the
    target lacks are recorded in ``result`` as not supported.
    """
    if result is None:
        result = RunResult.fresh("scheduler", getattr(factory, "__qualname__", repr(factory)))
    support = probe_support(factory)
    for ok, clause, what in ((support.optional, S_X_OPTIONAL, "submit(..., optional=...)"),
                             (support.add_dependency, S_X_ADDDEP, "add_dependency()"),
                             (support.retry, S_X_RETRY, "retry()")):
        if not ok:
            result.unsupported_clause(clause)
            if what not in result.unsupported:
                result.unsupported.append(what)
    namespace = {
        "factory": staticmethod(factory),
        "support": support,
        "_ctx": RunContext(result),
        "__module__": __name__,
    }
    return type("SchedulerMachine", (*extra_bases, SchedulerMachine), namespace)


def run_scheduler_suite(
    factory: Callable[[int], Any],
    *,
    target_name: str = "",
    examples: int | None = None,
    seed: int | None = None,
    profile: str | None = None,
    progress: Progress | None = None,
    extra_bases: tuple[type, ...] = (),
    shrink: bool = True,
    set_aside: frozenset[str] = frozenset(),
    budget: float | None = None,
    phased: bool = False,
) -> RunResult:
    """Run the suite against ``factory``. A counterexample is returned in the result (never
    raised); a bug in schedcheck raises SchedcheckInternalError. ``shrink=False`` keeps the
    first failing run; ``set_aside`` names clauses whose oracle is set aside; a ``budget``
    (seconds) runs the budgeted search (``harness.search``) instead of one fixed run;
    so do ``examples`` with ``phased`` (seed-only mode)."""
    result = RunResult.fresh("scheduler", target_name or getattr(factory, "__qualname__", ""))
    machine = make_scheduler_machine(factory, result=result, extra_bases=extra_bases)
    machine.set_aside = frozenset(set_aside)
    searched = explore(machine, result, budget=budget, examples=examples, seed=seed,
                       profile=profile, progress=progress, shrink=shrink, phased=phased)
    if searched is not None:
        return searched
    # one reduction, delta debugging over the atomic program (Hypothesis's shrinker is slow
    # on these machines and cannot drop a step inside a compound rule)
    return run_reduced(machine, result, unshrunk_settings(examples, profile, False), progress,
                       seed=seed, reduce=shrink)
