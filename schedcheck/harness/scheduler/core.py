"""The scheduler's core level: what every correct dependency scheduler holds, whatever its design.

The contract suite (``scheduler.suite``) compares every reply with the reference model; a real
scheduler with no generations, no ``fail`` or a claim order of its own stops there at its
first design difference. This machine checks only the core, on the target's own answers and an
independent record of what the harness reported to it:

* S-CLAIM-DEPS -- a task is never claimed before every dependency succeeded, nor after a
  dependency failed or was cancelled (directly or through a chain);
* S-CLAIM-ONCE -- never over the concurrency limit (nor over ``ready(limit)``); the same run
  (task, generation) is never claimed twice;
* S-ORACLE-CYCLE -- ``start()`` reports a cycle iff networkx finds one (each example submits
  a whole graph, sometimes with a back edge, in id order or shuffled -- a cycle's outsider
  may come first -- and starts it); a reported ``.cycle`` (when the error carries one) is a
  simple cycle ``[a, ..., a]`` of the submitted graph, each element a dependency of the next
  (specs/scheduler.md rule 2), in any rotation;
* S4 -- completing a claimed task is accepted; duplicate and late callbacks change nothing
  (their replies, refusals included, are not compared); and nothing is lost: once nothing
  runs, ``ready()`` hands out every task whose dependencies all succeeded;
* S5 / S6 -- a failure or a cancel never releases dependents (when the target has them).

What a target lacks (``SchedulerCapabilities``: declared by an adapter, else the contract's
full set) is "not supported" for the clause that needs it. Every call goes through
``observe`` (guarded: a hang is a verdict). Graphs are submitted before ``start()``; a target
with generations then meets resubmits, retries and stale reports of older runs
(``scheduler.core_generations``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, ClassVar

import hypothesis
import networkx as nx
from hypothesis import strategies as st
from hypothesis.stateful import initialize, precondition, rule

from schedcheck.harness.common import (
    Observed,
    Progress,
    RunContext,
    SuiteMachine,
    call_code,
    check_expr,
    observe,
)
from schedcheck.harness.minimize import run_reduced
from schedcheck.harness.outcomes import CRASHED
from schedcheck.harness.program import GenerationOf, Op, atomic, generation_of
from schedcheck.harness.result import CONTRACT_ONLY, RunResult, Step
from schedcheck.harness.scheduler.core_generations import GenerationRules
from schedcheck.harness.scheduler.core_graphs import (
    DEEP,
    DEEP_WAVES,
    IDS,
    graphs,
    show_graph,
    submission_order,
)
from schedcheck.harness.scheduler.fixtures import noop
from schedcheck.harness.scheduler.oracles import cycle_problem
from schedcheck.harness.search import explore
from schedcheck.profiles import unshrunk_settings
from schedcheck.targets import adapt
from schedcheck.targets.adapters import SchedulerCapabilities, capabilities_of

__all__ = ["CORE_CLAUSES", "SchedulerCoreMachine", "make_core_machine", "run_core_suite"]

#: the names a step's result is bound to in a counterexample (``claim_0``, ``reply_3`` ...)
_RESULT_NAMES = {"ready": "claim", "submit": "submitted", "start": "started"}
#: The clauses this level checks; every other scheduler clause belongs to the contract level.
CORE_CLAUSES = ("S-CLAIM-DEPS", "S-CLAIM-ONCE", "S-ORACLE-CYCLE", "S4", "S5", "S6")

class SchedulerCoreMachine(GenerationRules, SuiteMachine):
    system: ClassVar[str] = "scheduler"
    factory: ClassVar[Callable[[int], Any]]
    caps: ClassVar[SchedulerCapabilities] = SchedulerCapabilities()
    #: clauses whose operation the target refused as unsupported (NotImplementedError)
    refused: ClassVar[set[str]] = set()

    def __init__(self) -> None:
        super().__init__()
        self.target: Any = None
        self.mc = 1
        self.deps: dict[Any, tuple[Any, ...]] = {}
        self.started = False
        self.cyclic = False
        self.state: dict[Any, str] = {}  # waiting | running | succeeded | dead
        self.claims: list[tuple[Any, int]] = []
        self.killed: dict[Any, str] = {}  # task -> "S5" (failed) or "S6" (cancelled)
        self.late: set[Any] = set()  # tasks a complete() reached before any claim
        self.again: set[Any] = set()  # succeeded tasks a complete() reached again
        self.seen: set[tuple[Any, int]] = set()
        #: task -> the generations it was claimed under before a resubmit (reports of those
        #: are stale: they must change nothing)
        self.old_generations: dict[Any, set[int]] = {}
        self.stale_sent: set[Any] = set()  # tasks a stale complete() was sent for
        self.reported: set[tuple[Any, int]] = set()  # runs a complete()/fail() was sent for

    # ------------------------------------------------------------------ helpers

    def can_continue(self, clause: str) -> bool:
        """A claim over the limit or before its dependencies is still recorded as running:
        with that oracle set aside, every other check stays sound."""
        return clause in ("S-CLAIM-ONCE", "S-CLAIM-DEPS", "S4", "S5", "S6")

    def _call(self, words: str, method: str, *args: Any, norm: Any = None,
              norm_name: str | None = None) -> tuple[Step, Observed]:
        name = self.trace.fresh_name(_RESULT_NAMES.get(method, "reply"))
        step = self.trace.add(call_code(method, *args, assign=name), words)
        got = observe(getattr(self.target, method), *args, norm=norm)
        step.actual = repr(got)
        # what the target did, as a replay can test it again (this level has no model reply)
        step.observed = check_expr(got, name, norm_name if norm else None)
        return step, got

    def _doomed(self, tid: Any) -> bool:
        """A dependency (or one of its own, transitively) failed or was cancelled."""
        return self._killer(tid) is not None

    def _killer(self, tid: Any, seen: frozenset[Any] = frozenset()) -> str | None:
        """S5 or S6: the rule of the failure or cancel upstream of ``tid``, if any (a task is
        in ``killed`` exactly while it is "dead"). A dependency that succeeded ends the walk:
        what lies behind it no longer matters (a design that accepts a task done without its
        claim can make a blocked task succeed)."""
        for dep in self.deps.get(tid, ()):
            if self.state.get(dep) == "succeeded":
                continue
            if dep in self.killed:
                return self.killed[dep]
            found = None if dep in seen else self._killer(dep, seen | {tid})
            if found:
                return found
        return None

    def _claimable(self, tid: Any) -> bool:
        return self.state[tid] == "waiting" and all(
            self.state.get(d) == "succeeded" for d in self.deps[tid])

    def _has_cycle(self) -> bool:
        graph = nx.DiGraph()
        graph.add_nodes_from(self.deps)
        graph.add_edges_from((d, t) for t, ds in self.deps.items() for d in ds)
        return not nx.is_directed_acyclic_graph(graph)

    # ------------------------------------------------------------------ the atomic program

    def freeze_op(self, name: str, args: tuple[Any, ...],
                  kwargs: dict[str, Any]) -> tuple[tuple[Any, ...], dict[str, Any]]:
        """A callback's generation is recorded relative to the task's latest claim (see
        ``program.GenerationOf``): a replay with fewer claims before it still reports it."""
        args, kwargs = super().freeze_op(name, args, kwargs)
        if name == "_callback":
            op, tid, gen = args
            args = (op, tid, generation_of(gen, self._claimed_generation(tid)))
        return args, kwargs

    def thaw_op(self, op: Op) -> tuple[tuple[Any, ...], dict[str, Any]] | None:
        thawed = super().thaw_op(op)
        if thawed is None or op.name != "_callback" or not isinstance(op.args[2], GenerationOf):
            return thawed
        (name, tid, gen), kwargs = thawed
        current = self._claimed_generation(tid)
        if current is None:
            return None  # never claimed in this replay: nothing to report
        return (name, tid, current + gen.offset), kwargs

    def _claimed_generation(self, tid: Any) -> int | None:
        """The generation of ``tid``'s latest claim (None: not claimed)."""
        return next((g for t, g in reversed(self.claims) if t == tid), None)

    def made_names(self) -> list[str]:
        """The ids claimed so far: a ``ready()`` step *made* its claims, so the minimisation
        counts it as a step of the tasks it claimed."""
        return [tid for tid, _ in self.claims]

    @atomic
    def _build(self, mc: int) -> None:
        self.mc = mc
        self.trace.setup = f"target = factory({mc})"
        built = observe(type(self).factory, mc)
        if not built.ok:
            self.diverge("S4", f"the target cannot be built as factory({mc}): "
                               f"{built.describe()}")
            hypothesis.reject()  # set aside: nothing to go on with
        self.target = built.value

    @atomic
    def _submit(self, tid: str, deps: tuple[str, ...]) -> None:
        if tid in self.deps or self.started:
            return
        self.deps[tid] = tuple(deps)
        self.state[tid] = "waiting"
        step, got = self._call(f"submit {tid!r} depending on {list(deps)}", "submit", tid,
                               tuple(deps), noop)
        if not got.ok and tid in deps:  # a self-dependency refused at once: fine
            del self.deps[tid], self.state[tid]
        elif not got.ok:
            self.diverge("S4", f"submit({tid!r}, {tuple(deps)!r}) before start() was "
                               f"refused: {got.describe()}", step=step)

    @atomic
    def start(self) -> None:
        if self.started or self.target is None:
            return
        for tid in [d for ds in list(self.deps.values()) for d in ds if d not in self.deps]:
            if tid not in self.deps:  # an unknown dependency: submitted as a task of its own
                self._submit(tid, ())
        self.started = True
        self.cyclic = self._has_cycle()
        step, got = self._call("start the graph", "start")
        if not self.caps.detects_cycles:
            if not got.ok:
                self.diverge("S4", f"start() {got.describe()} on a target that declares no "
                                   "cycle detection", step=step)
            return
        self.exercise("S-ORACLE-CYCLE")
        how = None if got.ok else self.caps.cycle_reported(got.exc)
        if how == "by message":
            said = " ".join(str(got.exc).split())[:100]
            note = (f"cycle errors recognised by message: {got.error}({said}) (declare "
                    "SchedulerCapabilities(cycle_error=...) to name the class)")
            if not any(n.startswith("cycle errors recognised by message")
                       for n in self.result.notes):
                self.result.notes.append(note)
        said_cycle = how is not None
        if said_cycle != self.cyclic:
            what = "finds a cycle" if self.cyclic else "finds no cycle"
            self.diverge("S-ORACLE-CYCLE", f"start() {got.describe()}, but networkx {what} "
                         f"in {show_graph(self.deps)}", step=step)
        elif not got.ok and not said_cycle:  # an acyclic graph refused: it must start
            step.expected = "returns (no cycle)"
            self.diverge("S-ORACLE-CYCLE", f"start() {got.describe()} on a graph of "
                         f"{len(self.deps):,} tasks where networkx finds no cycle",
                         step=step)
        cycle: Any = getattr(got.exc, "cycle", None) if said_cycle else None
        problem = None if cycle is None else cycle_problem(cycle, self.deps)
        if problem is not None:  # the path it names: [a, ..., a], each a dependency of the next
            step.expected = "raises CycleError with a real cycle"
            shown = list(cycle) if isinstance(cycle, (list, tuple)) else [cycle]
            self.diverge("S-ORACLE-CYCLE", f"start() {got.describe()}: {problem}", step=step,
                         snapshot={"cycle": [repr(x) for x in shown]})

    def _refuses(self, clause: str, what: str, got: Observed) -> bool:
        """The target refuses the operation as unsupported (NotImplementedError): the clause
        is "not supported", nothing changed, and the operation is not called again."""
        if got.error != "NotImplementedError":
            return False
        type(self).refused.add(clause)
        self.result.unsupported_clause(clause, f"{what} (it raises NotImplementedError)")
        return True

    def _live(self) -> bool:
        return self.started and not self.cyclic

    @atomic
    def _ready(self, limit: int | None) -> None:
        if not self._live():
            return
        args = () if limit is None else (limit,)
        step, got = self._call(f"claim ready tasks (limit {limit})", "ready", *args,
                               norm=adapt.norm_claims, norm_name="norm_claims")
        if not got.ok:
            self.diverge("S4", f"ready({limit}) after start() {got.describe()}", step=step)
            hypothesis.reject()  # set aside: no claims to go on with
        running = sum(1 for s in self.state.values() if s == "running")
        claims: list[tuple[Any, int]] = got.value
        self.exercise("S-CLAIM-ONCE", "S-CLAIM-DEPS")
        if running + len(claims) > self.mc or (limit is not None and len(claims) > limit):
            self.diverge("S-CLAIM-ONCE", f"ready({limit}) handed out {claims} with {running} "
                         f"already running: over max_concurrency={self.mc}", step=step)
        for tid, gen in claims:
            key = (tid, gen if self.caps.generations else 0)
            if key in self.seen:
                self.diverge("S-CLAIM-ONCE", f"{tid!r} (generation {gen}) was claimed twice",
                             step=step)
            if tid not in self.state or not self._claimable(tid) or self._doomed(tid):
                self._claimed_too_soon(tid, step)
            self.seen.add(key)
            self.claims.append((tid, gen))
            self.state[tid] = "running"
        if not claims and running == 0 and limit != 0:
            # nothing runs and ready() hands out nothing: every task that can run is lost
            lost = [t for t in self.deps if self._claimable(t) and not self._doomed(t)]
            self.exercise("S4")
            if lost:
                self.diverge("S4", f"nothing is running and every dependency of {lost} "
                             "succeeded, yet ready() hands out nothing: they are lost",
                             step=step)

    def _claimed_too_soon(self, tid: Any, step: Step) -> None:
        why = ("was never submitted" if tid not in self.state else
               f"is {self.state[tid]}" if self.state[tid] != "waiting" else
               "has a dependency that failed or was cancelled" if self._doomed(tid)
               else "has a dependency that has not succeeded: "
               + repr([d for d in self.deps[tid] if self.state.get(d) != "succeeded"]))
        # released after a failure or a cancel: that rule's breach (S5/S6)
        clause = self._killer(tid) if tid in self.state else None
        deps = self.deps.get(tid, ()) if tid in self.state else ()
        late = [d for d in deps if d in self.late and self.state.get(d) != "succeeded"]
        again = [d for d in deps if d in self.again]
        stale = [d for d in deps if d in self.stale_sent and self.state.get(d) != "succeeded"]
        if clause is None and (late or again or stale):
            clause = "S4"  # a callback that must change nothing released a dependent
            why += " after " + " and ".join(
                ([f"a duplicate complete() of {again}"] if again else [])
                + ([f"a complete() of {late} before it was claimed"] if late else [])
                + ([f"a stale complete() of an older generation of {stale}"] if stale
                   else []))
        self.diverge(clause or "S-CLAIM-DEPS", f"ready() claimed {tid!r}, which {why}",
                     step=step)

    @atomic
    def _callback(self, op: str, tid: Any, gen: int) -> None:
        """``complete``/``fail`` of ``(tid, gen)``: of a running claim (it must be accepted),
        again (a duplicate: its reply is not compared), or of a task never claimed (a late
        callback: it must change nothing)."""
        state = self.state.get(tid)
        if state is None:
            return
        if self.caps.reports_once and (tid, gen) in self.reported:
            return  # its driver reports each run once: no duplicate, no late report of it
        if gen in self.old_generations.get(tid, ()):
            self._stale(op, tid, gen)  # a run before a resubmit: it must change nothing
            return
        if state != "waiting":
            self.reported.add((tid, gen))
        if state == "waiting":
            # claims_only: its own driver never reports a task it did not hand out
            if op != "complete" or not self._live() or self.caps.claims_only:
                return
            self.late.add(tid)
            step, got = self._call(f"complete {tid!r}, which was never claimed", "complete",
                                   tid, gen)
            self.exercise("S4")
            self._returned("S4", step, got, "a complete() of a task never claimed")
            if got.ok and self.caps.accepts_unclaimed_done:  # by design: it counts as done
                self.state[tid] = "succeeded"
            return
        clause = "S4" if op == "complete" else "S5"
        if clause in self.refused:
            return
        first = state == "running"
        if not first and op == "complete" and state == "succeeded":
            self.again.add(tid)
        step, got = self._call(f"{op} {tid!r}{'' if first else ' again'}", op, tid, gen)
        if first and op == "fail" and self._refuses("S5", "fail()", got):
            return
        self.exercise(clause)
        if not first:
            self._returned(clause, step, got, f"a duplicate {op}()")
            if (got.ok and op == "complete" and self.caps.done_after_failed
                    and self.killed.get(tid) == "S5" and state == "dead"):
                self.state[tid] = "succeeded"  # by design: the success replaces the failure
                del self.killed[tid]
            return
        if not got.ok:
            self.diverge(clause, f"{op}({tid!r}, {gen}) of a running claim was refused: "
                         f"{got.describe()}", step=step)
        if op == "complete":
            self.state[tid] = "succeeded"
        else:
            self.state[tid], self.killed[tid] = "dead", "S5"

    def _returned(self, clause: str, step: Step, got: Observed, what: str) -> None:
        """A callback whose reply is not compared (any answer will do) must still return: a
        hang or a crash out of memory there is that rule's breach."""
        if got.error and got.error.startswith(CRASHED):
            step.expected = "returns (any reply)"
            self.diverge(clause, f"{what} must change nothing and return, but it "
                         f"{got.describe()}", step=step)

    @atomic
    def _cancel(self, tid: Any) -> None:
        if not self._live() or self.state.get(tid) != "waiting" or "S6" in self.refused:
            return
        step, got = self._call(f"cancel {tid!r} before it was claimed", "cancel", tid)
        if self._refuses("S6", "cancel()", got):
            return
        if not got.ok:
            self.diverge("S6", f"cancel({tid!r}) of an unclaimed task was refused: "
                         f"{got.describe()}", step=step)
        self.state[tid], self.killed[tid] = "dead", "S6"
        self.exercise("S6")

    # ------------------------------------------------------------------ rules

    @initialize(mc=st.sampled_from((1, 2, 3, 1000)), graph=graphs())
    def build(self, mc: int, graph: dict[str, tuple[str, ...]]) -> None:
        """Build the target, submit a whole graph and start it: every example reaches the
        claims (a graph built rule by rule is often never started)."""
        self._build(mc)
        for tid in submission_order(graph):
            self._submit(tid, tuple(graph[tid]))
        self.start()

    @precondition(lambda self: self.started and not self.cyclic)
    @rule(limit=st.sampled_from((None, 1, 2)))
    def ready(self, limit: int | None) -> None:
        self._ready(limit)

    @precondition(lambda self: bool(self.claims))
    @rule(i=st.integers(0, 50), times=st.sampled_from((1, 1, 2)))
    def complete(self, i: int, times: int) -> None:
        tid, gen = self.claims[i % len(self.claims)]
        for _ in range(times):
            self._callback("complete", tid, gen)

    @rule(tid=st.sampled_from(IDS))
    def late_complete(self, tid: str) -> None:
        """A callback for a task that was never claimed: it must change nothing. (Always
        enabled: after a cycle it is the one rule left, and does nothing.)"""
        if self._live() and self.state.get(tid) == "waiting":
            self._callback("complete", tid, 0)

    def _running(self) -> list[tuple[Any, int]]:
        return [(t, g) for t, g in self.claims if self.state[t] == "running"]

    def _fails(self) -> bool:
        """Whether a run may be reported failed: the target has fail() and never refused it."""
        return bool(self.caps.fail) and "S5" not in self.refused

    @precondition(lambda self: self.caps.fail and bool(self._running()))
    @rule(i=st.integers(0, 50), times=st.sampled_from((1, 1, 2)))
    def fail(self, i: int, times: int) -> None:
        """A running claim fails -- sometimes reported twice, as a retried worker does (the
        duplicate must change nothing: a slot freed twice lets ready() claim over the
        limit)."""
        running = self._running()
        tid, gen = running[i % len(running)]
        for _ in range(times):
            self._callback("fail", tid, gen)

    @precondition(lambda self: self.caps.cancel and self._live())
    @rule(i=st.integers(0, 50))
    def cancel(self, i: int) -> None:
        """Cancel a task no worker holds yet (a queue in front may have taken it already)."""
        waiting = [t for t, s in self.state.items() if s == "waiting"]
        if waiting:
            self._cancel(waiting[i % len(waiting)])

    @precondition(lambda self: self._live())
    @rule(fail_every=st.sampled_from((0, 0, 2, 3)))
    def drain(self, fail_every: int) -> None:
        """Claim and complete until nothing runs: nothing that can run may be lost (the
        last ``ready()`` checks it). With ``fail_every`` k > 0 (and a ``fail``), every k-th
        running claim fails instead: its dependents must then never be handed out; with
        k == 2 each failure is reported twice, as a retried worker does (the duplicate must
        change nothing: a slot freed twice lets the next ``ready()`` claim over the limit)."""
        done = 0
        # a deep chain is drained a few waves deep only: all of it is thousands of calls,
        # each of which a target may pay with a scan of every task (the chain is there for
        # the walks of submit and start)
        waves = len(self.deps) + 2 if len(self.deps) < DEEP else DEEP_WAVES
        for _ in range(waves):
            for tid, gen in list(self.claims):
                if self.state[tid] != "running":
                    continue
                done += 1
                failing = self._fails() and fail_every and done % fail_every == 0
                for _again in range(2 if failing and fail_every == 2 else 1):
                    self._callback("fail" if failing else "complete", tid, gen)
            before = len(self.claims)
            self._ready(None)
            if len(self.claims) == before:
                break


