"""Graph shapes real code meets: the shapes phase of the budgeted search (``harness.search``).

The rules of the scheduler suite draw graphs over six letters, submitted in id order with each
dependency on an earlier id: a cycle's first node is then always a root, no graph is deeper
than six tasks, and no call sees more than a handful of dependents. Real dispatchers break on
other graphs: a cycle check that starts only from the first node it meets misses a cycle
closed behind a common dependent; a recursive walk dies of ``RecursionError`` on a chain a
few thousand tasks deep; an edge check that follows every path takes exponential time on a
wide random DAG. Each shape here is one of those graphs, drawn from a seed at a given size:

* **shuffled DAG** -- a random DAG (up to three dependencies a task, mostly on tasks a few
  ranks lower: exponentially many paths), submitted in a shuffled order (dependencies often
  after their dependents), then claimed and reported wave after wave (a fail now and then
  blocks a subgraph);
* **cycle behind a dependent** -- a cycle of ``n - 1`` tasks and a dependent of one of them,
  submitted dependent first and the cycle in a shuffled order, then start(); a resubmit then
  breaks the cycle and the graph runs;
* **cycle closed after start** -- a chain started, then a resubmit (or ``add_dependency``,
  when the target has it) of its first task on its last: a cycle through the whole chain;
* **deep chain** -- a chain ``n`` deep, submitted in a shuffled order, started, its first
  tasks claimed and completed, then its root cancelled or failed (the whole chain BLOCKED);
* **wide fan-out** -- one root with ``n - 1`` direct dependents: one ``ready()`` claims
  hundreds of tasks, a failure of the root blocks them all at once, ``close()`` cancels
  hundreds;
* **wide fan-in** -- one task depending on ``n - 1`` roots, reported in a shuffled order
  (a duplicate report among them);
* **bulk cancel** -- ``n`` READY tasks, most of them cancelled before any worker took them (a
  batch called off), a few of those submitted again meanwhile, then the rest claimed: a queue
  that deletes lazily (cancelled entries left in a heap, as asyncio's timer heap and Java's
  ``ScheduledThreadPoolExecutor`` leave them) compacts at some threshold, and only a burst of
  cancels of a large queue reaches it;
* **many generations** -- one task resubmitted ``n`` times (a recurring job: run hourly, it
  reaches its 257th generation in eleven days), each generation claimed and reported, with
  cancels quoting the generation and late reports of older ones: a generation compared with
  ``is`` holds for the first 256 (CPython keeps one object for each small int) and fails from
  the 257th.

The search plays each shape small first (a handful of tasks, the suite's own letters, so the
rules that follow meet them), then large (:data:`LARGE`: >= 300 tasks, a chain of 2,000). The
last two are larger even in their first pass (the threshold or the count they reach is the
point) and play it once a round. A shape is one atomic step of the program
(``_shape(name, size, seed)``): a counterexample found on a large shape is reduced by delta
debugging, whose first pass (``delta.smaller_shapes``) bisects the size down to the least that
still fails, and the note says what that size means ("a chain ~1,000 deep").

During a shape the states are compared every ``size // COMPARISONS`` calls rather than after
each call (every reply is still compared at once): the comparison reads ``info()`` of every
task, so after each of 2,000 calls it would be 4 million reads.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from schedcheck.harness.scheduler.fixtures import IDS
from schedcheck.harness.scheduler.scenarios import Play

__all__ = ["COMPARISONS", "LARGE", "PREFIX", "SHAPES", "SMALL", "Shape", "describe", "parse",
           "play", "shape_seed", "sized", "start_state"]

#: How a machine's ``start_state`` names a shape: ``shape:<name>:<size>``.
PREFIX = "shape:"
#: About how many times the states are compared while a shape is played.
COMPARISONS = 20


@dataclass(frozen=True)
class Shape:
    """One graph shape: ``play(p, rng, ids)`` submits and drives it on the machine."""

    name: str
    play: Callable[[Play, random.Random, list[Any]], None]
    small: int  #: its size in the shapes phase's first pass (in its ``unit``)
    large: int  #: its size in the second pass
    needs: str  #: what a size means, ``{n}`` the size: "a chain ~{n} deep"
    #: examples of the first pass a round (the first pass's size is large for some shapes)
    small_examples: int = 4
    #: added after the search's directed-only scenarios: the round plays it after them, so
    #: that the chunks before it keep their seeds (``harness.search.plan``)
    late: bool = False
    unit: str = "tasks"  #: what its size counts


def _ids(n: int, letters: list[str]) -> list[Any]:
    """``n`` task ids: the drawn letters when they are enough, else ``t0``, ``t1`` ..."""
    return list(letters[:n]) if n <= len(letters) else [f"t{i}" for i in range(n)]


class _Driver:
    """Claims and reports on a :class:`Play`, comparing the states every ``every`` calls."""

    def __init__(self, p: Play, rng: random.Random, n: int) -> None:
        self.p, self.rng = p, rng
        self.every = max(1, n // COMPARISONS)
        self.calls = 0

    def tick(self) -> None:
        self.calls += 1
        if self.calls % self.every == 0:
            machine: Any = self.p.machine
            machine.compare_infos()

    def sub(self, tid: Any, *deps: Any) -> None:
        self.p.sub(tid, *deps)
        self.tick()

    def roots(self, ids: list[Any]) -> list[Any]:
        """Submit ``ids`` with no dependencies, in a shuffled order (returned)."""
        order = list(ids)
        self.rng.shuffle(order)
        for tid in order:
            self.sub(tid)
        return order

    def claim(self, limit: int | None = None) -> list[Any]:
        """One claim of the worker; the claims it returned."""
        before = len(self.p.refs)
        self.p.claim(limit)
        return self.p.refs[before:]

    def submit_all(self, deps: dict[Any, list[Any]], order: list[Any]) -> None:
        for tid in order:
            self.sub(tid, *deps[tid])

    def waves(self, most: int, fail_one: bool) -> None:
        """Claim every READY task and report each, in a shuffled order, wave after wave,
        until nothing is claimed (at most ``most`` reports); with ``fail_one`` one report
        is a failure (its dependents are BLOCKED)."""
        reported = 0
        failing = self.rng.randrange(max(most, 1)) if fail_one else -1
        while reported < most:
            before = len(self.p.refs)
            self.p.claim()
            self.tick()
            got = self.p.refs[before:]
            if not got:
                return
            self.rng.shuffle(got)
            for ref in got:
                op = "fail" if reported == failing else "complete"
                self.p.machine.report(ref, op, None)
                self.tick()
                reported += 1
                if reported >= most:
                    return


def shuffled_dag(p: Play, rng: random.Random, ids: list[Any]) -> None:
    d = _Driver(p, rng, len(ids))
    # dependencies near in rank (a window of 4) make many paths -- exponentially many in
    # the depth -- and some anywhere below make long jumps
    deps = {tid: rng.sample(ids[max(0, i - 4):i] if rng.random() < 0.9 else ids[:i],
                            min(i, rng.choice((0, 1, 2, 2, 3))))
            for i, tid in enumerate(ids)}
    order = list(ids)
    rng.shuffle(order)
    d.submit_all(deps, order)
    p.start()
    d.waves(len(ids), fail_one=rng.random() < 0.3)


def cycle_behind_dependent(p: Play, rng: random.Random, ids: list[Any]) -> None:
    d = _Driver(p, rng, len(ids))
    head, cycle = ids[0], ids[1:] or [ids[0]]
    deps = {tid: [cycle[(i + 1) % len(cycle)]] for i, tid in enumerate(cycle)}
    entry = rng.choice(cycle)
    d.sub(head, entry)  # the dependent first: a walk from it enters the cycle midway
    order = list(cycle)
    rng.shuffle(order)
    d.submit_all(deps, order)
    p.start()  # CycleError
    d.sub(entry)  # the cycle broken at the entry
    p.start()
    d.waves(len(ids), fail_one=False)


def cycle_after_start(p: Play, rng: random.Random, ids: list[Any]) -> None:
    d = _Driver(p, rng, len(ids))
    deps = {tid: ids[i - 1:i] for i, tid in enumerate(ids)}
    order = list(ids)
    rng.shuffle(order)
    d.submit_all(deps, order)
    p.start()
    machine: Any = p.machine
    if machine.support.add_dependency and rng.random() < 0.5:
        machine.add_dependency(ids[0], ids[-1])  # CycleError (or REJECTED: not PENDING)
    else:
        d.sub(ids[0], ids[-1])  # CycleError: the last task depends on the first
    d.waves(min(len(ids), 3), fail_one=False)


def deep_chain(p: Play, rng: random.Random, ids: list[Any]) -> None:
    d = _Driver(p, rng, len(ids))
    deps = {tid: ids[i - 1:i] for i, tid in enumerate(ids)}
    order = list(ids)
    if rng.random() < 0.5:
        order.reverse()  # every dependent before its dependency
    else:
        rng.shuffle(order)
    d.submit_all(deps, order)
    p.start()
    d.waves(2, fail_one=False)
    live = ids[2] if len(ids) > 2 else ids[-1]
    if rng.random() < 0.5:
        p.cancel(live)  # the rest of the chain BLOCKED
    else:
        p.claim()
        p.report(live, "fail")


def wide_fan_out(p: Play, rng: random.Random, ids: list[Any]) -> None:
    d = _Driver(p, rng, len(ids))
    root, rest = ids[0], ids[1:]
    order = list(rest)
    rng.shuffle(order)
    d.submit_all({tid: [root] for tid in rest}, order)
    d.sub(root)
    p.start()
    p.claim()
    what = rng.choice(("complete", "fail", "close"))
    if what == "fail":
        p.report(root, "fail")  # every dependent BLOCKED at once
        return
    p.report(root, "complete")
    if what == "close":
        machine: Any = p.machine
        machine._close()  # hundreds cancelled at once
        return
    d.waves(len(ids), fail_one=False)


def wide_fan_in(p: Play, rng: random.Random, ids: list[Any]) -> None:
    d = _Driver(p, rng, len(ids))
    join, roots = ids[0], ids[1:]
    d.sub(join, *roots)  # the join first: every root is still unknown
    d.roots(roots)
    p.start()
    got = d.claim()
    rng.shuffle(got)
    for i, ref in enumerate(got):
        p.machine.report(ref, "complete", None)
        if i == 0:
            p.machine.report(ref, "complete", None)  # a duplicate among hundreds
        d.tick()
    p.claim()


def bulk_cancel(p: Play, rng: random.Random, ids: list[Any]) -> None:
    d = _Driver(p, rng, len(ids))
    order = d.roots(ids)
    p.start()
    taken = {ref.task_id for ref in d.claim(1)}
    d.tick()
    queued = [tid for tid in order if tid not in taken]
    rng.shuffle(queued)
    keep = max(1, len(queued) // 10)
    called_off = queued[keep:]
    for i, tid in enumerate(called_off):  # most of the queue called off before any claim
        p.cancel(tid)
        d.tick()
        if rng.random() < 0.05:  # one called off is submitted again: READY, a new generation
            d.sub(rng.choice(called_off[:i + 1]))
    d.waves(len(ids), fail_one=False)


def many_generations(p: Play, rng: random.Random, ids: list[Any]) -> None:
    d = _Driver(p, rng, len(ids))
    task = ids[0]
    machine: Any = p.machine
    for i in range(len(ids)):
        d.sub(task)  # the first submit, then a resubmit: a new generation each time
        if i == 0:
            p.start()
        mine = [ref for ref in d.claim() if ref.task_id == task]
        d.tick()
        if not mine:
            continue
        ref, draw = mine[-1], rng.random()
        if draw < 0.15:  # cancel quoting the generation it runs: a request, then its fail
            machine._callback("cancel", task, ref.generation,
                              words=f"{p.kind}: cancel {task!r} g{ref.generation}")
            machine.report(ref, "fail", None)
        else:
            machine.report(ref, "fail" if draw < 0.25 else "complete", None)
        d.tick()
        if draw > 0.9 and len(p.refs) > 1:  # a late report of an older generation
            machine.report(rng.choice(p.refs[:-1]), "complete", None)
            d.tick()


#: name -> shape, in the order the shapes phase plays them.
SHAPES: dict[str, Shape] = {s.name: s for s in (
    Shape("shuffled DAG", shuffled_dag, 6, 300, "a random DAG of ~{n} tasks"),
    Shape("cycle behind a dependent", cycle_behind_dependent, 4, 300,
          "a cycle of ~{m} task(s) behind a dependent"),
    Shape("cycle closed after start", cycle_after_start, 4, 300, "a cycle of ~{n} tasks"),
    Shape("deep chain", deep_chain, 6, 2000, "a chain ~{n} deep"),
    Shape("wide fan-out", wide_fan_out, 6, 500, "~{m} direct dependents of one task"),
    Shape("wide fan-in", wide_fan_in, 6, 500, "one task depending on ~{m} others"),
    Shape("bulk cancel", bulk_cancel, 150, 1000, "~{n} READY tasks, most cancelled",
          small_examples=1, late=True),
    Shape("many generations", many_generations, 300, 1000, "a task resubmitted ~{n} times",
          small_examples=1, late=True, unit="generations"),
)}
#: The sizes of the two passes over the shapes.
SMALL, LARGE = "small", "large"


def start_state(name: str, size: int) -> str:
    """The ``start_state`` of a machine that plays shape ``name`` at ``size``."""
    return f"{PREFIX}{name}:{size}"


def parse(state: str | None) -> tuple[str, int] | None:
    """``(name, size)`` of a shape's ``start_state``; None for anything else."""
    if state is None or not state.startswith(PREFIX):
        return None
    name, _, size = state[len(PREFIX):].rpartition(":")
    return name, int(size)


