"""Whole-lifecycle benchmark of schedcheck.impl.Scheduler against graphlib and a bare Kahn loop.

One process, one run, one seeded random DAG of N tasks and ~4N edges (default N = 200,000).
Node ids are ints 0..N-1 in a random order, so tasks are *not* submitted in topological order
(every contender sees unknown dependencies and must find no cycle with a full search; one
extra row shows impl.Scheduler on the same graph submitted in topological order, where its
acyclic-by-construction shortcut skips the search).

Each contender runs the full lifecycle: add every task, validate, then loop claim-ready /
report-done until the graph is exhausted:
* impl.Scheduler(max_concurrency=N): submit all, start(), then its batch paths, as graphlib
  uses its own: ``ready_pairs()`` (the claims as plain (id, generation) tuples) and
  ``complete_many(batch)`` (one lock acquisition per batch); an extra row claims with
  ``ready()`` (Claim named tuples) and calls ``complete()`` once per claim, as a worker pool
  reporting one task at a time would;
* graphlib.TopologicalSorter: add() all, prepare(), then ``get_ready()`` / ``done(*batch)``;
* a bare Kahn loop over lists (indegree array, successor lists, a FIFO), the floor.

The cyclic garbage collector is left ON for every contender by default (no gc.disable()):
the scheduler allocates records and tuples like a real program would; ``--no-gc`` disables
it for the whole process, every contender alike, to separate the algorithm from the
collector's full passes (which grow with the heap). Then the graph is scaled by
``--scale`` (default 10: 2M tasks / 8M edges) for impl.Scheduler only and the ratio
time(scaled) / time(1x) is printed (target <= scale * 1.1). ``--quick`` uses N = 20,000.

Times are CPU seconds (time.process_time) and wall seconds; on a shared machine compare CPU.
Then tracemalloc's peak memory per task of graphlib and impl.Scheduler, over separate runs.
Run: ``.venv/bin/python benchmarks/bench_scheduler.py [--n N] [--scale K] [--quick] [--seed S]
[--repeat R]``
"""

from __future__ import annotations

import argparse
import gc
import graphlib
import random
import time
from collections import deque
from collections.abc import Callable

from _measure import peak_bytes
from schedcheck.impl import Scheduler

Graph = list[list[int]]  # deps[i]: the ids task i depends on


def random_dag(n: int, edges: int, seed: int) -> tuple[Graph, list[int]]:
    """A DAG over ids 0..n-1 (ranks shuffled), and the ids in one topological order."""
    rng = random.Random(seed)
    rank_to_id = list(range(n))
    rng.shuffle(rank_to_id)
    deps: Graph = [[] for _ in range(n)]
    for _ in range(edges):
        a, b = rng.randrange(n), rng.randrange(n)
        if a == b:
            continue
        if a > b:
            a, b = b, a
        deps[rank_to_id[b]].append(rank_to_id[a])
    return deps, rank_to_id


def _submitted(deps: Graph, order: list[int]) -> Scheduler:
    s = Scheduler(len(deps))
    submit = s.submit
    for i in order:
        submit(i, deps[i])
    s.start()
    return s


def run_impl(deps: Graph, order: list[int]) -> int:
    """The batch paths, as graphlib's get_ready()/done(*batch): ready_pairs(), complete_many()."""
    s = _submitted(deps, order)
    ready, complete_many = s.ready_pairs, s.complete_many
    done = 0
    while True:
        pairs = ready()
        if not pairs:
            break
        complete_many(pairs)
        done += len(pairs)
    return done


def run_impl_per_claim(deps: Graph, order: list[int]) -> int:
    """One ready() of Claims, then one complete() call per claim (as a worker pool does)."""
    s = _submitted(deps, order)
    ready, complete = s.ready, s.complete
    done = 0
    while True:
        claims = ready()
        if not claims:
            break
        for task_id, generation, _fn in claims:
            complete(task_id, generation)
        done += len(claims)
    return done


def run_graphlib(deps: Graph, order: list[int]) -> int:
    ts: graphlib.TopologicalSorter[int] = graphlib.TopologicalSorter()
    for i in order:
        ts.add(i, *deps[i])
    ts.prepare()
    done = 0
    while ts.is_active():
        batch = ts.get_ready()
        ts.done(*batch)
        done += len(batch)
    return done


