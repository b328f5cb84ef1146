"""Glue between the toolkit and the suites: which function runs what, and "not in this build".

The suites, the concurrent rounds and the z3 lemmas are separate modules; the toolkit imports
them lazily through this module, so that a build without one of them (or a target the toolkit
cannot run) is reported as *unavailable* -- exit status 2 from the command line -- and never
as a pass. :class:`Unavailable` carries the sentence to print.

* :func:`run_suite_for` -- ``run_scheduler_suite`` / ``run_wheel_suite``;
* :func:`run_scaling_for` -- ``check_scheduler_scaling`` / ``check_wheel_scaling`` (the
  ``*-COST`` clause), folded into a ``RunResult`` by :func:`fold_scaling`;
* :func:`run_threads_for` -- ``schedcheck.concurrency.run_stress`` (the ``*-LIN`` clause),
  folded in by :func:`fold_result`;
* :func:`probe_construct` -- build the target once with ordinary arguments, so that a target
  that cannot even be constructed is "unusable" (exit 2), not a counterexample.
"""

from __future__ import annotations

import importlib
import logging
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import hypothesis

from schedcheck.harness.result import BROKEN, HELD, UNKNOWN, RunResult

__all__ = [
    "LogCapture",
    "Unavailable",
    "Unusable",
    "concurrency_bases",
    "fold_result",
    "fold_scaling",
    "probe_construct",
    "run_exhaustive_scenarios",
    "run_rounds_for",
    "run_scaling_for",
    "run_suite_for",
    "run_threads_for",
]

Progress = Callable[[int, int, int], None]


class Unavailable(Exception):
    """A part of schedcheck this run needs is not in this build."""


class Unusable(Exception):
    """The suite found the target unusable (it cannot be built with legal arguments)."""


def _function(module: str, name: str, what: str, *also: str) -> Callable[..., Any]:
    """``module.name`` (or the first of the ``also`` modules that has it), else Unavailable."""
    for candidate in (module, *also):
        try:
            mod = importlib.import_module(candidate)
        except ModuleNotFoundError as exc:
            if exc.name and candidate.startswith(exc.name):
                continue
            raise
        fn: Callable[..., Any] | None = getattr(mod, name, None)
        if fn is not None and callable(fn):
            return fn
    raise Unavailable(f"{what} is not available in this build ({module}.{name} is missing)")


def run_suite_for(
    system: str,
    factory: Callable[..., Any],
    *,
    target_name: str = "",
    examples: int | None = None,
    seed: int | None = None,
    profile: str | None = None,
    progress: Progress | None = None,
    shrink: bool = True,
    extra_bases: tuple[type, ...] = (),
    tolerance: bool = False,
) -> RunResult:
    """The differential suite of ``system`` against ``factory``.

    ``tolerance=True`` (wheels only) checks the invariants -- never early, never twice, never
    after a cancel, never lost -- instead of the contract's exact due ticks, and lists in
    ``RunResult.notes`` the timers that fired at another tick than the contract's.

    ``shrink=False`` reports the first failing run as found, unshrunk: a kill costs a fraction
    of a second instead of the tens of seconds Hypothesis may spend shrinking a 30-step
    program (the zoo's default; ``check --no-shrink``). The counterexample is then longer,
    but still replays."""
    if tolerance and system != "wheel":
        raise ValueError("tolerance mode exists for wheels only (the scheduler has no due ticks)")
    options: dict[str, Any] = {"tolerance": True} if tolerance else {}
    if not shrink:
        return _run_unshrunk(system, factory, target_name=target_name, examples=examples,
                             seed=seed, profile=profile, progress=progress,
                             extra_bases=extra_bases, options=options)
    if system == "scheduler":
        fn = _function("schedcheck.harness.scheduler_suite", "run_scheduler_suite",
                       "the scheduler suite")
    elif system == "wheel":
        fn = _function("schedcheck.harness.wheel_suite", "run_wheel_suite", "the wheel suite")
    else:
        raise ValueError(f"unknown system {system!r}; expected 'scheduler' or 'wheel'")
    try:
        result = fn(factory, target_name=target_name, examples=examples, seed=seed,
                    profile=profile, progress=progress, extra_bases=extra_bases, **options)
    except ValueError as exc:
        if type(exc).__name__ == "TargetUnusable":
            raise Unusable(str(exc)) from exc
        raise
    if not isinstance(result, RunResult):
        raise TypeError(f"{fn.__qualname__} returned {type(result).__name__}, not RunResult")
    return result


