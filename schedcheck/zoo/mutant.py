"""One catalogued mistake (:class:`Mutant`) and the one way to register it (:func:`mutant`).

::

    @mutant(name="sched-double-release", system="scheduler", clause=S4, kind="sequential",
            mistake="a duplicate complete() ... releases the dependents again",
            source="seed 000: common mistakes")
    class DoubleReleaseScheduler(Scheduler): ...

The decorator checks, when the module is imported, that ``system`` has a clause table and that
``clause`` is one of its rows (pass the constant from ``schedcheck.harness.clauses``), so a
mistyped clause or system stops the import instead of surfacing when the zoo runs.
``schedcheck.zoo.catalogue.all_mutants`` imports the modules that declare mutants.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from schedcheck.harness.clauses import clauses_for

__all__ = ["KINDS", "Mutant", "mutant", "registered"]

#: How a mutant is caught: by the differential suite, by the scaling clause, or only by the
#: concurrent rounds.
KINDS = ("sequential", "cost", "race")


@dataclass(frozen=True)
class Mutant:
    name: str  #: short id, e.g. "sched-no-generation-check"
    system: str  #: "scheduler" or "wheel"
    mistake: str  #: the mistake in words, as the seed states it
    source: str  #: where the mistake comes from: "seed 000: common mistakes", ...
    expected_clause: str  #: the clause id expected to catch it (schedcheck.harness.clauses)
    #: called like the bundled class: cls(max_concurrency) or cls(tick, wheel_size, **options)
    factory: Callable[..., Any]
    kind: str = "sequential"  #: one of KINDS
    #: other clauses that catch the same mistake as rightly (a mistake in two operations)
    also: tuple[str, ...] = ()

    def expects(self, clause: str) -> bool:
        """Whether ``clause`` catching this mutant is what the catalogue expects."""
        return clause == self.expected_clause or clause in self.also


_REGISTRY: dict[str, Mutant] = {}

T = TypeVar("T", bound=Callable[..., Any])


def _register(entry: Mutant) -> None:
    known = _REGISTRY.get(entry.name)
    if known is not None and known != entry:
        raise ValueError(f"mutant {entry.name!r} is registered twice ({known.factory!r} and "
                         f"{entry.factory!r}); give one of them another name")
    _REGISTRY[entry.name] = entry


def mutant(*, name: str, system: str, clause: str, mistake: str, source: str,
           kind: str = "sequential", also: tuple[str, ...] = ()) -> Callable[[T], T]:
    """Register the decorated class (a copy of a bundled implementation with one mistake) as
    the catalogue entry ``name``, expected to be caught by ``clause`` of ``system``."""
    table = {c.id for c in clauses_for(system)}  # ValueError for an unknown system
    wrong = [one for one in (clause, *also) if one not in table]
    if wrong:
        raise ValueError(f"mutant {name!r}: {wrong[0]!r} is not a {system} clause; use a constant "
                         "of schedcheck.harness.clauses")
    if kind not in KINDS:
        raise ValueError(f"mutant {name!r}: kind {kind!r} is not one of {', '.join(KINDS)}")

    def register(factory: T) -> T:
        _register(Mutant(name, system, mistake, source, clause, factory, kind, also))
        return factory

    return register


def registered() -> list[Mutant]:
    """The entries registered so far, in declaration order (see ``catalogue.all_mutants``)."""
    return list(_REGISTRY.values())
