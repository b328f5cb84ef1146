"""The check pipeline: suite -> scaling clause -> concurrent rounds -> real-thread stress.

``schedcheck check`` asks for graded levels (``levels=True``): the suite stage is then the core
and the contract level, each keep-going (``schedcheck.levels``), and the scaling clause runs,
guarded, whenever the contract level was graded.

:func:`check` is the one way a target is checked: ``schedcheck check``, ``schedcheck verify``,
the pytest API and the zoo all call it, choosing the stages they need. Each stage after the
first runs only while no counterexample has been found, and folds its verdicts into the same
:class:`~schedcheck.harness.result.RunResult`:

* the differential suite of the system (``System.run_suite``; unshrunk, or with the caller's
  Hypothesis settings, through ``System.make_machine``);
* the scaling clause (``*-COST``, ``System.check_scaling``), folded by :func:`fold_scaling`;
* the concurrent rounds (``*-LIN``): the suite with the round mixins mixed in, then the race
  hunt of ``schedcheck.concurrency.hunt`` (:func:`run_rounds`);
* real-thread stress (``schedcheck.concurrency.run_stress``), folded by :func:`fold_result`.

Everything system specific comes from the registry (``schedcheck.systems``). Also here:
:func:`probe_construct` (a target that cannot even be built is "unusable", exit status 2, not
a counterexample) and :class:`LogCapture` (the log records of a run, kept out of the report).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Any

from schedcheck import profiles, stages
from schedcheck.harness.result import BROKEN, HELD, UNKNOWN, RunResult
from schedcheck.levels import cost_not_claimed
from schedcheck.progress import time_note, timed
from schedcheck.report.cost import record_cost
from schedcheck.systems import System, get
from schedcheck.targets.preflight import LogCapture, core_only, probe_construct
from schedcheck.targets.preflight import system_of as _system

__all__ = [
    "LogCapture",
    "Progress",
    "ProgressFactory",
    "Unusable",
    "check",
    "core_only",
    "fold_result",
    "fold_scaling",
    "probe_construct",
    "run_rounds",
    "run_scaling",
    "run_search",
    "run_stress",
    "run_suite",
]

#: ``progress(examples, steps, failures)``, called while a suite runs.
Progress = Callable[[int, int, int], None]
#: ``bar(label, total)`` -> a context manager giving a Progress (or None) for one stage.
ProgressFactory = Callable[[str, int | None], AbstractContextManager[Progress | None]]


class Unusable(Exception):
    """The suite found the target unusable (it cannot be built with legal arguments)."""


@contextmanager
def _no_bar(label: str, total: int | None) -> Iterator[Progress | None]:
    yield None


def check(
    system: System | str,
    factory: Callable[..., Any],
    *,
    target_name: str = "",
    examples: int | None = None,
    seed: int | None = None,
    profile: str | None = None,
    settings: Any = None,
    shrink: bool = True,
    tolerance: bool = False,
    suite: bool = True,
    cost: bool = True,
    rounds: bool = False,
    stress: bool = False,
    cost_n: int | None = None,
    total: int | None = None,
    bar: ProgressFactory | None = None,
    status: Callable[[str], None] | None = None,
    budget: float | None = None,
    search: bool = False,
    levels: bool = False,
    level: str | None = None,
    step_seconds: float | None = None,
    first: bool = False,
    hunt_first: bool = True,
    stress_seconds: float | None = None,
) -> RunResult:
    """Run the chosen stages against ``factory`` and return one RunResult.

    ``suite``, ``cost``, ``rounds``, ``stress`` choose the stages; a stage after the first
    runs only if no counterexample was found before it. ``settings`` (a
    ``hypothesis.settings``) replaces the profile's for the suite; ``shrink=False`` reports the
    first failing run as found; ``tolerance`` (wheels) checks the invariants only; ``cost_n``
    is the small size of the scaling run (default: the suite's). ``bar(label, total)`` shows
    progress per stage (``total`` defaults to ``examples``); ``status`` gets one line as each
    stage starts. ``search=True`` (or a ``budget`` without ``levels``) runs the suite as one
    budgeted search (``schedcheck.harness.search``: phases until the budget or ``examples`` is
    spent, then the counterexample minimised). ``levels=True`` (and no ``search``) grades the
    core level and the contract level (only the one named by ``level``), each keep-going
    (``schedcheck.levels``), each round a budgeted search sharing ``budget`` when one is
    given; the scaling clause then runs whenever the contract level is graded and supported.
    ``first=True`` stops at the first counterexample, every stage included; ``hunt_first``
    (the default): the concurrent rounds start with the race hunt, whose counterexample is a
    replayable round that is reduced (see :func:`run_rounds`); ``stress_seconds`` bounds
    real-thread stress (default: its own deadline). Raises
    :class:`Unusable` when the target cannot be built, ValueError for an unknown system or a
    tolerance mode the system lacks.
    """
    entry = _system(system)
    spent: list[tuple[str, float, float | None]] = []
    show = timed(bar or _no_bar, spent)
    say = status or (lambda line: None)
    label = f"{entry.name} {target_name}".rstrip()
    shown_total = total if total is not None else examples
    result: RunResult | None = None

    def found() -> bool:
        return result is not None and result.counterexample is not None

    if suite and levels and not search:
        from schedcheck.harness import guard
        from schedcheck.harness.wheel.fixtures import TargetUnusable
        from schedcheck.levels import grade

        with show(label, shown_total) as progress, guard.step_limit(step_seconds):
            try:
                result = grade(entry, factory, level=level, target_name=target_name,
                               examples=examples, seed=seed, profile=profile, shrink=shrink,
                               tolerance=tolerance, progress=progress, status=say,
                               budget=budget, first=first)
            except TargetUnusable as exc:
                raise Unusable(str(exc)) from exc
    elif suite:
        say(f"suite: {label}")
        with show(label, shown_total) as progress:
            if search or budget is not None:
                result = run_search(entry, factory, target_name=target_name, budget=budget,
                                    examples=examples, seed=seed, profile=profile,
                                    minimize=shrink, tolerance=tolerance, progress=progress)
            else:
                result = run_suite(entry, factory, target_name=target_name, examples=examples,
                                   seed=seed, profile=profile, settings=settings,
                                   shrink=shrink, tolerance=tolerance, progress=progress)
    # graded levels keep going: the scaling clause runs whenever the contract level ran
    graded = not (suite and levels) or _contract_graded(result)
    keep = suite and levels and not first  # the stages after a counterexample run too
    if cost and graded and getattr(factory, "runs_elsewhere", False):
        if result is None:
            result = RunResult.fresh(entry.name, target_name or _name(factory))
        for cid in (entry.cost_clause, *entry.cost_also):  # steps are counted in this process
            result.unsupported_clause(cid, "counting the target's steps (it runs in another "
                                           "process)")
            result.stats[cid].why = ("not supported: the target runs in another process, so its "
                                     "cost (Python steps counted here) cannot be measured")
    elif cost and result is not None and cost_not_claimed(entry, factory, result):
        say(f"scaling clause {entry.cost_clause}: not claimed (declared cost='linear')")
    elif cost and (graded or stages.core_graded(result)) and (not found() or keep):
        say(f"scaling clause {entry.cost_clause}: {label}, a timed run at n and 8n")
        if result is None:
            result = RunResult.fresh(entry.name, target_name or _name(factory))
        kwargs = {"n": cost_n} if cost_n is not None else {}
        with show(f"{label} (scaling clause)", None):
            if suite and levels:  # a target caught misbehaving: its timed run is guarded
                _guarded_scaling(entry, factory, result, kwargs)
            else:
                fold_scaling(result, run_scaling(entry, factory, **kwargs))
    # graded levels keep going: the rounds run after a counterexample too, its clause set aside
    inexact = tolerance or stages.declares_inexact(entry, factory)
    if rounds and graded and inexact and result is not None:
        stages.rounds_unsupported(entry, result, declared=stages.declares_inexact(entry, factory))
    elif rounds and graded and result is not None and stages.misbehaved(entry, result):
        pass  # supervised: a method that hung or crashed would hang a round's thread
    elif rounds and graded and (not found() or keep):
        say(f"concurrent rounds: {label}")
        aside = frozenset(cx.clause for cx in result.all_counterexamples()) if result else None
        with show(f"{label} (concurrent rounds)", shown_total) as progress:
            rounds_result = run_rounds(entry, factory, target_name=target_name,
                                       examples=examples, seed=seed, progress=progress,
                                       shrink=shrink, set_aside=aside or frozenset(),
                                       hunt_first=hunt_first)
        if result is None:
            result = rounds_result
        else:
            fold_result(result, rounds_result)
    if stress and not found() and graded and not stages.misbehaved(entry, result or
                                                              RunResult.fresh(entry.name, "")):
        say(f"real-thread stress: {label}")
        if result is None:
            result = RunResult.fresh(entry.name, target_name or _name(factory))
        with show(f"{label} (real threads)", None) as progress:
            fold_result(result, run_stress(entry, factory, seed=seed, progress=progress,
                                           tolerance=inexact, seconds=stress_seconds))
    if result is None:
        result = RunResult.fresh(entry.name, target_name or _name(factory))
    result.follow_seed_rules()
    if suite and levels:
        from schedcheck.levels import explain_stages

        explain_stages(entry, result, cost=cost, rounds=rounds)
        if spent:
            result.notes.append(time_note(spent, budget, label))
    return result


#: The longest the guarded scaling run may take (it judges cost as a ratio, never seconds).
SCALING_SECONDS = 30.0


def _guarded_scaling(entry: System, factory: Callable[..., Any], result: RunResult,
                     kwargs: dict[str, Any]) -> None:
    """The scaling clause under the guards; a hang or a crash leaves it not reached, saying
    so (the suite judges misbehaviour; a timed run only measures cost)."""
    from schedcheck.harness import guard, supervisor

    supervisor.send("checkpoint", result)  # supervised: what a scaling run that dies leaves
    if guard.methods_aside():  # the timed run would call them with nothing to stop it
        result.stats[entry.cost_clause].why = (
            "not reached: the timed run was not made, since "
            f"{', '.join(m + '()' for m in sorted(guard.methods_aside()))} misbehaved")
        return
    why = ""
    with guard.guarded(seconds=SCALING_SECONDS):
        try:
            scaling = guard.call_limited(run_scaling, entry, factory, **kwargs)
        except guard.StepTimeout:
            why = f"not reached: the timed run did not finish within {SCALING_SECONDS:g} s"
        except Exception as exc:
            why = f"not reached: the timed run raised {type(exc).__name__}: {exc}"
    if why:
        result.stats[entry.cost_clause].why = why
    else:
        fold_scaling(result, scaling)


def _contract_graded(result: RunResult | None) -> bool:
    from schedcheck.levels import contract_graded

    return result is not None and contract_graded(result)


def _name(factory: Callable[..., Any]) -> str:
    return str(getattr(factory, "__qualname__", "") or "")


# ---------------------------------------------------------------------------------------------
# The stages
# ---------------------------------------------------------------------------------------------


def run_suite(
    system: System | str,
    factory: Callable[..., Any],
    *,
    target_name: str = "",
    examples: int | None = None,
    seed: int | None = None,
    profile: str | None = None,
    progress: Progress | None = None,
    settings: Any = None,
    shrink: bool = True,
    extra_bases: tuple[type, ...] = (),
    tolerance: bool = False,
    set_aside: frozenset[str] = frozenset(),
) -> RunResult:
    """The differential suite of ``system`` against ``factory``; ``set_aside`` names clauses
    whose oracle is set aside (they broke already: keep-going grading).

    ``tolerance=True`` (wheels only) checks the invariants -- never early, never twice, never
    after a cancel, never lost -- instead of the contract's exact due ticks, and lists in
    ``RunResult.notes`` the timers that fired at another tick than the contract's.

    ``shrink=False`` reports the first failing run as found, unshrunk: a kill costs a fraction
    of a second instead of the tens of seconds Hypothesis may spend shrinking a 30-step
    program (the zoo's default; ``check --no-shrink``). The counterexample is then longer,
    but still replays. ``settings`` (a ``hypothesis.settings``, the pytest API's) replaces the
    profile's settings and the seed."""
    from schedcheck.harness.wheel.fixtures import TargetUnusable

    entry = _system(system)
    options = _suite_options(entry, tolerance)
    try:
        if shrink and settings is None:
            return entry.run_suite(factory, target_name=target_name, examples=examples,
                                   seed=seed, profile=profile, progress=progress,
                                   extra_bases=extra_bases, set_aside=set_aside, **options)
        return _run_machine(entry, factory, target_name=target_name, examples=examples,
                            seed=seed, profile=profile, progress=progress, settings=settings,
                            extra_bases=extra_bases, options=options, set_aside=set_aside)
    except TargetUnusable as exc:
        raise Unusable(str(exc)) from exc


def _suite_options(entry: System, tolerance: bool) -> dict[str, Any]:
    if tolerance and not entry.has_tolerance:
        raise ValueError(f"tolerance mode does not exist for the {entry.name} (it has no due "
                         "ticks); leave it out")
    return {"tolerance": True} if tolerance else {}


def run_search(
    system: System | str,
    factory: Callable[..., Any],
    *,
    target_name: str = "",
    budget: float | None = None,
    examples: int | None = None,
    seed: int | None = None,
    profile: str | None = None,
    minimize: bool = True,
    tolerance: bool = False,
    progress: Progress | None = None,
) -> RunResult:
    """The suite as the budgeted search (``schedcheck.harness.search``): until ``budget``
    seconds or ``examples`` examples are spent (the search's default budget when neither is
    given) or a counterexample, minimised by delta debugging unless ``minimize=False``."""
    from schedcheck.harness.search import DEFAULT_BUDGET, search
    from schedcheck.harness.wheel.fixtures import TargetUnusable

    entry = _system(system)
    options = _suite_options(entry, tolerance)
    if budget is None and examples is None:
        budget = DEFAULT_BUDGET
    result = RunResult.fresh(entry.name, target_name or _name(factory))
    try:
        machine = entry.make_machine(factory, result=result, **options)
        return search(machine, result, budget=budget, examples=examples, seed=seed,
                      profile=profile, progress=progress, minimize=minimize)
    except TargetUnusable as exc:
        raise Unusable(str(exc)) from exc


def _run_machine(
    entry: System,
    factory: Callable[..., Any],
    *,
    target_name: str,
    examples: int | None,
    seed: int | None,
    profile: str | None,
    progress: Progress | None,
    settings: Any,
    extra_bases: tuple[type, ...],
    options: dict[str, Any],
    set_aside: frozenset[str] = frozenset(),
) -> RunResult:
    """The suite's machine run with the caller's settings, or unshrunk."""
    import hypothesis

    from schedcheck.harness import common

    result = RunResult.fresh(entry.name, target_name or _name(factory))
    machine = entry.make_machine(factory, result=result, extra_bases=extra_bases, **options)
    machine.set_aside = frozenset(set_aside)
    if settings is not None:
        from schedcheck.harness.minimize import run_reduced

        return run_reduced(machine, result, settings)
    base = profiles.suite_settings(examples=examples, profile=profile)
    # no shrink, and no explain (which replays the failure many more times to explain it)
    skipped = (hypothesis.Phase.shrink, hypothesis.Phase.explain)
    unshrunk = hypothesis.settings(base, phases=[p for p in base.phases if p not in skipped])
    run = common.run_suite(machine, result, unshrunk, progress, seed=seed)
    if run.counterexample is not None:
        run.notes.append("not shrunk: the counterexample is the first failing run found, "
                         "not the smallest")
    return run


def run_scaling(system: System | str, factory: Callable[..., Any], **kwargs: Any) -> Any:
    """The suite's ScalingResult (``.ok``, ``.verdict``, ``.text``, ``.ratio``); ``kwargs``
    (``n=`` ...) go to the system's scaling check."""
    return _system(system).check_scaling(factory, **kwargs)


def fold_scaling(result: RunResult, scaling: Any) -> None:
    """Record a ScalingResult as the cost clause of ``result`` (and its text as a note)."""
    entry = get(result.system)
    cid = entry.cost_clause
    stat = result.stats[cid]
    stat.exercised += 1
    verdict = getattr(scaling, "verdict", None)
    if verdict == BROKEN or (verdict != HELD and not getattr(scaling, "ok", False)):
        stat.broken = True
    for also in entry.cost_also:
        shared = result.stats[also]
        shared.exercised += 1
        shared.broken = shared.broken or stat.broken
    text = getattr(scaling, "text", "")
    if text:
        result.notes.append(f"{cid}: {text}")
    record_cost(result, cid, scaling, also=entry.cost_also)


def run_rounds(
    system: System | str,
    factory: Callable[..., Any],
    *,
    target_name: str = "",
    examples: int | None = None,
    seed: int | None = None,
    progress: Progress | None = None,
    shrink: bool = True,
    set_aside: frozenset[str] = frozenset(),
    hunt_first: bool = True,
) -> RunResult:
    """The concurrent rounds: the suite with the concurrent-round rule mixed in (the system's
    ``round_mixins``), then -- unless that already found a counterexample -- the standalone
    race hunt (``schedcheck.concurrency.hunt``), which also races resubmits and carries sets
    of model states. The linearizability clause and the interleaving point carry the
    verdict; ``set_aside``: the clauses already broken, whose oracles the rounds set aside.
    ``hunt_first`` (the default, as in ``check``) runs the hunt first and the suite only if the
    hunt found nothing: the same two searches, the quick one first (a kill then costs
    seconds, not the suite's whole example budget)."""
    entry = _system(system)
    if hunt_first:
        hunted = _hunt(entry, factory, target_name=target_name, examples=examples, seed=seed,
                       shrink=shrink, progress=progress)
        if hunted.counterexample is not None:
            return hunted
        result = run_suite(entry, factory, target_name=target_name, examples=examples,
                           seed=seed, progress=_offset(progress, hunted.examples),
                           shrink=shrink, extra_bases=entry.round_mixins(),
                           set_aside=set_aside)
        fold_result(result, hunted)
        return result
    result = run_suite(entry, factory, target_name=target_name, examples=examples, seed=seed,
                       progress=progress, shrink=shrink, extra_bases=entry.round_mixins(),
                       set_aside=set_aside)
    if result.counterexample is not None:
        return result
    fold_result(result, _hunt(entry, factory, target_name=target_name, examples=examples,
                              seed=seed, shrink=shrink, progress=progress,
                              offset=result.examples))
    return result


def _offset(progress: Progress | None, offset: int) -> Progress | None:
    if progress is None:
        return None
    forward = progress

    def shifted(done: int, steps: int, failures: int) -> None:
        forward(offset + done, steps, failures)

    return shifted


def _hunt(entry: System, factory: Callable[..., Any], *, target_name: str,
          examples: int | None, seed: int | None, shrink: bool = True,
          progress: Progress | None = None, offset: int = 0) -> RunResult:
    """The race hunt as a RunResult; ``progress`` counts on from ``offset`` examples (the
    suite's, run before it)."""
    from schedcheck.concurrency.hunt import hunt
    from schedcheck.concurrency.reduce import DEFAULT_SECONDS

    result = RunResult.fresh(entry.name, target_name or _name(factory))
    started = time.perf_counter()

    def hunting(done: int, steps: int, failures: int) -> None:
        if progress is not None:
            progress(offset + done, steps, failures)

    found = hunt(entry.name, factory, settings=profiles.suite_settings(examples=examples),
                 seed=seed, shrink=shrink, progress=hunting, reduce_seconds=DEFAULT_SECONDS)
    result.seconds = time.perf_counter() - started
    result.seed = seed
    result.examples = found.examples
    result.exercise(entry.lin_clause, max(1, result.examples))
    result.exercise(entry.interleaving_clause, max(1, result.examples))
    cx = found.counterexample() if found.found else None
    if cx is not None:
        cx.seed = seed
        result.counterexample = cx
        result.break_(cx.clause)
        result.notes.append(
            f"{cx.clause}: replayed {found.replays}/{found.replays_tried} times with the same "
            "trace" + (" (NONDETERMINISTIC: the controller does not see every switch)"
                       if found.nondeterministic else ""))
        if found.reduction is not None:
            result.notes.append(f"{cx.clause}: {found.reduction.text()}")
    return result


def run_stress(
    system: System | str,
    factory: Callable[..., Any],
    *,
    seed: int | None = None,
    progress: Progress | None = None,
    tolerance: bool = False,
    seconds: float | None = None,
) -> Any:
    """Real-thread stress (``schedcheck.concurrency.run_stress``): a StressResult.
    ``tolerance``: the order in which one ``advance`` fires its timers is not compared;
    ``seconds`` bounds it (checked between rounds; default: its own deadline)."""
    from schedcheck.concurrency.stress import run_stress as stress

    name = _system(system).name
    if seconds is None:
        return stress(name, factory, seed=seed, progress=progress, any_order=tolerance)
    return stress(name, factory, seed=seed, progress=progress, any_order=tolerance,
                  deadline_seconds=seconds)


def fold_result(into: RunResult, other: Any) -> None:
    """Merge another run (the concurrent rounds, or a stress result) into ``into``: counts,
    clause stats, notes, and its counterexample when ``into`` has none."""
    if not isinstance(other, RunResult):
        lin = get(into.system).lin_clause
        ok = getattr(other, "ok", None)
        into.stats[lin].exercised += 1
        if ok is False:
            into.stats[lin].broken = True
        elif getattr(other, "verdict", None) == UNKNOWN:  # a search out of budget: no pass
            into.stats[lin].verdict_override = UNKNOWN
        cx = getattr(other, "counterexample", None)
        if callable(cx):
            cx = cx()
        if into.counterexample is None and cx is not None:
            into.counterexample = cx
            into.stats[getattr(cx, "clause", lin)].broken = True
        text = getattr(other, "text", None) or getattr(other, "summary", None) or repr(other)
        into.notes.append(f"{lin} (real threads): {text() if callable(text) else text}")
        return
    into.examples += other.examples
    into.steps += other.steps
    into.seconds += other.seconds
    for cid, stat in other.stats.items():
        mine = into.stats.get(cid)
        if mine is None:
            into.stats[cid] = stat
            continue
        mine.exercised += stat.exercised
        mine.broken = mine.broken or stat.broken
        mine.supported = mine.supported and stat.supported
        if stat.verdict_override and not mine.verdict_override:
            mine.verdict_override = stat.verdict_override
    into.notes += other.notes
    for part in other.unsupported:
        if part not in into.unsupported:
            into.unsupported.append(part)
    cx = other.counterexample
    if cx is not None:
        if into.counterexamples and cx not in into.counterexamples:  # keep-going grading
            into.counterexamples.append(cx)
            into.stats[cx.clause].why = (f"counterexample {len(into.counterexamples)} of "
                                         f"{len(into.counterexamples)} (folder {cx.clause}/)")
        if into.counterexample is None:
            into.counterexample = cx