def _run_unshrunk(
    system: str,
    factory: Callable[..., Any],
    *,
    target_name: str,
    examples: int | None,
    seed: int | None,
    profile: str | None,
    progress: Progress | None,
    extra_bases: tuple[type, ...] = (),
    options: dict[str, Any] | None = None,
) -> RunResult:
    if system not in ("scheduler", "wheel"):
        raise ValueError(f"unknown system {system!r}; expected 'scheduler' or 'wheel'")
    common = importlib.import_module("schedcheck.harness.common")
    make = _function(f"schedcheck.harness.{system}_suite", f"make_{system}_machine",
                     f"the {system} suite")
    result = RunResult.fresh(system, target_name or getattr(factory, "__qualname__", ""))
    try:
        machine = make(factory, result=result, extra_bases=extra_bases, **(options or {}))
    except ValueError as exc:
        if type(exc).__name__ == "TargetUnusable":
            raise Unusable(str(exc)) from exc
        raise
    base = common.suite_settings(examples=examples, profile=profile)
    # no shrink, and no explain (which replays the failure many more times to explain it)
    skipped = (hypothesis.Phase.shrink, hypothesis.Phase.explain)
    settings = hypothesis.settings(base, phases=[p for p in base.phases if p not in skipped])
    run: RunResult = common.run_suite(machine, result, settings, progress, seed=seed)
    if run.counterexample is not None:
        run.notes.append("not shrunk: the counterexample is the first failing run found, "
                         "not the smallest")
    return run


def run_scaling_for(system: str, factory: Callable[..., Any], **kwargs: Any) -> Any:
    """The suite's ScalingResult (``.ok``, ``.verdict``, ``.text``, ``.ratio``); ``kwargs``
    (``n=`` ...) go to ``check_*_scaling``."""
    if system == "scheduler":
        fn = _function("schedcheck.harness.scheduler_suite", "check_scheduler_scaling",
                       "the scheduler's scaling check")
    else:
        fn = _function("schedcheck.harness.wheel_suite", "check_wheel_scaling",
                       "the wheel's scaling check")
    return fn(factory, **kwargs)


def fold_scaling(result: RunResult, scaling: Any) -> None:
    """Record a ScalingResult as the ``*-COST`` clause of ``result`` (and its text as a note)."""
    cid = "S-COST" if result.system == "scheduler" else "W-COST"
    stat = result.stats[cid]
    stat.exercised += 1
    verdict = getattr(scaling, "verdict", None)
    if verdict == BROKEN or (verdict != HELD and not getattr(scaling, "ok", False)):
        stat.broken = True
    if result.system == "scheduler":
        # The seed's "keeps indegree and reverse adjacency instead of rescanning every task"
        # is observable only as cost: the same verdict.
        t2 = result.stats["S-T2"]
        t2.exercised += 1
        t2.broken = t2.broken or stat.broken
    text = getattr(scaling, "text", "")
    if text:
        result.notes.append(f"{cid}: {text}")


def concurrency_bases(system: str, factory: Callable[..., Any]) -> tuple[type, ...]:
    """The concurrent-round mixins for the suite's machine (``schedcheck.concurrency``)."""
    fn = _function("schedcheck.concurrency", "concurrency_bases", "the concurrent rounds",
                   "schedcheck.concurrency.rounds")
    return tuple(fn(system, factory))


def run_rounds_for(
    system: str,
    factory: Callable[..., Any],
    *,
    target_name: str = "",
    examples: int | None = None,
    seed: int | None = None,
    progress: Progress | None = None,
    shrink: bool = True,
) -> RunResult:
    """The concurrent rounds: the suite with the concurrent-round rule mixed in
    (``concurrency_bases``, when it gives mixins for ``system``), then -- unless that already
    found a counterexample -- the standalone race hunt (``schedcheck.concurrency.hunt``),
    which also races resubmits and carries sets of model states. ``S-LIN``/``W-LIN`` and the
    interleaving points (S-T6/W-T4) carry the verdict."""
    try:
        bases = concurrency_bases(system, factory)
    except Unavailable:
        bases = ()
    result: RunResult | None = None
    if bases:
        result = run_suite_for(system, factory, target_name=target_name, examples=examples,
                               seed=seed, progress=progress, shrink=shrink, extra_bases=bases)
        if result.counterexample is not None:
            return result
    try:
        hunted = _hunt(system, factory, target_name=target_name, examples=examples, seed=seed)
    except Unavailable:
        if result is None:
            raise
        return result
    if result is None:
        return hunted
    fold_result(result, hunted)
    return result


