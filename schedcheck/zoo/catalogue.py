"""The mutant catalogue: one entry per known mistake, each expected to be killed by a clause.

Entries register themselves from ``scheduler_mutants``, ``wheel_mutants`` and ``race_mutants``
with :func:`register`; :func:`all_mutants` imports those modules and returns every entry.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

#: Modules that hold mutants; each calls ``register`` at import time.
MUTANT_MODULES: tuple[str, ...] = (
    "schedcheck.zoo.scheduler_mutants",
    "schedcheck.zoo.wheel_mutants",
    "schedcheck.zoo.race_mutants",
)


@dataclass(frozen=True)
class Mutant:
    name: str  #: short id, e.g. "sched-no-generation-check"
    system: str  #: "scheduler" or "wheel"
    mistake: str  #: the mistake in words, as the seed (or the issue) states it
    source: str  #: "seed 000: common mistakes", "seed 004: ...", "issue 6: extra", ...
    expected_clause: str  #: the clause id expected to catch it (schedcheck.harness.clauses)
    #: called like the bundled class: cls(max_concurrency) or cls(tick, wheel_size, **options)
    factory: Callable[..., Any]
    kind: str = "sequential"  #: "sequential", "cost" (caught by a scaling clause) or "race"


_REGISTRY: dict[str, Mutant] = {}


def register(mutant: Mutant) -> Mutant:
    if mutant.name in _REGISTRY and _REGISTRY[mutant.name] is not mutant:
        raise ValueError(f"mutant {mutant.name!r} is registered twice")
    _REGISTRY[mutant.name] = mutant
    return mutant


def all_mutants() -> list[Mutant]:
    for module in MUTANT_MODULES:
        try:
            importlib.import_module(module)
        except ModuleNotFoundError as exc:
            if exc.name != module:
                raise
    return list(_REGISTRY.values())


def get(name: str) -> Mutant:
    all_mutants()
    try:
        return _REGISTRY[name]
    except KeyError:
        raise KeyError(f"no mutant named {name!r}; known: {sorted(_REGISTRY)}") from None