def run_kahn(deps: Graph, order: list[int]) -> int:
    n = len(deps)
    indeg = [0] * n
    succ: Graph = [[] for _ in range(n)]
    for i in order:
        ds = set(deps[i])
        indeg[i] = len(ds)
        for d in ds:
            succ[d].append(i)
    queue = deque(i for i in order if not indeg[i])
    done = 0
    while queue:
        x = queue.popleft()
        done += 1
        for y in succ[x]:
            indeg[y] -= 1
            if not indeg[y]:
                queue.append(y)
    return done


def timed(fn: Callable[[Graph, list[int]], int], deps: Graph, order: list[int],
          repeat: int = 1) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of the best of ``repeat`` runs (CPU time is the figure to
    compare on a shared machine: other processes inflate wall time, not our CPU time)."""
    best = (float("inf"), float("inf"))
    for _ in range(repeat):
        c0, w0 = time.process_time(), time.perf_counter()
        done = fn(deps, order)
        best = min(best, (time.process_time() - c0, time.perf_counter() - w0))
        assert done == len(deps), f"{fn.__name__} finished {done} of {len(deps)} tasks"
    return best


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=200_000, help="tasks (edges are ~4n)")
    ap.add_argument("--scale", type=int, default=10, help="multiplier for the scaling row")
    ap.add_argument("--quick", action="store_true", help="n = 20,000")
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--repeat", type=int, default=1, help="best of R runs per contender")
    ap.add_argument("--no-gc", action="store_true",
                    help="gc.disable() for the whole process (every contender alike)")
    ap.add_argument("--scale-reference", action="store_true",
                    help="also time graphlib on the scaled graph (its own growth, for reference)")
    args = ap.parse_args(argv)
    n = 20_000 if args.quick else args.n
    if args.no_gc:
        gc.disable()

    deps, topo = random_dag(n, 4 * n, args.seed)
    shuffled = list(range(n))
    edges = sum(len(set(d)) for d in deps)
    print(f"random DAG: {n:,} tasks, {edges:,} distinct edges, seed {args.seed}, "
          f"gc {'disabled' if args.no_gc else 'enabled'}")
    r = args.repeat
    rows = [
        ("graphlib.TopologicalSorter", timed(run_graphlib, deps, shuffled, r)),
        ("impl.Scheduler", timed(run_impl, deps, shuffled, r)),
        ("impl.Scheduler (topological submit)", timed(run_impl, deps, topo, r)),
        ("impl.Scheduler (complete() per Claim)", timed(run_impl_per_claim, deps, shuffled, r)),
        ("bare Kahn loop (lists)", timed(run_kahn, deps, shuffled, r)),
    ]
    cpu0, wall0 = rows[0][1]
    print(f"{'contender':<38}{'cpu s':>8}{'vs graphlib':>13}{'wall s':>9}{'vs graphlib':>13}")
    for name, (cpu, wall) in rows:
        print(f"{name:<38}{cpu:>8.3f}{cpu / cpu0:>12.2f}x{wall:>9.3f}{wall / wall0:>12.2f}x")

    print("peak memory per task (tracemalloc, a separate untimed run; the graph itself, built "
          "before, is not counted)")
    memory = {name: peak_bytes(fn, deps, shuffled) / n
              for name, fn in (("graphlib.TopologicalSorter", run_graphlib),
                               ("impl.Scheduler", run_impl))}
    for name, per_task in memory.items():
        print(f"  {name:<36}{per_task:>6.0f} bytes  "
              f"x{per_task / memory['graphlib.TopologicalSorter']:.2f} of graphlib")

    if args.scale > 1:
        big_deps, _ = random_dag(n * args.scale, 4 * n * args.scale, args.seed + 1)
        order = list(range(len(big_deps)))
        big, _ = timed(run_impl, big_deps, order)
        one = rows[1][1][0]
        print(f"impl.Scheduler at {args.scale}x ({n * args.scale:,} tasks): {big:.3f} cpu s; "
              f"time({args.scale}x)/time(1x) = {big / one:.2f} (linear: {args.scale})")
        if args.scale_reference:
            ref, _ = timed(run_graphlib, big_deps, order)
            print(f"reference, graphlib at {args.scale}x: {ref:.3f} cpu s; "
                  f"time({args.scale}x)/time(1x) = {ref / cpu0:.2f} (the platform's own "
                  "growth: memory and cache, not the algorithm)")


if __name__ == "__main__":
    main()
