"""Controlled thread interleavings, linearizability checking and real-thread stress.

The entry points the toolkit uses:

* :func:`concurrency_bases` -- the suite mixins adding a "concurrent round" rule
  (``mixins``); :func:`describe_bases` says how the target's primitives are reached;
* :func:`run_stress` -- real threads, real preemption (``stress``);
* :func:`run_exhaustive` -- every schedule within a preemption bound for a fixed catalogue of
  small scenarios (``explore``);
* ``schedcheck.concurrency.hunt.hunt`` -- a Hypothesis race hunt outside the suites;
* :func:`concurrent_round` / :func:`controlled` -- what a printed counterexample calls to
  replay a round's exact interleaving.

Modules: ``baton`` (the controller), ``primitives`` (cooperative Lock/RLock/Condition/Event/
Semaphore/Queue/Thread), ``patching``, ``history`` + ``linearizability`` (Wing-Gong/Lowe),
``rounds`` (operations, specs, one round), ``explore``, ``hunt``, ``mixins``, ``stress``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from schedcheck.concurrency.explore import ScenarioResult, run_exhaustive
from schedcheck.concurrency.hunt import HuntResult
from schedcheck.concurrency.hunt import build as _build
from schedcheck.concurrency.mixins import concurrency_bases, describe_bases
from schedcheck.concurrency.stress import StressResult, run_stress

__all__ = [
    "HuntResult",
    "ScenarioResult",
    "StressResult",
    "concurrency_bases",
    "concurrent_round",
    "controlled",
    "describe_bases",
    "run_exhaustive",
    "run_stress",
]


def controlled(factory: Callable[..., Any], *args: Any, **options: Any) -> Any:
    """``factory(*args, **options)`` with cooperative primitives (lock_factory or patch)."""
    return _build(factory, args, options)


def concurrent_round(
    target: Any,
    system: str,
    threads: Sequence[Sequence[tuple[Any, ...]]],
    schedule: Sequence[int],
    names: Sequence[str] | None = None,
    *,
    now: int = 0,
    handles: dict[str, Any] | None = None,
    callbacks: dict[str, Any] | None = None,
) -> Any:
    """Replay one round on ``target`` (built by :func:`controlled`) under ``schedule``.

    Returns the history (``history.History``; ``.describe()`` prints it). The judgement
    needs the model's state at that point; the printed counterexample's message has it.
    """
    from schedcheck.concurrency import baton
    from schedcheck.concurrency.history import History
    from schedcheck.concurrency.rounds import SchedulerRound, WheelRound, _lane_program

    history = History()
    lane_names = list(names) if names else [f"t{i}" for i in range(len(threads))]
    resolver: Any
    if system == "scheduler":
        ids = list(target.task_ids()) if hasattr(target, "task_ids") else []
        infos = {t: target.info(t) for t in ids}
        resolver = SchedulerRound(
            generations={t: infos[t].generation for t in ids},
            deps={t: tuple(target.deps_of(t)) for t in ids} if ids else {},
            running=[t for t in ids if getattr(infos[t].state, "name", "") == "RUNNING"],
            lanes=lane_names,
        )
    else:
        resolver = WheelRound(now=now, handles=dict(handles or {}),
                              callbacks=dict(callbacks or {}))
    programs = [_lane_program(resolver, target, history, lane, list(ops))
                for lane, ops in zip(lane_names, threads, strict=True)]
    baton.run(programs, schedule, names=lane_names)
    if system == "wheel":
        history.meta["handles"] = resolver.handles
    return history
