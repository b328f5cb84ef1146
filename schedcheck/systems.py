"""The systems schedcheck checks, one registry entry each: everything that differs between the
scheduler and the timing wheel, so that the rest of the toolkit asks the entry instead of
testing the system's name.

An entry (:class:`System`) holds

* the clause table (``schedcheck.harness.clauses``) and the clauses with a role: the cost
  clause (``*-COST``), the linearizability clause (``*-LIN``), the seed's point that the
  concurrent rounds exercise (``S-T6``/``W-T4``) and the clauses that share the cost verdict;
* how a target is built and what it must offer: ``cls(max_concurrency)`` or
  ``cls(tick, wheel_size, **options)``, the arguments of the construction probe, the methods
  (operations) the suite calls;
* the suite (the machine factory, the runner, the scaling check) and the concurrent-round
  mixins, imported when first called, so that importing this module stays light;
* the bundled targets ``schedcheck verify`` checks, and the zoo's mutants of the system;
* the core level (``schedcheck.levels``): its clauses, the methods it calls and its runner --
  the wheel's invariants in tolerance mode, the scheduler's ``harness.scheduler.core`` machine.

Adding a system is one entry here, its clause table and its suite; the pipeline
(``schedcheck.pipeline``), the command line, ``verify``, the pytest API and the zoo find it
through :func:`get` / :data:`SYSTEMS`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from schedcheck.harness import clauses as c

if TYPE_CHECKING:
    from schedcheck.harness.result import RunResult
    from schedcheck.zoo.mutant import Mutant

__all__ = ["SYSTEMS", "System", "core_machine", "get", "names"]

Factory = Callable[..., Any]


@dataclass(frozen=True)
class System:
    name: str
    clauses: tuple[c.Clause, ...]
    cost_clause: str  #: the scaling clause: a cost ratio at n and 8n in one run
    lin_clause: str  #: linearizability of the concurrent rounds
    interleaving_clause: str  #: the seed's "survives adversarial interleavings" point
    cost_also: tuple[str, ...]  #: clauses observable only as cost: they share its verdict
    constructor: str  #: how a target is called, in words
    probe_args: tuple[int, ...]  #: ordinary constructor arguments (the construction probe)
    operations: tuple[str, ...]  #: the methods the suite calls; a target must have each
    bundled: tuple[tuple[str, str], ...]  #: (report folder, target) checked by verify
    zoo_cost_n: int  #: small size of a cost mutant's scaling run (the large one is 8x)
    has_tolerance: bool  #: a tolerance mode (invariants only) exists
    #: the class ``schedcheck practice`` writes, in ``<name>.py`` (what ``grade`` then loads)
    answer_class: str
    #: ``make(factory, *, result=None, extra_bases=(), **options)`` -> the suite's machine class
    make_machine: Callable[..., type[Any]]
    #: ``run(factory, *, target_name, examples, seed, profile, progress, extra_bases,
    #: **options)`` -> RunResult
    run_suite: Callable[..., RunResult]
    #: ``check(factory, *, n=...)`` -> ScalingResult (``.ok``, ``.verdict``, ``.text``)
    check_scaling: Callable[..., Any]
    #: the mixins adding a concurrent-round rule to the suite's machine
    round_mixins: Callable[[], tuple[type, ...]]
    #: the core level: what every correct design holds, whatever its surface and capabilities
    core_clauses: tuple[str, ...] = ()
    core_operations: tuple[str, ...] = ()  #: the methods the core level calls
    #: ``run(factory, *, target_name, examples, seed, profile, progress, shrink, set_aside)``
    #: -> RunResult of the core level
    run_core: Callable[..., RunResult] | None = None

    def mutants(self) -> list[Mutant]:
        """The zoo's entries for this system, in catalogue order."""
        from schedcheck.zoo.catalogue import all_mutants

        return [m for m in all_mutants() if m.system == self.name]

    @property
    def answer_target(self) -> str:
        """The target ``schedcheck practice`` writes, relative to its folder."""
        return f"{self.name}.py:{self.answer_class}"

    @property
    def short(self) -> str:
        """The clause-id prefix, "S" or "W"."""
        return self.cost_clause.split("-", 1)[0]


# The suites and the concurrency package import Hypothesis, networkx and the model: they are
# imported by the first call, not by ``import schedcheck.systems``.


def _scheduler_machine(factory: Factory, **kwargs: Any) -> type[Any]:
    from schedcheck.harness.scheduler.suite import make_scheduler_machine

    return make_scheduler_machine(factory, **kwargs)


def _scheduler_suite(factory: Factory, **kwargs: Any) -> RunResult:
    from schedcheck.harness.scheduler.suite import run_scheduler_suite

    return run_scheduler_suite(factory, **kwargs)


def _scheduler_scaling(factory: Factory, **kwargs: Any) -> Any:
    from schedcheck.harness.scheduler.suite import check_scheduler_scaling

    return check_scheduler_scaling(factory, **kwargs)


def _scheduler_rounds() -> tuple[type, ...]:
    from schedcheck.concurrency.mixins import SchedulerRoundMixin

    return (SchedulerRoundMixin,)


def _scheduler_core(factory: Factory, **kwargs: Any) -> RunResult:
    from schedcheck.harness.scheduler.core import run_core_suite

    return run_core_suite(factory, **kwargs)