def _hunt(system: str, factory: Callable[..., Any], *, target_name: str,
          examples: int | None, seed: int | None) -> RunResult:
    hunt = _function("schedcheck.concurrency.hunt", "hunt", "the concurrent rounds")
    common = importlib.import_module("schedcheck.harness.common")
    result = RunResult.fresh(system, target_name or getattr(factory, "__qualname__", ""))
    started = time.perf_counter()
    found = hunt(system, factory, settings=common.suite_settings(examples=examples), seed=seed)
    result.seconds = time.perf_counter() - started
    result.seed = seed
    result.examples = int(getattr(found, "examples", 0))
    lin, point = ("S-LIN", "S-T6") if system == "scheduler" else ("W-LIN", "W-T4")
    result.exercise(lin, max(1, result.examples))
    result.exercise(point, max(1, result.examples))
    cx = found.counterexample() if getattr(found, "found", False) else None
    if cx is not None:
        cx.seed = seed
        result.counterexample = cx
        result.break_(cx.clause)
        result.notes.append(
            f"{cx.clause}: replayed {found.replays}/{found.replays_tried} times with the same "
            "trace" + (" (NONDETERMINISTIC: the controller does not see every switch)"
                       if found.nondeterministic else ""))
    return result


def run_threads_for(
    system: str,
    factory: Callable[..., Any],
    *,
    target_name: str = "",
    seed: int | None = None,
    progress: Progress | None = None,
) -> Any:
    """Real-thread stress (``schedcheck.concurrency.run_stress``)."""
    fn = _function("schedcheck.concurrency", "run_stress", "real-thread stress",
                   "schedcheck.concurrency.stress")
    return fn(system, factory, seed=seed, progress=progress)


def fold_result(into: RunResult, other: Any) -> None:
    """Merge another run (e.g. the concurrent rounds) into ``into``: counts, clause stats,
    notes, and its counterexample when ``into`` has none."""
    if not isinstance(other, RunResult):
        ok = getattr(other, "ok", None)
        lin = "S-LIN" if into.system == "scheduler" else "W-LIN"
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
    if into.counterexample is None and other.counterexample is not None:
        into.counterexample = other.counterexample


class LogCapture(logging.Handler):
    """Collects the log records of a run (targets and the model log rejected executor
    submissions on purpose) instead of letting them interleave with the report on stderr.
    Use as a context manager; ``lines`` holds the formatted records."""

    def __init__(self, limit: int = 2000) -> None:
        super().__init__(logging.WARNING)
        self.lines: list[str] = []
        self.count = 0
        self.limit = limit
        self.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))

    def emit(self, record: logging.LogRecord) -> None:
        self.count += 1
        if len(self.lines) < self.limit:
            self.lines.append(self.format(record))

    def __enter__(self) -> LogCapture:
        logging.getLogger().addHandler(self)
        return self

    def __exit__(self, *exc: object) -> None:
        logging.getLogger().removeHandler(self)

    def write(self, path: Path) -> bool:
        """Write the records to ``path`` if there were any; True iff written."""
        if not self.count:
            return False
        more = self.count - len(self.lines)
        tail = [f"... and {more} more records"] if more > 0 else []
        path.write_text("\n".join([*self.lines, *tail]) + "\n", encoding="utf-8")
        return True


def run_exhaustive_scenarios() -> list[Any]:
    """The catalogue of tiny concurrent scenarios, every schedule up to 2 preemptions."""
    fn = _function("schedcheck.concurrency", "run_exhaustive", "the exhaustive scenarios",
                   "schedcheck.concurrency.explore")
    return list(fn())


def probe_construct(system: str, factory: Callable[..., Any]) -> str | None:
    """``None`` if ``factory`` builds with ordinary arguments, else why not (one sentence)."""
    args: tuple[int, ...] = (2,) if system == "scheduler" else (1, 8)
    shown = "cls(2)" if system == "scheduler" else "cls(1, 8)"
    try:
        obj = factory(*args)
    except Exception as exc:
        return (f"calling it as {shown} raised {type(exc).__name__}: {exc} -- a {system} "
                f"target must be callable as "
                + ("cls(max_concurrency)" if system == "scheduler"
                   else "cls(tick, wheel_size, **options)"))
    needed = (("submit", "start", "ready", "complete", "fail", "cancel", "close", "info")
              if system == "scheduler" else ("schedule", "cancel", "advance", "pending"))
    missing = [m for m in needed if not callable(getattr(obj, m, None))]
    if missing:
        return (f"{shown} returned a {type(obj).__name__} without the required "
                f"method{'s' if len(missing) > 1 else ''} {', '.join(missing)}")
    return None
