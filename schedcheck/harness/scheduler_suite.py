"""The scheduler's differential stateful suite (issue 2): the model and a target in lockstep.

A Hypothesis ``RuleBasedStateMachine`` drives ``schedcheck.model.Scheduler`` and a target
built by ``factory(max_concurrency)`` with the same calls, and compares every return value and
every raised error after Part 3 normalisation (``schedcheck.adapt``: states and outcomes by
name, Reply/Claim/TaskInfo as attributes or tuples, errors by class name). After every step
it compares ``info()`` of every id it has mentioned (unknown ones must raise
UnknownTaskError on both sides), runs the model's ``check_invariants()`` and the target's if
it has one, and checks on the *target's* answers, before the equality with the model (so the
report names the specific clause):

* S-CLAIM-ONCE -- no (id, generation) claimed twice; RUNNING <= max_concurrency;
* S-CLAIM-DEPS -- a claimed task had every required dependency SUCCEEDED and every optional
  one terminal when it was claimed (dependencies from the model-side graph);
* S-TERMINAL   -- a terminal generation never changes state;
* S-INV        -- no PENDING/READY task with a dead required dependency; BLOCKED carries a
  root cause of kind failed/cancelled whose generation is FAILED/CANCELLED.

Oracles beyond the model (``sched_oracles``): networkx decides whether start() (or a submit
after start) must raise CycleError, and every reported ``.cycle`` must be a real simple cycle
``[a, ..., a]`` of the submitted graph (any cycle, any rotation -- model and target may pick
different ones, so only this is compared); on random DAGs with unbounded concurrency where
every task succeeds, ``ready()`` batches equal graphlib's ``get_ready()`` groups as sets.

Classic scenarios (``SCENARIOS``; the seed's "what the interviewer tests" and its common
mistakes), instantiated with drawn ids by the ``classic`` rule and by two build presets in five,
so that the first steps of most runs are adversarial: a join whose first dependency completes
twice, a diamond with a duplicate completion, a join whose two dependencies fail (the second
twice, then a cancel), claims at the concurrency limit (``ready(1)`` then ``ready()`` with
slots partly used), a late callback from the generation before a resubmit, a resubmit of a
dependency with a live dependent, and a resubmit that drops an edge followed by the reverse
edge (a cycle check that follows stale edges reports a cycle that is not there).

Rules reach, often: random graphs over a six-letter alphabet (so resubmits are frequent),
chains, diamonds, self-dependencies, cycles, unknown dependencies, up to three logical
workers holding claims and calling ``ready(limit)`` in any interleaving, callbacks in any
order, duplicate and late callbacks replayed from old claims (the ``claims`` bundle keeps
them), cancel of pending/ready/running tasks and the cooperative confirm, resubmits,
``retry(cascade)``, ``add_dependency`` and optional edges when the target has them (probed
once per factory: an optional method is supported iff the attribute exists, the ``optional``
keyword iff a throwaway instance accepts it without TypeError; unsupported clauses are
recorded as "not supported", never as held), ``close()`` at any point, and max_concurrency
0, 1 and larger.

Counterexample code lines call the target with the contract's signatures, ids and
generations as literals (claims are named ``claim_N`` and referenced in words); ``fn=noop``
means the replay defines ``def noop(): return None``. Nothing here imports
``schedcheck.impl``: a stranger's scheduler is checked by the same code.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, ClassVar

import hypothesis
from hypothesis import strategies as st
from hypothesis.stateful import (
    Bundle,
    initialize,
    invariant,
    multiple,
    precondition,
    rule,
)

from schedcheck import adapt, contract
from schedcheck.harness import sched_oracles as oracles
from schedcheck.harness.common import (
    Observed,
    Progress,
    RunContext,
    ScalingResult,
    SuiteMachine,
    call_code,
    check_expr,
    measure_scaling,
    observe,
    observe_model,
    run_suite,
    suite_settings,
)
from schedcheck.harness.result import RunResult, Step
from schedcheck.model import Scheduler as ModelScheduler

__all__ = [
    "IDS",
    "SchedulerMachine",
    "Support",
    "check_scheduler_scaling",
    "make_scheduler_machine",
    "noop",
    "probe_support",
    "run_scheduler_suite",
]

#: The id alphabet: small, so that resubmits (collisions) are frequent.
IDS: tuple[str, ...] = ("a", "b", "c", "d", "e", "f")
WORKERS: tuple[str, ...] = ("w1", "w2", "w3")
#: The classic adversarial templates (the seed's "what the interviewer tests" and its common
#: mistakes), instantiated with drawn ids by ``classic`` and by one preset of ``build``.
SCENARIOS: tuple[str, ...] = (
    "join, duplicate complete",
    "diamond, duplicate complete",
    "join, both deps fail",
    "claims at the concurrency limit",
    "late callback after resubmit",
    "resubmit a dependency with a live dependent",
    "resubmit drops a dependency, then the reverse edge",
)
#: Errors that rule 9 owns whatever the call (malformed arguments, lifecycle, unknown ids).
_RULE9 = frozenset({"TypeError", "ValueError", "ClosedError", "NotStartedError",
                    "UnknownTaskError"})
_DEAD = frozenset({"FAILED", "BLOCKED", "CANCELLED"})
_TERMINAL = _DEAD | {"SUCCEEDED"}
#: "unbounded" concurrency for the graphlib oracle
_BIG = 1000


class _Noop:
    """The ``fn`` handed to submit; its repr is ``noop`` so counterexample lines read
    ``fn=noop`` (the replay defines ``def noop(): return None``)."""

    def __call__(self) -> None:
        return None

    def __repr__(self) -> str:
        return "noop"


noop = _Noop()


class _Malformed:
    """A non-callable, hashable ``fn`` with a short repr for counterexample lines."""

    def __repr__(self) -> str:
        return "5"


@dataclass(frozen=True)
class ClaimRef:
    """A claim handed to a worker: replayed later (complete/fail/cancel), also when stale."""

    task_id: Any
    generation: int
    worker: str
    name: str  #: ``claim_3[1]``: the ready() result and the index in it

    def __repr__(self) -> str:
        return f"{self.name}<{self.task_id!r} g{self.generation} {self.worker}>"


@dataclass(frozen=True)
class Support:
    """Which optional parts of the contract the target has (probed once per factory)."""

    optional: bool
    add_dependency: bool
    retry: bool
    check_invariants: bool


def probe_support(factory: Callable[[int], Any]) -> Support:
    """Probe a throwaway instance: methods by attribute, ``optional=`` by a TypeError-free call."""
    try:
        probe = factory(1)
    except Exception:
        return Support(False, False, False, False)
    optional = True
    try:
        probe.submit("__probe__", (), None, optional=())
    except TypeError:
        optional = False
    except Exception:  # it accepted the keyword, then disliked something else
        optional = True
    return Support(
        optional=optional,
        add_dependency=callable(getattr(probe, "add_dependency", None)),
        retry=callable(getattr(probe, "retry", None)),
        check_invariants=callable(getattr(probe, "check_invariants", None)),
    )


def _as_int(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"expected an int generation, got {type(value).__name__} {value!r}")
    return value


def _as_list(value: Any) -> list[Any]:
    return list(value)


def _as_dict(value: Any) -> dict[Any, int]:
    return {k: _as_int(v) for k, v in dict(value).items()}


def _blame(clause: str, *outcomes: Observed) -> str:
    """Rule 9 owns malformed arguments, lifecycle errors and unknown ids, whatever the call."""
    if any(o.error in _RULE9 for o in outcomes):
        return "S9"
    return clause


_MALFORMED_SUBMITS: tuple[tuple[str, Any, Any, Any], ...] = (
    ("an unhashable task id", ["x"], (), None),
    ("deps given as a str", "a", "bc", None),
    ("deps given as bytes", "a", b"bc", None),
    ("deps None", "a", None, None),
    ("an unhashable dependency", "a", [["b"]], None),
    ("a non-callable fn", "a", (), _Malformed()),
)


class SchedulerMachine(SuiteMachine):
    """The differential machine. Attributes a mixin (the concurrent rounds) may rely on:

    * ``self.model`` -- the reference ``schedcheck.model.Scheduler`` (None before ``build``);
    * ``self.target`` -- the target instance, built by ``self.factory(max_concurrency)``;
    * ``self.max_concurrency`` -- the value both were built with;
    * ``self.trace`` / ``self.result`` / ``self.ctx`` -- see :class:`SuiteMachine`;
    * ``self.universe`` -- every id mentioned so far (info() is compared for each);
    * ``self.claimed`` -- every (id, generation) claimed so far (by any worker);
    * ``self.expect(clause, step, expected, actual)`` / ``self.diverge(...)`` -- comparison;
    * ``self.compare_infos(after=...)`` -- the per-step state comparison and invariants (a
      mixin calls it after its own round; the ``@invariant`` calls it after every rule).
    """

    system: ClassVar[str] = "scheduler"
    factory: ClassVar[Callable[[int], Any]]
    support: ClassVar[Support] = Support(False, False, False, False)

    claims = Bundle("claims")
    tasks = Bundle("tasks")

    def __init__(self) -> None:
        super().__init__()
        self.model: ModelScheduler | None = None
        self.target: Any = None
        self.max_concurrency = 0
        self.universe: dict[Any, None] = dict.fromkeys(IDS)
        self.claimed: set[tuple[Any, int]] = set()
        self.reported: set[tuple[Any, int]] = set()  # claims already given a complete/fail
        #: (id, generation) -> (state, cause) once terminal: neither may change again
        self.terminal_seen: dict[tuple[Any, int], tuple[str, Any]] = {}
        self.most_blocked = 0  # most BLOCKED tasks seen at once (a hypothesis.target score)
        self._dirty = False  # a call was made since the last compare_infos()
        self.last_clause = "S1"
        self.last_words = "construction"
        self._holders: dict[str, set[tuple[Any, int]]] = {w: set() for w in WORKERS}

    # ---- helpers ---------------------------------------------------------------------------

    @property
    def m(self) -> ModelScheduler:
        assert self.model is not None
        return self.model

    def _started(self) -> bool:
        return bool(getattr(self.m, "_started", False))

    def _step(self, code: str, words: str, clause: str, thread: str | None = None,
              *, compare_first: bool = True) -> Step:
        """Record the next call. The states are compared *before* it when the previous call
        has not been checked yet (compound rules: chains, graphs, worker rounds)."""
        if compare_first and self._dirty:
            self.compare_infos()
        self._dirty = True
        self.last_clause = clause
        self.last_words = words
        return self.trace.add(code, words, clause=clause, thread=thread)

    def _expect(self, clause: str, step: Step, exp: Observed, act: Observed, *,
                check: str | None, also: tuple[str, ...] = (), story: str = "") -> None:
        """Compare; a mismatch is blamed on rule 9 when an error of its class is involved,
        else on ``clause``. Both ``clause`` and (for errors) S9 count as exercised."""
        hypothesis.event(_event_label(step.code, exp))
        blame = _blame(clause, exp, act)
        extra = also + ((clause,) if blame != clause else ()) + (("S9",) if not exp.ok else ())
        self.expect(blame, step, exp, act, check=check, also=tuple(dict.fromkeys(
            e for e in extra if e != blame)), story=story)

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

    # ---- construction ------------------------------------------------------------------------

    @initialize(target=claims, mc=st.sampled_from((0, 1, 1, 2, 2, 3, 5, _BIG)),
                preset=st.sampled_from(("scenario", "started graph", "empty", "started graph",
                                        "scenario")),
                order=st.permutations(IDS),
                picks=st.lists(st.lists(st.integers(0, 5), max_size=2), min_size=len(IDS),
                               max_size=len(IDS)),
                scenario=st.sampled_from(SCENARIOS))
    def build(self, mc: int, preset: str, order: list[str], picks: list[list[int]],
              scenario: str) -> Any:
        """Build both sides; most runs begin with a started acyclic graph or one of the
        classic adversarial scenarios, so that claims and callbacks are reachable from the
        first rule (the others reach start() and its unknown dependencies and cycles)."""
        self._build(mc)
        if preset == "started graph":
            self.submit_dag(order, picks, True)
        elif preset == "scenario":
            return multiple(*self._scenario(scenario, order))
        return multiple()

    def _build(self, mc: int) -> None:
        self.max_concurrency = mc
        self.model = ModelScheduler(mc)
        self.trace.setup = f"target = factory({mc})"
        built = observe(type(self).factory, mc)
        if not built.ok:
            self.diverge("S9", f"the target could not be built: factory({mc}) "
                               f"{built.describe()}")
        self.target = built.value

    def _construct_malformed(self, arg: Any) -> None:
        step = self._step(f"factory({arg!r})", f"build a scheduler with max_concurrency={arg!r}",
                          "S9")
        exp = observe_model(ModelScheduler, arg)
        act = observe(type(self).factory, arg)
        self._expect("S9", step, exp, act, check=check_expr(exp, None))

    # ---- submit (rules 1, 7) -------------------------------------------------------------

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
        clause = "S7" if known else "S1"
        name = self.trace.fresh_name("gen")
        code = call_code("submit", tid, assign=name, **kwargs)
        step = self._step(code, words or f"submit {tid!r} depending on {deps!r}", clause, thread)
        graph_before = self._graph()
        exp = observe_model(self.m.submit, tid, **_fresh(kwargs))
        act = observe(self.target.submit, tid, **_fresh(kwargs), norm=_as_int)
        self.exercise("S-T1")
        if known:
            self.exercise("S-T5")
        if optional is not None:
            self.exercise("S-X-OPTIONAL")
        self._check_error_data(clause, step, exp, act)
        if exp.error == "CycleError" or act.error == "CycleError":
            proposed = dict(graph_before)
            new = tuple(deps) + tuple(optional or ())
            proposed[tid] = new
            self._check_cycle_oracle(step, exp, act, proposed, new_task=tid)
        self._expect(clause, step, exp, act, check=check_expr(exp, name))
        if exp.ok:
            with contextlib.suppress(TypeError):
                self.universe.setdefault(tid, None)
        return exp

    @rule(target=tasks, tid=st.sampled_from(IDS),
          deps=st.lists(st.sampled_from(IDS), max_size=3),
          form=st.sampled_from(("tuple", "list", "iter")), with_fn=st.booleans())
    def submit(self, tid: str, deps: list[str], form: str, with_fn: bool) -> str:
        self._submit(tid, _deps_form(deps, form), noop if with_fn else None)
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
            words, tid, deps, fn = _MALFORMED_SUBMITS[index % len(_MALFORMED_SUBMITS)]
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
            self.diverge(clause, f"{step.words}: `{step.code}` raised UnknownDependencyError "
                         f"with task_id/missing {got!r}; the contract fixes {want!r} (the "
                         "first task in submission sequence, missing ids in deps order)",
                         step=step)

    def _check_cycle_oracle(self, step: Step, exp: Observed, act: Observed,
                            graph: dict[Any, tuple[Any, ...]], new_task: Any = None) -> None:
        """networkx decides whether a CycleError is due; a reported cycle must be real."""
        if exp.error not in (None, "CycleError"):
            return  # an error of higher precedence is due (rule 9): the replies decide
        self.exercise("S-ORACLE-CYCLE", "S-T4")
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
                self.diverge("S-ORACLE-CYCLE", f"{step.words}: `{step.code}`: {problem}",
                             step=step, snapshot={"cycle": [repr(x) for x in cycle or []]})
        elif cyclic and act.error is None:
            step.expected, step.actual = "raises CycleError", repr(act)
            self.diverge("S-ORACLE-CYCLE", f"{step.words}: `{step.code}` did not raise "
                         f"CycleError, but the graph has a cycle (networkx)", step=step)

    # ---- start (rule 2) ------------------------------------------------------------------

    @rule()
    def start(self) -> None:
        step = self._step(call_code("start"), "start scheduling", "S2")
        graph = self._graph()
        exp = observe_model(self.m.start)
        act = observe(self.target.start)
        self._check_error_data("S2", step, exp, act)
        all_known = all(d in graph for ds in graph.values() for d in ds)
        if all_known and exp.error in (None, "CycleError") and not getattr(
                self.m, "_closed", False):
            self._check_cycle_oracle(step, exp, act, graph)
        self._expect("S2", step, exp, act, check=check_expr(exp, None))

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

    def _ready(self, worker: str, limit: Any) -> Any:
        name = self.trace.fresh_name("claim")
        kwargs = {} if limit is None else {"limit": limit}
        words = (f"worker {worker[1:]} claims " +
                 ("every READY task it may" if limit is None else f"up to {limit!r} tasks"))
        step = self._step(call_code("ready", assign=name, **kwargs), words, "S3", worker)
        running_before = sum(1 for t in self.m.task_ids()
                             if self.m.info(t).state is contract.TaskState.RUNNING)
        exp = observe_model(self.m.ready, **kwargs, norm=adapt.norm_claims)
        act = observe(self.target.ready, **kwargs, norm=adapt.norm_claims)
        self.exercise("S-T5")
        if sum(1 for held in self._holders.values() if held) > 1:
            self.exercise("S-T6")
        if act.ok:
            step.expected, step.actual = repr(exp), repr(act)
            step.check = check_expr(exp, name, "norm_claims")
            self._check_claims(step, act.value, running_before)
        self._expect("S3", step, exp, act, check=check_expr(exp, name, "norm_claims"))
        if not exp.ok:
            return multiple()
        refs = []
        for i, (tid, gen) in enumerate(exp.value):
            self.claimed.add((tid, gen))
            self._holders[worker].add((tid, gen))
            refs.append(ClaimRef(tid, gen, worker, f"{name}[{i}]"))
        return multiple(*refs)

    def _check_claims(self, step: Step, claims: list[tuple[Any, int]], running: int) -> None:
        self.exercise("S-CLAIM-ONCE", "S-CLAIM-DEPS")
        seen: set[tuple[Any, int]] = set()
        for c in claims:
            if c in self.claimed or c in seen:
                self.diverge("S-CLAIM-ONCE", f"{step.words}: `{step.code}` handed out "
                             f"{c[0]!r} generation {c[1]} again: each generation is claimed "
                             "at most once", step=step)
            seen.add(c)
        if running + len(claims) > self.max_concurrency:
            self.diverge("S-CLAIM-ONCE", f"{step.words}: `{step.code}` returned "
                         f"{len(claims)} claims with {running} already RUNNING, over "
                         f"max_concurrency={self.max_concurrency}", step=step)
        for tid, _gen in claims:
            if tid not in self.m.task_ids():
                continue  # an id the model never saw: the reply comparison reports it
            for dep in self.m.deps_of(tid):
                state = self.m.info(dep).state.name
                if state != "SUCCEEDED":
                    self.diverge("S-CLAIM-DEPS", f"{step.words}: `{step.code}` claimed "
                                 f"{tid!r} while its dependency {dep!r} is {state}", step=step)
            for dep in self.m.optional_of(tid):
                state = self.m.info(dep).state.name
                if state not in _TERMINAL:
                    self.diverge("S-CLAIM-DEPS", f"{step.words}: `{step.code}` claimed "
                                 f"{tid!r} while its optional dependency {dep!r} is {state} "
                                 "(not terminal)", step=step)

    # ---- classic scenarios (the seed's "what the interviewer tests") ---------------------

    @rule(target=claims, scenario=st.sampled_from(SCENARIOS), order=st.permutations(IDS))
    def classic(self, scenario: str, order: list[str]) -> Any:
        """One small adversarial template with drawn ids (see SCENARIOS); its claims join the
        bundle, so later callbacks on them are late or duplicates."""
        return multiple(*self._scenario(scenario, order))

    def _scenario(self, kind: str, ids: list[str]) -> list[ClaimRef]:
        """Run the template ``kind`` on the ids ``ids[0]``, ``ids[1]``, ... (resubmits when
        they exist already; errors are compared like any other call)."""
        a, z, j, b, c, _ = ids
        refs: list[ClaimRef] = []

        def sub(tid: str, *deps: str) -> None:
            self._submit(tid, deps, None,
                         words=f"{kind}: submit {tid!r} depending on {list(deps)!r}")

        def claim(limit: int | None = None) -> None:
            refs.extend(self._ready("w1", limit).values)

        def report(tid: str, op: str, times: int = 1) -> None:
            """Report the latest claim of ``tid`` (``times`` > 1: duplicate callbacks)."""
            for ref in reversed(refs):
                if ref.task_id == tid:
                    for _ in range(times):
                        self.report(ref, op, None)
                    return

        if kind == "join, duplicate complete":  # two deps completing; a retried callback
            sub(a)
            sub(z)
            sub(j, a, z)
            self.start()
            claim()
            report(a, "complete", 2)
            report(z, "complete")
        elif kind == "diamond, duplicate complete":
            sub(a)
            sub(b, a)
            sub(c, a)
            sub(j, b, c)
            self.start()
            claim()
            report(a, "complete")
            claim()
            report(b, "complete", 2)
            report(c, "complete")
        elif kind == "join, both deps fail":  # failure propagation, a second root
            sub(a)
            sub(z)
            sub(j, a, z)
            sub(b, j)
            self.start()
            claim()
            report(a, "fail")
            report(z, "fail", 2)
            self._callback("cancel", z, None, words=f"{kind}: cancel {z!r}")
        elif kind == "claims at the concurrency limit":  # slots partly used, then limit=None
            for tid in ids:
                sub(tid)
            self.start()
            claim(1)
            claim()
            claim()
        elif kind == "late callback after resubmit":  # an old generation's worker reports
            sub(a)
            sub(j, a)
            self.start()
            claim()
            report(a, "complete")
            sub(a)
            report(a, "complete")
            claim()
            report(j, "complete")
            report(a, "fail")
        elif kind == "resubmit a dependency with a live dependent":
            sub(a)
            sub(z)
            sub(j, a, z)
            self.start()
            claim()
            report(a, "complete")
            sub(a)
            report(z, "complete")
            claim()
            report(a, "complete", 2)
        elif kind == "resubmit drops a dependency, then the reverse edge":
            sub(a)
            sub(z, a)
            self.start()
            sub(z)
            sub(a, z)
        return refs

    # ---- callbacks (rules 4-6) -----------------------------------------------------------

    def _callback(self, op: str, tid: Any, gen: Any, *, words: str, thread: str | None = None,
                  error: Any = None, late: bool = False) -> Observed:
        clause = {"complete": "S4", "fail": "S5", "cancel": "S6",
                  "cancel_requested": "S6"}[op]
        args: tuple[Any, ...] = (tid,) if gen is None and op == "cancel" else (tid, gen)
        kwargs = {"error": error} if error is not None else {}
        prefix = "flag" if op == "cancel_requested" else "reply"
        name = self.trace.fresh_name(prefix)
        step = self._step(call_code(op, *args, assign=name, **kwargs), words, clause, thread)
        norm: Callable[[Any], Any] = bool if op == "cancel_requested" else adapt.norm_reply
        exp = observe_model(getattr(self.m, op), *args, **kwargs, norm=norm)
        act = observe(getattr(self.target, op), *args, **kwargs, norm=norm)
        extra: tuple[str, ...] = {"complete": ("S-T3",), "fail": ("S-T4",),
                                  "cancel": ("S-T4",)}.get(op, ())
        if late or (exp.ok and isinstance(exp.value, tuple)
                    and exp.value[0] in ("STALE", "DUPLICATE")):
            extra += ("S-T6",)  # a late or duplicate callback
        self._expect(clause, step, exp, act, also=extra,
                     check=check_expr(exp, name, None if op == "cancel_requested"
                                      else "norm_reply"))
        return exp

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
        schedule something first."""
        if not now:
            return
        name = self.trace.fresh_name("closed")
        step = self._step(call_code("close", assign=name), "close the scheduler", "S8")
        exp = observe_model(self.m.close, norm=_as_list)
        act = observe(self.target.close, norm=_as_list)
        self._expect("S8", step, exp, act, check=check_expr(exp, name))

    # ---- extensions ----------------------------------------------------------------------

    @precondition(lambda self: self.support.add_dependency)
    @rule(tid=tasks, dep=st.sampled_from(IDS))
    def add_dependency(self, tid: str, dep: str) -> None:
        name = self.trace.fresh_name("reply")
        step = self._step(call_code("add_dependency", tid, dep, assign=name),
                          f"add the dependency {dep!r} to {tid!r}", "S-X-ADDDEP")
        graph = self._graph()
        exp = observe_model(self.m.add_dependency, tid, dep, norm=adapt.norm_reply)
        act = observe(self.target.add_dependency, tid, dep, norm=adapt.norm_reply)
        self._check_error_data("S-X-ADDDEP", step, exp, act)
        if self._started() and (exp.error == "CycleError" or act.error == "CycleError"):
            graph[tid] = (*graph.get(tid, ()), dep)
            self._check_cycle_oracle(step, exp, act, graph, new_task=tid)
        self._expect("S-X-ADDDEP", step, exp, act, check=check_expr(exp, name, "norm_reply"))

    @precondition(lambda self: self.support.retry)
    @rule(tid=tasks, cascade=st.booleans())
    def retry(self, tid: str, cascade: bool) -> None:
        name = self.trace.fresh_name("retried")
        step = self._step(call_code("retry", tid, assign=name, cascade=cascade),
                          f"retry {tid!r}{' and its blocked subtree' if cascade else ''}",
                          "S-X-RETRY")
        exp = observe_model(self.m.retry, tid, cascade=cascade, norm=_as_dict)
        act = observe(self.target.retry, tid, cascade=cascade, norm=_as_dict)
        self._expect("S-X-RETRY", step, exp, act, check=check_expr(exp, f"dict({name})"))

    # ---- the graphlib oracle -------------------------------------------------------------

    @rule(shape=st.lists(st.lists(st.integers(0, 6), max_size=3), min_size=1, max_size=7),
          reverse=st.booleans(), now=st.sampled_from((False, False, True)))
    def topo_oracle(self, shape: list[list[int]], reverse: bool, now: bool) -> None:
        """A fresh unbounded target on a random DAG: ready() batches == graphlib's groups.
        (One draw in three: it is long, and the main machine needs the steps.)"""
        if not now:
            return
        graph: dict[Any, tuple[Any, ...]] = {
            f"t{i}": tuple(dict.fromkeys(f"t{j % i}" for j in ds)) if i else ()
            for i, ds in enumerate(shape)}
        self.exercise("S-ORACLE-TOPO")
        obj = self.trace.fresh_name("topo")
        step = self._step(f"{obj} = factory({_BIG})",
                          f"build a second scheduler with max_concurrency={_BIG}",
                          "S-ORACLE-TOPO")
        built = observe(type(self).factory, _BIG)
        if not built.ok:
            self.diverge("S-ORACLE-TOPO", f"factory({_BIG}) {built.describe()}", step=step)
        t = built.value
        order = list(graph)[::-1] if reverse else list(graph)
        for tid in order:
            step = self._step(call_code("submit", tid, obj=obj, deps=graph[tid]),
                              f"oracle graph: submit {tid!r}", "S-ORACLE-TOPO",
                              compare_first=False)
            self._oracle_ok(step, observe(t.submit, tid, deps=graph[tid]))
        step = self._step(call_code("start", obj=obj), "oracle graph: start", "S-ORACLE-TOPO",
                          compare_first=False)
        self._oracle_ok(step, observe(t.start))
        batches: list[list[str]] = [sorted(b) for b in oracles.topo_batches(graph)]
        for want in [*batches, []]:
            name = self.trace.fresh_name("batch")
            step = self._step(call_code("ready", obj=obj, assign=name),
                              "oracle graph: claim every READY task", "S-ORACLE-TOPO",
                              compare_first=False)
            got = observe(t.ready, norm=adapt.norm_claims)
            ids = sorted(c[0] for c in got.value) if got.ok else None
            step.expected, step.actual = repr(want), repr(got)
            step.check = (f"_raised is None and sorted(c[0] for c in norm_claims({name})) == "
                          f"{want!r}")
            if ids != want:
                self.diverge("S-ORACLE-TOPO", f"`{step.code}` returned {got!r}; graphlib's "
                             f"get_ready() group is {want!r} for the graph {graph!r}",
                             step=step)
            for tid, gen in got.value:
                step = self._step(call_code("complete", tid, gen, obj=obj),
                                  f"oracle graph: {tid!r} succeeds", "S-ORACLE-TOPO",
                                  compare_first=False)
                self._oracle_ok(step, observe(t.complete, tid, gen, norm=adapt.norm_reply))

    def _oracle_ok(self, step: Step, got: Observed) -> None:
        if not got.ok:
            step.expected, step.actual = "no error", repr(got)
            self.diverge("S-ORACLE-TOPO", f"`{step.code}` {got.describe()} on an acyclic "
                         "graph with every dependency submitted", step=step)

    # ---- after every step ------------------------------------------------------------------

    @invariant()
    def states_agree(self) -> None:
        if self.model is not None and self.target is not None and self._dirty:
            self.compare_infos()

    def compare_infos(self) -> None:
        """Target-side invariants, then info() of every mentioned id against the model, then
        both sides' check_invariants()."""
        self._dirty = False
        known_ids = set(self.m.task_ids())
        # every known id, and one unknown id per step (both sides must raise UnknownTaskError)
        ids = [t for t in self.universe if t in known_ids]
        ids += [t for t in self.universe if t not in known_ids][:1]
        model_infos = {t: observe_model(self.m.info, t, norm=adapt.norm_info) for t in ids}
        target_infos = {t: observe(self.target.info, t, norm=adapt.norm_info) for t in ids}
        known = [t for t, o in model_infos.items() if o.ok]
        blocked = sum(1 for o in model_infos.values() if o.ok and o.value[2] == "BLOCKED")
        self.most_blocked = max(self.most_blocked, blocked)
        if known:
            self.exercise("S-T1", "S-INV", "S-TERMINAL")
        self._target_invariants(target_infos)
        for tid, exp in model_infos.items():
            act = target_infos[tid]
            if exp != act:
                name = self.trace.fresh_name("info")
                step = self.trace.add(call_code("info", tid, assign=name),
                                      f"look at {tid!r}", clause=self.last_clause)
                self.expect(_blame(self.last_clause, exp, act) if not exp.ok
                            else self.last_clause, step, exp, act,
                            check=check_expr(exp, name, "norm_info"),
                            story=f"after '{self.last_words}' the states differ")
        for o in model_infos.values():
            if o.ok:
                tid, gen, state, _ = o.value
                if state in _TERMINAL:
                    self.terminal_seen[(tid, gen)] = (state, o.value[3])
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
                                      "the target checks its own invariants", clause="S-INV")
                step.expected, step.actual = "None", got.describe()
                self.diverge("S-INV", f"after '{self.last_words}' the target's own "
                             f"check_invariants() {got.describe()}", step=step)

    def _compare_optional_failed(self, ids: list[Any]) -> None:
        """S-X-OPTIONAL: the optional dependencies recorded as dead (``optional_failed``), as
        a set, for tasks with optional edges -- when the target's info() has the attribute."""
        for tid in ids:
            if not self.m.optional_of(tid):
                continue
            exp = observe_model(self.m.info, tid, norm=_optional_failed)
            act = observe(self.target.info, tid, norm=_optional_failed)
            if act.ok and act.value is None:
                return  # the target does not record it: nothing to compare
            self.exercise("S-X-OPTIONAL")
            if exp != act:
                name = self.trace.fresh_name("info")
                step = self.trace.add(call_code("info", tid, assign=name),
                                      f"look at the optional dependencies of {tid!r} found "
                                      "dead", clause="S-X-OPTIONAL")
                self.expect("S-X-OPTIONAL", step, exp, act,
                            check=f"set({name}.optional_failed) == {exp.value!r}",
                            story=f"after '{self.last_words}', optional_failed differs")

    def _target_invariants(self, infos: dict[Any, Observed]) -> None:
        states = {t: o.value for t, o in infos.items() if o.ok and _well_formed(o.value)}
        running = 0
        for tid, (_, gen, state, cause) in states.items():
            running += state == "RUNNING"
            seen = self.terminal_seen.get((tid, gen))
            if seen is not None and state != seen[0]:
                self._info_violation("S-TERMINAL", tid, infos[tid],
                                     f"{tid!r} generation {gen} was {seen[0]} and is now "
                                     f"{state}: a terminal generation never leaves its state")
            if seen is not None and cause != seen[1]:
                self._info_violation("S-TERMINAL", tid, infos[tid],
                                     f"{tid!r} generation {gen} is {state} with cause "
                                     f"{seen[1]!r}, now {cause!r}: a terminal generation keeps "
                                     "its cause (a BLOCKED one, the first propagation's)")
            if state in ("PENDING", "READY") and tid in self.m.task_ids():
                for dep in self.m.deps_of(tid):
                    d = states.get(dep)
                    if d is not None and d[2] in _DEAD:
                        self._info_violation("S-INV", tid, infos[tid],
                                             f"{tid!r} is {state} while its dependency "
                                             f"{dep!r} is {d[2]}: it should be BLOCKED")
            if state == "BLOCKED":
                problem = self._blocked_problem(tid, cause, states)
                if problem:
                    self._info_violation("S-INV", tid, infos[tid], problem)
        if running > self.max_concurrency:
            self.exercise("S-CLAIM-ONCE")
            self._info_violation("S-CLAIM-ONCE", next(iter(states)), None,
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
        super().teardown()


def _optional_failed(info: Any) -> frozenset[Any] | None:
    value = getattr(info, "optional_failed", None)
    return None if value is None else frozenset(value)


def _event_label(code: str, exp: Observed) -> str:
    """A low-cardinality label for Hypothesis's statistics: ``complete -> APPLIED``."""
    method = code.split("(", 1)[0].rsplit(".", 1)[-1]
    if not exp.ok:
        what = str(exp.error)
    elif isinstance(exp.value, tuple) and len(exp.value) == 2 and isinstance(exp.value[0], str):
        what = exp.value[0]
    elif isinstance(exp.value, (list, dict)):
        what = f"{min(len(exp.value), 3)}{'+' if len(exp.value) >= 3 else ''} items"
    else:
        what = "ok"
    return f"{method} -> {what}"


def _well_formed(value: Any) -> bool:
    return isinstance(value, tuple) and len(value) == 4


def _deps_form(deps: list[str], form: str) -> Any:
    if form == "list":
        return list(deps)
    if form == "iter":
        return _Reiterable(deps)
    return tuple(deps)


class _Reiterable:
    """An iterable that is not a list/tuple (a fresh iterator each time), printed as a list."""

    def __init__(self, items: Iterable[Any]) -> None:
        self.items = list(items)

    def __iter__(self) -> Any:
        return iter(self.items)

    def __repr__(self) -> str:
        return f"iter({self.items!r})"


def _fresh(kwargs: dict[str, Any]) -> dict[str, Any]:
    """A copy of the call's arguments so model and target never share a mutable deps list."""
    return {k: (list(v) if isinstance(v, list) else v) for k, v in kwargs.items()}


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
    for ok, clause, what in ((support.optional, "S-X-OPTIONAL", "submit(..., optional=...)"),
                             (support.add_dependency, "S-X-ADDDEP", "add_dependency()"),
                             (support.retry, "S-X-RETRY", "retry()")):
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
    machine = type("SchedulerMachine", (*extra_bases, SchedulerMachine), namespace)
    return machine


def run_scheduler_suite(
    factory: Callable[[int], Any],
    *,
    target_name: str = "",
    examples: int | None = None,
    seed: int | None = None,
    profile: str | None = None,
    progress: Progress | None = None,
    extra_bases: tuple[type, ...] = (),
) -> RunResult:
    """Run the suite against ``factory``. A counterexample is returned in the result (never
    raised); a bug in schedcheck raises SchedcheckInternalError."""
    result = RunResult.fresh("scheduler", target_name or getattr(factory, "__qualname__", ""))
    machine = make_scheduler_machine(factory, result=result, extra_bases=extra_bases)
    settings: hypothesis.settings = suite_settings(examples=examples, profile=profile)
    return run_suite(machine, result, settings, progress, seed=seed)


def check_scheduler_scaling(
    factory: Callable[[int], Any],
    *,
    n: int = 2000,
    factor: int = 8,
    threshold: float = 3.0,
    repetitions: int = 3,
) -> ScalingResult:
    """S-COST: a whole run (build a layered DAG, start, claim and complete everything) at n and
    factor*n tasks in one process; the per-task cost ratio must stay under ``threshold``.

    A correct O(V+E) scheduler (heap claims, O(log V)) measures about 1.0-1.5; one that scans
    every task per completion measures about ``factor`` (8). The large run gives up once the
    ratio is surely above the threshold plus one.
    """
    def workload(size: int, deadline: float | None = None) -> None:
        done = oracles.drain(factory, size, deadline)
        if done != size:
            raise contract.SchedcheckInternalError(
                f"the scaling workload completed {done} of {size} tasks; the suite's "
                "counterexample explains why (run the suite first)")

    return measure_scaling(workload, n=n, factor=factor, threshold=threshold,
                           repetitions=repetitions, what="task", give_up_ratio=threshold + 1.0)
