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
``operations`` (each system's operations: resolve, apply to target and model, describe, draw),
``rounds`` (specs, one round), ``cases`` (a replayable round), ``explore``, ``hunt``,
``mixins``, ``stress``.

Every name here is imported on first use, so ``import schedcheck.concurrency.baton`` (or
``primitives``) loads neither Hypothesis nor networkx nor the rest of the package.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from schedcheck.concurrency.cases import controlled
    from schedcheck.concurrency.explore import ScenarioResult, run_exhaustive
    from schedcheck.concurrency.hunt import HuntResult
    from schedcheck.concurrency.mixins import concurrency_bases, describe_bases
    from schedcheck.concurrency.rounds import concurrent_round
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

#: public name -> the module defining it (imported on first access)
_HOMES = {
    "HuntResult": "hunt",
    "ScenarioResult": "explore",
    "StressResult": "stress",
    "concurrency_bases": "mixins",
    "concurrent_round": "rounds",
    "controlled": "cases",
    "describe_bases": "mixins",
    "run_exhaustive": "explore",
    "run_stress": "stress",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'schedcheck.concurrency' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"schedcheck.concurrency.{home}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
