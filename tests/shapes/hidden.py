"""Schedulers with mistakes only real graph shapes reach (the bundled one, each changed in one
place): a cycle check that misses a cycle entered from a dependent, a cycle check that
recurses once per dependency, a submit that walks every path of the graph, a ready queue whose
compaction loses the entries queued since the last claim, callbacks that compare generations
with ``is``, claims that carry their ids as text, and a cascading retry that forgets its own
root."""

from __future__ import annotations

import threading
from heapq import heapify
from typing import Any

from schedcheck.impl import Scheduler
from schedcheck.impl.scheduler._support import SLOT_MASK, packed, slots
from schedcheck.impl.scheduler._support import R as READY

#: How many paths the every-path edge check walks before it stands for a hang: a few
#: milliseconds' walk, which the graphs of the suite's rules never need, and which every
#: large shuffled DAG exceeds by orders of magnitude.
PATHS = 20_000


class MissesCycleBehindDependent(Scheduler):
    """start()'s cycle check walks from each task in submission order and reports a cycle
    only when the walk comes back to the task it started from: a cycle first entered from a
    dependent (submitted before it) is marked visited and never walked again."""

    def _find_cycle(self) -> list[Any] | None:
        visited: set[int] = set()
        for root in self._order:
            if root in visited:
                continue
            stack = [root]
            visited.add(root)
            while stack:
                for nxt in self._edges(stack.pop()):
                    if nxt == root:
                        return super()._find_cycle()
                    if nxt not in visited:
                        visited.add(nxt)
                        stack.append(nxt)
        return None


class RecursiveCycleCheck(Scheduler):
    """start()'s cycle check is a recursive three-colour walk: one Python frame per task on
    the path, so a chain a thousand deep raises RecursionError."""

    def _find_cycle(self) -> list[Any] | None:
        colour: dict[int, int] = {}

        def walk(s: int) -> bool:
            colour[s] = 1
            for nxt in self._edges(s):
                if colour.get(nxt) == 1 or (nxt not in colour and walk(nxt)):
                    return True
            colour[s] = 2
            return False

        for root in self._order:
            if root not in colour and walk(root):
                return super()._find_cycle()
        return None


class EveryPathEdgeCheck(Scheduler):
    """submit() checks that the new task is not reachable from its dependencies by walking
    every path from them (no memory of the tasks already seen): exponential in the depth of
    a graph with many joins. Past :data:`PATHS` paths the walk stands for the hours it would
    take on a large DAG: it waits for ever, without using the CPU (so the verdict does not
    depend on the machine's speed, and the abandoned call slows nothing down)."""

    def submit(self, task_id: Any, deps: Any = (), fn: Any = None, **kwargs: Any) -> int:
        if isinstance(deps, (list, tuple)):
            try:
                known = set(self.task_ids())
                stack = [(d, frozenset((d,))) for d in deps if d in known]
                walked = 0
                while stack:
                    walked += 1
                    if walked > PATHS:
                        threading.Event().wait()
                    x, path = stack.pop()
                    stack.extend((y, path | {y}) for y in self.deps_of(x)
                                 if y in known and y not in path and y != task_id)
            except TypeError:
                pass  # an unhashable id: submit() says so
        return super().submit(task_id, deps, fn, **kwargs)


class CompactionForgetsNewEntries(Scheduler):
    """The ready queue deletes lazily (a cancelled task's entry stays in the heap) and compacts
    when the dead entries outnumber the live ones; the compaction rebuilds the heap from the
    heap alone, so the entries queued since the last claim, not yet merged into it, are lost:
    their tasks stay READY and no worker is ever handed them."""

    def _compact(self) -> None:
        st, stamp = self._st, self._stamp
        live = [key for key in self._heap
                if st[key & SLOT_MASK] == READY and stamp[key & SLOT_MASK] == key]
        heapify(live)
        self._clear_queue()
        self._heap = live


class GenerationComparedWithIs(Scheduler):
    """The callbacks tell the current generation from a stale one with ``is not``: right for
    the first 256 generations (CPython keeps one object for each small int), wrong from the
    257th, where a worker's report of the generation it runs -- an equal int read back from a
    message -- is taken for a stale one."""

    def _quoted(self, task_id: Any, generation: Any) -> Any:
        try:
            current = self.info(task_id).generation
        except Exception:
            return generation  # an unknown id or a malformed one: the contract's error
        if type(generation) is int and generation is not current:  # the mistake: `is not`
            return -1  # a stale generation
        return generation

    def complete(self, task_id: Any, generation: Any) -> Any:
        return super().complete(task_id, self._quoted(task_id, generation))

    def fail(self, task_id: Any, generation: Any, error: Any = None) -> Any:
        return super().fail(task_id, self._quoted(task_id, generation), error)

    def cancel(self, task_id: Any, generation: Any = None) -> Any:
        if generation is None:
            return super().cancel(task_id)
        return super().cancel(task_id, self._quoted(task_id, generation))


class ClaimsCarryTextIds(Scheduler):
    """ready() hands each claim's id over as text, as a queue of text messages between the
    scheduler and its workers would: a task submitted as 7 is claimed as '7' (every id the
    suite's rules draw is a string already, so only an id of another type shows it)."""

    def ready(self, limit: Any = None) -> Any:
        return [claim._replace(task_id=str(claim.task_id)) for claim in super().ready(limit)]


class RetryForgetsItsOwnRoot(Scheduler):
    """A cascading ``retry()`` unlinks the retried dependents from their dependencies and
    forgets a dependency left without dependents as if it were a never-submitted id -- also
    when it is a real task (the failed root itself, whose only dependents are retried with
    it): the retry raises instead of bringing the chain back."""

    def _unlink_all(self, batch: list[int]) -> None:
        members = set(batch)
        for d in {d for s in batch for d in self._deps[s]}:
            kept = [x for x in slots(self._out[d]).tolist() if x not in members]
            self._out[d] = packed(kept) if kept else None
            if not self._gen[d] or (not kept and not self._oout.get(d)):  # the mistake: `or`
                self._forget_ghost(d)
