"""One replayable concurrent round: a :class:`Case` and :func:`run_case`.

A :class:`Case` is everything one round is made of -- the constructor, the sequential setup
calls, the thread programs and the schedule -- and its ``repr`` is a Python expression, so a
printed counterexample is a program: ``run_case(factory, Case(...))`` replays the exact
interleaving (the baton makes it deterministic). The hunt (``hunt``) draws cases, the
exhaustive scenarios (``explore``) fix them; both run them here.

Targets get cooperative primitives through ``lock_factory`` when their constructor takes one
(our implementations), else by constructing them inside :func:`patching.patched`.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from schedcheck.concurrency import patching, primitives
from schedcheck.concurrency.operations import SCHEDULER, WHEEL, SetupState, table
from schedcheck.concurrency.rounds import (
    Program,
    RoundOutcome,
    SchedulerSpec,
    WheelSpec,
    observe_scheduler,
    observe_wheel_spec,
    observe_wheel_target,
    run_round,
)
from schedcheck.contract import SchedcheckInternalError

__all__ = ["Case", "SetupDiverged", "build", "controlled", "fails_serially",
           "fails_without_overlap", "invocation_order", "run_case", "sequential_runs",
           "serial_orders"]


@dataclass
class Case:
    system: str  #: "scheduler" or "wheel"
    args: tuple[Any, ...]  #: constructor positionals: (max_concurrency,) / (tick, wheel_size)
    options: dict[str, Any]  #: constructor keywords (wheel: max_pending ...)
    setup: list[tuple[Any, ...]]  #: sequential calls before the round
    threads: list[Program]
    names: list[str]
    schedule: list[int] = field(default_factory=list)

    @property
    def operations(self) -> int:
        return sum(len(ops) for ops in self.threads)


class SetupDiverged(Exception):
    """The target differs from the model before any thread runs: not a race."""


def build(factory: Callable[..., Any], args: Sequence[Any], options: dict[str, Any]) -> Any:
    """The target with cooperative primitives: via ``lock_factory`` or the threading patch."""
    if patching.patchable(factory):
        return factory(*args, lock_factory=primitives.Lock, **options)
    with patching.patched():
        return factory(*args, **options)


def controlled(factory: Callable[..., Any], *args: Any, **options: Any) -> Any:
    """``factory(*args, **options)`` with cooperative primitives (lock_factory or patch)."""
    return build(factory, args, options)


def run_case(factory: Callable[..., Any], case: Case, *, budget: int = 50_000) -> RoundOutcome:
    """Build target and model, run the setup on both, then the round; see ``rounds``."""
    ops = table(case.system)
    target = build(factory, case.args, case.options)
    model = ops.model(*case.args, **case.options)
    run: Callable[..., RoundOutcome] = ops.part("case")
    return run(target, model, case, budget)


def serial_orders(threads: Sequence[Program], names: Sequence[str]
                  ) -> Iterator[tuple[list[Program], list[str]]]:
    """Every order of the lanes, for a run with no preemption: one lane after another."""
    for order in itertools.permutations(range(len(threads))):
        yield [threads[i] for i in order], [names[i] for i in order]


def _lane_bound(op: tuple[Any, ...]) -> bool:
    """An operation that names something of its own lane (``("claimed",)``, ``("mine", j)``)."""
    return any(isinstance(a, tuple) and a[:1] in (("claimed",), ("mine",)) for a in op[1:])


def invocation_order(threads: Sequence[Program], names: Sequence[str],
                     outcome: RoundOutcome | None) -> Program | None:
    """The round's operations in the order the failing run invoked them, as one program --
    each call whole, no two overlapping -- or None when an operation names something of its
    own lane (one lane cannot stand for several then) or did not run."""
    if outcome is None or any(_lane_bound(op) for ops in threads for op in ops):
        return None
    lanes = {name: iter(ops) for name, ops in zip(names, threads, strict=True)}
    merged = [next(lanes[op.lane]) for op in sorted(outcome.history.operations,
                                                     key=lambda o: o.invoked)]
    return merged if len(merged) == sum(len(ops) for ops in threads) else None


def sequential_runs(threads: Sequence[Program], names: Sequence[str],
                    outcome: RoundOutcome | None = None
                    ) -> Iterator[tuple[list[Program], list[str]]]:
    """The lanes one after another in every order, then (``outcome``: the failing run) its
    operations one at a time in the order that run invoked them: no two calls overlap in
    any of these, so a failure there needs no interleaving."""
    yield from serial_orders(threads, names)
    merged = invocation_order(threads, names, outcome)
    if merged is not None and len(threads) > 1:
        yield [merged], ["serial"]


def fails_without_overlap(failed: Callable[[list[Program], list[str]], bool],
                          threads: Sequence[Program], names: Sequence[str],
                          outcome: RoundOutcome | None = None) -> bool:
    """Whether ``failed(threads, names)`` -- one run, no preemption -- holds for some run of
    :func:`sequential_runs`: then the round's mistake is a sequential one (a race needs
    calls that overlap), which the sequential suites report under its own clause."""
    return any(failed(t, n) for t, n in sequential_runs(threads, names, outcome))


def fails_serially(factory: Callable[..., Any], case: Case,
                   outcome: RoundOutcome | None = None) -> bool:
    """:func:`fails_without_overlap` for a case, each run on a fresh target."""
    def failed(threads: list[Program], names: list[str]) -> bool:
        try:
            return not run_case(factory, replace(case, threads=threads, names=names,
                                                 schedule=[])).ok
        except SetupDiverged:
            return True
        except SchedcheckInternalError:
            return False

    return fails_without_overlap(failed, case.threads, case.names, outcome)


@SCHEDULER.provides("case")
def _scheduler_case(target: Any, model: Any, case: Case, budget: int) -> RoundOutcome:
    for obj in (model, target):
        try:
            SCHEDULER.run_setup(obj, case.setup, SetupState())
        except Exception as exc:
            raise SchedcheckInternalError(f"setup {case.setup!r} raised {exc!r}") from exc
    ids = list(model.task_ids())
    if observe_scheduler(target, ids) != observe_scheduler(model, ids):
        raise SetupDiverged(
            f"the sequential setup already diverges: model {observe_scheduler(model, ids)!r},"
            f" target {observe_scheduler(target, ids)!r} (the sequential suite reports this)"
        )
    return run_round("scheduler", target, SchedulerSpec(model), case.threads,
                     case.schedule, names=case.names, budget=budget)


@WHEEL.provides("case")
def _wheel_case(target: Any, model: Any, case: Case, budget: int) -> RoundOutcome:
    on_target, on_model = SetupState(), SetupState()
    WHEEL.run_setup(target, case.setup, on_target)
    WHEEL.run_setup(model, case.setup, on_model)
    target_handles, model_handles, now = on_target.handles, on_model.handles, on_target.now
    spec = WheelSpec(model, {name: h.seq for name, h in model_handles.items()})
    if observe_wheel_target(target, target_handles) != observe_wheel_spec(spec, list(spec.names)):
        raise SetupDiverged("the sequential setup already diverges (the sequential suite "
                            "reports this)")
    return run_round("wheel", target, spec, case.threads, case.schedule, names=case.names,
                     setup_handles=target_handles, now=now, budget=budget)
