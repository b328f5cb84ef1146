"""The mutant catalogue: one entry per known mistake, each expected to be killed by a clause.

Entries are declared with the :func:`~schedcheck.zoo.mutant.mutant` decorator in
``scheduler_mutants``, ``wheel_mutants`` and ``race_mutants``; :func:`all_mutants` imports
those modules and returns every entry, :func:`get` one of them by name.
"""

from __future__ import annotations

from schedcheck.zoo.mutant import Mutant, registered

__all__ = ["Mutant", "all_mutants", "get"]


def all_mutants() -> list[Mutant]:
    """Every entry: the scheduler's, the wheel's, then the races, each in declaration order."""
    # Imported here, not at the top: the mutants import the production implementations.
    from schedcheck.zoo import race_mutants, scheduler_mutants, wheel_mutants

    order = [m.__name__ for m in (scheduler_mutants, wheel_mutants, race_mutants)]
    rank = {name: i for i, name in enumerate(order)}
    return sorted(registered(), key=lambda m: rank.get(m.factory.__module__, len(order)))


def get(name: str) -> Mutant:
    for m in all_mutants():
        if m.name == name:
            return m
    raise KeyError(f"no mutant named {name!r}; known: {sorted(m.name for m in all_mutants())}")