def make_core_machine(factory: Callable[..., Any], *,
                      result: RunResult | None = None) -> type[SchedulerCoreMachine]:
    caps = capabilities_of(factory)
    if not isinstance(caps, SchedulerCapabilities):
        caps = SchedulerCapabilities()
    # an operation the target does not have is one it lacks, declared or not
    lacking = _lacking(factory, ("fail", "cancel"))
    caps = dataclasses.replace(caps, fail=caps.fail and "fail" not in lacking,
                               cancel=caps.cancel and "cancel" not in lacking)
    if result is None:
        result = RunResult.fresh("scheduler", getattr(factory, "__qualname__", "target"))
    grade_core(result, caps)
    namespace = {"factory": staticmethod(factory), "caps": caps, "_ctx": RunContext(result),
                 "refused": set()}
    machine: type[SchedulerCoreMachine] = type(
        "SchedulerCore", (SchedulerCoreMachine,), namespace)
    return machine


def _lacking(factory: Callable[..., Any], methods: tuple[str, ...]) -> set[str]:
    """The ``methods`` a ``factory(1)`` lacks (none if it cannot be built: an example says)."""
    try:
        obj = factory(1)
    except Exception:
        return set()
    return {m for m in methods if not callable(getattr(obj, m, None))}


def grade_core(result: RunResult, caps: SchedulerCapabilities) -> None:
    """Mark what the core level leaves to the contract level, and what the target lacks."""
    for cid, stat in result.stats.items():
        if cid not in CORE_CLAUSES:
            stat.why = CONTRACT_ONLY
    if not caps.fail:
        result.unsupported_clause("S5", "fail()")
    if not caps.cancel:
        result.unsupported_clause("S6", "cancel()")
    if not caps.detects_cycles:
        result.unsupported_clause("S-ORACLE-CYCLE", "cycle detection (declared)")
    if caps.claims_only:
        result.unsupported_clause("S4", "reports for tasks it never handed out (declared: "
                                        "its own driver never sends them)")
    if caps.reports_once:
        result.unsupported_clause("S4", "duplicate reports (declared: its driver reports "
                                        "each task once, so none is sent)")
    if caps.accepts_unclaimed_done:
        result.unsupported_clause("S4", "refusing a success for a task nobody ran (declared: "
                                        "it counts as done)")
    if caps.done_after_failed:
        result.unsupported_clause("S5", "keeping a failure final (declared: a later success "
                                        "replaces it)")
    for part in caps.missing():
        if part not in result.unsupported:
            result.unsupported.append(part)


def run_core_suite(
    factory: Callable[..., Any],
    *,
    target_name: str = "",
    examples: int | None = None,
    seed: int | None = None,
    profile: str | None = None,
    progress: Progress | None = None,
    shrink: bool = True,
    set_aside: frozenset[str] = frozenset(),
    budget: float | None = None,
    phased: bool = False,
) -> RunResult:
    """The core level against ``factory(max_concurrency)``; see the module docstring.
    ``shrink=False`` keeps the first failing run; ``set_aside`` names clauses whose oracle is
    set aside (keep-going grading); a ``budget`` (seconds), or ``examples`` with ``phased``,
    runs the search through its phases."""
    result = RunResult.fresh("scheduler", target_name or getattr(factory, "__qualname__", ""))
    machine = make_core_machine(factory, result=result)
    machine.set_aside = frozenset(set_aside)
    if explore(machine, result, budget=budget, examples=examples, seed=seed, profile=profile,
               progress=progress, shrink=shrink, phased=phased) is None:
        run_reduced(machine, result, unshrunk_settings(examples, profile, False), progress,
                    seed=seed, reduce=shrink)
    result.notes.append("core level: the invariants every correct scheduler holds; "
                        "the contract's exact replies were not compared")
    return result
