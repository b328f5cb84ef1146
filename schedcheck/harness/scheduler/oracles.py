"""Oracles of the scheduler suite that do not come from the reference model.

The model says what *one* answer is; where the contract allows several (which cycle, its
rotation) or where an independent implementation makes a better witness, the suite asks
these instead:

* :func:`has_cycle` -- networkx decides whether the submitted graph (required and optional
  edges, dependency -> dependent) has a cycle, self-loops included;
* :func:`cycle_problem` -- what is wrong with a reported ``CycleError.cycle``, or ``None``: it
  must be a list ``[a, b, ..., a]`` (first == last, no other repeats, at least two entries)
  in which every element is a dependency of the next in the submitted graph; any rotation,
  any cycle;
* :func:`topo_batches` -- graphlib.TopologicalSorter's successive ``get_ready()`` groups, as
  sets: what an unbounded scheduler's ``ready()`` batches must be when every task succeeds;
* :func:`layered_deps` / :func:`drain` -- the S-COST workload: a layered DAG (each task
  depends on two tasks of the previous layer), driven by ``ready()``/``complete()`` until done;
  :func:`check_scheduler_scaling` measures it at two sizes (re-exported by
  ``scheduler.suite``).

Graphs are ``Mapping[task_id, Iterable[dep]]``; a dependency that is not a key is an unknown
id (rule 2 reports those before cycles, so the cycle oracle ignores them).
"""

from __future__ import annotations

import graphlib
import itertools
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import networkx as nx

from schedcheck import contract
from schedcheck.harness.scaling import ScalingResult, ScalingTimeout, measure_scaling
from schedcheck.targets import adapt

__all__ = [
    "check_scheduler_scaling",
    "cycle_problem",
    "drain",
    "has_cycle",
    "layered_deps",
    "topo_batches",
]

Graph = Mapping[Any, Iterable[Any]]


def _digraph(deps: Graph) -> Any:
    g = nx.DiGraph()
    g.add_nodes_from(deps)
    for task, ds in deps.items():
        for d in ds:
            if d in deps:
                g.add_edge(d, task)  # dependency -> dependent, graphlib's direction
    return g


def has_cycle(deps: Graph) -> bool:
    """True iff the graph over the known ids has a directed cycle (a self-dependency counts)."""
    return not nx.is_directed_acyclic_graph(_digraph(deps))


def cycle_problem(cycle: object, deps: Graph) -> str | None:
    """Why ``cycle`` is not a valid ``CycleError.cycle`` for ``deps``, or None if it is."""
    if not isinstance(cycle, (list, tuple)):
        return f".cycle must be a list [a, ..., a], got {type(cycle).__name__} {cycle!r}"
    seq: Sequence[Any] = cycle
    if len(seq) < 2:
        return f".cycle {list(seq)!r} is too short: a cycle is [a, ..., a], [a, a] at least"
    if seq[0] != seq[-1]:
        return f".cycle {list(seq)!r} does not end where it starts (first must equal last)"
    inner = list(seq[:-1])
    try:
        repeats = len(set(inner)) != len(inner)
    except TypeError:
        return f".cycle {list(seq)!r} holds unhashable elements"
    if repeats:
        return f".cycle {list(seq)!r} repeats an element: it must be a simple cycle"
    for a, b in itertools.pairwise(seq):
        if b not in deps:
            return f".cycle {list(seq)!r} names {b!r}, which is not a submitted task"
        if a not in set(deps[b]):
            return (f".cycle {list(seq)!r} claims {a!r} is a dependency of {b!r}, but the "
                    f"submitted deps of {b!r} are {list(deps[b])!r}")
    return None


def topo_batches(deps: Graph) -> list[frozenset[Any]]:
    """graphlib's ``get_ready()`` groups, marking each whole group done before the next.

    Raises ``graphlib.CycleError`` for a cyclic graph. Unknown deps are ignored (the
    scheduler's start() rejects them first).
    """
    ts: graphlib.TopologicalSorter[Any] = graphlib.TopologicalSorter()
    for task, ds in deps.items():
        ts.add(task, *[d for d in ds if d in deps])
    ts.prepare()
    out: list[frozenset[Any]] = []
    while ts.is_active():
        group = ts.get_ready()
        out.append(frozenset(group))
        ts.done(*group)
    return out


# --------------------------------------------------------------------------------------------
# The S-COST workload
# --------------------------------------------------------------------------------------------


def layered_deps(n: int, width: int = 16) -> list[tuple[int, tuple[int, ...]]]:
    """``n`` tasks in layers of ``width``: task i depends on i-width and i-width-1 (if any).

    E is about 2V; every layer becomes READY together, so ``ready()`` returns batches.
    """
    out: list[tuple[int, tuple[int, ...]]] = []
    for i in range(n):
        ds = tuple(d for d in (i - width, i - width - 1) if d >= 0)
        out.append((i, ds))
    return out


def drain(factory: Callable[[int], Any], n: int,
          give_up: Callable[[], bool] | None = None) -> int:
    """Build the layered graph of ``n`` tasks on ``factory(n)``, start, and complete every
    claim until ``ready()`` is empty. Returns the number of completions (== n for a correct
    scheduler). Raises ScalingTimeout once ``give_up()`` is true, asked after every batch."""
    s = factory(n)
    for task, ds in layered_deps(n):
        s.submit(task, ds)
    s.start()
    done = 0
    while True:
        batch = adapt.norm_claims(s.ready())
        if not batch:
            return done
        for task, gen in batch:
            s.complete(task, gen)
            done += 1
        if give_up is not None and give_up():
            raise ScalingTimeout(f"gave up after {done} of {n} completions")


def check_scheduler_scaling(
    factory: Callable[[int], Any],
    *,
    n: int = 128,
    factor: int = 8,
    threshold: float = 3.0,
    repetitions: int = 1,
    timed: bool = True,
) -> ScalingResult:
    """S-COST: a whole run (build a layered DAG, start, claim and complete everything) at n and
    factor*n tasks in one process; the per-task cost ratio, in Python steps executed
    (``opcount``), must stay under ``threshold``.

    A correct O(V+E) scheduler (heap claims, O(log V) in C) measures about 1.0; one that scans
    every task per completion measures about ``factor`` (8). The large run gives up once the
    ratio is surely above the threshold. The count is deterministic: one repetition suffices,
    and a small n (128 tasks, 1024 at 8n) decides as surely as a large one. With ``timed``
    (the default) a ratio that holds is also timed, which sees work done in C
    (``scaling.timed_ratio``): a ready queue that sorts every task with a builtin on each
    call counts as few steps but takes ~8 times longer per task at 8n.
    """
    def workload(size: int, give_up: Callable[[], bool] | None = None) -> None:
        done = drain(factory, size, give_up)
        if done != size:
            raise contract.SchedcheckInternalError(
                f"the scaling workload completed {done} of {size} tasks; the suite's "
                "counterexample explains why (run the suite first)")

    return measure_scaling(workload, n=n, factor=factor, threshold=threshold,
                           repetitions=repetitions, what="task", give_up_ratio=threshold,
                           timed=timed)