def shape_seed(order: list[str], picks: list[list[int]], salt: int = 0, example: int = 0) -> int:
    """A shape's seed from what the machine's ``build`` drew (no draw of its own, so that
    every other start draws as before), the chunk's ``salt`` and the ``example``'s number
    in it (a chunk's first examples draw alike)."""
    value = salt * 1_000_003 + example
    for tid in order:
        value = value * 7 + IDS.index(tid) + 1
    for pick in picks:
        for i in pick:
            value = value * 7 + i + 1
        value = value * 7
    return value % (2 ** 31)


def describe(name: str, size: int) -> str:
    """What ``size`` means for shape ``name``: "a chain ~1,000 deep"."""
    shape = SHAPES[name]
    return shape.needs.format(n=f"{size:,}", m=f"{max(size - 1, 1):,}")


def sized(name: str, size: int) -> str:
    """``size`` of shape ``name`` in its unit: "2,000 tasks", "300 generations"."""
    unit = SHAPES[name].unit if name in SHAPES else "tasks"
    return f"{size:,} {unit}"


def play(p: Play, name: str, size: int, seed: int) -> None:
    """Play shape ``name`` at ``size`` tasks from ``seed`` on ``p``."""
    rng = random.Random(seed)
    letters = list(IDS)
    rng.shuffle(letters)
    SHAPES[name].play(p, rng, _ids(max(size, 1), letters))
