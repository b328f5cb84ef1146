"""Hunting races with Hypothesis: a small sequential setup, then one concurrent round.

A :class:`~schedcheck.concurrency.cases.Case` is everything one hunt example is made of (its
``repr`` is a program: ``run_case(factory, Case(...))`` replays the exact interleaving).
:func:`hunt` draws cases with Hypothesis (the schedule is data, so shrinking removes
preemptions, operations and threads), keeps the minimal failing one, and replays it
``replays`` times: if the runnable sets of a replay differ from the first run, the report says
so ("nondeterminism the controller does not see: a harness or adapter problem"), instead of
blaming the target.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import hypothesis
from hypothesis import given
from hypothesis import strategies as st

from schedcheck.concurrency.cases import Case, SetupDiverged, build, fails_serially, run_case
from schedcheck.concurrency.explore import explore
from schedcheck.concurrency.operations import SCHEDULER, WHEEL, DrawContext, table
from schedcheck.concurrency.reduce import DEFAULT_SECONDS, Reduction, reduce_bounded
from schedcheck.concurrency.rounds import (
    Program,
    RoundOutcome,
    describe_round,
    explain,
    round_snapshot,
)
from schedcheck.harness.result import Counterexample, Step

# Case, run_case and build live in ``cases``; they stay importable from here, where printed
# replay programs import them.
__all__ = ["Case", "HuntResult", "SetupDiverged", "build", "hunt", "reduce_case", "run_case",
           "schedules"]

TASK_IDS = ("a", "b", "c", "d")
#: Largest k (a lane's own switch point) a drawn preemption names.
MAX_POINT = 24


# --------------------------------------------------------------------------------------------
# Strategies
# --------------------------------------------------------------------------------------------


def schedules(
    lanes: int, max_preemptions: int = 4, points: Sequence[int] | None = None,
    min_preemptions: int = 0,
) -> st.SearchStrategy[list[int]]:
    """Flat (lane, k, skip) triples (see ``baton``); shrinks toward fewer, earlier ones.

    ``points[i]`` (when known from a run without preemptions) bounds lane i's ``k``: drawing
    only switch points that exist makes a useful preemption far likelier.
    """
    if points is None:
        triple = st.tuples(st.integers(0, lanes - 1), st.integers(0, MAX_POINT),
                           st.integers(0, 2))
    else:
        bounds = list(points)
        triple = st.integers(0, lanes - 1).flatmap(
            lambda lane: st.tuples(st.just(lane), st.integers(0, max(bounds[lane], 1) + 1),
                                   st.integers(0, 2))
        )
    return st.lists(triple, min_size=min_preemptions, max_size=max_preemptions).map(
        lambda ts: [x for t in ts for x in t]
    )


#: Dependency shapes the races live in (listed simplest first; "random" draws any DAG).
SHAPES: dict[str, list[tuple[str, tuple[str, ...]]]] = {
    "diamond": [("a", ()), ("b", ()), ("c", ("a", "b"))],
    "independent": [("a", ()), ("b", ()), ("c", ())],
    "fan-out": [("a", ()), ("b", ("a",)), ("c", ("a",))],
    "chain": [("a", ()), ("b", ("a",)), ("c", ("b",))],
}


@SCHEDULER.provides("cases")
@st.composite
def scheduler_cases(draw: st.DrawFn, max_threads: int = 3, max_ops: int = 3,
                    stage: str = "") -> Case:
    shape = draw(st.sampled_from([*SHAPES, "random"]))
    setup: list[tuple[Any, ...]] = []
    if shape == "random":
        n = draw(st.integers(2, len(TASK_IDS)))
        ids = TASK_IDS[:n]
        for i, task in enumerate(ids):
            deps = draw(st.lists(st.sampled_from(ids[:i]), unique=True, max_size=2)) if i else []
            setup.append(("submit", task, tuple(deps)))
    else:
        setup.extend(("submit", task, deps) for task, deps in SHAPES[shape])
        ids = tuple(task for task, _ in SHAPES[shape])
    setup.append(("start",))
    mc = draw(st.sampled_from([2, 1, 3]))
    # The workers have claimed what they could (a random shape may claim less, or nothing).
    claims = draw(st.sampled_from([None, 0, 1])) if shape == "random" else None
    if claims != 0:
        setup.append(("ready", claims))
    op = SCHEDULER.lane_ops(DrawContext(ids=ids), stage=stage)
    threads = draw(st.lists(st.lists(op, min_size=1, max_size=max_ops), min_size=2,
                            max_size=max_threads))
    lanes = len(threads)
    return Case("scheduler", (mc,), {}, setup, threads, [f"t{i}" for i in range(lanes)])


@WHEEL.provides("cases")
@st.composite
def wheel_cases(draw: st.DrawFn, max_threads: int = 3, max_ops: int = 3,
                stage: str = "") -> Case:
    tick = draw(st.sampled_from([1, 2]))
    size = draw(st.integers(1, 4))
    options: dict[str, Any] = {}
    max_pending = draw(st.sampled_from([None, 1, 2, 3]))
    if max_pending is not None:
        options["max_pending"] = max_pending
    span = 2 * tick * size + 2
    setup: list[tuple[Any, ...]] = []
    n = draw(st.integers(0, min(2, max_pending if max_pending is not None else 2)))
    for i in range(n):
        setup.append(("schedule", f"h{i}", draw(st.integers(0, span))))
    names = [f"h{i}" for i in range(n)]
    op = WHEEL.lane_ops(DrawContext(names=names, span=span), stage=stage)
    threads: list[Program] = draw(st.lists(st.lists(op, min_size=1, max_size=max_ops),
                                           min_size=1, max_size=max_threads - 1))
    tick_lane = draw(st.booleans()) or len(threads) == 1
    lane_names = [f"t{i}" for i in range(len(threads))]
    if tick_lane:
        dts = sorted(draw(st.lists(st.integers(0, span), min_size=1, max_size=min(2, max_ops))))
        # The tick lane's position is drawn: the lane that runs first matters.
        at = draw(st.integers(0, len(threads)))
        threads.insert(at, [("advance", dt) for dt in dts])
        lane_names.insert(at, "tick")
    return Case("wheel", (tick, size), options, setup, threads, lane_names)


# --------------------------------------------------------------------------------------------
# The hunt
# --------------------------------------------------------------------------------------------


@dataclass
class HuntResult:
    system: str
    examples: int
    case: Case | None = None  #: the minimal failing case, None if nothing was found
    outcome: RoundOutcome | None = None
    replays: int = 0  #: of ``replays_tried``, how many reproduced the same verdict and trace
    replays_tried: int = 0
    nondeterministic: bool = False
    #: the bounded reduction of the first failing case (``hunt(shrink=False)``)
    reduction: Reduction | None = None

    @property
    def found(self) -> bool:
        return self.case is not None

    def program(self, factory_expr: str = "factory") -> str:
        if self.case is None:
            return ""
        return (
            "from schedcheck.concurrency.hunt import Case, run_case\n"
            f"case = {self.case!r}\n"
            f"outcome = run_case({factory_expr}, case)\n"
            "assert outcome.ok, outcome.message\n"
            + describe_round(self.case.threads, self.case.schedule, self.case.names)
        )

    def counterexample(self, factory_expr: str = "factory") -> Counterexample | None:
        if self.case is None or self.outcome is None:
            return None
        return to_counterexample(self.case, self.outcome, factory_expr)


def to_counterexample(case: Case, outcome: RoundOutcome,
                      factory_expr: str = "factory") -> Counterexample:
    clause = table(case.system).lin_clause
    steps: list[Step] = []
    for call in case.setup:
        steps.append(Step(len(steps), f"# setup: {call!r}", f"setup call {call!r}"))
    for op in sorted(outcome.history.operations, key=lambda o: o.invoked):
        steps.append(Step(len(steps), f"# [{op.lane}] {op.call!r}", op.describe(),
                          actual=repr(op.response), thread=op.lane, clause=clause))
    failed = outcome.lin.failed
    replay = f"outcome = run_case({factory_expr}, {case!r})"
    steps.append(Step(len(steps), replay, "replay the round under the same schedule",
                      diverged=True, clause=clause, check="outcome.ok",
                      expected="linearizable", actual=outcome.verdict))
    built = ", ".join([*map(repr, case.args), *(f"{k}={v!r}" for k, v in case.options.items())])
    snapshot: dict[str, Any] = {"threads": case.threads, "names": case.names,
                                **round_snapshot(outcome),
                                # what the steps text shows as the constructor
                                "constructor": f"target = {factory_expr}({built}) (run_case "
                                               "builds it with the controller's locks)"}
    if outcome.run.deadlock:
        snapshot["wait_for"] = outcome.run.wait_for
        snapshot["cycle"] = outcome.run.cycle
    if failed is not None:
        snapshot["not_linearizable"] = failed.describe()
        snapshot["longest_linearization"] = [o.describe() for o in outcome.lin.longest]
    return Counterexample(
        system=case.system,
        clause=clause,
        message=explain(outcome),
        steps=steps,
        setup=f"from schedcheck.concurrency.hunt import Case, run_case  # {factory_expr}",
        schedule=list(case.schedule),
        snapshot=snapshot,
    )


#: Small scope first: (threads, operations per thread) of each stage of a hunt.
STAGES: tuple[tuple[int, int], ...] = ((2, 2), (3, 3))


def hunt(
    system: str,
    factory: Callable[..., Any],
    *,
    settings: hypothesis.settings | None = None,
    stages: Sequence[tuple[int, int]] = STAGES,
    replays: int = 10,
    seed: int | None = None,
    sweep_bound: int = 1,
    sweep_runs: int = 30,
    extra_stages: bool = True,
    shrink: bool = True,
    reduce_seconds: float | None = None,
    progress: Callable[[int, int, int], None] | None = None,
) -> HuntResult:
    """Search for a concurrent round the target fails; shrink it; replay it ``replays`` times.

    Each of ``stages`` runs the profile's examples, small scope first (2 threads x 2
    operations, then 3 x 3): a race that a small round shows is found -- and reported -- in
    its small form, and only a target that survives the small stage meets the larger rounds.
    Then (``extra_stages``) one 2 x 3 stage per named stage of the system's operations table
    (the scheduler's "shutdown": lanes that may also call ``close()``).

    ``shrink=False`` skips Hypothesis's shrinking and the re-exploring greedy pass: the first
    failing case is reduced on its recorded schedule by ``reduce.reduce_bounded`` within
    ``reduce_seconds`` (default ``reduce.DEFAULT_SECONDS``; ``HuntResult.reduction`` says
    how far it got). With ``shrink=True`` the greedy pass stops after ``reduce_seconds`` when
    one is given (by default after its count of runs). ``progress(examples, steps,
    failures)`` is called after each example and each reduction candidate.
    """
    table(system)  # ValueError naming the systems for an unknown one
    base = settings or hypothesis.settings()
    per_stage = base.max_examples
    result = HuntResult(system, 0)
    plan: list[tuple[int, int, str]] = [(threads, ops, "") for threads, ops in stages]
    if extra_stages:
        plan.extend((2, 3, name) for name in table(system).stages())
    if not shrink:
        skipped = (hypothesis.Phase.shrink, hypothesis.Phase.explain)
        base = hypothesis.settings(base, phases=[p for p in base.phases if p not in skipped])
    done = 0

    def counted(examples: int, failures: int) -> None:
        if progress is not None:
            progress(done + examples, 0, failures)

    for threads, ops, stage in plan:
        found = _hunt_stage(system, factory, hypothesis.settings(base, max_examples=per_stage),
                            threads, ops, seed, sweep_bound, sweep_runs, stage, counted)
        result.examples += found[0]
        done = result.examples
        if found[1] is not None:
            result.case, result.outcome = found[1]
            break
    if result.case is not None:
        def reducing(tried: int, steps: int) -> None:
            if progress is not None:
                progress(done, steps, 1)

        assert result.outcome is not None  # set with the case
        if shrink:
            result.case, result.outcome = reduce_case(factory, result.case, result.outcome,
                                                      seconds=reduce_seconds)
        else:
            result.reduction = reduce_bounded(
                factory, result.case, result.outcome,
                seconds=DEFAULT_SECONDS if reduce_seconds is None else reduce_seconds,
                progress=reducing)
            result.case, result.outcome = result.reduction.case, result.reduction.outcome
        result.replays_tried = replays
        first = result.outcome.run.signature()
        for _ in range(replays):
            again = run_case(factory, result.case)
            if again.run.signature() == first and again.verdict == result.outcome.verdict:
                result.replays += 1
            elif again.run.signature() != first:
                result.nondeterministic = True
    return result


def _accepted_options(system: str, factory: Callable[..., Any]) -> frozenset[str] | None:
    """The constructor options a wheel target accepts (probed), or None: no filtering."""
    if system != "wheel":
        return None
    from schedcheck.harness.wheel.fixtures import TargetUnusable, probe

    try:
        return probe(factory).args
    except TargetUnusable:
        return None  # the round reports what building it does


def _hunt_stage(
    system: str,
    factory: Callable[..., Any],
    settings: hypothesis.settings,
    max_threads: int,
    max_ops: int,
    seed: int | None,
    sweep_bound: int,
    sweep_runs: int,
    stage: str = "",
    counted: Callable[[int, int], None] | None = None,
) -> tuple[int, tuple[Case, RoundOutcome] | None]:
    strategy = table(system).part("cases")(max_threads, max_ops, stage)
    accepted = _accepted_options(system, factory)
    if accepted is not None:  # options the target does not take are never drawn (probed)
        strategy = strategy.map(lambda case: replace(case, options={
            k: v for k, v in case.options.items() if k in accepted}))
    failures: list[tuple[Case, RoundOutcome]] = []
    examples = 0

    @given(st.data())
    def probe(data: st.DataObject) -> None:
        nonlocal examples
        examples += 1
        case = data.draw(strategy, label="round")
        try:
            outcome = run_case(factory, case)  # first without preemptions: count the points
        except SetupDiverged:
            hypothesis.assume(False)
            return
        if outcome.ok:
            points = [lane.k for lane in outcome.run.lanes]
            # The empty schedule just ran: draw at least one preemption.
            case.schedule = data.draw(
                schedules(len(case.threads), points=points, min_preemptions=1),
                label="schedule",
            )
            outcome = run_case(factory, case)
        if outcome.ok and sweep_bound > 0:
            # Hypothesis picks the programs; every schedule within sweep_bound is tried on them.
            sweep = explore(lambda sch: _judge(factory, replace(case, schedule=sch)),
                            bound=sweep_bound, max_runs=sweep_runs)
            if sweep.failing is not None:
                case.schedule = sweep.failing
                outcome = sweep.failure
        if not outcome.ok and fails_serially(factory, case, outcome):
            hypothesis.assume(False)  # a sequential mistake, not a race
            return
        if not outcome.ok:
            failures.append((case, outcome))
        if counted is not None:
            counted(examples, len(failures))
        if not outcome.ok:
            raise AssertionError(explain(outcome))

    wrapped = hypothesis.settings(settings, database=None, report_multiple_bugs=False,
                                  suppress_health_check=list(hypothesis.HealthCheck))(probe)
    if seed is not None:
        wrapped = hypothesis.seed(seed)(wrapped)
    try:
        wrapped()
    except AssertionError:
        return examples, failures[-1]
    return examples, None


def _judge(factory: Callable[..., Any], case: Case) -> tuple[Any, bool, RoundOutcome]:
    outcome = run_case(factory, case)
    return outcome.run, outcome.ok, outcome


def _without_lane(case: Case, lane: int) -> Case:
    triples = [case.schedule[i:i + 3] for i in range(0, len(case.schedule) - 2, 3)]
    kept = [[t[0] - (t[0] > lane), t[1], t[2]] for t in triples if t[0] != lane]
    return replace(case, threads=case.threads[:lane] + case.threads[lane + 1:],
                   names=case.names[:lane] + case.names[lane + 1:],
                   schedule=[x for t in kept for x in t])


def _candidates(case: Case) -> list[Case]:
    out: list[Case] = []
    if len(case.threads) > 1:
        out.extend(_without_lane(case, i) for i in range(len(case.threads)))
    if len(case.threads) > 2:
        # Merge lane j into lane i (its operations run after i's): fewer threads, same calls.
        for j in range(len(case.threads)):
            for i in range(len(case.threads)):
                if i != j and (case.names[j] == "tick") == (case.names[i] == "tick"):
                    merged = [list(p) for p in case.threads]
                    merged[i] = merged[i] + merged[j]
                    out.append(_without_lane(replace(case, threads=merged), j))
    for i, ops in enumerate(case.threads):
        if len(ops) > 1:
            for j in range(len(ops)):
                threads = [list(p) for p in case.threads]
                del threads[i][j]
                out.append(replace(case, threads=threads))
    for i in range(0, len(case.schedule) - 2, 3):
        out.append(replace(case, schedule=case.schedule[:i] + case.schedule[i + 3:]))
    return out


def reduce_case(factory: Callable[..., Any], case: Case, outcome: RoundOutcome | None,
                *, budget: int = 2_000,
                seconds: float | None = None) -> tuple[Case, RoundOutcome]:
    """Greedy deletion after Hypothesis's shrink: drop lanes, operations and preemptions
    while the round still fails (Hypothesis can stop at a local minimum when a deletion
    shifts later draws). Stops after ``budget`` runs or ``seconds``, keeping the smallest
    failing case so far."""
    assert outcome is not None
    tried = 0
    improved = True
    deadline = None if seconds is None else time.monotonic() + seconds
    while improved and tried < budget:
        improved = False
        for candidate in _candidates(case):
            if deadline is not None and time.monotonic() >= deadline:
                return case, outcome
            tried += 1
            try:
                again = run_case(factory, candidate)
                if again.ok:  # the same program may fail under another small schedule
                    def judge(sch: list[int], c: Case = candidate) -> tuple[Any, bool, Any]:
                        return _judge(factory, replace(c, schedule=sch))

                    sweep = explore(judge, bound=2, max_runs=80)
                    tried += sweep.schedules
                    if sweep.failing is not None:
                        candidate = replace(candidate, schedule=sweep.failing)
                        again = sweep.failure
            except SetupDiverged:
                continue
            if not again.ok and not fails_serially(factory, candidate, again):
                case, outcome = candidate, again
                improved = True
                break
    return case, outcome