def _wheel_core(factory: Factory, *, set_aside: frozenset[str] = frozenset(),
                **kwargs: Any) -> RunResult:
    """The wheel's core: its invariants, in tolerance mode, every other oracle set aside."""
    from schedcheck.harness.result import CONTRACT_ONLY
    from schedcheck.harness.wheel.suite import run_wheel_suite

    others = _wheel_contract_only()
    result = run_wheel_suite(factory, tolerance=True, set_aside=set_aside, level_aside=others,
                             **kwargs)
    for cid in others:
        result.stats[cid].why = CONTRACT_ONLY
    # due ticks are the contract level's business: no tolerance notes about them here
    result.notes = [n for n in result.notes if not n.startswith(("tolerance mode", "... "))
                    and "contract due tick" not in n]
    result.notes.append("core level: the invariants every correct timer holds (never early, "
                        "never twice, never after a successful cancel, never lost, pending() "
                        "right); exact due ticks and replies are the contract level's")
    return result


_WHEEL_CORE = (c.W_INV_EARLY, c.W_INV_ONCE, c.W_INV_LATE, c.W_INV_PENDING)


def _wheel_contract_only() -> frozenset[str]:
    """The wheel's clauses its core level sets aside (all but the invariants)."""
    return frozenset(cl.id for cl in c.WHEEL_CLAUSES if cl.id not in _WHEEL_CORE)


def core_machine(name: str, factory: Factory, *, result: RunResult) -> type[Any]:
    """The state machine of ``name``'s core level for ``factory`` (what its ``run_core``
    searches): a replay of a core-level program needs it."""
    if name == "scheduler":
        from schedcheck.harness.scheduler.core import make_core_machine

        return make_core_machine(factory, result=result)
    machine = _wheel_machine(factory, result=result, tolerance=True)
    machine.level_aside = _wheel_contract_only()
    return machine


def _wheel_machine(factory: Factory, **kwargs: Any) -> type[Any]:
    from schedcheck.harness.wheel.suite import make_wheel_machine

    return make_wheel_machine(factory, **kwargs)


def _wheel_suite(factory: Factory, **kwargs: Any) -> RunResult:
    from schedcheck.harness.wheel.suite import run_wheel_suite

    return run_wheel_suite(factory, **kwargs)


def _wheel_scaling(factory: Factory, **kwargs: Any) -> Any:
    from schedcheck.harness.wheel.cost import check_wheel_scaling

    return check_wheel_scaling(factory, **kwargs)


def _wheel_rounds() -> tuple[type, ...]:
    from schedcheck.concurrency.mixins import WheelRoundMixin

    return (WheelRoundMixin,)


SCHEDULER = System(
    name="scheduler",
    clauses=c.SCHEDULER_CLAUSES,
    cost_clause=c.S_COST,
    lin_clause=c.S_LIN,
    interleaving_clause=c.S_T6,
    # "keeps indegree and reverse adjacency instead of rescanning every task" is observable
    # only as cost
    cost_also=(c.S_T2,),
    constructor="cls(max_concurrency)",
    probe_args=(2,),
    operations=("submit", "start", "ready", "complete", "fail", "cancel", "cancel_requested",
                "close", "info"),
    bundled=(("scheduler-impl", "schedcheck.impl:Scheduler"),),
    zoo_cost_n=128,
    has_tolerance=False,
    answer_class="Scheduler",
    make_machine=_scheduler_machine,
    run_suite=_scheduler_suite,
    check_scaling=_scheduler_scaling,
    round_mixins=_scheduler_rounds,
    core_clauses=(c.S_CLAIM_DEPS, c.S_CLAIM_ONCE, c.S_ORACLE_CYCLE, c.S4, c.S5, c.S6),
    core_operations=("submit", "start", "ready", "complete"),
    run_core=_scheduler_core,
)

WHEEL = System(
    name="wheel",
    clauses=c.WHEEL_CLAUSES,
    cost_clause=c.W_COST,
    lin_clause=c.W_LIN,
    interleaving_clause=c.W_T4,
    cost_also=(),
    constructor="cls(tick, wheel_size, **options)",
    probe_args=(1, 8),
    operations=("schedule", "schedule_after", "cancel", "advance", "pending"),
    bundled=(("wheel-hashed", "schedcheck.impl:HashedTimingWheel"),
             ("wheel-hierarchical", "schedcheck.impl:HierarchicalTimingWheel")),
    zoo_cost_n=500,  # a scan of every timer reads ratio 8.0 at 500 as at 2,000, in 7 s, not 26 s
    has_tolerance=True,
    answer_class="TimingWheel",
    make_machine=_wheel_machine,
    run_suite=_wheel_suite,
    check_scaling=_wheel_scaling,
    round_mixins=_wheel_rounds,
    core_clauses=_WHEEL_CORE,
    core_operations=("schedule", "cancel", "advance", "pending"),
    run_core=_wheel_core,
)

#: Every system, by name, in the order reports list them.
SYSTEMS: dict[str, System] = {s.name: s for s in (SCHEDULER, WHEEL)}


def names() -> tuple[str, ...]:
    return tuple(SYSTEMS)


def get(name: str) -> System:
    """The entry of ``name``; ValueError naming the known systems otherwise."""
    try:
        return SYSTEMS[name]
    except KeyError:
        raise ValueError(f"unknown system {name!r}; expected one of "
                         f"{', '.join(map(repr, SYSTEMS))}") from None
